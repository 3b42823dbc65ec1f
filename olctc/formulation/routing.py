"""Assignment and routing rows (paper eqs. (1)-(2)).

assign_i:      sum_{s in T_d} z_{s,i} = 1
route_l_t_i:   w_t.x_i + b_t + M sum_{s in T_d^l(t)} z_{s,i} <= M          (left: score <= 0)
route_r_t_i:   w_t.x_i + b_t - M sum_{s in T_d^r(t)} z_{s,i} >= eps - M    (right: score >= eps)
score_t_i:     s_{t,i} - w_t.x_i - b_t = 0     (only with score columns; other rows then use s_{t,i})
leaf_min_s:    sum_i z_{s,i} - N u_s >= 0       (only with min_leaf N: u_s = 1 iff node s holds a point)
leaf_max_s:    sum_i z_{s,i} - n u_s <= 0
"""
from __future__ import annotations

import numpy as np

from olctc.formulation.builder import Builder
from olctc.formulation.pieces import Vars, full, grid, inline_score_parts, score_parts, z_cols
from olctc.formulation.topology import Topology
from olctc.spec import TreeSpec


def add_assignment(bld: Builder, v: Vars, topo: Topology, n: int) -> None:
    pts = np.arange(n)
    cols = z_cols(v, 0, len(topo.last), pts)
    bld.add_rows("assign", [("point", pts)], [[(cols, np.ones_like(cols, dtype=float))]], "E", 1.0)


def add_leaf_sizes(bld: Builder, v: Vars, topo: Topology, n: int, spec: TreeSpec) -> None:
    """Each last-layer node holds no point or at least ``spec.min_leaf``: u_s switches the lower bound on."""
    if not spec.leaf_rows:
        return
    assert v.used is not None
    k = topo.last.size
    pts = np.arange(n)
    zc = v.z.start + np.arange(k)[:, None] * n + pts[None, :]
    uc = (v.used.start + np.arange(k))[:, None]
    for name, sense, size in (("leaf_min", "G", float(spec.min_leaf)), ("leaf_max", "L", float(n))):
        parts = [(zc, np.ones((k, n))), (uc, np.full((k, 1), -size))]
        bld.add_rows(name, [("node", topo.last)], [parts], sense, 0.0)


def add_scores(bld: Builder, v: Vars, X: np.ndarray, topo: Topology) -> None:
    """The rows defining the score columns, if the model has them."""
    if v.s is None:
        return
    n = X.shape[0]
    node, point = grid(topo.nodes, n)
    parts = [((v.s.start + node * n + point)[:, None], full(node.shape[0], 1.0))]
    parts += inline_score_parts(v, X, node, point, -1.0)
    bld.add_rows("score", [("node", topo.nodes), ("point", np.arange(n))], [parts], "E", 0.0)


def add_routing(bld: Builder, v: Vars, X: np.ndarray, topo: Topology, spec: TreeSpec) -> None:
    inner = topo.inner
    if inner.size == 0:
        return
    n = X.shape[0]
    M = spec.big_m
    for side, sense, sign, rhs in (("l", "L", 1.0, M), ("r", "G", -1.0, spec.epsilon - M)):
        segments = []
        for h in range(1, topo.depth):
            nodes = topo.layer_nodes(h)
            node, point = grid(nodes, n)
            parts = score_parts(v, X, node, point, 1.0)
            # Per node, the z columns of its left (right) subtree; nodes of one layer have equal widths.
            halves = [topo.left_right(int(t))[0 if side == "l" else 1] for t in nodes]
            width = halves[0][1] - halves[0][0]
            lo = np.repeat(np.array([a for a, _ in halves]), n)
            zc = z_cols(v, lo, width, point)
            parts.append((zc, np.full(zc.shape, sign * M)))
            segments.append(parts)
        bld.add_rows(f"route_{side}", [("node", inner), ("point", np.arange(n))], segments, sense, rhs)
