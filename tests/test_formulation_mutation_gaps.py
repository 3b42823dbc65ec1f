"""Paths of the model builder that a mutation pass over olctc/formulation/, compile.py and spec.py found unpinned.

The golden files and tests/test_independent_build.py pin the default options entry for entry; these tests pin
the other paths (L0 budgets and penalties, OCT-H, class and point weights, --min-leaf, score variables, custom
tangent lists, per-layer C, depths 1 and 3, big-M and epsilon) by independent cross-checks: the compiled model
is solved in process by HiGHS (one thread, tight tolerances, through highspy directly, not olctc.solve), and
its optimum is compared with the objective recomputed here in numpy from the solution's (w, b) with the true
routing and the stated loss pieces, or with an enumeration, or a row is checked against the formula by hand.
Each test's comment names the mutant it kills ("a builder that ..."): these were mutants, not bugs seen in olctc.
Data: real (vendored haberman, 3 features), a few rows.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from conftest import highs_of, run_highs
from olctc.compile import check_size, compile_problem
from olctc.datasets import load
from olctc.formulation import build_milp
from olctc.milp import MILP
from olctc.spec import make_spec

highspy = pytest.importorskip("highspy")

ROWS = np.array([0, 7, 8, 24, 33, 40, 43, 52, 61, 62, 70, 85, 90, 104, 110, 130])  # 16 haberman points


def data(rows: np.ndarray = ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Haberman rows standardised here (population standard deviation), labels in {-1, +1}."""
    ds = load("haberman")
    X, y = ds.X[rows].astype(float), ds.y[rows].astype(float)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), y


def solve(milp: MILP, fixed: dict[int, float] | None = None) -> tuple[float, np.ndarray]:
    """HiGHS's optimum (objective, x) of ``milp`` (conftest's ``highs_of``, the dual tolerance tight too for the
    QPs); ``fixed`` columns are fixed and made continuous (so that an MIQP with every integer fixed is a convex
    QP HiGHS solves)."""
    h = highs_of(milp, time_limit=20.0, fixed=fixed)
    h.setOptionValue("dual_feasibility_tolerance", 1e-9)
    run_highs(h)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.modelStatusToString(h.getModelStatus())
    return h.getInfo().objective_function_value + milp.obj_constant, np.array(h.getSolution().col_value)


def tree_of(milp: MILP, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return milp.values(x, "w"), milp.values(x, "b")


def route(scores: np.ndarray, depth: int, eps: float) -> np.ndarray:
    """(n, depth) node of each point at each layer: left iff score <= eps / 2 (the model has <= 0 or >= eps)."""
    n = scores.shape[0]
    path = np.zeros((n, depth), dtype=int)
    t = np.zeros(n, dtype=int)
    for h in range(depth):
        path[:, h] = t
        t = 2 * t + 1 + (scores[np.arange(n), t] > eps / 2)
    return path


def logistic_pieces(points: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """(g, c): the tangent of f(v) = log(1 + e^-v) at v is c - g u, g = 1 / (1 + e^v), c = f(v) + g v; -inf: -u."""
    g = [1.0 if v == -math.inf else 1.0 / (1.0 + math.exp(v)) for v in points if v != math.inf]
    c = [0.0 if v == -math.inf else math.log1p(math.exp(-v)) + gv * v
         for v, gv in zip([v for v in points if v != math.inf], g)]
    return np.array(g), np.array(c)


def tangent_objective(W, b, X, y, C, g, c, eps=1e-5, weights=None):
    """sum_h C_h sum_i s_i max(0, max_k c_k - g_k y_i score_{path(i,h)}) with the true routing."""
    S = X @ W.T + b
    path = route(S, len(C), eps)
    s = np.ones(len(y)) if weights is None else weights
    total = 0.0
    for h, Ch in enumerate(C):
        u = y * S[np.arange(len(y)), path[:, h]]
        total += Ch * float(s @ np.maximum(0.0, np.max(c[None, :] - g[None, :] * u[:, None], axis=1)))
    return total


def nnz(W: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    return (np.abs(W) > tol).sum(axis=1)


# ---------------------------------------------------------------- L0: hard budget (olct-univariate, margot-hfs)


@pytest.mark.parametrize("budget", [1, 2])
def test_univariate_budget_bounds_each_split_and_prices_the_l1(budget):
    """A budget row whose right-hand side is B + 1, or a spec whose effective budget ignores --budget (the preset's
    default 1 winning): every node of the optimum uses at most B features, the budget rows say B, and B = 2 does
    strictly better than B = 1 here. The optimum is the L1 norm plus the V0 loss recomputed from (w, b)."""
    X, y = data()
    C = [10.0, 10.0]
    spec = make_spec("olct-univariate", 2, C=C, budget=budget)
    milp = build_milp(X, y, spec)
    blk = milp.row_block("budget")
    assert (milp.rhs[blk.slice] == budget).all() and (milp.sense[blk.slice] == "L").all()
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    assert nnz(W).max() <= budget
    g, c = logistic_pieces([-math.inf, 0.0, math.inf])
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, C, g, c), rel=1e-6, abs=1e-6)
    if budget == 2:
        assert nnz(W).max() == 2
        obj1, _ = solve(build_milp(X, y, make_spec("olct-univariate", 2, C=C, budget=1)))
        assert obj < obj1 - 1e-3


def test_a_budget_of_p_is_accepted_and_is_the_olct_optimum():
    """A size check that refuses budget = p (``>=`` for ``>``): a budget of every feature is allowed, and bounds
    nothing: the optimum is olct's."""
    X, y = data()
    assert check_size(16, 3, make_spec("olct-univariate", 2, budget=3)).rows > 0
    with pytest.raises(Exception, match="budget"):
        check_size(16, 3, make_spec("olct-univariate", 2, budget=4))
    o_uni, _ = solve(build_milp(X, y, make_spec("olct-univariate", 2, C=10.0, budget=3)))
    o_olct, _ = solve(build_milp(X, y, make_spec("olct", 2, C=10.0)))
    assert o_uni == pytest.approx(o_olct, rel=1e-7, abs=1e-7)


# ---------------------------------------------------------------- L0: soft budget and L2 (margot-sfs, MIQP)


def test_margot_sfs_by_enumerating_the_feature_patterns():
    """An SFS row with right-hand side B - 1 or excess coefficient -2, excess costing 1 instead of alpha, delta
    costing alpha under SFS, Q = 2I (||w||^2 for 1/2 ||w||^2) or a Q that leaves the last weight unpenalised:
    for each of the 8 feature patterns of the one node of depth 1 (delta fixed), HiGHS's QP optimum equals
    1/2 ||w||^2 + C sum hinge + alpha max(0, |pattern| - B), recomputed from (w, b)."""
    X, y = data()
    C, alpha, B = 2.0, 0.3, 1
    milp = build_milp(X, y, make_spec("margot-sfs", 1, C=C, alpha=alpha, budget=B))
    dblk, zblk = milp.col_block("delta"), milp.col_block("z")
    assert milp.integer.sum() == dblk.size + zblk.size
    best = math.inf
    for pattern in itertools.product([0.0, 1.0], repeat=3):
        fixed = {dblk.start + j: pattern[j] for j in range(3)}
        fixed |= {j: 1.0 for j in range(zblk.start, zblk.stop)}  # one last-layer node: every z is 1
        obj, x = solve(milp, fixed)
        W, b = tree_of(milp, x)
        assert (np.abs(W[0][np.array(pattern) == 0]) <= 1e-9).all()
        hinge = np.maximum(0.0, 1.0 - y * (X @ W[0] + b[0])).sum()
        want = 0.5 * float(W[0] @ W[0]) + C * hinge + alpha * max(0.0, sum(pattern) - B)
        assert obj == pytest.approx(want, rel=1e-6, abs=1e-6), pattern
        best = min(best, obj)
    assert best < math.inf


def test_margot_hfs_budget_rows_by_hand():
    """margot-hfs with --budget 2: the budget rows' right-hand side is the B given (not the preset's default),
    each row sums the node's deltas with coefficient 1, and l0 rows are -M delta <= w <= M delta at the given M."""
    X, y = data()
    milp = build_milp(X, y, make_spec("margot-hfs", 2, budget=2, big_m=37.0))
    A = milp.A.tocsr()
    blk, dblk, wblk = milp.row_block("budget"), milp.col_block("delta"), milp.col_block("w")
    for t in range(3):
        r = blk.start + t
        row = A[r]
        assert milp.rhs[r] == 2.0 and milp.sense[r] == "L"
        assert sorted(row.indices) == list(range(dblk.start + 3 * t, dblk.start + 3 * t + 3))
        assert (row.data == 1.0).all()
    for name, sense in (("l0_up", "L"), ("l0_lo", "G")):
        rb = milp.row_block(name)
        for k in range(9):
            row = A[rb.start + k]
            assert dict(zip(row.indices, row.data)) == {wblk.start + k: 1.0,
                                                        dblk.start + k: -37.0 if sense == "L" else 37.0}
            assert milp.sense[rb.start + k] == sense and milp.rhs[rb.start + k] == 0.0


# ---------------------------------------------------------------- OCT-H


@pytest.mark.parametrize("depth", [1, 2])
def test_oct_h_optimum_is_errors_plus_alpha_times_features(depth):
    """OCT-H's rows with the epsilon dropped from mis_lo (w = 0, b = 0 then labels every point right for free),
    q with coefficient -M for -2M, the err rows' right-hand sides swapped, or the norm bound at 2: the optimum
    equals C_d * (errors of the decoded tree, positive iff score >= eps / 2 at the last layer) + alpha * ||w||_0,
    recomputed from (w, b), each node keeps sum_j |w_j| <= 1, and the norm rows say so by hand."""
    X, y = data()
    C, alpha, eps = [1.0] * (depth - 1) + [2.0], 0.25 if depth == 1 else 1.5, 1e-3
    spec = make_spec("oct-h", depth, C=C, alpha=alpha, epsilon=eps)
    milp = build_milp(X, y, spec)
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    assert (np.abs(W).sum(axis=1) <= 1 + 1e-7).all()
    S = X @ W.T + b
    leaf = route(S, depth, eps)[:, -1]
    pred = np.where(S[np.arange(len(y)), leaf] > eps / 2, 1.0, -1.0)
    errors = int((pred != y).sum())
    assert 0 < errors < len(y)
    assert obj == pytest.approx(C[-1] * errors + alpha * nnz(W).sum(), abs=1e-6)
    # the optimum need not reach the norm bound: its rows by hand, sum_j w_pos_tj + w_neg_tj <= 1
    A, rb = milp.A.tocsr(), milp.row_block("norm")
    pos, neg = milp.col_block("w_pos"), milp.col_block("w_neg")
    for t in range(2 ** depth - 1):
        row = A[rb.start + t]
        want = {blk.start + 3 * t + j for blk in (pos, neg) for j in range(3)}
        assert set(row.indices) == want and (row.data == 1.0).all()
        assert milp.sense[rb.start + t] == "L" and milp.rhs[rb.start + t] == 1.0


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize("class_weight", [(0.5, 3.0), "balanced"])
def test_class_and_point_weights_price_each_layer(class_weight):
    """Weights tiled the wrong way over the layers (repeat for tile), the class weights swapped, "balanced"
    swapped between the classes or counting points rather than their weights, point weights dropped: the
    optimum equals sum_h C_h sum_i s_i loss_{h,i}, s_i = class weight x point weight, worked out here."""
    X, y = data()
    r = np.random.default_rng(3).integers(1, 4, size=len(y)).astype(float)
    C = [1.0, 4.0]
    spec = make_spec("olct", 2, C=C, tangents="V1", class_weight=class_weight)
    milp = build_milp(X, y, spec, sample_weight=r)
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    if class_weight == "balanced":
        cw = {c: r.sum() / (2 * r[y == c].sum()) for c in (-1.0, 1.0)}
    else:
        cw = {-1.0: class_weight[0], 1.0: class_weight[1]}
    s = np.array([cw[v] for v in y]) * r
    g, c = logistic_pieces([-math.inf, -1.9, 0.0, 1.9, math.inf])
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, C, g, c, weights=s), rel=1e-6)
    xi = milp.col_block("xi")
    assert np.allclose(milp.c[xi.slice].reshape(2, -1), np.outer(C, s))


def test_compile_keeps_point_weights_and_the_weighted_scaler():
    """compile dropping the point weights on the way to the builder, or standardising unweighted: the xi costs
    are C times each point's weight, and the data compiled standardise to weighted mean 0."""
    ds = load("haberman").subset(ROWS)
    r = np.arange(1.0, 17.0) % 3 + 1.0
    ds.weight = r
    comp = compile_problem(ds, make_spec("olct", 2, C=[1.0, 2.0]))
    xi = comp.milp.col_block("xi")
    assert np.allclose(comp.milp.c[xi.slice].reshape(2, -1), np.outer([1.0, 2.0], r))
    assert np.allclose(r @ comp.X / r.sum(), 0.0, atol=1e-12)
    assert np.allclose(r @ comp.X ** 2 / r.sum(), 1.0)


# ---------------------------------------------------------------- min leaf


def test_min_leaf_is_met_by_the_optimum():
    """leaf_min rows at N - 1, leaf_max at n - 1, or a single C broadcast to the root only (later layers 1): the
    optimum's last-layer nodes (true routing) each hold 0 or at least N points, its objective is recomputed with
    C = 10 at both layers, the rows say N and n by hand, and the tree holding every point in one node is
    feasible."""
    X, y = data()
    N, n = 6, len(y)
    spec = make_spec("olct", 2, C=10.0, min_leaf=N)
    milp = build_milp(X, y, spec)
    for name, size in (("leaf_min", N), ("leaf_max", n)):
        rb = milp.row_block(name)
        used = milp.col_block("used")
        for k in range(2):
            row = milp.A.tocsr()[rb.start + k]
            vals = dict(zip(row.indices, row.data))
            assert vals.pop(used.start + k) == -size
            assert sorted(vals.values()) == [1.0] * n
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    leaf = route(X @ W.T + b, 2, spec.epsilon)[:, -1]
    counts = np.bincount(leaf, minlength=3)[1:]
    assert all(k == 0 or k >= N for k in counts), counts
    g, c = logistic_pieces([-math.inf, 0.0, math.inf])  # C = 10 broadcast to both layers
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, [10.0, 10.0], g, c), rel=1e-6)
    # every point in node 1 (root all left, node 2 empty) is a point of the model
    z = milp.col_block("z")
    fixed = {z.start + i: 1.0 for i in range(n)} | {z.start + n + i: 0.0 for i in range(n)}
    solve(milp, fixed)


def test_min_leaf_two_is_modelled():
    """A spec that adds the min-leaf rows only above 2: min_leaf = 2 at depth 2 has them (1 and depth 1 add
    nothing)."""
    X, y = data()
    assert build_milp(X, y, make_spec("olct", 2, min_leaf=2)).has_col_block("used")
    assert not build_milp(X, y, make_spec("olct", 2, min_leaf=1)).has_col_block("used")
    assert not build_milp(X, y, make_spec("olct", 1, min_leaf=2)).has_col_block("used")


# ---------------------------------------------------------------- score variables, depths, tangents, big-M


def test_score_variables_change_the_form_not_the_optimum():
    """Score rows with a wrong coefficient, or rows that read another point's score column: the score form has
    the paper form's optimum, and each s_{t,i} is w_t.x_i + b_t."""
    X, y = data()
    spec = make_spec("olct", 2, C=[1.0, 5.0], tangents="V1", score_variables=True)
    milp = build_milp(X, y, spec)
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    s = milp.values(x, "s")
    assert np.allclose(s, (X @ W.T + b).T, atol=1e-6)
    obj0, _ = solve(build_milp(X, y, make_spec("olct", 2, C=[1.0, 5.0], tangents="V1")))
    assert obj == pytest.approx(obj0, rel=1e-6)


def test_depth_three_optimum_is_the_recomputed_objective():
    """Depth 3 (a middle layer): a subtree of half width in the loss rows, routing rows missing at layer 2, or
    left/right halves swapped or split off by one: the optimum equals the L1 norm plus
    sum_h C_h loss recomputed with the true routing (custom tangents, per-layer C)."""
    X, y = data(ROWS[:12])
    C = [1.0, 2.0, 8.0]
    pts = [-math.inf, -1.0, 0.5, math.inf]
    spec = make_spec("olct", 3, C=C, tangents=pts, big_m=30.0, epsilon=1e-3)
    milp = build_milp(X, y, spec)
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    S = X @ W.T + b
    path = route(S, 3, 1e-3)
    z = milp.values(x, "z")  # (last nodes, points)
    assert (np.argmax(z, axis=0) + 3 == path[:, -1]).all()
    for h in range(2):  # every routing score obeys <= 0 or >= epsilon
        sc = S[np.arange(len(y)), path[:, h]]
        assert ((sc <= 1e-7) | (sc >= 1e-3 - 1e-7)).all()
    g, c = logistic_pieces(pts)
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, C, g, c, eps=1e-3), rel=1e-6)


@pytest.mark.parametrize("tangents", [[-1.9, 0.0, 1.9], [-math.inf, 0.7, math.inf]])
def test_custom_tangents_at_depth_one(tangents):
    """A -inf tangent dropped with +inf, the -inf line's intercept not 0, or tangents at -v: at depth 1 the optimum
    equals ||w||_1 + C sum max(0, max_k c_k - g_k u) (xi >= 0 kept without +inf in the list)."""
    X, y = data()
    spec = make_spec("olct", 1, C=3.0, tangents=tangents)
    milp = build_milp(X, y, spec)
    obj, x = solve(milp)
    W, b = tree_of(milp, x)
    g, c = logistic_pieces(tangents)
    assert obj == pytest.approx(np.abs(W).sum() + tangent_objective(W, b, X, y, [3.0], g, c), rel=1e-6)
    assert milp.obj_constant == 0.0


def test_balanced_weighs_a_class_of_one_point():
    """"balanced" that gives up (unweighted) when a class has a single point: 1 positive of 8 weighs 8 / 2 = 4,
    each negative 8 / 14, in every layer's xi costs (C = 1, 3)."""
    X, y = data(ROWS[:8])
    y = np.where(np.arange(8) == 5, 1.0, -1.0)
    milp = build_milp(X, y, make_spec("olct", 2, C=[1.0, 3.0], class_weight="balanced"))
    s = np.where(y > 0, 4.0, 8.0 / 14.0)
    xi = milp.col_block("xi")
    assert np.allclose(milp.c[xi.slice].reshape(2, -1), np.outer([1.0, 3.0], s))
