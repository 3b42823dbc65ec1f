"""Crash-signal and SIGINT handlers kept across a native library's calls.

CBC (libCbc, as python-mip's cbcbox ships it) installs its own handler for SIGSEGV, SIGFPE, SIGABRT (and
others) on its first solve and leaves it for the rest of the process: a caller's ``faulthandler`` no longer
prints a Python traceback at a later crash, which ends with "ERROR while running Cbc. Signal SIGSEGV caught"
(QA, 2026-12-05). ``signal.getsignal`` cannot see a handler set in C, so the handlers are saved and restored
as opaque ``struct sigaction`` buffers, through the C library's ``sigaction`` (POSIX; elsewhere nothing).
SIGINT's too: CBC put back the caller's handler with ``signal()``, which adds SA_RESTART (a Ctrl-C then no longer
cut a blocking read or wait of the caller's, raised when the call ended on its own), and two solves in a thread
pool, each putting back what it found, left SCIP's or CBC's own handler in place for good (Ctrl-C lost).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from typing import Any, Iterator

#: bytes held for a struct sigaction: more than any platform's (glibc x86-64: 152, macOS: 16)
_SIZE = 512
#: the signals whose handlers a crash handler takes (CBC: SIGSEGV, SIGFPE, SIGABRT)
CRASH_SIGNALS = tuple(getattr(signal, name) for name in ("SIGSEGV", "SIGFPE", "SIGABRT", "SIGBUS", "SIGILL")
                      if hasattr(signal, name))
#: the signals whose handlers ``kept`` puts back: the crash signals, and SIGINT (CBC's Clp, SCIP)
KEPT_SIGNALS = (*CRASH_SIGNALS, signal.SIGINT)

_lib: Any = None  # the C library, or False where it has no sigaction; loaded at first use


def _libc() -> Any:
    global _lib
    if _lib is None:
        _lib = False
        if sys.platform.startswith("linux") or sys.platform == "darwin":
            try:
                lib = ctypes.CDLL(None)
                lib.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
                lib.sigaction.restype = ctypes.c_int
                _lib = lib
            except (OSError, AttributeError):
                pass
    return _lib


def saved() -> dict[int, Any]:
    """The process's handlers of ``KEPT_SIGNALS``, as opaque buffers for ``restore``."""
    lib = _libc()
    out: dict[int, Any] = {}
    if lib:
        for sig in KEPT_SIGNALS:
            buf = ctypes.create_string_buffer(_SIZE)
            if lib.sigaction(int(sig), None, buf) == 0:
                out[int(sig)] = buf
    return out


def restore(handlers: dict[int, Any]) -> None:
    """Put back the handlers ``saved`` returned."""
    lib = _libc()
    if lib:
        for sig, buf in handlers.items():
            lib.sigaction(sig, buf, None)


#: Blocks in several threads at once (CBC solves in a thread pool) share one save: the first block saves, the
#: last one restores. Each saving and restoring its own, a block entered while another's CBC had installed its
#: handlers saved CBC's, and put them back for good when it ended last (review, 2026-12-05).
_SHARED: dict[str, Any] = {"lock": threading.Lock(), "depth": 0, "handlers": {}}


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """The process's handlers of ``KEPT_SIGNALS``, as they were before the first of the blocks running at once,
    when the last of them ends (however it ends)."""
    entered = False
    try:  # the count inside: an interrupt at the lock's release left it counted, and no block restored again
        with _SHARED["lock"]:
            if _SHARED["depth"] == 0:
                _SHARED["handlers"] = saved()
            _SHARED["depth"] += 1
            entered = True  # no call between the two: Python raises an interrupt only at calls and loops
        yield
    finally:
        if entered:
            with _SHARED["lock"]:
                _SHARED["depth"] -= 1
                if _SHARED["depth"] == 0:
                    restore(_SHARED["handlers"])


def _reset_after_fork() -> None:
    # a forked child has none of the parent's blocks running, maybe a lock held by one
    _SHARED.update(lock=threading.Lock(), depth=0, handlers={})


os.register_at_fork(after_in_child=_reset_after_fork)
