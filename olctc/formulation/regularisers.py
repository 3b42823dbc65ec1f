"""Regulariser pieces per branch node t (columns first, rows after).

l1:            w_t = w_pos_t - w_neg_t (rows l1_t_j), penalty sum_j w_pos + w_neg
l2:            penalty 1/2 ||w_t||^2 (Q = identity on the w block)
l1_norm_bound: OCT-H: sum_j w_pos + w_neg <= 1 (rows norm_t), no penalty on w itself
L0 (delta_{t,j} binary, -M delta <= w <= M delta, rows l0_up / l0_lo):
  hfs:     sum_j delta_{t,j} <= B                       (rows budget_t)
  sfs:     excess_t >= sum_j delta_{t,j} - B, cost alpha (rows sfs_t)
  penalty: cost alpha on every delta (OCT-H)
For OCT-H ||w||_1 <= 1 bounds every |w_j| by 1, so its L0 rows use 1 instead of big-M (tighter, same set).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from olctc.formulation.builder import Builder
from olctc.formulation.pieces import Vars, full
from olctc.formulation.topology import Topology
from olctc.spec import TreeSpec


def add_columns(bld: Builder, v: Vars, spec: TreeSpec, topo: Topology, p: int) -> None:
    info = spec.info
    axes = [("node", topo.nodes), ("feature", np.arange(p))]
    if info.regulariser in ("l1", "l1_norm_bound"):
        cost = 1.0 if info.regulariser == "l1" else 0.0
        v.w_pos = bld.add_cols("w_pos", axes, lb=0.0, ub=math.inf, cost=cost)
        v.w_neg = bld.add_cols("w_neg", axes, lb=0.0, ub=math.inf, cost=cost)
    if info.l0 is not None:
        cost = spec.alpha if info.l0 == "penalty" else 0.0
        v.delta = bld.add_cols("delta", axes, lb=0.0, ub=1.0, integer=True, cost=cost)
    if info.l0 == "sfs":
        v.excess = bld.add_cols("excess", [("node", topo.nodes)], lb=0.0, ub=math.inf, cost=spec.alpha)


def quadratic(v: Vars, spec: TreeSpec, n_cols: int) -> sp.csr_matrix | None:
    if spec.info.regulariser != "l2":
        return None
    idx = np.arange(v.w.start, v.w.stop)
    return sp.csr_matrix((np.ones(idx.size), (idx, idx)), shape=(n_cols, n_cols))


def add_rows(bld: Builder, v: Vars, spec: TreeSpec, topo: Topology, p: int) -> None:
    info = spec.info
    size = topo.n_nodes * p
    nodes_feats = [("node", topo.nodes), ("feature", np.arange(p))]
    w_idx = (v.w.start + np.arange(size))[:, None]
    if v.w_pos is not None and v.w_neg is not None:  # add_columns adds both or neither
        bld.add_rows("l1", nodes_feats,
                     [[(w_idx, full(size, 1.0)), ((v.w_pos.start + np.arange(size))[:, None], full(size, -1.0)),
                       ((v.w_neg.start + np.arange(size))[:, None], full(size, 1.0))]], "E", 0.0)
    if v.delta is not None:
        M = 1.0 if info.regulariser == "l1_norm_bound" else spec.big_m
        d_idx = (v.delta.start + np.arange(size))[:, None]
        bld.add_rows("l0_up", nodes_feats, [[(w_idx, full(size, 1.0)), (d_idx, full(size, -M))]], "L", 0.0)
        bld.add_rows("l0_lo", nodes_feats, [[(w_idx, full(size, 1.0)), (d_idx, full(size, M))]], "G", 0.0)
        per_node = v.delta.start + np.arange(size).reshape(topo.n_nodes, p)
        budget = spec.effective_budget  # not None for hfs and sfs: their presets have a default budget
        if info.l0 == "hfs":
            assert budget is not None
            bld.add_rows("budget", [("node", topo.nodes)], [[(per_node, np.ones((topo.n_nodes, p)))]], "L",
                         float(budget))
        elif info.l0 == "sfs":
            assert budget is not None and v.excess is not None  # add_columns adds excess for sfs
            ex = (v.excess.start + topo.nodes)[:, None]
            bld.add_rows("sfs", [("node", topo.nodes)],
                         [[(per_node, np.ones((topo.n_nodes, p))), (ex, full(topo.n_nodes, -1.0))]], "L",
                         float(budget))
    if info.regulariser == "l1_norm_bound":
        assert v.w_pos is not None and v.w_neg is not None  # add_columns adds them for l1_norm_bound
        pos = v.w_pos.start + np.arange(size).reshape(topo.n_nodes, p)
        neg = v.w_neg.start + np.arange(size).reshape(topo.n_nodes, p)
        bld.add_rows("norm", [("node", topo.nodes)],
                     [[(pos, np.ones((topo.n_nodes, p))), (neg, np.ones((topo.n_nodes, p)))]], "L", 1.0)
