"""Paths of olctc/objective.py and olctc/milp.py that a second mutation pass found unpinned (the first pass's are in
test_objective_milp_mutation_gaps.py, whose helpers this file reuses).

Each test's docstring names the mutants it kills ("an objective that ..."): mutants of the code, not bugs seen in
olctc. The data are tiny and the expected values written out by hand in the comments; where the model has a say, HiGHS's
optimum of the compiled model at the fixed tree is the second witness.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from olctc.decode import big_m_notes
from olctc.formulation import build_milp
from olctc.objective import BigMCharge, big_m_charge, big_m_limits, tree_objective
from olctc.spec import make_spec
from test_objective_milp_mutation_gaps import B, W_DENSE, W_NORM, by_hand, model_optimum_at, small_milp
from test_formulation_mutation_gaps import data


def test_routing_and_the_oct_h_prediction_go_right_only_above_the_threshold() -> None:
    """An objective that routes by score > 0 whatever ``threshold`` (decode evaluates raw solver weights at
    epsilon / 2), or predicts OCT-H's label by score > 0 or score >= threshold. MARGOT depth 2 on one feature, root
    w = 1, b = 0, leaves scoring 0.5 (node 1) and -0.5 (node 2); at threshold 0.5 the point at 0.3 and the one at 0.5
    go left, the one at 2 right. Hinge by hand, C = (1, 2):
    layer 1: max(0, 1 - y s) = 0.7, 0.5, 0, 0 (points 0.3+, 0.5+, -1-, 2+); layer 2 at node 1, 1, 1, 2: 0.5, 0.5, 1.5,
    1.5; 1/2 ||w||^2 = 0.5."""
    spec = make_spec("margot", 2, C=[1.0, 2.0])
    X, y = np.array([[0.3], [0.5], [-1.0], [2.0]]), np.array([1.0, 1.0, -1.0, 1.0])
    W, b = np.array([[1.0], [0.0], [0.0]]), np.array([0.0, 0.5, -0.5])
    parts = tree_objective(W, b, X, y, spec, threshold=0.5)
    assert parts.loss_per_layer.tolist() == pytest.approx([1.2, 4.0], abs=1e-15)
    assert parts.total == pytest.approx(1.2 + 2 * 4.0 + 0.5, abs=1e-14)
    # at threshold 0 the points at 0.3 and 0.5 reach node 2 (margin -0.5: loss 1.5 each)
    assert tree_objective(W, b, X, y, spec).loss_per_layer.tolist() == pytest.approx([1.2, 6.0], abs=1e-15)
    # OCT-H depth 1 (the root is the classifier), C = 2, alpha = 0.25: at threshold 0.5 the points at 0.3 and 0.5
    # (labels +) are predicted -, the one at 0.6 (label -) +: 3 errors; at threshold 0, 1 error (0.6)
    octh = make_spec("oct-h", 1, C=2.0, alpha=0.25)
    X1, y1 = np.array([[0.3], [0.5], [0.6], [-1.0]]), np.array([1.0, 1.0, -1.0, -1.0])
    W1, b1 = np.array([[1.0]]), np.zeros(1)
    assert tree_objective(W1, b1, X1, y1, octh, threshold=0.5).total == pytest.approx(2 * 3 + 0.25, abs=1e-15)
    assert tree_objective(W1, b1, X1, y1, octh).total == pytest.approx(2 * 1 + 0.25, abs=1e-15)


@pytest.mark.parametrize("preset,W", [("olct", W_DENSE), ("oct-h", W_NORM)], ids=["olct", "oct-h"])
@pytest.mark.parametrize("weighted", [False, True], ids=["class-weights", "class-and-point-weights"])
def test_class_weights_weigh_each_points_loss(preset: str, W: np.ndarray, weighted: bool) -> None:
    """An objective that weighs the points by their sample weights only, dropping the spec's class weights (the MILP
    prices xi_{h,i} at C_h times both): with class weights (1, 3), each positive's loss counts thrice, times its
    sample weight; the objective written out with those weights and HiGHS's optimum of the model at the tree agree."""
    X, y = data()
    C = [1.0, 3.0]
    s = np.arange(len(y)) % 3 + 0.5 if weighted else None
    spec = make_spec(preset, 2, C=C, class_weight=(1.0, 3.0), **({"alpha": 0.25} if preset == "oct-h" else {}))
    both = np.where(y > 0, 3.0, 1.0) * (1.0 if s is None else s)
    want = by_hand(preset, W, B, X, y, C, 0.25, None, both)
    assert tree_objective(W, B, X, y, spec, threshold=spec.epsilon / 2, sample_weight=s).total == pytest.approx(
        want, rel=1e-12)
    got, _ = model_optimum_at(build_milp(X, y, spec, sample_weight=s), W, B)
    assert got == pytest.approx(want, rel=1e-7)


@pytest.mark.parametrize("preset", ["oct-h", "margot-sfs"])
def test_a_weight_of_5e_9_is_a_feature(preset: str) -> None:
    """An objective whose zero weight is 1e-8 (ZERO_WEIGHT is 1e-9: the model's delta must be 1 for any |w| above
    it): under OCT-H's alpha ||w||_0, and SFS's excess over a budget of 1, a node with weights 1 and 5e-9 has two
    features; one with -1e-9 alone has none."""
    X, y = data()
    spec = make_spec(preset, 2, alpha=0.5, **({"budget": 1} if preset == "margot-sfs" else {}))
    W = np.zeros((3, 3))
    W[0, 0], W[0, 1], W[2, 2] = 0.5, 5e-9, -1e-9
    assert tree_objective(W, B, X, y, spec).l0_penalty == pytest.approx(0.5 * (2 if preset == "oct-h" else 1))


@pytest.mark.parametrize("budget,excess", [(2, 1), (3, 0)])
def test_sfs_nodes_under_their_budget_pay_nothing(budget: int, excess: int) -> None:
    """An SFS term that sums nnz - budget over the nodes, letting a node under budget pay for one over it: the
    dense tree's nodes use 3, 2 and 1 features, so a budget of 2 charges alpha * 1 (not 0), a budget of 3 nothing
    (not -3 alpha); HiGHS's optimum of MARGOT-SFS's model at that tree (excess free) agrees."""
    X, y = data()
    spec = make_spec("margot-sfs", 2, alpha=0.3, budget=budget)
    parts = tree_objective(W_DENSE, B, X, y, spec, threshold=spec.epsilon / 2)
    assert parts.l0_penalty == pytest.approx(0.3 * excess, abs=1e-15)
    got, _ = model_optimum_at(build_milp(X, y, spec), W_DENSE, B)
    assert got == pytest.approx(parts.total, rel=1e-7)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "point-weights"])
def test_the_charge_is_beyond_the_loss_at_the_reached_node(weighted: bool) -> None:
    """A charge that forgets the loss the point already pays at the node it reaches (the row of the node it does not
    pass asks xi >= loss there - M, and xi >= own loss anyway), or a ``big_m_needed`` taken as the smallest M need of
    the charged points rather than the largest. MARGOT depth 2, M = 10, one feature; every point goes right (root
    b = 1) to node 2 (score -1: hinge 2 for a positive, 0 for a negative); node 1 scores 2x - 20 = -22, -20, -18, -16
    at x = -1, 0, 1, 2 (hinge 23, 21, 0 (negative), 17). Each positive needs M = 21, 19, 15 and is charged 11, 9, 5
    at C_2 = 3; with weights 1, 2, 3, 0.5 the largest charge is point 1's. HiGHS's optimum of the model at that tree
    is the true objective plus the charge."""
    spec = make_spec("margot", 2, C=[1.0, 3.0], big_m=10.0)
    X, y = np.array([[-1.0], [0.0], [1.0], [2.0]]), np.array([1.0, 1.0, -1.0, 1.0])
    W, b = np.array([[0.0], [2.0], [0.0]]), np.array([1.0, -20.0, -1.0])
    s = np.array([1.0, 2.0, 3.0, 0.5]) if weighted else None
    charge = big_m_charge(W, b, X, y, spec, sample_weight=s)
    per_point = np.array([11.0, 9.0, 0.0, 5.0]) * (1.0 if s is None else s)
    assert charge.extra == pytest.approx(3.0 * per_point.sum(), abs=1e-12)
    assert charge.points == 3 and charge.big_m_needed == pytest.approx(21.0, abs=1e-12)
    worst = 1 if weighted else 0
    assert (charge.point, charge.node, charge.score) == (worst, 1, [-22.0, -20.0][worst])
    got, _ = model_optimum_at(build_milp(X, y, spec, sample_weight=s), W, b)
    true = tree_objective(W, b, X, y, spec, sample_weight=s).total
    assert got == pytest.approx(true + charge.extra, rel=1e-9)


def test_points_of_weight_0_are_not_charged() -> None:
    """Defect (fixed): the row of a node a point of weight 0 does not pass binds its xi, which costs nothing, yet
    big_m_charge counted the point as charged and took its need of M: with every charged point of weight 0, decode's
    note read "the model charges the solver's tree 0 more ... (point -1: score -1 at node -1) ... with --big-m above
    21", naming no point; with one of them weighing 1, "3 point(s)" and "above 21" where point 1 alone (needing 19)
    is charged. The tree is the one above; HiGHS's optimum of the model at it is the true objective plus the
    charge of the weighted points only."""
    spec = make_spec("margot", 2, C=[1.0, 3.0], big_m=10.0)
    X, y = np.array([[-1.0], [0.0], [1.0], [2.0]]), np.array([1.0, 1.0, -1.0, 1.0])
    W, b = np.array([[0.0], [2.0], [0.0]]), np.array([1.0, -20.0, -1.0])
    none = big_m_charge(W, b, X, y, spec, sample_weight=np.array([0.0, 0.0, 1.0, 0.0]))
    assert none == BigMCharge(0.0, 0)
    assert big_m_notes(none, big_m_limits(W, b, X, spec), spec) == []
    s = np.array([0.0, 1.0, 1.0, 0.0])
    one = big_m_charge(W, b, X, y, spec, sample_weight=s)
    assert one == BigMCharge(3.0 * 9.0, 1, 1, 1, -20.0, 19.0)
    got, _ = model_optimum_at(build_milp(X, y, spec, sample_weight=s), W, b)
    assert got == pytest.approx(tree_objective(W, b, X, y, spec, sample_weight=s).total + one.extra, rel=1e-9)


def test_the_charge_routes_by_the_threshold() -> None:
    """A charge that routes by score > 0 whatever ``threshold`` (decode passes epsilon / 2): MARGOT depth 2, M = 10,
    root w = 1, b = 0; the positive at 0.3 goes left at threshold 0.5 (node 1: score 1, hinge 0) and its row at
    node 2 (score -20, hinge 21) is charged 21 - 10 at C_2 = 3; at threshold 0 it reaches node 2 and nothing is."""
    spec = make_spec("margot", 2, C=[1.0, 3.0], big_m=10.0)
    X, y = np.array([[0.3]]), np.array([1.0])
    W, b = np.array([[1.0], [0.0], [0.0]]), np.array([0.0, 1.0, -20.0])
    assert big_m_charge(W, b, X, y, spec, threshold=0.5) == BigMCharge(33.0, 1, 0, 2, -20.0, 21.0)
    assert big_m_charge(W, b, X, y, spec) == BigMCharge(0.0, 0)


def test_the_point_named_is_charged_beyond_rounding_in_some_layer() -> None:
    """A charge that prices and names the points of a layer none of whose rows is charged beyond rounding (the skip
    of such a layer dropped): MARGOT depth 3, M = 100, both points go 0 -> 2 -> 6 (hinge 0). At layer 2 point 0
    (weight 1000) misses M by 5e-5 <= 1e-6 M at node 1 (score -99.00005); at layer 3 point 1 (weight 1e-3) is
    charged 0.5 at node 3 (score -99.5). Only point 1 is charged and named, and only its charge priced."""
    spec = make_spec("margot", 3, C=[1.0, 1.0, 1.0], big_m=100.0)
    X, y, s = np.array([[0.0], [1.0]]), np.array([1.0, 1.0]), np.array([1000.0, 1e-3])
    W = np.zeros((7, 1))
    W[1, 0], W[3, 0] = 50.0, -99.5  # node 1 scores -99.00005, -49.00005; node 3 scores 0, -99.5
    b = np.array([1.0, -99.00005, 1.0, 0.0, 1.0, 1.0, 1.0])
    charge = big_m_charge(W, b, X, y, spec, sample_weight=s)
    assert (charge.points, charge.point, charge.node, charge.score) == (1, 1, 3, -99.5)
    assert charge.extra == pytest.approx(0.5e-3, rel=1e-12) and charge.big_m_needed == pytest.approx(100.5)


def test_weights_at_big_m_are_counted_each_on_either_side_and_only_for_the_l0_presets() -> None:
    """A limits check whose tolerance is 1e-5 M, whose lower limit is -M, that reads weights at +M only, counts nodes
    rather than weights, reports them only when a point is at a limit too, looks at the weights of a preset without L0
    rows (OLCT: no |w| <= M row) or of OCT-H (its rows use 1, not M), or counts a last-layer node's scores (no routing
    row bounds them: the charge's business)."""
    X = np.array([[0.1, 0.1]])
    sfs = make_spec("margot-sfs", 2, big_m=10.0, epsilon=0.5)
    W = np.zeros((3, 2))
    W[0, 0] = 1.0  # the root scores 0.1: within its rows' limits
    W[2, 0], W[2, 1] = -(10.0 - 5e-6), 10.0  # node 2 scores 5e-7: a last-layer node anyway
    limit = big_m_limits(W, np.zeros(3), X, sfs)
    assert (limit.points, limit.weights, limit.weight_node, limit.weight_feature) == (0, 2, 2, 0)
    # a root score 5e-6 M below M is off the limit (the tolerance is 1e-6 M), one 5e-7 M below is at it
    for gap, points in ((5e-5, 0), (5e-6, 1)):
        b = np.array([10.0 - gap - 0.1, 0.0, 0.0])
        assert big_m_limits(W, b, X, sfs).points == points
    # the lower limit is epsilon - M = -9.5, not -M
    assert big_m_limits(W, np.array([-9.5 - 0.1, 0.0, 0.0]), X, sfs).points == 1
    olct = make_spec("olct", 2, big_m=10.0)
    W2 = np.zeros((3, 2))
    W2[0, 0], W2[2, 0] = 1.0, 200.0  # node 2 scores 20 > M: not a routing node
    assert (big_m_limits(W2, np.zeros(3), X, olct).points, big_m_limits(W2, np.zeros(3), X, olct).weights) == (0, 0)
    octh = make_spec("oct-h", 1, big_m=1.0)
    assert big_m_limits(np.array([[1.0, 0.0]]), np.zeros(1), X, octh).weights == 0


# ---------------------------------------------------------------- the MILP object


def test_worst_bound_names_the_column_farthest_outside_either_bound() -> None:
    """A worst_bound that checks the upper bounds only or takes the column least outside (decode names it in "the
    values violate the bounds of column ..."): x0 = -0.5 is 0.5 below its bound 0, x3 = 3.25 0.25 above its 3."""
    m = small_milp()
    x = np.array([-0.5, 0.0, 0.0, 3.25, 0.5, 0.5])
    assert m.worst_bound(x) == ("w_pos_3", 0.5)
    assert m.violation(x)["bounds"] == 0.5
    assert m.worst_bound(np.array([0.0, 0.0, 0.0, 3.25, 0.5, 0.5])) == ("v_0_9", 0.25)


def test_a_point_inside_every_bound_violates_nothing_and_nnz_counts_nonzeros() -> None:
    """A violation that reports the (negative) slack of a point strictly inside all bounds as its bound violation,
    an is_binary that ignores the lower bound (an integer in [-1, 1] is no binary), an nnz that counts rows."""
    m = small_milp()
    x = np.array([1.0, 0.5, 0.5, 1.5, 0.5, 0.5])
    assert m.violation(x)["bounds"] == 0.0
    assert m.nnz == 6 and (m.n_rows, m.n_cols) == (3, 6)
    lb = np.array([0.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    assert dataclasses.replace(m, lb=lb).is_binary.tolist() == [False, False, True, False, False, False]
