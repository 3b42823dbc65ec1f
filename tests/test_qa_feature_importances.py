"""QA pass on feature importances: scikit-learn integration, point weights, every preset, degenerate data,
the fit summary's and the text export's lines, tree files without training statistics."""
from __future__ import annotations

import csv
import json
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import RFE, SelectFromModel
from sklearn.model_selection import GridSearchCV
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline

from conftest import cli_main
from olctc.data import Scaler
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.estimator import OCTHClassifier, OLCTClassifier
from olctc.export.json import dump, load as load_tree
from olctc.export.text import to_text
from olctc.spec import PRESETS
from olctc.tree import Tree

SHARES = "feature importances (each feature's share of the tree, summing to 1):"


def _by_hand(tree: Tree, X: np.ndarray) -> np.ndarray:
    """The definition in raw units: |w_raw| * raw std among a node's rows, times the node's share of the
    rows (counted), normalised. Routing from the tree's own apply (the definition is not about routing)."""
    at = tree.topology.path_mask(tree.apply(X))
    imp = np.zeros(X.shape[1])
    for t in range(tree.n_nodes):
        rows = at[:, t]
        if rows.any():
            imp += rows.sum() / X.shape[0] * np.abs(tree.W_raw[t]) * X[rows].std(axis=0)
    return imp / imp.sum() if imp.sum() > 0 else imp


def _fit(X, y, **kw):
    return _fit_w(X, y, **kw)


def _fit_w(X, y, sample_weight=None, **kw):
    kw.setdefault("depth", 1)
    kw.setdefault("time_limit", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return OLCTClassifier(**kw).fit(X, y, sample_weight=sample_weight)


@pytest.fixture(scope="module")
def heart():
    return load("heart")


@pytest.fixture(scope="module")
def heart_fit(heart):
    return _fit(heart.X, heart.y)


# ------------------------------------------------------------------ scikit-learn integration

def test_pickle_clone_and_export_tree_keep_or_drop_the_importances(heart_fit):
    clf = heart_fit
    imp = clf.feature_importances_
    assert (imp > 0).sum() >= 2
    back = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(back.feature_importances_, imp)
    assert not hasattr(clone(clf), "feature_importances_")  # a clone is unfitted
    assert np.array_equal(clf.export_tree().feature_importances(), imp)
    # the fit record's top features are the importances' ranking (stable on ties)
    order = [int(j) for j in np.argsort(-imp, kind="stable")[:5] if imp[j] > 0]
    assert [n for n, _ in clf.summary_["top_features"]] == [clf.tree_.feature_names[j] for j in order]
    assert [s for _, s in clf.summary_["top_features"]] == [float(imp[j]) for j in order]


@pytest.mark.parametrize("threshold", ["mean", "median", "1.5*mean"])
def test_select_from_model_thresholds_read_the_importances(heart_fit, threshold):
    imp = heart_fit.feature_importances_
    sel = SelectFromModel(heart_fit, prefit=True, threshold=threshold)
    cut = {"mean": imp.mean(), "median": np.median(imp), "1.5*mean": 1.5 * imp.mean()}[threshold]
    assert np.array_equal(sel.get_support(), imp >= cut)
    assert 0 < sel.get_support().sum() < imp.size


def test_select_from_model_inside_a_pipeline_refits_and_selects(heart):
    pipe = Pipeline([("sel", SelectFromModel(OLCTClassifier(depth=1, time_limit=5), threshold="median")),
                     ("clf", OLCTClassifier(depth=1, time_limit=5))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pipe.fit(heart.X, heart.y)
    sel = pipe.named_steps["sel"]
    imp = sel.estimator_.feature_importances_
    kept = sel.get_support()
    assert np.array_equal(kept, imp >= np.median(imp))
    inner = pipe.named_steps["clf"].feature_importances_
    assert inner.shape == (int(kept.sum()),) and inner.sum() == pytest.approx(1.0)


def test_rfe_drops_the_least_important_feature_first(heart):
    X, y = heart.X[:, :6], heart.y
    imp = _fit(X, y).feature_importances_
    assert np.unique(imp).size == imp.size  # no tie: the feature RFE drops is determined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rfe = RFE(OLCTClassifier(depth=1, time_limit=5), n_features_to_select=5, step=1).fit(X, y)
    assert int(np.flatnonzero(~rfe.support_)[0]) == int(np.argmin(imp))


def test_grid_search_and_one_vs_rest_expose_the_importances(heart):
    X, y = heart.X, heart.y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs = GridSearchCV(OLCTClassifier(depth=1, time_limit=5), {"C": [0.1, 1.0]}, cv=2).fit(X, y)
        y3 = np.where(y == 1, np.where(X[:, 11] > 0, 2, 1), 0)
        ovr = OneVsRestClassifier(OLCTClassifier(depth=1, time_limit=5)).fit(X, y3)
    best = gs.best_estimator_.feature_importances_
    assert best.shape == (heart.p,) and best.sum() == pytest.approx(1.0)
    assert np.allclose(best, _by_hand(gs.best_estimator_.tree_, X), rtol=1e-9, atol=1e-12)
    assert len(ovr.estimators_) == 3
    for k, est in enumerate(ovr.estimators_):
        imp = est.feature_importances_
        assert imp.shape == (heart.p,) and imp.sum() == pytest.approx(1.0), k
        assert np.allclose(imp, _by_hand(est.tree_, X), rtol=1e-9, atol=1e-12)


def test_dataframe_columns_give_importances_in_column_order(heart):
    pd = pytest.importorskip("pandas")
    cols = ["c0", "c1", "c2", "c3", "c4"]
    df = pd.DataFrame(heart.X[:, :5], columns=cols)
    a = _fit(df, heart.y)
    b = _fit(df[cols[::-1]], heart.y)
    assert list(b.feature_names_in_) == cols[::-1] and b.tree_.feature_names == cols[::-1]
    assert np.allclose(b.feature_importances_, a.feature_importances_[::-1], rtol=1e-6, atol=1e-9)
    assert np.unique(a.feature_importances_).size == 5  # the reversal is visible


# ------------------------------------------------------------------ point weights

def test_zero_weight_points_are_left_out_and_points_are_counted_not_weighted(heart):
    X, y = heart.X[:40], heart.y[:40]  # 40 rows: depth 2 proven optimal in well under a second (all: 8 s limit)
    w = np.random.default_rng(0).integers(0, 3, size=y.size).astype(float)  # 0, 1 and 2
    clf = _fit_w(X, y, sample_weight=w, depth=2, time_limit=8)
    t, keep = clf.tree_, w > 0
    assert int(t.node_n[0]) == int(keep.sum())
    imp = clf.feature_importances_
    assert np.allclose(imp, _by_hand(t, X[keep]), rtol=1e-9, atol=1e-12)
    assert not np.allclose(imp, _by_hand(t, X), rtol=1e-4)  # the weight-0 points would change it
    # a point of weight 2 counts once: the importances of the points repeated by their weight differ
    rep = np.repeat(np.arange(y.size), w.astype(int))
    assert not np.allclose(imp, _by_hand(t, X[rep]), rtol=1e-4)
    assert not np.allclose(t.node_n, t.topology.path_mask(t.apply(X[rep])).sum(axis=0))


def test_balanced_class_weight_counts_every_point(heart):
    # the first 40 rows (24 of one class, 16 of the other: weights other than 1), proven optimal in about 1 s
    X, y = heart.X[:40], heart.y[:40]
    assert np.unique(y, return_counts=True)[1].tolist() == [24, 16]
    clf = _fit_w(X, y, depth=2, time_limit=8, class_weight="balanced")
    assert int(clf.tree_.node_n[0]) == len(y)
    assert np.allclose(clf.feature_importances_, _by_hand(clf.tree_, X), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ every preset

@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_gives_shares_of_the_definition(heart, preset):
    clf = _fit(heart.X, heart.y, preset=preset, time_limit=6)
    imp, W = clf.feature_importances_, clf.tree_.W
    assert imp.shape == (heart.p,) and imp.dtype == np.float64 and (imp >= 0).all()
    assert imp.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(imp == 0, ~(W != 0).any(axis=0))  # no constant feature in heart
    assert np.allclose(imp, _by_hand(clf.tree_, heart.X), rtol=1e-9, atol=1e-12)
    assert clf.summary_["features_used"] == int((np.abs(W) > 1e-6).any(axis=0).sum())


def test_octh_classifier_has_importances(heart):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = OCTHClassifier(depth=1, time_limit=6).fit(heart.X, heart.y)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    assert np.allclose(clf.feature_importances_, _by_hand(clf.tree_, heart.X), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------ degenerate data

def test_constant_and_duplicated_columns_and_a_single_feature(heart):
    X, y = heart.X[:, :4], heart.y
    const = _fit(np.column_stack([X, np.full(y.size, 3.0)]), y)
    assert const.feature_importances_[4] == 0 and const.feature_importances_.sum() == pytest.approx(1.0)
    Xd = np.column_stack([X, X[:, :2]])
    clf = _fit(Xd, y)
    dup = clf.feature_importances_
    assert np.allclose(dup, _by_hand(clf.tree_, Xd), rtol=1e-9, atol=1e-12)
    assert dup.sum() == pytest.approx(1.0) and (dup > 0).all()
    single = _fit(heart.X[:40, [11]], y[:40], depth=2)  # 40 rows: proven optimal (all ran into the 5 s limit)
    assert single.feature_importances_.tolist() == [1.0]


@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_extreme_feature_scales_change_nothing_and_warn_nothing(heart, scale):
    X, y = heart.X[:, :5], heart.y
    Xs = X.copy()
    Xs[:, [0, 3]] *= scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = OLCTClassifier(depth=1, time_limit=5).fit(Xs, y)
        imp = clf.feature_importances_
        lines = to_text(clf.export_tree()).splitlines()
    ref = _fit(X, y).feature_importances_
    assert np.allclose(imp, ref, rtol=1e-6, atol=1e-9)
    assert SHARES in lines


def test_a_node_no_training_point_reaches_takes_no_share(heart):
    X = heart.X
    W = np.zeros((3, heart.p))
    W[1, 0], W[2, 1], W[2, 2] = 1.0, 5.0, 5.0  # the right leaf uses features 1 and 2 ...
    b = np.array([-1e6, 0.0, 0.0])  # ... but the root sends every point left
    tree = Tree(W, b, Scaler.fit(X), heart.schema, heart.classes)
    tree.fit_stats(X, heart.y)
    assert tree.node_n.tolist() == [heart.n, heart.n, 0] and (tree.node_std[2] == 0).all()
    imp = tree.feature_importances()
    assert imp[0] == 1.0 and imp.sum() == 1.0
    assert to_text(tree).splitlines()[-2:] == [SHARES, f"  {heart.feature_names[0]}: 1"]


# ------------------------------------------------------------------ tree files and the CLI

def _odd_csv(path, ds, names):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(names + ["colour", "target"])
        for i in range(ds.n):
            w.writerow(list(ds.X[i]) + [["red", "green", "blue"][i % 3], ds.y[i]])


@pytest.fixture(scope="module")
def odd_fit(tmp_path_factory, heart):
    """olctc fit on a CSV whose most important feature's name holds a newline and a bidi override, the
    second is 100 characters long, plus a text column (one-hot)."""
    import subprocess  # capsys is function-scoped: the module-scoped fit runs the CLI as a process
    import sys

    d = tmp_path_factory.mktemp("odd")
    names = [f"c{j}" for j in range(heart.p)]
    names[11], names[12], names[1] = "bad\nname\u202e", "y" * 100, "a,b é"
    _odd_csv(d / "odd.csv", heart, names)
    r = subprocess.run([sys.executable, "-m", "olctc", "fit", str(d / "odd.csv"), "--target", "target",
                        "--depth", "1", "--time-limit", "6", "--test-size", "0", "-o", str(d / "t.json")],
                       capture_output=True, text=True, encoding="utf-8")
    assert r.returncode == 0, r.stderr
    return d, r.stdout, names


def test_one_hot_columns_get_their_own_shares(odd_fit):
    d, out, _ = odd_fit
    tree = load_tree(d / "t.json")
    imp = tree.feature_importances()
    assert tree.n_features == 16 and tree.feature_names[-3:] == ["colour=blue", "colour=green", "colour=red"]
    fit = tree.meta["fit"]
    assert fit["n_features"] == 16 and fit["features_used"] == int((np.abs(tree.W) > 1e-6).any(axis=0).sum())
    order = [int(j) for j in np.argsort(-imp, kind="stable")[:5] if imp[j] > 0]
    assert [n for n, _ in fit["top_features"]] == [tree.feature_names[j] for j in order]
    assert any(line.startswith(f"features used: {fit['features_used']} of 16; ") for line in out.splitlines())


def test_text_export_prints_odd_names_on_one_line(odd_fit, capsys):
    d, _, names = odd_fit
    code, out, err = cli_main(["export", d / "t.json", "--format", "text", "-o", "-"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    shares = lines[lines.index(SHARES) + 1:]
    assert shares[0].startswith("  'bad\\nname\\u202e': 0.") and shares[1].startswith("  " + "y" * 39 + "…: 0.")
    assert "\u202e" not in out and "bad\n" not in out


def test_fit_summary_prints_odd_names_on_one_line(odd_fit):
    _, out, _ = odd_fit
    line = next(x for x in out.splitlines() if x.startswith("features used: "))
    assert "largest shares of the tree: 'bad\\nname\\u202e' 0." in line
    assert "\u202e" not in out and "y" * 41 not in out


def test_a_tree_file_without_statistics_exports_without_the_line(heart_fit, tmp_path, capsys):
    doc = json.loads(dump(heart_fit.export_tree()))
    for drop, err_key in [(("n", "pos", "std"), "node_std"), (("std",), "node_std"), (("n", "pos"), "node_n")]:
        d = json.loads(json.dumps(doc))
        for k in drop:
            del d["nodes"][k]
        p = tmp_path / f"{'-'.join(drop)}.json"
        p.write_text(json.dumps(d))
        code, out, err = cli_main(["export", p, "--format", "text", "-o", "-"], capsys)
        assert code == 0, err
        assert "feature importances" not in out and out.splitlines()[-1].endswith("class 1")
        with pytest.raises(OlctcError) as exc:
            load_tree(p).feature_importances()
        assert "\n" not in str(exc.value) and f"({err_key})" in str(exc.value)
    # without nodes.pos only, the shares are still there
    d = json.loads(json.dumps(doc))
    del d["nodes"]["pos"]
    p = tmp_path / "nopos.json"
    p.write_text(json.dumps(d))
    assert np.array_equal(load_tree(p).feature_importances(), heart_fit.feature_importances_)
    assert SHARES in to_text(load_tree(p)).splitlines()
