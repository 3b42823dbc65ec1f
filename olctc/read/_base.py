"""Plumbing shared by the solution readers: the format registry, the text a reader works on, number
parsing, and the one-line errors (``<file>[:<line>]: expected <what>, got <what came>``)."""
from __future__ import annotations

import bz2
import codecs
import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from olctc.errors import OlctcError
from olctc.read.solution import Solution


#: Where a solver's line ends (LF, CRLF, or an old Mac's CR), and the other breaks ``str.splitlines`` knows.
_LINE_END = re.compile(r"\r\n|\r|\n")
_OTHER_BREAKS = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def shown(text: str, limit: int = 60) -> str:
    """``repr`` of ``text``, shortened so that a message stays on one line."""
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


@dataclass(frozen=True)
class Source:
    """A solution file split into lines, and the name messages use for it."""

    where: str
    lines: list[str]
    ends_with_newline: bool = True

    @classmethod
    def from_text(cls, text: str, where: str) -> "Source":
        if _OTHER_BREAKS.search(text) is None:
            lines = text.splitlines()
        else:
            # splitlines also breaks at VT, FF, \x1c-\x1e, NEL, U+2028 and U+2029, which solvers write only inside
            # names (a CPLEX column 'a\u2028b' read as 'a b', QA 2026-12-07): lines end at CR, LF and CRLF alone.
            lines = _LINE_END.split(text)
            if lines[-1] == "":
                lines.pop()
        return cls(where, lines, text.endswith(("\n", "\r")))

    def fail(self, expected: str, got: str, line: int | None = None) -> OlctcError:
        """The error for this file; ``line`` is 1-based (None or 0: no line to point at)."""
        loc = f"{self.where}:{line}" if line else self.where
        return OlctcError(f"{loc}: expected {expected}, got {got}")

    def first(self) -> tuple[int, str]:
        """0-based index and text of the first non-blank line (-1, '' if none)."""
        for i, line in enumerate(self.lines):
            if line.strip():
                return i, line.strip()
        return -1, ""

    def head(self, n: int = 12) -> list[str]:
        """The first ``n`` non-blank lines, stripped (what detectors look at)."""
        out: list[str] = []
        for line in self.lines:
            if line.strip():
                out.append(line.strip())
                if len(out) == n:
                    break
        return out

    def require_final_newline(self) -> None:
        """Formats without a count or an end marker can only show truncation by a cut last line."""
        if not self.ends_with_newline:
            raise self.fail("a newline at the end of the last line", "a cut line (file truncated?)",
                            line=len(self.lines))


@dataclass(frozen=True)
class Reader:
    """One solution format: how to recognise it and how to parse it.

    Parameters
    ----------
    name : the format name, which is also the solver name of the solutions it returns.
    signature : how the format is recognised, in words, for messages.
    detect : cheap test on the start of the file.
    parse : full parse; the second argument is ``col_names`` (needed by index-only formats).
    named : the format as messages name it, article included ("an Xpress": "an Xpress solution file").
    """

    name: str
    signature: str
    detect: Callable[[Source], bool]
    parse: Callable[[Source, Sequence[str] | None], Solution]
    named: str


#: Formats whose files carry no status words (Gurobi .sol, Xpress .slx, COPT .sol): the reader's "feasible" only
#: says that a solution is there. Their raw status -> what decode says of such a file (``statusless``).
STATUSLESS: dict[str, str] = {}


def statusless(file: str, where: str) -> str:
    """Register a format whose files (``file``: "a Gurobi .sol file") carry no status; ``where`` says where the
    status is told instead ("Gurobi's log"). Returns the raw status its solutions get."""
    raw = f"solution ({file} has no status)"
    STATUSLESS[raw] = f"{file}, which carries no status ({where} says whether it is optimal)"
    return raw


#: Registration order is detection order: content that two formats share (HiGHS writes GLPK's
#: formats on request) goes to the format registered first.
READERS: dict[str, Reader] = {}


def register(reader: Reader) -> Reader:
    READERS[reader.name] = reader
    return reader


def known_formats() -> str:
    return ", ".join(READERS)


def detect(src: Source) -> str | None:
    """Name of the first registered format whose detector accepts ``src``, else None."""
    return next((name for name, reader in READERS.items() if reader.detect(src)), None)


def read_source(path: str | os.PathLike[str]) -> Source:
    """Read a solution file into a ``Source``; missing, unreadable, empty and binary files are errors."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise OlctcError(f"{where}: expected a solution file, got no such file") from None
    except IsADirectoryError:
        raise OlctcError(f"{where}: expected a solution file, got a directory") from None
    except OSError as exc:
        raise OlctcError(f"{where}: expected a readable solution file, got {exc.strerror}") from None
    data = _uncompressed(data, where)
    if not data.strip():
        raise OlctcError(f"{where}: expected a solution file ({known_formats()}), got an empty file")
    text = _utf16(data)
    if text is None:
        if b"\0" in data[:65536]:
            raise OlctcError(f"{where}: expected a text solution file ({known_formats()}), got binary content")
        try:
            # utf-8-sig: a byte order mark (Windows editors add one) is not part of the first line
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            # CPLEX and GLPK write names in Latin-1; Latin-1 decodes any byte, so names survive.
            text = data.decode("latin-1")
    return Source.from_text(text, where)


_OPENERS: dict[str, Callable[[io.BytesIO], Any]] = {"gzip": lambda raw: gzip.GzipFile(fileobj=raw),
                                                     "bzip2": bz2.BZ2File}


def _compression(data: bytes) -> str | None:
    """A file's compression by its first bytes: "gzip", "bzip2" (the keys of ``_OPENERS``) or None."""
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:3] == b"BZh" and data[4:10] == b"1AY&SY":
        return "bzip2"
    return None


def read_as_written(head: bytes) -> bool:
    """Whether ``read_source`` gives a file that starts with ``head`` (its first 64 KB, say) as its bytes are:
    not compressed, no byte order mark, no line end but "\\n" (nor CR, nor VT, FF, \\x1c-\\x1e, NEL, which the
    readers split lines at before 2026-12-07). Otherwise the lines read may equal another file's bytes (a gzip or
    CRLF copy of it)."""
    return (_compression(head) is None and not head.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE,
                                                                  codecs.BOM_UTF16_BE))
            and not any(c in head for c in b"\r\v\f\x1c\x1d\x1e\x85"))


def _uncompressed(data: bytes, where: str) -> bytes:
    """The content of a gzip or bzip2 file (Gurobi and CPLEX write ``x.sol.gz`` and ``x.sol.bz2`` when asked),
    else ``data`` itself. Archives that hold files (zip, 7z) are refused by name."""
    kind = _compression(data)
    if kind is None:
        if data[:4] == b"PK\x03\x04" or data[:6] == b"7z\xbc\xaf\x27\x1c":
            archive = "zip" if data[:2] == b"PK" else "7z"
            raise OlctcError(f"{where}: expected a solution file ({known_formats()}, or gzip/bzip2 of one), "
                             f"got a {archive} archive: extract the solution file from it first")
        return data
    # A few KB can expand to gigabytes (a bomb: 6 KB of bzip2 took decode past 2.5 GB, QA 2026-12-05): read up to
    # a limit far above any solution file's ratio (text of names and numbers packs 3-30x), never past 4 GiB.
    limit = min(MAX_UNCOMPRESSED, max(256 << 20, MAX_RATIO * len(data)))
    try:
        with _OPENERS[kind](io.BytesIO(data)) as f:
            out = f.read(limit + 1)
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise OlctcError(f"{where}: expected a complete {kind} file, got a damaged or cut one ({exc})") from None
    if len(out) > limit:
        raise OlctcError(f"{where}: expected a {kind} solution file, got one that expands past {limit:,} bytes "
                         f"({len(data):,} bytes packed): a damaged or crafted file; decompress it yourself if it "
                         "is a solution")
    return out


#: The most a compressed solution file may expand to, and to how many times its size (above 256 MiB).
MAX_UNCOMPRESSED = 4 << 30
MAX_RATIO = 200


def _utf16(data: bytes) -> str | None:
    """The text of a UTF-16 file with a byte order mark (what Windows PowerShell writes), else None."""
    if data[:2] not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return None
    try:
        return data.decode("utf-16")
    except UnicodeDecodeError:
        return None


def parse_number(src: Source, token: str, expected: str, line: int) -> float:
    """One finite float; Python's extras (``1_0``, ``nan``, ``inf``) are refused."""
    try:
        value = float(token)
    except ValueError:
        value = float("nan")
    if not np.isfinite(value) or "_" in token:
        raise src.fail(expected, shown(token), line=line)
    return value


def parse_values(src: Source, tokens: list[str], names: Sequence[str], lines: Sequence[int]) -> np.ndarray:
    """Convert value tokens to float64, naming the line and column of the first bad one."""
    try:
        values = np.array(tokens, dtype=np.float64) if tokens else np.zeros(0)
        ok = bool(np.isfinite(values).all()) and not any("_" in t for t in tokens)
    except ValueError:
        ok = False
    if not ok:
        for token, name, line in zip(tokens, names, lines):
            parse_number(src, token, f"a finite number as the value of column {name!r}", line)
    return values


def name_values(src: Source, names: Sequence[str], values: np.ndarray, lines: Sequence[int]) -> dict[str, float]:
    """``dict(zip(names, values))``; a column that appears twice is an error."""
    out = dict(zip(names, values.tolist()))
    if len(out) != len(names):
        first: dict[str, int] = {}
        for name, line in zip(names, lines):
            if name in first:  # line 0: a format read without line numbers (CPLEX's XML)
                where = f" (first on line {first[name]})" if first[name] else ""
                raise src.fail("each column once", f"{name!r} again{where}", line=line)
            first[name] = line
    return out


def split_lines(src: Source, start: int, stop: int, widths: Iterable[int], expected: str) -> list[list[str]]:
    """Whitespace-split ``src.lines[start:stop]`` (0-based); every line must have one of ``widths`` tokens."""
    rows = [line.split() for line in src.lines[start:stop]]
    allowed = set(widths)
    if not {len(r) for r in rows} <= allowed:
        for k, row in enumerate(rows):
            if len(row) not in allowed:
                raise src.fail(expected, shown(src.lines[start + k].strip()), line=start + k + 1)
    return rows


#: From this many significant digits on, printed values count as exact: their rounding (relative
#: 5e-13) is far below every check decode makes. HiGHS styles 0 and 4 print 13 or 14 digits.
FULL_DIGITS = 13


def _fits(values: np.ndarray, digits: int) -> bool:
    """True when every value (nonzero, finite) is its own rounding to ``digits`` significant digits."""
    with np.errstate(over="ignore", invalid="ignore"):  # a subnormal's scale overflows: it never fits
        exponent = np.floor(np.log10(np.abs(values)))
        scale = 10.0 ** (digits - 1 - exponent)
        # A value with more than ``digits`` (<= 12) digits is off its rounding by >= 1e-13 relative;
        # 1e-14 only absorbs the few units in the last place that the scaling itself costs.
        return bool(np.all(np.abs(np.round(values * scale) / scale - values) <= 1e-14 * np.abs(values)))


def printed_digits(values: np.ndarray, writer_digits: int) -> int | None:
    """Significant digits kept by a writer that rounds values to ``writer_digits`` (its printf precision),
    measured on the values it wrote.

    Another version of the writer may keep more (CBC 2.10 prints 8 digits, the devel version 15): a
    value that needs more digits shows it, and then the fewest digits that hold every value count. The
    writer's own precision is the floor because a file whose values all happen to be short (``1``,
    ``0.5``) was still rounded at that digit. None means ``FULL_DIGITS`` or more: exact.
    """
    values = np.asarray(values, dtype=np.float64)
    values = values[values != 0.0]
    return next((d for d in range(writer_digits, FULL_DIGITS) if _fits(values, d)), None)


def make_solution(src: Source, solver: str, status: str, raw_status: str, objective: float | None,
                  values: dict[str, float], omits_zeros: bool, bound: float | None = None,
                  digits: int | None = None) -> Solution:
    """A ``Solution`` that keeps values and objective only when there is a solution."""
    has = status in ("optimal", "feasible")
    return Solution(status=status, objective=objective if has else None, values=values if has else {},
                    solver=solver, raw_status=raw_status, omits_zeros=omits_zeros, bound=bound,
                    path=src.where, digits=digits if has else None)
