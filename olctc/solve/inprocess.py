"""In-process solves: HiGHS through highspy, CBC through python-mip, SCIP through PySCIPOpt.

Every backend sets the tight tolerances of ``olctc.emit.params`` (the big-M rows need them) and maps
the solver's status with one table (``HIGHS_STATUS``, ``CBC_STATUS``, ``SCIP_STATUS``; anything not
listed counts as a limit: "feasible" with an incumbent, else "no_solution").
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import os
import queue
import signal
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from olctc.emit.params import CBC_PARAMETERS, PARAM_NAMES, solver_settings
from olctc.errors import OlctcError
from olctc.io import interrupt_handled, is_console, note_solver_left
from olctc.read.solution import is_helper_column
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions, overrun_grace, start_from_file, start_vector
from olctc.solve.result import LIMIT, SolveResult, finite_or_none, relative_gap, resolve_status

if TYPE_CHECKING:
    from olctc.milp import MILP

# ---------------------------------------------------------------- status tables
#: HiGHS model status (``HighsModelStatus`` member name) -> olctc status.
HIGHS_STATUS: dict[str, str] = {
    "kOptimal": "optimal",
    "kInfeasible": "infeasible",
    "kUnbounded": "unbounded",
    # Presolve proves "infeasible or unbounded" without telling which; olctc models have bounded
    # variables, so it can only be infeasibility. raw_status keeps HiGHS's words.
    "kUnboundedOrInfeasible": "infeasible",
    "kModelEmpty": "optimal",
}
#: python-mip ``OptimizationStatus`` name -> olctc status.
CBC_STATUS: dict[str, str] = {
    "OPTIMAL": "optimal",
    "FEASIBLE": "feasible",
    "INFEASIBLE": "infeasible",
    "INT_INFEASIBLE": "infeasible",
    "UNBOUNDED": "unbounded",
    "NO_SOLUTION_FOUND": "no_solution",
    "CUTOFF": "no_solution",
    "ERROR": "no_solution",
    "LOADED": "no_solution",
}
#: SCIP ``getStatus()`` -> olctc status.
SCIP_STATUS: dict[str, str] = {
    "optimal": "optimal",
    # Stopping at a user gap (limits/gap) is what HiGHS and CBC report as optimal too.
    "gaplimit": "optimal",
    "infeasible": "infeasible",
    "inforunbd": "infeasible",
    "unbounded": "unbounded",
}


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
        while not done.wait(0.1):
            if handler is not None:
                # Take Ctrl-C back: Clp installs its own handler while it solves an LP, and when that LP
                # is not CBC's root (a heuristic's, preprocessing's), CBC goes on as if nothing happened.
                signal.signal(signal.SIGINT, handler)
            if leave_at is not None and time.monotonic() >= leave_at:
                ask = cancel or stop
                if ask is not None:
                    with contextlib.suppress(Exception):
                        ask()
                if done.wait(LEAVE_WAIT):
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
            if done.wait(0.1):
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


#: SoPlex (without GMP) on SCIP tightening its LP tolerance below 1e-10: harmless, hidden by --quiet.
SOPLEX_TOLERANCE_NOTICE = b"Cannot set feasibility tolerance to small value"


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


# ---------------------------------------------------------------- HiGHS
_highs_banner_shown = False


def new_highs(verbose: bool) -> Any:
    """An empty ``highspy.Highs``, its log on or off; quiet means quiet from the start.

    HiGHS prints its banner from the constructor of the process's first instance, before
    ``output_flag`` can be set: a quiet first construction runs with file descriptor 1 on /dev/null.
    """
    global _highs_banner_shown
    import highspy

    if verbose or _highs_banner_shown:
        h = highspy.Highs()
    else:
        with open(os.devnull, "w") as null, _fd_redirected(1, null):
            h = highspy.Highs()
    _highs_banner_shown = True
    h.setOptionValue("output_flag", bool(verbose))
    return h


#: HiGHS options of integer type among olctc's settings (setOptionValue refuses a float for them).
_HIGHS_INT_OPTIONS = frozenset({PARAM_NAMES["highs"].threads, "presolve_rule_off"})


def highs_model(opts: SolveOptions) -> Any:
    """An empty ``highspy.Highs`` with olctc's settings."""
    import highspy

    h = new_highs(bool(opts.verbose))
    for name, value in solver_settings("highs", time_limit=opts.time_limit, threads=opts.threads,
                                       mip_gap=opts.mip_gap).items():
        value = int(value) if name in _HIGHS_INT_OPTIONS else float(value)
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise OlctcError(f"HiGHS rejected option {name} = {value}")
    # No scheduler reset for ``threads``: HiGHS keeps one task scheduler per calling thread, and
    # _highs_run solves in a new thread of highspy's, whose scheduler is new (highspy resets it after the
    # run). Resetting here would only reset the caller's thread, under the caller's own HiGHS runs.
    return h


def _lowest_priority_but_mine() -> None:
    """Give every other thread of this process (a solver left running, and the threads it started) the
    lowest CPU priority, where the OS allows it (Linux: a nice value per thread)."""
    mine = threading.get_native_id()
    with contextlib.suppress(OSError, AttributeError):
        for tid in os.listdir("/proc/self/task"):
            if int(tid) != mine:
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, int(tid), 19)


def _highs_run(h: Any, names: list[str], start: np.ndarray | None, is_mip: bool,
               opts: SolveOptions) -> SolveResult:
    import highspy

    left = opts.remaining()
    if left is not None:
        h.setOptionValue(PARAM_NAMES["highs"].time_limit, float(left))

    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = start.tolist()
        sol.value_valid = True
        if h.setSolution(sol) == highspy.HighsStatus.kError:
            raise OlctcError("HiGHS rejected the MIP start")
    # Solve in a solver thread (_native) so that Ctrl-C cancels the solve (status kInterrupt, incumbent
    # kept) or, when nobody wants the incumbent, leaves it, instead of being ignored until HiGHS returns.
    # A new thread also has a new task scheduler, sized by opts.threads whatever the calling thread ran
    # before. Not highspy's own threaded solve (Highs.solve): highspy 1.16 keeps its locks on the class, so
    # two solves at once in two threads failed with "Solver is already running" (GridSearchCV under a
    # threading backend scored a C as NaN).
    version = h.version()
    stop = h.cancelSolve if opts.keep_incumbent or not is_console() else None
    leave_at = None
    if opts.leave_overrun and left is not None and is_console():
        # HiGHS's presolve, and the root LP's second presolve after a first run stopped on time, check no
        # clock: w5a's fit ran 111 s at --time-limit 60. Past the grace the console program leaves it.
        leave_at = time.monotonic() + left + overrun_grace(left)
    if stop is not None or leave_at is not None:
        h.HandleUserInterrupt = True  # cancelSolve only sets a flag, which highspy's interrupt callbacks read
    best: dict[str, tuple[float, float | None, np.ndarray]] = {}
    if leave_at is not None and is_mip:
        h.cbMipImprovingSolution.subscribe(lambda e: _keep_incumbent(e, best))
    x: np.ndarray | None  # the answer's values and objective; None without a solution
    objective: float | None
    t0 = time.perf_counter()
    try:
        _native(lambda: _highs_thread_run(h), stop=stop, leave_at=leave_at, cancel=h.cancelSolve)
    except SolverLeft:
        runtime = time.perf_counter() - t0
        if "x" not in best:
            return SolveResult(status="no_solution", objective=None, bound=None, gap=None, x=None,
                               col_names=names, solver="highs", solver_version=f"HiGHS {version}",
                               runtime=runtime, raw_status="Time limit reached", left_running=True)
        objective, bound, x = best["x"]
        return SolveResult(status="feasible", objective=objective, bound=bound, gap=relative_gap(objective, bound),
                           x=x, col_names=names, solver="highs", solver_version=f"HiGHS {version}",
                           runtime=runtime, raw_status="Time limit reached", left_running=True)
    runtime = time.perf_counter() - t0
    model_status = h.getModelStatus()
    if model_status == highspy.HighsModelStatus.kInterrupt:
        interrupt_handled()  # it is this result's status now: the caller stops, or keeps the incumbent
    info = h.getInfo()
    has_solution = int(info.primal_solution_status) == int(highspy.SolutionStatus.kSolutionStatusFeasible)
    status = _map(HIGHS_STATUS, model_status.name, has_solution)
    x, objective = None, None
    if status in ("optimal", "feasible"):
        x = np.asarray(h.getSolution().col_value, dtype=float)
        objective = float(info.objective_function_value)
    if is_mip:
        bound, gap = finite_or_none(info.mip_dual_bound), finite_or_none(info.mip_gap)
    else:
        bound, gap = (objective, 0.0) if status == "optimal" else (None, None)
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap, x=x, col_names=names,
                       solver="highs", solver_version=f"HiGHS {version}", runtime=runtime,
                       raw_status=h.modelStatusToString(model_status))


def _keep_incumbent(event: Any, best: dict[str, tuple[float, float | None, np.ndarray]]) -> None:
    """HiGHS's improving-solution callback: keep the new incumbent, for a solve that may be left running.

    The values are the original model's, every column (checked on real runs: objective and rows
    recomputed from them). One assignment, so that a reader in another thread sees a whole entry."""
    out = event.data_out
    best["x"] = (float(out.objective_function_value), finite_or_none(out.mip_dual_bound),
                 np.array(out.mip_solution, dtype=float))


def _highs_thread_run(h: Any) -> Any:
    """``h.run()`` in a thread of ours, which resets the thread's task scheduler after, as highspy's own
    solve thread does."""
    try:
        return h.run()
    finally:
        # highspy 1.16 renamed resetGlobalScheduler to resetThreadScheduler (the reset was always the calling
        # thread's; 1.16 keeps the old name too), and 1.15 has only the old one
        reset = getattr(type(h), "resetThreadScheduler", None) or type(h).resetGlobalScheduler
        reset(False)


def highs_file(path: Path, opts: SolveOptions) -> SolveResult:
    """Solve a model file with highspy."""
    import highspy

    h = highs_model(opts)
    with readable_path(path) as readable:  # the suffix tells HiGHS the format: m.LP, m.lp.GZ
        status = h.readModel(str(readable))
    if status == highspy.HighsStatus.kError:
        raise OlctcError(f"HiGHS cannot read model file {path}")
    lp = h.getLp()
    if lp.num_col_ == 0:
        raise no_columns(path, "HiGHS")
    names = list(lp.col_names_) if len(lp.col_names_) == lp.num_col_ else [f"C{j}" for j in range(lp.num_col_)]
    start = opts.start
    if opts.start_path is not None:
        start = start_from_file(opts.start_path, names)
    x0 = start_vector(start, names, np.asarray(lp.col_lower_), np.asarray(lp.col_upper_))
    is_mip = bool(np.any(np.asarray(lp.integrality_, dtype=int) > 0)) if len(lp.integrality_) else False
    return _highs_run(h, names, x0, is_mip, opts)


def highs_milp(milp: "MILP", opts: SolveOptions) -> SolveResult:
    """Solve a MILP from its arrays with highspy (``passModel`` on CSC arrays: no file, no per-row Python)."""
    import highspy

    h = highs_model(opts)
    A = milp.A.tocsc()
    A.sort_indices()
    inf = highspy.kHighsInf
    rhs = np.asarray(milp.rhs, dtype=float)
    sense = np.asarray(milp.sense)
    row_lower = np.where(sense == "L", -inf, rhs)
    row_upper = np.where(sense == "G", inf, rhs)
    status = h.passModel(
        milp.n_cols, milp.n_rows, int(A.nnz), int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize), float(milp.obj_constant),
        np.ascontiguousarray(milp.c, dtype=np.float64), np.ascontiguousarray(milp.lb, dtype=np.float64),
        np.ascontiguousarray(milp.ub, dtype=np.float64), np.ascontiguousarray(row_lower, dtype=np.float64),
        np.ascontiguousarray(row_upper, dtype=np.float64), A.indptr.astype(np.int32), A.indices.astype(np.int32),
        A.data.astype(np.float64), np.asarray(milp.integer, dtype=np.int32))
    if status == highspy.HighsStatus.kError:
        raise OlctcError(f"HiGHS rejected model {milp.name} (passModel failed)")
    names = [str(n) for n in milp.col_names()]
    start = opts.start
    if opts.start_path is not None:
        start = start_from_file(opts.start_path, names)
    return _highs_run(h, names, start_vector(start, names, milp.lb, milp.ub), bool(milp.integer.any()), opts)


# ---------------------------------------------------------------- CBC (python-mip)
def _cbc_x(m: Any) -> np.ndarray:
    """The incumbent as an array: one C buffer copy instead of a cffi call per variable."""
    try:
        from mip.cbc import cbclib, ffi

        ptr = cbclib.Cbc_getColSolution(m.solver._model)
        return np.frombuffer(ffi.buffer(ptr, m.num_cols * 8), dtype=np.float64).copy()
    except (ImportError, AttributeError):
        return np.array([v.x for v in m.vars], dtype=float)


def cbc_model(path: Path, opts: SolveOptions) -> tuple[Any, float]:
    """A python-mip CBC model read from ``path`` with olctc's settings, and the time limit to pass to
    ``optimize(max_seconds=...)`` (python-mip takes it there, not as an attribute)."""
    import mip

    m = mip.Model(solver_name=mip.CBC)
    m.verbose = 1 if opts.verbose else 0
    with readable_path(path) as readable:
        m.read(str(readable))
    if m.num_cols == 0:
        raise no_columns(path, "CBC")
    settings = solver_settings("python-mip", time_limit=opts.time_limit, threads=opts.threads,
                               mip_gap=opts.mip_gap)
    # the time limit (PARAM_NAMES' "max_seconds") is optimize's argument: the value given, or no limit
    settings.pop("max_seconds", None)
    max_seconds = mip.INF if opts.time_limit is None else opts.time_limit
    # python-mip keeps these on the Model and hands them to CBC at optimize().
    for attr, value in settings.items():
        setattr(m, attr, value)
    # CBC counts CPU seconds by default: on a busy machine it overran a 51 s limit by 6 s of wall time.
    from mip import cbc as mip_cbc

    for name, value in {**CBC_PARAMETERS, "timeMode": "elapsed"}.items():
        mip_cbc.cbc_set_parameter(m.solver, name, value)
    return m, max_seconds


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


def cbc_file(path: Path, opts: SolveOptions) -> SolveResult:
    """Solve a model file with CBC through python-mip (the objective constant must be an OBJCONST
    column: python-mip's reader drops an RHS on the objective row)."""
    m, max_seconds = cbc_model(path, opts)
    col_names = [v.name for v in m.vars]
    x0 = _start_values(opts, col_names, lambda: (np.array([v.lb for v in m.vars]),
                                                 np.array([v.ub for v in m.vars])))
    if x0 is not None:
        # CBC fixes integer columns missing from a start to 0, so the start is always complete.
        m.start = list(zip(m.vars, x0.tolist()))
    result: dict[str, Any] = {}
    left = opts.remaining()
    if left is not None:
        max_seconds = left
    with _cbc_dumps_removed():
        runtime = _timed(lambda: result.setdefault("st", _native(lambda: m.optimize(max_seconds=max_seconds))))
    raw = result["st"].name
    has_solution = m.num_solutions > 0 and raw in ("OPTIMAL", "FEASIBLE")
    status = _map(CBC_STATUS, raw, has_solution)
    if raw in ("FEASIBLE", "NO_SOLUTION_FOUND"):
        # python-mip says FEASIBLE for every early stop; which limit stopped CBC decides the words of
        # the solution file ("Stopped on time" reads back as a time-limited solution, "Status unknown"
        # as none at all).
        reason = _cbc_stop_reason(m)
        if reason is not None:
            raw += f", stopped on {reason}"
        if reason == "user interrupt":  # Clp's own Ctrl-C handler stopped the root LP (_cbc_stop_reason)
            interrupt_handled()
    x = objective = bound = gap = None
    if status in ("optimal", "feasible"):
        x = _cbc_x(m)
        objective = float(m.objective_value)
    if status in ("optimal", "feasible", "no_solution"):
        bound = finite_or_none(m.objective_bound)
        gap = finite_or_none(m.gap) if objective is not None else None
    if m.num_int == 0 and status == "optimal":   # an LP: python-mip reports no MIP gap
        bound, gap = objective, 0.0
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap, x=x, col_names=col_names,
                       solver="cbc", solver_version=_cbc_version(), runtime=runtime, raw_status=raw)


#: Files CBC devel (cbcbox, git 146ce89) writes into the working folder by itself: its model, as "bad8.mps",
#: when its analysis finds a model infeasible (a debugging line left in libCbc). Nobody asked for them.
CBC_DUMPS = ("bad8.mps",)


@contextlib.contextmanager
def _cbc_dumps_removed() -> Iterator[None]:
    """Remove the ``CBC_DUMPS`` a solve leaves in the working folder (not a file that was there before)."""
    before = {f for f in CBC_DUMPS if os.path.lexists(f)}
    try:
        yield
    finally:
        for f in CBC_DUMPS:
            if f not in before and os.path.isfile(f):
                with contextlib.suppress(OSError):
                    os.remove(f)


#: CbcModel::secondaryStatus() of an early stop -> what stopped it (the words ``limit_kind`` knows).
CBC_STOP_REASONS = {2: "gap", 3: "nodes", 4: "time", 5: "user interrupt", 6: "solutions", 8: "iterations"}


#: python-mip's ``max_nodes`` when nobody set one.
NO_NODE_LIMIT = 2**31 - 1


def _cbc_stop_reason(m: Any) -> str | None:
    """Why CBC stopped early (``CBC_STOP_REASONS``), None when CBC does not say.

    python-mip declares no binding for ``Cbc_secondaryStatus``; the function is in the same libCbc,
    which ctypes opens again (the loader hands back the library already loaded).
    """
    import ctypes

    try:
        from mip import cbc as mip_cbc

        fn = ctypes.CDLL(mip_cbc.libfile).Cbc_secondaryStatus
        fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_void_p]
        code = fn(ctypes.c_void_p(int(mip_cbc.ffi.cast("uintptr_t", m.solver._model))))
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    reason = CBC_STOP_REASONS.get(code)
    if reason == "nodes" and m.max_nodes >= NO_NODE_LIMIT:
        # Clp takes Ctrl-C itself while it solves the root LP (its handler zeroes the LP's iteration
        # limit: "Problem is stopped"), and CBC then says "stopped on nodes". olctc sets no node limit.
        reason = "user interrupt"
    return reason


def _cbc_version() -> str:
    parts = []
    for dist in ("mip", "cbcbox"):
        try:
            parts.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return "CBC via " + ", ".join(parts)


# ---------------------------------------------------------------- SCIP


@contextlib.contextmanager
def _stderr_captured() -> Any:
    """Send file descriptor 2 to a temporary file for the block; yields a function returning its text.

    SCIP prints reader errors to the C stderr whatever ``hideOutput`` says; captured, they become
    part of one error line.
    """
    with tempfile.TemporaryFile() as tmp, _fd_redirected(2, tmp):
        def read() -> str:
            tmp.seek(0)
            return tmp.read().decode("utf-8", "replace")

        yield read


def scip_model(path: Path, opts: SolveOptions) -> Any:
    """A PySCIPOpt model read from ``path`` with olctc's settings."""
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput(not opts.verbose)
    with _stderr_captured() as captured:
        try:
            with readable_path(path) as readable:
                m.readProblem(str(readable))
        except OSError as exc:  # PySCIPOpt's word for every reader error ("SCIP: read error!")
            # SCIP's own lines say where: "[reader_mps.c:402] ERROR: Syntax error in line 6".
            why = [line.split("ERROR:", 1)[1].strip() for line in captured().splitlines() if "ERROR:" in line]
            raise OlctcError(f"SCIP cannot read model file {path}: {why[0] if why else exc}") from None
        said = captured()
    if said:  # warnings of a file SCIP did read: the user's to see
        sys.stderr.write(said)
    if m.getNVars() == 0:
        raise no_columns(path, "SCIP")
    for name, value in solver_settings("scip", time_limit=opts.time_limit, threads=opts.threads,
                                       mip_gap=opts.mip_gap).items():
        m.setParam(name, float(value))
    if opts.threads is not None and opts.threads > 1:
        warnings.warn("SCIP's branch and bound runs on one thread; threads is ignored", stacklevel=4)
    return m


def scip_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with SCIP through PySCIPOpt (MIQPs included)."""
    m = scip_model(path, opts)
    # getVars() lists binaries, integers, then continuous; the creation index is the file order.
    variables = sorted(m.getVars(), key=lambda v: v.getIndex())
    # The helper column SCIP's readers add for a quadratic objective comes after the file's own.
    if quadratic and variables and is_helper_column("scip", variables[-1].name):
        variables = variables[:-1]
    col_names = [v.name for v in variables]
    x0 = _start_values(opts, col_names, lambda: (np.array([v.getLbOriginal() for v in variables]),
                                                 np.array([v.getUbOriginal() for v in variables])))
    if x0 is not None:
        # With a quadratic objective SCIP's helper column must be computed: a partial solution lets
        # SCIP complete it.
        sol = m.createPartialSol() if quadratic else m.createSol()
        for v, val in zip(variables, x0.tolist()):
            m.setSolVal(sol, v, val)
        m.addSol(sol, free=True)
    left = opts.remaining()
    if left is not None:
        m.setParam(PARAM_NAMES["scip"].time_limit, float(left))
    with repeats_folded(2, hide=() if opts.verbose else (SOPLEX_TOLERANCE_NOTICE,)):
        runtime = _timed(lambda: _native(m.optimizeNogil, stop=m.interruptSolve))
    raw = m.getStatus()
    if raw == "userinterrupt":
        interrupt_handled()  # as for HiGHS: the caller stops, or keeps the incumbent
    has_solution = m.getNSols() > 0
    status = _map(SCIP_STATUS, raw, has_solution)
    x = objective = None
    if status in ("optimal", "feasible"):
        best = m.getBestSol()
        x = np.array([m.getSolVal(best, v) for v in variables], dtype=float)
        objective = float(m.getSolObjVal(best))
    bound = finite_or_none(m.getDualbound()) if status in ("optimal", "feasible", "no_solution") else None
    # SCIP's getGap() divides by min(|primal|, |dual|): 94% where HiGHS would say under 50%; bench compares
    # models solved by both.
    gap = relative_gap(objective, bound)
    version = f"SCIP {m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()}"
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap, x=x, col_names=col_names,
                       solver="scip", solver_version=version, runtime=runtime, raw_status=raw)
