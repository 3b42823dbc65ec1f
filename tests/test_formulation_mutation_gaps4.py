"""Paths of olctc/formulation/ that a fourth mutation pass found unpinned.

Each test's docstring names the mutant it kills ("a builder that ..."): these were mutants of the code, not bugs
seen in olctc. Data: real (vendored haberman), a few rows, through the helpers of the first pass. The pass found
every other mutant of the module killed by the existing tests, or equivalent.
"""
from __future__ import annotations

import pytest

from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.spec import make_spec
from test_formulation_mutation_gaps import ROWS, data


def test_a_min_leaf_of_one_more_than_the_points_is_refused_by_name() -> None:
    """A builder that lets min_leaf = n + 1 through (``> n + 1``: the model is then infeasible and the user sees a
    solver's status, not the parameter), or that states the wrong limit (n - 1): it raises, naming min_leaf and
    the n training points, and min_leaf = n still builds."""
    X, y = data(ROWS[:5])
    with pytest.raises(OlctcError, match=r"^The 'min_leaf' parameter must be at most the 5 training point\(s\) "
                                         r"the model holds\. Got 6 instead\.$"):
        build_milp(X, y, make_spec("olct", 2, min_leaf=6))
    assert build_milp(X, y, make_spec("olct", 2, min_leaf=5)).col_block("used").size == 2

