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

from olctc import fpenv
from olctc.process_state import check_interrupt, is_console, note_solver_left
from olctc.solve.options import SolveOptions, start_from_file, start_vector
from olctc.solve.result import LIMIT, SolveResult, limit_kind, resolve_status


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
        """Start ``call`` in an idle worker, in the caller's floating-point environment (``olctc.fpenv``: as if
        the caller ran it, and what the call sets there stays there); the box gets its "value" or "error"
        before the event is set."""
        box: dict[str, Any] = {}
        done = threading.Event()
        env = fpenv.saved()
        with self._lock:
            jobs = self._idle.pop() if self._idle else None
        if jobs is None:
            jobs = queue.SimpleQueue()
            threading.Thread(target=self._run, args=(jobs,), name="olctc-solver", daemon=True).start()
        jobs.put((call, env, box, done))
        return box, done

    def _run(self, jobs: queue.SimpleQueue) -> None:
        while True:
            call, env, box, done = jobs.get()
            try:
                with fpenv.kept():
                    fpenv.restore(env)
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
#: Seconds the console program waits for a solver asked to stop by an interrupt before leaving it
#: (``_native``'s ``leave_after_stop``): HiGHS went on for 55-93 s after a SIGTERM in some phases (breast,
#: depth 3, signalled 30 s and 60 s into the solve), and Slurm's KillWait (30 s by default) then killed it
#: with nothing written. It stops within 2.5 s otherwise.
INTERRUPT_WAIT = 10.0


def left_after_interrupt(res: SolveResult) -> str | None:
    """"had not stopped ... after the interrupt and was left" for a solve left running after an interrupt
    (``leave_after_stop``), else None: the words solve, fit and their errors give it."""
    if res.left_running and limit_kind(res.raw_status) == "interrupt":
        return f"had not stopped {INTERRUPT_WAIT:g} s after the interrupt and was left"
    return None


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
            leave_at: float | None = None, cancel: Callable[[], None] | None = None,
            leave_after_stop: float | None = None) -> Any:
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
    ``leave_after_stop`` (the console program only): a call still running that many seconds after an
    interrupt's ``stop`` is left the same way; SolverLeft("interrupt") is raised.
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
                leave_running()
                raise SolverLeft
    except KeyboardInterrupt:
        if stop is None:
            raise
        asked = time.monotonic()
        while True:
            with contextlib.suppress(Exception):  # refused before the solver has started: ask again
                stop()
            if _wait(done, 0.1):
                break
            if leave_after_stop is not None and time.monotonic() - asked >= leave_after_stop:
                leave_running()
                raise SolverLeft("interrupt") from None
    if "error" in box:
        raise box["error"]
    return box["value"]


def _flush(fd: int) -> None:
    stream = sys.stdout if fd == 1 else sys.stderr
    if stream is not None:  # what Python buffered goes out before a switch
        stream.flush()


#: Written into the pipe as the last block ends: the reader has passed on every line before it when it reads it.
_FOLD_END = b"\x00olctc: end of folded blocks\x00\n"


class _Fold:
    """The pipe that file descriptor ``fd`` points at while ``repeats_folded`` blocks run, and its reader.

    A child process started during a block (by the caller's code, in another thread) inherits the pipe's write
    end: the reader then never sees the end of the pipe. It passes the child's lines on, unchanged, for as long
    as the child writes; the block's end waits for the lines written before it only (a 6 s fit took 14 s, and
    the child was killed by SIGPIPE at its next line once the reader had gone: QA 2026-12-05)."""

    def __init__(self, fd: int, saved: int) -> None:
        self.fd, self.saved = fd, saved  # saved: what fd was, put back by close (which closes it)
        # the reader's own copy of it, closed at the pipe's end (a child may keep the pipe after close)
        self.out = os.dup(saved)
        self.broken = False  # the lines' destination failed (EPIPE: a `| head` gone): lines read and dropped
        self.counts: dict[bytes, int] = {}
        self.blocks: list[tuple[tuple[bytes, ...], bool]] = []  # (hide, once) of each block in progress
        self.drained = threading.Event()  # the reader has passed on every line written in the blocks
        read_end, write_end = os.pipe()
        self.reader = threading.Thread(target=self._pump, args=(read_end,), name=f"olctc-fd{fd}", daemon=True)
        self.reader.start()
        _flush(fd)
        os.dup2(write_end, fd)
        os.close(write_end)  # fd now holds the pipe's only write end

    def _pump(self, src: int) -> None:
        try:
            self._pass_on(src)
        finally:
            self.drained.set()
            os.close(self.out)

    def _write(self, data: bytes) -> None:
        if not self.broken:
            try:
                os.write(self.out, data)
            except OSError:  # reading goes on, so that no writer blocks on a full pipe or dies of SIGPIPE
                self.broken = True

    def _pass_on(self, src: int) -> None:
        with os.fdopen(src, "rb") as pipe:
            for line in pipe:
                if self.drained.is_set():  # a child's, after the blocks: as written
                    self._write(line)
                    continue
                if line.endswith(_FOLD_END):
                    if len(line) > len(_FOLD_END):  # a last line without its newline
                        self._write(line[:-len(_FOLD_END)])
                    self.drained.set()
                    continue
                # hidden, or folded, only when every block in progress asks for it (a verbose solve beside a
                # quiet one shows the line)
                blocks = tuple(self.blocks)
                if blocks and all(line.startswith(hide) for hide, _ in blocks):
                    continue
                if not all(once for _, once in blocks):
                    self._write(line)
                    continue
                self.counts[line] = self.counts.get(line, 0) + 1
                if self.counts[line] == 1:
                    self._write(line)

    def close(self) -> None:
        """Put fd back, once the reader has passed on the blocks' lines (at most 10 s), whatever fails: a
        failed write here left fd on this pipe for the rest of the process (review, 2026-12-05)."""
        marked = False
        try:
            _flush(self.fd)
            if self.reader.is_alive():
                os.write(self.fd, _FOLD_END)
                marked = True
        except OSError:
            pass
        finally:
            os.dup2(self.saved, self.fd)  # closes the pipe's write end (a child's copy aside): the reader ends
        if marked:
            self.drained.wait(timeout=10)
        try:
            for line, n in dict(self.counts).items():  # a copy: a reader past the wait may still count
                if n > 1:
                    text = line.decode("utf-8", "replace").strip()
                    os.write(self.fd, f"(the line {text[:80]!r} was printed {n} times)\n".encode())
        except OSError:
            pass
        finally:
            os.close(self.saved)


class _StandardFd:
    """What this process has done to file descriptor 1 or 2. Redirections are process-wide, and fits in a
    thread pool each made theirs: two solves saved and restored each other's pipes, fd 2 was left on an
    orphaned pipe (every later line of stderr lost) and a reader waited 10 s for an end that never came (QA
    pass, 2026-12-03). ``lock`` orders them: a short redirection holds it for its block, and the solves
    folding the descriptor's lines share one pipe, the first installing it and the last removing it."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)  # a forked child has no reader thread, maybe a held lock

    def _reset(self) -> None:
        self.lock = threading.RLock()
        self.fold: _Fold | None = None


_STANDARD_FDS = {1: _StandardFd(), 2: _StandardFd()}


@contextlib.contextmanager
def _fd_redirected(fd: int, target: Any) -> Iterator[None]:
    """Point file descriptor ``fd`` (1 or 2, so native code's output too) at the file ``target`` for the
    block; nothing is redirected when ``fd`` is closed. Other threads' redirections of ``fd`` wait."""
    with _STANDARD_FDS[fd].lock:
        try:
            saved = os.dup(fd)
        except OSError:  # no such stream to redirect
            yield
            return
        _flush(fd)
        try:
            os.dup2(target.fileno(), fd)
            yield
        finally:
            _flush(fd)
            os.dup2(saved, fd)
            os.close(saved)


@contextlib.contextmanager
def repeats_folded(fd: int = 2, hide: tuple[bytes, ...] = (), once: bool = True) -> Iterator[None]:
    """Pass what native code writes to ``fd`` through as it comes, but each distinct line once (``once``);
    after the block, one line says how often a repeated line was printed. Lines starting with one of ``hide``
    are not passed on (a quiet solve's known notices). Blocks in several threads at once share one pipe.

    SCIP's LP solver (SoPlex without GMP) writes "Cannot set feasibility tolerance to small value 1e-12"
    to stderr each time SCIP tightens the LP tolerance below 1e-10 (1e-3 x our 1e-9), which ``hideOutput``
    does not silence: 130 lines in one 8 s fit of degenerate data. Lines are forwarded at once, so the
    last words of a native crash still reach the terminal.
    """
    state = _STANDARD_FDS[fd]
    fold: _Fold | None = None
    entered = False
    try:  # the setup inside: an interrupt at one of its calls left fd on the pipe, the block counted for good
        with state.lock:
            fold = state.fold
            if fold is None:
                fold = state.fold = _new_fold(fd)
            if fold is not None:
                fold.blocks = [*fold.blocks, (hide, once)]  # no call between this and the next line: Python
                entered = True                              # raises an interrupt only at calls and loops
        yield
    finally:
        if entered and fold is not None:
            with state.lock:
                if len(fold.blocks) > 1:
                    fold.blocks.remove((hide, once))
                else:  # the last block's settings stay for the lines still in the pipe
                    state.fold = None
                    fold.close()


def _new_fold(fd: int) -> _Fold | None:
    """A fold of ``fd`` (None when there is no such stream), or ``fd`` as it was if an interrupt cuts its making."""
    try:
        saved = os.dup(fd)
    except OSError:
        return None
    try:
        return _Fold(fd, saved)
    except BaseException:
        os.dup2(saved, fd)
        os.close(saved)
        raise


def leave_running() -> None:
    """Leave this process's solver thread running (the console program only): it leaves by ``os._exit``,
    and the thread gets the lowest CPU priority meanwhile (it would slow what the caller does next)."""
    note_solver_left()
    _lowest_priority_but_mine()
    _blas_on_my_thread()


def _blas_on_my_thread() -> None:
    """numpy's BLAS threads (and OpenMP's) are among those just given the lowest priority: every matrix product
    after it waited on them behind the solver, and a6a's decode and refinement after a HiGHS left running took
    2 s instead of 0.2 (QA 2026-12-05; ``benchmarks/left_solver.py``). For the rest of the process, the thread
    that calls BLAS does its work; the solver has the other core anyway."""
    with contextlib.suppress(Exception):  # no threadpoolctl, or a library it cannot load: as before
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)


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
