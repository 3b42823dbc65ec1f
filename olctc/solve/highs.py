"""HiGHS in process through highspy: a model file or a MILP's arrays, solved in a solver thread that Ctrl-C
cancels and an overrun leaves, with the incumbent kept."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from olctc.emit.params import PARAM_NAMES, solver_settings
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.process_state import interrupt_handled, is_console
from olctc.solve.calls import INTERRUPT_WAIT, SolverLeft, _fd_redirected, _map, _native
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions, overrun_grace, start_from_file, start_vector
from olctc.solve.result import SolveResult, finite_or_none, highs_gap_left, relative_gap

if TYPE_CHECKING:
    from olctc.milp import MILP


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
    # After an interrupt the console program waits for HiGHS, which hands back its incumbent, but not for ever:
    # past INTERRUPT_WAIT it leaves with the best solution the callback below saw
    leave_after_stop = INTERRUPT_WAIT if stop is not None and is_console() else None
    if stop is not None or leave_at is not None:
        h.HandleUserInterrupt = True  # cancelSolve only sets a flag, which highspy's interrupt callbacks read
    best: dict[str, tuple[float, float | None, np.ndarray]] = {}
    if (leave_at is not None or leave_after_stop is not None) and is_mip:
        h.cbMipImprovingSolution.subscribe(lambda e: _keep_incumbent(e, best))
    x: np.ndarray | None  # the answer's values and objective; None without a solution
    objective: float | None
    # olctc's own stop at leave_at: a HiGHS that then stops within LEAVE_WAIT says "Interrupted by user", which
    # is the time limit's stop, not the user's (a fit exited 130 with no tree, nobody having interrupted it)
    cancelled_at_limit: list[bool] = []

    def cancel_at_limit() -> None:
        cancelled_at_limit.append(True)
        h.cancelSolve()

    t0 = time.perf_counter()
    try:
        _native(lambda: _highs_thread_run(h), stop=stop, leave_at=leave_at, cancel=cancel_at_limit,
                leave_after_stop=leave_after_stop)
    except SolverLeft as left:
        runtime = time.perf_counter() - t0
        raw = "Time limit reached"
        if left.args == ("interrupt",):
            # HiGHS's words for a stop it made itself; the interrupt is this result's now, as there
            raw = "Interrupted by user"
            interrupt_handled()
        if "x" not in best:
            return SolveResult(status="no_solution", objective=None, bound=None, gap=None, x=None,
                               col_names=names, solver="highs", solver_version=f"HiGHS {version}",
                               runtime=runtime, raw_status=raw, left_running=True)
        objective, bound, x = best["x"]
        return SolveResult(status="feasible", objective=objective, bound=bound, gap=relative_gap(objective, bound),
                           x=x, col_names=names, solver="highs", solver_version=f"HiGHS {version}",
                           runtime=runtime, raw_status=raw, left_running=True)
    runtime = time.perf_counter() - t0
    model_status = h.getModelStatus()
    raw_status = h.modelStatusToString(model_status)
    if model_status == highspy.HighsModelStatus.kInterrupt:
        if cancelled_at_limit:
            raw_status = "Time limit reached"  # HiGHS's words for a stop at its time limit
        else:
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
        if status == "optimal" and highs_gap_left(gap, objective, bound, opts.mip_gap):
            status = "feasible"  # raw_status keeps HiGHS's "Optimal"
    else:
        bound, gap = (objective, 0.0) if status == "optimal" else (None, None)
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap, x=x, col_names=names,
                       solver="highs", solver_version=f"HiGHS {version}", runtime=runtime,
                       raw_status=raw_status)


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


def read_model(h: Any, path: str | os.PathLike[str]) -> tuple[Any, list[str]]:
    """Read a model file into the Highs object ``h``: its LP and column names (C0, C1, ... when the file
    names none); OlctcError when HiGHS cannot read it or finds no column."""
    import highspy

    with readable_path(path) as readable:  # the suffix tells HiGHS the format: m.LP, m.lp.GZ
        status = h.readModel(str(readable))
    if status == highspy.HighsStatus.kError:
        raise OlctcError(f"HiGHS cannot read model file {path}")
    lp = h.getLp()
    if lp.num_col_ == 0:
        raise no_columns(path, "HiGHS")
    names = list(lp.col_names_) if len(lp.col_names_) == lp.num_col_ else [f"C{j}" for j in range(lp.num_col_)]
    return lp, names


def highs_file(path: Path, opts: SolveOptions) -> SolveResult:
    """Solve a model file with highspy."""
    h = highs_model(opts)
    try:
        lp, names = read_model(h, path)
    except OlctcError:
        # HiGHS's reader stops at the time limit ("Parser reached timeout") and reports an error like any other
        if opts.deadline is not None and opts.deadline - time.monotonic() < 1.0:
            raise TimeLimitTooShort(f"no time is left to solve: HiGHS stopped reading model file {path} when the "
                                    "time limit ran out; give it more time") from None
        raise
    start = opts.start
    if opts.start_path is not None:
        start = start_from_file(opts.start_path, names)
    x0 = start_vector(start, names, np.asarray(lp.col_lower_), np.asarray(lp.col_upper_))
    is_mip = bool(np.any(np.asarray(lp.integrality_, dtype=int) > 0)) if len(lp.integrality_) else False
    return _highs_run(h, names, x0, is_mip, opts)


def highs_milp(milp: "MILP", opts: SolveOptions) -> SolveResult:
    """Solve a MILP from its arrays with highspy (``passModel`` on CSC arrays: no file, no per-row Python)."""
    import highspy

    from olctc.emit.mps import check_milp

    # The checks the writers make, which the other solvers' path passes through: HiGHS takes a NaN cost without
    # a word and calls the model infeasible (QA 2026-12-07)
    c, A, sense, rhs, lb, ub, integer = check_milp(milp)
    h = highs_model(opts)
    A = A.tocsc()
    A.sort_indices()
    inf = highspy.kHighsInf
    row_lower = np.where(sense == "L", -inf, rhs)
    row_upper = np.where(sense == "G", inf, rhs)
    status = h.passModel(
        milp.n_cols, milp.n_rows, int(A.nnz), int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize), float(milp.obj_constant),
        np.ascontiguousarray(c), np.ascontiguousarray(lb), np.ascontiguousarray(ub),
        np.ascontiguousarray(row_lower, dtype=np.float64), np.ascontiguousarray(row_upper, dtype=np.float64),
        A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data.astype(np.float64),
        integer.astype(np.int32))
    if status == highspy.HighsStatus.kError:
        raise OlctcError(f"HiGHS rejected model {milp.name} (passModel failed)")
    names = [str(n) for n in milp.col_names()]
    start = opts.start
    if opts.start_path is not None:
        start = start_from_file(opts.start_path, names)
    return _highs_run(h, names, start_vector(start, names, lb, ub), bool(integer.any()), opts)
