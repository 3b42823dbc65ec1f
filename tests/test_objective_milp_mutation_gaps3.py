"""Paths of olctc/objective.py and olctc/milp.py that a third mutation pass found unpinned (the first two passes' are
in test_objective_milp_mutation_gaps.py and test_objective_milp_mutation_gaps2.py, whose helpers this file reuses).

Each test's docstring names the mutants it kills ("an objective that ..."): mutants of the code, not bugs seen in
olctc. The data are tiny and the expected values written out by hand in the comments; where the model has a say,
HiGHS's optimum of the compiled model at the fixed tree is the second witness.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from olctc.formulation import build_milp
from olctc.milp import names_from_block_map
from olctc.objective import BigMCharge, big_m_charge, tree_objective
from olctc.spec import make_spec
from test_objective_milp_mutation_gaps import model_optimum_at, small_milp

# gaps2's charged tree: MARGOT depth 2, M = 10, one feature; every point goes right (root b = 1) to node 2 (score -1:
# hinge 2 for a positive, 0 for a negative); node 1 scores 2x - 20 = -22, -20, -18, -16 at x = -1, 0, 1, 2 (hinge 23,
# 21, 0 (the negative), 17): each positive needs M = 21, 19, 15 and is charged 11, 9, 5 at C_2 = 3.
X_CHARGED, Y_CHARGED = np.array([[-1.0], [0.0], [1.0], [2.0]]), np.array([1.0, 1.0, -1.0, 1.0])
W_CHARGED, B_CHARGED = np.array([[0.0], [2.0], [0.0]]), np.array([1.0, -20.0, -1.0])


@pytest.mark.parametrize("class_weight,pos", [((1.0, 3.0), 3.0), ("balanced", 4.0 / 6.0)], ids=["tuple", "balanced"])
def test_the_charge_weighs_each_point_by_its_class(class_weight: tuple[float, float] | str, pos: float) -> None:
    """A charge that weighs the points by their sample weights only, dropping the spec's class weights (the model's
    xi_{h,i} costs C_h times both, so its rows charge a positive thrice under class weights (1, 3)): with no sample
    weight, each positive's charge is times its class weight (3; "balanced" on 3 positives of 4: 4 / (2 * 3)); the
    worst point is still point 0 and HiGHS's optimum of the model at the tree is the true objective plus the charge."""
    spec = make_spec("margot", 2, C=[1.0, 3.0], big_m=10.0, class_weight=class_weight)
    charge = big_m_charge(W_CHARGED, B_CHARGED, X_CHARGED, Y_CHARGED, spec)
    assert charge.extra == pytest.approx(3.0 * pos * (11.0 + 9.0 + 5.0), rel=1e-12)
    assert charge == BigMCharge(charge.extra, 3, 0, 1, -22.0, 21.0)
    got, _ = model_optimum_at(build_milp(X_CHARGED, Y_CHARGED, spec), W_CHARGED, B_CHARGED)
    true = tree_objective(W_CHARGED, B_CHARGED, X_CHARGED, Y_CHARGED, spec).total
    assert got == pytest.approx(true + charge.extra, rel=1e-9)


# ---------------------------------------------------------------- the MILP object


def test_a_block_map_covering_more_names_than_the_model_is_refused() -> None:
    """A names check that only catches a block map covering too few elements: one that covers more columns or rows
    than the model has (a block map from another model) names the wrong columns just as well, and is refused."""
    m = small_milp()
    long = dataclasses.replace(m, row_blocks=m.row_blocks + (dataclasses.replace(m.row_blocks[0], name="s", start=3),))
    with pytest.raises(AssertionError, match="block map covers 6 names, model has 3"):
        long.row_names()


def test_a_model_without_rows_violates_none_and_names_no_row() -> None:
    """A violation, worst_row or names_from_block_map that assume at least one row (max of an empty array, name 0 of
    no names, concatenating no blocks): a model of bounds alone reads 0 row violation, worst row ("", 0.0), and an
    empty row block map reads back as no names."""
    m = small_milp()
    bare = dataclasses.replace(m, A=m.A[:0], sense=m.sense[:0], rhs=m.rhs[:0], row_blocks=())
    x = np.array([4.5, 0.0, 1.0, 0.0, 0.0, 0.0])
    assert bare.violation(x) == {"rows": 0.0, "bounds": 0.5, "integrality": 0.0}
    assert bare.worst_row(x) == ("", 0.0)
    assert names_from_block_map(bare.block_map()["rows"]).tolist() == []


def test_column_and_row_names_are_each_kept_once_read() -> None:
    """Names cached under one key for columns and rows: the cache still answered right (it checks the block map),
    but reading the row names dropped the column names and back, so an emitter asking for both rebuilt millions of
    strings each time. Each kind is built once and the same array is returned while its block map stays."""
    m = small_milp()
    cols, rows = m.col_names(), m.row_names()
    assert m.col_names() is cols and m.row_names() is rows

