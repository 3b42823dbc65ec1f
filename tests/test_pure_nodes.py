"""--smooth-pure-nodes / smooth_pure_nodes=True: a last-layer node whose training points are all of one class
gets w = 0 and its points' smoothed log-odds (Laplace's rule) instead of the solver's arbitrary (w, b)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import olctc
from conftest import cli_here
from olctc import OLCTClassifier
from olctc.decode import settle_pure_nodes
from olctc.formulation.topology import Topology
from olctc.spec import make_spec
from olctc.start_tree import start_trees

# HiGHS proves the optimum of these 80 breast points in about a second; both last-layer nodes are one-class there
FIT = dict(depth=2, C=1.0, time_limit=120, threads=1, solver="highs")


@pytest.fixture(scope="module")
def breast80() -> tuple[np.ndarray, np.ndarray, list[str]]:
    X, y, names = olctc.load_dataset("breast")
    idx = np.random.default_rng(0).permutation(len(y))[:80]
    return X[idx], y[idx], list(names)


@pytest.fixture(scope="module")
def fits(breast80):
    X, y, _ = breast80
    plain = OLCTClassifier(**FIT).fit(X, y)
    smooth = OLCTClassifier(smooth_pure_nodes=True, **FIT).fit(X, y)
    assert plain.summary_["status"] == smooth.summary_["status"] == "optimal"
    return plain, smooth


def _exact_loss(u: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, -u)


def test_smoothed_nodes_predict_laplace_probabilities(breast80, fits) -> None:
    X, y, _ = breast80
    plain, smooth = fits
    assert "pure_nodes" not in plain.tree_.meta and "pure_nodes" not in plain.summary_
    nodes = smooth.tree_.meta["pure_nodes"]["nodes"]
    assert sorted(nodes) == [1, 2]
    reached = smooth.tree_.apply(X)
    np.testing.assert_array_equal(reached, plain.tree_.apply(X))  # the same solve: the same splits
    pos = y == smooth.classes_[1]
    for s in nodes:
        at = reached == s
        assert at.sum() >= 3 and (pos[at].all() or not pos[at].any())
        want = (pos[at].sum() + 1) / (at.sum() + 2)
        np.testing.assert_allclose(smooth.predict_proba(X[at])[:, 1], want, rtol=1e-12)
        # the solver's probability there is not this (b at the bound: 4e-44 or 1 - 4e-44, or log 4's 0.8)
        assert abs(plain.predict_proba(X[at])[0, 1] - want) > 1e-3
    np.testing.assert_array_equal(smooth.predict(X), plain.predict(X))
    np.testing.assert_allclose(smooth.tree_.W[nodes], 0.0)


def test_objective_change_is_the_pure_nodes_own_terms(breast80, fits) -> None:
    """objective_before -> objective_after: the pure nodes' exact losses and L1 terms, recomputed here from the
    scores the two trees give the raw points."""
    X, y, _ = breast80
    plain, smooth = fits
    rec = smooth.tree_.meta["pure_nodes"]
    assert rec["objective_before"] == pytest.approx(plain.objective_, rel=1e-9)
    assert smooth.objective_ == rec["objective_after"] == smooth.tree_.meta["exact_objective"]
    yy = np.where(y == smooth.classes_[1], 1.0, -1.0)
    reached = smooth.tree_.apply(X)
    S_old, S_new = plain.tree_.scores(X), smooth.tree_.scores(X)
    delta = 0.0
    for s in rec["nodes"]:
        at = reached == s
        delta += FIT["C"] * float((_exact_loss(yy[at] * S_new[at, s]) - _exact_loss(yy[at] * S_old[at, s])).sum())
        delta -= float(np.abs(plain.tree_.W[s]).sum())
    assert rec["objective_after"] - rec["objective_before"] == pytest.approx(delta, rel=1e-9, abs=1e-9)
    assert abs(delta) > 1e-3  # the nodes changed (here the objective fell: the solver's w there were not 0)


def test_start_tree_gets_the_solver_nodes_back(fits) -> None:
    plain, smooth = fits
    trees = start_trees(smooth.tree_)
    assert len(trees) == 2
    np.testing.assert_allclose(trees[1].W, plain.tree_.W, atol=1e-12)
    np.testing.assert_allclose(trees[1].b, plain.tree_.b, atol=1e-12)
    assert len(start_trees(plain.tree_)) == 2 if plain.tree_.meta.get("refine", {}).get("nodes_refit") else 1


def test_settle_pure_nodes_weights_and_mixed_nodes() -> None:
    """By hand: node 1 gets negatives of weights 1 and 3 (class weight 2) and a positive of weight 0, node 2
    a mix; a = the mean weight of the points that count."""
    spec = make_spec("olct", depth=2, class_weight=(2.0, 1.0))
    X = np.array([[-2.0], [-1.0], [-1.5], [1.0], [2.0], [3.0]])
    y = np.array([-1, -1, 1, 1, -1, 1])
    sw = np.array([1.0, 3.0, 0.0, 1.0, 1.0, 1.0])
    W = np.array([[1.0], [0.7], [0.2]])
    b = np.array([0.0, -100.0, 0.3])
    W2, b2 = W.copy(), b.copy()
    assert settle_pure_nodes(W2, b2, X, y, spec, sw) == [1]
    a = (2.0 + 6.0) / 2
    assert b2[1] == pytest.approx(math.log((0.0 + a) / (8.0 + a)))
    assert W2[1, 0] == 0.0 and (W2[[0, 2]] == W[[0, 2]]).all() and (b2[[0, 2]] == b[[0, 2]]).all()
    # unweighted: (0 + 1) / (3 + 1) odds once the zero-weight positive counts as a point of weight 1
    W3, b3 = W.copy(), b.copy()
    assert settle_pure_nodes(W3, b3, X, y, make_spec("olct", depth=2)) == []  # node 1 holds a positive now
    y_neg = y.copy()
    y_neg[2] = -1
    assert settle_pure_nodes(W3, b3, X, y_neg, make_spec("olct", depth=2)) == [1]
    assert b3[1] == pytest.approx(math.log(1 / 4))
    assert Topology(2).last.tolist() == [1, 2]


def test_cli_decode_and_fit_flag(breast80, tmp_path: Path) -> None:
    X, y, names = breast80
    csv = tmp_path / "b80.csv"
    header = ",".join(f'"{n}"' for n in names) + ",y\n"
    csv.write_text(header + "".join(",".join(f"{v:.17g}" for v in row) + f",{lab}\n" for row, lab in zip(X, y)),
                   encoding="utf-8")
    model, sol = tmp_path / "b.mps", tmp_path / "b.sol"
    assert cli_here("compile", csv, "--target", "y", "--depth", "2", "-o", model).returncode == 0
    p = cli_here("solve", model, "--solver", "highs", "--threads", "1", "-o", sol)
    assert p.returncode == 0 and "optimal" in p.stdout
    man = tmp_path / "b.olctc.json"
    plain = cli_here("decode", man, sol, "-o", tmp_path / "plain.json")
    smooth = cli_here("decode", man, sol, "--smooth-pure-nodes", "-o", tmp_path / "smooth.json")
    assert plain.returncode == smooth.returncode == 0, (plain.stderr, smooth.stderr)
    assert "pure node" not in plain.stdout
    line = next(s for s in smooth.stdout.splitlines() if s.startswith("pure node(s) "))
    t_plain = json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))
    t_smooth = json.loads((tmp_path / "smooth.json").read_text(encoding="utf-8"))
    rec = t_smooth["meta"]["pure_nodes"]
    assert line.startswith(f"pure node(s) {', '.join(map(str, rec['nodes']))} smoothed") and rec["nodes"]
    assert f"{rec['objective_before']:.10g} -> {rec['objective_after']:.10g}" in line
    tp, ts = olctc.load_tree(tmp_path / "plain.json"), olctc.load_tree(tmp_path / "smooth.json")
    same = [t for t in range(tp.n_nodes) if t not in rec["nodes"]]
    np.testing.assert_array_equal(ts.W[same], tp.W[same])
    np.testing.assert_array_equal(ts.b[same], tp.b[same])
    np.testing.assert_allclose(rec["before"]["b"], tp.b[rec["nodes"]], rtol=1e-15)
    assert t_plain["meta"]["exact_objective"] == pytest.approx(rec["objective_before"], rel=1e-12)
    fit = cli_here("fit", csv, "--target", "y", "--depth", "2", "--test-size", "0", "--threads", "1", "--quiet",
                   "--smooth-pure-nodes", "-o", tmp_path / "fit.json")
    assert fit.returncode == 0, fit.stderr
    assert any(s.startswith("pure node(s) ") for s in fit.stdout.splitlines())
    assert json.loads((tmp_path / "fit.json").read_text(encoding="utf-8"))["meta"]["pure_nodes"]["nodes"]


def test_the_tree_says_smoothing_was_asked_for_when_no_node_is_pure(breast80) -> None:
    """heart's 80 points at depth 1: one node, never one-class; the meta still records the request."""
    X, y, _ = olctc.load_dataset("heart")
    m = OLCTClassifier(**{**FIT, "depth": 1}, smooth_pure_nodes=True).fit(X[:80], y[:80])
    rec = m.tree_.meta["pure_nodes"]
    assert rec["nodes"] == [] and rec["objective_before"] == rec["objective_after"] == m.objective_
    assert "pure_nodes" not in OLCTClassifier(**{**FIT, "depth": 1}).fit(X[:80], y[:80]).tree_.meta
    assert len(start_trees(m.tree_)) == 1 + bool(m.tree_.meta.get("refine", {}).get("nodes_refit"))


def test_bad_values_are_refused(breast80) -> None:
    X, y, _ = breast80
    with pytest.raises(olctc.OlctcError, match="smooth_pure_nodes"):
        OLCTClassifier(smooth_pure_nodes="yes", **FIT).fit(X, y)


def test_bench_option_is_recorded_and_kept_by_the_folder(tmp_path: Path, capsys) -> None:
    from conftest import cli_main
    from olctc.bench import folder as bench_folder
    from olctc.bench import options as bench_options

    assert "smooth_pure_nodes" not in bench_options.make_options("models").to_json()  # old folders resume
    d = tmp_path / "smooth"
    args = ["bench", "models", "--models", "OLCT", "--datasets", "tic-tac-toe", "--seeds", "0", "--time-limit", "5"]
    code, _, err = cli_main([*args, "--smooth-pure-nodes", "-o", d], capsys)
    assert code == 0, err
    (rec,) = bench_folder.read_runs(d)[0]
    assert rec["smooth_pure_nodes"] is True and rec["status"] in ("optimal", "feasible"), rec
    assert isinstance(rec["pure_nodes"], list) and set(rec["pure_nodes"]) <= {1, 2}
    assert cli_main(["bench", "report", d], capsys)[0] == 0
    assert "--smooth-pure-nodes" in (d / "report" / "summary.md").read_text(encoding="utf-8")
    code, _, err = cli_main([*args, "-o", d], capsys)
    assert (code, err) == (2, f"error: {d} was started with other options (--smooth-pure-nodes: on there, "
                              "off now): rerun with the same options or give another folder\n")


def test_cross_validation_fits_smooth_too(breast80) -> None:
    """fit --cv's fold fits get the option: their log loss on the held-out points is the smoothed trees'."""
    from olctc.cv import cross_validate
    from olctc.data import from_arrays

    X, y, names = breast80
    ds = from_arrays(X, y, feature_names=names)
    spec = make_spec("olct", depth=2)
    kw = dict(folds=2, C_values="1", scoring="neg_log_loss", test_size=0.0, solver="highs", threads=1)
    plain = cross_validate(ds, spec, **kw)
    smooth = cross_validate(ds, spec, smooth_pure_nodes=True, **kw)
    assert len(smooth.fits) == 2 and all(r.score is not None for r in smooth.fits)
    # one-class nodes at b = +-100 (or log 4) score a misplaced held-out point far worse than (m+ + 1) / (m + 2)
    assert [r.score for r in smooth.fits] != pytest.approx([r.score for r in plain.fits], rel=1e-6)
