"""``read_csv``: a CSV file to a ``Dataset``, every cell checked, columns told numeric or categorical, text
columns one-hot encoded (see the package docstring for the rules)."""
from __future__ import annotations

import array
import contextlib
import csv
import io
import itertools
import math
import operator
import os
import re
from collections.abc import Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Collection, NamedTuple, Sequence

import numpy as np

from olctc.data.cells import (_DECIMAL_COMMA, _at, _cell, line_of, _looks_missing, _not_a_number, _parse_float,
                              _to_float_column, plain_floats)
from olctc.data.dataset import Column, Dataset, Schema
from olctc.data.labels import binarise_labels, _no_label, _warn_missing_marker
from olctc.data.table import SEPARATORS_READ, RowChunk, Table, TableStream, headerless_hint, read_table
from olctc.data.weights import check_weights
from olctc.errors import OlctcError, check_flags, is_integer, param_error, shorten, warn
from olctc.io import read_once


class _EmptyCell(OlctcError):
    """A feature column with an empty cell: ``read_csv`` names every such column in one message."""


def _row(exc: OlctcError, k: int) -> OlctcError:
    """``exc`` marked with the data row it names (``read_csv`` names the file's first faulty row's fault)."""
    exc.row = k  # type: ignore[attr-defined]
    return exc


def _empty_cells(columns: Mapping[int, Sequence[str]], header: Sequence[str], feats: Sequence[str], source: str,
                 lines: int | Sequence[int] | np.ndarray) -> OlctcError:
    """One error for all the feature columns with empty cells, the first cell of the first named: olctc
    does not impute, and naming one column sent the user back once per column. ``columns``: the cells of
    the columns read as text, by header index (a column read as numbers has no empty cell)."""
    empty = []
    for h in feats:
        ks = [k for k, v in enumerate(columns.get(header.index(h), ())) if v.strip() == ""]
        if ks:
            empty.append((h, ks))
    empty.sort(key=lambda e: e[1][0])  # the first empty row's column first (stable: then the file's order)
    (name, ks), rest = empty[0], empty[1:]
    more = len(rest) - 5
    also = "" if not rest else "; empty cells also in " + ", ".join(
        f"{h!r} ({len(k)})" for h, k in rest[:5]) + (f" and {more} more column{'s' * (more > 1)}" if more > 0 else "")
    return OlctcError(f"{source}: column {name!r} {_at(ks[0], lines)}: empty cell ({len(ks)} in this column{also}); "
                      "fill or drop missing values (olctc does not impute), or leave a column out (--drop; drop= in "
                      "Python)")


def _column_kind(name: str, vals: Sequence[str], source: str,
                 lines: int | Sequence[int] | np.ndarray = 2) -> Column:
    """Numeric or categorical; ``lines`` as ``_to_float_column``'s ``line_offset``."""
    # "NaN" or "Inf" among words is a category, not a number: only finite values count as numbers.
    parsed = [f if f is not None and math.isfinite(f) else None for f in map(_parse_float, vals)]
    n_num = sum(p is not None for p in parsed)
    empty = next((k for k, v in enumerate(vals) if v.strip() == ""), None)
    if empty is not None:
        raise _row(_EmptyCell(name), empty)
    if n_num == len(vals):
        return Column(name, "numeric")
    k = next(k for k, p in enumerate(parsed) if p is None)
    if all(p is not None or _DECIMAL_COMMA.fullmatch(v.strip()) for p, v in zip(parsed, vals)):
        # one-hot encoding "0,5" and "1,25" as categories would train on nonsense without a word
        raise _row(_not_a_number(source, name, _at(k, lines), vals[k]), k)
    if n_num == 0:
        return Column(name, "categorical", tuple(sorted(set(str(v).strip() for v in vals))))
    if n_num >= len(vals) / 2:
        if _parse_float(vals[k]) is None:
            raise _row(_not_a_number(source, name, _at(k, lines), vals[k]), k)
        raise _row(OlctcError(f"{source}: column {name!r} {_at(k, lines)}: expected a finite number, "
                              f"got {_cell(vals[k])}"), k)
    k = next(k for k, p in enumerate(parsed) if p is not None)
    raise _row(OlctcError(f"{source}: column {name!r} mixes text and numbers ({_at(k, lines)} has "
                          f"{_cell(vals[k])}); make it all text (categorical) or all numbers"), k)


def _all_numeric(table: Table, idx: list[int]) -> np.ndarray | None:
    """Fast path: the whole feature block parses as finite floats in one numpy call, or None."""
    n = len(table.rows)
    try:
        # comments=None: loadtxt would otherwise read "12#3" as 12, where the slow path refuses it
        X = np.loadtxt(io.StringIO(table.text), delimiter=table.delimiter, skiprows=1, usecols=idx, dtype=np.float64,
                       quotechar='"', ndmin=2, comments=None)
    except ValueError:
        return None
    if X.shape != (n, len(idx)):
        return None
    return X if np.isfinite(X).all() else None


def _check_unique_features(schema: Schema, source: str) -> None:
    owner: dict[str, str] = {}
    for col in schema.columns:
        for name in col.feature_names():
            where = f"column {col.name!r}" if col.kind == "numeric" else \
                f"category {name[len(col.name) + 1:]!r} of column {col.name!r}"
            if name in owner:
                raise OlctcError(f"{source}: feature {name!r} would come from {owner[name]} and from {where}; "
                                 "rename one of the columns")
            owner[name] = where


# A text column with a different value on every row of at least this many is likely an identifier.
IDENTIFIER_ROWS = 20


def read_csv(path: str | Path, target: str, positive_class: Any = None, drop: Sequence[str] = (), *,
             warn_identifiers: bool = True, weight_column: str | None = None,
             max_one_hot: int | None = None) -> Dataset:
    """Read, validate and encode a CSV file whose column ``target`` holds two classes.

    ``drop`` names columns to leave out (identifiers, free text, leaks). With ``warn_identifiers``, a
    text column whose every value differs (an identifier, one-hot encoded into one feature per row) is
    reported by a warning that says how to leave it out. ``weight_column`` names a column of per-point
    loss weights (numbers >= 0), which is then not a feature. ``max_one_hot`` refuses, before encoding,
    text columns whose one-hot encoding holds more values (rows x categories) than a model may have
    nonzeros (compile's ``max_nonzeros``) and more than ``ONE_HOT_EARLY`` (10 million: below that the encoding
    is cheap, and ``compile_problem(max_nonzeros=...)`` refuses the model, naming its size); None: no limit
    (decode re-reads data a model was built on).
    """
    from olctc.io import check_path

    path = check_path(path, "path")
    check_flags(warn_identifiers=warn_identifiers)
    if max_one_hot is not None and (not is_integer(max_one_hot) or max_one_hot < 1):
        raise param_error("max_one_hot", "None or an integer >= 1 (one-hot values: rows x categories)", max_one_hot)
    if isinstance(drop, str):
        drop = (drop,)
    elif drop is None:
        drop = ()
    elif not isinstance(drop, Iterable):  # drop=3: "'int' object is not iterable"
        raise param_error("drop", "a column name or a list of column names", drop)
    # The reader strips every header name, as it strips cells: a name typed with spaces (--target " y",
    # a shell quoting slip) can only mean the column without them.
    target = target.strip() if isinstance(target, str) else target
    drop = tuple(d.strip() if isinstance(d, str) else d for d in drop)
    if isinstance(weight_column, str):
        weight_column = weight_column.strip()
    if weight_column is not None:
        if not isinstance(weight_column, str) or not weight_column:
            raise OlctcError(f"{path}: the weight column must be named by a column of the header; got "
                             f"{weight_column!r}")
        if weight_column == target:
            raise OlctcError(f"{path}: weight column {weight_column!r} is the target column")
        if weight_column in drop:
            raise OlctcError(f"{path}: weight column {weight_column!r} is also a column to drop; name it once")
    read = _read_columns(path, target, drop, weight_column)
    header, lines = read.header, read.lines
    src = str(path)
    if target not in header:
        if len(header) == 1:
            # a number is a data row read as the header, not a line of other separators
            why = headerless_hint(header) or f"; {SEPARATORS_READ}"
            raise OlctcError(f"{src}: target column {target!r} not found: the header is one column "
                             f"{shorten(header[0])!r}{why}")
        raise OlctcError(f"{src}: target column {target!r} not found; columns are: {_columns_text(header, target)}"
                         f"{headerless_hint(header)}")
    if read.n < 2:
        raise OlctcError(f"{src}: {read.n} data row(s); at least 2 points are needed")
    ti = header.index(target)
    dropped = tuple(dict.fromkeys(drop))
    for name in dropped:
        if name == target:
            raise OlctcError(f"{src}: column {name!r} to drop is the target column")
        if name not in header:
            raise OlctcError(f"{src}: column {name!r} to drop is not in the file; columns are: "
                             f"{_columns_text(header, name)}")
    dropped = tuple(h for h in header if h in dropped)  # the file's order: the manifest is the same for any order
    if weight_column is not None and weight_column not in header:
        raise OlctcError(f"{src}: weight column {weight_column!r} is not in the file; columns are: "
                         f"{_columns_text(header, weight_column)}")
    feats = [h for h in header if h not in (target, weight_column) and h not in dropped]
    if not feats:
        left = f"besides the target {target!r}" if not dropped else f"left once the dropped ones are out " \
            f"({target!r} is the target)"
        if weight_column is not None:  # the weight column is no feature: saying "besides the target" hid it
            left += f" and the weight column {weight_column!r}"
        raise OlctcError(f"{src}: no feature columns {left}")
    raw = read.cells[ti]
    labels = [v.strip() for v in raw]
    missing = next((k for k, v in enumerate(labels) if _no_label(v)), None)
    if missing is not None:
        raise OlctcError(f"{src}: target {target!r} line {lines[missing]}: no class label "
                         f"({raw[missing]!r}); drop the unlabelled rows")
    y, classes = binarise_labels(labels, positive_class, src, target)
    if warn_identifiers:  # as the identifier warning: said once, at compile, not again at decode
        _warn_missing_marker(labels, y, classes, positive_class is not None, src, target, lines)
    weight = None
    if weight_column is not None:
        wi = header.index(weight_column)
        weight = _to_float_column([v.strip() for v in read.cells[wi]], weight_column, src, lines)
        check_weights(weight, y, classes, f"{src}: weight column {weight_column!r}",
                      lambda k: f"line {line_of(k, lines)}")
    X = read.X
    if X is not None:
        schema = Schema(tuple(Column(h, "numeric") for h in feats))
    else:
        # Columns read as numbers (read.numbers) are numeric, as _column_kind finds them: no empty cell.
        cols, faults = [], []
        where = {h: j for j, h in reversed(list(enumerate(header)))}  # header.index, once per column
        for h in feats:
            try:
                cols.append(Column(h, "numeric") if h in read.numbers else
                            _column_kind(h, read.cells[where[h]], src, lines))
            except OlctcError as exc:
                faults.append(exc)
        if faults:  # the file's first faulty row's (min is stable: then the file's column order)
            first = min(faults, key=lambda e: getattr(e, "row", math.inf))
            if isinstance(first, _EmptyCell):
                raise _empty_cells(read.cells, header, feats, src, lines) from None
            raise first
        schema = Schema(tuple(cols))
        _check_unique_features(schema, src)
        if max_one_hot is not None:
            _check_one_hot_size(schema, read.n, src, max_one_hot)
        cells = {h: read.numbers[h] if h in read.numbers else [v.strip() for v in read.cells[where[h]]]
                 for h in feats}
        X = schema.encode(cells, src, read.n)
        if warn_identifiers:
            _warn_identifiers(schema, read.n, src)
            _warn_marker_categories(schema, src)
    name, source = _name_and_source(path)
    return Dataset(X, y, classes, schema, name, read.sha256, source, target, dropped=dropped,
                   weight=weight, weight_column=weight_column)


def _name_and_source(path: str | Path) -> tuple[str, str]:
    """The data's short name (trees' meta, compile's summary) and the source a manifest records.

    bash's ``<(zcat f.csv.gz)`` is /dev/fd/63, which resolves to /proc/PID/fd/pipe:[N], gone with the process
    and naming nothing a later step could open: such a pipe is "pipe", its source the path as given."""
    p = Path(path)
    once = read_once(p)
    # the name goes into trees' meta, which must be text: a byte of the file name that is not UTF-8 becomes ?
    name = "pipe" if once and p.parent.name == "fd" else p.name.split(".")[0].encode("utf-8", "replace").decode()
    return name, os.path.abspath(p) if once else str(p.resolve())


class _Read(NamedTuple):
    """A CSV file as ``read_csv`` needs it: the cells of the columns it reads as text, the feature columns
    of numbers as floats, never every cell as a Python string at once."""

    header: list[str]
    n: int  # data rows
    lines: np.ndarray  # as Table.lines
    sha256: str
    cells: dict[int, list[str]]  # by header index: the target's, the weight's, text features' cells as read
    numbers: dict[str, np.ndarray]  # feature columns whose every cell is a finite number (_column_kind's numeric)
    X: np.ndarray | None  # the feature matrix, when every feature column is numbers (else None)


def _roles(header: Sequence[str], target: str, drop: Sequence[Any], weight_column: str | None
           ) -> tuple[int, int | None, list[int]] | None:
    """Header indices of the target, the weight column and the features (in header order); None when
    ``read_csv`` will refuse the columns (a name not in the header, no features)."""
    if target not in header or (weight_column is not None and weight_column not in header):
        return None
    if any(d == target or d not in header for d in drop):
        return None
    feats = [k for k, h in enumerate(header) if h not in (target, weight_column) and h not in drop]
    if not feats:
        return None
    return header.index(target), None if weight_column is None else header.index(weight_column), feats


def _read_columns(path: str | Path, target: str, drop: Sequence[Any], weight_column: str | None) -> _Read:
    """Read ``path`` for ``read_csv``: in chunks (``TableStream``), feature columns of numbers converted
    chunk by chunk, text kept for the target, the weight and text columns only. Files where a column
    reads as numbers at first and not further on (an error, mostly), or whose text columns all read as
    numbers once stripped, are read whole (``read_table``), as read_csv always did."""
    read = _stream_columns(Path(path), target, drop, weight_column)
    return read if read is not None else _whole_columns(path, target, drop, weight_column)


def _stream_columns(path: Path, target: str, drop: Sequence[Any], weight_column: str | None) -> _Read | None:
    stream = CsvStream(path, digest=True)
    header = stream.header
    roles = _roles(header, target, drop, weight_column)
    lines = array.array("q")
    cells: dict[int, list[str]] = {}
    num: list[int] = []  # header indices of the feature columns read as numbers so far, features' order
    numbers = _Rows()
    if roles is not None:
        ti, wi, feats = roles
        num = list(feats)
        cells = {j: [] for j in (ti, wi) if j is not None}
    chunks = stream.chunks()
    for chunk in chunks:
        rows = chunk.rows
        lines.extend(chunk.lines)
        if roles is None:
            continue  # read for the file's own errors, which come first; read_csv then names the column
        for j, col in cells.items():
            col += [r[j] for r in rows]
        if not num:
            continue
        blk = _number_block(rows, num)
        if blk is None:
            if not chunk.first:  # text columns, found on the first rows: kept as text
                text = [j for j in num if _number_block(rows, [j]) is None]
                for j in text:
                    cells[j] = [r[j] for r in rows]
                num = [j for j in num if j not in cells]  # one pass (num.remove per column was quadratic)
                blk = _number_block(rows, num) if num else None
            else:  # numbers at first, then not (the error of a mixed column): its first cells are gone
                chunks.close()
                return None
        if blk is not None:
            numbers.add(blk)
    n = stream.rows_read
    X, columns = None, {}
    if roles is not None and n >= 2 and num:
        Xn = numbers.array()
        if len(num) == len(roles[2]):
            X = Xn
        else:
            columns = {header[j]: Xn[:, k] for k, j in enumerate(num)}
    if roles is not None and n >= 2 and X is None and all(
            _all_stripped_numbers(cells[j]) for j in roles[2] if j not in num):
        # Every text column is numbers once stripped of characters float() keeps ('\x1c1.5'): the table
        # as a whole might have read as numbers (np.loadtxt strips them), as read_csv read it before.
        return None
    return _Read(header, n, np.array(lines, dtype=np.int64), stream.sha256, cells, columns, X)


#: Cells (float64) of each segment of ``_Rows``: 32 MB, above malloc's largest mmap threshold, so that
#: each is a mapping of its own, whose pages are returned when it is freed (no heap fragmentation).
_SEGMENT_CELLS = 1 << 22


class _Rows:
    """Float rows added block by block, in segments; ``array`` joins them into one C-contiguous array,
    freeing each segment once copied: a peak of the array and one segment, where a list of blocks and
    np.concatenate held two arrays (and fragmented the heap)."""

    def __init__(self) -> None:
        self.segments: list[np.ndarray] = []
        self.fill = 0  # rows filled in the last segment
        self.n = 0

    def add(self, blk: np.ndarray) -> None:
        k = 0
        while k < len(blk):
            if not self.segments or self.fill == len(self.segments[-1]):
                self.segments.append(np.empty((max(1, _SEGMENT_CELLS // max(1, blk.shape[1])), blk.shape[1])))
                self.fill = 0
            seg = self.segments[-1]
            m = min(len(seg) - self.fill, len(blk) - k)
            seg[self.fill:self.fill + m] = blk[k:k + m]
            self.fill += m
            k += m
        self.n += len(blk)

    def array(self) -> np.ndarray:
        segments, self.segments = self.segments, []
        if len(segments) == 1:
            X = segments.pop()
            X.resize((self.n, X.shape[1]), refcheck=False)  # realloc, shrinking: no copy
            return X
        X = np.empty((self.n, segments[0].shape[1]))
        r = 0
        while segments:
            seg = segments.pop(0)
            m = min(len(seg), self.n - r)
            X[r:r + m] = seg[:m]
            r += m
            del seg
        return X


def _number_block(rows: list[list[str]], idx: list[int]) -> np.ndarray | None:
    """Columns ``idx`` of ``rows`` as a (rows, columns) float array if every cell is a finite number as
    ``_column_kind`` reads one (``float``, no digit grouping), else None."""
    width = len(rows[0])
    # (the other columns are listed only where needed: per column of a wide file, that was quadratic)
    if len(idx) == 1:
        flat = [r[idx[0]] for r in rows]
    elif width - len(idx) <= 8:  # all cells, the few other columns' taken out: no list per row (nor its GC)
        flat = list(itertools.chain.from_iterable(rows))
        for j in sorted(set(range(width)) - set(idx), reverse=True):  # the last first: the columns before
            # it keep their place
            del flat[j::width]
            width -= 1
    else:
        flat = list(itertools.chain.from_iterable(map(operator.itemgetter(*idx), rows)))
    try:
        arr = plain_floats(flat)  # few different texts (0/1 features): each converted once
    except (ValueError, TypeError, OverflowError):
        return None
    if arr is None or not np.isfinite(arr).all():
        return None
    return arr.reshape(len(rows), len(idx))


def _all_stripped_numbers(vals: Sequence[str]) -> bool:
    """Whether every cell, stripped, is a finite number as ``_parse_float`` reads one (a superset of
    np.loadtxt's: '1_000' and '٣', which neither reads, send no file to the slower whole reading)."""
    for v in vals:
        f = _parse_float(v.strip())
        if f is None or not math.isfinite(f):
            return False
    return True


def _whole_columns(path: str | Path, target: str, drop: Sequence[Any], weight_column: str | None) -> _Read:
    """``_read_columns`` by reading the file whole, every cell a string (read_csv's reading before)."""
    table = _read_table(path)
    header, rows = table.header, table.rows
    roles = _roles(header, target, drop, weight_column)
    cells: dict[int, list[str]] = {}
    X = None
    if roles is not None and len(rows) >= 2:
        ti, wi, feats = roles
        cells = {j: [r[j] for r in rows] for j in (ti, wi, *feats) if j is not None}
        X = _all_numeric(table, feats)
    return _Read(header, len(rows), table.lines, table.sha256, cells, {}, X)


def _read_table(path: str | Path) -> Table:
    """``read_table`` with ``CsvStream``'s messages."""
    return read_table(path, CsvStream)


#: Read after a file's text when checking its quotes: a quoted field still open at the end takes it in.
_END_MARK = "\ue000olctc: end of the file\ue000"

#: A row with the wrong number of fields, as ``TableStream`` words it.
_RAGGED = re.compile(r": line \d+ has \d+ fields?, the header has \d+$")

#: Separators that a header read as comma-separated may hold in its names: the file's own, then.
_OTHER_SEPARATORS = {"\t": "tabs", ";": "semicolons", "|": "'|' characters"}

#: csv's cell size limit while checking quotes, as ``TableStream``'s (an open field holds the rest of the file).
_FIELD_LIMIT = 1 << 30


class CsvStream(TableStream):
    """``TableStream`` (read_csv's, predict's and explain's reading) with faults of a file's CSV syntax
    named by what to fix: a quoted field never closed, a carriage return inside an unquoted cell, an
    unnamed index column (pandas' and R's default), a header read as comma-separated that holds the
    separator of the other lines.

    csv.reader keeps a quoted field still open at the end of the text as a cell, without a word: one
    stray '"' made the rest of the file one cell (10 points read of 1000, or a class label of
    megabytes). Such a field ends the last row read, or makes it ragged; only then is that record's text
    read again to find the quote (``_open_quote_line``), so a file read well costs nothing more. A second
    stray '"' further on closes such a field: csv.reader then reads the lines between as one cell, and
    the rest of the file as rows. Each record spanning lines is told by ``TableStream`` (rare in a
    table), with its text; it is scanned for a field closed by a '"' followed by other text than a
    separator (``_closed_then_text``), which a field written as CSV never is. Neither reads the file
    again, so a pipe (``olctc compile <(zcat f.csv.gz)``) is checked as a file is.

    ``index_column``: an unnamed first column is no fault: its name stays "" (predict and explain, which
    ignore the columns a tree does not use, and a tree uses no unnamed one).
    """

    def __init__(self, path: str | Path, *, keep: bool = False, digest: bool = False,
                 index_column: bool = False, needed: Collection[str] | None = None) -> None:
        self.index_column = index_column
        self._closed: tuple[int, int, str] | None = None  # the first field closed by a stray '"' (_spanning)
        super().__init__(path, keep=keep, digest=digest, needed=needed)

    def _spanning(self, start: int, end: int) -> None:
        if self._closed is None and (found := _closed_then_text(self._tail.lines(start, end), self.delimiter)):
            self._closed = start + found[0], start + found[1], found[2]

    def chunks(self, size: int | None = None, stop: int | None = None) -> Generator[RowChunk, None, None]:
        last: list[str] | None = None  # the last row read: a field open at the end of the file ends it
        with contextlib.closing(super().chunks(size, stop)) as chunks:
            try:
                for chunk in chunks:
                    last = chunk.rows[-1]
                    yield chunk
            except OlctcError as exc:
                if stop is not None and self.rows_read > stop:
                    raise  # the rest of the file was not read (explain): it is not checked either
                if _RAGGED.search(str(exc)) or _line_break(last if last is not None else self.header):
                    self._check_quotes(reread=True)
                hint = self._separator_hint(exc)
                if hint is not None:
                    raise hint from None
                raise
        if stop is not None and self.rows_read > stop:
            return
        self._check_quotes(reread=_line_break(last if last is not None else self.header))

    def _check_quotes(self, reread: bool) -> None:
        """A quoted field open at the end of the file, or one spanning lines closed by a stray '"'. ``reread``:
        the last record may hold such a field over lines (it spans lines, or is ragged): its text is read
        again to find it."""
        if reread:
            start = self._tail.keep_from  # the last record's first line
            line = _open_quote_line(self._tail.lines(start, self._end), self.delimiter, start)
        else:  # the last row is on the last line: is a field of that line still open?
            line = self._reader.line_num if self.unended and _open_at_end(self.unended[0], self.delimiter) else None
        if line is not None:
            raise OlctcError(f"{self.path}: line {line}: a quoted field opened here is never closed (a stray "
                             "'\"'?) and runs to the end of the file; remove that quote or close it (a '\"' "
                             "inside a quoted field is written '\"\"')")
        if self._closed is not None:
            opened, line, after = self._closed
            raise OlctcError(f"{self.path}: line {opened}: a quoted field opened here runs to line {line}, "
                             f"where a '\"' followed by {after!r}, not a separator, closes it: lines {opened}-"
                             f"{line} were read as one cell (a stray '\"'?); remove the stray quote, or write a "
                             "'\"' inside a quoted field as '\"\"'")

    def _separator_hint(self, exc: OlctcError) -> OlctcError | None:
        """A ragged row of a file whose header has a comma, read as comma-separated, and names holding
        tabs (';', '|'): the other lines are separated by those, the comma is inside a name."""
        if self.delimiter != "," or not _RAGGED.search(str(exc)):
            return None
        held = next((name for d, name in _OTHER_SEPARATORS.items() if any(d in h for h in self.header)), None)
        if held is None:
            return None
        return OlctcError(f"{exc}; the header was read as comma-separated ({len(self.header)} fields) because it "
                          f"has a comma, but it also holds {held}: quote the name that holds the comma, or "
                          "remove the comma")

    @contextlib.contextmanager
    def _parsing(self) -> Iterator[None]:
        with super()._parsing():
            try:
                yield
            except csv.Error as exc:
                # csv's own words ("new-line character seen in unquoted field - do you need to open the
                # file in universal-newline mode?") name no line and advise Python code
                if "new-line character" not in str(exc):
                    raise
                line = self._reader.line_num
                for _ in self._pieces:  # a read or decoding error further on comes first, as for csv's errors
                    pass
                raise OlctcError(f"{self.path}: line {line}: a carriage return ('\\r') inside an unquoted cell, "
                                 "or mixed line endings; quote that cell, or save the file with one kind of line "
                                 "ending (all '\\n' or all '\\r\\n')") from None

    def _check_header(self) -> None:
        header = self.header
        if len(header) > 1 and header[0] == "" and any(header) and self.index_column:
            # the other names checked as TableStream checks them; no name read is " " (names are stripped)
            header[0] = " "
            try:
                super()._check_header()
            finally:
                header[0] = ""
            return
        if len(header) > 1 and header[0] == "" and any(header):
            # TableStream said "the header has an empty column name": no place, no cause, no fix
            raise OlctcError(f"{self.path}: the header's first column (column 1) has no name: it looks like "
                             "the index column that pandas' to_csv and R's write.csv write by default; save the "
                             "file without it (pandas: to_csv(..., index=False); R: write.csv(..., row.names = "
                             "FALSE)), or name the column")
        super()._check_header()


def _line_break(cells: Sequence[str]) -> bool:
    return any("\n" in c or "\r" in c for c in cells)


def _open_at_end(line: str, delimiter: str) -> bool:
    """Whether a quoted field of ``line``, a whole record, is still open at its end."""
    if '"' not in line:
        return False
    try:
        with _big_cells():
            rows = list(csv.reader([line, _END_MARK], delimiter=delimiter))  # csv ends a line at each item's end
    except csv.Error:  # a fault of the line's own, which its reading reported
        return False
    return len(rows) == 1 and rows[0][-1].endswith(_END_MARK)


@contextlib.contextmanager
def _big_cells() -> Iterator[None]:
    """csv's cell size limit raised to ``_FIELD_LIMIT`` (a field left open holds the rest of the file)."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, _FIELD_LIMIT))
    try:
        yield
    finally:
        csv.field_size_limit(limit)


def _closed_then_text(text: str, delimiter: str) -> tuple[int, int, str] | None:
    """In one record's text, the first quoted field holding a line break whose closing '"' is followed by a
    character other than the separator, a line break or a blank: (line of its opening '"', line of the
    closing one, counted from 0 in ``text``, the character). Read as csv.reader reads (not strict): a '"'
    opens a field only at its start, and after the field's closing '"' the rest up to the separator is text."""
    n, i = len(text), 0
    while i < n:
        if text[i] == '"':
            j = i + 1
            while (k := text.find('"', j)) >= 0 and text[k + 1:k + 2] == '"':
                j = k + 2
            if k < 0:
                return None  # open to the end: _open_quote_line's case
            after = text[k + 1:k + 2]
            if after not in ("", delimiter, "\n", "\r", " ", "\t") and ("\n" in text[i:k] or "\r" in text[i:k]):
                return text.count("\n", 0, i), text.count("\n", 0, k), after
            i = k + 1
        stops = [s for s in (text.find(delimiter, i), text.find("\n", i)) if s >= 0]
        if not stops:
            return None
        i = min(stops) + 1
    return None


def _open_quote_line(text: str, delimiter: str, start: int) -> int | None:
    """The line of the '"' opening a field still open at the end of ``text``, the last record of a file, read
    from its line ``start`` on; or None.

    The text is read as ``TableStream`` reads it, then ``_END_MARK``: only a field still open takes that in
    (else it is a row of its own). The lines after the quote are those of that field.
    """
    newlines = 0

    def counted(lines: Iterable[str]) -> Iterator[str]:
        nonlocal newlines
        for line in lines:
            newlines += line.endswith("\n")
            yield line

    last: list[str] | None = None
    try:
        with _big_cells():
            for last in csv.reader(itertools.chain(counted(io.StringIO(text)), [_END_MARK]), delimiter=delimiter):
                pass
    except csv.Error:  # a fault of the file's own, which its reading reports
        return None
    if not last or last == [_END_MARK] or not last[-1].endswith(_END_MARK):
        return None
    return start - 1 + newlines + 1 - last[-1].count("\n")


#: One-hot values below which the encoding is cheap (80 MB) and compile's size check, which names the
#: model's rows, columns and nonzeros, speaks instead.
ONE_HOT_EARLY = 10_000_000


def _check_one_hot_size(schema: Schema, n: int, source: str, limit: int) -> None:
    """Refuse, before allocating it, a one-hot encoding too large to train on, naming the text column with
    the most categories: an identifier of 60,000 rows needs 29 GB (n x n floats), which ended in a
    MemoryError traceback, after minutes, and a smaller one in "use a smaller depth ... or fewer points".
    Each category is a feature that, standardised, is nonzero on every row of every split's rows: a model
    of more than ``limit`` nonzeros."""
    text = [c for c in schema.columns if c.kind == "categorical"]
    k = sum(len(c.categories) for c in text)
    if n * k <= limit or n * k < ONE_HOT_EARLY:
        return
    import shlex

    top = max(text, key=lambda c: len(c.categories))
    raise OlctcError(f"{source}: one-hot encoding its text columns gives {k:,} features on {n:,} rows, "
                     f"{n * k:,} values (no model within --max-nonzeros {limit:,} fits them); column "
                     f"{top.name!r} alone has {len(top.categories):,} different values (an identifier? leave it "
                     f"out with --drop {shlex.quote(top.name)})")


def _columns_text(header: Sequence[str], name: object = None) -> str:
    """The first columns of a header (and the last: often the label), for a message naming a column
    ``name`` that is not there; then the column most like ``name``, if one is close."""
    import difflib

    # each name cut: a header that swallowed lines (a quoted name) made a message of megabytes
    text = ", ".join(map(shorten, header[:12])) + \
        (f" ... ({len(header)} columns, the last {shorten(header[-1])})" if len(header) > 12 else "")
    if not isinstance(name, str):  # read_csv's target may be any object: its message quotes it
        return text
    folded = {h.casefold(): h for h in reversed(header)}  # the first of names differing only in case
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.75)  # not nope -> slope
    return text + (f"; did you mean {folded[close[0]]!r}?" if close else "")


def _warn_marker_categories(schema: Schema, source: str) -> None:
    """Warn when a text column holds a value that reads as a missing value ("NA", "?"): it is one-hot encoded
    as a category of its own, which may be meant (a "none" answer) or a missing cell olctc cannot see."""
    for col in schema.columns:
        marker = next((c for c in col.categories if _looks_missing(c)), None) if col.kind == "categorical" else None
        if marker is not None:
            warn(f"{source}: column {col.name!r} has the text value {marker!r}, which reads as a missing "
                 "value, encoded as a category of its own; replace such cells if they are missing "
                 "(olctc does not impute)")


#: Dates as text (2024-03-01, 2024-03-01T10:00, 1/3/2024, 01.03.2024): one-hot encoded they are codes, one per day.
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}([ T].*)?|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}( .*)?")


_COLUMNS_WARNED = 5  # columns warned of one by one; the others in one warning


def _warn_identifiers(schema: Schema, n: int, source: str) -> None:
    """Warn of a text column with a value per row (an identifier), with more values than half its rows (free
    text, codes), or of 20 dates or more: one-hot encoded into a feature per value, each of a few rows, which
    split nothing that generalises and enlarge the model (a signup date of 280 days in 600 rows)."""
    import shlex

    if n < IDENTIFIER_ROWS:
        return
    flagged = []
    for col in schema.columns:
        k = len(col.categories) if col.kind == "categorical" else 0
        drop = f"--drop {shlex.quote(col.name)}"
        if k == n:
            flagged.append((col.name, f"{source}: column {col.name!r} has a different text value on each of its {n} "
                            f"rows (an identifier?), one-hot encoded into {n} features; leave it out with {drop}"))
            continue
        dates = k > 0 and all(_DATE.fullmatch(c) for c in col.categories)  # stops at the first non-date
        if 2 * k > n or (dates and k >= IDENTIFIER_ROWS):
            way = ("write them as numbers (days since a day, say) for the tree to split on, or leave the column "
                   f"out with {drop}" if dates else f"leave it out with {drop} if it is free text or a code")
            flagged.append((col.name, f"{source}: column {col.name!r} has {k} different text values on its {n} rows"
                            f"{' (dates?)' if dates else ''}, one-hot encoded into {k} features of {n / k:.2g} "
                            f"rows each on average; {way}"))
    # A file of 2,000 such columns gave 2,000 warnings, scrolling the rest away: a few, then one for the others
    for _, message in flagged[:_COLUMNS_WARNED]:
        warn(message)
    rest = [name for name, _ in flagged[_COLUMNS_WARNED:]]
    if rest:
        names = ", ".join(repr(shorten(c)) for c in rest[:_COLUMNS_WARNED])
        more = ", ..." if len(rest) > _COLUMNS_WARNED else ""
        warn(f"{source}: {len(rest)} more text columns look like identifiers, free text or dates (more "
             f"different values than half their {n} rows, or 20 dates or more), one-hot encoded into a "
             f"feature per value: {names}{more}; leave them out with --drop")
