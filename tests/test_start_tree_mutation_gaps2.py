"""Second mutation pass over olctc/start_tree.py: behaviour of a start tree no earlier test pinned.

The kept solver nodes of a refined tree (``meta.refine.before``) are a candidate only when they name real nodes
with finite values; class labels 1.5 and 1 stay two classes; the routing margins clear each side of a node by a
little more than the solver's rounding; and the refusal of a feature the data lack names the first node that
weighs it and the data's features.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from olctc.data import Scaler, from_arrays
from olctc.errors import OlctcError
from olctc.spec import make_spec
from olctc.start_tree import label_key, start_trees, start_weights
from olctc.tree import Tree
from test_qa_start_tree import HAB, _haberman, _synthetic
from test_refine_start_mutation_gaps import _tree


@pytest.mark.parametrize("nodes,W,b", [
    ([], [], []),  # no node refit
    ([3], [[1.0, 1.0]], [0.0]),  # node 3 of a three-node tree
    ([-1], [[1.0, 1.0]], [0.0]),  # a negative node would index from the end
    ([2], [[np.inf, 1.0]], [0.0]),
    ([2], [[1.0, 1.0]], [np.nan]),
    ([2], [[1.0, 1.0]], [10 ** 400]),  # float overflow
    ([10 ** 30], [[1.0, 1.0]], [0.0]),  # int64 overflow
    ([1.5], [[1.0, 1.0]], [0.0]),  # no node: was node 1
    (["1"], [[1.0, 1.0]], [0.0]),
    ([True], [[1.0, 1.0]], [0.0]),
    ([np.nan], [[1.0, 1.0]], [0.0]),  # numpy's cast to int64 warns of it
    ([1e30], [[1.0, 1.0]], [0.0]),
], ids=["empty", "past-last", "negative", "inf-W", "nan-b", "huge-b", "huge-node", "fraction", "text", "bool",
        "nan-node", "huge-float-node"])
def test_a_refine_record_of_no_real_node_or_no_finite_value_adds_no_start(nodes: list, W: list, b: list):
    """A hand-edited meta.refine.before that names no node, a node the tree lacks, or values that are not finite
    is passed over: the tree is the only start (not a copy of it, nor a crash, nor a start of inf weights)."""
    tree = _tree(2, {"refine": {"nodes_refit": nodes, "before": {"W": W, "b": b}}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert start_trees(tree) == [tree]


def test_smoothed_pure_nodes_come_back_and_a_refit_before_them_wins():
    """meta.pure_nodes.before alone adds the start with the solver's nodes back; a node refit and then smoothed
    keeps the refit values in pure_nodes.before and the solver's in refine.before: the solver's are the start."""
    pure = {"pure_nodes": {"nodes": [1], "before": {"W": [[5.0, 5.0]], "b": [-5.0]}}}
    tree, solver = start_trees(_tree(2, pure))
    assert solver.W.tolist() == [[0.0, 1.0], [5.0, 5.0], [4.0, 5.0]] and solver.b.tolist() == [1.0, -5.0, 3.0]
    both = {**pure, "refine": {"nodes_refit": [1, 2], "before": {"W": [[7.0, 7.0], [8.0, 8.0]], "b": [-7.0, -8.0]}}}
    tree, solver = start_trees(_tree(2, both))
    assert solver.W.tolist() == [[0.0, 1.0], [7.0, 7.0], [8.0, 8.0]] and solver.b.tolist() == [1.0, -7.0, -8.0]
    assert tree.W.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]


@pytest.mark.parametrize("meta", [[1, 2], "refine", None])
def test_a_tree_whose_meta_is_not_a_record_starts_from_itself(meta: Any):
    """A tree file's meta that is not an object (a list, a string, null) holds no kept nodes: one start, no crash."""
    tree = _tree(2, {})
    tree.meta = meta
    assert start_trees(tree) == [tree]


def test_integer_and_fractional_labels_stay_two_classes():
    """Only a float that is an integer is that integer's class: 1.5 is not class 1, so a tree of classes (0, 1)
    does not start a model of classes (0, 1.5)."""
    assert label_key(1.5) == "1.5" != label_key(1) and label_key(np.float64(2.0)) == label_key(2)
    X, y = _synthetic(30, 2)
    ds = from_arrays(X, np.where(y > 0, 1.5, 0.0), positive_class=1.5)
    tree = Tree.from_arrays(np.ones((1, 2)), [0.0], feature_names=ds.schema.feature_names, classes=(0, 1))
    with pytest.raises(OlctcError, match=r"^the start tree separates classes 0 and 1; the data's are 0(\.0)? and "
                                         r"1\.5$"):
        start_weights(tree, ds.schema, Scaler.fit(ds.X), ds.classes, make_spec(depth=1))


def _root_scores(b0: float, flip: bool = False) -> tuple[np.ndarray, float]:
    """The model's root scores of haberman's points from a depth-2 start splitting on axillary nodes at -b0, and
    the model's eps."""
    ds = _haberman()
    spec = make_spec(depth=2)
    W = np.array([[0, 0, -1.0 if flip else 1.0], [0, 1.0, 0], [1.0, 0, 0]])
    tree = Tree.from_arrays(W, [b0, -60.0, -50.0], feature_names=HAB, classes=ds.classes[::-1] if flip else ds.classes)
    scaler = Scaler.fit(ds.X)
    X = scaler.transform(ds.X)
    Wm, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=X)
    return X @ Wm[0] + bm[0], spec.epsilon


@pytest.mark.parametrize("flip", [False, True])
def test_the_lowest_right_point_clears_epsilon_by_more_than_rounding(flip: bool):
    """A root's points moved right land a margin (1e-6 eps) above eps, not at eps itself, where the warm start's
    scores, summed in another order, could fall below it and send them left."""
    root, eps = _root_scores(0.0 if flip else make_spec(depth=2).epsilon / 2, flip)
    assert (_haberman().X[:, 2] == 0).sum() >= 5
    assert 0.5e-6 * eps <= root.min() - eps < 1e-9


def test_the_highest_left_point_clears_zero_by_more_than_rounding():
    """A root's points moved left (the highest on its split, score 0) land a margin (1e-6 eps) below 0."""
    ds = _haberman()
    root, eps = _root_scores(-float(ds.X[:, 2].max()))
    assert -1e-9 < root.max() <= -0.5e-6 * eps


@pytest.mark.parametrize("p", [5, 6])
def test_a_feature_the_data_lack_is_refused_naming_its_first_node_and_the_datas_features(p: int):
    """The refusal names the first node that weighs the missing feature, how many features the data have (not the
    tree) and the first five of them, with '...' only when there are more."""
    rng = np.random.default_rng(0)
    ds = from_arrays(rng.normal(size=(20, p)), np.arange(20) % 2, positive_class=1)
    names = list(ds.schema.feature_names) + ["zz"]
    W = np.zeros((3, p + 1))
    W[1:, p] = 1.0
    tree = Tree.from_arrays(W, np.zeros(3), feature_names=names, classes=ds.classes)
    listed = ", ".join(repr(f"x{j}") for j in range(5)) + (", ..." if p > 5 else "")
    with pytest.raises(OlctcError) as exc:
        start_weights(tree, ds.schema, Scaler.fit(ds.X), ds.classes, make_spec(depth=2))
    assert str(exc.value) == (f"the start tree weighs feature 'zz', which the data do not have (node 1): a start must "
                              f"split on the data's features ({p}: {listed})")


def test_a_node_whose_sides_lie_wide_apart_is_carried_over_unchanged():
    """Margins only open or clear: a split with its points a whole unit either side of it (haberman's integer
    counts split at halves) keeps its weights and intercept exactly, neither shrunk to an eps-wide gap nor moved."""
    ds = _haberman()
    spec = make_spec(depth=2)
    tree = Tree.from_arrays(np.array([[0, 0, 1.0], [0, 1.0, 0], [1.0, 0, 0]]), [-4.5, -60.5, -50.5],
                            feature_names=HAB, classes=ds.classes)
    scaler = Scaler.fit(ds.X)
    Wm, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=scaler.transform(ds.X))
    W0, b0 = start_weights(tree, ds.schema, scaler, ds.classes, spec)
    np.testing.assert_array_equal(Wm, W0)
    np.testing.assert_array_equal(bm, b0)

