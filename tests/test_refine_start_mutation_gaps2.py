"""Edges of refinement (``olctc.refine``) and of start trees (``olctc.start_tree``) that a third mutation pass found
unpinned: the report's objective bookkeeping under sample weights, the message a non-logistic tree gets at any
depth, a univariate refit's unused weights, start trees of another depth and the min_leaf refusal's advice.

Data are real (the vendored heart and haberman sets, standardised); shares are checked against the L1 logistic
objective of the routed points computed here, the objectives against ``tree_objective``. No solver runs.
"""
from __future__ import annotations

import numpy as np
import pytest

from olctc.data import Scaler, from_arrays
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.objective import tree_objective
from olctc.refine import l1_logistic_objective, refine
from olctc.spec import make_spec
from olctc.start_tree import start_weights, tree_start
from olctc.tree import Tree
from olctc.warmstart import LeafTooSmall, greedy_tree
from test_refine import data
from test_warmstart_refine_mutation_gaps import greedy, heart, leaf_points


# ---------------------------------------------------------------- refinement


def test_weighted_refinement_reports_shares_that_add_up_to_the_objective_change():
    """With sample weights each node's shares are its weighted ||w||_1 + C logloss before and after, and the report's
    objectives are the weighted tree objectives, apart by exactly the shares' changes."""
    spec = make_spec("olct", depth=2, C=(0.05, 20.0))
    W, b, X, y = greedy(make_spec("olct", depth=2, C=0.05))
    sw = np.random.default_rng(3).uniform(0.2, 3.0, size=y.size)
    W2, b2, rep = refine(W, b, X, y, spec, sample_weight=sw)
    assert rep.nodes_refit == [1, 2] and [d.status for d in rep.details] == ["refit", "refit"]
    for d in rep.details:
        pts = leaf_points(W, b, X, spec, d.node)
        before = l1_logistic_objective(W[d.node], b[d.node], X[pts], y[pts], 20.0, sw[pts])
        after = l1_logistic_objective(W2[d.node], b2[d.node], X[pts], y[pts], 20.0, sw[pts])
        assert d.share_before == pytest.approx(before, rel=1e-12)
        assert d.share_after == pytest.approx(after, rel=1e-12) and after < before - 1.0
    assert rep.objective_before == pytest.approx(
        tree_objective(W, b, X, y, spec, loss="exact", sample_weight=sw).total, rel=1e-12)
    assert rep.objective_after == pytest.approx(
        tree_objective(W2, b2, X, y, spec, loss="exact", sample_weight=sw).total, rel=1e-12)
    assert rep.improvement == pytest.approx(sum(d.share_before - d.share_after for d in rep.details), rel=1e-9)


@pytest.mark.parametrize("depth", [1, 2])
def test_a_non_logistic_tree_is_returned_unchanged_at_any_depth_saying_why(depth):
    """A hinge-loss tree is not refined, a single split (depth 1) included, and the report says it is returned
    unchanged, naming the preset and its loss."""
    spec = make_spec("margot", depth=depth)
    X, y = heart()
    W, b = greedy_tree(X, y, spec)
    W2, b2, rep = refine(W, b, X, y, spec)
    assert np.array_equal(W2, W) and np.array_equal(b2, b)
    assert rep.details == [] and rep.nodes_refit == [] and rep.nodes_kept == list(range(2 ** (depth - 1) - 1,
                                                                                        2 ** depth - 1))
    assert rep.message == ("refinement applies to logistic presets (olct, olct-univariate); preset 'margot' "
                           "(hinge loss) is returned unchanged")


def test_a_univariate_refit_zeroes_the_round_off_it_does_not_use():
    """A univariate node refit on its one feature leaves every other weight exactly 0, not the solver's round-off
    (1e-14) it was given: the refit node's nonzeros are its feature alone."""
    X, y = data("breast")
    spec = make_spec("olct-univariate", 1)
    W, b = greedy_tree(X, y, make_spec("margot-hfs", 1))  # a univariate SVM split: not logistic-optimal
    used = np.flatnonzero(W[0]).tolist()
    W[0, np.flatnonzero(W[0] == 0)[:2]] = [3.7e-14, -8.0e-14]
    W2, _, rep = refine(W, b, X, y, spec)
    assert rep.nodes_refit == [0]
    assert np.flatnonzero(W2[0]).tolist() == used


# ---------------------------------------------------------------- start trees


def _small(p: int = 3, n: int = 40):
    X = np.random.default_rng(5).normal(size=(n, p))
    ds = from_arrays(X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int), positive_class=1)
    return ds, Scaler.fit(ds.X)


def test_a_start_of_depth_four_deepens_into_a_model_of_depth_five():
    """Any shallower tree is deepened (not only shallow ones): a depth-4 tree starts a depth-5 model, its 15 nodes
    as they are and each new last-layer node a copy of its parent."""
    ds, scaler = _small()
    rng = np.random.default_rng(1)
    tree = Tree.from_arrays(rng.normal(size=(15, 3)), rng.normal(size=15), feature_names=ds.schema.feature_names,
                            classes=ds.classes)
    W4, b4 = start_weights(tree, ds.schema, scaler, ds.classes, make_spec(depth=4))
    W5, b5 = start_weights(tree, ds.schema, scaler, ds.classes, make_spec(depth=5))
    assert W5.shape == (31, 3) and np.array_equal(W5[:15], W4) and np.array_equal(b5[:15], b4)
    parents = (np.arange(15, 31) - 1) // 2
    assert np.array_equal(W5[15:], W4[parents]) and np.array_equal(b5[15:], b4[parents])


def test_a_deeper_start_is_refused_naming_the_depth_to_fit():
    """A start deeper than the model is refused with the depth the model needs: the tree's own."""
    ds, scaler = _small()
    tree = Tree.from_arrays(np.ones((7, 3)), np.zeros(7), feature_names=ds.schema.feature_names, classes=ds.classes)
    with pytest.raises(OlctcError) as exc:
        start_weights(tree, ds.schema, scaler, ds.classes, make_spec(depth=2))
    assert str(exc.value) == ("the start tree has depth 3, deeper than the model's 2: a start may be shallower (it "
                              "is deepened), not deeper; fit with --depth 3 or more")


def test_a_start_breaking_min_leaf_says_how_to_fit_one_that_does_not():
    """tree_start's refusal of a start whose leaf holds too few points names min_leaf and both ways to set it."""
    from olctc.compile import compile_problem

    ds = load("haberman")
    ds = ds.subset(np.arange(0, ds.n, 3))
    comp = compile_problem(ds, make_spec(depth=2, min_leaf=10), "h")
    cut = float(np.sort(ds.X[:, 2])[-3])  # the root sends fewer than 10 points (those above it) to node 2
    tree = Tree.from_arrays(np.tile([0.0, 0.0, 1.0], (3, 1)), np.full(3, -cut), feature_names=ds.schema.feature_names,
                            classes=ds.classes)
    with pytest.raises(LeafTooSmall) as exc:
        tree_start(comp, tree)
    msg = str(exc.value)
    assert msg.startswith("the start tree breaks min_leaf 10 on these training points: ")
    assert msg.endswith("; start from a tree fitted with min_leaf 10 (--min-leaf 10, min_leaf=10) on them, or from "
                        "none")
