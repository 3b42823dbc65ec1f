"""QA: the ONNX export runs the same on more than the onnxruntime the other tests use.

``onnx.reference.ReferenceEvaluator`` (the onnx package's pure-Python runtime) must give the same labels
as onnxruntime and ``Tree.predict`` on every variant of the graph: depth 1 (no routing), depths 2-6,
numeric input, one string input per categorical column (unseen categories included), mixed columns with
hostile names, every label type (int64, double, string), subnormal/huge weights, no features, 0 and 1 rows.

The declared versions are pinned: ir_version 9 and opset 19, and every operator resolving to the version
onnxruntime 1.16 implements. Measured by hand (not in CI): onnxruntime 1.16.3-1.32 (Python) and
onnxruntime-node/-web 1.30 run every variant; 1.15.x refuses the graph ("Could not find an implementation
for Reshape(19)", and "Equal(19)" with a text column). Raising the opset or an operator's version
would drop those runtimes: change the pins below only together with the documented minimum.
"""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from olctc.export.onnx import OPSET, feeds, session, to_onnx
from olctc.tree import Tree
from test_tree import dataset, greedy_tree, hostile_dataset, raw_cells

# Operator versions opset 19 resolves to for every node olctc emits; all implemented by onnxruntime 1.16.
OP_VERSIONS = {"Add": 14, "Cast": 19, "Concat": 13, "Equal": 19, "Exp": 13, "GatherElements": 13, "Gemm": 13,
               "Greater": 13, "Neg": 13, "Reciprocal": 13, "Reshape": 19, "Split": 18, "Sub": 14,
               "Unsqueeze": 13, "Where": 16}
IR_VERSION = 9  # onnxruntime >= 1.15 reads IR 9


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


@pytest.mark.parametrize("name", ["heart-2", "tic-tac-toe-2", "haberman-1", "hostile-3"])
def test_declared_versions_are_what_onnxruntime_1_16_reads(name):
    tree, _, _ = _variant(name)
    model = to_onnx(tree)
    assert OPSET == 19
    assert model.ir_version == IR_VERSION
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 19)]  # no ai.onnx.ml, no custom domain
    used = {n.op_type: onnx.defs.get_schema(n.op_type, OPSET, n.domain).since_version for n in model.graph.node}
    assert all(n.domain == "" for n in model.graph.node)
    assert used.items() <= OP_VERSIONS.items(), used
    # the metadata an external runtime's user reads to build feeds
    props = {p.key: p.value for p in model.metadata_props}
    assert {"olctc.classes", "olctc.columns", "olctc.input_layout"} <= set(props)


def test_inputs_are_only_double_or_string_tensors():
    # onnxruntime-node/-web take these as Float64Array and string[] tensors; no int64/bool inputs needed
    for name in ("heart-2", "tic-tac-toe-2", "hostile-3"):
        tree, _, _ = _variant(name)
        types = {i.type.tensor_type.elem_type for i in to_onnx(tree).graph.input}
        assert types <= {onnx.TensorProto.DOUBLE, onnx.TensorProto.STRING}, (name, types)
