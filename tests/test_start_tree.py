"""A fitted tree as the MIP start of another model (olctc.start_tree; fit/compile --start-tree, the
estimators' warm_start).

The weights carried over are checked against the given tree's own scores on the raw data (an independent
path: Tree.scores), under another scaler, with the classes swapped, deepened, with features in another
order or missing; the fits that start from a tree never end worse than it by the model's objective,
recomputed from the start's (W, b) with olctc.objective.tree_objective.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_here
from olctc import OLCTClassifier, load_tree
from olctc.compile import compile_problem
from olctc.data import Column, Scaler, Schema, from_arrays, read_csv
from olctc.errors import OlctcError
from olctc.fit import fit
from olctc.formulation.topology import Topology
from olctc.objective import tree_objective
from olctc.spec import make_spec
from olctc.start_tree import start_trees, start_weights, tree_start
from olctc.tree import Tree
from olctc.warmstart import warm_start


# Fits and solves here run on one thread (threads=1, --threads 1): these tests are about starts, not threads,
# and the suite's two workers share two cores, so a second solver thread only doubles a time limit's CPU.


def _data(seed: int = 0, n: int = 120, p: int = 4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * np.array([1.0, 10.0, 0.1, 3.0])[:p] + np.array([5.0, -2.0, 0.0, 40.0])[:p]
    y = np.where(X[:, 0] - 5 + 0.1 * (X[:, 1] + 2) + rng.normal(scale=0.5, size=n) > 0, 1, 0)
    return X, y


def _random_tree(depth: int, names, rng, scaler=None, classes=(0, 1)) -> Tree:
    p = len(names)
    W = rng.normal(size=(2 ** depth - 1, p))
    W[rng.random(W.shape) < 0.3] = 0.0
    b = rng.normal(size=2 ** depth - 1)
    return Tree.from_arrays(W, b, feature_names=names, scaler=scaler, classes=classes)


def _start_scores(tree: Tree, ds, spec):
    """Scores of every node of the start (W, b) on ds's raw points, through the model's own scaler."""
    scaler = Scaler.fit(ds.X)
    W, b = start_weights(tree, ds.schema, scaler, ds.classes, spec)
    return scaler.transform(ds.X) @ W.T + b, W, b


# ------------------------------------------------------------------ the weights carried over

def test_scores_survive_another_scaler():
    """A tree fitted under another scaler (another training part) scores every point as before."""
    X, y = _data()
    ds = from_arrays(X, y, positive_class=1)
    rng = np.random.default_rng(1)
    other = Scaler(np.array([1.0, 2.0, -3.0, 7.0]), np.array([0.5, 4.0, 0.01, 2.0]))
    tree = _random_tree(2, ds.schema.feature_names, rng, scaler=other)
    got, _, _ = _start_scores(tree, ds, make_spec(depth=2))
    np.testing.assert_allclose(got, tree.scores(X), rtol=1e-10, atol=1e-9)


def test_features_matched_by_name_not_position():
    X, y = _data()
    ds = from_arrays(X, y, feature_names=["a", "b", "c", "d"], positive_class=1)
    rng = np.random.default_rng(2)
    order = [2, 0, 3, 1]
    tree = _random_tree(2, [["a", "b", "c", "d"][j] for j in order], rng)
    got, _, _ = _start_scores(tree, ds, make_spec(depth=2))
    np.testing.assert_allclose(got, tree.scores(X[:, order]), rtol=1e-10, atol=1e-9)


def test_feature_missing_from_the_tree_weighs_zero_and_unused_extra_is_ignored():
    X, y = _data()
    ds = from_arrays(X, y, feature_names=["a", "b", "c", "d"], positive_class=1)
    rng = np.random.default_rng(3)
    tree = _random_tree(2, ["a", "c", "zz"], rng)
    tree.W[:, 2] = 0.0  # "zz" is not in the data: fine while nothing weighs it
    got, W, _ = _start_scores(tree, ds, make_spec(depth=2))
    np.testing.assert_allclose(got, tree.scores(np.c_[X[:, [0, 2]], np.zeros(len(X))]), rtol=1e-10, atol=1e-9)
    assert (W[:, [1, 3]] == 0).all()
    tree.W[1, 2] = 0.5
    with pytest.raises(OlctcError, match=r"weighs feature 'zz', which the data do not have \(node 1\)"):
        _start_scores(tree, ds, make_spec(depth=2))


def test_classes_the_other_way_round_mirror_the_tree():
    X, y = _data()
    ds = from_arrays(X, y, positive_class=1)  # classes (0, 1)
    rng = np.random.default_rng(4)
    for depth in (1, 2, 3):
        tree = _random_tree(depth, ds.schema.feature_names, rng, classes=(1, 0))
        scores, W, b = _start_scores(tree, ds, make_spec(depth=depth))
        last = Topology(depth).route(scores)
        p_pos = 1 / (1 + np.exp(-scores[np.arange(len(X)), last]))  # P(class 1) by the start
        # the tree's column 0 is class 1
        np.testing.assert_allclose(p_pos, tree.predict_proba(X)[:, 0], rtol=1e-9, atol=1e-15)
        np.testing.assert_array_equal(np.where(p_pos > 0.5, 1, 0), tree.predict(X))


@pytest.mark.parametrize("given,depth", [(1, 2), (1, 3), (2, 3), (2, 4)])
def test_a_shallower_tree_is_deepened_predicting_as_before(given, depth):
    X, y = _data()
    ds = from_arrays(X, y, positive_class=1)
    tree = _random_tree(given, ds.schema.feature_names, np.random.default_rng(given * 10 + depth))
    scores, W, b = _start_scores(tree, ds, make_spec(depth=depth))
    assert W.shape == (2 ** depth - 1, 4)
    deep = Tree.from_arrays(W, b, feature_names=ds.schema.feature_names, scaler=Scaler.fit(ds.X), classes=(0, 1))
    np.testing.assert_allclose(deep.predict_proba(X), tree.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(deep.predict(X), tree.predict(X))


def test_categories_matched_by_column_and_category(tmp_path):
    """A tree fitted on part of a CSV (one category unseen there) starts a model of the whole CSV."""
    rng = np.random.default_rng(5)
    n = 80
    colour = rng.choice(["red", "green", "blue"], size=n)
    num = rng.normal(size=n)
    label = np.where(num + (colour == "red") > 0.3, "yes", "no")
    path = tmp_path / "d.csv"
    path.write_text("colour,num,label\n"
                    + "".join(f"{c},{float(v)!r},{lab}\n" for c, v, lab in zip(colour, num, label)))
    ds = read_csv(path, "label")
    part = tmp_path / "part.csv"
    keep = colour != "blue"
    part.write_text("colour,num,label\n" + "".join(f"{c},{float(v)!r},{lab}\n" for c, v, lab
                                                 in zip(colour[keep], num[keep], label[keep])))
    ds_part = read_csv(part, "label")
    assert "colour=blue" not in ds_part.schema.feature_names
    tree = Tree.from_arrays(np.random.default_rng(6).normal(size=(3, ds_part.p)), [0.1, -0.2, 0.3],
                            schema=ds_part.schema, scaler=Scaler.fit(ds_part.X), classes=ds_part.classes)
    scores, W, b = _start_scores(tree, ds, make_spec(depth=2))
    cells = {"colour": colour, "num": num}
    np.testing.assert_allclose(scores, tree.scores(tree.encode(cells)), rtol=1e-10, atol=1e-9)
    assert (W[:, ds.schema.feature_names.index("colour=blue")] == 0).all()


def test_bad_starts_are_one_line_errors():
    X, y = _data()
    ds = from_arrays(X, y, positive_class=1)
    names = ds.schema.feature_names
    rng = np.random.default_rng(7)
    spec = make_spec(depth=2)
    with pytest.raises(OlctcError, match="has depth 3, deeper than the model's 2"):
        _start_scores(_random_tree(3, names, rng), ds, spec)
    with pytest.raises(OlctcError, match=r"separates classes 'no' and 'yes'; the data's are 0 and 1"):
        _start_scores(_random_tree(2, names, rng, classes=("no", "yes")), ds, spec)
    with pytest.raises(OlctcError, match="'start_tree'"):
        start_weights({"W": 1}, ds.schema, Scaler.fit(ds.X), ds.classes, spec)
    cat = Tree.from_arrays(np.ones((3, 2)), np.zeros(3), schema=Schema((Column("x0", "categorical", ("a", "b")),)),
                           classes=(0, 1))
    with pytest.raises(OlctcError, match="column 'x0' is categorical there and numeric in the data"):
        _start_scores(cat, ds, spec)
    dense = _random_tree(2, names, rng)
    dense.W[:] = 1.0
    with pytest.raises(OlctcError, match=r"splits on 4 features at node 0; preset 'olct-univariate' allows at "
                                         r"most 1 per node"):
        _start_scores(dense, ds, make_spec(preset="olct-univariate", depth=2))


# ------------------------------------------------------------------ fits that start from a tree

def _objective(W, b, comp, spec, threshold: float | None = None) -> float:
    """The model's objective of (W, b) on comp's points: routed at the model's midpoint eps/2, as a solver's raw
    weights are, or at ``threshold`` (0 for a decoded tree's, whose b already sit eps/2 lower)."""
    t = spec.epsilon / 2 if threshold is None else threshold
    return tree_objective(W, b, comp.X, comp.dataset.y.astype(float), spec, threshold=t).total


def _haberman_part(step: int = 10):
    """Every ``step``-th point of haberman (31 at 10): its depth-2 fits end optimal within a second, where the
    whole set's run to their time limit. For the fits below that check what a start does, whatever the data."""
    from olctc.datasets import load

    ds = load("haberman")
    return ds.subset(np.arange(0, ds.n, step))


def test_the_start_is_the_trees_objective_and_the_fit_never_ends_worse():
    ds = _haberman_part()
    spec = make_spec(depth=2, C=1.0, score_variables=True)
    rng = np.random.default_rng(8)
    tree = _random_tree(2, ds.schema.feature_names, rng, scaler=Scaler.fit(ds.X), classes=ds.classes)
    comp = compile_problem(ds, spec, "h")
    W, b = start_weights(tree, ds.schema, comp.scaler, ds.classes, spec)
    x, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(W, b))
    Wa, ba = info["W"], info["b"]
    # the MIP start's objective is the objective of the tree it encodes, recomputed from (W, b) alone
    assert comp.milp.objective(x) == pytest.approx(_objective(Wa, ba, comp, spec), rel=1e-9)
    if not info["adjustments"]:
        assert comp.milp.objective(x) == pytest.approx(_objective(W, b, comp, spec), rel=1e-9)
    res = fit(ds, spec, time_limit=5, threads=1, verbose=False, start_tree=tree, refine=False)
    s = res.summary
    assert s["warm_start_from"] == "start tree"
    assert s["objective_warm_start"] == pytest.approx(comp.milp.objective(x), rel=1e-9)
    assert s["objective_milp_true"] <= s["objective_warm_start"] * (1 + 1e-9)
    assert res.tree.meta["fit"]["warm_start_from"] == "start tree"


def test_fitting_again_from_the_fitted_tree_goes_on_from_it():
    from olctc.datasets import load

    ds = load("heart")
    ds = ds.subset(np.arange(0, ds.n, 3))  # 99 points: both fits end optimal in seconds, the same trees each run
    spec = make_spec(depth=2, C=1.0, score_variables=True)
    first = fit(ds, spec, time_limit=30, threads=1, verbose=False, test_size=0.2)
    again = fit(ds, spec, time_limit=30, threads=1, verbose=False, test_size=0.2, start_tree=first.tree)
    assert first.summary["status"] == "optimal"
    train = ds.subset(first.train_rows)
    eps, topo = spec.epsilon, Topology(spec.depth)
    # The case that matters: a decoded tree's b sit eps/2 below the model's (decode folds the routing midpoint
    # in), so the root's points the MILP put at score eps (or 0) score eps/2 (or -eps/2) in the tree, within
    # rounding. Routing its (W, b) at eps/2 once more sent some of them left (by 3.4e-13 on a breast tree).
    comp = compile_problem(train, spec, "b")
    # the fit's MIP start: the tree as saved or before refinement (its MILP nodes back), whichever is lower,
    # each routing node's b moved (and the node scaled) just enough that the model's rows (score <= 0 or
    # >= eps) route every point as that tree does
    x, info = tree_start(comp, first.tree)
    assert again.summary["objective_warm_start"] == pytest.approx(comp.milp.objective(x), rel=1e-9)
    assert comp.milp.objective(x) == pytest.approx(_objective(info["W"], info["b"], comp, spec), rel=1e-9)
    chosen = start_trees(first.tree)[info["tree"]]
    tree_scores = chosen.scores(train.X)
    assert (np.abs(np.abs(tree_scores[:, 0]) - eps / 2) < 1e-9).sum() >= 3
    reached = topo.route(tree_scores)  # the tree's own routing: > 0 right
    np.testing.assert_array_equal(topo.route(comp.X @ info["W"].T + info["b"], eps / 2), reached)
    W, b = start_weights(chosen, comp.dataset.schema, comp.scaler, comp.dataset.classes, spec)
    np.testing.assert_allclose(W, chosen.W, rtol=1e-9, atol=1e-12)  # the same scaler: W as stored
    start = tree_objective(W, b, comp.X, comp.dataset.y.astype(float), spec, last_node=reached).total
    assert start == pytest.approx(_objective(W, b, comp, spec, threshold=0.0), rel=1e-12)
    # those moves (of eps/2 or less, and a factor within 1e-4 of 1) change the loss, not the routing: 343.65
    # against 43.65 was the misrouted start
    assert again.summary["objective_warm_start"] == pytest.approx(start, rel=1e-5)
    assert again.summary["objective_milp_true"] <= again.summary["objective_warm_start"] * (1 + 1e-9)


@pytest.mark.parametrize("flip", [False, True])
def test_the_model_routes_every_point_as_the_tree_at_its_midpoint(flip):
    """A decoded tree's b sit epsilon/2 below the model's (the routing midpoint): points scoring eps/2 go right
    in the tree, and would go left after the warm start's band shift. Given the points, start_weights moves
    each routing node's b just enough; mirrored, the points at score 0 (left in the tree) must go right."""
    from olctc.datasets import load

    ds = load("haberman")  # integer features: many points exactly on a split
    assert (ds.X[:, 2] == 4).sum() >= 5
    spec = make_spec(depth=2)
    eps = spec.epsilon
    W = np.array([[0, 0, 1.0], [0, 1.0, 0], [1.0, 0, 0]])
    # nodes >= 4 go right, those with 4 nodes scoring eps/2; mirrored, nodes <= 4 must go right, those with 4
    # nodes scoring 0 (left in the tree), which negated is 0 again
    b = np.array([-4.0 if flip else -4 + eps / 2, -60.0, -50.0])
    tree = Tree.from_arrays(W, b, feature_names=ds.schema.feature_names,
                            classes=ds.classes[::-1] if flip else ds.classes)
    comp = compile_problem(ds, spec, "h")
    for with_points in (False, True):
        Wm, bm = start_weights(tree, ds.schema, comp.scaler, ds.classes, spec, X=comp.X if with_points else None)
        x, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(Wm, bm))
        S = comp.X @ info["W"].T + info["b"]
        assert not ((S[:, 0] > 0) & (S[:, 0] < eps)).any()  # the model's rows hold
        sides = S[:, 0] >= eps
        tree_right = tree.scores(ds.X)[:, 0] > 0
        want = ~tree_right if flip else tree_right
        if with_points:
            np.testing.assert_array_equal(sides, want)
            assert not [a for a in info["adjustments"] if "node 0" in a]
        else:  # the band shift (or the mirrored tie) sends the points on the split to the other side
            np.testing.assert_array_equal(sides != want, ds.X[:, 2] == 4)


def test_a_deeper_fit_from_a_shallow_tree_starts_where_it_predicts_the_same():
    ds = _haberman_part()
    shallow = fit(ds, make_spec(depth=1, C=1.0), time_limit=5, threads=1, verbose=False)
    deep = fit(ds, make_spec(depth=2, C=1.0), time_limit=5, threads=1, verbose=False, start_tree=shallow.tree,
               refine=False)
    assert deep.summary["warm_start_from"] == "start tree"
    # the start routes by the old last node and predicts as it; the solve keeps it or finds a better tree
    comp = compile_problem(ds, make_spec(depth=2, C=1.0), "h")
    W, b = start_weights(shallow.tree, ds.schema, comp.scaler, ds.classes, make_spec(depth=2, C=1.0))
    deepened = Tree.from_arrays(W, b, schema=ds.schema, scaler=comp.scaler, classes=ds.classes)
    np.testing.assert_array_equal(deepened.predict(ds.X), shallow.tree.predict(ds.X))
    assert deep.summary["objective_milp_true"] <= deep.summary["objective_warm_start"] * (1 + 1e-9)


@pytest.mark.parametrize("flip", [False, True])
def test_sides_closer_than_epsilon_by_the_solvers_tolerance_are_opened(flip):
    """A solver's routing rows hold to its tolerance (1e-9), so a decoded tree's two sides of a split can lie
    eps - 2e-10 apart: no shift alone separates them by eps, and the band shift then sent one side across (a
    restart from an optimal breast tree, objective 29.77, began at 229.77). The node is scaled by ~1 + 2e-5."""
    from olctc.datasets import load

    ds = load("haberman")
    spec = make_spec(depth=2)
    eps = spec.epsilon
    d = eps - 2e-10  # the gap between 3 and 4 axillary nodes, as a solver at tolerance 1e-9 may leave it
    W = np.array([[0, 0, d], [0, 1.0, 0], [1.0, 0, 0]])
    b = np.array([-3.5 * d, -60.0, -50.0])  # right from 4 nodes up, the folded midpoint: sides at -+d/2
    tree = Tree.from_arrays(W, b, feature_names=ds.schema.feature_names,
                            classes=ds.classes[::-1] if flip else ds.classes)
    comp = compile_problem(ds, spec, "h")
    Wm, bm = start_weights(tree, ds.schema, comp.scaler, ds.classes, spec, X=comp.X)
    x, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(Wm, bm))
    assert not [a for a in info["adjustments"] if "node 0" in a]
    S = comp.X @ info["W"].T + info["b"]
    want = tree.scores(ds.X)[:, 0] > 0
    np.testing.assert_array_equal(S[:, 0] >= eps, ~want if flip else want)
    assert not ((S[:, 0] > 0) & (S[:, 0] < eps)).any()
    k = np.abs(info["W"][0]).max() / np.abs(W[0] * comp.scaler.scale).max()
    assert 1 < k < 1 + 1e-4  # scaled, barely


# olct's shallow tree is fitted on every 15th point (24): that fit ends optimal at once, where the whole set's ran
# to its limit, and its deepened start still takes the greedy completion (measured). oct-h's fit runs to its limit
# on any part, and only the whole set's tree took the copies (parts' took the greedy fit), so it keeps the whole.
@pytest.mark.parametrize("preset, step", [("olct", 15), ("oct-h", 1)], ids=["olct", "oct-h"])
def test_a_deepened_start_keeps_the_given_layers_and_the_better_completion(preset, step):
    """Below a shallower tree's layers, the warm start tries its last layer copied and the greedy fit of the
    new layers on the points reaching them, and keeps the lower MILP objective; the given nodes stay."""
    from olctc.datasets import load

    ds = load("ionosphere")
    spec = make_spec(preset=preset, depth=3, C=1.0)
    shallow = fit(ds.subset(np.arange(0, ds.n, step)), make_spec(preset=preset, depth=2, C=1.0), time_limit=5,
                  threads=1, verbose=False)
    comp = compile_problem(ds, spec, "i")
    W, b = start_weights(shallow.tree, ds.schema, comp.scaler, ds.classes, spec, X=comp.X)
    x_copies, copies = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(W, b))
    x, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(W, b), given_layers=2)
    assert "deepened" not in copies and info["deepened"] in ("copies", "greedy")
    assert info["objective"] <= copies["objective"]
    assert comp.milp.objective(x) == pytest.approx(_objective(info["W"], info["b"], comp, spec), rel=1e-9)
    np.testing.assert_allclose(info["W"][:3], copies["W"][:3])  # the given layers, admitted alike
    np.testing.assert_allclose(info["b"][:3], copies["b"][:3])
    if info["deepened"] == "greedy":
        assert info["objective"] < copies["objective"]
        assert not np.allclose(info["W"][3:], copies["W"][3:])


def test_a_refined_tree_also_starts_from_its_solver_nodes():
    """Refinement refits the last layer on the exact loss, which the MILP's tangents can score far worse: the
    tree file keeps the solver's nodes (meta.refine.before) and the start tries them too."""
    from olctc.datasets import load
    from olctc.start_tree import start_trees

    ds = load("spectf")
    spec = make_spec(depth=2, C=1.0, score_variables=True)
    # the whole set: on parts small enough to solve at once, refinement refit no node; at 5 s as at 6 s the solve
    # ended on the warm start, whose nodes 1 and 2 refinement refit (measured)
    first = fit(ds, spec, time_limit=5, threads=1, verbose=False)
    tree = Tree.from_dict(first.tree.to_dict())  # through the JSON record, as a file would bring it
    trees = start_trees(tree)
    assert len(trees) == 2 and tree.meta["refine"]["nodes_refit"]
    comp = compile_problem(ds, spec, "s")
    starts = [start_weights(t, ds.schema, comp.scaler, ds.classes, spec, X=comp.X) for t in trees]
    objs = [warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=s)[1]["objective"] for s in starts]
    x, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=starts)
    assert info["objective"] == min(objs) and info["tree"] == int(np.argmin(objs))
    # the solver's nodes back: the first fit's MILP tree, up to the routing midpoint folded into the last layer
    assert objs[1] == pytest.approx(first.summary["objective_milp_true"], rel=1e-4)
    again = fit(ds, spec, time_limit=5, threads=1, verbose=False, start_tree=tree)
    assert again.summary["objective_warm_start"] == pytest.approx(min(objs), rel=1e-9)
    assert again.summary["warm_start_tree"] == ("before refinement" if info["tree"] else "as saved")
    # a hand-edited record that does not fit is passed over
    for bad in ({"W": [[1.0]], "b": [0.0]}, {"W": "x"}, None, {"W": [[float("nan")] * ds.p], "b": [0.0]}):
        t = Tree.from_dict(first.tree.to_dict())
        t.meta["refine"]["before"] = bad
        assert len(start_trees(t)) == 1
    for key, value in (("nodes_refit", [10 ** 30]), ("before", {"W": [[0.0] * ds.p], "b": [10 ** 400]})):
        t = Tree.from_dict(first.tree.to_dict())  # numbers beyond int64 and float64: OverflowError, passed over
        t.meta["refine"][key] = value
        if key == "nodes_refit":
            t.meta["refine"]["before"] = {"W": [[0.0] * ds.p], "b": [0.0]}
        assert len(start_trees(t)) == 1


def test_another_preset_starts_from_an_olct_tree():
    # every 20th point (16): olct and oct-h end optimal at once and margot's SCIP solve in about 3 s, where the
    # whole set's three fits ran to their limits
    ds = _haberman_part(20)
    olct = fit(ds, make_spec(depth=2, C=1.0), time_limit=5, threads=1, verbose=False)
    for preset in ("margot", "oct-h"):
        spec = make_spec(preset=preset, depth=2, C=1.0)
        res = fit(ds, spec, time_limit=5, threads=1, verbose=False, start_tree=olct.tree)
        assert res.summary["warm_start_from"] == "start tree"
        assert res.summary["objective_milp_true"] <= res.summary["objective_warm_start"] * (1 + 1e-9)


# ------------------------------------------------------------------ the estimator's warm_start

def test_estimator_warm_start_goes_on_and_follows_a_new_positive_class():
    from olctc import load_dataset

    X, y, _ = load_dataset("haberman")
    X, y = X[::10], np.where(y[::10] == 2, "died", "lived")  # 31 points: the depth-2 fit ends optimal at once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = OLCTClassifier(depth=1, time_limit=5, warm_start=True, positive_class="died").fit(X, y)
        first = est.predict(X)
        assert est.summary_["warm_start_from"] == "greedy tree"
        est.set_params(positive_class="lived", refine=False)
        est.fit(X, y)
        assert est.summary_["warm_start_from"] == "start tree"
        # the start is the first tree mirrored: under the new coding it predicts the same labels
        assert est.summary_["objective_milp_true"] <= est.summary_["objective_warm_start"] * (1 + 1e-9)
        est.set_params(depth=2)
        est.fit(X, y)
        assert est.summary_["warm_start_from"] == "start tree"
        cold = OLCTClassifier(depth=1, time_limit=5, positive_class="died").fit(X, y)
        cold.fit(X, y)
        assert cold.summary_["warm_start_from"] == "greedy tree"
    assert first.shape == (len(X),)
    tree = est.tree_
    est.set_params(positive_class=None)
    with pytest.raises(OlctcError, match=r"warm_start: the fitted tree separates classes \['died', 'lived'\]; "
                                         r"y holds \['a', 'b'\]"):
        est.fit(X, np.where(y == "died", "a", "b"))
    assert est.tree_ is tree  # a failed fit leaves the estimator as it was
    with pytest.raises(OlctcError, match="warm_start"):
        OLCTClassifier(warm_start="yes").fit(X, y)


# ------------------------------------------------------------------ the console program

def test_cli_fit_and_compile_start_tree(tmp_path):
    import gzip

    import olctc

    # every 10th point of haberman (31): the depth-2 fit and solve end optimal at once (the whole set's ran to
    # their limits)
    with gzip.open(Path(olctc.__file__).parent / "datasets" / "haberman.csv.gz", "rt") as f:
        lines = f.read().splitlines()
    data = tmp_path / "h.csv"
    data.write_text("\n".join(lines[:1] + lines[1::10]) + "\n")
    t1 = tmp_path / "t.json"
    r = cli_here("fit", str(data), "--target", "y", "--depth", "1", "--time-limit", "5", "--threads", "1",
                 "--quiet", "-o", str(t1))
    assert r.returncode == 0, r.stderr
    # -o may name the start tree itself: it is read before anything is written
    r = cli_here("fit", str(data), "--target", "y", "--depth", "2", "--time-limit", "5", "--threads", "1", "--quiet",
                 "--start-tree", str(t1), "-o", str(t1))
    assert r.returncode == 0, r.stderr
    assert "objective: warm start (start tree)" in r.stdout
    assert load_tree(t1).depth == 2 and load_tree(t1).meta["fit"]["warm_start_from"] == "start tree"

    model = tmp_path / "m.mps"
    r = cli_here("compile", str(data), "--target", "y", "--depth", "2", "--start-tree", str(t1), "-o", str(model))
    assert r.returncode == 0, r.stderr
    assert "MIP start from --start-tree" in r.stdout
    man = json.loads((tmp_path / "m.olctc.json").read_text())
    assert man["warm_start"]["from"] == "start tree"
    # the solver reads that start: its answer is never worse (at any time limit: 2 s, not optimality, will do)
    sol = tmp_path / "m.sol"
    r = cli_here("solve", str(model), "--solver", "highs", "--time-limit", "2", "--threads", "1", "--quiet",
                 "-o", str(sol))
    assert r.returncode == 0, r.stderr
    objective = float(r.stdout.split("objective ")[1].split(",")[0])
    assert objective <= man["warm_start"]["objective"] * (1 + 1e-9)


@pytest.mark.parametrize("extra,message", [
    (["--depth", "1"], "has depth 2, deeper than the model's 1"),
    (["--cv", "2"], "--start-tree does not apply with --cv"),
    (["--preset", "olct-univariate"], "preset 'olct-univariate' allows at most 1 per node"),
])
def test_cli_bad_start_tree(tmp_path, extra, message):
    tree = Tree.from_arrays(np.ones((3, 3)), [0.0, 1.0, -1.0], feature_names=["age", "year_of_operation",
                                                                            "positive_axillary_nodes"],
                            classes=(1, 2))
    path = tmp_path / "t.json"
    tree.save(path)
    for cmd, out in (("fit", tmp_path / "o.json"), ("compile", tmp_path / "o.mps")):
        if cmd == "compile" and "--cv" in extra:
            continue
        r = cli_here(cmd, "--dataset", "haberman", "--start-tree", str(path), *extra, "-o", str(out))
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_cli_start_tree_not_a_tree_and_no_start(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    r = cli_here("fit", "--dataset", "haberman", "--start-tree", str(bad), "-o", str(tmp_path / "o.json"))
    assert r.returncode == 2 and "bad.json" in r.stderr and "Traceback" not in r.stderr
    r = cli_here("compile", "--dataset", "haberman", "--start-tree", str(bad), "--no-start", "-o",
                 str(tmp_path / "m.mps"))
    assert r.returncode == 2 and "--no-start" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
