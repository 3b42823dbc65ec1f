"""Behaviour of OLCTClassifier (estimator.py) and of fit --cv's cross-validation (cv.py) that a mutation pass over the
two modules (QA 2026-12-06, 70 mutants) could change while the estimator and CV tests passed. Each test names the
mutant it kills; none was a bug seen in olctc. Real data (heart subsets), HiGHS in process, one thread, depth 1 or 2.

Left alive: equivalent, the fold fits' seed (test_size 0: no split to seed) and a finite-score check made a not-nan
one (no scoring gives an infinite score); untested, mip_gap_ set to 0 (an optimal fit's gap), smooth_pure_nodes
dropped from the fit that follows a warm start breaking min_leaf, the TimeLimitTooShort kind of a --jobs fold fit
and the hard limit of --jobs fold fits (each needs a slow fit)."""
from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from olctc import OLCTClassifier, load_dataset
from olctc.cluster import make_folds
from olctc.cluster.scoring import TaskResult, validation_score
from olctc.cv import CVResult, cross_validate, fit_cv, plan_text
from olctc.datasets import load
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.fit import fit, split
from olctc.spec import make_spec


def heart_40() -> tuple[np.ndarray, np.ndarray]:
    """40 rows of heart (20 of class 0, then 20 of class 1), its numeric matrix and int64 labels 0/1."""
    X, y, _ = load_dataset("heart")
    rows = np.r_[np.flatnonzero(y == 0)[:20], np.flatnonzero(y == 1)[:20]]
    return X[rows], y[rows]


@pytest.fixture(scope="module")
def heart_small() -> tuple[np.ndarray, np.ndarray]:
    return heart_40()


def est(**kw) -> OLCTClassifier:
    return OLCTClassifier(**{"depth": 1, "solver": "highs", "threads": 1, "time_limit": 20, **kw})


def heart_rows(neg: int, pos: int):
    """heart's first ``neg`` points of class 0 and ``pos`` of class 1, in file order."""
    ds = load("heart")
    return ds.subset(np.sort(np.r_[np.flatnonzero(ds.y < 0)[:neg], np.flatnonzero(ds.y > 0)[:pos]]))


def cv_data(n: int = 48, weighted: bool = False):
    """n rows of heart, both classes alike; weighted: a weight column of 1, 2 and 3 in turn."""
    ds = heart_rows(n // 2, n // 2)
    if weighted:
        ds = replace(ds, weight=np.arange(ds.n) % 3 + 1.0, weight_column="w")
    return ds


CV = {"solver": "highs", "threads": 1, "time_limit": 20}


# ---------------------------------------------------------------------------------------------- cv.py

def test_folds_check_names_the_smaller_class() -> None:
    # Mutant: the folds check counted the larger class (argmax): 3 folds of a training part holding 2 points
    # of one class passed it, and make_folds refused them in grid's words (--folds, no class named).
    ds = load("heart")
    rows = np.r_[np.flatnonzero(ds.y < 0)[:20], np.flatnonzero(ds.y > 0)[:2]]
    small = ds.subset(np.sort(rows))
    with pytest.raises(OlctcError, match=r"^cannot make 3 stratified folds: the training part has only 2 "
                                         r"point\(s\) of class 1; use 2 folds or fewer \(--cv 2\), or more data$"):
        cross_validate(small, make_spec(depth=1), folds=3, C_values=[1.0], test_size=0.0, **CV)


def _fold_scores(ds, spec, *, folds, seed, scoring, test_size, **fit_kw) -> list[float]:
    """Each fold's validation score computed here, fold by fold, as the protocol says (the reference)."""
    train, _ = split(ds, test_size, seed)
    out = []
    for rows in make_folds(ds.y, train, folds, seed):
        tr, val = np.asarray(rows["train"]), np.asarray(rows["val"])
        res = fit(ds.subset(tr), spec, test_size=0.0, verbose=False, **CV, **fit_kw)
        w = None if ds.weight is None else ds.weight[val]
        out.append(validation_score(scoring, res.tree, ds.X[val], ds.y[val], w))
    return out


@pytest.mark.parametrize("option, depth", [("refine", 1), ("smooth_pure_nodes", 2)])
def test_fold_fits_take_the_fit_options(option, depth) -> None:
    # Mutants: the fold fits refined whatever refine said (refine True in fit_kw), and never smoothed pure nodes
    # (smooth_pure_nodes False in fit_kw). The option changes the fold scores here, so the scores tell.
    ds = cv_data()
    spec = make_spec(depth=depth, C=[10.0] * depth)
    value = {"refine": False, "smooth_pure_nodes": True}[option]
    kw = dict(folds=2, seed=1, scoring="neg_log_loss", test_size=0.25)
    want = _fold_scores(ds, spec, **kw, **{option: value})
    assert want != pytest.approx(_fold_scores(ds, spec, **kw), abs=1e-9)  # the option matters on these data
    cv = cross_validate(ds, spec, C_values=[10.0], **kw, **CV, **{option: value})
    assert [r.score for r in cv.fits] == pytest.approx(want, abs=1e-9)


def test_fold_scores_weigh_the_validation_points() -> None:
    # Mutant: the validation score ignored the data's weight column (weight None in _fit_fold).
    ds = cv_data(weighted=True)
    spec = make_spec(depth=1, C=[1.0])
    kw = dict(folds=2, seed=4, scoring="neg_log_loss", test_size=0.25)
    want = _fold_scores(ds, spec, **kw)
    cv = cross_validate(ds, spec, C_values=[1.0], **kw, **CV)
    assert [r.score for r in cv.fits] == pytest.approx(want, abs=1e-9)


def test_final_fit_takes_the_chosen_C_not_the_specs() -> None:
    # Mutant: fit_cv's final fit used the spec as given (its C) instead of the C the cross-validation chose.
    # test_fit_cv's check passed by chance: the chosen C there was the spec's default, 1.
    ds = cv_data(32)
    res, cv = fit_cv(ds, make_spec(depth=1, C=[100.0]), folds=2, C_values=[0.1], seed=2, verbose=False, **CV)
    assert cv.best == (0.1,)
    assert res.summary["spec"]["C"] == [0.1] == res.tree.meta["cv"]["C"]


def test_plan_text_gives_a_minute_and_a_half_in_seconds() -> None:
    # Mutant: _duration's seconds up to 60 only: 90 s was said "2 min".
    assert plan_text(1, 2, 30) == ("cross-validation: 1 C combination(s) x 2 folds = 2 fits, then the final fit; "
                                   "each fit at most 30 s (about 90 s at most in all)")


def test_fits_not_optimal_counts_scored_fits_only() -> None:
    # Mutant: not_optimal() counted unscored fits too (a fold where the scoring is undefined is no fit the
    # cross-validation used, whatever its solver's status).
    fits = [TaskResult(0, 0, (1.0,), score=0.5, status="optimal"),
            TaskResult(1, 1, (1.0,), score=None, status="time limit", problem="no ROC AUC", unscorable=True),
            TaskResult(2, 0, (10.0,), score=0.7, status="time limit")]
    cv = CVResult(2, 0, "roc_auc", [1.0, 10.0], fits, [], None, 0.0)
    assert cv.not_optimal() == [fits[2]]
    assert cv.to_json()["fits_not_optimal"] == 1


def test_fit_cv_without_a_choice_says_so() -> None:
    # Mutant: fit_cv went on to the final fit when no C had every fold scored (cv.best None); only the CLI's
    # test saw the message, and the CLI checks cv.best itself.
    ds = cv_data(32)
    train, _ = split(ds, 0.2, 2)  # fit_cv's default test_size
    val0 = np.asarray(make_folds(ds.y, train, 3, 2)[0]["val"])
    w = np.ones(ds.n)
    w[val0[ds.y[val0] > 0]] = 0.0  # class 1 weighs nothing on validation fold 0: no ROC AUC there
    ds = replace(ds, weight=w, weight_column="w")
    with pytest.raises(OlctcError, match=r"^cross-validation chose no C: no C combination has every fold scored "
                                         r"\(1 of 3 fits unscored; first: no ROC AUC on validation fold 0"):
        fit_cv(ds, make_spec(depth=1), folds=3, C_values=[1.0], scoring="roc_auc", seed=2, verbose=False, **CV)


def test_two_jobs_fit_the_folds_in_child_processes() -> None:
    # Mutant: jobs == 2 run in this process, one fit at a time (jobs <= 2 taken for 1): the same table, so the
    # parallel test's comparison passed. The fold fits' processes are this process's children while they end.
    import os

    from conftest import child_processes

    children: list[int] = []

    def progress(line: str) -> None:
        if line.startswith("cv fit "):
            children.extend(child_processes(os.getpid()))

    cv = cross_validate(cv_data(32), make_spec(depth=1), folds=2, C_values=[1.0], seed=1, jobs=2,
                        progress=progress, **CV)
    assert len(cv.fits) == 2 and children


def test_best_row_is_the_chosen_Cs_row() -> None:
    # Mutant: best_row() the table's first row, whatever C was chosen.
    table = [{"C": [0.1], "mean": 0.6}, {"C": [1.0], "mean": 0.8}]
    cv = CVResult(2, 0, "balanced_accuracy", [0.1, 1.0], [], table, (1.0,), 0.0)
    assert cv.best_row() is table[1]


def test_a_too_short_time_limit_is_refused_before_any_fold() -> None:
    # Mutant: check_time_limit dropped from cross_validate: the first fold's fit refused it, as "cross-validation,
    # fold 0, C 1: ..." (neither the fold nor the C had anything to do with it).
    with pytest.raises(TimeLimitTooShort, match=r"^a time limit of 0.5 s leaves no time to solve"):
        cross_validate(cv_data(32), make_spec(depth=1), folds=2, C_values=[1.0], solver="highs", threads=1,
                       time_limit=0.5)


# ---------------------------------------------------------------------------------------- estimator.py

def test_negative_sample_weight_is_scikit_learns_error(heart_small) -> None:
    # Mutant: _check_sample_weight without ensure_non_negative: a negative weight got olctc's message, not
    # scikit-learn's ValueError (the one its estimators give).
    X, y = heart_small
    w = np.ones(len(y))
    w[3] = -1.0
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        est().fit(X, y, sample_weight=w)


def test_a_class_of_weight_zero_is_named_by_its_label(heart_small) -> None:
    # Mutant: check_classes_weigh dropped from fit: from_arrays' check named the 0/1 code, not the user's label.
    X, y = heart_small
    labels = np.where(y == 1, "sick", "well")
    w = np.where(labels == "sick", 0.0, 1.0)
    with pytest.raises(OlctcError, match=r"every point of class 'sick' weighs 0"):
        est().fit(X, labels, sample_weight=w)


def test_a_weight_of_two_counts_a_point_twice(heart_small) -> None:
    # Mutant: sample_weight not passed on to the data (from_arrays(..., sample_weight=None)).
    X, y = heart_small
    w = np.ones(len(y))
    w[:10] = 2.0
    weighted = est(C=10.0).fit(X, y, sample_weight=w)
    doubled = est(C=10.0).fit(np.r_[X, X[:10]], np.r_[y, y[:10]])
    assert weighted.summary_["status"] == doubled.summary_["status"] == "optimal"
    assert weighted.objective_ == pytest.approx(doubled.objective_, rel=1e-6)


def test_verbose_zero_is_accepted(heart_small, capsys) -> None:
    # Mutant: the verbose check took integers > 0 only: verbose=0, scikit-learn's quiet level, was refused.
    X, y = heart_small
    est(verbose=0).fit(X, y)
    assert capsys.readouterr().out == ""


def test_an_unknown_solver_is_refused_in_the_estimators_words(heart_small) -> None:
    # Mutant: only the type of solver checked: "glpk" (no in-process solver) reached olctc.fit.
    X, y = heart_small
    with pytest.raises(ValueError, match=r"The 'solver' parameter must be None \(the preset's default\) or one of "
                                         r"highs, "):
        est(solver="glpk").fit(X, y)


def test_objective_is_the_final_trees_exact_objective(heart_small) -> None:
    # Mutant: objective_ the MILP's objective (objective_milp_true) instead of the refined tree's exact one.
    X, y = heart_small
    m = est(C=10.0).fit(X, y)
    assert m.summary_["exact_objective_after_refine"] != pytest.approx(m.summary_["objective_milp_true"], rel=1e-9)
    assert m.objective_ == m.tree_.meta["exact_objective"]


def test_a_failed_refit_keeps_the_positive_class(heart_small) -> None:
    # Mutant: _pos_index not a fitted attribute: a refit that failed after choosing its positive class left it
    # next to the previous tree, and flipped decision_function and predict_proba.
    X, y = heart_small
    m = est(positive_class=0).fit(X, y)
    before = m.decision_function(X), m.predict_proba(X)
    m.set_params(positive_class=None)
    with pytest.raises(ValueError):
        m.fit(X, y, sample_weight=-np.ones(len(y)))
    np.testing.assert_array_equal(m.decision_function(X), before[0])
    np.testing.assert_array_equal(m.predict_proba(X), before[1])


def test_class_weight_weighs_the_named_class(heart_small) -> None:
    # Mutants: class_weight ignored (the spec's class_weight not set), or applied to the other class (labels
    # reversed for class_weight_by_label); and summary_'s class_weights keyed by the wrong label (_by_label).
    X, y = heart_small
    labels = np.where(y == 1, "sick", "well")
    by_class = est(C=10.0, class_weight={"sick": 3.0}).fit(X, labels)
    assert by_class.summary_["class_weights"] == {"well": 1.0, "sick": 3.0}
    assert by_class.objective_ != pytest.approx(est(C=10.0).fit(X, labels).objective_, rel=1e-3)
    assert by_class.objective_ != pytest.approx(est(C=10.0, class_weight={"well": 3.0}).fit(X, labels).objective_,
                                                rel=1e-3)


def test_refine_false_reaches_the_fit(heart_small) -> None:
    # Mutant: refine=True passed to olctc.fit whatever the estimator's refine.
    X, y = heart_small
    m = est(C=10.0, refine=False).fit(X, y)
    assert m.objective_ == pytest.approx(m.summary_["exact_objective_before_refine"], rel=1e-12)
    r = est(C=10.0).fit(X, y)
    assert r.objective_ < m.objective_ - 1e-6


def test_min_leaf_reaches_the_model(heart_small) -> None:
    # Mutant: the spec's min_leaf 0 whatever the estimator's: more than the training points was not refused.
    X, y = heart_small
    with pytest.raises(OlctcError, match="min_leaf"):
        est(min_leaf=len(y) + 1).fit(X, y)


def test_warm_start_refuses_other_classes_and_a_shallower_model(heart_small) -> None:
    # Mutants: warm_start ignored (no previous tree taken); the classes check dropped; a start of the model's own
    # depth refused (> made >=). The refusals come before any solve, in the parameters' words.
    X, y = heart_small
    m = est(warm_start=True).fit(X, y)
    with pytest.raises(OlctcError, match=r"^warm_start: the fitted tree separates classes \[0, 1\]; y holds "):
        m.fit(X, np.where(y == 1, "sick", "well"))
    m.set_params(depth=2)
    m.fit(X, y)  # deeper: goes on from the depth-1 tree
    assert m.summary_["warm_start_from"] == "start tree" and m.get_depth() == 2
    m.set_params(depth=1)
    with pytest.raises(OlctcError, match=r"^warm_start: the fitted tree has depth 2, deeper than the model's 1"):
        m.fit(X, y)
    m.set_params(depth=2, C=2.0)
    m.fit(X, y)  # the same depth
    assert m.summary_["warm_start_from"] == "start tree"


def test_warm_start_refuses_x_without_a_feature_the_tree_splits_on(heart_small) -> None:
    # Mutant: the lost-feature check dropped: the refit failed later in olctc.start_tree's command-line words.
    pd = pytest.importorskip("pandas")
    X, y = heart_small
    cols = [f"f{k}" for k in range(X.shape[1])]
    m = est(warm_start=True, C=10.0).fit(pd.DataFrame(X, columns=cols), y)
    used = np.flatnonzero(m.tree_.W_raw[0] != 0)[0]
    renamed = list(cols)
    renamed[used] = "other"
    with pytest.raises(OlctcError, match=rf"^warm_start: the fitted tree splits on feature 'f{used}', which this X "):
        m.fit(pd.DataFrame(X, columns=renamed), y)


def test_positive_class_given_as_text_matches_an_integer_label(heart_small) -> None:
    # Mutant: positive_class matched by == only: "1" (a label read from a command line or a config file) was
    # refused for classes [0, 1], which fit takes by its text.
    X, y = heart_small
    m = est(positive_class="1").fit(X, y)
    assert m.positive_class_ == 1 and m._pos_index == 1
    assert m.export_tree().classes == (0, 1)


def _on_the_split(m: OLCTClassifier, X: np.ndarray) -> np.ndarray:
    """A row of X moved along one feature the depth-1 tree weighs until its score is exactly 0. Not every row has
    such a point (one ulp of the feature can step the score over 0: X[0] under positive_class=0, highspy 1.16, QA
    2026-12-07), so the rows are tried in turn."""
    k = int(np.flatnonzero(m.tree_.W_raw[0] != 0)[0])
    for x0 in X:
        s0 = m.tree_.decision_function(x0[None])[0]
        t = x0[k] - s0 / m.tree_.W_raw[0, k]
        for _ in range(200):
            x = x0.copy()
            x[k] = t
            s = m.tree_.decision_function(x[None])[0]
            if s == 0.0:
                return x[None]
            t = np.nextafter(t, np.inf if (s < 0) == (m.tree_.W_raw[0, k] > 0) else -np.inf)
    raise AssertionError("no point of score exactly 0 found")


@pytest.mark.parametrize("positive", [1, 0])
def test_a_score_of_exactly_zero_predicts_the_negative_class(heart_small, positive) -> None:
    # Mutant: predict's z > 0 made z >= 0: a row on the last-layer split (score exactly 0) got the positive
    # class, unlike Tree.predict and the exports.
    X, y = heart_small
    m = est(C=10.0, positive_class=positive).fit(X, y)
    row = _on_the_split(m, X)
    assert m.decision_function(row)[0] == 0.0
    assert m.predict(row)[0] == 1 - positive == m.export_tree().predict(row)[0]


def test_warm_start_matches_features_by_position_unless_both_fits_had_names(heart_small) -> None:
    # Mutant: features matched by name unless neither fit had names (and made or): a refit on a DataFrame after
    # a fit on an array (or the reverse) was refused as if the tree's features x0, x1, ... were missing.
    pd = pytest.importorskip("pandas")
    X, y = heart_small
    df = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    m = est(warm_start=True, C=10.0).fit(X, y)
    m.set_params(C=5.0).fit(df, y)
    assert m.summary_["warm_start_from"] == "start tree"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's: X has no feature names, the fit had some
        m.set_params(C=2.0).fit(X, y)
    assert m.summary_["warm_start_from"] == "start tree"
