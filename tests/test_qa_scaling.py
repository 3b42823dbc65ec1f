"""QA of the scaling fixes (benchmarks/scaling.py measures them): the new code must give exactly what a
plain, obviously correct computation gives.

* ``warmstart._band_shift`` sorts the positive scores once and finds each pass's band by binary search
  (it rescanned every point on each pass: quadratic when thousands of scores lie within epsilon of
  each other). Compared bit for bit with the pass-by-pass loop over every point.
* ``warmstart._row_l1_max``: max_i sum_j |x_ij| (the L0 presets' clean-up bound) computed once per tree
  instead of once per node. Compared with a plain double loop; a node admitted with it passed in or
  computed inside is the same.
* ``report.summary_rows`` counts each cell's missing runs from one tally (it scanned the whole list of
  missing runs once per cell). Compared with a plain count.
"""
from __future__ import annotations

import numpy as np
import pytest

from olctc.bench.report import summary_rows
from olctc.spec import make_spec
from olctc.warmstart import _Admit, _admit_node, _band_shift, _row_l1_max, _slack, admissible_tree, greedy_tree


def _plain_band_shift(s: np.ndarray, eps: float, slack: float) -> float:
    """The definition: repeat { B = points with s - D in (0, eps); stop if none; D += max(B) + slack }."""
    D = 0.0
    values = [float(v) for v in s]
    while True:
        band = [v - D for v in values if 0.0 < v - D < eps]  # Python floats: the same IEEE doubles
        if not band:
            return D
        D = D + max(band) + slack


def _score_sets(eps: float, rng: np.random.Generator):
    yield np.zeros(0)
    yield np.full(7, -1.0)
    yield np.full(9, 0.5 * eps)  # ties inside the band
    yield np.array([0.0, eps, 2 * eps, -eps])  # on the band's edges
    for _ in range(25):
        n = int(rng.integers(1, 250))
        yield rng.normal(0.0, float(rng.choice([1e-6, 1e-4, 1e-2, 1.0])), n)
        yield np.round(rng.normal(0.0, 1e-3, n), int(rng.integers(3, 8)))  # many ties
        yield np.arange(n) * eps * float(rng.choice([0.5, 0.999999, 1.0, 1.000001]))  # chains at the edge
        yield np.cumsum(rng.uniform(0.0, 1.2 * eps, n)) - rng.uniform(0.0, 5 * eps)
        # large offsets: s - D and s < D + eps differ by rounding there
        yield rng.uniform(-eps, 3 * eps, n) + float(rng.choice([1e3, 1e8]))


@pytest.mark.parametrize("eps,big_m", [(1e-5, 100.0), (1e-3, 100.0), (0.1, 100.0), (1e-8, 1.0)])
def test_band_shift_equals_the_plain_loop(eps: float, big_m: float) -> None:
    spec = make_spec("olct", depth=2, C=1.0, epsilon=eps, big_m=big_m)
    rng = np.random.default_rng(int(eps * 1e9) % 1000)
    checked = shifted = 0
    for s in _score_sets(eps, rng):
        slack = _slack(spec, float(np.abs(s).max(initial=0.0)))
        want = _plain_band_shift(s, eps, slack)
        got = _band_shift(s, spec)
        assert got == want, (s[:10], got, want)
        t = s - got
        assert not ((t > 0) & (t < eps)).any()  # what the shift is for
        checked += 1
        shifted += got > 0
    assert shifted >= 10, (shifted, checked)  # the sets do exercise the passes


def test_band_shift_long_chain() -> None:
    """Scores packed closer than epsilon: one pass per few points (the quadratic case)."""
    eps = 1e-5
    spec = make_spec("olct", depth=2, C=1.0, epsilon=eps)
    rng = np.random.default_rng(0)
    s = rng.permutation(np.linspace(-2e-3, 2e-3, 1501) + rng.uniform(0.0, 1e-6, 1501))
    slack = _slack(spec, float(np.abs(s).max(initial=0.0)))
    want = _plain_band_shift(s, eps, slack)
    assert want > 50 * eps  # many passes
    assert _band_shift(s, spec) == want


def test_greedy_tree_shifts_a_wide_band() -> None:
    """A greedy tree whose nodes need the band shift (epsilon 0.5): no training point scores in (0, eps)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 4))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(400) > 0, 1.0, -1.0)
    spec = make_spec("olct", depth=2, C=1.0, epsilon=0.5)
    W, b = greedy_tree(X, y, spec)
    S = X @ W.T + b
    assert not ((S[:, 0] > 0) & (S[:, 0] < 0.5)).any()


def test_row_l1_max_equals_plain_loop_and_admission_is_unchanged() -> None:
    rng = np.random.default_rng(7)
    X = rng.standard_normal((60, 5)) * np.array([1.0, 1e3, 1e-3, 5.0, 1e6])
    plain = 0.0
    for row in X.tolist():
        total = 0.0
        for v in row:
            total += abs(v)
        plain = max(plain, total)
    for preset in ("olct-univariate", "margot-sfs", "margot-hfs"):
        spec = make_spec(preset, depth=2, C=1.0)
        assert _row_l1_max(X, spec) == pytest.approx(plain, rel=1e-13)  # numpy sums pairwise
        w, b = rng.standard_normal(5) * 50, 3.0
        reach = rng.random(60) < 0.5
        a_log, b_log = _Admit(), _Admit()
        wa, ba = _admit_node(w, b, X, reach, spec, 0, True, a_log)
        wb, bb = _admit_node(w, b, X, reach, spec, 0, True, b_log, _row_l1_max(X, spec))
        assert np.array_equal(wa, wb) and ba == bb and a_log.notes == b_log.notes
    assert _row_l1_max(X, make_spec("olct", depth=2, C=1.0)) == 0.0  # not needed without L0
    W = rng.standard_normal((3, 5))
    spec = make_spec("olct-univariate", depth=2, C=1.0)
    W1, b1, notes = admissible_tree(W * 1e-12, np.zeros(3), X, spec)  # weights below ZERO_WEIGHT: cleaned
    assert not W1.any() and notes


def test_summary_rows_missing_equals_plain_count() -> None:
    rng = np.random.default_rng(0)
    datasets, models, seeds = [f"d{k}" for k in range(6)], ["OLCT", "CART"], list(range(5))
    records, missing = [], []
    for ds in datasets:
        for seed in seeds:
            for m in models:
                if rng.random() < 0.4:
                    missing.append((ds, seed, m))
                else:
                    records.append({"dataset": ds, "seed": seed, "model": m, "status": "optimal",
                                    "test_balanced_accuracy": float(rng.uniform(0.5, 1.0))})
    missing.append(("elsewhere", 0, "OLCT"))  # a cell with no record: no row to count it in
    rows = summary_rows("models", records, missing)
    assert len(rows) == len({(r["dataset"], r["model"]) for r in records})
    for row in rows:
        plain = 0
        for ds, _, m in missing:
            if ds == row["dataset"] and m == row["model"]:
                plain += 1
        assert row["missing"] == plain
    assert sum(r["missing"] for r in rows) == len(missing) - 1
    assert summary_rows("models", records)[0]["missing"] == 0  # the default: nothing missing
