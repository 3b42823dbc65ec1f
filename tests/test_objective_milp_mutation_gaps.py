"""Paths of olctc/objective.py, olctc/milp.py, olctc/fpenv.py and the loss pieces that a mutation pass found unpinned.

tree_objective is the cross-check of every solve, so it is checked here against two things it does not share code
with: the objective written out in numpy (the logistic's tangent lines from their formula, the hinge, the 0/1 loss,
the regularisers and L0 terms by hand), and HiGHS's optimum of the compiled model with the tree's (w, b) fixed (the
rest, z, xi, delta, excess, q, left to the solver). Each test's docstring names the mutant it kills ("an objective
that ..."): these were mutants of the code, not bugs seen in olctc. Data: real (vendored haberman, 3 features).
"""
from __future__ import annotations

import dataclasses
import math
import platform
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import highs_of, run_highs
from olctc import fpenv
from olctc.formulation import build_milp
from olctc.formulation.topology import Topology
from olctc.milp import MILP, Block, names_from_block_map
from olctc.objective import big_m_charge, big_m_limits, class_mass, point_losses, tree_objective
from olctc.spec import make_spec
from test_formulation_mutation_gaps import data, logistic_pieces, route

highspy = pytest.importorskip("highspy")

# Trees of depth 2 on 3 features (rows: nodes 0, 1, 2). Node 0 uses 3 features, node 1 two, node 2 one; OCT-H's
# rows have ||w||_1 <= 1 and the univariate / hard-budget ones one feature each.
W_DENSE = np.array([[0.7, -0.4, 0.25], [0.0, 1.3, -0.6], [-0.9, 0.0, 0.0]])
W_ONE = np.array([[0.7, 0.0, 0.0], [0.0, 1.3, 0.0], [0.0, 0.0, -0.9]])
W_NORM = np.array([[0.5, -0.3, 0.2], [0.0, 0.6, -0.25], [-0.9, 0.0, 0.0]])
B = np.array([0.15, -0.35, 0.4])


def model_optimum_at(milp: MILP, W: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """``milp.objective`` of HiGHS's optimum of ``milp`` with its w and b columns fixed at (W, b). The quadratic part
    (a constant once w is fixed: HiGHS solves no MIQP) is left out of the solve and put back by milp.objective."""
    wblk, bblk = milp.col_block("w"), milp.col_block("b")
    fixed = {wblk.start + k: float(v) for k, v in enumerate(W.ravel())}
    fixed |= {bblk.start + k: float(v) for k, v in enumerate(b)}
    h = highs_of(dataclasses.replace(milp, Q=None), time_limit=20.0, fixed=fixed)
    run_highs(h)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.modelStatusToString(h.getModelStatus())
    x = np.array(h.getSolution().col_value)
    assert max(milp.violation(x).values()) <= 1e-8
    return milp.objective(x), x


def by_hand(preset: str, W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, C: list[float],
            alpha: float, budget: int | None, s: np.ndarray | None) -> float:
    """The objective written out: sum_h C_h sum_i s_i loss(y_i score at the path's layer-h node) (OCT-H: C_d times
    the weighted errors at the last layer, positive iff score > eps / 2), plus the regulariser, plus the L0 term."""
    eps = 1e-5
    S = X @ W.T + b
    path = route(S, 2, eps)
    s = np.ones(len(y)) if s is None else s
    nnz = (W != 0).sum(axis=1)
    if preset == "oct-h":
        at = S[np.arange(len(y)), path[:, 1]]
        return C[1] * float(s @ ((at > eps / 2) != (y > 0))) + alpha * float(nnz.sum())
    g, c = (np.array([1.0]), np.array([1.0])) if preset.startswith("margot") else logistic_pieces(
        [-math.inf, 0.0, math.inf])
    loss = 0.0
    for h in range(2):
        u = y * S[np.arange(len(y)), path[:, h]]
        loss += C[h] * float(s @ np.maximum(0.0, np.max(c[None, :] - g[None, :] * u[:, None], axis=1)))
    reg = 0.5 * float((W * W).sum()) if preset.startswith("margot") else float(np.abs(W).sum())
    l0 = alpha * float(np.maximum(0, nnz - budget).sum()) if preset == "margot-sfs" else 0.0
    return loss + reg + l0


CASES = [  # preset, W, knobs
    ("olct", W_DENSE, {}),
    ("olct-univariate", W_ONE, {}),
    ("margot", W_DENSE, {}),
    ("margot-sfs", W_DENSE, {"alpha": 0.3, "budget": 1}),
    ("margot-hfs", W_ONE, {}),
    ("oct-h", W_NORM, {"alpha": 0.25}),
]


@pytest.mark.parametrize("preset,W,knobs", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "point-weights"])
def test_tree_objective_is_the_models_optimum_at_a_fixed_tree(preset: str, W: np.ndarray, knobs: dict,
                                                              weighted: bool) -> None:
    """An objective that reverses the per-layer C, counts OCT-H's norm-bound weights as an L1 term, prices the SFS
    excess over budget + 1 or only at its worst node, drops alpha from OCT-H's penalty, gives the hard budget an L0
    penalty, halves nothing in 1/2 ||w||^2, leaves the L0 term out of ``total`` or ignores point weights; a MILP
    whose objective drops 0.5 in x'Qx: at a fixed dense tree, HiGHS's optimum of each preset's model (z, xi, delta,
    excess, q free), tree_objective (threshold epsilon / 2) and the objective written out in numpy agree."""
    X, y = data()
    C = [1.0, 3.0]
    s = np.arange(len(y)) % 3 + 0.5 if weighted else None
    spec = make_spec(preset, 2, C=C, **knobs)
    S = X @ W.T + B
    assert not ((S > -1e-4) & (S < 1e-4)).any()  # no score near the epsilon band: one routing for all three
    want = by_hand(preset, W, B, X, y, C, knobs.get("alpha", 1.0), knobs.get("budget"), s)
    parts = tree_objective(W, B, X, y, spec, threshold=spec.epsilon / 2, sample_weight=s)
    assert parts.total == pytest.approx(want, rel=1e-12)
    assert parts.total == pytest.approx(parts.weighted_loss + parts.regulariser + parts.l0_penalty, rel=1e-15)
    got, _ = model_optimum_at(build_milp(X, y, spec, sample_weight=s), W, B)
    assert got == pytest.approx(want, rel=1e-7)


def test_the_exact_loss_is_the_logistic_for_olct_and_the_model_loss_otherwise() -> None:
    """An objective whose ``loss="exact"`` swaps in the logistic for every tangent-type loss: MARGOT's hinge has no
    other "exact" loss (refinement and the reports compare exact objectives), OLCT's is log(1 + e^-u) in numpy."""
    X, y = data()
    u = np.linspace(-4.0, 4.0, 33)
    hinge = make_spec("margot", 2)
    assert np.array_equal(point_losses(u, hinge, "exact"), np.maximum(0.0, 1.0 - u))
    exact = tree_objective(W_DENSE, B, X, y, hinge, loss="exact")
    assert exact.total == pytest.approx(tree_objective(W_DENSE, B, X, y, hinge).total, rel=1e-15)
    olct = make_spec("olct", 2, C=[1.0, 3.0])
    S = X @ W_DENSE.T + B
    path = route(S, 2, 0.0)
    want = sum(Ch * np.log1p(np.exp(-y * S[np.arange(len(y)), path[:, h]])).sum() for h, Ch in enumerate([1.0, 3.0]))
    assert tree_objective(W_DENSE, B, X, y, olct, loss="exact").weighted_loss == pytest.approx(want, rel=1e-12)


def test_last_node_overrides_the_routing() -> None:
    """An objective that ignores ``last_node`` (decode's way to price the MILP's own z apart from the routing): with
    every point sent to node 2 (right of the root), each point's loss is at nodes 0 and 2, whatever its
    scores route it to."""
    X, y = data()
    spec = make_spec("margot", 2, C=[1.0, 3.0])
    S = X @ W_DENSE.T + B
    assert set(Topology(2).route(S)) == {1, 2}
    got = tree_objective(W_DENSE, B, X, y, spec, last_node=np.full(len(y), 2))
    want = np.maximum(0.0, 1.0 - y * S[:, 0]).sum() + 3.0 * np.maximum(0.0, 1.0 - y * S[:, 2]).sum()
    assert got.weighted_loss == pytest.approx(want, rel=1e-12)


def test_a_weight_above_1e_9_counts_as_a_feature() -> None:
    """An objective whose zero weight is 1e-6 rather than 1e-9 (decode rounds solver noise to 0 before, and the
    model's delta must be 1 for any |w| > 0), or counts 1e-9 itself: under OCT-H's alpha ||w||_0, a weight of 1e-7
    is a feature, one of 1e-9 (ZERO_WEIGHT: "at or below counts as zero") is not; class_mass is (positive,
    negative)."""
    X, y = data()
    spec = make_spec("oct-h", 2, alpha=0.5)
    W = np.zeros((3, 3))
    W[0, 0], W[1, 1], W[2, 2] = 1.0, 1e-7, -1e-9
    assert tree_objective(W, B, X, y, spec).l0_penalty == pytest.approx(0.5 * 2)
    assert class_mass(np.array([1.0, -1.0, 1.0]), np.array([2.0, 3.0, 5.0])) == (7.0, 3.0)


# ---------------------------------------------------------------- the MILP object


def small_milp(Q: sp.csr_matrix | None = None) -> MILP:
    """Six columns in two blocks (w_pos_3, w_pos_5; v_0_4, v_0_9, v_1_4, v_1_9), three rows (<=, >=, ==):

    r_0: x0 + x1 <= 2      r_1: x1 + x2 >= 0.75      r_2: x0 + x3 == 3

    x0 in [0, 4] continuous, x1, x2 binary, x3 integer in [0, 3], x4, x5 in [0, 1] continuous; Q = 2 on x0."""
    cols = (Block("w_pos", 0, (2,), ("node",), ((3, 5),)), Block("v", 2, (2, 2), ("node", "point"), ((0, 1), (4, 9))))
    rows = (Block("r", 0, (3,), ("point",), ((0, 1, 2),)),)
    A = sp.csr_matrix(np.array([[1.0, 1, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0]]))
    return MILP("small", np.array([1.0, -1.0, 2.0, 0.5, 0.0, 0.25]), A, np.array(["L", "G", "E"]),
                np.array([2.0, 0.75, 3.0]), np.zeros(6), np.array([4.0, 1, 1, 3, 1, 1]),
                np.array([False, True, True, True, False, False]), cols, rows,
                sp.csr_matrix(([2.0], ([0], [0])), shape=(6, 6)) if Q is None else Q, obj_constant=1.5)


def test_milp_objective_and_its_quadratic_part() -> None:
    """A MILP objective that drops obj_constant or the quadratic part, or doubles 0.5 x'Qx; is_quadratic true for an
    all-zero Q: c x + 1/2 x'Qx + constant, by hand, and HiGHS's optimum of the same model agrees."""
    m = small_milp()
    x = np.array([1.0, 0.0, 1.0, 2.0, 0.5, 1.0])
    assert m.is_quadratic and m.quadratic_part(x) == 1.0
    assert m.objective(x) == 1.0 + 2.0 + 1.0 + 0.25 + 1.0 + 1.5
    linear = dataclasses.replace(small_milp(), Q=sp.csr_matrix((6, 6)))
    assert not linear.is_quadratic and linear.quadratic_part(x) is None
    assert linear.objective(x) == 1.0 + 2.0 + 1.0 + 0.25 + 1.5
    h = highs_of(linear)  # min x0 - x1 + 2 x2 + 0.5 x3 + 0.25 x5: x0 = 0, x3 = 3, x1 = 1, x2 = 0 -> -1 + 1.5 + 1.5
    run_highs(h)
    opt = h.getInfo().objective_function_value + linear.obj_constant
    xs = np.array(h.getSolution().col_value)
    assert opt == pytest.approx(linear.objective(xs), abs=1e-9) and opt == pytest.approx(2.0, abs=1e-9)
    assert m.objective(xs) == pytest.approx(2.0, abs=1e-9)  # x0 = 0: no quadratic part
    assert m.is_binary.tolist() == [False, True, True, False, False, False]


@pytest.mark.parametrize("x,rows,bounds,integrality,worst", [
    ([3.0, 0.0, 1.0, 0.0, 0.0, 0.0], 1.0, 0.0, 0.0, ("r_0", 1.0)),      # only the <= row, above its rhs
    ([1.0, 0.0, 0.0, 2.0, 0.0, 0.0], 0.75, 0.0, 0.0, ("r_1", 0.75)),    # only the >= row, below it
    ([1.0, 0.0, 1.0, 1.0, 0.0, 0.0], 1.0, 0.0, 0.0, ("r_2", 1.0)),      # only the == row, below it
    ([4.5, 0.0, 1.0, 0.0, 0.0, 0.0], 2.5, 0.5, 0.0, ("r_0", 2.5)),      # x0 above its upper bound
    ([1.0, 0.0, 0.75, 2.0, 0.3, 0.0], 0.0, 0.0, 0.25, ("r_1", 0.0)),    # x2 fractional (x4 continuous)
])
def test_violation_and_worst_row_by_hand(x: list[float], rows: float, bounds: float, integrality: float,
                                        worst: tuple[str, float]) -> None:
    """A violation that swaps <= and >=, reads == as <=, checks the lower bounds only or calls a continuous column
    fractional; a worst_row that takes the least violated row or reads >= as <=: each by hand on a 3-row model."""
    m = small_milp()
    assert m.violation(np.array(x)) == {"rows": rows, "bounds": bounds, "integrality": integrality}
    name, v = m.worst_row(np.array(x))
    assert name == worst[0] and v == pytest.approx(worst[1], abs=1e-15)


def test_names_values_and_the_block_map() -> None:
    """Names with another separator, the row names read from the columns' cache, a block map whose size check is
    gone, has_col_block matching a prefix, values reshaped in Fortran order, a scalar block of size 0: names are
    prefix_label..., the block map read back names the same columns, and values are C-ordered."""
    m = small_milp()
    assert m.col_names().tolist() == ["w_pos_3", "w_pos_5", "v_0_4", "v_0_9", "v_1_4", "v_1_9"]
    assert m.row_names().tolist() == ["r_0", "r_1", "r_2"]
    assert names_from_block_map(m.block_map()["columns"]).tolist() == m.col_names().tolist()
    assert names_from_block_map(m.block_map()["rows"]).tolist() == ["r_0", "r_1", "r_2"]
    x = np.arange(6.0)
    assert m.values(x, "v").tolist() == [[2.0, 3.0], [4.0, 5.0]] and m.values(x, "w_pos").tolist() == [0.0, 1.0]
    assert m.has_col_block("w_pos") and not m.has_col_block("w") and not m.has_col_block("r")
    with pytest.raises(KeyError, match="no variable block named 'w'; have \\['w_pos', 'v'\\]"):
        m.col_block("w")
    with pytest.raises(KeyError, match="no row block named 'v'"):
        m.row_block("v")
    short = dataclasses.replace(small_milp(), col_blocks=m.col_blocks[:1])
    with pytest.raises(AssertionError, match="block map covers 2 names, model has 6"):
        short.col_names()
    scalar = Block("obj", 4, (), (), ())
    assert (scalar.size, scalar.stop, scalar.names().tolist()) == (1, 5, ["obj"])
    assert Block.from_json(m.col_blocks[1].to_json()) == m.col_blocks[1]


def test_a_copy_with_other_blocks_names_its_own_columns() -> None:
    """The names cache went along with dataclasses.replace (an init field), so a copy with a renamed block map, or a
    model whose blocks were reassigned after its names were read, answered with the old names."""
    m = small_milp()
    assert m.col_names()[0] == "w_pos_3" and m.row_names()[0] == "r_0"
    renamed = (Block("w_neg", 0, (2,), ("node",), ((3, 5),)), m.col_blocks[1])
    copy = dataclasses.replace(m, col_blocks=renamed, row_blocks=(Block("s", 0, (3,), ("point",), ((0, 1, 2),)),))
    assert copy.col_names()[:2].tolist() == ["w_neg_3", "w_neg_5"] and copy.row_names()[0] == "s_0"
    assert m.col_names()[0] == "w_pos_3" and m.row_names()[0] == "r_0"
    m.col_blocks = renamed
    assert m.col_names()[0] == "w_neg_3"


# ---------------------------------------------------------------- floating-point environment


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"),
                    reason="glibc's fenv_t layout on x86-64")
def test_the_environment_is_read_on_x86_64_linux() -> None:
    """A ``saved`` that calls fegetenv's 0 a failure: every function then does nothing, ``controls`` is None and
    tests/test_fpenv.py skips itself as on another platform. On x86-64 Linux the environment reads, and inside
    ``default`` it is (0x37f, 0x1f80) even after an inexact operation (MXCSR's exception flags masked off)."""
    env = fpenv.saved()
    assert env is not None and len(env.raw) == 64
    with fpenv.default():
        third = float(np.float64(1.0) / np.float64(3.0))  # sets MXCSR's precision flag
        assert fpenv.controls() == (0x37F, 0x1F80)
    assert third == 1.0 / 3.0


# ---------------------------------------------------------------- big-M


def test_big_m_charge_at_depth_three_by_hand_and_by_the_model() -> None:
    """A charge priced at C_1 for every layer, ``needed`` taken from the last layer that charges, points counted at
    the last such layer only, point weights dropped, the worst node found by argmin or the first charge kept: at
    depth 3 (W = 0, so every point scores b_t at node t, all reach node 6 by 0, 2, 6) node 1 at b = -99.9 (a routing
    node: within [epsilon - M, M]) charges each positive 100.9 - 100 at layer 2 and node 3 at 99.6 each negative
    100.6 - 100 at layer 3. By hand, and HiGHS's optimum of MARGOT's model at that (w, b) is tree_objective plus
    the charge."""
    X, y = data()
    s = np.arange(len(y)) % 4 + 1.0
    C = [1.0, 2.0, 5.0]
    spec = make_spec("margot", 3, C=C, big_m=100.0)
    W, b = np.zeros((7, 3)), np.array([1.0, -99.9, 1.0, 99.6, 0.0, 0.0, -2.0])
    charge = big_m_charge(W, b, X, y, spec, sample_weight=s)
    pos, neg = y > 0, y < 0
    per_point = np.where(pos, C[1] * 0.9, C[2] * 0.6) * s
    assert charge.extra == pytest.approx(per_point.sum(), rel=1e-12)
    assert charge.points == len(y) and charge.big_m_needed == pytest.approx(100.9)
    worst = int(np.argmax(per_point))
    assert neg[worst] and (charge.point, charge.node, charge.score) == (worst, 3, 99.6)
    # the model: (w, b) fixed, z forced by the routing rows, xi at its smallest
    milp = build_milp(X, y, spec, sample_weight=s)
    got, _ = model_optimum_at(milp, W, b)
    true = tree_objective(W, b, X, y, spec, sample_weight=s).total
    assert got == pytest.approx(true + charge.extra, rel=1e-9)


def test_big_m_limits_counts_points_names_the_node_and_keeps_the_weights() -> None:
    """A limits check that counts (point, node) pairs, names the k-th weighted node as node k, forgets the weights
    at +-M when a point is at a limit too, swaps node and feature, drops the lower limit, or takes its tolerance
    as 1e-6 absolute rather than 1e-6 M (M = 10 here): a univariate depth-3 tree whose flat root is ignored, point 0
    sits within 5e-6 of M at nodes 1 and 2, point 2 at epsilon - M at node 2, and w_{2,0} within 5e-6 of M."""
    spec = make_spec("olct-univariate", 3, big_m=10.0, epsilon=0.5)
    w_at = 10.0 - 5e-6
    W = np.zeros((7, 2))
    W[1, 1], W[2, 0] = 1.0, w_at
    b = np.zeros(7)
    b[0], b[1] = spec.epsilon - spec.big_m, 9.0 - 5e-6  # the root: w = 0, b at a vertex of its rows
    X = np.array([[1.0, 1.0], [0.0, 0.0], [-1.0, -1.0]])
    limit = big_m_limits(W, b, X, spec)
    assert (limit.points, limit.point, limit.node) == (2, 0, 1)
    assert limit.score == pytest.approx(10.0 - 5e-6, abs=1e-12)
    assert (limit.weights, limit.weight_node, limit.weight_feature) == (1, 2, 0)
    lower = big_m_limits(W, b, X[2:], spec)
    assert (lower.points, lower.point, lower.node, lower.score) == (1, 0, 2, -w_at)


def test_the_point_named_is_one_charged_beyond_rounding():
    """A charge that names the point of the largest weighted difference even when that difference is within
    rounding of M (a row met, not charged): point 0 (weight 1000) misses M by 5e-5 <= 1e-6 M, point 1 (weight
    1e-3) by 0.5. Both are in ``extra`` (the model's rows ask both), only point 1 counts and is named."""
    spec = make_spec("margot", 2, C=2.0, big_m=100.0)
    X, y, s = np.array([[0.0], [1.0]]), np.array([1.0, 1.0]), np.array([1000.0, 1e-3])
    W = np.array([[0.0], [-0.49995], [0.0]])
    b = np.array([1.0, -99.00005, 1.0])  # both points go right (node 2, loss 0); node 1 scores -99.00005, -99.5
    charge = big_m_charge(W, b, X, y, spec, sample_weight=s)
    assert (charge.points, charge.point, charge.node) == (1, 1, 1)
    assert charge.score == pytest.approx(-99.5, abs=1e-12)
    assert charge.extra == pytest.approx(2.0 * (5e-5 * 1000.0 + 0.5 * 1e-3), rel=1e-6)


def test_the_hinge_rows_are_named_hinge():
    """Tangent rows written under one name whatever the loss: MARGOT's model files name them hinge_t_k_i (the
    spec's row_name), OLCT's loss_t_k_i, in node, tangent, point order."""
    X, y = data(np.arange(4))
    names = {p: build_milp(X, y, make_spec(p, 1)).row_names() for p in ("margot", "olct")}
    assert [n for n in names["margot"] if n.startswith("hinge")] == [f"hinge_0_0_{i}" for i in range(4)]
    assert not any(n.startswith("loss") for n in names["margot"])
    assert [n for n in names["olct"] if n.startswith("loss")] == [f"loss_0_{k}_{i}" for k in range(2) for i in range(4)]
