"""Reading CSV data (cells, the table reader, read_csv, from_arrays): behaviour a second mutation pass over
olctc.data.csvfile, table, cells and arrays (QA 2026-12-07, after test_data_csv_mutation_gaps) found unpinned.
Each test names the wrong behaviour it rules out (mutants of the code, not defects seen in olctc)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.data import from_arrays, read_csv
from olctc.data.weights import class_weight_by_label
from olctc.errors import OlctcError
from test_data import write
from test_data_csv_mutation_gaps import _refused


def test_a_number_between_no_break_spaces_is_a_number(tmp_path: Path) -> None:
    """A no-break space around a number (a spreadsheet's) is whitespace, not text: the column stays numeric,
    so its one word is named as no number, not as a column that mixes text and numbers."""
    p = write(tmp_path, "a,y\n\xa01.5,p\n2,q\nfoo,p\n")
    _refused(p, "column 'a' line 4: expected a number, got 'foo'")


def test_an_empty_weight_cell_is_named_empty(tmp_path: Path) -> None:
    """An empty weight is a missing value to fill, said so; not "got ''"."""
    p = write(tmp_path, "a,w,y\n1,,p\n2,1,q\n")
    _refused(p, "column 'w' line 2: expected a number, got an empty cell; olctc does not impute: fill or drop "
             "missing values", weight_column="w")


def test_a_decimal_comma_without_an_integer_part_is_named(tmp_path: Path) -> None:
    """',5' is 0.5 written with a decimal comma: the message says so (a locale's CSV), not just "no number"."""
    p = write(tmp_path, 'a,y\n",5",p\n1.5,q\n')
    _refused(p, "column 'a' line 2: expected a number, got ',5', a number with a comma; olctc reads numbers as "
             "1234.5 (no decimal comma, no digit grouping)")


def test_a_class_weight_dict_of_numpy_scalars_is_shown_as_python_values() -> None:
    """A refused dict of numpy keys and values is quoted as {3: 2.0}, not {np.int64(3): np.float64(2.0)}."""
    with pytest.raises(OlctcError, match=re.escape("(3 is not one). Got {3: 2.0} instead.")):
        class_weight_by_label({np.int64(3): np.float64(2.0)}, (0, 1))


@pytest.mark.parametrize("text, also", [
    ("a,b,c,d,e,f,g,y\n1,,,,,,,p\n,2,3,4,5,6,7,q\n", "'c' (1), 'd' (1), 'e' (1), 'f' (1), 'g' (1) and 1 more column"),
    ("b,c,d,e,f,g,y\n,,,,,,p\n1,2,3,4,5,6,q\n", "'c' (1), 'd' (1), 'e' (1), 'f' (1), 'g' (1)"),
    ("b,c,d,e,f,g,h,i,y\n,,,,,,,,p\n1,2,3,4,5,6,7,8,q\n",
     "'c' (1), 'd' (1), 'e' (1), 'f' (1), 'g' (1) and 2 more columns"),
])
def test_empty_cells_name_five_other_columns_then_a_count(tmp_path: Path, text: str, also: str) -> None:
    """Empty cells in 7 (6) columns: the first named, five others listed with their counts, a 7th counted."""
    _refused(write(tmp_path, text), f"column 'b' line 2: empty cell (1 in this column; empty cells also in {also}); "
             "fill or drop missing values")


def test_each_columns_empty_cells_are_counted(tmp_path: Path) -> None:
    """The count is of the column's empty cells (2), not 1 for the first one named."""
    _refused(write(tmp_path, "a,b,y\n1,,p\n2,,q\n3,1,p\n"), "column 'b' line 2: empty cell (2 in this column); fill")


def test_a_text_column_may_hold_a_value_with_a_decimal_comma(tmp_path: Path) -> None:
    """Only a column of numbers and decimal-comma numbers is refused as such: among words, '1,5' is a category."""
    ds = read_csv(write(tmp_path, 'a,y\nred,p\n"1,5",q\nred,q\n'), "y")
    assert ds.feature_names == ["a=1,5", "a=red"] and ds.X.tolist() == [[0, 1], [1, 0], [0, 1]]


@pytest.mark.parametrize("text, message", [
    ("a,y\n1,p\n12#3,q\n", "column 'a' line 3: expected a number, got '12#3'"),  # not 12, '#3' a comment
    ("a,y\n1,p\ninf,q\n", "column 'a' line 3: expected a finite number, got 'inf'"),
    ("a,b,y\n1,1,p\n2,x,q\n3,y,p\n", "column 'b' mixes text and numbers (line 2 has '1'); make it all text"),
])
def test_a_column_of_numbers_that_turns_to_text_in_a_later_chunk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 text: str, message: str) -> None:
    """A column read as numbers in the first chunk and not in a later one: the file is read again whole and the
    cell named (not read as 12 by a comment character, as inf, or one-hot encoded from the later rows only)."""
    import olctc.data.table as table

    monkeypatch.setattr(table, "CHUNK_CELLS", 2)  # a chunk of one row
    _refused(write(tmp_path, text), message)


def test_a_column_to_drop_named_by_one_string_is_one_name(tmp_path: Path) -> None:
    """drop="ab" is the column 'ab', not the columns 'a' and 'b' (a string is iterable)."""
    ds = read_csv(write(tmp_path, "ab,b,y\n1,2,p\n3,4,q\n"), "y", drop="ab")
    assert ds.feature_names == ["b"] and ds.dropped == ("ab",)


@pytest.mark.parametrize("kind, data, byte", [
    ("xz", b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4F", "0xfd at offset 0"),
    ("zstd", b"\x28\xb5\x2f\xfd\x24\x0c\x61\x00", "0xb5 at offset 1"),
])
def test_an_xz_or_zstd_file_is_named_with_the_fix(tmp_path: Path, kind: str, data: bytes, byte: str) -> None:
    """A compressed file olctc does not read is named (xz, zstd) with "decompress it", not "save as UTF-8"."""
    p = tmp_path / "t.csv"
    p.write_bytes(data)
    _refused(p, f"not UTF-8 text (byte {byte}); it is {kind}-compressed: decompress it (olctc reads gzip or "
             "uncompressed files)")


def test_a_truncated_gzip_is_named_before_a_bad_byte_early_in_it(tmp_path: Path) -> None:
    """A bad byte in the first megabyte of a gzip file cut short: the truncation (the file's own fault, found
    reading on) is named, as reading the file whole named it, not the byte."""
    import gzip
    import random

    p = tmp_path / "t.csv.gz"
    p.write_bytes(gzip.compress(b"a,y\n\xff,p\n" + random.Random(0).randbytes(1_500_000).hex().encode())[:-100])
    _refused(p, "cannot read: ")


def test_a_file_of_separators_only_has_no_header(tmp_path: Path) -> None:
    """A header of blank cells and nothing after it: "only blank cells, no header", not the message for a blank
    line 1 before the data."""
    _refused(write(tmp_path, ",\n"), "the file has only blank cells, no header")


@pytest.mark.parametrize("text", ["a;b\tc\ty\n1\t2\n", "a|b;c;y\n1;2\n"])
def test_no_comma_hint_for_a_file_not_read_as_comma_separated(tmp_path: Path, text: str) -> None:
    """A ragged row of a tab- or ';'-separated file whose names hold another separator: the message is the ragged
    row's alone, not "the header was read as comma-separated" (it was not)."""
    p = write(tmp_path, text)
    with pytest.raises(OlctcError, match=re.escape(f"{p}: line 2 has 2 fields, the header has 3") + "$"):
        read_csv(p, "y")


def test_a_name_not_close_to_any_column_gets_no_suggestion(tmp_path: Path) -> None:
    """'bxb' is not 'bbb' (ratio 0.67 < 0.75): no "did you mean" that would send the user to the wrong column."""
    p = write(tmp_path, "aa,bbb,y\n1,2,p\n3,4,q\n")
    with pytest.raises(OlctcError, match=re.escape(f"{p}: target column 'bxb' not found; columns are: aa, bbb, y")
                       + "$"):
        read_csv(p, "bxb")


def test_no_missing_marker_warning_without_warn_identifiers(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    """warn_identifiers=False (decode re-reading the data) also silences the 'NA' label warning: said once."""
    ds = read_csv(write(tmp_path, "a,y\n1,p\n2,NA\n3,p\n"), "y", warn_identifiers=False)
    assert ds.classes == ("NA", "p") and not [w for w in recwarn if "missing value" in str(w.message)]


@pytest.mark.parametrize("text, features, X", [
    ("a,b,c,y\n1,x,2,p\n3,z,4,q\n", ["a", "b=x", "b=z", "c"], [[1, 1, 0, 2], [3, 0, 1, 4]]),
    ("a,b,c,d,e,f,g,h,i,j,k,y\n1,2,3,4,5,6,7,8,9,x,0,p\n1,2,3,4,5,6,7,8,9,z,0,q\n",
     ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j=x", "j=z", "k"],
     [[1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 0, 0], [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 0]]),
])
def test_numbers_around_a_text_column_keep_their_places(tmp_path: Path, text: str, features: list[str],
                                                         X: list[list[float]]) -> None:
    """The numeric columns on either side of a text column are taken out of each row by place (few or many
    others): a column taken out in the wrong order shifts the rest."""
    ds = read_csv(write(tmp_path, text), "y")
    assert ds.feature_names == features and ds.X.tolist() == X


def test_a_dataframe_with_a_column_not_named_by_text_gets_positional_names() -> None:
    """A DataFrame with an integer column name: features x0, x1 (one name of each kind would mix '3' and 'a')."""
    pd = pytest.importorskip("pandas")
    assert from_arrays(pd.DataFrame({"a": [1.0, 2.0], 3: [1.0, 2.0]}), [0, 1]).feature_names == ["x0", "x1"]


@pytest.mark.parametrize("missing, shown", [
    (np.float32("nan"), "nan"),
    (np.datetime64("NaT", "D"), "None"),  # an object array of dates holds NaT as None
])
def test_a_missing_label_is_shown_as_python_shows_it(missing: Any, shown: str) -> None:
    """The unlabelled row's value is quoted as Python's (nan), not numpy's repr (np.float32(nan))."""
    y = np.array([1.0, missing], dtype=object) if shown == "nan" else np.array(["2024-01-01", missing],
                                                                               dtype="datetime64[D]")
    with pytest.raises(OlctcError, match=re.escape(f"y row 1: no class label ({shown}); drop the unlabelled rows")):
        from_arrays([[1.0], [2.0]], y)


def test_column_names_given_with_spaces_name_the_stripped_columns(tmp_path: Path) -> None:
    """target, drop and weight_column typed with spaces (a shell quoting slip) name the columns without them,
    as the header's names are stripped; an empty weight column name is named as such, not as "not in the file"."""
    p = write(tmp_path, "a,b,w,y\n1,2,1,p\n3,4,2,q\n")
    ds = read_csv(p, " y ", drop=[" a "], weight_column=" w ")
    assert ds.feature_names == ["b"] and ds.dropped == ("a",) and ds.weight.tolist() == [1.0, 2.0]
    _refused(p, "the weight column must be named by a column of the header; got ''", weight_column=" ")
