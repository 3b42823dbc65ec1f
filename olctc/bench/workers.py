"""Each bench run in its own process, under a hard wall-clock limit.

A solver's time limit is a request the solver checks between steps; native code can ignore it for good
(SCIP 10 looped for over 10 minutes on a 60 s MIQP after corrupting its heap) or abort the process
(glibc's "double free"). One run per child process, killed at its hard limit, turns both into a record
("timeout" or "error") and the bench goes on. Children start from a fork server: no solver threads of
the parent are copied, and the imports are paid once (under a temporary folder whose path is too long
for the server's socket, they are spawned). A child's standard error (file descriptor 2, so native
code's too) goes to a file that the parent passes on to its own when the run ends; a failed run's
record quotes its last line, which names a crash that a bare signal or timeout would not.

No run outlives the bench: an interrupt stops every child however often it is repeated, and on Linux a
child is killed by the kernel when the bench itself is killed (SIGKILL, the OOM killer), which no
handler sees. The standard-error files have no name, so a killed bench leaves none behind.
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import IO, Any, Callable

from olctc.process_state import check_interrupt

#: Seconds a stopped child gets between SIGTERM and SIGKILL.
GRACE = 2.0
#: Characters of a failed run's last standard-error line quoted in its record.
QUOTE = 200
#: Longest single wait (seconds) for a child's result before the deadlines and a dropped interrupt
#: (``check_interrupt``) are looked at again.
MAX_WAIT = 1.0
#: Seconds an interrupted bench gives its children between SIGTERM and SIGKILL.
STOP_GRACE = 0.5
#: Linux's prctl option: the signal a process gets when its parent exits.
PR_SET_PDEATHSIG = 1
#: Longest path of a Unix socket on Linux (sun_path: 108 bytes with the final NUL).
SOCKET_PATH_MAX = 107
#: What the fork server's socket adds to the temporary folder's path: /pymp-XXXXXXXX/listener-XXXXXXXX.
_LISTENER_SUFFIX = len("/pymp-12345678/listener-12345678")


@dataclass
class Worker:
    """A running child: its task, its end of the pipe, and when it must be stopped."""

    task: dict[str, Any]
    proc: Any  # multiprocessing's process object (its class depends on the start method)
    conn: Connection
    deadline: float
    limit: float
    started: float
    err: IO[bytes]


class _Fd:
    """An open file descriptor sent to a child as such (multiprocessing duplicates it into the child, as
    it does a pipe's end): the file it stands for needs no name, so nothing is left on disk to clean up
    after a bench killed by SIGKILL."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple:
        from multiprocessing.reduction import DupFd

        return _received_fd, (DupFd(self.fd),)


def _received_fd(dup: Any) -> _Fd:
    return _Fd(dup.detach())


def _capture_stderr(fd: int) -> None:
    """Point file descriptor 2 at ``fd``: Python's, the solvers' and glibc's messages all land there."""
    if sys.stderr is not None:
        sys.stderr.flush()
    os.dup2(fd, 2)
    os.close(fd)
    if sys.stderr is None:  # a bench started with its stderr closed (2>&-): the child died on the flush above
        sys.stderr = open(2, "w", closefd=False)
    # glibc writes "double free or corruption" to the terminal, not to fd 2, unless this is set.
    os.environ["LIBC_FATAL_STDERR_"] = "1"


def _die_with_the_bench() -> None:
    """Have the kernel SIGKILL this child when its parent, the fork server, ends, and let the fork
    server end with the bench: a bench killed by SIGKILL left its runs solving until their fit ended.

    The fork server ends once every copy of its "alive" pipe's write end is closed, and multiprocessing
    gives each child a copy, so the server stayed for as long as its children did; closed here, the
    bench holds the last one. It is closed only after the request: the fork server cannot have ended
    before the kernel was asked, so the request is never too late. (The kernel watches the parent
    *thread*: the fork server's only thread, which forks the children, lives as long as it does.)
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # a libc without prctl: the interrupt handling still stops the children
    try:
        from multiprocessing import forkserver
    except ImportError:
        return
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if server is not None and fd is not None:
        os.close(fd)
        # The child's own processes, if any, then start from a fork server of their own.
        server._forkserver_alive_fd = None


def _child(task: dict[str, Any], conn: Connection, run: Callable[[dict[str, Any]], list], err: _Fd) -> None:
    # Ctrl-C and a hang-up reach the whole process group; the parent owns them and stops its children, by
    # SIGTERM (``stop``): its default action here, where the fork server's ignored one would be inherited.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_the_bench()
    _capture_stderr(err.fd)
    conn.send(run(task))
    conn.close()


def _pass_on_stderr(w: Worker) -> str:
    """Copy a finished child's standard error to ours, close its file, and return its last line."""
    try:
        w.err.seek(0)
        data = w.err.read()
    except (OSError, ValueError):  # ValueError: closed already
        return ""
    finally:
        w.err.close()
    # As a text-mode read would: a solver's progress lines may end in "\r".
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if text and sys.stderr is not None:
        # best effort: a caller started with its standard error closed (an API user's `2>&-`) raised OSError here,
        # and the whole call failed on the first run that wrote anything; the last line is still quoted
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(text if text.endswith("\n") else text + "\n")
            sys.stderr.flush()
    last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
    return last if len(last) <= QUOTE else last[:QUOTE - 3] + "..."


#: What the fork server imports once for all its children, bench's runs and fit --cv's fold fits alike: olctc's
#: fit, its solvers and the scikit-learn modules they use. A child that imported them itself took about 2 s
#: (a bench CART run 1.7 to 2.5 s on a loaded 2-core machine; 0.1 s preloaded). One list for both callers: the
#: first ``run_isolated`` of a process starts the server, whose preloads then stay for the process's life.
#: multiprocessing skips a module that is not installed (pystreed).
PRELOAD = ("olctc.bench.runner", "olctc.bench.tasks", "olctc.cv", "olctc.datasets", "olctc.fit", "olctc.compile",
           "olctc.emit.mps", "olctc.solve.available", "olctc.solve.inprocess", "olctc.warmstart", "olctc.decode",
           "olctc.refine", "highspy", "pyscipopt", "sklearn.tree", "sklearn.linear_model", "sklearn.model_selection",
           "sklearn.svm", "sklearn.metrics", "sklearn.pipeline", "sklearn.preprocessing", "pystreed")


def _context() -> Any:
    """The fork server's context (PRELOAD imported once, in the server), else spawn's."""
    methods = mp.get_all_start_methods()
    if "forkserver" not in methods or not socket_fits(tempfile.gettempdir()):
        # The fork server listens on a socket in the temporary folder; under a long TMPDIR it dies with
        # "AF_UNIX path too long". Spawned children work anywhere and pay their imports (about a second).
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def check_working_folder() -> None:
    """OlctcError unless the current folder still exists: multiprocessing starts every child (fork server or
    spawn) with os.getcwd(), which raised FileNotFoundError, a traceback, once a bench or fit --cv --jobs
    had been started from a folder deleted since. Not worked around by a chdir: relative paths given on the
    command line would then name other files."""
    try:
        os.getcwd()
    except FileNotFoundError:
        from olctc.errors import OlctcError

        raise OlctcError("the current folder no longer exists (deleted since the shell entered it), and the "
                         "worker processes cannot start there: cd to a folder that exists and run the command "
                         "again") from None


def socket_fits(tmpdir: str) -> bool:
    """Whether multiprocessing's fork server can make its socket under the temporary folder ``tmpdir``."""
    return len(os.fsencode(os.path.abspath(tmpdir))) + _LISTENER_SUFFIX <= SOCKET_PATH_MAX


#: The signals that reach the whole process group (Ctrl-C, a hang-up, a scheduler's SIGTERM), which the parent
#: owns: the fork server and multiprocessing's resource tracker ignore them from their birth (``_start_server``),
#: and the parent holds them while a child starts (``_start``).
GROUP_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _start_server(ctx: Any) -> None:
    """Start the fork server, if ``ctx`` uses one, with SIGINT, SIGTERM and SIGHUP ignored from its birth.

    These reach the whole process group (Ctrl-C, a dropped ssh session, Slurm's scancel), and the parent owns
    them: it stops its children, and the server and the resource tracker end with it. The server ignores SIGINT
    itself only once its preloads are imported (about 2 s: scikit-learn, pandas): a Ctrl-C in those seconds
    printed a 30-line KeyboardInterrupt traceback from the server under the parent's "interrupted". A hang-up
    killed the server and the tracker outright: the runs in progress died with their parent, the server
    (PR_SET_PDEATHSIG), a run being started failed, and the parent said "resource_tracker: process died
    unexpectedly, relaunching". An ignored signal stays ignored through exec (a handler does not, hence
    ``_start``'s is no help here); the parent ignores them only while the server is forked and exec'd, and a
    signal in those milliseconds is lost. The children set their own (``_child``). Spawned children (a TMPDIR
    too long for the server's socket) are not helped."""
    from multiprocessing import forkserver

    if ctx.get_start_method() != "forkserver" or threading.current_thread() is not threading.main_thread():
        return
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in GROUP_STOPS}
    try:
        forkserver.ensure_running()
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def _start(proc: Any) -> None:
    """Start a child with SIGINT, SIGTERM and SIGHUP held until it runs. An interrupt landing mid-handshake with
    the fork server kills the server with a traceback (EOFError in recvfds); held, it is raised again
    once the child is listed, and the child is stopped like the others. (A signal mask would not do:
    the signal may go to any of the process's threads, OpenBLAS's for one.) Raised again when the start fails
    too: a hang-up reaches the fork server as well, whose death mid-handshake is then the interrupt's doing."""
    if threading.current_thread() is not threading.main_thread():
        proc.start()  # only the main thread may set handlers, and only it runs them
        return
    caught: list[int] = []
    saved = {s: signal.signal(s, lambda signum, _frame: caught.append(signum)) for s in GROUP_STOPS}
    try:
        proc.start()
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
        if caught:
            signal.raise_signal(caught[0])


def stop(proc: Any, grace: float = GRACE) -> None:
    """SIGTERM, then SIGKILL if the child is inside a C call that never returns. A child so stopped leaves its
    scratch folders, which go then (``_sweep``); one that ended on its own removed them."""
    if not proc.is_alive():
        return
    proc.terminate()
    proc.join(grace)
    if proc.is_alive():
        proc.kill()
        proc.join(grace)
    _sweep()


def _sweep() -> None:
    """Remove the scratch folders of stopped children: SIGTERM ends a child at once, its cleanup unrun, and each
    running child's model file (2.6 MB on haberman, 157 MB on phishing) stayed until another olctc solve."""
    from olctc.scratch import sweep

    with contextlib.suppress(OSError):
        sweep()


def _stop_all(workers: list[Worker], grace: float = STOP_GRACE) -> None:
    """Stop every child and close its pipe and file, whatever interrupts arrive meanwhile: a second one
    (Ctrl-C pressed twice, or `timeout -s INT`, which signals both the command and its process group)
    used to cut the cleanup of the first short and leave runs solving after the bench had gone. Every
    child is signalled before any is waited for: one grace period in all, not one per child."""
    for _ in range(100):
        try:
            live = [w.proc for w in workers if w.proc.is_alive()]
            for proc in live:
                proc.terminate()
            end = time.monotonic() + grace
            for proc in live:
                proc.join(max(0.0, end - time.monotonic()))
            stubborn = [proc for proc in live if proc.is_alive()]
            for proc in stubborn:
                proc.kill()
            for proc in stubborn:
                proc.join(grace)
            for w in workers:
                w.conn.close()
                w.err.close()
            if live:
                _sweep()
            return
        except KeyboardInterrupt:
            continue


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
    Any exception in the parent (Ctrl-C, SIGTERM) stops every child before it propagates. The children fork
    from a server holding PRELOAD (the first call in a process starts it).
    """
    check_working_folder()  # before any child: callers that write first check it themselves (run_bench)
    ctx = _context()
    _start_server(ctx)
    queue = list(tasks)
    running: list[Worker] = []
    try:
        while queue or running:
            while queue and len(running) < jobs:
                task = queue.pop(0)
                err = tempfile.TemporaryFile(prefix="olctc-bench-stderr-", buffering=0)
                parent_end, child_end = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(task, child_end, run, _Fd(err.fileno())), daemon=True)
                limit, now = float(limit_of(task)), time.monotonic()
                # Listed before it starts, so that an interrupt arriving during start() still stops it.
                running.append(Worker(task, proc, parent_end, now + limit, limit, now, err))
                _start(proc)
                child_end.close()  # the parent's copy: without closing it, a dead child never reads as EOF
            # Capped: a hard limit of years (a huge --time-limit times many CV fits) overflows select().
            timeout = min(MAX_WAIT, max(0.0, min(w.deadline for w in running) - time.monotonic()))
            wait([w.conn for w in running] + [w.proc.sentinel for w in running], timeout)
            # A signal handler's KeyboardInterrupt raised while the garbage collector ran a finaliser is
            # dropped by Python: the bench then waited for its runs (a minute) and exited 0 after a SIGTERM.
            check_interrupt()
            for w in list(running):
                recs = _outcome(w, failed)
                if recs is not None:
                    running.remove(w)
                    w.conn.close()
                    keep(recs)
    except BaseException:
        _stop_all(running)
        raise
