"""Edges of refinement (``olctc.refine``) that a third mutation pass over it found unpinned: the tuning of the node
fit (the rough fit's intercept scaling on a sparse-shifted node, the cold start of the polish, liblinear's seed), the
report's bookkeeping of nodes it does not refit, and what the refusals of a bad C, bad labels and a misshapen W say.

Data are real (the vendored heart and haberman sets, standardised); optima are checked against the L1 logistic
objective computed here and scipy's L-BFGS-B reference of ``test_refine_start_mutation_gaps``. No MILP solver runs.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import olctc.refine as refine_module
from olctc.errors import OlctcError
from olctc.refine import (_shifted_sparse, _sklearn_l1_logistic, fit_l1_logistic, l1_logistic_objective, linear_fit,
                          polish_deadline, refine, sklearn_l1_logistic)
from olctc.spec import make_spec
from test_refine import data
from test_refine_start_mutation_gaps import scipy_optimum
from test_warmstart_refine_mutation_gaps import heart

# ---------------------------------------------------------------- the node fit


def test_a_rough_fit_on_a_shifted_node_barely_penalises_its_intercept(monkeypatch: pytest.MonkeyPatch):
    """liblinear fits a shifted node on X - median, whose intercept b + w.median lies far from 0 where its penalty,
    |b| / scaling, weighs: the shifted rough fit runs at intercept scaling 100. Heart (all rows), shifted (limits
    lowered so the sparse path runs) at C = 0.05: 0.001 % above the optimum measured; at scaling 1, 5.7 % above."""
    X, y = data("heart")
    monkeypatch.setattr(refine_module, "_SPARSE_MIN_CELLS", 0)
    monkeypatch.setattr(refine_module, "_SPARSE_MAX_DENSITY", 1.0)
    assert _shifted_sparse(X) is not None
    rough = l1_logistic_objective(*fit_l1_logistic(X, y, 0.05, polish=False), X, y, 0.05)
    assert rough < scipy_optimum(X, y, 0.05) * 1.001


@pytest.mark.parametrize("name,C,within", [("heart", 1.0, 2e-5), ("ionosphere", 10.0, 5e-4)])
def test_the_rough_fit_is_close_to_the_optimum(name: str, C: float, within: float):
    """polish=False (the warm start's fit of large nodes) runs liblinear to tolerance 1e-3: measured 1.5e-6 (heart)
    and 4.5e-5 (ionosphere) above the optimum, relatively; at tolerance 1e-2 they were 1.1e-4 and 4.2e-3."""
    X, y = data(name)
    rough = l1_logistic_objective(*fit_l1_logistic(X, y, C, polish=False), X, y, C)
    assert rough < scipy_optimum(X, y, C) * (1 + within)


@pytest.mark.parametrize("name", ["heart", "haberman"])
def test_a_polish_stopped_at_once_still_returns_an_optimum_of_zero_weights(name: str):
    """The second polish starts cold at w = 0 and b the log-odds, the optimum itself when C is small: a polish
    stopped past its deadline still returns it exactly, where one from liblinear's point alone (or from b = 0) was
    off by 0.04 (heart) and 0.16 (haberman) in b."""
    X, y = data(name)
    with polish_deadline(time.perf_counter() - 1.0) as stopped:
        w, b = fit_l1_logistic(X, y, 0.01)
    assert stopped == [True]
    assert not w.any() and b == pytest.approx(np.log((y > 0).sum() / (y < 0).sum()), abs=1e-12)


def test_liblinears_own_fit_is_the_same_on_every_call():
    """sklearn_l1_logistic (the unpolished reference fit) seeds liblinear with 0 by default: repeated fits are
    identical to the bit (with no seed each drew its own and the weights differed)."""
    X, y = heart()
    fits = [sklearn_l1_logistic(X, y, 1.0) for _ in range(3)]
    for w, b in fits[1:]:
        assert np.array_equal(w, fits[0][0]) and b == fits[0][1]


# ---------------------------------------------------------------- refinement's report


@pytest.mark.parametrize("preset,features", [("olct", list(range(13))), ("olct-univariate", [0, 1])])
def test_a_node_not_refit_lists_the_features_it_would_have_used(preset: str, features: list[int]):
    """An empty node's detail names the features a refit would use, as a refit node's does: every feature for
    olct, its nonzero weights for olct-univariate."""
    X, y = heart()
    W, b = np.zeros((3, X.shape[1])), np.array([-1.0, 0.0, 0.0])  # the root sends every point left
    W[2, :2] = [1.0, -2.0]
    _, _, rep = refine(W, b, X, y, make_spec(preset, depth=2))
    empty = next(d for d in rep.details if d.node == 2)
    assert empty.status == "empty" and empty.features == features


def test_a_leaf_of_one_point_is_one_class_not_empty():
    """A leaf reached by a single point is reported "one class" with that point counted (not "empty", which is a
    leaf no point reaches): heart's one largest value of feature 3 sends one positive point right."""
    X, y = heart()
    W, b = np.zeros((3, X.shape[1])), np.zeros(3)
    top = np.sort(X[:, 3])[-2:]
    W[0, 3], b[0] = 1.0, -float(top.mean())  # right iff x_3 is the largest value, held by one point
    _, _, rep = refine(W, b, X, y, make_spec("olct", depth=2))
    right = next(d for d in rep.details if d.node == 2)
    assert (right.status, right.n_points, right.n_positive) == ("one class", 1, int(y[np.argmax(X[:, 3])] > 0))
    assert rep.nodes_kept == [2] and rep.nodes_refit == [1]


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("C", ["1", True])
def test_a_C_that_is_no_number_is_refused_by_name(C: object):
    """C must be a real number: a string fails by name (not with a TypeError from the comparison), and True is not
    taken for 1."""
    X, y = heart()
    with pytest.raises(OlctcError, match=rf"^The 'C' parameter must be a finite number > 0. Got {C!r} instead.$"):
        fit_l1_logistic(X, y, C)


def test_the_refusals_of_bad_labels_one_class_and_misshapen_weights_say_what_came():
    """The first label that is not -1 or +1 is shown as the user would write it (0.0, not np.float64(0.0)); the node
    fit's one-class refusal counts the points; misshapen sample weights and W are refused with the shape expected
    and the shape given."""
    X, y = heart()
    y01 = np.where(y > 0, 1.0, 0.0)
    with pytest.raises(OlctcError, match=r"^y must hold labels -1 and \+1 only; got 0\.0$"):
        fit_l1_logistic(X, y01, 1.0)
    with pytest.raises(OlctcError, match=r"^an L1 logistic fit needs both classes; got 7 point\(s\) of one class$"):
        fit_l1_logistic(X[:7], np.ones(7), 1.0)
    with pytest.raises(OlctcError,
                       match=r"^sample_weight must be 1-D with one weight per point \(99\); got shape \(5,\)$"):
        fit_l1_logistic(X, y, 1.0, sample_weight=np.ones(5))
    W, b = np.zeros((3, 4)), np.zeros(3)
    with pytest.raises(OlctcError, match=r"^W must have shape \(3, 13\) \(branch nodes of depth 2, features of X\); "
                                         r"got \(3, 4\)$"):
        refine(W, b, X, y, make_spec("olct", depth=2))


@pytest.mark.parametrize("ndim", [1, 3])
def test_points_that_are_no_matrix_are_refused_by_name(ndim: int):
    """X must be 2-D: one feature's column or a stack of matrices is refused naming X and its dimensions (a 1-D X
    was an IndexError deep inside, a 3-D one scikit-learn's ValueError)."""
    X, y = heart()
    bad = X[:, 0] if ndim == 1 else X[:, :, None]
    with pytest.raises(OlctcError, match=rf"^X must be a 2-D array; got {ndim} dimension\(s\)$"):
        fit_l1_logistic(bad, y, 1.0)


# ---------------------------------------------------------------- the shared fit


def test_a_fit_stopped_at_its_iteration_limit_warns_nobody():
    """linear_fit silences scikit-learn's ConvergenceWarning (the polish finishes liblinear's early stop): a liblinear
    fit cut at 2 iterations returns its weights with no warning, even where warnings are errors."""
    X, y = heart()
    model = _sklearn_l1_logistic(1.0, 0).set_params(max_iter=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w, b = linear_fit(model, X, y, None)
    assert w.shape == (X.shape[1],) and w.any() and np.isfinite(b)
