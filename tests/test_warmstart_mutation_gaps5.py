"""Fifth mutation pass over olctc.warmstart (qa202, running the mutants qa191 wrote but did not run): behaviour no
test pinned. The data are test_warmstart's integer features with trees in tenths that put a point on a split, the case
where rounding decides a route; each test names the mutant it kills (ids as in the pass's commit message)."""
from __future__ import annotations

import warnings

from olctc.objective import tree_objective
from olctc.spec import make_spec
from olctc.warmstart import warm_start
from test_warmstart import on_split_trees


def test_a_given_tree_with_a_point_on_a_split_matches_its_start_objective() -> None:
    """The start's tree objective routes as the MILP start does, at epsilon / 2: OCT-H trees in tenths on integer
    features, b putting a point on a split (test_warmstart's construction), where one product scores it 0 and
    another 5.6e-17. Every start's objective is its tree's, with no mismatch warning; routed at 0 instead, the tree
    objective of some of them is one error off. Mutant ws-m75: the tree objective taken at threshold 0."""
    spec = make_spec("oct-h", 2)
    off_at_0 = 0
    for comp, W, b, _X, _i in on_split_trees(spec, 40):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            _, info = warm_start(comp.milp, comp.X, comp.dataset.y, spec, tree=(W, b))
        assert info["objective_matches"] and info["objective"] == info["tree_objective"]
        assert not [w for w in said if "differs from the tree's objective" in str(w.message)]
        at_0 = tree_objective(info["W"], info["b"], comp.X, comp.dataset.y.astype(float), spec, threshold=0.0)
        off_at_0 += int(at_0.total != info["objective"])
    assert off_at_0 >= 2  # the data do put points on splits as rounding leaves them
