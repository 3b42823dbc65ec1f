"""Cells, labels, weights and the CSV reader: behaviour a second mutation pass over olctc.data (QA 2026-12-06,
after test_data_mutation_gaps) found unpinned. Each test names the wrong behaviour it rules out (mutants of the
code, not defects seen in olctc)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from olctc.data import read_csv
from olctc.data.dataset import Column, Schema
from olctc.data.labels import binarise_labels
from olctc.data.weights import class_weight_by_label
from olctc.errors import OlctcError
from test_data import write


def _refused(p: Path, message: str, **kw) -> None:
    """read_csv(p, "y", **kw) refuses the file with ``message`` (plain text) after the file's name."""
    with pytest.raises(OlctcError, match=re.escape(f"{p}: {message}")):
        read_csv(p, "y", **kw)


def _encoded(vals: list) -> np.ndarray:
    """One numeric column of raw cells (as Tree.encode and explain give them) encoded."""
    return Schema((Column("a", "numeric"),)).encode({"a": vals}, "X")


@pytest.mark.parametrize("cell", ["NA", None, "NaT"])
def test_missing_cells_of_python_and_pandas_are_named_missing(cell):
    # pandas' NA and NaT and Python's None are a missing value at their row, not the text '<NA>' (a marker)
    # nor 'expected a finite number, got None'
    if cell in ("NA", "NaT"):
        cell = getattr(pytest.importorskip("pandas"), cell)
    with pytest.raises(OlctcError, match=r"^X: column 'a' row 1: a missing value; fill or drop missing values$"):
        _encoded([1.0, cell, 2.0])


@pytest.mark.parametrize("cells", [[(1.0,), (2.0,), (3.0,)], [[1.0], [2.0], [3.0]]])
def test_a_cell_that_is_a_sequence_is_no_number(cells):
    # cells of one number each are no column of numbers (numpy reads them as a (3, 1) array): the first is named
    with pytest.raises(OlctcError, match=re.escape(f"column 'a' row 0: expected a number, got {str(cells[0])!r}")):
        _encoded(cells)


def test_a_number_ending_in_a_comma_is_a_decimal_comma(tmp_path):
    # '3,' in a semicolon file is a number written with a comma (the hint), not some other text
    p = write(tmp_path, "a;y\n1;x\n3,;y\n2;x\n4;y\n")
    _refused(p, "column 'a' line 3: expected a number, got '3,', a number with a comma")


@pytest.mark.parametrize("code, number", [("-007", -7), ("+007", 7)])
def test_a_signed_leading_zero_label_is_a_code(code, number):
    # '-007' is a code as '007' is, a class apart from the number -7
    y, classes = binarise_labels([code, str(number), code, str(number)])
    assert classes == (number, code) and y.tolist() == [1, -1, 1, -1]


@pytest.mark.parametrize("text", ["inf", "-Infinity"])
def test_an_infinite_label_is_text(text):
    # a label 'inf' is the text 'inf', not the float inf (which no JSON tree can hold)
    _, classes = binarise_labels([text, "x", text, "x"])
    assert classes == (text, "x") and all(type(c) is str for c in classes)


def test_three_classes_one_a_missing_marker_get_the_hint():
    # of three classes, one that reads as a missing value ('NA') is named as the likely unlabelled rows
    with pytest.raises(OlctcError, match=r"has 3 classes \['NA', 'a', 'b'\].*; 'NA' looks like a missing label: "
                                         r"drop those rows$"):
        binarise_labels(["a", "b", "NA", "a"], source="f.csv")


def test_a_positive_class_matches_a_label_by_its_text():
    # np.float32(0.1) is not the float 0.1, but its text is: it names the class 0.1 (as class_weight's labels do)
    y, classes = binarise_labels(["0.1", "0.2", "0.1", "0.2"], positive_class=np.float32(0.1))
    assert classes == (0.2, 0.1) and y.tolist() == [1, -1, 1, -1]


@pytest.mark.parametrize("positive", ["1.0", 1.0, " 1e0"])
def test_a_positive_class_matches_a_label_by_its_value(positive):
    # --positive-class 1.0 names the class read from the cells '1' (the same number), not only the text '1'
    y, classes = binarise_labels(["1", "2", "1", "2"], positive_class=positive)
    assert classes == (2, 1) and y.tolist() == [1, -1, 1, -1]


def test_the_rest_of_several_classes_is_named_not_the_positive():
    # one class against the rest: the negative class is 'not a', not one of the others ('b')
    y, classes = binarise_labels(["a", "b", "c", "a"], positive_class="a")
    assert classes == ("not a", "a") and y.tolist() == [1, -1, -1, 1]


def test_a_negative_class_of_no_unicode_text_is_refused():
    # the negative class's label is checked too: its tree could not be saved as UTF-8
    with pytest.raises(OlctcError, match="class label '\\\\ud800' of target 'y' is not valid Unicode"):
        binarise_labels(["a", "\ud800", "a", "\ud800"], positive_class="a")


#: A file whose second data row spans lines 3-4: a row's file line is not its index + 2.
_SPANNING = 'x,y\n1,a\n"2\n",b\n'


def test_an_unlabelled_row_is_named_by_its_file_line(tmp_path):
    # the row after a cell spanning two lines starts on line 5
    _refused(write(tmp_path, _SPANNING + "3,\n4,a\n"), "target 'y' line 5: no class label ('')")


def test_a_bad_weight_is_named_by_its_file_line(tmp_path):
    # the weight column's messages name the file line of the row, after a cell spanning lines too
    p = write(tmp_path, 'x,w,y\n1,1,a\n"2\n",1,b\n3,-2,a\n4,1,b\n')
    _refused(p, "weight column 'w': line 5: expected a weight >= 0, got -2.0", weight_column="w")


def test_a_marker_label_among_the_rest_warns_with_its_line(tmp_path):
    # with --positive-class, a label 'NA' among the rest trains as 'not a': said, naming its line and class
    p = write(tmp_path, _SPANNING + "3,NA\n4,a\n")
    with pytest.warns(UserWarning, match=re.escape(f"{p}: target 'y' line 5: label 'NA' looks like a missing value, "
                                                   "yet trains as class 'not a'")):
        read_csv(p, "y", positive_class="a")


def test_a_marker_label_chosen_as_positive_does_not_warn(tmp_path):
    # a label 'NA' chosen as the positive class is meant: no warning
    import warnings

    p = write(tmp_path, "x,y\n1,NA\n2,b\n3,NA\n4,b\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_csv(p, "y", positive_class="NA").classes == ("b", "NA")


@pytest.mark.parametrize("request_", ["=3", "a=1,b"])
def test_malformed_class_weights_are_refused_whole(request_):
    # a weight without a label, or a label left without '=WEIGHT' at the end, is malformed: not read in part
    with pytest.raises(OlctcError, match=re.escape("must be 'balanced' or weights by class label")):
        class_weight_by_label(request_, ("a", "b"))


def test_class_weight_labels_may_hold_commas_and_equals_signs():
    # 'x=1, y=3' is class 'x=1, y' weighing 3 when that is a class, not the classes 'x' and 'y'
    assert class_weight_by_label("x=1, y=3", ("x=1, y", "z")) == (3.0, 1.0)


@pytest.mark.parametrize("raw, classes", [([True, False, True], (0, 1)), ([1.0, 0.0, 1.0], (0, 1)),
                                          ([np.float64(2.0), np.int64(0), 2], (0, 2)), (["b", 1, "b"], (1, "b"))])
def test_label_values_are_python_numbers_sorted_before_text(raw, classes):
    # bools and integral floats are the integers they equal (as the CSV reader's '1.0' is 1), and numbers sort
    # before text: the positive class is the second
    y, got = binarise_labels(raw)
    assert got == classes and [type(c) for c in got] == [type(c) for c in classes]
    assert y.tolist() == [1 if v == classes[1] else -1 for v in raw]


@pytest.mark.parametrize("cell", ["nan", "-NaN", " "])
def test_a_nan_or_blank_label_is_no_class(tmp_path, cell):
    # pandas writes a missing label as '' or 'nan': no class, named at its line
    _refused(write(tmp_path, f"x,y\n1,a\n2,{cell}\n3,b\n"), f"target 'y' line 3: no class label ({cell!r})")


@pytest.mark.parametrize("text, message", [
    # the column whose empty cell comes first is named, the others counted after it
    ("a,b,y\n1,2,p\n2,,q\n,3,p\n4,5,q\n",
     "column 'b' line 3: empty cell (1 in this column; empty cells also in 'a' (1))"),
    # of two faulty columns, the one faulty on the earlier row is named, whatever the columns' order
    ("a,b,y\n1,2,p\n2,x,q\n3,y,p\nz,4,q\n5,5,p\n", "column 'b' line 3: expected a number, got 'x'"),
    # a column half numbers is numbers with a bad cell (its first), not a mix of text and numbers
    ("a,y\n1,p\n2,q\nx,p\ny,q\n", "column 'a' line 4: expected a number, got 'x'"),
    # a column mostly text is a mix: its first number is named
    ("a,y\na,p\nb,q\nc,p\n1,q\n", "column 'a' mixes text and numbers (line 5 has '1')"),
    # a row spanning lines with too many fields is named by its first line
    ('x,y\n1,a\n"2\n",b,c\n3,a\n', "line 3 has 3 fields, the header has 2"),
    ("x,y\n1,a\n\n2,b\n", "line 3 is blank; remove blank lines inside the data"),
])
def test_the_first_faulty_cell_is_named(tmp_path, text, message):
    _refused(write(tmp_path, text), message)


def test_dropped_columns_are_recorded_in_the_files_order(tmp_path):
    # --drop c --drop a records ('a', 'c'): the manifest is the same whatever order the user gave
    ds = read_csv(write(tmp_path, "a,b,c,y\n1,2,3,p\n2,3,4,q\n"), "y", drop=["c", "a"])
    assert ds.dropped == ("a", "c") and ds.feature_names == ["b"]


def test_a_class_weighing_nothing_is_named(tmp_path):
    # the class all of whose rows weigh 0 is named (not the other one), as is the weight column
    p = write(tmp_path, "x,w,y\n1,0,a\n2,1,b\n3,0,a\n4,2,b\n")
    _refused(p, "weight column 'w': every point of class 'a' weighs 0, which leaves one class", weight_column="w")


@pytest.mark.parametrize("request_, classes, twice", [("a=1,a=2", ("a", "b"), "a"), ({"1": 2, 1: 3}, (0, 1), 1)])
def test_a_class_weighed_twice_is_refused(request_, classes, twice):
    # a class named twice (also as its value and its text) is an error, not the last weight winning
    with pytest.raises(OlctcError, match=re.escape(f"one weight per class (class {twice!r} has two)")):
        class_weight_by_label(request_, classes)


def test_a_class_weight_matches_a_label_by_its_text():
    # np.float32(0.1) is not the float 0.1, but its text is: it names the class 0.1, as positive_class does
    assert class_weight_by_label({np.float32(0.1): 2}, (0.1, 0.2)) == (2.0, 1.0)


@pytest.mark.parametrize("data, features", [
    ('"a,b";c;y\n1;2;p\n3;4;q\n'.encode(), ["a,b", "c"]),  # a comma inside a quoted name does not decide
    (b"a\tb;c\ty\n1\t2\tp\n3\t4\tq\n", ["a", "b;c"]),  # tabs before semicolons
    (b"\xef\xbb\xbfa,y\n1,p\n3,q\n", ["a"]),  # a UTF-8 byte-order mark is no part of the first name
    (b"a,y\r1,p\r3,q\r", ["a"]),  # old Mac line ends
    (b"a,y\n1,p\n3,q\n  ,  \n\n", ["a"]),  # trailing rows of blanks are dropped
])
def test_separators_and_line_ends_are_read(tmp_path, data, features):
    p = tmp_path / "t.csv"
    p.write_bytes(data)
    ds = read_csv(p, "y")
    assert ds.feature_names == features and ds.classes == ("p", "q")
    assert ds.X.tolist() == ([[1, 2], [3, 4]] if len(features) == 2 else [[1], [3]])


@pytest.mark.parametrize("text, kw, message", [
    ("a,b,y\n1,nan,p\n2,3,q\n3,4,p\n", {}, "column 'b' line 2: expected a finite number, got 'nan'"),
    ("a=x,a,y\n1,x,p\n2,y,q\n", {}, "feature 'a=x' would come from column 'a=x' and from category 'x' of column 'a'"),
    ("a,y\n1,p\n2,q\n", {"weight_column": "y"}, "weight column 'y' is the target column"),
    ("a,w,y\n1,1,p\n2,1,q\n", {"weight_column": "w", "drop": ["w"]},
     "weight column 'w' is also a column to drop; name it once"),
])
def test_conflicting_columns_and_bad_numbers_are_refused(tmp_path, text, kw, message):
    _refused(write(tmp_path, text), message, **kw)


def test_one_hot_size_limit_names_the_widest_text_column(tmp_path, monkeypatch):
    # rows x categories up to max_one_hot is read; one more is refused, naming the column of most categories
    import olctc.data.csvfile as csvfile

    monkeypatch.setattr(csvfile, "ONE_HOT_EARLY", 0)  # the limit speaks for any size, not only above 10 million
    p = write(tmp_path, "c,d,y\nu,a,p\nv,b,q\nu,c,p\nv,d,q\n")  # 4 rows x (2 + 4) categories = 24 values
    assert read_csv(p, "y", max_one_hot=24, warn_identifiers=False).X.shape == (4, 6)
    _refused(p, "one-hot encoding its text columns gives 6 features on 4 rows, 24 values (no model within "
             "--max-nonzeros 23 fits them); column 'd' alone has 4 different values", max_one_hot=23,
             warn_identifiers=False)
    with pytest.raises(OlctcError, match="max_one_hot"):
        read_csv(p, "y", max_one_hot=0)


@pytest.mark.parametrize("text, kw, message", [
    ("Yy,a,YY\n1,p,3\n2,q,4\n", {"target": "yY"}, "target column 'yY' not found; columns are: Yy, a, YY; did you "
     "mean 'Yy'?"),  # of names differing in case only, the first is suggested
    ("a y\n1 p\n2 q\n", {}, "target column 'y' not found: the header is one column 'a y'; olctc reads comma-"),
    ("a,y\n1,p\n", {}, "1 data row(s); at least 2 points are needed"),
    ("w,y\n1,p\n2,q\n", {"weight_column": "w"}, "no feature columns besides the target 'y' and the weight column 'w'"),
    ("a,,y\n1,2,p\n2,3,q\n", {}, "the header's column 2 (after 'a') has no name; name it"),
    ("a,y,\n1,p,\n2,q,\n", {}, "the header's last column (column 3) has no name: the header line ends with the "
     "separator ','"),
])
def test_header_faults_are_named(tmp_path, text, kw, message):
    target = kw.pop("target", "y")
    p = write(tmp_path, text)
    with pytest.raises(OlctcError, match=re.escape(f"{p}: {message}")):
        read_csv(p, target, **kw)


def test_a_gzip_files_name_is_its_first_dotted_part(tmp_path):
    # data.v2.csv.gz is the data 'data' (its trees' meta), read through gzip
    import gzip

    p = tmp_path / "data.v2.csv.gz"
    p.write_bytes(gzip.compress(b"a,y\n1,p\n2,q\n"))
    assert read_csv(p, "y").name == "data"


def test_a_quoted_label_spanning_lines_then_a_blank_is_one_cell(tmp_path):
    # a blank after a quoted field's closing '"' is no stray text: the field is the label 'b\nc'
    p = tmp_path / "t.csv"
    p.write_bytes(b'x,y\n1,a\n2,"b\nc" \n3,a\n4,"b\nc"\n')
    assert read_csv(p, "y").classes == ("a", "b\nc")


@pytest.mark.parametrize("data, message", [
    (b'x,y\n1,a\n2,b\n3,"a\n4,b\n5,a\n', "line 4: a quoted field opened here is never closed"),
    (b'x,y\n1,a\n2,"b\nc"d\n3,a\n4,b\n', "line 3: a quoted field opened here runs to line 4, where a '\"' followed by "
     "'d', not a separator, closes it"),
    (b"x,y\n1,a\n2,b\r3,a\n4,b\n", "line 3: a carriage return ('\\r') inside an unquoted cell"),
])
def test_quoting_faults_name_their_line(tmp_path, data, message):
    p = tmp_path / "t.csv"
    p.write_bytes(data)
    _refused(p, message)
