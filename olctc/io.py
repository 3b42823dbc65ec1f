"""Atomic file writing: every file olctc writes appears whole under its final name, or not at all."""
from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path
from typing import IO, Iterable, Iterator

from olctc.errors import OlctcError


def check_writable(path: str | os.PathLike[str]) -> Path:
    """The folder of ``path``, after checking it exists and is writable (OlctcError otherwise).

    Commands call it before any long work, so a bad output path fails at once.
    """
    _check_named(path)
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OlctcError(f"cannot write {path}: folder {folder} {what}")
    if not os.access(folder, os.W_OK):
        raise OlctcError(f"cannot write {path}: folder {folder} is not writable")
    return folder


def _check_named(path: str | os.PathLike[str]) -> None:
    """An empty name is no file: ``Path("")`` is the current folder (``-o "$OUT"`` with OUT unset)."""
    if not os.fspath(path).strip():
        raise OlctcError(f"cannot write {os.fspath(path)!r}: give a file name")


def check_not_input(output: str | os.PathLike[str] | None,
                    *inputs: tuple[str, str | os.PathLike[str] | None]) -> None:
    """OlctcError when the output file ``-o OUTPUT`` is one of a command's input files.

    ``inputs`` are ``(what, path)`` pairs such as ``("model", "m.mps")``; None paths are skipped.
    ``os.path.samefile`` compares the files themselves, so a symbolic or hard link, ``./x`` and ``x``
    are caught: writing the output would destroy the input the command is reading.
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
        if same:
            raise OlctcError(f"-o {os.fspath(output)} is also the input {what}; write to another file")


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it to ``path`` only if the block succeeds.

    On any exception (KeyboardInterrupt included) the temporary file is removed and nothing appears
    under ``path``. A symbolic link is followed (its target is replaced, the link stays); a FIFO or
    device (``/dev/stdout``) is written to directly, since renaming onto it would replace the node.
    OS errors become an OlctcError naming ``path``.
    """
    raw = os.fspath(path)
    path = Path(raw)
    _check_named(raw)
    if raw.endswith(("/", os.sep)) or path.is_dir():
        raise OlctcError(f"cannot write {raw}: it is a folder; give a file name")
    binary = "b" in mode
    if path.exists() and not path.is_file():  # exists() and is_file() follow links
        with _os_errors(path):
            fh = open(path, mode, encoding=None if binary else encoding, newline=None if binary else "\n")
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
            tmp = os.path.join(folder, _temporary_name(path.name))
            try:
                with _os_errors(path, tmp):
                    # 0o666 minus the umask: the mode open() would give (mkstemp's would be 0600).
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
                break
            except FileExistsError:  # another writer's file: never ours to remove
                tmp = None
        else:
            raise OlctcError(f"cannot write {path}: no free temporary name in {folder} after {_TRIES} tries")
        with _os_errors(path, tmp), os.fdopen(fd, mode, encoding=None if binary else encoding,
                                              newline=None if binary else "\n") as fh:
            yield fh
        check_interrupt()
        with _os_errors(path):
            os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            remove_files([tmp])
        raise


#: An interrupt the console program received and nothing has consumed yet (see ``note_interrupt``).
_interrupt_pending = False


def note_interrupt(pending: bool = True) -> None:
    """Record that the console program was interrupted (``pending=False``: the command is over).

    The signal handler raises KeyboardInterrupt, but Python drops an exception raised while a finaliser
    (``__del__``, a weakref callback) runs, and a native call may swallow it: the command would then go
    on and commit its files as if never interrupted. ``atomic_open`` checks this record before every
    rename into place, so the interrupt stops the command at its next commit at the latest.
    """
    global _interrupt_pending
    _interrupt_pending = pending


def interrupt_handled() -> None:
    """The interrupt became a result (a solver stopped and reported "interrupted"): the caller decides
    what to do with it, and commits its files if it goes on."""
    note_interrupt(False)


def check_interrupt() -> None:
    """Raise KeyboardInterrupt if an interrupt was received and not consumed."""
    if _interrupt_pending:
        raise KeyboardInterrupt


#: Whether this process is the console program, which leaves by ``os._exit`` after an interrupt.
_console = False


def note_console() -> None:
    """Record that the console program runs this process (see ``is_console``)."""
    global _console
    _console = True


def is_console() -> bool:
    """Whether an interrupt ends this process at once: a native call that cannot be stopped may then be
    left running in its thread, since the process exit takes it along."""
    return _console


def _temporary_name(name: str) -> str:
    # ".NAME.XXXXXXXXXXXX.tmp" (bench folders recognise leftovers by the dot and the suffix); NAME is
    # shortened so that the whole stays within the 255 bytes a file name may have.
    room = 255 - len(".." + "0" * 12 + ".tmp")
    stem = name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return f".{stem}.{secrets.token_hex(6)}.tmp"


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


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_open(path, "w") as fh:
        fh.write(text)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
