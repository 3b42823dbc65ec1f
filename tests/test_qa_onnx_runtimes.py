"""QA: the ONNX export runs the same on more than the onnxruntime the other tests use.

``onnx.reference.ReferenceEvaluator`` (the onnx package's pure-Python runtime) must give the same labels
as onnxruntime and ``Tree.predict`` on every variant of the graph: depth 1 (no routing), depths 2-6,
numeric input, one string input per categorical column (unseen categories included), mixed columns with
hostile names, every label type (int64, double, string), subnormal/huge weights, no features, 0 and 1 rows.

The declared versions are pinned: every tree declares opset 13 / ir_version 7, every node resolving to a
version <= 13; a tree with a text column also declares ai.onnx.ml 2, for the LabelEncoder that maps its text to
category indices (``Equal`` on strings, the earlier encoding, needs opset 19 / IR 9, which onnxruntime < 1.16
refuses). Measured by hand (not in CI), every variant below plus odd-categories-3 with NULs in the fed values,
same labels and probabilities identical to onnxruntime 1.32's (and to the opset-19 string-``Equal`` graph's):
onnxruntime 1.8.0 (Python 3.8), 1.10.0 (3.9), 1.12.1 and 1.14.1 (3.10), 1.15.1 and 1.16.3 (3.11), 1.32;
onnxruntime-node 1.10.0, 1.14.0, 1.15.1, 1.16.0, 1.17.0, 1.20.1 and 1.30.0 likewise, onnxruntime-web 1.30.0
within 5e-16 (node and web cut a fed string at a NUL, with either encoding). Routing rows are taken by
``Gather``: a bool ``Split`` has no kernel in onnxruntime 1.8-1.12. Raising an opset or an operator's
version would drop those runtimes: change the pins below only together with the documented minimum.
"""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from olctc.export.onnx import IR_VERSION, ML_DOMAIN, ML_OPSET, OPSET, feeds, opset_for, session, to_onnx
from olctc.data import Column, Schema
from olctc.tree import Tree
from test_tree import dataset, greedy_tree, hostile_dataset, raw_cells

# The version every node olctc emits resolves to at the declared opsets (13, ai.onnx.ml 2): every tree
# runs on onnxruntime >= 1.8.
OP_VERSIONS = {"Add": 13, "Cast": 13, "Concat": 13, "Equal": 13, "Exp": 13, "Gather": 13, "GatherElements": 13,
               "Gemm": 13, "Greater": 13, "Neg": 13, "Pad": 13, "Reciprocal": 13, "Reshape": 13, "Sub": 13,
               "Unsqueeze": 13, "Where": 9, "LabelEncoder": 2}


def _imports(tree) -> list:
    """The opset imports a tree's export declares: ai.onnx.ml only with a text column (its LabelEncoder)."""
    return [("", 13)] + ([] if tree.schema.is_numeric else [("ai.onnx.ml", 2)])


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
    if name == "odd-categories-3":  # a category twice, none, odd texts, 3000 of them; unseen values
        many = tuple(f"c{i}" for i in range(3000))
        odd = ("é漢字", "a\x00b", "a", "", "y" * 100_000, " a")
        schema = Schema((Column("n", "numeric"), Column("dup", "categorical", ("a", "b", "a", "c", "b")),
                         Column("none", "categorical", ()), Column("odd", "categorical", odd),
                         Column("many", "categorical", many)))
        tree = Tree.from_arrays(rng.normal(size=(7, schema.n_features)), rng.normal(size=7), schema=schema)
        n = 300
        pick = lambda values: [values[i] for i in rng.integers(0, len(values), n)]  # noqa: E731
        cells = {"n": rng.normal(size=n).tolist(), "dup": pick(["a", "b", "c", "A", "", " a", "a "]),
                 "none": pick(["", "a", "?"]), "odd": pick(odd + ("a\x00", "ab", "y" * 99_999, "É漢字")),
                 "many": pick(many + ("c3000", "C1", "c01", "c1 "))}
        return tree, tree.encode(cells), cells
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


VARIANTS = ["heart-2", "breast-3", "haberman-1", "tic-tac-toe-2", "hostile-3", "odd-categories-3", "labels-double", "labels-string",
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
    assert [(o.domain, o.version) for o in model.opset_import] == _imports(tree)
    assert model.ir_version == 7
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
    # the comparison above is sharp enough to notice one changed weight in the exported model. The weight is
    # a last-layer node's (the root's only routes, and liblinear's greedy tree varies from run to run: a 1.5x
    # root weight once moved no point across the split, and the CI run failed)
    tree, X, _ = _variant("breast-3")
    model = to_onnx(tree)
    (W,) = [i for i in model.graph.initializer if i.name.endswith("W")]
    w = numpy_helper.to_array(W).copy()
    counts = np.bincount(tree.apply(X), minlength=tree.n_nodes)
    leaf = max((t for t in range(tree.n_nodes) if counts[t] and np.abs(w[t]).max() > 0), key=lambda t: counts[t])
    j = int(np.argmax(np.abs(w[leaf])))
    w[leaf, j] *= 1.5
    W.CopyFrom(numpy_helper.from_array(w, W.name))
    r_label, r_proba = ReferenceEvaluator(model).run(None, feeds(tree, X))
    assert np.abs(r_proba - tree.predict_proba(X)).max() > 1e-3


@pytest.mark.parametrize("name", ["heart-2", "tic-tac-toe-2", "haberman-1", "hostile-3", "odd-categories-3",
                                  "no-features-2"])
def test_declared_versions_are_the_oldest_runtimes_read(name):
    tree, _, _ = _variant(name)
    model = to_onnx(tree)
    assert (OPSET, ML_OPSET, IR_VERSION, ML_DOMAIN) == (13, 2, 7, "ai.onnx.ml")
    assert opset_for(tree) == (13, 7)
    assert model.ir_version == 7
    assert [(o.domain, o.version) for o in model.opset_import] == _imports(tree)  # no other domain
    onnx.checker.check_model(model, full_check=True)
    imports = dict(_imports(tree))
    used = {n.op_type: onnx.defs.get_schema(n.op_type, imports[n.domain], n.domain).since_version
            for n in model.graph.node}
    assert {n.domain for n in model.graph.node} == set(imports)
    assert used.items() <= OP_VERSIONS.items(), used
    assert max(used.values()) <= 13
    if not tree.schema.is_numeric:  # the text encoding: LabelEncoder (ai.onnx.ml 2), then Equal on int64
        assert used["LabelEncoder"] == 2 and used["Equal"] == 13
        assert all(n.domain == ML_DOMAIN for n in model.graph.node if n.op_type == "LabelEncoder")
        assert {i.data_type for i in model.graph.initializer} <= {
            onnx.TensorProto.DOUBLE, onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.STRING}
    # the metadata an external runtime's user reads to build feeds
    props = {p.key: p.value for p in model.metadata_props}
    assert {"olctc.classes", "olctc.columns", "olctc.input_layout"} <= set(props)


def test_ir_version_is_the_lowest_the_opsets_allow():
    # onnx's table of releases: the first IR version that carries opset 13 and ai.onnx.ml 2
    assert IR_VERSION == min(r[1] for r in onnx.helper.VERSION_TABLE if r[2] >= 13 and r[3] >= 2) == 7


@pytest.mark.parametrize("name", ["breast-3", "tic-tac-toe-2"])
def test_a_higher_opset_changes_nothing(name):
    # every operator keeps its semantics at opset 19 (IR 9): re-declared there, the same outputs, bit for bit
    tree, X, cells = _variant(name)
    model = to_onnx(tree)
    label, proba = session(model).run(None, _feeds(tree, X, cells))
    model.opset_import[0].version, model.ir_version = 19, 9
    onnx.checker.check_model(model, full_check=True)
    label19, proba19 = session(model).run(None, _feeds(tree, X, cells))
    assert label.tolist() == label19.tolist() and np.array_equal(proba, proba19)


@pytest.mark.parametrize("name", ["tic-tac-toe-2", "hostile-3", "odd-categories-3"])
def test_the_text_encoding_is_schema_encode_exactly(name):
    # the text graph fed raw cells gives, bit for bit, what the numeric graph of the same weights gives
    # fed Schema.encode's matrix: the LabelEncoder + Equal one-hot is that matrix (unseen values, a category
    # listed twice, an empty category list, NULs and 100,000-character categories included)
    tree, X, cells = _variant(name)
    twin = Tree.from_arrays(tree.W_raw, tree.b_raw, classes=tree.classes)
    assert np.array_equal(twin.W_raw, tree.W_raw) and np.array_equal(twin.b_raw, tree.b_raw)
    label, proba = session(to_onnx(tree)).run(None, feeds(tree, cells=cells))
    label_n, proba_n = session(to_onnx(twin)).run(None, feeds(twin, X))
    assert label.tolist() == label_n.tolist() and np.array_equal(proba, proba_n)


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
