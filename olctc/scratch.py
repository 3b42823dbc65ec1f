"""olctc's folders in the system's temporary folder: marked while in use, and removed by a later one when the process
that made them was killed (a bench run stopped at its hard limit left phishing's 157 MB model.mps per kill)."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

MARK = ".olctc-in-use"
# tempfile's random part: 8 characters of [a-z0-9_]
_RANDOM = 8


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder named ``prefix`` + 8 random characters, removed after the block. It holds the file
    ``MARK``, on which this process keeps a shared flock until the block ends; first, the folders of the same
    prefix whose ``MARK`` nobody holds (their process was killed) are removed. Where there are no flocks, the
    folder is only made and removed, and nothing else is touched."""
    # a folder that vanished meanwhile (a cleaner of old files in /tmp) must not fail a finished solve
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        fd = _marked(folder)
        try:
            if fd >= 0:
                sweep(prefix, keep=folder)
            yield folder
        finally:
            if fd >= 0:
                os.close(fd)


def _marked(folder: Path) -> int:
    """Make ``folder / MARK`` and hold a shared flock on it: the descriptor, or -1 where flocks are not to be had.
    The file is locked under another name first, so that a sweep never finds it unheld."""
    try:
        import fcntl
    except ImportError:  # Windows
        return -1
    new = folder / (MARK + ".new")
    try:
        fd = os.open(new, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    except OSError:  # no inode left: the solve may still have room for what it writes
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        os.rename(new, folder / MARK)
    except OSError:
        os.close(fd)
        return -1
    return fd


def sweep(prefix: str, keep: Path | None = None) -> list[Path]:
    """Remove this user's folders ``prefix*`` in the temporary folder whose ``MARK`` no process holds; the ones
    removed. Folders without ``MARK`` (being made, or made by an earlier olctc, which did not mark them) are
    left alone."""
    import fcntl

    root = Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    uid = os.getuid()
    for entry in entries:
        name = entry.name
        if not name.startswith(prefix) or len(name) != len(prefix) + _RANDOM:
            continue
        path = Path(entry.path)
        if keep is not None and path == keep:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            fd = os.open(path / MARK, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its process runs
            continue
        finally:
            os.close(fd)
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed
