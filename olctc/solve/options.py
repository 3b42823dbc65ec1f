"""Settings of one solve call, shared by the in-process and external backends."""
from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from olctc.errors import OlctcError, TimeLimitTooShort

#: A MIP start: values in the model's column order, or ``{column name: value}`` (missing columns get 0
#: clipped into their bounds).
Start = np.ndarray | Mapping[str, float]


@dataclass(frozen=True)
class SolveOptions:
    """Everything ``solve_file`` passes to a backend (see ``solve_file`` for the meaning)."""

    time_limit: float | None = None
    threads: int | None = None
    mip_gap: float | None = None
    verbose: bool = True
    start: Start | None = None
    start_path: Path | None = None
    solver_path: Path | None = None
    solution_path: Path | None = None
    col_names: Sequence[str] | None = None
    #: the objective a feasible MIP start is known to reach (olctc's warm start), or None: CBC gets it as its
    #: cutoff (``olctc.solve.cbc``)
    start_objective: float | None = None
    #: time.monotonic() by which the whole call must end (set from time_limit when the call starts)
    deadline: float | None = None
    #: False: after an interrupt nobody uses the incumbent, so the console program need not wait for the
    #: solver to hand it back (HiGHS took 15 s in its sub-MIP heuristics, which ignore the interrupt)
    keep_incumbent: bool = True
    #: True: in the console program, a HiGHS run still busy well past its time limit (presolve and the root
    #: LP's second presolve check no clock) is left running, with the best solution it had found, or none
    #: (fit falls back on its warm start). ``overrun_grace`` says how long past the limit.
    leave_overrun: bool = False

    def remaining(self) -> float | None:
        """Seconds left for the solver itself, once the model is read: the call's limit holds as a whole.

        OlctcError when reading the model (or writing it for the solver) used up the time limit.
        """
        if self.time_limit is None or self.deadline is None:
            return self.time_limit
        left = self.deadline - time.monotonic()
        if left < MIN_SOLVE_SECONDS:
            spent = self.time_limit - left
            # Not the limit itself: a command hands its solver what is left of its own, larger, limit.
            raise TimeLimitTooShort(f"no time is left to solve: reading the model took {spent:.1f} s, leaving "
                                    f"{max(left, 0.0):.2f} s of the time limit (a solver needs at least "
                                    f"{MIN_SOLVE_SECONDS:g} s)")
        return left


#: Below this many seconds left a solver cannot even start its search: refuse rather than run for nothing.
MIN_SOLVE_SECONDS = 0.5


def overrun_grace(limit: float) -> float:
    """Seconds a solver may run past its own time limit of ``limit`` seconds before ``leave_overrun``
    leaves it: 3 s plus 5%, above what HiGHS takes to stop on its own (0.4-2.5 s measured; up to 4 s in its
    sub-MIP heuristics, where the 1 s more after the request to stop may help), far below its unchecked
    presolve work (45-80 s on a6a and w5a, docs/BENCHMARKS.md)."""
    return 3.0 + 0.05 * limit


def start_vector(start: Start | None, names: Sequence[str], lb: np.ndarray | None = None,
                 ub: np.ndarray | None = None) -> np.ndarray | None:
    """A MIP start as a full vector in ``names`` order.

    A mapping fills the columns it names and sets the others to 0 clipped into [lb, ub] (so a column
    fixed to 1, such as ``OBJCONST``, gets 1); names the model lacks are ignored (a start read from
    another solver's file may hold helper columns). An array must have one value per column.
    """
    if start is None:
        return None
    n = len(names)
    if isinstance(start, Mapping):
        x = np.zeros(n)
        if lb is not None and ub is not None:
            x = np.minimum(np.maximum(x, lb), ub)
        index = {name: j for j, name in enumerate(names)}
        for name, value in start.items():
            j = index.get(name)
            if j is not None:
                x[j] = float(value)
    else:
        x = np.asarray(start, dtype=float).ravel()
        if x.shape[0] != n:
            raise OlctcError(f"the MIP start has {x.shape[0]} values but the model has {n} columns")
    if not np.all(np.isfinite(x)):
        raise OlctcError("the MIP start has NaN or infinite values")
    return x


def start_from_file(path: str | os.PathLike[str], names: Sequence[str]) -> dict[str, float]:
    """``{name: value}`` from any solution file olctc can read, to use as a MIP start in process."""
    from olctc.read import read_solution

    sol = read_solution(path, col_names=list(names))
    if not sol.values:
        raise OlctcError(f"MIP start file {path} holds no solution values (status {sol.status})")
    return dict(sol.values)
