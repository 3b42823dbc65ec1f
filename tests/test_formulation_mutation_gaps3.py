"""Paths of olctc/formulation/ that a third mutation pass found unpinned.

Each test's docstring names the mutant it kills ("a builder that ..."): these were mutants of the code, not bugs
seen in olctc. Where a solver decides, it is HiGHS in process (conftest's ``highs_of``: one thread, tight
tolerances) on the model with its routing fixed by hand; the Builder's own guards are called directly. Data: real
(vendored haberman), a few rows.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import highs_of, run_highs
from olctc.formulation import build_milp
from olctc.formulation.builder import Builder
from olctc.milp import MILP
from olctc.spec import make_spec
from test_formulation_mutation_gaps import ROWS, data

highspy = pytest.importorskip("highspy")


def fixed_split_status(milp: MILP, n: int, left: int) -> str:
    """HiGHS's model status of ``milp`` (depth 2) with z fixed: the first ``left`` points in node 1, the rest in
    node 2."""
    z = milp.col_block("z")
    fixed = {z.start + i: float(i < left) for i in range(n)} | {z.start + n + i: float(i >= left) for i in range(n)}
    h = highs_of(milp, time_limit=10.0, fixed=fixed)
    run_highs(h)
    return h.modelStatusToString(h.getModelStatus())


def test_min_leaf_two_refuses_a_node_of_one_point() -> None:
    """Leaf rows that drop the ``used`` column when the size is small (leaf_min then reads sum z >= 0, and
    min_leaf = 2 does nothing): with min_leaf = 2 a last-layer node of one point is infeasible, one of two
    points and an empty one are not."""
    X, y = data(ROWS[:6])
    milp = build_milp(X, y, make_spec("olct", 2, min_leaf=2))
    assert [fixed_split_status(milp, 6, k) for k in (1, 2, 0)] == ["Infeasible", "Optimal", "Optimal"]


def test_builder_refuses_columns_after_rows() -> None:
    """A Builder that accepts a column block after a row block (the rows' matrices were sized to the columns then,
    so the new columns would be missing from them): it raises."""
    bld = Builder("t")
    col = bld.add_cols("x", [("i", np.arange(2))], lb=0.0, ub=1.0)
    bld.add_rows("r", [("i", np.arange(1))], [[(np.array([[col.start, col.start + 1]]), np.ones((1, 2)))]], "L", 1.0)
    with pytest.raises(AssertionError, match="before the first row block"):
        bld.add_cols("late", [("i", np.arange(1))], lb=0.0, ub=1.0)


@pytest.mark.parametrize("cols, vals, match", [
    (np.array([[0, 1], [0, 1]]), np.ones((2, 2)), "segments hold 2 rows, shape \\(1,\\) needs 1"),
    (np.array([[0, 1]]), np.ones((1, 1)), "row parts disagree"),
])
def test_builder_refuses_rows_that_do_not_fit(cols: np.ndarray, vals: np.ndarray, match: str) -> None:
    """A Builder that accepts segments holding more rows than the block's shape (the row names and the block
    map would then be off by one from the matrix), or parts whose values do not match their columns: it raises
    AssertionError, saying which."""
    bld = Builder("t")
    bld.add_cols("x", [("i", np.arange(2))], lb=0.0, ub=1.0)
    with pytest.raises(AssertionError, match=match):
        bld.add_rows("r", [("i", np.arange(1))], [[(cols, vals)]], "L", 1.0)


@pytest.mark.parametrize("preset", ["olct", "margot", "oct-h", "olct-univariate"])
@pytest.mark.parametrize("score_variables", [False, True])
def test_the_constraint_matrix_is_sorted_as_its_flag_says(preset: str, score_variables: bool) -> None:
    """A score variable leads its rows though its column comes last, and finish set scipy's has_sorted_indices
    for every model: routines relying on it (sum_duplicates, sorted lookups) trusted it while the rows holding a
    score variable were out of order. The matrix is now sorted, as a fresh check finds."""
    X, y = data()
    A = build_milp(X, y, make_spec(preset, 2, score_variables=score_variables)).A
    fresh = A.copy()
    fresh.has_sorted_indices = False
    fresh.sort_indices()
    assert A.has_sorted_indices and np.array_equal(A.indices, fresh.indices) and np.array_equal(A.data, fresh.data)
