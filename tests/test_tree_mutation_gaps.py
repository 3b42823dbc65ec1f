"""The Tree object and the start tree: behaviour a mutation pass over ``olctc/tree.py`` and ``olctc/start_tree.py``
(QA 2026-12-06) could change without any other test noticing. Each test's comment names the mutant it kills.

The trees are built by hand (``Tree.from_arrays`` with a non-identity scaler, so that the standardised and the
raw spaces differ) or fitted on the heart data; every expectation is computed here with numpy (the scores, the
routing, the node statistics), not by the code under test."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from olctc.data import Scaler
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.start_tree import _deepened, _mirrored
from olctc.tree import ScoreOverflow, Tree

MEAN = np.array([1.0, -2.0, 0.5])
SCALE = np.array([2.0, 4.0, 0.5])
# depth 2: root 0, last-layer nodes 1 (left) and 2 (right); weights in the standardised space
W2 = np.array([[1.0, -2.0, 0.0], [0.5, 0.0, 3.0], [-1.0, 1.0, 1.0]])
B2 = np.array([0.25, -1.0, 2.0])


def _tree(W=W2, b=B2, classes=("no", "yes")) -> Tree:
    return Tree.from_arrays(W, b, feature_names=["a", "b", "c"], scaler=Scaler(MEAN.copy(), SCALE.copy()),
                            classes=classes)


def _score(x: np.ndarray, t: int, W=W2, b=B2) -> float:
    """Node t's score of raw row x, by hand: w . (x - mean) / scale + b."""
    return float(sum(W[t, j] * (x[j] - MEAN[j]) / SCALE[j] for j in range(x.size)) + b[t])


def _leaf(x: np.ndarray) -> int:
    return 2 if _score(x, 0) > 0 else 1


def _sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


# a row that goes left (root score < 0) and is classified negative there
X_NEG = np.array([-3.0, 6.0, 0.7])
# a row that goes right and is classified positive
X_POS = np.array([13.0, -10.0, 4.0])


def test_rows_are_as_hand_checked():
    assert _score(X_NEG, 0) < 0 and _score(X_NEG, 1) < 0
    assert _score(X_POS, 0) > 0 and _score(X_POS, 2) > 0


# ---------------------------------------------------------------- explain: the record and the lines

def test_explain_json_pairs_the_probability_with_the_label():
    # mutants: label_probability returned P(positive) whatever the label; to_dict's "positive_probability"
    # was the label's probability
    d = _tree().explain(X_NEG).to_dict()
    p = _sig(_score(X_NEG, 1))
    assert d["label"] == "no"
    assert d["probability"] == pytest.approx(1.0 - p, rel=1e-12)
    assert d["positive_probability"] == pytest.approx(p, rel=1e-12)


def test_explain_bias_values_and_contributions_are_in_their_spaces():
    # mutants: bias = the raw-space intercept b_raw; a contribution's value = the standardised x_j; the
    # contributions w_raw x (raw space, without the mean)
    tree = _tree()
    for x in (X_NEG, X_POS):
        e = tree.explain(x, top=3)
        for step, t in zip(e.steps, (0, _leaf(x))):
            assert step.node == t
            assert step.bias == B2[t]
            for name, value, c in step.contributions:
                j = "abc".index(name)
                assert value == x[j]
                assert c == pytest.approx(W2[t, j] * (x[j] - MEAN[j]) / SCALE[j], rel=1e-12)
            assert step.bias + sum(c for _, _, c in step.contributions) == pytest.approx(_score(x, t), rel=1e-12)


def test_explain_keeps_the_top_contributions_by_magnitude():
    # mutants: contributions sorted by signed value (a large negative one came last and was cut); one more
    # than top kept
    tree = _tree()
    x = X_POS
    t = _leaf(x)
    c = {n: W2[t, j] * (x[j] - MEAN[j]) / SCALE[j] for j, n in enumerate("abc")}
    want = sorted((n for n in "abc" if W2[t, "abc".index(n)] != 0), key=lambda n: -abs(c[n]))[:2]
    assert want != sorted(c, key=lambda n: -c[n])[:2]  # a large negative contribution: -6 beside 7 and -2
    got = [f for f, _, _ in tree.explain(x, top=2).steps[1].contributions]
    assert got == want


def test_explain_refuses_top_zero():
    # mutant: top=0 accepted (a path with no contributions at all; olctc explain --top 0 is refused)
    with pytest.raises(OlctcError, match="top must be at least 1; got 0"):
        _tree().explain(X_POS, top=0)


def test_explain_lines_add_the_features_left_out():
    # mutant: the "the other features" line was never written (the lines no longer added up to the score)
    tree = _tree()
    x = X_POS
    e = tree.explain(x, top=1)
    t = _leaf(x)
    c = sorted((W2[t, j] * (x[j] - MEAN[j]) / SCALE[j] for j in range(3)), key=abs)
    rest = c[0] + c[1]  # all but the largest |contribution|
    lines = e.lines()
    other = [ln for ln in lines if ln.endswith("the other features")]
    assert len(other) == 2  # one per node of the path
    assert float(other[-1].split()[0]) == pytest.approx(rest, rel=1e-3)


def test_explain_names_an_empty_node_and_its_training_points():
    # mutants: the note on a last-layer node no training point reached was dropped; the JSON's
    # training_points was None
    tree = _tree()
    rng = np.random.default_rng(3)
    X = rng.normal(MEAN, SCALE, size=(40, 3))
    X = X[[_leaf(x) == 1 for x in X]]  # training rows: all routed left, so node 2 is empty
    y = np.where(np.arange(len(X)) % 3 == 0, 1, -1)
    tree.fit_stats(X, y)
    e = tree.explain(X_POS)
    assert [s.training_points for s in e.steps] == [len(X), 0]
    assert tree.node_std[2].tolist() == [0.0, 0.0, 0.0]  # mutant: the std of no rows taken (NaN)
    note = [ln for ln in e.lines() if "no training point reached this node" in ln]
    assert len(note) == 1 and note[0].startswith("node 2 (layer 2): classifier")
    assert [s["training_points"] for s in e.to_dict()["path"]] == [len(X), 0]
    left = tree.explain(X_NEG).to_dict()["path"]
    assert [s["training_points"] for s in left] == [len(X), len(X)]
    assert not any("no training point" in ln for ln in tree.explain(X_NEG).lines())


def test_explain_walks_a_tie_at_the_root_to_the_left_as_apply_does():
    # mutants: explain's direction at score 0 was "right"; its next node at score 0 the right child
    W = np.zeros((3, 2))
    tree = Tree.from_arrays(W, [0.0, -1.0, 1.0], classes=("no", "yes"))
    x = np.array([3.0, -4.0])
    assert tree.apply(x[None]).tolist() == [1]
    e = tree.explain(x)
    assert [(s.node, s.direction) for s in e.steps] == [(0, "left"), (1, "classify")]
    assert e.steps[0].confidence == 0.5 and e.label == "no"
    assert e.probability == pytest.approx(1 / (1 + math.e), rel=1e-12)


# ---------------------------------------------------------------- prediction

def test_predict_log_proba_is_the_log_of_the_hand_probabilities():
    # mutant: log_sigmoid(z) computed -log(1 + exp(z)), the log of the other class's probability
    tree = _tree()
    X = np.vstack([X_NEG, X_POS])
    z = np.array([_score(x, _leaf(x)) for x in X])
    want = np.column_stack([np.log(1 - 1 / (1 + np.exp(-z))), np.log(1 / (1 + np.exp(-z)))])
    np.testing.assert_allclose(tree.predict_log_proba(X), want, rtol=1e-12)
    np.testing.assert_allclose(tree.log_proba_of(z), want, rtol=1e-12)


def test_scores_refuses_an_overflowing_node_by_row_and_node():
    # mutant: scores() returned inf (and NaN where inf - inf) instead of the error naming the row and node
    tree = Tree.from_arrays([[0.0, 1.0], [1e300, 0.0], [-1.0, 0.0]], [0.0, 0.0, 0.0])
    X = np.array([[1.0, 2.0], [1e10, 3.0]])  # row 1: 1e300 * 1e10 at node 1
    assert tree.scores(X[:1]).tolist() == [[2.0, 1e300, -1.0]]
    with pytest.raises(ScoreOverflow, match=r"^row 1: the score of node 1 overflows") as exc:
        tree.scores(X)
    assert (exc.value.row, exc.value.node) == (1, 1)


def test_a_default_named_tree_refuses_its_own_names_in_another_order():
    # mutant: every table against a tree of names x0, x1, ... passed unchecked, its own names reordered too
    pd = pytest.importorskip("pandas")
    tree = Tree.from_arrays([[1.0, 0.0, 0.0]], [0.0])
    X = np.array([[-1.0, 5.0, 0.0]])
    assert tree.predict(pd.DataFrame(X, columns=["x0", "x1", "x2"])).tolist() == [-1]
    assert tree.predict(pd.DataFrame(X, columns=["a", "b", "c"])).tolist() == [-1]  # other names: unchecked
    with pytest.raises(OlctcError, match="another order"):
        tree.predict(pd.DataFrame(X[:, [1, 0, 2]], columns=["x1", "x0", "x2"]))


# ---------------------------------------------------------------- construction: validation

@pytest.mark.parametrize("kw, field", [
    ({"node_n": [2, -1, 3]}, "node_n"),            # children_over lets -1 + 3 <= 2 through
    ({"node_n": [3, 1.5, 1.5]}, "node_n"),         # not whole numbers
    ({"node_pos": [1, 0.5, 0.5], "node_n": [3, 1, 2]}, "node_pos"),
    ({"node_std": np.full((3, 3), -0.5)}, "node_std"),
    ({"node_n": [2, 1, 1], "node_pos": [3, 1, 1]}, "node_pos must not exceed node_n"),
])
def test_statistics_must_be_counts_and_spreads(kw, field):
    # mutants: _stat dropped the >= 0 check; _stat dropped the whole-number check of the counts; node_pos
    # above node_n accepted (a share of positives above 1)
    with pytest.raises(OlctcError, match=field):
        Tree(W2, B2, Scaler(MEAN, SCALE), _tree().schema, ("no", "yes"), **kw)


def test_b_must_have_one_entry_per_node():
    # mutant: b checked for at least one entry per node (a fourth intercept was kept, and saved)
    with pytest.raises(OlctcError, match=r"b must have one entry per node \(3\)"):
        _tree(b=np.append(B2, 7.0))


def _heart_tree(depth: int, seed: int):
    """A tree of random weights on heart's encoded features, with heart's schema, scaler and classes."""
    ds = load("heart")
    rng = np.random.default_rng(seed)
    n = 2 ** depth - 1
    W = rng.normal(size=(n, ds.p)) * (rng.random((n, ds.p)) < 0.4)
    b = rng.normal(size=n) * 0.5
    return ds, Tree(W, b, Scaler.fit(ds.X), ds.schema, ds.classes)


@pytest.mark.parametrize("depth", [3, 6])  # 6: the row walk (_walk), layer by layer
def test_heart_rows_route_predict_and_score_as_by_hand(depth):
    # The real-data cross-check of the hand-made trees' tests: apply, decision_function, predict and
    # predict_proba of heart's rows against numpy (mutants of the walk's and the labels' ties at 0 are killed
    # by test_export_mutation_gaps and test_tree, which have exact zeros; these rows have none)
    ds, tree = _heart_tree(depth, seed=depth)
    Z = (ds.X - tree.scaler.mean) / tree.scaler.scale
    S = Z @ tree.W.T + tree.b
    leaf = np.zeros(ds.n, dtype=int)
    for _ in range(depth - 1):
        leaf = 2 * leaf + np.where(S[np.arange(ds.n), leaf] > 0, 2, 1)
    z = S[np.arange(ds.n), leaf]
    assert len(set(leaf)) > 2 and (z > 0).any() and (z <= 0).any()
    np.testing.assert_array_equal(tree.apply(ds.X), leaf)
    np.testing.assert_allclose(tree.decision_function(ds.X), z, rtol=1e-9, atol=1e-9)
    assert tree.predict(ds.X).tolist() == [ds.classes[int(v > 0)] for v in z]
    np.testing.assert_allclose(tree.predict_proba(ds.X)[:, 1], 1 / (1 + np.exp(-z)), rtol=1e-9)


# ---------------------------------------------------------------- statistics, influence, importances

def _fitted_stats():
    """The hand-built tree with training statistics of 60 random rows: (tree, X, y, each row's leaf, X
    standardised)."""
    rng = np.random.default_rng(7)
    X = rng.normal(MEAN, SCALE * 3, size=(60, 3))
    y = np.where(rng.random(60) < 0.4, 1, -1)
    tree = _tree()
    tree.fit_stats(X, y)
    return tree, X, y, np.array([_leaf(x) for x in X]), (X - MEAN) / SCALE


def test_fit_stats_by_hand():
    # mutants: node_std taken in raw units (not standardised); positives counted as the negatives
    tree, X, y, leaf, Z = _fitted_stats()
    for t, rows in ((0, np.ones(len(X), bool)), (1, leaf == 1), (2, leaf == 2)):
        assert tree.node_n[t] == rows.sum() > 0
        assert tree.node_pos[t] == (y[rows] == 1).sum()
        np.testing.assert_allclose(tree.node_std[t], np.sqrt(((Z[rows] - Z[rows].mean(0)) ** 2).mean(0)), rtol=1e-12)
    # influence: the standardised weights times those spreads
    np.testing.assert_allclose(tree.influence(), W2 * tree.node_std, rtol=1e-15)


@pytest.mark.parametrize("bad,shown", [(np.array([1, -1, 7]), "7 at row 2"), (np.array([1, -1, 0.5]), "0.5 at row 2"),
                                       (np.array(["a", "b", "c"]), "'a' at row 0")])
def test_fit_stats_names_a_bad_label_as_written(bad: np.ndarray, shown: str) -> None:
    # the label was shown in numpy 2's repr: "got np.int64(7)", "np.str_('a')"
    tree = Tree.from_arrays(np.ones((1, 2)), np.zeros(1))
    with pytest.raises(OlctcError, match=re.escape(f"y must hold labels -1 and +1 (the classes' order in this tree); "
                                                   f"got {shown}") + "$"):
        tree.fit_stats(np.zeros((3, 2)), bad)


def test_importances_weigh_nodes_by_their_points():
    # mutants: feature_importances weighed every node alike; forgot |.| of negative influences; did not normalise
    tree, X, y, leaf, Z = _fitted_stats()
    imp = np.zeros(3)
    for t, rows in ((0, np.ones(len(X), bool)), (1, leaf == 1), (2, leaf == 2)):
        imp += rows.sum() / len(X) * np.abs(W2[t] * Z[rows].std(0))
    np.testing.assert_allclose(tree.feature_importances(), imp / imp.sum(), rtol=1e-12)


def test_ranked_importances_leave_out_zero_shares_and_keep_ties_in_feature_order():
    # mutants: a share of 0 was listed; ties came in reverse feature order
    # feature 0 is weighed but constant (share 0), 2 is not weighed, 1 and 3 tie (the same spread and |weight|)
    tree = Tree.from_arrays(np.array([[1.0, 2.0, 0.0, -2.0]]), [0.5])
    X = np.array([[4.0, 1.0, 5.0, -1.0], [4.0, -1.0, 6.0, 1.0], [4.0, 3.0, 5.0, -3.0]])
    tree.fit_stats(X, np.array([1, -1, 1]))
    assert tree.ranked_importances() == [(1, 0.5), (3, 0.5)]


@pytest.mark.parametrize("t", [-1, 3])
def test_ranked_features_refuses_a_node_out_of_range(t):
    # mutant: the 0 <= t check dropped (-1 gave the last node's features)
    with pytest.raises(OlctcError, match="t"):
        _tree().ranked_features(t)


def test_ranked_features_refuses_a_negative_k_and_orders_by_magnitude():
    # mutants: k < 0 accepted (k=-1 dropped the last feature); features ranked by signed value
    tree = _tree()
    with pytest.raises(OlctcError, match="k"):
        tree.ranked_features(0, k=-1)
    # no statistics: |standardised weight| ranks them, a zero weight is left out
    assert tree.ranked_features(0) == [(1, -2.0), (0, 1.0)]
    assert tree.ranked_features(2, k=2) == [(0, -1.0), (1, 1.0)]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), np.float64("-inf")])
def test_a_class_label_must_be_finite(bad):
    # mutant: _check_label's finite check dropped (a NaN class printed as nan and never compared equal)
    with pytest.raises(OlctcError, match="negative class must be finite"):
        Tree.from_arrays(W2, B2, classes=(bad, 1.0))


# ---------------------------------------------------------------- start tree: mirroring and deepening

def _apply_by_hand(W: np.ndarray, b: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Last-layer node of each row: left iff score <= 0, children 2t+1 and 2t+2."""
    depth = int(round(math.log2(W.shape[0] + 1)))
    out = []
    for x in X:
        t = 0
        for _ in range(depth - 1):
            t = 2 * t + (2 if x @ W[t] + b[t] > 0 else 1)
        out.append(t)
    return np.array(out)


def test_mirrored_tree_routes_to_the_mirror_node_with_the_opposite_score():
    # mutant: _mirrored kept each layer's nodes in order (the negated splits then led into the wrong subtree)
    rng = np.random.default_rng(11)
    W, b = rng.normal(size=(7, 3)), rng.normal(size=7)
    X = rng.normal(size=(200, 3)) * 3
    Wm, bm = _mirrored(W, b)
    leaf, leaf_m = _apply_by_hand(W, b, X), _apply_by_hand(Wm, bm, X)
    assert set(leaf) == {3, 4, 5, 6}
    np.testing.assert_array_equal(leaf_m, 9 - leaf)  # node 3 + k <-> 6 - k in the last layer
    rows = np.arange(len(X))
    np.testing.assert_allclose((X @ Wm.T + bm)[rows, leaf_m], -(X @ W.T + b)[rows, leaf], rtol=1e-12)


def test_deepened_tree_copies_each_node_from_its_ancestor_in_the_given_last_layer():
    # mutant: the ancestor taken as t // 2 instead of (t - 1) // 2
    rng = np.random.default_rng(5)
    W, b = rng.normal(size=(3, 2)), rng.normal(size=3)
    Wd, bd = _deepened(W, b, 4)
    assert Wd.shape == (15, 2)
    for t in range(15):
        a = t
        while a > 2:  # up to layer 2 (nodes 1, 2) by the parent rule
            a = (a - 1) // 2
        np.testing.assert_array_equal(Wd[t], W[a])
        assert bd[t] == b[a]


# ---------------------------------------------------------------- records

def test_load_of_json_text_says_it_takes_a_path(tmp_path, monkeypatch):
    # mutant: the JSON-text check dropped (the message was the whole text, then "File name too long")
    monkeypatch.chdir(tmp_path)
    text = json.dumps(_tree().to_dict())
    with pytest.raises(OlctcError) as exc:
        Tree.load(text)
    msg = str(exc.value)
    assert msg.startswith("Tree.load takes a file path, and was given JSON text") and "\n" not in msg


def test_the_solver_tree_restores_a_node_refit_then_smoothed_to_the_solvers():
    # mutant (the code before this pass): the kept nodes were put back refinement's first, so a node refit and
    # then smoothed got its refit values (meta.pure_nodes.before) instead of the solver's (meta.refine.before)
    from olctc.start_tree import start_trees

    W = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    tree = Tree.from_arrays(W, [0.0, 1.0, 2.0], meta={
        "refine": {"nodes_refit": [1, 2], "before": {"W": [[5.0, 5.0], [6.0, 6.0]], "b": [5.0, 6.0]}},
        "pure_nodes": {"nodes": [1], "before": {"W": [[7.0, 7.0]], "b": [7.0]}}})
    saved, solver = start_trees(tree)
    assert saved is tree
    assert solver.W.tolist() == [[1.0, 0.0], [5.0, 5.0], [6.0, 6.0]] and solver.b.tolist() == [0.0, 5.0, 6.0]


def test_an_overflow_on_the_path_names_the_node_where_it_happens():
    # mutant: _path_scores named the last-layer node reached, not the path's node whose score overflowed
    tree = Tree.from_arrays([[1e300, 0.0], [0.0, 1.0], [0.0, -1.0]], [0.0, 0.0, 0.0])
    with pytest.raises(ScoreOverflow, match="node 0 overflows") as exc:
        tree.predict(np.array([[1.0, 0.0], [1e10, 0.0]]))
    assert (exc.value.row, exc.value.node) == (1, 0)


def test_ranked_features_with_statistics_rank_by_influence_not_weight():
    # mutant: the |weight| ranked the features even when node_std gave their influence (|w| x spread)
    tree = Tree.from_arrays([[1.0, -2.0]], [0.0])
    X = np.array([[-10.0, 0.0], [10.0, 1.0], [0.0, -1.0], [20.0, 0.0]])
    tree.fit_stats(X, np.array([1, -1, 1, -1]))
    s0, s1 = X[:, 0].std(), X[:, 1].std()
    assert abs(1.0 * s0) > abs(-2.0 * s1)
    got = tree.ranked_features(0)
    assert [j for j, _ in got] == [0, 1]
    assert got[0][1] == pytest.approx(s0, rel=1e-12) and got[1][1] == pytest.approx(-2.0 * s1, rel=1e-12)


@pytest.mark.parametrize("meta", ["abc", [("preset", "olct")]])
def test_from_arrays_refuses_a_meta_that_is_no_dict(meta):
    # mutant: the check dropped (dict("abc") raised ValueError; a list of pairs became a dict silently)
    with pytest.raises(OlctcError, match="meta"):
        Tree.from_arrays(W2, B2, meta=meta)


def test_kept_nodes_that_are_not_finite_add_no_start():
    # mutant: _kept_nodes took a NaN in meta.refine.before (json.loads reads NaN): a start of NaN weights
    from olctc.start_tree import start_trees

    tree = Tree.from_arrays(W2, B2, meta={"refine": {"nodes_refit": [1], "before": {"W": [[1.0, float("nan"), 0.0]],
                                                                                     "b": [0.0]}}})
    assert start_trees(tree) == [tree]
