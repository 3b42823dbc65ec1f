"""Second mutation pass over olctc.warmstart: behaviour no earlier test pinned.

Data are real (the heart subset of tests/test_warmstart_refine_mutation_gaps.py, standardised); the band-shift
cases are score vectors found by search whose rounding takes the corrections of ``_band_end``.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.objective import class_mass
from olctc.refine import fit_l1_logistic
from olctc.spec import make_spec
from olctc.warmstart import (LeafTooSmall, _band_shift, _constant_b, _top_features, admissible_tree, complete_start,
                             greedy_tree, score_cap, warm_start)
from test_warmstart_refine_mutation_gaps import heart


def test_the_score_cap_of_each_loss():
    """cap = M - epsilon (routing rows), tightened to M - 1 for hinge only when that is >= half of it (the
    boundary, M = 1.75 at epsilon 0.25, is tightened); logistic V0's loss cap M is no tightening; a depth-1
    tangent tree has no cap, a depth-1 OCT-H tree has."""
    assert score_cap(make_spec("olct", depth=2)) == 100.0 - 1e-5
    assert score_cap(make_spec("margot", depth=2)) == 99.0
    assert score_cap(make_spec("margot", depth=2, big_m=1.75, epsilon=0.25)) == 0.75
    assert score_cap(make_spec("margot", depth=2, big_m=1.5, epsilon=0.25)) == 1.25
    assert score_cap(make_spec("olct", depth=1)) == np.inf
    assert score_cap(make_spec("oct-h", depth=1)) == 100.0 - 1e-5


def test_the_band_shift_takes_the_rounding_corrections_of_the_band_end():
    """The band of a pass is found by binary search on s < D + eps, then corrected to the exact test s - D < eps:
    a score the search leaves out but that rounds into the band is shifted (else it stays in (0, eps)), one the
    search takes but that rounds out is not, and a score landing exactly on 0 is not shifted again."""
    spec = make_spec("olct", depth=2, epsilon=1e-5)
    a, v = 1.3687617154257523e-06, 1.1378761715425752e-05  # v >= fl(D + eps) yet v - D < eps after pass 1
    D = _band_shift(np.array([a, v]), spec)
    assert D > v  # v shifted below 0 too
    assert not (0.0 < v - D < 1e-5) and not (0.0 < a - D < 1e-5)
    spec = make_spec("olct", depth=2, epsilon=1e-3)
    a, v = 0.0006715764714494972, 0.0016725764714494971  # v < fl(D + eps) yet v - D >= eps
    assert _band_shift(np.array([a, v]), spec) == a + 1e-6
    a = 1e-3 - 5e-7
    v = a + 1e-6  # lands exactly on 0 after the first pass
    assert _band_shift(np.array([a, v]), spec) == a + 1e-6


def test_a_leaf_of_a_tangent_loss_is_scaled_to_the_cap_without_the_band_room():
    """A node that neither routes nor predicts by the band (an olct leaf) is scaled to the cap less the slack, not
    less the room the band shift of n points needs (1e-3 here)."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    _, b2, _ = admissible_tree(np.zeros((3, X.shape[1])), np.array([0.0, 500.0, 0.0]), X, spec)
    assert b2[1] == pytest.approx(score_cap(spec) - 1e-8, abs=1e-12)


def test_the_band_room_never_takes_more_than_half_the_cap():
    """With n (epsilon + slack) beyond the cap (epsilon 0.1, 99 points, big-M 1), a routing node is scaled into
    half the cap, not set to the zero node."""
    X, y = heart()
    spec = make_spec("olct", depth=2, big_m=1.0, epsilon=0.1)
    W, b2, notes = admissible_tree(np.zeros((3, X.shape[1])), np.array([5.0, 0.0, 0.0]), X, spec)
    assert b2[0] == pytest.approx(score_cap(spec) / 2 - 1e-4, rel=1e-12)
    assert notes[0].startswith("node 0: (w, b) scaled by ")


def test_a_node_a_rounding_above_its_scaled_cap_is_left_alone():
    """Admitting a node already scaled into the cap again is a no-op even when its scores recompute 5e-13
    (relative) above it: no rescaling, no note ("scaled by 1")."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    W = np.zeros((3, X.shape[1]))
    _, b2, _ = admissible_tree(W, np.array([500.0, 0.0, 0.0]), X, spec)
    b3 = b2 * (1 + 5e-13)
    _, b4, notes = admissible_tree(W, b3, X, spec)
    assert notes == [] and np.array_equal(b4, b3)


def test_oct_h_weights_need_not_be_within_a_big_m_below_1():
    """OCT-H links w to delta with M = 1 (||w||_1 <= 1), not big-M: at big-M 0.5 a weight 0.9 (small scores) is
    kept as it is."""
    X, y = heart()
    X = X * 0.01
    W = np.zeros((1, X.shape[1]))
    W[0, :2] = [0.9, 0.1]
    W2, _, notes = admissible_tree(W, np.zeros(1), X, make_spec("oct-h", depth=1, big_m=0.5))
    assert np.array_equal(W2, W) and notes == []


def test_an_l0_weight_beyond_big_m_is_scaled_into_its_bound():
    """olct-univariate bounds |w_j| <= big-M (delta link): a weight 150 whose scores are small is scaled to 100
    and the start is feasible."""
    X, y = heart()
    X = X * 1e-3
    spec = make_spec("olct-univariate", depth=1)
    milp = build_milp(X, y, spec)
    W = np.zeros((1, X.shape[1]))
    W[0, 0] = 150.0
    with pytest.warns(UserWarning, match=r"scaled by 0.666667 so that \|w_j\| <= big-M 100"):
        x = complete_start(milp, X, y, spec, W, np.zeros(1))
    assert milp.values(x, "w")[0, 0] == pytest.approx(100.0, rel=1e-15)


def test_a_near_tie_of_constant_intercepts_goes_to_the_better_one():
    """A constant node's b is the loss minimiser: a weighted majority of 1e-4 picks hinge's kink b = 1 (its loss
    is 1e-4 lower), not 0; only exact ties (to 1e-12) go to the value nearest 0."""
    spec = make_spec("margot", depth=2)
    y = np.array([1.0, -1.0])
    assert _constant_b(y, spec, np.array([1.0001, 1.0])) == 1.0
    assert _constant_b(y, spec, np.array([1.0, 1.0001])) == -1.0


def test_the_budget_keeps_the_largest_weights_by_size():
    """HFS keeps the B largest |w_j| (a large negative weight beats a small positive one), returned sorted."""
    assert _top_features(np.array([0.0, -3.0, 1.0, 2.0]), 2).tolist() == [1, 3]
    assert _top_features(np.array([0.5, 0.0, -0.1]), 5).tolist() == [0, 2]


def test_a_node_whose_other_class_weighs_nothing_is_constant():
    """A node holding both labels, one of weight 0 only, is one class for the fit: constant at the weighted best
    b (a fit would refuse a class without weight)."""
    X, y = heart()
    spec = make_spec("olct", depth=1)
    sw = (y > 0).astype(float)
    W, b = greedy_tree(X, y, spec, sample_weight=sw)
    assert not W.any() and b[0] == _constant_b(y, spec, sw) > 0


def test_a_constant_node_from_a_fit_weighs_the_points():
    """A logistic fit that ends constant (w = 0 at small C) takes the weighted best b: weights flipping the majority
    flip its sign."""
    X, y = heart()
    spec = make_spec("olct", depth=1, C=1e-3)
    sw = np.where(y > 0, 3.0, 1.0)
    W, b = greedy_tree(X, y, spec)
    assert not W.any() and b[0] == _constant_b(y, spec) < 0
    W, b = greedy_tree(X, y, spec, sample_weight=sw)
    assert not W.any() and b[0] == _constant_b(y, spec, sw) > 0


def test_oct_h_compares_only_last_layer_nodes_with_the_constant():
    """OCT-H at C = 1e-4: every direction's share (>= alpha) exceeds the constant's, so the leaves are constant,
    but the root, which routes, keeps its direction."""
    X, y = heart()
    W, _ = greedy_tree(X, y, make_spec("oct-h", depth=2, C=1e-4))
    assert W[0].any() and not W[1:].any()


def test_an_oct_h_leaf_beats_the_constant_only_below_the_minority_mass():
    """The constant leaf errs on the minority class: a direction whose share lies between the minority and the
    majority mass (alpha 7 here) loses to it."""
    X, y = heart()
    spec = make_spec("oct-h", depth=1, alpha=7.0)
    lo, hi = sorted(class_mass(y, None))
    shares = []
    for c in (1.0, 0.1, 10.0):
        w, b = fit_l1_logistic(X, y, c)
        f = max(1.0, float(np.abs(w).sum()))
        w, b = w / f, b / f
        shares.append(float(((X @ w + b > 0) != (y > 0)).sum()) + 7.0 * np.count_nonzero(w))
    assert lo <= min(shares) < hi
    W, _ = greedy_tree(X, y, spec)
    assert not W.any()


def test_a_given_root_sending_every_point_one_way_is_kept_under_min_leaf():
    """min_leaf judges sides holding 1 to min_leaf - 1 points: a given root sending all points right (the other
    side empty) is kept as given."""
    X, y = heart()
    W, b = np.zeros((1, X.shape[1])), np.array([10.0])
    W[0, 0] = 1.0
    W2, b2 = greedy_tree(X, y, make_spec("olct", depth=2, min_leaf=10), top=(W, b))
    assert np.array_equal(W2[0], W[0]) and b2[0] == 10.0


def test_a_pickled_leaf_too_small_keeps_its_reason():
    """LeafTooSmall crosses processes (olctc.background) with its short reason, not the whole message."""
    exc = LeafTooSmall("the tree cannot start this model: node 3 is small", "node 3 is small")
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), back.why) == (str(exc), "node 3 is small")


def test_a_milp_built_on_other_points_is_refused_by_its_z_block():
    """A MILP built on 50 of the 99 points (same features, same depth) is refused with the z block's shape."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    milp = build_milp(X[:50], y[:50], spec)
    with pytest.raises(OlctcError, match=r"the MILP's z block has shape \(2, 50\); X has 99 points and depth 2"):
        complete_start(milp, X, y, spec, np.zeros((3, X.shape[1])), np.zeros(3))


def test_a_milp_built_on_other_features_is_refused_by_its_w_block():
    """A MILP built on 5 of the 13 features is refused with the w block's shape, before any column is filled."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    milp = build_milp(X[:, :5], y, spec)
    with pytest.raises(OlctcError, match=r"the MILP's w block has shape \(3, 5\); the spec \(depth 2\) and X \(13"):
        complete_start(milp, X, y, spec, np.zeros((3, X.shape[1])), np.zeros(3))


def test_a_weighted_start_matches_the_weighted_tree_objective():
    """With sample weights, the tree's objective is weighed as the MILP's is: they match (no warning)."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    sw = np.where(y > 0, 3.0, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, info = warm_start(build_milp(X, y, spec, sample_weight=sw), X, y, spec, sample_weight=sw)
    assert info["objective_matches"] and info["objective"] == pytest.approx(info["tree_objective"], rel=1e-7)
    W, _ = greedy_tree(X, y, spec, sample_weight=sw)  # the start's tree is the weighted greedy tree
    np.testing.assert_allclose(info["W"], W, rtol=0, atol=1e-12)
    assert np.abs(W - greedy_tree(X, y, spec)[0]).max() > 1e-3


def test_an_empty_list_of_trees_is_an_error():
    """tree=[]: no start to keep, an AssertionError that says so (not a failed unpacking)."""
    X, y = heart()
    spec = make_spec("olct", depth=1)
    with pytest.raises(AssertionError, match="tree: an empty list of trees"):
        warm_start(build_milp(X, y, spec), X, y, spec, tree=[])
