"""Edges of the greedy warm start and of refinement that a mutation pass found unpinned.

Each test names the behaviour it pins; these were mutants of the code, not bugs seen in olctc. Data are real
(a subset of the vendored heart set, standardised). Three tests inject a fault no real input reaches (monkeypatch):
refinement's node fit returning a worse point, or the node unchanged (the exact fit reaches neither the "worse"
branch nor an exact tie), and a start whose xi sit 1e-6 below their rows (the start's own check).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import olctc.refine as refine_module
import olctc.warmstart as warmstart_module
from olctc.data import Scaler
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.formulation.losses import tangent_lines
from olctc.formulation.topology import Topology
from olctc.refine import fit_l1_logistic, l1_logistic_objective, polish_deadline, refine
from olctc.spec import make_spec
from olctc.warmstart import (LeafTooSmall, _band_shift, _constant_b, _hinge_share, admissible_tree, complete_start,
                             greedy_tree, leaf_sizes_error, over_budget, score_cap, warm_start)

ROWS = np.arange(0, 297, 3)  # 99 heart points


@functools.lru_cache(maxsize=None)
def _heart() -> tuple[np.ndarray, np.ndarray]:
    ds = load("heart").subset(ROWS)
    return Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)


def heart() -> tuple[np.ndarray, np.ndarray]:
    """Standardised heart subset (copies: tests may edit them)."""
    X, y = _heart()
    return X.copy(), y.copy()


def leaf_points(W: np.ndarray, b: np.ndarray, X: np.ndarray, spec, node: int, threshold: float = 0.0) -> np.ndarray:
    """Indices of the points that the tree (W, b) routes to last-layer ``node``."""
    return np.flatnonzero(Topology(spec.depth).route(X @ W.T + b, threshold) == node)


# ---------------------------------------------------------------- constant nodes


def test_constant_node_intercepts_at_ties_and_on_no_points():
    """A constant node's b: on no points 0; balanced classes give 0 for the tangent losses (the flat minimum's
    point nearest 0, not its left end) and -1 for OCT-H's 0/1 loss (the +1 class needs a strict majority)."""
    balanced, none = np.array([1.0, -1.0, 1.0, -1.0]), np.zeros(0)
    for preset in ("olct", "margot", "oct-h"):
        assert _constant_b(none, make_spec(preset, depth=2)) == 0.0
    assert _constant_b(balanced, make_spec("olct", depth=2)) == 0.0
    assert _constant_b(balanced, make_spec("margot", depth=2)) == 0.0
    assert _constant_b(balanced, make_spec("oct-h", depth=2)) == -1.0
    assert _constant_b(balanced, make_spec("oct-h", depth=2), np.array([1.0, 1.0, 2.0, 1.0])) == 1.0


@pytest.mark.parametrize("labels", [[1.0, 1.0, -1.0], [1.0, 1.0, 1.0, -1.0], [1.0] + [-1.0] * 6])
def test_constant_node_intercept_minimises_the_tangent_loss(labels):
    """With V2's eight tangents the best constant b lies where two tangents cross (not where one reaches 0): it
    is the minimum of n_pos L(b) + n_neg L(-b) over a fine grid."""
    spec = make_spec("olct", depth=2, tangents="V2")
    g, c = tangent_lines(spec)
    y = np.array(labels)
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())

    def phi(u: np.ndarray) -> np.ndarray:
        def L(v: np.ndarray) -> np.ndarray:
            return np.maximum(0.0, np.max(c[None, :] - g[None, :] * v[:, None], axis=1))
        return n_pos * L(u) + n_neg * L(-u)

    b = _constant_b(y, spec)
    assert phi(np.array([b]))[0] <= phi(np.linspace(-10.0, 10.0, 200_001)).min() + 1e-12


def test_constant_node_intercept_stays_within_half_the_cap():
    """A constant node's b is clipped into half the score cap (room for the band shift): hinge's kink at 1 is
    beyond it when big-M is 1."""
    spec = make_spec("margot", depth=2, big_m=1.0)
    assert _constant_b(np.array([1.0, 1.0, -1.0]), spec) == pytest.approx(score_cap(spec) / 2, rel=1e-15)
    assert _constant_b(np.array([-1.0, 1.0, -1.0]), spec) == pytest.approx(-score_cap(spec) / 2, rel=1e-15)


def test_the_band_shift_lands_band_points_just_below_zero():
    """The band shift moves a score in (0, epsilon) to a thousandth of epsilon below 0, not further."""
    spec = make_spec("olct", depth=2, epsilon=1e-4)
    assert _band_shift(np.array([-1.0, 4e-5, 2.0]), spec) == pytest.approx(4e-5 + 1e-7, rel=1e-12)
    assert _band_shift(np.array([-1.0, 0.0, 1e-4]), spec) == 0.0


# ---------------------------------------------------------------- min_leaf and budget checks


def test_leaf_sizes_error_allows_empty_leaves_and_names_the_first_small_one():
    """min_leaf: a last-layer node holds none or at least min_leaf points; the first offending node is named."""
    topo = Topology(2)
    assert leaf_sizes_error(np.array([0, 5]), topo, 5) is None
    assert leaf_sizes_error(np.array([2, 1]), topo, 0) is None
    why = leaf_sizes_error(np.array([5, 2, 0, 1]), Topology(3), 3)
    assert why == ("last-layer node 4 holds 2 training point(s), fewer than min_leaf 3 (a node holds none or at "
                   "least min_leaf)")


def test_a_node_at_the_hard_budget_is_within_it():
    """over_budget flags a node with more than B nonzero weights, not one with exactly B."""
    spec = make_spec("margot-hfs", depth=2, budget=2)
    W = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    assert over_budget(W, spec) == (2, 3)
    assert over_budget(W[:2].repeat([1, 2], axis=0), spec) is None
    assert over_budget(W, make_spec("margot-sfs", depth=2, budget=2)) is None  # a soft budget is no limit


# ---------------------------------------------------------------- the node fit


def test_an_intercept_only_fit_is_the_weighted_log_odds():
    """With no features the L1 logistic optimum is b = log(positive mass / negative mass)."""
    y = np.array([1.0, 1.0, 1.0, -1.0])
    w, b = fit_l1_logistic(np.zeros((4, 0)), y, 1.0)
    assert w.shape == (0,) and b == pytest.approx(np.log(3.0), rel=1e-15)
    _, b = fit_l1_logistic(np.zeros((4, 0)), y, 1.0, sample_weight=np.array([1.0, 1.0, 1.0, 6.0]))
    assert b == pytest.approx(np.log(0.5), rel=1e-15)


def test_fit_l1_logistic_refuses_a_zero_C_and_bad_weights():
    """C must be > 0; weights finite, >= 0, and some > 0 in each class."""
    X, y = heart()
    with pytest.raises(OlctcError, match="'C' parameter must be a finite number > 0"):
        fit_l1_logistic(X, y, 0.0)
    bad = np.ones(y.size)
    bad[0] = -1.0
    with pytest.raises(OlctcError, match="finite and >= 0"):
        fit_l1_logistic(X, y, 1.0, sample_weight=bad)
    with pytest.raises(OlctcError, match="each class a weight > 0"):
        fit_l1_logistic(X, y, 1.0, sample_weight=(y > 0).astype(float))


def test_an_inner_polish_deadline_gives_the_outer_one_back():
    """polish_deadline blocks nest: leaving an inner block restores the outer deadline (a passed one still stops
    the polish)."""
    X, y = heart()
    with polish_deadline(0.0) as outer:
        with polish_deadline(None) as inner:
            fit_l1_logistic(X, y, 1.0)
        assert inner == [] and outer == []
        fit_l1_logistic(X, y, 1.0)
    assert outer == [True]


# ---------------------------------------------------------------- refinement


def greedy(spec, **kw) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, b, X, y): the greedy tree of ``spec`` on the heart subset."""
    X, y = heart()
    W, b = greedy_tree(X, y, spec, **kw)
    return W, b, X, y


def test_refinement_fits_the_last_layer_at_the_last_layers_C():
    """Per-layer C: each refit leaf of a tree grown at C = 0.05 is the exact L1 logistic optimum of its points at C of
    the last layer (20), and the report records the refit's lower share."""
    spec = make_spec("olct", depth=2, C=(0.05, 20.0))
    W, b, X, y = greedy(make_spec("olct", depth=2, C=0.05))
    W2, b2, rep = refine(W, b, X, y, spec)
    assert rep.nodes_refit == [1, 2]
    for d in rep.details:
        pts = leaf_points(W, b, X, spec, d.node)
        best = l1_logistic_objective(*fit_l1_logistic(X[pts], y[pts], 20.0), X[pts], y[pts], 20.0)
        got = l1_logistic_objective(W2[d.node], b2[d.node], X[pts], y[pts], 20.0)
        assert got == pytest.approx(best, rel=1e-7)
        assert d.share_after == pytest.approx(got, rel=1e-12) and d.share_after < d.share_before - 1.0
        assert d.n_points == pts.size and d.n_positive == int((y[pts] > 0).sum())


def test_refinement_weighs_points_by_the_specs_class_weights():
    """Class weights (spec) weigh each point's loss as the same sample weights do."""
    spec = make_spec("olct", depth=2)
    W, b, X, y = greedy(spec)
    _, _, by_class = refine(W, b, X, y, make_spec("olct", depth=2, class_weight=(1.0, 4.0)))
    _, _, by_sample = refine(W, b, X, y, spec, sample_weight=np.where(y > 0, 4.0, 1.0))
    _, _, plain = refine(W, b, X, y, spec)
    assert by_class.objective_before == pytest.approx(by_sample.objective_before, rel=1e-12)
    assert by_class.objective_after == pytest.approx(by_sample.objective_after, rel=1e-7)
    assert by_class.objective_after > plain.objective_after + 1.0


def test_a_leaf_whose_other_class_weighs_nothing_is_one_class():
    """A leaf holding both labels but only one class of weight > 0 is not refit ("one class"), with its counts."""
    spec = make_spec("olct", depth=1)
    X, y = heart()
    W, b = np.zeros((1, X.shape[1])), np.zeros(1)
    W[0, 0] = 0.5
    W2, b2, rep = refine(W, b, X, y, spec, sample_weight=(y > 0).astype(float))
    (d,) = rep.details
    assert (d.status, d.n_points, d.n_positive) == ("one class", y.size, int((y > 0).sum()))
    assert rep.nodes_kept == [0] and rep.nodes_refit == []
    assert np.array_equal(W2, W) and np.array_equal(b2, b)


def test_an_empty_leaf_keeps_its_weights_and_their_norm_as_share():
    """A leaf no point reaches is not refit; its share of the objective is its ||w||_1."""
    spec = make_spec("olct", depth=2)
    X, y = heart()
    W, b = np.zeros((3, X.shape[1])), np.array([-1.0, 0.0, 0.0])  # the root sends every point left
    W[2, :2] = [1.0, -2.0]
    W2, _, rep = refine(W, b, X, y, spec)
    empty = next(d for d in rep.details if d.node == 2)
    assert (empty.status, empty.n_points, empty.n_positive) == ("empty", 0, 0)
    assert empty.share_before == empty.share_after == 3.0
    assert rep.nodes_refit == [1] and rep.nodes_kept == [2] and np.array_equal(W2[2], W[2])


def test_a_refit_that_would_raise_the_objective_is_discarded(monkeypatch):
    """A node fit that lands above the current tree is not kept: the node is listed as kept ("worse"), the tree and
    the objective are those before."""
    spec = make_spec("olct", depth=2)
    W, b, X, y = greedy(spec)
    monkeypatch.setattr(refine_module, "fit_l1_logistic", lambda X, y, C, **kw: (np.zeros(X.shape[1]), 10.0))
    W2, b2, rep = refine(W, b, X, y, spec)
    assert [d.status for d in rep.details] == ["worse", "worse"]
    assert rep.nodes_kept == [1, 2] and rep.nodes_refit == []
    assert rep.objective_after == rep.objective_before
    assert all(d.share_after == d.share_before for d in rep.details)
    assert np.array_equal(W2, W) and np.array_equal(b2, b)


def test_a_refit_that_leaves_the_objective_equal_is_kept(monkeypatch):
    """A refit is kept when the exact objective does not increase: a node fit returning the node as it is (same
    objective, to the bit) counts as refit."""
    spec = make_spec("olct", depth=2)
    W, b, X, y = greedy(spec)
    leaves = iter([(W[1], b[1]), (W[2], b[2])])
    monkeypatch.setattr(refine_module, "fit_l1_logistic", lambda X, y, C, **kw: next(leaves))
    W2, _, rep = refine(W, b, X, y, spec)
    assert [d.status for d in rep.details] == ["refit", "refit"] and rep.nodes_refit == [1, 2]
    assert rep.objective_after == rep.objective_before and np.array_equal(W2, W)


def test_refinement_routes_at_the_given_threshold():
    """The leaves are the ones the threshold routes to: a point scoring in (0, threshold] goes left."""
    spec = make_spec("olct", depth=2)
    W, b, X, y = greedy(spec)
    s = X @ W[0] + b[0]
    thr = float(np.sort(s[s > 0])[3])  # four points that go right at 0 go left here
    _, _, rep = refine(W, b, X, y, spec, threshold=thr)
    assert [d.n_points for d in rep.details] == [leaf_points(W, b, X, spec, t, thr).size for t in (1, 2)]
    assert rep.details[0].n_points == int((s <= 0).sum()) + 4


def test_refinement_refuses_a_non_finite_intercept_and_misshapen_weights():
    """b must be finite as W must; sample_weight must hold one weight per point."""
    spec = make_spec("olct", depth=2)
    X, y = heart()
    W = np.zeros((3, X.shape[1]))
    with pytest.raises(OlctcError, match="W and b must be finite"):
        refine(W, np.array([0.0, np.inf, 0.0]), X, y, spec)
    with pytest.raises(OlctcError, match=r"sample_weight has shape \(98,\); expected one weight per point \(99,\)"):
        refine(W, np.zeros(3), X, y, spec, sample_weight=np.ones(98))


def test_univariate_refinement_says_the_budget_is_kept():
    """olct-univariate's report says each node was refit on the features it already uses; olct's says nothing."""
    spec = make_spec("olct-univariate", depth=2)
    W, b, X, y = greedy(spec)
    assert refine(W, b, X, y, spec)[2].message == ("olct-univariate: each node refit on the feature(s) it already "
                                                   "uses (budget kept)")
    assert refine(W, b, X, y, make_spec("olct", depth=2))[2].message == ""


# ---------------------------------------------------------------- the greedy tree


def test_a_node_with_exactly_min_points_points_is_fit():
    """min_points: a node with fewer points is constant, one with exactly min_points is fit; 0 is refused."""
    spec = make_spec("olct", depth=1)
    X, y = heart()
    W, _ = greedy_tree(X, y, spec, min_points=y.size)
    assert np.count_nonzero(W) > 0
    W, b = greedy_tree(X, y, spec, min_points=y.size + 1)
    assert not W.any() and b[0] == _constant_b(y, spec)
    with pytest.raises(OlctcError, match="'min_points' parameter must be an integer >= 1"):
        greedy_tree(X, y, spec, min_points=0)


@pytest.mark.parametrize("preset", ["olct", "margot", "oct-h"])
def test_each_layer_is_fit_at_its_own_C(preset):
    """Per-layer C: the root of C = (a, b) is the one of C = (a, a), the layer below is not (nor the root of
    (b, b))."""
    X, y = heart()
    W, b = greedy_tree(X, y, make_spec(preset, depth=2, C=(1e-4, 10.0)))
    Wa, ba = greedy_tree(X, y, make_spec(preset, depth=2, C=1e-4))
    Wb, bb = greedy_tree(X, y, make_spec(preset, depth=2, C=10.0))
    assert np.array_equal(W[0], Wa[0]) and b[0] == ba[0]
    assert not (np.array_equal(W[0], Wb[0]) and b[0] == bb[0])
    assert not (np.array_equal(W[1:], Wa[1:]) and np.array_equal(b[1:], ba[1:]))


def test_a_root_fit_to_zero_weights_takes_the_models_constant():
    """A logistic node whose fit has w = 0 gets the model loss's best constant b, not the fit's log-odds."""
    spec = make_spec("olct", depth=1, C=1e-3)
    X, y = heart()
    W, b = greedy_tree(X, y, spec)
    assert not W.any() and b[0] == _constant_b(y, spec)
    assert abs(b[0] - np.log((y > 0).sum() / (y < 0).sum())) > 0.5


def test_a_small_node_gets_the_exact_l1_logistic_fit():
    """Nodes below EXACT_FIT_CELLS get the polished (exact) fit, not liblinear's rough one."""
    spec = make_spec("olct", depth=1, C=0.5)
    X, y = heart()
    W, b = greedy_tree(X, y, spec)
    best = l1_logistic_objective(*fit_l1_logistic(X, y, 0.5), X, y, 0.5)
    assert l1_logistic_objective(W[0], b[0], X, y, 0.5) == pytest.approx(best, rel=1e-9)
    assert l1_logistic_objective(*fit_l1_logistic(X, y, 0.5, polish=False), X, y, 0.5) > best + 1e-4


@pytest.mark.parametrize("preset, depth, atol, moved", [("olct", 2, 1e-7, 0.1), ("margot", 1, 1e-6, 1e-3)])
def test_greedy_fits_weigh_the_points(preset: str, depth: int, atol: float, moved: float):
    """Weight 2 on every point fits every node as C doubled (loss C sum_i s_i l_i), the logistic fits and
    MARGOT's SVM alike."""
    X, y = heart()
    W1, b1 = greedy_tree(X, y, make_spec(preset, depth=depth), sample_weight=np.full(y.size, 2.0))
    W2, b2 = greedy_tree(X, y, make_spec(preset, depth=depth, C=2.0))
    W0, _ = greedy_tree(X, y, make_spec(preset, depth=depth))
    np.testing.assert_allclose(W1, W2, atol=atol)
    np.testing.assert_allclose(b1, b2, atol=atol)
    assert np.abs(W1 - W0).max() > moved


def test_a_margot_nodes_share_is_its_hinge_loss_half_its_squared_norm_and_the_soft_budget():
    """The share MARGOT's greedy node compares (fit, top-B refit, constant): C sum hinge + ||w||^2 / 2, plus
    alpha max(0, ||w||_0 - B) for margot-sfs."""
    X, y = heart()
    w = np.zeros(X.shape[1])
    w[:4] = [0.5, -1.0, 2.0, 1e-10]  # the last is below ZERO_WEIGHT: not counted
    hinge = float(np.maximum(0.0, 1.0 - y * (X @ w + 0.25)).sum())
    for spec, l0 in ((make_spec("margot", depth=1), 0.0), (make_spec("margot-sfs", depth=1, budget=2, alpha=3.0), 3.0)):
        assert _hinge_share(w, 0.25, X, y, 2.0, spec, None) == pytest.approx(2.0 * hinge + 2.625 + l0, rel=1e-12)


def test_the_soft_budget_charges_only_weights_beyond_it():
    """margot-sfs: alpha max(0, ||w||_0 - B) charges nothing when the SVM uses B = p features, so even alpha = 1000
    keeps the fit over the constant node."""
    X, y = heart()
    W, _ = greedy_tree(X, y, make_spec("margot-sfs", depth=1, budget=X.shape[1], alpha=1e3))
    assert np.count_nonzero(W) == X.shape[1]


def test_margot_sfs_keeps_the_budget_refit_only_when_it_scores_better():
    """margot-sfs, B = 1: the SVM on all 13 features is kept while alpha is small; at alpha = 10 the refit on its top
    feature scores better and is kept."""
    X, y = heart()
    W, _ = greedy_tree(X, y, make_spec("margot-sfs", depth=1, budget=1, alpha=0.0))
    assert np.count_nonzero(W) == X.shape[1]
    W, _ = greedy_tree(X, y, make_spec("margot-sfs", depth=1, budget=1, alpha=10.0))
    assert np.count_nonzero(W) == 1


def test_oct_h_keeps_the_first_start_direction_of_equal_share():
    """OCT-H's root on this subset: the L1 logistic directions at C = 1 (13 errors, 10 weights) and C = 0.1 (19
    errors, 4 weights) tie at share 23; the first of OCTH_START_C is kept."""
    X, y = heart()
    W, _ = greedy_tree(X, y, make_spec("oct-h", depth=2))
    for c, nnz in ((1.0, 10), (0.1, 4)):
        assert np.count_nonzero(fit_l1_logistic(X, y, c)[0]) == nnz
    assert np.count_nonzero(W[0]) == 10


def test_min_leaf_makes_a_too_small_split_constant_and_keeps_one_of_exactly_min_leaf():
    """min_leaf: a routing node whose sides hold 46 and 53 points keeps its split at min_leaf 46; at 47 it becomes
    the constant node (all points to one child), whose b weighs the points; a last-layer node is never made
    constant for its sign split."""
    X, y = heart()
    W, b = greedy_tree(X, y, make_spec("olct", depth=2))
    assert int((X @ W[0] + b[0] > 0).sum()) == 46
    W, _ = greedy_tree(X, y, make_spec("olct", depth=2, min_leaf=46))
    assert W[0].any()
    spec = make_spec("olct", depth=2, min_leaf=47)
    W, b = greedy_tree(X, y, spec)
    assert not W[0].any() and b[0] == _constant_b(y, spec) < 0
    sw = np.where(y > 0, 3.0, 1.0)
    W, b = greedy_tree(X, y, spec, sample_weight=sw)
    assert not W[0].any() and b[0] == _constant_b(y, spec, sw) > 0
    W, _ = greedy_tree(X, y, make_spec("olct", depth=1, min_leaf=60))
    assert W[0].any()


def test_a_given_root_that_breaks_min_leaf_is_made_constant():
    """A given top layer faces min_leaf as a fitted one does: a root sending 5 points right, at min_leaf 10,
    becomes constant and the layer below is fit on all points."""
    X, y = heart()
    Wt, bt = root_split(X, 5)
    spec = make_spec("olct", depth=2, min_leaf=10)
    W, b = greedy_tree(X, y, spec, top=(Wt[:1], bt[:1]))
    assert not W[0].any() and b[0] == _constant_b(y, spec) and W[1].any()
    W, b = greedy_tree(X, y, make_spec("olct", depth=2), top=(Wt[:1], bt[:1]))
    assert np.array_equal(W[0], Wt[0]) and b[0] == bt[0]


# ---------------------------------------------------------------- admissibility


def test_oct_h_weights_are_scaled_into_the_unit_l1_ball():
    """OCT-H's ||w||_1 <= 1: a node of norm 1.5 is scaled by 2/3, and the change is noted."""
    X, y = heart()
    W = np.zeros((1, X.shape[1]))
    W[0, :2] = [0.9, 0.6]
    W2, b2, notes = admissible_tree(W, np.array([0.3]), X, make_spec("oct-h", depth=1))
    assert np.abs(W2).sum() == pytest.approx(1.0, rel=1e-15) and b2[0] == pytest.approx(0.2, rel=1e-15)
    assert notes == ["node 0: (w, b) scaled by 0.666667 so that ||w||_1 <= 1 (OCT-H)"]


def test_an_intercept_beyond_the_cap_is_scaled_back_to_it():
    """The cap bounds |w.x + b|, intercept included: a root of w = 0, b = 500 is scaled into the cap (less the band
    shift's room); one 1e-7 above that scaled value is scaled back to it, and the value itself is left alone."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    W = np.zeros((3, X.shape[1]))
    _, b2, notes = admissible_tree(W, np.array([500.0, 0.0, 0.0]), X, spec)
    assert score_cap(spec) - 0.01 < b2[0] < score_cap(spec)
    assert notes[0].startswith("node 0: (w, b) scaled by 0.199998 ")
    _, b3, notes = admissible_tree(W, np.array([b2[0] * (1 + 1e-7), 0.0, 0.0]), X, spec)
    assert b3[0] == pytest.approx(b2[0], rel=1e-15) and notes == [
        "node 0: (w, b) scaled by 0.9999999 so that |score| <= 99.999 (big-M 100)"]
    assert admissible_tree(W, b2, X, spec)[2] == []


def test_a_weight_of_exactly_zero_weight_is_zeroed_for_l0_presets():
    """L0 presets: a weight at ZERO_WEIGHT (1e-9) counts as zero for the objective, so the start sets it to 0 (delta
    = 0 then agrees); one just above is kept."""
    X, y = heart()
    W = np.zeros((1, X.shape[1]))
    W[0, :3] = [1e-9, np.nextafter(1e-9, 1.0), 0.5]
    W2, _, notes = admissible_tree(W, np.zeros(1), X, make_spec("olct-univariate", depth=1))
    assert W2[0, :3].tolist() == [0.0, np.nextafter(1e-9, 1.0), 0.5]
    assert notes == ["node 0: 1 weight(s) of size <= 1e-09 set to 0"]


def test_a_node_no_scaling_can_admit_becomes_the_zero_node():
    """Features so large (1e11) that zeroing the tiny weights after scaling would move a score past big-M (an L0
    preset): the node is set to w = 0, b = 0, and the note says why."""
    X, y = heart()
    X[:, 0] *= 1e11
    W = np.zeros((1, X.shape[1]))
    W[0, 0] = 1e-12
    W2, b2, notes = admissible_tree(W, np.array([0.5]), X, make_spec("oct-h", depth=1))
    assert not W2.any() and b2[0] == 0.0
    assert len(notes) == 1 and notes[0].startswith("node 0: no scaling of (w, b) fits big-M 100 (epsilon 1e-05, ")
    assert notes[0].endswith("); node set to w = 0, b = 0")


def test_the_band_shift_looks_at_the_points_reaching_the_node_and_routing_layers_only():
    """Only points that reach a node and only routing nodes (and OCT-H's predicting last layer) are shifted out of
    (0, epsilon): a point of the other subtree scoring in the band, and an olct leaf's scores, are left alone."""
    X, y = heart()
    eps = 1e-5
    W, b = np.zeros((3, X.shape[1])), np.zeros(3)
    x0 = np.sort(np.unique(X[:, 0]))
    W[0, 0], b[0] = 1.0, -(x0[-3] + x0[-4]) / 2  # the three largest values go right
    W[1, 0], b[1] = 1.0, eps / 2 - x0[-1]  # in node 1's band: only the largest value, which goes right
    b[2] = eps / 2  # every point of node 2 in the band
    W2, b2, notes = admissible_tree(W, b, X, make_spec("olct", depth=2, epsilon=eps))
    assert np.array_equal(W2, W) and np.array_equal(b2, b) and notes == []
    W2, b2, notes = admissible_tree(W, b, X, make_spec("oct-h", depth=2, epsilon=eps))
    assert b2[1] == b[1] and -eps < b2[2] < 0 and notes == [f"node 2: b shifted by {b2[2] - b[2]:.3g} so "
                                                            "that no point scores in (0, epsilon)"]


def test_a_score_of_zero_routes_left_while_making_nodes_admissible():
    """Routing between layers sends a score of 0 left (right only above epsilon / 2): a root of w = 0, b = 0 sends
    every point to node 1, whose band is then shifted, and node 2, reached by none, is left alone."""
    X, y = heart()
    eps = 1e-5
    W, b = np.zeros((7, X.shape[1])), np.zeros(7)
    b[1] = b[2] = eps / 2
    _, b2, notes = admissible_tree(W, b, X, make_spec("olct", depth=3, epsilon=eps))
    assert -eps < b2[1] < 0 and b2[2] == eps / 2 and len(notes) == 1 and notes[0].startswith("node 1: b shifted")


# ---------------------------------------------------------------- warm start from given trees


def root_split(X: np.ndarray, k: int, depth: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A tree whose root sends the points of the k largest values of feature 0 right (fewer with ties); other nodes
    zero."""
    W, b = np.zeros((2 ** depth - 1, X.shape[1])), np.zeros(2 ** depth - 1)
    s = np.sort(X[:, 0])
    W[0, 0], b[0] = 1.0, -(s[-k] + s[-k - 1]) / 2
    return W, b


def test_of_equal_trees_the_first_is_kept_and_deepening_reported():
    """Trees of equal MILP objective: the first is kept. A greedy tree given by its top layer ties with its own
    greedy deepening: the copies (tried first) are kept and reported as such; a tree given whole is not deepened."""
    spec = make_spec("olct", depth=2)
    W, b, X, y = greedy(spec)
    milp = build_milp(X, y, spec)
    assert warm_start(milp, X, y, spec, tree=[(W, b), (W, b)])[1]["tree"] == 0
    info = warm_start(milp, X, y, spec, tree=(W, b), given_layers=1)[1]
    assert (info["tree"], info["deepened"]) == (0, "copies")
    assert "deepened" not in warm_start(milp, X, y, spec, tree=(W, b), given_layers=2)[1]


def test_a_greedy_deepening_keeps_the_given_layers():
    """The greedy layers of a deepened start are fit under the given root, which stays as given."""
    spec = make_spec("olct", depth=2)
    X, y = heart()
    W, b = root_split(X, 40)
    W[1:], b[1:] = W[0], b[0]  # the copies
    info = warm_start(build_milp(X, y, spec), X, y, spec, tree=(W, b), given_layers=1)[1]
    assert info["deepened"] == "greedy"
    assert np.array_equal(info["W"][0], W[0]) and info["b"][0] == b[0]
    assert np.count_nonzero(info["W"][1:]) > 2


def test_when_every_tree_breaks_min_leaf_the_first_refusal_is_raised():
    """min_leaf: of trees that all break the rule, the first one's reason is given; one that obeys it is kept."""
    spec = make_spec("olct", depth=2, min_leaf=30)
    X, y = heart()
    milp = build_milp(X, y, spec)
    with pytest.raises(LeafTooSmall, match=r"last-layer node 2 holds 5 training point\(s\), fewer than min_leaf 30"):
        warm_start(milp, X, y, spec, tree=[root_split(X, 5), root_split(X, 10)])
    assert warm_start(milp, X, y, spec, tree=[root_split(X, 5), root_split(X, 40)])[1]["tree"] == 1


def test_a_min_leaf_start_marks_an_empty_leaf_unused():
    """min_leaf 47: the greedy root is constant, node 2 holds no point; its ``used`` column is 0 (1 would ask it to
    hold 47 points) and the start is feasible."""
    spec = make_spec("olct", depth=2, min_leaf=47)
    X, y = heart()
    milp = build_milp(X, y, spec)
    x, info = warm_start(milp, X, y, spec)
    assert milp.values(x, "used").tolist() == [1.0, 0.0] and milp.values(x, "z").sum(axis=1).tolist() == [99.0, 0.0]
    assert info["violation"]["rows"] <= 1e-9 and info["objective_matches"]


def test_a_start_violating_a_row_by_1e_6_is_refused(monkeypatch):
    """The completed start is checked against every row to 1e-9: positive xi lowered by 1e-6 (bounds kept) are
    reported infeasible."""
    spec = make_spec("olct", depth=1)
    X, y = heart()
    milp = build_milp(X, y, spec)
    assemble = warmstart_module._assemble

    def low_xi(*args) -> np.ndarray:
        x = assemble(*args)
        xi = x[milp.col_block("xi").slice]  # a view
        xi[xi > 1e-3] -= 1e-6  # the bounds (xi >= 0) still hold: only rows break
        return x

    monkeypatch.setattr(warmstart_module, "_assemble", low_xi)
    with pytest.raises(AssertionError, match="warm start infeasible: worst row"):
        warm_start(milp, X, y, spec)


def test_a_start_for_a_model_of_another_loss_names_the_q_block():
    """A MILP built for OCT-H (it has the q block) completed for olct is refused by the q block, the first
    difference."""
    X, y = heart()
    milp = build_milp(X, y, make_spec("oct-h", depth=1))
    W, b = np.zeros((1, X.shape[1])), np.zeros(1)
    with pytest.raises(OlctcError, match=r"the MILP was not built for preset 'olct' \(q block present\)"):
        complete_start(milp, X, y, make_spec("olct", depth=1), W, b)


def test_a_large_objective_matches_the_tree_to_a_relative_tolerance():
    """At C = 1e9 the objective is 4e10: the MILP's and the tree's agree to rounding (1e-5 absolute), which
    is a match (relative tolerance), with no warning."""
    spec = make_spec("olct", depth=2, C=1e9)
    X, y = heart()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        info = warm_start(build_milp(X, y, spec), X, y, spec)[1]
    assert info["objective_matches"] and info["tree_objective"] > 1e10
