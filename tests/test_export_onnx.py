"""ONNX export: onnxruntime agrees with Tree on every vendored data set; the graph is checked and
loop-free; categorical columns come in as strings, one input per column."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from olctc.data import Column, Schema
from olctc.errors import OlctcError
from olctc.export.onnx import feeds, session, to_onnx
from olctc.tree import Tree
from test_tree import cases, dataset, greedy_tree, hostile_dataset, raw_cells, tree_for

ROUTING_OPS = {"Gemm", "Gather", "Reshape", "Greater", "Where", "Unsqueeze", "GatherElements", "Neg", "Exp", "Add",
               "Reciprocal", "Sub", "Concat", "Equal", "Cast", "LabelEncoder"}


def _run(tree, X: np.ndarray, cells=None):
    sess = session(to_onnx(tree))
    if tree.schema.is_numeric:
        return sess.run(None, feeds(tree, X))
    return sess.run(None, feeds(tree, cells=cells if cells is not None else raw_cells(tree.schema, X)))


def _check(tree, X, label, proba) -> None:
    expected = tree.predict(X)
    assert label.shape == (X.shape[0],) and proba.shape == (X.shape[0], 2)
    assert label.tolist() == expected.tolist()  # 100% of rows
    assert proba.dtype == np.float64
    assert np.abs(proba - tree.predict_proba(X)).max() <= 1e-9


@pytest.mark.parametrize("name,depth", cases())
def test_every_data_set_agrees_with_tree(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    label, proba = _run(tree, ds.X)
    _check(tree, ds.X, label, proba)


def test_graph_is_checked_loop_free_and_documented():
    for name, depth in [("breast", 3), ("tic-tac-toe", 2)]:
        model = to_onnx(tree_for(name, depth))
        onnx.checker.check_model(model, full_check=True)
        ops = {n.op_type for n in model.graph.node}
        assert ops <= ROUTING_OPS and not ops & {"Loop", "Scan", "If"}
        assert sum(n.op_type == "Gemm" for n in model.graph.node) == 1  # all nodes' splits at once
        assert sum(n.op_type == "Where" for n in model.graph.node) == 2 ** (depth - 1)  # routing + label
        assert [o.name for o in model.graph.output] == ["label", "probabilities"]
        props = {p.key: p.value for p in model.metadata_props}
        assert "olctc.input_layout" in props and "olctc.columns" in props


def test_numeric_input_layout_and_batch_sizes():
    tree, ds = tree_for("breast", 3), dataset("breast")
    model = to_onnx(tree)
    (inp,) = model.graph.input
    assert inp.name == "input" and inp.type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    dims = inp.type.tensor_type.shape.dim
    assert dims[0].dim_param == "N" and dims[1].dim_value == 30
    sess = session(model)
    for n in (1, 2, 17, ds.n):
        label, proba = sess.run(None, {"input": ds.X[:n]})
        _check(tree, ds.X[:n], label, proba)
    big = np.repeat(ds.X, 20, axis=0)  # ~11k rows in one call
    label, proba = sess.run(None, {"input": big})
    _check(tree, big, label, proba)


def test_categorical_inputs_one_per_column_as_strings():
    tree, ds = tree_for("tic-tac-toe", 3), dataset("tic-tac-toe")
    model = to_onnx(tree)
    assert [i.name for i in model.graph.input] == [c.name for c in ds.schema.columns]
    assert {i.type.tensor_type.elem_type for i in model.graph.input} == {onnx.TensorProto.STRING}
    cells = raw_cells(ds.schema, ds.X)
    sess = session(model)
    label, proba = sess.run(None, feeds(tree, cells=cells))
    assert label.dtype == object and set(label.tolist()) <= {"negative", "positive"}
    _check(tree, ds.X, label, proba)
    # text is compared as given: padded, other case, empty or unknown is an unseen category and encodes as
    # zeros, as Schema.encode does
    cells = {k: ["?", " x", "X", "", "x ", "o\x00"] for k in cells}
    label, proba = sess.run(None, feeds(tree, cells=cells))
    Z = tree.encode(cells)
    assert (Z == 0).all()
    _check(tree, Z, label, proba)


@pytest.mark.parametrize("classes,elem,dtype", [
    ((0, 1), onnx.TensorProto.INT64, np.int64),
    ((-1, 1), onnx.TensorProto.INT64, np.int64),
    ((0.5, 2.25), onnx.TensorProto.DOUBLE, np.float64),
    (("no", "yes"), onnx.TensorProto.STRING, object),
    ((3, "not 3"), onnx.TensorProto.STRING, object),
])
def test_label_output_types(classes, elem, dtype):
    ds = dataset("heart")
    tree = greedy_tree(ds, 2)
    tree.classes = classes
    model = to_onnx(tree)
    assert model.graph.output[0].type.tensor_type.elem_type == elem
    label, proba = session(model).run(None, {"input": ds.X})
    assert label.dtype == dtype
    assert label.tolist() == [c if isinstance(c, (int, float)) and dtype != object else str(c)
                              for c in tree.predict(ds.X).tolist()]


def test_hostile_names_and_labels(tmp_path):
    marker = tmp_path / "pwned"
    # a NUL in an input's name: exported, the model ran in Python but not in onnxruntime-node, -web, Java or C#
    with pytest.raises(OlctcError, match=r"^column '\\r\\x00\\u2028\\x0c' holds a NUL character, at which "):
        to_onnx(greedy_tree(hostile_dataset(str(marker)), 3))
    ds = hostile_dataset(str(marker), nul=False)
    tree = greedy_tree(ds, 3)
    model = to_onnx(tree)
    names = [i.name for i in model.graph.input]
    assert names == list(dict.fromkeys(c.name for c in ds.schema.columns))  # 'dup' is one shared input
    # 'olctc.X' is a column: internal values moved to a prefix no column starts with
    internal = {o for n in model.graph.node for o in n.output} - {"label", "probabilities"}
    assert not internal & set(names)
    label, proba = session(model).run(None, feeds(tree, cells=raw_cells(ds.schema, ds.X)))
    _check(tree, ds.X, label, proba)
    assert set(label.tolist()) <= set(tree.classes)
    assert not marker.exists()


def test_columns_that_cannot_be_onnx_inputs():
    def tree_with(cols):
        schema = Schema(tuple(cols))
        return Tree.from_arrays(np.ones((1, schema.n_features)), [0.0], schema=schema)

    with pytest.raises(OlctcError, match="column 'label' has the name of an ONNX output"):
        to_onnx(tree_with([Column("label", "numeric"), Column("c", "categorical", ("u", "v"))]))
    with pytest.raises(OlctcError, match="column 'c' appears twice with different kinds"):
        to_onnx(tree_with([Column("c", "numeric"), Column("c", "categorical", ("u", "v"))]))
    # all-numeric trees take one matrix: any column names are fine there
    label, _ = session(to_onnx(tree_with([Column("label", "numeric")]))).run(None, {"input": np.ones((2, 1))})
    assert label.tolist() == [1, 1]


def test_text_that_is_not_unicode_is_refused_in_one_line():
    # A lone surrogate (from Tree.from_arrays, or spelled "\ud800" in a JSON file) has no UTF-8 form:
    # protobuf's UnicodeEncodeError came out as a traceback.
    schema = Schema((Column("n", "numeric"), Column("c\ud800", "categorical", ("u", "v"))))
    with pytest.raises(OlctcError, match=r"^the name of column 1, 'c\\ud800', is not valid Unicode text .*ONNX"):
        to_onnx(Tree.from_arrays(np.ones((1, 3)), [0.0], schema=schema))
    with pytest.raises(OlctcError, match=r"^the negative class 'no\\udc80' is not valid Unicode text"):
        to_onnx(Tree.from_arrays(np.ones((1, 2)), [0.0], classes=("no\udc80", "yes")))
    # the same tree with valid labels exports and runs
    label, _ = session(to_onnx(Tree.from_arrays(np.ones((1, 2)), [0.0], classes=("no", "yes")))).run(
        None, {"input": np.ones((1, 2))})
    assert label.tolist() == ["yes"]
