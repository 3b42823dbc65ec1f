"""CBC in process through python-mip: a model file read with olctc's parameters, solved, and the limit that
stopped it told."""
from __future__ import annotations

import contextlib
import importlib.metadata
import os
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from olctc import sigactions
from olctc.emit.params import CBC_PARAMETERS, cbc_cutoff, solver_settings
from olctc.errors import OlctcError
from olctc.process_state import interrupt_handled
from olctc.solve.calls import _map, _native, _start_values, _timed, repeats_folded
from olctc.solve.modelfile import names_lost, no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult, finite_or_none

#: Clp's debugging lines (printf, whatever the log level), hidden from a quiet solve.
CLP_DEBUG = (b"Free in ",)


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


def cbc_file(path: Path, opts: SolveOptions) -> SolveResult:
    """Solve a model file with CBC through python-mip (the objective constant must be an OBJCONST
    column: python-mip's reader drops an RHS on the objective row)."""
    m, max_seconds = cbc_model(path, opts)
    col_names = [v.name for v in m.vars]
    if names_lost(path, col_names):
        from olctc.read.solution import CBC_LOST_NAMES_FIX, CBC_LOST_NAMES_WHEN

        raise OlctcError(f"CBC lost the column names of {path} reading it (it named them x0, x1, ...: "
                         f"{CBC_LOST_NAMES_WHEN}): {CBC_LOST_NAMES_FIX}")
    x0 = _start_values(opts, col_names, lambda: (np.array([v.lb for v in m.vars]),
                                                 np.array([v.ub for v in m.vars])))
    if x0 is not None:
        # CBC fixes integer columns missing from a start to 0, so the start is always complete.
        m.start = list(zip(m.vars, x0.tolist()))
        if opts.start_objective is not None:  # else CBC may return a tree worse than its start (cbc_cutoff)
            m.cutoff = cbc_cutoff(opts.start_objective)
    result: dict[str, Any] = {}
    left = opts.remaining()
    if left is not None:
        max_seconds = left
    # Clp prints "Free in 22 compat n dj 1.8e+30" to stdout at any log level (printf): hidden when quiet
    quiet = repeats_folded(1, hide=CLP_DEBUG, once=False) if not opts.verbose else contextlib.nullcontext()
    with _cbc_dumps_removed(), quiet, sigactions.kept():  # the caller's crash handlers, not CBC's, after it
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
