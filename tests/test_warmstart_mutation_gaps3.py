"""Third mutation pass over olctc.warmstart: branches the first two passes did not reach.

Data are real (the heart subset of tests/test_warmstart_refine_mutation_gaps.py, standardised); each test says the
behaviour it pins. Cases were found by search on that subset (an alpha at which OCT-H's best direction ties the
constant leaf, a tangent set whose loss cap is not its largest). One test injects a fault no real tree reaches: a start
breaking only integrality or only a bound (monkeypatch, as test_warmstart_refine_mutation_gaps does for rows).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import olctc.warmstart as warmstart_module
from olctc import background
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.objective import class_mass
from olctc.refine import fit_l1_logistic
from olctc.spec import make_spec
from olctc.warmstart import (EXACT_FIT_CELLS, LeafTooSmall, _constant_b, complete_start, greedy_tree, over_budget,
                             score_cap, warm_start)
from test_warmstart_refine_mutation_gaps import heart


def _quiet_start(milp, X, y, spec, **kw):
    """warm_start, failing on any warning (an objective mismatch warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return warm_start(milp, X, y, spec, **kw)


def test_the_logistic_loss_cap_is_its_tightest_tangent():
    """Tangents at -2 and -3, big-M 1: the relaxed loss rows stay slack only while |score| <= min over tangents of
    (M - c) / g (0.72, the tangent at -2), not the largest such bound (0.85): a start at leaves of +-5 and the greedy
    start match their trees' objectives, with no warning."""
    X, y = heart()
    spec = make_spec("olct", depth=2, tangents=(-2.0, -3.0), big_m=1.0)
    assert 0.72 < score_cap(spec) < 0.721
    milp = build_milp(X, y, spec)
    W = np.zeros((3, X.shape[1]))
    W[0, 0] = 1.0
    for tree in ((W, np.array([0.0, 5.0, -5.0])), None):
        info = _quiet_start(milp, X, y, spec, tree=tree)[1]
        assert info["objective_matches"]
        assert info["objective"] == pytest.approx(info["tree_objective"], rel=1e-9)


def test_oct_h_tries_the_next_strength_when_one_fits_no_weight():
    """OCT-H's start tries every strength of OCTH_START_C: on features scaled by 0.01 the fits at C = 1 and 0.1 have
    w = 0, the one at 10 does not, and the routing root takes it (not the constant node)."""
    X, y = heart()
    X = X * 0.01
    assert [np.count_nonzero(fit_l1_logistic(X, y, c)[0]) for c in (1.0, 0.1)] == [0, 0]
    W, _ = greedy_tree(X, y, make_spec("oct-h", depth=2))
    assert np.count_nonzero(W[0]) == np.count_nonzero(fit_l1_logistic(X, y, 10.0)[0]) > 0


def test_an_oct_h_leaf_tying_the_constant_is_constant():
    """OCT-H leaf, alpha 6.5: the best direction (C = 0.1: 19 errors, 4 weights) has share 45, exactly the minority
    mass the constant leaf pays: the tie goes to the constant leaf."""
    X, y = heart()
    assert min(class_mass(y, None)) == 45.0
    w, b = fit_l1_logistic(X, y, 0.1)
    assert int(((X @ w + b > 0) != (y > 0)).sum()) == 19 and np.count_nonzero(w) == 4
    W, b = greedy_tree(X, y, make_spec("oct-h", depth=1, alpha=6.5))
    assert not W.any() and b[0] == -1.0


def test_oct_h_picks_its_direction_by_weighted_errors():
    """With positive points weighing 2, OCT-H's root (alpha 1) takes the direction of the least weighted share: 6
    weights; counting errors unweighted would take another (11 weights)."""
    X, y = heart()
    sw = np.where(y > 0, 2.0, 1.0)
    W, _ = greedy_tree(X, y, make_spec("oct-h", depth=1, alpha=1.0), sample_weight=sw)
    assert np.count_nonzero(W[0]) == 6


def _split_root(X: np.ndarray, depth: int, k: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A tree whose root sends the k largest values of feature 0 right (other nodes zero)."""
    W, b = np.zeros((2 ** depth - 1, X.shape[1])), np.zeros(2 ** depth - 1)
    s = np.sort(X[:, 0])
    W[0, 0], b[0] = 1.0, -(s[-k] + s[-k - 1]) / 2
    return W, b


def test_a_given_last_layer_that_routes_in_the_deeper_tree_faces_min_leaf():
    """Deepening a depth-2 tree to depth 3 (min_leaf 10): its node 2, which sends 5 of its 49 points (28 positive)
    right, now routes and is made constant, as a fitted node would be, with the best constant of its own points
    (positive; all the points' would be negative)."""
    X, y = heart()
    Wt, bt = np.zeros((3, X.shape[1])), np.zeros(3)
    Wt[0, 0], bt[0] = 1.0, -float(np.median(X[:, 0]))
    right = X @ Wt[0] + bt[0] > 0
    s2 = np.sort(X[right, 4])
    Wt[2, 4], bt[2] = 1.0, -(s2[-5] + s2[-6]) / 2
    assert (int(right.sum()), int((X[right] @ Wt[2] + bt[2] > 0).sum())) == (49, 5)
    spec = make_spec("olct", depth=3, min_leaf=10)
    W, b = greedy_tree(X, y, spec, top=(Wt, bt))
    assert np.array_equal(W[0], Wt[0]) and b[0] == bt[0]
    assert not W[2].any() and b[2] == _constant_b(y[right], spec) > 0 > _constant_b(y, spec)


def test_over_budget_names_the_first_node_over_it_not_the_largest():
    """Hard budget 2: of rows with 3 and 4 nonzero weights, the first (row 0, 3) is named, in complete_start's
    error too."""
    spec = make_spec("olct-univariate", depth=1)
    hfs = make_spec("margot-hfs", depth=2, budget=2)
    W = np.array([[1.0, 2.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    assert over_budget(W, hfs) == (0, 3)
    X, y = heart()
    W1 = np.zeros((1, X.shape[1]))
    W1[0, :3] = 1.0
    with pytest.raises(OlctcError, match=r"W row 0 has 3 nonzero weights; preset 'olct-univariate' allows at most 1"):
        complete_start(build_milp(X, y, spec), X, y, spec, W1, np.zeros(1))


def test_a_deepening_that_is_refused_too_reports_the_given_trees_reason():
    """min_leaf 10, a depth-2 tree deepened to 3 (its given root is not checked again): the root sends 5 points
    right, node 1 4 of its points right. The copies are refused for last-layer node 4 (node 1's 4 points); the
    greedy deepening makes node 1 constant but still routes the root's 5 points to one node (5), refused too: the
    copies' reason (the first) is raised."""
    X, y = heart()
    Wt, bt = _split_root(X, 3, k=5)
    left = X @ Wt[0] + bt[0] <= 0
    s1 = np.sort(X[left, 4])
    Wt[1, 4], bt[1] = 1.0, -(s1[-4] + s1[-5]) / 2
    Wt[3:5], bt[3:5] = Wt[1], bt[1]  # node 1's copies
    spec = make_spec("olct", depth=3, min_leaf=10)
    with pytest.raises(LeafTooSmall) as exc:
        warm_start(build_milp(X, y, spec), X, y, spec, tree=(Wt, bt), given_layers=2)
    assert exc.value.why.startswith("last-layer node 4 holds 4 training point(s)")


def test_a_weighted_deepening_fits_its_new_layers_with_the_weights():
    """The greedy layers of a deepened start are fit with the sample weights the MILP was built with."""
    X, y = heart()
    spec = make_spec("olct", depth=2)
    sw = np.where(y > 0, 3.0, 0.5)
    W, b = _split_root(X, 2)
    W[1:], b[1:] = W[0], b[0]  # the copies
    info = _quiet_start(build_milp(X, y, spec, sample_weight=sw), X, y, spec, sample_weight=sw, tree=(W, b),
                        given_layers=1)[1]
    assert info["deepened"] == "greedy"
    Wg, bg = greedy_tree(X, y, spec, sample_weight=sw, top=(W[:1], b[:1]))
    np.testing.assert_array_equal(info["W"], Wg)
    assert np.abs(Wg - greedy_tree(X, y, spec, top=(W[:1], b[:1]))[0]).max() > 0.1


def test_class_weights_weigh_the_greedy_fits():
    """The spec's class weights weigh each node's fit as the same sample weights do."""
    X, y = heart()
    Wc, bc = greedy_tree(X, y, make_spec("olct", depth=2, class_weight=(1.0, 4.0)))
    Ws, bs = greedy_tree(X, y, make_spec("olct", depth=2), sample_weight=np.where(y > 0, 4.0, 1.0))
    np.testing.assert_array_equal(Wc, Ws)
    np.testing.assert_array_equal(bc, bs)
    assert np.abs(Wc - greedy_tree(X, y, make_spec("olct", depth=2))[0]).max() > 1.0


def test_min_points_true_is_refused():
    """min_points must be an integer: True (an int to Python) is refused, as 0 is."""
    X, y = heart()
    with pytest.raises(OlctcError, match=r"'min_points' parameter must be an integer >= 1. Got True instead"):
        greedy_tree(X, y, make_spec("olct", depth=1), min_points=True)


def test_a_node_of_exactly_exact_fit_cells_gets_the_exact_fit_and_a_larger_one_the_fast_fit():
    """EXACT_FIT_CELLS bounds the nodes that get the polished L1 logistic fit: 20,000 points x 10 features (the heart
    subset repeated) are exactly that and get the exact fit; 20,001 points get liblinear's (they differ by 2e-3)."""
    X, y = heart()
    for n, polish in ((EXACT_FIT_CELLS // 10, True), (EXACT_FIT_CELLS // 10 + 1, False)):
        idx = np.arange(n) % y.size
        Xn, yn = X[idx, :10], y[idx]
        W, b = greedy_tree(Xn, yn, make_spec("olct", depth=1))
        w, b0 = fit_l1_logistic(Xn, yn, 1.0, random_state=0, polish=polish)
        np.testing.assert_array_equal(W[0], w)
        assert b[0] == b0
        other = fit_l1_logistic(Xn, yn, 1.0, random_state=0, polish=not polish)[0]
        assert np.abs(other - w).max() > 1e-3


def start_edited(monkeypatch, milp, block: str, edit) -> None:
    """Make warm_start's completed start pass through ``edit`` (given a view of its ``block`` columns) before it is
    checked: a fault no real tree reaches."""
    assemble = warmstart_module._assemble

    def edited(*args) -> np.ndarray:
        x = assemble(*args)
        edit(x[milp.col_block(block).slice])
        return x

    monkeypatch.setattr(warmstart_module, "_assemble", edited)


@pytest.mark.parametrize("delta, broken", [(0.5, r"integrality 0\.5\)"), (2.0, r"rows 0, bounds 1, integrality 0\)")])
def test_a_start_breaking_only_integrality_or_a_bound_is_refused(monkeypatch, delta: float, broken: str):
    """The start is checked against bounds and integrality as well as rows: OCT-H's delta of an unused weight set to
    0.5 (rows hold, integrality not) or 2 (rows and integrality hold, its bound 1 not) is refused, the failing check
    named. A fault no real tree reaches, injected into the completed start."""
    X, y = heart()
    spec = make_spec("oct-h", depth=1)
    milp = build_milp(X, y, spec)

    def loose_delta(d: np.ndarray) -> None:
        d[np.flatnonzero(d == 0.0)[0]] = delta

    start_edited(monkeypatch, milp, "delta", loose_delta)
    with pytest.raises(AssertionError, match=r"warm start infeasible: worst row .*" + broken):
        warm_start(milp, X, y, spec)


def test_an_interrupted_greedy_tree_ends_before_its_first_svm_node():
    """MARGOT's node fits (an SVM, no polish) ask between nodes whether the call was abandoned: a greedy tree on an
    ``on_thread`` call whose block was interrupted ends at its first node (Abandoned); here the call's stop is set as
    the interrupt sets it (test_refine_start_mutation_gaps does the same for the polish)."""
    X, y = heart()
    spec = make_spec("margot", depth=2)

    def call() -> tuple[np.ndarray, np.ndarray]:
        background._CALL.stop.set()  # what on_thread does when its block is interrupted
        return greedy_tree(X, y, spec)

    with background.on_thread(call, "olctc-test-greedy") as result:
        with pytest.raises(background.Abandoned):
            result()
    assert greedy_tree(X, y, spec)[0].any()  # outside on_thread nothing stops it


def test_the_objective_mismatch_warning_says_which_rows_bind():
    """MARGOT at big-M 1.5 (< 2: the relaxed hinge rows of nodes a point does not pass can bind): the start's MILP
    objective exceeds the tree's, and the warning gives both and the reason."""
    X, y = heart()
    spec = make_spec("margot", depth=2, big_m=1.5)
    with pytest.warns(UserWarning) as rec:
        info = warm_start(build_milp(X, y, spec), X, y, spec)[1]
    assert not info["objective_matches"] and info["objective"] > info["tree_objective"]
    assert [str(w.message) for w in rec] == [
        f"warm start: MILP objective {info['objective']!r} differs from the tree's objective "
        f"{info['tree_objective']!r} (big-M-relaxed rows bind)"]


def test_the_objective_mismatch_warning_names_weights_left_out():
    """A model built with sample weights, its start made without them (a caller that left them out): the
    tree's objective is unweighted, and the warning said the big-M rows bind, a cause that was not there."""
    X, y = heart()
    spec, weight = make_spec("olct", depth=1), np.exp(X[:, 0])
    with pytest.warns(UserWarning) as rec:
        info = warm_start(build_milp(X, y, spec, sample_weight=weight), X, y, spec)[1]
    assert not info["objective_matches"]
    assert [str(w.message) for w in rec] == [
        f"warm start: MILP objective {info['objective']!r} differs from the tree's objective "
        f"{info['tree_objective']!r} (the model's point weights are not the sample_weight given here; pass the "
        "weights the model was built with)"]
    with pytest.warns(UserWarning, match=r"\(the model's point weights are not the sample_weight given here\)$"):
        warm_start(build_milp(X, y, spec, sample_weight=weight), X, y, spec, sample_weight=2 * weight)
