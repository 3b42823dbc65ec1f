"""Shared pieces: the variable blocks of a model and the affine score part of a row block.

A row "about" branch node t and point i very often contains ``coef * (w_t . x_i + b_t)``; that part is
built here once, for any number of rows, with index arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from olctc.milp import Block


@dataclass
class Vars:
    """The variable blocks of one model (None where the preset has no such block)."""

    w: Block
    b: Block
    z: Block
    xi: Block
    w_pos: Block | None = None
    w_neg: Block | None = None
    delta: Block | None = None
    excess: Block | None = None
    q: Block | None = None
    s: Block | None = None   # score columns s_{t,i} = w_t.x_i + b_t (TreeSpec.score_variables)
    used: Block | None = None  # u_s = 1 iff last-layer node s holds a point (TreeSpec.min_leaf)


def full(r: int, values: np.ndarray | float) -> np.ndarray:
    """A (r, 1) column of one part."""
    return np.broadcast_to(np.asarray(values, dtype=float).reshape(-1, 1) if np.ndim(values) else values, (r, 1))


def score_parts(v: Vars, X: np.ndarray, node: np.ndarray, point: np.ndarray,
                coef: np.ndarray | float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Parts for ``coef_r * (w_{node_r} . x_{point_r} + b_{node_r})`` over rows r.

    ``node`` holds node ids (= positions in the w and b blocks), ``point`` row indices of X. With score
    columns the part is the single entry ``coef_r * s_{node_r, point_r}``.
    """
    if v.s is not None:
        r = node.shape[0]
        cols = (v.s.start + node * v.s.shape[1] + point)[:, None]
        return [(cols, full(r, np.broadcast_to(np.asarray(coef, dtype=float), (r,))))]
    return inline_score_parts(v, X, node, point, coef)


def inline_score_parts(v: Vars, X: np.ndarray, node: np.ndarray, point: np.ndarray,
                       coef: np.ndarray | float) -> list[tuple[np.ndarray, np.ndarray]]:
    """``coef_r * (w_{node_r} . x_{point_r} + b_{node_r})`` written out over w and b."""
    p = X.shape[1]
    r = node.shape[0]
    coef = np.broadcast_to(np.asarray(coef, dtype=float), (r,))
    w_cols = v.w.start + node[:, None] * p + np.arange(p)[None, :]
    w_vals = coef[:, None] * X[point]
    b_cols = (v.b.start + node)[:, None]
    return [(w_cols, w_vals), (b_cols, coef[:, None])]


def z_cols(v: Vars, lo: np.ndarray | int, width: int, point: np.ndarray) -> np.ndarray:
    """(r, width) column indices of z_{s, point_r} for last-layer positions lo_r .. lo_r + width - 1."""
    n = v.z.shape[1]
    lo = np.broadcast_to(np.asarray(lo), point.shape)
    return v.z.start + (lo[:, None] + np.arange(width)[None, :]) * n + point[:, None]


def grid(nodes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(node, point) index arrays of a (len(nodes), n) row block in C order."""
    return np.repeat(nodes, n), np.tile(np.arange(n), len(nodes))
