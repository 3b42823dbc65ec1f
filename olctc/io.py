"""Atomic file writing: every file olctc writes appears whole under its final name, or not at all."""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shlex
import shutil
import stat
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from olctc.errors import OlctcError, param_error, warn
from olctc.process_state import check_interrupt, interrupts_deferred


def check_path(path: object, name: str) -> Path:
    """``path`` as a Path, after checking that it is a file path: a str or os.PathLike, not empty.

    OlctcError naming the parameter ``name`` otherwise: Path() said "argument should be a str object or an
    os.PathLike object returning str, not <class 'bytes'>" (or "... not NoneType") naming no parameter,
    and read "" as the current folder.
    """
    raw = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(raw, str) or not raw.strip():
        raise param_error(name, "a file path (a non-empty str or os.PathLike)", path)
    if "\x00" in raw:  # every system call refuses it, with a ValueError, not an OSError
        raise param_error(name, "a file path with no NUL character", path)
    return Path(raw)


def shell_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a word of a shell command olctc prints or writes: quoted, and a relative path starting
    with "-" as ``./-g``, which bash, cd, rm, cbc, glpsol and olctc would otherwise read as an option."""
    text = os.fspath(path)
    return shlex.quote("./" + text if text.startswith("-") else text)


def check_lookup(path: Path) -> None:
    """One line (``cannot write PATH: ...``), not a traceback, when the OS cannot even look ``path`` up: a
    name too long for the file system (ENAMETOOLONG) fails every stat of it."""
    with _os_errors(path):
        path.exists()


def check_writable(path: str | os.PathLike[str]) -> Path:
    """The folder of ``path``, after checking it exists and is writable (OlctcError otherwise).

    Commands call it before any long work, so a bad output path fails at once.
    """
    check_file_name(path)
    path = Path(path)
    check_lookup(path)  # now, not after the work
    folder = path.parent if str(path.parent) else Path(".")
    problem = folder_problem(folder)
    if problem:
        raise OlctcError(f"cannot write {path}: folder {folder} {problem}")
    return folder


def check_not_linked(path: str | os.PathLike[str], why: str, rerun: str = "run again") -> None:
    """OlctcError when ``path``, a file or folder olctc writes in a folder of its own (a grid's, a bench's) by
    itself, not by a name the user gave, is a symbolic link: writing there would replace a file outside the
    folder (a folder from elsewhere can hold one, tar keeps links: QA 2026-12-05 saw collect overwrite a user's
    file and bench report remove one). ``why``: what is written there; ``rerun``: what to do once it is gone."""
    if os.path.islink(path):
        raise OlctcError(f"{path} is a symbolic link (to {os.readlink(path)}): {why}; remove the link and {rerun}")


def folder_problem(folder: Path) -> str | None:
    """Why no file can be made in ``folder`` ("does not exist", "is not a folder", "is not writable"), or
    None: a file where a folder is expected is named as such, not as missing.

    A folder that passes os.access is also tried by making (and removing) an empty file in it, its times put
    back (a command refused later leaves the folder as it was): os.access says yes for root in /proc or sysfs
    and over some network mounts, where the file would then fail to open after the work (`fit -o
    /proc/x.json` failed after the fit)."""
    if not folder.is_dir():
        return "is not a folder" if folder.exists() else "does not exist"
    if not os.access(folder, os.W_OK):
        return "is not writable"
    # a leftover is recognised as a temporary file (is_temporary_name); os.urandom, not temporary_name's token
    probe = folder / f".olctc-probe.{os.urandom(6).hex()}.tmp"
    before = folder.stat()
    # an interrupt between making the probe and removing it left the probe behind (a QA kill of an export);
    # in the console program it now waits for the section's end
    with interrupts_deferred():
        try:
            try:
                os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:  # another's file of that name: the folder takes files
                return None
            except OSError as e:
                return f"is not writable (making a file there failed: {e.strerror or e})"
            with contextlib.suppress(OSError):
                os.unlink(probe)
                os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
        except BaseException:  # an interrupt raised at once (olctc in a program with Python's own handler)
            remove_files([probe])
            raise
    return None


def check_file_name(path: str | os.PathLike[str]) -> None:
    """OlctcError unless ``path`` names a file: not empty, not ending in a slash.

    "x.json/" names a folder: Path() drops the slash, and compile, collect and solve then wrote a file
    "x.json" (predict failed only after reading all its data); atomic_open refuses it the same way.
    """
    _check_named(path)
    if os.fspath(path).endswith(("/", os.sep)):
        raise OlctcError(f"cannot write {os.fspath(path)}: it is a folder; give a file name")


def check_output_file(path: str | os.PathLike[str]) -> None:
    """OlctcError unless ``path`` can name a file to write: not empty, a name the OS can look up
    (``check_lookup``), not a folder (an existing one, or a name ending in a slash)."""
    raw = os.fspath(path)
    _check_named(raw)
    check_lookup(Path(raw))
    if raw.endswith(("/", os.sep)) or Path(raw).is_dir():
        raise OlctcError(f"cannot write {raw}: it is a folder; give a file name")


def _check_named(path: str | os.PathLike[str]) -> None:
    """An empty name is no file: ``Path("")`` is the current folder (``-o "$OUT"`` with OUT unset)."""
    if not os.fspath(path).strip():
        raise OlctcError(f"cannot write {os.fspath(path)!r}: give a file name")


#: ``-o -``: standard output, by the Unix convention (``-o ./-`` names a file called ``-``).
STDOUT = "-"


def read_once(path: str | os.PathLike[str] | None) -> bool:
    """Whether ``path`` exists and is no regular file (a pipe such as ``<(zcat f.csv.gz)``, a FIFO, a
    device): what it holds can be read once, and nothing can read it again later."""
    if path is None:
        return False
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # not there, or not a path: whoever opens it says so
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def refuse_read_once(path: str | os.PathLike[str] | None, why: str) -> None:
    """Raise OlctcError if ``path`` can be read only once (:func:`read_once`); ``why`` says which later read needs
    it again."""
    if path is not None and read_once(path):
        raise OlctcError(f"{os.fspath(path)}: a pipe or device, read once: {why}, so pass a data file (olctc reads "
                         ".csv.gz files as they are)")


def is_stdout(path: str | os.PathLike[str] | None) -> bool:
    """Whether an output path is ``-``, standard output."""
    return path is not None and os.fspath(path) == STDOUT


def check_not_stdout(path: str | os.PathLike[str] | None, why: str, instead: str, option: str = "-o") -> None:
    """OlctcError when ``path`` is ``-`` for a command that cannot write to standard output.

    ``why`` ends "``-o -`` means standard output, ..." (``where fit prints its log``), ``instead`` says
    what to give (``a file name such as -o tree.json``). Without this check ``-o -`` wrote a file named
    ``-`` (``-o ./-`` still does).
    """
    if is_stdout(path):
        raise OlctcError(f"{option} - means standard output, {why}; give {instead}")


#: The suffixes of files olctc reads or writes in a format of its own, for commands whose one output
#: format is another: suffix -> (format, the command that writes it; ``{}`` is the file name).
#: Export's suffixes (``olctc.export.SUFFIXES``) are added in ``check_suffix``.
OTHER_FORMATS: dict[str, tuple[str, str]] = {
    ".csv": ("CSV", "olctc predict TREE DATA.csv -o {}"),
    ".mps": ("an MPS model", "olctc compile DATA.csv --target COLUMN -o {}"),
    ".lp": ("an LP model", "olctc compile DATA.csv --target COLUMN -o {}"),
    ".sol": ("a solution", "olctc solve MODEL -o {}"),
}

#: Names of export's formats in messages (its --format names otherwise).
_EXPORT_NAMES = {"json": "JSON", "python": "Python", "onnx": "ONNX", "dot": "DOT", "png": "PNG", "svg": "SVG",
                 "sql": "SQL"}


def check_suffix(path: str | os.PathLike[str] | None, command: str, writes: str, own: tuple[str, ...],
                 option: str = "-o") -> None:
    """OlctcError when the output ``path`` of ``command``, which always writes ``writes`` (such as "a tree
    (JSON)"), ends in the suffix of another format olctc knows, or in ``.gz`` (olctc writes nothing
    compressed); ``own`` are the suffixes that fit (the first names the file in the message).

    A name without a suffix, with one of ``own`` or with one olctc does not know is accepted. Commands
    call it before any long work: ``fit -o t.csv`` wrote the JSON tree into t.csv after minutes of fitting.
    """
    if path is None or is_stdout(path):
        return
    raw = os.fspath(path)
    if raw.endswith(("/", os.sep)):
        return  # no file name: check_writable and atomic_open say so
    name = Path(raw)
    suffix = name.suffix.lower()
    stem = raw[: len(raw) - len(name.suffix)]
    if suffix == ".gz":
        inner = Path(stem).suffix
        if inner.lower() in own or _known(inner.lower()) is not None:
            stem = stem[: len(stem) - len(inner)]
        raise OlctcError(f"{option} {raw}: {command} writes {writes}, uncompressed, not gzip (.gz); "
                         f"name it {stem}{own[0]}")
    known = None if suffix in own else _known(suffix)
    if known is None:
        return
    what, writer = known
    raise OlctcError(f"{option} {raw}: {command} writes {writes}, not {what} ({suffix} is what "
                     f"`{writer.format(raw)}` writes); name it {stem}{own[0]}")


def _known(suffix: str) -> tuple[str, str] | None:
    """(format, command that writes it) of a lower-case suffix olctc knows; None for others and ''."""
    from olctc.export import SUFFIXES

    if suffix in SUFFIXES:
        fmt = SUFFIXES[suffix]
        return _EXPORT_NAMES.get(fmt, fmt), "olctc export TREE -o {}"
    return OTHER_FORMATS.get(suffix)


def check_not_input(output: str | os.PathLike[str] | None,
                    *inputs: tuple[str, str | os.PathLike[str] | None],
                    beside: str | os.PathLike[str] | None = None) -> None:
    """OlctcError when the output file ``-o OUTPUT`` is one of a command's input files.

    ``inputs`` are ``(what, path)`` pairs such as ``("model", "m.mps")``; None paths are skipped.
    ``os.path.samefile`` compares the files themselves, so a symbolic or hard link, ``./x`` and ``x``
    are caught: writing the output would destroy the input the command is reading. ``beside``: the
    ``-o`` file, when ``output`` is a file written beside it (compile's manifest, parameter files).
    """
    if output is None or not os.path.exists(output):
        return
    for what, path in inputs:
        if not isinstance(path, (str, os.PathLike)):  # None: not given (an int would be a descriptor)
            continue
        try:
            same = os.path.samefile(output, path)
        except OSError:  # an input that is not there: the command reports that itself
            continue
        if same and beside is not None:
            raise OlctcError(f"{os.fspath(output)}, written beside -o {os.fspath(beside)}, is also the input "
                             f"{what}; choose another -o name")
        if same:
            raise OlctcError(f"-o {os.fspath(output)} is also the input {what}; write to another file")


def _keep_mode(fd: int, path: Path) -> None:
    """Give the new file ``fd`` the permissions of the file ``path`` it replaces, if any: a file kept private
    (0600) became 0644 when rewritten."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:  # no file yet: open()'s mode
        return
    with contextlib.suppress(OSError):
        os.fchmod(fd, mode)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it to ``path`` only if the block succeeds.

    On any exception (KeyboardInterrupt included) the temporary file is removed and nothing appears
    under ``path``. A symbolic link is followed (its target is replaced, the link stays); a FIFO or
    device (``/dev/stdout``) is written to directly, since renaming onto it would replace the node.
    OS errors become an OlctcError naming ``path``. Text is written with ``surrogateescape``: a file name
    read with bytes that are not UTF-8 (the only source of lone surrogates that reaches a file: the JSON
    writers refuse others) goes back out as those bytes, the name a command line in the text must give.
    """
    check_output_file(path)
    path = Path(path)
    text: dict[str, Any] = {} if "b" in mode else {"encoding": encoding, "newline": "\n", "errors": "surrogateescape"}
    if path.exists() and not path.is_file():  # exists() and is_file() follow links
        with _os_errors(path):
            fh = open(path, mode, **text)
        with _os_errors(path), fh:
            yield fh
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    folder = check_writable(path)
    tmp: str | None = None
    try:
        # The name is known before the file exists (tempfile.mkstemp creates the file and only then
        # returns its name): an interrupt that lands right after the create still removes it.
        for _ in range(_TRIES):
            tmp = os.path.join(folder, temporary_name(path.name))
            try:
                with _os_errors(path, tmp):
                    # 0o666 minus the umask: the mode open() would give (mkstemp's would be 0600).
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
                being_written(tmp)
                mark_in_use(fd)
                _keep_mode(fd, path)
                break
            except FileExistsError:  # another writer's file: never ours to remove
                tmp = None
        else:
            raise OlctcError(f"cannot write {path}: no free temporary name in {folder} after {_TRIES} tries")
        with _os_errors(path, tmp), os.fdopen(fd, mode, **text) as fh:
            yield fh
        check_interrupt()
        with _os_errors(path, tmp):  # the rename's error names the temporary file
            try:
                os.replace(tmp, path)
            except FileNotFoundError:
                if not os.path.isdir(folder):
                    raise
                # a cleaner of temporary folders (systemd-tmpfiles, tmpwatch) removed it mid-write
                raise OlctcError(f"cannot write {path}: its temporary file {tmp} was removed while it was "
                                 "written") from None
    except BaseException:
        if tmp is not None:
            remove_files([tmp])
        raise
    finally:
        if tmp is not None:
            being_written(tmp, False)


#: The temporary files and folders of the staged writes under way (``atomic_open``, the grid's staged folder). An
#: interrupt that lands between such a generator's ``yield`` and the start of the caller's block, or between the
#: block's end and the generator's resumption, is raised in contextlib's code: the generator stays suspended (the
#: traceback keeps it alive) and its cleanup never runs before the console program leaves by ``os._exit``. The
#: interrupt's exit removes these (``remove_files_being_written``).
_being_written: set[str] = set()


def being_written(path: str | os.PathLike[str], under_way: bool = True) -> None:
    """Record that the temporary file or folder ``path`` exists and is this process's (``under_way=False``: no
    longer, renamed into place or removed)."""
    if under_way:
        _being_written.add(os.fspath(path))
    else:
        _being_written.discard(os.fspath(path))


def remove_files_being_written() -> None:
    """Remove every temporary file and folder still recorded by ``being_written`` (an interrupted process's last
    act)."""
    for path in list(_being_written):
        if os.path.isdir(path) and not os.path.islink(path):
            remove_tree(Path(path))
        else:
            remove_files([path])
    _being_written.clear()


def temporary_name(name: str) -> str:
    """A fresh hidden name for a file or folder being written in place of ``name``.

    ".NAME.XXXXXXXXXXXX.tmp" (bench and grid folders recognise leftovers by the dot and the suffix); NAME
    is shortened so that the whole stays within the 255 bytes a file name may have."""
    return f".{_temporary_stem(name)}.{secrets.token_hex(6)}.tmp"


#: Bytes of a name a temporary name keeps: a file name may have 255.
_STEM_ROOM = 255 - len(".." + "0" * 12 + ".tmp")


def _temporary_stem(name: str) -> str:
    """``name``, cut to whole characters within _STEM_ROOM bytes; bytes that are not UTF-8 (read as lone
    surrogates) stay what they are, so that names differing only there get different temporary names."""
    while len(name.encode("utf-8", "surrogateescape")) > _STEM_ROOM:
        name = name[:-1]
    return name


def leftovers(path: str | os.PathLike[str], folders: bool) -> list[str]:
    """The hidden temporary folders (``folders``) or files a write of ``path`` killed outright (SIGKILL, a node lost)
    left beside it: ``temporary_name(path's name)``'s pattern, but not those a running process marks as its own
    (``mark_in_use``). Not removed here: where the file system has no locks, one may be another process's."""
    p = Path(path)
    if _temporary_stem(p.name) != p.name:
        return []  # a name cut to fit: another name cut the same way would be blamed
    pattern = re.compile(re.escape(f".{p.name}.") + r"[0-9a-f]{12}\.tmp")
    try:
        names = sorted(n for n in os.listdir(p.parent) if pattern.fullmatch(n))
    except OSError:  # the folder cannot be listed: the write will say what is wrong with it
        return []
    found = []
    for n in names:
        q = p.parent / n
        if not q.is_symlink() and (q.is_dir() if folders else q.is_file()) and not _in_use(q):
            found.append(os.fspath(q))
    return found


def mark_in_use(fd: int) -> bool:
    """Mark the temporary file or folder open at ``fd`` as being written by this process until ``fd`` is closed (a
    shared flock, as ``in_use_while``), so that ``leftovers`` in another process does not name it; whether it is
    marked. Where there are no flocks, nothing."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except (OSError, ImportError):  # ImportError: Windows has no fcntl
        return False
    return True


def _in_use(path: Path) -> bool:
    """Whether a running process holds ``mark_in_use``'s lock on ``path``."""
    try:
        import fcntl

        fd = os.open(path, os.O_RDONLY)
    except (OSError, ImportError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def warn_leftovers(path: str | os.PathLike[str], folders: bool, what: str) -> None:
    """Warn of each of ``leftovers(path, folders)``: a killed write of a large result (a compiled a6a, the
    predictions of a big CSV) leaves hundreds of MB that no listing shows. ``what``: the command, as
    "a compile"."""
    for left in leftovers(path, folders):
        warn(f"{left}: left by {what} of {Path(path).name} that was killed before it finished, or in use by "
             "one running now; nothing else reads it: remove it once none is running")


def is_temporary_name(name: str) -> bool:
    """Whether ``name`` looks like a ``temporary_name``: only a SIGKILL leaves one behind, and it never
    holds a finished result."""
    return name.startswith(".") and name.endswith(".tmp")


@contextlib.contextmanager
def _os_errors(path: Path, tmp: str | None = None) -> Iterator[None]:
    """Turn an OSError of writing ``path`` (or its temporary file) into a one-line OlctcError."""
    try:
        yield
    except FileExistsError:
        raise
    except OSError as e:
        # Errors of other files (the block may read inputs) name their file: leave those alone.
        if e.filename not in (None, os.fspath(path), tmp):
            raise
        raise OlctcError(f"cannot write {path}: {e.strerror or e}") from None


def remove_files(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Remove each of ``paths`` that exists (the cleanup after a failed or interrupted write)."""
    for path in paths:
        with contextlib.suppress(OSError):  # cleanup must not hide the error that caused it
            os.unlink(path)


_TRIES = 100


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def _flock_held(path: str | os.PathLike[str], shared: bool,
                waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold an flock on ``path`` (opened read-only) for the block: exclusive, waiting for other holders (after
    calling ``waiting``, when given and the lock is held), or shared, taken only if free at once. Where there are
    no flocks (Windows; folders on some NFS mounts), the block runs unguarded."""
    fd = -1
    try:
        with contextlib.suppress(OSError, ImportError):  # ImportError: Windows has no fcntl
            import fcntl

            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO named as the folder: no wait for a writer
            if shared:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            else:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    if waiting is not None:
                        waiting()
                    fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        if fd >= 0:
            os.close(fd)


def folder_lock(folder: str | os.PathLike[str],
                waiting: Callable[[], None] | None = None) -> contextlib.AbstractContextManager[None]:
    """Hold ``folder`` while the block writes a set of files in it: the same block in another process waits
    for this one to end (``waiting`` is called first, to say so: a compile behind another one waited in
    silence). An flock on the folder itself, so no file is made; where the file system gives folders none
    (some NFS mounts), the block runs unguarded."""
    return _flock_held(folder, shared=False, waiting=waiting)


def in_use_while(path: str | os.PathLike[str]) -> contextlib.AbstractContextManager[None]:
    """Mark the temporary folder ``path`` as being written by this process for the block (``mark_in_use``), so
    that ``leftovers`` in another process does not name it."""
    return _flock_held(path, shared=True)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> str:
    """Write ``text`` (UTF-8) to ``path`` atomically; the hex sha256 of the bytes written.

    The digest comes from the text, not from reading the file back: a FIFO written through gives its bytes to
    its reader, and reading it again waited for a writer that never came (compile hung, QA qa127)."""
    with atomic_open(path, "w") as fh:
        fh.write(text)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


@contextlib.contextmanager
def staged_errors(out: Path, tmp: Path) -> Iterator[None]:
    """Errors of writing files into the temporary folder ``tmp`` (moved to ``out`` once whole) as one line
    that names ``out``, never the folder the user did not ask for: a file in it is named by its place in
    ``out``."""
    def shown(name: str) -> str:
        return os.fspath(out) + name[len(os.fspath(tmp)):] if name.startswith(os.fspath(tmp)) else name

    try:
        yield
    except OlctcError as exc:
        if os.fspath(tmp) not in str(exc):
            raise
        raise type(exc)(str(exc).replace(os.fspath(tmp), os.fspath(out))) from None
    except OSError as exc:
        where = shown(os.fspath(exc.filename)) if exc.filename is not None else os.fspath(out)
        raise OlctcError(f"cannot write {where}: {exc.strerror or exc}") from None


def remove_tree(path: Path) -> None:
    """Remove the folder ``path``, even when another interrupt lands meanwhile (Ctrl-C pressed again): the
    cleanup of the first one must not stop halfway."""
    for _ in range(100):
        try:
            shutil.rmtree(path, ignore_errors=True)
            return
        except KeyboardInterrupt:
            continue
