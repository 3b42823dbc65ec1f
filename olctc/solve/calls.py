"""Calling a solver's native code in process: in a long-lived solver thread that an interrupt or an overrun
can leave (``_native``), with its output redirected or folded, and the small helpers every in-process
backend shares (status lookup, timing, the MIP start as a vector)."""
from __future__ import annotations

import contextlib
import os
import queue
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator

import numpy as np

from olctc.io import check_interrupt, is_console, note_solver_left
from olctc.solve.options import SolveOptions, start_from_file, start_vector
from olctc.solve.result import LIMIT, resolve_status


def _map(table: dict[str, str], raw: str, has_solution: bool) -> str:
    return resolve_status(table.get(raw, LIMIT), has_solution)


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


class _SolverThreads:
    """The long-lived threads every native solve of this process runs in (``_native``).

    A new thread per solve crashed the process after 40-150 SCIP MIQP solves (SIGSEGV in SCIPexprintEval,
    SCIP's CppAD expression code, under Ipopt: gdb's backtrace), never with the solves in one thread: CppAD
    keeps state per thread it has seen. Found by fuzzing; ``tests/test_solver_bugs.py``. A solve takes an
    idle worker and a new one starts only when every worker is busy, so a process sees as many solver
    threads as it ever ran solves at once, however many threads of its own called them.
    """

    def __init__(self) -> None:
        self._reset()
        # A forked child (bench's workers) has none of the parent's threads and maybe a lock held by one.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue] = []

    def submit(self, call: Callable[[], Any]) -> tuple[dict[str, Any], threading.Event]:
        """Start ``call`` in an idle worker; the box gets its "value" or "error" before the event is set."""
        box: dict[str, Any] = {}
        done = threading.Event()
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._run, args=(jobs,), name="olctc-solver", daemon=True).start()
        jobs.put((call, box, done))
        return box, done

    def _run(self, jobs: queue.SimpleQueue) -> None:
        while True:
            call, box, done = jobs.get()
            try:
                box["value"] = call()
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc
            # Idle again before the caller hears of it, so that its next solve finds this worker.
            with self._lock:
                self._idle.append(jobs)
            done.set()


_SOLVER_THREADS = _SolverThreads()


class SolverLeft(Exception):
    """A solver call still running at ``_native``'s ``leave_at``: its thread was left running."""


#: Seconds ``_native`` waits, once it has asked the solver to stop at ``leave_at``, before leaving it.
LEAVE_WAIT = 1.0


def _wait(done: threading.Event, seconds: float) -> bool:
    """``done.wait(seconds)`` that an interrupt cannot break: Event.wait takes its Condition's lock in Python
    code, and a KeyboardInterrupt raised by a signal handler right after the lock was taken left it held by
    nobody. The main thread then hung in its next wait, and the solver thread in ``done.set()`` (a fit
    sent SIGTERM never ended: seen once in 100 runs, then forced with a trace function). Polling the flag
    holds no lock."""
    end = time.monotonic() + seconds
    while not done.is_set():
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(0.01, left))
    return True


def _native(call: Callable[[], Any], stop: Callable[[], None] | None = None,
            leave_at: float | None = None, cancel: Callable[[], None] | None = None) -> Any:
    """Run a solver's native ``call`` in a solver thread while the caller waits, so that in the main thread
    an interrupt (Ctrl-C, the console program's SIGTERM) is seen at once rather than when the solver returns.

    A solver's own handler sees Ctrl-C in some phases only (SCIP's while it solves, Clp's while it solves
    an LP), never a scheduler's SIGTERM. With ``stop`` the solver is asked to stop and its result,
    incumbent included, is returned. Without (python-mip offers no way into a running CBC) the
    KeyboardInterrupt goes on and the call is left running, which only the console program does: it
    leaves by ``os._exit``. A library caller's main thread would keep a busy thread: there the call runs
    in the caller's thread and the interrupt waits for its end. Other threads see no interrupt: they wait.

    ``leave_at`` (a ``time.monotonic()`` instant; the console program only): a call still running then is
    asked to stop (``cancel``, else ``stop``), given ``LEAVE_WAIT`` seconds, and then left running at the
    lowest CPU priority (it would slow what the caller does next): SolverLeft is raised.
    """
    main = threading.current_thread() is threading.main_thread()
    if main and stop is None and leave_at is None and not is_console():
        return call()
    handler = signal.getsignal(signal.SIGINT) if main else None
    # An Event, not Thread.join: a join that an interrupt cuts short can leave is_alive() False while the
    # thread still runs (measured on 3.11: the result was read before SCIP had stopped).
    box, done = _SOLVER_THREADS.submit(call)
    try:
        while not _wait(done, 0.1):
            check_interrupt()  # one whose KeyboardInterrupt Python dropped (raised inside a finaliser)
            if handler is not None:
                # Take Ctrl-C back: Clp installs its own handler while it solves an LP, and when that LP
                # is not CBC's root (a heuristic's, preprocessing's), CBC goes on as if nothing happened.
                signal.signal(signal.SIGINT, handler)
            if leave_at is not None and time.monotonic() >= leave_at:
                ask = cancel or stop
                if ask is not None:
                    with contextlib.suppress(Exception):
                        ask()
                if _wait(done, LEAVE_WAIT):
                    break
                note_solver_left()
                _lowest_priority_but_mine()
                raise SolverLeft
    except KeyboardInterrupt:
        if stop is None:
            raise
        while True:
            with contextlib.suppress(Exception):  # refused before the solver has started: ask again
                stop()
            if _wait(done, 0.1):
                break
    if "error" in box:
        raise box["error"]
    return box["value"]


@contextlib.contextmanager
def _fd_redirected(fd: int, target: Any) -> Iterator[None]:
    """Point file descriptor ``fd`` (1 or 2, so native code's output too) at the file ``target`` for the
    block; nothing is redirected when ``fd`` is closed."""
    try:
        saved = os.dup(fd)
    except OSError:  # no such stream to redirect
        yield
        return
    stream = sys.stdout if fd == 1 else sys.stderr
    if stream is not None:  # what Python buffered goes out before the switch
        stream.flush()
    try:
        os.dup2(target.fileno(), fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


@contextlib.contextmanager
def repeats_folded(fd: int = 2, hide: tuple[bytes, ...] = ()) -> Iterator[None]:
    """Pass what native code writes to ``fd`` through as it comes, but each distinct line once; after the
    block, one line says how often a repeated line was printed. Lines starting with one of ``hide`` are
    not passed on (a quiet solve's known notices).

    SCIP's LP solver (SoPlex without GMP) writes "Cannot set feasibility tolerance to small value 1e-12"
    to stderr each time SCIP tightens the LP tolerance below 1e-10 (1e-3 x our 1e-9), which ``hideOutput``
    does not silence: 130 lines in one 8 s fit of degenerate data. Lines are forwarded at once, so the
    last words of a native crash still reach the terminal.
    """
    try:
        saved = os.dup(fd)  # where the lines go on
    except OSError:  # no such stream
        yield
        return
    counts: dict[bytes, int] = {}

    def pump(src: int) -> None:
        with os.fdopen(src, "rb") as pipe:
            for line in pipe:
                if line.startswith(hide):
                    continue
                counts[line] = counts.get(line, 0) + 1
                if counts[line] == 1:
                    os.write(saved, line)

    read_end, write_end = os.pipe()
    reader = threading.Thread(target=pump, args=(read_end,), name="olctc-stderr", daemon=True)
    reader.start()
    try:
        # Leaving the block restores fd, then closes the pipe's last write end: the reader sees its end.
        with os.fdopen(write_end, "wb") as pipe_in, _fd_redirected(fd, pipe_in):
            try:
                yield
            finally:
                if sys.stderr is not None:  # what Python buffered goes through the pipe too
                    sys.stderr.flush()
    finally:
        reader.join(timeout=10)
        for line, n in counts.items():
            if n > 1:
                text = line.decode("utf-8", "replace").strip()
                os.write(saved, f"(the line {text[:80]!r} was printed {n} times)\n".encode())
        os.close(saved)


def _lowest_priority_but_mine() -> None:
    """Give every other thread of this process (a solver left running, and the threads it started) the
    lowest CPU priority, where the OS allows it (Linux: a nice value per thread)."""
    mine = threading.get_native_id()
    with contextlib.suppress(OSError, AttributeError):
        for tid in os.listdir("/proc/self/task"):
            if int(tid) != mine:
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, int(tid), 19)


def _start_values(opts: SolveOptions, col_names: list[str],
                  bounds: Callable[[], tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """The MIP start (array, mapping or file) as a full vector in ``col_names`` order, or None.

    ``bounds`` is only called for a by-name start, whose missing columns are clipped into their bounds.
    """
    start = opts.start
    if opts.start_path is not None:
        start = start_from_file(opts.start_path, col_names)
    if start is None:
        return None
    lb, ub = (None, None) if isinstance(start, np.ndarray) else bounds()
    return start_vector(start, col_names, lb, ub)
