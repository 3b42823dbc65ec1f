"""olctc's folders in the system's temporary folder: marked while in use, and removed by a later solve when the process
that made them was killed (a bench run stopped at its hard limit left phishing's 157 MB model.mps per kill)."""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path
from typing import Iterator

from olctc.io import mark_in_use

MARK = ".olctc-in-use"
#: The folders olctc makes in the temporary folder, by the prefix of their names.
PREFIXES = ("olctc-milp-", "olctc-solve-", "olctc-solution-", "olctc-model-")
# tempfile's random part: 8 characters of [a-z0-9_]
_RANDOM = 8


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder named ``prefix`` (one of ``PREFIXES``) + 8 random characters, removed after the block.
    First the folders of killed processes are removed (``sweep``). The folder holds the file ``MARK``, naming this
    machine, on which this process keeps a shared flock until the block ends."""
    if prefix not in PREFIXES:
        raise ValueError(f"scratch_folder: prefix {prefix!r} is not one of {PREFIXES}")
    sweep()
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    fd = -1
    try:
        fd = _marked(folder)
        yield folder
    finally:
        _remove_scratch(folder, fd)


def _remove_scratch(folder: Path, fd: int) -> None:
    """Remove ``folder``, its ``MARK`` last, and release ``fd`` (its flock). An interrupt that arrives meanwhile
    (Ctrl-C pressed twice; ``timeout -s INT`` signals the group too) is raised once the removal is done: cut short
    by one, tempfile's removal took the marker first and left 3 folders in 30 runs that no sweep would touch. A
    folder that vanished meanwhile (a cleaner of old files in /tmp) must not fail a finished solve."""
    interrupted: KeyboardInterrupt | None = None
    for _ in range(100):
        try:
            with contextlib.suppress(OSError):
                _remove_contents(folder)
            if fd >= 0:
                held, fd = fd, -1
                with contextlib.suppress(OSError):
                    os.close(held)
            try:
                left = set(os.listdir(folder))
            except OSError:  # gone
                break
            # the marker, or nothing (an unmarked folder, a removal cut short after the marker); else a file
            # system mounted inside: the marker stays, for a later sweep
            if left <= {MARK}:
                with contextlib.suppress(OSError):
                    os.unlink(folder / MARK)
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
            break
        except KeyboardInterrupt as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted


def _host() -> bytes:
    # on a file system shared by several machines whose flocks are each machine's own (NFS mounted with
    # local_lock=flock, Lustre with localflock), another machine's live folder looks unheld from here
    return socket.gethostname().encode("utf-8", "surrogateescape")[:255]


def _marked(folder: Path) -> int:
    """Make ``folder / MARK`` (naming this machine) and hold a shared flock on it: the descriptor, or -1 where that
    cannot be done (no flocks, no inode left). The file is locked under another name first, so that a sweep never
    finds it unheld."""
    new = folder / (MARK + ".new")
    try:
        fd = os.open(new, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    except OSError:
        return -1
    try:
        os.write(fd, _host())
        if mark_in_use(fd):
            os.rename(new, folder / MARK)
            return fd
    except OSError:
        pass
    os.close(fd)
    return -1


def _roots() -> list[Path]:
    """The temporary folder, and the ones $TMPDIR, $TEMP and $TMP name: ``tempfile`` passes over one it cannot
    write a file in, such as one filled up by leftovers."""
    roots = [Path(tempfile.gettempdir())]
    for var in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(var)
        if value and os.path.isabs(value) and Path(value) not in roots and os.path.isdir(value):
            roots.append(Path(value))
    return roots


def _is_scratch(name: str) -> bool:
    return any(name.startswith(p) and len(name) == len(p) + _RANDOM for p in PREFIXES)


def sweep() -> list[Path]:
    """Remove this user's folders of ``PREFIXES`` in the temporary folders (``_roots``) whose ``MARK`` names this
    machine and no process holds: the ones removed. Folders without ``MARK`` (being made, or made by an earlier
    olctc, which did not mark them) are left alone; where there are no flocks, everything is."""
    if os.name == "nt":  # no flocks
        return []
    removed: list[Path] = []
    uid, host = os.geteuid(), _host()
    for root in _roots():
        try:
            entries = [e for e in os.scandir(root) if _is_scratch(e.name)]
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
            except OSError:
                continue
            if _remove_if_dead(Path(entry.path), host):
                removed.append(Path(entry.path))
    return removed


def _remove_if_dead(folder: Path, host: bytes) -> bool:
    """Remove ``folder`` if its ``MARK`` is a file that names ``host`` and no process holds; whether it is gone.
    The marker goes last, under an exclusive flock: a removal that fails or is interrupted leaves it, and a later
    sweep goes on with it, while a second sweeper leaves the folder to the first."""
    import fcntl

    try:
        # O_NONBLOCK: a FIFO under the marker's name would block the open until a writer came
        fd = os.open(folder / MARK, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held (its process runs): BlockingIOError, an OSError
        if os.read(fd, 256) != host:
            return False
        if not _remove_contents(folder):
            return False
        os.unlink(folder / MARK)
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        os.rmdir(folder)
    except OSError:
        return False
    return True


def _remove_contents(folder: Path) -> bool:
    """Remove everything in ``folder`` but ``MARK``; whether that worked. Read-only subfolders (a solver program's)
    are made writable first; a file system mounted inside is not entered (nothing is removed then)."""
    device = os.lstat(folder).st_dev
    for top, dirs, _files in os.walk(folder):
        for d in dirs:
            path = os.path.join(top, d)
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode):  # a link: not followed, and its target's mode is not ours to change
                continue
            if st.st_dev != device:
                return False
            with contextlib.suppress(OSError):
                os.chmod(path, 0o700)
    for entry in os.scandir(folder):
        if entry.name == MARK:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    return os.listdir(folder) == [MARK]
