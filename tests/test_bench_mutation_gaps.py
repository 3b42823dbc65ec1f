"""Tests from a mutation pass of the bench (tasks, report) and of collect's scoring (QA 2026-12-06). Each test pins
at least one behaviour a mutant got wrong while the suite passed (some check more); the comments say which
(mutants, none a bug seen in olctc)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

import olctc.bench.report as report
from olctc.bench import experiments as ex
from olctc.bench import tasks as bench_tasks
from olctc.bench.metrics import brier_score, performance_profile
from olctc.cluster.scoring import validation_score
from olctc.data.arrays import from_arrays
from olctc.datasets import load
from olctc.fit import balanced_accuracy, fit
from olctc.spec import make_spec


@pytest.fixture(scope="module")
def haberman_tree():
    """A depth-1 OLCT tree fitted on every 6th row of haberman (HiGHS, one thread), and its validation rows."""
    ds = load("haberman")
    res = fit(ds.subset(np.arange(0, 306, 6)), make_spec("olct", 1, C=[1.0]), solver="highs", threads=1,
              verbose=False, test_size=0.0)
    return res.tree, ds.subset(np.arange(1, 306, 5))


def test_weighted_validation_accuracy_uses_the_weights(haberman_tree) -> None:
    # Mutant: collect's "accuracy" ignored the weight column (every point weight 1): 0.8197 unweighted, 0.6228 as
    # scikit-learn's accuracy_score with the weights.
    tree, va = haberman_tree
    w = np.where(va.y > 0, 3.0, 1.0) * (1 + np.arange(va.n) % 3)
    pred = np.where(tree.decision_function(va.X) > 0, 1, -1)
    want = metrics.accuracy_score(va.y, pred, sample_weight=w)
    assert want != pytest.approx(metrics.accuracy_score(va.y, pred), abs=0.1)  # the weights matter here
    assert validation_score("accuracy", tree, va.X, va.y, w) == pytest.approx(want, rel=1e-12)


# ---- olctc/bench/report.py --------------------------------------------------------------------------------

def _rec(ds: str, model: str, seed: int, bacc: float | None, status: str = "optimal", **kw) -> dict:
    r = {"dataset": ds, "model": model, "seed": seed, "status": status, "key": f"{ds}|{seed}|{model}", **kw}
    return r if bacc is None else {**r, "test_balanced_accuracy": bacc, "train_balanced_accuracy": bacc}


def test_summary_means_are_means_over_three_seeds() -> None:
    # Mutant: the summary's means taken as medians (2-seed benches cannot tell: 2 values' median is their mean).
    # Seeds 0, 42, 314 at 50, 60 and 91 %: mean 67, median 60; the authors' 68.3, 66.74, 71.43: mean 68.8233.
    rows = report.summary_rows("models", [_rec("heart", "CART", 0, 0.5, time_solve=1.0),
                                          _rec("heart", "CART", 42, 0.6, time_solve=2.0),
                                          _rec("heart", "CART", 314, 0.91, time_solve=6.0)])
    (row,) = rows
    assert row["test_bacc_mean"] == pytest.approx(67.0, abs=1e-12)
    assert row["train_bacc_mean"] == pytest.approx(67.0, abs=1e-12) and row["time_solve_mean"] == 3.0
    assert row["anchor_mean"] == pytest.approx((68.3 + 66.74 + 71.43) / 3, abs=1e-12)


def test_exact_train_loss_mean_only_over_logistic_runs() -> None:
    # Mutant: the exact training loss averaged over every preset's runs (10 and a MARGOT run's 30: 20).
    (row,) = report.summary_rows("models", [_rec("heart", "OLCT", 0, 0.6, preset="olct", exact_objective=10.0),
                                            _rec("heart", "OLCT", 42, 0.6, preset="margot", exact_objective=30.0)])
    assert row["exact_train_loss_mean"] == 10.0


def test_instances_need_every_model_and_failed_runs_are_nan() -> None:
    # Mutants: an instance kept when any model (not every one) has a record (heart seed 42 has no CART run);
    # a failed run's value (breast OLCT, status timeout, 0.9) put into the matrix as if it had finished.
    recs = [_rec("heart", "OLCT", 0, 0.6), _rec("heart", "CART", 0, 0.7), _rec("heart", "OLCT", 42, 0.8),
            _rec("breast", "OLCT", 0, 0.9, "timeout"), _rec("breast", "CART", 0, 0.5)]
    assert report.comparable_instances(recs, ["OLCT", "CART"]) == ([("breast", 0), ("heart", 0)], [("heart", 42)])
    inst, M = report.instance_matrix(recs, ["OLCT", "CART"], "test_balanced_accuracy")
    assert inst == [("breast", 0), ("heart", 0)]
    np.testing.assert_array_equal(M, [[np.nan, 0.5], [0.6, 0.7]])


def test_cart_runs_are_never_counted_optimal_and_missing_runs_are_counted() -> None:
    # Mutants: CART's greedy "optimal" status counted as proven (2 optimal); missing runs counted 1 per cell
    # however many seeds it lacks (2 here).
    (row,) = report.summary_rows("models", [_rec("heart", "CART", 0, 0.6), _rec("heart", "CART", 42, 0.6)],
                                 missing=[("heart", 1, "CART"), ("heart", 2, "CART")])
    assert row["optimal"] == 0 and row["missing"] == 2


def test_time_profile_floors_times_and_counts_unproven_runs_as_failed(tmp_path) -> None:
    # Mutants: times not floored at TIME_FLOOR (a 0 s solve), and a run not proven optimal (feasible, 1 s)
    # drawn as solved. The figure must be the very PNG of the profile of [[0.01, 0.5], [failed, 2]].
    recs = [_rec("heart", "OLCT", 0, 0.6, time_solve=0.0), _rec("heart", "OLCT-W", 0, 0.6, time_solve=0.5),
            _rec("heart", "OLCT", 42, 0.6, "feasible", time_solve=1.0),
            _rec("heart", "OLCT-W", 42, 0.6, time_solve=2.0)]
    models = ["OLCT", "OLCT-W"]
    assert report.fig_time(tmp_path / "a.png", recs, models) == tmp_path / "a.png"
    M = np.array([[0.01, 0.5], [np.nan, 2.0]])
    taus = np.geomspace(1.0, 1.1 * 50, 200)
    report._plot(tmp_path / "b.png", taus, performance_profile(M, taus), models, "tau (ratio to the fastest)",
                 "rho(tau)", "Performance profile: time to proven optimality", logx=True)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


# ---- olctc/bench/tasks.py ---------------------------------------------------------------------------------

def test_tree_scores_use_the_test_part_and_the_positive_probability(haberman_tree) -> None:
    # Mutants: the test balanced accuracy computed on the training part; the test Brier score of the negative
    # class's probability (predict_proba[:, 0], or 1 - p).
    tree, te = haberman_tree
    tr = load("haberman").subset(np.arange(0, 306, 6))
    s = bench_tasks._tree_scores(tree, tr, te)
    pred = np.where(tree.decision_function(te.X) > 0, 1, -1)
    assert s["test_balanced_accuracy"] == balanced_accuracy(te.y, pred) == pytest.approx(0.5416666666666666)
    assert s["train_balanced_accuracy"] == pytest.approx(0.5121457489878543, abs=1e-12)
    assert s["test_brier"] == brier_score(te.y, tree.predict_proba(te.X)[:, 1]) == pytest.approx(0.1423918519370804)


def test_tree_scores_count_a_score_of_exactly_0_as_negative() -> None:
    # Mutant: a point of tree score exactly 0 predicted positive (>= 0). Four points of x = -1, 1, each of both
    # classes: the optimum is w = 0, b = 0; the positive test point scores 0 and is predicted negative.
    ds = from_arrays(np.array([[-1.0], [-1.0], [1.0], [1.0], [1.0]]), np.array([1, -1, 1, -1, 1]))
    tr = ds.subset(np.arange(4))
    res = fit(tr, make_spec("olct", 1, C=[1.0]), solver="highs", threads=1, verbose=False, test_size=0.0)
    assert res.summary["status"] == "optimal" and res.tree.decision_function(ds.X).tolist() == [0.0] * 5
    s = bench_tasks._tree_scores(res.tree, tr, ds.subset(np.array([4])))
    assert s["test_balanced_accuracy"] == 0.0 and s["train_balanced_accuracy"] == 0.5


def test_stratified_folds_are_shuffled_by_the_runs_seed() -> None:
    # Mutant: the bench's --cv folds drawn with random_state 0 whatever the run's seed (seed 7 here).
    y = load("haberman").y[:100]
    ref = list(StratifiedKFold(4, shuffle=True, random_state=7).split(np.zeros((100, 1)), y))
    got = bench_tasks.stratified_folds(y, 4, 7)
    assert [(a.tolist(), b.tolist()) for a, b in got] == [(a.tolist(), b.tolist()) for a, b in ref]


def test_cart_brier_on_a_flipped_authors_split_uses_the_positive_class() -> None:
    # Mutant: CART's test probability always column 1 of predict_proba; on breast's authors' split CART is fitted
    # on flipped labels, whose column 1 is olctc's negative class (Brier 0.832 instead of 0.091).
    task = {"dataset": "breast", "seed": 0, "depth": 2, "options": {"authors_split": True}}
    (rec,) = bench_tasks._run_cart(ex.CART, task)
    ds = load("breast")
    tr_rows, te_rows = bench_tasks.bench_split(ds, 0, authors=True)
    tr, te = ds.subset(tr_rows), ds.subset(te_rows)
    rng = np.random.RandomState(0)  # the authors' script: their split drawn first, then CART's tie-breaks
    train_test_split(np.arange(ds.n - 1), test_size=bench_tasks.TEST_SIZE, stratify=-ds.y[1:], random_state=rng)
    sc = StandardScaler().fit(tr.X)
    clf = DecisionTreeClassifier(max_depth=2, random_state=rng).fit(sc.transform(tr.X), -tr.y)
    p = clf.predict_proba(sc.transform(te.X))[:, 0]  # classes_ (-1, 1) of -y: column 0 is olctc's +1
    assert rec["test_brier"] == pytest.approx(brier_score(te.y, p), abs=1e-12)
    assert rec["test_brier"] == pytest.approx(0.09059919667971784, abs=1e-12)
