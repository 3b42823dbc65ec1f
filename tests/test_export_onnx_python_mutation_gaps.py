"""Ties at score 0, exact scores and probabilities, and the encoders of the ONNX graph and the generated Python:
behaviour a mutation pass over olctc/export/onnx.py and olctc/export/python.py (QA 2026-12-07) could change without
any other test noticing. The graph runs in onnxruntime, the module is exec'd with the standard library only."""
from __future__ import annotations

import numpy as np
import pytest

from olctc.data import Column, Schema
from olctc.tree import Tree
from test_export_mutation_gaps import _zero_tree
from test_export_mutation_gaps2 import _module
from test_export_onnx import _run
from test_tree import dataset, greedy_tree


def _tie_tree() -> Tree:
    """Depth 2: the root scores exactly 0 on every row; the left leaf scores -1, the right one +1."""
    return Tree.from_arrays(np.zeros((3, 2)), [0.0, -1.0, 1.0], classes=("no", "yes"))


def _python_rows(ns: dict, name: str, X: np.ndarray) -> list:
    """The generated module's function ``name`` on each row of X (rows as sequences)."""
    return [ns[name](row) for row in X.tolist()]


# ---------------------------------------------------------------- ties at score 0: left, the negative class

def test_a_split_scoring_exactly_0_routes_left_in_onnx_and_python():
    # mutants m21, m77: a routing node's tie taken as right (Greater -> GreaterOrEqual, <= -> <)
    tree, X = _tie_tree(), np.random.default_rng(0).normal(size=(20, 2))
    assert tree.apply(X).tolist() == [1] * 20 and tree.predict(X).tolist() == ["no"] * 20
    label, proba = _run(tree, X)
    assert label.tolist() == ["no"] * 20
    np.testing.assert_array_equal(proba, tree.predict_proba(X))
    ns = _module(tree)
    assert _python_rows(ns, "apply", X) == [1] * 20 and _python_rows(ns, "predict", X) == ["no"] * 20


def test_a_last_layer_score_of_exactly_0_predicts_the_negative_class_in_onnx_and_python():
    # mutants m28, m61: the label at z == 0 taken as the positive class (probabilities stay 0.5 either way)
    tree, X = _zero_tree(1), np.random.default_rng(1).normal(size=(10, 2))
    label, proba = _run(tree, X)
    assert label.tolist() == ["no"] * 10 == tree.predict(X).tolist()
    assert (proba == 0.5).all()
    assert _python_rows(_module(tree), "predict", X) == ["no"] * 10


# ---------------------------------------------------------------- the same bits as Tree

@pytest.fixture(scope="module")
def heart3() -> tuple[Tree, np.ndarray]:
    """A depth-3 greedy tree on heart and its rows."""
    ds = dataset("heart")
    return greedy_tree(ds, 3), ds.X


def test_python_scores_and_probabilities_are_the_trees_bits(heart3):
    # mutants m72, m73, m75: terms added in reverse order, weights or intercepts written at 15 significant
    # digits. Each is within 1e-9 of the tree (what the other tests check); the module promises the tree's
    # scores bit for bit. Its probabilities go through math.exp, which may differ from numpy's exp by an ulp.
    tree, X = heart3
    ns = _module(tree)
    assert _python_rows(ns, "decision_function", X) == tree.decision_function(X).tolist()
    assert np.abs(np.array(_python_rows(ns, "predict_proba", X)) - tree.predict_proba(X)).max() <= 1e-15


def test_python_terms_are_added_in_feature_order():
    # mutant m72 on a row where the order decides the bits: (1 + 1e16) - 1e16 = 0, 1 + (1e16 - 1e16) = 1
    tree = Tree.from_arrays([[1.0, 1.0, 1.0]], [0.0], feature_names=["a", "b", "c"])
    row = [1.0, 1e16, -1e16]
    assert tree.decision_function([row]).tolist() == [0.0]
    assert _module(tree)["decision_function"](row) == 0.0


@pytest.mark.parametrize("z", [-800.0, -40.0, 40.0, 800.0])
def test_python_probabilities_at_extreme_scores_are_the_trees(z: float):
    # mutants m63, m64: the negative branch as 1 - 1 / (1 + 1/e) (0.0 where the tree gives 4e-18 at z = -40);
    # exp(-z) unguarded (OverflowError at z = -800, where the tree gives [1, 0])
    tree = Tree.from_arrays([[1.0]], [0.0], feature_names=["u"])
    np.testing.assert_allclose(_module(tree)["predict_proba"]([z]), tree.predict_proba([[z]])[0], rtol=1e-14, atol=0)


# ---------------------------------------------------------------- rows and cells

def test_python_categories_listed_twice_set_both_columns_as_the_tree_does():
    # mutant m68: the categories compared in an if/elif chain, so a category listed twice set its first column
    # only; Schema.encode and the ONNX graph set both
    schema = Schema((Column("c", "categorical", ("a", "b", "a")),))
    tree = Tree.from_arrays([[1.0, 2.0, 4.0]], [-0.5], schema=schema, classes=("n", "p"))
    cells = {"c": ["a", "b"]}
    assert tree.decision_function(tree.encode(cells)).tolist() == [4.5, 1.5]
    ns = _module(tree)
    assert [ns["decision_function"]([c]) for c in cells["c"]] == [4.5, 1.5]
    label, _ = _run(tree, None, cells)
    assert label.tolist() == ["p", "p"]


def test_python_encodes_a_column_of_one_category_as_the_tree_does():
    # mutant m69: a column of a single category (all rows alike in training) written without its comparison
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("only",))))
    tree = Tree.from_arrays([[1.0, 2.0]], [-0.5], schema=schema, classes=("n", "p"))
    cells = {"u": [0.0, 0.0], "c": ["only", "only"]}
    assert tree.decision_function(tree.encode(cells)).tolist() == [1.5, 1.5]
    assert _module(tree)["predict"]([0.0, "only"]) == "p" == tree.predict(tree.encode(cells))[0]
    assert _module(tree)["decision_function"]([0.0, "only"]) == 1.5


def test_python_refuses_a_row_of_the_wrong_length_naming_both_lengths():
    # mutants m48, m49: a short row reached v[k] (IndexError); the message's numbers swapped
    ns = _module(Tree.from_arrays([[1.0, -1.0, 2.0]], [0.0], feature_names=["u", "v", "w"]))
    for row, n in (([1.0], 1), ([1.0] * 4, 4)):
        with pytest.raises(ValueError) as info:
            ns["predict"](row)
        assert str(info.value) == f"expected 3 values in FEATURES order, got {n}"


def test_python_node_docstrings_name_their_layer():
    # mutant m76: the layer (1 for the root, as the text export counts) written as the node's id
    ns = _module(Tree.from_arrays(np.ones((7, 1)), np.zeros(7)))
    layers = [ns[f"_node_{t}"].__doc__.split(": ", 1)[0] for t in range(7)]
    assert layers == [f"Node {t}, layer {layer}" for t, layer in enumerate((1, 2, 2, 3, 3, 3, 3))]

