"""Warm start (paper Sec. 5.1): a greedy top-down tree, completed into a full feasible MILP assignment.

``greedy_tree`` fits each branch node on the training points that reach it, top-down, and routes them
by the sign of the score. ``complete_start`` turns any tree (W, b) into a value for EVERY column of the
MILP (CBC fixes integer columns missing from a start to 0, SCIP every missing column), after making the
tree admissible for the model's big-M / epsilon logic:

* |score| <= cap for every point at every node (cap = M - epsilon, tightened so that the big-M-relaxed
  loss rows of nodes a point does not pass never bind), else the node's (w, b) is scaled down;
* no point reaching a node that routes (or, for OCT-H, predicts) scores in the open band (0, epsilon),
  which the model can route neither way, else the node's b is shifted down (``_band_shift``).

``warm_start`` chains the two and verifies the result against the MILP's rows, bounds and integrality,
and the MILP objective against ``tree_objective`` (they agree because of the cap above).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from olctc._sklearn import sklearn_module
from olctc.background import check_abandoned
from olctc.errors import OlctcError, warn
from olctc.formulation.losses import LOSSES, loss_layers, tangent_lines, xi_costs
from olctc.formulation.topology import Topology
from olctc.milp import MILP
from olctc.objective import ZERO_WEIGHT, class_mass, tree_objective, weighted_sum
from olctc.refine import _as_matrix, check_labels, check_tree_inputs, fit_l1_logistic, linear_fit
from olctc.spec import TreeSpec

__all__ = ["greedy_tree", "complete_start", "warm_start", "score_cap"]

ROW_TOL = 1e-9  # the start must satisfy every row to this absolute tolerance
OBJ_RTOL = 1e-7  # MILP objective of the start vs tree_objective, relative
EXACT_FIT_CELLS = 200_000  # nodes with more points x features get the fast (approximate) L1 logistic fit


# ---------------------------------------------------------------- admissibility

def score_cap(spec: TreeSpec) -> float:
    """Largest |score| a start may have at any node, for any point.

    The relaxed routing rows of a node a point does not take need ``eps - M <= score <= M``. The relaxed
    loss rows ``xi >= c - g y score - M`` of a node the point does not pass stay slack (<= 0) iff
    ``|score| <= (M - c) / g`` for every tangent (g, c): M for logistic V0, M - 1 for hinge. That
    tightening is used only when it is not absurd (>= cap / 2, i.e. M >= 2 for hinge); otherwise those
    rows may bind and the start's MILP objective exceeds the tree's. A tree of depth 1 with such a loss has no
    row with M (no routing; every point passes the root, whose loss rows drop M): no cap (inf).
    """
    if spec.depth == 1 and spec.loss_kind.tangent_rows:
        return math.inf
    cap = spec.big_m - spec.epsilon
    if spec.loss_kind.tangent_rows:
        g, c = tangent_lines(spec)
        loss_cap = float(np.min((spec.big_m - c) / g)) if g.size else cap
        if loss_cap >= cap / 2:
            cap = min(cap, loss_cap)
    return cap


def _slack(spec: TreeSpec, scale: float) -> float:
    """Distance below 0 where band points land: far above rounding, far below epsilon."""
    return max(1e-3 * spec.epsilon, 64 * np.finfo(float).eps * (1.0 + scale))


def _band_shift(s: np.ndarray, spec: TreeSpec) -> float:
    """Downward shift D of b after which no score s_i - D lies in (0, epsilon).

    Repeat: B = points with score in (0, eps); if B is empty stop; shift by max(B) + slack, which sends
    every point of B to <= -slack < 0. Scores only decrease, so the set of positive scores loses all of
    B and gains nothing: it shrinks by at least one point per pass, and the loop ends after at most
    n passes. The total shift is (one original positive score) + slack and at most n (eps + slack).
    """
    eps = spec.epsilon
    slack = _slack(spec, float(np.abs(s).max(initial=0.0)))
    # The passes work on the positive scores, sorted once (D >= 0, so no other score enters a band). t = s - D
    # rounds monotonically in s, so each pass's band is a run of the sorted scores: [lo, hi) with lo the
    # first score > D and hi past the last whose t < eps, found by binary search, and max(t[band]) is
    # t of its last score. A pass costs O(log n) instead of O(n): scores packed within epsilon of each
    # other (small weights on 100,000 points) took thousands of passes over every point (quadratic).
    if not ((s > 0.0) & (s < eps)).any():  # the usual case: no pass at all, no sort needed (s - 0.0 is s)
        return 0.0
    pos = np.sort(s[s > 0.0])
    D = 0.0
    for _ in range(s.shape[0] + 1):
        lo = int(np.searchsorted(pos, D, side="right"))  # t > 0  <=>  s > D (exact in floating point)
        hi = _band_end(pos, D, eps, lo)
        if hi == lo:
            return D
        D = D + float(pos[hi - 1] - D) + slack
    raise AssertionError("band shift did not terminate within n passes")  # impossible, see docstring


def _band_end(pos: np.ndarray, D: float, eps: float, lo: int) -> int:
    """Index past the last of the sorted scores ``pos[lo:]`` whose ``pos - D`` (rounded) is < eps.

    ``pos - D < eps`` and ``pos < D + eps`` differ by rounding: the binary search on the latter is only
    a guess, corrected by the exact test on the distinct values around it (within a few ulps)."""
    m = pos.shape[0]
    hi = max(lo, int(np.searchsorted(pos, D + eps, side="left")))
    while hi < m and pos[hi] - D < eps:  # one more value belongs to the band
        hi = int(np.searchsorted(pos, pos[hi], side="right"))
    while hi > lo and not (pos[hi - 1] - D < eps):  # the last value does not
        hi = int(np.searchsorted(pos, pos[hi - 1], side="left"))
    return hi


@dataclass
class _Admit:
    """Adjustments made to a tree to fit the model, one line per change."""

    notes: list[str] = field(default_factory=list)


def _row_l1_max(X: np.ndarray, spec: TreeSpec) -> float:
    """max_i sum_j |x_ij|, which ``_admit_node`` needs for the L0 presets (0.0 for the others).

    Computed once per tree and passed to every node: recomputed in each node it made an n x p copy of X per
    node (a second or more per tree at 50,000 x 1000, depth 4)."""
    return float(np.abs(X).sum(axis=1).max(initial=0.0)) if spec.info.l0 is not None else 0.0


def _admit_node(w: np.ndarray, b: float, X: np.ndarray, reach: np.ndarray, spec: TreeSpec, t: int,
                band: bool, log: _Admit, row_l1_max: float | None = None) -> tuple[np.ndarray, float]:
    """Make node t's (w, b) admissible: scale into the cap, L0 clean-up, shift out of the band.

    ``row_l1_max``: ``_row_l1_max(X, spec)``, when the caller has it."""
    w = w.copy()
    info = spec.info
    n = X.shape[0]
    cap = score_cap(spec)
    slack = _slack(spec, cap if math.isfinite(cap) else 0.0)
    if row_l1_max is None:
        row_l1_max = _row_l1_max(X, spec)
    # Zeroing weights <= ZERO_WEIGHT (below) moves a score by at most this much.
    clean = ZERO_WEIGHT * row_l1_max if info.l0 is not None else 0.0
    # Scale a little inside the cap (slack: rounding of the scaled scores), and leave room for the band
    # shift, which lowers scores by at most min(cap_s + slack, n (eps + slack)).
    room = slack + clean
    cap_s = max(cap - n * (spec.epsilon + slack) - room, cap / 2 - room) if band else cap - room
    if cap_s <= 0.0:
        # Features so large (unstandardised, 1e11) that zeroing the weights scaled into the cap
        # (<= ZERO_WEIGHT) would move a score by more than the cap: no scaling of (w, b) is admissible,
        # and a negative factor flipped the node (OCT-H, "warm start infeasible"). A constant node is.
        log.notes.append(f"node {t}: no scaling of (w, b) fits big-M {spec.big_m:g} (epsilon {spec.epsilon:g}, "
                         f"features with sum_j |x_j| up to {clean / ZERO_WEIGHT:.3g}); node set to w = 0, b = 0")
        return np.zeros_like(w), 0.0
    factors, reasons = [1.0], []
    m = float(np.abs(X @ w + b).max(initial=0.0))
    # Relative tolerance: a node scaled into cap_s once (greedy_tree) recomputes its scores up to rounding
    # above cap_s, and admitting it again (warm_start -> admissible_tree) "scaled it by 1" (measured factor
    # 1 - 2e-16, breast C = 10, 0.1), reporting a no-op as an adjustment. cap_s keeps >= `room` (>= 1e-8)
    # below the cap, far more than this 1e-12 relative.
    if m > cap_s * (1.0 + 1e-12):
        factors.append(cap_s / m)
        reasons.append(f"|score| <= {cap_s:.6g} (big-M {spec.big_m:g})")
    if info.l0 is not None and info.regulariser != "l1_norm_bound":
        mw = float(np.abs(w).max(initial=0.0))
        if mw > spec.big_m:
            factors.append(spec.big_m / mw)
            reasons.append(f"|w_j| <= big-M {spec.big_m:g}")
    if info.regulariser == "l1_norm_bound":
        l1 = float(np.abs(w).sum())
        if l1 > 1.0:
            factors.append(1.0 / l1)
            reasons.append("||w||_1 <= 1 (OCT-H)")
    f = min(factors)
    if f < 1.0:
        w, b = w * f, b * f
        shown = f"{f:.6g}" if f < 0.9999 else f"{f:.12g}"  # a factor 1 - 5e-8 read "scaled by 1"
        log.notes.append(f"node {t}: (w, b) scaled by {shown} so that " + " and ".join(reasons))
    if info.l0 is not None:
        # delta = 1 iff w != 0 in the MILP, |w| > ZERO_WEIGHT in tree_objective: make them agree
        # (after scaling, which can make a weight tiny).
        tiny = (w != 0) & (np.abs(w) <= ZERO_WEIGHT)
        if tiny.any():
            w[tiny] = 0.0
            log.notes.append(f"node {t}: {int(tiny.sum())} weight(s) of size <= {ZERO_WEIGHT:g} set to 0")
    if band and reach.any():
        D = _band_shift(X[reach] @ w + b, spec)
        if D > 0.0:
            b = b - D
            log.notes.append(f"node {t}: b shifted by {-D:.3g} so that no point scores in (0, epsilon)")
    return w, b


def _band_nodes(spec: TreeSpec, h: int) -> bool:
    """Layer h routes (inner) or, for OCT-H, predicts with the score >= epsilon rule."""
    return h < spec.depth or spec.loss_kind.last_layer_only


def _route_threshold(spec: TreeSpec) -> float:
    """Scores above this go right. An admissible tree has no score in (0, epsilon), so any threshold in [0,
    epsilon) routes it alike, up to rounding: a score that one matrix product computes as 0 (band shift: left) and
    another as 5.6e-17 (routing at 0: right) made the start infeasible by epsilon (QA: 20 of 300 trees of weights
    in tenths on integer features). The midpoint is clear of both ends, as decoded trees' routing is."""
    return spec.epsilon / 2


def _route_layer(node_of: np.ndarray, S: np.ndarray, spec: TreeSpec) -> np.ndarray:
    """Children reached from node_of (``_route_threshold``)."""
    right = S[np.arange(S.shape[0]), node_of] > _route_threshold(spec)
    return 2 * node_of + 1 + right


def admissible_tree(W: np.ndarray, b: np.ndarray, X: np.ndarray,
                    spec: TreeSpec) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Top-down, make every node admissible (see module docstring); returns copies and the notes."""
    topo = Topology(spec.depth)
    W, b = W.copy(), b.copy()
    log = _Admit()
    node_of = np.zeros(X.shape[0], dtype=np.int64)
    l1_max = _row_l1_max(X, spec)
    for h in range(1, spec.depth + 1):
        for t in topo.layer_nodes(h):
            W[t], b[t] = _admit_node(W[t], b[t], X, node_of == t, spec, int(t), _band_nodes(spec, h), log, l1_max)
        if h < spec.depth:
            node_of = _route_layer(node_of, X @ W.T + b[None, :], spec)
    return W, b, log.notes


# ---------------------------------------------------------------- greedy tree

def _constant_b(y: np.ndarray, spec: TreeSpec, sample_weight: np.ndarray | None = None) -> float:
    """Intercept of a constant node (w = 0): the minimiser of the node's model loss over b.

    The model loss is convex piecewise linear in b, so its minimum is at 0 or a kink: the kinks of
    L(u) = max(0, max_k c_k - g_k u) at u and -u. OCT-H (0/1 loss): +-1 toward the (weighted) majority.
    """
    if y.shape[0] == 0:
        return 0.0
    n_pos, n_neg = class_mass(y, sample_weight)
    if not spec.loss_kind.tangent_rows:  # the 0/1 loss
        return 1.0 if n_pos > n_neg else -1.0
    g, c = tangent_lines(spec)
    if g.size == 0:  # tangent set {+inf} only: the model loss is identically 0
        return 0.0
    kinks = [0.0] + list(c / g)  # where each tangent reaches 0
    for i in range(g.size):
        for j in range(i + 1, g.size):
            if g[i] != g[j]:
                kinks.append((c[i] - c[j]) / (g[i] - g[j]))
    cap = score_cap(spec) / 2
    cand = np.unique(np.clip(np.concatenate([kinks, -np.asarray(kinks)]), -cap, cap))

    def L(u: np.ndarray) -> np.ndarray:
        return np.maximum(0.0, np.max(c[None, :] - g[None, :] * u[:, None], axis=1))

    phi = n_pos * L(cand) + n_neg * L(-cand)
    best = np.flatnonzero(phi <= np.min(phi) + 1e-12)
    return float(cand[best[np.argmin(np.abs(cand[best]))]])


def _hinge_fit(X: np.ndarray, y: np.ndarray, C: float,
               sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Linear SVM: min 1/2 ||w||^2 + C sum hinge, intercept unpenalised (libsvm's SVC).

    libsvm's default tolerance: at 1e-6 it took 50 s on a 168-point node of heart whose optimum is
    (nearly) constant, for a 1e-5 relative gain. A warm start does not need more.
    """
    SVC = sklearn_module("sklearn.svm").SVC

    if X.shape[1] == 0:
        n_pos, n_neg = class_mass(y, sample_weight)
        return np.zeros(0), 1.0 if n_pos > n_neg else -1.0
    # random_state: without one, SVC.fit draws a seed from numpy's global generator (the user's), though
    # only probability=True uses it
    return linear_fit(SVC(kernel="linear", C=C, tol=1e-3, max_iter=1_000_000, random_state=0), X, y,
                      sample_weight)


def _top_features(w: np.ndarray, B: int) -> np.ndarray:
    """Indices of the B largest |w_j| (nonzero ones only), sorted."""
    nz = np.flatnonzero(w != 0)
    keep = nz[np.argsort(-np.abs(w[nz]), kind="stable")[:B]]
    return np.sort(keep)


def _refit_on(fit: Any, X: np.ndarray, y: np.ndarray, feats: np.ndarray) -> tuple[np.ndarray, float]:
    w_sub, b = fit(X[:, feats], y)
    w = np.zeros(X.shape[1])
    w[feats] = w_sub
    return w, b


def _hinge_share(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray, C: float, spec: TreeSpec,
                 sample_weight: np.ndarray | None) -> float:
    nnz = int((np.abs(w) > ZERO_WEIGHT).sum())
    l0 = spec.alpha * max(0, nnz - (spec.effective_budget or 0)) if spec.info.l0 == "sfs" else 0.0
    hinge = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return float(C * weighted_sum(hinge, sample_weight) + 0.5 * w @ w + l0)


def _fit_node(X: np.ndarray, y: np.ndarray, spec: TreeSpec, h: int, min_points: int,
              random_state: int | None, sw: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Greedy classifier of one node at layer h from the points (X, y) that reach it (point weights ``sw``)."""
    p = X.shape[1]
    # one class by weight: a class whose points all weigh 0 is not there for the fit
    if y.shape[0] < min_points or min(class_mass(y, sw)) <= 0:
        return np.zeros(p), _constant_b(y, spec, sw)
    return _NODE_FITS[spec.info.loss](X, y, spec, h, random_state, sw)


def _hinge_node(X: np.ndarray, y: np.ndarray, spec: TreeSpec, h: int, random_state: int | None,
                sw: np.ndarray | None) -> tuple[np.ndarray, float]:
    """MARGOT's node: a linear SVM, cut to the budget's top features (HFS; SFS when that scores better), or
    the constant node when that scores better."""
    info = spec.info
    C = float(spec.C[h - 1])
    B = spec.effective_budget  # not None when info.l0 is "hfs" or "sfs": their presets have a default budget
    fit = lambda Xf, yf: _hinge_fit(Xf, yf, C, sw)  # noqa: E731
    w, b = fit(X, y)
    if info.l0 in ("hfs", "sfs") and B is not None and np.count_nonzero(w) > B:
        w2, b2 = _refit_on(fit, X, y, _top_features(w, B))
        # HFS must keep the budget; SFS keeps whichever is better for the node's objective share.
        if info.l0 == "hfs" or (_hinge_share(w2, b2, X, y, C, spec, sw)
                                <= _hinge_share(w, b, X, y, C, spec, sw)):
            w, b = w2, b2
    b0 = _constant_b(y, spec, sw)
    if _hinge_share(np.zeros(X.shape[1]), b0, X, y, C, spec, sw) <= _hinge_share(w, b, X, y, C, spec, sw):
        return np.zeros(X.shape[1]), b0
    return w, b


def _logistic_node(X: np.ndarray, y: np.ndarray, spec: TreeSpec, h: int, random_state: int | None,
                   sw: np.ndarray | None) -> tuple[np.ndarray, float]:
    """OLCT's node: an L1 logistic regression at the layer's C, refitted on the budget's top features (HFS)."""
    C = float(spec.C[h - 1])
    B = spec.effective_budget
    w, b = _logistic_fit(X, y, C, random_state, sw)
    if spec.info.l0 == "hfs" and B is not None and np.count_nonzero(w) > B:
        w, b = _refit_on(lambda Xf, yf: _logistic_fit(Xf, yf, C, random_state, sw), X, y, _top_features(w, B))
    if not np.any(w):
        return np.zeros(X.shape[1]), _constant_b(y, spec, sw)
    return w, b


def _logistic_fit(X: np.ndarray, y: np.ndarray, C: float, random_state: int | None,
                  sw: np.ndarray | None) -> tuple[np.ndarray, float]:
    # A start need not be exact: on large nodes the fast liblinear fit saves seconds per node (a6a's
    # root: 2 s instead of 8 s); small nodes get the exact fit, which refinement would compute anyway.
    return fit_l1_logistic(X, y, C, random_state=random_state,
                           polish=X.shape[0] * max(X.shape[1], 1) <= EXACT_FIT_CELLS, sample_weight=sw)


#: The L1 logistic strengths whose directions OCT-H's start tries at each node. OCT-H's C weighs errors against
#: alpha ||w||_0 and means nothing to a logistic fit: taken as its strength, Bertsimas and Dunn's C = 1/L
#: (0.006 on breast) gave w = 0 at every node, a constant start, and constant trees at 60 s on 7 of 10 sets.
OCTH_START_C: tuple[float, ...] = (1.0, 0.1, 10.0)


def _octh_node(X: np.ndarray, y: np.ndarray, spec: TreeSpec, h: int, random_state: int | None,
               sw: np.ndarray | None) -> tuple[np.ndarray, float]:
    """OCT-H's greedy node: of the L1 logistic directions at ``OCTH_START_C`` (normalised into ||w||_1 <= 1: same
    signs, same routing), the one whose routing as a classifier has the least C * errors + alpha * ||w||_0, the
    node's share of the objective, which scaling C and alpha together leaves as it is; a last-layer node keeps it
    only if it beats the constant classifier's share."""
    C = float(spec.C[h - 1])
    best: tuple[float, np.ndarray, float] | None = None
    for c in OCTH_START_C:
        w, b = _logistic_fit(X, y, c, random_state, sw)
        l1 = float(np.abs(w).sum())
        if l1 == 0.0:
            continue
        if l1 > 1.0:
            w, b = w / l1, b / l1
        errs = weighted_sum(((X @ w + b > 0) != (y > 0)).astype(float), sw)
        share = C * errs + spec.alpha * np.count_nonzero(w)
        if best is None or share < best[0]:
            best = (share, w, b)
    if best is None or (h == spec.depth and best[0] >= C * min(class_mass(y, sw))):
        return np.zeros(X.shape[1]), _constant_b(y, spec, sw)
    return best[1], best[2]


_NodeFit = Callable[[np.ndarray, np.ndarray, TreeSpec, int, int | None, np.ndarray | None], tuple[np.ndarray, float]]
#: The greedy start's node classifier of each loss (``Preset.loss``).
_NODE_FITS: dict[str, _NodeFit] = {"logistic": _logistic_node, "hinge": _hinge_node,
                                   "misclassification": _octh_node}


def greedy_tree(X: np.ndarray, y: np.ndarray, spec: TreeSpec, *, min_points: int = 10,
                random_state: int | None = 0, sample_weight: np.ndarray | None = None,
                top: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Top-down greedy tree (paper Sec. 5.1), admissible for the spec's MILP.

    Each node is fit on the points that reach it (each weighted by its sample weight times its class
    weight, when there are such weights): L1 logistic regression with that layer's C (olct,
    olct-univariate), a linear SVM (MARGOT presets), for OCT-H the best of the L1 logistic directions at
    ``OCTH_START_C`` by the node's share of the objective (``_octh_node``), normalised to ||w||_1 <= 1; under a
    hard budget B only the B largest |w_j| are kept and the node is refit on them. A node with one class or
    fewer than ``min_points`` points is constant (w = 0, b the best constant). Points are routed right iff
    score > epsilon / 2 (``_route_threshold``), after the node is made admissible (scores within big-M, none in
    (0, epsilon)), so the children see the routing the MILP will use.

    Parameters
    ----------
    X : (n, p) standardised features.
    y : (n,) labels in {-1, +1}.
    spec : the tree spec.
    min_points : nodes with fewer points get a constant classifier.
    random_state : passed to scikit-learn.
    top : (W, b) of a shallower tree (2^k - 1 nodes, heap order): its nodes are taken (made admissible)
        for the first k layers, and only the layers below are fit.

    Returns
    -------
    (W, b) : (n_nodes, p) and (n_nodes,) in heap order.
    """
    X = _as_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    if isinstance(min_points, bool) or not isinstance(min_points, (int, np.integer)) or min_points < 1:
        raise OlctcError(f"The 'min_points' parameter must be an integer >= 1. Got {min_points!r} instead.")
    topo = Topology(spec.depth)
    n, p = X.shape
    W = np.zeros((topo.n_nodes, p))
    b = np.zeros(topo.n_nodes)
    log = _Admit()
    weights = spec.point_weights(y, sample_weight)
    node_of = np.zeros(n, dtype=np.int64)
    l1_max = _row_l1_max(X, spec)
    given = 0 if top is None else top[0].shape[0]
    # the given tree's last layer routes in this deeper one: its splits face min_leaf as new nodes' do
    checked = (given - 1) // 2
    for h in range(1, spec.depth + 1):
        for t in topo.layer_nodes(h):
            reach = node_of == t
            check_abandoned()
            if t < given:
                assert top is not None
                w_t, b_t = top[0][t], float(top[1][t])
            else:
                w_t, b_t = _fit_node(X[reach], y[reach], spec, h, int(min_points), random_state,
                                     None if weights is None else weights[reach])
            W[t], b[t] = _admit_node(w_t, b_t, X, reach, spec, int(t), _band_nodes(spec, h), log, l1_max)
            if spec.min_leaf and t >= checked and h < spec.depth \
                    and _splits_too_small(X[reach] @ W[t] + b[t] > _route_threshold(spec), spec.min_leaf):
                # a side with fewer than min_leaf points cannot be split into nodes that hold as many:
                # the node sends all its points one way (the other subtree stays empty)
                W[t], b[t] = _admit_node(np.zeros(p), _constant_b(y[reach], spec, None if weights is None
                                                                  else weights[reach]),
                                         X, reach, spec, int(t), True, log, l1_max)
        if h < spec.depth:
            node_of = _route_layer(node_of, X @ W.T + b[None, :], spec)
    return W, b


def _splits_too_small(right: np.ndarray, min_leaf: int) -> bool:
    """Whether the points' sides (``right``, boolean) give a side between 1 and min_leaf - 1 points."""
    k = int(np.count_nonzero(right))
    return any(0 < c < min_leaf for c in (k, right.shape[0] - k))


class LeafTooSmall(OlctcError):
    """A tree routes to some last-layer node fewer training points than the spec's min_leaf (and not none)."""

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why or message

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # pickled (olctc.background): keep ``why``
        return type(self), (str(self), self.why)


def leaf_sizes_error(counts: np.ndarray, topo: Topology, min_leaf: int) -> str | None:
    """What breaks the min_leaf rule in ``counts`` (training points per last-layer node), else None."""
    small = np.flatnonzero((counts > 0) & (counts < min_leaf)) if min_leaf else np.array([], dtype=int)
    if small.size == 0:
        return None
    k = int(small[0])
    return (f"last-layer node {int(topo.last[k])} holds {int(counts[k])} training point(s), fewer than "
            f"min_leaf {min_leaf} (a node holds none or at least min_leaf)")


# ---------------------------------------------------------------- complete start

def _check_milp(milp: MILP, X: np.ndarray, spec: TreeSpec) -> None:
    n, p = X.shape
    n_nodes = 2 ** spec.depth - 1
    if milp.col_block("w").shape != (n_nodes, p):
        raise OlctcError(f"the MILP's w block has shape {milp.col_block('w').shape}; the spec (depth "
                         f"{spec.depth}) and X ({p} features) need ({n_nodes}, {p})")
    if milp.col_block("z").shape != (2 ** (spec.depth - 1), n):
        raise OlctcError(f"the MILP's z block has shape {milp.col_block('z').shape}; X has {n} points and "
                         f"depth {spec.depth} has {2 ** (spec.depth - 1)} last-layer nodes")
    if milp.has_col_block("q") != LOSSES[spec.info.loss].needs_q:
        raise OlctcError(f"the MILP was not built for preset {spec.preset!r} (q block "
                         f"{'present' if milp.has_col_block('q') else 'missing'})")
    layers = tuple(int(v) for v in milp.col_block("xi").labels[0])
    if layers != tuple(int(v) for v in loss_layers(spec)):
        raise OlctcError(f"the MILP's loss layers {layers} do not match preset {spec.preset!r}")


def _xi_from_rows(milp: MILP, x: np.ndarray) -> np.ndarray:
    """Smallest xi satisfying every row that contains xi, given all other columns of x.

    Each such row holds exactly one xi column with coefficient a: ``a xi + rest (sense) rhs``. Rows
    that bound xi below (G with a > 0, L with a < 0) give xi >= (rhs - rest) / a; equality rows fix it.
    Computed from the MILP's own rows, so it is right for every loss, tangent set and big-M relaxation.
    """
    blk = milp.col_block("xi")
    x = x.copy()
    x[blk.slice] = 0.0
    rest = milp.A @ x
    A_xi = milp.A[:, blk.slice].tocoo()
    rows, cols, a = A_xi.row, A_xi.col, A_xi.data
    if np.max(np.bincount(rows, minlength=milp.n_rows), initial=0) > 1:
        raise AssertionError("a row holds more than one xi column; _xi_from_rows assumes one")
    need = (milp.rhs[rows] - rest[rows]) / a
    sense = milp.sense[rows]
    lower = ((sense == "G") & (a > 0)) | ((sense == "L") & (a < 0))
    xi = milp.lb[blk.slice].copy()
    np.maximum.at(xi, cols[lower], need[lower])
    eq = sense == "E"
    xi[cols[eq]] = need[eq]
    return xi


def _assemble(milp: MILP, X: np.ndarray, spec: TreeSpec, W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Every column from an admissible (W, b)."""
    topo = Topology(spec.depth)
    n = X.shape[0]
    x = np.zeros(milp.n_cols)
    x[milp.col_block("w").slice] = W.ravel()
    x[milp.col_block("b").slice] = b
    if milp.has_col_block("w_pos"):
        x[milp.col_block("w_pos").slice] = np.maximum(W, 0.0).ravel()
        x[milp.col_block("w_neg").slice] = np.maximum(-W, 0.0).ravel()
    if milp.has_col_block("delta"):
        x[milp.col_block("delta").slice] = (W != 0).astype(float).ravel()
    if milp.has_col_block("excess"):
        nnz = (W != 0).sum(axis=1)
        x[milp.col_block("excess").slice] = np.maximum(0, nnz - spec.effective_budget)
    S = X @ W.T + b[None, :]
    reached = topo.route(S, _route_threshold(spec))
    z = np.zeros((topo.last.size, n))
    z[reached - topo.last[0], np.arange(n)] = 1.0
    x[milp.col_block("z").slice] = z.ravel()
    if milp.has_col_block("used"):
        x[milp.col_block("used").slice] = (z.sum(axis=1) > 0).astype(float)
    if milp.has_col_block("s"):
        x[milp.col_block("s").slice] = S.T.ravel()
    if milp.has_col_block("q"):
        x[milp.col_block("q").slice] = (S[np.arange(n), reached] > _route_threshold(spec)).astype(float)
    x[milp.col_block("xi").slice] = _xi_from_rows(milp, x)
    return x


def _verify(milp: MILP, x: np.ndarray) -> dict[str, float]:
    viol = milp.violation(x)
    if viol["rows"] > ROW_TOL or viol["bounds"] > 0.0 or viol["integrality"] > 0.0:
        name, v = milp.worst_row(x)
        raise AssertionError(f"warm start infeasible: worst row {name} violated by {v:.3g} "
                             f"(rows {viol['rows']:.3g}, bounds {viol['bounds']:.3g}, "
                             f"integrality {viol['integrality']:.3g})")
    return viol


def over_budget(W: np.ndarray, spec: TreeSpec) -> tuple[int, int] | None:
    """(node, its nonzero weights) of the first node above a hard L0 budget (margot-hfs, olct-univariate),
    else None."""
    if spec.info.l0 != "hfs":
        return None
    nnz = (W != 0).sum(axis=1)
    over = nnz > spec.effective_budget
    return (int(np.argmax(over)), int(nnz[np.argmax(over)])) if over.any() else None


def _complete(milp: MILP, X: Any, y: Any, spec: TreeSpec, W: Any,
              b: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    W, b, X, y = check_tree_inputs(W, b, X, y, spec)
    _check_milp(milp, X, spec)
    over = over_budget(W, spec)
    if over is not None:
        raise OlctcError(f"W row {over[0]} has {over[1]} nonzero weights; preset {spec.preset!r} allows at "
                         f"most {spec.effective_budget} per node (hard budget)")
    W, b, notes = admissible_tree(W, b, X, spec)
    x = _assemble(milp, X, spec, W, b)
    if spec.min_leaf:  # before _verify, whose AssertionError would only name the leaf_min row
        counts = milp.values(x, "z").sum(axis=1).round().astype(np.int64)
        why = leaf_sizes_error(counts, Topology(spec.depth), spec.min_leaf)
        if why is not None:
            raise LeafTooSmall(f"the tree cannot start this model: {why}", why)
    _verify(milp, x)
    return x, W, b, notes


def complete_start(milp: MILP, X: np.ndarray, y: np.ndarray, spec: TreeSpec, W: np.ndarray,
                   b: np.ndarray) -> np.ndarray:
    """A value for every MILP column from the tree (W, b), feasible for the MILP.

    The tree is first made admissible (module docstring; each change is reported as a warning),
    then w, b, w_pos/w_neg, delta (1 iff w != 0), excess (max(0, nnz - B)), z (routing), q (OCT-H:
    1 iff the last-layer score >= epsilon) are derived, and xi is the smallest value satisfying every
    row that contains it.

    Parameters
    ----------
    milp : the MILP built by ``build_milp(X, y, spec)``.
    X, y : its standardised features and labels in {-1, +1}.
    spec : its spec.
    W, b : the tree, (n_nodes, p) and (n_nodes,).

    Returns
    -------
    x : (n_cols,) start; rows hold to 1e-9, bounds and integrality exactly.
    """
    x, _, _, notes = _complete(milp, X, y, spec, W, b)
    for note in notes:
        warn(f"complete_start: {note}")
    return x


def _mismatch_cause(milp: MILP, y: np.ndarray, spec: TreeSpec, sample_weight: np.ndarray | None) -> str:
    """Why a start's MILP objective differs from its tree's: the model's loss weights are not those given here
    (a weighted model, its sample_weight left out), or else its big-M-relaxed rows bind."""
    if not milp.has_col_block("xi"):
        return "big-M-relaxed rows bind"
    costs, given = milp.c[milp.col_block("xi").slice], xi_costs(spec, np.asarray(y, dtype=float), sample_weight)
    if costs.shape != given.shape or not np.allclose(costs, given, rtol=1e-12, atol=0.0):
        return ("the model's point weights are not the sample_weight given here"
                + ("; pass the weights the model was built with" if sample_weight is None else ""))
    return "big-M-relaxed rows bind"


def warm_start(milp: MILP, X: np.ndarray, y: np.ndarray, spec: TreeSpec, *, min_points: int = 10,
               random_state: int | None = 0, sample_weight: np.ndarray | None = None,
               tree: tuple[np.ndarray, np.ndarray] | list[tuple[np.ndarray, np.ndarray]] | None = None,
               given_layers: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Greedy tree, completed into a verified MIP start (``sample_weight``: the points' weights, as
    the MILP was built with). ``tree``: (W, b) to start from instead of the greedy tree (its
    admissibility changes are in ``adjustments``; ``olctc.start_tree.start_weights`` makes them from a
    fitted tree); a list of such trees: each is tried, and the start of the lowest MILP objective kept
    (``info["tree"]``: its index). ``given_layers``: when fewer than the spec's, only the first layers of
    the trees were given (the layers below copy them): the greedy tree under those layers is tried too
    (``info["deepened"]``: "copies" or "greedy").

    Returns
    -------
    (x, info) : the start and a dict with ``objective`` (MILP objective of x), ``tree_objective``
        (``tree_objective`` of the tree at threshold epsilon/2), ``objective_matches``, ``violation``,
        ``adjustments`` (changes made to the greedy tree, normally none), ``W`` and ``b``.
    """
    X = _as_matrix(X, "X")
    extra: dict[str, Any] = {}
    if tree is None:
        W0, b0 = greedy_tree(X, y, spec, min_points=min_points, random_state=random_state,
                             sample_weight=sample_weight)
        x, W, b, notes = _complete(milp, X, y, spec, W0, b0)
        obj = milp.objective(x)
    else:
        best: tuple | None = None
        refused: LeafTooSmall | None = None
        for k, (W0, b0) in enumerate([tree] if isinstance(tree, tuple) else tree):
            tried = []
            first: dict[str, Any] = {"tree": k}
            try:
                x, W, b, notes = _complete(milp, X, y, spec, W0, b0)
                tried.append((milp.objective(x), x, W, b, notes, first))
            except LeafTooSmall as exc:  # another of the trees (or its greedy deepening) may fit the rule
                refused = refused or exc
            if given_layers is not None and given_layers < spec.depth:
                # Copies predict as the given tree but pay each copy's penalty and loss again; new nodes fit
                # on the points that reach them usually do better (not always: the fit is on the exact loss).
                top = 2 ** given_layers - 1
                Wg, bg = greedy_tree(X, y, spec, min_points=min_points, random_state=random_state,
                                     sample_weight=sample_weight, top=(W0[:top], b0[:top]))
                try:
                    xg, Wg, bg, notes_g = _complete(milp, X, y, spec, Wg, bg)
                except LeafTooSmall as exc:
                    refused = refused or exc
                else:
                    first["deepened"] = "copies"
                    tried.append((milp.objective(xg), xg, Wg, bg, notes_g, {"tree": k, "deepened": "greedy"}))
            for t in tried:
                if best is None or t[0] < best[0]:
                    best = t
        if best is None:
            if refused is not None:
                raise refused
            raise AssertionError("tree: an empty list of trees")
        obj, x, W, b, notes, extra = best
    tree_obj = tree_objective(W, b, X, np.asarray(y, dtype=float), spec, threshold=_route_threshold(spec),
                              sample_weight=sample_weight).total
    matches = abs(obj - tree_obj) <= OBJ_RTOL * max(1.0, abs(tree_obj))
    if not matches:
        warn(f"warm start: MILP objective {obj!r} differs from the tree's objective {tree_obj!r} "
             f"({_mismatch_cause(milp, y, spec, sample_weight)})")
    return x, {"objective": obj, "tree_objective": tree_obj, "objective_matches": matches,
               "violation": milp.violation(x), "adjustments": notes, "W": W, "b": b, **extra}
