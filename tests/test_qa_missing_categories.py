"""A missing value in a text column (QA pass, 2026-12-03): Tree.encode and the generated Python module took
None, NaN and pandas' NA for the unseen category 'None'/'nan' and predicted, where a numeric column's
missing value, `olctc predict`'s empty cell and the SQL query's NULL are refused. Both refuse it now; a text
cell that is no category (an empty string, the text 'None') is still an unseen category."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError
from olctc.export import export_tree
from olctc.tree import Tree

pd = pytest.importorskip("pandas")


def _tree() -> Tree:
    schema = Schema((Column("city", "categorical", ("Paris", "Rome")), Column("size", "numeric")))
    return Tree(np.array([[2.0, -1.0, 0.5]]), np.array([-0.25]), Scaler.identity(3), schema, ("no", "yes"))


MISSING = [None, math.nan, np.float32("nan"), pd.NA, pd.NaT]


@pytest.mark.parametrize("value", MISSING, ids=repr)
def test_tree_encode_refuses_a_missing_category(value):
    tree = _tree()
    with pytest.raises(OlctcError, match=r"^data: column 'city' row 1: a missing value; fill or drop missing values$"):
        tree.encode({"city": ["Rome", value], "size": [1.0, 2.0]})
    with pytest.raises(OlctcError, match="column 'city' row 0: a missing value"):
        tree.explain({"city": value, "size": 2.0})


def test_text_that_is_no_category_is_still_unseen():
    tree = _tree()
    X = tree.encode({"city": ["Paris", "", "None", "nan", "Rome"], "size": [0.0] * 5})
    assert X[:, :2].tolist() == [[1, 0], [0, 0], [0, 0], [0, 0], [0, 1]]
    assert list(tree.predict(X)) == ["yes", "no", "no", "no", "no"]


def test_generated_module_refuses_a_missing_category(tmp_path):
    export_tree(_tree(), "python", tmp_path / "tree.py")
    script = (
        "import math, tree\n"
        "print(tree.predict({'city': 'Paris', 'size': 0}), tree.predict({'city': '', 'size': 0}),"
        " tree.predict({'city': 'None', 'size': 0}))\n"
        "for v in (None, math.nan):\n"
        "    try:\n"
        "        tree.predict({'city': v, 'size': 0})\n"
        "    except ValueError as e:\n"
        "        print(e)\n")
    res = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, '.')\n{script}"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "yes no no",
        "column 0 ('city') must be a category, got the missing value None",
        "column 0 ('city') must be a category, got the missing value nan"]
    # pandas' missing values too (in this interpreter: pandas is installed here)
    sys.path.insert(0, str(tmp_path))
    try:
        import tree as module
        for value in MISSING:
            with pytest.raises(ValueError, match="must be a category, got the missing value"):
                module.predict(pd.Series({"city": value, "size": 0.0}))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tree", None)


def _ghost_tree() -> Tree:
    """A text column whose file held the texts 'None' and 'nan' as categories (a 'heating: None' column)."""
    schema = Schema((Column("heating", "categorical", ("Gas", "None", "nan")), Column("size", "numeric")))
    return Tree(np.array([[1.0, -2.0, 0.5, 0.25]]), np.array([0.1]), Scaler.identity(4), schema, ("no", "yes"))


@pytest.mark.parametrize("value", MISSING, ids=repr)
def test_a_missing_value_is_not_the_category_its_text_spells(value):
    """str(None) is 'None' and str(nan) 'nan': a category of that text took a missing cell silently (the generated
    module refused it); the missing value is refused by encode, explain and the ONNX feeds alike, the texts still
    read as their categories, and the first missing row is named (an unseen category's row or a ghost's)."""
    from olctc.export.onnx import feeds

    tree = _ghost_tree()
    X = tree.encode({"heating": ["None", "nan", "Gas", "Oil"], "size": [0.0] * 4})
    assert X[:, :3].tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0]]
    cells = {"heating": ["Gas", "None", value, "Oil"], "size": [1.0, 2.0, 3.0, 4.0]}
    with pytest.raises(OlctcError, match=r"^data: column 'heating' row 2: a missing value; fill or drop missing "
                                         r"values$"):
        tree.encode(cells)
    with pytest.raises(OlctcError, match="column 'heating' row 0: a missing value"):
        tree.explain({"heating": value, "size": 2.0})
    with pytest.raises(OlctcError, match=r"^data: column 'heating' row 2: a missing value; fill or drop missing "
                                         r"values$"):
        feeds(tree, cells=cells)
    assert feeds(tree, cells={"heating": ["None", "Oil"], "size": [1.0, 2.0]})["heating"].ravel().tolist() == [
        "None", "Oil"]
