"""Each bench run in its own process, under a hard wall-clock limit.

A solver's time limit is a request the solver checks between steps; native code can ignore it for good
(SCIP 10 looped for over 10 minutes on a 60 s MIQP after corrupting its heap) or abort the process
(glibc's "double free"). One run per child process, killed at its hard limit, turns both into a record
("timeout" or "error") and the bench goes on. Children start from a fork server: no solver threads of
the parent are copied, and the imports are paid once. A child's standard error (file descriptor 2, so
native code's too) goes to a file that the parent passes on to its own when the run ends; a failed
run's record quotes its last line, which names a crash that a bare signal or timeout would not.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable

#: Seconds a stopped child gets between SIGTERM and SIGKILL.
GRACE = 2.0
#: Characters of a failed run's last standard-error line quoted in its record.
QUOTE = 200
#: Longest single wait (seconds) for a child's result before the deadlines are looked at again.
MAX_WAIT = 3600.0


@dataclass
class Worker:
    """A running child: its task, its end of the pipe, and when it must be stopped."""

    task: dict[str, Any]
    proc: Any  # multiprocessing's process object (its class depends on the start method)
    conn: Connection
    deadline: float
    limit: float
    started: float
    err_path: Path


def _capture_stderr(path: Path) -> None:
    """Point file descriptor 2 at ``path``: Python's, the solvers' and glibc's messages all land there."""
    sys.stderr.flush()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    # glibc writes "double free or corruption" to the terminal, not to fd 2, unless this is set.
    os.environ["LIBC_FATAL_STDERR_"] = "1"


def _child(task: dict[str, Any], conn: Connection, run: Callable[[dict[str, Any]], list], err_path: Path) -> None:
    # Ctrl-C reaches the whole process group; the parent owns it and stops its children.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _capture_stderr(err_path)
    except OSError:
        # The parent removed the folder: it is stopping (Ctrl-C, SIGTERM) and wants no result, nor a traceback.
        os._exit(1)
    conn.send(run(task))
    conn.close()


def _pass_on_stderr(w: Worker) -> str:
    """Copy a finished child's standard error to ours, delete its file, and return its last line."""
    try:
        text = w.err_path.read_text(encoding="utf-8", errors="replace")
        w.err_path.unlink()
    except OSError:
        return ""
    if text:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
        sys.stderr.flush()
    last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
    return last if len(last) <= QUOTE else last[:QUOTE - 3] + "..."


def _context() -> Any:
    methods = mp.get_all_start_methods()
    if "forkserver" not in methods:
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["olctc.bench.runner"])
    return ctx


def _start(proc: Any) -> None:
    """Start a child with SIGINT and SIGTERM held until it runs. An interrupt landing mid-handshake with
    the fork server kills the server with a traceback (EOFError in recvfds); held, it is raised again
    once the child is listed, and the child is stopped like the others. (A signal mask would not do:
    the signal may go to any of the process's threads, OpenBLAS's for one.)"""
    if threading.current_thread() is not threading.main_thread():
        proc.start()  # only the main thread may set handlers, and only it runs them
        return
    caught: list[int] = []
    saved = {s: signal.signal(s, lambda signum, _frame: caught.append(signum))
             for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        proc.start()
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    if caught:
        signal.raise_signal(caught[0])


def stop(proc: Any, grace: float = GRACE) -> None:
    """SIGTERM, then SIGKILL if the child is inside a C call that never returns."""
    if proc.is_alive():
        proc.terminate()
        proc.join(grace)
    if proc.is_alive():
        proc.kill()
        proc.join(grace)


def _signal_name(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _since(w: Worker) -> float:
    return time.monotonic() - w.started


def _said(last: str) -> str:
    return f"; the last line it wrote to stderr: {last!r}" if last else ""


def _outcome(w: Worker, failed: Callable[[dict[str, Any], str, str, float], list]) -> list | None:
    """The child's records, failure records, or None while it may still finish in time."""
    if w.conn.poll() or not w.proc.is_alive():
        recs = None
        if w.conn.poll():
            try:
                recs = w.conn.recv()
            except (EOFError, OSError):  # died before or while sending
                pass
        w.proc.join(GRACE)
        stop(w.proc)
        last = _pass_on_stderr(w)
        if recs is not None:
            return recs
        return failed(w.task, "error", f"WorkerDied: the run's process ended with {_signal_name(w.proc.exitcode)} "
                                       f"without returning its result (a crash in native code?){_said(last)}",
                      _since(w))
    if time.monotonic() >= w.deadline:
        stop(w.proc)
        last = _pass_on_stderr(w)
        return failed(w.task, "timeout", f"RunTimeout: no result after {w.limit:g} s (the run's hard limit); "
                                         f"its process was killed (a solver ignoring its time limit?){_said(last)}",
                      _since(w))
    return None


def run_isolated(tasks: list[dict[str, Any]], jobs: int, run: Callable[[dict[str, Any]], list],
                 limit_of: Callable[[dict[str, Any]], float],
                 failed: Callable[[dict[str, Any], str, str, float], list],
                 keep: Callable[[list], None]) -> None:
    """Run ``run(task)`` for every task in a child process, ``jobs`` at a time, and pass each task's
    records to ``keep`` (in the parent) as they come. A child past ``limit_of(task)`` seconds is killed
    and ``failed(task, "timeout", why, seconds)`` is kept instead; a child that dies,
    ``failed(task, "error", why, seconds)``.
    Any exception in the parent (Ctrl-C, SIGTERM) stops every child before it propagates.
    """
    ctx = _context()
    queue = list(tasks)
    running: list[Worker] = []
    errs = Path(tempfile.mkdtemp(prefix="olctc-bench-stderr-"))
    count = 0
    try:
        while queue or running:
            while queue and len(running) < jobs:
                task = queue.pop(0)
                count += 1
                err_path = errs / f"run{count}.txt"
                parent_end, child_end = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(task, child_end, run, err_path), daemon=True)
                limit, now = float(limit_of(task)), time.monotonic()
                # Listed before it starts, so that an interrupt arriving during start() still stops it.
                running.append(Worker(task, proc, parent_end, now + limit, limit, now, err_path))
                _start(proc)
                child_end.close()  # the parent's copy: without closing it, a dead child never reads as EOF
            # Capped: a hard limit of years (a huge --time-limit times many CV fits) overflows select().
            timeout = min(MAX_WAIT, max(0.0, min(w.deadline for w in running) - time.monotonic()))
            wait([w.conn for w in running] + [w.proc.sentinel for w in running], timeout)
            for w in list(running):
                recs = _outcome(w, failed)
                if recs is not None:
                    running.remove(w)
                    w.conn.close()
                    keep(recs)
    except BaseException:
        for w in running:
            stop(w.proc, grace=0.5)
        raise
    finally:
        shutil.rmtree(errs, ignore_errors=True)
