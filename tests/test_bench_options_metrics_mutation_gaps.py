"""Tests from a mutation pass of the bench's options and metrics (QA 2026-12-07). Each test pins a behaviour that
some hand-written mutant got wrong while the bench tests passed; the comments name the mutant ids of that pass.
Options are built on haberman or heart without running anything; metrics on small hand-made arrays."""
from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pytest

from olctc.bench import options as bench_options
from olctc.bench.experiments import C_GRID
from olctc.bench.metrics import gap_cdf, performance_profile, performance_ratios
from olctc.bench.options import (MAX_SEED, make_options, parse_datasets, parse_grid, parse_models,
                                 parse_seeds)
from olctc.datasets import dataset_names
from olctc.errors import OlctcError
from test_bench_options_runner_mutation_gaps import _cart


# ---- options.py --------------------------------------------------------------------------------------------------

def test_seeds_below_zero_are_refused_and_no_seeds_means_the_experiments() -> None:
    """A negative seed fails every run of it (the split's random_state), so it is refused up front; without
    --seeds a bench runs its experiment's own seeds and data sets, all of them."""
    # m05: the lower bound dropped; m06, m39: the default seeds ignored; m40: the default data sets cut short.
    with pytest.raises(OlctcError, match=f"'seeds' parameter must be integers from 0 to {MAX_SEED}. Got '-1,0'"):
        parse_seeds("-1,0", ())
    assert parse_seeds(None, [6, 71]) == (6, 71)
    o = make_options("models")
    exp = bench_options.get_experiment("models")
    assert (o.seeds, o.datasets) == (exp.seeds, exp.datasets) == ((0, 42, 314, 6, 71), exp.datasets)
    assert len(o.datasets) == 10


def test_an_unknown_data_set_is_named_with_every_known_one_and_none_at_all_is_refused() -> None:
    """The message lists the data sets one may give; an empty list (no default) is not a bench of nothing; an
    unknown model is refused by the parser itself, not only later by make_options."""
    # m09: unknown names let through; m11: the known names left out; m10: an empty list taken; m13: parse_models
    # not checking the names.
    known = ", ".join(dataset_names())
    with pytest.raises(OlctcError, match=f"^unknown data set 'nosuch'; known: {re.escape(known)}$"):
        parse_datasets("haberman,nosuch", ())
    with pytest.raises(OlctcError, match="'datasets' parameter must be distinct data set names"):
        parse_datasets(None, ())
    with pytest.raises(OlctcError, match="'models' parameter must be names among OLCT, .* Got 'XGB'"):
        parse_models("CART,XGB", bench_options.get_experiment("models"))


def test_grid_default_and_its_bad_values_each_named() -> None:
    """No --C-grid is the paper's grid; 'inf' is called not finite (not 'too large'); a word is an OlctcError
    naming the option, not Python's ValueError."""
    # m16: the default grid empty; m18: inf left to the 1e20 check; m21: the ValueError let out.
    assert parse_grid(None) == C_GRID and _cart(cv=2).C_grid == C_GRID
    with pytest.raises(OlctcError, match="'C_grid' parameter must be positive finite numbers separated by commas. "
                                         "Got '1,inf'"):
        parse_grid("1,inf")
    with pytest.raises(OlctcError, match="'C_grid' parameter must be positive numbers separated by commas. "
                                         "Got '1,a'"):
        parse_grid("1,a")


def test_a_fractional_thread_count_is_refused() -> None:
    """--threads is a count: 2.5 is refused like 0, not handed to the solvers."""
    # m25: only bools and numbers below 1 refused.
    with pytest.raises(OlctcError, match=r"'threads' parameter must be an integer >= 1 \(solver threads per fit\). "
                                         "Got 2.5"):
        _cart(threads=2.5)


def test_numpy_counts_of_threads_and_min_leaf_are_taken_as_ints() -> None:
    """np.int64(2) threads were refused as "must be an integer >= 1 ... Got 2 instead" (and min_leaf alike); they are
    counts, written to bench.json as plain numbers. A bool is still no count."""
    o = _cart(threads=np.int64(2), min_leaf=np.int32(3))
    assert (type(o.threads), type(o.min_leaf), o.threads, o.min_leaf) == (int, int, 2, 3)
    assert json.loads(json.dumps(o.to_json()))["threads"] == 2
    with pytest.raises(OlctcError, match=r"'threads' parameter must be an integer >= 1"):
        _cart(threads=True)
    with pytest.raises(OlctcError, match=r"'min_leaf' parameter \(--min-leaf\) must be an integer >= 0"):
        _cart(min_leaf=np.float64(3.0))


def test_a_grid_without_cv_is_refused_naming_each_model_plainly() -> None:
    """The refusal of --C-grid without --cv lists the models as the user wrote them, not a Python tuple."""
    # m38: the models shown as ('CART', 'OCT-H').
    with pytest.raises(OlctcError, match=r"these models \(CART, OCT-H\) use --fixed-C without --cv: give --cv K, "
                                         "or leave out --C-grid$"):
        _cart(models="CART,OCT-H", C_grid="1,10")


def test_folds_are_bounded_by_the_smaller_class_whichever_sign_it_has() -> None:
    """haberman's smaller class is its positive one (65 of 244 training points): --cv 66 leaves a fold without a
    positive point and is refused; --cv 65 is taken."""
    # m49: only the negative class counted (179 points), so --cv 66 to 179 went through to fail in every run.
    with pytest.raises(OlctcError, match=r"'cv' parameter must be at most 65 folds for haberman \(the points of the "
                                         r"smaller class in its training part\)\. Got 66"):
        _cart(cv=66)
    assert _cart(cv=65).cv == 65


def test_non_default_threads_and_class_weight_are_kept_and_written() -> None:
    """--threads 2 and --class-weight balanced reach the options and bench.json (a resume compares them)."""
    # m43: class_weight dropped from BenchOptions; m59: never written; m58: threads never written.
    o = _cart(threads=2, class_weight="balanced")
    assert (o.threads, o.class_weight) == (2, "balanced")
    d = o.to_json()
    assert (d["threads"], d["class_weight"]) == (2, "balanced")


def test_every_cv_bench_searches_the_grid() -> None:
    """A --cv bench of CART searches C_grid (so a resume compares the grid), a fixed-C one does not, and an L1-LR
    bench always does."""
    # m61: the property asked without cv: a --cv CART folder resumed with another --C-grid silently.
    assert _cart(cv=2).uses_C_grid and not _cart().uses_C_grid and _cart(models="L1-LR").uses_C_grid


def test_a_fractional_fold_count_is_refused_and_a_numpy_one_is_taken_as_an_int() -> None:
    """Defect fixed in this pass: make_options took cv=2.5 (only bools and numbers below 2 were refused), recorded
    it, and every run then failed on scikit-learn's folds; numpy's 3 is a count, written to bench.json as 3."""
    # m33 (bool check dropped) is equivalent (True < 2); reading it showed the missing integer check.
    with pytest.raises(OlctcError, match=r"'cv' parameter must be an integer >= 2 \(folds\). Got 2.5"):
        _cart(cv=2.5)
    o = _cart(cv=np.int64(3))
    assert type(o.cv) is int and json.loads(json.dumps(o.to_json()))["cv"] == 3


# ---- metrics.py --------------------------------------------------------------------------------------------------

def test_summaries_of_no_instance_are_a_model_by_threshold_table_of_zeros() -> None:
    """A report with no finished instance draws each model at 0 everywhere: one row per model, one column per
    threshold, for the gap CDF and the Dolan-More profile alike (and without numpy's empty-mean warning)."""
    # m75, m85: the empty tables transposed; m86: the empty case left to numpy (NaN and a warning).
    thresholds = np.array([0.0, 1.0])
    F = gap_cdf(np.zeros((0, 3)), thresholds)
    assert F.shape == (3, 2) and not F.any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rho = performance_profile(np.zeros((0, 3)), thresholds)
    assert rho.shape == (3, 2) and not rho.any()


def test_ratios_where_the_best_cost_is_zero_or_every_model_failed() -> None:
    """With no shift a best cost of 0 gives ratio 1 to every model at 0 and inf to the others; an instance every
    model failed gives inf to all, so no model counts as solving it at any tau."""
    # m80: 0 / 0 read as a failure (inf); m81: the all-failed instance read as every model matching the best.
    r = performance_ratios(np.array([[0.0, 0.0, 2.0], [np.nan, np.inf, np.nan]]))
    assert r.tolist() == [[1.0, 1.0, math.inf], [math.inf, math.inf, math.inf]]
    assert performance_profile(np.array([[np.nan, np.nan], [1.0, 2.0]]), np.array([1e9])).tolist() == [[0.5], [0.5]]
