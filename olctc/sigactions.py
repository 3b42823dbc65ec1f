"""Crash-signal handlers kept across a native library's calls.

CBC (libCbc, as python-mip's cbcbox ships it) installs its own handler for SIGSEGV, SIGFPE, SIGABRT (and
others) on its first solve and leaves it for the rest of the process: a caller's ``faulthandler`` no longer
prints a Python traceback at a later crash, which ends with "ERROR while running Cbc. Signal SIGSEGV caught"
(QA, 2026-12-05). ``signal.getsignal`` cannot see a handler set in C, so the handlers are saved and restored
as opaque ``struct sigaction`` buffers, through the C library's ``sigaction`` (POSIX; elsewhere nothing).
"""
from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
from typing import Any, Iterator

#: bytes held for a struct sigaction: more than any platform's (glibc x86-64: 152, macOS: 16)
_SIZE = 512
#: the signals whose handlers a crash handler takes (CBC: SIGSEGV, SIGFPE, SIGABRT; SIGINT is calls._native's)
CRASH_SIGNALS = tuple(getattr(signal, name) for name in ("SIGSEGV", "SIGFPE", "SIGABRT", "SIGBUS", "SIGILL")
                      if hasattr(signal, name))

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
    """The process's handlers of ``CRASH_SIGNALS``, as opaque buffers for ``restore``."""
    lib = _libc()
    out: dict[int, Any] = {}
    if lib:
        for sig in CRASH_SIGNALS:
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


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """The process's crash-signal handlers, as they were, when the block ends (however it ends)."""
    handlers = saved()
    try:
        yield
    finally:
        restore(handlers)
