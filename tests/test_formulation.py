"""The formulation against independent computations.

- brute force: on tiny data, enumerate every routing of the points (and every feature choice for the
  univariate preset); for each, the problem is an LP written here from scratch with dense matrices;
  the best LP must equal the MILP optimum (HiGHS at tight tolerances);
- the MILP optimum equals the objective recomputed in numpy from the decoded (w, b);
- structural facts: names, block map, sizes, depth 1.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from olctc.compile import estimate_size
from olctc.formulation import build_milp
from olctc.formulation.losses import tangent_lines
from olctc.formulation.topology import Topology
from olctc.objective import tree_objective
from olctc.spec import PRESETS, make_spec

from conftest import solve_highs_arrays


def tiny(n: int = 5, p: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=n) > 0, 1, -1)
    if abs(y.sum()) == n:
        y[0] = -y[0]
    return X, y


def brute_force(X: np.ndarray, y: np.ndarray, spec) -> float:
    """min over routings (and L0 supports) of an LP written independently of olctc.formulation."""
    n, p = X.shape
    topo = Topology(spec.depth)
    T, d = topo.n_nodes, spec.depth
    g, c = tangent_lines(spec)
    nw = T * p
    # variables: w (T*p), b (T), a (T*p) with |w| <= a, xi (d*n)
    nv = nw + T + nw + d * n
    cost = np.zeros(nv)
    cost[nw + T: nw + T + nw] = 1.0
    for h in range(d):
        cost[2 * nw + T + h * n: 2 * nw + T + (h + 1) * n] = spec.C[h]

    def score_row(t: int, i: int, coef: float) -> np.ndarray:
        row = np.zeros(nv)
        row[t * p:(t + 1) * p] = coef * X[i]
        row[nw + t] = coef
        return row

    supports = [None]
    if spec.info.l0 == "hfs":
        choices = [()] + [(j,) for j in range(p)]
        supports = list(itertools.product(choices, repeat=T))
    best = math.inf
    for leaves in itertools.product(topo.last, repeat=n):
        A, ub = [], []
        for k in range(nw):  # w - a <= 0, -w - a <= 0
            r = np.zeros(nv); r[k] = 1; r[nw + T + k] = -1; A.append(r); ub.append(0.0)
            r = np.zeros(nv); r[k] = -1; r[nw + T + k] = -1; A.append(r); ub.append(0.0)
        for i, s in enumerate(leaves):
            path = []
            t = int(s)
            while t >= 0:
                path.append(t)
                t = (t - 1) // 2 if t > 0 else -1
            path = path[::-1]  # root .. s
            for h, t in enumerate(path):
                if h < d - 1:  # route to the child on the path
                    right = path[h + 1] == 2 * t + 2
                    if right:
                        A.append(score_row(t, i, -1.0)); ub.append(-spec.epsilon)
                    else:
                        A.append(score_row(t, i, 1.0)); ub.append(0.0)
                for gk, ck in zip(g, c):  # xi >= ck - gk * y * score
                    r = score_row(t, i, -gk * y[i])
                    r[2 * nw + T + h * n + i] = -1.0
                    A.append(r); ub.append(-ck)
        A = np.array(A); ub = np.array(ub)
        for sup in supports:
            bounds = [(None, None)] * (nw + T) + [(0, None)] * (nw + d * n)
            if sup is not None:
                for t in range(T):
                    for j in range(p):
                        if j not in sup[t]:
                            bounds[t * p + j] = (0, 0)
            res = linprog(cost, A_ub=A, b_ub=ub, bounds=bounds, method="highs")
            if res.status == 0:
                best = min(best, res.fun)
    return best


@pytest.mark.parametrize("preset,depth,tangents,score_variables", [
    ("olct", 1, "V0", False), ("olct", 2, "V0", False), ("olct", 2, "V1", False), ("olct", 3, "V0", False),
    ("olct-univariate", 2, "V0", False), ("olct", 2, "V1", True), ("olct", 3, "V0", True),
    ("olct-univariate", 2, "V0", True),
])
def test_milp_optimum_equals_brute_force(preset, depth, tangents, score_variables):
    X, y = tiny(n=5 if depth < 3 else 4)
    spec = make_spec(preset, depth, C=[1.0, 2.0, 0.5][:depth], tangents=tangents,
                     score_variables=score_variables)
    milp = build_milp(X, y, spec)
    obj, x = solve_highs_arrays(milp)
    expected = brute_force(X, y, spec)
    assert obj == pytest.approx(expected, rel=1e-6, abs=1e-7)
    W, b = milp.values(x, "w"), milp.values(x, "b")
    assert np.abs(X @ W.T + b).max() <= spec.big_m + 1e-6  # relaxed rows hold
    rec = tree_objective(W, b, X, y, spec, threshold=spec.epsilon / 2)
    assert rec.total == pytest.approx(obj, rel=1e-6, abs=1e-7)


def _alpha(preset: str) -> float:
    """A small L0 weight where the preset has one (the others refuse a value other than the default)."""
    return 0.05 if PRESETS[preset].uses_alpha else 1.0


@pytest.mark.parametrize("preset", [p for p in PRESETS if not PRESETS[p].quadratic])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_optimum_matches_recomputed_objective(preset, depth):
    X, y = tiny(n=9, p=3, seed=depth)
    spec = make_spec(preset, depth, C=2.0, alpha=_alpha(preset))
    milp = build_milp(X, y, spec)
    obj, x = solve_highs_arrays(milp)
    assert max(milp.violation(x).values()) < 1e-6
    W, b = milp.values(x, "w"), milp.values(x, "b")
    rec = tree_objective(W, b, X, y, spec, threshold=spec.epsilon / 2)
    assert rec.total == pytest.approx(obj, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("preset", [p for p in PRESETS if not PRESETS[p].quadratic])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_score_variables_keep_the_optimum(preset, depth):
    X, y = tiny(n=8, p=3, seed=10 + depth)
    tangents = "V1" if PRESETS[preset].uses_tangents else "V0"  # the others refuse any but the default
    inline = make_spec(preset, depth, C=2.0, alpha=_alpha(preset), tangents=tangents)
    scored = make_spec(preset, depth, C=2.0, alpha=_alpha(preset), tangents=tangents, score_variables=True)
    m0, m1 = build_milp(X, y, inline), build_milp(X, y, scored)
    obj0, _ = solve_highs_arrays(m0)
    obj1, x1 = solve_highs_arrays(m1)
    assert obj1 == pytest.approx(obj0, rel=1e-6, abs=1e-7)
    W, b = m1.values(x1, "w"), m1.values(x1, "b")
    np.testing.assert_allclose(m1.values(x1, "s"), (X @ W.T + b).T, atol=1e-6)
    # every x_i is written once per node: routing and loss rows hold s, not w and b
    w, bb = m1.col_block("w").slice, m1.col_block("b").slice
    uses_scores = [blk for blk in m1.row_blocks
                   if blk.name in ("route_l", "route_r", "loss", "hinge", "mis_up", "mis_lo")]
    assert uses_scores
    for blk in uses_scores:
        rows = m1.A[blk.start:blk.start + blk.size]
        assert rows[:, w].nnz == 0 and rows[:, bb].nnz == 0, blk.name
        assert rows[:, m1.col_block("s").slice].nnz == blk.size, blk.name


def test_oct_h_is_not_degenerate_at_zero_weights():
    # with ">= 0" on the positive side, w = 0, b = 0 scored every point 0 and q labelled all correctly
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1, 1, -1, -1])  # XOR: one hyperplane gets at most 3 of 4 right
    spec = make_spec("oct-h", 1, C=1.0, alpha=0.0)
    milp = build_milp(X, y, spec)
    obj, x = solve_highs_arrays(milp)
    W, b = milp.values(x, "w"), milp.values(x, "b")
    errors = np.sum(((X @ W[0] + b[0]) > spec.epsilon / 2) != (y > 0))
    assert obj == pytest.approx(errors)
    assert errors == 1


def test_names_and_blocks():
    X, y = tiny(n=4, p=3)
    milp = build_milp(X, y, make_spec("olct", 2))
    cols = milp.col_names()
    assert cols[0] == "w_0_0" and "w_pos_2_1" in cols and "z_1_3" in cols and "xi_2_0" in cols
    rows = milp.row_names()
    assert rows[0] == "assign_0" and "route_l_0_3" in rows and "route_r_0_0" in rows and "loss_2_1_3" in rows
    assert len(set(cols)) == len(cols) and len(set(rows)) == len(rows)
    assert max(map(len, cols)) <= 64
    z = milp.col_block("z")
    assert z.shape == (2, 4) and z.labels[0] == (1, 2)
    assert milp.integer[z.slice].all() and not milp.integer[milp.col_block("w").slice].any()


@pytest.mark.parametrize("score_variables, min_leaf", [(False, 0), (True, 0), (False, 2)])
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_size_estimate_is_exact(preset, depth, score_variables, min_leaf):
    X, y = tiny(n=6, p=3)
    spec = make_spec(preset, depth, tangents="V2" if PRESETS[preset].uses_tangents else "V0",
                     score_variables=score_variables, min_leaf=min_leaf)
    milp = build_milp(X, y, spec)
    est = estimate_size(6, 3, spec)
    assert (est.rows, est.cols) == (milp.n_rows, milp.n_cols)
    assert est.nonzeros >= milp.nnz


def test_quadratic_presets_have_identity_on_w():
    X, y = tiny()
    milp = build_milp(X, y, make_spec("margot", 2))
    w = milp.col_block("w")
    Q = milp.Q.toarray()
    assert np.array_equal(np.diag(Q)[w.slice], np.ones(w.size))
    assert Q.sum() == w.size


def test_compile_hints_at_score_variables_only_when_they_pay():
    from olctc.cli import _score_variables_hint

    a6a = make_spec("olct", 2)
    nnz = estimate_size(11220, 123, a6a).nonzeros
    hint = _score_variables_hint(11220, 123, a6a, nnz)
    assert hint == ("hint: --score-variables would write about 4,455,447 instead of 11,288,427 nonzeros "
                    "(same optimum, a 2.5x smaller file)")
    assert _score_variables_hint(11220, 123, make_spec("olct", 2, score_variables=True), 4_455_447) is None
    assert _score_variables_hint(297, 13, a6a, estimate_size(297, 13, a6a).nonzeros) is None  # small
    assert _score_variables_hint(200_000, 2, a6a, estimate_size(200_000, 2, a6a).nonzeros) is None  # p tiny


@pytest.mark.parametrize("edit, message", [
    (lambda X, y, w: (X, (y > 0).astype(float), w), r"y must hold labels -1 or \+1 .*; row \d+ holds 0$"),
    (lambda X, y, w: (X, y[:-1], w), r"y must hold one label per row of X \(5\); got shape \(4,\)$"),
    (lambda X, y, w: (X[0], y, w), r"X must be a 2-D array with one row per point; got shape \(2,\)$"),
    (lambda X, y, w: (np.where(np.arange(10).reshape(5, 2) == 3, np.inf, X), y, w),
     r"X must hold finite numbers; row 1, column 1 holds inf$"),
    (lambda X, y, w: (X, y, w[:3]), r"sample_weight must hold one weight per row of X \(5\); got shape \(3,\)$"),
    (lambda X, y, w: (X, y, np.where(np.arange(5) == 2, -1.0, w)),
     r"sample_weight must hold finite weights >= 0; row 2 holds -1.0$"),
    (lambda X, y, w: (X, y, np.where(np.arange(5) == 4, np.nan, w)),
     r"sample_weight must hold finite weights >= 0; row 4 holds nan$"),
])
def test_build_milp_refuses_inputs_that_give_a_wrong_model(edit, message) -> None:
    """build_milp, the library entry below compile: labels 0/1 built a model whose loss charged y_i = 0 times each
    score (every point free), solved without a word; a NaN cell or weight wrote "nan" coefficients. Each is refused,
    the first bad entry named."""
    from olctc.errors import OlctcError

    X, y, w = edit(*tiny(), np.ones(5))
    with pytest.raises(OlctcError, match="^build_milp: " + message):
        build_milp(X, y, make_spec("olct", 1), sample_weight=w)


def test_left_right_splits_an_inner_node_s_last_layer_nodes_in_two() -> None:
    """Each inner node's last-layer nodes, halved left and right (the routing rows' z columns); a last-layer node
    has no such halves and is refused (it gave an empty range and itself)."""
    topo = Topology(3)
    assert [topo.left_right(t) for t in topo.inner] == [((0, 2), (2, 4)), ((0, 1), (1, 2)), ((2, 3), (3, 4))]
    for t in (3, 6, -1):
        with pytest.raises(ValueError, match=rf"^left_right: node {t} is not an inner node of a depth-3 tree"):
            topo.left_right(t)
