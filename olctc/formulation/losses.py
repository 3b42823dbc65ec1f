"""Loss pieces: each adds its variables (xi, and q for misclassification) and its rows.

Tangent-type losses (logistic and hinge) share one row shape, for branch node t in layer h, point i
and tangent (g, c): ``xi_{h,i} >= c - g u - M a_{i,t}`` with ``u = y_i (w_t.x_i + b_t)`` and
``a_{i,t} = 1 - sum_{s in T_d(t)} z_{s,i}``, i.e.

    loss_t_k_i:  xi_{h,i} + g y_i (w_t.x_i + b_t) - M sum_{s in T_d(t)} z_{s,i} >= c - M

At the root every point passes (sum z = 1 by the assignment rows), so its rows drop the z terms and
the -M: the same constraint, fewer nonzeros.
Logistic: for tangent point v, f(v) = log(1 + e^-v), g = -f'(v) = 1/(1 + e^v), c = f(v) + g v
(v = -inf gives g = 1, c = 0: xi >= -u; v = +inf is the bound xi >= 0). Hinge: g = 1, c = 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from olctc.formulation.builder import Builder
from olctc.formulation.pieces import Vars, full, grid, score_parts, z_cols
from olctc.formulation.topology import Topology
from olctc.milp import Block
from olctc.spec import TreeSpec


def logistic_tangents(points: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(g, c) of each tangent line; +inf (the bound xi >= 0, always present) yields no row."""
    g, c = [], []
    for v in points:
        if v == math.inf:
            continue
        if v == -math.inf:
            g.append(1.0)
            c.append(0.0)
        else:
            gv = 1.0 / (1.0 + math.exp(v))
            g.append(gv)
            c.append(float(np.logaddexp(0.0, -v)) + gv * v)
    return np.asarray(g), np.asarray(c)


def tangent_lines(spec: TreeSpec) -> tuple[np.ndarray, np.ndarray]:
    """(g, c) of the spec's loss: its one line (hinge), or the logistic's at the spec's tangent points."""
    line = spec.loss_kind.line
    if line is not None:
        return np.array([line[0]]), np.array([line[1]])
    return logistic_tangents(spec.tangents)


def loss_layers(spec: TreeSpec) -> np.ndarray:
    """1-based layers that carry a loss term."""
    if spec.loss_kind.last_layer_only:
        return np.array([spec.depth])
    return np.arange(1, spec.depth + 1)


def add_xi(bld: Builder, spec: TreeSpec, y: np.ndarray, sample_weight: np.ndarray | None = None) -> Block:
    """xi per loss layer and point, costing C_h times the point's weight (class weight times sample
    weight; 1 when unweighted)."""
    layers = loss_layers(spec)
    return bld.add_cols("xi", [("layer", layers), ("point", np.arange(y.shape[0]))], lb=0.0, ub=math.inf,
                        cost=xi_costs(spec, y, sample_weight))


def xi_costs(spec: TreeSpec, y: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """The objective costs of the xi block, layer by layer: C_h times each point's weight."""
    n = y.shape[0]
    layers = loss_layers(spec)
    cost = np.repeat(np.asarray(spec.C, float)[layers - 1], n)
    weights = spec.point_weights(y, sample_weight)
    if weights is not None:
        cost = cost * np.tile(weights, layers.shape[0])
    return cost


def add_tangent_rows(bld: Builder, v: Vars, X: np.ndarray, y: np.ndarray, topo: Topology,
                     spec: TreeSpec) -> None:
    n = X.shape[0]
    g, c = tangent_lines(spec)
    K = g.shape[0]
    M = spec.big_m
    segments, rhs_parts = [], []
    for h in range(1, topo.depth + 1):
        nodes = topo.layer_nodes(h)
        # Row order (node, tangent, point): node-major within the layer.
        node = np.repeat(nodes, K * n)
        k = np.tile(np.repeat(np.arange(K), n), len(nodes))
        point = np.tile(np.arange(n), len(nodes) * K)
        r = node.shape[0]
        parts = score_parts(v, X, node, point, g[k] * y[point])
        if h > 1:
            lo = np.array([topo.under(int(t))[0] for t in nodes])
            width = 2 ** (topo.depth - h)
            zc = z_cols(v, np.repeat(lo, K * n), width, point)
            parts.append((zc, np.full(zc.shape, -M)))
            rhs_parts.append(c[k] - M)
        else:
            rhs_parts.append(c[k])
        xi_row = int(np.flatnonzero(np.asarray(v.xi.labels[0]) == h)[0])
        parts.append(((v.xi.start + xi_row * n + point)[:, None], full(r, 1.0)))
        segments.append(parts)
    bld.add_rows(spec.loss_kind.row_name, [("node", topo.nodes), ("tangent", np.arange(K)), ("point", np.arange(n))],
                 segments, "G", np.concatenate(rhs_parts))


def add_misclassification_rows(bld: Builder, v: Vars, X: np.ndarray, y: np.ndarray, topo: Topology,
                               spec: TreeSpec) -> None:
    """OCT's loss at the last layer, with q_i = 1 predicting +1 (paper eq. (3), y_hat = 2q - 1).

    mis_up_s_i:  w_s.x_i + b_s + M z_{s,i} - 2M q_i <= M       (z = 1, q = 0 -> score <= 0)
    mis_lo_s_i:  w_s.x_i + b_s - M z_{s,i} - 2M q_i >= eps - 3M (z = 1, q = 1 -> score >= eps)

    The paper writes ">= 0" for the positive side; then w = 0, b = 0 scores every point 0 and q may
    label each one correctly for free (a zero-loss degenerate optimum, measured). Using epsilon, as
    the routing rows do, makes a positive prediction mean score >= eps.
    err_i:       xi_i + q_i = 1 if y_i = +1;  xi_i - q_i = 0 if y_i = -1
    """
    n = X.shape[0]
    M = spec.big_m
    last = topo.last
    node, point = grid(last, n)
    r = node.shape[0]
    first = int(last[0])
    q = v.q
    assert q is not None, "the misclassification loss needs_q: build_model adds the q block"
    for name, zsign, sense, rhs in (("mis_up", M, "L", M), ("mis_lo", -M, "G", spec.epsilon - 3 * M)):
        parts = score_parts(v, X, node, point, 1.0)
        parts.append((z_cols(v, node - first, 1, point), full(r, zsign)))
        parts.append(((q.start + point)[:, None], full(r, -2 * M)))
        bld.add_rows(name, [("node", last), ("point", np.arange(n))], [parts], sense, rhs)
    pts = np.arange(n)
    qc = (q.start + pts)[:, None]
    xc = (v.xi.start + pts)[:, None]
    bld.add_rows("err", [("point", pts)], [[(qc, full(n, np.where(y > 0, 1.0, -1.0))), (xc, full(n, 1.0))]],
                 "E", np.where(y > 0, 1.0, 0.0))


@dataclass(frozen=True)
class Loss:
    """A loss piece: extra integer columns it needs (before xi) and its rows."""

    needs_q: bool
    rows: Callable[[Builder, Vars, np.ndarray, np.ndarray, Topology, TreeSpec], None]


LOSSES: dict[str, Loss] = {
    "logistic": Loss(False, add_tangent_rows),
    "hinge": Loss(False, add_tangent_rows),
    "misclassification": Loss(True, add_misclassification_rows),
}
