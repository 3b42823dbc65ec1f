"""Paths of olctc/formulation/ and olctc/objective.py that a second mutation pass found unpinned.

Each test's docstring names the mutant it kills ("a builder that ..."): these were mutants of the code, not bugs
seen in olctc. Where a solver decides, it is HiGHS in process (conftest's ``solve_highs_arrays``: one thread, tight
tolerances), and its answer is compared with an independent computation: the objective recomputed in numpy from
(w, b) with the true routing, or the same model with the routing fixed to each allowed choice. Data: real
(vendored haberman, 3 features), a few rows.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import solve_highs_arrays
from olctc.formulation import build_milp
from olctc.formulation.topology import Topology
from olctc.milp import MILP
from olctc.objective import big_m_charge
from olctc.spec import make_spec
from test_formulation_mutation_gaps import ROWS, data, logistic_pieces, route, tangent_objective

highspy = pytest.importorskip("highspy")


def optimum(milp: MILP, fixed: dict[int, float] | None = None) -> tuple[float, np.ndarray]:
    """HiGHS's optimal objective and x of ``milp``, ``fixed`` columns fixed (and made continuous)."""
    return solve_highs_arrays(milp, time_limit=20.0, fixed=fixed)


def test_a_min_leaf_of_every_point_is_allowed_and_binds() -> None:
    """A builder that refuses min_leaf = n (``>=`` for ``>``: every point in one node is a valid tree), or whose
    ``used`` columns are continuous (u = sum z / n then meets sum z >= N u for any split, and min_leaf does
    nothing): at depth 2 with min_leaf = n the optimum keeps every point in one last-layer node (true routing), and
    equals the better of the two models with z fixed to all-left and all-right; it costs more than the optimum
    without min_leaf, which splits the points."""
    X, y = data(ROWS[:8])
    n, C = len(y), [10.0, 10.0]
    free, x0 = optimum(build_milp(X, y, make_spec("olct", 2, C=C)))
    milp = build_milp(X, y, make_spec("olct", 2, C=C, min_leaf=n))
    obj, x = optimum(milp)
    W, b = milp.values(x, "w"), milp.values(x, "b")
    leaf = route(X @ W.T + b, 2, 1e-5)[:, -1]
    assert len(set(leaf)) == 1
    g, c = logistic_pieces([-math.inf, 0.0, math.inf])
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, C, g, c), rel=1e-6)
    z = milp.col_block("z")
    sides = []
    for side in (0, 1):  # every point in node 1 (left of the root) or node 2 (right)
        fixed = {z.start + k * n + i: float(k == side) for k in (0, 1) for i in range(n)}
        sides.append(optimum(milp, fixed)[0])
    assert obj == pytest.approx(min(sides), rel=1e-7, abs=1e-7)
    assert obj > free + 1e-3
    W0, b0 = (build_milp(X, y, make_spec("olct", 2, C=C)).values(x0, k) for k in ("w", "b"))
    assert len(set(route(X @ W0.T + b0, 2, 1e-5)[:, -1])) == 2


def test_the_trees_routing_rule_is_score_above_zero() -> None:
    """A Topology.route whose default threshold is a hair above 0 (1e-12): the tree goes right iff the score is
    > 0, so a score of 1e-13 goes right and 0 goes left, at every layer (decoded trees fold the epsilon midpoint
    into b and route with this default)."""
    topo = Topology(3)
    S = np.zeros((3, 7))
    S[0, [0, 2, 6]] = 1e-13  # right, right: node 6
    S[1, [0, 2, 5]] = [1e-13, 0.0, 1e-13]  # right, left: node 5
    S[2, [0, 1, 3]] = [0.0, 1e-13, 0.0]  # left, right: node 4
    assert topo.route(S).tolist() == [6, 5, 4]


def test_depth_one_has_no_routing_blocks() -> None:
    """A builder that adds (empty) route_l and route_r blocks at depth 1, where no node routes: the model's row
    blocks, which the block map and the model files name, are the assignment, loss and L1 rows only."""
    X, y = data(ROWS[:4])
    milp = build_milp(X, y, make_spec("olct", 1))
    assert [blk.name for blk in milp.row_blocks] == ["assign", "loss", "l1"]
    assert milp.n_rows == 4 + 2 * 4 + 3


def test_no_explicit_zero_coefficient_in_the_model() -> None:
    """A builder that keeps the zeros of X as stored entries (no eliminate_zeros): a standardised feature at its
    mean (0 here, in 2 of 4 rows) would be written to every model file as an explicit 0 coefficient. The model's
    matrix stores exactly the nonzeros of its dense form."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [-1.0, -1.0], [0.0, 0.5]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    milp = build_milp(X, y, make_spec("olct", 2))
    assert (milp.A.data != 0).all()
    assert milp.A.nnz == np.count_nonzero(milp.A.toarray())


def test_big_m_charge_routes_by_the_threshold_given() -> None:
    """A big_m_charge that routes at 0 whatever ``threshold`` says (raw solver weights are checked with
    threshold = epsilon / 2): the root scores epsilon / 4, so both points go left at the threshold epsilon / 2, and
    node 2 (off their path, margin -20, hinge 21) asks 21 - M = 11 more per point than node 1 (margin 1, hinge 0).
    Routed at 0 they would go right and nothing would be charged."""
    spec = make_spec("margot", 2, C=[1.0, 3.0], big_m=10.0)
    X, y = np.array([[0.3], [-0.7]]), np.array([1.0, 1.0])
    W, b = np.zeros((3, 1)), np.array([spec.epsilon / 4, 1.0, -20.0])
    charge = big_m_charge(W, b, X, y, spec, threshold=spec.epsilon / 2)
    assert (charge.points, charge.node, charge.score) == (2, 2, -20.0)
    assert charge.extra == pytest.approx(3.0 * 11.0 * 2)
    assert charge.big_m_needed == pytest.approx(21.0)
    assert big_m_charge(W, b, X, y, spec, threshold=0.0).points == 0
