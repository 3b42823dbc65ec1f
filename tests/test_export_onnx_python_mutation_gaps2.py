"""The ONNX feeds helper and the generated Python's category cells: behaviour the second run of the qa193 mutants
of olctc/export/onnx.py and olctc/export/python.py (QA 2026-12-07, qa194) could change without any other test
of those modules noticing. The graph runs in onnxruntime, the module is exec'd with the standard library only."""
from __future__ import annotations

import numpy as np
import pytest

from olctc.data import Column, Schema
from olctc.errors import OlctcError
from olctc.export.onnx import feeds, to_onnx
from olctc.tree import Tree
from test_export_mutation_gaps2 import _module
from test_export_onnx import _run


def _numbered() -> Tree:
    """A numeric column and a categorical one whose categories are digits, as a CSV column of codes reads."""
    schema = Schema((Column("u", "numeric"), Column("code", "categorical", ("1", "2"))))
    return Tree.from_arrays([[1.0, 2.0, -4.0]], [-0.5], schema=schema, classes=("n", "p"))


def test_onnx_feeds_of_a_numeric_tree_without_x_or_cells_is_refused():
    # mutant m37 (cells tested before X): feeds() with neither fed the 0-d array nan as "input" instead of
    # raising; with X alone and with cells alone the feed is the same matrix
    tree = Tree.from_arrays([[1.0, -1.0]], [0.0], feature_names=["u", "v"])
    with pytest.raises(OlctcError, match="expected raw cells as a dict of column name -> values"):
        feeds(tree)
    X = np.array([[1.0, 2.0], [3.0, -4.0]])
    np.testing.assert_array_equal(feeds(tree, X)["input"], X)
    np.testing.assert_array_equal(feeds(tree, cells={"u": [1.0, 3.0], "v": [2.0, -4.0]})["input"], X)


def test_python_reads_a_number_in_a_categorical_column_as_its_text_like_the_tree_and_onnx():
    # mutant m58: the cell compared without str(), so the int 1 never equalled the category '1' and encoded as
    # unseen; Schema.encode and the ONNX feeds compare str(value)
    tree = _numbered()
    cells = {"u": [0.0, 0.0, 0.0], "code": [1, 2, 3]}
    expected = [1.5, -4.5, -0.5]
    assert tree.decision_function(tree.encode(cells)).tolist() == expected
    ns = _module(tree)
    assert [ns["decision_function"]([0.0, v]) for v in cells["code"]] == expected
    assert [ns["predict"]({"u": 0.0, "code": v}) for v in cells["code"]] == ["p", "n", "n"]
    label, _ = _run(tree, None, cells)
    assert label.tolist() == ["p", "n", "n"]


def test_onnx_refuses_a_nul_in_a_column_name_saying_no_feed_could_reach_it():
    # mutant m42: the message said "so a feed could reach it", the opposite of why the name is refused; the
    # existing test matches the message's start only
    schema = Schema((Column("a\x00b", "numeric"), Column("c", "categorical", ("x",))))
    tree = Tree.from_arrays([[1.0, 2.0]], [0.0], schema=schema, classes=("n", "p"))
    with pytest.raises(OlctcError) as info:
        to_onnx(tree)
    assert str(info.value) == (
        "column 'a\\x00b' holds a NUL character, at which onnxruntime's C interface (onnxruntime-node, -web, "
        "Java, C#) cuts an input's name, so no feed could reach it; rename the column to export this tree to ONNX")


def test_python_reads_a_row_given_as_an_iterator_like_its_list():
    # mutant m84 (the row not listed): a row from map(float, fields of a CSV line) raised TypeError (no len());
    # the module lists the row first, so any iterable in FEATURES order reads as its list does
    tree = Tree.from_arrays([[1.0, -1.0]], [0.25], feature_names=["u", "v"], classes=("n", "p"))
    ns = _module(tree)
    for line, label in (("1.5,2", "n"), ("2,1.5", "p")):
        assert ns["predict"](map(float, line.split(","))) == label == ns["predict"]([float(f) for f in line.split(",")])
    with pytest.raises(ValueError, match=r"^expected 2 values in FEATURES order, got 3$"):
        ns["predict"](iter([1.0, 2.0, 3.0]))
