"""Build the MILP of docs/FORMULATION.md from standardised data and a TreeSpec.

Column order: w, b, [w_pos, w_neg], [delta], [excess], z, [used], [q], xi, [s].
Row order: assign, [score], route_l, route_r, loss rows (loss | hinge | mis_up, mis_lo, err), regulariser
rows, [leaf_min, leaf_max]. The bracketed blocks exist only for the presets (or the options: score_variables
for s, min_leaf above 1 at depth 2 or more for used and the leaf rows) that need them.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from olctc.errors import OlctcError, param_error
from olctc.formulation.topology import Topology

if TYPE_CHECKING:
    from olctc.milp import MILP
    from olctc.spec import TreeSpec

__all__ = ["build_milp", "Topology"]


def build_milp(X: np.ndarray, y: np.ndarray, spec: TreeSpec, name: str = "olctc", *,
               sample_weight: np.ndarray | None = None) -> MILP:
    """The training MILP for standardised features X (n, p) and labels y in {-1, +1}; ``sample_weight``
    scales each point's loss terms (with the spec's class weights)."""
    # here, not at the top: a tree (predict, export) needs Topology from this package, not the builder, nor
    # scipy.sparse, which its modules load (0.1 s of every olctc predict)
    from olctc.formulation import regularisers
    from olctc.formulation.builder import Builder
    from olctc.formulation.losses import LOSSES, add_xi
    from olctc.formulation.pieces import Vars
    from olctc.formulation.routing import add_assignment, add_leaf_sizes, add_routing, add_scores

    X, y, sample_weight = _checked_inputs(X, y, sample_weight)
    n, p = X.shape
    if spec.min_leaf > n:  # every point lies in some last-layer node, which would hold fewer
        raise param_error("min_leaf", f"at most the {n} training point(s) the model holds", spec.min_leaf)
    topo = Topology(spec.depth)
    loss = LOSSES[spec.info.loss]
    bld = Builder(name)
    feats = np.arange(p)
    w = bld.add_cols("w", [("node", topo.nodes), ("feature", feats)], lb=-math.inf, ub=math.inf)
    b = bld.add_cols("b", [("node", topo.nodes)], lb=-math.inf, ub=math.inf)
    v = Vars(w=w, b=b, z=None, xi=None)  # type: ignore[arg-type]
    regularisers.add_columns(bld, v, spec, topo, p)
    v.z = bld.add_cols("z", [("node", topo.last), ("point", np.arange(n))], lb=0.0, ub=1.0, integer=True)
    if spec.leaf_rows:
        v.used = bld.add_cols("used", [("node", topo.last)], lb=0.0, ub=1.0, integer=True)
    if loss.needs_q:
        v.q = bld.add_cols("q", [("point", np.arange(n))], lb=0.0, ub=1.0, integer=True)
    v.xi = add_xi(bld, spec, y, sample_weight)
    if spec.score_variables:
        v.s = bld.add_cols("s", [("node", topo.nodes), ("point", np.arange(n))], lb=-math.inf, ub=math.inf)
    add_assignment(bld, v, topo, n)
    add_scores(bld, v, X, topo)
    add_routing(bld, v, X, topo, spec)
    loss.rows(bld, v, X, y, topo, spec)
    regularisers.add_rows(bld, v, spec, topo, p)
    add_leaf_sizes(bld, v, topo, n, spec)
    bld.Q = regularisers.quadratic(v, spec, bld.n_cols)
    return bld.finish()


def _checked_inputs(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """X, y and the weights as float arrays, refused with the first bad entry named: the model charges y_i times a
    score, so labels 0/1 (or a NaN cell) gave a model of the wrong loss, built and solved without a word."""
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise OlctcError(f"build_milp: X and y must be arrays of numbers ({exc})") from None
    if X.ndim != 2 or X.shape[0] < 1:
        raise OlctcError(f"build_milp: X must be a 2-D array with one row per point; got shape {X.shape}")
    n = X.shape[0]
    if y.shape != (n,):
        raise OlctcError(f"build_milp: y must hold one label per row of X ({n}); got shape {y.shape}")
    bad = np.flatnonzero((y != 1.0) & (y != -1.0))
    if bad.size:
        raise OlctcError(f"build_milp: y must hold labels -1 or +1 (as olctc.load_dataset gives them); "
                         f"row {bad[0]} holds {y[bad[0]]:g}")
    rows, cols = np.nonzero(~np.isfinite(X))
    if rows.size:
        raise OlctcError(f"build_milp: X must hold finite numbers; row {rows[0]}, column {cols[0]} holds "
                         f"{X[rows[0], cols[0]]}")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        if sample_weight.shape != (n,):
            raise OlctcError(f"build_milp: sample_weight must hold one weight per row of X ({n}); "
                             f"got shape {sample_weight.shape}")
        bad = np.flatnonzero(~(np.isfinite(sample_weight) & (sample_weight >= 0)))
        if bad.size:
            raise OlctcError(f"build_milp: sample_weight must hold finite weights >= 0; row {bad[0]} holds "
                             f"{sample_weight[bad[0]]}")
    return X, y, sample_weight
