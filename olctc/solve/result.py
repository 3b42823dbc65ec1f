"""The solver-neutral result of a solve, and the status vocabulary shared by every backend."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: The five statuses every backend maps to. "feasible": stopped early (time or other limit) with an
#: incumbent; "no_solution": stopped without one (or the solver failed).
STATUSES = ("optimal", "feasible", "infeasible", "unbounded", "no_solution")

#: Marker in the status tables: the solver stopped on a limit, so the status depends on whether it
#: holds an incumbent ("feasible") or not ("no_solution").
LIMIT = "limit"


@dataclass
class SolveResult:
    """What a solve produced, whatever the solver.

    Parameters
    ----------
    status : one of ``STATUSES``.
    objective : objective of the returned solution (constant included), None without a solution.
    bound : best proven bound on the objective, None when the solver reports none.
    gap : relative gap |objective - bound| / |objective| (HiGHS's, CBC's and Gurobi's definition; SCIP's
        own divides by the smaller of the two and is converted), None when unknown.
    x : solution values in ``col_names`` order (the model's column order), None without a solution.
    col_names : the model's column names, in order.
    solver : the olctc solver name (``"highs"``, ``"cbc-cli"`` ...).
    solver_version : the solver's own version string.
    runtime : wall-clock seconds of the solve (the optimize call in process, the whole program run
        for external solvers).
    raw_status : the solver's own status word(s), unmapped.
    solution_path : for external solvers, the solution file they wrote; None in process.
    left_running : the console program left the solver running past its time limit (``leave_overrun``):
        the result is the best solution it had found by then (status "feasible", its bound of that moment),
        or none (status "no_solution"), whatever it may still find.
    """

    status: str
    objective: float | None
    bound: float | None
    gap: float | None
    x: np.ndarray | None
    col_names: list[str]
    solver: str
    solver_version: str
    runtime: float
    raw_status: str
    solution_path: Path | None = field(default=None)
    left_running: bool = False

    @property
    def has_solution(self) -> bool:
        return self.x is not None

    def values(self) -> dict[str, float]:
        """``{column name: value}`` of the solution (empty without one)."""
        if self.x is None:
            return {}
        return dict(zip(self.col_names, map(float, self.x)))


def resolve_status(mapped: str, has_solution: bool) -> str:
    """Turn a status-table entry into one of ``STATUSES`` given whether an incumbent exists."""
    if mapped == LIMIT:
        return "feasible" if has_solution else "no_solution"
    if mapped in ("optimal", "feasible") and not has_solution:
        return "no_solution"
    return mapped


def finite_or_none(value: float | None, *, huge: float = 1e20) -> float | None:
    """None for missing, NaN, infinite or solver-infinite (|v| >= 1e20, SCIP's infinity) values."""
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value) or abs(value) >= huge:
        return None
    return value


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / |objective|, as HiGHS, CBC and Gurobi report it; None when unknown or infinite."""
    if objective is None or bound is None:
        return None
    if objective == 0.0:
        return 0.0 if bound == 0.0 else None
    return abs(objective - bound) / abs(objective)


def gap_text(gap: float | None, digits: int = 3) -> str:
    """A gap for a log line: '1.25%'; '0%' below 1e-9, where objective and bound differ by round-off
    (HiGHS reported a proven optimum's gap as 8.35e-16, printed as '8.35e-14%'); '-' when unknown."""
    if gap is None:
        return "-"
    return "0%" if abs(gap) < 1e-9 else f"{100 * gap:.{digits}g}%"


def false_infeasible(status: str, known_feasible: float | None, solver: str, *, quadratic: bool = False,
                     start: str = "the warm start compile wrote") -> str:
    """What follows ``solver``'s "infeasible" for a model known to hold a point (compile's warm start, of objective
    ``known_feasible``): python-mip's CBC called tiny OCT-H models infeasible, with and without their start (QA,
    2026-12-05; ``benchmarks/cbc_false_optima.py --preset oct-h``), and the user was told only "no solution".
    ``quadratic``: a MIQP, which HiGHS does not solve. "" otherwise."""
    if status != "infeasible" or known_feasible is None:
        return ""
    others = [s for s in (("scip",) if quadratic else ("highs", "scip")) if not solver.startswith(s)]
    instead = f"solve with {' or '.join(others)}" if others else "solve with another solver"
    cbc = " (CBC's do on these models)" if solver.startswith("cbc") else ""
    return (f", which is false: {start} is a feasible point of the model (objective {known_feasible:.6g}), so the "
            f"solver's numerics failed{cbc}; {instead}")


#: "no solution" in a raw status, as the solvers word it (``limit_kind``)
_NO_SOLUTION_WORDS = re.compile(r"no[ _](?:integer[ _])?solution(?:[ _]found)?")


def limit_kind(raw_status: str) -> str:
    """Classify a solver's raw status of an early stop: time, interrupt, nodes, gap, solutions,
    iterations or other. Used to choose the status words when writing another solver's format.

    Words saying that no solution was found (python-mip's NO_SOLUTION_FOUND, CBC's and CPLEX's "no integer
    solution") are no solution limit: CBC's "NO_SOLUTION_FOUND, stopped on iterations" was written as a
    solution limit in HiGHS's, SCIP's and CPLEX's formats."""
    raw = _NO_SOLUTION_WORDS.sub("", raw_status.lower())
    # "abort": CPLEX's 113/114 ("aborted"), the words olctc's CPLEX file gives an interrupt (it read back as "other")
    for needle, kind in (("time", "time"), ("interrupt", "interrupt"), ("ctrl", "interrupt"),
                         ("user", "interrupt"), ("abort", "interrupt"), ("node", "nodes"), ("gap", "gap"),
                         ("sol", "solutions"), ("iter", "iterations")):
        if needle in raw:
            return kind
    return "other"


#: HiGHS's own stopping gaps: mip_rel_gap's default, mip_abs_gap's.
HIGHS_REL_GAP, HIGHS_ABS_GAP = 1e-4, 1e-6


def highs_gap_left(gap: float | None, objective: float | None, bound: float | None, mip_gap: float | None) -> bool:
    """Whether HiGHS's "Optimal" leaves a gap it does not stop at: with its Aggregator off and Parallel rows and
    columns on, HiGHS 1.16 called an OCT-H tree optimal at 20 with its bound at the optimum 10 (found by fuzzing;
    olctc turns both rules off, WORKAROUNDS). Such a solution is feasible, not proven optimal. In process
    and from the HiGHS program (its log's bound)."""
    if gap is None or objective is None or bound is None:
        return False
    rel = HIGHS_REL_GAP if mip_gap is None else max(mip_gap, 0.0)
    return gap > 2 * rel + 1e-9 and objective - bound > 10 * HIGHS_ABS_GAP
