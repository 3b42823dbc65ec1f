"""QA: labels a tree file cannot hold, scoring a one-against-the-rest tree, and warm_start from a tree that
cannot start the refit.

1. ``OLCTClassifier.export_tree()`` copies the tree and sets its labels itself, past Tree's check: labels
   scikit-learn takes (numpy.datetime64) came out, and ``save`` failed inside json.
2. ``olctc predict --target`` refused the labels of the rest (0, 1 of a tree fitted with --positive-class
   2, classes ('not 2', 2)) on the very file the tree was fitted on.
3. warm_start=True: a fitted tree that breaks min_leaf on the refit's points made the refit fail (a cold
   fit works); a lower depth was refused in command-line words (--depth).
"""
from __future__ import annotations

import json
import pickle
import random
import warnings

import numpy as np
import pytest

from conftest import cli_main
from olctc import OLCTClassifier, Tree
from olctc.errors import OlctcError


def _xy(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.RandomState(0).rand(n, 3)
    return X, X[:, 0] > 0.5


def _fit(X: np.ndarray, y: np.ndarray, **kw) -> OLCTClassifier:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a ConvergenceWarning at the time limit is not the point here
        return OLCTClassifier(depth=1, time_limit=5, threads=1, **kw).fit(X, y)


# ====================================================================== 1. labels a tree file cannot hold

@pytest.mark.parametrize("labels, kind", [
    ((np.datetime64("2020-01-01"), np.datetime64("2021-01-01")), "datetime64"),
    ((np.timedelta64(2, "D"), np.timedelta64(1, "D")), "timedelta64"),  # numpy calls it an integer type
])
def test_export_tree_refuses_labels_no_tree_holds_in_one_line(tmp_path, labels, kind):
    X, m = _xy()
    y = np.where(m, labels[0], labels[1])
    est = _fit(X, y, warm_start=True)
    pred = est.predict(X)  # fit and predict take them, as scikit-learn does
    assert pred.dtype == y.dtype and set(pred.tolist()) <= set(y.tolist())
    with pytest.raises(OlctcError) as exc:
        est.export_tree()
    msg = str(exc.value)
    assert msg.startswith("OLCTClassifier.export_tree(): the negative class must be an int, float or str; "
                          f"got {kind} ")
    assert msg.endswith("fit on y mapped to str (y.astype(str)) or int to export it")
    assert "\n" not in msg
    assert not (tmp_path / "t.json").exists()
    # the labels a tree cannot hold still start a warm refit (the start maps them to 0/1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    assert est.summary_["warm_start_from"] == "start tree"
    # the way out the message names
    t = _fit(X, y.astype(str)).export_tree()
    t.save(tmp_path / "t.json")
    assert Tree.load(tmp_path / "t.json").classes == tuple(str(v) for v in sorted(labels))


@pytest.mark.parametrize("make, classes", [
    (lambda m: m, (0, 1)),                                                     # bool: 0 and 1, as before
    (lambda m: np.where(m, 7, 3).astype(np.int64), (3, 7)),
    (lambda m: np.where(m, 2.0, 1.0), (1.0, 2.0)),
    (lambda m: np.array([np.str_("b") if v else np.str_("a") for v in m], dtype=object), ("a", "b")),
    (lambda m: np.array([np.int64(9) if v else np.int64(4) for v in m], dtype=object), (4, 9)),
])
def test_export_tree_keeps_numpy_scalar_and_bool_labels(tmp_path, make, classes):
    X, m = _xy()
    t = _fit(X, make(m)).export_tree()
    assert t.classes == classes and [type(c) for c in t.classes] == [type(c) for c in classes]
    t.save(tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))["classes"] == list(classes)


# ====================================================================== 2. scoring a one-against-the-rest tree

def _three(path) -> None:
    R = random.Random(3)
    with open(path, "w", encoding="utf-8") as f:
        f.write("a,y\n")
        for i in range(60):
            f.write(f"{R.gauss(0, 1):.3f},{i % 3}\n")


def test_predict_scores_a_one_against_the_rest_tree_on_its_own_training_file(tmp_path, capsys):
    data, tree, out = tmp_path / "three.csv", tmp_path / "ovr.json", tmp_path / "ovr.csv"
    _three(data)
    code, _, err = cli_main(["fit", data, "--target", "y", "--positive-class", "2", "--depth", "1",
                             "--time-limit", "5", "--threads", "1", "--quiet", "-o", tree], capsys)
    assert code == 0, err
    t = Tree.load(tree)
    assert t.classes == ("not 2", 2)
    code, o, e = cli_main(["predict", tree, data, "--target", "y", "-o", out], capsys)
    assert code == 0, e
    line = o.splitlines()[-1]
    # the scores as training counted the labels: 2 positive, 0 and 1 the rest
    y = np.array([i % 3 for i in range(60)])
    pred = np.array([r.split(",")[0] for r in out.read_text().splitlines()[1:]])
    truth = np.where(y == 2, "2", "not 2")
    assert line.startswith(f"accuracy {np.mean(pred == truth):.4f}, ")
    assert line.endswith("on 60 rows (column 'y'; recall "
                         f"{np.mean(pred[truth == 'not 2'] == 'not 2'):.4f} of 'not 2', "
                         f"{np.mean(pred[truth == '2'] == '2'):.4f} of 2; 0, 1 scored as 'not 2')")


def _saved(path, classes) -> None:
    Tree.from_arrays(np.array([[1.0]]), [0.0], feature_names=["a"], classes=classes).save(path)


def test_predict_rest_rule_only_for_a_not_p_negative_class(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,y\n1,spam\n-1,not spam\n-2,ham\n2,ham\n")
    _saved(tmp_path / "spam.json", ("not spam", "spam"))
    code, o, e = cli_main(["predict", tmp_path / "spam.json", data, "--target", "y", "-o", tmp_path / "o.csv"],
                          capsys)
    assert code == 0, e
    # 'not spam' by that class's own name, and the line says it took 'ham' so
    assert "on 4 rows (column 'y'; recall 0.6667 of 'not spam', 1.0000 of 'spam'; 'ham' scored as 'not spam')" in o
    _saved(tmp_path / "yes.json", ("no", "yes"))
    data.write_text("a,y\n1,yes\n-1,no\n-2,maybe\n")
    code, _, e = cli_main(["predict", tmp_path / "yes.json", data, "--target", "y"], capsys)
    assert code == 2
    assert "line 4: label 'maybe' is not one of the tree's classes ('no', 'yes')" in e
    # an empty label is still no label, rest or not (training refuses it too)
    data.write_text("a,y\n1,2\n-1,\n")
    _saved(tmp_path / "ovr.json", ("not 2", 2))
    code, _, e = cli_main(["predict", tmp_path / "ovr.json", data, "--target", "y"], capsys)
    assert code == 2 and "line 3: no class label" in e


def test_predict_rest_rule_reads_labels_as_training_does(tmp_path, capsys):
    # "2.0" is the positive class 2, as read_csv reads it; "02" is a code, not 2: the rest, in both
    data = tmp_path / "d.csv"
    data.write_text("a,y\n1,2.0\n1,02\n-1,0\n-1,1\n-1,not 2\n")
    _saved(tmp_path / "ovr.json", ("not 2", 2))
    code, _, e = cli_main(["predict", tmp_path / "ovr.json", data, "--target", "y"], capsys)
    assert code == 0, e
    assert "accuracy 0.8000, balanced accuracy 0.8750," in e
    assert "; '02', 0, 1 scored as 'not 2')" in e


# ====================================================================== 3. warm_start from an unusable tree

@pytest.fixture(scope="module")
def deep() -> tuple[OLCTClassifier, np.ndarray, np.ndarray]:
    from olctc import load_dataset

    X, y, _ = load_dataset("heart")
    # 40 points, min_leaf 10: this fit and the refits below are proven optimal in 1-2 s (80 points, min_leaf 20,
    # ran to their limits: 12 s for the test)
    X, y = X[:40], y[:40]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = OLCTClassifier(depth=2, time_limit=6, threads=1, min_leaf=10, warm_start=True).fit(X, y)
    return est, X, y


def test_warm_start_drops_a_tree_that_breaks_min_leaf_on_the_new_points(deep):
    est, X, y = deep
    counts = np.bincount(est.apply(X))
    held = np.sort(counts[counts > 0])
    assert held.size >= 2, "the first tree splits the points"
    est = pickle.loads(pickle.dumps(est))
    k = int(held[0]) + 1  # the fitted tree leaves held[0] points in a node: fewer than min_leaf now
    est.set_params(min_leaf=k)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    msgs = [str(w.message) for w in caught if w.category is UserWarning]
    assert len(msgs) == 1, msgs
    assert msgs[0].startswith(f"OLCTClassifier: warm_start: the fitted tree breaks min_leaf={k} on these training "
                              f"points (last-layer node ")
    assert msgs[0].endswith("this fit starts from the greedy tree, as with warm_start=False")
    assert "--min-leaf" not in msgs[0]
    assert est.summary_["warm_start_from"] == "greedy tree"
    new = np.bincount(est.apply(X))
    assert ((new == 0) | (new >= k)).all()
    # the next refit goes on from this tree, which keeps min_leaf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    assert est.summary_["warm_start_from"] == "start tree"


def test_warm_start_refuses_a_lower_depth_in_the_estimators_words(deep):
    est, X, y = deep
    est = pickle.loads(pickle.dumps(est))
    tree = est.tree_
    est.set_params(depth=1)
    with pytest.raises(OlctcError) as exc:
        est.fit(X, y)
    assert str(exc.value) == ("warm_start: the fitted tree has depth 2, deeper than the model's 1 (depth=1): a start "
                              "may be shallower, not deeper; set depth=2 or more, or warm_start=False")
    assert est.tree_ is tree and est.get_depth() == 2  # a failed fit leaves the estimator as it was
