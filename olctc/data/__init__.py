"""Data in: read and validate a table, encode it, map the two classes to -1/+1, standardise.

Every input check lives here, at the boundary; the formulation trusts what it gets.

Encoding rules
--------------
- Fields are comma-separated, or tab-, semicolon- or '|'-separated when the header line has no comma.
- A column whose every cell parses as a finite number is numeric.
- A column none of whose cells parses as a number is categorical: one-hot encoded, one feature per
  category in sorted order, named ``column=category``.
- Anything else (a number column with a stray word, an empty cell, NaN or inf, numbers written with a
  decimal comma or digit grouping: 0,5 or 1.234,5 or 1,234.5) is an error naming the column and the first bad
  line.
- The two class labels are sorted (numerically when both are numbers); the second is the positive
  class (+1) unless ``positive_class`` says otherwise.

Modules
-------
- ``cells``: one cell of a table: numbers, missing-value markers, the messages that name a bad cell.
- ``table``: the bytes of a file to rows of text cells, in chunks (separator, encoding, gzip, sha256).
- ``labels``: class labels: read, sorted, mapped to -1/+1.
- ``weights``: class weights by label and per-point weights, checked.
- ``dataset``: ``Column``, ``Schema`` (encode new rows as the training data was), ``Scaler``, ``Dataset``.
- ``csvfile``: ``read_csv``, a CSV file to a ``Dataset``.
- ``arrays``: ``from_arrays``, arrays to a ``Dataset``.
"""
from __future__ import annotations

from olctc.data.arrays import from_arrays
from olctc.data.cells import Label, line_of, non_finite
from olctc.data.csvfile import IDENTIFIER_ROWS, read_csv
from olctc.data.dataset import Column, Dataset, Scaler, Schema, check_dataset, check_real
from olctc.data.labels import binarise_labels, is_unicode, json_label
from olctc.data.table import SEPARATORS_READ, RowChunk, Table, TableStream, read_table, sniff_delimiter, table_bytes
from olctc.data.weights import check_classes_weigh, check_weights, class_weight_by_label

__all__ = ["IDENTIFIER_ROWS", "SEPARATORS_READ", "Column", "Dataset", "Label", "RowChunk", "Scaler", "Schema", "Table",
           "TableStream", "binarise_labels", "check_classes_weigh", "check_dataset", "check_real", "check_weights",
           "class_weight_by_label", "from_arrays", "is_unicode", "json_label", "line_of", "non_finite", "read_csv",
           "read_table", "sniff_delimiter", "table_bytes"]
