"""Paper-fidelity QA (Aldinucci & Lapucci, OLCT): every expected value here is recomputed independently
(numpy / scipy / scikit-learn written in this file), never with olctc's own helpers.

Covered: the tangent sets V0..V3 and their lines (Sec. 3.1); the greedy warm start (Sec. 5.1) and the
MILP objective it is given; refinement (Remark 1) on a real MILP solution; the exact objective
(Sec. 5 form: sum_h C_h sum_i xi_{i,h} + sum_t ||w_t||_1); the bench protocol (80/20 stratified split,
standardisation on the training part, test balanced accuracy, CV grids, experiment settings) and the
summaries (gap-from-best CDF, Dolan-More profiles).
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from olctc.datasets import load
from olctc.spec import TANGENT_SETS, make_spec

# ---------------------------------------------------------------- independent helpers


def f(v):
    """The logistic loss f(v) = log(1 + exp(-v))."""
    return np.logaddexp(0.0, -np.asarray(v, dtype=float))


def fprime(v):
    return -1.0 / (1.0 + np.exp(np.asarray(v, dtype=float)))


PAPER_V = {"V0": {0.0}}
PAPER_V["V1"] = PAPER_V["V0"] | {1.9, -1.9}
PAPER_V["V2"] = PAPER_V["V1"] | {0.89, -0.89, 3.55, -3.55}
PAPER_V["V3"] = PAPER_V["V2"] | {0.44, -0.44, 1.37, -1.37, 2.63, -2.63, 5.16, -5.16}


def pw_loss(u, finite_points):
    """max over the paper's tangents: v = -inf gives -u, v = +inf gives 0, finite v its tangent line."""
    u = np.asarray(u, dtype=float)
    lines = [np.zeros_like(u), -u] + [f(v) + fprime(v) * (u - v) for v in finite_points]
    return np.max(lines, axis=0)


def route(W, b, X, depth, thr=0.0):
    """Heap index of the last-layer node each point reaches (right iff score > thr)."""
    n = X.shape[0]
    S = X @ W.T + b
    node = np.zeros(n, dtype=int)
    for _ in range(depth - 1):
        node = np.where(S[np.arange(n), node] > thr, 2 * node + 2, 2 * node + 1)
    return node, S


def my_objective(W, b, X, y, C, depth, loss="exact", points=(0.0,), thr=0.0):
    """sum_h C_h sum_i loss(y_i s_{t_h(i)}) + sum_t ||w_t||_1, t_h(i) the layer-h node on i's path."""
    last, S = route(W, b, X, depth, thr)
    total = float(np.abs(W).sum())
    n = X.shape[0]
    for h in range(1, depth + 1):
        anc = (last + 1) // (2 ** (depth - h)) - 1
        u = y * S[np.arange(n), anc]
        total += C[h - 1] * float((f(u) if loss == "exact" else pw_loss(u, points)).sum())
    return total


def my_l1_logreg(X, y, C):
    """argmin ||w||_1 + C sum log(1 + exp(-y (w.x + b))), b free: L-BFGS-B on the split form (own code)."""
    n, p = X.shape

    def fun(v):
        wp, wn, b = v[:p], v[p:2 * p], v[-1]
        m = y * (X @ (wp - wn) + b)
        sig = 0.5 * (1.0 - np.tanh(0.5 * m))  # 1 / (1 + e^m), overflow-free
        ds = -C * y * sig
        g = X.T @ ds
        return wp.sum() + wn.sum() + C * f(m).sum(), np.concatenate([1 + g, 1 - g, [ds.sum()]])

    best = None
    for b0 in (0.0, math.log((y > 0).mean() / (y < 0).mean())):
        r = minimize(fun, np.r_[np.zeros(2 * p), b0], jac=True, method="L-BFGS-B",
                     bounds=[(0, None)] * (2 * p) + [(None, None)],
                     options={"maxiter": 50_000, "ftol": 1e-15, "gtol": 1e-11})
        if best is None or r.fun < best.fun:
            best = r
    return best.fun


def node_share(w, b, X, y, C):
    return float(np.abs(w).sum() + C * f(y * (X @ w + b)).sum())


@functools.lru_cache(maxsize=None)
def std_data(name):
    ds = load(name)
    return StandardScaler().fit_transform(ds.X), ds.y.astype(float)


# ---------------------------------------------------------------- 1. tangent sets (Sec. 3.1)


def test_tangent_sets_are_the_papers():
    for name, finite in PAPER_V.items():
        pts = TANGENT_SETS[name]
        assert {p for p in pts if math.isfinite(p)} == finite, name
        assert -math.inf in pts and math.inf in pts, name  # V0 = {0, +-inf} is part of every set
    assert len(TANGENT_SETS["V3"]) == 17


@pytest.mark.parametrize("name", ["V0", "V1", "V2", "V3"])
def test_tangent_lines_are_tangents_and_underestimate(name):
    from olctc.formulation.losses import tangent_lines
    from olctc.objective import point_losses

    spec = make_spec(tangents=name)
    finite = sorted(PAPER_V[name])
    g, c = tangent_lines(spec)
    # one row per tangent point except +inf (the bound xi >= 0)
    assert g.size == len(finite) + 1
    u = np.linspace(-40, 40, 40_001)
    # each of olctc's lines xi >= c - g u is one of the paper's lines f(v) + f'(v)(u - v) (or -u for -inf)
    theirs = np.array(sorted(zip(-g, c)))  # (slope, intercept) of each line xi >= c - g u
    mine = np.array(sorted([(-1.0, 0.0)] + [(float(fprime(v)), float(f(v) - fprime(v) * v)) for v in finite]))
    np.testing.assert_allclose(theirs, mine, rtol=1e-12, atol=1e-14)
    model = point_losses(u, spec, "model")
    np.testing.assert_allclose(model, pw_loss(u, finite), atol=1e-12)
    assert (model <= f(u) + 1e-12).all()  # under-estimator
    for v in finite:  # touches the loss at every tangent point
        assert point_losses(np.array([v]), spec, "model")[0] == pytest.approx(float(f(v)), abs=1e-12)
    # exact for |u| -> inf (slopes of the asymptotes -1 and 0)
    assert model[0] == pytest.approx(float(f(u[0])), abs=1e-12)
    assert model[-1] == pytest.approx(float(f(u[-1])), abs=1e-12)


def test_tangent_sets_refine_the_approximation():
    u = np.linspace(-20, 20, 200_001)
    errs = [float((f(u) - pw_loss(u, sorted(PAPER_V[k]))).max()) for k in ("V0", "V1", "V2", "V3")]
    assert all(a > b for a, b in zip(errs, errs[1:]))
    # V0: worst error where 0 meets its neighbours, log 2 - |u| / 2 vs f: at u = +-2 log 2
    kink = 2 * math.log(2.0)
    assert float(pw_loss(np.array([kink]), [0.0])[0]) == pytest.approx(0.0, abs=1e-15)
    assert errs[0] == pytest.approx(float(f(kink)), abs=1e-4)  # log(5/4), up to the grid


# ---------------------------------------------------------------- 2. warm start (Sec. 5.1)

WS_CASES = [("heart", 2, (1.0, 10.0), "V0"), ("haberman", 2, (0.1, 1.0), "V0"),
            ("heart", 2, (1.0, 1.0), "V2"), ("breast", 2, (10.0, 0.1), "V0")]


@pytest.mark.parametrize("name,depth,C,tangents", WS_CASES)
def test_warm_start_is_greedy_top_down_l1_logreg_and_milp_objective(name, depth, C, tangents):
    from olctc.formulation import build_milp
    from olctc.warmstart import warm_start

    X, y = std_data(name)
    spec = make_spec("olct", depth=depth, C=list(C), tangents=tangents)
    milp = build_milp(X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x0, info = warm_start(milp, X, y, spec)
    W, b = info["W"], info["b"]
    # the greedy tree needs no further change to be a MILP start (breast C = 10, 0.1 reported a no-op
    # "scaled by 1" before the fix in warmstart._admit_node)
    assert info["adjustments"] == []
    # node by node, top-down: each node sees exactly the points its ancestors route to it (right iff > 0)
    n = y.size
    node = np.zeros(n, dtype=int)
    for h in range(1, depth + 1):
        for t in range(2 ** (h - 1) - 1, 2 ** h - 1):
            r = node == t
            if r.sum() < 10 or np.unique(y[r]).size < 2:
                assert not W[t].any()
                continue
            share = node_share(W[t], b[t], X[r], y[r], C[h - 1])
            best = my_l1_logreg(X[r], y[r], C[h - 1])
            scores = np.abs(X @ W[t] + b[t]).max()
            if W[t].any() and scores < spec.big_m - 1.0:
                # an unscaled node is the exact L1 logistic regression with this layer's C
                assert share == pytest.approx(best, rel=1e-6), (t, share, best)
            else:
                # scaled into big-M or constant: not better than the optimum, and feasible
                assert share >= best - 1e-6 * best
        if h < depth:
            S = X @ W.T + b
            node = np.where(S[np.arange(n), node] > 0, 2 * node + 2, 2 * node + 1)
    # the start is MILP-feasible and the MILP objective is the tree's model objective, recomputed here
    viol = milp.violation(x0)
    assert viol["rows"] <= 1e-9 and viol["bounds"] == 0 and viol["integrality"] == 0
    pts = sorted(PAPER_V[tangents])
    assert milp.objective(x0) == pytest.approx(my_objective(W, b, X, y, C, depth, "model", pts), rel=1e-9)
    z = x0[milp.col_block("z").slice].reshape(2 ** (depth - 1), n)
    last, _ = route(W, b, X, depth)
    assert np.array_equal(np.argmax(z, axis=0) + 2 ** (depth - 1) - 1, last)
    assert np.array_equal(x0[milp.col_block("w").slice].reshape(W.shape), W)


def test_warm_start_root_is_the_full_data_fit_and_depth3_order():
    """Depth 3: layer-h nodes use C_h; a node with few points is constant."""
    from olctc.warmstart import greedy_tree

    X, y = std_data("heart")
    C = (1.0, 0.1, 100.0)
    W, b = greedy_tree(X, y, make_spec("olct", depth=3, C=list(C)))
    assert node_share(W[0], b[0], X, y, C[0]) == pytest.approx(my_l1_logreg(X, y, C[0]), rel=1e-6)
    last, S = route(W, b, X, 3)
    for t in range(3, 7):
        r = last == t
        if r.sum() >= 10 and np.unique(y[r]).size == 2 and np.abs(S[r, t]).max() < 99:
            assert node_share(W[t], b[t], X[r], y[r], C[2]) == pytest.approx(
                my_l1_logreg(X[r], y[r], C[2]), rel=1e-6)
        elif r.sum() < 10:
            assert not W[t].any()


# ---------------------------------------------------------------- 3-4. refinement and exact objective


@pytest.fixture(scope="module")
def heart80_fit():
    """A real MILP solution (HiGHS, 1 thread, 5 s) on 80 heart rows, depth 2, C = (1, 10), not refined."""
    from olctc.fit import fit

    ds0 = load("heart")
    rows = np.sort(np.random.default_rng(0).choice(ds0.n, 80, replace=False))
    ds = ds0.subset(rows)
    spec = make_spec("olct", depth=2, C=[1.0, 10.0])
    res = fit(ds, spec, solver="highs", time_limit=5, threads=1, verbose=False, refine=False)
    X = StandardScaler().fit_transform(ds.X)
    return res, X, ds.y.astype(float), spec


def test_exact_objective_of_fitted_tree_is_the_papers(heart80_fit):
    res, X, y, spec = heart80_fit
    tree = res.tree
    mine = my_objective(tree.W, tree.b, X, y, spec.C, 2)
    assert res.summary["exact_objective_before_refine"] == pytest.approx(mine, rel=1e-10)
    assert tree.meta["exact_objective"] == pytest.approx(mine, rel=1e-10)
    # the solver's objective is the V0 model objective of its raw (w, b): the decoded tree folds the
    # routing midpoint epsilon/2 into the root's b (docs/FORMULATION.md "Decoding")
    b_raw = tree.b.copy()
    b_raw[0] += spec.epsilon / 2
    milp_true = my_objective(tree.W, b_raw, X, y, spec.C, 2, "model", thr=spec.epsilon / 2)
    assert res.summary["objective_milp_true"] == pytest.approx(milp_true, rel=1e-10)
    assert res.summary["objective_milp"] == pytest.approx(milp_true, rel=1e-6)
    # exported raw-feature weights: standardisation with the training part's population std
    ds_raw = load("heart").subset(np.sort(np.random.default_rng(0).choice(load("heart").n, 80, replace=False)))
    np.testing.assert_allclose(tree.W_raw, tree.W / ds_raw.X.std(axis=0), rtol=1e-12)


def test_refinement_refits_last_layer_exactly_and_never_increases(heart80_fit):
    from olctc.refine import refine

    res, X, y, spec = heart80_fit
    W, b = res.tree.W, res.tree.b
    W2, b2, rep = refine(W, b, X, y, spec)
    before, after = my_objective(W, b, X, y, spec.C, 2), my_objective(W2, b2, X, y, spec.C, 2)
    assert rep.objective_before == pytest.approx(before, rel=1e-12)
    assert rep.objective_after == pytest.approx(after, rel=1e-12)
    assert after <= before
    assert after < before - 1.0  # the MILP (V0) tree is far from the exact optimum at its leaves
    # the root is untouched, so the routing is fixed
    assert np.array_equal(W2[0], W[0]) and b2[0] == b[0]
    last, _ = route(W, b, X, 2)
    assert np.array_equal(last, route(W2, b2, X, 2)[0])
    for t in (1, 2):
        r = last == t
        if np.unique(y[r]).size == 2:
            # each refit node is the exact L1 logistic regression of its points with C_d = C[-1] = 10
            assert t in rep.nodes_refit
            assert node_share(W2[t], b2[t], X[r], y[r], spec.C[-1]) == pytest.approx(
                my_l1_logreg(X[r], y[r], spec.C[-1]), rel=1e-7)


def test_exact_objective_random_trees_depth3():
    from olctc.objective import tree_objective

    X, y = std_data("haberman")
    rng = np.random.default_rng(3)
    for tangents in ("V0", "V1"):
        spec = make_spec("olct", depth=3, C=[0.5, 2.0, 7.0], tangents=tangents)
        W = rng.normal(size=(7, X.shape[1])) * (rng.random((7, X.shape[1])) < 0.6)
        b = rng.normal(size=7)
        ex = tree_objective(W, b, X, y, spec, loss="exact")
        assert ex.total == pytest.approx(my_objective(W, b, X, y, spec.C, 3), rel=1e-12)
        assert ex.regulariser == pytest.approx(np.abs(W).sum())
        mo = tree_objective(W, b, X, y, spec, loss="model")
        assert mo.total == pytest.approx(
            my_objective(W, b, X, y, spec.C, 3, "model", sorted(PAPER_V[tangents])), rel=1e-12)
        assert mo.total <= ex.total


# ---------------------------------------------------------------- 5. bench protocol and summaries


def my_gap_cdf(S, t, higher=True):
    n, m = S.shape
    out = np.zeros((m, len(t)))
    for i in range(n):
        row = S[i] if higher else -S[i]
        best = np.nanmax(row)
        for j in range(m):
            if np.isnan(row[j]):
                continue
            for k, tk in enumerate(t):
                out[j, k] += (best - row[j]) <= tk
    return out / n


def test_gap_cdf_matches_definition():
    from olctc.bench.metrics import gap_cdf

    S = np.array([[80.0, 75.0, 80.0], [60.0, np.nan, 70.0], [90.0, 89.5, 50.0], [55.0, 65.0, 64.0]])
    t = np.array([0.0, 0.5, 1.0, 5.0, 10.0, 50.0])
    F = gap_cdf(S, t)
    np.testing.assert_allclose(F, my_gap_cdf(S, t))
    # t = 0: fraction of instances where the model is (one of) the best
    np.testing.assert_allclose(F[:, 0], [2 / 4, 1 / 4, 2 / 4])
    # a failure never counts, however large t
    assert F[1, -1] == 3 / 4
    L = np.array([[10.0, 12.0], [7.0, 5.0]])
    np.testing.assert_allclose(gap_cdf(L, t, higher_is_better=False), my_gap_cdf(L, t, higher=False))


def test_performance_profile_matches_dolan_more():
    from olctc.bench.metrics import performance_profile

    c = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, np.nan], [10.0, 5.0, 20.0], [2.0, np.inf, 1.0]])
    taus = np.array([1.0, 1.5, 2.0, 3.0, 4.0, 1e6])
    rho = performance_profile(c, taus)
    mine = np.zeros_like(rho)
    for i in range(c.shape[0]):
        best = np.nanmin(np.where(np.isfinite(c[i]), c[i], np.nan))
        for m in range(c.shape[1]):
            if np.isfinite(c[i, m]):
                mine[m] += (c[i, m] / best) <= taus
    mine /= c.shape[0]
    np.testing.assert_allclose(rho, mine)
    np.testing.assert_allclose(rho[:, 0], [2 / 4, 2 / 4, 1 / 4])  # rho(1): fraction where best
    assert rho[2, -1] == 3 / 4  # lim rho = fraction solved (one failure)


def test_cv_grids_are_the_papers():
    from itertools import product

    from olctc.bench.experiments import C_GRID, EXPERIMENTS, cv_grid

    models = EXPERIMENTS["models"]
    assert C_GRID == tuple(10.0 ** i for i in range(-2, 3))
    olct = cv_grid(models.model("OLCT"), 2, C_GRID)
    assert len(olct) == 25 and {tuple(g["C"]) for g in olct} == set(product(C_GRID, repeat=2))
    assert len(cv_grid(models.model("MARGOT"), 2, C_GRID)) == 25
    sfs = cv_grid(models.model("SFS-MARGOT"), 2, C_GRID)
    assert len(sfs) == 27
    assert {tuple(g["C"]) for g in sfs} == set(product((0.01, 1.0, 100.0), repeat=2))
    assert {g["alpha"] for g in sfs} == {0.1, 1.0, 10.0}
    octh = cv_grid(models.model("OCT-H"), 2, C_GRID)
    assert sorted(g["alpha"] for g in octh) == sorted([2.0 ** i for i in range(-8, 3)] + [0.0])
    # depth 3: one C per layer, 5^3 configurations
    assert len(cv_grid(EXPERIMENTS["depth3"].model("OLCT"), 3, C_GRID)) == 125


def test_experiment_settings_are_the_papers():
    from olctc.bench.experiments import EXPERIMENTS

    prelim = {"parkinsons", "wholesale", "tic-tac-toe", "haberman", "sonar"}
    uci10 = {"breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf",
             "tic-tac-toe", "wholesale"}
    tan, ph, mo = EXPERIMENTS["tangents"], EXPERIMENTS["phases"], EXPERIMENTS["models"]
    assert set(tan.datasets) == prelim and set(ph.datasets) == prelim and set(mo.datasets) == uci10
    for e in (tan, ph, mo):
        assert e.depth == 2 and len(e.seeds) == 5
    assert [m.tangents for m in tan.models if m.name in tan.defaults] == ["V0", "V1", "V2"]
    assert all(m.refine and m.preset == "olct" for m in tan.models)
    assert ph.models[0].outputs == ("OLCT-W", "OLCT-V0", "OLCT-V0R")
    assert EXPERIMENTS["depth3"].depth == 3 and len(EXPERIMENTS["depth3"].seeds) == 1
    assert set(EXPERIMENTS["depth3"].datasets) == {"parkinsons", "wholesale", "haberman", "ionosphere", "spectf"}
    assert EXPERIMENTS["large"].depth == 2 and len(EXPERIMENTS["large"].seeds) == 1
    assert {"OLCT", "MARGOT", "OCT-H"} <= set(EXPERIMENTS["large"].defaults)
    assert {"OLCT", "MARGOT", "SFS-MARGOT", "OCT-H"} <= set(mo.defaults)


def _task(models, seed=0, time_limit=5.0):
    from olctc.bench.options import make_options
    from olctc.bench.tasks import make_tasks

    opts = make_options("models", datasets="haberman", seeds=str(seed), models=models, time_limit=time_limit)
    return make_tasks(opts)


def test_bench_split_standardisation_and_test_balanced_accuracy(monkeypatch):
    """CART and OLCT runs of the bench, checked against an own 80/20 stratified split, scaler and bAcc."""
    import olctc.fit as olctc_fit
    from olctc.bench.tasks import execute_task

    seed = 42
    ds = load("haberman")
    rows = np.arange(ds.n)
    tr, te = train_test_split(rows, test_size=0.2, random_state=seed, stratify=ds.y)
    tr, te = np.sort(tr), np.sort(te)
    assert te.size == math.ceil(0.2 * ds.n)

    (cart_task,) = _task("CART", seed)
    (rec,) = execute_task(cart_task)
    clf = DecisionTreeClassifier(max_depth=2, random_state=seed).fit(ds.X[tr], ds.y[tr])
    assert rec["test_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(ds.y[te], clf.predict(ds.X[te])))

    seen = {}
    real_fit = olctc_fit.fit

    def spy(d, spec, **kw):
        out = real_fit(d, spec, **kw)
        seen.update(ds=d, res=out, spec=spec, kw=kw)
        return out

    monkeypatch.setattr(olctc_fit, "fit", spy)
    (olct_task,) = _task("OLCT", seed)
    (rec,) = execute_task(olct_task)
    assert rec.get("status") != "error", rec.get("error")
    d, tree = seen["ds"], seen["res"].tree
    # trained on exactly the training rows, and nothing split again inside the fit
    np.testing.assert_array_equal(d.X, ds.X[tr])
    assert seen["kw"]["test_size"] == 0.0 and rec["n_test"] == te.size
    # standardisation fitted on the training part only: W_raw = W / std_train, b_raw = b - W mu / std
    sc = StandardScaler().fit(ds.X[tr])
    np.testing.assert_allclose(tree.W_raw, tree.W / sc.scale_, rtol=1e-10)
    np.testing.assert_allclose(tree.b_raw, tree.b - (tree.W / sc.scale_) @ sc.mean_, rtol=1e-10, atol=1e-12)
    # test balanced accuracy, recomputed from the standardised tree on the test rows
    last, S = route(tree.W, tree.b, sc.transform(ds.X[te]), 2)
    pred = np.where(S[np.arange(te.size), last] > 0, 1, -1)
    assert rec["test_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(ds.y[te], pred))
    # C from the authors' table (haberman: root C_1, last layer C_2), exact objective recomputed
    from olctc.bench.experiments import fixed_C_table

    assert tuple(rec["C"]) == fixed_C_table()["haberman"]
    Xtr = sc.transform(ds.X[tr])
    assert rec["exact_objective"] == pytest.approx(
        my_objective(tree.W, tree.b, Xtr, ds.y[tr].astype(float), rec["C"], 2), rel=1e-9)


def test_time_profile_treats_unsolved_runs_as_failures(monkeypatch, tmp_path):
    """Runs stopped by the time limit (not proven optimal) counted as solved in their time: every curve
    reached 1. The paper's profile (Sec. 5.3: 'no model was able to close the optimality gap in more than
    70% of the instances'; lim rho = the fraction solved) gives them eta_M."""
    from olctc.bench import report

    recs = []
    for i, (s_a, s_b) in enumerate([(("optimal", 2.0), ("optimal", 4.0)),
                                    (("feasible", 300.0), ("optimal", 10.0)),
                                    (("optimal", 5.0), ("feasible", 300.0))]):
        for model, (status, t) in zip(("A", "B"), (s_a, s_b)):
            recs.append({"dataset": "d", "seed": i, "model": model, "status": status, "time_solve": t,
                         "test_balanced_accuracy": 0.5})
    got = {}
    monkeypatch.setattr(report, "_plot", lambda path, x, Y, *a, **k: got.update(x=x, Y=Y))
    report.fig_time(tmp_path / "t.png", recs, ["A", "B"])
    # each model closed the gap on 2 of 3 instances: its profile must never exceed 2/3
    assert got["Y"].max() <= 2 / 3 + 1e-12
