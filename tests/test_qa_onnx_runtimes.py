"""QA: the ONNX export runs the same on more than the onnxruntime the other tests use.

``onnx.reference.ReferenceEvaluator`` (the onnx package's pure-Python runtime) must give the same labels
as onnxruntime and ``Tree.predict`` on every variant of the graph: depth 1 (no routing), depths 2-6,
numeric input, one string input per categorical column (unseen categories included), mixed columns with
hostile names, every label type (int64, double, string), subnormal/huge weights, no features, 0 and 1 rows.

The declared versions are pinned per tree kind: an all-numeric tree declares opset 13 / ir_version 7,
every node resolving to a version <= 13; a tree with a text column declares opset 19 / ir_version 9 (``Equal``
on strings exists only from opset 19). Measured by hand (not in CI), every variant below, same labels and
probabilities identical to onnxruntime 1.32's: onnxruntime 1.8.0 (Python 3.8), 1.10.0 (3.9), 1.12.1 and
1.14.1 (3.10), 1.15.1 (3.11) run every numeric variant and refuse the text ones (IR 9 before 1.15,
"Could not find an implementation for Equal(19)" in 1.15); 1.16.3 and 1.32 run all; onnxruntime-node 1.10,
1.14, 1.15.1, 1.16.0 and 1.30 likewise. Routing rows are taken by ``Gather``: a bool ``Split`` has no kernel
in onnxruntime 1.8-1.12. Raising an opset or an operator's version would drop those runtimes: change the
pins below only together with the documented minimum.
"""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from olctc.export.onnx import OPSET, OPSET_NUMERIC, OPSET_TEXT, feeds, opset_for, session, to_onnx
from olctc.tree import Tree
from test_tree import dataset, greedy_tree, hostile_dataset, raw_cells

# Per declared opset: the version every node olctc emits resolves to. Numeric trees (opset 13) run on
# onnxruntime >= 1.8; text trees (opset 19) on onnxruntime >= 1.16.
OP_VERSIONS = {
    13: {"Add": 13, "Concat": 13, "Exp": 13, "Gather": 13, "GatherElements": 13, "Gemm": 13, "Greater": 13,
         "Neg": 13, "Pad": 13, "Reciprocal": 13, "Reshape": 13, "Sub": 13, "Unsqueeze": 13, "Where": 9},
    19: {"Add": 14, "Cast": 19, "Concat": 13, "Equal": 19, "Exp": 13, "Gather": 13, "GatherElements": 13,
         "Gemm": 13, "Greater": 13, "Neg": 13, "Pad": 19, "Reciprocal": 13, "Reshape": 19, "Sub": 14,
         "Unsqueeze": 13, "Where": 16},
}
IR_VERSION = {13: 7, 19: 9}  # the lowest IR version each opset allows (onnx.helper.VERSION_TABLE)


def _variant(name: str, tmp_path=None):
    """(tree, encoded rows X, raw cells or None) for one variant of the graph."""
    rng = np.random.default_rng(7)
    if name in ("heart-2", "breast-3", "haberman-1"):
        ds_name, depth = name.split("-")
        ds = dataset(ds_name)
        return greedy_tree(ds, int(depth)), ds.X, None
    if name == "tic-tac-toe-2":  # string inputs, one per column; four rows of unseen categories
        ds = dataset("tic-tac-toe")
        tree = greedy_tree(ds, 2)
        cells = raw_cells(ds.schema, ds.X)
        cells = {k: v + ["?", " x", "X", ""] for k, v in cells.items()}
        return tree, tree.encode(cells), cells
    if name == "hostile-3":  # numeric + categorical, shared and odd input names, odd string labels
        ds = hostile_dataset("/nonexistent/olctc-marker", n=200, nul=False)
        cells = raw_cells(ds.schema, ds.X)
        return greedy_tree(ds, 3), ds.X, cells
    if name.startswith("labels-"):
        ds = dataset("heart")
        tree = greedy_tree(ds, 2)
        tree.classes = {"labels-double": (0.5, 2.25), "labels-string": ("no", "yes"),
                        "labels-mixed": (3, "not 3")}[name]
        return tree, ds.X, None
    if name == "random-6":
        n, p = 2 ** 6 - 1, 5
        W = rng.normal(size=(n, p)) * (rng.random((n, p)) < 0.6)
        W[rng.random(n) < 0.3] = 0.0
        return Tree.from_arrays(W, rng.normal(size=n)), rng.normal(size=(2000, p)) * 4, None
    if name == "extreme-2":  # subnormal products, +-1e308 intercepts, exp overflow
        tree = Tree.from_arrays([[1e-300, 0.0], [1e300, -1e300], [0.0, 5e-324]], [0.0, -1e308, 0.0])
        X = np.vstack([rng.normal(size=(50, 2)), [[1e-20, 1.0], [-1e-20, 0.0], [1e-20, 0.25], [1e-20, -1.0]]])
        return tree, X, None
    if name == "no-features-2":
        return Tree.from_arrays(np.zeros((3, 0)), [1.0, -1.0, 2.0]), np.zeros((4, 0)), None
    if name in ("rows-0", "rows-1"):
        ds = dataset("heart")
        return greedy_tree(ds, 3), ds.X[:int(name[-1])], None
    raise ValueError(name)


VARIANTS = ["heart-2", "breast-3", "haberman-1", "tic-tac-toe-2", "hostile-3", "labels-double", "labels-string",
            "labels-mixed", "random-6", "extreme-2", "no-features-2", "rows-0", "rows-1"]


def _feeds(tree, X, cells):
    return feeds(tree, X) if cells is None else feeds(tree, cells=cells)


def _expected_labels(tree, X, label_dtype) -> list:
    labels = tree.predict(X).tolist()
    return [str(v) for v in labels] if label_dtype == object else labels


@pytest.mark.parametrize("name", VARIANTS)
def test_reference_evaluator_agrees_with_onnxruntime_and_tree(name):
    tree, X, cells = _variant(name)
    if tree.n_nodes > 32 and np.lib.NumpyVersion(np.__version__) < "2.0.0":
        pytest.skip("onnx's ReferenceEvaluator runs a node choice by np.choose, which numpy 1 limits to 32 choices")
    model = to_onnx(tree)
    opset = OPSET_NUMERIC if tree.schema.is_numeric else OPSET_TEXT
    assert [(o.domain, o.version) for o in model.opset_import] == [("", opset)]
    assert model.ir_version == IR_VERSION[opset]
    onnx.checker.check_model(model, full_check=True)  # every node's schema exists at the declared opset
    f = _feeds(tree, X, cells)
    o_label, o_proba = session(model).run(None, f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "overflow in exp": exp(-z) = inf is meant
        r_label, r_proba = ReferenceEvaluator(model).run(None, f)
    expected, proba = _expected_labels(tree, X, o_label.dtype), tree.predict_proba(X)
    assert r_label.shape == o_label.shape == (X.shape[0],)
    assert r_proba.shape == o_proba.shape == (X.shape[0], 2)
    assert r_label.dtype == o_label.dtype and r_proba.dtype == o_proba.dtype == np.float64
    assert r_label.tolist() == o_label.tolist() == expected  # every row
    assert np.abs(r_proba - proba).max(initial=0) <= 1e-12
    assert np.abs(o_proba - proba).max(initial=0) <= 1e-12
    assert np.abs(r_proba - o_proba).max(initial=0) <= 1e-12


def test_reference_evaluator_sees_a_changed_weight():
    # the comparison above is sharp enough to notice one changed weight in the exported model
    tree, X, _ = _variant("breast-3")
    model = to_onnx(tree)
    (W,) = [i for i in model.graph.initializer if i.name.endswith("W")]
    w = numpy_helper.to_array(W).copy()
    j = int(np.argmax(np.abs(w[0])))
    w[0, j] *= 1.5
    W.CopyFrom(numpy_helper.from_array(w, W.name))
    r_label, r_proba = ReferenceEvaluator(model).run(None, feeds(tree, X))
    assert np.abs(r_proba - tree.predict_proba(X)).max() > 1e-3


@pytest.mark.parametrize("name", ["heart-2", "tic-tac-toe-2", "haberman-1", "hostile-3", "no-features-2"])
def test_declared_versions_are_the_oldest_runtimes_read(name):
    tree, _, _ = _variant(name)
    model = to_onnx(tree)
    opset = 13 if tree.schema.is_numeric else 19
    assert (OPSET_NUMERIC, OPSET_TEXT, OPSET) == (13, 19, 19)
    assert opset_for(tree) == (opset, IR_VERSION[opset])
    assert model.ir_version == IR_VERSION[opset]
    assert [(o.domain, o.version) for o in model.opset_import] == [("", opset)]  # no ai.onnx.ml, no custom domain
    used = {n.op_type: onnx.defs.get_schema(n.op_type, opset, n.domain).since_version for n in model.graph.node}
    assert all(n.domain == "" for n in model.graph.node)
    assert used.items() <= OP_VERSIONS[opset].items(), used
    assert max(used.values()) <= opset
    if tree.schema.is_numeric:
        # nothing in a numeric graph needs more than opset 13: the same graph checks at opset 13
        assert "Equal" not in used and max(used.values()) <= 13
    else:
        assert used["Equal"] == 19  # the one reason for opset 19
    # the metadata an external runtime's user reads to build feeds
    props = {p.key: p.value for p in model.metadata_props}
    assert {"olctc.classes", "olctc.columns", "olctc.input_layout"} <= set(props)


def test_ir_versions_are_the_lowest_each_opset_allows():
    # onnx's table of releases: the first IR version that carries each opset
    for opset, ir in IR_VERSION.items():
        assert ir == min(r[1] for r in onnx.helper.VERSION_TABLE if r[2] >= opset), (opset, ir)


def test_a_numeric_graph_is_the_text_graph_minus_the_encoding():
    # the opset is the only difference a numeric tree's graph has from what opset 19 would give: re-declaring
    # it at opset 19 (IR 9) gives the same outputs, bit for bit
    tree, X, _ = _variant("breast-3")
    model = to_onnx(tree)
    label, proba = session(model).run(None, feeds(tree, X))
    model.opset_import[0].version, model.ir_version = 19, 9
    onnx.checker.check_model(model, full_check=True)
    label19, proba19 = session(model).run(None, feeds(tree, X))
    assert label.tolist() == label19.tolist() and np.array_equal(proba, proba19)


def test_inputs_are_only_double_or_string_tensors():
    # onnxruntime-node/-web take these as Float64Array and string[] tensors; no int64/bool inputs needed
    for name in ("heart-2", "tic-tac-toe-2", "hostile-3"):
        tree, _, _ = _variant(name)
        types = {i.type.tensor_type.elem_type for i in to_onnx(tree).graph.input}
        assert types <= {onnx.TensorProto.DOUBLE, onnx.TensorProto.STRING}, (name, types)


def test_skl2onnx_pipeline_converts_at_opset_13():
    # skl2onnx's default is its newest opset (21 with skl2onnx 1.20): target_opset=13 reaches onnxruntime 1.8+
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from olctc.estimator import OLCTClassifier

    ds = dataset("heart")
    y = (ds.y > 0).astype(np.int64)
    rows = np.concatenate([np.flatnonzero(y == 1)[:30], np.flatnonzero(y == 0)[:30]])
    X, y = ds.X[rows], y[rows]
    pipe = make_pipeline(StandardScaler(), OLCTClassifier(depth=2, C=10, time_limit=10)).fit(X, y)
    model = skl2onnx.to_onnx(pipe, X[:1], options={id(pipe[-1]): {"zipmap": False}}, target_opset=13)
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 13)] and model.ir_version == 7
    onnx.checker.check_model(model, full_check=True)
    sess = session(model)
    label, proba = sess.run(None, {sess.get_inputs()[0].name: X})
    assert label.tolist() == pipe.predict(X).tolist()
    assert np.abs(proba - pipe.predict_proba(X)).max() <= 1e-12
