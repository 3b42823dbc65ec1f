"""A thread's floating-point environment (x87 precision, SSE rounding and flush-to-zero): kept across a native
library's calls, and the default one for olctc's own fits.

FICO Xpress sets the x87 FPU of the thread that first creates a problem in the process to double precision
(53-bit significands, control word 0x27f instead of 0x37f) and leaves it so (xpress 9.9, measured). OpenBLAS's
dnrm2 accumulates on the x87 FPU, and scipy's L-BFGS-B (the polish of every node fit) calls it: after one
in-process Xpress solve the same compile wrote other MIP-start files (last bits of the polished weights) than
a fresh process did, and SQLite parsed -1.7976931348623157e308 as -inf. In-process solves now leave their
caller's environment as they found it, and the fits run in the default environment whatever the caller's.

glibc and macOS only (``fegetenv``/``fesetenv`` through ctypes); elsewhere every function here does nothing.
"""
from __future__ import annotations

import contextlib
import ctypes
import platform
import sys
from typing import Any, Iterator

#: bytes held for a fenv_t: more than any platform's (glibc x86-64: 32, macOS: 16, glibc aarch64: 8)
_SIZE = 64

_lib: Any = None  # (library, FE_DFL_ENV pointer), False where there is none; loaded at first use


def _libm() -> Any:
    global _lib
    if _lib is None:
        _lib = False
        try:
            if sys.platform.startswith("linux"):
                lib = ctypes.CDLL("libm.so.6")
                default = ctypes.c_void_p(-1)  # glibc's (and musl's) FE_DFL_ENV: ((const fenv_t *) -1)
            elif sys.platform == "darwin":
                lib = ctypes.CDLL("/usr/lib/libSystem.B.dylib")
                default = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "_FE_DFL_ENV")))
            else:
                return False
            lib.fegetenv.argtypes = lib.fesetenv.argtypes = [ctypes.c_void_p]
            _lib = (lib, default)
        except (OSError, AttributeError, ValueError):
            pass
    return _lib


def saved() -> Any:
    """The calling thread's floating-point environment (for ``restore``), or None where it cannot be read."""
    lib = _libm()
    if not lib:
        return None
    env = ctypes.create_string_buffer(_SIZE)
    return env if lib[0].fegetenv(env) == 0 else None


def restore(env: Any) -> None:
    """Make ``env`` (from ``saved``; None does nothing) the calling thread's floating-point environment."""
    lib = _libm()
    if lib and env is not None:
        lib[0].fesetenv(env)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """The calling thread's floating-point environment, as it was, when the block ends (however it ends)."""
    env = saved()
    try:
        yield
    finally:
        restore(env)


@contextlib.contextmanager
def default() -> Iterator[None]:
    """The block runs in the default floating-point environment (x87 at extended precision, round to nearest,
    no flush-to-zero, no trap), the caller's restored after it: its results do not depend on what another
    library of the process set."""
    with kept():
        lib = _libm()
        if lib:
            lib[0].fesetenv(lib[1])
        yield


def controls() -> tuple[int, int] | None:
    """(x87 control word, MXCSR without its exception flags) of the calling thread, on x86-64 Linux (glibc's
    fenv_t: the control word first, MXCSR at byte 28); None elsewhere. The default is (0x37f, 0x1f80)."""
    env = saved()
    if env is None or not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        return None
    raw = env.raw
    return int.from_bytes(raw[0:2], "little"), int.from_bytes(raw[28:32], "little") & ~0x3F
