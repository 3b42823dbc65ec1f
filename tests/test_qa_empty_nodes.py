"""QA of decode's settling of empty last-layer nodes (decode.settle_empty_nodes, called by decode.decode_arrays).

A last-layer node no training point reaches gets w = 0 and b = log((m+ + a) / (m- + a)), m the class weights
of the points at its nearest ancestor holding some, a their mean weight; it is listed in meta.empty_nodes and
noted. Checked here through every way into decode (fit, decode of several solvers' files, grid + collect, the
estimators, bench), on every preset and both model forms, and through what uses the tree afterwards (save /
load, start trees, exports, explain). The expected b is recomputed here from the data, not read from olctc.

D7 (7 points, 4 of class q, the +1 class) with --min-leaf 7 puts every point in one last-layer node: the other
is empty and its nearest ancestor with points is the root: b = log((4 + 1) / (3 + 1)), P(q) = 5/9.
"""
from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_main

from olctc.export.json import load as load_tree

D7_ROWS = [(0, 0, "p"), (1, 0, "q"), (0, 1, "p"), (1, 1, "q"), (2, 0, "q"), (0, 2, "p"), (2, 2, "q")]
D7 = "a,b,y\n" + "".join(f"{a},{b},{y}\n" for a, b, y in D7_ROWS)
X7 = np.array([[a, b] for a, b, _ in D7_ROWS], dtype=float)
Y7 = np.array([1 if y == "q" else -1 for _, _, y in D7_ROWS])
ROOT_B = math.log((4 + 1) / (3 + 1))  # unweighted D7: 4 q, 3 p at the root, one point of each added
PRESETS = ["olct", "olct-univariate", "margot", "margot-sfs", "margot-hfs", "oct-h"]
NOTE = "no training point reaches node(s)"


def write_d7(d: Path) -> Path:
    p = d / "d.csv"
    p.write_text(D7)
    return p


def fit(capsys, data: Path, out: Path, *extra) -> tuple[object, str]:
    code, o, e = cli_main(["fit", data, "--target", "y", "--test-size", "0", "--threads", "1", "--time-limit",
                           "30", "--quiet", *extra, "-o", out], capsys)
    assert code == 0, (o, e)
    return load_tree(out), o + e


def empty_of(tree) -> list[int]:
    """Last-layer nodes that hold no training point, by the tree's own statistics."""
    first = 2 ** (tree.depth - 1) - 1
    return [t for t in range(first, tree.n_nodes) if int(tree.node_n[t]) == 0]


def nearest_with_points(tree, s: int) -> int:
    t = s
    while t > 0 and int(tree.node_n[t]) == 0:
        t = (t - 1) // 2
    return t


def probe_reaching(tree, s: int) -> np.ndarray | None:
    """Raw points (2 features) the tree sends to node s, from a wide grid; None when no point gets there."""
    g = np.linspace(-40, 40, 81)
    P = np.array([[a, b] for a in g for b in g])
    hit = P[tree.apply(P) == s]
    return hit[:5] if hit.size else None


def smoothed(wt: np.ndarray, pos: np.ndarray) -> float:
    a = wt.mean()
    return math.log((wt[pos].sum() + a) / (wt[~pos].sum() + a))


# ---------------------------------------------------------------- every preset, both forms

@pytest.mark.parametrize("form", ["--score-variables", "--paper-form"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_and_form_settles_the_empty_node(tmp_path, capsys, preset, form):
    data = write_d7(tmp_path)
    tree, out = fit(capsys, data, tmp_path / "t.json", "--preset", preset, "--min-leaf", "7", form)
    empty = empty_of(tree)
    assert len(empty) == 1
    s = empty[0]
    assert tree.meta["empty_nodes"] == [{"node": s, "as": 0}]
    assert f"note: {NOTE} {s}: each predicts" in out
    assert not tree.W[s].any() and not tree.W_raw[s].any()
    assert tree.b[s] == pytest.approx(ROOT_B, rel=1e-12)
    probe = probe_reaching(tree, s)
    if probe is not None:  # a constant root (oct-h may zero it) sends no new point there either
        assert (tree.predict(probe) == "q").all()
        assert tree.predict_proba(probe)[:, 1] == pytest.approx(np.full(len(probe), 5 / 9), rel=1e-12)
    fitrec = tree.meta["fit"]
    exact = tree.meta["exact_objective"]
    if fitrec["exact_objective_before_refine"] is not None:  # logistic: the solver's tree, exact loss
        assert exact <= fitrec["exact_objective_before_refine"] * (1 + 1e-9) + 1e-9
    else:  # hinge / 0-1: the solver's tree's true objective (the fold moves it by at most C n eps / 2)
        assert exact <= fitrec["objective_milp_true"] + 7 * 1e-5
    assert fitrec["notes"][0].startswith(f"{NOTE} {s}")


def test_class_weights_and_point_weights_enter_the_settled_b(tmp_path, capsys):
    """b from weighted masses: class weight q=5 (CLI), then a weight column, then balanced (root balance 0)."""
    data = write_d7(tmp_path)
    tree, _ = fit(capsys, data, tmp_path / "cw.json", "--min-leaf", "7", "--class-weight", "q=5")
    s = empty_of(tree)[0]
    wt = np.where(Y7 > 0, 5.0, 1.0)
    assert tree.b[s] == pytest.approx(smoothed(wt, Y7 > 0), rel=1e-12)

    sw = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 0.5])
    rows = ["a,b,y,wt"] + [f"{a},{b},{y},{w}" for (a, b, y), w in zip(D7_ROWS, sw)]
    (tmp_path / "w.csv").write_text("\n".join(rows) + "\n")
    tree, _ = fit(capsys, tmp_path / "w.csv", tmp_path / "sw.json", "--min-leaf", "7", "--weight-column", "wt")
    s = empty_of(tree)[0]
    assert tree.meta["empty_nodes"] == [{"node": s, "as": 0}]
    assert tree.b[s] == pytest.approx(smoothed(sw, Y7 > 0), rel=1e-12)

    tree, _ = fit(capsys, data, tmp_path / "bal.json", "--min-leaf", "7", "--class-weight", "balanced")
    s = empty_of(tree)[0]
    assert abs(tree.b[s]) < 1e-12  # balanced classes at the root: one half each
    probe = probe_reaching(tree, s)
    assert probe is not None and tree.predict_proba(probe)[:, 1] == pytest.approx(0.5, abs=1e-12)


def test_no_refine_settles_too_and_depth_one_has_nothing_to_settle(tmp_path, capsys):
    data = write_d7(tmp_path)
    tree, out = fit(capsys, data, tmp_path / "nr.json", "--min-leaf", "7", "--no-refine")
    s = empty_of(tree)[0]
    assert "refine" not in tree.meta and tree.meta["empty_nodes"] == [{"node": s, "as": 0}]
    assert tree.b[s] == pytest.approx(ROOT_B, rel=1e-12) and not tree.W[s].any()
    tree, out = fit(capsys, data, tmp_path / "d1.json", "--depth", "1")
    assert "empty_nodes" not in tree.meta and NOTE not in out and int(tree.node_n[0]) == 7


def test_a_depth_three_tree_takes_each_empty_nodes_nearest_ancestor_with_points(tmp_path, capsys):
    """min_leaf 7 at depth 3: one last-layer node holds all 7 points; the other three are empty, two of them
    under the root's empty child (ancestor: the root)."""
    data = write_d7(tmp_path)
    tree, out = fit(capsys, data, tmp_path / "t3.json", "--depth", "3", "--min-leaf", "7")
    empty = empty_of(tree)
    assert len(empty) == 3
    assert tree.meta["empty_nodes"] == [{"node": s, "as": nearest_with_points(tree, s)} for s in empty]
    assert 0 in {e["as"] for e in tree.meta["empty_nodes"]}
    for s in empty:
        t = nearest_with_points(tree, s)
        n, pos = int(tree.node_n[t]), int(tree.node_pos[t])
        assert n == 7 and tree.b[s] == pytest.approx(math.log((pos + 1) / (n - pos + 1)), rel=1e-12)
        assert not tree.W[s].any()
    assert f"{NOTE} {', '.join(map(str, empty))}:" in out


def test_a_pure_ancestor_gives_a_finite_b():
    """The nearest ancestor holds one class only: b = log(1 / (k + 1)), finite (the solver's bound was -100)."""
    from olctc.decode import settle_empty_nodes
    from olctc.spec import make_spec

    X = np.array([[-2.0, -1], [-1.5, -2], [-1, -1.5], [1, 1], [2, 0.5], [1.5, 2], [2, 2]])
    y = np.array([-1.0, -1, -1, 1, -1, 1, 1])
    spec = make_spec("olct", 3)
    # root: x0; node 1 sends its 3 points (all negative) left, to node 3; node 4 is empty
    W = np.array([[1.0, 0], [0, 0], [0, 1], [0, 0], [3, 3], [1, 0], [0, 1]])
    b = np.array([0.0, -1.0, 0.0, -100.0, -100.0, 0.0, 0.0])
    settled = settle_empty_nodes(W, b, X, y, spec)
    assert (4, 1) in settled
    assert b[4] == pytest.approx(math.log(1 / 4), rel=1e-12) and not W[4].any()
    assert np.isfinite(b).all()


# ---------------------------------------------------------------- every way into decode

def test_decode_of_each_solvers_file_settles_the_same_values(tmp_path, capsys):
    data = write_d7(tmp_path)
    code, o, e = cli_main(["compile", data, "--target", "y", "--min-leaf", "7", "-o", tmp_path / "m.mps"], capsys)
    assert code == 0, e
    runs = [("highs", []), ("cbc", []), ("scip", [])]
    if Path("/usr/bin/cbc").exists():
        runs.append(("cbc-cli", ["--solver-path", "/usr/bin/cbc"]))
    trees = {}
    for solver, extra in runs:
        sol = tmp_path / f"m.{solver}.sol"
        code, o, e = cli_main(["solve", tmp_path / "m.mps", "--solver", solver, "--quiet", *extra, "-o", sol],
                              capsys)
        assert code == 0, (solver, o, e)
        out = tmp_path / f"t.{solver}.json"
        code, o, e = cli_main(["decode", tmp_path / "m.olctc.json", sol, "-o", out], capsys)
        assert code == 0, (solver, o, e)
        assert f"{NOTE} " in o + e, solver
        trees[solver] = load_tree(out)
    settled = {k: (t.meta["empty_nodes"], float(t.b[t.meta["empty_nodes"][0]["node"]])) for k, t in trees.items()}
    first = settled["highs"]
    assert first[0] in ([{"node": 1, "as": 0}], [{"node": 2, "as": 0}])
    assert first[1] == pytest.approx(ROOT_B, rel=1e-12)
    assert all(v == first for v in settled.values()), settled


def test_weight_zero_points_do_not_count_as_reaching_a_node(tmp_path, capsys):
    """Two points of weight 0 lie where the root sends points to the empty node: they are not compiled, the
    node is settled, and the points themselves get the root's (weighted) balance."""
    rows = ["a,b,y,wt"] + [f"{a},{b},{y},1" for a, b, y in D7_ROWS] + ["-10,0,q,0", "-11,0,q,0", "10,0,p,0"]
    (tmp_path / "w.csv").write_text("\n".join(rows) + "\n")
    tree, out = fit(capsys, tmp_path / "w.csv", tmp_path / "t.json", "--min-leaf", "7", "--weight-column", "wt")
    s = empty_of(tree)[0]
    assert tree.meta["empty_nodes"] == [{"node": s, "as": 0}] and f"{NOTE} {s}" in out
    assert tree.b[s] == pytest.approx(ROOT_B, rel=1e-12)
    zero = np.array([[-10.0, 0], [-11, 0], [10, 0]])
    at_s = tree.apply(zero) == s
    assert at_s.any()
    assert tree.predict_proba(zero[at_s])[:, 1] == pytest.approx(5 / 9, rel=1e-12)
    # the same through compile / solve / decode
    assert cli_main(["compile", tmp_path / "w.csv", "--target", "y", "--weight-column", "wt", "--min-leaf", "7",
                     "-o", tmp_path / "m.mps"], capsys)[0] == 0
    assert cli_main(["solve", tmp_path / "m.mps", "--quiet"], capsys)[0] == 0
    code, o, e = cli_main(["decode", tmp_path / "m.olctc.json", tmp_path / "m.highs.sol", "-o",
                           tmp_path / "d.json"], capsys)
    assert code == 0, e
    dec = load_tree(tmp_path / "d.json")
    assert dec.meta["empty_nodes"] == tree.meta["empty_nodes"] and dec.b[s] == tree.b[s]


def test_the_warm_start_tree_is_settled_when_decoded(tmp_path):
    """The greedy warm start (the tree fit keeps when the solver finds nothing better) goes through finish
    too: its empty nodes are settled and its exact objective does not rise."""
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.decode import decode_arrays, finish
    from olctc.objective import tree_objective
    from olctc.spec import make_spec
    from olctc.warmstart import warm_start

    ds = from_arrays(X7, (Y7 > 0).astype(int), ["a", "b"], positive_class=1, name="d7")
    for preset in ("olct", "oct-h"):
        spec = make_spec(preset, 3, min_leaf=3)
        comp = compile_problem(ds, spec, "d7")
        x0, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
        dec = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x0, None, trusted=True)
        before = tree_objective(dec.W, dec.b, dec.X, dec.y, spec, loss="exact").total
        tree, report = finish(dec, comp.manifest, comp.dataset, refine=False)
        empty = empty_of(tree)
        assert empty and tree.meta["empty_nodes"] == [{"node": s, "as": nearest_with_points(tree, s)}
                                                      for s in empty]
        for s in empty:
            t = nearest_with_points(tree, s)
            n, pos = int(tree.node_n[t]), int(tree.node_pos[t])
            assert tree.b[s] == pytest.approx(math.log((pos + 1) / (n - pos + 1)), rel=1e-12)
        assert tree.meta["exact_objective"] <= before + 1e-9
        assert any(n.startswith(NOTE) for n in report.notes)


def test_grid_and_collect_settle_the_final_tree(tmp_path, capsys):
    folder = _collected_grid(tmp_path, capsys)[0]
    tree = load_tree(folder / "final_tree.json")
    s = empty_of(tree)[0]
    assert tree.meta["empty_nodes"] == [{"node": s, "as": 0}]
    n, pos = int(tree.node_n[0]), int(tree.node_pos[0])
    assert tree.b[s] == pytest.approx(math.log((pos + 1) / (n - pos + 1)), rel=1e-12)
    assert tree.meta["fit"]["notes"][0].startswith(f"{NOTE} {s}")


def test_collect_says_the_final_tree_has_an_empty_node(tmp_path, capsys):
    out = _collected_grid(tmp_path, capsys)[1]
    assert f"{NOTE} " in out


def _collected_grid(tmp_path: Path, capsys) -> tuple[Path, str]:
    """24 haberman points, 18 for training; min_leaf 12 forces one empty node in every fold fit and in the
    final fit (two nodes of 12 would need 24 points)."""
    from olctc.datasets import load_dataset

    X, y, names = load_dataset("haberman")
    idx = np.r_[np.flatnonzero(y == y.min())[:12], np.flatnonzero(y == y.max())[:12]]
    rows = [",".join(names) + ",y"] + [",".join(map(str, X[i])) + f",{y[i]}" for i in idx]
    (tmp_path / "h.csv").write_text("\n".join(rows) + "\n")
    g = tmp_path / "g"
    code, o, e = cli_main(["grid", tmp_path / "h.csv", "--target", "y", "--min-leaf", "12", "--C-values", "1",
                           "--folds", "4", "--test-size", "0.25", "--time-limit", "20", "--solver", "highs",
                           "-o", g], capsys)
    assert code == 0, e
    p = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    code, o, e = cli_main(["collect", g, "--quiet", "--time-limit", "20", "--threads", "1"], capsys)
    assert code == 0, e
    return g, o + e


ESTIMATORS = [("OLCTClassifier", "olct"), ("OLCTClassifier", "olct-univariate"), ("MARGOTClassifier", "margot"),
              ("MARGOTClassifier", "margot-sfs"), ("OCTHClassifier", "oct-h")]


@pytest.mark.parametrize("cls,preset", ESTIMATORS)
def test_estimators_settle_with_sample_and_class_weights(cls, preset):
    import olctc.estimator as E

    y = np.where(Y7 > 0, 1, 0)
    sw = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 0.5])
    far = np.array([[-30.0, 0], [30, 0], [0, -30], [0, 30]])
    for kw, want in ((dict(score_variables=True), smoothed(sw, Y7 > 0)),
                     (dict(score_variables=False, class_weight="balanced"), 0.0)):
        est = getattr(E, cls)(preset=preset, min_leaf=7, time_limit=30, threads=1, **kw).fit(X7, y, sample_weight=sw)
        s = empty_of(est.tree_)[0]
        assert est.tree_.meta["empty_nodes"] == [{"node": s, "as": 0}]
        assert est.tree_.b[s] == pytest.approx(want, abs=1e-12)
        assert est.export_tree().meta["empty_nodes"] == est.tree_.meta["empty_nodes"]
        at = est.apply(far) == s
        if at.any():
            p = 1 / (1 + math.exp(-want))
            assert est.predict_proba(far[at])[:, 1] == pytest.approx(p, abs=1e-12)
    # the positive class given as 0: P(class 1) at the empty node is the same balance
    est = getattr(E, cls)(preset=preset, min_leaf=7, time_limit=30, threads=1, positive_class=0).fit(X7, y)
    s = empty_of(est.tree_)[0]
    at = est.apply(far) == s
    if at.any():
        assert est.predict_proba(far[at])[:, 1] == pytest.approx(5 / 9, rel=1e-12)


def test_a_tiny_bench_run_decodes_through_settling(short_tmp):
    """bench phases: three trees from one solve (warm start, MILP, MILP + refinement), each through finish."""
    out = short_tmp / "b"
    p = subprocess.run([sys.executable, "-m", "olctc.cli", "bench", "phases", "--datasets", "haberman", "--seeds",
                        "0", "--time-limit", "5", "--fixed-C", "0.05", "-o", str(out)], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "TMPDIR": str(short_tmp)}, cwd=short_tmp)
    assert p.returncode == 0, p.stderr
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert {r["model"] for r in recs} == {"OLCT-W", "OLCT-V0", "OLCT-V0R"}
    for r in recs:
        assert r["status"] not in ("error", "timeout"), r
        assert math.isfinite(r["exact_objective"]) and 0 <= r["test_brier"] <= 1
        if not r["refined"]:  # settling alone never raises the exact objective (the fold moves it by C n eps/2)
            assert r["exact_objective"] <= r["exact_objective_before_refine"] + 0.05 * 245 * 1e-5


# ---------------------------------------------------------------- the settled tree afterwards

@pytest.fixture
def settled(tmp_path, capsys) -> tuple[Path, object, int, np.ndarray]:
    data = write_d7(tmp_path)
    tree, _ = fit(capsys, data, tmp_path / "t.json", "--min-leaf", "7")
    s = empty_of(tree)[0]
    probe = probe_reaching(tree, s)
    assert probe is not None
    return tmp_path / "t.json", tree, s, probe


def test_json_round_trip_keeps_the_empty_nodes(settled, tmp_path):
    from olctc.export.json import save
    from olctc.tree import Tree

    path, tree, s, probe = settled
    save(tree, tmp_path / "again.json")
    again = load_tree(tmp_path / "again.json")
    assert again.meta["empty_nodes"] == tree.meta["empty_nodes"] == [{"node": s, "as": 0}]
    assert np.array_equal(again.predict_proba(probe), tree.predict_proba(probe))
    assert Tree.from_dict(tree.to_dict()).meta["empty_nodes"] == tree.meta["empty_nodes"]
    raw = json.loads(path.read_text())
    assert raw["meta"]["empty_nodes"] == [{"node": s, "as": 0}] and raw["nodes"]["n"][s] == 0
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "tree-schema.json").read_text())
    jsonschema.validate(raw, schema)  # the published schema takes the new meta key


def test_start_tree_from_a_settled_tree_same_depth_and_deeper(settled, tmp_path, capsys):
    path, tree, s, probe = settled
    data = tmp_path / "d.csv"
    again, out = fit(capsys, data, tmp_path / "s2.json", "--min-leaf", "7", "--start-tree", path)
    f = again.meta["fit"]
    assert f["warm_start_from"] == "start tree"
    # the start is the optimum already: its MILP objective is the solver's
    assert f["objective_warm_start"] == pytest.approx(f["objective_milp"], rel=1e-6)
    assert again.meta["empty_nodes"] == tree.meta["empty_nodes"] and again.b[s] == tree.b[s]
    deeper, out = fit(capsys, data, tmp_path / "s3.json", "--min-leaf", "7", "--depth", "3", "--start-tree", path)
    assert deeper.meta["fit"]["warm_start_from"] == "start tree" and deeper.depth == 3
    empty = empty_of(deeper)
    assert len(empty) == 3 and [e["node"] for e in deeper.meta["empty_nodes"]] == empty
    assert all(deeper.b[e] == pytest.approx(ROOT_B, rel=1e-12) for e in empty)


def test_exports_agree_with_the_tree_on_points_at_the_empty_node(settled, tmp_path, capsys):
    import onnxruntime as ort

    path, tree, s, probe = settled
    want = tree.predict_proba(probe)[:, 1]
    assert want == pytest.approx(5 / 9, rel=1e-12)
    for fmt, suffix in (("python", "py"), ("onnx", "onnx"), ("sql", "sql")):
        code, o, e = cli_main(["export", path, "--format", fmt, "-o", tmp_path / f"t.{suffix}"], capsys)
        assert code == 0, e
    script = ("import importlib.util, json, sys\n"
              f"spec = importlib.util.spec_from_file_location('m', {str(tmp_path / 't.py')!r})\n"
              "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              f"rows = {probe.tolist()!r}\n"
              "print(json.dumps([[m.predict(r), m.predict_proba(r)] for r in rows]))\n")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert [g[0] for g in got] == ["q"] * len(probe)
    assert [g[1][1] for g in got] == pytest.approx(want.tolist(), rel=1e-12)
    sess = ort.InferenceSession(str(tmp_path / "t.onnx"))
    label, proba = sess.run(None, {"input": probe})
    assert list(label) == ["q"] * len(probe) and proba[:, 1] == pytest.approx(want, rel=1e-12)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE olctc_input (a REAL, b REAL)")
    con.executemany("INSERT INTO olctc_input VALUES (?, ?)", probe.tolist())
    cur = con.execute((tmp_path / "t.sql").read_text().rstrip().rstrip(";"))
    cols = [c[0] for c in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    assert [r["olctc_node"] for r in rows] == [s] * len(probe)
    assert [r["olctc_label"] for r in rows] == ["q"] * len(probe)
    assert [r["olctc_proba"] for r in rows] == pytest.approx(want.tolist(), rel=1e-12)


def test_explain_and_text_export_of_the_empty_node(settled, tmp_path, capsys):
    path, tree, s, probe = settled
    (tmp_path / "new.csv").write_text(f"a,b\n{probe[0][0]},{probe[0][1]}\n")
    code, o, e = cli_main(["explain", path, "--data", tmp_path / "new.csv", "--row", "0"], capsys)
    assert code == 0, e
    assert f"node {s} (layer 2): classifier: P('q') = sigmoid(0.223144) = 0.5556" in o
    assert "prediction: 'q' with probability 0.5556" in o
    code, o, e = cli_main(["explain", path, "--data", tmp_path / "new.csv", "--row", "0", "--json"], capsys)
    ex = json.loads(o)
    assert ex["path"][-1]["node"] == s and ex["path"][-1]["contributions"] == []
    assert ex["probability"] == pytest.approx(5 / 9, rel=1e-12)
    code, o, e = cli_main(["export", path, "--format", "text"], capsys)
    assert code == 0, e
    block = o.split(f"node {s} (classifier)")[1].split("node ")[0]
    assert block.startswith("  [n=0 (0.0%)]") and "constant score 0.2231" in block


def test_dot_export_does_not_call_an_empty_node_all_negative(settled, capsys):
    path, tree, s, probe = settled
    code, o, e = cli_main(["export", path, "--format", "dot"], capsys)
    assert code == 0, e
    label = next(line for line in o.splitlines() if line.lstrip().startswith(f"n{s} [label="))
    assert "n=0 (0.0%)" in label
    assert "positive" not in label


def test_estimator_warm_start_refits_from_a_settled_tree():
    from olctc import OLCTClassifier

    y = np.where(Y7 > 0, 1, 0)
    est = OLCTClassifier(min_leaf=7, time_limit=30, threads=1, warm_start=True).fit(X7, y)
    first = est.tree_
    est.fit(X7, y)
    assert est.summary_["warm_start_from"] == "start tree"
    assert est.summary_["objective_warm_start"] == pytest.approx(est.summary_["objective_milp"], rel=1e-6)
    assert est.tree_.meta["empty_nodes"] == first.meta["empty_nodes"]
    s = first.meta["empty_nodes"][0]["node"]
    assert est.tree_.b[s] == first.b[s] == pytest.approx(ROOT_B, rel=1e-12)


def test_a_balanced_tie_at_the_ancestor_gives_score_zero_and_the_negative_class():
    """1 point of class 1 and 7 of class 0, class_weight="balanced": each class weighs 4 at the root, so the
    empty node's smoothed log-odds are log((4 + 1) / (4 + 1)) = 0: P = 1/2, and a score of 0 is the negative
    class (classes_[0]; "positive iff score > 0"), as olctc gets it for 1 and 6 or 1 and 8 points (b = 0.0
    exactly); 1 and 7 give b = +2.2e-16, 7 and 1 give -2.2e-16."""
    from olctc import OLCTClassifier

    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [2, 2], [3, 1]], dtype=float)
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0])
    est = OLCTClassifier(min_leaf=8, class_weight="balanced", time_limit=30, threads=1).fit(X, y)
    s = empty_of(est.tree_)[0]
    assert est.tree_.meta["empty_nodes"] == [{"node": s, "as": 0}]
    probe = probe_reaching(est.tree_, s)
    assert probe is not None
    assert est.predict_proba(probe)[:, 1] == pytest.approx(0.5, abs=1e-12)
    assert est.tree_.b[s] == 0.0
    assert (est.predict(probe) == 0).all()


def test_the_note_names_ten_empty_nodes_and_counts_the_rest(tmp_path, capsys):
    """A deep tree can leave hundreds of nodes empty: the note listed every one on one line (500 ids at depth 10
    on haberman, QA 2026-12-05). D7 with --min-leaf 7 at depth 5: one last-layer node holds all 7 points."""
    tree, out = fit(capsys, write_d7(tmp_path), tmp_path / "t.json", "--depth", "5", "--min-leaf", "7")
    empty = empty_of(tree)
    assert len(empty) == 15
    named = ", ".join(map(str, empty[:10]))
    assert f"{NOTE} {named} and 5 more: each predicts" in out, out
    assert tree.meta["fit"]["notes"][0].startswith(f"{NOTE} {named} and 5 more: ")
