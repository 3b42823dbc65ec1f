"""Cells and tables: behaviour a mutation pass over olctc/data/cells.py and table.py (QA 2026-12-07, after
test_data_csv_mutation_gaps3) found unpinned. Each test names the wrong behaviour it rules out (mutants of the
code), but one: test_a_bool_cell_is_a_number_when_another_cell_is_at_fault pins a defect the pass fixed."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pytest

from olctc.data import TableStream, read_csv
from olctc.data.labels import binarise_labels
from olctc.errors import OlctcError
from test_data import write
from test_data_csv_mutation_gaps import _encoded, _refused


def _encode_error(vals: list) -> str:
    """The message encoding one numeric column of raw cells ``vals`` is refused with."""
    with pytest.raises(OlctcError) as exc:
        _encoded(vals)
    return str(exc.value)


@pytest.mark.parametrize("cell", ["1_000", "\u0663"])
def test_a_grouped_or_unicode_number_among_numbers_is_refused(cell: str) -> None:
    """A list of numbers and text (the Python API's raw cells) is checked text by text: '1_000' among floats is
    no 1000 and '٣' no 3, as they are not in a column of text alone (m04)."""
    assert _encode_error([1.0, cell]) == f"X: column 'a' row 1: expected a number, got {cell!r}"


def test_a_blank_raw_cell_is_named_an_empty_cell() -> None:
    """A cell of spaces is as empty as '' (the hint to fill or drop), not 'expected a number, got ' '' (m13)."""
    assert _encode_error([1.0, "  "]) == ("X: column 'a' row 1: expected a number, got an empty cell; olctc does not "
                                          "impute: fill or drop missing values")


def test_a_missing_value_marker_between_spaces_is_named_one() -> None:
    """' NA ' is the marker 'NA' (the hint that olctc does not impute), whatever spaces a writer put around it
    (m45)."""
    assert _encode_error([1.0, " NA "]) == ("X: column 'a' row 1: expected a number, got ' NA ', a missing-value "
                                            "marker; olctc does not impute: fill or drop missing values")


def test_a_decimal_comma_after_a_space_gets_the_hint(tmp_path: Path) -> None:
    """A decimal comma with a space after the separator (' -1,5') is told how olctc reads numbers: the hint
    matches the stripped cell (m11)."""
    _refused(write(tmp_path, "a;y\n1;x\n -1,5;y\n2;x\n4;y\n"), "column 'a' line 3: expected a number, got ' -1,5', "
             "a number with a comma; olctc reads numbers as 1234.5 (no decimal comma, no digit grouping)")


def test_a_plus_signed_integer_label_is_read_exactly() -> None:
    """'+9007199254740993' is the integer label 9007199254740993, exact as its unsigned spelling: read through a
    float it became a third class 9007199254740992.0 (m40)."""
    y, classes = binarise_labels(["+9007199254740993", "9007199254740993", "-1", "-1"])
    assert classes == (-1, 9007199254740993) and y.tolist() == [1, 1, -1, -1]


def test_a_null_weight_is_named_a_missing_value_marker(tmp_path: Path) -> None:
    """'null' (JSON's and SQL's missing value) in a weight column is named a marker, as 'NA' is (m44)."""
    _refused(write(tmp_path, "a,w,y\n1,null,p\n2,1,q\n"), "column 'w' line 2: expected a number, got 'null', a "
             "missing-value marker; olctc does not impute: fill or drop missing values", weight_column="w")


def test_a_bad_byte_after_a_character_split_between_blocks_is_named_at_its_offset(tmp_path: Path) -> None:
    """The offset of a byte that is not UTF-8 counts the bytes of a character the decoder held back at the end of
    the previous 1 MiB block (m59)."""
    raw = b"a,y\n" + b"1,p\n" * 262142 + b"1,q\xc3\xa9\xff\n"  # '\xc3' is the last byte of the first block
    assert raw.index(b"\xc3") == (1 << 20) - 1
    p = tmp_path / "d.csv"
    p.write_bytes(raw)
    _refused(p, f"not UTF-8 text (byte 0xff at offset {(1 << 20) + 1}); save the CSV as UTF-8")


@pytest.mark.parametrize("cells, message", [
    ([False, "x"], "row 1: expected a number, got 'x'"),
    ([True, "1_000"], "row 1: expected a number, got '1_000'"),
    ([np.True_, "NA", np.False_], "row 1: expected a number, got 'NA', a missing-value marker"),
    ([True, "pd.NA", False], "row 1: a missing value; fill or drop missing values"),
    ([True, 10 ** 400], "row 1: expected a finite number, got 1000"),  # an int beyond float64: numpy refuses it
], ids=["word", "grouped", "marker", "pandas-NA", "huge-int"])
def test_a_bool_cell_is_a_number_when_another_cell_is_at_fault(cells: list, message: str) -> None:
    """Bools are numbers (1 and 0) in a numeric column, as numpy reads them; when another cell sent the column down
    the cell-by-cell path, that path read True as the text 'True' and blamed row 0 (a defect: a pandas object
    column of bools with one pd.NA was refused with "row 0: expected a number, got 'True'")."""
    if "pd.NA" in cells:
        cells = [pytest.importorskip("pandas").NA if c == "pd.NA" else c for c in cells]
    assert _encode_error(cells).startswith(f"X: column 'a' {message}")


@pytest.mark.parametrize("cells, message", [
    ([b"1_000", b"2"], "row 0: expected a number, got '1_000'"),
    (np.array([b"2", b"1_0"]), "row 1: expected a number, got '1_0'"),
    ([b"1", b"x"], "row 1: expected a number, got 'x'"),
    ([b"0,5", b"1"], "row 0: expected a number, got '0,5', a number with a comma"),
], ids=["grouped", "grouped-array", "word", "decimal-comma"])
def test_bytes_cells_are_read_as_their_text(cells: list, message: str) -> None:
    """Bytes (h5py's text, numpy's 'S' arrays) are numbers as float() reads them, so they follow the rules of text:
    b'1_000' was 1000 where '1_000' is refused, and the cell-by-cell path read b'1' as "b'1'" and blamed it."""
    assert _encode_error(cells).startswith(f"X: column 'a' {message}")
    assert _encoded([b"1", np.bytes_(b"2.5"), b" 3 "]).ravel().tolist() == [1.0, 2.5, 3.0]


def test_a_blank_first_line_is_named_whatever_separator_the_rest_uses(tmp_path: Path) -> None:
    """The separator is sniffed from line 1 alone: a blank line 1 says nothing, so a line 2 of semicolons is no
    blank line inside the data ('line 2 is blank'): the blank header is what is named (m50)."""
    _refused(write(tmp_path, "\n;\n1;2\n"), "line 1, the header, is blank or only separators: the file must start with "
             "its header line (the column names); delete the lines before it")


def test_a_corrupt_deflate_stream_is_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    """A gzip file whose compressed data is damaged (zlib's 'invalid block type', not a short file or a bad CRC) is
    one line naming the file, not zlib's traceback (m57)."""
    raw = bytearray(gzip.compress(b"a,y\n" + b"1,p\n2,q\n" * 50))
    raw[10] = 0xFF  # the first deflate block's header: block type 3, which does not exist
    p = tmp_path / "d.csv.gz"
    p.write_bytes(bytes(raw))
    _refused(p, "cannot read: Error -3 while decompressing data: invalid block type")


def test_a_file_of_whitespace_alone_is_empty(tmp_path: Path) -> None:
    """Spaces, tabs and line breaks alone are an empty file (as 0 bytes are), not 'only blank cells, no header'
    (m65)."""
    _refused(write(tmp_path, " \t\n\n  \n"), "the file is empty")


def test_chunks_up_to_a_stop_row_read_nothing_past_it(tmp_path: Path) -> None:
    """chunks(stop=k) gives rows 0..k in one chunk (size allowing) and leaves the rest unread: a ragged row after the
    stop is no error (explain --row reads up to its row), and a chunk holds at most ``size`` rows (m81, m82)."""
    p = write(tmp_path, "a,y\n1,p\n2,q\n3,r,z\n")
    assert [c.rows for c in TableStream(p).chunks(stop=1)] == [[["1", "p"], ["2", "q"]]]
    assert [(c.rows, c.first) for c in TableStream(p).chunks(size=1, stop=1)] == [([["1", "p"]], 0), ([["2", "q"]], 1)]


def test_a_repeated_name_among_columns_not_needed_is_no_fault(tmp_path: Path) -> None:
    """A header naming an unused column twice (predict's file with two 'notes') is read when the caller says which
    columns it needs; a repeat among those needed is still refused (m77)."""
    p = write(tmp_path, "a,b,b,y\n1,2,3,p\n4,5,6,q\n")
    stream = TableStream(p, needed=["a", "y"])
    assert [c.rows for c in stream.chunks()] == [[["1", "2", "3", "p"], ["4", "5", "6", "q"]]]
    with pytest.raises(OlctcError, match=f"^{re.escape(str(p))}: the header names column 'b' twice$"):
        list(TableStream(p, needed=["b", "y"]).chunks())


def test_a_stray_quote_in_a_header_spanning_two_lines_is_refused(tmp_path: Path) -> None:
    """A header whose quoted name runs over exactly two lines is checked for a stray quote as a longer one is: read
    as it is, '"y<LF>z"w' became a column of that name, one-hot encoded without a word (m83)."""
    p = write(tmp_path, 'x,"y\nz"w\n1,a\n2,b\n')
    with pytest.raises(OlctcError, match=f"^{re.escape(str(p))}: line 1: a quoted field opened here runs to line 2, "):
        read_csv(p, "x")
