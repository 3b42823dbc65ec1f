"""One cell of a table: read as a number or not, missing-value markers, and the messages that name a bad
cell by column and line."""
from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np

from olctc.errors import OlctcError, number_text, shorten


Label = int | float | str


def _parse_float(s: str) -> float | None:
    try:
        value = number_text(s)  # not "1_000", which Python reads as 1000 and no CSV writer means
    except ValueError:
        return None
    # float() reads any Unicode digits ('٣' as 3, fullwidth '１２' as 12), refused as "1_000" is; the
    # whitespace around a cell (a no-break space) is no part of it. isascii() costs nothing on ASCII text.
    return value if s.isascii() or s.strip().isascii() else None


def _not_plain(vals: Sequence[Any] | np.ndarray) -> bool:
    """Whether a cell holds what ``float`` reads as a number and ``_parse_float`` refuses: an underscore
    (Python's digit grouping) or non-ASCII text once stripped (Unicode digits)."""
    if isinstance(vals, np.ndarray) and vals.dtype.kind in "biuf":  # numbers (Schema.encode of parsed cells)
        return False
    try:
        text = "".join(vals)
    except TypeError:  # not all strings (bytes, which float() also reads: h5py's and numpy's 'S' text)
        return any(_not_plain([_text(v)]) for v in vals if isinstance(v, (str, bytes)))
    # text.isascii() is a flag of the string: ASCII columns, nearly all, pay for the join only, as before
    return "_" in text or (not text.isascii() and any(not v.strip().isascii() for v in vals))


def line_of(k: int, lines: int | Sequence[int] | np.ndarray) -> int:
    """File line of data row ``k``: ``lines`` is the line of row 0 (an int) or every row's line."""
    if isinstance(lines, (int, np.integer)):
        return k + int(lines)
    return int(lines[k])


def _at(k: int, lines: int | Sequence[int] | np.ndarray | None) -> str:
    """Where value ``k`` is: its file line (``lines`` as ``line_of``'s), or ``row k`` of cells given as
    arrays (``lines`` None: Tree.encode's rows have no file line)."""
    return f"row {k}" if lines is None else f"line {line_of(k, lines)}"


def _not_a_number(source: str, name: str, at: str, cell: str) -> OlctcError:
    """``at``: where the cell is (``_at``)."""
    if _DECIMAL_COMMA.fullmatch(cell.strip()):
        return OlctcError(f"{source}: column {name!r} {at}: expected a number, got {_cell(cell)}, a number "
                          "with a comma; olctc reads numbers as 1234.5 (no decimal comma, no digit grouping)")
    if not cell.strip():  # a weight column's (feature columns' empty cells get _empty_cells' one error)
        return OlctcError(f"{source}: column {name!r} {at}: expected a number, got an empty cell; olctc does not "
                          "impute: fill or drop missing values")
    if _looks_missing(cell):  # "NA", "?": a spreadsheet's or R's missing value, which olctc does not read as one
        return OlctcError(f"{source}: column {name!r} {at}: expected a number, got {_cell(cell)}, a missing-value "
                          "marker; olctc does not impute: fill or drop missing values")
    return OlctcError(f"{source}: column {name!r} {at}: expected a number, got {_cell(cell)}")


def _is_missing(cell: Any) -> bool:
    """A missing value of Python, numpy or pandas (None, NaN, pd.NA, NaT), not a text cell such as "nan"."""
    if cell is None or type(cell).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(cell, (float, np.floating)) and math.isnan(cell)


def non_finite(value: float, where: str) -> OlctcError:
    """'X has a missing value (NaN) at WHERE; fill or drop missing values' or 'X has a non-finite value inf at
    WHERE': NaN in an array is how numpy and pandas hold a missing cell, and the CSV reader names an empty
    cell missing too."""
    if math.isnan(value):
        return OlctcError(f"X has a missing value (NaN) at {where}; fill or drop missing values")
    return OlctcError(f"X has a non-finite value {float(value)!r} at {where}")


def _missing(source: str, name: str, at: str) -> OlctcError:
    return OlctcError(f"{source}: column {name!r} {at}: a missing value; fill or drop missing values")


def _cell(cell: Any) -> str:
    """A cell for a one-line message: its repr, cut to 60 characters (a 1 MB cell made a 1 MB line)."""
    return shorten(repr(cell))


def _to_float_column(vals: Sequence[Any] | np.ndarray, name: str, source: str,
                     line_offset: int | Sequence[int] | np.ndarray | None = 2) -> np.ndarray:
    """Convert one column to finite floats, naming the first bad line (a cell that is no number before
    one that is not finite).

    ``line_offset``: the file line of ``vals[0]``, or an array of the file line of each value; None for
    values that come from no file (named by row).
    """
    return _finite_column(_parse_column(vals, name, source, line_offset), vals, name, source, line_offset)


#: Cells whose number of different texts decides how ``plain_floats`` converts them.
_SAMPLE_CELLS = 2000


def plain_floats(vals: Sequence[Any] | np.ndarray) -> np.ndarray | None:
    """``vals`` as float64, each as float() reads it; None if a cell is text float() reads and olctc refuses
    (``_not_plain``). Raises what the conversion raises (ValueError for a cell that is no number).

    A list of few different texts (0/1 and one-hot columns: at most half the first 2,000 cells differ) is converted
    one text at a time, and checked one text at a time: numpy's conversion of each cell took half of `olctc
    predict`'s time on a6a, and of read_csv's before it used this."""
    if isinstance(vals, list):
        sample = vals[:_SAMPLE_CELLS]
        if 2 * len(set(sample)) <= len(sample):
            texts = set(vals)
            if all(type(c) is str for c in texts):  # numbers as keys would merge -0.0 with 0.0
                if _not_plain(list(texts)):
                    return None
                value = {c: float(c) for c in texts}
                return np.fromiter(map(value.__getitem__, vals), np.float64, len(vals))
    return None if _not_plain(vals) else np.asarray(vals, dtype=np.float64)


def _parse_column(vals: Sequence[Any] | np.ndarray, name: str, source: str,
                  line_offset: int | Sequence[int] | np.ndarray | None = 2) -> np.ndarray:
    """One column as floats, NaN and inf included; the first cell that is no number is an error."""
    try:
        # numpy parses strings as Python does ("1_000" -> 1000, '٣' -> 3): those go the slow path, which
        # refuses them
        arr = plain_floats(vals)
    except (ValueError, TypeError, OverflowError):  # OverflowError: a Python int beyond float64
        arr = None
    if arr is not None and arr.shape != (len(vals),):  # cells that are sequences: [[1.0]], bytearray(b"2") as 50
        arr = None
    if arr is None:
        for k, v in enumerate(vals):
            if _is_missing(v):
                raise _missing(source, name, _at(k, line_offset))
            if _parse_float(_text(v).strip()) is None:
                raise _not_a_number(source, name, _at(k, line_offset), _text(v))
        arr = np.asarray([float(_text(v).strip()) for v in vals])
    return arr


def _text(cell: Any) -> str:
    """A cell's text as the fast path reads it: a bool as its number ('1' for True), bytes as their text (b'1' as
    '1'), not str()'s 'True' and "b'1'", which named a cell the fast path reads as a number where another cell
    was at fault."""
    if isinstance(cell, (bool, np.bool_)):
        return str(int(cell))
    return cell.decode("utf-8", "replace") if isinstance(cell, bytes) else str(cell)


def _finite_column(arr: np.ndarray, vals: Sequence[Any] | np.ndarray, name: str, source: str,
                   line_offset: int | Sequence[int] | np.ndarray | None = 2) -> np.ndarray:
    """``arr`` (``vals`` parsed) if all finite; else an error naming the first value that is not."""
    bad = ~np.isfinite(arr)
    if bad.any():
        k = int(np.argmax(bad))
        if _is_missing(vals[k]):
            raise _missing(source, name, _at(k, line_offset))
        raise OlctcError(f"{source}: column {name!r} {_at(k, line_offset)}: expected a finite number, "
                         f"got {_cell(vals[k])}")
    return arr


#: A number written with a comma: a decimal comma ("0,5"), with a thousands dot ("1.234,5"), or digit grouping by
#: commas ("1,234.5"); a column of these read as categories would be one-hot nonsense.
_DECIMAL_COMMA = re.compile(r"[+-]?([0-9]+,[0-9]*|,[0-9]+"
                            r"|[0-9]{1,3}(\.[0-9]{3})+,[0-9]*|[0-9]{1,3}(,[0-9]{3})+\.[0-9]*)")
_INT_TEXT = re.compile(r"[+-]?(0|[1-9][0-9]*)")
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")


def _shown(value: Any) -> Any:
    """A value for a message: numpy scalars (also a dict's keys and values) as Python's, one readable repr."""
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    return value.item() if isinstance(value, np.generic) else value


#: Labels that spreadsheets, R and pandas write for a missing value (pandas' ``na_values``, lower case, and
#: the UCI repository's "?"); a legitimate class name too, rarely: they warn, they are not refused.
_MISSING_MARKERS = frozenset({"na", "n/a", "#n/a", "#na", "<na>", "null", "none", "?"})


def _looks_missing(label: Label) -> bool:
    return isinstance(label, str) and label.strip().lower() in _MISSING_MARKERS
