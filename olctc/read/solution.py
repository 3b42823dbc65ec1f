"""The solver-neutral answer every solution reader returns."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from olctc.emit.start import SCIP_QUADRATIC_HELPERS
from olctc.errors import OlctcError

#: The only values ``Solution.status`` takes.
STATUSES = ("optimal", "feasible", "infeasible", "unbounded", "no_solution")

#: Columns a solver adds on its own. Skipped by ``to_array`` when the model has no such column.
#: SCIP moves a quadratic objective into a constraint on an epigraph variable, which its solution
#: files list (``olctc.emit.start.SCIP_QUADRATIC_HELPERS``). Gurobi turns each ranged row r of an MPS
#: file into an equality plus a column ``MPS_Rg<r>``.
_HELPER_EXACT = {"scip": frozenset(SCIP_QUADRATIC_HELPERS)}
_HELPER_PREFIX = {"gurobi": ("MPS_Rg",)}


def is_helper_column(solver: str, name: str) -> bool:
    """True when ``name`` is a column ``solver`` adds to the model by itself."""
    prefixes = _HELPER_PREFIX.get(solver)
    return name in _HELPER_EXACT.get(solver, ()) or bool(prefixes and name.startswith(prefixes))


#: When CBC names a model's columns x0, x1, ... itself, and what to do (upstream issues CoinUtils #144, #146, #147,
#: #210 show failures at 903 and 1,023 characters; olctc's own files failed at about 2,900 before its 510 limit).
CBC_LOST_NAMES_WHEN = "its LP reader fails on some lines over 1,000 characters (it reads 1,023 bytes at a time)"
CBC_LOST_NAMES_FIX = "solve the model written as MPS, or with another solver"
#: Why a CBC solution's columns are x0, x1, ... for a model of other names.
CBC_LOST_NAMES = (f"CBC names the columns x0, x1, ... when it cannot read an LP file's names ({CBC_LOST_NAMES_WHEN}): "
                  f"{CBC_LOST_NAMES_FIX}")


def cbc_lost_names(solver: str, name: str, names: Sequence[str]) -> bool:
    """Whether the unknown column ``name`` of ``solver``'s solution is one of CBC's own x0, x1, ... for a model
    whose columns (``names``) are named otherwise."""
    return solver == "cbc" and re.fullmatch(r"x[0-9]+", name) is not None and "x0" not in names


@dataclass
class Solution:
    """What a solver's solution file says.

    Parameters
    ----------
    status : one of ``STATUSES``. ``"feasible"`` means an incumbent exists but optimality was not
        proven (a limit was reached, or the format carries no status at all, as Gurobi ``.sol``).
    objective : objective value of the incumbent; None when there is no solution.
    values : column name -> value of the incumbent; empty when there is no solution (files that
        hold an LP relaxation or an infeasible point do not leak it here).
    solver : ``"cbc"``, ``"highs"``, ``"scip"``, ``"gurobi"``, ``"cplex"``, ``"glpk"``, ``"xpress"`` or ``"copt"``.
    raw_status : the solver's own status words.
    omits_zeros : True when the format leaves zero-valued columns out (CBC, SCIP, HiGHS sparse).
    bound : best bound when the file states one, else None.
    path : the file read, for messages.
    digits : significant digits the values were printed with, when the format rounds them (glpsol
        ``-o`` and HiGHS styles 1 and 3: 6; CBC 2.10: 8); None when they round-trip (or nearly: 13
        digits and more). Checks that recompute objectives from the values widen by this rounding.
    """

    status: str
    objective: float | None
    values: dict[str, float]
    solver: str
    raw_status: str
    omits_zeros: bool
    bound: float | None = None
    path: str | None = field(default=None)
    digits: int | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    def has_solution(self) -> bool:
        """True when the file holds a usable incumbent (status optimal or feasible)."""
        return self.status in ("optimal", "feasible")

    def to_array(self, col_names: Sequence[str] | np.ndarray) -> np.ndarray:
        """The incumbent as a dense float64 vector in the order of ``col_names``.

        Raises
        ------
        OlctcError
            when there is no solution; when a column of ``col_names`` has no value and the format
            does not omit zeros; when the file names a column absent from ``col_names`` (solver
            helper columns such as SCIP's ``quadobjvar`` or Gurobi's ``MPS_Rg*`` excepted).
        """
        where = self.path or "solution"
        if not self.has_solution():
            raise OlctcError(f"{where}: expected a solution to convert to an array, "
                             f"got status '{self.status}' ({self.raw_status})")
        names = [str(n) for n in col_names]
        index = {name: i for i, name in enumerate(names)}
        keys = list(self.values)
        pos = np.fromiter((index.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
        vals = np.fromiter(self.values.values(), dtype=np.float64, count=len(keys))
        unknown = np.flatnonzero(pos < 0)
        if unknown.size:
            extra = [keys[i] for i in unknown if not is_helper_column(self.solver, keys[i])]
            if extra:
                raise OlctcError(f"{where}: expected only columns of the model, got unknown column {extra[0]!r}"
                                 + (f": {CBC_LOST_NAMES}" if cbc_lost_names(self.solver, extra[0], names) else ""))
            keep = pos >= 0
            pos, vals = pos[keep], vals[keep]
        x = np.zeros(len(names), dtype=np.float64)
        x[pos] = vals
        if not self.omits_zeros and pos.size < len(names):
            seen = np.zeros(len(names), dtype=bool)
            seen[pos] = True
            if not seen.all():
                first = names[int(np.argmin(seen))]
                raise OlctcError(f"{where}: expected a value for every column, got none for column {first!r}")
        return x
