"""The objective of a tree recomputed from its weights with the true routing, independently of any MILP.

This is the cross-check of every solve: a solver's objective must match ``tree_objective`` of the
decoded (w, b) with ``loss="model"`` (the loss the MILP approximates: tangent lines, hinge or 0/1);
``loss="exact"`` uses the true logistic loss (what refinement improves and what the paper reports).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from olctc.formulation.losses import loss_layers, tangent_lines
from olctc.formulation.topology import Topology
from olctc.spec import TreeSpec

ZERO_WEIGHT = 1e-9  # |w| at or below this counts as zero for L0 terms
#: A score within this fraction of M of a big-M row's limit meets it (the solvers' tolerances are 1e-9), and
#: no more: a row met within rounding charges nothing (2e-15 above M, measured).
AT_LIMIT_RTOL = 1e-6


@dataclass(frozen=True)
class ObjectiveParts:
    """The objective split into its terms; ``total`` is what the MILP minimises."""

    loss_per_layer: np.ndarray  # sum_i xi_{i,h} per loss layer, times the points' class weights (not C)
    weighted_loss: float
    regulariser: float
    l0_penalty: float

    @property
    def total(self) -> float:
        return self.weighted_loss + self.regulariser + self.l0_penalty


def weighted_sum(values: np.ndarray, weights: np.ndarray | None) -> float:
    """sum_i w_i v_i, or sum_i v_i when ``weights`` is None (every point weighs 1)."""
    return float(values.sum() if weights is None else weights @ values)


def class_mass(y: np.ndarray, weights: np.ndarray | None) -> tuple[float, float]:
    """(positive, negative) weight of labels y: their counts when ``weights`` is None."""
    pos = np.asarray(y) > 0
    return weighted_sum(pos.astype(float), weights), weighted_sum((~pos).astype(float), weights)


def node_scores(W: np.ndarray, b: np.ndarray, X: np.ndarray) -> np.ndarray:
    """(n, n_nodes) scores w_t . x_i + b_t."""
    return X @ W.T + b[None, :]


def point_losses(u: np.ndarray, spec: TreeSpec, loss: str) -> np.ndarray:
    """Per-point loss of margins u = y * score, for tangent-type losses."""
    if loss == "exact" and spec.loss_kind.smooth:
        return np.logaddexp(0.0, -u)
    g, c = tangent_lines(spec)
    return np.maximum(0.0, np.max(c[None, :] - g[None, :] * u[:, None], axis=1))


def tree_objective(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec,
                   loss: str = "model", last_node: np.ndarray | None = None,
                   threshold: float = 0.0, sample_weight: np.ndarray | None = None) -> ObjectiveParts:
    """Objective of the tree (W, b) on standardised data (X, y in {-1, +1}), each point's loss weighted
    by its ``sample_weight`` (if any) and the spec's class weight.

    Routing (and the OCT-H prediction) goes right iff score > ``threshold``. A MILP solution only
    guarantees score <= 0 or score >= epsilon, so to evaluate raw solver weights pass
    ``threshold=spec.epsilon / 2`` (decoded trees fold that midpoint into b, see ``olctc.decode``).

    ``last_node`` overrides the routing (last-layer node id per point), e.g. with the MILP's z, to
    separate routing disagreements from loss disagreements.
    """
    topo = Topology(spec.depth)
    y = np.asarray(y, dtype=float)
    S = node_scores(W, b, X)
    reached = topo.route(S, threshold) if last_node is None else np.asarray(last_node)
    n = X.shape[0]
    layers = loss_layers(spec)
    per_layer = np.zeros(layers.shape[0])
    weights = spec.point_weights(y, sample_weight)
    for k, h in enumerate(layers):
        t = (reached + 1) // (2 ** (spec.depth - h)) - 1  # ancestor of the last-layer node at layer h
        s = S[np.arange(n), t]
        if not spec.loss_kind.tangent_rows:  # the 0/1 loss of the node's label
            losses = ((s > threshold) != (y > 0)).astype(float)
        else:
            losses = point_losses(y * s, spec, loss)
        per_layer[k] = weighted_sum(losses, weights)
    weighted = float(np.dot(np.asarray(spec.C)[layers - 1], per_layer))
    reg_kind = spec.info.regulariser
    if reg_kind == "l1":
        reg = float(np.abs(W).sum())
    elif reg_kind == "l2":
        reg = 0.5 * float(np.sum(W * W))
    else:
        reg = 0.0
    nnz = (np.abs(W) > ZERO_WEIGHT).sum(axis=1)
    l0 = 0.0
    if spec.info.l0 == "sfs":
        budget = spec.effective_budget
        assert budget is not None  # SFS-MARGOT's budget has a default
        l0 = spec.alpha * float(np.maximum(0, nnz - budget).sum())
    elif spec.info.l0 == "penalty":
        l0 = spec.alpha * float(nnz.sum())
    return ObjectiveParts(per_layer, weighted, reg, l0)


@dataclass(frozen=True)
class BigMCharge:
    """What the model's big-M loss rows charge a tree beyond ``tree_objective`` (``big_m_charge``)."""

    extra: float  # objective added (C- and point-weighted), 0 when no row binds
    points: int  # points charged
    point: int = -1  # the point of the largest charge, its node and its score there (-1: none)
    node: int = -1
    score: float = 0.0
    big_m_needed: float = 0.0  # the smallest M at which no row would charge


def big_m_charge(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec,
                 threshold: float = 0.0, sample_weight: np.ndarray | None = None) -> BigMCharge:
    """The loss the MILP's rows charge at nodes a point does not pass, beyond ``tree_objective(loss="model")``.

    A loss row of a node t the point does not pass reads ``xi >= c - g y score - M``: relaxed by M only. A
    margin below about -M there (a last-layer node's score, which no routing row bounds) makes the row bind,
    and the smallest xi the model allows is above the point's loss at the node it reaches. The MILP's
    objective at (W, b) and this routing is then ``tree_objective`` plus ``extra``: the model charges a loss
    the tree does not have (big-M too small for these scores). OCT-H's rows there restrict (W, b) instead
    of charging: 0 for it.
    """
    if not spec.loss_kind.tangent_rows:
        return BigMCharge(0.0, 0)
    topo = Topology(spec.depth)
    y = np.asarray(y, dtype=float)
    S = node_scores(W, b, X)
    on_path = topo.path_mask(topo.route(S, threshold))
    weights = spec.point_weights(y, sample_weight)
    extra, needed, charged = 0.0, 0.0, np.zeros(X.shape[0], dtype=bool)
    worst = (0.0, -1, -1)
    for h in loss_layers(spec):
        nodes = topo.layer_nodes(int(h))
        U = y[:, None] * S[:, nodes]
        pieces = point_losses(U.ravel(), spec, "model").reshape(U.shape)
        on = on_path[:, nodes]
        own = pieces[on]  # one node per layer on each path, in point order
        off = np.max(np.where(on, -np.inf, pieces), axis=1) - own  # the M each point needs at this layer
        diff = np.maximum(off - spec.big_m, 0.0)
        beyond = diff > AT_LIMIT_RTOL * spec.big_m  # not a row met within rounding (2e-15 above M)
        if weights is not None:
            beyond &= weights > 0  # the row binds the xi of a point of weight 0, which costs nothing
        if not beyond.any():
            continue
        needed = max(needed, float(off[beyond].max()))
        charged |= beyond
        w = diff if weights is None else diff * weights
        extra += float(spec.C[h - 1]) * float(w.sum())
        i = int(np.argmax(np.where(beyond, w, -1.0)))  # the example named is one charged beyond rounding
        if spec.C[h - 1] * w[i] > worst[0]:
            k = int(np.argmax(np.where(on[i], -np.inf, pieces[i])))
            worst = (float(spec.C[h - 1] * w[i]), i, int(nodes[k]))
    if not charged.any():
        return BigMCharge(0.0, 0)
    _, i, t = worst
    return BigMCharge(extra, int(charged.sum()), i, t, float(S[i, t]), needed)


@dataclass(frozen=True)
class BigMLimit:
    """Where a tree meets a limit big-M sets (``big_m_limits``): points whose score at a routing node lies at
    its rows' limits [epsilon - M, M], and weights at the L0 presets' bound |w_jt| <= M."""

    points: int
    point: int = -1  # the first such point, its node and its score there
    node: int = -1
    score: float = 0.0
    weights: int = 0  # weights at +-M (L0 presets)
    weight_node: int = -1  # the first of them: its node and feature
    weight_feature: int = -1


def big_m_limits(W: np.ndarray, b: np.ndarray, X: np.ndarray, spec: TreeSpec) -> BigMLimit:
    """Where the tree meets a limit of the model's big-M rows, which may hold it back (a larger M could give a
    better tree).

    The routing rows hold every point's score at every routing node (passed or not) within [epsilon - M, M];
    a node of zero weights scores every point alike, and its b at a limit is only a vertex the solver chose,
    so only nodes with weights count. The L0 presets' rows -M delta <= w <= M delta bound every weight by M
    (OCT-H's use 1, which its norm bound implies anyway).
    """
    topo = Topology(spec.depth)
    tol = AT_LIMIT_RTOL * spec.big_m
    weights, wt, wj = 0, -1, -1
    if spec.info.l0 is not None and spec.info.regulariser != "l1_norm_bound":
        at_w = np.abs(W) >= spec.big_m - tol
        if at_w.any():
            weights = int(at_w.sum())
            wt, wj = (int(v) for v in np.argwhere(at_w)[0])
    inner = topo.inner[np.any(W[topo.inner] != 0, axis=1)] if topo.inner.size else topo.inner
    if inner.size:
        S = node_scores(W[inner], b[inner], X)
        at = (S >= spec.big_m - tol) | (S <= spec.epsilon - spec.big_m + tol)
        if at.any():
            i, k = np.argwhere(at)[0]
            return BigMLimit(int(at.any(axis=1).sum()), int(i), int(inner[k]), float(S[i, k]), weights, wt, wj)
    return BigMLimit(0, weights=weights, weight_node=wt, weight_feature=wj)
