"""The OLCT model of docs/FORMULATION.md, built with python-mip the way a python-mip user writes it
(and the other linear presets: olct-univariate, oct-h).

This is the baseline olctc replaces: a loop over nodes and points, one ``xsum`` per split score, one
``add_constr`` per row, straight from the paper's equations. It shares no code with
``olctc.formulation``, so it doubles as an independent check of the builder: with the same names,
the model it writes equals olctc's entry for entry (``tests/test_independent_build.py``), and
``benchmarks/compile_speed.py --mip-styles model`` times it.

Names and orders follow olctc's (``w_t_j``, ``route_l_t_i``, ``loss_t_k_i`` ...) so that two files can be
compared by name; zero features of a point are left out of its rows, as olctc leaves them out.
"""
from __future__ import annotations

import math
from typing import Sequence

import mip
import numpy as np


def _leaves_under(t: int, first_last: int) -> list[int]:
    """Last-layer nodes in the subtree of t (t itself if it is one)."""
    if t >= first_last:
        return [t]
    return _leaves_under(2 * t + 1, first_last) + _leaves_under(2 * t + 2, first_last)


def _tangents(points: Sequence[float]) -> list[tuple[float, float]]:
    """(g, c) per tangent point v: xi >= c - g u, f(v) = log(1 + e^-v), g = -f'(v), c = f(v) + g v."""
    out = []
    for v in points:
        if v == math.inf:
            continue  # the bound xi >= 0
        if v == -math.inf:
            out.append((1.0, 0.0))
        else:
            g = 1.0 / (1.0 + math.exp(v))
            f = math.log1p(math.exp(-v)) if v >= 0 else -v + math.log1p(math.exp(v))
            out.append((g, f + g * v))
    return out


def build_olct(X: np.ndarray, y: np.ndarray, depth: int, C: Sequence[float],
               tangents: Sequence[float] = (-math.inf, 0.0, math.inf), M: float = 100.0, eps: float = 1e-5,
               solver_name: str = "HIGHS") -> mip.Model:
    """OLCT (logistic tangents, L1 via w = w_pos - w_neg) for standardised X and y in {-1, +1}."""
    return build_tree(X, y, "olct", depth, C, tangents, M, eps, solver_name=solver_name)


def build_tree(X: np.ndarray, y: np.ndarray, preset: str, depth: int, C: Sequence[float],
               tangents: Sequence[float] = (-math.inf, 0.0, math.inf), M: float = 100.0, eps: float = 1e-5,
               alpha: float = 1.0, budget: int = 1, solver_name: str = "HIGHS",
               class_weight: tuple[float, float] = (1.0, 1.0)) -> mip.Model:
    """The linear presets: ``olct``, ``olct-univariate`` (L1 + at most ``budget`` features per split) and
    ``oct-h`` (misclassification at the last layer, cost ``alpha`` per feature used, ||w_t||_1 <= 1).
    ``class_weight``: (weight of the y = -1 points, of the y = +1 points), multiplying their xi's cost."""
    if preset not in ("olct", "olct-univariate", "oct-h"):
        raise ValueError(f"preset {preset!r}: one of olct, olct-univariate, oct-h")
    octh = preset == "oct-h"
    n, p = X.shape
    nodes = range(2 ** depth - 1)
    first_last = 2 ** (depth - 1) - 1
    last = range(first_last, 2 ** depth - 1)
    layer = {t: int(math.log2(t + 1)) + 1 for t in nodes}
    m = mip.Model(solver_name=solver_name)
    m.verbose = 0
    w = {(t, j): m.add_var(f"w_{t}_{j}", lb=-mip.INF) for t in nodes for j in range(p)}
    b = {t: m.add_var(f"b_{t}", lb=-mip.INF) for t in nodes}
    l1_cost = 0.0 if octh else 1.0
    wp = {(t, j): m.add_var(f"w_pos_{t}_{j}", obj=l1_cost) for t in nodes for j in range(p)}
    wn = {(t, j): m.add_var(f"w_neg_{t}_{j}", obj=l1_cost) for t in nodes for j in range(p)}
    if preset != "olct":
        delta = {(t, j): m.add_var(f"delta_{t}_{j}", var_type=mip.BINARY, obj=alpha if octh else 0.0)
                 for t in nodes for j in range(p)}
    z = {(s, i): m.add_var(f"z_{s}_{i}", var_type=mip.BINARY) for s in last for i in range(n)}
    if octh:
        q = {i: m.add_var(f"q_{i}", var_type=mip.BINARY) for i in range(n)}
    loss_layers = [depth] if octh else range(1, depth + 1)
    xi = {(h, i): m.add_var(f"xi_{h}_{i}", obj=float(C[h - 1]) * class_weight[int(y[i] > 0)])
          for h in loss_layers for i in range(n)}

    for i in range(n):
        m.add_constr(mip.xsum(z[s, i] for s in last) == 1, name=f"assign_{i}")
    support = [np.flatnonzero(X[i]).tolist() for i in range(n)]
    score = {(t, i): mip.xsum(float(X[i, j]) * w[t, j] for j in support[i]) + b[t] for t in nodes for i in range(n)}
    for side in ("l", "r"):
        for t in nodes:
            if t >= first_last:
                continue
            leaves = _leaves_under(2 * t + 1 if side == "l" else 2 * t + 2, first_last)
            for i in range(n):
                zs = mip.xsum(z[s, i] for s in leaves)
                if side == "l":
                    m.add_constr(score[t, i] + M * zs <= M, name=f"route_l_{t}_{i}")
                else:
                    m.add_constr(score[t, i] - M * zs >= eps - M, name=f"route_r_{t}_{i}")
    if octh:
        # z = 1, q = 0 forces score <= 0; z = 1, q = 1 forces score >= eps; xi_i counts an error.
        for s in last:
            for i in range(n):
                m.add_constr(score[s, i] + M * z[s, i] - 2 * M * q[i] <= M, name=f"mis_up_{s}_{i}")
        for s in last:
            for i in range(n):
                m.add_constr(score[s, i] - M * z[s, i] - 2 * M * q[i] >= eps - 3 * M, name=f"mis_lo_{s}_{i}")
        for i in range(n):
            m.add_constr(xi[depth, i] + (q[i] if y[i] > 0 else -q[i]) == (1 if y[i] > 0 else 0), name=f"err_{i}")
    else:
        for t in nodes:
            under = _leaves_under(t, first_last)
            for k, (g, c) in enumerate(_tangents(tangents)):
                for i in range(n):
                    u = float(g * y[i]) * score[t, i]
                    if t == 0:  # every point passes the root
                        m.add_constr(xi[layer[t], i] + u >= c, name=f"loss_{t}_{k}_{i}")
                    else:
                        m.add_constr(xi[layer[t], i] + u - M * mip.xsum(z[s, i] for s in under) >= c - M,
                                     name=f"loss_{t}_{k}_{i}")
    for t in nodes:
        for j in range(p):
            m.add_constr(w[t, j] - wp[t, j] + wn[t, j] == 0, name=f"l1_{t}_{j}")
    if preset != "olct":
        big = 1.0 if octh else M  # ||w||_1 <= 1 bounds |w_j| by 1
        for sense in ("up", "lo"):
            for t in nodes:
                for j in range(p):
                    if sense == "up":
                        m.add_constr(w[t, j] - big * delta[t, j] <= 0, name=f"l0_up_{t}_{j}")
                    else:
                        m.add_constr(w[t, j] + big * delta[t, j] >= 0, name=f"l0_lo_{t}_{j}")
    if preset == "olct-univariate":
        for t in nodes:
            m.add_constr(mip.xsum(delta[t, j] for j in range(p)) <= budget, name=f"budget_{t}")
    if octh:
        for t in nodes:
            m.add_constr(mip.xsum(wp[t, j] + wn[t, j] for j in range(p)) <= 1, name=f"norm_{t}")
    return m
