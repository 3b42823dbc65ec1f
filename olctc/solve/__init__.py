"""Solve olctc models: in process (HiGHS, CBC, SCIP; Gurobi, CPLEX, COPT, Xpress through their own Python
packages) or with external solver programs.

``solve_file(path, solver)`` solves an MPS/LP file, ``solve_milp(milp, solver)`` a MILP object (HiGHS
straight from the arrays, the others through a temporary MPS file), ``write_native_solution`` writes a
result in a solver's own solution format. Every solve uses the tight tolerances of
``olctc.emit.params`` (``TIGHT_TOL``): at default tolerances the big-M rows leak and solvers report
false optima.

Status mapping (one table per solver, in ``olctc.solve.highs``, ``.cbc`` and ``.scip``, and in ``.gurobi``,
``.cplex``, ``.copt`` and ``.xpress`` for the commercial solvers; the external programs' files are mapped by
``olctc.read``):

==============  ==================  ======================  ====================
olctc status    HiGHS               python-mip (CBC)        SCIP
==============  ==================  ======================  ====================
optimal         kOptimal            OPTIMAL                 optimal, gaplimit
feasible        any limit + sol.    FEASIBLE                any limit + sol.
infeasible      kInfeasible,        INFEASIBLE,             infeasible,
                kUnboundedOrInf.    INT_INFEASIBLE          inforunbd
unbounded       kUnbounded          UNBOUNDED               unbounded
no_solution     any limit, no sol.  NO_SOLUTION_FOUND,      any limit, no sol.
                                    ERROR, CUTOFF
==============  ==================  ======================  ====================
"""
from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from olctc.emit.params import COMMERCIAL_SOLVERS, validate_limits
from olctc.errors import OlctcError, TimeLimitTooShort, is_real, param_error, shorten, warn
from olctc.io import check_path
from olctc.scratch import scratch_folder, sweep
from olctc.solve import cbc, highs, scip
from olctc.solve.copt import copt_file
from olctc.solve.cplex import cplex_file
from olctc.solve.gurobi import gurobi_file
from olctc.solve.external import EXTERNAL, solve_external
from olctc.solve.modelfile import check_model_path, is_quadratic_file
from olctc.solve.native import write_native_solution
from olctc.solve.options import MIN_SOLVE_SECONDS, SolveOptions, Start
from olctc.solve.result import STATUSES, SolveResult
from olctc.solve.xpress import xpress_file

if TYPE_CHECKING:
    from olctc.milp import MILP

#: In-process solvers: the open-source ones olctc depends on, then the commercial ones run through their own
#: Python packages when installed (``olctc.solve.commercial``).
OPEN_SOLVERS = ("highs", "cbc", "scip")
SOLVERS = OPEN_SOLVERS + COMMERCIAL_SOLVERS
#: External solver programs.
EXTERNAL_SOLVERS = tuple(EXTERNAL)
ALL_SOLVERS = SOLVERS + EXTERNAL_SOLVERS
#: Solvers that accept a quadratic objective (HiGHS solves no MIQP, python-mip has no quadratic
#: objective and its reader silently drops QUADOBJ, GLPK reads no quadratic section).
QUADRATIC_SOLVERS = ("scip",) + COMMERCIAL_SOLVERS

_FileBackend = Callable[[Path, SolveOptions, bool], SolveResult]


def _external_backend(name: str) -> _FileBackend:
    return lambda p, o, q: solve_external(name, p, o)

#: solver name -> backend(model path, options, is_quadratic).
FILE_BACKENDS: dict[str, _FileBackend] = {
    "highs": lambda p, o, q: highs.highs_file(p, o),
    "cbc": lambda p, o, q: cbc.cbc_file(p, o),
    "scip": lambda p, o, q: scip.scip_file(p, o, quadratic=q),
    "gurobi": lambda p, o, q: gurobi_file(p, o, quadratic=q),
    "cplex": lambda p, o, q: cplex_file(p, o, quadratic=q),
    "copt": lambda p, o, q: copt_file(p, o, quadratic=q),
    "xpress": lambda p, o, q: xpress_file(p, o, quadratic=q),
    **{name: _external_backend(name) for name in EXTERNAL},
}

__all__ = ["ALL_SOLVERS", "COMMERCIAL_SOLVERS", "EXTERNAL_SOLVERS", "OPEN_SOLVERS", "QUADRATIC_SOLVERS", "SOLVERS",
           "STATUSES", "SolveResult", "solve_file", "solve_milp", "write_native_solution"]


def _options(solver: str, *, time_limit: float | None, threads: int | None, mip_gap: float | None,
             verbose: bool, start: Start | None, start_path: str | os.PathLike[str] | None,
             solver_path: str | os.PathLike[str] | None, solution_path: str | os.PathLike[str] | None,
             col_names: Sequence[str] | None) -> SolveOptions:
    if solver not in ALL_SOLVERS:
        raise param_error("solver", f"one of {', '.join(ALL_SOLVERS)}", solver)
    validate_limits(time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    start_path, solver_path, solution_path = (
        None if value is None else check_path(value, name)
        for value, name in ((start_path, "start_path"), (solver_path, "solver_path"), (solution_path, "solution_path")))
    if start is not None and start_path is not None:
        raise OlctcError("give either start or start_path, not both")
    if start is not None and not isinstance(start, Mapping):  # text: "could not convert string to float"
        start = _start_array(start)
    if start_path is not None and not Path(start_path).is_file():
        raise OlctcError(f"MIP start file {start_path} does not exist")
    if solver in SOLVERS and (solver_path is not None or solution_path is not None):
        raise OlctcError(f"solver_path and solution_path apply to external solvers "
                         f"({', '.join(EXTERNAL_SOLVERS)}), not to {solver}")
    return SolveOptions(time_limit=None if time_limit is None else float(time_limit),
                        deadline=None if time_limit is None else time.monotonic() + float(time_limit),
                        threads=None if threads is None else int(threads),
                        mip_gap=None if mip_gap is None else float(mip_gap), verbose=bool(verbose),
                        start=start, start_path=start_path, solver_path=solver_path, solution_path=solution_path,
                        col_names=None if col_names is None else list(col_names))


#: Largest violation (rows, bounds, integrality) of a start whose objective is taken as known to be reached
START_FEASIBLE_TOL = 1e-7


def _feasible_objective(milp: "MILP", x: np.ndarray) -> float | None:
    """The objective of ``x`` if it is feasible for ``milp`` (within ``START_FEASIBLE_TOL``), else None."""
    if not np.isfinite(x).all() or max(milp.violation(x).values()) > START_FEASIBLE_TOL:
        return None
    return float(milp.objective(x))


def _start_array(start: Any) -> np.ndarray:
    """A MIP start given as values (any value but a mapping: a list, an array, or text), as a 1-D float array
    (OlctcError naming 'start' for text and the like)."""
    def bad() -> OlctcError:  # built on failure only: the repr of a start of a million values is long to make
        return OlctcError("The 'start' parameter must be numbers, one per column, or a dict of column name -> "
                          f"value. Got {shorten(' '.join(repr(start).split()))} instead.")

    if isinstance(start, (str, bytes)) or np.iscomplexobj(start):
        raise bad()
    try:
        return np.asarray(start, dtype=float).ravel()
    except (TypeError, ValueError, OverflowError):  # numpy's "could not convert string to float: 'abc'"
        raise bad() from None


def _refuse_quadratic(name: str, solver: str) -> OlctcError:
    return OlctcError(f"{name} is a MIQP (quadratic objective), which {solver} cannot solve; "
                      "solve it with SCIP (--solver scip; solver='scip' in Python;"
                      f" or {', '.join(COMMERCIAL_SOLVERS)} where installed)")


def solve_file(model_path: str | os.PathLike[str], solver: str = "highs", *, time_limit: float | None = None,
               threads: int | None = None, start: Start | None = None,
               start_path: str | os.PathLike[str] | None = None, verbose: bool = True,
               mip_gap: float | None = None, solver_path: str | os.PathLike[str] | None = None,
               solution_path: str | os.PathLike[str] | None = None,
               col_names: Sequence[str] | None = None, leave_overrun: bool = False,
               start_objective: float | None = None) -> SolveResult:
    """Solve an MPS or LP model file.

    Parameters
    ----------
    model_path : the .mps / .lp file.
    solver : ``"highs"``, ``"cbc"``, ``"scip"`` (in process) or ``"cbc-cli"``, ``"highs-cli"``,
        ``"glpk-cli"`` (external programs; ``glpk-cli`` cannot be given tight tolerances and warns).
    time_limit : seconds; None for no limit.
    threads : thread count (SCIP and glpsol run on one thread and ignore it).
    start : MIP start, values in the file's column order or ``{name: value}``.
    start_path : MIP start file. In process: any solution file ``olctc.read`` reads. External: a file in
        the program's own start format, passed as is (glpsol takes none: ignored with a warning).
    verbose : stream the solver's log to stdout.
    mip_gap : relative gap at which to stop; None keeps the solver's default.
    solver_path : external solvers: the program to run instead of the one on PATH.
    solution_path : external solvers: where the solver's solution file goes (default beside the model,
        ``<stem>.cbc.sol``, ``<stem>.highs.sol``, ``<stem>.glpk.sol``).
    col_names : external solvers: the file's column names in order, when known (saves reading the
        model once more to map the solver's answer onto columns).
    leave_overrun : the console program: as in ``solve_milp``.
    start_objective : the objective of a solution known to be feasible (the MIP start's, when compile verified
        it): CBC (in process and the program) searches only for better ones (its cutoff), as it does not keep
        its start otherwise. A cutoff bounds a minimisation, as olctc's models are: not for a maximisation file.

    Returns
    -------
    SolveResult with ``x`` in the file's column order.
    """
    opts = _options(solver, time_limit=time_limit, threads=threads, mip_gap=mip_gap, verbose=verbose,
                    start=start, start_path=start_path, solver_path=solver_path,
                    solution_path=solution_path, col_names=col_names)
    if start_objective is not None and not (is_real(start_objective) and math.isfinite(start_objective)):
        raise param_error("start_objective", "a finite number or None", start_objective)
    opts = replace(opts, leave_overrun=leave_overrun,
                   start_objective=None if start_objective is None else float(start_objective))
    path = check_model_path(check_path(model_path, "model_path"))
    quadratic = is_quadratic_file(path)
    if quadratic and solver not in QUADRATIC_SOLVERS:
        raise _refuse_quadratic(str(path), solver)
    sweep()  # the leftovers of killed solves go whichever solver this one uses
    return FILE_BACKENDS[solver](path, opts, quadratic)


def solve_milp(milp: "MILP", solver: str = "highs", *, time_limit: float | None = None,
               threads: int | None = None, start: Start | None = None,
               start_path: str | os.PathLike[str] | None = None, verbose: bool = True,
               mip_gap: float | None = None, solver_path: str | os.PathLike[str] | None = None,
               solution_path: str | os.PathLike[str] | None = None, keep_incumbent: bool = True,
               leave_overrun: bool = False) -> SolveResult:
    """Solve a MILP object; parameters as in ``solve_file`` (``start`` in the MILP's column order).

    ``keep_incumbent=False``: after an interrupt the incumbent is not used, so the console program leaves
    the solve at once instead of waiting for the solver to stop.
    ``leave_overrun``: the console program leaves a HiGHS solve still running ``overrun_grace`` past its
    time limit, and gets the best solution HiGHS had found ("feasible"), or "no_solution"
    (``SolveResult.left_running``).

    HiGHS gets the arrays directly; the other solvers read a temporary MPS file written by
    ``olctc.emit.mps.write_mps``. The result's ``x`` and ``col_names`` follow the MILP's columns
    (helper columns of the file such as ``OBJCONST`` are dropped).
    """
    opts = _options(solver, time_limit=time_limit, threads=threads, mip_gap=mip_gap, verbose=verbose,
                    start=start, start_path=start_path, solver_path=solver_path,
                    solution_path=solution_path, col_names=None)
    opts = replace(opts, keep_incumbent=keep_incumbent, leave_overrun=leave_overrun)
    from olctc.milp import MILP

    if not isinstance(milp, MILP):  # None or a path: "'NoneType' object has no attribute 'is_quadratic'"
        raise param_error("milp", "an olctc MILP (compile_problem(...).milp; solve_file solves a model file)",
                          milp)
    if milp.is_quadratic and solver not in QUADRATIC_SOLVERS:
        raise _refuse_quadratic(f"MILP {milp.name!r}", solver)
    names = [str(n) for n in milp.col_names()]
    if opts.start is not None and not isinstance(opts.start, Mapping):
        arr = opts.start  # checked by _options
        if arr.shape[0] != milp.n_cols:
            raise OlctcError(f"the MIP start has {arr.shape[0]} values but the model has {milp.n_cols} columns")
        # The file may hold extra columns (OBJCONST): pass the start by name.
        # CBC's cutoff (olctc.solve.cbc): the start's objective, when the start is feasible
        known = _feasible_objective(milp, arr) if solver in ("cbc", "cbc-cli") else None
        opts = replace(opts, start=dict(zip(names, arr.tolist())), start_objective=known)
    if solver == "highs":
        sweep()  # HiGHS gets arrays, not a file: the leftovers of killed CBC or SCIP solves go all the same
        return bound_checked(highs.highs_milp(milp, opts))

    from olctc.emit.mps import write_mps

    with scratch_folder("olctc-milp-") as tmp:
        path = tmp / "model.mps"
        t_write = time.monotonic()
        write_mps(milp, path)
        _check_time_to_read(opts, solver, time.monotonic() - t_write)
        if solver in EXTERNAL and opts.solution_path is None:
            opts = replace(opts, solution_path=tmp / f"model.{solver}.sol")
        try:
            result = FILE_BACKENDS[solver](path, opts, milp.is_quadratic)
        except OlctcError as exc:  # not "model file /tmp/olctc-milp-x/model.mps": the caller gave no file
            if str(path) not in str(exc):
                raise
            raise type(exc)(str(exc).replace(f"model file {path}", "the model").replace(str(path), "the model")) \
                from None
        if opts.solution_path is not None and tmp in opts.solution_path.parents:
            result.solution_path = None
    return bound_checked(_to_milp_columns(result, names))


def bound_checked(result: SolveResult) -> SolveResult:
    """``result``, an "optimal" whose bound lies above its objective made "feasible", with a warning: olctc's models
    minimise, and a minimisation's bound is at most its optimum (not for any file: it may maximise). Xpress called
    a point optimal with its bound 18% above it (QA, 2026-12-05, on a model of coefficients near 1e-17, now
    refused)."""
    obj, bound = result.objective, result.bound
    if result.status == "optimal" and obj is not None and bound is not None and \
            bound - obj > 1e-6 * max(1.0, abs(obj)):
        warn(f"{result.solver} calls its solution optimal, but its bound {bound:.10g} lies above its "
             f"objective {obj:.10g}, which the bound of a minimisation cannot: no proof of optimality "
             "(status feasible)")
        result.status = "feasible"
    return result


#: How many times longer than olctc's writing a solver's reading of the model file takes, at most as measured
#: (benchmarks/read_time.py: SCIP 2.4-4.5x, python-mip's CBC 1.8-3.4x on phishing, a6a and w5a at depth 2-3).
READ_FACTOR = {"scip": 4.5}
READ_FACTOR_DEFAULT = 3.5


def _check_time_to_read(opts: SolveOptions, solver: str, writing: float) -> None:
    """TimeLimitTooShort when the time left after writing the model file cannot cover reading it back (up to
    ``READ_FACTOR`` times as long as writing) and a solver's least: reading checks no clock, and a fit ran 11 s
    past its whole limit to find no time left to solve (at a factor of 1, a6a's fit with SCIP at 20 s took 28)."""
    if opts.deadline is None:
        return
    left = opts.deadline - time.monotonic()
    reading = writing * READ_FACTOR.get(solver, READ_FACTOR_DEFAULT)
    if left < reading + MIN_SOLVE_SECONDS:
        raise TimeLimitTooShort(f"no time is left to solve: writing the model for {solver} took {writing:.1f} s, "
                                f"leaving {max(left, 0.0):.2f} s of the time limit, less than reading it back (about "
                                f"{reading:.1f} s) and the {MIN_SOLVE_SECONDS:g} s a solver needs at least")


def _to_milp_columns(result: SolveResult, names: list[str]) -> SolveResult:
    """Reorder a file solve's answer onto the MILP's columns, by name."""
    if result.x is not None:
        index = {name: j for j, name in enumerate(result.col_names)}
        missing = [n for n in names if n not in index]
        if missing:
            raise OlctcError(f"the solver's answer lacks column {missing[0]} of the model")
        result.x = result.x[np.fromiter((index[n] for n in names), dtype=np.int64, count=len(names))]
    result.col_names = names
    return result
