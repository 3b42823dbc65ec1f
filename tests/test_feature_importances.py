"""feature_importances_ of the estimators and Tree.feature_importances, against an independent computation."""
from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectFromModel

from olctc.data import Column, Scaler, Schema
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.estimator import MARGOTClassifier, OLCTClassifier
from conftest import cli_main
from olctc.export.json import dump, load as load_tree, loads
from olctc.export.text import to_text
from olctc.tree import Tree

SHARES = "feature importances (each feature's share of the tree, summing to 1):"


def _by_hand(W_std: np.ndarray, b_std: np.ndarray, depth: int, X: np.ndarray) -> np.ndarray:
    """The definition, from the raw training rows and the standardised weights alone: routing recomputed
    here (left iff score <= 0), each node's share of the points, the raw spread of each feature there."""
    mu, sigma = X.mean(axis=0), X.std(axis=0)
    sigma = np.where(sigma > 0, sigma, 1.0)
    Xs = (X - mu) / sigma
    n_nodes = 2 ** depth - 1
    at = np.zeros((X.shape[0], n_nodes), dtype=bool)
    node = np.zeros(X.shape[0], dtype=np.int64)
    for _layer in range(depth):
        at[np.arange(X.shape[0]), node] = True
        score = np.einsum("ij,ij->i", Xs, W_std[node]) + b_std[node]
        node = np.where(score <= 0, 2 * node + 1, 2 * node + 2)
    imp = np.zeros(X.shape[1])
    for t in range(n_nodes):
        rows = at[:, t]
        if rows.any():
            w_raw = W_std[t] / sigma  # the same split in raw units
            imp += rows.mean() * np.abs(w_raw) * X[rows].std(axis=0)
    return imp / imp.sum() if imp.sum() > 0 else imp


@pytest.fixture(scope="module")
def fitted():
    """A depth-2 tree on 60 parkinsons rows (30 per class; all 195 ran into a 15 s limit), proven optimal in
    about half a second: (estimator, the training rows as X, p and n)."""
    ds = load("parkinsons")
    rows = np.concatenate([np.flatnonzero(ds.y == 1)[:30], np.flatnonzero(ds.y != 1)[:30]])
    data = SimpleNamespace(X=ds.X[rows], y=ds.y[rows], p=ds.p, n=rows.size)
    clf = OLCTClassifier(depth=2, C=1.0, time_limit=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning if the limit stops it: the tree is what is tested
        clf.fit(data.X, data.y)
    return clf, data


def test_importances_equal_the_definition_computed_from_the_raw_rows(fitted):
    clf, ds = fitted
    imp = clf.feature_importances_
    t = clf.tree_
    want = _by_hand(t.W, t.b, t.depth, ds.X)
    assert imp.shape == (ds.p,) and imp.dtype == np.float64
    assert np.allclose(imp, want, rtol=1e-9, atol=1e-12), np.abs(imp - want).max()
    assert imp.sum() == pytest.approx(1.0, abs=1e-12) and (imp >= 0).all()
    # exactly 0 where the L1 penalty left a feature out of every node, > 0 where a node uses it and the
    # feature varies among the node's points
    moves = ((t.W != 0) & (t.node_std > 0)).any(axis=0)
    assert moves.any()
    assert (imp[~moves] == 0).all() and (imp[moves] > 0).all()


def test_each_node_counts_by_the_share_of_points_it_holds():
    """A depth-3 tree drawn at random on parkinsons (no solver: the same tree everywhere), its statistics
    taken on the data: every node uses features, and the nodes hold unequal shares of the points."""
    ds = load("parkinsons")
    rng = np.random.default_rng(7)
    W = rng.normal(size=(7, ds.p)) * (rng.random((7, ds.p)) < 0.3)
    b = rng.normal(scale=0.3, size=7)
    tree = Tree(W, b, Scaler.fit(ds.X), ds.schema, ds.classes)
    tree.fit_stats(ds.X, ds.y)
    assert len(set(tree.node_n.tolist())) > 3 and (tree.node_n > 0).all()
    imp = tree.feature_importances()
    assert np.allclose(imp, _by_hand(W, b, 3, ds.X), rtol=1e-9, atol=1e-12)
    flat = np.abs(tree.influence()).sum(axis=0)  # the nodes' shares left out: another answer
    assert not np.allclose(imp, flat / flat.sum(), rtol=1e-2)


def test_importances_survive_the_tree_file_and_do_not_depend_on_feature_units(fitted):
    clf, ds = fitted
    back = loads(dump(clf.tree_))
    assert np.array_equal(back.feature_importances(), clf.feature_importances_)
    # Raw units change nothing: the same standardised tree, its statistics taken on rescaled rows
    scale = np.logspace(-3, 3, ds.p)
    t = loads(dump(clf.tree_))
    t.scaler = type(t.scaler)(t.scaler.mean * scale, t.scaler.scale * scale)
    t.fit_stats(ds.X * scale, np.where(clf.predict(ds.X) == clf.classes_[1], 1, -1))
    assert np.allclose(t.feature_importances(), clf.feature_importances_, rtol=1e-9, atol=1e-12)


def test_select_from_model_keeps_the_features_the_tree_uses(fitted):
    clf, ds = fitted
    sel = SelectFromModel(clf, prefit=True, threshold=1e-12)
    kept = sel.get_support()
    assert np.array_equal(kept, clf.feature_importances_ > 1e-12)
    assert np.array_equal(kept, ((clf.tree_.W != 0) & (clf.tree_.node_std > 0)).any(axis=0))
    assert sel.transform(ds.X).shape == (ds.n, int(kept.sum()))


def test_a_planted_signal_gets_the_importance():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 6))
    y = np.where(X[:, 2] - 0.5 * X[:, 4] > 0, 1, -1)
    clf = OLCTClassifier(depth=1, C=1.0, time_limit=20).fit(X, y)
    imp = clf.feature_importances_
    assert imp[2] == imp.max() and imp[2] + imp[4] > 0.8, imp


def test_margot_has_importances_too():
    ds = load("heart")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = MARGOTClassifier(depth=1, C=1.0, time_limit=15).fit(ds.X, ds.y)
    imp = clf.feature_importances_
    assert np.allclose(imp, _by_hand(clf.tree_.W, clf.tree_.b, 1, ds.X), rtol=1e-9, atol=1e-12)


def test_a_tree_without_any_weight_has_zero_importances_without_a_warning():
    ds = load("heart")
    clf = OLCTClassifier(depth=1, C=1e-6, time_limit=15).fit(ds.X, ds.y)
    assert (clf.tree_.W == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        imp = clf.feature_importances_
    assert imp.shape == (ds.p,) and (imp == 0).all()


def test_unfitted_and_statistics_free_trees_are_refused():
    clf = OLCTClassifier()
    with pytest.raises(NotFittedError):
        clf.feature_importances_
    assert not hasattr(clf, "feature_importances_")  # as scikit-learn's trees: SelectFromModel checks this way
    schema = Schema((Column("x", "numeric"), Column("y", "numeric")))
    bare = Tree(np.array([[1.0, 0.0]]), np.array([0.0]), Scaler.identity(2), schema, ("a", "b"))
    with pytest.raises(OlctcError, match=r"^this tree has no training statistics \(node_std\); call fit_stats"):
        bare.feature_importances()


def test_fit_names_the_features_with_the_largest_shares(tmp_path, capsys):
    out_file = tmp_path / "t.json"
    # a fifth of the rows to train on (--test-size 0.8): proven optimal in about 2 s (all ran into the 15 s
    # limit); the one-hot encoding still has all 27 features
    code, out, err = cli_main(["fit", "--dataset", "tic-tac-toe", "--depth", "2", "--test-size", "0.8",
                               "--time-limit", "15", "-o", out_file], capsys)
    assert code == 0, err
    tree = load_tree(out_file)
    imp = tree.feature_importances()
    fit = tree.meta["fit"]
    order = np.argsort(-imp, kind="stable")[:5]
    assert fit["top_features"] == [[tree.feature_names[j], pytest.approx(float(imp[j]), abs=1e-15)] for j in order]
    assert fit["features_used"] == int((np.abs(tree.W) > 1e-6).any(axis=0).sum()) and fit["n_features"] == 27
    line = next(x for x in out.splitlines() if x.startswith("features used: "))
    names = ", ".join(f"{tree.feature_names[j]} {imp[j]:.3f}" for j in order)
    assert line == f"features used: {fit['features_used']} of 27; largest shares of the tree: {names}"
    assert "=" in tree.feature_names[order[0]]  # one-hot features by their "column=category" names
    # the text export ends with them too, as many as --top ... shows per node (5), and how many more
    lines = to_text(tree).splitlines()
    more = int((imp > 0).sum()) - 5
    tail = [SHARES] + [f"  {tree.feature_names[j]}: {imp[j]:.4g}" for j in order] + (
        [f"  ... and {more} more"] if more > 0 else [])
    assert lines[-len(tail):] == tail


def test_text_export_leaves_the_shares_out_without_statistics_or_weights():
    ds = load("heart")
    tree = Tree(np.zeros((1, ds.p)), np.ones(1), Scaler.fit(ds.X), ds.schema, ds.classes)
    assert "feature importances" not in to_text(tree)  # no training statistics
    tree.fit_stats(ds.X, ds.y)
    assert "feature importances" not in to_text(tree)  # statistics, but no weight: no share to show
    tree.W[0, 3] = 0.5
    assert to_text(tree).splitlines()[-2:] == [SHARES, f"  {ds.feature_names[3]}: 1"]


def test_an_overflowing_share_is_refused_by_the_tree_and_left_out_of_the_text():
    ds = load("heart")
    tree = Tree(np.zeros((1, ds.p)), np.ones(1), Scaler.fit(ds.X), ds.schema, ds.classes)
    tree.fit_stats(ds.X, ds.y)
    tree.W[0, :2] = 1e308
    with pytest.raises(OlctcError, match=r"^feature importances overflow: a node's \|weight\| x std is beyond"):
        tree.feature_importances()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the raw-unit weights of such a tree overflow too
        text = to_text(tree)
    assert "feature importances" not in text and text.count("\n") > 3


def test_tiny_weights_underflow_quietly_under_errstate_raise():
    """Products below 1e-308 are subnormals or 0, the right values: no FloatingPointError even when a caller
    raises on every floating-point event (``np.seterr(all="raise")`` while debugging)."""
    W = np.array([[1e-320, 0.5, 0.0], [2e-300, 0.0, 1e-310], [0.0, 1e-200, 1.0]])
    tree = Tree.from_arrays(W, [0.0, 0.1, -0.1])
    X = np.random.default_rng(1).normal(size=(30, 3)) * 1e-10
    tree.fit_stats(X, np.where(X[:, 0] > 0, 1, -1))
    with np.errstate(all="raise"):
        imp = tree.feature_importances()
        assert 0 < imp[0] < 1e-250 and imp[1] > 0.1 and imp[2] > 0.1 and imp.sum() == pytest.approx(1)
        r = tree.influence()
        assert r[0, 0] == 0.0 and 0 < r[1, 0] < 1e-300  # 1e-320 x 1e-10 is below every subnormal; 2e-310 is one
        proba = tree.predict_proba(X)
        assert np.isfinite(proba).all()
        assert (tree.predict(X) == np.where(tree.decision_function(X) > 0, 1, -1)).all()
        assert tree.apply(X).shape == (30,) and tree.decision_path(X).shape == (30, 3)
        assert tree.explain(X[0]).label in (-1, 1)


def test_fit_shares_line_quotes_names_that_hold_a_comma():
    from olctc.fit import shares_text

    top = [("a, b", 0.5), ("c", 0.25), ('"q"', 0.125), ("x\ny", 0.125)]
    # unquoted, "a, b 0.500, c 0.250" would read as three features
    assert shares_text(top) == '"a, b" 0.500, c 0.250, ""q"" 0.125, \'x\\ny\' 0.125'
    assert shares_text([]) == ""


def test_solver_noise_weights_are_not_counted_as_used():
    """SCIP's MARGOT solutions leave weights of ~3e-9 at a node whose score is its b: fit counted them, printing
    "nonzero weights per node: [13, 3, 13]" for a node that uses no feature, and bench's sparsity with them
    (QA 2026-12-05). Weights at or below 1e-6 (standardised) count as unused; 1.1e-6 counts."""
    from olctc import fit as fit_module
    from olctc.bench import tasks as bench_tasks

    ds = load("heart")
    tree = Tree(np.zeros((3, ds.p)), np.array([0.3, -1.0, 0.2]), Scaler.fit(ds.X), ds.schema, ds.classes)
    tree.fit_stats(ds.X, ds.y)
    tree.W[0, [0, 4, 7]] = [0.8, -0.02, 1.1e-6]
    tree.W[1, [1, 2, 3]] = [1.63e-9, -1.70e-9, 2.93e-9]
    tree.W[2, [2, 5]] = [-1e-6, 0.4]
    assert bench_tasks._nonzero(tree.W) == {"nonzero_weights_per_node": [3, 0, 1], "mean_nonzero_per_node": 4 / 3}
    assert fit_module._feature_shares(tree)["features_used"] == 4  # features 0, 4, 7 and 5
