"""ONNX and Python exports, second mutation pass (QA 2026-12-07): behaviour of olctc/export/onnx.py, python.py,
__init__.py and _names.py that a hand-written mutant could change without any other test noticing. Every graph runs
in onnxruntime and every generated module in a fresh interpreter (``python -I -S``) or exec'd in process."""
from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

import olctc
from olctc.data import Column, Schema
from olctc.errors import OlctcError
from olctc.export.onnx import feeds, session, to_onnx
from olctc.export.python import to_python
from olctc.tree import Tree
from test_export_onnx import _run


def _mixed(names: tuple[str, ...] = ("u", "c"), classes: tuple = ("neg", "pos")) -> Tree:
    """Depth 1 on a numeric column and a categorical one (a, b): score = 2u + 1 [c=a] - 3 [c=b]."""
    schema = Schema((Column(names[0], "numeric"), Column(names[1], "categorical", ("a", "b"))))
    return Tree.from_arrays([[2.0, 1.0, -3.0]], [0.0], schema=schema, classes=classes)


# ---------------------------------------------------------------- ONNX graph

def test_onnx_tree_without_features_multiplies_one_padded_zero_column():
    # mutant: the no-feature branch dropped. onnxruntime >= 1.20 runs Gemm with K = 0, but the documented
    # minimum, 1.8, refuses it: the graph must pad X to one column and give W one zero column
    tree = Tree.from_arrays(np.zeros((3, 0)), [1.0, -1.0, 2.0], classes=("n", "p"))
    model = to_onnx(tree)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    assert inits["olctc.W"].shape == (3, 1) and not inits["olctc.W"].any()
    assert [n.op_type for n in model.graph.node].count("Pad") == 1
    label, proba = session(model).run(None, {"input": np.zeros((4, 0))})
    assert label.tolist() == ["p"] * 4 and proba.shape == (4, 2)


def test_onnx_internal_names_avoid_every_prefix_the_columns_take():
    # mutants: the prefix search stopped after one step ("olctc._" clashed with a column "olctc._X"), or
    # the prefix rebuilt instead of grown ("olctc_", which a column starts with: the search never ended)
    names = ("olctc.X", "olctc._X", "olctc__X", "olctc_X")
    schema = Schema(tuple(Column(n, "numeric") for n in names) + (Column("c", "categorical", ("a", "b")),))
    tree = Tree.from_arrays([[1.0, -1.0, 0.5, 0.25, 2.0, -2.0]], [0.1], schema=schema, classes=("neg", "pos"))
    model = to_onnx(tree)
    internal = {o for n in model.graph.node for o in n.output} | {i.name for i in model.graph.initializer}
    assert not internal & set(names)
    rng = np.random.default_rng(3)
    cells = {n: rng.normal(size=20).tolist() for n in names} | {"c": ["a", "b", "z", "a"] * 5}
    label, proba = _run(tree, None, cells)
    X = tree.encode(cells)
    assert label.tolist() == tree.predict(X).tolist()
    assert np.abs(proba - tree.predict_proba(X)).max() <= 1e-15


def test_onnx_refuses_an_empty_column_name_and_the_output_name_probabilities():
    # mutants: the empty-name check dropped; only 'label' taken for an output's name
    with pytest.raises(OlctcError, match=r"^column 1 has an empty name; ONNX inputs need names$"):
        to_onnx(_mixed(("u", "")))
    with pytest.raises(OlctcError, match=r"^column 'probabilities' has the name of an ONNX output \(label, "
                                         r"probabilities\); rename the column to export this tree to ONNX$"):
        to_onnx(_mixed(("probabilities", "c")))


def test_onnx_metadata_names_classes_columns_layout_producer_and_depth():
    # the model's properties are what a consumer without olctc reads to decode the outputs and build the inputs
    tree = _mixed(classes=(0, "yes"))
    model = to_onnx(tree)
    props = {p.key: p.value for p in model.metadata_props}
    assert json.loads(props["olctc.classes"]) == [0, "yes"]
    assert json.loads(props["olctc.columns"]) == [{"name": "u", "kind": "numeric"},
                                                  {"name": "c", "kind": "categorical", "categories": ["a", "b"]}]
    assert props["olctc.input_layout"] == "one (N, 1) input per column: double for numeric, string for categorical"
    numeric = {p.key: p.value for p in to_onnx(Tree.from_arrays([[1.0]], [0.0])).metadata_props}
    assert numeric["olctc.input_layout"] == "single 'input' (N, n_features) double"
    assert (model.producer_name, model.producer_version) == ("olctc", olctc.__version__)
    deep = to_onnx(Tree.from_arrays(np.ones((7, 1)), np.zeros(7)))
    assert deep.doc_string == "olctc oblique classification tree, depth 3"


def test_onnx_float_and_int_labels_share_one_double_tensor():
    # mutant: int64 labels when any label is an int, so (0, 0.5) gave 0 for the positive class
    tree = Tree.from_arrays([[1.0]], [0.0], classes=(0, 0.5))
    model = to_onnx(tree)
    assert model.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.DOUBLE
    label, _ = session(model).run(None, {"input": np.array([[-1.0], [1.0]])})
    assert label.dtype == np.float64 and label.tolist() == [0.0, 0.5] == tree.predict([[-1.0], [1.0]]).tolist()


def test_onnx_feeds_encode_numeric_cells_and_give_category_cells_as_text():
    # mutants: a numeric tree's cells ignored (X None), its matrix not made double; categorical cells passed
    # as given, not as their text (onnxruntime 1.32 str()s objects itself; other runtimes need the strings);
    # the message for a categorical schema without cells dropped
    numeric = Tree.from_arrays([[1.0, -1.0]], [0.0], feature_names=["u", "v"], classes=("n", "p"))
    got = feeds(numeric, cells={"v": [0.0, 3.0], "u": [2.0, 1.0]})
    assert list(got) == ["input"] and got["input"].tolist() == [[2.0, 0.0], [1.0, 3.0]]
    assert session(to_onnx(numeric)).run(None, got)[0].tolist() == ["p", "n"]
    ints = feeds(numeric, np.array([[2, 0], [1, 3]]))["input"]  # an int matrix: onnxruntime takes double only
    assert ints.dtype == np.float64 and session(to_onnx(numeric)).run(None, {"input": ints})[0].tolist() == ["p", "n"]
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("1", "2"))))
    tree = Tree.from_arrays([[0.0, 1.0, -1.0]], [0.0], schema=schema, classes=("n", "p"))
    cells = {"u": [0, 0, 0], "c": [1, 2, 3]}  # integer cells, as a CSV column of digits gives them
    assert feeds(tree, cells=cells)["c"].tolist() == [["1"], ["2"], ["3"]]  # the text the LabelEncoder compares
    label, _ = _run(tree, None, cells)
    assert label.tolist() == ["p", "n", "n"] == tree.predict(tree.encode(cells)).tolist()
    with pytest.raises(OlctcError, match=r"^a schema with categorical columns needs raw cells \(column -> values\)$"):
        feeds(tree, np.zeros((1, 3)))


def test_onnx_session_takes_the_given_options(tmp_path):
    # mutant: the options dropped; a caller's threads, logging or profiling settings silently ignored
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.enable_profiling = True
    options.profile_file_prefix = str(tmp_path / "olctc_profile")
    sess = session(to_onnx(Tree.from_arrays([[1.0]], [0.0])), options)
    sess.run(None, {"input": np.ones((2, 1))})
    profile = sess.end_profiling()
    assert profile and (tmp_path / profile).name.startswith("olctc_profile")


# ---------------------------------------------------------------- generated Python

def _module(tree: Tree) -> dict:
    """The generated module's namespace (standard library only: exec'd here as a fresh interpreter runs it)."""
    ns: dict = {}
    exec(compile(to_python(tree), "exported_tree.py", "exec"), ns)
    return ns


def test_python_quotes_a_bad_value_of_60_characters_whole_and_cuts_a_longer_one():
    # mutants: the limit taken as < 60 (a 60-character quote cut); the cut without its "..." mark
    tree = Tree.from_arrays([[1.0, -1.0]], [0.0], feature_names=["u", "v"])
    predict = _module(tree)["predict"]
    for text, shown in (("z" * 58, repr("z" * 58)), ("z" * 59, "'" + "z" * 56 + "...")):
        with pytest.raises(ValueError) as info:
            predict([text, 1.0])
        assert str(info.value) == f"column 0 ('u') must be a number, got {shown}"


def test_python_names_the_first_five_missing_columns():
    # mutant: the message listing four of them
    tree = Tree.from_arrays(np.ones((1, 7)), [0.0], feature_names=[f"f{j}" for j in range(7)])
    with pytest.raises(KeyError) as info:
        _module(tree)["predict"]({"f6": 1.0})
    assert info.value.args[0] == "missing input column(s): ['f0', 'f1', 'f2', 'f3', 'f4']"


def test_python_refuses_pandas_na_and_compares_categories_as_given():
    # mutants: pandas' NA (whose truth value raises) read as the category '<NA>'; categories compared
    # ignoring case. Schema.encode refuses NA and takes 'A' as an unseen category: the module must agree.
    pd = pytest.importorskip("pandas")
    tree = _mixed()
    ns = _module(tree)
    with pytest.raises(ValueError, match=r"^column 1 \('c'\) must be a category, got the missing value <NA>$"):
        ns["predict"]([1.0, pd.NA])
    with pytest.raises(OlctcError):
        tree.encode({"u": [1.0], "c": [pd.NA]})
    for cat, z in (("a", 1.0), ("A", 0.0), ("b", -3.0), ("B ", 0.0)):
        assert tree.decision_function(tree.encode({"u": [0.0], "c": [cat]}))[0] == z
        assert ns["decision_function"]([0.0, cat]) == z


def test_python_header_says_the_depth_and_exports_the_whole_api():
    # mutants: the header's depth from another number; __all__ without decision_function and apply; the
    # first last-layer node called a routing one
    tree = Tree.from_arrays(np.ones((7, 1)), np.zeros(7))
    src = to_python(tree)
    assert src.startswith(f"# Generated by olctc {olctc.__version__}: an oblique classification tree of depth 3.\n")
    ns = _module(tree)
    assert ns["__all__"] == ["FEATURES", "CLASSES", "predict", "predict_proba", "decision_function", "apply"]
    assert all(callable(ns[name]) for name in ns["__all__"][2:])
    # and each node's docstring says its role: nodes 0-2 route, 3-6 (the first last-layer one too) classify
    roles = [ns[f"_node_{t}"].__doc__.split(": ", 1)[1] for t in range(7)]
    assert roles == ["routes right iff the score is > 0."] * 3 + ["classifier: P(CLASSES[1]) = sigmoid(score)."] * 4


def test_python_note_is_wrapped_into_comment_lines_of_at_most_100_characters():
    # mutant: the note wrapped at 200 columns (one long line)
    import dataclasses

    tree = dataclasses.replace(Tree.from_arrays([[1.0]], [0.0]), meta={"spec": {"preset": "margot"}})
    head = to_python(tree).split('"""')[0].splitlines()
    note = head[[line.startswith("# Note: ") for line in head].index(True):]
    assert len(note) >= 3 and max(map(len, note)) <= 100
    assert " ".join(line[2:] for line in note) == f"Note: {tree.probability_note}."


# ---------------------------------------------------------------- the registry

def test_render_names_every_format_when_the_format_is_unknown():
    # mutant: the message without the list of formats (a user cannot tell what to type)
    from olctc.export import render

    with pytest.raises(OlctcError) as info:
        render(Tree.from_arrays([[1.0]], [0.0]), "xls")
    formats = "json, python, onnx, sql, text, dot, png, svg"
    assert str(info.value) == f"unknown export format 'xls'; expected one of {formats}"



def test_python_reads_bytes_cells_as_their_text_as_tree_predict_does():
    """Bytes (h5py's text) are their text under the rules of text, in the module as in Tree.encode: b'1_000' was
    1000 in the module (float() reads bytes), where '1_000' is refused."""
    from olctc.errors import OlctcError

    tree = Tree.from_arrays([[1.0, -1.0]], [0.0], feature_names=["u", "v"])
    predict = _module(tree)["predict"]
    assert predict([b"2.5", b" 1 "]) == predict([2.5, 1.0]) == tree.predict([[b"2.5", b" 1 "]])[0]
    with pytest.raises(ValueError, match=r"^column 0 \('u'\) must be a number, got '1_000'$"):
        predict([b"1_000", 1.0])
    with pytest.raises(OlctcError, match="expected a number, got '1_000'"):
        tree.encode({"u": [b"1_000"], "v": [b"1"]})
