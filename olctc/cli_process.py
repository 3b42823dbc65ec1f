"""What the console program does around a command: SIGINT, SIGTERM and SIGHUP become an exit 130 that removes
every file being written (never in the middle of an import), a closed or full standard output is no crash,
and a warning is one line. ``olctc.cli.main`` puts them in place."""
from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import signal
    from types import FrameType

import click

from olctc.io import remove_files_being_written
from olctc.process_state import interrupts_are_deferred, note_console, note_interrupt


class _Interrupts:
    """SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt, except while the main thread imports a module:
    then the interrupt waits until that import is done.

    SIGTERM (a scheduler's kill, `timeout`) and SIGHUP (a closed terminal, a dropped ssh session) take the same
    path as Ctrl-C, so every file being written is removed and nothing partial stays under a final name; a
    SIGHUP that `nohup` ignores stays ignored. An interrupt raised inside the import of a
    native module (onnx, matplotlib, numpy's extensions) leaves it half-initialised: measured on `olctc
    export`, a segfault (-11), an abort while the interpreter finalises (-6), a RuntimeError from a class
    body or numpy's "failed to import". Imports take well under a second, so waiting costs nothing.
    """

    def __init__(self) -> None:
        import threading

        self.importing = 0
        self.pending = False
        self.closing = False
        self.stopping = False  # the command is leaving with exit 130: its cleanup runs to its end
        self.console = False  # the console program's (install's imports): it leaves by _hard_exit
        self.fired = False  # a native call may swallow the KeyboardInterrupt or turn it into its own error
        self.main = threading.main_thread().ident
        self.installed: dict[int, Callable[[int, FrameType | None], Any] | int | signal.Handlers | None] = {}

    def handler(self, signum: int, frame: object) -> None:
        if self.closing:
            # The command is over and the interpreter finalises: a KeyboardInterrupt now could only be
            # printed as "Exception ignored in threading._shutdown". Take the signal's default action.
            import signal

            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if not self.fired and self.console:
            _pipes_unblocked()
        self.fired = True
        note_interrupt()
        if self.stopping:
            # A second Ctrl-C, or `timeout -s INT` signalling the group, while the first one's exit path
            # removes files and prints "interrupted": raising here broke that path with a traceback and
            # exit -2 (measured: bench's SIGINT then SIGTERM 5 ms apart). The exit is already on its way.
            return
        if interrupts_are_deferred():  # recorded above: the section's end raises it
            return
        if self.importing:
            self.pending = True
            return
        raise KeyboardInterrupt

    def close(self, *, restore: bool) -> None:
        """The command is over: from now on a signal takes its default action; ``restore`` puts back
        the handlers found at ``install`` (an in-process caller keeps its own)."""
        import signal

        self.closing = True
        note_interrupt(False)
        if restore:
            for signum, previous in self.installed.items():
                signal.signal(signum, previous)

    def install(self, *, imports: bool) -> None:
        """Handle SIGTERM and SIGHUP (and SIGINT when ``imports``), and with ``imports`` make imports atomic.
        Only the console program patches ``__import__``: it changes the whole process."""
        import signal

        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) == signal.SIG_DFL:  # not one ignored (nohup) or a caller's own
                self.installed[signum] = signal.signal(signum, self.handler)
        if not imports:
            return
        self.console = True
        default_hook = sys.unraisablehook

        def unraisable(info):
            # An interrupt raised inside a finaliser is dropped by Python, which prints it with a traceback;
            # atomic_open still stops the command at its next commit (note_interrupt): print nothing.
            if not isinstance(info.exc_value, KeyboardInterrupt):
                default_hook(info)

        sys.unraisablehook = unraisable
        note_console()
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self.installed[signal.SIGINT] = signal.signal(signal.SIGINT, self.handler)
        import builtins
        import threading

        real_import = builtins.__import__

        def atomic_import(name, globals=None, locals=None, fromlist=(), level=0):
            if threading.get_ident() != self.main:  # handlers run in the main thread only
                return real_import(name, globals, locals, fromlist, level)
            self.importing += 1
            try:
                return real_import(name, globals, locals, fromlist, level)
            finally:
                self.importing -= 1
                if not self.importing and self.pending:
                    self.pending = False
                    raise KeyboardInterrupt

        builtins.__import__ = atomic_import


def _interrupted(hard: bool = False, interrupts: _Interrupts | None = None) -> None:
    """Exit 130 after an interrupt that every open file has already been cleaned up after.

    ``hard`` (the console program) leaves by ``os._exit``: an interrupt that landed inside the import of a
    native module (onnx, matplotlib) can leave it half-initialised, and the interpreter's finalisation
    then aborts ("Fatal Python error: PyThreadState_Get", exit -6). Nothing is left to finalise: files
    were removed while the interrupt unwound, and bench has stopped its run processes; a temporary file
    whose writer the interrupt could not reach (``olctc.io.remove_files_being_written``) is removed here.
    ``interrupts``, the handlers in place, stop raising: a further signal cannot break this path.
    """
    if interrupts is not None:
        interrupts.stopping = True
    remove_files_being_written()
    if hard:
        # not click.echo: into a pipe whose reader stopped reading (`olctc ... 2>&1 | less`, paused) it blocked
        # for good, every further signal ignored by then: only SIGKILL ended the process
        _write_without_blocking(sys.stderr, "interrupted\n")
        _hard_exit(130)
    click.echo("interrupted", err=True)
    # CPython 3.11 remembers an interrupt that landed inside PyRun_String (pybind11 modules such as onnx
    # run code that way while importing) as "unhandled" even once caught, and then ends the process by
    # SIGINT (exit -2) instead of our 130. The interrupt was handled: clear that flag.
    try:
        import ctypes

        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ImportError, ValueError, AttributeError):
        pass  # other Pythons keep the flag elsewhere (or not at all)
    sys.exit(130)


def _hard_exit(code: int) -> None:
    """Flush the output, as far as that does not block, and leave by ``os._exit``, which runs no finalisation."""
    for stream in (sys.stdout, sys.stderr):
        _write_without_blocking(stream, "")
    for fd, blocking in reversed(_UNBLOCKED.items()):  # the pipes' open files are the shell's other commands' too
        with contextlib.suppress(OSError):
            os.set_blocking(fd, blocking)
    _remove_multiprocessing_tempdir()
    os._exit(code)


#: Descriptor -> its blocking mode, of the pipes an interrupt made non-blocking (``_pipes_unblocked``).
_UNBLOCKED: dict[int, bool] = {}


def _pipes_unblocked() -> None:
    """Make standard output and error non-blocking where they are pipes, at the first interrupt: into a pipe whose
    reader stopped reading (`olctc ... 2>&1 | less`, paused), a write or a flush of the command's unwinding
    blocked for good, and only SIGKILL ended the process. A write that would block now fails, and the
    command leaves with exit 130 (``_hard_exit`` puts the modes back)."""
    modes: dict[int, bool] = {}
    for fd in (1, 2):  # every mode read before any is set: with 2>&1 both are one open file, one mode
        with contextlib.suppress(OSError):
            if _is_pipe(fd) and fd not in _UNBLOCKED:
                modes[fd] = os.get_blocking(fd)
    _UNBLOCKED.update(modes)
    for fd in modes:
        with contextlib.suppress(OSError):
            os.set_blocking(fd, False)


def _is_pipe(fd: int) -> bool:
    """Whether descriptor ``fd`` is a pipe or FIFO (OSError when it is closed)."""
    import stat

    return stat.S_ISFIFO(os.fstat(fd).st_mode)


def pipes_unblocked() -> bool:
    """Whether an interrupt made a standard pipe non-blocking: the process must leave by ``_hard_exit``, which
    puts the modes back (a later writer in the same pipeline failed with "Resource temporarily unavailable")."""
    return bool(_UNBLOCKED)


def _write_without_blocking(stream: Any, text: str) -> None:
    """``text`` and what ``stream`` holds written out, into a pipe as far as it takes them without waiting: the
    rest is dropped. The pipe is non-blocking only meanwhile: its open file is shared with the shell's other
    commands. A terminal or a file is written as usual."""
    try:
        fd = stream.fileno()
        pipe = _is_pipe(fd)
        blocking = os.get_blocking(fd)
    except (AttributeError, OSError, ValueError):  # no stream, no descriptor (a test's capture)
        pipe, blocking = False, True
    try:
        if pipe:
            os.set_blocking(fd, False)
        try:
            stream.write(text)
            stream.flush()
        finally:
            if pipe:
                os.set_blocking(fd, blocking)
    except (AttributeError, OSError, ValueError):  # BlockingIOError: the reader has stopped reading
        pass


def _remove_multiprocessing_tempdir() -> None:
    """The ``pymp-*`` folder (the fork server's socket) multiprocessing removes at a normal exit, which
    ``os._exit`` skips: every interrupted bench left one in $TMPDIR."""
    mp = sys.modules.get("multiprocessing.process")
    config = getattr(mp.current_process(), "_config", None) if mp is not None else None
    tempdir = config.get("tempdir") if isinstance(config, dict) else None
    if isinstance(tempdir, str) and os.path.basename(tempdir).startswith("pymp-"):
        import shutil

        shutil.rmtree(tempdir, ignore_errors=True)


def _from_interrupt(exc: BaseException | None) -> bool:
    """Whether an exception wraps an interrupt: Python turns one raised inside ``__set_name__`` or
    ``__init_subclass__`` (a class body of a module being imported) into a RuntimeError caused by it."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def _show_warning(message, *_args, **_kwargs) -> None:
    """One line per warning, like the errors (Python's format adds the file, line and source that warned)."""
    click.echo(f"warning: {' '.join(str(message).split())}", err=True)


def _standard_streams_opened() -> None:
    """Standard input, output and error that were closed (``olctc ... >&-``) opened on /dev/null. Python leaves
    ``sys.stdout`` None (``sys.stdout.flush()`` raised, exit 1 after the work was done), and the next file the
    process opened would take descriptor 1 or 2, where the solver libraries write their logs."""
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, mode, closefd=False))


def _whole_writes(stream):
    """``stream`` (standard output or error) with a buffer under its text layer. Python's -u (PYTHONUNBUFFERED=1,
    common in containers) puts the raw file right under it, and the text layer drops what a short write leaves out: on a disk
    with 8 kB free, ``olctc export --format sql > x.sql`` wrote 8192 of 8201 bytes and exited 0. A buffer writes
    the rest or raises; line buffering keeps each line as prompt as unbuffered output was."""
    import io

    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        return stream
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=True)


class _ClosedPipeGuard:
    """Standard output (or error) that a closed pipe (``olctc fit ... | head -1``) does not stop: the first write
    that finds the reader gone points its descriptor at /dev/null (where the solvers' own logs then go too),
    and the command goes on to write its files and exit with its own code. Before, the next echo raised
    BrokenPipeError: fit and decode exited 1 without writing their tree, grid blamed its folder."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def __getattr__(self, name: str):
        return getattr(self._stream, name)

    def _gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()
            self._stream.flush()  # what was buffered goes to /dev/null now


def _stdout_failed(exc: OSError) -> bool:
    """Whether ``exc`` came from writing standard output (a full disk; a closed pipe is _ClosedPipeGuard's);
    if so, standard output is pointed at /dev/null, so that the interpreter's final flush fails no more."""
    import errno

    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    stream = tb.tb_frame.f_locals.get("file", tb.tb_frame.f_locals.get("self")) if tb is not None else None
    try:
        ours = exc.errno != errno.EPIPE and stream is not None and stream.fileno() == sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    if ours:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return ours
