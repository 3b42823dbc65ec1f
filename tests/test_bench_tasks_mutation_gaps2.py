"""Tests from a second mutation pass of olctc/bench/tasks.py (QA 2026-12-07). Each test pins behaviour a hand-written
mutant changed while the targeted tests passed; the comments name the mutants (/tmp/qa186/mut/LIST of that pass).
A record's numbers are recomputed independently: the split with scikit-learn's train_test_split, the scores from the
saved tree (or a baseline refitted with scikit-learn or pystreed) on that split. Runs are tiny: haberman, seed 0,
3 s limits, depth 1 where CV refits."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, brier_score_loss
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split

from olctc.bench import experiments as ex
from olctc.bench import tasks as bench_tasks
from olctc.bench.options import make_options
from olctc.data import Scaler
from olctc.datasets import load
from olctc.tree import Tree

SEED = 0


def _tasks(experiment: str = "models", models: str | None = None, **options: Any) -> list[dict[str, Any]]:
    """The tasks of a haberman bench of seed 0 at a 3 s limit, options validated as the CLI's."""
    return bench_tasks.make_tasks(make_options(experiment, datasets="haberman", seeds=str(SEED), models=models,
                                               **{"time_limit": 3.0, **options}))


def _run(models: str, depth: int | None = None, **options: Any) -> dict[str, Any]:
    """The one record of one model's run (at ``depth``, or the experiment's)."""
    (task,) = _tasks(models=models, **options)
    if depth is not None:
        task["depth"] = depth
    (rec,) = bench_tasks.execute_task(task)
    assert rec["status"] != "error", rec["error"]
    return rec


def _split(ds, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """The bench protocol's split by hand: 80/20 stratified on the labels, rows sorted."""
    tr, te = train_test_split(np.arange(ds.n), test_size=0.2, random_state=seed, stratify=ds.y)
    return np.sort(tr), np.sort(te)


def _pm(score: np.ndarray) -> np.ndarray:
    return np.where(score > 0, 1, -1)


# ---- a tree run's record, recomputed from its saved tree ----------------------------------------------------------

@pytest.fixture(scope="module")
def olct_run() -> dict[str, Any]:
    """OLCT on haberman with balanced class weights and pure-node smoothing asked for (depth 2, 3 s)."""
    return _run("OLCT", class_weight="balanced", smooth_pure_nodes=True)


def test_tree_record_scores_counts_and_sizes_are_its_trees(olct_run) -> None:
    # Mutants: n_test the training part's size (m49); train_leaf_sizes counted on the test part (m52) or with one
    # count too many (m12); the test scores computed on the training part (m82); the nonzero counts per feature,
    # not per node (m30: haberman's W is 3 x 3).
    rec, ds = olct_run, load("haberman")
    train, test = _split(ds)
    tree = Tree.from_dict(rec["tree"])
    assert (rec["n_train"], rec["n_test"]) == (train.size, test.size) == (244, 62)
    last = tree.topology.last
    assert rec["train_leaf_sizes"] == np.bincount(tree.apply(ds.X[train]) - last[0], minlength=last.size).tolist()
    assert len(rec["train_leaf_sizes"]) == 2 and sum(rec["train_leaf_sizes"]) == train.size
    assert rec["test_balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(ds.y[test], _pm(tree.decision_function(ds.X[test]))), abs=1e-12)
    assert rec["train_balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(ds.y[train], _pm(tree.decision_function(ds.X[train]))), abs=1e-12)
    assert rec["test_brier"] == pytest.approx(
        brier_score_loss((ds.y[test] > 0).astype(int), tree.predict_proba(ds.X[test])[:, 1]), abs=1e-12)
    assert rec["nonzero_weights_per_node"] == [int(v) for v in (np.abs(tree.W) > 1e-6).sum(axis=1)]


def test_tree_record_states_its_run_and_fit_settings(olct_run) -> None:
    # Mutants: the record's time limit not the run's (m04); no pid (m10); the fit given 60 s, not --time-limit (m55:
    # its solve ran 50 s, measured 1.5 s here); --class-weight not in the fitted spec (m56); --smooth-pure-nodes not
    # passed to the fit (m54: the tree's meta has no smoothing report).
    rec = olct_run
    assert (rec["time_limit"], rec["pid"], rec["key"], rec["class_weight"]) == (3.0, os.getpid(), "haberman|0|OLCT",
                                                                                "balanced")
    assert rec["time_total"] < 10.0
    assert rec["tree"]["meta"]["spec"]["class_weight"] == "balanced"
    assert "pure_nodes" in rec["tree"]["meta"] and rec["pure_nodes"] == rec["tree"]["meta"]["pure_nodes"]["nodes"]


def test_oct_h_records_no_c_in_the_authors_terms() -> None:
    # Mutant: OCT-H's placeholder C recorded as the authors' (m50): they ran OCT-H with no C at all.
    rec = _run("OCT-H", depth=1)
    assert rec["C_authors"] is None and rec["C_source"] == "oct-h: 1 / baseline error"
    # refinement runs on the logistic loss alone: the record said "refined" for OCT-H (and MARGOT) trees (qa201)
    assert rec["refined"] is False and "refine" not in rec["tree"]["meta"]


# ---- baselines, refitted with scikit-learn and pystreed -----------------------------------------------------------

def test_cart_record_is_scikit_learns_tree_with_the_benchs_options() -> None:
    # Mutants: --class-weight not passed to CART (m65); the depth recorded as asked, not as grown (m64); the
    # nonzero counts over 2^depth nodes (m69); a C source where CART has no C (m67). min_leaf 100 of 244 points
    # leaves a one-split tree.
    from sklearn.tree import DecisionTreeClassifier

    rec = _run("CART", class_weight="balanced", min_leaf=100)
    ds = load("haberman")
    train, test = _split(ds)
    clf = DecisionTreeClassifier(max_depth=2, random_state=SEED, class_weight="balanced",
                                 min_samples_leaf=100).fit(ds.X[train], ds.y[train])
    assert rec["tree_depth"] == clf.get_depth() == 1
    assert rec["nonzero_weights_per_node"] == [1, 0, 0] and rec["mean_nonzero_per_node"] == pytest.approx(1 / 3)
    assert (rec["C"], rec["C_source"], rec["class_weight"]) == (None, None, "balanced")
    assert rec["test_balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(ds.y[test], clf.predict(ds.X[test])), abs=1e-12)
    assert rec["test_brier"] == pytest.approx(
        brier_score_loss((ds.y[test] > 0).astype(int), clf.predict_proba(ds.X[test])[:, 1]), abs=1e-12)


def test_l1lr_record_is_a_balanced_accuracy_grid_search_on_seeded_stratified_folds() -> None:
    # Mutants: 5 folds, not 4, without --cv (m70); --class-weight dropped (m71); folds scored by accuracy (m72);
    # features not standardised (m73); folds drawn with seed 0 whatever the run's (m74); a C source other than
    # "cv" (m75). On seed 2 the paper's grid picks C = 10 by balanced accuracy, 0.1 by accuracy or on seed 0's folds.
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from olctc.refine import _sklearn_l1_logistic

    (task,) = bench_tasks.make_tasks(make_options("models", datasets="haberman", seeds="2", models="L1-LR",
                                                  class_weight="balanced"))
    (rec,) = bench_tasks.execute_task(task)
    ds = load("haberman")
    train, test = _split(ds, 2)
    pipe = make_pipeline(StandardScaler(), _sklearn_l1_logistic(1.0, 0).set_params(class_weight="balanced"))
    folds = StratifiedKFold(n_splits=4, shuffle=True, random_state=2).split(np.zeros((train.size, 1)), ds.y[train])
    grid = GridSearchCV(pipe, {"logisticregression__C": list(ex.C_GRID)}, scoring="balanced_accuracy",
                        cv=list(folds)).fit(ds.X[train], ds.y[train])
    assert (rec["C"], rec["C_source"]) == ([grid.best_params_["logisticregression__C"]], "cv") == ([10.0], "cv")
    best = grid.best_estimator_
    assert rec["test_balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(ds.y[test], best.predict(ds.X[test])), abs=1e-12)
    assert rec["test_brier"] == pytest.approx(
        brier_score_loss((ds.y[test] > 0).astype(int), best.predict_proba(ds.X[test])[:, 1]), abs=1e-12)
    assert rec["nonzero_weights_per_node"] == [int((np.abs(best[-1].coef_) > 1e-6).sum())]


def test_streed_record_is_pystreeds_tree_with_the_benchs_options() -> None:
    # Mutants: --min-leaf not passed (m76); the split nodes counted as the leaves (m77); the test probability of
    # class 0 (m79); a run stopped by its time limit recorded with a gap of 0 (m78) or given 600 s (m81). With
    # min_leaf 100 of 244 points pystreed grows no split (it grows some without).
    streed = pytest.importorskip("pystreed")
    rec = _run("STreeD", min_leaf=100)
    ds = load("haberman")
    train, test = _split(ds)
    clf = streed.STreeDClassifier(max_depth=2, time_limit=3.0, random_seed=SEED, min_leaf_node_size=100)
    clf.fit(ds.X[train], (ds.y[train] > 0).astype(int))
    assert clf.get_n_leaves() == 1 and clf.get_depth() == 0  # under cost complexity 0.01 no split pays
    assert (rec["tree_depth"], rec["nonzero_weights_per_node"], rec["mean_nonzero_per_node"]) == (0, [0, 0, 0], 0.0)
    assert (rec["status"], rec["gap"]) == ("optimal", 0.0)
    p = clf.predict_proba(ds.X[test])[:, list(clf.classes_).index(1)]
    assert rec["test_brier"] == pytest.approx(brier_score_loss((ds.y[test] > 0).astype(int), p), abs=1e-12)
    (task,) = _tasks(models="STreeD")
    task["options"]["time_limit"] = 1e-6  # no time to prove anything (the options refuse it for olctc's models only)
    (cut,) = bench_tasks.execute_task(task)
    assert (cut["status"], cut["gap"]) == ("feasible", None)


# ---- the phases experiment ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def phases_run() -> dict[str, dict[str, Any]]:
    """The three records of one phases run on haberman (3 s), by model name."""
    (task,) = _tasks("phases")
    return {r["model"]: r for r in bench_tasks.execute_task(task)}


def test_phases_records_refinement_and_the_warm_starts_time(phases_run) -> None:
    # Mutants: the MILP tree refined and the refined one not (m60); the warm-start tree recorded unrefined (m83,
    # though its last layer is fit exactly); its total time without the build (m57); C_authors left out (m62);
    # the objective before refinement taken from each record's own final tree (m84: V0R's then differed from V0's).
    w, v0, v0r = phases_run["OLCT-W"], phases_run["OLCT-V0"], phases_run["OLCT-V0R"]
    assert [r["refined"] for r in (w, v0, v0r)] == [True, False, True]
    assert w["time_total"] >= w["time_build"] + w["time_warm_start"]
    assert v0r["C_authors"] == list(ex.fixed_C_table()["haberman"]) == v0r["C"]
    assert v0r["exact_objective_before_refine"] == pytest.approx(v0["exact_objective_before_refine"], rel=1e-12)
    assert v0r["exact_objective"] < v0r["exact_objective_before_refine"]


def test_phases_keep_the_failed_solves_records() -> None:
    # Mutant: the records of the phases whose solve failed dropped (m61): the run looked complete with OLCT-W only.
    (task,) = _tasks("phases")
    task["options"]["time_limit"] = 1.0  # below the floor: solver_budget refuses it
    recs = bench_tasks.execute_task(task)
    assert [(r["model"], r["status"]) for r in recs] == [("OLCT-W", "warm start"), ("OLCT-V0", "error"),
                                                          ("OLCT-V0R", "error")]


# ---- cross-validation, by hand --------------------------------------------------------------------------------------

def _cv_by_hand(tr, folds, cs: list[float], whole_part_scaling: bool, **spec_kw: Any) -> list[tuple[float, int]]:
    """(mean validation balanced accuracy, optimal folds) of depth-1 OLCT per C, each fold fitted as the docstring
    of cross_validate says: on its fit rows, standardised on them unless the whole part was scaled once."""
    from olctc.fit import fit
    from olctc.spec import make_spec

    if whole_part_scaling:
        tr = replace(tr, X=Scaler.fit(tr.X).transform(tr.X))
    out = []
    for c in cs:
        vals, optimal = [], 0
        for fit_rows, val_rows in folds:
            res = fit(tr.subset(fit_rows), make_spec("olct", 1, C=[c], **spec_kw), solver="highs", time_limit=3.0,
                      threads=1, test_size=0.0, seed=SEED, verbose=False, standardise=not whole_part_scaling)
            optimal += res.summary["status"] == "optimal"
            va = tr.subset(val_rows)
            vals.append(balanced_accuracy_score(va.y, _pm(res.tree.decision_function(va.X))))
        out.append((float(np.mean(vals)), optimal))
    return out


def test_stratified_cv_scores_are_the_hand_computation() -> None:
    # Mutants: --class-weight not passed to the CV's fits (m39); validation on the fit rows (m44); the median of the
    # fold scores (m45); the worst configuration chosen (m46); cv_folds the grid's size (m48: 2 here, 3 folds).
    (task,) = _tasks(models="OLCT", cv=3, C_grid="0.01,1", class_weight="balanced")
    task["depth"] = 1
    ds = load("haberman")
    train, _ = _split(ds)
    tr = ds.subset(train)
    C, alpha, source, info = bench_tasks._choose_config(ex.OLCT, task, tr)
    folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=SEED).split(np.zeros((tr.n, 1)), tr.y))
    want = _cv_by_hand(tr, folds, [0.01, 1.0], False, class_weight="balanced")
    got = [(r["score"], r["optimal_folds"]) for r in info["cv_grid"]]
    assert [s for s, _ in got] == pytest.approx([s for s, _ in want], abs=1e-12) and got == want
    assert len({s for s, _ in want}) > 1  # the grid's scores differ: the choice is no tie
    assert (C, alpha, source) == (((0.01, 1.0)[int(np.argmax([s for s, _ in want]))],), None, "cv")
    assert (info["cv_folds"], info["cv_fold_scheme"]) == (3, "stratified")


def test_authors_split_cv_uses_their_folds_on_the_once_scaled_part() -> None:
    # Mutants: the authors' split run with stratified folds (m38) or called "stratified" (m42); their folds
    # standardised fold by fold (m41: their script scaled the training part once; on heart at C = 0.1 that changes
    # the score); the CV's scores left out of the tree's record (m53).
    (task,) = bench_tasks.make_tasks(make_options("models", datasets="heart", seeds=str(SEED), models="OLCT",
                                                  time_limit=3.0, cv=2, C_grid="0.1,10", authors_split=True))
    task["depth"] = 1
    (rec,) = bench_tasks.execute_task(task)
    ds = load("heart")
    drawn, _ = train_test_split(np.arange(1, ds.n), test_size=0.2, random_state=SEED, stratify=ds.y[1:])
    pos = {row: i for i, row in enumerate(np.sort(drawn))}
    folds = [(np.sort([pos[r] for r in drawn[a]]), np.sort([pos[r] for r in drawn[b]]))
             for a, b in KFold(n_splits=2).split(drawn)]
    want = _cv_by_hand(ds.subset(np.sort(drawn)), folds, [0.1, 10.0], True)
    assert (rec["split"], rec["cv_fold_scheme"], rec["cv_folds"]) == ("authors", "authors", 2)
    assert [(r["score"], r["optimal_folds"]) for r in rec["cv_grid"]] == want


# ---- splits, fold sizes and limits ----------------------------------------------------------------------------

def test_authors_split_leaves_the_first_row_out_and_stratifies_in_their_orientation() -> None:
    # Mutants: the first row kept (m19); breast's labels not flipped to the authors' (m20); positions into the rows
    # returned as rows (m21).
    ds = load("breast")
    want_tr, want_te = train_test_split(np.arange(1, ds.n), test_size=0.2, random_state=42, stratify=-ds.y[1:])
    train, test = bench_tasks.bench_split(ds, 42, authors=True)
    np.testing.assert_array_equal(train, np.sort(want_tr))
    np.testing.assert_array_equal(test, np.sort(want_te))
    drawn, _ = bench_tasks.bench_split(ds, 42, authors=True, ordered=False)
    np.testing.assert_array_equal(drawn, want_tr)


def test_authors_cv_folds_are_kfold_blocks_of_the_drawn_order_as_sorted_positions() -> None:
    # Mutants: fold positions unsorted (m22); the drawn order's argsort taken as the positions (m23).
    ds = load("haberman")
    drawn, _ = train_test_split(np.arange(1, ds.n), test_size=0.2, random_state=6, stratify=ds.y[1:])
    rank = {row: i for i, row in enumerate(np.sort(drawn))}
    got = bench_tasks.authors_cv_folds(ds, 6, 3)
    for (fit, val), (a, b) in zip(got, KFold(n_splits=3).split(drawn), strict=True):
        assert fit.tolist() == sorted(rank[r] for r in drawn[a]) and val.tolist() == sorted(rank[r] for r in drawn[b])


def test_fit_sizes_are_each_folds_fit_part() -> None:
    # Mutants: the authors' folds never used for the sizes (m25); each fold's validation part counted (m26).
    ds = load("haberman")
    assert bench_tasks.fit_sizes(ds, 0, False, 5) == [244, 195, 195, 195, 195, 196]
    assert bench_tasks.fit_sizes(ds, 0, True, 3) == [244, *(fit.size for fit, _ in
                                                            bench_tasks.authors_cv_folds(ds, 0, 3))]
    assert bench_tasks.fit_sizes(ds, 0, True, 3) == [244, 162, 163, 163]  # KFold: the first block the larger


def test_fits_per_run_and_the_hard_limit() -> None:
    # Mutants: L1-LR's 4 default folds taken as 5 (m13) or its final fit not counted (m15); the final fit after CV
    # not counted (m14); 2 x the time limit, not 1.5 (m16); 60 s slack, not 120 (m17); --run-timeout ignored (m18).
    (lr,) = _tasks(models="L1-LR", C_grid="0.1,1,10")
    (olct,) = _tasks(models="OLCT", cv=3, C_grid="0.1,1")
    assert bench_tasks.fits_per_run(lr) == 4 * 3 + 1
    assert bench_tasks.fits_per_run(olct) == 3 * 4 + 1  # depth 2: 2 x 2 configurations
    assert bench_tasks.hard_limit(olct) == 13 * 3.0 * 1.5 + 120.0
    assert bench_tasks.hard_limit(olct, 7) == 7.0
