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
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OlctcError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OlctcError(f"cannot write {path}: folder {folder} is not writable")
    return folder


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file beside ``path``; rename it to ``path`` only if the block succeeds.

    On any exception (KeyboardInterrupt included) the temporary file is removed and nothing appears
    under ``path``.
    """
    path = Path(path)
    folder = check_writable(path)
    binary = "b" in mode
    tmp: str | None = None
    try:
        # The name is known before the file exists (tempfile.mkstemp creates the file and only then
        # returns its name): an interrupt that lands right after the create still removes it.
        for _ in range(_TRIES):
            tmp = os.path.join(folder, f".{path.name}.{secrets.token_hex(6)}.tmp")
            try:
                # 0o666 minus the umask: the mode open() would give (mkstemp's would be 0600).
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
                break
            except FileExistsError:  # another writer's file: never ours to remove
                tmp = None
        else:
            raise OlctcError(f"cannot write {path}: no free temporary name in {folder} after {_TRIES} tries")
        with os.fdopen(fd, mode, encoding=None if binary else encoding,
                       newline=None if binary else "\n") as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            remove_files([tmp])
        raise


def remove_files(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Remove each of ``paths`` that exists (the cleanup after a failed or interrupted write)."""
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
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
