"""Data in: read and validate a table, encode it, map the two classes to -1/+1, standardise.

Every input check lives here, at the boundary; the formulation trusts what it gets.

Encoding rules
--------------
- Fields are comma-separated, or tab-, semicolon- or '|'-separated when the header line has no comma.
- A column whose every cell parses as a finite number is numeric.
- A column none of whose cells parses as a number is categorical: one-hot encoded, one feature per
  category in sorted order, named ``column=category``.
- Anything else (a number column with a stray word, an empty cell, NaN or inf, numbers written with a
  decimal comma) is an error naming the column and the first bad line.
- The two class labels are sorted (numerically when both are numbers); the second is the positive
  class (+1) unless ``positive_class`` says otherwise.
"""
from __future__ import annotations

import array
import codecs
import contextlib
import csv
import gzip
import hashlib
import io
import itertools
import math
import operator
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generator, Iterator, NamedTuple, Sequence

import numpy as np

from olctc.errors import OlctcError, is_real, number_text, param_error, shorten

Label = int | float | str


@dataclass(frozen=True)
class Column:
    """One input column: numeric, or categorical with its categories (sorted)."""

    name: str
    kind: str  # "numeric" | "categorical"
    categories: tuple[str, ...] = ()

    def feature_names(self) -> list[str]:
        if self.kind == "numeric":
            return [self.name]
        return [f"{self.name}={c}" for c in self.categories]

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "categorical":
            d["categories"] = list(self.categories)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Column":
        return cls(str(d["name"]), str(d["kind"]), tuple(str(c) for c in d.get("categories", ())))


@dataclass(frozen=True)
class Schema:
    """How raw input columns become the encoded feature matrix (the inverse data of encoding)."""

    columns: tuple[Column, ...]

    @property
    def feature_names(self) -> list[str]:
        return [f for c in self.columns for f in c.feature_names()]

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def is_numeric(self) -> bool:
        return all(c.kind == "numeric" for c in self.columns)

    def encode(self, cells: Mapping[str, Sequence[Any] | np.ndarray], source: str = "data") -> np.ndarray:
        """Encode raw cells (column name -> values) into the float feature matrix.

        Unknown categories encode as all-zero one-hot rows (scikit-learn's ``handle_unknown='ignore'``).
        """
        for col in self.columns:
            try:
                there = col.name in cells
            except TypeError:  # None or a number: "argument of type 'NoneType' is not iterable"
                raise OlctcError(f"{source}: expected raw cells as a dict of column name -> values (or a "
                                 f"DataFrame); got {type(cells).__name__}") from None
            if not there:
                raise OlctcError(f"{source}: column {col.name!r} is missing; the tree needs "
                                 f"{[c.name for c in self.columns]}")
            if isinstance(cells[col.name], (str, bytes)) or not hasattr(cells[col.name], "__len__"):
                raise OlctcError(f"{source}: column {col.name!r} must hold a list of values, one per row; got "
                                 f"{shorten(repr(cells[col.name]))}")
        if not self.columns:
            return np.zeros((0, 0))
        first = self.columns[0].name
        n = len(cells[first])
        # One matrix filled in place: blocks joined by hstack held the one-hot part twice, and comparing
        # every cell with every category took n x k steps (30 s and 6 GB for an identifier of 20,000 rows).
        X = np.zeros((n, self.n_features))
        j = 0
        for col in self.columns:
            vals = cells[col.name]
            if len(vals) != n:
                raise OlctcError(f"{source}: column {col.name!r} has {len(vals)} values, column {first!r} has {n}")
            if col.kind == "numeric":
                # raw cells of no file (Tree.encode, explain's dict): errors name the row, not a line
                X[:, j] = _to_float_column(vals, col.name, source, None)
                j += 1
            else:
                rows, hits = _category_hits(vals, col.categories)
                X[rows, j + hits] = 1.0
                j += len(col.categories)
        return X

    def to_json(self) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.columns]

    @classmethod
    def from_json(cls, d: list[dict[str, Any]]) -> "Schema":
        return cls(tuple(Column.from_json(c) for c in d))


def _category_hits(vals: Sequence[Any] | np.ndarray, categories: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(row, category index) of each cell whose text is one of ``categories``; other cells are unseen
    categories, encoded as none (scikit-learn's ``handle_unknown='ignore'``)."""
    index = {c: k for k, c in enumerate(categories)}
    if len(index) < len(categories):  # a category twice (a Schema built by hand): each copy is a hit
        eq = np.asarray([str(v) for v in vals], dtype=object)[:, None] == np.asarray(categories, dtype=object)
        rows, hits = np.nonzero(eq)
        return rows, hits
    codes = np.fromiter((index.get(str(v), -1) for v in vals), dtype=np.intp, count=len(vals))
    rows = np.flatnonzero(codes >= 0)
    return rows, codes[rows]


#: Relative distance from a column's mean within which a value is the mean (rounding of the mean's sum).
MEAN_ROUNDING = 16 * np.finfo(np.float64).eps
#: ... in a column that is not constant to rounding, provided the difference is also negligible against
#: the column's spread: 1e14 + 0.25 is not the mean 1e14 of a column of spread 1.
NEGLIGIBLE_SCORE = 1e-12


#: Rows ``Scaler.transform`` zeroes values near the mean in at a time (its temporary arrays' size).
_SCALE_ROWS = 4096

#: Columns whose largest |value| is below this are standardised after division by it (squares underflow).
TINY_COLUMN = 1e-100


@dataclass(frozen=True)
class Scaler:
    """Standardisation as scikit-learn's StandardScaler (population std; zero variance -> scale 1)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray, sample_weight: np.ndarray | None = None) -> "Scaler":
        """Mean and population std of each column, weighted by ``sample_weight`` when given (as
        StandardScaler's: a point of weight 2 counts as two points). Only the weights' ratios matter: they
        are divided by the largest first, so that weights of 1e-320 or 1e300 give the unweighted moments
        when all are equal (scikit-learn's lose digits at the former and return nan at the latter)."""
        if not X.shape[0]:
            return cls.identity(X.shape[1])
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            top = float(sample_weight.max())
            if top > 0:
                sample_weight = sample_weight / top
        with np.errstate(over="ignore", invalid="ignore"):
            mean, std = _moments(X, sample_weight)
            # Squares (or sums) of values near 1e154 (1e308) overflow, and squares of values below 1e-154
            # underflow (a column of 1e-200 had std 0 and was taken for constant): rescale those columns.
            big = ~(np.isfinite(mean) & np.isfinite(std))
            # np.abs(X).max(axis=0) without the copy np.abs makes (floats: -min does not overflow)
            top = np.maximum(X.max(axis=0), -X.min(axis=0)) if X.dtype.kind == "f" else np.abs(X).max(axis=0)
            big |= (top > 0) & (top < TINY_COLUMN)
            if big.any():
                top = top[big]
                m, s = _moments(X[:, big] / top, sample_weight)
                mean[big], std[big] = m * top, s * top
        # Near-constant columns get scale 1, by scikit-learn's test (_is_constant_feature): var <= n eps var
        # + (n eps mean)^2, relative to the mean, so a column of tiny values (1e-20) is scaled, not dropped.
        # Written on std (not var) so that columns near 1e154 and above do not overflow. n is the number of
        # rows summed, weighted or not: the rounding error grows with the terms, not with the weights'
        # scale (scikit-learn's n, the weights' sum, made every column constant once it passed 1 / eps,
        # 4.5e15: weights of 1e14 on 50 points).
        n = X.shape[0]
        k = n * np.finfo(np.float64).eps
        const = std * np.sqrt(max(1.0 - k, 0.0)) <= k * np.abs(mean)
        std = np.where(const | (std == 0.0), 1.0, std)
        return cls(mean, std)

    @classmethod
    def identity(cls, p: int) -> "Scaler":
        return cls(np.zeros(p), np.ones(p))

    def transform(self, X: np.ndarray) -> np.ndarray:
        D = X - self.mean
        # A value equal to the mean but for the mean's own rounding (1.5 against a computed 1.5 + 2e-16) is
        # the mean. Left at 2e-16 it became a model coefficient that solvers read differently: glpsol called
        # 9.81 "optimal" on an LP file whose optimum, with the coefficient 0, is 5.92.
        # Zeroing all within 16 eps of the mean zeroed a third of a column of values near 1e14 with a spread
        # of 1 (22 ulps, where the data resolve 1/64). A scale of 1 is the constant columns' (Scaler.fit):
        # their spread is rounding, and within it every value is the mean. The rule reads mean and scale
        # only, so that decode rebuilds from the manifest the model compile wrote.
        near = MEAN_ROUNDING * np.abs(self.mean)
        near = np.where(self.scale == 1.0, near, np.minimum(near, NEGLIGIBLE_SCORE * self.scale))
        if type(D) is not np.ndarray or D.ndim != 2:
            D[np.abs(D) <= near] = 0.0
            return D / self.scale
        # in place, by blocks of rows: np.abs(D), its mask and D / scale were each another n x p array
        for a in range(0, D.shape[0], _SCALE_ROWS):
            blk = D[a:a + _SCALE_ROWS]
            blk[np.abs(blk) <= near] = 0.0
        D /= self.scale
        return D

    def to_json(self) -> dict[str, list[float]]:
        return {"mean": [float(v) for v in self.mean], "scale": [float(v) for v in self.scale]}

    @classmethod
    def from_json(cls, d: dict[str, list[float]]) -> "Scaler":
        return cls(np.asarray(d["mean"], dtype=float), np.asarray(d["scale"], dtype=float))


def _moments(X: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if w is None:
        return X.mean(axis=0), X.std(axis=0)
    mean = np.average(X, axis=0, weights=w)
    return mean, np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))


@dataclass
class Dataset:
    """A validated binary classification data set, encoded but not standardised.

    Attributes
    ----------
    X : (n, p) float64 encoded features.
    y : (n,) int8 labels in {-1, +1}.
    classes : (negative label, positive label) as in the source.
    schema : how raw columns map to the columns of X.
    name : short name (file stem or vendored data set name).
    sha256 : hash of the source bytes (uncompressed), or of the arrays when built from arrays.
    source : where the data came from (path or ``dataset:NAME``), for the manifest.
    dropped : columns of the source left out (read_csv's ``drop``), besides the target.
    weight : (n,) float64 per-point loss weights (finite, >= 0, some > 0), or None: every point weighs 1.
    weight_column : the source column the weights came from (read_csv's ``weight_column``), if any.
    """

    X: np.ndarray
    y: np.ndarray
    classes: tuple[Label, Label]
    schema: Schema
    name: str = "data"
    sha256: str = ""
    source: str = ""
    target: str = "y"
    extra: dict[str, Any] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    weight: np.ndarray | None = None
    weight_column: str | None = None

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def p(self) -> int:
        return int(self.X.shape[1])

    @property
    def feature_names(self) -> list[str]:
        return self.schema.feature_names

    def subset(self, rows: np.ndarray) -> "Dataset":
        """The same data restricted to ``rows`` (e.g. a training split): indices in [0, n) or a mask of n."""
        rows = _row_index(rows, self.n)
        return Dataset(self.X[rows], self.y[rows], self.classes, self.schema, self.name,
                       self.sha256, self.source, self.target, dict(self.extra), self.dropped,
                       None if self.weight is None else self.weight[rows], self.weight_column)

    def source_info(self) -> dict[str, Any]:
        """What a manifest or a grid records to read this data again (``olctc.pipeline.load_source``)."""
        info = {"name": self.name, "source": self.source, "sha256": self.sha256, "target": self.target,
                "positive_class": json_label(self.classes[1])}
        # only when used, so that the records of data read whole stay as they were
        return (info | ({"dropped": list(self.dropped)} if self.dropped else {})
                | ({"weight_column": self.weight_column} if self.weight_column is not None else {}))

    def labels(self, y_pm: np.ndarray) -> np.ndarray:
        """Map -1/+1 back to the original class labels."""
        return np.where(np.asarray(y_pm) > 0, np.asarray([self.classes[1]], dtype=object),
                        np.asarray([self.classes[0]], dtype=object))


def check_real(a: Any, name: str) -> None:
    """OlctcError when the array-like ``a`` holds complex numbers: numpy drops their imaginary parts with a
    warning only, a silent wrong answer. Told by the dtypes where ``a`` has them (np.iscomplexobj copies a
    DataFrame whole); ragged input passes, for the conversion that follows to name."""
    dtype = getattr(a, "dtype", None)
    if isinstance(dtype, np.dtype):
        complex_a = dtype.kind == "c"
    elif dtype is None and getattr(a, "dtypes", None) is not None:  # a DataFrame: pandas' own dtypes are real
        complex_a = any(isinstance(d, np.dtype) and d.kind == "c" for d in a.dtypes)
    else:
        try:
            complex_a = bool(np.iscomplexobj(a))
        except (TypeError, ValueError):
            complex_a = False
    if complex_a:
        raise OlctcError(f"{name} has complex values; olctc needs real numbers")


def check_dataset(value: Any, name: str = "ds") -> None:
    """The parameter error for ``name`` unless ``value`` is a Dataset (None failed deep inside, on an
    attribute it lacks)."""
    if not isinstance(value, Dataset):
        raise param_error(name, "an olctc Dataset (olctc.data.read_csv, from_arrays, olctc.datasets.load)",
                          type(value).__name__)


def _row_index(rows: Any, n: int) -> np.ndarray:
    """``rows`` as a 1-D index array: integer indices in [0, n), or a boolean mask of length n.

    numpy's IndexError came otherwise, and a scalar or 2-D index gave a Dataset of the wrong shape.
    """
    def bad() -> OlctcError:  # built on failure only: the repr of a long list of indices is long to make
        return OlctcError(f"The 'rows' parameter must be row indices in [0, {n}) or a boolean mask of {n}, 1-D. "
                          f"Got {shorten(' '.join(repr(rows).split()))} instead.")

    try:
        arr = np.asarray(rows)
    except (TypeError, ValueError):
        raise bad() from None
    if arr.ndim == 1 and arr.size == 0:
        return arr.astype(np.intp)
    ok = arr.ndim == 1 and (arr.shape[0] == n if arr.dtype == bool
                            else np.issubdtype(arr.dtype, np.integer) and bool(((arr >= 0) & (arr < n)).all()))
    if not ok:
        raise bad()
    return arr


# ---------------------------------------------------------------- reading tables

class Table(NamedTuple):
    """A CSV file as read: cells as strings, and what error messages and the fast numeric path need."""

    header: list[str]
    rows: list[list[str]]
    sha256: str  # of the uncompressed bytes
    text: str
    lines: np.ndarray  # the file line where each data row starts (1-based, as an editor shows)
    delimiter: str


#: What a file whose header reads as one column is told.
SEPARATORS_READ = "olctc reads comma-, semicolon-, tab- or '|'-separated files (save it with commas)"


def sniff_delimiter(text: str) -> str:
    """The field separator: a comma, unless the header line has none and has tabs, semicolons or '|'.

    Spreadsheets in locales whose decimal mark is a comma save "CSV" with semicolons, and TSV files are
    common; the header alone decides, so a comma inside a data cell cannot change the reading.
    """
    end = text.find("\n")
    head = text if end < 0 else text[:end]  # not split(): that would copy the whole text
    # a quoted name may hold any separator: '"price, net";tax;y' is semicolon-separated
    head = _QUOTED.sub("", head)
    if "," in head:
        return ","
    for d in ("\t", ";", "|"):
        if d in head:
            return d
    return ","


#: A quoted field of a header line (its quotes doubled inside, as CSV writes them).
_QUOTED = re.compile(r'"[^"]*"')

#: A first line "sep=X", which Excel reads as the separator to use and other readers as the header.
_SEPARATOR_HINT = re.compile(r"sep=.?", re.IGNORECASE)

#: Bytes (decompressed) read at a time: the memory of ``TableStream`` besides its chunk of rows.
_BLOCK = 1 << 20

#: Cells per chunk of ``TableStream.chunks``: 20,000 rows of 15 columns, about 20 MB as Python strings.
CHUNK_CELLS = 300_000


class _Unread:
    """A binary file whose first bytes were read to test for gzip, handed back by ``read``; a pipe
    cannot seek back to them."""

    def __init__(self, head: bytes, fh: IO[bytes]) -> None:
        self.head, self.fh = head, fh

    def read(self, n: int | None = -1) -> bytes:
        if n is not None and 0 <= n < len(self.head):
            out, self.head = self.head[:n], self.head[n:]
            return out
        head, self.head = self.head, b""
        return head + self.fh.read(-1 if n is None or n < 0 else n - len(head))

    def seek(self, n: int, /) -> int:
        # GzipFile's file protocol has seek; a reader that reads on to the end never calls it
        raise io.UnsupportedOperation("cannot seek back in a table file read once")


def _byte_blocks(path: Path) -> Iterator[bytes]:
    """A table file's content, decompressed when it is gzip, in blocks of ``_BLOCK`` bytes."""
    if not path.exists():
        raise OlctcError(f"{path}: no such file")
    if path.is_dir():
        raise OlctcError(f"{path}: is a folder, expected a CSV file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            src = gzip.GzipFile(fileobj=_Unread(head, fh)) if head == b"\x1f\x8b" else _Unread(head, fh)
            while block := src.read(_BLOCK):
                yield block
    except (OSError, EOFError, zlib.error) as exc:  # zlib.error: a corrupt deflate stream
        raise OlctcError(f"{path}: cannot read: {exc}") from None


def table_bytes(path: str | Path) -> bytes:
    """A table file's content, decompressed when it is gzip: what ``Table.sha256`` is the hash of."""
    return b"".join(_byte_blocks(Path(path)))


def _text_blocks(path: Path, blocks: Iterator[bytes]) -> Iterator[str]:
    """The UTF-8 text of ``blocks``, without a leading BOM; a bad byte is an error naming its offset.

    The offset counts from after the BOM, as ``bytes.decode("utf-8-sig")`` reported it.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    head = next(blocks, b"")
    while len(head) < _MAGIC_BYTES and (more := next(blocks, b"")):
        head += more
    raw: bytes | None = head.removeprefix(codecs.BOM_UTF8)  # None: the end
    fed = 0
    while True:
        try:
            text = decoder.decode(raw or b"", final=raw is None)
        except UnicodeDecodeError as exc:
            at = fed - len(decoder.getstate()[0]) + exc.start
            for _ in blocks:  # a read error further on came first when the whole file was read at once
                pass
            raise OlctcError(f"{path}: not UTF-8 text (byte {at}){_not_text_advice(head)}") from None
        if text:
            yield text
        if raw is None:
            return
        fed += len(raw)
        raw = next(blocks, None)


#: Bytes a file starts with that say what it is when it is no text, and what to do. Excel's "Unicode
#: Text" is UTF-16; a workbook or an archive passed for its CSV is a common slip, and "byte 0" alone
#: does not tell the user which it is.
_SAVE_AS_CSV = "save the sheet as CSV (UTF-8)"
_DECOMPRESS = "decompress it (olctc reads gzip or uncompressed files)"
_MAGIC = ((codecs.BOM_UTF16_LE, "it is UTF-16 (Excel's \"Unicode Text\")", "save the CSV as UTF-8"),
          (codecs.BOM_UTF16_BE, "it is UTF-16", "save the CSV as UTF-8"),
          (b"PK\x03\x04", "it is a zip archive (an Excel .xlsx or OpenDocument .ods workbook?)", _SAVE_AS_CSV),
          (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "it is an Excel .xls workbook", _SAVE_AS_CSV),
          # "BZh", the block size, the first block's magic: "BZh" alone may start a text header
          *((b"BZh%d1AY&SY" % k, "it is bzip2-compressed", _DECOMPRESS) for k in range(1, 10)),
          (b"\xfd7zXZ\x00", "it is xz-compressed", _DECOMPRESS),
          (b"\x28\xb5\x2f\xfd", "it is zstd-compressed", _DECOMPRESS))
_MAGIC_BYTES = max(len(m) for m, _, _ in _MAGIC)


def _not_text_advice(head: bytes) -> str:
    """What a file (decompressed) starting with ``head`` that is not UTF-8 is, if known, and what to do."""
    return next((f"; {what}: {advice}" for magic, what, advice in _MAGIC if head.startswith(magic)),
                "; save the CSV as UTF-8")


def _line_pieces(path: Path, texts: Iterator[str], kept: list[str] | None) -> tuple[str, Generator[str, None, None]]:
    """The delimiter (``sniff_delimiter``) and the text in pieces of whole lines, for ``csv.reader``.

    Text without any "\\n" but with "\\r" (old Mac line ends, "CSV (Macintosh)") reads with "\\n" for
    each "\\r": deciding it takes the text up to the first "\\n", all of it for such a file. ``kept``
    receives the text read. An error is raised once all the text was read: an empty file, or a
    read or decoding error (raised by ``texts``).
    """
    head: list[str] = []
    for text in texts:
        head.append(text)
        if "\n" in text:
            break
    else:  # no "\n" in the whole text
        head = [t.replace("\r", "\n") for t in head]
    delimiter = sniff_delimiter("".join(head))

    def pieces() -> Generator[str, None, None]:
        content, rest = False, []  # rest: a line begun, in blocks (a long cell is not copied per block)
        for text in itertools.chain(head, texts):
            if kept is not None:
                kept.append(text)
            content = content or not text.isspace()
            cut = text.rfind("\n") + 1
            if not cut:
                rest.append(text)
                continue
            yield "".join(rest) + text[:cut] if rest else text[:cut]
            rest = [text[cut:]] if cut < len(text) else []
        if not content:
            raise OlctcError(f"{path}: the file is empty")
        if rest:
            yield "".join(rest)

    return delimiter, pieces()


def _blank(row: list[str]) -> bool:
    return not any(c.strip() for c in row)


class RowChunk(NamedTuple):
    """Consecutive data rows of a table: cells as read, the file line where each row starts, and the
    index of ``rows[0]`` among the data rows (0 for the first)."""

    rows: list[list[str]]
    lines: list[int]
    first: int


class TableStream:
    """A CSV (optionally gzip) file read in chunks of rows, in memory that does not grow with the file.

    The reading of ``read_table``, which is built on it: the delimiter from the header line
    (``sniff_delimiter``); a quoted cell may hold line breaks, so each row's line is the file line where
    it starts (see ``line_of``); blank rows at the end are dropped. The header is read on opening.

    Errors come as reading the whole file at once found them: a file that cannot be read (a truncated
    gzip) first, then a byte that is not UTF-8, an empty file, a CSV syntax error, a row with the wrong
    number of fields, then a bad header. So an error found in a row is raised only once the rest of the
    file has been read for the kinds before it, and chunks before that row are yielded first: a caller
    commits nothing before ``chunks`` ends.
    """

    def __init__(self, path: str | Path, *, keep: bool = False, digest: bool = False) -> None:
        """Open ``path`` and read its header; ``keep``: keep the text and hash the bytes (``text``,
        ``sha256``) as ``read_table`` needs; ``digest``: hash the bytes only (``sha256``)."""
        self.path = Path(path)
        self.rows_read = 0  # data rows yielded so far
        self._hash = hashlib.sha256() if keep or digest else None
        self._kept: list[str] | None = [] if keep else None
        blocks = _byte_blocks(self.path)
        if self._hash is not None:
            blocks = _hashed(blocks, self._hash)
        self.delimiter, self._pieces = _line_pieces(self.path, _text_blocks(self.path, blocks), self._kept)
        self._reader = csv.reader(itertools.chain.from_iterable(map(io.StringIO, self._pieces)),
                                  delimiter=self.delimiter)
        self._pending: list[tuple[list[str], int]] = []  # blank rows, data rows if a non-blank one follows
        self._ragged: OlctcError | None = None  # the first row with the wrong number of fields
        with self._parsing():
            header = next(self._reader, None)
        self._end = self._reader.line_num  # the line where the last record read ends
        if header is not None and _SEPARATOR_HINT.fullmatch(hint := self.delimiter.join(header).strip()):
            # Excel's first line "sep=;" names the separator for Excel alone; read as the header it made
            # every data row "have 3 fields, the header has 2", which pointed at the data.
            raise OlctcError(f"{self.path}: line 1 is {hint!r}, a spreadsheet's separator hint, not a header; "
                             "delete that line (olctc takes the separator from the header line)")
        self._blank_header = header is None or _blank(header)
        self.header = [h.strip() for h in header or ()]

    @property
    def text(self) -> str:
        """The text read (``keep``; all of it once ``chunks`` has ended)."""
        return "".join(self._kept or ())

    @property
    def sha256(self) -> str:
        """Hex sha256 of the uncompressed bytes read (``keep``)."""
        return self._hash.hexdigest() if self._hash is not None else ""

    def chunks(self, size: int | None = None, stop: int | None = None) -> Generator[RowChunk, None, None]:
        """The data rows, about ``size`` at a time (default: ``CHUNK_CELLS`` cells); with ``stop``, the
        rows up to data row ``stop`` (0-based), then the end: the rest of the file is neither read nor
        checked.

        A blank row is a data row only if a non-blank row follows it, so it is held until one does.
        """
        size = size or max(1, CHUNK_CELLS // max(1, len(self.header)))
        while stop is None or self.rows_read <= stop:
            want = size if stop is None else min(size, stop + 1 - self.rows_read)
            with self._parsing():
                chunk = self._read_chunk(want)
            if chunk is None:
                break
            yield chunk
        else:
            self._pieces.close()  # stopped early: the file is closed
        self._check_header()

    @contextlib.contextmanager
    def _parsing(self) -> Iterator[None]:
        """csv's cell size limit raised while reading; a CSV syntax error raised once the rest of the
        text is read (an unreadable or empty file came first for ``read_table``)."""
        limit = csv.field_size_limit()
        try:
            csv.field_size_limit(max(limit, _FIELD_LIMIT))
            yield
        except csv.Error as exc:
            for _ in self._pieces:
                pass
            raise OlctcError(f"{self.path}: not a readable CSV file: {exc}") from None
        finally:
            csv.field_size_limit(limit)

    def _read_chunk(self, size: int) -> RowChunk | None:
        """The next ``size`` data rows or so; None at the end of the file."""
        rows: list[list[str]] = []
        lines: list[int] = []
        add_row, add_line = rows.append, lines.append  # the loop runs once per row: locals only
        width, reader, end, pending, ragged = len(self.header), self._reader, self._end, self._pending, self._ragged
        for row in reader:
            start, end = end + 1, reader.line_num
            if not (row and row[0].strip()) and _blank(row):
                if ragged is None:
                    pending.append((row, start))
                continue
            if ragged is not None:
                continue  # read on: a syntax error further on came first for read_table
            if pending:
                for r, line in pending:
                    if len(r) != width:
                        ragged = OlctcError(f"{self.path}: line {line} is blank; remove blank lines inside the data")
                        break
                    add_row(r)
                    add_line(line)
                pending = []
                if ragged is not None:
                    continue
            if len(row) != width:
                ragged = OlctcError(f"{self.path}: line {start} has {len(row)} fields, the header has {width}")
                continue
            add_row(row)
            add_line(start)
            if len(rows) >= size:
                break
        else:  # the end of the file: blank rows held are trailing ones, dropped
            if ragged is not None:
                raise ragged
            pending = []
        self._end, self._pending, self._ragged = end, pending, ragged
        if not rows:
            return None
        chunk = RowChunk(rows, lines, self.rows_read)
        self.rows_read += len(rows)
        return chunk

    def _check_header(self) -> None:
        if self._blank_header and not self.rows_read:
            # read_table failed here with an IndexError (a file of blank cells such as '""')
            raise OlctcError(f"{self.path}: the file has only blank cells, no header")
        seen: set[str] = set()
        for k, h in enumerate(self.header):
            if h == "" and k == len(self.header) - 1 and k:
                # A writer that ends every line with the separator (a trailing ',') makes an unnamed last
                # column: say where the empty name is, since the header then looks right.
                raise OlctcError(f"{self.path}: the header's last column (column {k + 1}) has no name: the header "
                                 f"line ends with the separator {self.delimiter!r}; remove the separator at the end "
                                 "of each line, or name the column")
            if h == "":
                raise OlctcError(f"{self.path}: the header has an empty column name")
            if h in seen:
                raise OlctcError(f"{self.path}: the header names column {h!r} twice")
            seen.add(h)


def _hashed(blocks: Iterator[bytes], h: Any) -> Iterator[bytes]:
    for block in blocks:
        h.update(block)
        yield block


def read_table(path: str | Path) -> Table:
    """Read a CSV (optionally gzip) file whole, comma-separated (or tab-, semicolon- or '|'-separated,
    see ``sniff_delimiter``); ``TableStream`` reads it in chunks.

    A quoted cell may hold line breaks, so row ``k`` need not sit on line ``k + 2``; error messages
    name ``lines[k]`` (see ``line_of``).
    """
    stream = TableStream(path, keep=True)
    rows: list[list[str]] = []
    lines: list[int] = []
    for chunk in stream.chunks():
        rows += chunk.rows
        lines += chunk.lines
    return Table(stream.header, rows, stream.sha256, stream.text, np.asarray(lines, dtype=np.int64),
                 stream.delimiter)


_FIELD_LIMIT = 1 << 30  # csv's default (128 KiB per cell) refuses long but valid cells


def _parse_float(s: str) -> float | None:
    try:
        return number_text(s)  # not "1_000", which Python reads as 1000 and no CSV writer means
    except ValueError:
        return None


def _grouped(vals: Sequence[Any] | np.ndarray) -> bool:
    """Whether a cell has an underscore (Python's digit grouping, which ``float`` accepts)."""
    if isinstance(vals, np.ndarray) and vals.dtype.kind in "biuf":  # numbers (Schema.encode of parsed cells)
        return False
    try:
        return "_" in "".join(vals)
    except TypeError:  # not all strings
        return any("_" in v for v in vals if isinstance(v, str))


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


def _parse_column(vals: Sequence[Any] | np.ndarray, name: str, source: str,
                  line_offset: int | Sequence[int] | np.ndarray | None = 2) -> np.ndarray:
    """One column as floats, NaN and inf included; the first cell that is no number is an error."""
    try:
        # numpy parses strings as Python does ("1_000" -> 1000): those go the slow path, which refuses them
        arr = None if _grouped(vals) else np.asarray(vals, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):  # OverflowError: a Python int beyond float64
        arr = None
    if arr is None:
        for k, v in enumerate(vals):
            if _is_missing(v):
                raise _missing(source, name, _at(k, line_offset))
            if _parse_float(str(v).strip()) is None:
                raise _not_a_number(source, name, _at(k, line_offset), str(v))
        arr = np.asarray([float(str(v).strip()) for v in vals])
    return arr


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


class _EmptyCell(OlctcError):
    """A feature column with an empty cell: ``read_csv`` names every such column in one message."""


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
    (name, ks), rest = empty[0], empty[1:]
    also = "" if not rest else "; empty cells also in " + ", ".join(
        f"{h!r} ({len(k)})" for h, k in rest[:5]) + (f" and {len(rest) - 5} more columns" if len(rest) > 5 else "")
    return OlctcError(f"{source}: column {name!r} {_at(ks[0], lines)}: empty cell ({len(ks)} in this column{also}); "
                      "fill or drop missing values (olctc does not impute), or leave a column out (--drop)")


def _column_kind(name: str, vals: Sequence[str], source: str,
                 lines: int | Sequence[int] | np.ndarray = 2) -> Column:
    """Numeric or categorical; ``lines`` as ``_to_float_column``'s ``line_offset``."""
    # "NaN" or "Inf" among words is a category, not a number: only finite values count as numbers.
    parsed = [f if f is not None and math.isfinite(f) else None for f in map(_parse_float, vals)]
    n_num = sum(p is not None for p in parsed)
    if any(v.strip() == "" for v in vals):
        raise _EmptyCell(name)
    if n_num == len(vals):
        return Column(name, "numeric")
    k = next(k for k, p in enumerate(parsed) if p is None)
    if all(p is not None or _DECIMAL_COMMA.fullmatch(v.strip()) for p, v in zip(parsed, vals)):
        # one-hot encoding "0,5" and "1,25" as categories would train on nonsense without a word
        raise _not_a_number(source, name, _at(k, lines), vals[k])
    if n_num == 0:
        return Column(name, "categorical", tuple(sorted(set(str(v).strip() for v in vals))))
    if n_num >= len(vals) / 2:
        if _parse_float(vals[k]) is None:
            raise _not_a_number(source, name, _at(k, lines), vals[k])
        raise OlctcError(f"{source}: column {name!r} {_at(k, lines)}: expected a finite number, "
                         f"got {_cell(vals[k])}")
    k = next(k for k, p in enumerate(parsed) if p is not None)
    raise OlctcError(f"{source}: column {name!r} mixes text and numbers "
                     f"({_at(k, lines)} has {_cell(vals[k])}); make it all text (categorical) or all numbers")


_DECIMAL_COMMA = re.compile(r"[+-]?([0-9]+,[0-9]*|,[0-9]+)")
_INT_TEXT = re.compile(r"[+-]?(0|[1-9][0-9]*)")
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")


def _label_value(s: str) -> Label:
    """A label cell as a number when it reads as one without losing its text, else the text itself."""
    if _INT_TEXT.fullmatch(s):
        try:
            return int(s)  # exact at any size: float() would merge 12345678901234567890 and ...891
        except ValueError:  # above Python's 4300 digits (sys.set_int_max_str_digits): a code, kept as text
            return s
    if _LEADING_ZERO.match(s):
        return s  # "007" is a code, not 7
    f = _parse_float(s)
    if f is None or not math.isfinite(f):
        return s
    return int(f) if f.is_integer() and abs(f) < 2 ** 53 else f


def binarise_labels(raw: Sequence[Any], positive_class: Any = None, source: str = "data",
                    target: str = "y") -> tuple[np.ndarray, tuple[Label, Label]]:
    """Map two class labels to -1/+1; the positive one is ``positive_class`` or the second sorted."""
    vals = [_label_value(str(v).strip()) if isinstance(v, str) else _py(v) for v in raw]
    uniq = sorted(set(vals), key=_sort_key)
    if len(uniq) < 2:
        got = uniq[0] if uniq else "nothing"
        raise OlctcError(f"{source}: target {target!r} has one class only ({got!r}); "
                         "a classifier needs two")
    if positive_class is None:
        if len(uniq) > 2:
            blank = next((u for u in uniq if _looks_missing(u)), None)
            hint = "" if blank is None else f"; {blank!r} looks like a missing label: drop those rows"
            raise OlctcError(f"{source}: target {target!r} has {len(uniq)} classes {uniq[:10]}; olctc trains "
                             f"binary trees: pick one with --positive-class (one class against the rest){hint}")
        pos = uniq[1]
    else:
        pos_v = _label_value(str(positive_class).strip()) if isinstance(positive_class, str) else _py(positive_class)
        matches = [u for u in uniq if u == pos_v or str(u) == str(positive_class)]
        if not matches:
            raise OlctcError(f"{source}: positive class {positive_class!r} is not a value of target "
                             f"{target!r}; its values are {uniq[:10]}{_case_hint(positive_class, uniq)}")
        pos = matches[0]
    rest = [u for u in uniq if u != pos]
    neg: Label = rest[0] if len(rest) == 1 else f"not {pos}"
    for c in (neg, pos):
        if isinstance(c, str) and not is_unicode(c):
            # Every file olctc writes is UTF-8: the tree of such a class could not be saved after the solve.
            raise OlctcError(f"{source}: class label {shorten(repr(c))} of target {target!r} is not valid Unicode "
                             f"text (a lone surrogate)")
    y = np.where(np.asarray([v == pos for v in vals]), 1, -1).astype(np.int8)
    return y, (neg, pos)


def _case_hint(label: Any, classes: Sequence[Any]) -> str:
    """'; did you mean 'True'?' when ``label`` matches one class's text but for case, else ''."""
    # Labels match exactly (the value or its text): 'yes' and 'Yes' may be two classes. Only a hint, then.
    text = str(label).strip().casefold()
    near = [c for c in classes if str(c).casefold() == text]
    return f"; did you mean {_shown(near[0])!r}?" if len(near) == 1 else ""


def class_weight_by_label(request: Any, classes: tuple[Label, Label],
                          option: str | None = None) -> str | tuple[float, float] | None:
    """A class weight request in terms of class labels -> the spec's form (``olctc.spec.parse_class_weight``).

    ``request``: None, "balanced", a dict {label: weight} (scikit-learn's form; a class not named weighs 1)
    or the command line's text "LABEL=WEIGHT[,LABEL=WEIGHT]" (a label may hold commas and '=' signs, see
    ``_label_weight_items``). Labels match as ``positive_class`` does (the value or its text). Returns None,
    "balanced" or (weight of ``classes[0]``, weight of ``classes[1]``).
    ``option``: the command-line option that gave it, for the error messages.
    """
    from olctc.spec import parse_class_weight

    def bad(expected: str) -> OlctcError:
        return param_error("class_weight", expected, _shown(request), option)

    if request is None:
        return None
    form = "'balanced' or weights by class label ('LABEL=WEIGHT,LABEL=WEIGHT' or a dict)"
    if isinstance(request, str):
        if request.strip().lower() == "balanced":
            return "balanced"
        items = _label_weight_items(request)
        if items is None:
            raise bad(form)
    elif isinstance(request, dict):
        items = list(request.items())
    else:
        raise bad("None, " + form)
    shown = [_shown(c) for c in classes]  # the estimator's classes are numpy scalars: np.str_('a') in a message
    weights: list[float | None] = [None, None]
    for label, weight in items:
        key = _label_value(label) if isinstance(label, str) else _py(label)
        hits = [k for k, c in enumerate(classes) if c == key or str(c) == str(label)]
        if not hits:
            raise bad(f"weights of the classes {shown} ({_shown(label)!r} is not one"
                      f"{_case_hint(label, classes)})")
        k = hits[0]
        if weights[k] is not None:
            raise bad(f"one weight per class (class {shown[k]!r} has two)")
        w = _class_weight_value(weight)
        if w is None:
            raise bad(f"finite weights > 0 (class {shown[k]!r} has {_shown(weight)!r})")
        weights[k] = w
    return parse_class_weight(tuple(1.0 if w is None else w for w in weights))


def _label_weight_items(text: str) -> list[tuple[str, str]] | None:
    """"LABEL=WEIGHT[,LABEL=WEIGHT]" as (label, weight) texts, stripped; None when malformed.

    A weight is a number, so it holds neither ',' nor '=': the weight is after a part's last '=', and a part
    without '=' is the start of a label with a comma, continued by the next part ("yes, sick=3").
    """
    items, label = [], ""
    for part in text.split(","):
        head, eq, weight = part.rpartition("=")
        if not eq:
            label += part + ","
            continue
        label += head
        if not label.strip():
            return None
        items.append((label.strip(), weight.strip()))
        label = ""
    return None if label else items


def _class_weight_value(weight: Any) -> float | None:
    """A class weight (a number, or its text) as a float if finite and > 0, else None."""
    try:
        w = number_text(weight) if isinstance(weight, str) else float(weight) if is_real(weight) else None
    except (ValueError, OverflowError):  # OverflowError: a Python int beyond float64 (10**400)
        return None
    return w if w is not None and 0 < w < math.inf else None


def _shown(value: Any) -> Any:
    """A value for a message: numpy scalars (also a dict's keys and values) as Python's, one readable repr."""
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    return value.item() if isinstance(value, np.generic) else value


def is_unicode(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (no lone surrogate): every file olctc writes is UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _py(v: Any) -> Label:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return int(v) if float(v).is_integer() else float(v)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _sort_key(v: Label) -> tuple[int, Any]:
    return (0, v) if isinstance(v, (int, float)) else (1, str(v))


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


def json_label(v: Any) -> Any:
    """A class label as JSON can hold it (numpy numbers as Python ones)."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


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
    nonzeros (compile's ``max_nonzeros``); None: no limit (decode re-reads data a model was built on).
    """
    from olctc.io import check_path

    path = check_path(path, "path")
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
            raise OlctcError(f"{src}: target column {target!r} not found: the header is one column "
                             f"{shorten(header[0])!r}; {SEPARATORS_READ}")
        raise OlctcError(f"{src}: target column {target!r} not found; columns are: {_columns_text(header)}")
    if read.n < 2:
        raise OlctcError(f"{src}: {read.n} data row(s); at least 2 points are needed")
    ti = header.index(target)
    dropped = tuple(dict.fromkeys(drop))
    for name in dropped:
        if name == target:
            raise OlctcError(f"{src}: column {name!r} to drop is the target column")
        if name not in header:
            raise OlctcError(f"{src}: column {name!r} to drop is not in the file; columns are: "
                             f"{_columns_text(header)}")
    if weight_column is not None and weight_column not in header:
        raise OlctcError(f"{src}: weight column {weight_column!r} is not in the file; columns are: "
                         f"{_columns_text(header)}")
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
        try:
            cols = [Column(h, "numeric") if h in read.numbers else
                    _column_kind(h, read.cells[header.index(h)], src, lines) for h in feats]
        except _EmptyCell:
            raise _empty_cells(read.cells, header, feats, src, lines) from None
        schema = Schema(tuple(cols))
        _check_unique_features(schema, src)
        if max_one_hot is not None:
            _check_one_hot_size(schema, read.n, src, max_one_hot)
        cells = {h: read.numbers[h] if h in read.numbers else [v.strip() for v in read.cells[header.index(h)]]
                 for h in feats}
        X = schema.encode(cells, src)
        if warn_identifiers:
            _warn_identifiers(schema, read.n, src)
            _warn_marker_categories(schema, src)
    return Dataset(X, y, classes, schema, Path(path).name.split(".")[0], read.sha256,
                   str(Path(path).resolve()), target, dropped=dropped, weight=weight, weight_column=weight_column)


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
    stream = TableStream(path, digest=True)
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
                for j in [j for j in num if _number_block(rows, [j]) is None]:
                    num.remove(j)
                    cells[j] = [r[j] for r in rows]
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
    others = sorted(set(range(width)) - set(idx), reverse=True)
    if len(idx) == 1:
        flat = [r[idx[0]] for r in rows]
    elif len(others) <= 8:  # all cells, the few other columns' taken out: no list per row (nor its GC)
        flat = list(itertools.chain.from_iterable(rows))
        for j in others:  # the last first: the columns before it keep their place
            del flat[j::width]
            width -= 1
    else:
        flat = list(itertools.chain.from_iterable(map(operator.itemgetter(*idx), rows)))
    sample = flat[:_SAMPLE_CELLS]
    try:
        if 2 * len(set(sample)) <= len(sample):  # few different texts (0/1 features): each converted once
            uniq = set(flat)
            if "_" in "".join(uniq):  # float() reads "1_000" as 1000
                return None
            value = {c: float(c) for c in uniq}
            arr = np.array(list(map(value.__getitem__, flat)), dtype=np.float64)
        else:
            if "_" in "".join(flat):
                return None
            arr = np.array(flat, dtype=np.float64)  # each cell as float() reads it
    except (ValueError, TypeError, OverflowError):
        return None
    if not np.isfinite(arr).all():
        return None
    return arr.reshape(len(rows), len(idx))


#: Cells whose number of different texts decides how ``_number_block`` converts a chunk.
_SAMPLE_CELLS = 2000


def _all_stripped_numbers(vals: Sequence[str]) -> bool:
    """Whether every cell, stripped, is a finite number for ``float`` (a superset of np.loadtxt's)."""
    for v in vals:
        try:
            if not math.isfinite(float(v.strip())):
                return False
        except ValueError:
            return False
    return True


def _whole_columns(path: str | Path, target: str, drop: Sequence[Any], weight_column: str | None) -> _Read:
    """``_read_columns`` by reading the file whole, every cell a string (read_csv's reading before)."""
    table = read_table(path)
    header, rows = table.header, table.rows
    roles = _roles(header, target, drop, weight_column)
    cells: dict[int, list[str]] = {}
    X = None
    if roles is not None and len(rows) >= 2:
        ti, wi, feats = roles
        cells = {j: [r[j] for r in rows] for j in (ti, wi, *feats) if j is not None}
        X = _all_numeric(table, feats)
    return _Read(header, len(rows), table.lines, table.sha256, cells, {}, X)


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


def _no_label(cell: str) -> bool:
    """An empty cell or NaN in any spelling ("nan", "NaN", "-nan": pandas' missing label) is no class."""
    f = _parse_float(cell)
    return cell == "" or (f is not None and math.isnan(f))


#: Labels that spreadsheets, R and pandas write for a missing value (pandas' ``na_values``, lower case, and
#: the UCI repository's "?"); a legitimate class name too, rarely: they warn, they are not refused.
_MISSING_MARKERS = frozenset({"na", "n/a", "#n/a", "#na", "<na>", "null", "none", "?"})


def _looks_missing(label: Label) -> bool:
    return isinstance(label, str) and label.strip().lower() in _MISSING_MARKERS


def _warn_missing_marker(labels: Sequence[str], y: np.ndarray, classes: tuple[Label, Label], chosen: bool,
                         source: str, target: str, lines: Sequence[int] | np.ndarray) -> None:
    """Warn when a label that reads as a missing value ("NA") trains as a class: with --positive-class it
    joined the negatives without a word, and two such rows made a class of their own."""
    import warnings

    k = next((k for k, v in enumerate(labels) if _looks_missing(v) and not (chosen and y[k] > 0)), None)
    if k is None:
        return
    cls = classes[1] if y[k] > 0 else classes[0]
    warnings.warn(f"{source}: target {target!r} line {line_of(k, lines)}: label {labels[k]!r} looks like a missing "
                  f"value, yet trains as class {_shown(cls)!r}; drop the unlabelled rows if it is one", stacklevel=3)


def _columns_text(header: Sequence[str]) -> str:
    """The first columns of a header, for a message naming a column that is not there."""
    return ", ".join(header[:12]) + (" ..." if len(header) > 12 else "")


def check_weights(weight: np.ndarray, y: np.ndarray, classes: tuple[Label, Label], what: str,
                  where: Any = lambda k: f"row {k}") -> None:
    """Per-point weights must be finite and >= 0, and each class must weigh something (a class of weight
    0 leaves a one-class problem). ``what`` starts each message, ``where(k)`` names point k."""
    bad = ~np.isfinite(weight)
    if bad.any():
        k = int(np.argmax(bad))
        raise OlctcError(f"{what}: {where(k)}: expected a finite number >= 0, got {float(weight[k])!r}")
    neg = weight < 0
    if neg.any():
        k = int(np.argmax(neg))
        raise OlctcError(f"{what}: {where(k)}: expected a weight >= 0, got {float(weight[k])!r}")
    with np.errstate(over="ignore"):
        total = float(np.sum(weight))
    if not math.isfinite(total):  # the model's sums of weighted losses (and "balanced") would overflow
        raise OlctcError(f"{what}: the weights sum past the float range (1.8e308); divide them all by one "
                         "number (the model weighs them against the penalty as C does: a larger C "
                         "compensates)")
    check_classes_weigh(weight, y, classes, what)


def check_classes_weigh(weight: np.ndarray, y: np.ndarray, classes: tuple[Label, Label], what: str,
                        among: str = "", fix: str = "give some of them a weight > 0") -> None:
    """Each class must have a point of weight > 0: a class of weight 0 leaves a one-class problem."""
    for label, sign in zip(classes, (-1, 1)):
        if not (weight[y == sign] > 0).any():
            raise OlctcError(f"{what}: every point of class {_shown(label)!r}{among} weighs 0, which leaves one "
                             f"class to train on; {fix}")


def _warn_marker_categories(schema: Schema, source: str) -> None:
    """Warn when a text column holds a value that reads as a missing value ("NA", "?"): it is one-hot encoded
    as a category of its own, which may be meant (a "none" answer) or a missing cell olctc cannot see."""
    import warnings

    for col in schema.columns:
        marker = next((c for c in col.categories if _looks_missing(c)), None) if col.kind == "categorical" else None
        if marker is not None:
            warnings.warn(f"{source}: column {col.name!r} has the text value {marker!r}, which reads as a missing "
                          "value, encoded as a category of its own; replace such cells if they are missing "
                          "(olctc does not impute)", stacklevel=3)


def _warn_identifiers(schema: Schema, n: int, source: str) -> None:
    import shlex
    import warnings

    if n < IDENTIFIER_ROWS:
        return
    for col in schema.columns:
        if col.kind == "categorical" and len(col.categories) == n:
            warnings.warn(f"{source}: column {col.name!r} has a different text value on each of its {n} rows "
                          f"(an identifier?), one-hot encoded into {n} features; leave it out with "
                          f"--drop {shlex.quote(col.name)}", stacklevel=3)


def from_arrays(X: Any, y: Any, feature_names: Sequence[str] | None = None, positive_class: Any = None,
                name: str = "arrays", sample_weight: Any = None) -> Dataset:
    """Validate numeric arrays (as the estimators receive them) into a Dataset; ``sample_weight``: one
    loss weight >= 0 per row, or None."""
    check_real(X, "X")
    try:
        Xa = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise OlctcError("X must be numeric; encode text columns first (or use a CSV file)") from None
    except OverflowError:  # a Python int beyond float64 (10**400)
        raise OlctcError("X holds an integer too large for a float64 (above 1.8e308)") from None
    if Xa.ndim != 2:
        raise OlctcError(f"X must be a 2-D array; got {Xa.ndim} dimension(s)")
    ya = np.asarray(y)
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise OlctcError(f"y must be 1-D with one label per row of X ({Xa.shape[0]}); got shape {ya.shape}")
    if Xa.shape[0] < 2:
        raise OlctcError(f"at least 2 points are needed; got {Xa.shape[0]}")
    bad = ~np.isfinite(Xa)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise non_finite(Xa[i, j], f"row {i}, column {j}")
    if Xa.shape[1] < 1:
        raise OlctcError("X has no feature columns; at least 1 is needed")
    if isinstance(feature_names, (str, bytes)) or (feature_names is not None and any(
            n is None for n in feature_names)):  # "abc" named the features a, b, c; None named one "None"
        raise param_error("feature_names", "a list of names, one per column of X", feature_names)
    names = [str(n) for n in feature_names] if feature_names is not None else [f"x{j}" for j in range(Xa.shape[1])]
    if len(names) != Xa.shape[1]:
        raise OlctcError(f"feature_names has {len(names)} name(s) for the {Xa.shape[1]} column(s) of X")
    dup = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if dup is not None:
        raise OlctcError(f"feature_names names {dup!r} twice; feature names must be unique")
    for j, n in enumerate(names):
        if n == "":
            # A tree file names every column (as a CSV header must): an unnamed one could not be read back.
            raise OlctcError(f"feature_names[{j}] is empty; every feature needs a name")
        if not is_unicode(n):
            # Every file olctc writes (manifest, tree JSON, code) is UTF-8: such a name could not be saved.
            raise OlctcError(f"feature_names[{j}] {n!r} is not valid Unicode text (a lone surrogate); "
                             "decode the name properly")
    yv, classes = binarise_labels(list(ya), positive_class, name, "y")
    schema = Schema(tuple(Column(n, "numeric") for n in names))
    weight = None if sample_weight is None else _weight_array(sample_weight, Xa.shape[0], yv, classes)
    digest = hashlib.sha256(Xa.tobytes() + yv.tobytes()
                            + (b"" if weight is None else weight.tobytes())).hexdigest()
    return Dataset(Xa, yv, classes, schema, name, digest, name, weight=weight)


def _weight_array(sample_weight: Any, n: int, y: np.ndarray, classes: tuple[Label, Label]) -> np.ndarray:
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise OlctcError("sample_weight must be numbers, one per row of X") from None
    except OverflowError:
        raise OlctcError("sample_weight holds an integer too large for a float64 (above 1.8e308)") from None
    if w.ndim == 0:  # scikit-learn's _check_sample_weight: a scalar weighs every point alike
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise OlctcError(f"sample_weight must be 1-D with one weight per row of X ({n}); got shape {w.shape}")
    check_weights(w, y, classes, "sample_weight")
    return w
