"""Edges of decode, routing, objective, warm start and refinement that a mutation pass found unpinned.

Each test names the wrong behaviour it rules out ("a decoder that ..."): these were mutants of the code, not
bugs seen in olctc. Data are real (vendored heart, a subset where a MILP is solved) and the MILPs are solved
in process by HiGHS on one thread; a model whose (w, b) the test fixes is the compiled model with those
columns' bounds closed, so the solver's point is a point of the model itself (its rows are checked).
"""
from __future__ import annotations

import dataclasses
import functools
import warnings

import numpy as np
import pytest

from olctc.compile import Compiled, compile_problem
from olctc.data import Scaler
from olctc.datasets import load
from olctc.decode import Decoded, decode_arrays, rounding_slack, rounding_unit
from olctc.formulation import build_milp
from olctc.formulation.topology import Topology
from olctc.objective import big_m_limits, tree_objective
from olctc.refine import refine
from olctc.solve import solve_milp
from olctc.spec import make_spec
from olctc.tree import Tree
from olctc.warmstart import greedy_tree, score_cap, warm_start

ROWS = np.arange(0, 297, 9)  # 33 heart points: each MILP below solves in well under a second


@functools.lru_cache(maxsize=None)
def compiled(preset: str, depth: int, epsilon: float = 1e-5) -> Compiled:
    ds = load("heart")
    return compile_problem(ds.subset(ROWS), make_spec(preset, depth=depth, epsilon=epsilon))


def solve_fixed(comp: Compiled, W: np.ndarray | None = None, b: np.ndarray | None = None,
                nodes: list[int] | None = None) -> np.ndarray:
    """HiGHS's optimum of the compiled model with w and b of ``nodes`` (default all; row k of W, b for nodes[k])
    fixed at W, b; the point is checked against the model's own rows and bounds."""
    milp = comp.milp
    lb, ub = milp.lb.copy(), milp.ub.copy()
    if W is not None:
        wblk, bblk = milp.col_block("w"), milp.col_block("b")
        wc = np.arange(wblk.slice.start, wblk.slice.stop).reshape(wblk.shape)
        bc = np.arange(bblk.slice.start, bblk.slice.stop)
        for k, t in enumerate(range(W.shape[0]) if nodes is None else nodes):
            lb[wc[t]] = ub[wc[t]] = W[k]
            lb[bc[t]] = ub[bc[t]] = b[k]
    res = solve_milp(dataclasses.replace(milp, lb=lb, ub=ub), "highs", threads=1, time_limit=30, verbose=False)
    assert res.status == "optimal", res.status
    viol = milp.violation(res.x)
    assert max(viol["rows"], viol["bounds"], viol["integrality"]) <= 1e-9, viol
    return res.x


def decoded(comp: Compiled, x: np.ndarray) -> tuple[Decoded, Tree]:
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x, trusted=True)
    tree = Tree(W=dec.W, b=dec.b, scaler=comp.scaler, schema=comp.dataset.schema, classes=comp.dataset.classes)
    return dec, tree


def z_node(comp: Compiled, x: np.ndarray) -> np.ndarray:
    topo = Topology(comp.spec.depth)
    return topo.last[np.argmax(comp.milp.values(x, "z"), axis=0)]


# ---------------------------------------------------------------- routing and decoding


def test_a_score_at_the_threshold_goes_left():
    """A router that sends a score equal to the threshold right (``>=``): the rule is left iff score <= threshold,
    and the left child of t is 2t + 1."""
    assert Topology(2).route(np.zeros((4, 3))).tolist() == [1, 1, 1, 1]
    assert Topology(3).route(np.zeros((2, 7))).tolist() == [3, 3]
    assert Topology(2).route(np.full((1, 3), 0.5), threshold=0.5).tolist() == [1]
    assert Topology(2).route(np.full((1, 3), np.nextafter(0.5, 1.0)), threshold=0.5).tolist() == [2]


def test_a_zero_routing_node_decodes_to_the_models_routing():
    """A decoder that folds epsilon / 2 into a routing node's b with the wrong sign: the root at w = 0, b = 0 sends
    every point left in the MILP (right needs score >= epsilon), and the decoded tree must too, in
    Topology.route, Tree.apply and Tree.predict."""
    comp = compiled("olct", 2)
    p = comp.X.shape[1]
    x = solve_fixed(comp, np.zeros((1, p)), np.zeros(1), nodes=[0])
    assert np.array_equal(comp.milp.values(x, "w")[0], np.zeros(p)) and comp.milp.values(x, "b")[0] == 0.0
    z = z_node(comp, x)
    assert z.tolist() == [1] * ROWS.size
    dec, tree = decoded(comp, x)
    assert dec.report.disagreements == []
    assert Topology(2).route(comp.X @ dec.W.T + dec.b).tolist() == z.tolist()
    raw = comp.dataset.X
    assert tree.apply(raw).tolist() == z.tolist()
    # each point is predicted by the MILP's node: its score there (a logistic node's b is not folded)
    Wm, bm = comp.milp.values(x, "w"), comp.milp.values(x, "b")
    leaf_score = (comp.X @ Wm.T + bm)[np.arange(ROWS.size), z]
    expected = np.asarray(comp.dataset.classes)[(leaf_score > 0).astype(int)]
    assert tree.predict(raw).tolist() == expected.tolist()


def test_octh_predicts_by_the_midpoint_of_the_epsilon_band():
    """A decoder that leaves OCT-H's last-layer b unfolded: the MILP predicts +1 only at score >= epsilon and -1 at
    score <= 0, so the decoded tree splits at epsilon / 2: a new point scoring epsilon / 4 at the leaf is
    predicted negative, one scoring 3 epsilon / 4 positive."""
    eps = 1e-3
    comp = compiled("oct-h", 1, epsilon=eps)
    p = comp.X.shape[1]
    j = 2
    W = np.zeros((1, p))
    W[0, j] = 1.0  # ||w||_1 = 1: OCT-H's bound
    x = solve_fixed(comp, W, np.zeros(1))
    q = comp.milp.values(x, "q")
    assert np.array_equal(q, (comp.X[:, j] >= eps).astype(float))  # the MILP's own rule, at its optimum
    dec, tree = decoded(comp, x)
    assert dec.report.disagreements == []
    Xs = np.zeros((2, p))
    Xs[:, j] = [eps / 4, 3 * eps / 4]
    raw = comp.scaler.mean + Xs * comp.scaler.scale
    neg, pos = comp.dataset.classes
    assert tree.predict(raw).tolist() == [neg, pos]
    assert tree.decision_function(raw) == pytest.approx([-eps / 4, eps / 4], abs=1e-12)
    assert dec.b.tolist() == [-eps / 2]
    # the training points: the tree predicts what the MILP's q says
    assert tree.predict(comp.dataset.X).tolist() == np.asarray(comp.dataset.classes)[q.astype(int)].tolist()


def test_solver_round_off_in_a_weight_decodes_to_zero():
    """A decoder that keeps a solver's round-off weight (1e-14 where the L0 delta is 0): the univariate tree must
    decode with exactly one feature per node, as tree_objective and the MILP count it."""
    comp = compiled("olct-univariate", 2)
    milp = comp.milp
    x = solve_fixed(comp).copy()
    delta = milp.values(x, "delta")
    W = milp.values(x, "w")
    t, j = 0, int(np.flatnonzero(np.round(delta[0]) == 0)[0])
    assert W[t, j] == 0.0
    wblk = milp.col_block("w")
    x[wblk.slice.start + t * wblk.shape[1] + j] = 1e-14  # round-off a solver leaves
    if milp.has_col_block("w_pos"):
        pblk = milp.col_block("w_pos")
        x[pblk.slice.start + t * pblk.shape[1] + j] = 1e-14
    assert milp.violation(x)["rows"] <= 1e-13  # still the model's point, within any solver's tolerance
    dec, _ = decoded(comp, x)
    assert dec.W[t, j] == 0.0
    assert (dec.W != 0).sum(axis=1).tolist() == (np.round(delta) == 1).sum(axis=1).tolist()
    assert np.count_nonzero(dec.W[t]) == 1
    assert dec.report.disagreements == []


def test_rounding_slack_counts_points_at_the_midpoint():
    """A rounding_slack that looks for OCT-H's flipping points around epsilon instead of epsilon / 2 (raw weights
    split there): two points scoring exactly epsilon / 2 may flip under relative rounding u, one at epsilon
    cannot (it lies epsilon / 2 away, far beyond u times its score)."""
    eps = 1e-3
    spec = make_spec("oct-h", depth=1, epsilon=eps)
    X = np.array([[eps / 2], [eps / 2], [eps], [-1.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    W, b = np.array([[1.0]]), np.zeros(1)
    u = rounding_unit(6)
    assert rounding_slack(W, b, X, y, spec, u) == 2.0  # C = 1 per flipping point; OCT-H has no norm term
    assert rounding_slack(W, b, X, y, spec, 0.0) == 0.0


# ---------------------------------------------------------------- objective


def test_octh_score_zero_predicts_negative_as_the_milp():
    """A tree_objective that calls an OCT-H score of exactly 0 positive (``>=``): the MILP's q = 1 needs score >=
    epsilon, so at w = 0, b = 0 every point is predicted -1 and the errors are the positives; the MILP at that
    (w, b) has the same optimum."""
    comp = compiled("oct-h", 1)
    p = comp.X.shape[1]
    y = comp.dataset.y
    n_pos, n_neg = int((y > 0).sum()), int((y < 0).sum())
    assert n_pos != n_neg
    W, b = np.zeros((1, p)), np.zeros(1)
    parts = tree_objective(W, b, comp.X, y, comp.spec)
    assert parts.loss_per_layer.tolist() == [float(n_pos)]
    x = solve_fixed(comp, W, b)
    assert comp.milp.values(x, "q").tolist() == [0.0] * ROWS.size
    assert comp.milp.objective(x) == pytest.approx(parts.total, rel=1e-9)
    assert parts.total == pytest.approx(float(comp.spec.C[0]) * n_pos, rel=1e-12)


def test_a_score_at_the_lower_routing_limit_is_named():
    """A big_m_limits that puts the routing rows' lower limit at -M instead of epsilon - M: at epsilon 0.5, M 10, a
    root score of -9.5 sits at the limit of route_r (score >= epsilon - M) and must be reported."""
    spec = make_spec("olct", depth=2, big_m=10.0, epsilon=0.5)
    W = np.array([[1.0], [0.0], [0.0]])
    b = np.zeros(3)
    X = np.array([[3.0], [-9.5]])
    limit = big_m_limits(W, b, X, spec)
    assert (limit.points, limit.point, limit.node, limit.score) == (1, 1, 0, -9.5)
    assert big_m_limits(W, b, np.array([[3.0], [-9.4]]), spec).points == 0


# ---------------------------------------------------------------- warm start


def test_score_cap_keeps_epsilon_below_big_m():
    """A score_cap of M instead of M - epsilon (the routing rows hold a score not passed in [epsilon - M, M]). The
    greedy starts stay feasible either way (the band shift's margin covers epsilon): the cap itself is
    pinned."""
    assert score_cap(make_spec("oct-h", depth=2, big_m=10.0, epsilon=0.5)) == 9.5
    assert score_cap(make_spec("olct", depth=2, big_m=10.0, epsilon=0.5)) == 9.5  # V0's loss cap is M
    assert score_cap(make_spec("olct", depth=1)) == np.inf


def test_an_l0_start_keeps_every_weight_within_big_m():
    """A warm start that scales an L0 preset's weights into |w| <= M only when they exceed 2M: on heart with one
    feature shrunk by 100 (scores stay small, its weight grows) and C = 100, the univariate root's weight lies
    between M and 2M; the start must bring it to M and be feasible."""
    ds = load("heart")
    X = Scaler.fit(ds.X).transform(ds.X)
    X[:, 11] *= 0.01
    y = ds.y.astype(float)
    spec = make_spec("olct-univariate", depth=2, C=100.0)
    W, b = greedy_tree(X, y, spec)
    assert float(np.abs(W).max()) == pytest.approx(spec.big_m, rel=1e-12)
    assert float(np.abs(W).max()) <= spec.big_m
    milp = build_milp(X, y, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, info = warm_start(milp, X, y, spec)
    viol = milp.violation(x)
    assert viol["rows"] <= 1e-9 and viol["bounds"] == 0.0 and viol["integrality"] == 0.0
    assert np.array_equal(info["W"], W)


# ---------------------------------------------------------------- refinement


def test_refinement_weighs_points_as_duplicates():
    """A refinement that refits last-layer nodes without the points' weights: refining with weight 2 on every
    third heart point must land on the objective of refining the data with those points duplicated."""
    ds = load("heart")
    X = Scaler.fit(ds.X).transform(ds.X)
    y = ds.y.astype(float)
    spec = make_spec("olct", depth=2)
    W, b = greedy_tree(X, y, spec)
    dup = np.arange(0, y.size, 3)
    sw = np.ones(y.size)
    sw[dup] = 2.0
    _, _, weighted = refine(W, b, X, y, spec, sample_weight=sw)
    _, _, copies = refine(W, b, np.vstack([X, X[dup]]), np.concatenate([y, y[dup]]), spec)
    assert weighted.objective_before == pytest.approx(copies.objective_before, rel=1e-12)
    assert weighted.objective_after == pytest.approx(copies.objective_after, rel=1e-6)
    assert weighted.nodes_refit == copies.nodes_refit == [1, 2]
    assert weighted.objective_after < weighted.objective_before - 1.0
