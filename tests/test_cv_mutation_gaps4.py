"""Fourth mutation pass over fit --cv's cross-validation (cv.py), QA 2026-12-07: behaviour that hand-made mutants
could change while the CV tests (the first three passes' included) passed. Each test says what it pins; the mutant
ids are in the commit message. Real data (heart subsets), HiGHS (CBC once) in process, one thread, depth 1 or 2.

Left alive (see the commit message): equivalent, check_jobs returning jobs unconverted (every use converts it),
class 1 counted as y >= 0 (labels are -1 and +1) and no_choice_error counting fits of no score (each has a problem);
untested, the fold fits' solver when fit_cv passes none (solvers that prove their optima score alike), --jobs run
one at a time or its fits left unsorted (only timing tells), threads and leave_overrun not passed on, and the
--jobs fold fits' hard limit."""
from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.metrics import accuracy_score

from olctc.compile import estimate_size
from olctc.cv import cross_validate, fit_cv, plan_text
from olctc.errors import OlctcError
from olctc.fit import split
from olctc.spec import make_spec

from test_cv_mutation_gaps3 import _val0, _weigh_nothing
from test_estimator_cv_mutation_gaps import CV, _fold_scores, cv_data, heart_rows


def _shown_seconds(lines: list[str]) -> list[float]:
    """The seconds each 'cv fit' progress line ends with."""
    return [float(m.group(1)) for ln in lines if (m := re.search(r"\((\d+\.\d) s\)$", ln))]


def test_a_plan_of_more_than_a_hundred_fits_suggests_fewer() -> None:
    # Pinned: the note comes just past MANY_FITS (100 fits: none, the first pass's test; 102: one), not only for
    # grids far larger.
    assert plan_text(51, 2, None) == ("cross-validation: 51 C combination(s) x 2 folds = 102 fits, then the final "
                                      "fit; fewer --C-values or --cv folds make fewer fits")


def test_a_plan_shows_a_fractional_time_limit_as_given() -> None:
    # Pinned: 2.5 s is said "2.5 s", not rounded to "2 s" (the longest time, 3 rounds of 2.5 s, is 8 s).
    assert plan_text(1, 2, 2.5).endswith("; each fit at most 2.5 s (about 8 s at most in all)")


def test_the_tree_records_the_scoring_the_grid_and_the_solver_used() -> None:
    # Pinned: the record in the tree's meta names the scoring used (not the default one) and every C value of the
    # grid, given as a 1-D numpy array (taken as a list is); the final fit runs on the solver named.
    res, cv = fit_cv(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values=np.array([0.1, 1.0]),
                     scoring="accuracy", solver="cbc", threads=1, time_limit=20, verbose=False)
    rec = res.tree.meta["cv"]
    assert rec["scoring"] == "accuracy" == cv.scoring
    assert rec["C_values"] == [0.1, 1.0] == cv.C_values and [r["C"] for r in rec["table"]] == [[0.1], [1.0]]
    assert len(cv.fits) == 4 and res.summary["solver"] == "cbc"


def test_the_size_budget_counts_the_training_part_only() -> None:
    # Pinned: the final model holds the training part's points (fit_cv's test_size: 0.5 here, not the default 0.2);
    # a budget of exactly its size is taken (counting the test part too refused it, though no fit is that large).
    ds = heart_rows(16, 16)
    train, _ = split(ds, 0.5, 0)
    budget = estimate_size(len(train), ds.p, make_spec(depth=1)).nonzeros
    assert estimate_size(len(split(ds, 0.2, 0)[0]), ds.p, make_spec(depth=1)).nonzeros > budget  # 0.2's: over it
    res, cv = fit_cv(ds, make_spec(depth=1), folds=2, C_values=[1.0], test_size=0.5, max_nonzeros=budget,
                     verbose=False, **CV)
    assert cv.best == (1.0,) and len(cv.fits) == 2 and np.array_equal(res.train_rows, train)


def test_a_grid_of_two_layers_records_each_layers_values() -> None:
    # Pinned: at depth 2 the record's C_values are the values given (each layer's), not the first layer's C of each
    # of the grid's 4 combinations.
    cv = cross_validate(heart_rows(8, 8), make_spec(depth=2), folds=2, C_values=[0.1, 1.0], test_size=0.0, **CV)
    assert cv.C_values == [0.1, 1.0] == cv.to_json()["C_values"]
    assert [r["C"] for r in cv.table] == [[0.1, 0.1], [0.1, 1.0], [1.0, 0.1], [1.0, 1.0]]


@pytest.mark.parametrize("option, depth", [("refine", 1), ("smooth_pure_nodes", 2)])
def test_fit_cv_passes_the_fit_options_to_the_fold_fits(option: str, depth: int) -> None:
    # Pinned: fit_cv's refine and smooth_pure_nodes reach the fold fits, not only the final fit (the second pass's
    # test) or cross_validate's (the first pass's, which shows the option changes these fold scores).
    ds = cv_data()
    spec = make_spec(depth=depth, C=[10.0] * depth)
    value = {"refine": False, "smooth_pure_nodes": True}[option]
    kw = dict(folds=2, seed=1, scoring="neg_log_loss", test_size=0.25)
    want = _fold_scores(ds, spec, **kw, **{option: value})
    _, cv = fit_cv(ds, spec, C_values=[10.0], verbose=False, **kw, **CV, **{option: value})
    assert [r.score for r in cv.fits] == pytest.approx(want, abs=1e-9)


def test_smooth_pure_nodes_is_refused_before_any_fold_fit() -> None:
    # Pinned: a smooth_pure_nodes that is no bool is refused as a parameter before the plan, not by the first
    # fold's fit as "cross-validation, fold 0, C 1: ..." (neither the fold nor the C had anything to do with it).
    lines: list[str] = []
    with pytest.raises(OlctcError, match=r"^The 'smooth_pure_nodes' parameter must be True or False\. Got 'yes' "):
        cross_validate(heart_rows(16, 16), make_spec(depth=1), folds=2, C_values=[1.0], smooth_pure_nodes="yes",
                       progress=lines.append, **CV)
    assert lines == []


def test_an_unscored_fit_says_why_and_shows_a_dash() -> None:
    # Pinned: the problem of a fold where scikit-learn refuses the scoring (accuracy where every point weighs 0)
    # ends with scikit-learn's reason, and its progress line shows '-' for the score.
    ds = heart_rows(16, 16)
    ds = _weigh_nothing(ds, _val0(ds, 3, 2))
    with pytest.raises(ValueError) as sklearn_says:
        accuracy_score([0, 1], [0, 1], sample_weight=[0.0, 0.0])
    lines: list[str] = []
    cv = cross_validate(ds, make_spec(depth=1), folds=3, C_values=[1.0], scoring="accuracy", test_size=0.0, seed=2,
                        progress=lines.append, **CV)
    assert cv.fits[0].problem == f"no accuracy on validation fold 0: {sklearn_says.value}"
    assert lines[1].startswith("cv fit 1/3: C 1, fold 0: optimal, validation acc - (")
    assert " acc - (" not in lines[2]


def test_each_progress_line_says_its_fits_own_time() -> None:
    # Pinned: the seconds each fit's line ends with are that fit's (their sum is the cross-validation's time, to
    # their rounding), not 0.0. Depth 2 on 48 rows: the two fits take over half a second together.
    lines: list[str] = []
    cv = cross_validate(heart_rows(24, 24), make_spec(depth=2), folds=2, C_values=[1.0], test_size=0.0,
                        progress=lines.append, **CV)
    shown = _shown_seconds(lines)
    assert len(shown) == 2
    # the fits are most of the time; the rest (folds, table, choice) grows under load, so no tight match
    assert cv.seconds / 2 <= sum(shown) <= cv.seconds + 0.1, (shown, cv.seconds)  # rounding: 0.05 s each at most


def test_a_validation_row_whose_score_overflows_is_an_error_naming_its_data_row() -> None:
    """One huge row (1e308 in every feature) in a validation fold: its score overflows. That fold was left unscored,
    so cross-validation ended "chose no C ... use another --scoring" (no scoring helps) and the fold's message named
    the row by its place in the fold, not in the data. It is now the data's error, the row named in the data."""
    from dataclasses import replace

    from olctc.datasets import load

    ds = load("heart").subset(np.arange(100, 140))  # its point 3 is heart's row 103
    X = ds.X.copy()
    X[3] = 1e308
    with pytest.raises(OlctcError) as exc:
        cross_validate(replace(ds, X=X), make_spec(depth=1), folds=2, C_values=[1.0], test_size=0.0, **CV)
    assert re.fullmatch(rf"cross-validation, fold \d, C 1: validation row 103 of the data: the score "
                        r"of node 0 overflows \(values too large for the tree's weights\); rescale the data",
                        str(exc.value)), str(exc.value)
