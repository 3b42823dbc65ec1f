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
    if loss == "exact" and spec.info.loss == "logistic":
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
        if spec.info.loss == "misclassification":
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
