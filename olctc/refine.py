"""Refinement of a trained tree (paper Remark 1): refit the last layer with the exact logistic loss.

The MILP minimises a piecewise-linear under-estimate of the logistic loss. Once routing is fixed, each
last-layer node s is an independent L1-regularised logistic regression on the points routed to it:
its share of the exact objective is ``||w_s||_1 + C_d sum_{i -> s} log(1 + exp(-y_i (w_s.x_i + b_s)))``
with an unpenalised intercept (each point's loss times its class weight when the spec has class weights,
``TreeSpec.class_weight``). Refitting it exactly cannot change the routing (only last-layer nodes
change), so the exact tree objective changes by the node's share only; a refit is kept only if the
exact objective does not increase.

The node problem is solved by ``fit_l1_logistic``: scikit-learn's liblinear (which penalises the
intercept, so it is given a large ``intercept_scaling`` that makes that penalty negligible), then
polished to the exact optimum by L-BFGS-B on the smooth split form ``w = w+ - w-, w+, w- >= 0``. The
solver ``saga`` does not penalise the intercept but, measured on the vendored data at C = 100, stops
3 % above the optimum after 40 s (breast), so it is not used.
"""
from __future__ import annotations

import contextlib
import inspect
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from threadpoolctl import threadpool_limits

from olctc import fpenv
from olctc._sklearn import sklearn_module
from olctc.background import check_abandoned
from olctc.data import check_real
from olctc.errors import OlctcError, is_real, param_error
from olctc.formulation.topology import Topology
from olctc.objective import ZERO_WEIGHT, class_mass, tree_objective, weighted_sum
from olctc.spec import TreeSpec

__all__ = ["RefineReport", "NodeRefit", "refine", "fit_l1_logistic", "l1_logistic_objective"]

#: liblinear adds a constant feature of this value and penalises its weight: the intercept's penalty is
#: |b| / scaling, negligible next to the objective; the L-BFGS-B polish then removes it exactly.
_INTERCEPT_SCALING = 1e3
_MAX_FLOAT = float(np.finfo(np.float64).max)
#: Nodes of at least this many cells whose columns are mostly one value (binary or one-hot columns, still
#: mostly one value each once standardised) are handed to liblinear as sparse X - median, see
#: ``_shifted_sparse``.
_SPARSE_MIN_CELLS = 200_000
_SPARSE_MAX_DENSITY = 0.15  # phishing's 22% was 10-20% slower sparse (benchmarks/warm_start_speed.py)
#: scikit-learn's liblinear draws from one random generator per process, seeded by each fit, and fits without
#: holding the GIL: fits running at once on threads (compiles in a thread pool, a warm start beside a fit)
#: drew each other's numbers, and the same data gave another warm start (measured: 5 of 40 starts differed
#: with 4 threads; scikit-learn issue 31883). Our fits take turns; ones outside olctc are not covered. The
#: warm start's SVC (libsvm) fits take the same turns: each fit's catch_warnings edits the process's warning
#: filters, and two on threads at once could leave the other's filter behind. Every fit goes through
#: ``linear_fit``.
_SKLEARN_FITS = threading.Lock()

#: The polish's one-BLAS-thread limit (below) is one setting per process, and threadpoolctl lets one thread at
#: a time set it: limits entered and left out of order by threads polishing at once restored a limit another
#: thread had set, and left the process's BLAS at one thread for good. Polishes take turns: each limit
#: starts from the true setting and restores it.
_POLISH = threading.Lock()

#: The thread's polish deadline (``polish_deadline``): fit's time limit. A polish had none: 40,000 columns of 12
#: rows took fit 2.5x its limit in L-BFGS-B's iterations (QA 2026-12-05).
_DEADLINE = threading.local()


@contextlib.contextmanager
def polish_deadline(at: float | None) -> Iterator[list[bool]]:
    """Polishes on this thread during the block stop at ``time.perf_counter()`` ``at`` (None: no deadline), with
    the iterate they have (L-BFGS-B's iterates only go down). The list yielded holds True once one stopped."""
    stopped: list[bool] = []
    before = getattr(_DEADLINE, "value", None)
    _DEADLINE.value = None if at is None else (at, stopped)
    try:
        yield stopped
    finally:
        _DEADLINE.value = before


def _polish_step(_: Any) -> None:
    """L-BFGS-B's callback: an interrupt (``check_abandoned``), or the deadline, ends the polish."""
    check_abandoned()
    deadline = getattr(_DEADLINE, "value", None)
    if deadline is not None and time.perf_counter() > deadline[0]:
        if not deadline[1]:
            deadline[1].append(True)
        raise StopIteration  # scipy >= 1.11: minimize returns the last iterate


# ---------------------------------------------------------------- the node problem

def l1_logistic_objective(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray, C: float,
                          sample_weight: np.ndarray | None = None) -> float:
    """``||w||_1 + C sum_i s_i log(1 + exp(-y_i (w.x_i + b)))`` (the intercept is not penalised).

    Parameters
    ----------
    w, b : weights (p,) and intercept.
    X, y : points (n, p) and labels in {-1, +1}.
    C : loss weight.
    sample_weight : s_i, each point's weight (None: all 1).
    """
    return float(np.abs(w).sum() + C * weighted_sum(np.logaddexp(0.0, -y * (X @ w + b)), sample_weight))


def _sklearn_l1_logistic(C: float, random_state: int | None) -> Any:
    LogisticRegression = sklearn_module("sklearn.linear_model").LogisticRegression

    kw: dict[str, Any] = dict(C=C, solver="liblinear", intercept_scaling=_INTERCEPT_SCALING, tol=1e-6,
                              max_iter=10_000, random_state=random_state)
    # scikit-learn >= 1.8 deprecates `penalty` in favour of l1_ratio (1.0 is the pure L1 penalty).
    if inspect.signature(LogisticRegression).parameters["penalty"].default == "deprecated":
        kw["l1_ratio"] = 1.0
    else:
        kw["penalty"] = "l1"
    return LogisticRegression(**kw)


def sklearn_l1_logistic(X: np.ndarray, y: np.ndarray, C: float, random_state: int | None = 0,
                        sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """scikit-learn's L1 logistic regression (liblinear, large intercept scaling): (w, b), unpolished."""
    model = _sklearn_l1_logistic(C, random_state)
    return linear_fit(model, X, y, sample_weight)


def linear_fit(model: Any, X: np.ndarray, y: np.ndarray,
               sample_weight: np.ndarray | None) -> tuple[np.ndarray, float]:
    """(w, b) of a scikit-learn linear model (liblinear's LogisticRegression, libsvm's linear SVC) fitted to
    (X, y), one fit at a time (``_SKLEARN_FITS``), in the default floating-point environment (``olctc.fpenv``),
    its ConvergenceWarning silenced: liblinear's early stop is finished by the polish, and a warm start's SVC
    needs no more."""
    ConvergenceWarning = sklearn_module("sklearn.exceptions").ConvergenceWarning

    with _SKLEARN_FITS, warnings.catch_warnings(), fpenv.default():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, sample_weight=sample_weight)
    return np.asarray(model.coef_[0], dtype=float).copy(), float(model.intercept_[0])


def _shifted_sparse(X: np.ndarray) -> tuple[Any, np.ndarray] | None:
    """``(S, c)`` with ``X = S + c`` (c each column's median, S sparse CSR), or None if S would not be sparse.

    Standardising makes binary and one-hot columns dense, but each is still mostly one value (its median,
    when that value fills more than half the column), and w.x + b = w.(x - c) + (b + w.c): the same fit on
    the nonzeros of x - c only. liblinear's cost is the nonzeros: a6a's warm start at depth 2 (3 nodes, 8%
    nonzero after the shift) took 2.4 s dense and 0.26 s so; w5a's (3.9%) 6.0 s and 0.8 s.
    """
    if X.shape[0] * X.shape[1] < _SPARSE_MIN_CELLS:  # a dense fit there takes milliseconds
        return None
    from scipy.sparse import csr_matrix

    c = np.median(X, axis=0)
    D = X - c
    if np.count_nonzero(D) > _SPARSE_MAX_DENSITY * D.size:
        return None
    return csr_matrix(D), c


def _cheap_l1_logistic(X: np.ndarray, y: np.ndarray, C: float, random_state: int | None,
                       sample_weight: np.ndarray | None, shifted: tuple[Any, np.ndarray] | None
                       ) -> tuple[np.ndarray, float]:
    """A fast, approximate liblinear fit (loose tolerance, moderate intercept scaling); ``shifted``: X's
    ``_shifted_sparse``."""
    model = _sklearn_l1_logistic(C, random_state)
    model.set_params(tol=1e-3, intercept_scaling=10.0, max_iter=1000)
    if shifted is None:
        return linear_fit(model, X, y, sample_weight)
    S, c = shifted
    # The shift moves the intercept away from 0 (b + w.c), where liblinear's penalty on it, |b| / scaling,
    # weighs more: a larger scaling keeps it as small as the dense fit's. Measured on a6a and w5a at depths
    # 2 and 3: warm-start objectives within 0.6% of the dense fit's, lower in 3 of 4.
    model.set_params(intercept_scaling=100.0)
    w, b = linear_fit(model, S, y, sample_weight)
    return w, b - float(w @ c)


def _polish(X: np.ndarray, y: np.ndarray, C: float, w0: np.ndarray, b0: float,
            sample_weight: np.ndarray | None, shifted: tuple[Any, np.ndarray] | None) -> tuple[np.ndarray, float]:
    """L-BFGS-B on the smooth bound-constrained split form, started at (w0, b0), in the default floating-point
    environment: OpenBLAS's dnrm2, which it calls, sums on the x87 FPU (``olctc.fpenv``)."""
    p = X.shape[1]
    Cs = C if sample_weight is None else C * sample_weight  # each point's loss weight
    # X = S + c with S sparse where standardised binary columns make it so (``shifted``, X's _shifted_sparse): the
    # products with X, nearly all of each evaluation, on S's nonzeros only. w5a's refinement took 1.6 s of
    # products dense.
    if shifted is None:
        def times(u: np.ndarray) -> np.ndarray:
            return X @ u

        def times_t(d: np.ndarray) -> np.ndarray:
            return X.T @ d
    else:
        S, c = shifted
        St = S.T.tocsr()

        def times(u: np.ndarray) -> np.ndarray:
            return S @ u + float(c @ u)

        def times_t(d: np.ndarray) -> np.ndarray:
            return St @ d + c * float(d.sum())

    def fun(v: np.ndarray) -> tuple[float, np.ndarray]:
        wp, wn, b = v[:p], v[p:2 * p], v[-1]
        m = y * (times(wp - wn) + b)
        # d/ds log(1 + exp(-y s)) = -y sigma(-m); expit keeps it finite for any margin.
        ds = -Cs * y * expit(-m)
        gw = times_t(ds)
        f = wp.sum() + wn.sum() + float(np.sum(Cs * np.logaddexp(0.0, -m)))
        return float(f), np.concatenate([1.0 + gw, 1.0 - gw, [ds.sum()]])

    v0 = np.concatenate([np.maximum(w0, 0.0), np.maximum(-w0, 0.0), [b0]])
    bounds = [(0.0, None)] * (2 * p) + [(None, None)]
    # One BLAS thread: scipy's L-BFGS-B calls BLAS on tiny vectors, and a multi-threaded BLAS makes each
    # iteration ~10x slower (measured: 7 ms instead of 0.1 ms per iteration on 2 cores).
    with _POLISH, threadpool_limits(1, user_api="blas"), fpenv.default():
        res = minimize(fun, v0, jac=True, method="L-BFGS-B", bounds=bounds, callback=_polish_step,
                       options={"maxiter": 20_000, "maxcor": 30, "ftol": 1e-15, "gtol": 1e-10})
    v = res.x
    return v[:p] - v[p:2 * p], float(v[-1])


def fit_l1_logistic(X: np.ndarray, y: np.ndarray, C: float, *, random_state: int | None = 0,
                    polish: bool = True, sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Minimise ``||w||_1 + C sum_i s_i log(1 + exp(-y_i (w.x_i + b)))`` with b unpenalised.

    Parameters
    ----------
    X : (n, p) points; p may be 0 (intercept only).
    y : (n,) labels in {-1, +1}, both classes present.
    C : loss weight (> 0).
    random_state : passed to liblinear.
    polish : run the L-BFGS-B polish (exact optimum); False returns a fast liblinear fit (tol 1e-3).
    sample_weight : s_i > 0, each point's weight (None: all 1).

    Returns
    -------
    (w, b) : the better (lower objective) of liblinear's solution and its polish.
    """
    # labels 0/1 fitted silently to w = 0 (a 0 label has no loss), a 1-D X was an IndexError deep inside
    X = _as_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    if not is_real(C) or not (0 < C <= _MAX_FLOAT):  # 10**400 is no float either
        raise param_error("C", "a finite number > 0", C)
    if sample_weight is not None:
        sample_weight = _sample_weights(sample_weight, y)
    n_pos, n = int((y > 0).sum()), y.shape[0]
    if n_pos == 0 or n_pos == n:
        raise OlctcError(f"an L1 logistic fit needs both classes; got {n} point(s) of one class")
    sw = sample_weight
    mass_pos, mass_neg = class_mass(y, sw)
    log_odds = float(np.log(mass_pos / mass_neg))  # the (weighted) log-odds: the optimum with w = 0
    if X.shape[1] == 0:
        return np.zeros(0), log_odds
    shifted = _shifted_sparse(X)  # once: the liblinear start and both polishes use it
    if not polish:
        return _cheap_l1_logistic(X, y, C, random_state, sw, shifted)
    # A loose liblinear fit is a cheap start; liblinear to tol 1e-6 with a large intercept scaling took
    # 39 s on one a6a node, while L-BFGS-B on the split form reaches the optimum in 2-3 s. The cold start
    # from zero guards against liblinear's start being a poor basin for the bound-constrained polish.
    w, b = _cheap_l1_logistic(X, y, C, random_state, sw, shifted)
    best = (w, b, l1_logistic_objective(w, b, X, y, C, sw))
    for w0, b0 in ((w, b), (np.zeros(X.shape[1]), log_odds)):
        w2, b2 = _polish(X, y, C, w0, b0, sw, shifted)
        f2 = l1_logistic_objective(w2, b2, X, y, C, sw)
        if f2 <= best[2]:
            best = (w2, b2, f2)
    return best[0], best[1]


# ---------------------------------------------------------------- refinement

@dataclass
class NodeRefit:
    """What refinement did at one last-layer node.

    ``status`` is ``"refit"`` (kept), ``"worse"`` (refit discarded: the exact objective would increase),
    ``"one class"`` or ``"empty"`` (no refit attempted). Shares are the node's part of the exact
    objective, ``||w||_1 + C_d * logloss`` over its points.
    """

    node: int
    n_points: int
    n_positive: int
    status: str
    share_before: float
    share_after: float
    features: list[int] = field(default_factory=list)


@dataclass
class RefineReport:
    """Exact objective before and after refinement, and what happened at each last-layer node."""

    objective_before: float
    objective_after: float
    nodes_refit: list[int]
    nodes_kept: list[int]
    details: list[NodeRefit]
    message: str = ""

    @property
    def improvement(self) -> float:
        return self.objective_before - self.objective_after


def check_tree_inputs(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray,
                      spec: TreeSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate (W, b, X, y) against the spec; float copies, or OlctcError naming the problem."""
    if not isinstance(spec, TreeSpec):  # None: "'NoneType' object has no attribute 'depth'"
        raise param_error("spec", "a TreeSpec (olctc.spec.make_spec)", spec)
    X = _as_matrix(X, "X")
    y = check_labels(y, X.shape[0])
    n_nodes = 2 ** spec.depth - 1
    W = np.array(W, dtype=float, copy=True)
    b = np.array(b, dtype=float, copy=True)
    if W.shape != (n_nodes, X.shape[1]):
        raise OlctcError(f"W must have shape ({n_nodes}, {X.shape[1]}) (branch nodes of depth {spec.depth}, "
                         f"features of X); got {W.shape}")
    if b.shape != (n_nodes,):
        raise OlctcError(f"b must have shape ({n_nodes},); got {b.shape}")
    if not (np.isfinite(W).all() and np.isfinite(b).all()):
        raise OlctcError("W and b must be finite")
    return W, b, X, y


def _sample_weights(sample_weight: Any, y: np.ndarray) -> np.ndarray:
    """fit_l1_logistic's weights: finite, >= 0, one per point, some > 0 in each class; else OlctcError."""
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise OlctcError("sample_weight must be numbers, one per point") from None
    if w.shape != y.shape:
        raise OlctcError(f"sample_weight must be 1-D with one weight per point ({y.shape[0]}); got shape {w.shape}")
    if not (np.isfinite(w).all() and (w >= 0).all()):
        raise OlctcError("sample_weight must be finite and >= 0")
    if not ((w[y > 0] > 0).any() and (w[y < 0] > 0).any()):  # a class of weight 0: a division by zero
        raise OlctcError("sample_weight must give some point of each class a weight > 0")
    return w


def _as_matrix(X: Any, name: str) -> np.ndarray:
    check_real(X, name)
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise OlctcError(f"{name} must be a numeric array") from None
    if X.ndim != 2:
        raise OlctcError(f"{name} must be a 2-D array; got {X.ndim} dimension(s)")
    if not np.isfinite(X).all():
        raise OlctcError(f"{name} must be finite")
    return X


def check_labels(y: Any, n: int) -> np.ndarray:
    """y as float labels in {-1, +1}, one per point, or OlctcError."""
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        raise OlctcError("y must hold labels -1 and +1") from None
    if y.shape != (n,):
        raise OlctcError(f"y must be 1-D with one label per row of X ({n}); got shape {y.shape}")
    if not np.isin(y, (-1.0, 1.0)).all():
        bad = y[~np.isin(y, (-1.0, 1.0))][0]
        raise OlctcError(f"y must hold labels -1 and +1 only; got {float(bad)!r}")  # not np.float64(0.0)
    return y


def _share(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray, C: float,
           sample_weight: np.ndarray | None) -> float:
    return l1_logistic_objective(w, b, X, y, C, sample_weight) if y.size else float(np.abs(w).sum())


def refine(W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, spec: TreeSpec, *,
           threshold: float = 0.0,
           sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, RefineReport]:
    """Refit each last-layer node with exact L1 logistic regression; keep refits that do not hurt.

    Parameters
    ----------
    W, b : the tree, (n_nodes, p) and (n_nodes,), on standardised features.
    X, y : standardised training points and labels in {-1, +1}.
    spec : the tree spec; refinement applies to the logistic presets (``olct``, ``olct-univariate``).
        For ``olct-univariate`` a node is refit on the features it already uses (at most the budget B),
        so the hard budget still holds. Other presets are returned unchanged.
    threshold : routing goes right iff score > threshold (as ``tree_objective``).
    sample_weight : (n,) the points' loss weights (with the spec's class weights), or None.

    Returns
    -------
    (W, b, report) : refined copies and a RefineReport with the exact objective before and after.
    """
    W, b, X, y = check_tree_inputs(W, b, X, y, spec)
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=float)
        if sample_weight.shape != y.shape:
            raise OlctcError(f"sample_weight has shape {sample_weight.shape}; expected one weight per point "
                             f"{y.shape}")
    before = tree_objective(W, b, X, y, spec, loss="exact", threshold=threshold,
                            sample_weight=sample_weight).total
    topo = Topology(spec.depth)
    last = [int(t) for t in topo.last]
    if not spec.loss_kind.smooth:
        return W, b, RefineReport(before, before, [], last, [],
                                  f"refinement applies to logistic presets (olct, olct-univariate); "
                                  f"preset {spec.preset!r} ({spec.info.loss} loss) is returned unchanged")
    C = float(spec.C[-1])
    weights = spec.point_weights(y, sample_weight)
    reached = topo.route(X @ W.T + b[None, :], threshold)
    hfs = spec.info.l0 == "hfs"
    current = before
    refit, kept, details = [], [], []
    for s in last:
        idx = np.flatnonzero(reached == s)
        Xs, ys = X[idx], y[idx]
        ws = None if weights is None else weights[idx]
        n_pos = int((ys > 0).sum())
        share = _share(W[s], b[s], Xs, ys, C, ws)
        # With one class the node problem has no minimiser (b -> +-inf): nothing to refit.
        # one class by weight: points of weight 0 do not count
        status = "empty" if idx.size == 0 else "one class" if min(class_mass(ys, ws)) <= 0 else ""
        # the features in use by tree_objective's count, not every round-off a solver left
        feats = np.flatnonzero(np.abs(W[s]) > ZERO_WEIGHT) if hfs else np.arange(X.shape[1])
        if status:
            kept.append(s)
            details.append(NodeRefit(s, int(idx.size), n_pos, status, share, share, feats.tolist()))
            continue
        w_sub, b_new = fit_l1_logistic(Xs[:, feats], ys, C, sample_weight=ws)
        w_new = np.zeros(X.shape[1])
        w_new[feats] = w_sub
        W2, b2 = W.copy(), b.copy()
        W2[s], b2[s] = w_new, b_new
        obj = tree_objective(W2, b2, X, y, spec, loss="exact", threshold=threshold,
                             sample_weight=sample_weight).total
        new_share = _share(w_new, b_new, Xs, ys, C, ws)
        if obj <= current:
            W, b, current = W2, b2, obj
            refit.append(s)
            details.append(NodeRefit(s, int(idx.size), n_pos, "refit", share, new_share, feats.tolist()))
        else:
            kept.append(s)
            details.append(NodeRefit(s, int(idx.size), n_pos, "worse", share, share, feats.tolist()))
    msg = "" if not hfs else "olct-univariate: each node refit on the feature(s) it already uses (budget kept)"
    return W, b, RefineReport(before, current, refit, kept, details, msg)
