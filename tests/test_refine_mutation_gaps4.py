"""Edges of refinement (``olctc.refine``) that a fourth mutation pass over it found unpinned: the arrays it hands
back are the caller's own (not views of a scikit-learn model's or of the caller's input), a weighted refit fits the
weights, the shifted rough fit's intercept scaling, and the refusals of an infinite C and of a late bad label.

Data are real (the vendored heart set, standardised); optima are checked against the L1 logistic objective and
scipy's L-BFGS-B reference of ``test_refine_start_mutation_gaps``. No MILP solver runs.
"""
from __future__ import annotations

import numpy as np
import pytest

import olctc.refine as refine_module
from olctc.errors import OlctcError
from olctc.refine import _sklearn_l1_logistic, fit_l1_logistic, l1_logistic_objective, linear_fit, refine
from olctc.spec import make_spec
from test_refine import data
from test_refine_start_mutation_gaps import scipy_optimum
from test_warmstart_refine_mutation_gaps import heart


def test_a_linear_fits_weights_are_a_copy_of_the_models():
    """linear_fit copies the model's coefficients: a caller editing the weights (as a warm start trims a node's to
    its budget) leaves the model alone, and a libsvm SVC's read-only coef_ comes back writeable."""
    from sklearn.svm import SVC

    X, y = heart()
    model = _sklearn_l1_logistic(1.0, 0)
    w, _ = linear_fit(model, X, y, None)
    fitted = model.coef_[0].copy()
    w[:] = 0.0
    assert np.array_equal(model.coef_[0], fitted) and fitted.any()
    w_svc, _ = linear_fit(SVC(kernel="linear", C=1.0, random_state=0), X, y, None)
    w_svc[0] = 1.0  # no "assignment destination is read-only"


@pytest.mark.parametrize("preset", ["olct", "margot"])
def test_a_refined_tree_is_a_copy_even_where_nothing_changed(preset: str):
    """refine returns copies of W and b even where no node is refit (a logistic tree whose leaves are all one class
    or empty, or a preset refinement does not apply to): editing the result leaves the caller's tree alone."""
    X, _ = heart()
    W, b = np.zeros((3, X.shape[1])), np.array([-1.0, 0.0, 0.0])  # the root sends every point left
    W[1, 0], W[2, 1] = 1.0, 2.0
    W2, b2, rep = refine(W, b, X, np.ones(X.shape[0]), make_spec(preset, depth=2))  # one class
    assert rep.nodes_refit == []
    W2[:], b2[:] = 7.0, 7.0
    assert W[1, 0] == 1.0 and W[2, 1] == 2.0 and not W[0].any() and b[0] == -1.0


def test_a_weighted_refit_is_the_weighted_optimum():
    """refine fits each node to its points' weights, not only scores the fit by them: a one-node heart tree refit
    with positives weighted 4 lands on the weighted L1 logistic optimum (the unweighted fit, also an improvement on
    the zero tree, sits well above it)."""
    X, y = heart()
    sw = np.where(y > 0, 4.0, 1.0)
    W2, b2, rep = refine(np.zeros((1, X.shape[1])), np.zeros(1), X, y, make_spec("olct", depth=1), sample_weight=sw)
    assert rep.nodes_refit == [0]
    best = l1_logistic_objective(*fit_l1_logistic(X, y, 1.0, sample_weight=sw), X, y, 1.0, sw)
    assert l1_logistic_objective(W2[0], b2[0], X, y, 1.0, sw) == pytest.approx(best, rel=1e-7)
    assert l1_logistic_objective(*fit_l1_logistic(X, y, 1.0), X, y, 1.0, sw) > best * 1.001


def test_a_rough_fit_on_a_shifted_node_is_as_close_as_a_dense_one(monkeypatch: pytest.MonkeyPatch):
    """The shifted rough fit's intercept scaling (100) keeps liblinear's penalty on the intercept b + w.median out of
    the answer: heart shifted (limits lowered so the sparse path runs) at C = 0.02 measured 2.2e-5 above the optimum,
    relatively; at scaling 30 it was 2.5e-4."""
    X, y = data("heart")
    monkeypatch.setattr(refine_module, "_SPARSE_MIN_CELLS", 0)
    monkeypatch.setattr(refine_module, "_SPARSE_MAX_DENSITY", 1.0)
    rough = l1_logistic_objective(*fit_l1_logistic(X, y, 0.02, polish=False), X, y, 0.02)
    assert rough < scipy_optimum(X, y, 0.02) * (1 + 1e-4)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("C", [float("inf"), 10 ** 400])
def test_a_C_past_the_largest_float_is_refused_by_name(C: float):
    """C must be finite: infinity, and an integer too large for any float, are refused naming C (not taken, and
    not an OverflowError or a NaN objective from inside the fit)."""
    X, y = heart()
    refusal = r"^The 'C' parameter must be a finite number > 0\. Got (inf|10+\.\.\.) instead\.$"  # the int cut short
    with pytest.raises(OlctcError, match=refusal):
        fit_l1_logistic(X, y, C)


def test_the_label_refusal_shows_the_first_bad_label_not_the_first_label():
    """Labels are shown as the first one that is not -1 or +1, wherever it is: a 2 after good labels is named."""
    X, y = heart()
    y[5] = 2.0
    with pytest.raises(OlctcError, match=r"^y must hold labels -1 and \+1 only; got 2\.0$"):
        fit_l1_logistic(X, y, 1.0)
