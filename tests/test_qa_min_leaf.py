"""QA of min_leaf (--min-leaf): adversarial checks beyond tests/test_min_leaf.py.

Exact optima against the brute force over routings for other N, weights, class weights and depth 3; N = 1, N = n,
depth 1; both forms; the size estimate; the command line's bad values on fit and grid; four solvers on an LP file,
the MIP starts; round trips of old trees; the estimators and scikit-learn's model selection; and a start tree
that obeys the rule but is deepened; an empty region predicts its parent's class balance."""
from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest

from conftest import HIGHS_START_ACCEPTED, TINY_CSV, cli_main, cli_sub
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.formulation.topology import Topology
from olctc.objective import tree_objective
from olctc.solve import solve_milp
from olctc.spec import TreeSpec, make_spec
from olctc.warmstart import greedy_tree, warm_start
from test_fuzz_formulation import _close, brute_force


def _counts(W, b, X, depth, threshold=0.0):
    topo = Topology(depth)
    return np.bincount(topo.route(X @ W.T + b[None, :], threshold) - topo.last[0], minlength=topo.last.size)


def _obeys(counts, n_min) -> bool:
    return bool(np.all((counts == 0) | (counts >= n_min)))


def _data(seed: int, n: int, p: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X = (X - X.mean(0)) / X.std(0)
    y = np.where(X[:, 0] + rng.normal(scale=1.0, size=n) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return X, y


def _solve(X, y, spec, sample_weight=None):
    milp = build_milp(X, y, spec, sample_weight=sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x0, info = warm_start(milp, X, y, spec, sample_weight=sample_weight)
    assert max(milp.violation(x0).values()) <= 1e-9, "warm start infeasible for the min_leaf model"
    res = solve_milp(milp, "scip" if milp.is_quadratic else "highs", threads=1, verbose=False, time_limit=20,
                     mip_gap=1e-9, start=x0)
    assert res.status == "optimal", res.raw_status
    return milp, res, info


def _tiny_dir(d):
    (d / "tiny.csv").write_text(TINY_CSV)
    return d


# ----------------------------------------------------------------------------------------------- exact optima

CASES = [  # (seed, n, p, preset, depth, N, extra spec keywords, weighted)
    (1, 7, 2, "olct", 2, 3, {"C": 10.0}, False),
    (2, 7, 1, "olct", 2, 7, {}, False),            # N = n: one node holds every point
    (3, 6, 2, "olct", 2, 2, {"class_weight": "balanced"}, False),
    (4, 7, 2, "olct", 2, 3, {"C": [1.0, 100.0]}, True),
    (5, 6, 2, "margot", 2, 3, {"C": 10.0}, False),
    (6, 6, 2, "olct-univariate", 2, 4, {"C": 10.0, "score_variables": True}, False),
    (7, 6, 1, "olct", 3, 2, {"C": [1.0, 1.0, 10.0]}, False),
    (8, 6, 1, "olct", 3, 3, {"C": 10.0, "tangents": "V2"}, False),
    (9, 6, 1, "margot-sfs", 2, 3, {"C": 10.0}, False),
    (10, 6, 2, "oct-h", 2, 3, {"alpha": 0.01}, False),
    (12, 5, 1, "oct-h", 2, 2, {"alpha": 0.01}, False),
]


@pytest.mark.parametrize("seed, n, p, preset, depth, N, kw, weighted", CASES)
def test_optimum_is_brute_force_and_tree_obeys(seed, n, p, preset, depth, N, kw, weighted):
    X, y = _data(seed, n, p)
    sw = np.random.default_rng(seed).integers(1, 4, size=n).astype(float) if weighted else None
    spec = make_spec(preset, depth, min_leaf=N, **kw)
    milp, res, info = _solve(X, y, spec, sw)
    W, b = milp.values(res.x, "w"), milp.values(res.x, "b")
    counts = _counts(W, b, X, depth, spec.epsilon / 2)
    assert _obeys(counts, N), counts
    tol = 2e-5
    assert _close(res.objective, brute_force(X, y, spec, sw), tol), spec.describe()
    assert _close(tree_objective(W, b, X, y, spec, threshold=spec.epsilon / 2, sample_weight=sw).total,
                  res.objective, tol)
    assert info["objective"] >= res.objective - 1e-6 * max(1.0, abs(res.objective))
    assert _obeys(_counts(info["W"], info["b"], X, depth), N)


def test_weights_do_not_count_toward_min_leaf():
    """A point of weight 3 counts as one point for min_leaf (scikit-learn's min_samples_leaf counts samples):
    the weighted model and the model with the point repeated three times differ, and each is its brute force."""
    X, y = _data(12, 5, 1)
    sw = np.array([3.0, 1.0, 1.0, 1.0, 1.0])
    spec = make_spec("olct", 2, C=10.0, min_leaf=3)
    _, res_w, _ = _solve(X, y, spec, sw)
    assert _close(res_w.objective, brute_force(X, y, spec, sw), 2e-5)
    Xr, yr = np.vstack([X[:1], X[:1], X]), np.concatenate([y[:1], y[:1], y])
    _, res_r, _ = _solve(Xr, yr, spec)
    assert _close(res_r.objective, brute_force(Xr, yr, spec), 2e-5)
    assert res_w.objective > res_r.objective + 1.0  # measured: 72.93 against 38.10
    # without the rule the two are the same model's optimum (the documented equivalence)
    free = dataclasses.replace(spec, min_leaf=0)
    assert _close(brute_force(X, y, free, sw), brute_force(Xr, yr, free), 2e-5)


def test_min_leaf_one_is_the_free_model():
    X, y = _data(21, 7, 2)
    free = make_spec("olct", 2, C=10.0)
    one = dataclasses.replace(free, min_leaf=1)
    m0, r0, _ = _solve(X, y, free)
    m1, r1, _ = _solve(X, y, one)
    assert _close(r0.objective, r1.objective, 1e-6)
    # every node holds none or at least one point anyway: no used column, no leaf rows
    assert (m1.n_cols, m1.n_rows, m1.nnz) == (m0.n_cols, m0.n_rows, m0.nnz)
    assert list(m1.row_names()) == list(m0.row_names()) and not m1.has_col_block("used")
    assert m0.n_cols + 2 == build_milp(X, y, dataclasses.replace(free, min_leaf=2)).n_cols


def test_depth_one_rule_is_trivial():
    X, y = _data(22, 8, 2)
    free = make_spec("olct", 1, C=10.0)
    _, r0, _ = _solve(X, y, free)
    _, r1, _ = _solve(X, y, dataclasses.replace(free, min_leaf=8))
    assert _close(r0.objective, r1.objective, 1e-6)


def test_paper_form_and_score_variables_agree():
    X, y = _data(23, 9, 2)
    paper = make_spec("olct", 2, C=10.0, min_leaf=4)
    _, rp, _ = _solve(X, y, paper)
    _, rs, _ = _solve(X, y, dataclasses.replace(paper, score_variables=True))
    assert _close(rp.objective, rs.objective, 1e-6)


@pytest.mark.parametrize("preset", ["olct", "olct-univariate", "margot", "margot-sfs", "margot-hfs", "oct-h"])
def test_size_estimate_counts_the_leaf_blocks(preset):
    from olctc.compile import estimate_size

    X, y = _data(24, 15, 3)
    for depth in (1, 2, 3):
        for sv in (False, True):
            spec = make_spec(preset, depth, min_leaf=4, score_variables=sv)
            m = build_milp(X, y, spec)
            e = estimate_size(15, 3, spec)
            assert (e.rows, e.cols) == (m.n_rows, m.n_cols)
            assert e.nonzeros >= m.A.nnz
            e0 = estimate_size(15, 3, dataclasses.replace(spec, min_leaf=0))
            assert e.nonzeros - e0.nonzeros == m.A.nnz - build_milp(X, y, dataclasses.replace(spec, min_leaf=0)).A.nnz


@pytest.mark.parametrize("preset", ["olct", "olct-univariate", "margot", "margot-sfs", "margot-hfs", "oct-h"])
def test_greedy_start_is_feasible_for_every_preset(preset):
    from olctc.datasets import load

    ds = load("ionosphere")
    X = (ds.X - ds.X.mean(0)) / np.where(ds.X.std(0) > 0, ds.X.std(0), 1.0)
    X, y = X[:80], ds.y[:80]
    for depth in (2, 3):
        for N in (2, 15, 39, 80):
            spec = make_spec(preset, depth, min_leaf=N, class_weight="balanced")
            milp = build_milp(X, y, spec)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x0, info = warm_start(milp, X, y, spec)
            assert max(milp.violation(x0).values()) <= 1e-9, (preset, depth, N)
            assert _obeys(_counts(info["W"], info["b"], X, depth), N)


# ------------------------------------------------------------------------------------------- command line

@pytest.mark.parametrize("args, message", [
    (["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "7", "--time-limit", "5", "-o", "t.json"],
     "The 'min_leaf' parameter (--min-leaf) must be at most the 6 training point(s)"),
    (["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "2.5", "-o", "t.json"],
     "Invalid value for '--min-leaf': '2.5' is not a valid integer"),
    (["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "-3", "-o", "t.json"],
     "The 'min_leaf' parameter (--min-leaf) must be an integer >= 0"),
    (["grid", "tiny.csv", "--target", "y", "--test-size", "0", "--folds", "2", "--min-leaf", "7", "-o", "g"],
     "The 'min_leaf' parameter (--min-leaf) must be at most"),
    (["grid", "tiny.csv", "--target", "y", "--min-leaf", "True", "-o", "g"],
     "Invalid value for '--min-leaf': 'True' is not a valid integer"),
    (["compile", "tiny.csv", "--target", "y", "--min-leaf", "7", "-o", "m.lp"],
     "The 'min_leaf' parameter (--min-leaf) must be at most the 6 training point(s)"),
])
def test_bad_values_one_line_exit_2_nothing_written(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, out, err = cli_main(args, capsys)
    assert code == 2 and message in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert sorted(f.name for f in tmp_path.iterdir()) == ["tiny.csv"]


def test_min_leaf_zero_writes_the_same_files_as_none(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert cli_main(["compile", "tiny.csv", "--target", "y", "-o", "a/m.mps"], capsys)[0] == 0
    assert cli_main(["compile", "tiny.csv", "--target", "y", "--min-leaf", "0", "-o", "b/m.mps"], capsys)[0] == 0
    for name in ("m.mps", "m.start.highs.sol", "m.start.cbc"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    man = json.loads((tmp_path / "b" / "m.olctc.json").read_text())
    assert "min_leaf" not in man["spec"]
    (tmp_path / "c").mkdir()
    assert cli_main(["compile", "tiny.csv", "--target", "y", "--min-leaf", "1", "-o", "c/m.mps"], capsys)[0] == 0
    # N = 1 binds nothing: the same files as no rule (the manifest records the option given)
    for name in ("m.mps", "m.start.highs.sol", "m.start.cbc"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "c" / name).read_bytes(), name
    assert json.loads((tmp_path / "c" / "m.olctc.json").read_text())["spec"]["min_leaf"] == 1


def test_grid_min_leaf_above_a_fold_refuses_and_writes_nothing(tmp_path, monkeypatch, capsys):
    # 6 points, 2 folds: each fold's model holds 3; 4 <= 6 passes the data's size but not a fold's
    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, _, err = cli_main(["grid", "tiny.csv", "--target", "y", "--test-size", "0", "--folds", "2",
                             "--C-values", "1", "--min-leaf", "4", "-o", "g"], capsys)
    assert code == 2 and "min_leaf" in err and "Traceback" not in err, err
    assert not (tmp_path / "g").exists()


def test_grid_min_leaf_above_a_fold_says_fold(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, _, err = cli_main(["grid", "tiny.csv", "--target", "y", "--test-size", "0", "--folds", "2",
                             "--C-values", "1", "--min-leaf", "4", "-o", "g"], capsys)
    assert code == 2 and "fold" in err.lower(), err


def test_fit_cv_min_leaf_above_a_fold_names_the_fold(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, _, err = cli_main(["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--cv", "2", "--C-values", "1",
                             "--min-leaf", "4", "--time-limit", "5", "-o", "t.json"], capsys)
    assert code == 2 and "fold" in err and "'min_leaf'" in err and "Traceback" not in err, err
    assert not (tmp_path / "t.json").exists()


@pytest.fixture
def small_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=24) > 0, "p", "q")
    lines = ["a,b,y"] + [f"{X[i, 0]:.4f},{X[i, 1]:.4f},{y[i]}" for i in range(24)]
    (tmp_path / "small.csv").write_text("\n".join(lines) + "\n")
    return tmp_path, X


def test_lp_file_four_solvers_agree_and_obey(small_csv, monkeypatch, capsys):
    import shutil

    from olctc.export.json import load as load_tree

    d, X = small_csv
    monkeypatch.chdir(d)
    code, _, err = cli_main(["compile", "small.csv", "--target", "y", "--depth", "3", "--min-leaf", "5",
                             "-o", "m.lp"], capsys)
    assert code == 0, err
    text = (d / "m.lp").read_text()
    binaries = text[text.index("Binaries"):]
    assert all(f"used_{k}" in binaries for k in (3, 4, 5, 6))
    solvers = ["highs", "cbc", "scip"] + (["cbc-cli"] if shutil.which("cbc") else [])
    objectives = []
    for s in solvers:
        code, out, err = cli_main(["solve", "m.lp", "--solver", s, "--time-limit", "10", "--threads", "1",
                                   "-o", f"{s}.sol"], capsys)
        assert code == 0, (s, err)
        code, out, err = cli_main(["decode", "m.olctc.json", f"{s}.sol", "-o", f"{s}.json"], capsys)
        assert code == 0, (s, err)
        assert "min_leaf:" not in out + err
        tree = load_tree(d / f"{s}.json")
        assert tree.meta["spec"]["min_leaf"] == 5
        assert _obeys(np.bincount(tree.apply(X) - 3, minlength=4), 5), s
        objectives.append(float(out.split("true objective of the solver's (w, b) (real routing): ")[1].split()[0]))
    assert max(objectives) - min(objectives) <= 1e-4 * max(1.0, abs(min(objectives))), objectives


@pytest.mark.skipif(not __import__("os").path.exists("/usr/bin/cbc"), reason="no Debian cbc")
def test_debian_cbc_takes_the_start_with_an_empty_node(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    # N = n: the start leaves a node empty (used = 0 in the start files)
    code, _, err = cli_main(["compile", "tiny.csv", "--target", "y", "--min-leaf", "6", "-o", "m.mps"], capsys)
    assert code == 0, err
    assert "used_2 0" in (tmp_path / "m.start.cbc").read_text()
    code, out, err = cli_main(["solve", "m.mps", "--solver", "cbc-cli", "--solver-path", "/usr/bin/cbc",
                               "--time-limit", "10", "-o", "m.sol"], capsys)
    assert code == 0, err
    assert "MIPStart provided solution" in out + err


def test_highs_accepts_the_compiled_start_and_improves_on_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, _, err = cli_main(["compile", "tiny.csv", "--target", "y", "--depth", "3", "--min-leaf", "3",
                             "-o", "m.mps"], capsys)
    assert code == 0, err
    # HiGHS logs from C, past capsys: a fresh process
    code, out, err = cli_sub(["solve", "m.mps", "--time-limit", "10", "--threads", "1", "-o", "m.sol"], tmp_path)
    assert code == 0, err
    m = HIGHS_START_ACCEPTED.search(out + err)
    assert m, out[-2000:]
    final = float((out + err).split("status optimal (highs: Optimal), objective ")[1].split(",")[0])
    assert final <= float(m.group(1)) + 1e-6


def test_fit_summary_and_tree_carry_it_with_cv(tmp_path, monkeypatch, capsys):
    from olctc.export.json import load as load_tree

    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, out, err = cli_main(["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--cv", "2", "--C-values",
                               "1,10", "--min-leaf", "3", "--time-limit", "5", "--threads", "1", "--quiet",
                               "-o", "t.json"], capsys)
    assert code == 0, err
    assert "min leaf 3" in out
    tree = load_tree(tmp_path / "t.json")
    assert tree.meta["spec"]["min_leaf"] == 3
    import pandas as pd

    X = tree.encode(pd.read_csv(tmp_path / "tiny.csv"))
    assert _obeys(np.bincount(tree.apply(X) - 1, minlength=2), 3)


# ---------------------------------------------------------------------------------------------- round trips

def test_old_tree_without_the_key_loads_and_starts_a_min_leaf_model(tmp_path, monkeypatch, capsys):
    """A tree file written before the feature (no min_leaf in meta.spec) loads, reads as min_leaf 0, and starts
    a model with the rule when it obeys it."""
    from olctc.export.json import load as load_tree

    monkeypatch.chdir(_tiny_dir(tmp_path))
    code, _, err = cli_main(["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "3",
                             "--time-limit", "5", "--threads", "1", "--quiet", "-o", "a.json"], capsys)
    assert code == 0, err
    d = json.loads((tmp_path / "a.json").read_text())
    assert d["meta"]["spec"].pop("min_leaf") == 3
    (tmp_path / "old.json").write_text(json.dumps(d))
    old = load_tree(tmp_path / "old.json")
    assert TreeSpec.from_json(old.meta["spec"]).min_leaf == 0
    code, out, err = cli_main(["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "3",
                               "--start-tree", "old.json", "--time-limit", "5", "--threads", "1", "-o", "b.json"],
                              capsys)
    assert code == 0, err
    assert load_tree(tmp_path / "b.json").meta["spec"]["min_leaf"] == 3


@pytest.mark.parametrize("bad", [-3, "x", 2.5, None, True])
def test_a_manifest_with_a_bad_min_leaf_is_a_parameter_error(bad):
    d = make_spec(min_leaf=2).to_json()
    d["min_leaf"] = bad
    with pytest.raises(OlctcError, match=r"^The 'min_leaf' parameter must be an integer >= 0"):
        TreeSpec.from_json(d)


def test_decode_of_a_solution_breaking_the_leaf_rows_is_an_error_not_a_crash():
    from olctc.decode import decode_arrays

    X, y = _data(31, 12, 2)
    spec = make_spec(depth=2, min_leaf=3)
    milp = build_milp(X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x0, _ = warm_start(milp, X, y, spec)
    x = x0.copy()
    x[milp.col_block("used").slice] = 0.0  # points in nodes marked unused
    with pytest.raises(OlctcError, match=r"violate row leaf_max_\d"):
        decode_arrays(milp, spec, X, y, x)


# ----------------------------------------------------------------------------------------------- estimators

def test_estimators_params_clone_and_bad_values():
    from sklearn.base import clone

    from olctc import MARGOTClassifier, OCTHClassifier, OLCTClassifier

    X, y = _data(41, 20, 2)
    for cls in (OLCTClassifier, MARGOTClassifier, OCTHClassifier):
        est = cls(min_leaf=4, time_limit=5)
        assert est.get_params()["min_leaf"] == 4
        assert clone(est.set_params(min_leaf=6)).get_params()["min_leaf"] == 6
    for bad in (2.5, -1, "3", True):
        with pytest.raises(OlctcError, match=r"^The 'min_leaf' parameter must be an integer >= 0"):
            OLCTClassifier(min_leaf=bad, time_limit=5).fit(X, y)


def test_grid_search_over_min_leaf_and_a_fold_too_small():
    from sklearn.model_selection import GridSearchCV, cross_val_score

    from olctc import OCTHClassifier, OLCTClassifier

    X, y = _data(42, 30, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gs = GridSearchCV(OLCTClassifier(depth=2, time_limit=5, threads=1), {"min_leaf": [1, 8]}, cv=2,
                          error_score="raise").fit(X, y)
        assert gs.best_estimator_.min_leaf in (1, 8)
        ml = gs.best_params_["min_leaf"]
        assert _obeys(np.bincount(gs.best_estimator_.tree_.apply(X) - 1, minlength=2), ml)
        with pytest.raises(OlctcError, match=r"'min_leaf' parameter must be at most the 15 training point"):
            cross_val_score(OLCTClassifier(min_leaf=20, time_limit=5), X, y, cv=2, error_score="raise")
        est = OCTHClassifier(depth=2, min_leaf=10, time_limit=5, threads=1).fit(X, y)
    assert _obeys(np.bincount(est.tree_.apply(X) - 1, minlength=2), 10)


# ------------------------------------------------------------------------------- a deepened start tree (defect)

def _heart():
    from olctc.datasets import load

    ds = load("heart")
    return (ds.X - ds.X.mean(0)) / np.where(ds.X.std(0) > 0, ds.X.std(0), 1.0), ds.y


def test_a_shallower_tree_that_obeys_it_can_start_a_deeper_model():
    from olctc.start_tree import _deepened

    X, y = _heart()
    W2, b2 = greedy_tree(X, y, make_spec(depth=2, min_leaf=10))
    assert _obeys(_counts(W2, b2, X, 2), 10)  # the given tree obeys the rule ([166, 131])
    spec3 = make_spec(depth=3, min_leaf=10)
    milp = build_milp(X, y, spec3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x0, info = warm_start(milp, X, y, spec3, tree=[_deepened(W2, b2, 3)], given_layers=2)
    assert _obeys(_counts(info["W"], info["b"], X, 3), 10)


def test_the_deepened_start_does_exist():
    """The refusal above is not forced: the same depth-2 tree, with its last layer made constant routers (all
    points one way) and copied below, predicts as the given tree, obeys the rule, and is a feasible start."""
    X, y = _heart()
    W2, b2 = greedy_tree(X, y, make_spec(depth=2, min_leaf=10))
    spec3 = make_spec(depth=3, min_leaf=10)
    milp = build_milp(X, y, spec3)
    W3, b3 = np.zeros((7, X.shape[1])), np.zeros(7)
    W3[0], b3[0] = W2[0], b2[0]
    b3[1], b3[2] = 0.0, 0.0                  # constant nodes: score 0 -> every point left
    W3[3], b3[3] = W2[1], b2[1]              # the given classifiers, in the nodes their points reach
    W3[5], b3[5] = W2[2], b2[2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x0, info = warm_start(milp, X, y, spec3, tree=[(W3, b3)])
    assert max(milp.violation(x0).values()) <= 1e-9
    assert _obeys(_counts(info["W"], info["b"], X, 3), 10)


def test_fit_start_tree_deepened_on_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    base = ["fit", "--dataset", "heart", "--test-size", "0", "--min-leaf", "10", "--time-limit", "5", "--threads", "1",
            "--quiet"]
    code, _, err = cli_main(base + ["--depth", "2", "-o", "h2.json"], capsys)
    assert code == 0, err
    code, _, err = cli_main(base + ["--depth", "3", "--start-tree", "h2.json", "-o", "h3.json"], capsys)
    assert code == 0, err


def test_a_start_tree_breaking_it_on_compile_writes_nothing(small_csv, monkeypatch, capsys):
    from olctc.export.json import load as load_tree

    d, X = small_csv
    monkeypatch.chdir(d)
    code, _, err = cli_main(["fit", "small.csv", "--target", "y", "--test-size", "0", "--time-limit", "5",
                             "--threads", "1", "--quiet", "-o", "free.json"], capsys)
    assert code == 0, err
    counts = np.bincount(load_tree(d / "free.json").apply(X) - 1, minlength=2)
    assert counts.min() > 0, counts  # the free tree splits (measured: [10, 14])
    n_min = int(counts[counts > 0].min()) + 1
    (d / "out").mkdir()
    code, _, err = cli_main(["compile", "small.csv", "--target", "y", "--min-leaf", str(n_min), "--start-tree",
                             "free.json", "-o", "out/m.mps"], capsys)
    assert code == 2 and f"the start tree breaks min_leaf {n_min}" in err and "Traceback" not in err, err
    assert list((d / "out").iterdir()) == []


# ------------------------------------------------------------------------------------ an empty region (defect)

def test_a_region_with_no_training_point_is_not_certain(tmp_path, monkeypatch, capsys):
    from olctc.export.json import load as load_tree

    monkeypatch.chdir(_tiny_dir(tmp_path))
    # N = n: every training point in one node, the other last-layer node empty (measured: b = -100 there)
    code, _, err = cli_main(["fit", "tiny.csv", "--target", "y", "--test-size", "0", "--min-leaf", "6",
                             "--time-limit", "5", "--threads", "1", "--quiet", "-o", "t.json"], capsys)
    assert code == 0, err
    tree = load_tree(tmp_path / "t.json")
    assert list(tree.node_n[1:]) in ([6, 0], [0, 6])
    # the training data's box: a in [-1, 2], b in [-1.25, 2], c in {x, y} (encoded c=x, c=y)
    grid = np.array([[a, b, c, 1 - c] for a in np.linspace(-1, 2, 13) for b in np.linspace(-1.25, 2, 13)
                     for c in (0, 1)], dtype=float)
    leaf = tree.apply(grid)
    empty = tree.node_n[leaf] == 0
    proba = tree.predict_proba(grid).max(axis=1)
    assert not np.any(proba[empty] > 0.99), (int(empty.sum()), float(proba[empty].max()))
