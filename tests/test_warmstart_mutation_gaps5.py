"""Fifth mutation pass over olctc.warmstart (qa202, running the mutants qa191 wrote but did not run): behaviour no
test pinned. The data are test_warmstart's integer features with trees in tenths that put a point on a split, the case
where rounding decides a route; each test names the mutant it kills (ids as in the pass's commit message)."""
from __future__ import annotations

import warnings

import numpy as np

from olctc.compile import compile_problem
from olctc.data import from_arrays
from olctc.objective import tree_objective
from olctc.spec import make_spec
from olctc.warmstart import warm_start


def test_a_given_tree_with_a_point_on_a_split_matches_its_start_objective() -> None:
    """The start's tree objective routes as the MILP start does, at epsilon / 2: OCT-H trees in tenths on integer
    features, b putting a point on a split (test_warmstart's construction), where one product scores it 0 and
    another 5.6e-17. Every start's objective is its tree's, with no mismatch warning; routed at 0 instead, the tree
    objective of some of them is one error off. Mutant ws-m75: the tree objective taken at threshold 0."""
    rng = np.random.default_rng(0)
    spec = make_spec("oct-h", 2)
    off_at_0 = 0
    for _ in range(40):
        X = rng.integers(0, 3, size=(40, 6)).astype(float)
        y = np.where(rng.random(40) < 0.5, -1, 1)
        y[:2] = [-1, 1]
        comp = compile_problem(from_arrays(X, y, name="t"), spec, standardise=False)
        W = rng.integers(-5, 6, size=(3, 6)) / 10.0
        i = rng.integers(40)
        b = -(np.rint(W * 10).astype(int) @ X[i].astype(int)) / 10.0  # w . x_i + b = 0 in real arithmetic
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            _, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(W, b))
        assert info["objective_matches"] and info["objective"] == info["tree_objective"]
        assert not [w for w in said if "differs from the tree's objective" in str(w.message)]
        at_0 = tree_objective(info["W"], info["b"], comp.X, comp.dataset.y.astype(float), spec, threshold=0.0)
        off_at_0 += int(at_0.total != info["objective"])
    assert off_at_0 >= 2  # the data do put points on splits as rounding leaves them
