"""decode(manifest, solution) -> Tree: the inverse of compile, with every check a solution must pass.

1. The solution file is read and mapped onto the model's columns (a column missing where the format
   does not omit zeros, or a column the model lacks, means the file belongs to another model).
2. The model is rebuilt from the training data (checked against the manifest's sha256). Its integer
   columns must be integral (an LP relaxation satisfies the rows, an unfinished LP does not: either is
   no tree); the values must satisfy its rows and give back the solver's objective: otherwise it is
   another model's solution (other data, depth, C ...).
3. The tree is (w, b); routing is recomputed from it and compared with z. A MILP solution only
   guarantees score <= 0 (left) or score >= epsilon (right), so the tree splits at epsilon / 2, folded
   into b: the decoded tree routes left iff w.x + b <= 0 and agrees with z on every point whenever the
   solver respected its tolerances.
4. The true objective (recomputed with that routing) is compared with the solver's; a difference
   means the solver exploited its tolerances. Formats that print values with few digits (glpsol
   ``-o``, HiGHS styles 1 and 3: 6; CBC 2.10: 8) move every recomputed objective: each comparison
   is widened by a bound on what that rounding can change (``rounding_slack``), and only then.
5. Refinement (paper Remark 1) refits the last layer with the exact logistic loss.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from olctc.compile import manifest_fields, read_manifest, warm_start_objective
from olctc.data import Dataset, Scaler, Schema, check_dataset
from olctc.emit.params import TIGHT_TOL
from olctc.errors import NoSolution, OlctcError, shorten
from olctc.formulation import build_milp
from olctc.formulation.losses import loss_layers, tangent_lines
from olctc.formulation.topology import Topology
from olctc.milp import MILP
from olctc.objective import (ZERO_WEIGHT, BigMCharge, BigMLimit, big_m_charge, big_m_limits, class_mass,
                             tree_objective, weighted_sum)
from olctc.spec import TreeSpec

if TYPE_CHECKING:
    from olctc.read.solution import Solution
    from olctc.solve import SolveResult
    from olctc.tree import Tree

OBJ_RTOL = 1e-5  # the objective of values printed with 13-17 digits agrees with the solver's to this
# A solver at a loose integrality tolerance (GLPK: 1e-5, no setting to tighten it) violates big-M rows by
# up to M * 1e-5: that is a tolerance leak, reported through the true objective. Only violations well
# beyond it mean the values belong to another model.
FOREIGN_ROW_FACTOR = 10 * 1e-5
TRUE_OBJ_RTOL = 1e-6
# How far an integer column may be from an integer. Solvers accept values within their integrality
# tolerance: 1e-9 with the parameter files compile writes, 1e-5 for glpsol (which takes no setting)
# and at most 1e-5 in the defaults of every supported solver. Printing adds at most 5e-7 (a binary
# written with 6 significant digits). 1e-4 is ten times the loosest of these, and far below what an
# LP relaxation leaves (0.5, 0.27 ...). A value within it counts as integral and goes on to the
# routing and objective checks.
INTEGRALITY_TOL = 1e-4
# Integer columns farther than this from an integer (or than the file's printing rounds) are named when a leak
# is reported: ten times the 1e-9 of compile's parameter files.
INTEGRALITY_NOTE = 10 * TIGHT_TOL
# How far below a solution its solver calls optimal the tree's true objective may be (relative): ten times the
# relative MIP gap at which HiGHS, Gurobi, CPLEX, Xpress and COPT stop (SCIP: 0), which compile's parameter files
# keep. A solve stopped within gap g can be improved by at most g; more means a false proof (CBC 2.10: "optimal"
# 22.24, true 16.64) or another model's optimum (the data with one label flipped: "optimal" 16.73, true 13.92).
OPTIMUM_RTOL = 1e-3
# Solvers whose answer to a quadratic objective is not that objective's (measured, docs/FORMATS.md): CBC reads
# QUADOBJ but its MIQP objective misses its values' by about 5e-5 (relative) on MARGOT models.
INEXACT_MIQP = frozenset({"cbc"})
# Values that miss a row by more than this times max(1, M) (beyond what the file's rounding explains) were not
# solved at compile's 1e-9: solvers scale a big-M row by up to M, so 1e-9 allows M * 1e-9 there; ten times that,
# 1e-6 at M = 100, is about what a solver's default tolerances (1e-6) leave (python-mip's CBC: 2.3e-6).
LOOSE_ROWS_FACTOR = 10 * TIGHT_TOL
_NODES_NAMED = 10  # nodes a note names (a depth-10 tree can leave 500 unreached), the rest counted


@dataclass
class DecodeReport:
    """What decoding found; ``ok`` is False when the solver's objective is not the tree's.

    ``true_objective`` is the model's objective of the solver's (W, b) with the real routing (a point goes
    right at a score >= epsilon/2), before the tree folds epsilon/2 into b; so the margin (hinge) terms of
    the routing nodes of a MARGOT tree, and an unrefined OLCT's, may differ from the exported tree's by up to
    C epsilon/2 per point. ``exact_objective`` (tree meta) is the exported tree's own.
    """

    solver: str
    status: str
    raw_status: str
    solver_objective: float | None
    values_objective: float
    true_objective: float
    exact_objective: float | None
    bound: float | None
    disagreements: list[tuple[int, int, int]] = field(default_factory=list)  # (point, z node, tree node)
    max_row_violation: float = 0.0
    row_slack: float = 0.0  # how far the file's rounding of the values can move a row's activity (values_slack)
    max_integrality_violation: float = 0.0  # farthest integer column from an integer (within INTEGRALITY_TOL)
    refine: Any = None
    digits: int | None = None  # significant digits of the file's values; None: exact
    rounding_slack: float = 0.0  # how far that rounding can move the true objective from the solver's
    known_feasible: float | None = None  # objective of a tree known feasible (compile's warm start)
    notes: list[str] = field(default_factory=list)  # said after the solution's lines
    tree_notes: list[str] = field(default_factory=list)  # those of them about the tree, which its file keeps
    empty_nodes: list[tuple[int, int]] = field(default_factory=list)  # settle_empty_nodes's (node, ancestor)
    pure_nodes: list[int] = field(default_factory=list)  # settle_pure_nodes's, when finish was asked to
    tolerance_slack: float = 0.0  # how far the solvers' 1e-9 tolerances can move an objective (C x n x 1e-9)
    big_m_extra: float = 0.0  # what the model's big-M loss rows charge beyond the true objective (big_m_charge)

    def _allowed(self, ref: float) -> float:
        return TRUE_OBJ_RTOL * max(1.0, abs(ref)) + self.rounding_slack + self.tolerance_slack

    @property
    def reported_objective(self) -> float:
        """The solver's objective, or the one its values give when the file states none."""
        return self.solver_objective if self.solver_objective is not None else self.values_objective

    @property
    def tolerance_exploited(self) -> bool:
        """The solution is the model's only through the solver's tolerances: its routing disagrees with its (w, b),
        or the tree's objective is above the solver's by more than rounding allows (decode exits 3)."""
        ref = self.reported_objective
        allowed = self._allowed(ref)
        # Only a tree worse than the solver said is a leak; a better one is loss slack (below).
        if self.disagreements or self.true_objective - ref > allowed:
            return True
        # a reported objective that the solution's own values do not give is no tree's objective either
        return self.solver_objective is not None and abs(self.solver_objective - self.values_objective) > allowed

    @property
    def model_objective(self) -> float:
        """The model's smallest objective at the solver's (w, b) and routing: the true objective plus what its
        big-M loss rows charge at nodes a point does not pass (``olctc.objective.big_m_charge``)."""
        return self.true_objective + self.big_m_extra

    @property
    def loss_slack(self) -> bool:
        """The model's objective at the solution's (w, b) is below the solution's: its loss variables sat above
        their minimum (an unfinished solution: a heuristic's, or one cut off by a limit)."""
        return (not self.tolerance_exploited
                and self.values_objective - self.model_objective > self._allowed(self.values_objective))

    @property
    def optimum_contradicted(self) -> bool:
        """The solver calls its solution optimal, yet the model's objective at its (w, b) is below its objective by
        more than a MIP gap allows (``OPTIMUM_RTOL``): its loss columns sat above the losses its (w, b) give, which
        no optimum of this model does. The tree is this model's (its values satisfy the rows), not a proven
        optimum. (A true objective lower by what big-M rows charge is no contradiction: ``model_objective``.)"""
        if self.status != "optimal" or self.tolerance_exploited:
            return False
        ref = self.reported_objective
        return ref - self.model_objective > OPTIMUM_RTOL * max(1.0, abs(ref)) + self._allowed(ref)

    @property
    def false_optimum(self) -> bool:
        """The solver calls its solution optimal, yet a feasible tree (the warm start) has a lower objective."""
        if self.status != "optimal" or self.known_feasible is None:
            return False
        ref = self.reported_objective
        return ref - self.known_feasible > self._allowed(ref)

    @property
    def worse_than_start(self) -> bool:
        """The solution, not called optimal, gives a tree worse than the warm start compile wrote (a solver that
        took no start, as glpsol, stopped on time)."""
        if self.status == "optimal" or self.known_feasible is None:
            return False
        return self.true_objective - self.known_feasible > self._allowed(self.known_feasible)

    @property
    def ok(self) -> bool:
        """Whether the tree is the solution's as the solver stated it (no ``tolerance_exploited``)."""
        return not self.tolerance_exploited

    def _bound_text(self) -> str:
        """", bound B (gap g%)", the gap as solve prints it: a solver calls a solution optimal within its relative
        gap, 1e-4 by default for HiGHS, Gurobi, CPLEX, Xpress and COPT (SCIP: 0), unless its parameter file sets
        another."""
        if self.bound is None:
            return ""
        from olctc.solve.result import gap_text, relative_gap

        gap = relative_gap(self.solver_objective, self.bound)  # and in solve's words: "gap 49.8%"
        return f", bound {self.bound:.10g}" + (f" (gap {gap_text(gap)})" if gap is not None else "")

    def lines(self) -> list[str]:
        """The report as ``olctc decode`` prints it, one line per item."""
        def f(v):
            return "-" if v is None else f"{v:.10g}"
        from olctc.read._base import STATUSLESS

        # values with no solver's file behind them (decode_arrays given x alone) have no status word to quote
        quoted = f" ({self.raw_status})" if self.raw_status else ""
        said = STATUSLESS.get(self.raw_status, f"{self.solver} says {self.status}{quoted}")
        out = [f"solution: {said}, objective {f(self.solver_objective)}" + self._bound_text(),
               f"objective recomputed from the values: {f(self.values_objective)}",
               f"true objective of the solver's (w, b) (real routing): {f(self.true_objective)}"] + self.notes
        if self.digits is not None:
            out.append(f"precision: the file prints values with {self.digits} significant digits; that rounding "
                       f"alone may move the objectives above by up to {self.rounding_slack:.3g}")
        if self.exact_objective is not None:
            out.append(f"exact objective (true logistic loss) of the solver's (w, b): {f(self.exact_objective)}")
        if self.disagreements:
            shown = ", ".join(f"point {i}: z says node {a}, the tree routes to {b}"
                              for i, a, b in self.disagreements[:5])
            out.append(f"routing: {len(self.disagreements)} point(s) routed differently than z ({shown}"
                       + (", ..." if len(self.disagreements) > 5 else "") + ")")
        else:
            out.append("routing: the tree routes every training point as z says")
        if self.optimum_contradicted:
            ref = self.reported_objective
            out.append(f"WARNING: the solver calls its solution optimal, but its (w, b) give this model an objective "
                       f"{(ref - self.model_objective) / abs(ref):.2%} lower, beyond a MIP gap of {OPTIMUM_RTOL:g}: "
                       "its loss columns sat above the losses its (w, b) give, which no optimum of this model "
                       "does. Either the solver proved a false optimum (CBC does on these models) or the solution "
                       "is another model's optimum (other data, C, alpha or tangents?): check which model was "
                       "solved. The tree is recorded as feasible, not optimal")
        elif self.loss_slack:
            out.append("note: the tree's true objective is below the solver's: the solution's loss variables were "
                       "not at their minimum (an unfinished solution); the tree is the better figure")
        if self.false_optimum:
            out.append(f"WARNING: the solver calls its solution optimal, but the warm start compile wrote is a "
                       f"feasible tree with the lower objective {f(self.known_feasible)}: the solver's proof is "
                       "false. CBC does this on these models; solve with HiGHS or SCIP with the settings of "
                       "NAME.solvers.txt")
        if self.worse_than_start:
            why = "glpsol takes no MIP start" if self.solver == "glpk" else "was it given the MIP start?"
            out.append(f"note: the warm start compile wrote is a better tree (objective {f(self.known_feasible)}) "
                       f"than this solution's ({why}): `olctc fit` keeps the better of the two, or solve again with "
                       "a solver that reads the start")
        if self.tolerance_exploited:
            if self.disagreements:
                how = "to route points for free"
            else:
                missed = []
                if self.max_integrality_violation > max(INTEGRALITY_NOTE, rounding_unit(self.digits)):
                    # rows held exactly on a fractional integer column: "miss the rows by up to 0" said nothing
                    missed.append(f"its integer columns lie up to {self.max_integrality_violation:.3g} from an "
                                  "integer")
                if self.max_row_violation > 0 or not missed:
                    missed.insert(0, f"its values miss the rows by up to {self.max_row_violation:.3g}")
                how = "to count a loss (or leaf predictions) that (w, b) do not give: " + " and ".join(missed)
            ref = self.reported_objective
            # points routed against z, or a stated objective its values do not give, may still be the tree's: then
            # say what was wrong, not the sums
            if abs(self.true_objective - ref) > self._allowed(ref):
                head = "the solver's objective is not the tree's true objective: it"
            elif self.disagreements:
                head = "the tree's true objective equals the solver's, but the solver"
            else:
                head = ("the tree's true objective equals the solver's, but not the one its values give "
                        f"({f(self.values_objective)}): the solver")
            # glpsol takes no tolerance: no parameter file can help it
            advice = ("glpsol has no flag for its tolerances (GLPK's integrality tolerance is 1e-5): solve with "
                      "another solver." if self.solver == "glpk" else "If it ran without the parameter files compile "
                      "wrote (tolerances 1e-9), solve again with them; if it had them, it broke its own tolerances on "
                      "this model (CBC does, docs/BENCHMARKS.md): solve with another solver.")
            out.append(f"WARNING: {head} used its feasibility/integrality tolerances {how}. {advice}")
            if self.disagreements and self.digits is not None:
                # a point within epsilon of a split can change sides when w and b lose their last digits
                out.append(f"  or the file's {self.digits}-digit values moved points across a split: the "
                           "solver's full-precision solution file (see NAME.solvers.txt) tells which")
        return out


@dataclass
class Decoded:
    W: np.ndarray  # folded: the tree routes left iff score <= 0
    b: np.ndarray
    spec: TreeSpec
    milp: MILP
    X: np.ndarray  # standardised training data
    y: np.ndarray
    report: DecodeReport
    sample_weight: np.ndarray | None = None  # the training points' loss weights, if any


def solution_vector(milp: MILP, solution: Solution, known_feasible: float | None = None, *,
                    quadratic: bool = False) -> np.ndarray:
    """The solution's values in the MILP's column order (OlctcError if it is not this model's).
    ``known_feasible``: the objective of a point the model is known to hold (compile's warm start), which makes
    a solver's "infeasible" false (``quadratic``: the model is a MIQP)."""
    from olctc.read.solution import CBC_LOST_NAMES, cbc_lost_names, is_helper_column
    from olctc.solve.result import false_infeasible

    names = [str(n) for n in milp.col_names()]
    where = solution.path or "solution"
    if not solution.has_solution():
        from olctc.pipeline import time_advice

        # NoSolution (exit 1, as solve's for the same run): the solver's failure, not a bad file; status words,
        # not olctc's token ("reports no_solution")
        raw = str(solution.raw_status)
        raise NoSolution(f"{where}: {solution.solver} reports {solution.status.replace('_', ' ')} ({raw})"
                         + time_advice(raw, start=False)
                         + false_infeasible(solution.status, known_feasible, solution.solver, quadratic=quadratic)
                         + "; there is no solution to decode")
    known = set(names)
    extra = [k for k in solution.values
             if k not in known and k != "OBJCONST" and not is_helper_column(solution.solver, k)]
    if extra:
        why = (CBC_LOST_NAMES if cbc_lost_names(solution.solver, extra[0], names)
               else "the solution belongs to another model")
        raise OlctcError(f"{where}: column {shorten(extra[0])!r} is not in this model: {why}")
    # OBJCONST (the objective-constant column of the file format) is not a column of the MILP.
    solution = dataclasses.replace(solution, values={k: v for k, v in solution.values.items() if k != "OBJCONST"})
    try:
        return solution.to_array(names)
    except OlctcError as exc:
        # a file holding the model's first k columns, in order, and none after (Gurobi's and COPT's cut short:
        # they list every column)
        k = sum(not is_helper_column(solution.solver, n) for n in solution.values)
        cut = (f" (or the file was cut short: it holds the first {k} of the model's {len(names)} columns)"
               if k < len(names) and all(n in solution.values for n in names[:k]) else "")
        raise OlctcError(f"{exc}: the solution belongs to another model{cut}") from None


def rounding_unit(digits: int | None) -> float:
    """Largest relative error of a value printed with ``digits`` significant digits (0.0: exact)."""
    return 0.0 if digits is None else 5.0 * 10.0 ** -digits


def values_slack(milp: MILP, x: np.ndarray, u: float) -> tuple[float, float]:
    """(objective, row activity) bounds on what rounding each value by relative ``u`` can change."""
    if not u:
        return 0.0, 0.0
    ax = np.abs(x)
    obj = float(np.abs(milp.c) @ ax)
    if milp.Q is not None:  # d(x'Qx / 2) = (Qx) dx for a symmetric Q
        obj += float(ax @ (abs(milp.Q) @ ax))
    rows = float((abs(milp.A) @ ax).max(initial=0.0))
    return u * obj, u * rows


def rounding_slack(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec,
                   u: float, sample_weight: np.ndarray | None = None) -> float:
    """A first-order bound on how far ``tree_objective`` moves when every entry of (W, b) moves by relative ``u``.

    A score w.x + b moves by at most u (|w|.|x| + |b|). A tangent-type loss is max(0, c_k - g_k m), so a
    point's loss moves by at most max |g_k| times that in each loss layer. The 0/1 loss does not move
    unless a point's score lies within that distance of the threshold: each such point may flip. Each
    point counts with its weight (sample weight times class weight) when there are weights.
    """
    if not u:
        return 0.0
    moved = u * (np.abs(X) @ np.abs(W).T + np.abs(b)[None, :])  # (n, nodes)
    layers = loss_layers(spec)
    weight = float(np.asarray(spec.C, dtype=float)[layers - 1].sum())
    points = spec.point_weights(y, sample_weight)
    if not spec.loss_kind.tangent_rows:  # a 0/1 loss moves only where a point flips
        scores = X @ W.T + b[None, :]
        per_point = (np.abs(scores - spec.epsilon / 2) <= moved).any(axis=1).astype(float)
        loss = weight
    else:
        g, _ = tangent_lines(spec)
        per_point = moved.max(axis=1)
        loss = weight * float(np.abs(g).max())
    loss *= weighted_sum(per_point, points)
    reg = {"l1": float(np.abs(W).sum()), "l2": float(np.sum(W * W))}.get(spec.info.regulariser, 0.0)
    return loss + u * reg


def check_integral(milp: MILP, x: np.ndarray, where: str) -> None:
    """OlctcError naming the integer column farthest from an integer, when it is beyond ``INTEGRALITY_TOL``."""
    cols = np.flatnonzero(milp.integer)
    if not cols.size:
        return
    frac = np.abs(x[cols] - np.round(x[cols]))
    k = int(np.argmax(frac))
    if frac[k] > INTEGRALITY_TOL:
        j = int(cols[k])
        raise OlctcError(f"{where}: column {milp.col_names()[j]} is {x[j]:.6g} but must be integral "
                         "(a relaxation's answer, not an integer solution?)")


def decode_arrays(milp: MILP, spec: TreeSpec, X: np.ndarray, y: np.ndarray, x: np.ndarray,
                  solution: Solution | SolveResult | None = None, *, trusted: bool = False,
                  sample_weight: np.ndarray | None = None) -> Decoded:
    """Checks and folding on a solution vector ``x`` of ``milp`` (built from X, y, spec and
    ``sample_weight``).

    ``trusted``: the caller ran the solver on ``milp`` itself (``olctc fit``), so values that miss the
    rows or an objective that is not the values' cannot mean another model's file: they are the
    solver's own inconsistency, kept in the report (``tolerance_exploited``) instead of raised.
    Fractional integer columns are refused either way: they make no tree.
    """
    where = getattr(solution, "path", None) or "solution"
    digits = getattr(solution, "digits", None)
    u = rounding_unit(digits)
    obj_slack, row_slack = values_slack(milp, x, u)
    # Before the rows: an unfinished LP (CBC 2.10 stopped by -maxIt says "Stopped on iterations") misses
    # rows too, and its fractional columns say what it is better than "another model" would.
    check_integral(milp, x, where)
    viol = milp.violation(x)
    worst = max(viol["rows"], viol["bounds"])
    if worst > FOREIGN_ROW_FACTOR * max(1.0, spec.big_m) + row_slack and not trusted:
        if viol["bounds"] > viol["rows"]:  # name what is violated: the worst row may hold (a row at 6e-14)
            col, amount = milp.worst_bound(x)
            what = f"the bounds of column {col}"
        else:
            row, amount = milp.worst_row(x)
            what = f"row {row}"
        # A file that leaves zeros out and was cut at a line end reads as a complete one with more zeros.
        cut = " (or the file was cut short)" if getattr(solution, "omits_zeros", False) else ""
        raise OlctcError(f"{where}: the values violate {what} of this model by {amount:.3g}: "
                         f"the solution belongs to another model{cut}")
    values_obj = milp.objective(x)
    solver_obj = getattr(solution, "objective", None)
    # The printed objective may be rounded as the values are.
    obj_slack += u * abs(solver_obj or 0.0)
    if solver_obj is not None and abs(values_obj - solver_obj) > OBJ_RTOL * max(1.0, abs(solver_obj)) + obj_slack \
            and not trusted:
        solver = getattr(solution, "solver", None)
        if milp.Q is not None and solver in INEXACT_MIQP:
            # the values satisfy every row: the file fits this model, the solver's quadratic objective does not
            raise OlctcError(f"{where}: the solver's objective {solver_obj:.10g} is not this model's objective of "
                             f"its values ({values_obj:.10g}): {solver} does not solve quadratic objectives "
                             "exactly (docs/FORMATS.md; solve this model with SCIP, Gurobi or CPLEX), unless "
                             "the solution belongs to another model (other data, depth, C or weights?)")
        raise OlctcError(f"{where}: the solver's objective {solver_obj:.10g} is not this model's objective "
                         f"of its values ({values_obj:.10g}): the solution belongs to another model "
                         "(other data, depth, C, tangents or weights?)")
    topo = Topology(spec.depth)
    W = milp.values(x, "w").copy()
    b = milp.values(x, "b").copy()
    # Solvers leave round-off (1e-14) in weights the model has at 0 (an L0 delta of 0): the tree has them
    # at 0, as tree_objective counts them, or a univariate or budgeted tree reads as using more features
    # and refinement takes them for features in use (it refit a univariate root on three).
    W[np.abs(W) <= ZERO_WEIGHT] = 0.0
    half = spec.epsilon / 2
    true = tree_objective(W, b, X, y, spec, threshold=half, sample_weight=sample_weight)
    exact = tree_objective(W, b, X, y, spec, loss="exact", threshold=half, sample_weight=sample_weight).total \
        if spec.loss_kind.smooth else None
    z = milp.values(x, "z")
    z_node = topo.last[np.argmax(z, axis=0)]
    tree_node = topo.route(X @ W.T + b, threshold=half)
    bad = np.flatnonzero(z_node != tree_node)
    ints = x[milp.integer]
    frac = float(np.abs(ints - np.round(ints)).max(initial=0.0))
    report = DecodeReport(solver=getattr(solution, "solver", "in-process"),
                          status=getattr(solution, "status", "optimal"),
                          raw_status=getattr(solution, "raw_status", ""), solver_objective=solver_obj,
                          values_objective=values_obj, true_objective=true.total, exact_objective=exact,
                          bound=getattr(solution, "bound", None),
                          disagreements=[(int(i), int(z_node[i]), int(tree_node[i])) for i in bad],
                          max_row_violation=viol["rows"], row_slack=row_slack, max_integrality_violation=frac,
                          digits=digits,
                          rounding_slack=rounding_slack(W, b, X, y, spec, u, sample_weight) + obj_slack,
                          # each column may sit TIGHT_TOL past a bound or row (a loss column at -1e-9): at
                          # C = 1000 that moved the objective by 2.6e-6 (relative 3e-6), a false "exploited"
                          tolerance_slack=TIGHT_TOL * float(np.abs(milp.c).sum()))
    charge = big_m_charge(W, b, X, y, spec, threshold=half, sample_weight=sample_weight)
    report.big_m_extra = charge.extra
    report.tree_notes += big_m_notes(charge, big_m_limits(W, b, X, spec), spec)
    if getattr(solution, "omits_zeros", False) and report.tolerance_exploited \
            and viol["rows"] > 100 * TIGHT_TOL * max(1.0, spec.big_m) + row_slack:
        # a line lost from the file (a column of CBC's omitted as 0) breaks rows as a tolerance leak would
        report.notes.append(f"note: {where} leaves zero values out, so a line missing from it reads as 0: the "
                            f"values miss the rows by up to {viol['rows']:.3g}; check the file is whole")
    if spec.min_leaf:
        from olctc.warmstart import leaf_sizes_error

        why = leaf_sizes_error(np.bincount(tree_node - topo.last[0], minlength=topo.last.size), topo, spec.min_leaf)
        if why is not None:  # z obeys the rule; a tree routing against z may not
            report.tree_notes.append(f"min_leaf: by its real routing, {why}")
    report.notes += report.tree_notes
    # Fold the split point epsilon/2 into b so that "left iff score <= 0" reproduces the MILP routing.
    b[topo.inner] -= half
    if spec.loss_kind.last_layer_only:  # its last layer classifies by the same rule
        b[topo.last] -= half
    # after the report's figures, which are the solver's tree's; before anything scores the decoded tree
    report.empty_nodes = settle_empty_nodes(W, b, X, y, spec, sample_weight)
    if report.empty_nodes:
        ids = [str(s) for s, _ in report.empty_nodes]
        listed = ", ".join(ids[:_NODES_NAMED]) + (f" and {len(ids) - _NODES_NAMED} more" if len(ids) > _NODES_NAMED
                                                    else "")
        report.notes.append(f"no training point reaches node(s) {listed}: each predicts the class balance of its "
                            "nearest ancestor's points")
    return Decoded(W, b, spec, milp, X, y, report, sample_weight)


def big_m_notes(charge: BigMCharge, limit: BigMLimit, spec: TreeSpec) -> list[str]:
    """What a too small big-M does to the solver's tree (before refinement), if anything: the loss its rows
    charge at nodes a point does not pass (a margin below -M there), which makes the model's objective exceed
    the true one, and scores or weights at the limits big-M sets, which may hold the tree back."""
    out = []
    if charge.points:
        out.append(f"big-M: the model charges the solver's tree {charge.extra:.6g} more than its true objective: "
                   f"{charge.points} point(s) have a margin y * score below about -M (M = {spec.big_m:g}) at a node "
                   f"they do not pass (point {charge.point}: score {charge.score:.6g} at node {charge.node}), where "
                   f"a loss row is relaxed by M only. The solution is this model's; with --big-m above "
                   f"{charge.big_m_needed:.4g} (or features without extreme values) the model would not charge them")
    if limit.points:
        out.append(f"big-M: in the solver's tree {limit.points} point(s) score at a limit of the routing rows, which "
                   f"hold every score at a split within [epsilon - M, M] (M = {spec.big_m:g}; point {limit.point}: "
                   f"score {limit.score:.8g} at node {limit.node}): the limit may hold the tree back, and a larger "
                   "--big-m (or features without extreme values) may give a better one")
    if limit.weights:
        out.append(f"big-M: in the solver's tree {limit.weights} weight(s) sit at +-M, the bound of the L0 rows "
                   f"-M delta <= w <= M delta (M = {spec.big_m:g}; node {limit.weight_node}, feature "
                   f"{limit.weight_feature}): the bound may hold the tree back, and a larger --big-m may give a "
                   "better one")
    return out


def rebuild(man: dict[str, Any], data_path: str | Path | None = None, where: str | Path = "manifest",
            source: Dataset | None = None) -> tuple[MILP, TreeSpec, Dataset, Scaler, np.ndarray]:
    """The model a manifest describes, rebuilt from its (hash-checked) training data.

    What the data determines is recomputed from it and must be what the manifest says (``where`` names
    the manifest in the errors): an edited manifest would otherwise decode into a tree that encodes,
    scales or labels its inputs differently from the model the solver solved. ``source``: the whole source
    Dataset, if already loaded (``pipeline.load_source``).
    """
    from olctc.pipeline import training_data

    spec = TreeSpec.from_json(man["spec"])
    ds = training_data(man, data_path, where, source=source)
    _check_against_data(man, ds, where)
    scaler = _check_scaler(man, ds, where)
    X = scaler.transform(ds.X)
    milp = build_milp(X, ds.y, spec, name=man.get("name", "model"), sample_weight=ds.weight)
    m = man["model"]
    if (milp.n_rows, milp.n_cols, milp.nnz) != (m["n_rows"], m["n_cols"], m["nnz"]):
        raise OlctcError(f"the model rebuilt from the data has {milp.n_rows} rows, {milp.n_cols} columns, "
                         f"{milp.nnz} nonzeros; the manifest says {m['n_rows']}, {m['n_cols']}, {m['nnz']} "
                         "(another olctc version?)")
    return milp, spec, ds, scaler, X


def _check_against_data(man: dict[str, Any], ds: Dataset, where: str | Path) -> None:
    """Classes, encoding and counts the manifest records must be the training data's."""
    y_pos = int((ds.y > 0).sum())
    classes = [c.item() if isinstance(c, np.generic) else c for c in ds.classes]  # as JSON holds them
    expected = {"classes": classes, "schema": ds.schema.to_json(),
                "feature_names": list(ds.feature_names), "data.n": ds.n, "data.p": ds.p,
                "data.n_positive": y_pos, "data.n_negative": ds.n - y_pos}
    for name, want in expected.items():
        section, _, key = name.rpartition(".")
        holder = man[section] if section else man
        got = holder.get(key, want)
        if got != want:
            # point at the first entry that differs
            if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
                k = next(k for k, (a, b) in enumerate(zip(got, want)) if a != b)
                name, got, want = f"{name}[{k}]", got[k], want[k]
            raise OlctcError(f"{where}: field {name!r} does not match the training data ({shorten(json.dumps(got))} "
                             f"in the manifest, {shorten(json.dumps(want))} from the data; edited?); compile again")


def _check_scaler(man: dict[str, Any], ds: Dataset, where: str | Path) -> Scaler:
    """The manifest's scaler, which must be the one compile fits on the training data (or the identity,
    which ``compile_problem(standardise=False)`` records)."""
    scaler = Scaler.from_json(man["scaler"])
    fitted = Scaler.fit(ds.X, ds.weight)
    identity = Scaler.identity(ds.p)
    for ref in (fitted, identity):
        # Refitting on the same data repeats compile's arithmetic; the tolerance only spares a platform's
        # summation order, far below any edit that would change the model.
        if np.allclose(scaler.mean, ref.mean, rtol=1e-12, atol=1e-12) and \
                np.allclose(scaler.scale, ref.scale, rtol=1e-12, atol=1e-12):
            return scaler
    key = "mean" if not np.allclose(scaler.mean, fitted.mean, rtol=1e-12, atol=1e-12) else "scale"
    k = int(np.argmax(np.abs(getattr(scaler, key) - getattr(fitted, key))))
    raise OlctcError(f"{where}: field 'scaler' does not match the training data (scaler.{key}[{k}] is "
                     f"{getattr(scaler, key)[k]:.10g}, the data gives {getattr(fitted, key)[k]:.10g}; edited?); "
                     "compile again")


def make_tree(dec: Decoded, man_or_parts: dict[str, Any], ds: Dataset, meta: dict[str, Any]):
    """Wrap decoded arrays into a Tree with training statistics."""
    from olctc.tree import Tree

    tree = Tree(W=dec.W, b=dec.b, scaler=Scaler.from_json(man_or_parts["scaler"]),
                schema=Schema.from_json(man_or_parts["schema"]), classes=tuple(man_or_parts["classes"]),
                meta=meta)
    tree.fit_stats(ds.X, ds.y)
    return tree


def decode_file(manifest: str | Path, solution: str | Path, *, data: str | Path | None = None,
                refine: bool = True, fmt: str | None = None, source: Dataset | None = None,
                smooth_pure_nodes: bool = False) -> tuple[Tree, DecodeReport]:
    """Decode a solver's solution file of a compiled model into a Tree; returns (tree, report).

    ``source``: the manifest's whole source Dataset, already loaded (checked against the manifest's
    sha256 and encoding instead of read again: collect decodes every task of a grid from one data set).
    ``smooth_pure_nodes``: see ``settle_pure_nodes``."""
    from olctc.errors import check_flags
    from olctc.io import check_path
    from olctc.read import read_solution
    from olctc.read.api import check_format

    check_flags(refine=refine, smooth_pure_nodes=smooth_pure_nodes)  # refine="no" refined (QA 2026-12-05)
    fmt = check_format(fmt, "fmt")  # before the model is rebuilt; read_solution's message named its 'format'
    manifest, solution = check_path(manifest, "manifest"), check_path(solution, "solution")
    data = None if data is None else check_path(data, "data")
    man = read_manifest(manifest, model_optional=True)
    # A start compile wrote, given as the solution (CBC's reads as "Status unknown", Gurobi's .mst as no format):
    # the one message that says what the file is, by its hash, before the model is rebuilt (a6a at depth 4:
    # 8 s and 1.7 GB to be told so; QA 2026-12-05)
    _refuse_start_file(man, solution)
    with manifest_fields(manifest):
        if source is not None:
            check_dataset(source, "source")
        milp, spec, ds, scaler, X = rebuild(man, data, where=manifest, source=source)
        model_file = Path(manifest).parent / man["model"]["file"]
    sol = read_solution(solution, format=fmt, col_names=[str(n) for n in milp.col_names()])
    known_feasible = warm_start_objective(man)  # a number: checked by read_manifest
    x = solution_vector(milp, sol, known_feasible, quadratic=spec.info.quadratic)
    dec = decode_arrays(milp, spec, X, ds.y, x, sol, sample_weight=ds.weight)
    dec.report.known_feasible = known_feasible
    loose = loose_rows_note(milp, spec, x, dec.report, man)
    if loose is not None:
        dec.report.notes.append(loose)
    if not model_file.exists():
        dec.report.notes.append(f"model file: {model_file.name} is not here (not needed: the solution was checked "
                                "against the model rebuilt from the manifest and the data)")
    return finish(dec, man, ds, refine, smooth_pure_nodes)


def loose_rows_note(milp: MILP, spec: TreeSpec, x: np.ndarray, report: DecodeReport,
                    man: dict[str, Any]) -> str | None:
    """The note for values that miss the rows by far more than compile's tolerances allow (``LOOSE_ROWS_FACTOR``)
    while the solver's objective is the tree's; None otherwise (``tolerance_exploited`` warns of more)."""
    if report.tolerance_exploited:  # its warning names the violation, and the omits-zeros note too
        return None
    # report.row_slack: a 6-digit file misses rows by rounding
    if report.max_row_violation <= LOOSE_ROWS_FACTOR * max(1.0, spec.big_m) + report.row_slack:
        return None
    row, amount = milp.worst_row(x)  # names every row: only now, when there is something to say
    # "1e-9" as the other notes write TIGHT_TOL (f"{TIGHT_TOL:g}" prints 1e-09)
    return (f"note: the values miss the rows by up to {amount:.3g} (row {row}), above the 1e-9 tolerance olctc's "
            f"parameter files ask for{_tolerance_advice(report.solver, man)}; the tree was scored by its true routing")


def _tolerance_advice(solver: str, man: dict[str, Any]) -> str:
    """How to give ``solver`` compile's tolerances (the end of ``loose_rows_note``'s first clause): the settings
    file compile wrote for it, by name when the manifest lists it."""
    from olctc.emit.params import SOLVER_FILES
    from olctc.solve.modelfile import model_stem

    stem = model_stem(str(man["model"]["file"]))
    if solver == "glpk":  # glpsol takes no tolerance: no file can help it
        return (": glpsol has no flag for its tolerances (GLPK's integrality tolerance is 1e-5): solve with another "
                f"solver and its parameter file ({stem}.solvers.txt)")
    head = " (the solver may have run at its default tolerances): "
    if solver == "xpress":  # Xpress reads no settings file
        return head + f"solve again with the controls {stem}.solvers.txt passes to setControl"
    listed = (man.get("files") or {}).get("params") or []
    suffix = SOLVER_FILES.get(solver)
    name = f"{stem}.{suffix}"
    if suffix is not None and name in listed:  # compile --solvers may have left it out
        return head + f"solve again with {name}, written beside the model ({stem}.solvers.txt shows how)"
    return head + f"solve again with its parameter file, which compile writes beside the model ({stem}.solvers.txt)"


def _refuse_start_file(man: dict[str, Any], path: str | Path) -> None:
    """OlctcError when ``path`` is one of the MIP starts compile wrote (by its hash): HiGHS's and SCIP's starts
    are in their solution format and would decode as "feasible (Unknown)", the warm start passed off as the
    solver's answer; Xpress's .slx start has no objective, as Xpress's own files: it decoded as the solver's
    answer (QA pass, 2026-12-03); CBC's reads as no solution ("Status unknown"), the .mst starts as no solution
    file at all. A solution file of a million columns hashes in about 0.1 s."""
    from olctc.io import sha256_file

    starts = (man.get("files") or {}).get("start") or {}
    if not starts or not os.path.isfile(path):  # a pipe cannot be read twice, and no start is one
        return

    def named(digest: str) -> list[Any]:
        return [e.get("file") for e in starts.values() if isinstance(e, dict) and e.get("sha256") == digest]

    # a gzip or CRLF copy of a start is one too: read as the readers read it, only where the file's first bytes
    # show such a form (a 77 MB solution file took 1.9 s and 400 MB so, at every decode: review 2026-12-05)
    same = named(sha256_file(path)) or (_reshaped(path) and named(_plain_sha256(path)))
    if same:
        # COPT's start is Gurobi's, byte for byte: name the file given when it is one of them
        name = Path(path).name if Path(path).name in same else same[0]
        raise OlctcError(f"{path}: expected a solver's solution file, got the MIP start compile wrote "
                         f"({name}, olctc's warm start); pass the file the solver wrote "
                         "(NAME.solvers.txt shows each solver's command)")


def _reshaped(path: str | Path) -> bool:
    """Whether ``path`` may be a start in another form the solution readers read (``read_as_written``), by its
    first 64 KB."""
    from olctc.read._base import read_as_written

    try:
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError:
        return False
    return not read_as_written(head)


def _plain_sha256(path: str | Path) -> str:
    """sha256 of ``path`` read as the solution readers read it (``read_source``: gzip, bzip2, UTF-16, a BOM,
    CRLF), written back as compile writes files (UTF-8, "\\n" line ends); "" when it cannot be read."""
    import hashlib

    from olctc.read._base import read_source

    try:
        src = read_source(path)
    except OlctcError:
        return ""
    text = "\n".join(src.lines) + ("\n" if src.ends_with_newline else "")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def settle_empty_nodes(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec,
                       sample_weight: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Give each last-layer node that no training point reaches (routing left iff score <= 0) w = 0 and b the
    log-odds of the points at its nearest ancestor that holds some, smoothed by one point of each class
    (log((m_+ + a) / (m_- + a)), m the class weights there, a their mean weight). In place; returns
    (node, ancestor) pairs.

    No point constrains such a node, so the solver leaves whatever it likes there: HiGHS, CBC and SCIP
    left b = -100 (the loss's bound) on an empty node of a tiny min_leaf fit, and every new point the
    parent sent there was predicted with probability 1. The objective cannot rise: no loss, no penalty.
    """
    topo = Topology(spec.depth)
    reached = topo.route(X @ W.T + b[None, :])
    counts = np.bincount(reached - topo.last[0], minlength=topo.last.size)
    empty = topo.last[counts == 0]
    if not empty.size:
        return []
    on_path = topo.path_mask(reached)
    weights = _point_weights(y, spec, sample_weight)
    settled = []
    for s in empty:
        t = int(s)
        while t > 0 and not on_path[:, t].any():
            t = (t - 1) // 2
        W[s], b[s] = 0.0, _smoothed_log_odds(weights[on_path[:, t]], y[on_path[:, t]] > 0)
        settled.append((int(s), t))
    return settled


def pure_nodes_line(meta: dict[str, Any]) -> str | None:
    """The line that says which pure nodes ``finish`` smoothed and what it did to the exact objective, from a
    tree's meta or a fit's summary; None when none was (or smoothing was not asked for)."""
    p = meta.get("pure_nodes")
    if not p or not p["nodes"]:
        return None
    return (f"pure node(s) {', '.join(map(str, p['nodes']))} smoothed (w = 0, b the log-odds of their points "
            f"plus one of each class): exact objective {p['objective_before']:.10g} -> {p['objective_after']:.10g}")


def settle_pure_nodes(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec,
                      sample_weight: np.ndarray | None = None) -> list[int]:
    """Give each last-layer node whose training points are all of one class (by weight: points of weight 0
    do not count) w = 0 and b the smoothed log-odds of its points, log((m_+ + a) / (m_- + a)) with a their
    mean weight: probability (m_+ + 1) / (m + 2) with unit weights (Laplace's rule), as empty nodes get
    from their ancestor. In place; returns the nodes.

    The exact loss has no minimiser on such a node (b -> +-inf) and every b past the last tangent's zero
    is a MILP optimum, so the solver's b there is arbitrary and so is its probability: measured, 4e-44 on a
    node of 0 of 30 positives (5 of the 13 test points it received were positive), 0.8 on one of 70 of 70.
    The exact objective can rise (b = -100 -> log(1/31)) or fall (b = log 4 -> log 71).
    """
    topo = Topology(spec.depth)
    reached = topo.route(X @ W.T + b[None, :])
    weights = _point_weights(y, spec, sample_weight)
    settled = []
    for s in topo.last:
        at = (reached == s) & (weights > 0)
        if at.any() and min(class_mass(y[at], weights[at])) <= 0:  # refinement's test of a one-class node
            W[s], b[s] = 0.0, _smoothed_log_odds(weights[at], y[at] > 0)
            settled.append(int(s))
    return settled


def _point_weights(y: np.ndarray, spec: TreeSpec, sample_weight: np.ndarray | None) -> np.ndarray:
    weights = spec.point_weights(y, sample_weight)
    return np.ones(y.shape[0]) if weights is None else weights


def _smoothed_log_odds(wt: np.ndarray, pos: np.ndarray) -> float:
    """log((m_+ + a) / (m_- + a)) of points of weights ``wt`` and classes ``pos``, a their mean weight."""
    a = float(wt.mean()) if wt.size and wt.sum() > 0 else 1.0
    m_pos, m_neg = float(wt[pos].sum()) + a, float(wt[~pos].sum()) + a
    # balanced class weights make the masses equal up to rounding: a tie (score 0), not the sign of 2e-16
    return 0.0 if abs(m_pos - m_neg) <= 1e-12 * (m_pos + m_neg) else math.log(m_pos / m_neg)


def weights_record(man: dict[str, Any], classes: Any) -> dict[str, Any]:
    """What a tree records of a weighted model's weights, from its manifest: the point weights' column and sum,
    and each class's weight by label (the manifest holds them as the pair (negative, positive))."""
    from olctc.data.labels import json_label

    data = man["data"]
    out: dict[str, Any] = {k: data[k] for k in ("weight_column", "weight_sum") if data.get(k) is not None}
    if data.get("class_weights") is not None:
        out["class_weights"] = {str(json_label(c)): w for c, w in zip(classes, data["class_weights"])}
    return out


def finish(dec: Decoded, man: dict[str, Any], ds: Dataset, refine: bool, smooth_pure_nodes: bool = False):
    """Refine (logistic presets), smooth the pure last-layer nodes when asked (``settle_pure_nodes``) and
    build the Tree with its meta record (with the empty last-layer nodes ``decode_arrays`` settled)."""
    # An optimum its own values contradict is no proven optimum (DecodeReport.optimum_contradicted), nor is one
    # whose solver bent its tolerances (decode exits 3, yet writes the tree): the file alone must not say optimal.
    said = dec.report
    status = "feasible" if said.optimum_contradicted or said.tolerance_exploited else said.status
    meta: dict[str, Any] = {"spec": dec.spec.to_json(), "solver": said.solver, "status": status,
                            "solver_objective": said.solver_objective,
                            "true_objective": said.true_objective, "bound": said.bound,
                            "data": {k: man["data"][k] for k in ("name", "sha256", "n", "p")}}
    meta["data"].update(weights_record(man, ds.classes))
    if said.tolerance_exploited:
        meta["tolerance_exploited"] = True
    if said.tree_notes:  # a min-leaf rule the real routing breaks, big-M charges
        meta["notes"] = list(said.tree_notes)
    if said.empty_nodes:
        meta["empty_nodes"] = [{"node": s, "as": t} for s, t in said.empty_nodes]
    if refine and dec.spec.loss_kind.smooth:
        from olctc.refine import refine as refine_tree

        W, b, rep = refine_tree(dec.W, dec.b, dec.X, dec.y, dec.spec, threshold=0.0,
                                sample_weight=dec.sample_weight)
        refit = [int(t) for t in rep.nodes_refit]
        # The solver's nodes, kept so that a fit started from this tree (--start-tree) can start from them: the
        # MILP's loss is the tangents', by which the refit nodes can score far worse (spectf: 166 against 67).
        before = {"W": dec.W[refit].tolist(), "b": dec.b[refit].tolist()}
        dec.W, dec.b = W, b
        said.refine = rep
        meta["refine"] = {"objective_before": rep.objective_before, "objective_after": rep.objective_after,
                          "nodes_refit": refit, "before": before}
    exact = tree_objective(dec.W, dec.b, dec.X, dec.y, dec.spec, loss="exact",
                           sample_weight=dec.sample_weight).total
    if smooth_pure_nodes:
        W0, b0 = dec.W.copy(), dec.b.copy()
        pure = settle_pure_nodes(dec.W, dec.b, dec.X, dec.y, dec.spec, dec.sample_weight)
        before_smoothing = exact
        if pure:
            exact = tree_objective(dec.W, dec.b, dec.X, dec.y, dec.spec, loss="exact",
                                   sample_weight=dec.sample_weight).total
        # Written with no node too: the tree says it was asked for. The solver's (or refinement's) nodes are
        # kept, as meta.refine.before keeps refit ones: --start-tree tries them.
        meta["pure_nodes"] = {"nodes": pure, "before": {"W": W0[pure].tolist(), "b": b0[pure].tolist()},
                              "objective_before": before_smoothing, "objective_after": exact}
        said.pure_nodes = pure
    meta["exact_objective"] = exact
    return make_tree(dec, man, ds, meta), said
