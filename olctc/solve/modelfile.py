"""What olctc needs to know about a model file before handing it to a solver."""
from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import shutil
import zlib
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from olctc.errors import OlctcError
from olctc.scratch import scratch_folder

# MPS sections that carry a quadratic objective (QUADOBJ: upper triangle, QMATRIX: full, QSECTION:
# CPLEX's older name) or quadratic constraints (QCMATRIX). They start at column 1.
_MPS_QUAD = (b"\nQUADOBJ", b"\nQMATRIX", b"\nQSECTION", b"\nQCMATRIX")
# LP format writes quadratic terms inside square brackets with ^2 or *: "[ 2 x ^2 + 2 x * y ] / 2", also "x*y", and
# the bracket may open at a line's end (a writer's wrapping). Bracketed names (x[3], Gurobi style) have neither.
_LP_QUAD = re.compile(rb"\[[^\]]*?[\^*]")
_CHUNK = 1 << 24
_OVERLAP = 1 << 16
#: Longest path (in bytes) handed to a solver as it is: CBC cut a name of about 400 characters (in process it
#: then read "no columns", Debian's program aborted on a buffer overflow) and crashed on longer ones. A longer
#: one is handed over as a link in a temporary folder (short, unless $TMPDIR is long).
SOLVER_PATH_MAX = 250


def model_format(path: str | os.PathLike[str]) -> str:
    """``"mps"`` or ``"lp"`` from the file name (a ``.gz`` suffix is allowed)."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for ext in ("mps", "lp"):
        if name.endswith("." + ext):
            return ext
    raise OlctcError(f"cannot tell the format of {path}: expected a .mps or .lp file (optionally .gz)")


def model_stem(path: str | os.PathLike[str]) -> str:
    """The file name without ``.mps``/``.lp`` and ``.gz``: ``out/tree.mps.gz`` -> ``tree``."""
    name = Path(path).name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return name.rsplit(".", 1)[0] if "." in name else name


def readable_name(path: str | os.PathLike[str]) -> str:
    """The name a solver tells ``path``'s format by: its stem, then ``.mps`` or ``.lp`` (and ``.gz``) in
    lower case. ``M.LP`` -> ``M.lp``, ``m.mps.GZ`` -> ``m.mps.gz``."""
    gz = ".gz" if Path(path).name.lower().endswith(".gz") else ""
    return f"{model_stem(path)}.{model_format(path)}{gz}"


@contextlib.contextmanager
def readable_path(path: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None) -> Iterator[Path]:
    """``path`` made absolute, under a name from which every solver tells the format (``readable_name``).

    Solvers pick the format, or decompression, by the suffix, and some compare it case-sensitively: CBC
    reads ``m.LP`` as MPS and loads nothing, HiGHS and glpsol refuse ``m.lp.GZ``. A file named otherwise
    is handed over as a symbolic link with the readable name (a copy where no link can be made) in
    ``folder``, or in a temporary folder removed afterwards. The path is not resolved: a model that is
    itself a link to a file without a suffix (``m.lp -> store/blob``) is read by its own name. A path that is
    not valid UTF-8 (a byte such as 0xE9 in a folder's name), which the solvers' Python bindings cannot pass
    on, is handed over the same way, as ``model.mps`` (or ``.lp``) when the name itself is not; so is a path longer
    than ``SOLVER_PATH_MAX`` bytes (as ``model.mps`` when its name is long too).
    """
    from olctc.data.labels import is_unicode

    path = Path(path).absolute()
    name = readable_name(path)
    if not is_unicode(name) or len(os.fsencode(name)) > SOLVER_PATH_MAX // 2:
        # a file name read with undecodable bytes holds lone surrogates; a long one makes a long link
        name = "model" + name[len(model_stem(path)):]
    if path.name == name and is_unicode(str(path)) and len(os.fsencode(path)) <= SOLVER_PATH_MAX:
        yield path
        return
    with handed_over(path, folder, name) as link:
        yield link


@contextlib.contextmanager
def handed_over(path: Path, folder: str | os.PathLike[str] | None, name: str) -> Iterator[Path]:
    """``path`` as ``folder/name`` (in a temporary folder, removed afterwards, when ``folder`` is None): a
    symbolic link, or a copy where no link can be made."""
    with contextlib.ExitStack() as stack:
        where = Path(folder) if folder is not None else \
            stack.enter_context(scratch_folder("olctc-model-"))
        link = where / name
        try:
            link.symlink_to(path)
        except OSError:
            try:
                shutil.copyfile(path, link)
            except OSError as exc:
                raise OlctcError(f"cannot hand {path} to the solver as {link}: {exc.strerror or exc}") from None
        yield link


def check_model_path(path: str | os.PathLike[str]) -> Path:
    """The path as a Path, after checking that it is a readable .mps/.lp file that ends as one must."""
    path = Path(path)
    if not path.is_file():
        # /dev/null, a FIFO or a folder exist, and "does not exist" sent the user looking for a missing file
        what = "is not a regular file" if path.exists() else "does not exist"
        raise OlctcError(f"model file {path} {what}")
    model_format(path)
    check_complete(path)
    return path


#: The line that ends each format (case-insensitive), and how its comment lines start.
_LAST_LINE = {"mps": ("ENDATA", b"*"), "lp": ("End", b"\\")}


#: Bytes a model file's text may hold: the printable and whitespace ones (names may be UTF-8).
_TEXT_BYTES = b"\t\n\x0b\x0c\r" + bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))

#: (path, size, mtime) of files found complete: a .gz is decompressed whole to see its end (2-3 s for
#: a6a's model), so the same unchanged file is not checked twice.
_COMPLETE: set[tuple[str, int, int]] = set()


def check_complete(path: str | os.PathLike[str]) -> None:
    """OlctcError unless the model file ends with its closing line (MPS ``ENDATA``, LP ``End``).

    A truncated file must never reach a solver: CBC segfaults on an LP file without ``End``, SCIP
    solves whatever part it read, and the file would look like a model that just lost its last rows.
    Only the tail is read (all of a .gz file, which cannot be read from its end).
    """
    path = Path(path)
    kind = model_format(path)
    word, comment = _LAST_LINE[kind]
    try:
        stat = path.stat()
        seen = (os.fspath(path.resolve()), stat.st_size, stat.st_mtime_ns)
        if seen in _COMPLETE:  # `olctc solve` checks before reading the manifest, then solve_file again
            return
        tail = _tail(path)
    except gzip.BadGzipFile:  # "cannot read: Not a gzipped file (b'NA')"
        raise OlctcError(f"{path}: not gzip data, though its name ends in .gz: rename it {path.name[:-3]} if it "
                         "is the model as text") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise OlctcError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not tail.strip():
        raise OlctcError(f"{path}: the model file is empty; write it again")
    fmt = kind.upper()
    if binary := tail.translate(None, _TEXT_BYTES):  # a control byte: not a cut model but no text at all
        raise OlctcError(f"{path}: not an {fmt} file: it holds binary content (byte 0x{binary[0]:02x}), where an "
                         f"{fmt} model is text ending in its '{word}' line")
    for line in reversed(tail.splitlines()):
        line = line.strip()
        if not line or line.startswith(comment):
            continue
        if line.decode("latin-1").lower() == word.lower():
            _COMPLETE.add(seen)
            return
        break
    first = _first_line(path, comment)
    if first is not None and not first.lower().startswith(_FIRST_WORDS[kind]):
        raise OlctcError(f"{path}: not an {fmt} file: it starts with {first[:40]!r}, where an {fmt} model starts "
                         f"with {' or '.join(repr(w.upper() if kind == 'mps' else w) for w in _FIRST_WORDS[kind][:2])}")
    raise OlctcError(f"{path}: the file ends before its '{word}' line (truncated?); write it again")


#: How the first line of a model starts (lower case): MPS sections, LP objective senses (any writer's).
_FIRST_WORDS = {"mps": ("name", "rows", "objsense", "objsen", "objname"),
                "lp": ("minimize", "maximize", "minimise", "maximise", "minimum", "maximum", "min", "max")}


def _first_line(path: Path, comment: bytes) -> str | None:
    """The file's first line that is neither blank nor a comment (None: unreadable, or none in the first 64 KB)."""
    try:
        with _open(path) as fh:
            head = fh.read(_TAIL)
    except (OSError, EOFError, zlib.error):
        return None
    for line in head.splitlines():
        line = line.strip()
        if line and not line.startswith(comment):
            return line.decode("latin-1")
    return None


_TAIL = 1 << 16


def _tail(path: Path) -> bytes:
    """The last 64 KB of the file's (uncompressed) bytes."""
    if not path.name.lower().endswith(".gz"):
        with open(path, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - _TAIL))
            return fh.read()
    tail = b""
    with gzip.open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            tail = (tail + chunk)[-_TAIL:]
    return tail


def _open(path: Path) -> io.BufferedIOBase:  # GzipFile is one, and so is open(path, "rb")
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def is_quadratic_file(path: str | os.PathLike[str]) -> bool:
    """True when the model file has a quadratic objective (or quadratic rows).

    Scans the bytes in 16 MB chunks (bytes.find / a regex: C speed); needed because python-mip's CBC reader
    silently drops a QUADOBJ section and solves the linear part.
    """
    path = Path(path)
    if model_format(path) == "mps":
        def found(data: bytes) -> bool:
            return any(data.find(key) >= 0 for key in _MPS_QUAD)
    else:
        def found(data: bytes) -> bool:
            return _LP_QUAD.search(data) is not None
    return _scan(path, found)


def _scan(path: Path, found: Callable[[bytes], bool]) -> bool:
    """Whether ``found`` holds for some stretch of the file's (uncompressed) bytes, read in 16 MB chunks that
    overlap by 64 KB (a match across two chunks is seen)."""
    tail = b""
    with _open(path) as fh:
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                return False
            if found(tail + chunk):
                return True
            tail = chunk[-_OVERLAP:]


# A name standing alone in an LP file: between white space, a line's start or end, or an operator
_LP_NAME_EDGE = rb"\s:+\-<>=*\[\]^/"


def names_lost(path: str | os.PathLike[str], names: list[str]) -> bool:
    """Whether a reader's column ``names`` for the LP file ``path`` are x0, x1, ... though the file names no
    column x0: CBC's reader (CoinLpIO) names the columns so when it cannot read the file's names (on lines of
    over 1,000 characters), and then drops a MIP start and writes a solution of those names."""
    if model_format(path) != "lp" or not names or any(n != f"x{i}" for i, n in enumerate(names)):
        return False
    x0 = re.compile(rb"(?:^|[" + _LP_NAME_EDGE + rb"])x0(?:$|[" + _LP_NAME_EDGE + rb"])", re.M)
    return not _scan(Path(path), lambda data: x0.search(data) is not None)


def file_columns(path: str | os.PathLike[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Column names, lower and upper bounds of a model file, in the file's column order.

    Read with HiGHS (C++ reader) because CBC omits zero values and GLPK writes columns by index only:
    turning their solution files into an ``x`` vector needs the names in order.
    """
    from olctc.solve.highs import new_highs, read_model

    lp, names = read_model(new_highs(False), path)
    return names, np.asarray(lp.col_lower_, dtype=float), np.asarray(lp.col_upper_, dtype=float)


def no_columns(path: str | os.PathLike[str], solver: str) -> OlctcError:
    """The error for a model file a solver read without finding a column: its readers report bad lines
    as warnings and leave an empty model, which "solves" fine."""
    return OlctcError(f"{solver} read no columns from {path}: the file is not a valid {model_format(path)} model")
