"""Warm start: greedy tree -> complete MILP start, on real data and with a real solver.

- every preset x depth x tangent set on six vendored data sets: the completed start satisfies every
  row (<= 1e-9), bound and integrality of the MILP, and its MILP objective equals tree_objective;
- HiGHS accepts the start (its log says so) and never ends above it;
- a planted depth-2 oblique tree is recovered (100 % training accuracy) by warm start + MILP;
- hostile trees (huge weights, scores inside (0, epsilon)) are repaired, and bad input is refused.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.data import Scaler
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.formulation.topology import Topology
from olctc.objective import tree_objective
from olctc.spec import PRESETS, make_spec
from olctc.warmstart import _band_shift, complete_start, greedy_tree, score_cap, warm_start

from conftest import HIGHS_START_ACCEPTED, run_highs

DATASETS = ["breast", "heart", "haberman", "tic-tac-toe", "ionosphere", "wholesale"]


@functools.lru_cache(maxsize=None)
def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    ds = load(name)
    return Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)


def highs_solve(milp, start: np.ndarray | None, time_limit: float, log_file: Path | None = None,
                gap: float = 1e-4) -> tuple[str, float, np.ndarray]:
    """Solve MILP arrays with highspy (passModel, tight tolerances), optionally from a start."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", log_file is not None)
    if log_file is not None:
        h.setOptionValue("log_to_console", False)
        h.setOptionValue("log_file", str(log_file))
    for k, v in {"mip_feasibility_tolerance": 1e-9, "primal_feasibility_tolerance": 1e-9,
                 "time_limit": float(time_limit), "mip_rel_gap": gap, "random_seed": 0}.items():
        assert h.setOptionValue(k, v) == highspy.HighsStatus.kOk
    h.setOptionValue("threads", 1)
    A = milp.A.tocsc()
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = milp.n_cols, milp.n_rows
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = milp.c, milp.lb, milp.ub
    lp.row_lower_ = np.where(milp.sense == "L", -inf, milp.rhs)
    lp.row_upper_ = np.where(milp.sense == "G", inf, milp.rhs)
    lp.offset_ = milp.obj_constant
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in milp.integer]
    assert h.passModel(lp) == highspy.HighsStatus.kOk
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = start.tolist()
        sol.value_valid = True
        assert h.setSolution(sol) == highspy.HighsStatus.kOk
    run_highs(h)
    x = np.asarray(h.getSolution().col_value, dtype=float)
    return h.modelStatusToString(h.getModelStatus()), float(h.getInfo().objective_function_value), x


def check_start(milp, X, y, spec, x: np.ndarray) -> None:
    viol = milp.violation(x)
    assert viol["rows"] <= 1e-9, milp.worst_row(x)
    assert viol["bounds"] == 0.0 and viol["integrality"] == 0.0
    W, b = milp.values(x, "w"), milp.values(x, "b")
    # z is the true routing of (W, b) at the threshold used for raw MILP weights, and at 0 as well
    # (no point of a routing node lies in (0, epsilon)).
    z = milp.values(x, "z")
    topo = Topology(spec.depth)
    S = X @ W.T + b
    for thr in (0.0, spec.epsilon / 2):
        assert np.array_equal(topo.last[np.argmax(z, axis=0)], topo.route(S, thr))
    ref = tree_objective(W, b, X, y, spec, threshold=spec.epsilon / 2).total
    assert milp.objective(x) == pytest.approx(ref, rel=1e-7, abs=1e-9)


CASES = [(name, preset, depth, tangents)
         for name in DATASETS for preset in PRESETS for depth in (1, 2, 3)
         # tangents only change the logistic loss; the other presets ignore them
         for tangents in (("V0", "V2") if PRESETS[preset].loss == "logistic" else ("V0",))]


@pytest.mark.parametrize("name,preset,depth,tangents", CASES)
def test_start_is_feasible_and_objective_matches(name, preset, depth, tangents):
    X, y = data(name)
    spec = make_spec(preset, depth, tangents=tangents)
    milp = build_milp(X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no adjustment and no objective mismatch for greedy trees
        x, info = warm_start(milp, X, y, spec)
    assert x.shape == (milp.n_cols,)
    check_start(milp, X, y, spec, x)
    assert info["objective_matches"] and info["adjustments"] == []
    assert info["objective"] == pytest.approx(info["tree_objective"], rel=1e-7)
    W = info["W"]
    if spec.info.l0 == "hfs":
        assert ((W != 0).sum(axis=1) <= spec.effective_budget).all()
    if preset == "oct-h":
        assert (np.abs(W).sum(axis=1) <= 1 + 1e-12).all()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_start_is_feasible_with_score_variables(preset):
    X, y = data(DATASETS[0])
    spec = make_spec(preset, 2, tangents="V1" if PRESETS[preset].uses_tangents else "V0", score_variables=True)
    milp = build_milp(X, y, spec)
    x, info = warm_start(milp, X, y, spec)
    check_start(milp, X, y, spec, x)
    np.testing.assert_allclose(milp.values(x, "s"), (X @ info["W"].T + info["b"]).T, rtol=0, atol=1e-12)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_start_leaves_numpys_global_random_state_alone(preset):
    """MARGOT's start (scikit-learn's SVC, no random_state) drew from np.random: a user's seeded sequence
    changed across a fit (QA 2026-12-05)."""
    X, y = data("heart")
    np.random.seed(5)
    before = np.random.get_state()
    greedy_tree(X, y, make_spec(preset, 2), random_state=0)
    after = np.random.get_state()
    assert np.array_equal(after[1], before[1]) and after[2] == before[2]


def test_greedy_splits_and_is_deterministic():
    X, y = data("breast")
    spec = make_spec("olct", 2)
    W1, b1 = greedy_tree(X, y, spec, random_state=0)
    W2, b2 = greedy_tree(X, y, spec, random_state=0)
    assert np.array_equal(W1, W2) and np.array_equal(b1, b2)
    reached = Topology(2).route(X @ W1.T + b1)
    assert set(np.unique(reached)) == {1, 2}  # the root really splits
    assert np.abs(X @ W1.T + b1).max() <= score_cap(spec)


#: A fresh interpreter's first warm starts on threads, then (argv[1] "all") 40 more and its BLAS thread count: JSON
THREADED_STARTS = textwrap.dedent("""
    import json, sys, threading
    from concurrent.futures import ThreadPoolExecutor
    import numpy as np, threadpoolctl
    from olctc.data import Scaler
    from olctc.datasets import load
    from olctc.fit import split
    from olctc.spec import make_spec
    from olctc.warmstart import greedy_tree
    ds = load("ionosphere")
    X, y = Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)
    olct, margot = make_spec("olct", 2), make_spec("margot", 2)
    def blas():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    before = blas()
    # scikit-learn's first imports, on six threads let go at once: liblinear's, libsvm's, train_test_split's and
    # the estimators' module's
    gate = threading.Barrier(6)
    def first(k):
        gate.wait()
        if k == 5:
            import olctc
            return olctc.OLCTClassifier
        return split(ds, 0.2, 0) if k == 4 else greedy_tree(X, y, (olct, margot)[k % 2], random_state=0)
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(first, range(6)))
    out = {}
    if sys.argv[1] == "all":
        W0, b0 = greedy_tree(X, y, olct, random_state=0)
        with ThreadPoolExecutor(4) as pool:
            trees = list(pool.map(lambda _: greedy_tree(X, y, olct, random_state=0), range(40)))
        out = {"before": before, "after": blas(),
               "differ": [k for k, (W, b) in enumerate(trees) if not (np.array_equal(W, W0) and np.array_equal(b, b0))]}
    print(json.dumps(out))
""")


def test_warm_starts_on_threads_at_once_are_the_same_and_leave_blas_as_it_was():
    """scikit-learn's liblinear shares one random generator per process: greedy trees fitted on threads at once
    took each other's draws (5 of 40 differed, 4 threads), and the polish's one-BLAS-thread limit, entered
    and left out of order, left the process's BLAS at one thread. In a fresh interpreter with two BLAS threads
    (the suite runs with one, and a limit set here would make this thread the only one threadpoolctl obeys).
    Three more interpreters only race to scikit-learn's first imports: its modules import each other in a
    circle, and threads importing two at once failed ("partially initialized module", a _DeadlockError) in 3
    of 8 processes; four give a fault about 6 chances in 7 to show."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    runs = [subprocess.Popen([sys.executable, "-c", THREADED_STARTS, what], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env) for what in ("all", "race", "race", "race")]
    outs = [r.communicate(timeout=300) for r in runs]
    for r, (_, err) in zip(runs, outs):
        assert r.returncode == 0, err[-3000:]
    got = json.loads(outs[0][0])
    assert got["before"] and set(got["before"]) == {2}
    assert got["after"] == got["before"] and got["differ"] == []


def test_highs_accepts_the_start(tmp_path):
    X, y = data("heart")
    spec = make_spec("olct", 2)
    milp = build_milp(X, y, spec)
    x, info = warm_start(milp, X, y, spec)
    log = tmp_path / "highs.log"
    status, obj, xs = highs_solve(milp, x, time_limit=5.0, log_file=log)
    text = log.read_text()
    found = HIGHS_START_ACCEPTED.search(text)
    assert found, text[:2000]
    assert float(found.group(1)) == pytest.approx(info["objective"], rel=1e-8)
    assert obj <= info["objective"] + 1e-9 * abs(info["objective"])
    assert milp.violation(xs)["rows"] <= 1e-6


def planted(seed: int, n: int = 50, margin: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """Points labelled by a depth-2 oblique tree: root u = (x0 + x1)/sqrt 2 > 0 goes right; the left
    node predicts +1 iff v = (x0 - x1)/sqrt 2 > 0, the right node iff v < 0 (a rotated XOR, so no
    single hyperplane does it). Points within ``margin`` of either hyperplane are dropped."""
    rng = np.random.default_rng(seed)
    P = rng.uniform(-1, 1, size=(20 * n, 2))
    u, v = (P[:, 0] + P[:, 1]) / np.sqrt(2), (P[:, 0] - P[:, 1]) / np.sqrt(2)
    keep = np.flatnonzero((np.abs(u) > margin) & (np.abs(v) > margin))[:n]
    y = np.where((u[keep] > 0) == (v[keep] < 0), 1.0, -1.0)
    return P[keep], y


def accuracy(W, b, X, y, spec) -> float:
    S = X @ W.T + b
    reached = Topology(spec.depth).route(S, spec.epsilon / 2)
    return float(np.mean(np.where(S[np.arange(X.shape[0]), reached] > 0, 1.0, -1.0) == y))


@pytest.mark.parametrize("seed", [3, 4])
def test_planted_tree_is_recovered(seed):
    X, y = planted(seed)
    spec = make_spec("olct", 2, C=5.0)
    milp = build_milp(X, y, spec)
    x, info = warm_start(milp, X, y, spec)
    # The greedy root fits the labels, not the routing, so it misses the XOR...
    assert accuracy(info["W"], info["b"], X, y, spec) < 0.8
    status, obj, xs = highs_solve(milp, x, time_limit=60.0)
    assert status == "Optimal"
    W, b = milp.values(xs, "w"), milp.values(xs, "b")
    # ...and the MILP finds it.
    assert accuracy(W, b, X, y, spec) == 1.0
    assert obj <= info["objective"]
    assert obj == pytest.approx(tree_objective(W, b, X, y, spec, threshold=spec.epsilon / 2).total, rel=1e-6)


# ---------------------------------------------------------------- complete_start on hostile trees

def test_huge_weights_are_scaled_into_big_m():
    X, y = data("heart")
    spec = make_spec("margot", 2)
    milp = build_milp(X, y, spec)
    rng = np.random.default_rng(0)
    W, b = 50 * rng.normal(size=(3, X.shape[1])), rng.normal(size=3)
    with pytest.warns(UserWarning, match="scaled by"):
        x = complete_start(milp, X, y, spec, W, b)
    check_start(milp, X, y, spec, x)
    S = X @ milp.values(x, "w").T + milp.values(x, "b")
    assert np.abs(S).max() <= score_cap(spec) == spec.big_m - 1  # hinge: relaxed rows stay slack


@pytest.mark.parametrize("preset", ["olct", "margot", "margot-hfs"])
def test_a_depth_1_start_keeps_its_scale(preset):
    # At depth 1 no row of a tangent loss holds M (no routing; the root's loss rows drop it): the start's
    # (w, b) were scaled to |score| <= M all the same, a worse start than the tree given. At depth 2 they must be.
    X, y = data("heart")
    W, b = np.zeros((1, X.shape[1])), np.array([0.3])
    W[0, 0] = 80.0  # one feature: within margot-hfs's budget, and |w_j| <= M as its L0 rows need
    assert np.abs(X @ W.T + b).max() > 100
    spec = make_spec(preset, 1, score_variables=True)
    assert score_cap(spec) == np.inf
    milp = build_milp(X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no adjustment
        x = complete_start(milp, X, y, spec, W, b)
    check_start(milp, X, y, spec, x)
    assert np.array_equal(milp.values(x, "w"), W) and np.array_equal(milp.values(x, "b"), b)
    deeper = make_spec(preset, 2)
    W2, b2 = np.repeat(W, 3, axis=0), np.repeat(b, 3)
    milp2 = build_milp(X, y, deeper)
    with pytest.warns(UserWarning, match="scaled by"):
        x2 = complete_start(milp2, X, y, deeper, W2, b2)
    check_start(milp2, X, y, deeper, x2)
    assert np.abs(X @ milp2.values(x2, "w").T + milp2.values(x2, "b")).max() <= score_cap(deeper)
    # OCT-H's rows hold M at depth 1 too
    assert score_cap(make_spec("oct-h", 1)) < np.inf


def test_scores_inside_the_epsilon_band_are_shifted_left():
    X, y = data("wholesale")
    spec = make_spec("oct-h", 2)
    milp = build_milp(X, y, spec)
    eps = spec.epsilon
    W = np.zeros((3, X.shape[1]))
    W[:, 2] = 2e-6
    # A continuous feature at a tiny weight: scores of hundreds of points lie in (0, eps), spaced far
    # less than eps apart (a chain the shift must walk through).
    b = eps / 3 - 2e-6 * np.quantile(X[:, 2], [0.5, 0.3, 0.7])
    S0 = X @ W.T + b
    assert ((S0 > 0) & (S0 < eps)).sum() > 300
    with pytest.warns(UserWarning, match="shifted"):
        x = complete_start(milp, X, y, spec, W, b)
    check_start(milp, X, y, spec, x)
    Wx, bx = milp.values(x, "w"), milp.values(x, "b")
    assert np.array_equal(Wx, W) and (bx <= b).all()
    q = milp.values(x, "q")
    S = X @ Wx.T + bx
    reached = Topology(2).route(S)
    assert np.array_equal(q, (S[np.arange(X.shape[0]), reached] >= eps).astype(float))


def test_band_shift_terminates_on_a_chain():
    spec = make_spec("olct", 2)
    eps = spec.epsilon
    s = np.concatenate([eps * (0.9 * np.arange(1, 200)), [-1.0, 5.0]])  # steps of 0.9 eps
    D = _band_shift(s, spec)
    t = s - D
    assert not ((t > 0) & (t < eps)).any()
    assert D < 200 * (eps + 1e-8) and (t[:-1] < 0).all() and t[-1] > eps


def test_start_objective_never_below_the_tree_when_big_m_is_tight():
    # M = 1.5 < 2: hinge rows of nodes a point does not pass can bind (score beyond M - 1 = 0.5);
    # the start stays feasible, and the mismatch is reported, not hidden.
    X, y = data("heart")
    spec = make_spec("margot", 2, big_m=1.5)
    milp = build_milp(X, y, spec)
    with pytest.warns(UserWarning):
        x, info = warm_start(milp, X, y, spec)
    assert milp.violation(x)["rows"] <= 1e-9
    assert info["objective"] >= info["tree_objective"] - 1e-9
    assert not info["objective_matches"]


def test_bad_input_is_refused():
    X, y = data("haberman")
    spec = make_spec("olct-univariate", 2)
    milp = build_milp(X, y, spec)
    W, b = np.ones((3, X.shape[1])), np.zeros(3)
    with pytest.raises(OlctcError, match="at most 1 per node"):
        complete_start(milp, X, y, spec, W, b)
    with pytest.raises(OlctcError, match="W must have shape"):
        complete_start(milp, X, y, spec, W[:2], b)
    with pytest.raises(OlctcError, match="labels -1 and \\+1"):
        complete_start(milp, X, y * 2, spec, W, b)
    with pytest.raises(OlctcError, match="depth 3"):
        complete_start(milp, X, y, make_spec("olct-univariate", 3), np.zeros((7, 3)), np.zeros(7))
    with pytest.raises(OlctcError, match="not built for preset"):
        warm_start(milp, X, y, make_spec("oct-h", 2))
    with pytest.raises(OlctcError, match="min_points"):
        greedy_tree(X, y, spec, min_points=0)
    with pytest.raises(OlctcError, match="finite"):
        greedy_tree(np.where(X > 1, np.nan, X), y, spec)


def test_tiny_weights_are_zeroed_for_l0_presets():
    # delta = 1 iff w != 0 in the MILP, but tree_objective counts |w| > 1e-9: a 1e-10 weight would cost
    # alpha in one and nothing in the other.
    X, y = data("ionosphere")
    spec = make_spec("margot-sfs", 2)
    milp = build_milp(X, y, spec)
    x0, info = warm_start(milp, X, y, spec)
    W = info["W"].copy()
    W[W == 0] = 1e-10
    with pytest.warns(UserWarning, match="set to 0"):
        x = complete_start(milp, X, y, spec, W, info["b"])
    check_start(milp, X, y, spec, x)
    assert np.array_equal(x, x0)


def test_complete_start_is_idempotent_on_admissible_trees():
    X, y = data("breast")
    spec = make_spec("oct-h", 3)
    milp = build_milp(X, y, spec)
    x0, info = warm_start(milp, X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = complete_start(milp, X, y, spec, info["W"], info["b"])
    assert np.array_equal(x, x0)


@pytest.mark.parametrize("name", ["heart", "wholesale"])
def test_oct_h_start_is_the_same_when_C_and_alpha_scale_together(name: str) -> None:
    """OCT-H's objective C * errors + alpha * ||w||_0 scaled by k is the same problem, so its start must be the same
    tree: at Bertsimas and Dunn's C = 1/L (errors over the smaller class's size) the start took C as a logistic
    fit's strength and came out constant (w = 0 at every node), where C = 1 gave a tree of 86% balanced accuracy."""
    ds = load(name)
    X = Scaler.fit(ds.X).transform(ds.X)
    L = float(min(np.sum(ds.y > 0), np.sum(ds.y < 0)))
    W1, b1 = greedy_tree(X, ds.y, make_spec(preset="oct-h", depth=2, C=[1.0, 1.0], alpha=0.125))
    WL, bL = greedy_tree(X, ds.y, make_spec(preset="oct-h", depth=2, C=[1 / L, 1 / L], alpha=0.125 / L))
    assert np.count_nonzero(W1[0]) > 0
    np.testing.assert_array_equal(W1, WL)
    np.testing.assert_array_equal(b1, bL)


def on_split_trees(spec, count: int):
    """``count`` (compiled problem, W, b, X, i) of integer features and trees in tenths whose b puts point i on the
    root's split in real arithmetic (seed 0): the case where rounding decides a route."""
    from olctc.compile import compile_problem
    from olctc.data import from_arrays

    rng = np.random.default_rng(0)
    for _ in range(count):
        X = rng.integers(0, 3, size=(40, 6)).astype(float)
        y = np.where(rng.random(40) < 0.5, -1, 1)
        y[:2] = [-1, 1]
        comp = compile_problem(from_arrays(X, y, name="t"), spec, standardise=False)
        W = rng.integers(-5, 6, size=(3, 6)) / 10.0
        i = rng.integers(40)
        b = -(np.rint(W * 10).astype(int) @ X[i].astype(int)) / 10.0  # w . x_i + b = 0 exactly in real arithmetic
        yield comp, W, b, X, i


@pytest.mark.parametrize("preset", ["olct", "oct-h"])
def test_a_point_on_a_split_goes_one_way_in_every_product(preset) -> None:
    """Weights in tenths on integer features, b putting a point on the split in real arithmetic: one matrix
    product scored it 0 (band shift: left, no shift needed), another 5.6e-17 (routing at 0: right), and the
    start missed a route_r row by epsilon: "warm start infeasible" on 20 of 300 such trees (QA). Each start is
    feasible now (routing at the midpoint epsilon / 2)."""
    spec = make_spec(preset, 2)
    on_split = 0
    for comp, W, b, X, i in on_split_trees(spec, 150):
        on_split += int(np.any(X[i] @ W.T + b != 0.0))  # not 0 in floating point
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scaled into OCT-H's ||w||_1 <= 1
            x = complete_start(comp.milp, comp.X, comp.dataset.y, spec, W, b)
        assert max(comp.milp.violation(x).values()) <= 1e-9
    assert on_split > 10  # the data do put points on splits as rounding leaves them
