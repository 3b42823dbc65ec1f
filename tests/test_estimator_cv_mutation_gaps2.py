"""Second mutation pass over OLCTClassifier (estimator.py) and fit --cv (cv.py), QA 2026-12-06: behaviour that
hand-made mutants could change while the estimator and CV tests passed. Each test names the mutant it kills; none
was a bug seen in olctc. Real data (heart subsets), HiGHS in process, one thread, depth 1 or 2. The parameter and
label errors come before any solve, so most tests here take no solver time.

Left alive: equivalent, float(C) and int(depth) in _spec (make_spec normalises both), hits[-1] for positive_class
(no two classes match one value), y != negative for y == positive (two classes), the feature_names_in_ and ndarray
clauses (validate_data sets the same names; an array has no columns), len(have) for X.shape[1], the type check of
solver (a tuple's membership refuses the same values), the fold fits' test_size 0.0 (fit's default); untested,
mip_gap_ 0.0 (needs a fit stopped by its limit), positive_class_ as a Python scalar (== holds), a LeafTooSmall
without a start tree (none found), threads not passed on (only the solver's log shows it), the --jobs fold fits'
TimeLimitTooShort kind and hard limit (each needs a slow fit)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from olctc.cluster import make_folds
from olctc.cv import _fit_killed, cross_validate, fit_cv
from olctc.errors import OlctcError
from olctc.fit import fit, split
from olctc.spec import make_spec

from test_estimator_cv_mutation_gaps import CV, est, heart_40, heart_rows


@pytest.fixture(scope="module")
def heart_small() -> tuple[np.ndarray, np.ndarray]:
    return heart_40()


class Frame:
    """A DataFrame-like object scikit-learn does not read names from: ``columns`` plus ``__array__``."""

    def __init__(self, X: np.ndarray, columns: list) -> None:
        self._X = np.asarray(X)
        self.columns = list(columns)
        self.shape = self._X.shape

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self._X if dtype is None else self._X.astype(dtype)

    def __len__(self) -> int:
        return self._X.shape[0]


# ---------------------------------------------------------------------------------------------- estimator.py

def test_a_set_as_positive_class_is_refused_as_a_sequence(heart_small) -> None:
    # Mutant: the scalar check without its set/dict clause: np.ndim({1}) is 0, so {1} passed it and was refused
    # later as "one of the classes [0, 1]", which hides that a sequence was given.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"^The 'positive_class' parameter must be None or one class label "
                                         r"\(not a sequence\)\. Got \{1\} instead\.$"):
        est(positive_class={1}).fit(X, y)


def test_an_array_as_positive_class_is_shown_as_a_list(heart_small) -> None:
    # Mutant: the array passed to the message as it is: "Got array([0, 1]) instead", numpy's repr.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"\(not a sequence\)\. Got \[0, 1\] instead\.$"):
        est(positive_class=np.array([0, 1])).fit(X, y)


def test_a_positive_class_not_in_y_names_the_classes_as_a_list(heart_small) -> None:
    # Mutant: the classes shown as numpy prints them (['sick' 'well'], no commas) instead of a list.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"^The 'positive_class' parameter must be one of the classes "
                                         r"\['sick', 'well'\]\. Got 'maybe' instead\.$"):
        est(positive_class="maybe").fit(X, np.where(y == 1, "sick", "well"))


def test_a_multiclass_target_says_how_many_classes(heart_small) -> None:
    # Mutant: the class count in the message off by one; the existing test matched the start and the advice only.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"^Only binary classification is supported\. The type of the target is "
                                         r"multiclass \(3 classes\); wrap the estimator in "):
        est().fit(X, np.arange(len(y)) % 3)


def test_object_string_labels_give_string_classes(heart_small) -> None:
    # Mutant: _homogeneous_labels without its str branch: an object array of strs (pandas' y) gave an object
    # classes_, and predict an object array, where numpy's str arrays came out before.
    X, y = heart_small
    m = est().fit(X, np.where(y == 1, "b", "a").astype(object))
    assert m.classes_.dtype.kind == "U" and m.predict(X[:3]).dtype.kind == "U"


def test_an_object_array_of_bools_is_refused_as_scikit_learn_does(heart_small) -> None:
    # Mutant: _homogeneous_labels took bools for ints: an object array of True/False became classes [0, 1], where
    # scikit-learn (LogisticRegression too) refuses it as an unknown label type (a bool array is taken as it is).
    X, y = heart_small
    with pytest.raises(ValueError, match="^Unknown label type: unknown"):
        est().fit(X, (y == 1).astype(object))


def test_a_continuous_target_is_scikit_learns_unknown_label_type(heart_small) -> None:
    # Mutant: check_classification_targets dropped: a regression target (40 distinct floats) got olctc's
    # "Only binary classification ... (40 classes)" and its OneVsRest advice, not scikit-learn's error.
    X, y = heart_small
    with pytest.raises(ValueError, match="^Unknown label type: continuous"):
        est().fit(X, y + np.linspace(0.01, 0.4, len(y)))


def test_mixed_column_names_are_no_feature_names(heart_small) -> None:
    # Mutant: any str column name taken for names (all made any): a frame with an int column name set
    # feature_names_in_ (with 1 as a name), where scikit-learn takes no names from such an X.
    X, y = heart_small
    m = est().fit(Frame(X, ["a", 1] + [f"f{k}" for k in range(2, X.shape[1])]), y)
    assert not hasattr(m, "feature_names_in_")
    assert m.tree_.feature_names[:2] == ["x0", "x1"]


def test_a_failed_refit_on_a_frame_leaves_no_feature_names(heart_small) -> None:
    # Mutant: a failed fit only put the previous attributes back, without deleting those it had set: a refit on a
    # DataFrame that failed after validating it left feature_names_in_ next to a tree fitted on an array, and
    # predict on arrays then warned of missing feature names.
    pd = pytest.importorskip("pandas")
    X, y = heart_small
    m = est().fit(X, y)
    with pytest.raises(OlctcError, match="positive_class"):
        m.set_params(positive_class="maybe").fit(pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])]), y)
    assert not hasattr(m, "feature_names_in_")
    assert m.tree_.feature_names[0] == "x0"


def test_solve_time_is_the_solvers_time(heart_small) -> None:
    # Mutant: solve_time_ the fit's whole time (time_total: build, warm start, refinement too).
    X, y = heart_small
    m = est().fit(X, y)
    assert m.solve_time_ == m.summary_["time_solve"] < m.summary_["time_total"]


def test_warm_start_on_fewer_unnamed_columns_names_the_lost_feature(heart_small) -> None:
    # Mutant: the width check dropped from the by-position match: the new data's schema (12 features) was put on a
    # tree of 13, and the refit failed later in other words, or went on with a tree of the wrong width.
    X, y = heart_small
    m = est(warm_start=True, C=10.0).fit(X, y)
    k = int(np.flatnonzero(m.tree_.W_raw[0] != 0).max())
    with pytest.raises(OlctcError, match=rf"^warm_start: the fitted tree splits on feature 'x{k}', which this X "
                                         rf"\({k} columns\) does not have"):
        m.fit(X[:, :k], y)


def test_warm_start_goes_on_without_a_feature_the_tree_does_not_use(heart_small) -> None:
    # Mutant: every feature of the fitted tree required in the new X, used or not: a refit on a frame that
    # renamed a column the tree weighs 0 was refused.
    pd = pytest.importorskip("pandas")
    X, y = heart_small
    cols = [f"f{k}" for k in range(X.shape[1])]
    m = est(warm_start=True, C=1.0).fit(pd.DataFrame(X, columns=cols), y)
    unused = np.flatnonzero(m.tree_.W_raw[0] == 0)
    assert unused.size  # the L1 penalty leaves some out at C=1
    renamed = list(cols)
    renamed[unused[0]] = "other"
    m.fit(pd.DataFrame(X, columns=renamed), y)
    assert m.summary_["warm_start_from"] == "start tree"


def test_warm_start_after_a_new_positive_class_starts_from_the_same_tree(heart_small) -> None:
    # Mutant: the start's classes left (0, 1) whatever the new coding: after positive_class changed the start was
    # the fitted tree with its classes swapped (every point on the wrong side), and its objective far worse.
    # test_start_tree's check (the solve no worse than its start) held for any start.
    X, y = heart_small
    m = est(warm_start=True, C=10.0).fit(X, y)
    m.fit(X, y)
    same = m.summary_["exact_objective_warm_start"]
    m.set_params(positive_class=0).fit(X, y)
    assert m.summary_["warm_start_from"] == "start tree"
    assert m.summary_["exact_objective_warm_start"] == pytest.approx(same, rel=1e-9)


# ---------------------------------------------------------------------------------------------- cv.py

def test_c_values_text_is_read_as_a_whole() -> None:
    # Mutant: a text C_values split on commas before parse_C_values: '0.1,x' then failed in float() with a bare
    # ValueError, where the text is refused as a parameter, shown as given.
    with pytest.raises(OlctcError, match=r"^The 'C_values' parameter must be numbers separated by commas such as "
                                         r"'0\.1,1,10'\. Got '0\.1,x' instead\.$"):
        cross_validate(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values="0.1,x", test_size=0.0, **CV)


def test_a_class_of_one_point_says_cross_validation_needs_two() -> None:
    # Mutant: the advice "use 1 folds or fewer (--cv 1)" for a class of one training point: an advice the folds
    # check itself refuses. Two points per class at least is the fix.
    with pytest.raises(OlctcError, match=r"^cannot make 2 stratified folds: the training part has only 1 point\(s\) "
                                         r"of class 1; cross-validation needs at least 2 points of each class$"):
        cross_validate(heart_rows(20, 1), make_spec(depth=1), folds=2, C_values=[1.0], test_size=0.0, **CV)


def test_a_killed_fold_fit_says_whether_it_was_stopped_or_died() -> None:
    # Mutant: every killed fold fit "failed": a fit stopped at its hard limit (--jobs) was not told from a crash.
    # Slow to reach for real (the hard limit is 1.5 times time_limit + 120 s): the record's words, directly.
    task = {"task": 3}
    assert _fit_killed(task, "timeout", "no answer", 151.4) == [
        {"task": 3, "error": "the fit's process was stopped after 151 s: no answer"}]
    assert _fit_killed(task, "error", "signal 9", 2.0)[0]["error"] == "the fit's process failed after 2 s: signal 9"


def test_an_unscored_fit_names_its_fold_not_its_task() -> None:
    # Mutant: the problem of an unscored fit named its task number (C index * folds + fold) as the fold: right for
    # the first C only, which is all the existing test looked at.
    ds = heart_rows(16, 16)
    train, _ = split(ds, 0.0, 2)
    val0 = np.asarray(make_folds(ds.y, train, 3, 2)[0]["val"])
    w = np.ones(ds.n)
    w[val0[ds.y[val0] > 0]] = 0.0  # class 1 weighs nothing on validation fold 0: no ROC AUC there
    ds = replace(ds, weight=w, weight_column="w")
    cv = cross_validate(ds, make_spec(depth=1), folds=3, C_values=[1.0, 10.0], scoring="roc_auc", test_size=0.0,
                        seed=2, **CV)
    assert cv.best is None
    unscored = (0, "no ROC AUC on validation fold 0")
    assert [(r.fold, r.problem.split(":")[0] if r.problem else None) for r in cv.fits] == [
        unscored, (1, None), (2, None), unscored, (1, None), (2, None)]


@pytest.mark.parametrize("option, depth", [("refine", 1), ("smooth_pure_nodes", 2)])
def test_the_final_fit_takes_the_fit_options(option: str, depth: int) -> None:
    # Mutants: fit_cv's final fit refined whatever refine said, or never smoothed pure nodes (the option dropped
    # from that call): the fold fits took them (the first pass's test), the tree kept did not.
    ds = heart_rows(24, 24)
    spec = make_spec(depth=depth, C=[10.0] * depth)
    value = {"refine": False, "smooth_pure_nodes": True}[option]
    kw = dict(test_size=0.25, seed=1, verbose=False, **CV)
    want = fit(ds, spec, **kw, **{option: value}).tree.meta["exact_objective"]
    assert want != pytest.approx(fit(ds, spec, **kw).tree.meta["exact_objective"], rel=1e-6)  # it matters here
    res, cv = fit_cv(ds, spec, folds=2, C_values=[10.0], **kw, **{option: value})
    assert cv.best == (10.0,) * depth
    assert res.tree.meta["exact_objective"] == pytest.approx(want, rel=1e-9)
