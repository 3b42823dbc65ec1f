"""Work done beside the main thread while it writes: on a thread, or in a forked child process.

A thread shares the GIL, so work that is pure Python (a fresh interpreter importing scikit-learn: a second
or more of module bodies) runs no faster beside a model being written than after it. A forked child runs
it on the other core. The child writes no file: it sends its value (or its exception, and the warnings
it raised) back through a pipe, and dies with its parent.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import traceback
import warnings
from typing import Any, Callable, Iterator, TypeVar

from olctc.errors import OlctcError

T = TypeVar("T")
_STOPS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}

#: ``stop``: the Event of the ``on_thread`` call running in this thread (set when its block was interrupted)
_CALL = threading.local()


class Abandoned(BaseException):
    """Raised inside an ``on_thread`` call whose block was interrupted: nobody waits for its value."""


def check_abandoned() -> None:
    """Raise Abandoned in an ``on_thread`` call whose block was interrupted (elsewhere, nothing). A long call
    asks between its steps (the warm start's node fits and their polish iterations): interrupted in process
    (Ctrl-C in a notebook), it ends there instead of running on for seconds and holding the fit locks the
    next fit waits for."""
    stop = getattr(_CALL, "stop", None)
    if stop is not None and stop.is_set():
        raise Abandoned


@contextlib.contextmanager
def on_thread(call: Callable[[], T], name: str) -> Iterator[Callable[[], T]]:
    """Run ``call`` on a daemon thread during the block, which gets a function that waits for it and returns
    its value or raises its exception. A block that fails waits for the thread (so that nothing of the call
    outlives it); an interrupt does not, and the call ends at its next ``check_abandoned``."""
    box: dict[str, Any] = {}
    stop = threading.Event()

    def run() -> None:
        _CALL.stop = stop
        try:
            box["value"] = call()
        except BaseException as exc:  # raised again in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run, name=name, daemon=True)

    def result() -> T:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    try:  # started inside: an interrupt landing as the thread starts is one of the block's
        thread.start()
        yield result
    except Exception:
        thread.join()
        raise
    except BaseException:
        stop.set()
        raise


def can_fork() -> bool:
    """Whether ``in_child`` forks: on Linux, from a process running no other Python thread (a fork copies
    only the calling thread, and a lock another thread held would stay held in the child). macOS is left
    out: its system libraries (Accelerate, which numpy may use) are not safe to use in a forked child."""
    return sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1


@contextlib.contextmanager
def in_child(call: Callable[[], T], name: str) -> Iterator[Callable[[], T]]:
    """``on_thread``'s contract, with ``call`` run in a forked child process when ``can_fork()`` (else on a
    thread). ``call``'s value and exception must pickle; the warnings it raises are raised again in the
    caller. The child is killed when the block ends without having waited for it (an error, an interrupt),
    and when this process dies."""
    # A stop (Ctrl-C reaches the whole process group) between the fork and the `try` below would leave the
    # child running in the parent, or run the parent's own stop handling in the child, before it ignores
    # stops: they are held from before the fork until then, and a stop held meanwhile is raised in the `try`.
    forked = None
    if can_fork():
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            forked = _fork()
        finally:
            if forked is None:  # refused, or a stop that had landed just before the block raised here
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if forked is None:  # no fork here, or the system refused one (a process limit, no file descriptor left)
        with on_thread(call, name) as wait:
            yield wait
        return
    parent, pid, read_end, write_end = forked
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_end)
        _run_child(call, write_end, parent, name, held)
    done: dict[str, Any] = {}

    def result() -> T:
        if "reply" not in done:
            with os.fdopen(read_end, "rb", closefd=False) as pipe:
                data = pipe.read()
            done["reply"] = data
            done["status"] = _reap(pid)
        return _unpack(done["reply"], done["status"], name)

    try:
        os.close(write_end)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        yield result
    finally:
        if "reply" not in done:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _reap(pid)
        os.close(read_end)


def _fork() -> tuple[int, int, int, int] | None:
    """(parent pid, child pid or 0 in the child, the pipe's read and write ends), or None when the system
    refuses the pipe or the fork."""
    parent = os.getpid()
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():
            # Python >= 3.12 warns about forking a multi-threaded process, counting BLAS's worker threads,
            # which reset themselves in the child (pthread_atfork).
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    return parent, pid, read_end, write_end


def _reap(pid: int) -> int:
    """Wait for the child; its wait status (0 when a program ignoring SIGCHLD had the system reap it)."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _run_child(call: Callable[[], Any], write_end: int, parent: int, name: str,
               held: set[int | signal.Signals]) -> None:  # pragma: no cover
    """The child's whole life: run ``call``, send what came of it, exit without running the parent's code
    (``os._exit``: no ``finally`` of the caller, no atexit handler, no flush of inherited buffers)."""
    code = 1
    try:
        # Ctrl-C reaches the whole process group, and a scheduler's SIGTERM or a hang-up may: the parent
        # handles them (exit 130, its files removed) and kills the child. A child that died of one first would
        # turn the stop into an error of the warm start's.
        for signum in _STOPS:
            signal.signal(signum, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a stop held since the fork is dropped now
        _die_with(parent)
        with warnings.catch_warnings(record=True) as caught:
            try:
                reply: tuple = ("value", call())
            except BaseException as exc:
                if not isinstance(exc, OlctcError):
                    exc.add_note(f"(in {name}, a child process:)\n" + "".join(traceback.format_exception(exc)))
                reply = ("error", exc)
        shown = [(str(w.message), w.category, w.filename, w.lineno) for w in caught]
        try:
            data = pickle.dumps((*reply, shown), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an unpicklable value or exception: say what it was
            data = pickle.dumps(("error", OlctcError(f"{name}: {reply[0]} {reply[1]!r} could not be sent back "
                                                     f"to the parent process ({exc})"), shown))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        code = 0
    finally:
        os._exit(code)


def _die_with(parent: int) -> None:  # pragma: no cover - runs in the child
    """Ask Linux to kill this process when its parent dies (a SIGKILLed parent cleans nothing up)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def _unpack(data: bytes, status: int, name: str) -> Any:
    reply = None
    if data:
        try:
            reply = pickle.loads(data)
        except Exception as exc:  # cut short (the child died while it wrote), or a class that cannot be rebuilt
            if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                raise OlctcError(f"{name}: the answer of its child process could not be read back "
                                 f"({type(exc).__name__}: {exc})") from None
    if reply is None:
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        how = (f"was killed by {_signal_name(killed)}" if killed is not None
               else f"exited with status {os.waitstatus_to_exitcode(status)}")
        raise OlctcError(f"{name}, a child process of this command, {how} before it answered"
                         + (" (out of memory?)" if killed == signal.SIGKILL else ""))
    kind, value, shown = reply
    for message, category, filename, lineno in shown:
        warnings.warn_explicit(message, category, filename, lineno)
    if kind == "error":
        raise value
    return value
