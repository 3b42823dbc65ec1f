"""Per-point weights: ``--weight-column COLUMN`` and ``fit(X, y, sample_weight=...)``.

Each point's loss terms are multiplied by its weight (and by its class's weight, if any); the features are
standardised with the weighted mean and std; points of weight 0 are left out of the model. Checked against
computations that do not use olctc's weighting: integer weights against the same data with each point
repeated that many times (the MILP optimum, the tree objective, the scaler, the warm start and refinement,
and the whole command line: compile, solve, decode), weight 0 against the point removed, the scaler against
scikit-learn's ``StandardScaler(sample_weight=)``, "balanced" with weights against scikit-learn's
``compute_class_weight`` on the repeated labels. scikit-learn's own sample-weight checks run through
``parametrize_with_checks`` in tests/test_estimator.py.
"""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_class_weight

from olctc.compile import compile_problem
from olctc.data import Scaler, from_arrays, read_csv
from olctc.datasets import load, load_dataset
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.objective import tree_objective
from olctc.refine import refine
from olctc.solve import solve_milp
from olctc.spec import make_spec
from olctc.warmstart import greedy_tree, warm_start
from conftest import cli_main


def _small(name: str = "haberman", step: int = 12, seed: int = 0):
    """Every ``step``-th point of a vendored set, standardised, with integer weights 0..3."""
    ds = load(name)
    rows = np.arange(0, ds.n, step)
    X = ds.X[rows]
    w = np.random.default_rng(seed).integers(0, 4, size=rows.size).astype(float)
    return Scaler.fit(X).transform(X), ds.y[rows].astype(float), w


def _repeat(w: np.ndarray) -> np.ndarray:
    """Row indices with row k repeated w[k] times (weight 0: left out)."""
    return np.repeat(np.arange(w.size), w.astype(int))


def _optimum(X, y, spec, sample_weight=None) -> float:
    res = solve_milp(build_milp(X, y, spec, sample_weight=sample_weight), "highs", threads=1, verbose=False,
                     time_limit=120)
    assert res.status == "optimal", res.raw_status
    return res.objective


# ---------------------------------------------------------------- the model

@pytest.mark.parametrize("preset,depth", [("olct", 2), ("oct-h", 1), ("olct", 1)])
def test_integer_weights_equal_repeated_points(preset, depth):
    """Weights 0..3 give the optimum of the unweighted model with each point repeated that many times."""
    X, y, w = _small(step=14, seed=1)
    keep = w > 0  # the MILP with weight-0 points in it: they cost nothing, so the optimum is the same
    spec = make_spec(preset, depth, C=[1.0, 3.0][:depth] if preset == "olct" else 2.0,
                     **({"alpha": 0.5} if preset == "oct-h" else {}))
    weighted = _optimum(X, y, spec, w)
    reps = _repeat(w)
    assert weighted == pytest.approx(_optimum(X[reps], y[reps], spec), rel=1e-6)
    assert weighted == pytest.approx(_optimum(X[keep], y[keep], spec, w[keep]), rel=1e-6)
    assert weighted != pytest.approx(_optimum(X, y, spec), rel=1e-3)  # the weights changed something


def test_weights_multiply_class_weights():
    X, y, w = _small(step=20)
    spec = make_spec("olct", 2, C=[1.0, 2.0], class_weight=(0.5, 3.0))
    a = build_milp(X, y, spec, sample_weight=w)
    b = build_milp(X, y, make_spec("olct", 2, C=[1.0, 2.0]), sample_weight=w * np.where(y > 0, 3.0, 0.5))
    assert np.array_equal(a.c, b.c) and (a.A != b.A).nnz == 0
    plain = build_milp(X, y, make_spec("olct", 2, C=[1.0, 2.0]))
    assert not np.array_equal(a.c, plain.c)


@pytest.mark.parametrize("preset", ["olct", "margot", "oct-h", "margot-sfs"])
def test_tree_objective_equals_repeated_points(preset):
    X, y, w = _small(step=10)
    rng = np.random.default_rng(1)
    W, b = rng.normal(size=(3, X.shape[1])), rng.normal(size=3)
    spec = make_spec(preset, 2)
    reps = _repeat(w)
    for loss in ("model", "exact") if preset == "olct" else ("model",):
        p = tree_objective(W, b, X, y, spec, loss=loss, sample_weight=w)
        r = tree_objective(W, b, X[reps], y[reps], spec, loss=loss)
        assert p.total == pytest.approx(r.total, rel=1e-12)
        assert p.total != pytest.approx(tree_objective(W, b, X, y, spec, loss=loss).total, rel=1e-3)


def test_balanced_counts_each_class_by_its_weight():
    """"balanced" with weights: each class's size is its total weight, as the repeated labels give it."""
    _, y, w = _small(step=3)
    spec = make_spec("olct", 2, class_weight="balanced")
    reps = _repeat(w)
    expected = compute_class_weight("balanced", classes=np.array([-1.0, 1.0]), y=y[reps])
    assert spec.class_weights(y, w) == pytest.approx(tuple(expected), rel=1e-12)
    pw = spec.point_weights(y, w)
    assert pw == pytest.approx(w * np.where(y > 0, expected[1], expected[0]), rel=1e-12)
    # each class then weighs half of the total
    assert pw[y > 0].sum() == pytest.approx(pw[y < 0].sum(), rel=1e-12)


def test_scaler_is_weighted_as_scikit_learns_and_as_repeated_points():
    X = load("heart").X
    w = np.random.default_rng(3).integers(0, 5, size=X.shape[0]).astype(float)
    s = Scaler.fit(X, w)
    ref = StandardScaler().fit(X, sample_weight=w)
    assert s.mean == pytest.approx(ref.mean_, rel=1e-12, abs=1e-12)
    assert s.scale == pytest.approx(ref.scale_, rel=1e-10)
    rep = Scaler.fit(X[_repeat(w)])
    assert s.mean == pytest.approx(rep.mean, rel=1e-12, abs=1e-12)
    assert s.scale == pytest.approx(rep.scale, rel=1e-10)
    ones = Scaler.fit(X, np.ones(X.shape[0]))
    plain = Scaler.fit(X)
    assert ones.mean == pytest.approx(plain.mean, rel=1e-14) and ones.scale == pytest.approx(plain.scale, rel=1e-12)


def test_warm_start_and_refinement_equal_repeated_points():
    """The greedy tree of weighted points is the one of the repeated points (same node problems), and
    refinement reaches the same exact objective."""
    X, y, w = _small("heart", step=2)
    reps = _repeat(w)
    spec = make_spec("olct", 2, C=[1.0, 10.0])
    Wa, ba = greedy_tree(X, y, spec, sample_weight=w)
    Wb, bb = greedy_tree(X[reps], y[reps], spec)
    fa = tree_objective(Wa, ba, X, y, spec, loss="exact", sample_weight=w).total
    fb = tree_objective(Wb, bb, X[reps], y[reps], spec, loss="exact").total
    assert fa == pytest.approx(fb, rel=1e-5)
    _, _, ra = refine(Wa, ba, X, y, spec, sample_weight=w)
    _, _, rb = refine(Wb, bb, X[reps], y[reps], spec)
    assert ra.objective_after == pytest.approx(rb.objective_after, rel=1e-5)
    assert ra.objective_before == pytest.approx(fa, rel=1e-12)


def test_weighted_warm_start_is_feasible_and_its_objective_is_the_trees():
    import warnings

    X, y, w = _small("breast", step=3)
    spec = make_spec("olct", 2, C=[1.0, 10.0])
    milp = build_milp(X, y, spec, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "MILP objective differs" warning
        x0, info = warm_start(milp, X, y, spec, sample_weight=w)
    assert info["objective_matches"] and max(info["violation"].values()) <= 1e-9
    assert info["objective"] == pytest.approx(
        tree_objective(info["W"], info["b"], X, y, spec, threshold=spec.epsilon / 2, sample_weight=w).total,
        rel=1e-9)


def test_refine_refuses_weights_of_the_wrong_length():
    X, y, w = _small(step=20)
    spec = make_spec("olct", 1)
    with pytest.raises(OlctcError, match="sample_weight has shape"):
        refine(np.zeros((1, X.shape[1])), np.zeros(1), X, y, spec, sample_weight=w[:-1])


def test_compile_leaves_out_points_of_weight_zero():
    ds = load("haberman")
    w = np.where(np.arange(ds.n) % 3 == 0, 0.0, 2.0)
    ds.weight = w
    comp = compile_problem(ds, make_spec("olct", 1), "h")
    keep = np.flatnonzero(w > 0)
    assert comp.dataset.n == keep.size and comp.manifest["data"]["rows"] == keep.tolist()
    assert comp.manifest["data"]["weight_sum"] == pytest.approx(w.sum())
    assert comp.manifest["data"]["n"] == keep.size
    # a training split keeps its source rows: the ones compiled are the split's of weight > 0
    rows = np.arange(0, ds.n, 2)
    comp2 = compile_problem(ds.subset(rows), make_spec("olct", 1), "h", rows=rows)
    assert comp2.manifest["data"]["rows"] == [int(r) for r in rows if w[r] > 0]


# ---------------------------------------------------------------- command line

def _write_weighted(tmp_path, seed: int = 1, n: int = 60):
    """heart rows with a weight column 0..3, and the same rows each repeated weight times, unweighted."""
    X, y, names = load_dataset("heart")
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(y), n, replace=False)
    w = rng.integers(0, 4, size=n)
    with open(tmp_path / "w.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(names[:5] + ["wt", "label"])
        for k, i in enumerate(idx):
            out.writerow([repr(float(v)) for v in X[i, :5]] + [int(w[k]), y[i]])
    with open(tmp_path / "r.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(names[:5] + ["label"])
        for k, i in enumerate(idx):
            for _ in range(w[k]):
                out.writerow([repr(float(v)) for v in X[i, :5]] + [y[i]])
    return w


def _compile_solve_decode(tmp_path, capsys, name: str, extra: list[str]) -> tuple[float, str, dict]:
    out = tmp_path / f"{name}.mps"
    code, stdout, err = cli_main(["compile", str(tmp_path / f"{name}.csv"), "--target", "label", "--depth", "2",
                                  *extra, "-o", str(out)], capsys)
    assert code == 0, err
    compiled = stdout.splitlines()[0]
    code, stdout, err = cli_main(["solve", str(out), "--solver", "highs", "--time-limit", "60",
                                  "-o", str(tmp_path / f"{name}.sol")], capsys)
    assert code == 0, err
    obj = float(stdout.split("objective ")[1].split(",")[0])
    code, stdout, err = cli_main(["decode", str(tmp_path / f"{name}.olctc.json"), str(tmp_path / f"{name}.sol"),
                                  "-o", str(tmp_path / f"{name}.json")], capsys)
    assert code == 0, err  # exit 3 if the rebuilt weighted model's objective were not the solver's
    assert "routing: the tree routes every training point as z says" in stdout
    return obj, compiled, json.loads((tmp_path / f"{name}.olctc.json").read_text())


def test_weight_column_compile_solve_decode_equals_repeated_rows(tmp_path, capsys):
    w = _write_weighted(tmp_path, n=40)
    obj_w, line, man = _compile_solve_decode(tmp_path, capsys, "w", ["--weight-column", "wt"])
    obj_r, _, man_r = _compile_solve_decode(tmp_path, capsys, "r", [])
    assert obj_w == pytest.approx(obj_r, rel=1e-4)  # HiGHS's default relative gap
    zero = int((w == 0).sum())
    assert f"({w.size - zero} of {w.size} points, {zero} of weight 0 left out, 5 features)" in line
    assert man["data"]["weight_column"] == "wt" and man["feature_names"] == man_r["feature_names"]
    assert man["scaler"]["mean"] == pytest.approx(man_r["scaler"]["mean"], rel=1e-12)
    assert man["scaler"]["scale"] == pytest.approx(man_r["scaler"]["scale"], rel=1e-10)
    # the decoded tree says it was weighted, as a fit's does (its data record held name, sha256, n and p only)
    data = json.loads((tmp_path / "w.json").read_text())["meta"]["data"]
    assert (data["weight_column"], data["weight_sum"]) == ("wt", pytest.approx(float(w.sum())))
    assert "weight_column" not in json.loads((tmp_path / "r.json").read_text())["meta"]["data"]


def test_decode_refuses_changed_weights(tmp_path, capsys):
    _write_weighted(tmp_path)
    out = tmp_path / "w.mps"
    assert cli_main(["compile", str(tmp_path / "w.csv"), "--target", "label", "--weight-column", "wt",
                     "--depth", "1", "-o", str(out)], capsys)[0] == 0
    assert cli_main(["solve", str(out), "-o", str(tmp_path / "w.sol")], capsys)[0] == 0
    text = (tmp_path / "w.csv").read_text().splitlines()
    cells = text[1].split(",")
    cells[5] = "7"
    (tmp_path / "w.csv").write_text("\n".join([text[0], ",".join(cells), *text[2:]]) + "\n")
    code, _, err = cli_main(["decode", str(tmp_path / "w.olctc.json"), str(tmp_path / "w.sol"),
                             "-o", str(tmp_path / "t.json")], capsys)
    assert code == 2 and "the data changed since compile" in err and len(err.strip().splitlines()) == 1


def test_fit_reports_weights_and_weighted_accuracy(tmp_path, capsys):
    _write_weighted(tmp_path)
    code, stdout, err = cli_main(["fit", str(tmp_path / "w.csv"), "--target", "label", "--weight-column", "wt",
                                  "--depth", "1", "--test-size", "0.25", "--quiet", "-o", str(tmp_path / "t.json")],
                                 capsys)
    assert code == 0, err
    assert "point weights from column 'wt' (sum " in stdout
    assert "balanced accuracy, points weighted: train " in stdout and ", test " in stdout
    meta = json.loads((tmp_path / "t.json").read_text())["meta"]["fit"]
    assert meta["sample_weights"]["column"] == "wt"
    assert 0 <= meta["test_balanced_accuracy_weighted"] <= 1


def test_weight_column_of_a_vendored_set(tmp_path, capsys):
    """--dataset with --weight-column: the column is a weight, not a feature, and decode reads it again."""
    out = tmp_path / "h.mps"
    code, stdout, err = cli_main(["compile", "--dataset", "haberman", "--weight-column", "positive_axillary_nodes",
                                  "--depth", "1",
                                  "-o", str(out)], capsys)
    assert code == 0, err
    man = json.loads((tmp_path / "h.olctc.json").read_text())
    assert "positive_axillary_nodes" not in man["feature_names"]
    assert man["data"]["weight_column"] == "positive_axillary_nodes"
    assert cli_main(["solve", str(out), "-o", str(tmp_path / "h.sol")], capsys)[0] == 0
    code, stdout, err = cli_main(["decode", str(tmp_path / "h.olctc.json"), str(tmp_path / "h.sol"),
                                  "-o", str(tmp_path / "t.json")], capsys)
    assert code == 0, err


@pytest.mark.parametrize("cell,expected", [
    ("-1", r"weight column 'wt': line 3: expected a weight >= 0, got -1.0"),
    ("abc", r"column 'wt' line 3: expected a number, got 'abc'"),
    ("nan", r"column 'wt' line 3: expected a finite number, got 'nan'"),
    ("inf", r"column 'wt' line 3: expected a finite number, got 'inf'"),
    ("", r"column 'wt' line 3: expected a number, got an empty cell; olctc does not impute"),
])
def test_bad_weight_cells(tmp_path, capsys, cell, expected):
    rows = ["a,wt,label", "1,1,x", f"2,{cell},y", "3,1,x", "4,1,y"]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    code, _, err = cli_main(["compile", str(tmp_path / "d.csv"), "--target", "label", "--weight-column", "wt",
                             "-o", str(tmp_path / "m.mps")], capsys)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.glob("m.*"))


@pytest.mark.parametrize("args,expected", [
    (["--weight-column", "nope"], "weight column 'nope' is not in the file; columns are: a, wt, label"),
    (["--weight-column", "label"], "weight column 'label' is the target column"),
    (["--weight-column", "wt", "--drop", "wt"], "weight column 'wt' is also a column to drop"),
    (["--weight-column", ""], "d.csv: the weight column must be named by a column of the header; got ''"),
    (["--weight-column", "a"], None),  # fine: 'a' is the weight, 'wt' the one feature
])
def test_bad_weight_column_names(tmp_path, capsys, args, expected):
    rows = ["a,wt,label", "1,1,x", "2,0.5,y", "3,1,x", "4,1,y"]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    code, _, err = cli_main(["compile", str(tmp_path / "d.csv"), "--target", "label", *args, "--depth", "1",
                             "-o", str(tmp_path / "m.mps")], capsys)
    if expected is None:
        assert code == 0, err
        return
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, err
    assert not list(tmp_path.glob("m.*"))


def test_a_class_of_weight_zero_is_refused(tmp_path, capsys):
    rows = ["a,wt,label", "1,0,x", "2,1,y", "3,0,x", "4,1,y"]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    code, _, err = cli_main(["fit", str(tmp_path / "d.csv"), "--target", "label", "--weight-column", "wt",
                             "-o", str(tmp_path / "t.json")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "every point of class 'x' weighs 0, which leaves one class to train on" in err
    assert not (tmp_path / "t.json").exists()


# ---------------------------------------------------------------- arrays and the estimator

@pytest.mark.parametrize("weight,expected", [
    ([1, 1, -1, 1], "sample_weight: row 2: expected a weight >= 0, got -1.0"),
    ([1, np.nan, 1, 1], "sample_weight: row 1: expected a finite number >= 0, got nan"),
    ([1, 1, 1], r"sample_weight must be 1-D with one weight per row of X \(4\); got shape \(3,\)"),
    ([[1, 1, 1, 1]], r"sample_weight must be 1-D with one weight per row of X \(4\)"),
    (["a", 1, 1, 1], "sample_weight must be numbers"),
    ([0, 1, 0, 1], "every point of class 0 weighs 0"),
    ([10 ** 400, 1, 1, 1], "too large for a float64"),
])
def test_from_arrays_refuses(weight, expected):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(OlctcError, match=expected):
        from_arrays(X, [0, 1, 0, 1], sample_weight=weight)


def test_from_arrays_weights_change_the_hash():
    X = np.arange(8.0).reshape(4, 2)
    a = from_arrays(X, [0, 1, 0, 1])
    b = from_arrays(X, [0, 1, 0, 1], sample_weight=[1, 2, 1, 1])
    c = from_arrays(X, [0, 1, 0, 1], sample_weight=2.0)
    assert a.sha256 != b.sha256 and b.weight.tolist() == [1, 2, 1, 1] and c.weight.tolist() == [2.0] * 4


def test_estimator_sample_weight_equals_repeated_points():
    from olctc.estimator import OLCTClassifier

    X, y, _ = load_dataset("breast")
    rng = np.random.default_rng(0)
    idx = rng.choice(len(y), 60, replace=False)
    X, y = X[idx], y[idx]
    w = rng.integers(0, 3, size=60)
    a = OLCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w)
    b = OLCTClassifier(depth=2, time_limit=60).fit(X[_repeat(w)], y[_repeat(w)])
    assert a.summary_["status"] == b.summary_["status"] == "optimal"
    # each within HiGHS's relative gap (1e-4) of the optimum: measured gaps 0 and 6.4e-5
    assert a.summary_["objective_milp"] == pytest.approx(b.summary_["objective_milp"], rel=2e-4)
    assert a.summary_["sample_weights"] == {"column": None, "sum": float(w.sum()), "zero": int((w == 0).sum())}
    assert a.summary_["n_train"] == 60
    # unweighted, the optimum is another
    c = OLCTClassifier(depth=2, time_limit=60).fit(X, y)
    assert c.summary_["objective_milp"] != pytest.approx(a.summary_["objective_milp"], rel=1e-3)


def test_estimator_sample_weight_with_balanced_class_weight():
    from olctc.estimator import OLCTClassifier

    X, y, _ = load_dataset("haberman")
    w = np.where(np.arange(len(y)) % 4 == 0, 3.0, 1.0)
    est = OLCTClassifier(depth=1, time_limit=30, class_weight="balanced").fit(X, y, sample_weight=w)
    cw = compute_class_weight("balanced", classes=np.unique(y), y=y[_repeat(w)])
    assert list(est.summary_["class_weights"].values()) == pytest.approx(list(cw), rel=1e-12)


# ---------------------------------------------------------------- grids

def _write_grid_data(path, n_per_class: int = 20, seed: int = 0) -> np.ndarray:
    """heart rows (the first ``n_per_class`` of each class, 6 features) with a weight column 'wt' of
    0, 0.5, 1, 2 and 3.25; returns the weights."""
    X, y, names = load_dataset("heart")
    rows = np.r_[np.flatnonzero(y == 1)[:n_per_class], np.flatnonzero(y == 0)[:n_per_class]]
    w = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 2.0, 3.25], size=rows.size)
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(names[:6] + ["wt", "label"])
        for k, i in enumerate(rows):
            out.writerow([repr(float(v)) for v in X[i, :6]] + [repr(float(w[k])), y[i]])
    return w


def test_grid_run_collect_and_final_fit_with_weights(tmp_path, capsys):
    """grid -> run_local.sh -> collect (and --emit-final) with a weight column: each task's model leaves
    out its fold's points of weight 0, collect rebuilds every task's weighted model from the data, the CV
    scores are scikit-learn's weighted balanced accuracy of the decoded trees, and the final fit and
    final instance are weighted too."""
    import subprocess
    import sys

    from sklearn.metrics import balanced_accuracy_score

    from olctc.decode import decode_file

    data = tmp_path / "hw.csv"
    w = _write_grid_data(data)
    g = tmp_path / "g"
    code, _, err = cli_main(["grid", data, "--target", "label", "--weight-column", "wt", "--depth", "1",
                             "--C-values", "0.1,10", "--folds", "2", "--seed", "1", "--time-limit", "20",
                             "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o", g], capsys)
    assert code == 0, err
    info = json.loads((g / "grid.json").read_text())
    assert info["data"]["weight_column"] == "wt" and info["data"]["p"] == 6  # the weight is no feature
    for t in info["tasks"]:
        man = json.loads((g / t["model"].replace(".mps", ".olctc.json")).read_text())
        fold_train = info["folds"][t["fold"]]["train"]
        assert man["data"]["rows"] == [r for r in fold_train if w[r] > 0]
        assert man["data"]["weight_sum"] == pytest.approx(w[fold_train].sum(), rel=1e-12)
    run = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr

    code, out, err = cli_main(["collect", g, "-o", tmp_path / "final.json", "--quiet"], capsys)
    assert code == 0, err
    assert "tasks: 4 of 4 scored" in out and "warning" not in out
    assert "mean validation balanced accuracy " in out and ", points weighted by column 'wt')" in out
    # the scores, independently: each task's tree on its validation fold, weighted by scikit-learn
    ds = read_csv(data, "label", weight_column="wt")
    scores = {r["task"]: r["score"] for r in json.loads((g / "cv_results.json").read_text())["tasks"]}
    differ = 0
    for t in info["tasks"]:
        tree, _ = decode_file(g / t["model"].replace(".mps", ".olctc.json"), g / t["solution"])
        val = info["folds"][t["fold"]]["val"]
        pred = tree.predict(ds.X[val])
        expected = balanced_accuracy_score(ds.labels(ds.y[val]).astype(int), pred, sample_weight=w[val])
        assert scores[t["task"]] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        differ += expected != pytest.approx(balanced_accuracy_score(ds.labels(ds.y[val]).astype(int), pred), abs=1e-9)
    assert differ  # the weights changed some score: the check above tells weighted from plain
    meta = json.loads((tmp_path / "final.json").read_text())["meta"]["fit"]
    test = info["test_rows"]
    assert meta["sample_weights"] == {"column": "wt", "sum": float(w[info["train_rows"]].sum()),
                                      "zero": int((w[info["train_rows"]] == 0).sum())}
    assert (f"final fit on {len(info['train_rows'])} training points less {meta['sample_weights']['zero']} "
            "of weight 0, score-variable form: ") in out and meta["sample_weights"]["zero"] > 0
    from olctc.export.json import load as load_tree

    pred = load_tree(tmp_path / "final.json").predict(ds.X[test])
    assert meta["test_balanced_accuracy_weighted"] == pytest.approx(
        balanced_accuracy_score(ds.labels(ds.y[test]).astype(int), pred, sample_weight=w[test]), rel=1e-12)
    assert (f"balanced accuracy, points weighted by column 'wt': train "
            f"{meta['train_balanced_accuracy_weighted']:.4f}, test {meta['test_balanced_accuracy_weighted']:.4f}"
            in out)

    code, out, err = cli_main(["collect", g, "--emit-final"], capsys)
    assert code == 0, err
    zero = int((w[info["train_rows"]] == 0).sum())
    assert f"final instance (all {len(info['train_rows'])} training points less {zero} of weight 0, C " in out
    man = json.loads((g / "final/model.olctc.json").read_text())
    assert man["data"]["rows"] == [r for r in info["train_rows"] if w[r] > 0]
    assert cli_main(["solve", g / "final/model.mps", "-o", tmp_path / "final.sol", "--quiet"], capsys)[0] == 0
    code, out, err = cli_main(["decode", g / "final/model.olctc.json", tmp_path / "final.sol",
                               "-o", tmp_path / "final2.json"], capsys)
    assert code == 0, err


def _one_weighted_positive(path) -> None:
    """40 rows, 20 of each class; every point of class 1 but one weighs 0."""
    _write_grid_data(path)
    rows = list(csv.reader(open(path)))
    seen = False
    for r in rows[1:]:
        if r[-1] == "1":
            r[-2] = "0" if seen else "1.5"
            seen = True
        else:
            r[-2] = "1"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


def test_a_training_part_whose_class_weighs_zero_is_refused(tmp_path, capsys):
    """The data's weights are fine, but a split (fit's --test-size, a grid's fold) may leave a class
    with only points of weight 0: that model would train on one class (it used to, silently)."""
    from olctc.fit import split

    data = tmp_path / "one.csv"
    _one_weighted_positive(data)
    ds = read_csv(data, "label", weight_column="wt")
    positive = int(np.flatnonzero((ds.y > 0) & (ds.weight > 0))[0])
    seed = next(s for s in range(100) if positive in split(ds, 0.5, s)[1])  # the one in the test part
    msg = ("one.csv: weight column 'wt': every point of class 1 among the 20 training rows weighs 0, which "
           "leaves one class to train on; another split (--seed, --test-size, or the folds: --cv, --folds) or "
           "more points of that class with a weight > 0 avoids it")
    code, _, err = cli_main(["fit", data, "--target", "label", "--weight-column", "wt", "--depth", "1",
                             "--test-size", "0.5", "--seed", seed, "-o", tmp_path / "t.json"], capsys)
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "t.json").exists()
    # 2 folds: the fold whose validation part holds the one positive trains on the negatives alone
    code, _, err = cli_main(["grid", data, "--target", "label", "--weight-column", "wt", "--depth", "1",
                             "--C-values", "1", "--folds", "2", "--test-size", "0", "-o", tmp_path / "g"], capsys)
    assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "g").exists()
    # the split that keeps it in the training part fits
    seed = next(s for s in range(100) if positive in split(ds, 0.5, s)[0])
    code, _, err = cli_main(["fit", data, "--target", "label", "--weight-column", "wt", "--depth", "1",
                             "--test-size", "0.5", "--seed", seed, "--quiet", "-o", tmp_path / "t.json"], capsys)
    assert code == 0, err


# ---------------------------------------------------------------- the weights' scale

@pytest.mark.parametrize("scale", [5e-324, 1e-320, 1e-300, 1e14, 1e300])
def test_scaler_depends_on_the_weights_ratios_only(scale):
    """Equal weights give the unweighted scaler, whatever their size; weights times a number give the
    same scaler. Weights of 1e14 on heart's 297 points (sum 3e16 > 1 / eps) used to make every column
    'constant' (scale 1: no standardisation), and subnormal weights lost the mean's digits."""
    X = load("heart").X
    plain = Scaler.fit(X)
    s = Scaler.fit(X, np.full(X.shape[0], scale))
    assert s.mean == pytest.approx(plain.mean, rel=1e-14, abs=1e-14)
    assert s.scale == pytest.approx(plain.scale, rel=1e-14)
    if scale < 1e-300:  # subnormal: w * scale would not keep the ratios of w
        return
    w = np.random.default_rng(0).integers(1, 5, size=X.shape[0]).astype(float)
    ref, scaled = Scaler.fit(X, w), Scaler.fit(X, w * scale)
    assert scaled.mean == pytest.approx(ref.mean, rel=1e-12, abs=1e-12)
    assert scaled.scale == pytest.approx(ref.scale, rel=1e-12)


def test_weight_cells_as_people_write_them(tmp_path, capsys):
    """'+2', ' 3 ', a quoted cell, '1e-300', '1e300', '0.0', in a gzip file with another column dropped:
    read as numbers; equal huge weights standardise as no weights do (the manifest's scaler)."""
    import gzip

    text = "a,b,id,wt,label\n" + "".join(
        f"{0.1 * k:.1f},{(k * 7) % 5},r{k},{cell},{'yes' if k % 2 else 'no'}\n"
        for k, cell in enumerate(['+2', ' 3 ', '"4.5"', '1e-300', '1e300', '0.0', '" 1 "', '2'] * 2))
    (tmp_path / "d.csv.gz").write_bytes(gzip.compress(text.encode()))
    ds = read_csv(tmp_path / "d.csv.gz", "label", drop=["id"], weight_column="wt")
    assert ds.feature_names == ["a", "b"]
    assert ds.weight.tolist() == [2.0, 3.0, 4.5, 1e-300, 1e300, 0.0, 1.0, 2.0] * 2
    # 1e15: C times 1e300 would be a cost solvers read as infinite, which compile refuses
    big = "a,b,wt,label\n" + "".join(f"{0.1 * k:.1f},{(k * 7) % 5},1e15,{'yes' if k % 2 else 'no'}\n"
                                      for k in range(16))
    plain = "a,b,label\n" + "".join(f"{0.1 * k:.1f},{(k * 7) % 5},{'yes' if k % 2 else 'no'}\n" for k in range(16))
    (tmp_path / "big.csv").write_text(big)
    (tmp_path / "plain.csv").write_text(plain)
    scalers = []
    for name, extra in (("big", ["--weight-column", "wt"]), ("plain", [])):
        code, _, err = cli_main(["compile", tmp_path / f"{name}.csv", "--target", "label", *extra, "--depth", "1",
                                 "--no-start", "-o", tmp_path / f"{name}.mps"], capsys)
        assert code == 0, err
        scalers.append(json.loads((tmp_path / f"{name}.olctc.json").read_text())["scaler"])
    assert scalers[0]["scale"] == pytest.approx(scalers[1]["scale"], rel=1e-14)
    assert scalers[0]["scale"] != [1.0, 1.0]
    X = read_csv(tmp_path / "plain.csv", "label").X  # and weights of 1e300, which the scaler alone takes
    huge, none = Scaler.fit(X, np.full(len(X), 1e300)), Scaler.fit(X)
    assert np.allclose(huge.scale, none.scale, rtol=1e-14) and np.allclose(huge.mean, none.mean, rtol=1e-14)


def test_weights_summing_past_the_float_range_are_refused(tmp_path, capsys):
    """Each weight finite, their sum not: the model's weighted sums overflowed (a traceback in the warm
    start, ValueError: attempt to get argmin of an empty sequence)."""
    rows = ["a,wt,label"] + [f"{k},1e308,{'x' if k % 2 else 'y'}" for k in range(6)]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    for cmd, out in (("compile", "m.mps"), ("fit", "t.json")):
        code, _, err = cli_main([cmd, tmp_path / "d.csv", "--target", "label", "--weight-column", "wt",
                                 "--depth", "1", "-o", tmp_path / out], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "d.csv: weight column 'wt': the weights sum past the float range (1.8e308); divide them all" in err
        assert not list(tmp_path.glob("m.*")) and not (tmp_path / "t.json").exists()
    with pytest.raises(OlctcError, match="sample_weight: the weights sum past the float range"):
        from_arrays(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], sample_weight=[1e308, 1e308, 1, 1])


@pytest.mark.parametrize("args,expected", [
    (["--weight-column", "nope"], "error: data set haberman: weight column 'nope' is not in the file; columns are: "
                                  "age, year_of_operation, positive_axillary_nodes, y"),
    (["--drop", "nope"], "error: data set haberman: column 'nope' to drop is not in the file"),
])
def test_vendored_set_errors_name_the_set_not_the_installed_file(tmp_path, capsys, args, expected):
    code, _, err = cli_main(["compile", "--dataset", "haberman", *args, "-o", str(tmp_path / "m.mps")], capsys)
    assert code == 2 and err.startswith(expected) and ".csv.gz" not in err, err
