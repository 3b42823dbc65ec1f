"""Decode and fit behaviour a mutation pass (QA 2026-12-07, finishing two earlier passes' unrun mutants) found
unpinned: the point weights in decode's true and exact objectives, split's smallest test part, how far past its
limit a solver left running is said to be, the features line of a tree that uses none, and fit's preload.

Values are solved by HiGHS in process (test_core_mutation_gaps's helpers); trees are fit on heart rows.
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from olctc.datasets import load
from olctc.objective import tree_objective
from olctc.spec import make_spec
from test_core_mutation_gaps import ROWS
from test_decode_mutation_gaps3 import weighted_stump
from test_solve_mutation_gaps import _heart

# ---------------------------------------------------------------- decode: weights


def test_a_weighted_models_true_and_exact_objectives_weigh_the_points() -> None:
    """decode_arrays scores the tree by the model's own (weighted) loss: with every third heart point weighing 3
    the true objective is the MILP objective of the solver's values and the exact one the weighted logistic loss;
    scored unweighted, a weighted model's optimum would read as far below (or above) its solver's figure."""
    s = weighted_stump()
    rep = s.dec.report
    assert rep.true_objective == pytest.approx(s.comp.milp.objective(s.x), rel=1e-9)
    exact = tree_objective(s.W, s.b, s.comp.X, s.ds.y, s.comp.spec, loss="exact", sample_weight=s.weight).total
    plain = tree_objective(s.W, s.b, s.comp.X, s.ds.y, s.comp.spec, loss="exact").total
    assert rep.exact_objective == pytest.approx(exact, rel=1e-12) and abs(exact - plain) > 1.0


# ---------------------------------------------------------------- fit


def test_the_smallest_test_size_still_holds_out_points() -> None:
    """Only a test size of exactly 0 trains on every point: 0.005 of heart's 297 points is ceil(1.485) = 2
    test points (scikit-learn's rounding), one of each class."""
    from olctc.fit import split

    heart = load("heart")
    train, test = split(heart, 0.005, 0)
    assert (train.size, test.size) == (295, 2) and sorted(heart.y[test].tolist()) == [-1, 1]


def test_a_tree_that_uses_no_feature_says_so() -> None:
    """A loss weight so small that the regulariser zeroes every weight leaves a tree of no feature: its summary
    still says 'features used: 0 of 13' (with no shares), rather than dropping the line."""
    from olctc.fit import fit, summary_lines

    res = fit(load("heart").subset(ROWS), make_spec("olct", depth=1, C=1e-3), solver="highs", threads=1,
              time_limit=20, verbose=False)
    assert not res.tree.W.any() and res.summary["features_used"] == 0
    assert [line for line in summary_lines(res.summary) if line.startswith("features used")] == \
        ["features used: 0 of 13"]


def test_a_share_beyond_float64_leaves_the_features_out_of_the_summary() -> None:
    """A tree whose importances overflow (|w| x std beyond 1.8e308: ranked_importances raises OlctcError) is
    still a fit's result: its summary does without the features fields, rather than the fit failing at the end."""
    from olctc.data import Scaler
    from olctc.fit import _feature_shares
    from olctc.tree import Tree

    ds = load("heart")
    tree = Tree(np.zeros((1, ds.p)), np.ones(1), Scaler.fit(ds.X), ds.schema, ds.classes)
    tree.fit_stats(ds.X, ds.y)
    tree.W[0, :2] = 1e308
    assert _feature_shares(tree) == {}


def test_a_verbose_fit_says_how_a_start_tree_was_made_a_mip_start() -> None:
    """A start tree whose scores overflow big-M is scaled into it node by node; a verbose fit says so, one line
    per node ('start tree, made a MIP start: node 0: (w, b) scaled by ...'), as compile does."""
    from olctc.fit import fit

    ds = _heart(10)
    start = fit(ds, make_spec("olct", 2), solver="highs", threads=1, time_limit=20, verbose=False).tree
    big = dataclasses.replace(start, W=start.W * 1e4, b=start.b * 1e4, meta={})
    said: list[str] = []
    fit(ds, make_spec("olct", 2), solver="highs", threads=1, time_limit=20, echo=said.append, start_tree=big)
    made = [line for line in said if line.startswith("start tree, made a MIP start: ")]
    assert made and made[0].startswith("start tree, made a MIP start: node 0: (w, b) scaled by "), said


def test_a_solver_left_past_its_limit_is_said_by_how_far_past(monkeypatch: pytest.MonkeyPatch) -> None:
    """'was still running N s past its time limit of L s': N is the run beyond the limit it was given, not its
    whole runtime. A HiGHS really left so takes 20 s (test_solver_overrun), so solve_milp is stood in for: it
    hands back a solution after running 30 s past the limit fit gave it."""
    import olctc.solve
    from olctc.fit import fit

    real = olctc.solve.solve_milp

    def solve_milp(milp: Any, solver: str, **kw: Any) -> Any:
        res = real(milp, solver, **kw)
        return dataclasses.replace(res, runtime=kw["time_limit"] + 30.0, left_running=True)

    monkeypatch.setattr(olctc.solve, "solve_milp", solve_milp)
    s = fit(load("heart").subset(ROWS), make_spec("olct", 1), solver="highs", threads=1, time_limit=20,
            verbose=False).summary
    assert s["solution_from"] == "highs"
    assert s["solver_left"].startswith("highs was still running 30 s past its time limit of "), s["solver_left"]


def test_preload_imports_the_scikit_learn_modules_the_phases_use() -> None:
    """preload imports the scikit-learn modules up front (0.5-0.8 s), so that fit's phase times and its time limit
    measure building and solving, not imports; importing olctc.fit alone imports none of them."""
    code = ("import sys; import olctc.fit as f; mods = ('sklearn.linear_model', 'sklearn.model_selection', "
            "'sklearn.svm'); before = [m in sys.modules for m in mods]; f.preload(); "
            "print(before, [m in sys.modules for m in mods])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[False,", "False,", "False]", "[True,", "True,", "True]"]
