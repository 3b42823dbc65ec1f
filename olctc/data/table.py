"""A table file to rows of text cells, in chunks: gzip or plain, the separator, the encoding, the sha256 of the
bytes read. Nothing here knows what a column means."""
from __future__ import annotations

import codecs
import collections
import contextlib
import csv
import gzip
import hashlib
import io
import itertools
import re
import zlib
from pathlib import Path
from typing import IO, Any, Collection, Generator, Iterator, NamedTuple, Sequence

import numpy as np

from olctc.errors import OlctcError, not_utf8, number_text


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


#: What a file whose header line looks like data is asked to do.
ADD_HEADER = "if the file has no header line, add one (olctc reads the first line as the column names)"


def headerless_hint(header: Sequence[str]) -> str:
    """The end of a message about the header's names when every one is a number: a file without a header line,
    whose first data row was read as the names ("target column 'y' not found; columns are: 30.0, 64, 1.0, 1"
    said nothing of it); else ""."""
    try:
        for name in header:
            number_text(name)
    except ValueError:
        return ""
    return f"; the header line holds numbers only: {ADD_HEADER}" if header else ""


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
        # "-" reads standard input in many tools (olctc's -o - writes to standard output): say how here
        stdin = "; to read standard input, give /dev/stdin" if str(path) == "-" and Path("/dev/stdin").exists() else ""
        raise OlctcError(f"{path}: no such file{stdin}")
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
    if _utf16_without_bom(head):  # NUL is valid UTF-8: it read as text of one-letter columns split by NULs
        for _ in blocks:
            pass
        raise OlctcError(f"{path}: not UTF-8 text: it is UTF-16 without a byte-order mark (every other byte is 0); "
                         "save the CSV as UTF-8")
    raw: bytes | None = head.removeprefix(codecs.BOM_UTF8)  # None: the end
    fed = 0
    while True:
        try:
            text = decoder.decode(raw or b"", final=raw is None)
        except UnicodeDecodeError as exc:
            at = fed - len(decoder.getstate()[0]) + exc.start
            for _ in blocks:  # a read error further on came first when the whole file was read at once
                pass
            raise OlctcError(f"{path}: {not_utf8(exc, at)}{_not_text_advice(head)}") from None
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


def _utf16_without_bom(head: bytes) -> bool:
    """Whether ``head`` reads as UTF-16 text of ASCII characters: every other byte 0, the others not."""
    sample = head[:64] if len(head) % 2 == 0 else head[:min(64, len(head) - 1)]
    if len(sample) < 4:
        return False
    even, odd = sample[0::2], sample[1::2]
    return (not any(odd) and all(even)) or (not any(even) and all(odd))


def _not_text_advice(head: bytes) -> str:
    """What a file (decompressed) starting with ``head`` that is not UTF-8 is, if known, and what to do."""
    return next((f"; {what}: {advice}" for magic, what, advice in _MAGIC if head.startswith(magic)),
                "; save the CSV as UTF-8")


def _line_pieces(path: Path, texts: Iterator[str], kept: list[str] | None,
                 unended: list[str] | None = None) -> tuple[str, Generator[str, None, None]]:
    """The delimiter (``sniff_delimiter``) and the text in pieces of whole lines, for ``csv.reader``.

    Text without any "\\n" but with "\\r" (old Mac line ends, "CSV (Macintosh)") reads with "\\n" for
    each "\\r": deciding it takes the text up to the first "\\n", all of it for such a file. ``kept``
    receives the text read; ``unended`` the last line when no line break ends it. An error is raised once
    all the text was read: an empty file, or a read or decoding error (raised by ``texts``).
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
            last = "".join(rest)
            if unended is not None:
                unended.append(last)
            yield last

    return delimiter, pieces()


def _blank(row: list[str]) -> bool:
    return not any(c.strip() for c in row)


class _Tail:
    """The text of the lines read from a given line on, kept as the line pieces ``csv.reader`` reads: what a
    check of a record's own text needs (a stray quote in a field spanning lines) without reading the file
    again, which a pipe cannot be. ``TableStream`` keeps the lines from the last record of its last chunk on
    (``keep_from``): about one chunk's text."""

    def __init__(self) -> None:
        self.keep_from = 1  # no line before this one is needed any more: the stream's last record starts here
        self.pieces: collections.deque[tuple[int, int, str]] = collections.deque()  # (first line, lines, text)
        self._starts: dict[int, list[int]] = {}  # a piece's first line -> where each of its lines starts

    def kept(self, pieces: Iterator[str]) -> Generator[str, None, None]:
        """``pieces``, each kept until a later one is read after ``keep_from`` has passed its lines."""
        line = 1
        for piece in pieces:
            first = self.keep_from
            while self.pieces and self.pieces[0][0] + self.pieces[0][1] <= first:
                self._starts.pop(self.pieces.popleft()[0], None)
            n = piece.count("\n") + (not piece.endswith("\n"))  # csv.reader's lines: the last may be unended
            self.pieces.append((line, n, piece))
            line += n
            yield piece

    def lines(self, start: int, end: int) -> str:
        """Lines ``start`` to ``end`` (1-based, as csv.reader's line_num counts them), with their line breaks."""
        out = []
        for first, n, text in self.pieces:
            if first + n <= start:
                continue
            if first > end:
                break
            out.append(text[self._start(first, text, start - first):self._start(first, text, end + 1 - first)])
        return "".join(out)

    def _start(self, first: int, text: str, k: int) -> int:
        """Where line ``k`` (0-based; clipped to the piece) of the piece starting at line ``first`` starts."""
        if k <= 0:
            return 0
        starts = self._starts.get(first)
        if starts is None:  # once per piece that holds a record spanning lines: those are rare in a table
            starts = self._starts[first] = [0, *(m.end() for m in re.finditer("\n", text))]
        return starts[k] if k < len(starts) else len(text)


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

    def __init__(self, path: str | Path, *, keep: bool = False, digest: bool = False,
                 needed: Collection[str] | None = None) -> None:
        """Open ``path`` and read its header; ``keep``: keep the text and hash the bytes (``text``,
        ``sha256``) as ``read_table`` needs; ``digest``: hash the bytes only (``sha256``); ``needed``: the
        columns the caller reads (None: all), a name the header repeats is a fault only among them."""
        self.path = Path(path)
        self._needed = None if needed is None else frozenset(needed)
        self.rows_read = 0  # data rows yielded so far
        self.multiline_records = 0  # the header and rows read so far that span lines (a cell holds a line break)
        self.unended: list[str] = []  # the last line, once read, when no line break ends the file
        self._hash = hashlib.sha256() if keep or digest else None
        self._kept: list[str] | None = [] if keep else None
        blocks = _byte_blocks(self.path)
        if self._hash is not None:
            blocks = _hashed(blocks, self._hash)
        self.delimiter, self._pieces = _line_pieces(self.path, _text_blocks(self.path, blocks), self._kept,
                                                    self.unended)
        self._tail = _Tail()  # no reference back to self: a stream dropped half read closes its file at once
        self._reader = csv.reader(itertools.chain.from_iterable(map(io.StringIO, self._tail.kept(self._pieces))),
                                  delimiter=self.delimiter)
        self._pending: list[tuple[list[str], int]] = []  # blank rows, data rows if a non-blank one follows
        self._ragged: OlctcError | None = None  # the first row with the wrong number of fields
        with self._parsing():
            header = next(self._reader, None)
        self._end = self._reader.line_num  # the line where the last record read ends
        if self._end > 1:
            self.multiline_records += 1
            self._spanning(1, self._end)
        if header is not None and _SEPARATOR_HINT.fullmatch((hint := self.delimiter.join(header)).strip()):
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

    def _spanning(self, start: int, end: int) -> None:
        """Called with each record read that spans lines ``start`` to ``end`` (``_tail`` holds them): rare in a
        table, so a check of their text costs a file read well nothing."""

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
        start = self._tail.keep_from  # where the last record read starts
        for row in reader:
            start, end = end + 1, reader.line_num
            if end != start:
                self.multiline_records += 1
                self._spanning(start, end)
            if not (row and row[0].strip()) and _blank(row):
                # held until a data row shows whether they were inside the data; past one of another width
                # (the error then, whatever follows) none is: 5M blank lines held 930 MB (QA 2026-12-05)
                if ragged is None and not (pending and len(pending[-1][0]) != width):
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
                ragged = (self._blank_header_error() if self._blank_header else
                          OlctcError(f"{self.path}: line {start} has {len(row)} "
                                     f"field{'s' * (len(row) != 1)}, the header has {width}"))
                continue
            add_row(row)
            add_line(start)
            if len(rows) >= size:
                break
        else:  # the end of the file: blank rows held are trailing ones, dropped
            self._end = end
            self._tail.keep_from = start
            if ragged is not None:
                raise ragged
            pending = []
        self._end, self._pending, self._ragged = end, pending, ragged
        self._tail.keep_from = start
        if not rows:
            return None
        chunk = RowChunk(rows, lines, self.rows_read)
        self.rows_read += len(rows)
        return chunk

    def _blank_header_error(self) -> OlctcError:
        """Line 1 blank, or only separators, with data after it: "line 2 has 3 fields, the header has 0" and "the
        header has an empty column name" said where, not what."""
        return OlctcError(f"{self.path}: line 1, the header, is blank or only separators: the file must start with "
                          "its header line (the column names); delete the lines before it")

    def _check_header(self) -> None:
        if self._blank_header and not self.rows_read:
            # read_table failed here with an IndexError (a file of blank cells such as '""')
            raise OlctcError(f"{self.path}: the file has only blank cells, no header")
        if self._blank_header:
            raise self._blank_header_error()
        seen: set[str] = set()
        for k, h in enumerate(self.header):
            if h == "" and k == len(self.header) - 1 and k:
                # A writer that ends every line with the separator (a trailing ',') makes an unnamed last
                # column: say where the empty name is, since the header then looks right.
                raise OlctcError(f"{self.path}: the header's last column (column {k + 1}) has no name: the header "
                                 f"line ends with the separator {self.delimiter!r}; remove the separator at the end "
                                 "of each line, or name the column")
            if h == "":  # (the first column's: CsvStream says more)
                between = f" (after {self.header[k - 1]!r})" if k else ""
                raise OlctcError(f"{self.path}: the header's column {k + 1}{between} has no name; name it")
            if h in seen and (self._needed is None or h in self._needed):
                raise OlctcError(f"{self.path}: the header names column {h!r} twice{headerless_hint(self.header)}")
            seen.add(h)


def _hashed(blocks: Iterator[bytes], h: Any) -> Iterator[bytes]:
    for block in blocks:
        h.update(block)
        yield block


def read_table(path: str | Path, stream_type: type[TableStream] | None = None) -> Table:
    """Read a CSV (optionally gzip) file whole, comma-separated (or tab-, semicolon- or '|'-separated,
    see ``sniff_delimiter``); ``TableStream`` (or ``stream_type``, a subclass) reads it in chunks.

    A quoted cell may hold line breaks, so row ``k`` need not sit on line ``k + 2``; error messages
    name ``lines[k]`` (see ``line_of``).
    """
    stream = (stream_type or TableStream)(path, keep=True)
    rows: list[list[str]] = []
    lines: list[int] = []
    for chunk in stream.chunks():
        rows += chunk.rows
        lines += chunk.lines
    return Table(stream.header, rows, stream.sha256, stream.text, np.asarray(lines, dtype=np.int64),
                 stream.delimiter)


_FIELD_LIMIT = 1 << 30  # csv's default (128 KiB per cell) refuses long but valid cells
