"""CPLEX in process through its ``cplex`` package (MIQPs included): the model file read with the settings of
compile's NAME.cplex.prm."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from olctc.emit.params import PARAM_NAMES, solver_settings
from olctc.solve.commercial import Outcome, as_array, import_solver, solve_session, solver_errors
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult

#: CPLEX's status name (``Cplex.solution.status[code]``, the first name of the code) -> olctc status; the others
#: are limits.
CPLEX_STATUS: dict[str, str] = {
    "MIP_optimal": "optimal",  # 101
    "optimal_tolerance": "optimal",  # 102, a MIP stopped at its relative gap (1e-4 by default), as HiGHS says optimal
    "optimal": "optimal",
    "MIP_infeasible": "infeasible",
    "MIP_infeasible_or_unbounded": "infeasible",
    "infeasible": "infeasible",
    "infeasible_or_unbounded": "infeasible",
    "MIP_unbounded": "unbounded",
    "unbounded": "unbounded",
}

#: Statuses of a solve the Aborter stopped (olctc's stop on an interrupt): their raw words say so.
ABORTED = ("MIP_abort_feasible", "MIP_abort_infeasible", "abort_user")


def parameter(c: Any, name: str) -> Any:
    """The ``Cplex.parameters`` entry of a CPLEX parameter name: CPXPARAM_MIP_Tolerances_MIPGap is
    ``c.parameters.mip.tolerances.mipgap``."""
    node = c.parameters
    for part in name.removeprefix("CPXPARAM_").split("_"):
        node = getattr(node, part.lower())
    return node


class CplexSession:
    """A Cplex object read from a file."""

    def __init__(self, cplex: Any, path: Path, opts: SolveOptions):
        self.cplex = cplex
        self.c = c = cplex.Cplex()
        try:
            if not opts.verbose:
                for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream, c.set_error_stream):
                    stream(None)
            with solver_errors("cplex", f"read model file {path}", (cplex.exceptions.CplexError,)), \
                    readable_path(path) as readable:
                c.read(str(readable))
            for name, value in solver_settings("cplex", time_limit=opts.time_limit, threads=opts.threads,
                                               mip_gap=opts.mip_gap).items():
                parameter(c, name).set(value)
            self.col_names = c.variables.get_names()
        except BaseException:
            c.end()
            raise
        if not self.col_names:
            self.close()
            raise no_columns(path, "CPLEX")
        self.is_mip = c.problem_type[c.get_problem_type()].startswith("MI")
        self.aborter = c.use_aborter(cplex.Aborter())
        self.version = cplex_version(c)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return as_array(self.c.variables.get_lower_bounds()), as_array(self.c.variables.get_upper_bounds())

    def set_start(self, x: np.ndarray) -> None:
        if self.is_mip:  # an LP takes no MIP start
            start = self.cplex.SparsePair(ind=list(range(x.shape[0])), val=x.tolist())
            self.c.MIP_starts.add(start, self.c.MIP_starts.effort_level.auto, "olctc")

    def set_time_limit(self, seconds: float) -> None:
        parameter(self.c, str(PARAM_NAMES["cplex"].time_limit)).set(seconds)

    def optimize(self) -> None:
        self.c.solve()

    def stop(self) -> None:
        self.aborter.abort()

    def outcome(self) -> Outcome:
        sol = self.c.solution
        raw = sol.status[sol.get_status()]
        if raw in ABORTED:
            raw += " (user interrupt)"
        has = sol.get_solution_type() != sol.type.none and sol.is_primal_feasible()
        x = as_array(sol.get_values()) if has else None
        objective = float(sol.get_objective_value()) if has else None
        return Outcome(raw, has, x, objective, float(sol.MIP.get_best_objective()) if self.is_mip else None)

    def close(self) -> None:
        self.c.end()


def cplex_version(c: Any = None) -> str:
    """``CPLEX 22.1.2.0`` of a Cplex object (a new one by default: it loads the native library)."""
    if c is None:
        c = import_solver("cplex").Cplex()
        try:
            return f"CPLEX {c.get_version()}"
        finally:
            c.end()
    return f"CPLEX {c.get_version()}"


def cplex_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with CPLEX in process."""
    cplex = import_solver("cplex")
    errors = (cplex.exceptions.CplexError,)
    return solve_session("cplex", CPLEX_STATUS, lambda: CplexSession(cplex, path, opts), path, opts, errors)
