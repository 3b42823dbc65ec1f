"""Scores of one run (calibration) and the paper's summaries across runs (gap CDF, Dolan-More profiles)."""
from __future__ import annotations

import numpy as np


def brier_score(y_pm: np.ndarray, p_pos: np.ndarray) -> float:
    """Mean squared error of the positive-class probability against labels in {-1, +1}.

    Parameters
    ----------
    y_pm : (n,) labels in {-1, +1}.
    p_pos : (n,) predicted probability of +1.
    """
    y01 = (np.asarray(y_pm) > 0).astype(float)
    p = np.asarray(p_pos, dtype=float)
    return float(np.mean((p - y01) ** 2)) if p.size else float("nan")


def expected_calibration_error(y_pm: np.ndarray, p_pos: np.ndarray, n_bins: int = 10) -> float:
    """ECE of the positive-class probability: equal-width bins on [0, 1], weighted |mean p - frequency|.

    A probability of exactly 1 falls in the last bin.
    """
    y01 = (np.asarray(y_pm) > 0).astype(float)
    p = np.asarray(p_pos, dtype=float)
    if not p.size:
        return float("nan")
    bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
    total = 0.0
    for k in np.unique(bins):
        m = bins == k
        total += m.sum() * abs(p[m].mean() - y01[m].mean())
    return float(total / p.size)


def gap_cdf(scores: np.ndarray, thresholds: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Fraction of instances where each model is within ``t`` of the best model, for each threshold.

    Parameters
    ----------
    scores : (n_instances, n_models); NaN = the model failed on that instance (never within any gap).
    thresholds : (k,) absolute gaps t >= 0.
    higher_is_better : True for accuracies, False for losses.

    Returns
    -------
    (n_models, k) array: F[m, j] = |{i : gap[i, m] <= t_j}| / n_instances, where
    gap[i, m] = best_i - scores[i, m] (accuracy) or scores[i, m] - best_i (loss).
    """
    s = np.asarray(scores, dtype=float)
    t = np.asarray(thresholds, dtype=float)
    if s.size == 0:
        return np.zeros((s.shape[1] if s.ndim == 2 else 0, t.size))
    sign = 1.0 if higher_is_better else -1.0
    ok = np.isfinite(s)
    # Not nanmax: an instance every model failed (an all-NaN row) would make numpy warn; here its best
    # is -inf and every model's gap inf, the same "never within any gap" as any failure.
    best = np.where(ok, sign * s, -np.inf).max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        gap = np.where(ok, best - sign * s, np.inf)
    # A tiny tolerance so that equal scores printed with different rounding still count as the best.
    return (gap[:, :, None] <= t[None, None, :] + 1e-12).mean(axis=0)


def performance_ratios(costs: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """Dolan-More ratios eta[i, m] = (c[i, m] + shift) / min_m (c[i, m] + shift); failures (NaN, inf) -> inf.

    ``shift`` > 0 makes ratios defined when the best cost is 0 (e.g. a tree with no nonzero weight).
    An instance that every model failed gets inf everywhere.
    """
    c = np.asarray(costs, dtype=float) + shift
    c = np.where(np.isfinite(c), c, np.inf)
    best = c.min(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = c / best
    r = np.where(np.isfinite(best), r, np.inf)
    # 0 / 0 (best cost 0 and no shift): the model matched the best.
    return np.where(np.isnan(r), 1.0, r)


def performance_profile(costs: np.ndarray, taus: np.ndarray, shift: float = 0.0) -> np.ndarray:
    """rho[m, j] = fraction of instances with ratio eta[i, m] <= taus[j] (Dolan & More 2002).

    Failures get eta = inf, i.e. the paper's eta_M above every tau plotted.
    """
    r = performance_ratios(costs, shift)
    t = np.asarray(taus, dtype=float)
    if r.shape[0] == 0:
        # No instance: nothing solved (as gap_cdf says), not numpy's NaN and "Mean of empty slice" warning.
        return np.zeros((r.shape[1], t.size))
    return (r[:, :, None] <= t[None, None, :] * (1 + 1e-12)).mean(axis=0)
