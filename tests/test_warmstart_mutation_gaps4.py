"""Fourth mutation pass over olctc.warmstart: behaviour the first three passes left unpinned.

Data are real (the heart subset of tests/test_warmstart_refine_mutation_gaps.py, standardised; haberman weighted by
its age column as compile weighs it); each test says the behaviour it pins. The haberman test answers a question from
another pass: its weighted greedy start scores worse on the weighted model than the unweighted start does, and that is
the heuristic's honest result (it fits the exact logistic loss, the model charges its tangent lower bound), not a weight
the start ignores.
"""
from __future__ import annotations

import numpy as np
import pytest

from olctc.compile import compile_problem
from olctc.datasets import load
from olctc.formulation import build_milp
from olctc.objective import tree_objective
from olctc.refine import fit_l1_logistic, l1_logistic_objective
from olctc.spec import make_spec
from olctc.warmstart import admissible_tree, greedy_tree, warm_start
from test_warmstart_mutation_gaps3 import start_edited
from test_warmstart_refine_mutation_gaps import heart


def test_haberman_weighted_by_age_starts_from_the_weighted_exact_fit():
    """haberman weighted by age, depth 1: the start's root is the weighted L1 logistic fit, whose exact weighted
    objective (8750) is below the unweighted fit's (8766); on the model's V0 tangent loss the order flips (6245
    against 6080). The greedy start fits the exact loss, not the tangent bound the model charges, so a worse model
    objective than another tree's is its honest result, not a weight it drops."""
    comp = compile_problem(load("haberman", weight_column="age"), make_spec("olct", depth=1), "hab")
    X, y, sw, spec = comp.X, comp.dataset.y, comp.dataset.weight, comp.spec
    x, info = warm_start(comp.milp, X, y, spec, sample_weight=sw)
    w, b = fit_l1_logistic(X, y, 1.0, sample_weight=sw)
    np.testing.assert_allclose(info["W"][0], w, rtol=1e-6)
    assert info["objective_matches"] and info["adjustments"] == []
    u = fit_l1_logistic(X, y, 1.0)
    assert l1_logistic_objective(w, b, X, y, 1.0, sw) < l1_logistic_objective(u[0], u[1], X, y, 1.0, sw) - 10
    on_model = tree_objective(u[0][None, :], np.array([u[1]]), X, y, spec, sample_weight=sw).total
    assert on_model < info["objective"] - 100


def test_a_scaling_note_keeps_six_digits_below_0_9999():
    """A leaf scaled by 0.997 (b = +-100.3 at big-M 100) reports the factor to 6 digits: the 12 digits are only for
    factors within 1e-4 of 1, which 6 digits would show as "scaled by 1"."""
    X, _ = heart()
    W = np.zeros((3, X.shape[1]))
    notes = admissible_tree(W, np.array([-1.0, 100.3, -100.3]), X, make_spec("olct", depth=2))[2]
    assert notes == [f"node {t}: (w, b) scaled by 0.997009 so that |score| <= 100 (big-M 100)" for t in (1, 2)]



def test_a_margot_node_weighs_the_points_when_it_weighs_the_constant_against_the_fit():
    """MARGOT's node compares the SVM's share with the constant node's, both weighted. HFS, C = 0.1, positives
    weighing 3: the one-feature refit is no better than the constant (10.8), and the constant takes the weighted
    majority (+1; unweighted it is -1). Plain MARGOT, C = 0.001, weights e^age: the SVM beats the constant only on
    the weighted shares (unweighted the constant -1 scores better)."""
    X, y = heart()
    W, b = greedy_tree(X, y, make_spec("margot-hfs", depth=1, C=0.1), sample_weight=np.where(y > 0, 3.0, 1.0))
    assert not W.any() and b.tolist() == [1.0]
    W, b = greedy_tree(X, y, make_spec("margot", depth=1, C=0.001), sample_weight=np.exp(X[:, 0]))
    assert np.count_nonzero(W[0]) == X.shape[1] and b[0] != -1.0


def test_an_objective_off_by_a_fraction_of_a_percent_is_a_mismatch():
    """MARGOT at big-M 1.99 (just under 2): the relaxed hinge rows bind a little, the start's MILP objective is 0.4%
    above its tree's, and that is a mismatch (relative tolerance 1e-7), warned, not a match."""
    X, y = heart()
    spec = make_spec("margot", depth=2, big_m=1.99)
    with pytest.warns(UserWarning, match="big-M-relaxed rows bind"):
        info = warm_start(build_milp(X, y, spec), X, y, spec)[1]
    assert not info["objective_matches"]
    assert 1e-3 < info["objective"] / info["tree_objective"] - 1 < 1e-2


def test_a_start_below_a_bound_by_less_than_the_row_tolerance_is_refused(monkeypatch):
    """Bounds are checked exactly, rows to 1e-9: a start whose zero hinge losses (xi) sit 1e-10 below their bound 0
    (rows still hold to 1e-10) is refused, the bounds named. A fault no real tree reaches, injected into the completed
    start (as test_warmstart_mutation_gaps3 does for integrality)."""
    X, y = heart()
    spec = make_spec("margot", depth=1)
    milp = build_milp(X, y, spec)

    def below_bound(xi: np.ndarray) -> None:
        xi[xi == 0.0] = -1e-10

    start_edited(monkeypatch, milp, "xi", below_bound)
    with pytest.raises(AssertionError, match=r"warm start infeasible: .*bounds 1e-10, integrality 0\)"):
        warm_start(milp, X, y, spec)


def test_the_zero_node_note_gives_the_largest_row_sum_of_the_features():
    """Age scaled by 1e11 under OCT-H (an L0 preset): no scaling admits the node, and the note gives the largest sum_j
    |x_ij| over the points (a row's, the room that zeroing tiny weights needs), not a column's."""
    X, _ = heart()
    X[:, 0] *= 1e11
    W = np.zeros((1, X.shape[1]))
    W[0, 0] = 1e-12
    notes = admissible_tree(W, np.array([0.5]), X, make_spec("oct-h", depth=1))[2]
    rows = float(np.abs(X).sum(axis=1).max())
    assert f"{rows:.3g}" != f"{float(np.abs(X).sum(axis=0).max()):.3g}"
    assert notes == ["node 0: no scaling of (w, b) fits big-M 100 (epsilon 1e-05, features with sum_j |x_j| up to "
                     f"{rows:.3g}); node set to w = 0, b = 0"]

