"""Edges of refinement (``olctc.refine``) and of start trees (``olctc.start_tree``) that a second mutation pass
found unpinned.

Each test names the behaviour it pins; these were mutants of the code, not bugs seen in olctc. Data are real (the
vendored heart, haberman and sonar sets, standardised) and refinement results are checked against an L1 logistic
optimum computed here with scipy on the same routed points, not against olctc's own numbers. No solver runs: every
test takes a few milliseconds to a second.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from olctc.data import Scaler
from olctc.datasets import load
from olctc.formulation.topology import Topology
from olctc.refine import _shifted_sparse, fit_l1_logistic, l1_logistic_objective, refine
from olctc.spec import make_spec
from olctc.start_tree import label_key, start_record, start_trees
from olctc.tree import Tree


@functools.lru_cache(maxsize=None)
def _heart() -> tuple[np.ndarray, np.ndarray]:
    ds = load("heart")
    return Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)


def heart() -> tuple[np.ndarray, np.ndarray]:
    """The standardised heart set (copies: tests may edit them)."""
    X, y = _heart()
    return X.copy(), y.copy()


def scipy_optimum(X: np.ndarray, y: np.ndarray, C: float) -> float:
    """The L1 logistic optimum ``min ||w||_1 + C sum log(1 + exp(-y (w.x + b)))``, b free, computed here: L-BFGS-B
    from 0 on the split form w = u - v, u, v >= 0 (olctc polishes liblinear's answer instead)."""
    p = X.shape[1]

    def f(z: np.ndarray) -> tuple[float, np.ndarray]:
        m = y * (X @ (z[:p] - z[p:2 * p]) + z[-1])
        r = -C * y * expit(-m)
        g = X.T @ r
        return z[:2 * p].sum() + C * np.logaddexp(0.0, -m).sum(), np.concatenate([1 + g, 1 - g, [r.sum()]])

    res = minimize(f, np.zeros(2 * p + 1), jac=True, method="L-BFGS-B", bounds=[(0, None)] * (2 * p) + [(None, None)],
                   options={"maxiter": 50_000, "ftol": 1e-16, "gtol": 1e-11, "maxcor": 50})
    return float(res.fun)


# ---------------------------------------------------------------- the node fit


def test_the_rough_fit_weighs_the_points():
    """polish=False (the warm start's fit of large nodes) passes the weights to liblinear: weight 2 on every point
    is liblinear's fit at C doubled, to the bit, and not the unweighted fit."""
    X, y = heart()
    w2, b2 = fit_l1_logistic(X, y, 1.0, polish=False, sample_weight=np.full(y.size, 2.0))
    wc, bc = fit_l1_logistic(X, y, 2.0, polish=False)
    w1, _ = fit_l1_logistic(X, y, 1.0, polish=False)
    assert np.array_equal(w2, wc) and b2 == bc
    assert np.abs(w2 - w1).max() > 0.01


def test_the_rough_fit_barely_penalises_the_intercept():
    """polish=False runs liblinear with intercept scaling 10, so its penalty on the intercept, |b| / 10, is small: on
    haberman (26 % positives, b far from 0) at C = 0.05 the rough fit is within 0.1 % of the optimum (0.02 %
    measured; at scaling 1 it was 1.8 % above)."""
    ds = load("haberman")
    X, y = Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)
    best = scipy_optimum(X, y, 0.05)
    assert l1_logistic_objective(*fit_l1_logistic(X, y, 0.05, polish=False), X, y, 0.05) < best * 1.001


def test_points_must_be_finite():
    """A NaN or infinite point is refused by name (OlctcError), by the node fit and by refinement, not by
    scikit-learn's ValueError from inside liblinear or a NaN objective."""
    from olctc.errors import OlctcError

    X, y = heart()
    X[3, 2] = np.nan
    with pytest.raises(OlctcError, match="^X must be finite$"):
        fit_l1_logistic(X, y, 1.0)
    X[3, 2] = np.inf
    with pytest.raises(OlctcError, match="^X must be finite$"):
        refine(np.zeros((1, X.shape[1])), np.zeros(1), X, y, make_spec("olct", depth=1))


def test_the_sparse_shift_starts_at_its_cell_and_density_limits():
    """_shifted_sparse: a node of exactly 200,000 cells, exactly 15 % of them off the column medians, is shifted
    (both limits are inclusive); one row fewer, or one more cell off its median, keeps the dense fit."""
    rng = np.random.default_rng(0)
    X = np.zeros((2000, 100))
    X.flat[rng.choice(X.size, 30_000, replace=False)] = 1.0  # 15 % ones; every column's median is 0
    shifted = _shifted_sparse(X)
    assert shifted is not None and shifted[0].nnz == 30_000 and not shifted[1].any()
    assert _shifted_sparse(X[:1999]) is None
    denser = X.copy()
    denser.flat[np.flatnonzero(denser.ravel() == 0.0)[0]] = 1.0
    assert _shifted_sparse(denser) is None


# ---------------------------------------------------------------- start trees from a tree file's records


def _tree(depth: int, meta: dict) -> Tree:
    """A tree of two features whose node t has weights (2t, 2t + 1) and intercept t + 1, with ``meta``."""
    n = 2 ** depth - 1
    return Tree.from_arrays(np.arange(2.0 * n).reshape(n, 2), np.arange(1.0, n + 1), meta=meta)


def test_the_solver_nodes_come_back_in_a_copy():
    """start_trees: the second start has the refit nodes' solver values (meta.refine.before) and the others as
    saved; the tree itself is left as it was (the copy owns its arrays). Node 0 of a depth-1 tree is a node too."""
    tree = _tree(2, {"refine": {"nodes_refit": [2], "before": {"W": [[9.0, -9.0]], "b": [-4.0]}}})
    saved, solver = start_trees(tree)
    assert saved is tree and tree.W.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and tree.b.tolist() == [1, 2, 3]
    assert solver.W.tolist() == [[0.0, 1.0], [2.0, 3.0], [9.0, -9.0]] and solver.b.tolist() == [1.0, 2.0, -4.0]
    root = _tree(1, {"refine": {"nodes_refit": [0], "before": {"W": [[7.0, 7.0]], "b": [0.5]}}})
    trees = start_trees(root)
    assert len(trees) == 2 and trees[1].W.tolist() == [[7.0, 7.0]] and trees[1].b.tolist() == [0.5]


def test_a_node_refit_then_smoothed_starts_from_the_solvers_values():
    """A node refined and then smoothed as pure keeps in meta.pure_nodes.before the refit values and in
    meta.refine.before the solver's: the solver's win; a node only smoothed gets its pure_nodes.before."""
    meta = {"refine": {"nodes_refit": [1], "before": {"W": [[1.0, 1.0]], "b": [1.0]}},
            "pure_nodes": {"nodes": [1, 2], "before": {"W": [[2.0, 2.0], [3.0, 3.0]], "b": [2.0, 3.0]}}}
    _, solver = start_trees(_tree(2, meta))
    assert solver.W[1:].tolist() == [[1.0, 1.0], [3.0, 3.0]] and solver.b[1:].tolist() == [1.0, 3.0]


@pytest.mark.parametrize("part", [
    ["nodes_refit", [2]],  # not a record
    {"nodes_refit": [], "before": {"W": [], "b": []}},  # no node
    {"nodes_refit": [3], "before": {"W": [[0.0, 0.0]], "b": [0.0]}},  # node 3 of a 3-node tree
    {"nodes_refit": [-1], "before": {"W": [[0.0, 0.0]], "b": [0.0]}},
    {"nodes_refit": [2], "before": {"W": [[float("nan"), 0.0]], "b": [0.0]}},  # well shaped, not finite
    {"nodes_refit": [2], "before": {"W": [[0.0, 0.0]], "b": [float("inf")]}},
])
def test_a_refine_record_that_does_not_fit_the_tree_adds_no_start(part):
    """A hand-edited meta.refine that is no dict, names no node or a node the tree lacks, or keeps weights that are
    not finite, is passed over: the start is the tree alone (no error, no copy equal to the tree tried twice)."""
    tree = _tree(2, {"refine": part})
    assert start_trees(tree) == [tree]


def test_the_start_record_names_the_tree_kept_and_its_deepening():
    """start_record (a fit's record, a manifest): start 0 is the tree "as saved", 1 the one "before refinement";
    how a shallower tree was deepened is kept, and no key is made up for a tree given whole."""
    assert start_record({"tree": 0, "objective": 1.0}) == {"tree": "as saved"}
    assert start_record({"tree": 1, "deepened": "greedy"}) == {"tree": "before refinement", "deepened": "greedy"}


def test_class_labels_compare_as_the_user_writes_them():
    """label_key: True is class 1, 2.0 is 2 (a CSV's "2"), 1.5 and strings stay as they are."""
    assert [label_key(v) for v in (True, False, np.float64(2.0), 1.5, "yes", np.int64(3))] == [
        "1", "0", "2", "1.5", "yes", "3"]


# ---------------------------------------------------------------- refinement


def test_refinement_at_a_threshold_reports_that_routings_objective():
    """refine(threshold=t) routes right iff score > t, refits each leaf to the L1 logistic optimum of the points routed
    there (scipy's, computed here), and reports the exact objective of that routing: ||W||_1 plus C times the root's
    log loss on every point and each leaf's on its points, summed here by hand (at threshold 0 five points take the
    other side and the sum differs)."""
    from olctc.warmstart import greedy_tree

    X, y = heart()
    spec = make_spec("olct", depth=2, C=0.5)
    W, b = greedy_tree(X, y, spec)
    s = X @ W[0] + b[0]
    thr = float(np.sort(s[s > 0])[5])  # five points that go right at 0 go left here
    W2, b2, rep = refine(W, b, X, y, spec, threshold=thr)
    leaf = np.where(s > thr, 2, 1)
    assert rep.nodes_refit == [1, 2]
    total = np.abs(W2).sum() + 0.5 * np.logaddexp(0.0, -y * s).sum()
    for t in (1, 2):
        Xt, yt = X[leaf == t], y[leaf == t]
        loss = np.logaddexp(0.0, -yt * (Xt @ W2[t] + b2[t])).sum()
        assert np.abs(W2[t]).sum() + 0.5 * loss == pytest.approx(scipy_optimum(Xt, yt, 0.5), rel=1e-7)
        total += 0.5 * loss
    assert rep.objective_after == pytest.approx(total, rel=1e-12)
    assert rep.improvement == rep.objective_before - rep.objective_after > 0.5


def test_a_polish_stopped_at_once_still_improves_on_liblinears_point():
    """Past its deadline a polish stops after one L-BFGS-B iteration; the first polish starts from liblinear's (w, b),
    intercept included, so even that one step lowers the objective below the rough fit's (a start from w = 0, or
    from liblinear's w with b = 0, does not, and the rough fit is kept)."""
    import time

    from olctc.refine import polish_deadline

    ds = load("sonar")
    X, y = Scaler.fit(ds.X).transform(ds.X), ds.y.astype(float)
    rough = l1_logistic_objective(*fit_l1_logistic(X, y, 10.0, polish=False), X, y, 10.0)
    with polish_deadline(time.perf_counter() - 1) as stopped:
        early = l1_logistic_objective(*fit_l1_logistic(X, y, 10.0), X, y, 10.0)
    assert stopped == [True] and early < rough - 1e-6


def test_an_interrupted_node_fit_ends_in_its_polish():
    """A node fit on an ``on_thread`` call whose block was interrupted ends at the polish's first iteration
    (Abandoned) instead of polishing on while holding the fit locks; here the call's stop is set as the interrupt
    sets it."""
    from olctc import background

    X, y = heart()

    def call() -> tuple[np.ndarray, float]:
        background._CALL.stop.set()  # what on_thread does when its block is interrupted
        return fit_l1_logistic(X, y, 10.0)

    with background.on_thread(call, "olctc-test-fit") as result:
        with pytest.raises(background.Abandoned):
            result()
    assert fit_l1_logistic(X, y, 10.0)[0].any()  # outside on_thread nothing stops it


@pytest.mark.parametrize("p", [5, 6])
def test_a_start_on_a_missing_feature_names_its_first_node_and_the_datas_features(p):
    """A start weighing a feature the data lack names the first node that weighs it and lists the data's features:
    all of them up to five, the first five and "..." beyond."""
    from olctc.data import from_arrays
    from olctc.errors import OlctcError
    from olctc.start_tree import start_weights

    X = np.random.default_rng(0).normal(size=(20, p))
    ds = from_arrays(X, (X[:, 0] > 0).astype(int), positive_class=1)
    W = np.zeros((3, 2))
    W[1:, 1] = [1.0, 2.0]  # "zz" at nodes 1 and 2
    tree = Tree.from_arrays(W, np.zeros(3), feature_names=["x0", "zz"], classes=(0, 1))
    names = "'x0', 'x1', 'x2', 'x3', 'x4'" + (", ..." if p > 5 else "")
    with pytest.raises(OlctcError) as exc:
        start_weights(tree, ds.schema, Scaler.fit(ds.X), ds.classes, make_spec(depth=2))
    assert str(exc.value) == ("the start tree weighs feature 'zz', which the data do not have (node 1): a start must "
                              f"split on the data's features ({p}: {names})")


def test_a_shallower_start_tree_is_deepened_by_the_better_completion():
    """tree_start hands the warm start the tree's depth as its given layers: a depth-1 tree starting a depth-2 model
    is completed by its copies or the greedy fit below it, whichever scores lower, and the info says which (without
    it the copies alone were tried and nothing was said)."""
    from olctc.compile import compile_problem
    from olctc.start_tree import tree_start

    ds = load("haberman")
    ds = ds.subset(np.arange(0, ds.n, 3))
    comp = compile_problem(ds, make_spec(depth=2), "h")
    tree = Tree.from_arrays(np.array([[0.0, 0.0, 1.0]]), np.array([-4.5]), feature_names=ds.schema.feature_names,
                            classes=ds.classes)
    _, info = tree_start(comp, tree)
    assert info["deepened"] == "greedy" and info["tree"] == 0


def test_the_start_moves_each_routing_node_by_the_least_shift_its_own_points_need():
    """start_weights with the model's points (haberman's integer features; a depth-3 tree): the root's right side,
    at eps/2 (a decoded tree's midpoint), is lifted to just above eps (by a margin clear of rounding, 1e-11, not
    0); node 2's points at score 0 go left by that same margin, not by the distance to its right side (1); node 1,
    whose own points lie 1 clear of its split, is left exactly as it was, though points of the other subtree score 0
    on it."""
    from olctc.start_tree import start_weights

    ds = load("haberman")
    X = Scaler.fit(ds.X).transform(ds.X)
    spec = make_spec(depth=3)
    eps = spec.epsilon
    W, b = np.zeros((7, 3)), np.zeros(7)
    W[0, 2], b[0] = 1.0, -1.0 + eps / 2  # right from 1 node up, those at 1 score eps/2
    W[1:3, 0], b[1:3] = 1.0, -71.0  # age 71: only among points that go right at the root
    tree = Tree.from_arrays(W, b, feature_names=ds.schema.feature_names, classes=ds.classes)
    scaler = Scaler.fit(ds.X)
    W0, b0 = start_weights(tree, ds.schema, scaler, ds.classes, spec)
    Wm, bm = start_weights(tree, ds.schema, scaler, ds.classes, spec, X=X)
    assert np.array_equal(Wm, W0) and bm[1] == b0[1] and np.array_equal(bm[3:], b0[3:])
    right = ds.X[:, 2] >= 1
    root = X @ Wm[0] + bm[0]
    assert 5e-12 < root[right].min() - eps < 1e-9 and root[~right].max() < -0.5
    assert (ds.X[right, 0] == 71).any() and 5e-12 < b0[2] - bm[2] < 1e-9
