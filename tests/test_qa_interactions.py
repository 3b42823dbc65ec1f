"""QA pass on INTERACTIONS between options (data form x --drop x --weight-column x --class-weight x
--positive-class x label type x preset x depth x form x tangents x --start-tree x test split x file format x
solver), each checked by an independent route rather than "it runs":

- compile + solve + decode gives fit --test-size 0's tree and objective (a covering array of the options);
- grid + its tasks (`olctc solve`) + collect gives fit --cv's table, C and final tree; the folds are
  scikit-learn's;
- collect --emit-final + solve + decode gives collect's in-process final tree (weights read again);
- predict == Tree.predict == the python / ONNX / SQL (sqlite3) exports, whatever unused columns the CSV has;
- predict --target's metrics == scikit-learn's on the same predictions; fit's weighted metrics too;
- the manifest records the dropped / weight columns and the class weights, decode reads them again;
- bad combinations: exit 2, one line naming the option, nothing written.

Instances are tiny (30 rows, 3 raw features) and solve to optimality in well under a second.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import math
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_main
from test_cluster import run_tasks_here

# ----------------------------------------------------------------------------------------------- data

_RNG_ROWS = None


def _rows():
    """30 deterministic rows: id, city (text), a, b (numbers), w (weights incl. 0), label (text)."""
    global _RNG_ROWS
    if _RNG_ROWS is None:
        rng = np.random.default_rng(3)
        out = []
        for i in range(30):
            city = str(rng.choice(["Rome", "Oslo", "Lima"]))
            a, b = float(rng.normal()), float(rng.normal())
            s = a + 0.8 * b + (0.7 if city == "Rome" else 0) + float(rng.normal()) * 0.6
            out.append({"id": f"id{i}", "city": city, "a": round(a, 3), "b": round(b, 3),
                        "w": [0, 1, 2, 1.5][i % 4], "label": "yes" if s > 0.2 else "no"})
        _RNG_ROWS = out
    return [dict(r) for r in _RNG_ROWS]


def write_csv(path: Path, *, int_labels: bool = False, columns=None, rows=None) -> Path:
    rows = _rows() if rows is None else rows
    if int_labels:
        for r in rows:
            r["label"] = 7 if r["label"] == "yes" else -3
    columns = columns or ["id", "city", "a", "b", "w", "label"]
    with open(path, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(columns)
        for r in rows:
            wr.writerow([r[c] for c in columns])
    return path


def run(args, capsys, ok=True):
    code, out, err = cli_main([str(a) for a in args], capsys)
    if ok:
        assert code == 0, f"olctc {' '.join(map(str, args))} -> {code}\n{out}\n{err}"
    return code, out, err


def load(path):
    return json.loads(Path(path).read_text())


def same_tree(a: dict, b: dict, atol=1e-6):
    assert a["classes"] == b["classes"]
    assert a["feature_names"] == b["feature_names"]
    assert a["columns"] == b["columns"]
    np.testing.assert_allclose(a["scaler"]["mean"], b["scaler"]["mean"], atol=1e-12)
    np.testing.assert_allclose(a["scaler"]["scale"], b["scaler"]["scale"], atol=1e-12)
    assert a["nodes"]["n"] == b["nodes"]["n"] and a["nodes"]["pos"] == b["nodes"]["pos"]
    # A last-layer node holding one class only (pos 0 or n) has a face of optima (V1's tangents are flat
    # past a margin: any b up to big-M is optimal) that refinement leaves alone: compared by routing only.
    depth = a["depth"]
    keep = [t for t in range(len(a["nodes"]["b"]))
            if t < 2 ** (depth - 1) - 1 or 0 < a["nodes"]["pos"][t] < a["nodes"]["n"][t]]
    np.testing.assert_allclose(np.array(a["nodes"]["W"], float)[keep], np.array(b["nodes"]["W"], float)[keep],
                               atol=atol)
    np.testing.assert_allclose(np.array(a["nodes"]["b"], float)[keep], np.array(b["nodes"]["b"], float)[keep],
                               atol=atol)


# ------------------------------------------------- 1. compile + solve + decode == fit --test-size 0

# A covering array over: data (text CSV / int-label CSV / vendored), preset, depth, form, tangents,
# --C per layer, --drop, --weight-column, --class-weight, --positive-class, --start-tree, format, solver.
CASES = {
    "olct-text-weights-balanced-mps-highs": (
        "text", ["--drop", "id", "--weight-column", "w", "--class-weight", "balanced", "--depth", "1",
                 "--score-variables"], "mps", "highs"),
    "olct-int-poscls-cw-V1-C2-paper-lp-highscli": (
        "int", ["--drop", "id", "--positive-class", "-3", "--class-weight", "7=2", "--depth", "2",
                "--C", "1,10", "--tangents", "V1", "--paper-form"], "lp", "highs-cli"),
    "univariate-budget2-custom-tangents-drop-text-lp-scip": (
        "text", ["--drop", "id", "--drop", "city", "--preset", "olct-univariate", "--budget", "2",
                 "--tangents", "-inf,-1,0,1,inf", "--depth", "2", "--weight-column", "w",
                 "--score-variables"], "lp", "scip"),
    "olct-dataset-weights-drop-poscls-mps-cbc": (
        "haberman", ["--weight-column", "positive_axillary_nodes", "--drop", "age", "--positive-class", "1",
                     "--depth", "1", "--score-variables"], "mps", "cbc"),
    "margot-weights-balanced-mps-scip": (
        "text", ["--drop", "id", "--preset", "margot", "--weight-column", "w", "--class-weight", "balanced",
                 "--depth", "1", "--score-variables"], "mps", "scip"),
    "margot-sfs-alpha-poscls-paper-lp-scip": (
        "text", ["--drop", "id", "--preset", "margot-sfs", "--budget", "1", "--alpha", "0.5",
                 "--positive-class", "no", "--depth", "1", "--paper-form"], "lp", "scip"),
    "margot-hfs-int-mps-scip": (
        "int", ["--drop", "id", "--drop", "w", "--preset", "margot-hfs", "--budget", "2", "--depth", "1",
                "--score-variables"], "mps", "scip"),
    "octh-weights-cw-mps-cbccli": (
        "text", ["--drop", "id", "--preset", "oct-h", "--weight-column", "w", "--class-weight", "yes=3",
                 "--depth", "1", "--score-variables"], "mps", "cbc-cli"),
    "olct-start-tree-deepened-poscls-balanced-weights-lp-highs": (
        "text", ["--drop", "id", "--weight-column", "w", "--class-weight", "balanced", "--positive-class", "no",
                 "--depth", "2", "--C", "1,10", "--score-variables", "--start-tree", "START"], "lp", "highs"),
}


def _data_args(kind: str, tmp_path: Path) -> list[str]:
    if kind == "haberman":
        return ["--dataset", "haberman"]
    p = write_csv(tmp_path / f"{kind}.csv", int_labels=(kind == "int"))
    return [str(p), "--target", "label"]


@pytest.mark.parametrize("case", list(CASES))
def test_compile_solve_decode_equals_fit(case, tmp_path, capsys):
    kind, opts, ext, solver = CASES[case]
    data = _data_args(kind, tmp_path)
    if "START" in opts:  # a depth-1 tree fitted on other points (the first 20 rows), other class order
        half = write_csv(tmp_path / "half.csv", rows=_rows()[:20])
        run(["fit", half, "--target", "label", "--drop", "id", "--drop", "w", "--depth", "1", "--test-size", "0",
             "--time-limit", "10", "--quiet", "-o", tmp_path / "start.json"], capsys)
        opts = [str(tmp_path / "start.json") if o == "START" else o for o in opts]
    fit_solver = "scip" if "margot" in " ".join(opts) else "highs"
    # --time-limit 60: the fit must be proven optimal; each takes a few seconds at most, but on a busy machine
    # (load 24 on 2 cores) the depth-2 paper-form case stopped at 10 s with a gap, twice
    run(["fit", *data, *opts, "--test-size", "0", "--time-limit", "60", "--solver", fit_solver, "--quiet",
         "-o", tmp_path / "fit.json"], capsys)
    run(["compile", *data, *opts, "-o", tmp_path / f"m.{ext}"], capsys)
    run(["solve", tmp_path / f"m.{ext}", "--solver", solver, "--time-limit", "10", "--quiet",
         "-o", tmp_path / "m.sol"], capsys)
    run(["decode", tmp_path / "m.olctc.json", tmp_path / "m.sol", "-o", tmp_path / "dec.json"], capsys)
    f, d = load(tmp_path / "fit.json"), load(tmp_path / "dec.json")
    assert f["meta"]["status"] == "optimal"
    if "oct-h" in opts:  # misclassification counts: many optimal trees; the optimum must agree
        assert f["classes"] == d["classes"] and f["feature_names"] == d["feature_names"]
    else:
        same_tree(f, d)
    assert math.isclose(f["meta"]["true_objective"], d["meta"]["true_objective"], rel_tol=1e-6)
    if f["meta"].get("exact_objective") is not None and np.allclose(f["nodes"]["b"], d["nodes"]["b"], atol=1e-6):
        assert math.isclose(f["meta"]["exact_objective"], d["meta"]["exact_objective"], rel_tol=1e-6)
    assert f["meta"]["spec"] == d["meta"]["spec"]
    # the manifest records the data's handling and the class weights actually used
    man = load(tmp_path / "m.olctc.json")
    dropped = [opts[i + 1] for i, o in enumerate(opts) if o == "--drop"]
    assert man["data"]["dropped"] == dropped
    wcol = opts[opts.index("--weight-column") + 1] if "--weight-column" in opts else None
    assert man["data"].get("weight_column") == wcol
    if "--class-weight" in opts:
        cw = f["meta"]["fit"]["class_weights"]
        assert man["data"]["class_weights"] == pytest.approx([cw[str(c)] for c in man["classes"]])


# ------------------------------------------------------- 2. the class weights "balanced" by hand

def test_balanced_class_weights_count_sample_weights_on_the_training_part(tmp_path, capsys):
    """--class-weight balanced with --weight-column and --test-size > 0: each class's weight is
    n / (2 n_class) over the training rows' *weights* (the estimator's docs), computed on the stratified split
    scikit-learn's train_test_split makes; the weighted / unweighted train and test balanced accuracies
    printed are scikit-learn's."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import train_test_split

    from olctc import Tree

    p = write_csv(tmp_path / "d.csv")
    run(["fit", p, "--target", "label", "--drop", "id", "--weight-column", "w", "--class-weight", "balanced",
         "--depth", "1", "--test-size", "0.3", "--seed", "4", "--time-limit", "10", "--quiet",
         "-o", tmp_path / "t.json"], capsys)
    t = load(tmp_path / "t.json")
    rows = _rows()
    y = np.array([r["label"] for r in rows])
    w = np.array([float(r["w"]) for r in rows])
    tr, te = train_test_split(np.arange(len(rows)), test_size=0.3, random_state=4, stratify=np.where(y == "yes", 1, -1))
    n = w[tr].sum()
    expect = {c: n / (2 * w[tr][y[tr] == c].sum()) for c in ("no", "yes")}
    assert t["meta"]["fit"]["class_weights"] == pytest.approx(expect)
    tree = Tree.load(tmp_path / "t.json")
    cells = {"city": np.array([r["city"] for r in rows]), "a": np.array([r["a"] for r in rows], float),
             "b": np.array([r["b"] for r in rows], float)}
    pred = tree.predict(tree.encode(cells))
    m = t["meta"]["fit"]
    assert m["train_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y[tr], pred[tr]))
    assert m["test_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y[te], pred[te]))
    assert m["train_balanced_accuracy_weighted"] == pytest.approx(
        balanced_accuracy_score(y[tr], pred[tr], sample_weight=w[tr]))
    assert m["test_balanced_accuracy_weighted"] == pytest.approx(
        balanced_accuracy_score(y[te], pred[te], sample_weight=w[te]))


# ----------------------------------------------------------- 3. grid + collect == fit --cv

GRID_CASES = {
    "text-weights-balanced-3folds": (
        "text", ["--drop", "id", "--weight-column", "w", "--class-weight", "balanced", "--depth", "1",
                 "--C-values", "0.1,1,10", "--seed", "1", "--test-size", "0.2"], 3, "highs", "balanced_accuracy"),
    "int-poscls-cw-depth2-paper-logloss-test0": (
        "int", ["--drop", "id", "--positive-class", "-3", "--class-weight", "7=2", "--depth", "2",
                "--C-values", "0.1,10", "--seed", "2", "--test-size", "0", "--paper-form"], 2, "highs",
        "neg_log_loss"),
    "margot-hfs-rocauc-scip": (
        "text", ["--drop", "id", "--preset", "margot-hfs", "--budget", "2", "--depth", "1", "--C-values", "0.1,10",
                 "--positive-class", "no", "--seed", "3", "--test-size", "0.2"], 2, "scip", "roc_auc"),
    "dataset-weights-drop-poscls-brier-cbccli": (
        "haberman", ["--weight-column", "positive_axillary_nodes", "--drop", "age", "--positive-class", "1",
                     "--depth", "1", "--C-values", "0.1,10", "--seed", "0", "--test-size", "0.2"], 2, "cbc-cli",
        "neg_brier_score"),
}


@pytest.mark.parametrize("case", list(GRID_CASES))
def test_grid_collect_equals_fit_cv(case, tmp_path, capsys):
    from sklearn.model_selection import StratifiedKFold, train_test_split

    kind, opts, folds, solver, scoring = GRID_CASES[case]
    data = _data_args(kind, tmp_path)
    g = tmp_path / "g"
    run(["grid", *data, *opts, "--folds", folds, "--solver", solver, "--time-limit", "10", "-o", g], capsys)
    run_tasks_here(g)  # each task's `olctc solve` in process: what the tasks give is checked, not the script
    run(["collect", g, "--scoring", scoring, "--quiet", "-o", tmp_path / "final.json"], capsys)
    fit_solver = ["--solver", "scip"] if "margot" in " ".join(opts) else []
    run(["fit", *data, *opts, "--cv", folds, "--scoring", scoring, *fit_solver, "--time-limit", "10", "--quiet",
         "-o", tmp_path / "cv.json"], capsys)
    col, cv = load(g / "cv_results.json"), load(tmp_path / "cv.json")
    assert col["scoring"] == cv["meta"]["cv"]["scoring"] == scoring
    assert col["best"] == cv["meta"]["cv"]["C"]
    assert len(col["table"]) == len(cv["meta"]["cv"]["table"])
    for a, b in zip(col["table"], cv["meta"]["cv"]["table"]):
        assert a["C"] == b["C"] and a["folds_scored"] == b["folds_scored"] == folds
        for k in a["scores"]:
            assert a["scores"][k] == pytest.approx(b["scores"][k], abs=1e-7)
    fin = load(tmp_path / "final.json")
    same_tree(fin, cv, atol=1e-5)
    for k in ("test_balanced_accuracy", "train_balanced_accuracy", "test_balanced_accuracy_weighted"):
        assert fin["meta"]["fit"].get(k) == pytest.approx(cv["meta"]["fit"].get(k))
    # the choice: the best mean; ties (1e-12) to the smaller sum of C (README / cluster docstring)
    top = max(r["mean"] for r in col["table"])
    tied = [r["C"] for r in col["table"] if r["mean"] >= top - 1e-12]
    assert col["best"] == min(tied, key=sum)
    _check_fold_scores(g, kind, scoring, tmp_path, capsys)
    # the folds are scikit-learn's: stratified split, then StratifiedKFold(shuffle, seed) of the training part
    info = load(g / "grid.json")
    seed = int(opts[opts.index("--seed") + 1])
    test_size = float(opts[opts.index("--test-size") + 1])
    y = np.array(_labels_of(kind))
    pos = str(opts[opts.index("--positive-class") + 1]) if "--positive-class" in opts else sorted(set(y))[1]
    ys = np.where(y == pos, 1, -1)
    rows = np.arange(len(y))
    tr = rows if test_size == 0 else np.sort(train_test_split(rows, test_size=test_size, random_state=seed,
                                                              stratify=ys)[0])
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    mine = [sorted(int(tr[v]) for v in va) for _, va in skf.split(np.zeros(len(tr)), ys[tr])]
    assert [sorted(f["val"]) for f in info["folds"]] == mine


def _raw_table(kind):
    """(cells by column, labels as text, weights or None) of the data a grid case used, in row order."""
    if kind == "haberman":
        from olctc.datasets import load as load_ds
        ds = load_ds("haberman")
        cells = {c.name: ds.X[:, j] for j, c in enumerate(ds.schema.columns)}
        return cells, None
    rows = _rows()
    cells = {"city": np.array([r["city"] for r in rows], dtype=object)}
    for c in ("a", "b", "w"):
        cells[c] = np.array([r[c] for r in rows], dtype=float)
    return cells, None


def _check_fold_scores(g, kind, scoring, tmp_path, capsys):
    """Every task of the chosen C, decoded by `olctc decode` and scored here by scikit-learn's scorer on its
    validation rows (weighted by the weight column when the grid has one), gives collect's fold score."""
    from sklearn import metrics

    from olctc import Tree

    info, col = load(g / "grid.json"), load(g / "cv_results.json")
    cells, _ = _raw_table(kind)
    y = np.array(_labels_of(kind), dtype=object)
    wcol = info["data"].get("weight_column")
    weight = None if wcol is None else np.asarray(cells[wcol], dtype=float)
    for t in info["tasks"]:
        if t["C"] != col["best"]:
            continue
        out = tmp_path / f"task{t['task']}.json"
        run(["decode", g / t["model"].replace(".mps", ".olctc.json").replace(".lp", ".olctc.json"),
             g / t["solution"], "-o", out], capsys)
        tree = Tree.load(out)
        val = np.array(info["folds"][t["fold"]]["val"])
        X = tree.encode({c["name"]: cells[c["name"]][val] for c in load(out)["columns"]})
        yv = np.array([str(v) for v in y[val]])
        cls = [str(c) for c in tree.classes]
        sw = None if weight is None else weight[val]
        pred = np.array([str(v) for v in tree.predict(X)])
        proba = tree.predict_proba(X)
        mine = {"balanced_accuracy": lambda: metrics.balanced_accuracy_score(yv, pred, sample_weight=sw),
                "accuracy": lambda: metrics.accuracy_score(yv, pred, sample_weight=sw),
                "roc_auc": lambda: metrics.roc_auc_score(yv == cls[1], proba[:, 1], sample_weight=sw),
                "neg_log_loss": lambda: -metrics.log_loss(yv == cls[1], proba[:, 1], sample_weight=sw),
                "neg_brier_score": lambda: -metrics.brier_score_loss(yv == cls[1], proba[:, 1],
                                                                     sample_weight=sw)}[scoring]()
        row = [r for r in col["table"] if r["C"] == t["C"]][0]
        assert row["scores"][str(t["fold"])] == pytest.approx(mine, abs=1e-9), (t, scoring)


def _labels_of(kind):
    if kind == "haberman":
        from olctc.datasets import load as load_ds
        ds = load_ds("haberman")
        return [str(ds.classes[0] if v < 0 else ds.classes[1]) for v in ds.y]
    return [("7" if r["label"] == "yes" else "-3") if kind == "int" else r["label"] for r in _rows()]


def test_collect_emit_final_solve_decode_equals_collect_fit(tmp_path, capsys):
    """--emit-final writes the final instance; solved and decoded (decode reading --drop/--weight-column
    again from the data) it is collect's in-process final tree, in the same form."""
    p = write_csv(tmp_path / "d.csv")
    g = tmp_path / "g"
    run(["grid", p, "--target", "label", "--drop", "id", "--weight-column", "w", "--class-weight", "balanced",
         "--positive-class", "no", "--depth", "1", "--C-values", "0.1,10", "--folds", "2", "--solver", "highs",
         "--time-limit", "10", "--score-variables", "-o", g], capsys)
    run_tasks_here(g)
    run(["collect", g, "--emit-final"], capsys)
    run(["solve", g / "final" / "model.mps", "--quiet", "-o", tmp_path / "f.sol"], capsys)
    run(["decode", g / "final" / "model.olctc.json", tmp_path / "f.sol", "-o", tmp_path / "dec.json"], capsys)
    run(["collect", g, "--score-variables", "--quiet", "-o", tmp_path / "fin.json"], capsys)
    a, b = load(tmp_path / "dec.json"), load(tmp_path / "fin.json")
    same_tree(a, b)
    assert a["meta"]["true_objective"] == pytest.approx(b["meta"]["true_objective"], rel=1e-9)
    man = load(g / "final" / "model.olctc.json")
    assert man["data"]["dropped"] == ["id"] and man["data"]["weight_column"] == "w"


# --------------------------------------------- 4. decode reads --drop / --weight-column from the data

def test_decode_rereads_moved_data_and_refuses_changed_weights(tmp_path, capsys):
    p = write_csv(tmp_path / "d.csv")
    opts = ["--target", "label", "--drop", "id", "--weight-column", "w", "--class-weight", "yes=2", "--depth", "1"]
    run(["compile", p, *opts, "-o", tmp_path / "m.mps"], capsys)
    run(["solve", tmp_path / "m.mps", "--quiet", "-o", tmp_path / "m.sol"], capsys)
    run(["decode", tmp_path / "m.olctc.json", tmp_path / "m.sol", "-o", tmp_path / "a.json"], capsys)
    moved = tmp_path / "sub" / "moved.csv"
    moved.parent.mkdir()
    shutil.move(p, moved)
    code, _, err = run(["decode", tmp_path / "m.olctc.json", tmp_path / "m.sol", "-o", tmp_path / "b.json"],
                       capsys, ok=False)
    assert code == 2 and "--data" in err and not (tmp_path / "b.json").exists()
    run(["decode", tmp_path / "m.olctc.json", tmp_path / "m.sol", "--data", moved, "-o", tmp_path / "b.json"],
        capsys)
    same_tree(load(tmp_path / "a.json"), load(tmp_path / "b.json"), atol=0)
    # the same file with one weight changed is another data set: refused (its sha256), nothing written
    rows = _rows()
    rows[1]["w"] = 5
    changed = write_csv(tmp_path / "changed.csv", rows=rows)
    code, _, err = run(["decode", tmp_path / "m.olctc.json", tmp_path / "m.sol", "--data", changed,
                        "-o", tmp_path / "c.json"], capsys, ok=False)
    assert code == 2 and len(err.strip().splitlines()) == 1 and not (tmp_path / "c.json").exists()


# --------------------------------------- 5. predict == Tree.predict == python / onnx / sql exports

def _fit_tree(tmp_path, capsys, int_labels, extra):
    p = write_csv(tmp_path / "train.csv", int_labels=int_labels)
    run(["fit", p, "--target", "label", "--drop", "id", *extra, "--depth", "2", "--test-size", "0",
         "--time-limit", "10", "--quiet", "-o", tmp_path / "t.json"], capsys)
    return tmp_path / "t.json"


@pytest.mark.parametrize("int_labels,extra,columns", [
    (False, ["--weight-column", "w", "--class-weight", "balanced"], ["id", "city", "a", "b", "w", "label"]),
    (False, ["--weight-column", "w"], ["b", "label", "city", "a"]),          # no id/w, reordered
    (True, ["--positive-class", "-3", "--class-weight", "7=2"], ["label", "w", "b", "a", "city", "id"]),  # w a feature
    (True, ["--drop", "city", "--weight-column", "w"], ["a", "b", "label"]),  # all-numeric tree: one ONNX input
])
def test_predict_equals_tree_and_exports(int_labels, extra, columns, tmp_path, capsys):
    import onnxruntime as ort
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, brier_score_loss, log_loss

    from olctc import Tree
    from olctc.export.onnx import feeds

    tpath = _fit_tree(tmp_path, capsys, int_labels, extra)
    tree = Tree.load(tpath)
    rows = _rows()
    if int_labels:
        for r in rows:
            r["label"] = 7 if r["label"] == "yes" else -3
    data = write_csv(tmp_path / "new.csv", rows=[dict(r) for r in rows], columns=columns)
    _, out, _ = run(["predict", tpath, data, "--proba", "--target", "label", "-o", tmp_path / "p.csv"], capsys)
    got = list(csv.DictReader(open(tmp_path / "p.csv")))
    used = [c["name"] for c in load(tpath)["columns"]]
    cells = {c: np.array([r[c] for r in rows], dtype=object if c == "city" else float) for c in used}
    X = tree.encode(cells)
    lab, proba = tree.predict(X), tree.predict_proba(X)
    assert [g["prediction"] for g in got] == [str(v) for v in lab]
    cls = [str(c) for c in tree.classes]
    np.testing.assert_allclose([[float(g[f"proba_{c}"]) for c in cls] for g in got], proba, rtol=0, atol=1e-15)
    # python module
    run(["export", tpath, "-o", tmp_path / "tm.py"], capsys)
    spec = importlib.util.spec_from_file_location("tm_qa", tmp_path / "tm.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert [mod.predict({c: cells[c][i] for c in used}) for i in range(len(rows))] == list(lab)
    assert list(mod.FEATURES) == used  # a sequence row in FEATURES order: the raw columns, not the dropped ones
    assert [mod.predict([cells[c][i] for c in used]) for i in range(len(rows))] == list(lab)
    np.testing.assert_allclose([mod.predict_proba({c: cells[c][i] for c in used}) for i in range(len(rows))],
                               proba, atol=1e-12)
    # onnx
    run(["export", tpath, "-o", tmp_path / "t.onnx"], capsys)
    sess = ort.InferenceSession(str(tmp_path / "t.onnx"))
    if all(c["kind"] == "numeric" for c in load(tpath)["columns"]):
        assert [i.name for i in sess.get_inputs()] == ["input"]
    o_lab, o_p = sess.run(None, feeds(tree, cells={c: (cells[c].astype(str) if c == "city" else cells[c])
                                                   for c in used}))
    assert list(o_lab) == list(lab)
    np.testing.assert_allclose(o_p, proba, atol=1e-15)
    # sql in sqlite3, on a table holding every column of the CSV (dropped, weight and target included)
    run(["export", tpath, "-o", tmp_path / "t.sql"], capsys)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE olctc_input (" + ", ".join(
        f'"{c}" {"TEXT" if c in ("id", "city") else "REAL"}' for c in columns) + ")")
    con.executemany(f"INSERT INTO olctc_input VALUES ({','.join('?' * len(columns))})",
                    [[r[c] for c in columns] for r in rows])
    cur = con.execute((tmp_path / "t.sql").read_text())
    names = [d[0] for d in cur.description]
    res = cur.fetchall()
    assert [r[names.index("olctc_label")] for r in res] == list(lab)
    np.testing.assert_allclose([r[names.index("olctc_proba")] for r in res], proba[:, 1], atol=1e-15)
    # --target's metrics: scikit-learn's on the same predictions (unweighted: predict reads no weights,
    # the docs promise none)
    y = np.array([r["label"] for r in rows])
    line = [ln for ln in out.splitlines() if ln.startswith("accuracy")][0]
    import re
    nums = {k: float(v) for k, v in re.findall(r"(balanced accuracy|accuracy|log loss|Brier score) ([0-9.]+)", line)}
    pos = tree.classes[1]
    assert set(nums) == {"accuracy", "balanced accuracy", "log loss", "Brier score"}, line
    assert nums["accuracy"] == pytest.approx(accuracy_score(y, lab), abs=5e-5)
    assert nums["balanced accuracy"] == pytest.approx(balanced_accuracy_score(y, lab), abs=5e-5)
    assert nums["log loss"] == pytest.approx(log_loss(y, proba[:, np.argsort(tree.classes)],
                                                            labels=sorted(tree.classes)), abs=5e-5)
    assert nums["Brier score"] == pytest.approx(brier_score_loss(y, proba[:, 1], pos_label=pos), abs=5e-5)


def test_predict_output_same_with_or_without_dropped_and_weight_columns(tmp_path, capsys):
    tpath = _fit_tree(tmp_path, capsys, False, ["--weight-column", "w", "--class-weight", "no=0.5"])
    full = write_csv(tmp_path / "full.csv")
    bare = write_csv(tmp_path / "bare.csv", columns=["a", "city", "b"])
    run(["predict", tpath, full, "--proba", "-o", tmp_path / "p1.csv"], capsys)
    run(["predict", tpath, bare, "--proba", "-o", tmp_path / "p2.csv"], capsys)
    assert (tmp_path / "p1.csv").read_bytes() == (tmp_path / "p2.csv").read_bytes()


# ---------------------------------------------------------------- 6. bad combinations: exit 2, one line

BAD = [
    (["compile", "CSV", "--drop", "id", "--drop", "w", "--weight-column", "w"], "weight column 'w'"),
    (["fit", "CSV", "--drop", "id", "--drop", "w", "--weight-column", "w"], "weight column 'w'"),
    (["grid", "CSV", "--drop", "id", "--drop", "w", "--weight-column", "w"], "weight column 'w'"),
    (["compile", "CSV", "--drop", "id", "--class-weight", "maybe=2"], "--class-weight"),
    (["grid", "CSV", "--drop", "id", "--class-weight", "maybe=2"], "--class-weight"),
    (["fit", "CSV", "--drop", "id", "--class-weight", "yes=0"], "--class-weight"),
    (["compile", "CSV", "--drop", "id", "--budget", "2"], "--budget"),
    (["fit", "CSV", "--drop", "id", "--budget", "2", "--preset", "margot"], "--budget"),
    (["grid", "CSV", "--drop", "id", "--budget", "1", "--preset", "oct-h"], "--budget"),
    (["compile", "CSV", "--drop", "id", "--preset", "olct-univariate", "--budget", "9"], "--budget"),
    (["compile", "CSV", "--drop", "id", "--positive-class", "maybe"], "positive class 'maybe'"),
    (["fit", "CSV", "--drop", "id", "--positive-class", "maybe"], "positive class 'maybe'"),
    (["grid", "CSV", "--drop", "id", "--positive-class", "maybe"], "positive class 'maybe'"),
    (["compile", "CSV", "--drop", "id", "--weight-column", "label"], "weight column 'label'"),
    (["compile", "CSV", "--drop", "label"], "'label' to drop"),
    (["compile", "CSV", "--drop", "id", "--weight-column", "city"], "'city'"),
    (["compile", "CSV", "--drop", "id", "--preset", "margot", "--tangents", "V1"], "--tangents"),
    (["compile", "CSV", "--drop", "id", "--preset", "margot-hfs", "--alpha", "2"], "--alpha"),
    (["compile", "CSV", "--drop", "id", "--depth", "2", "--C", "1,2,3"], "--C"),
    (["fit", "CSV", "--drop", "id", "--cv", "2", "--C", "3"], "--C"),
    (["fit", "CSV", "--drop", "id", "--scoring", "accuracy"], "--scoring"),
    (["fit", "CSV", "--drop", "id", "--cv", "2", "--start-tree", "START"], "--start-tree"),
    (["fit", "CSV", "--drop", "id", "--preset", "margot", "--solver", "highs"], "--solver scip"),
    (["grid", "CSV", "--drop", "id", "--preset", "margot", "--solver", "cbc-cli"], "--solver scip"),
    (["compile", "CSV", "--drop", "id", "--drop", "city", "--start-tree", "START"], "--start-tree"),
    (["compile", "CSV", "--drop", "id", "--preset", "olct-univariate", "--start-tree", "START"], "--start-tree"),
    (["compile", "CSV", "--drop", "id", "--start-tree", "INTSTART"], "--start-tree"),
    (["compile", "--dataset", "haberman", "--target", "label"], "--target"),
    (["compile", "--dataset", "haberman", "--class-weight", "3=2"], "--class-weight"),
    (["compile", "--dataset", "haberman", "--weight-column", "age", "--drop", "age"], "weight column 'age'"),
    (["fit", "CSV", "--drop", "id", "--cv", "40"], "--cv"),
    (["grid", "CSV", "--drop", "id", "--folds", "40"], "--folds"),
    (["compile", "CSV", "--drop", "id", "--start-tree", "START", "--no-start"], "--no-start"),
    (["solve", "MIQP", "--solver", "highs"], "SCIP"),
    (["solve", "MIQP", "--solver", "cbc-cli"], "SCIP"),
    (["solve", "MIQP", "--solver", "glpk-cli"], "SCIP"),
    (["solve", "MIQP", "--solver", "scip", "--solver-path", "/bin/true"], "--solver-path"),
]


@pytest.fixture(scope="module")
def bad_env(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    csvp = write_csv(d / "d.csv")
    from olctc.cli import main
    for src, name, int_labels in ((csvp, "start.json", False),
                                  (write_csv(d / "i.csv", int_labels=True), "istart.json", True)):
        try:
            main(["fit", str(src), "--target", "label", "--drop", "id", "--depth", "1", "--test-size", "0",
                  "--quiet", "-o", str(d / name)])
        except SystemExit as e:
            assert e.code == 0
    (d / "q").mkdir()
    try:
        main(["compile", str(csvp), "--target", "label", "--drop", "id", "--preset", "margot", "--depth", "1",
              "-o", str(d / "q" / "m.lp")])
    except SystemExit as e:
        assert e.code == 0
    return d


@pytest.mark.parametrize("args,names", BAD, ids=[" ".join(a[:1] + a[2:])[:60] for a, _ in BAD])
def test_bad_combination_is_one_line_exit_2_nothing_written(args, names, bad_env, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    subs = {"CSV": str(bad_env / "d.csv"), "START": str(bad_env / "start.json"),
            "INTSTART": str(bad_env / "istart.json"), "MIQP": str(bad_env / "q" / "m.lp")}
    a = [subs.get(x, x) for x in args]
    if a[0] != "solve" and "--dataset" not in a and "--target" not in a:
        a += ["--target", "label"]
    dest = {"compile": out / "m.mps", "fit": out / "t.json", "grid": out / "g", "solve": out / "x.sol"}[a[0]]
    code, stdout, err = run([*a, "-o", dest], capsys, ok=False)
    assert code == 2, (code, stdout, err)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    assert names in lines[0], lines[0]
    assert list(out.iterdir()) == []


# ----------------------------------------------- 7. weights x class weights x refinement x standardisation

def test_weighted_standardisation_and_refined_root_are_the_weighted_l1_logistic_optimum(tmp_path, capsys):
    """--weight-column (incl. 0) x --class-weight balanced x --positive-class x --C, depth 1: the scaler is
    the weighted mean / standard deviation (weights only, not class weights), and the refined root is the
    optimum of ||w||_1 + C sum_i s_i log(1 + exp(-y_i (w.z_i + b))), s_i = weight x class weight, solved here
    by scipy on the split form."""
    from scipy.optimize import minimize

    from olctc import Tree

    p = write_csv(tmp_path / "d.csv")
    run(["fit", p, "--target", "label", "--drop", "id", "--weight-column", "w", "--class-weight", "balanced",
         "--positive-class", "no", "--depth", "1", "--C", "3", "--test-size", "0", "--quiet",
         "-o", tmp_path / "t.json"], capsys)
    t, tree = load(tmp_path / "t.json"), Tree.load(tmp_path / "t.json")
    rows = _rows()
    cells = {"city": np.array([r["city"] for r in rows], dtype=object),
             "a": np.array([r["a"] for r in rows], float), "b": np.array([r["b"] for r in rows], float)}
    X = tree.encode(cells)
    sw = np.array([r["w"] for r in rows], float)
    mean = np.average(X, axis=0, weights=sw)
    std = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=sw))
    np.testing.assert_allclose(t["scaler"]["mean"], mean, atol=1e-12)
    np.testing.assert_allclose(t["scaler"]["scale"], np.where(std > 0, std, 1.0), atol=1e-12)
    Z = (X - mean) / np.array(t["scaler"]["scale"])
    y = np.where(np.array([r["label"] for r in rows]) == "no", 1.0, -1.0)
    cw = t["meta"]["fit"]["class_weights"]
    n_no, n_yes = sw[y > 0].sum(), sw[y < 0].sum()
    assert cw == pytest.approx({"no": sw.sum() / (2 * n_no), "yes": sw.sum() / (2 * n_yes)})
    s = sw * np.where(y > 0, cw["no"], cw["yes"])
    C, k = 3.0, Z.shape[1]

    def f(v):
        wp, wm, b = v[:k], v[k:2 * k], v[-1]
        m = -y * (Z @ (wp - wm) + b)
        g = C * s * (1 / (1 + np.exp(-m))) * (-y)
        gw = Z.T @ g
        return np.sum(wp + wm) + C * np.sum(s * np.logaddexp(0, m)), np.concatenate([1 + gw, 1 - gw, [g.sum()]])

    r = minimize(f, np.zeros(2 * k + 1), jac=True, method="L-BFGS-B", bounds=[(0, None)] * (2 * k) + [(None, None)],
                 options=dict(maxiter=20000, ftol=1e-15, gtol=1e-12))
    W, b = np.array(t["nodes"]["W"][0]), t["nodes"]["b"][0]
    mine = np.abs(W).sum() + C * np.sum(s * np.logaddexp(0, -y * (Z @ W + b)))
    assert mine == pytest.approx(t["meta"]["exact_objective"], rel=1e-9)
    assert t["meta"]["exact_objective"] <= r.fun * (1 + 1e-9)


# --------------------------------------------------------------------------------------------- defects

def test_class_weight_label_with_equals_and_comma(tmp_path, capsys):
    rows = _rows()
    for r in rows:
        r["label"] = "x=1, y" if r["label"] == "yes" else "no"
    p = write_csv(tmp_path / "q.csv", rows=rows)
    run(["compile", p, "--target", "label", "--drop", "id", "--depth", "1", "--class-weight", "x=1, y=3",
         "-o", tmp_path / "m.mps"], capsys)
    man = load(tmp_path / "m.olctc.json")
    assert man["classes"] == ["no", "x=1, y"] and man["data"]["class_weights"] == [1.0, 3.0]


def test_estimator_with_weights_and_class_weights_equals_cli_fit(tmp_path, capsys):
    """OLCTClassifier(class_weight='balanced', positive_class=...).fit(X, y, sample_weight=w) and `olctc fit
    --weight-column w --class-weight balanced --positive-class ... --test-size 0` give the same tree."""
    from olctc import OLCTClassifier

    p = write_csv(tmp_path / "d.csv")
    run(["fit", p, "--target", "label", "--drop", "id", "--drop", "city", "--weight-column", "w",
         "--class-weight", "balanced", "--positive-class", "no", "--depth", "2", "--C", "1,10", "--test-size", "0",
         "--quiet", "-o", tmp_path / "cli.json"], capsys)
    rows = _rows()
    X = np.array([[r["a"], r["b"]] for r in rows], float)
    y = np.array([r["label"] for r in rows])
    w = np.array([r["w"] for r in rows], float)
    est = OLCTClassifier(depth=2, C=(1, 10), class_weight="balanced", positive_class="no", time_limit=None)
    t = est.fit(X, y, sample_weight=w).export_tree()
    c = load(tmp_path / "cli.json")
    assert list(t.classes) == c["classes"]
    np.testing.assert_allclose(np.asarray(t.W), np.array(c["nodes"]["W"], float), atol=1e-9)
    np.testing.assert_allclose(np.asarray(t.b), np.array(c["nodes"]["b"], float), atol=1e-9)
    np.testing.assert_array_equal(t.predict(X), Tree_predict(tmp_path / "cli.json", X))


def Tree_predict(path, X):
    from olctc import Tree
    return Tree.load(path).predict(X)


def test_collect_without_model_files_and_with_moved_data_gives_the_same_final_tree(tmp_path, capsys):
    """README: copying back the grid folder without its .mps files is enough for collect, and --data names a
    CSV that moved; --drop / --weight-column / --class-weight are read again (the final tree is the same)."""
    p = write_csv(tmp_path / "d.csv")
    g = tmp_path / "g"
    run(["grid", p, "--target", "label", "--drop", "id", "--weight-column", "w", "--class-weight", "yes=2",
         "--depth", "1", "--C-values", "0.1,10", "--folds", "2", "--solver", "highs", "--time-limit", "10",
         "-o", g], capsys)
    run_tasks_here(g)
    run(["collect", g, "--quiet", "-o", tmp_path / "a.json"], capsys)
    for m in g.rglob("*.mps"):
        m.unlink()
    moved = tmp_path / "elsewhere.csv"
    shutil.move(p, moved)
    run(["collect", g, "--data", moved, "--quiet", "-o", tmp_path / "b.json"], capsys)
    a, b = load(tmp_path / "a.json"), load(tmp_path / "b.json")
    same_tree(a, b, atol=0)
    assert b["meta"]["fit"]["sample_weights"]["column"] == "w"
    assert b["meta"]["fit"]["class_weights"] == {"no": 1.0, "yes": 2.0}


def test_sql_query_output_is_input_columns_plus_four(tmp_path, capsys):
    tpath = _fit_tree(tmp_path, capsys, False, ["--weight-column", "w"])
    run(["export", tpath, "-o", tmp_path / "t.sql"], capsys)
    con = sqlite3.connect(":memory:")
    cols = ["id", "city", "a", "b", "w", "label"]
    con.execute("CREATE TABLE olctc_input (id TEXT, city TEXT, a REAL, b REAL, w REAL, label TEXT)")
    con.executemany("INSERT INTO olctc_input VALUES (?,?,?,?,?,?)", [[r[c] for c in cols] for r in _rows()])
    sql = (tmp_path / "t.sql").read_text()
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    # the documented shape (README, the query's header): the input columns, the working columns (one per
    # feature, one per node: standard SQL cannot leave them out of SELECT *), then the four outputs
    p, nodes = len(load(tpath)["feature_names"]), 2 ** 2 - 1
    assert names == (cols + [f"olctc_f{j}" for j in range(p)] + ["olctc_ok"] + [f"olctc_s{t}" for t in range(nodes)]
                     + ["olctc_node", "olctc_score", "olctc_proba", "olctc_label"])
    assert "olctc_f0, ... (one per feature)" in sql


def test_predict_target_balanced_accuracy_on_one_class_rows_is_sklearns(tmp_path, capsys):
    import warnings

    from sklearn.metrics import balanced_accuracy_score

    tpath = _fit_tree(tmp_path, capsys, False, ["--weight-column", "w"])
    rows = [r for r in _rows() if r["label"] == "yes"]
    data = write_csv(tmp_path / "yes.csv", rows=rows)
    _, out, _ = run(["predict", tpath, data, "--target", "label", "-o", tmp_path / "p.csv"], capsys)
    pred = [r["prediction"] for r in csv.DictReader(open(tmp_path / "p.csv"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expect = balanced_accuracy_score(["yes"] * len(rows), pred)
    assert f"balanced accuracy {expect:.4f}" in out, out


def test_deepened_start_tree_is_the_lower_of_copies_and_greedy_layers(tmp_path, capsys):
    """README: below a shallower --start-tree's layers the warm start copies its last layer (predicting as
    before) or fits the new layers greedily, whichever gives the lower objective; the manifest says which."""
    half = write_csv(tmp_path / "half.csv", rows=_rows()[:20])
    run(["fit", half, "--target", "label", "--drop", "id", "--drop", "w", "--depth", "1", "--test-size", "0",
         "--quiet", "-o", tmp_path / "s.json"], capsys)
    p = write_csv(tmp_path / "d.csv")
    run(["compile", p, "--target", "label", "--drop", "id", "--drop", "w", "--depth", "2", "--C", "1,3",
         "--start-tree", tmp_path / "s.json", "-o", tmp_path / "m.mps"], capsys)
    ws = load(tmp_path / "m.olctc.json")["warm_start"]
    assert ws["from"] == "start tree" and ws["deepened"] in ("copies", "greedy")
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "whichever gives the lower objective" in readme and "each new node a copy" not in readme
