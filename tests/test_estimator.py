"""scikit-learn estimators: conventions (estimator checks), meta-estimators, ONNX through skl2onnx."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from olctc.datasets import load_dataset
from olctc.errors import OlctcError
from olctc.estimator import MARGOTClassifier, OCTHClassifier, OLCTClassifier

# Every check passes at depth 1 (an LP: deterministic, < 0.1 s per fit); none is skipped or xfailed (but one
# on scikit-learn 1.6, whose check is at fault: _sklearn_check_labels_by_first_element).
# One is skipped by scikit-learn itself in this environment: check_array_api_input (SCIPY_ARRAY_API
# unset). Depth 2 passes them too (measured: 56 checks in 37 s with time_limit=2), too slow for the suite.
# OCTHClassifier (the same class but its preset) passes all but check_sample_weight_equivalence_on_dense_data
# (by hand, at time_limit=5 and None: QA 2026-12-05), which fails on a tie: OCT-H's misclassification count has
# many optimal trees, and the two fits return different ones (28 of 30 probabilities differed, both optimal at
# the same objective); so do the presets margot-sfs and margot-hfs (not proved optimal in 5 s; b free in hinge);
# MARGOTClassifier all but check_sample_weight_equivalence_on_dense_data, by 2e-7 in predict_proba
# (rtol 1e-7): SCIP solves its convex QP to about that precision.


def _sklearn_check_labels_by_first_element() -> bool:
    """scikit-learn 1.6's checks made a binary-only classifier's labels y == y.flat[0] against the rest (later
    releases: y.min()), so check_sample_weight_equivalence labelled its shuffled weighted data and its repeated
    data differently (5 of 9 points, measured on 1.6.1): two different problems, whatever the classifier."""
    try:
        from sklearn.utils.estimator_checks import _enforce_estimator_tags_y
    except ImportError:
        return False
    return list(_enforce_estimator_tags_y(OLCTClassifier(), np.array([2, 0, 1]))) == [2, 3, 3]


@parametrize_with_checks([OLCTClassifier(depth=1, time_limit=5)])
def test_sklearn_conventions(estimator, check):
    name = getattr(check, "func", check).__name__
    if name == "check_sample_weight_equivalence_on_dense_data" and _sklearn_check_labels_by_first_element():
        pytest.xfail("scikit-learn 1.6's check labels the weighted and the repeated data differently")
    check(estimator)


@pytest.fixture(scope="module")
def heart_small():
    """60 rows of heart (30 per class), integer labels 0/1."""
    X, y, names = load_dataset("heart")
    y = y.astype(np.int64)
    rows = np.concatenate([np.flatnonzero(y == 1)[:30], np.flatnonzero(y == 0)[:30]])
    return X[rows], y[rows], names


class Frame:
    """A DataFrame-like object without pandas: ``columns`` plus ``__array__``."""

    def __init__(self, X, columns):
        self._X = np.asarray(X)
        self.columns = list(columns)
        self.shape = self._X.shape

    def __array__(self, dtype=None, copy=None):
        return self._X if dtype is None else self._X.astype(dtype)

    def __len__(self):
        return self._X.shape[0]


def test_fit_attributes_and_predictions(heart_small):
    X, y, names = heart_small
    # 20 per class: proven optimal in well under a second (all 60 rows: about 2 s, and on a busy machine the
    # 20 s limit stopped it with a gap)
    X, y = X[10:50], y[10:50]
    est = OLCTClassifier(depth=2, C=10, time_limit=20).fit(X, y)
    assert list(est.classes_) == [0, 1] and est.positive_class_ == 1
    assert est.n_features_in_ == X.shape[1]
    assert not hasattr(est, "feature_names_in_")
    assert est.tree_.depth == 2
    assert est.mip_gap_ is not None and est.mip_gap_ <= 1e-3  # optimal within HiGHS's default relative gap
    assert est.objective_ > 0 and est.solve_time_ >= 0
    assert est.summary_["status"] == "optimal"
    P = est.predict_proba(X)
    assert P.shape == (40, 2) and np.allclose(P.sum(axis=1), 1)
    d = est.decision_function(X)
    assert np.array_equal(est.predict(X), est.classes_[(d > 0).astype(int)])
    assert np.array_equal(np.argmax(P, axis=1), (d > 0).astype(int))
    assert est.score(X, y) > 0.8
    # the estimator's predictions are the tree's
    assert np.array_equal(est.predict(X), est.tree_.predict(X))


def test_positive_class_mapping_with_string_labels(heart_small):
    X, y, _ = heart_small
    ys = np.where(y == 1, "sick", "healthy")
    est = OLCTClassifier(depth=1, C=1, positive_class="healthy", time_limit=10).fit(X, ys)
    assert list(est.classes_) == ["healthy", "sick"]
    assert est.positive_class_ == "healthy"
    z = est.tree_.decision_function(X)  # the tree scores "healthy"
    P = est.predict_proba(X)
    d = est.decision_function(X)
    assert np.allclose(d, -z)  # sklearn's convention: positive for classes_[1]
    assert np.allclose(P[:, 0], 1 / (1 + np.exp(-z)))  # column order = classes_
    pred = est.predict(X)
    assert np.array_equal(pred == "healthy", z > 0)
    assert np.array_equal(pred, est.classes_[np.argmax(P, axis=1)])
    with pytest.raises(ValueError, match="positive_class"):
        OLCTClassifier(depth=1, positive_class="maybe", time_limit=5).fit(X, ys)


def test_errors(heart_small):
    X, y, _ = heart_small
    est = OLCTClassifier(depth=1, time_limit=5)
    with pytest.raises(NotFittedError):
        est.predict(X)
    y3 = np.arange(X.shape[0]) % 3
    with pytest.raises(ValueError, match="Only binary classification is supported.*multiclass"):
        est.fit(X, y3)
    with pytest.raises(ValueError, match=r"y has one class only \(0\)$"):  # 0, not np.int64(0)
        est.fit(X, np.zeros(X.shape[0], dtype=int))
    with pytest.raises(ValueError, match="The 'depth' parameter must be an integer >= 1"):
        OLCTClassifier(depth=0).fit(X, y)
    with pytest.raises(ValueError, match="The 'preset' parameter"):
        OLCTClassifier(preset="nope").fit(X, y)
    # ints beyond int64 in an object array: scikit-learn's own error, as LogisticRegression gives it
    with pytest.raises(ValueError, match="Unknown label type"):
        est.fit(X, np.array([10 ** 20 if v else 0 for v in y], dtype=object))
    est.fit(X, y)
    with pytest.raises(ValueError, match="13 features"):
        est.predict(X[:, :5])


def test_feature_names_from_dataframe_like(heart_small):
    X, y, names = heart_small
    est = OLCTClassifier(depth=1, time_limit=5).fit(Frame(X, names), y)
    assert list(est.feature_names_in_) == names
    assert est.tree_.feature_names == names
    assert np.array_equal(est.predict(Frame(X, names)), est.predict(Frame(X, names)))
    with pytest.warns(UserWarning, match="valid feature names"):  # scikit-learn's own warning
        assert np.array_equal(est.predict(X), est.predict(Frame(X, names)))
    with pytest.raises(ValueError, match="feature names should match"):
        est.predict(Frame(X, names[::-1]))
    # a tree file names every column: an unnamed one is refused before solving, not when read back
    # in the estimator's words: X's column, not from_arrays' feature_names argument
    with pytest.raises(OlctcError, match=r"^X's column 2 has an empty name: the tree, and every export of it, takes "
                                         r"its features by name; rename the column$"):
        OLCTClassifier(depth=1, time_limit=5).fit(Frame(X, names[:2] + [""] + names[3:]), y)


def test_object_labels_from_load_dataset():
    X, y, _ = load_dataset("heart")  # y is an object array of ints
    est = OLCTClassifier(depth=1, time_limit=10).fit(X[:80], y[:80])
    assert est.classes_.dtype.kind == "i"


def test_pipeline_cross_val_clone_gridsearch(heart_small):
    X, y, _ = heart_small
    pipe = make_pipeline(StandardScaler(), OLCTClassifier(depth=1, time_limit=10))
    scores = cross_val_score(pipe, X, y, cv=3, scoring="balanced_accuracy")
    assert scores.shape == (3,) and scores.mean() > 0.7
    est = OLCTClassifier(depth=2, C=(1.0, 10.0), time_limit=10)
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "tree_")
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(OLCTClassifier(depth=1, time_limit=10), {"C": [0.01, 1.0, 100.0]}, cv=cv,
                      scoring="balanced_accuracy", n_jobs=2).fit(X, y)
    assert gs.best_params_["C"] in (0.01, 1.0, 100.0)
    assert gs.best_estimator_.tree_ is not None
    assert len(gs.cv_results_["mean_test_score"]) == 3


def _ort(model):
    import onnxruntime as ort

    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("labels,positive", [("int", None), ("int", 0), ("str", "healthy")])
def test_skl2onnx(heart_small, labels, positive):
    from skl2onnx import to_onnx

    X, y, _ = heart_small
    X, y = X[10:50], y[10:50]  # 20 per class: depth 2 solves to optimality in about a second
    if labels == "str":
        y = np.where(y == 1, "sick", "healthy")
    est = OLCTClassifier(depth=2, C=10, time_limit=10, positive_class=positive).fit(X, y)
    # double input, plain probabilities
    model = to_onnx(est, X[:1].astype(np.float64), options={id(est): {"zipmap": False}})
    sess = _ort(model)
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X.astype(np.float64)})
    assert np.array_equal(label, est.predict(X))
    assert np.allclose(proba, est.predict_proba(X), atol=1e-12)
    # float input and skl2onnx's default ZipMap output
    Xf = X.astype(np.float32)
    model = to_onnx(est, Xf[:1])
    sess = _ort(model)
    label, maps = sess.run(None, {sess.get_inputs()[0].name: Xf})
    assert np.array_equal(label, est.predict(Xf))
    P = est.predict_proba(Xf)
    got = np.array([[m[c] for c in est.classes_] for m in maps])
    assert np.allclose(got, P, atol=1e-5)
    # skl2onnx's options: one output per class (double stays double), class indices instead of labels
    Xd = X.astype(np.float64)
    sess = _ort(to_onnx(est, Xd[:1], options={id(est): {"zipmap": "columns"}}))
    label, *columns = sess.run(None, {sess.get_inputs()[0].name: Xd})
    assert np.array_equal(label, est.predict(X))
    assert np.allclose(np.column_stack(columns), est.predict_proba(X), atol=1e-12)
    index = np.searchsorted(est.classes_, est.predict(X))
    for options in ({"nocl": True, "zipmap": False}, {"nocl": True}):
        sess = _ort(to_onnx(est, Xf[:1], options={id(est): options}))
        label = sess.run(None, {sess.get_inputs()[0].name: Xf})[0]
        assert label.dtype == np.int64 and np.array_equal(label, index)


_IMPORT_ORDER = """
import sys
if sys.argv[1] == "skl2onnx-first":
    import skl2onnx
import numpy as np
from olctc import OLCTClassifier, load_dataset
imported = sorted(m for m in ("skl2onnx", "onnx") if m in sys.modules)
if sys.argv[1] == "checked-first":  # an availability check takes a spec of skl2onnx that is never run
    import importlib.util
    assert importlib.util.find_spec("skl2onnx") is not None
X, y, _ = load_dataset("heart")
est = OLCTClassifier(depth=1, time_limit=10).fit(X[:60], y[:60])
from skl2onnx import to_onnx
import onnxruntime as ort
sess = ort.InferenceSession(to_onnx(est, X[:1], options={id(est): {"zipmap": False}}).SerializeToString(),
                            providers=["CPUExecutionProvider"])
label, proba = sess.run(None, {sess.get_inputs()[0].name: X[:60]})
worst = float(np.abs(proba - est.predict_proba(X[:60])).max())
print(imported, bool(np.array_equal(label, est.predict(X[:60]))), worst)
"""


@pytest.mark.parametrize("order", ["olctc-first", "skl2onnx-first", "checked-first"])
def test_the_estimators_reach_skl2onnx_whichever_is_imported_first(order):
    # the estimator module imported skl2onnx (and onnx) to register its converter: 0.85-1 s and 50 MB of every
    # `from olctc import OLCTClassifier` and of every joblib worker (QA 2026-12-05); it registers when skl2onnx is
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", _IMPORT_ORDER, order], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    imported, equal, worst = p.stdout.split("] ")[0] + "]", *p.stdout.split("] ")[1].split()
    assert imported == ("['onnx', 'skl2onnx']" if order == "skl2onnx-first" else "[]")
    assert equal == "True" and float(worst) < 1e-12


def test_skl2onnx_labels_beyond_int64_go_out_as_text(heart_small):
    """uint64 labels >= 2^63 do not fit ONNX's int64: the declared output type must be the graph's (text)."""
    from skl2onnx import to_onnx

    X, y, _ = heart_small
    y = np.where(y == 1, np.uint64(2 ** 63), np.uint64(0))
    est = OLCTClassifier(depth=1, time_limit=10).fit(X, y)
    sess = _ort(to_onnx(est, X[:1], options={id(est): {"zipmap": False}}))
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X})
    assert label.dtype == object and label.tolist() == [str(v) for v in est.predict(X)]
    assert {"0", str(2 ** 63)} == set(label.tolist()) and np.allclose(proba, est.predict_proba(X), atol=1e-12)


def test_skl2onnx_refuses_one_input_per_dataframe_column(heart_small):
    import pandas as pd
    from skl2onnx import to_onnx

    X, y, _ = heart_small
    df = pd.DataFrame(X[:, :4], columns=["a", "b", "c", "d"])
    est = OLCTClassifier(depth=1, time_limit=10).fit(df, y)
    with pytest.raises(OlctcError, match="got 4 inputs .*to_numpy"):
        to_onnx(est, df[:1])
    sess = _ort(to_onnx(est, df[:1].to_numpy(), options={id(est): {"zipmap": False}}))
    label, proba = sess.run(None, {sess.get_inputs()[0].name: df.to_numpy()})
    assert np.array_equal(label, est.predict(df)) and np.allclose(proba, est.predict_proba(df), atol=1e-12)


def test_in_pipeline_to_onnx(heart_small):
    from skl2onnx import to_onnx

    X, y, _ = heart_small
    pipe = make_pipeline(StandardScaler(), OLCTClassifier(depth=1, time_limit=10)).fit(X, y)
    model = to_onnx(pipe, X[:1].astype(np.float64), options={id(pipe[-1]): {"zipmap": False}})
    sess = _ort(model)
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X.astype(np.float64)})
    assert np.array_equal(label, pipe.predict(X))
    assert np.allclose(proba, pipe.predict_proba(X), atol=1e-9)


def test_margot_and_octh(heart_small):
    X, y, _ = heart_small
    m = MARGOTClassifier(depth=1, time_limit=20).fit(X, y)
    assert m.get_params()["preset"] == "margot" and m.summary_["solver"] == "scip"
    assert m.score(X, y) > 0.7
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        o = OCTHClassifier(depth=1, time_limit=5).fit(X, y)  # misclassification MILP: stops at the limit
    # the ConvergenceWarning comes exactly when the fit is not proven optimal
    warned = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(warned) == (o.summary_["status"] != "optimal"), [str(w.message) for w in caught]
    assert o.summary_["spec"]["preset"] == "oct-h"
    assert o.score(X, y) > 0.6
    with pytest.raises(ValueError, match="MIQP"):
        OLCTClassifier(preset="margot", solver="highs", depth=1).fit(X, y)


def test_a_quiet_fit_prints_nothing():
    # HiGHS prints a banner from its first constructor in a process, before any option can be set;
    # estimators are quiet by default, CBC fits included (decode reads the model with HiGHS).
    import subprocess
    import sys

    code = ("from olctc import load_dataset\nfrom olctc.estimator import OLCTClassifier\n"
            "X, y, _ = load_dataset('heart')\nOLCTClassifier(depth=1, time_limit=5).fit(X[:60], y[:60])\n"
            "OLCTClassifier(depth=1, time_limit=5, solver='highs').fit(X[:60], y[:60])\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout == ""


def test_verbose_takes_scikit_learns_integer_levels(heart_small, capfd):
    # verbose=1 (GridSearchCV's and every scikit-learn estimator's kind of value) was refused; 0 is quiet
    X, y, _ = heart_small
    OLCTClassifier(depth=1, time_limit=5, verbose=0).fit(X, y)
    assert capfd.readouterr().out == ""
    OLCTClassifier(depth=1, time_limit=5, verbose=np.int64(2)).fit(X, y)
    assert capfd.readouterr().out.startswith("model (score-variable form): ")  # and the solver's log


@pytest.mark.parametrize("param,value,expected", [
    ("refine", "no", "True or False"),  # bool("no") is True: it used to refine silently
    ("verbose", -1, r"True, False or an integer >= 0"),  # 2 is scikit-learn's verbosity: taken (below)
    ("verbose", 0.5, r"True, False or an integer >= 0"),
    # "" used to mean the default
    ("solver", "", r"None \(the preset's default\) or one of highs, cbc, scip, gurobi, cplex, copt, xpress"),
    ("positive_class", [0], r"None or one class label \(not a sequence\)"),  # used to match class 0
    ("positive_class", np.array([0, 1]), r"None or one class label"),  # used to raise numpy's "ambiguous"
    # used to say "--solver scip"
    ("solver", "highs", r"None or one of scip, gurobi, cplex, copt, xpress for preset 'margot', a MIQP"),
    ("tangents", "V2", r"preset 'margot' uses the hinge loss"),  # was stored and unused
    ("score_variables", "yes", "True or False"),
    ("C", 1e20, r"below 1e20 for every layer \(solvers read a cost of 1e20 or more as infinite\)"),
])
def test_bad_parameter_values_are_named(heart_small, param, value, expected):
    X, y, _ = heart_small
    est = OLCTClassifier(preset="margot", depth=1, time_limit=5).set_params(**{param: value})
    with pytest.raises(OlctcError) as info:
        est.fit(X, y)
    msg = str(info.value)
    assert msg.startswith(f"The '{param}' parameter must be ") and "\n" not in msg
    assert re.search(expected, msg) and "Got " in msg
    assert not hasattr(est, "tree_")


def test_sample_weights_that_solvers_would_read_as_infinite_are_refused(heart_small):
    """HiGHS answers "Unknown" at once to a cost of 1e20, and the fit used to keep its warm start."""
    X, y, _ = heart_small
    w = np.ones(len(y))
    w[3] = 2e19
    est = OLCTClassifier(depth=1, C=5, time_limit=5)
    with pytest.raises(OlctcError, match=r"^OLCTClassifier: C times the point weights and the class weights gives "
                                         r"loss costs up to 1e\+20, and solvers read a cost of 1e20 or more as "):
        est.fit(X, y, sample_weight=w)
    assert not hasattr(est, "tree_")
    w[3] = 1.9e19
    assert est.fit(X, y, sample_weight=w).summary_["status"] == "optimal"


def test_python_integers_beyond_float64_are_a_value_error():
    """numpy's OverflowError (not a ValueError, which scikit-learn's callers catch) came out of fit and
    predict for 10**400 in X or sample_weight."""
    X, y = [[1.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]], [0, 1, 0, 1]
    est = OLCTClassifier(depth=1, time_limit=5)
    expected = r"^OLCTClassifier: {} holds a number beyond the float64 range \(about 1\.8e308\); rescale it$"
    with pytest.raises(OlctcError, match=expected.format("X")):
        est.fit([[10 ** 400, 1.0], *X[1:]], y)
    with pytest.raises(OlctcError, match=expected.format("sample_weight")):
        est.fit(X, y, sample_weight=[10 ** 400, 1, 1, 1])
    assert not hasattr(est, "tree_")
    with pytest.raises(OlctcError, match=expected.format("X")):
        est.fit(X, y).predict([[10 ** 400, 1.0]])


def test_a_budget_above_the_features_is_refused(heart_small):
    X, y, _ = heart_small
    est = OLCTClassifier(preset="olct-univariate", budget=X.shape[1] + 1, depth=1, time_limit=5)
    with pytest.raises(OlctcError, match=rf"^The 'budget' parameter must be at most {X.shape[1]}, the number of "):
        est.fit(X, y)
    assert not hasattr(est, "tree_")


def test_a_failed_fit_leaves_the_estimator_as_it_was(heart_small):
    X, y, _ = heart_small
    est = OLCTClassifier(depth=1, time_limit=5, solver="highs")
    with pytest.raises(OlctcError, match="'solver'"):
        est.set_params(solver="mosek").fit(X, y)
    assert not any(k.endswith("_") for k in vars(est))  # n_features_in_, classes_ were left behind
    est.set_params(solver="highs").fit(X, y)
    d = est.decision_function(X)
    ys = np.where(y == 1, "sick", "healthy")
    params = est.get_params()
    for bad in ({"positive_class": "maybe"}, {"time_limit": 1.5}):  # fail after the data were validated
        with pytest.raises(OlctcError):
            est.set_params(**bad).fit(X[:, :4], ys)
        est.set_params(**params)
        assert list(est.classes_) == [0, 1] and est.n_features_in_ == X.shape[1]
        assert np.array_equal(est.decision_function(X), d)
        assert np.array_equal(est.predict(X), est.tree_.predict(X))


def test_octh_under_a_time_limit_says_it_is_not_deterministic():
    # its fits stop at the limit with a gap (even at depth 1): check_fit_idempotent failed now and then
    assert OCTHClassifier(depth=1, time_limit=5).__sklearn_tags__().non_deterministic
    assert not OCTHClassifier(depth=1, time_limit=None).__sklearn_tags__().non_deterministic
    assert not OLCTClassifier(depth=1, time_limit=5).__sklearn_tags__().non_deterministic
    # the model's, not the class's: the preset decides
    assert OLCTClassifier(preset="oct-h", time_limit=5).__sklearn_tags__().non_deterministic
    assert not OCTHClassifier(preset="olct", time_limit=5).__sklearn_tags__().non_deterministic


def test_a_time_limit_too_short_to_solve_says_how_long_is_enough(heart_small):
    X, y, _ = heart_small
    with pytest.raises(OlctcError, match=r"^OLCTClassifier: the 'time_limit' parameter is too short: a time limit "
                                         r"of 1.5 s leaves no time to solve: .* give at least (\d+) s$") as info:
        OLCTClassifier(depth=2, time_limit=1.5, solver="highs").fit(X, y)
    least = int(re.search(r"at least (\d+) s", str(info.value)).group(1))
    assert least <= 4
    with warnings.catch_warnings():
        # a solve stopped by that limit is what this asks for: on a slower machine it ends with a gap, and says so
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert OLCTClassifier(depth=2, time_limit=least + 1, solver="highs").fit(X, y).tree_ is not None


def test_a_solver_left_no_time_by_the_model_handover_keeps_the_warm_start(heart_small, monkeypatch):
    # Handing a deep tree's model to HiGHS on a loaded machine took all but 0.13 s of the solver's share
    # (breast, depth 8, time_limit 5): the fit raised TimeLimitTooShort after spending its whole budget,
    # discarding the warm start it had (NaN scores in a GridSearchCV). Here the handover is made that slow.
    import time

    import olctc.solve.highs as highs

    real = highs.highs_model

    def slow_highs_model(opts):
        time.sleep(max(0.0, opts.deadline - time.monotonic() - 0.2))  # 0.2 s left: under MIN_SOLVE_SECONDS
        return real(opts)

    monkeypatch.setattr(highs, "highs_model", slow_highs_model)
    X, y, _ = heart_small
    with pytest.warns(ConvergenceWarning, match=r"stopped \(time limit reached before the solver started\) "
                                                r".*the tree is the warm start"):
        est = OLCTClassifier(depth=2, time_limit=6, solver="highs").fit(X, y)
    s = est.summary_
    assert (s["status"], s["solution_from"]) == ("feasible", "warm start")
    assert s["warm_start_kept"] == "highs found no solution (time limit reached before the solver started)"
    assert est.score(X, y) > 0.5 and s["time_total"] < 6.5


@pytest.mark.parametrize("solver", ["scip", "cbc"])
def test_a_file_solver_is_not_handed_a_model_it_has_no_time_to_read(heart_small, monkeypatch, solver):
    """CBC and SCIP read the model from a file written for them, and reading checks no clock: a fit ran 11 s past
    its whole limit (w5a, depth 3, SCIP: 3.7 s to write, 5.0 s to read) to find no time left. A model whose
    writing leaves less time than reading it back (up to 4.5 and 3.5 times the writing: benchmarks/read_time.py)
    is not read; the fit keeps the warm start, and its solve time counts the writing (it counted the solver's run
    only)."""
    import time

    import olctc.emit.mps as mps
    import olctc.solve as solve
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.errors import TimeLimitTooShort
    from olctc.spec import make_spec

    real = mps.write_mps

    def slow_write(milp, path):
        time.sleep(1.5)
        return real(milp, path)

    def never(*args, **kwargs):
        raise AssertionError(f"{solver} was handed the model")

    monkeypatch.setattr(mps, "write_mps", slow_write)
    monkeypatch.setattr(solve, "FILE_BACKENDS", dict(solve.FILE_BACKENDS, **{solver: never}))
    X, y, _ = heart_small
    with pytest.raises(TimeLimitTooShort, match=rf"^no time is left to solve: writing the model for {solver} took "
                                                r"1\.\d s, leaving [12]\.[\d]+ s of the time limit, less than "
                                                r"reading it back \(about \d+\.\d s\) and the 0\.5 s a solver "
                                                r"needs at least$"):
        # 2.5 s left: more than the writing took, less than SCIP's or CBC's reading
        solve.solve_milp(compile_problem(from_arrays(X, y), make_spec("olct", 1)).milp, solver, time_limit=4.0,
                         verbose=False)
    with pytest.warns(ConvergenceWarning, match=r"stopped \(time limit reached before the solver started\)"):
        est = OLCTClassifier(depth=1, time_limit=4.5, solver=solver).fit(X, y)
    s = est.summary_
    assert (s["status"], s["solution_from"]) == ("feasible", "warm start")
    assert s["time_solve"] >= 1.5  # the writing is the solve's


def test_score_variables_fit_the_same_tree_with_a_smaller_model(heart_small):
    """score_variables=True, the default: one column and one defining row per (branch node, point) more
    than the paper's form, fewer nonzeros, and, both fits proven optimal, the same optimum and the same
    predictions."""
    X, y, _ = heart_small
    X, y = X[10:50], y[10:50]  # 20 per class: both forms are proven optimal in well under a second
    plain = OLCTClassifier(depth=2, C=10, time_limit=20, score_variables=np.False_).fit(X, y)
    scores = OLCTClassifier(depth=2, C=10, time_limit=20).fit(X, y)
    assert OLCTClassifier().score_variables is MARGOTClassifier().score_variables is OCTHClassifier().score_variables
    assert plain.summary_["status"] == scores.summary_["status"] == "optimal"
    a, b = plain.summary_["model_size"], scores.summary_["model_size"]
    assert (b["rows"] - a["rows"], b["columns"] - a["columns"]) == (3 * 40, 3 * 40)
    assert b["nonzeros"] < a["nonzeros"]
    assert scores.summary_["spec"]["score_variables"] is True and "score_variables" not in plain.summary_["spec"]
    assert scores.objective_ == pytest.approx(plain.objective_, rel=1e-3)  # HiGHS's relative gap
    assert np.mean(scores.predict(X) == plain.predict(X)) >= 0.95


def test_apply_decision_path_and_depth_as_scikit_learns_trees(heart_small):
    X, y, names = heart_small
    # fitted on 20 per class: proven optimal in well under a second (all 60 rows: about 2 s); applied to all 60
    est = OLCTClassifier(depth=2, C=10, time_limit=20).fit(Frame(X[10:50], names), y[10:50])
    leaf = est.apply(Frame(X, names))
    path = est.decision_path(Frame(X, names))
    assert est.get_depth() == 2 and leaf.shape == (60,) and set(leaf.tolist()) <= {1, 2}
    assert est.get_n_leaves() == 2  # the values apply can return
    assert path.shape == (60, 3) and path.format == "csr"
    dense = path.toarray()
    assert (dense[:, 0] == 1).all() and (dense.sum(axis=1) == 2).all()  # the root, then the node reached
    assert np.array_equal(dense[np.arange(60), leaf], np.ones(60))
    # the node reached is the one whose score decides: its sign is the prediction
    W, b = est.tree_.W_raw, est.tree_.b_raw
    root_right = X @ W[0] + b[0] > 0
    assert np.array_equal(leaf, np.where(root_right, 2, 1))
    score = np.einsum("ij,ij->i", X, W[leaf]) + b[leaf]
    assert np.array_equal(est.predict(Frame(X, names)), est.classes_[(score > 0).astype(int)])
    with pytest.raises(ValueError, match="feature names should match"):
        est.apply(Frame(X, names[::-1]))
    with pytest.raises(ValueError, match="features"), pytest.warns(UserWarning, match="valid feature names"):
        est.decision_path(X[:, :5])  # scikit-learn warns of the missing names, then refuses the width
    for method in ("apply", "decision_path", "get_depth", "get_n_leaves"):
        with pytest.raises(NotFittedError):
            getattr(OLCTClassifier(), method)(*([X] if not method.startswith("get_") else []))


def test_get_n_leaves_counts_the_last_layer_nodes(heart_small):
    X, y, names = heart_small
    X, y = X[10:50], y[10:50]  # 20 per class: depth 3 is proven optimal in under a second (60 rows: about 6 s)
    for depth in (1, 3):
        est = OLCTClassifier(depth=depth, C=10, time_limit=20).fit(X, y)
        assert est.get_n_leaves() == 2 ** (depth - 1)
        assert set(est.apply(X).tolist()) <= set(range(2 ** (depth - 1) - 1, 2 ** depth - 1))


@pytest.mark.parametrize("positive", [1, 0])
def test_predict_log_proba_is_the_log_of_predict_proba_and_finite_where_it_rounds_to_0(heart_small, positive):
    X, y, names = heart_small
    est = OLCTClassifier(depth=2, C=10, time_limit=20, positive_class=positive).fit(X, y)
    P, L = est.predict_proba(X), est.predict_log_proba(X)
    assert L.shape == (60, 2) and np.allclose(L, np.log(P), rtol=1e-9, atol=0)
    assert np.array_equal(np.argmax(L, axis=1), np.argmax(P, axis=1))
    # scores far beyond +-37: predict_proba rounds one class to exactly 0, whose log is -inf
    far = X * 1e4
    z = est.decision_function(far)
    assert np.abs(z).min() > 50
    P, L = est.predict_proba(far), est.predict_log_proba(far)
    assert (P == 0).any() and np.isfinite(L).all()
    # log P(classes_[1]) = -log(1 + exp(-z)): -|z| for the unlikely class, 0 for the likely one, to rounding
    assert np.allclose(L[:, 1], np.minimum(z, 0), rtol=1e-12, atol=1e-20)
    assert np.allclose(L[:, 0], np.minimum(-z, 0), rtol=1e-12, atol=1e-20)
    assert np.array_equal(est.tree_.predict_log_proba(far)[:, ::1 if positive == 1 else -1], L)
    with pytest.raises(NotFittedError):
        OLCTClassifier().predict_log_proba(X)


def test_predicting_a_dataframe_edits_no_warning_filter(heart_small, monkeypatch):
    """Every predict of a named X entered catch_warnings and added a filter: not thread-safe on Python 3.11,
    threads predicting at once left the filter behind, silencing scikit-learn's feature-name warning for every
    estimator of the process (QA 2026-12-05). Only names scikit-learn cannot read itself need the filter."""
    import warnings

    import pandas as pd

    X, y, _ = heart_small
    cols = [f"f{j}" for j in range(X.shape[1])]
    est = OLCTClassifier(depth=1, time_limit=10).fit(pd.DataFrame(X, columns=cols), y)
    added = []
    real = warnings.filterwarnings
    monkeypatch.setattr(warnings, "filterwarnings", lambda *a, **k: (added.append(k.get("message")), real(*a, **k)))
    p = est.predict(pd.DataFrame(X, columns=cols))
    assert added == []
    assert np.array_equal(est.predict(Frame(X, cols)), p)  # a frame scikit-learn cannot read: the filter, once
    assert added == ["X does not have valid feature names"]


def test_a_pickle_of_an_older_olctc_takes_the_new_parameters_defaults(heart_small):
    """A pickle from before min_leaf and smooth_pure_nodes existed predicted as before, but get_params, clone,
    repr and a refit raised AttributeError (QA 2026-12-05, pickles of four older commits). Such a pickle is this
    class's state without the attributes those versions did not set."""
    import pickle

    from sklearn.base import clone

    X, y, _ = heart_small
    est = OLCTClassifier(depth=1, time_limit=10).fit(X, y)
    state = est.__getstate__()
    for name in ("min_leaf", "smooth_pure_nodes"):
        del state[name]
    old = OLCTClassifier.__new__(OLCTClassifier)
    old.__setstate__(state)
    back = pickle.loads(pickle.dumps(old))
    assert back.get_params()["min_leaf"] == 0 and back.get_params()["smooth_pure_nodes"] is False
    assert clone(back).get_params() == est.get_params() and "OLCTClassifier(" in repr(back)
    assert np.array_equal(back.predict(X), est.predict(X))
