"""Class weights: each point's loss term times its class's weight (``--class-weight``, ``class_weight=``).

Checked against computations that do not use olctc's weighting: integer weights against the same data with
points repeated (a weight of 2 is the point twice, for the MILP optimum and for the node solver), equal
weights against C scaled, "balanced" against scikit-learn's ``compute_class_weight``, and the weighted
model against a brute force and a python-mip build (tests/test_fuzz_formulation.py,
tests/test_independent_build.py).
"""
from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_class_weight

from olctc.data import class_weight_by_label
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.objective import tree_objective
from olctc.refine import fit_l1_logistic, l1_logistic_objective, refine
from olctc.solve import solve_milp
from olctc.spec import TreeSpec, make_spec
from olctc.warmstart import warm_start
from conftest import cli_main


def _small(name: str = "haberman", step: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Every ``step``-th point of a vendored set, standardised: small enough to solve to optimality."""
    from olctc.data import Scaler

    ds = load(name)
    rows = np.arange(0, ds.n, step)
    X = ds.X[rows]
    return Scaler.fit(X).transform(X), ds.y[rows].astype(float)


# ---------------------------------------------------------------- the spec

@pytest.mark.parametrize("value,expected", [
    (None, None), ("balanced", "balanced"), ("Balanced", "balanced"), ((1, 3), (1.0, 3.0)),
    ([0.5, 2], (0.5, 2.0)), (np.array([2.0, 1.0]), (2.0, 1.0)), ((1, 1), None)])
def test_make_spec_accepts(value, expected):
    assert make_spec("olct", 2, class_weight=value).class_weight == expected


@pytest.mark.parametrize("value", ["heavy", "", (1,), (1, 2, 3), (0, 1), (-1, 2), (float("inf"), 1),
                                   (float("nan"), 1), ("a", 1), (True, 1), {0: 1}, 3.0, (10 ** 400, 1)])
def test_make_spec_refuses(value):
    with pytest.raises(OlctcError, match=r"^The 'class_weight' parameter must be None, 'balanced' or two "
                                         r"weights \(class -1, class \+1\), each finite and > 0\. Got .* instead\.$"):
        make_spec("olct", 2, class_weight=value)


@pytest.mark.parametrize("value", [None, "balanced", (0.25, 4.0)])
def test_spec_json_round_trip(value):
    spec = make_spec("olct", 2, C=[1, 10], class_weight=value)
    back = TreeSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert back == spec
    # the unweighted spec writes no key: manifests of the paper's model are as they were
    assert ("class_weight" in spec.to_json()) == (value is not None)


def test_describe_names_the_weights():
    assert make_spec("olct", 1).describe() == "olct depth 1 (C 1, tangents V0)"
    assert make_spec("olct", 1, class_weight="balanced").describe().endswith(", class weight balanced)")
    assert make_spec("margot", 1, class_weight=(2, 0.5)).describe() == "margot depth 1 (C 1, class weights 2,0.5)"


def test_balanced_is_scikit_learns_rule():
    y = load("haberman").y
    expected = compute_class_weight("balanced", classes=np.array([-1, 1]), y=y)
    got = make_spec("olct", 2, class_weight="balanced").class_weights(y)
    assert got == pytest.approx(tuple(expected), rel=1e-15)
    w = make_spec("olct", 2, class_weight="balanced").point_weights(y)
    # balanced: each class carries half of the total weight n
    assert w[y > 0].sum() == pytest.approx(w[y < 0].sum()) == pytest.approx(y.shape[0] / 2)
    assert make_spec("olct", 2).point_weights(y) is None


def test_balanced_weighs_sample_weights_given_as_lists():
    """Labels and sample weights as plain lists (the public methods' callers need not build arrays): a point
    of weight 2 counts as two points, so one +1 point against -1 points weighing 3 gets 2 against 2/3."""
    spec = make_spec("olct", 2, class_weight="balanced")
    assert spec.class_weights([1, -1, -1], [1.0, 2.0, 1.0]) == pytest.approx((2 / 3, 2.0), rel=1e-15)
    assert spec.point_weights([1, -1, -1], [1.0, 2.0, 1.0]).tolist() == pytest.approx([2.0, 4 / 3, 2 / 3])


# ---------------------------------------------------------------- weights by label

@pytest.mark.parametrize("request_,classes,expected", [
    ("yes=3", ("no", "yes"), (1.0, 3.0)),
    ("no=0.5, yes=2", ("no", "yes"), (0.5, 2.0)),
    ({"no": 4}, ("no", "yes"), (4.0, 1.0)),
    ("2=3", (1, 2), (1.0, 3.0)),       # a number's text matches the numeric label
    ({2: 3.0}, (1, 2), (1.0, 3.0)),
    ("a=b=2", ("x", "a=b"), (1.0, 2.0)),  # the weight is after the last '='
    # a label with commas (a quoted CSV cell): a weight holds no comma, so the label goes on to the next '='
    ("yes, sick=3", ("no", "yes, sick"), (1.0, 3.0)),
    ("no=0.5, yes, sick=2", ("no", "yes, sick"), (0.5, 2.0)),
    ("a,b,c=2", ("a,b,c", "d"), (2.0, 1.0)),
    ("a,=2", ("a,", "b"), (2.0, 1.0)),
    ("balanced", (1, 2), "balanced"),
    (None, (1, 2), None),
    ("1=1,2=1", (1, 2), None),
])
def test_class_weight_by_label(request_, classes, expected):
    assert class_weight_by_label(request_, classes) == expected


@pytest.mark.parametrize("request_,why", [
    ("maybe=2", r"weights of the classes \['no', 'yes'\] \('maybe' is not one\)"),
    ("yes=0", r"finite weights > 0 \(class 'yes' has '0'\)"),
    ("yes=-1", r"finite weights > 0 \(class 'yes' has '-1'\)"),
    ("yes=inf", r"finite weights > 0 \(class 'yes' has 'inf'\)"),
    ("yes=two", r"finite weights > 0 \(class 'yes' has 'two'\)"),
    ("yes=1,yes=2", r"one weight per class \(class 'yes' has two\)"),
    ("yes", r"'balanced' or weights by class label"),
    ("=2", r"'balanced' or weights by class label"),
    ("yes=2,", r"'balanced' or weights by class label"),
    ({"yes": True}, r"finite weights > 0"),
    ({"yes": 10 ** 400}, r"finite weights > 0 \(class 'yes' has 1000"),  # beyond float64: no OverflowError
    (2.0, r"None, 'balanced' or weights by class label"),
])
def test_class_weight_by_label_refuses(request_, why):
    with pytest.raises(OlctcError, match=r"^The 'class_weight' parameter \(--class-weight\) must be " + why):
        class_weight_by_label(request_, ("no", "yes"), "--class-weight")


def test_class_weight_by_label_shows_numpy_labels_plainly():
    """The estimator's classes are numpy scalars: the message shows them (and the request) as Python's."""
    classes = (np.str_("sick"), np.str_("well"))
    with pytest.raises(OlctcError) as exc:
        class_weight_by_label({np.str_("ill"): np.float64(2)}, classes)
    assert str(exc.value) == ("The 'class_weight' parameter must be weights of the classes ['sick', 'well'] "
                              "('ill' is not one). Got {'ill': 2.0} instead.")
    with pytest.raises(OlctcError) as exc:
        class_weight_by_label({np.int64(2): np.float64("nan")}, (np.int64(1), np.int64(2)))
    assert str(exc.value) == ("The 'class_weight' parameter must be finite weights > 0 (class 2 has nan). "
                              "Got {2: nan} instead.")
    assert "np." not in str(exc.value)


def test_compile_label_with_a_comma(tmp_path, capsys):
    """A quoted CSV label with a comma can be weighed by name on the command line."""
    X, y = _small(step=8)
    lines = ["a,b,c,label"] + [",".join(f"{v:.6f}" for v in x) + (',"yes, sick"' if t > 0 else ",no")
                                for x, t in zip(X, y)]
    data = tmp_path / "d.csv"
    data.write_text("\n".join(lines) + "\n")
    code, stdout, err = cli_main(["compile", str(data), "--target", "label", "--depth", "1",
                                  "--class-weight", "no=0.5, yes, sick=3", "-o", str(tmp_path / "m.mps")], capsys)
    assert code == 0, err
    man = json.loads((tmp_path / "m.olctc.json").read_text())
    assert man["classes"] == ["no", "yes, sick"] and man["spec"]["class_weight"] == [0.5, 3.0]


# ---------------------------------------------------------------- the model

def _optimum(X, y, spec) -> float:
    res = solve_milp(build_milp(X, y, spec), "highs", threads=1, verbose=False, time_limit=120)
    assert res.status == "optimal", res.raw_status
    return res.objective


@pytest.mark.parametrize("preset", ["olct", "oct-h"])
def test_integer_weights_equal_repeated_points(preset):
    """Weights (1, 2) give the optimum of the unweighted model with every positive point given twice."""
    X, y = _small(step=14)
    spec = make_spec(preset, 2 if preset == "olct" else 1, C=[1.0, 3.0] if preset == "olct" else 2.0,
                     **({"alpha": 0.5} if preset == "oct-h" else {}))
    twice = np.concatenate([np.arange(y.size), np.flatnonzero(y > 0)])
    weighted = _optimum(X, y, dataclasses.replace(spec, class_weight=(1.0, 2.0)))
    repeated = _optimum(X[twice], y[twice], spec)
    assert weighted == pytest.approx(repeated, rel=1e-6)
    assert weighted != pytest.approx(_optimum(X, y, spec), rel=1e-3)  # the weights changed something


def test_equal_weights_are_C_scaled():
    X, y = _small(step=30)
    a = build_milp(X, y, make_spec("olct", 2, C=[1.0, 2.0], class_weight=(3.0, 3.0)))
    b = build_milp(X, y, make_spec("olct", 2, C=[3.0, 6.0]))
    assert np.array_equal(a.c, b.c) and (a.A != b.A).nnz == 0


@pytest.mark.parametrize("preset", ["olct", "margot", "oct-h"])
def test_tree_objective_weighs_each_point(preset):
    X, y = _small(step=10)
    rng = np.random.default_rng(1)
    W, b = rng.normal(size=(3, X.shape[1])), rng.normal(size=3)
    plain = make_spec(preset, 2)
    weighted = dataclasses.replace(plain, class_weight=(0.5, 4.0))
    # weights 0.5 and 4 are, up to a factor 2, each negative point once and each positive one 8 times
    reps = np.concatenate([np.arange(y.size)] + [np.flatnonzero(y > 0)] * 7)
    p = tree_objective(W, b, X, y, weighted)
    r = tree_objective(W, b, X[reps], y[reps], plain)
    assert p.weighted_loss == pytest.approx(r.weighted_loss / 2, rel=1e-12)
    assert p.regulariser == r.regulariser


def test_weighted_warm_start_and_refinement_on_real_data():
    """breast (683 points): the weighted start is feasible, its MILP objective is the tree's, and the MILP
    solution's refinement never raises the weighted exact objective."""
    from olctc.compile import compile_problem

    spec = make_spec("olct", 2, C=[1.0, 10.0], class_weight="balanced")
    comp = compile_problem(load("breast"), spec, "breast")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "MILP objective differs" warning
        x0, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
    assert info["objective_matches"] and max(info["violation"].values()) <= 1e-9
    res = solve_milp(comp.milp, "highs", start=x0, threads=1, verbose=False, time_limit=5)
    W, b = comp.milp.values(res.x, "w"), comp.milp.values(res.x, "b")
    assert tree_objective(W, b, comp.X, comp.dataset.y, spec, threshold=spec.epsilon / 2).total == \
        pytest.approx(res.objective, rel=1e-6)
    _, _, rep = refine(W, b, comp.X, comp.dataset.y, spec, threshold=spec.epsilon / 2)
    assert rep.objective_after <= rep.objective_before and rep.nodes_refit


def test_weighted_node_solver_equals_repeated_points():
    """fit_l1_logistic with integer sample weights reaches the optimum of the data with points repeated."""
    X, y = _small("heart", step=2)
    sw = np.where(y > 0, 3.0, 1.0)
    reps = np.repeat(np.arange(y.size), sw.astype(int))
    w, b = fit_l1_logistic(X, y, 0.5, sample_weight=sw)
    w_r, b_r = fit_l1_logistic(X[reps], y[reps], 0.5)
    f = l1_logistic_objective(w, b, X, y, 0.5, sw)
    assert f == pytest.approx(l1_logistic_objective(w_r, b_r, X[reps], y[reps], 0.5), rel=1e-8)
    assert f == pytest.approx(l1_logistic_objective(w_r, b_r, X, y, 0.5, sw), rel=1e-8)
    # intercept only: the weighted log-odds
    w0, b0 = fit_l1_logistic(X[:, :0], y, 1.0, sample_weight=sw)
    assert b0 == pytest.approx(np.log(sw[y > 0].sum() / sw[y < 0].sum()))


# ---------------------------------------------------------------- command line

def test_compile_solve_decode_balanced(tmp_path, capsys):
    out = tmp_path / "h.mps"
    code, stdout, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "--class-weight", "balanced",
                                  "-o", str(out)], capsys)
    assert code == 0, err
    assert "class weight balanced" in stdout
    man = json.loads((tmp_path / "h.olctc.json").read_text())
    y = load("haberman").y
    assert man["spec"]["class_weight"] == "balanced"
    assert man["data"]["class_weights"] == pytest.approx(
        list(compute_class_weight("balanced", classes=np.array([-1, 1]), y=y)))
    code, _, err = cli_main(["solve", str(out), "--time-limit", "30", "-o", str(tmp_path / "h.sol")], capsys)
    assert code == 0, err
    code, stdout, err = cli_main(["decode", str(tmp_path / "h.olctc.json"), str(tmp_path / "h.sol"),
                                  "-o", str(tmp_path / "t.json")], capsys)
    assert code == 0, err  # exit 3 if the rebuilt model's objective were not the solver's
    assert "routing: the tree routes every training point as z says" in stdout
    from olctc.export.json import load as load_tree

    # the decoded tree says what it was weighted with, by label, as a fit's does (it said nothing)
    weights = man["data"]["class_weights"]
    assert load_tree(tmp_path / "t.json").meta["data"]["class_weights"] == {"1": weights[0], "2": weights[1]}


def test_compile_names_the_class_weights_by_label(tmp_path, capsys):
    """Weights by label as the pair (negative, positive), printed as that pair ('class weights 1,3') read as labels
    1 and 3; with --positive-class 1 the negative class is 2."""
    code, stdout, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "--class-weight", "1=3",
                                  "--positive-class", "1", "--no-start", "--no-params", "-o", tmp_path / "m.mps"],
                                 capsys)
    assert code == 0, err
    assert "(C 1, tangents V0, class weights 2=1, 1=3)" in stdout, stdout


def test_fit_by_label_weighs_the_minority(tmp_path, capsys):
    """haberman's class 2 (81 of 306): weighing it 4 predicts it far more often than no weights."""
    from olctc.export.json import load as load_tree

    counts = {}
    for name, extra in (("plain", []), ("weighted", ["--class-weight", "2=4"])):
        code, stdout, err = cli_main(["fit", "--dataset", "haberman", "--depth", "1", "--test-size", "0",
                                      "--quiet", *extra, "-o", str(tmp_path / f"{name}.json")], capsys)
        assert code == 0, err
        tree = load_tree(tmp_path / f"{name}.json")
        counts[name] = int((tree.predict(load("haberman").X) == 2).sum())
    assert "class weights 1=1, 2=4" in stdout
    assert counts["weighted"] > 2 * max(counts["plain"], 10)


@pytest.mark.parametrize("value,why", [
    ("3=2", r"weights of the classes \[1, 2\] \('3' is not one\)"),
    ("2=0", r"finite weights > 0 \(class 2 has '0'\)"),
    ("heavy", r"'balanced' or weights by class label"),
])
@pytest.mark.parametrize("command", ["compile", "fit", "grid"])
def test_cli_refuses_bad_class_weight(tmp_path, capsys, command, value, why):
    out = tmp_path / ("grid" if command == "grid" else "m.mps" if command == "compile" else "t.json")
    code, stdout, err = cli_main([command, "--dataset", "haberman", "--class-weight", value, "-o", str(out)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--class-weight" in err and __import__("re").search(why, err), err
    assert list(tmp_path.iterdir()) == []


def test_grid_balances_each_fold_on_its_own_points(tmp_path, capsys):
    grid = tmp_path / "g"
    code, _, err = cli_main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "3",
                             "--class-weight", "balanced", "-o", str(grid)], capsys)
    assert code == 0, err
    manifests = sorted(grid.rglob("*.olctc.json"))
    assert len(manifests) == 3
    y = load("haberman").y
    seen = set()
    for path in manifests:
        man = json.loads(path.read_text())
        yf = y[man["data"]["rows"]]
        assert man["spec"]["class_weight"] == "balanced"
        assert man["data"]["class_weights"] == pytest.approx([yf.size / (2 * (yf < 0).sum()),
                                                              yf.size / (2 * (yf > 0).sum())])
        seen.add(tuple(man["data"]["class_weights"]))
    assert len(seen) > 1  # the folds' counts differ, and so do their weights


# ---------------------------------------------------------------- estimator

def test_estimator_class_weight_follows_the_labels():
    """The weights belong to labels, whichever class the tree scores as positive."""
    from olctc.estimator import OLCTClassifier

    X, y = _small(step=6)
    labels = np.where(y > 0, "sick", "well")
    kw = dict(depth=1, C=1.0, time_limit=60, class_weight={"sick": 5.0})
    a = OLCTClassifier(**kw).fit(X, labels)
    b = OLCTClassifier(positive_class="well", **kw).fit(X, labels)
    assert a.summary_["status"] == b.summary_["status"] == "optimal"
    assert np.array_equal(a.predict(X), b.predict(X))
    assert a.summary_["class_weights"] == b.summary_["class_weights"] == {"sick": 5.0, "well": 1.0}
    # the tree's records too (they were keyed by the fit's 0/1 codes: with labels 0/1 and positive_class=0, swapped)
    for est in (a, b):
        meta = est.export_tree().meta
        assert meta["data"]["class_weights"] == meta["fit"]["class_weights"] == {"sick": 5.0, "well": 1.0}
    codes = OLCTClassifier(positive_class=0, **dict(kw, class_weight={0: 5.0})).fit(X, (y > 0).astype(int))
    exported = codes.export_tree()
    meta = exported.meta
    assert exported.classes == (1, 0)
    assert meta["data"]["class_weights"] == meta["fit"]["class_weights"] == {"0": 5.0, "1": 1.0}
    # tree_ speaks of the fit's codes throughout (classes (0, 1): code 1 is label 0), and the exported copy is its own
    assert codes.tree_.classes == (0, 1) and codes.tree_.meta["data"]["class_weights"] == {"0": 1.0, "1": 5.0}
    meta["data"]["name"] = "edited"
    assert codes.tree_.meta["data"]["name"] != "edited"
    plain = OLCTClassifier(depth=1, C=1.0, time_limit=60).fit(X, labels)
    assert (a.predict(X) == "sick").sum() > (plain.predict(X) == "sick").sum()
    with pytest.raises(OlctcError, match=r"'class_weight' parameter must be weights of the classes "
                                         r"\['sick', 'well'\] \('ill' is not one\)"):
        OLCTClassifier(depth=1, class_weight={"ill": 2}).fit(X, labels)
