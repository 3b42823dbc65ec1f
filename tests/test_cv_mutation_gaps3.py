"""Third mutation pass over fit --cv's cross-validation (cv.py), QA 2026-12-07: behaviour that hand-made mutants
could change while the CV tests (the first two passes' included) passed. Each test names the mutants it kills. Real
data (heart subsets), HiGHS in process, one thread, depth 1 unless a slow fit is the point (OCT-H depth 2 on heart
does not prove its optimum within a few seconds: its fits stop at their time limit).

Left alive: equivalent, the --jobs child catching ValueError instead of OlctcError (OlctcError is a ValueError)
and check_dataset dropped (split checks the data in the same words, before the plan); untested, threads not passed
on to the fold or final fits (only the solver's log shows it), max_nonzeros dropped from the fold fits (cross_validate
checks the final model, the largest, first: only a budget over the default one tells), leave_overrun dropped (a
HiGHS solve far past its limit) and the --jobs fold fits' hard limit (1.5 times time_limit + 120 s)."""
from __future__ import annotations

import re
import warnings
from dataclasses import replace

import numpy as np
import pytest

from olctc.cluster import make_folds
from olctc.cluster.scoring import TaskResult
from olctc.cv import DEFAULT_C_VALUES, CVResult, cross_validate, fit_cv, no_choice_error, plan_text
from olctc.datasets import load
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.fit import least_time_limit, split
from olctc.spec import make_spec

from test_estimator_cv_mutation_gaps import CV, heart_rows


def _weigh_nothing(ds, rows):
    """``ds`` with a weight column 'w' of 1, but 0 for ``rows``."""
    w = np.ones(ds.n)
    w[rows] = 0.0
    return replace(ds, weight=w, weight_column="w")


def _val0(ds, folds: int, seed: int) -> np.ndarray:
    """The rows of validation fold 0 when ``ds`` has no test part."""
    train, _ = split(ds, 0.0, seed)
    return np.asarray(make_folds(ds.y, train, folds, seed)[0]["val"])


def test_time_limit_bounds_every_fold_fit_and_the_final_fit() -> None:
    # Mutants: the fold fits without the time limit (fit_kw's None, or fit_cv not passing it on), the final fit
    # without it; the record's gap or status lost (every fit "optimal"); the progress line's gap shown for optimal
    # fits only, or never; its score to 3 decimals; its seconds dropped; fit_cv's progress not passed on; the
    # meta's fits_not_optimal counting every fit.
    lines: list[str] = []
    res, cv = fit_cv(load("heart"), make_spec(preset="oct-h", depth=2), folds=2, C_values=[10.0], solver="highs",
                     threads=1, time_limit=6, progress=lines.append, verbose=False)
    assert len(cv.fits) == 2 and all(r.status != "optimal" and r.score is not None for r in cv.fits)
    assert res.summary["status"] != "optimal" and res.summary["time_total"] < 18.0  # the limit, with 3x room
    assert res.tree.meta["cv"]["fits_not_optimal"] == 2 == len(cv.not_optimal())
    assert lines[0].startswith("cross-validation: 1 C combination(s) x 2 folds = 2 fits, then the final fit; "
                               "each fit at most 6 s")
    for i, (line, r) in enumerate(zip(lines[1:], cv.fits, strict=True)):
        head = f"cv fit {i + 1}/2: C 10,10, fold {r.fold}: {r.status} (gap "
        assert line.startswith(head), line
        assert f"%), validation bal.acc {r.score:.4f} (" in line and line.endswith(" s)"), line


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_fold_fit_refusing_its_time_limit_keeps_the_error_kind(jobs: int) -> None:
    # Mutants: the fold fit's TimeLimitTooShort made a plain OlctcError, in this process (jobs 1: type(exc) lost)
    # or from a child's record (jobs 2: its kind dropped, or not read back, or the child catching another class).
    # The least limit check_time_limit takes leaves the solver under 1 s once building took any time at all: every
    # fold fit refuses it, after its build, in well under a second.
    least = least_time_limit()
    with pytest.raises(TimeLimitTooShort, match=rf"^cross-validation, fold [01], C 1: a time limit of "
                                                 rf"{re.escape(f'{least:g}')} s leaves no time to solve: building"):
        cross_validate(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values=[1.0], solver="highs", threads=1,
                       time_limit=least, jobs=jobs, test_size=0.0)


def test_a_validation_fold_of_weight_zero_leaves_its_C_unscored() -> None:
    # Mutants: scikit-learn's ValueError (accuracy on a fold whose points all weigh 0) not caught, or raised again:
    # the cross-validation stopped with a bare ValueError instead of leaving that C unscored.
    ds = heart_rows(16, 16)
    ds = _weigh_nothing(ds, _val0(ds, 3, 2))
    cv = cross_validate(ds, make_spec(depth=1), folds=3, C_values=[1.0], scoring="accuracy", test_size=0.0, seed=2,
                        **CV)
    assert cv.best is None
    assert [r.score is None for r in cv.fits] == [True, False, False]
    assert cv.fits[0].unscorable and cv.fits[0].problem.startswith("no accuracy on validation fold 0: ")


def test_an_undefined_roc_auc_warns_nothing() -> None:
    # Mutant: scikit-learn's warnings let through: ROC AUC on a fold where class 1 weighs nothing warned
    # UndefinedMetricWarning, which the fit's problem ("no ROC AUC on validation fold 0: ...") says already.
    ds = heart_rows(16, 16)
    val0 = _val0(ds, 3, 2)
    ds = _weigh_nothing(ds, val0[ds.y[val0] > 0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cv = cross_validate(ds, make_spec(depth=1), folds=3, C_values=[1.0], scoring="roc_auc", test_size=0.0,
                            seed=2, **CV)
    assert cv.fits[0].problem.startswith("no ROC AUC on validation fold 0")
    assert [str(w.message) for w in seen] == []


def test_the_defaults_are_the_papers_grid_four_folds_and_balanced_accuracy() -> None:
    # Mutants: DEFAULT_C_VALUES short of 100; cross_validate's default folds 5, scoring accuracy, test_size 0.25;
    # the seed not recorded (CVResult's 0); its seconds 0 or rounded in the record.
    ds = heart_rows(16, 16)
    spec = make_spec(depth=1)
    cv = cross_validate(ds, spec, solver="highs", threads=1, seed=3)
    assert list(DEFAULT_C_VALUES) == cv.C_values == [0.01, 0.1, 1.0, 10.0, 100.0]
    assert (cv.folds, cv.scoring, cv.seed) == (4, "balanced_accuracy", 3) and len(cv.fits) == 20
    assert [r["C"] for r in cv.table] == [[c] for c in DEFAULT_C_VALUES]
    rec = cv.to_json()
    assert rec["seed"] == 3 and rec["seconds"] == cv.seconds > 0
    one = cross_validate(ds, spec, folds=4, C_values=[1.0], scoring="balanced_accuracy", test_size=0.2, seed=3,
                         solver="highs", threads=1)
    assert one.table[0] == cv.table[2]  # the same split: test_size 0.2 by default


def test_fit_cv_echoes_the_final_fit_where_told_and_nothing_else() -> None:
    # Mutants: the final fit's echo dropped (its summary printed instead of given to echo), its verbose True
    # whatever fit_cv's; the fold fits verbose.
    import contextlib
    import io

    ds = heart_rows(16, 16)
    for verbose in (True, False):
        said: list[str] = []
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            res, _ = fit_cv(ds, make_spec(depth=1), folds=2, C_values=[1.0], verbose=verbose, echo=said.append, **CV)
        assert out.getvalue() == ""
        assert bool(said) == verbose
        if verbose:  # fit's first line: the model built (the solver's own log goes to the terminal)
            assert said[0].startswith("model (the paper's form): "), said
    assert res.tree.meta["cv"]["C"] == [1.0]


def test_fit_cv_refuses_a_final_model_over_the_budget_before_any_fold_fit() -> None:
    # Mutant: fit_cv not passing max_nonzeros to cross_validate: the fold fits ran and the final fit refused the
    # budget after them.
    from olctc.compile import estimate_size

    ds = heart_rows(16, 16)
    train, _ = split(ds, 0.2, 0)
    budget = estimate_size(len(train), ds.p, make_spec(depth=1)).nonzeros - 1
    lines: list[str] = []
    with pytest.raises(OlctcError, match=r"over the budget of .* nonzeros \(max_nonzeros, --max-nonzeros\)"):
        fit_cv(ds, make_spec(depth=1), folds=2, C_values=[1.0], max_nonzeros=budget, progress=lines.append,
               verbose=False, **CV)
    assert lines == []


def test_jobs_in_a_deleted_folder_are_refused_before_the_plan(tmp_path, monkeypatch) -> None:
    # Mutant: cross_validate's check of the current folder dropped: run_isolated's own refused it, after the plan
    # had been said (a plan of fits that never ran).
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    lines: list[str] = []
    with pytest.raises(OlctcError, match=r"^the current folder no longer exists"):
        cross_validate(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values=[1.0], jobs=2, progress=lines.append,
                       **CV)
    assert lines == []


@pytest.mark.parametrize("bad", [[1.0, "x"], [1.0, None], (0.1, True)])
def test_c_values_with_one_non_number_are_refused_as_a_parameter(bad) -> None:
    # Mutant: C_values accepted when any value is a real number (all made any): [1.0, "x"] failed in float() with a
    # bare ValueError, [1.0, None] with a TypeError, and True was taken for a C of 1.
    with pytest.raises(OlctcError, match=r"^The 'C_values' parameter \(--C-values\) must be numbers such as "):
        cross_validate(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values=bad, **CV)


def test_a_spec_of_the_wrong_type_is_a_parameter_error() -> None:
    # Mutant: check_spec dropped: an AttributeError deep inside instead. (check_dataset dropped is equivalent: split
    # checks the data in the same words, before the plan.)
    with pytest.raises(OlctcError, match=r"^The 'spec' parameter must be a TreeSpec"):
        cross_validate(heart_rows(16, 16), {"depth": 1}, folds=2, C_values=[1.0], **CV)


def test_plan_text_rounds_minutes_and_hours_at_their_boundaries() -> None:
    # Mutants: _duration's boundaries taken inclusive: 120 s said "120 s", 2 h said "120 min".
    assert plan_text(1, 2, 40).endswith("(about 2 min at most in all)")  # 3 rounds of 40 s
    assert plan_text(1, 2, 2400).endswith("(about 2.0 h at most in all)")
    assert plan_text(1, 2, 39).endswith("(about 117 s at most in all)")


def test_no_choice_error_names_the_first_unscored_fit_and_counts_them() -> None:
    # Mutants: the last problem shown as the first; the scored fits counted as unscored; the record's C [] and
    # best_row the first row when no C was chosen.
    fits = [TaskResult(0, 0, (1.0,), score=None, status="optimal", problem="first problem", unscorable=True),
            TaskResult(1, 1, (1.0,), score=0.5, status="optimal"),
            TaskResult(2, 2, (1.0,), score=0.6, status="optimal"),
            TaskResult(3, 0, (10.0,), score=0.7, status="optimal"),
            TaskResult(4, 1, (10.0,), score=None, status="optimal", problem="second problem", unscorable=True)]
    table = [{"C": [1.0], "mean": 0.55}, {"C": [10.0], "mean": 0.7}]
    cv = CVResult(3, 0, "roc_auc", [1.0, 10.0], fits, table, None, 1.0)
    assert str(no_choice_error(cv)) == ("cross-validation chose no C: no C combination has every fold scored (2 of 5 "
                                        "fits unscored; first: first problem); use another --scoring")
    assert cv.best_row() is None and cv.to_json()["C"] is None
    empty = CVResult(2, 0, "roc_auc", [1.0], [], [], None, 0.0)
    assert "(0 of 0 fits unscored; first: no fit was scored)" in str(no_choice_error(empty))


def test_numpy_integer_folds_are_taken() -> None:
    # Mutant: _check_folds returning folds as given, not int(folds): np.int64(2) reached make_folds, which took
    # Python ints only then ("The 'folds' parameter must be an integer >= 2. Got 2"), and is recorded as cv.folds
    res, cv = fit_cv(heart_rows(16, 16), make_spec(depth=1), folds=np.int64(2), C_values=[1.0], verbose=False, **CV)
    assert type(cv.folds) is int and res.tree.meta["cv"]["folds"] == 2 and len(cv.fits) == 2
