"""Tests from a second mutation pass over olctc.fit: the time budget's constants and reserve, the solver
checks, split's edges, and what a fit records and prints. Each pins a behaviour that a small code change broke
without any other targeted test failing. Tiny real data (heart rows), real HiGHS fits on one thread."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from olctc.data.arrays import from_arrays
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.fit import (SOLVER_SHARE, fit, least_time_limit, resolve_solver, solver_budget, split,
                       summary_lines)
from olctc.spec import make_spec
from test_fit_workers_mutation_gaps import _labelled
from test_solve_mutation_gaps import _heart


# ------------------------------------------------------------------ the time budget
def test_the_budget_rule_in_numbers() -> None:
    """The solver gets 90% of what building, the warm start and the reserve leave, less 1 s; the reserve is the
    largest of 0.5 s, half the build time and the warm start's time. Bench and every fit share this rule."""
    assert SOLVER_SHARE == 0.9
    assert least_time_limit() == pytest.approx(0.5 + 2.0 / 0.9, abs=1e-12)
    assert solver_budget(10.0, 0.0, 0.0) == pytest.approx(9.5 * 0.9 - 1.0, abs=1e-12)
    assert solver_budget(20.0, 1.0, 4.0) == pytest.approx((20.0 - 1.0 - 2.0) * 0.9 - 1.0, abs=1e-12)
    assert solver_budget(20.0, 1.0, 0.0, 3.0) == pytest.approx((20.0 - 1.0 - 3.0) * 0.9 - 1.0, abs=1e-12)


def test_a_budget_refused_after_building_names_the_time_spent_and_the_least_limit_with_that_reserve() -> None:
    """3 s after 1.04 s spent, 4 s of it building (a 2 s reserve): at least ceil(1.04 + 2 + 2/0.9) = 6 s."""
    with pytest.raises(TimeLimitTooShort, match=r"took 1\.0 s, and .* give at least 6 s$"):
        solver_budget(3.0, 1.04, 4.0)


# ------------------------------------------------------------------ the solver checks
def test_a_solver_no_fit_runs_in_process_is_refused_by_name() -> None:
    with pytest.raises(OlctcError, match=r"'solver' parameter must be one of highs, .* for an in-process fit"):
        resolve_solver(make_spec("olct", 1), "glpk")


def test_a_miqp_preset_takes_every_commercial_solver() -> None:
    """The MIQP presets run on SCIP and the commercial solvers (all take quadratic objectives), not only SCIP."""
    margot = make_spec("margot", 1)
    assert [resolve_solver(margot, s) for s in ("gurobi", "cplex", "copt", "xpress")] == [
        "gurobi", "cplex", "copt", "xpress"]


# ------------------------------------------------------------------ split
def test_a_test_size_of_one_is_refused_as_a_parameter() -> None:
    """1.0 is outside [0, 1): the parameter error, not a split that finds no training points."""
    with pytest.raises(OlctcError, match=r"'test_size' parameter must be in \[0, 1\)"):
        split(_labelled(5, 5), 1.0, 0)


def test_a_boolean_seed_is_refused() -> None:
    """True is an int to Python but no seed: refused as the other parameters refuse a boolean."""
    with pytest.raises(OlctcError, match=r"'seed' parameter must be an integer"):
        split(_labelled(5, 5), 0.2, True)


def test_the_test_part_is_rounded_up_before_the_size_check() -> None:
    """12 points at 0.1 give a test part of ceil(1.2) = 2 (scikit-learn's rounding): taken, not refused as 1."""
    tr, te = split(_labelled(6, 6), 0.1, 0)
    assert (tr.size, te.size) == (10, 2)


# ------------------------------------------------------------------ fit's record
@pytest.fixture(scope="module")
def echoed_fit() -> tuple[Any, list[str]]:
    """A depth-1 OLCT fit (HiGHS, one thread) of 20 heart points, a quarter held out, seed 5, its lines caught."""
    said: list[str] = []
    res = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, test_size=0.25, seed=5, echo=said.append)
    return res, said


def test_fit_gives_the_budget_the_warm_starts_time(monkeypatch) -> None:
    """The warm start's time goes to solver_budget: its reserve covers refinement, which takes about as long."""
    import olctc.fit as fit_module

    seen: list[tuple] = []

    def spy(*args: float) -> float:
        seen.append(args)
        return solver_budget(*args)

    monkeypatch.setattr(fit_module, "solver_budget", spy)
    s = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, time_limit=30, verbose=False).summary
    (args,) = seen
    assert len(args) == 4 and args[2:] == (s["time_build"], s["time_warm_start"])


def test_the_exact_objective_of_the_warm_start_is_the_warm_starts() -> None:
    """exact_objective_warm_start is the greedy tree's exact logistic loss, not the solver tree's."""
    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays
    from olctc.fit import _exact_objective
    from olctc.warmstart import warm_start

    ds, spec = _heart(10), make_spec("olct", 1)
    s = fit(ds, spec, solver="highs", threads=1, verbose=False).summary
    comp = compile_problem(ds, spec, ds.name)
    x0, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
    warm = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x0, None, trusted=True)
    assert s["exact_objective_warm_start"] == pytest.approx(_exact_objective(warm), rel=1e-12)
    assert s["exact_objective_warm_start"] != pytest.approx(s["exact_objective_before_refine"], rel=1e-6)


def test_the_summary_keeps_the_solvers_own_figures_and_the_seed(echoed_fit) -> None:
    """solver_status, bound and the warm start's true objective are the solve's and the start's, as reported."""
    res, _ = echoed_fit
    s, meta = res.summary, res.tree.meta
    assert s["seed"] == 5 and s["solution_from"] == "highs"
    assert (s["status"], s["solver_status"]) == ("optimal", "optimal")
    assert s["bound"] is not None and s["bound"] == pytest.approx(s["objective_milp"], rel=1e-6)
    assert s["objective_warm_start_true"] > s["objective_milp_true"]
    assert s["objective_warm_start_true"] == pytest.approx(s["objective_warm_start"], rel=1e-9)
    assert s["routing_disagreements"] == 0 and meta["fit"]["seed"] == 5
    assert not any(k.endswith("_weighted") for k in s)  # no point weights: no weighted accuracies (nor their line)


def test_a_verbose_fit_says_the_model_and_the_start_first(echoed_fit) -> None:
    _, said = echoed_fit
    assert said[0].startswith("model (") and "warm start objective" in said[0] and "(greedy tree, " in said[0]


def test_smoothed_pure_nodes_are_recorded_without_the_solvers_nodes_and_after_refinement() -> None:
    """Two points' classes split by x0 at depth 2: both leaves are pure and smoothed. The summary says which and
    the exact objective before and after (not the solver's nodes, which the tree file keeps), and the objective
    "after refinement" is the one before smoothing, so the three exact figures read in order."""
    ds = from_arrays(np.c_[np.arange(10.0), np.sin(np.arange(10.0))], np.r_[np.zeros(5), np.ones(5)])
    res = fit(ds, make_spec("olct", 2), solver="highs", threads=1, verbose=False, smooth_pure_nodes=True)
    s, pure = res.summary, res.summary["pure_nodes"]
    assert set(pure) == {"nodes", "objective_before", "objective_after"} and pure["nodes"] == [1, 2]
    assert "before" in res.tree.meta["pure_nodes"]
    assert s["exact_objective_after_refine"] == pure["objective_before"] > pure["objective_after"]


# ------------------------------------------------------------------ the lines `olctc fit` prints
def _lines(s: dict[str, Any], **changes: Any) -> list[str]:
    return summary_lines({**s, **changes})


def test_the_first_line_names_the_weights_and_the_least_leaf(echoed_fit) -> None:
    s = echoed_fit[0].summary
    spec = {**s["spec"], "class_weight": "balanced", "min_leaf": 3}
    head = _lines(s, spec=spec, class_weights={"0": 1.25, "1": 5 / 6},
                  sample_weights={"column": "w", "sum": 12.5, "zero": 2})[0]
    assert head.endswith(", class weights 0=1.25, 1=0.8333 (balanced), point weights from column 'w' (sum 12.5; "
                         "2 of weight 0 left out), min leaf 3")
    head = _lines(s, sample_weights={"column": None, "sum": 3.0, "zero": 0})[0]
    assert head.endswith("C [1.0], point weights given (sum 3)")


def test_the_objective_line_names_a_start_tree(echoed_fit) -> None:
    s = echoed_fit[0].summary
    warm = f"{s['objective_warm_start']:.6g} -> MILP"
    assert _lines(s)[3].startswith(f"objective: warm start {warm}")
    assert _lines(s, warm_start_from="start tree")[3].startswith(f"objective: warm start (start tree) {warm}")


def test_the_tangent_note_names_the_tangent_set_and_needs_a_real_rise(echoed_fit) -> None:
    """The note names the spec's tangent set (custom when none), and a rise within 1e-9 relative is no rise."""
    s = echoed_fit[0].summary
    note = "note: the MILP minimises the loss through its tangent lines ({}), not the exact"
    rise = {"exact_objective_warm_start": 1.0, "exact_objective_before_refine": 2.0}
    assert any(line.startswith(note.format("V0")) for line in _lines(s, **rise))
    custom = {**s["spec"], "tangent_set": None}
    assert any(line.startswith(note.format("custom")) for line in _lines(s, spec=custom, **rise))
    flat = {"exact_objective_warm_start": 1.0, "exact_objective_before_refine": 1.0 + 1e-10}
    assert not any(line.startswith("note: the MILP") for line in _lines(s, **flat))


def test_the_accuracy_lines_give_the_test_part_and_the_weighted_figures(echoed_fit) -> None:
    s = echoed_fit[0].summary
    assert f"balanced accuracy: train {s['train_balanced_accuracy']:.4f}, test {s['test_balanced_accuracy']:.4f}" \
        in _lines(s)
    weighted = _lines(s, train_balanced_accuracy_weighted=0.25)
    assert "balanced accuracy, points weighted: train 0.2500" in weighted
    weighted = _lines(s, train_balanced_accuracy_weighted=0.25, test_balanced_accuracy_weighted=0.5)
    assert "balanced accuracy, points weighted: train 0.2500, test 0.5000" in weighted


def test_the_closing_lines_say_the_features_times_notes_and_warnings(echoed_fit) -> None:
    s = echoed_fit[0].summary
    lines = _lines(s, top_features=[], time_build=1.0, time_warm_start=2.0, time_solve=3.0, time_total=7.0,
                   notes=["first", "second"], routing_disagreements=1, tolerance_exploited=True)
    assert f"features used: {s['features_used']} of {s['n_features']}" in lines
    assert "time: build 1.00 s, warm start 2.00 s, solve 3.00 s, total 7.00 s" in lines
    assert lines[-4:] == ["note: first", "note: second",
                          "WARNING: 1 training point(s) routed differently than the solver's z",
                          "WARNING: the solver's objective differs from the tree's true objective (tolerances)"]
    assert not any(line.startswith("WARNING") for line in _lines(s))


# ------------------------------------------------------------------ when the solver's tree is not kept
def test_a_false_infeasible_is_said_false_by_the_warm_start(monkeypatch) -> None:
    """A solver that calls the model infeasible (CBC's numerics) while fit holds the warm start, a feasible
    point: the reason kept says so, naming the warm start (the solve is faked: no real solver does this cheaply)."""
    import olctc.solve
    from olctc.solve.result import SolveResult

    def infeasible(milp: Any, solver: str, **kw: Any) -> SolveResult:
        return SolveResult("infeasible", None, None, None, None, [], solver, "", 0.01, "infeasible")

    monkeypatch.setattr(olctc.solve, "solve_milp", infeasible)
    s = fit(_heart(10), make_spec("olct", 1), solver="cbc", threads=1, verbose=False).summary
    assert s["warm_start_kept"].startswith("cbc found no solution (infeasible), which is false: the warm start is "
                                           "a feasible point of the model (objective ")


def test_the_refinement_deadline_note_is_added_to_the_trees_own_notes() -> None:
    """A tree that already carries a note (a big-M charge, a broken min-leaf rule) keeps it beside the note that
    refinement stopped at the time limit."""
    import time

    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays
    from olctc.fit import _finish_in_time
    from olctc.warmstart import warm_start

    spec = make_spec("olct", 1)
    comp = compile_problem(_heart(10), spec, "h")
    x0, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
    dec = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x0, None, trusted=True)
    dec.report.tree_notes.append("an earlier note")
    tree, report = _finish_in_time(dec, comp, comp.dataset, True, False, time.perf_counter() - 1.0)
    assert tree.meta["notes"] == ["an earlier note", report.notes[-1]]
    assert report.notes[-1].startswith("refinement stopped at the time limit")


# ------------------------------------------------------------------ a fit from a start tree
def test_a_fit_from_a_start_tree_says_which_tree_it_started_from_and_how_it_was_deepened() -> None:
    """From a refined depth-1 tree: at depth 1 its nodes before refinement (the lower MILP objective), said and
    recorded; at depth 2 the tree as saved, deepened greedily, said so (not "copied"); the objective line says
    the start was a start tree."""
    ds = _heart(10)
    start = fit(ds, make_spec("olct", 1), solver="highs", threads=1, verbose=False).tree
    runs = {}
    for depth in (1, 2):
        said: list[str] = []
        s = fit(ds, make_spec("olct", depth), solver="highs", threads=1, echo=said.append, start_tree=start).summary
        runs[depth] = s, said
    s, said = runs[1]
    assert (s["warm_start_from"], s["warm_start_tree"]) == ("start tree", "before refinement")
    assert "start tree: its last layer as the solver left it, before refinement (the lower MILP objective)" in said
    assert summary_lines(s)[3].startswith("objective: warm start (start tree) ")
    s, said = runs[2]
    assert (s["warm_start_tree"], s["warm_start_deepened"]) == ("as saved", "greedy")
    assert ("start tree deepened from depth 1: the new layers fit greedily below its nodes (a lower objective "
            "than copies)") in said


def test_a_kept_solution_whose_objective_is_below_its_values_is_no_optimum(monkeypatch) -> None:
    """A solver that calls the warm start's own values optimal at an objective they do not give (tolerances
    bent): the tree is kept (it routes no worse than the start) but the fit says feasible, not optimal, and warns.
    The solve is faked, handing back the start it was given: no real solver does this on a tiny model."""
    import olctc.solve
    from olctc.solve.result import SolveResult

    def bent(milp: Any, solver: str, *, start: np.ndarray, **kw: Any) -> SolveResult:
        obj = milp.objective(start) - 0.5
        return SolveResult("optimal", obj, obj, 0.0, start, list(milp.col_names()), solver, "", 0.01, "Optimal")

    monkeypatch.setattr(olctc.solve, "solve_milp", bent)
    s = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, verbose=False).summary
    assert (s["solution_from"], s["solver_status"], s["status"]) == ("highs", "optimal", "feasible")
    assert s["tolerance_exploited"] and summary_lines(s)[-1].startswith("WARNING: the solver's objective differs")


def test_a_long_count_list_names_its_largest_and_a_name_with_a_comma_is_quoted() -> None:
    from olctc.fit import _counts_text, shares_text

    assert _counts_text([1] * 31 + [5]).endswith("(32 nodes: 36 in all, at most 5; the tree file has them all)")
    assert shares_text([["a,b", 0.5], ["c", 0.25]]) == '"a,b" 0.500, c 0.250'
