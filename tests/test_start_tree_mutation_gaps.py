"""Edges of start trees (``olctc.start_tree``) that its first mutation pass found unpinned: what ``tree_start`` hands
the warm start (the model's points, the sample weights, the tree's solver nodes), hand-edited ``meta.refine``
records, numpy labels, weights that overflow on the data's scale, routing nodes whose points all take one side and
the CLI's words for a refused ``--start-tree``.

Data are real (haberman, standardised as the model has it, and small synthetic sets); the starts are checked by
the model's own routing rows (right: score >= epsilon), the warm start's objectives and the tree's own scores.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from conftest import cli_here
from olctc.compile import compile_problem
from olctc.data import Scaler, from_arrays, json_label
from olctc.errors import OlctcError
from olctc.objective import tree_objective
from olctc.spec import make_spec
from olctc.start_tree import label_key, start_trees, start_weights, tree_start
from olctc.tree import Tree
from olctc.warmstart import greedy_tree
from test_qa_start_tree import HAB, _haberman, _synthetic
from test_refine_start_mutation_gaps import _tree


def _split_tree(classes: tuple, b0: float) -> Tree:
    """haberman's depth-2 tree: the root splits on axillary nodes at -b0, its children on year 60 and age 50."""
    return Tree.from_arrays(np.array([[0, 0, 1.0], [0, 1.0, 0], [1.0, 0, 0]]), [b0, -60.0, -50.0],
                            feature_names=HAB, classes=classes)


# ---------------------------------------------------------------- what tree_start hands the warm start


def test_tree_start_moves_a_decoded_roots_midpoint_to_the_models_side():
    """tree_start passes the model's points to start_weights: a decoded root's points at score eps/2 (right in the
    tree) score >= eps in the start, with no adjustment at node 0 (without the points the warm start's band shift
    sent them left)."""
    ds = _haberman()
    spec = make_spec(depth=2)
    eps = spec.epsilon
    tree = _split_tree(ds.classes, -4.0 + eps / 2)
    comp = compile_problem(ds, spec, "h")
    _, info = tree_start(comp, tree)
    S = comp.X @ info["W"].T + info["b"]
    assert (ds.X[:, 2] == 4).sum() >= 5
    np.testing.assert_array_equal(S[:, 0] >= eps, tree.scores(ds.X)[:, 0] > 0)
    assert not [a for a in info["adjustments"] if "node 0" in a]


def test_tree_start_weighs_the_points_as_the_model_does():
    """tree_start passes the data's sample weights to the warm start: the tree objective it reports is the weighted
    one, equal to the MILP's (unweighted, it differed and the warm start warned)."""
    X, y = _synthetic(60, 3, seed=3)
    sw = np.random.default_rng(4).uniform(0.2, 3.0, size=y.size)
    ds = from_arrays(X, y, positive_class=1, sample_weight=sw)
    spec = make_spec(depth=2)
    tree = Tree.from_arrays(np.array([[1.0, 0.4, 0.0]]), [-1.0], feature_names=ds.schema.feature_names,
                            classes=ds.classes)
    comp = compile_problem(ds, spec, "w")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, info = tree_start(comp, tree)
    assert info["objective_matches"] and info["objective"] == pytest.approx(comp.milp.objective(x), rel=1e-12)
    weighted = tree_objective(info["W"], info["b"], comp.X, ds.y.astype(float), spec, threshold=spec.epsilon / 2,
                              sample_weight=sw).total
    assert info["tree_objective"] == pytest.approx(weighted, rel=1e-12)


def test_tree_start_keeps_the_solver_nodes_when_they_start_lower():
    """tree_start tries start_trees(tree), not the tree alone: a saved tree whose leaves were flattened to 0 (as a
    bad refit might leave them) starts from the solver's leaves kept in meta.refine.before, reported as tree 1,
    at the objective of those leaves' tree."""
    ds = _haberman().subset(np.arange(0, 306, 3))
    spec = make_spec(depth=2)
    comp = compile_problem(ds, spec, "h")
    W, b = greedy_tree(comp.X, comp.dataset.y, spec)
    good = Tree.from_arrays(W, b, schema=ds.schema, scaler=comp.scaler, classes=ds.classes)
    Wf, bf = W.copy(), b.copy()
    Wf[1:], bf[1:] = 0.0, 0.0
    meta = {"refine": {"nodes_refit": [1, 2], "before": {"W": W[1:].tolist(), "b": b[1:].tolist()}}}
    flat = Tree.from_arrays(Wf, bf, schema=ds.schema, scaler=comp.scaler, classes=ds.classes, meta=meta)
    _, info = tree_start(comp, flat)
    _, alone = tree_start(comp, good)
    assert info["tree"] == 1 and info["objective"] == pytest.approx(alone["objective"], rel=1e-12)


# ---------------------------------------------------------------- hand-edited meta.refine records


@pytest.mark.parametrize("part", [
    {"nodes_refit": [2], "before": {"W": [[0.0, 0.0]]}},  # no b: KeyError
    {"before": {"W": [[0.0, 0.0]], "b": [0.0]}},  # no nodes: KeyError
    {"nodes_refit": None, "before": {"W": [[0.0, 0.0]], "b": [0.0]}},  # TypeError
    {"nodes_refit": [2], "before": {"W": {"a": 1}, "b": [0.0]}},  # TypeError
    {"nodes_refit": [2], "before": {"W": [[1.0, 1.0], [2.0, 2.0]], "b": [0.0]}},  # two rows for one node
], ids=["no-b", "no-nodes", "nodes-none", "W-dict", "W-extra-row"])
def test_a_refine_record_missing_a_key_or_of_the_wrong_type_or_shape_adds_no_start(part):
    """start_trees passes over a meta.refine.before that lacks a key, holds a value of the wrong type or more
    weight rows than nodes (no crash, no second start): it only ever adds a candidate."""
    tree = _tree(2, {"refine": part})
    assert start_trees(tree) == [tree]


# ---------------------------------------------------------------- start_weights: features, labels, overflow


def test_numpy_float_labels_compare_as_the_users():
    """label_key turns numpy numbers into Python ones first: float32 2.0 is class "2", as the CSV's "2" is."""
    assert [label_key(v) for v in (np.float32(2.0), np.float32(1.5), np.int32(7))] == ["2", "1.5", "7"]


def test_numpy_bool_labels_are_python_bools():
    """numpy's True is Python's True to json_label (json cannot write numpy's bool) and class "1" to label_key,
    as True is; it read as "True" before."""
    assert json_label(np.True_) is True and json_label(np.False_) is False
    assert json.dumps([json_label(np.True_)]) == "[true]"
    assert [label_key(v) for v in (np.True_, True, np.False_)] == ["1", "1", "0"]


@pytest.mark.parametrize("mean,scale", [(10.0, 0.5), (0.0, 5.0)], ids=["intercept", "weight"])
def test_weights_that_overflow_on_the_datas_scale_are_refused(mean, scale):
    """A weight of 1e308 overflows once carried over: in the intercept (w . mean) or in the weight (w * scale),
    either is refused by name, not passed on as inf."""
    X, y = _synthetic(30, 2)
    ds = from_arrays(X, y, positive_class=1)
    tree = Tree.from_arrays(np.array([[1e308, 0.0]]), [0.0], feature_names=ds.schema.feature_names,
                            classes=ds.classes)
    scaler = Scaler(np.array([mean, 0.0]), np.array([scale, 1.0]))
    with pytest.raises(OlctcError, match=r"^the start tree's weights overflow on the data's scale$"):
        start_weights(tree, ds.schema, scaler, ds.classes, make_spec(depth=1))


# ---------------------------------------------------------------- routing nodes whose points all take one side


@pytest.mark.parametrize("flip", [False, True])
def test_a_node_whose_points_all_go_right_lifts_them_to_epsilon(flip):
    """A root that sends every point right, the lowest of them at a decoded tree's midpoint eps/2 (or, mirrored, at
    score 0, which the swapped classes send right): start_weights with the model's points lifts them all to score
    >= eps, the model's right side, by moving the intercept alone (no point must go left: no gap to open)."""
    ds = _haberman()
    spec = make_spec(depth=2)
    eps = spec.epsilon
    W = np.array([[0, 0, -1.0 if flip else 1.0], [0, 1.0, 0], [1.0, 0, 0]])
    tree = Tree.from_arrays(W, [0.0 if flip else eps / 2, -60.0, -50.0], feature_names=HAB,
                            classes=ds.classes[::-1] if flip else ds.classes)
    assert (ds.X[:, 2] == 0).sum() >= 5
    scaler = Scaler.fit(ds.X)
    Wm, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=scaler.transform(ds.X))
    root = scaler.transform(ds.X) @ Wm[0] + bm[0]
    assert root.min() >= eps and root.min() - eps < 1e-9
    W0, _ = start_weights(tree, ds.schema, scaler, ds.classes, spec)
    np.testing.assert_array_equal(Wm, W0)  # only the intercept moves: no side to open, no node scaled


def test_a_node_whose_points_all_go_left_clears_them_of_zero():
    """A root that sends every point left, its highest point at score exactly 0 (on its split): start_weights with
    the model's points moves it just below 0, clear of the rounding of scores the warm start sums in another
    order."""
    ds = _haberman()
    spec = make_spec(depth=2)
    tree = _split_tree(ds.classes, -float(ds.X[:, 2].max()))
    assert (ds.X[:, 2] == ds.X[:, 2].max()).sum() >= 1
    scaler = Scaler.fit(ds.X)
    Wm, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=scaler.transform(ds.X))
    root = scaler.transform(ds.X) @ Wm[0] + bm[0]
    assert -1e-9 < root.max() < 0.0
    np.testing.assert_array_equal(Wm, start_weights(tree, ds.schema, scaler, ds.classes, spec)[0])


def test_a_point_at_the_roots_midpoint_counts_among_the_right_childs_points():
    """The points each routing node clears are those the tree itself sends there (right: score > 0), so a point at a
    decoded root's midpoint eps/2 is node 2's: haberman's one point of age 78 has 1 axillary node, and scores 0 on
    both children's split at age 78; node 2 moves its split clear of it, node 1 (none of whose points is 78) stays
    exactly as it was."""
    ds = _haberman()
    spec = make_spec(depth=3)
    eps = spec.epsilon
    at78 = ds.X[:, 0] == 78
    assert at78.sum() == 1 and ds.X[at78, 2] == 1
    W, b = np.zeros((7, 3)), np.zeros(7)
    W[0, 2], b[0] = 1.0, -1.0 + eps / 2  # right from 1 node up, those at 1 scoring eps/2
    W[1:3, 0], b[1:3] = 1.0, -78.0
    tree = Tree.from_arrays(W, b, feature_names=HAB, classes=ds.classes)
    scaler = Scaler.fit(ds.X)
    _, b0 = start_weights(tree, ds.schema, scaler, ds.classes, spec)
    _, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=scaler.transform(ds.X))
    assert bm[1] == b0[1] and 0.0 < b0[2] - bm[2] < 1e-9


# ---------------------------------------------------------------- the CLI's words


@pytest.mark.parametrize("W,message", [
    (np.ones((3, 3)), "has depth 2, deeper than the model's 1"),
    (np.ones((1, 2)), "weighs feature 'height'"),
], ids=["depth", "feature"])
def test_cli_names_the_start_tree_file_in_its_refusal(tmp_path, W, message):
    """The CLI's refusal of a --start-tree says which file: "--start-tree PATH has depth ..." (the library's
    words, "the start tree ...", do not name it)."""
    names = HAB if W.shape[1] == 3 else ["age", "height"]
    path = tmp_path / "t.json"
    Tree.from_arrays(W, np.zeros(W.shape[0]), feature_names=names, classes=(1, 2)).save(path)
    r = cli_here("compile", "--dataset", "haberman", "--depth", "1", "--start-tree", str(path), "-o",
                 str(tmp_path / "m.lp"))
    assert r.returncode == 2 and f"--start-tree {path} {message}" in r.stderr, r.stderr
