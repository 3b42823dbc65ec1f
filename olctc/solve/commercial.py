"""Commercial solvers in process, through their own Python packages: Gurobi (gurobipy), CPLEX (cplex), COPT
(coptpy) and Xpress (xpress). None is a dependency of olctc; each is imported when asked for.

Each backend (``olctc.solve.gurobi``, ``.cplex``, ``.copt``, ``.xpress``) opens a ``Session``: the model file
read by the solver with olctc's settings (the tolerances of ``olctc.emit.params``, the same settings compile
writes into the solver's parameter file), and the few calls ``solve_session`` needs. ``solve_session`` is the
one flow they share: MIP start, what is left of the time limit, the solve in a solver thread that an interrupt
stops (``olctc.solve.calls._native``), status, values, bound.
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, Protocol

import numpy as np

from olctc import fpenv
from olctc.errors import OlctcError
from olctc.process_state import interrupt_handled
from olctc.solve.calls import _map, _native, _start_values, _timed
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult, finite_or_none, limit_kind, relative_gap

#: solver -> (its Python package, the product's name in messages, where to get a licence beyond the
#: package's size limit)
PACKAGES: dict[str, tuple[str, str, str]] = {
    "gurobi": ("gurobipy", "Gurobi", "its pip wheel solves models of up to 2000 variables and 2000 rows (200 "
               "variables for a MIQP) without a licence; a Gurobi licence (gurobi.com) lifts the limit"),
    "cplex": ("cplex", "CPLEX", "its pip wheel (Community Edition) solves models of up to 1000 variables and 1000 "
              "rows; a CPLEX installation lifts the limit"),
    "copt": ("coptpy", "COPT", "its pip wheel solves models of up to 2000 variables and 2000 rows without a "
             "licence; a COPT licence (shanshu.ai/copt) lifts the limit"),
    "xpress": ("xpress", "Xpress", "its pip wheel's Community licence solves models of up to 5000 rows and "
               "columns in all, 200 for a MIQP; a FICO Xpress licence lifts the limit"),
}


def import_solver(solver: str) -> ModuleType:
    """The solver's Python package, or an OlctcError saying how to install it."""
    module, product, licence = PACKAGES[solver]
    if module not in sys.modules:
        try:
            os.getcwd()
        except OSError:  # gurobipy 13, cplex 22.2 and coptpy 8.0 end the process there (MKL: "Cannot load ...")
            raise OlctcError(f"{product}'s package {module} cannot be loaded from a working folder that no longer "
                             "exists (it fails there, or ends the process): run olctc from an existing "
                             "folder") from None
    if solver == "copt":
        # coptpy 8.0 imported before highspy breaks highspy's Highs.readSolution in the process; after, it does not
        with contextlib.suppress(ImportError):
            importlib.import_module("highspy")
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise OlctcError(f"--solver {solver} runs {product} in process through the {module} package, which "
                         f"cannot be imported ({exc}): pip install {module} ({licence})") from None


@dataclass
class Outcome:
    """What a solver says after its solve: its status word(s), whether it holds a solution, and that solution
    (values in the session's column order, objective), with its best bound (a MIP's; None for an LP, whose optimum
    is its own bound)."""

    raw: str
    has_solution: bool
    x: np.ndarray | None
    objective: float | None
    bound: float | None


class Session(Protocol):
    """One model read by one solver, with olctc's settings."""

    col_names: list[str]
    version: str

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Columns' lower and upper bounds (only for a MIP start given by name)."""

    def set_start(self, x: np.ndarray) -> None:
        """Give the solver a complete MIP start, in ``col_names`` order."""

    def set_time_limit(self, seconds: float) -> None:
        """The solver's own time limit."""

    def optimize(self) -> None:
        """Solve (blocking; run in a solver thread)."""

    def stop(self) -> None:
        """Ask a running solve to stop (from another thread), keeping its incumbent."""

    def outcome(self) -> Outcome:
        """The solve's result."""

    def close(self) -> None:
        """Free the solver's memory (and its licence token)."""


@contextlib.contextmanager
def solver_errors(solver: str, doing: str, errors: tuple[type[BaseException], ...]) -> Iterator[None]:
    """Turn the solver package's own exceptions into one OlctcError line: 'Gurobi cannot <doing>: <why>'
    (a size-limited licence's refusal among them, with how to lift it)."""
    try:
        yield
    except errors as exc:
        why = " ".join(str(exc).split()) or type(exc).__name__
        module, product, licence = PACKAGES[solver]
        # a size-limited licence's refusal: Gurobi "size-limited license", CPLEX "Problem size limits exceeded",
        # COPT "(LICENSE) Fail to solve problem", Xpress "too many rows and columns. The maximum is 5000"
        hint = f" ({licence})" if any(w in why.lower() for w in ("licen", "limit", "too many")) else ""
        raise OlctcError(f"{product} cannot {doing}: {why}{hint}") from None


def solve_session(solver: str, status_table: dict[str, str], opened: Callable[[], Session], path: Path,
                  opts: SolveOptions, errors: tuple[type[BaseException], ...]) -> SolveResult:
    """Solve model file ``path`` in the session ``opened()`` returns: the flow the commercial backends share.
    The calling thread's floating-point environment is as it was after it (Xpress's first problem in a process
    sets the x87 FPU to double precision: ``olctc.fpenv``)."""
    with fpenv.kept():
        return _solve_session(solver, status_table, opened, path, opts, errors)


def _solve_session(solver: str, status_table: dict[str, str], opened: Callable[[], Session], path: Path,
                   opts: SolveOptions, errors: tuple[type[BaseException], ...]) -> SolveResult:
    with solver_errors(solver, f"open model file {path}", errors):
        session = opened()
    try:
        x0 = _start_values(opts, session.col_names, session.bounds)
        with solver_errors(solver, f"solve model file {path}", errors):
            if x0 is not None:
                session.set_start(x0)
            left = opts.remaining()
            if left is not None:
                session.set_time_limit(left)
            runtime = _timed(lambda: _native(session.optimize, stop=session.stop))
            out = session.outcome()
    finally:
        session.close()
    if limit_kind(out.raw) == "interrupt":
        interrupt_handled()  # as for HiGHS: the caller stops, or keeps the incumbent
    status = _map(status_table, out.raw, out.has_solution)
    x = objective = None
    if status in ("optimal", "feasible"):
        x, objective = out.x, out.objective
    bound = finite_or_none(out.bound) if status in ("optimal", "feasible", "no_solution") else None
    if bound is None and status == "optimal":  # an LP (the solvers give a MIP's bound only)
        bound = objective
    return SolveResult(status=status, objective=objective, bound=bound, gap=relative_gap(objective, bound), x=x,
                       col_names=session.col_names, solver=solver, solver_version=session.version, runtime=runtime,
                       raw_status=out.raw)


def as_array(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=float).ravel()

