"""Fourth mutation pass over OLCTClassifier and its subclasses (estimator.py), QA 2026-12-07: behaviour hand-made
mutants (/tmp/qa187/mut) could change while the estimator tests passed. Each test names the mutant(s) it kills; none
was a bug seen in olctc. Real data (heart's 40-row subset), HiGHS in process, one thread, depth 1; the parameter and
label errors come before any solve.

Of 86 mutants, 28 died in the targeted tests (the three earlier gaps files, test_qa_python_api_inputs.py) and 35 in
test_estimator.py, test_qa_estimator.py or test_qa_estimator_labels.py. Left alive: equivalent, an ndarray C or a
numpy-int budget passed on as given (make_spec normalises both), a name mismatch raised as OlctcError (a ValueError,
same words), dunder attributes counted as fitted (fit sets none), the ndarray clause of _generic_column_names (an
array has no columns), feature_names_in_ overwritten by frame names (validate_data set the same ones); untested,
threads not passed on (only HiGHS's log shows it, and its thread pool is per process), a LeafTooSmall without a start
tree (no fit found that raises it), and the false-claim warning chosen without asking which tree was kept (m82: in
the case it changes, the solver's tree kept after a contradicted optimum, olctc says "the solver stopped ... before
proving the tree optimal" and the mutant "the tree is the warm start": neither is what happened, so neither is pinned).
"""
from __future__ import annotations

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.estimator import MARGOTClassifier, OCTHClassifier, OLCTClassifier

from test_estimator_cv_mutation_gaps import est, heart_small  # noqa: F401  (a fixture: heart_40's rows)
from test_estimator_cv_mutation_gaps2 import Frame
from test_estimator_mutation_gaps3 import fit_warning


@pytest.fixture(scope="module")
def named(heart_small) -> tuple[OLCTClassifier, list[str]]:  # noqa: F811
    """A depth-1 fit on a frame-like X with column names f0..f12, scoring class 0 (positive_class=0)."""
    X, y = heart_small
    names = [f"f{k}" for k in range(X.shape[1])]
    return est(C=10.0, positive_class=0).fit(Frame(X, names), y), names


# ------------------------------------------------------------------------------------------- tags, parameters

def test_a_highs_margot_is_refused_as_a_miqp(heart_small) -> None:  # noqa: F811
    # Mutant: the message lost "(quadratic objective)" (m09), the words that say why HiGHS cannot solve it.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"^The 'solver' parameter must be None or one of scip, .* for preset "
                                         r"'margot', a MIQP \(quadratic objective\)\. Got 'highs' instead\.$"):
        OLCTClassifier(preset="margot", solver="highs", depth=1).fit(X, y)


def test_an_object_array_holding_the_least_int64_is_an_int_target(heart_small) -> None:  # noqa: F811
    # Mutant: the int64 range check excluding its least value (m65): the object array stayed object, and
    # scikit-learn refused it as an unknown target type, though every label fits int64.
    X, y = heart_small
    least = int(np.iinfo(np.int64).min)
    m = est().fit(X, np.array([least if v else 0 for v in y], dtype=object))
    assert m.classes_.dtype == np.int64 and m.classes_.tolist() == [least, 0]


def test_a_refit_without_warm_start_starts_afresh(heart_small) -> None:  # noqa: F811
    # Mutant: the fitted tree taken as the start whatever warm_start said (m14): a refit of warm_start=False went on
    # from the last tree, and one on other labels was refused as warm_start's "other classes".
    X, y = heart_small
    m = est(C=10.0).fit(X, y)
    m.fit(X, y)
    assert m.summary_["warm_start_from"] == "greedy tree"
    m.fit(X, np.where(y == 1, "sick", "well"))
    assert m.classes_.tolist() == ["sick", "well"] and m.summary_["warm_start_from"] == "greedy tree"


def test_warm_start_must_be_a_boolean(heart_small) -> None:  # noqa: F811
    # Mutant: warm_start left out of check_flags (m85): "no" (bool("no") is True) started the next fit from the
    # fitted tree silently.
    X, y = heart_small
    with pytest.raises(OlctcError, match=r"^The 'warm_start' parameter must be True or False\. Got 'no' instead\.$"):
        est(warm_start="no").fit(X, y)


@pytest.mark.parametrize("cls", [MARGOTClassifier, OCTHClassifier])
def test_a_too_short_time_limit_names_the_class_given(heart_small, cls) -> None:  # noqa: F811
    # Mutant: the refusal's words naming OLCTClassifier whatever the class (m91).
    X, y = heart_small
    with pytest.raises(OlctcError, match=rf"^{cls.__name__}: the 'time_limit' parameter is too short: "):
        cls(depth=1, time_limit=0.01).fit(X, y)


# ------------------------------------------------------------------------------------------- predicting

def test_feature_name_mismatch_says_which_names_came_and_which_were_fitted(named, heart_small) -> None:  # noqa: F811
    # Mutant: the message's two lists swapped (m34): the names of the X given were called the fitted ones.
    m, names = named
    X, _ = heart_small
    got = names[::-1]
    with pytest.raises(ValueError, match=rf"^The feature names should match those that were passed during fit: got "
                                         rf"{got!r}, fitted with {names!r}$".replace("[", r"\[").replace("]", r"\]")):
        m.predict(Frame(X, got))


def test_predict_refuses_missing_values(named, heart_small) -> None:  # noqa: F811
    # Mutant: predict's check of X let NaN through (m78): the row's score was NaN, predicted as the negative class
    # with probability NaN, where scikit-learn's estimators refuse the row.
    m, names = named
    X, _ = heart_small
    X = X.copy()
    X[3, 2] = np.nan
    for method in (m.predict, m.predict_proba, m.decision_function, m.apply):
        with pytest.raises(ValueError, match=r"^Input X contains NaN\."):
            method(Frame(X, names))


# ------------------------------------------------------------------------------------------- export_tree

@pytest.fixture(scope="module")
def weighted(heart_small) -> OLCTClassifier:  # noqa: F811
    """A depth-1 fit on text labels with class_weight: 'sick' (the negative class, code 0) weighs 2."""
    X, y = heart_small
    return est(class_weight={"sick": 2.0}).fit(X, np.where(y == 1, "sick", "well"))


def test_exported_class_weights_are_keyed_by_label_each_time(weighted) -> None:
    # Mutants: the exported records' class_weights left keyed by the fit's codes '0' and '1' (m49), or the tree's
    # meta copied shallowly (m47): the first export rewrote the estimator's own records to labels, and the second
    # failed reading 'sick' as a code.
    for _ in range(2):
        t = weighted.export_tree()
        assert t.classes == ("sick", "well")
        for record in ("fit", "data"):
            assert t.meta[record]["class_weights"] == {"sick": 2.0, "well": 1.0}
    assert weighted.tree_.meta["fit"]["class_weights"] == {"0": 2.0, "1": 1.0}


def test_class_weights_of_boolean_labels_are_keyed_0_and_1(heart_small) -> None:  # noqa: F811
    # Mutants: the records' labels not made plain Python values (m50), or _py_label leaving bools alone (m69): bool
    # labels keyed 'False' and 'True', and exported as bools, though a tree holds 0 and 1 (export_tree's docs).
    X, y = heart_small
    m = est(class_weight={True: 2.0}).fit(X, y.astype(bool))
    t = m.export_tree()
    assert t.classes == (0, 1) and [type(c) for c in t.classes] == [int, int]
    assert m.summary_["class_weights"] == {"0": 1.0, "1": 2.0}
    assert t.meta["fit"]["class_weights"] == {"0": 1.0, "1": 2.0}


# ------------------------------------------------------------------------------------------- ONNX

def test_onnx_labels_of_a_boolean_target_are_int64(heart_small) -> None:  # noqa: F811
    # Mutant: bool classes_ left out of the integer labels (m74): the graph gave the text labels '0' and '1',
    # where the tree and the other exports give the integers 0 and 1.
    to_onnx = pytest.importorskip("skl2onnx").to_onnx
    import onnxruntime as ort

    X, y = heart_small
    m = est().fit(X, y.astype(bool))
    model = to_onnx(m, X[:1], options={id(m): {"zipmap": False}})
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X})
    assert label.dtype == np.int64
    np.testing.assert_array_equal(label, m.predict(X).astype(np.int64))
    np.testing.assert_allclose(proba, m.predict_proba(X), atol=1e-12)


def test_onnx_converts_an_octh_classifier(heart_small) -> None:  # noqa: F811
    # Mutant: OCTHClassifier left out of skl2onnx's registry (m84): to_onnx refused it as an unknown model, though
    # its docstring and the module's say the estimators (all three) convert.
    to_onnx = pytest.importorskip("skl2onnx").to_onnx
    import onnxruntime as ort

    X, y = heart_small
    m = OCTHClassifier(depth=1, threads=1, time_limit=20).fit(X, y)  # proven optimal in about 2 s
    model = to_onnx(m, X[:1], options={id(m): {"zipmap": False}})
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    label, _ = sess.run(None, {sess.get_inputs()[0].name: X})
    np.testing.assert_array_equal(label, m.predict(X))


# ------------------------------------------------------------------------------------------- the fit's warning

def test_a_false_infeasible_says_the_warm_start_disproves_it() -> None:
    # Mutants: the warning of a solver calling the model infeasible lost "which the warm start disproves" (m81), the
    # reason a tree came back at all, or named OLCTClassifier whatever the class (m89).
    summary = {"status": "feasible", "gap": None, "raw_status": "Infeasible", "solution_from": "warm start",
               "solver": "cbc", "solver_status": "infeasible"}
    assert fit_warning(OCTHClassifier(), summary) == (
        "OCTHClassifier: cbc called the model infeasible (Infeasible), which the warm start disproves; the tree is the "
        "warm start (a heuristic tree), not proven optimal (MIP gap unknown). solver='highs' proves these models; "
        "summary_['status'] is 'feasible'")


def test_a_false_optimum_whose_tree_is_kept_does_not_blame_the_time_limit() -> None:
    # m82's neighbourhood: a solver's "optimal" that the data route worse (finish records it feasible), its tree
    # kept, said "the solver stopped (Optimal) before proving the tree optimal ... A larger time_limit may give a
    # better tree": the solver did not stop, and more time would not help.
    summary = {"status": "feasible", "gap": 0.03, "raw_status": "Optimal", "solution_from": "cbc",
               "solver": "cbc", "solver_status": "optimal"}
    assert fit_warning(OLCTClassifier(time_limit=30), summary) == (
        "OLCTClassifier: cbc called its tree optimal (Optimal) but the data route that tree worse than its objective "
        "says; the tree is the solver's, not proven optimal (MIP gap 3%). solver='highs' proves these models; "
        "summary_['status'] is 'feasible'")
