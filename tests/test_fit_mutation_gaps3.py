"""Tests from a third mutation pass over olctc.fit: how the time limit is split between building, the warm start,
the solver and refinement, what a fit's summary and its tree's meta record (point and class weights, the
solver's own figures, a kept warm start's gap), and the lines a user reads (the model line echoed, the report's
lines). Each pins a behaviour that a small code change broke without any other targeted test failing.

Tiny real data (heart rows), real HiGHS fits on one thread. Where only a solver misbehaving reaches a branch (a
worse solution, an optimum its values contradict), solve_milp is stood in for, as the earlier passes did; where
a phase's time matters, the real phase runs and a sleep after it stands for a slow machine."""
from __future__ import annotations

import dataclasses
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import olctc.fit as fit_module
import olctc.solve
from olctc.data import read_csv
from olctc.data.arrays import from_arrays
from olctc.errors import OlctcError
from olctc.fit import fit, resolve_solver, split, summary_lines
from olctc.solve.result import SolveResult, gap_text, relative_gap
from olctc.spec import form_name, make_spec
from olctc.tree import weights_used
from test_fit_mutation_gaps2 import echoed_fit  # noqa: F401 (a fixture: 20 heart points, a quarter held out)
from test_fit_workers_mutation_gaps import _labelled
from test_solve_mutation_gaps import _heart

BUILD_DELAY, SOLVE_DELAY, LIMIT = 0.4, 0.6, 30.0


# ------------------------------------------------------------------ the time budget split
@pytest.fixture(scope="module")
def timed_fit() -> dict[str, Any]:
    """A verbose depth-1 fit at --time-limit 30 whose build takes 0.4 s more and whose solve call 0.6 s more
    (the real phases, then a sleep), with what solver_budget, solve_milp and refinement were given."""
    seen: dict[str, Any] = {}
    real_compile, real_budget, real_solve = fit_module.compile_problem, fit_module.solver_budget, olctc.solve.solve_milp
    real_finish = fit_module._finish_in_time

    def compile_problem(*args: Any, **kw: Any) -> Any:
        comp = real_compile(*args, **kw)
        time.sleep(BUILD_DELAY)
        return comp

    def solver_budget(*args: float) -> float:
        seen["budget_args"], seen["budget"] = args, real_budget(*args)
        return seen["budget"]

    def solve_milp(milp: Any, solver: str, **kw: Any) -> SolveResult:
        seen["solve_kw"] = kw
        res = real_solve(milp, solver, **kw)
        time.sleep(SOLVE_DELAY)
        return res

    def finish(*args: Any) -> Any:
        seen["deadline"] = args[-1]
        return real_finish(*args)

    said: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fit_module, "compile_problem", compile_problem)
        mp.setattr(fit_module, "solver_budget", solver_budget)
        mp.setattr(fit_module, "_finish_in_time", finish)
        mp.setattr(olctc.solve, "solve_milp", solve_milp)
        fit_module.preload()  # the first import of scikit-learn's modules (0.5-0.8 s) precedes the fit's clock
        seen["called"] = time.perf_counter()
        seen["result"] = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, time_limit=LIMIT,
                             echo=said.append)
    seen["said"] = said
    return seen


def test_the_warm_starts_time_leaves_out_the_build(timed_fit) -> None:
    """time_warm_start is the warm start's own time, not the time since the fit began (the build's 0.4 s)."""
    s = timed_fit["result"].summary
    assert s["time_build"] >= BUILD_DELAY and s["time_warm_start"] < BUILD_DELAY, s


def test_the_budget_is_charged_all_the_time_spent_before_the_solve(timed_fit) -> None:
    """solver_budget's ``spent`` is the time since the fit began (building and the warm start), and the solver is
    handed exactly the budget that rule gives, on the threads asked for."""
    limit, spent, t_build, t_warm = timed_fit["budget_args"]
    assert limit == LIMIT and spent >= t_build + t_warm and t_build >= BUILD_DELAY
    kw = timed_fit["solve_kw"]
    assert kw["time_limit"] == timed_fit["budget"] < LIMIT - BUILD_DELAY and kw["threads"] == 1


def test_the_solve_time_is_the_whole_call_and_the_total_covers_every_phase(timed_fit) -> None:
    """time_solve is the whole solve call (a CBC or SCIP call writes and reads the model), not the solver's own
    runtime; the total is at least the three phases."""
    s = timed_fit["result"].summary
    assert s["time_solve"] >= SOLVE_DELAY
    assert s["time_total"] >= s["time_build"] + s["time_warm_start"] + s["time_solve"]


def test_refinement_stops_at_the_limit_counted_from_the_fits_start(timed_fit) -> None:
    """The deadline is the fit's start plus the limit, not the start of refinement plus the limit (1 s later)."""
    assert timed_fit["called"] + LIMIT <= timed_fit["deadline"] <= timed_fit["called"] + LIMIT + 0.3


def test_the_model_line_says_each_phases_own_time(timed_fit) -> None:
    """The first line echoed: the model's size (integer columns counted), the build time, the start's objective
    and its own time, each where it belongs."""
    s, said = timed_fit["result"].summary, timed_fit["said"]
    size = s["model_size"]
    milp = fit_module.compile_problem(_heart(10), make_spec("olct", 1), "h").milp
    assert said[0] == (f"model (the paper's form): {size['rows']:,} rows, {size['columns']:,} columns "
                       f"({int(milp.integer.sum()):,} integer), {size['nonzeros']:,} nonzeros; built in "
                       f"{s['time_build']:.2f} s; warm start objective {s['objective_warm_start']:.6g} "
                       f"(greedy tree, {s['time_warm_start']:.2f} s)")
    assert int(milp.integer.sum()) < size["columns"]


def test_the_model_line_names_the_score_variable_form() -> None:
    said: list[str] = []
    fit(_heart(10), make_spec("olct", 1, score_variables=True), solver="highs", threads=1, echo=said.append)
    assert said[0].startswith(f"model ({form_name(True)}): ")


# ------------------------------------------------------------------ a solver's worse tree, left past its limit
@pytest.fixture(scope="module")
def worse_fit() -> tuple[Any, list[str]]:
    """A verbose fit at --time-limit 30 whose solver, left running 40 s past its limit, hands back a featureless
    tree (a feasible point, worse than the warm start) and a bound of 5, below every tree's objective."""
    from olctc.start_tree import tree_start

    ds, spec = _heart(10), make_spec("olct", 1)
    bare = fit(ds, make_spec("olct", 1, C=1e-3), solver="highs", threads=1, verbose=False).tree
    assert not bare.W.any()

    def solve_milp(milp: Any, solver: str, **kw: Any) -> SolveResult:
        x, _ = tree_start(fit_module.compile_problem(ds, spec, ds.name), bare)
        obj = milp.objective(x)
        return SolveResult("feasible", obj, 5.0, relative_gap(obj, 5.0), x, list(milp.col_names()), solver, "",
                           kw["time_limit"] + 40.0, "Time limit reached", left_running=True)

    said: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(olctc.solve, "solve_milp", solve_milp)
        res = fit(ds, spec, solver="highs", threads=1, time_limit=LIMIT, echo=said.append)
    return res, said


def test_a_worse_tree_taken_from_a_solver_left_running_is_said_then_set_aside(worse_fit) -> None:
    """Both steps are echoed: the best solution taken from the solver left running (with its objective), then the
    warm start kept over it; the summary keeps both reasons."""
    res, said = worse_fit
    s = res.summary
    left = s["solver_left"]
    assert left.startswith("highs was still running 40 s past its time limit of ")
    assert f"{left}: taking the best solution it had found (objective {s['objective_milp']:.6g})" in said
    assert s["warm_start_kept"].startswith("highs returned a solution worse than the warm start it was given")
    assert f"{s['warm_start_kept']}: keeping the warm start" in said


def test_a_kept_warm_starts_gap_and_meta_are_the_warm_starts(worse_fit) -> None:
    """The tree kept is the warm start: the gap is its objective's to the solver's bound (not the solver's own
    gap), and the tree's meta says it came from the warm start, with the solver's bound and no solver objective."""
    res, _ = worse_fit
    s, meta = res.summary, res.tree.meta
    assert (s["solution_from"], s["status"]) == ("warm start", "feasible")
    assert s["gap"] == pytest.approx((s["objective_warm_start_true"] - 5.0) / s["objective_warm_start_true"],
                                     rel=1e-12)
    assert s["gap"] != pytest.approx(relative_gap(s["objective_milp"], 5.0), rel=1e-3)
    assert (meta["solution_from"], meta["bound"], meta["solver_objective"]) == ("warm start", 5.0, None)


def test_the_solver_line_says_the_status_the_raw_status_and_why_the_start_was_kept(worse_fit) -> None:
    s = worse_fit[0].summary
    assert summary_lines(s)[2] == (f"solver highs: feasible (Time limit reached), gap {gap_text(s['gap'])}, "
                                   f"solution from warm start ({s['warm_start_kept']})")


# ------------------------------------------------------------------ an optimum its own values contradict
def test_an_optimum_whose_loss_columns_sit_high_is_said_feasible(monkeypatch) -> None:
    """HiGHS's optimum handed back with one loss column 2 above its least value, still called optimal at the
    objective those values give: the tree (the optimum's w, b) is kept, but the fit says feasible, and the
    summary keeps the solver's objective beside the tree's true one."""
    real = olctc.solve.solve_milp

    def raised(milp: Any, solver: str, **kw: Any) -> SolveResult:
        res = real(milp, solver, **kw)
        x = res.x.copy()
        x[list(milp.col_names()).index("xi_1_0")] += 2.0
        obj = milp.objective(x)
        return dataclasses.replace(res, x=x, objective=obj, bound=obj, gap=0.0)

    monkeypatch.setattr(olctc.solve, "solve_milp", raised)
    s = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, verbose=False).summary
    assert (s["solution_from"], s["solver_status"], s["status"]) == ("highs", "optimal", "feasible")
    assert not s["tolerance_exploited"]
    assert s["objective_milp"] == pytest.approx(s["objective_milp_true"] + 2.0, rel=1e-9)


# ------------------------------------------------------------------ what the summary and meta record
def test_an_optimal_fit_records_the_solvers_gap_and_one_count_per_node(echoed_fit) -> None:  # noqa: F811
    res, _ = echoed_fit
    s = res.summary
    assert s["gap"] == 0.0 and " gap 0%, " in summary_lines(s)[2]
    assert s["nonzero_weights_per_node"] == [int(weights_used(res.tree.W[0]).sum())]


def test_the_trees_meta_keeps_the_accuracies_and_the_refined_objective(echoed_fit) -> None:  # noqa: F811
    """meta['fit'] is the summary less the spec, accuracies included; the objective after refinement is the
    refined tree's (lower than the MILP tree's here), not the MILP tree's."""
    res, _ = echoed_fit
    s, meta = res.summary, res.tree.meta
    assert meta["fit"]["train_balanced_accuracy"] == s["train_balanced_accuracy"]
    assert meta["fit"]["test_balanced_accuracy"] == s["test_balanced_accuracy"]
    assert s["exact_objective_after_refine"] == meta["exact_objective"] < s["exact_objective_before_refine"]


def test_the_row_numbers_are_sorted_integers_with_or_without_a_test_part(echoed_fit) -> None:  # noqa: F811
    res, _ = echoed_fit
    assert res.test_rows.tolist() == sorted(res.test_rows.tolist()) and res.test_rows.dtype.kind == "i"
    train, test = split(_heart(10), 0.0, 0)
    assert test.size == 0 and test.dtype.kind == "i" and train.tolist() == list(range(20))


def test_a_fits_notes_reach_its_summary_and_its_lines() -> None:
    """Depth 3 on 10 points leaves nodes with no training point: decode's note goes to the summary and is printed."""
    ds = from_arrays(np.c_[np.arange(10.0), np.sin(np.arange(10.0))], np.r_[np.zeros(5), np.ones(5)])
    s = fit(ds, make_spec("olct", 3), solver="highs", threads=1, verbose=False).summary
    assert [n for n in s["notes"] if n.startswith("no training point reaches node(s) ")], s.get("notes")
    assert [f"note: {n}" for n in s["notes"]] == [line for line in summary_lines(s) if line.startswith("note: ")]


def test_smoothed_pure_nodes_are_printed() -> None:
    from olctc.decode import pure_nodes_line

    ds = from_arrays(np.c_[np.arange(10.0), np.sin(np.arange(10.0))], np.r_[np.zeros(5), np.ones(5)])
    s = fit(ds, make_spec("olct", 2), solver="highs", threads=1, verbose=False, smooth_pure_nodes=True).summary
    line = pure_nodes_line(s)
    assert line is not None and line in summary_lines(s)


@pytest.fixture(scope="module")
def weighted_fit(tmp_path_factory) -> tuple[Any, Any]:
    """A fit of 20 heart points read from a CSV with a weight column 'w': every third point weighs 3, one 0."""
    ds = _heart(10)
    w = np.where(np.arange(ds.n) % 3 == 0, 3.0, 1.0)
    w[1] = 0.0
    path = tmp_path_factory.mktemp("weighted") / "w.csv"
    names = [f"f{j}" for j in range(ds.p)]
    rows = [",".join([*names, "w", "y"])] + [",".join([*(repr(float(v)) for v in x), repr(float(wi)), str(int(yi))])
                                             for x, wi, yi in zip(ds.X, w, ds.y)]
    path.write_text("\n".join(rows) + "\n")
    wds = read_csv(path, "y", weight_column="w")
    return wds, fit(wds, make_spec("olct", 1), solver="highs", threads=1, verbose=False)


def test_a_weighted_fit_records_its_weight_column_sum_and_zero_weights(weighted_fit) -> None:
    wds, res = weighted_fit
    assert res.summary["sample_weights"] == {"column": "w", "sum": float(wds.weight.sum()), "zero": 1}
    assert summary_lines(res.summary)[0].endswith(
        f", point weights from column 'w' (sum {wds.weight.sum():.6g}; 1 of weight 0 left out)")


def test_a_weighted_fit_starts_decodes_and_scores_with_its_weights(weighted_fit) -> None:
    """The warm start, the tree's true objective and its exact logistic loss all weigh the points: the MILP's
    objective and the true one agree, and the warm start is the weighted greedy tree, scored with the weights."""
    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays
    from olctc.objective import tree_objective
    from olctc.warmstart import warm_start

    wds, res = weighted_fit
    s, spec = res.summary, make_spec("olct", 1)
    assert s["objective_milp_true"] == pytest.approx(s["objective_milp"], rel=1e-6)
    comp = compile_problem(wds, spec, wds.name)
    sw = comp.dataset.weight
    x0, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec, sample_weight=sw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unweighted start on a weighted model: big-M rows bind, it says
        plain, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
    assert s["objective_warm_start"] == pytest.approx(comp.milp.objective(x0), rel=1e-9)
    assert comp.milp.objective(plain) != pytest.approx(comp.milp.objective(x0), rel=1e-6)
    warm = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x0, None, trusted=True, sample_weight=sw)
    exact = tree_objective(warm.W, warm.b, comp.X, comp.dataset.y, spec, loss="exact", sample_weight=sw).total
    unweighted = tree_objective(warm.W, warm.b, comp.X, comp.dataset.y, spec, loss="exact").total
    assert s["exact_objective_warm_start"] == pytest.approx(exact, rel=1e-9) != pytest.approx(unweighted, rel=1e-3)


def test_the_solvers_tree_is_scored_with_the_weights(weighted_fit) -> None:
    """The exact logistic objective after the MILP is the solver's tree's weighted loss: the same solve (HiGHS
    from the weighted warm start) decoded here and scored with the weights gives it, unweighted does not."""
    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays
    from olctc.objective import tree_objective
    from olctc.solve import solve_milp
    from olctc.warmstart import warm_start

    wds, res = weighted_fit
    spec = make_spec("olct", 1)
    comp = compile_problem(wds, spec, wds.name)
    X, y, sw = comp.X, comp.dataset.y, comp.dataset.weight
    x0, _ = warm_start(comp.milp, X, y, spec, sample_weight=sw)
    solved = solve_milp(comp.milp, "highs", threads=1, start=x0, verbose=False)
    dec = decode_arrays(comp.milp, spec, X, y, solved.x, solved, trusted=True, sample_weight=sw)
    exact = tree_objective(dec.W, dec.b, X, y, spec, loss="exact", sample_weight=sw).total
    unweighted = tree_objective(dec.W, dec.b, X, y, spec, loss="exact").total
    assert res.summary["exact_objective_before_refine"] == pytest.approx(exact, rel=1e-6)
    assert exact != pytest.approx(unweighted, rel=1e-3)

def test_a_balanced_fit_records_its_class_weights() -> None:
    """12 points of class 1 and 4 of class 0, class_weight 'balanced': n / (2 n_class) recorded by label."""
    ds = from_arrays(_heart(10).X[:16], np.r_[np.zeros(4), np.ones(12)])
    s = fit(ds, make_spec("olct", 1, class_weight="balanced"), solver="highs", threads=1, verbose=False).summary
    assert s["class_weights"] == pytest.approx({"0": 2.0, "1": 2 / 3}, rel=1e-12)
    assert ", class weights 0=2, 1=0.6667 (balanced)" in summary_lines(s)[0]


def test_a_fit_without_standardising_keeps_the_features_as_given() -> None:
    s0 = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, verbose=False, standardise=False)
    assert not s0.tree.scaler.mean.any() and (s0.tree.scaler.scale == 1.0).all()


# ------------------------------------------------------------------ the report's lines
def test_the_head_and_model_lines_say_the_parts_the_spec_and_the_models_size(echoed_fit) -> None:  # noqa: F811
    s = echoed_fit[0].summary
    size = s["model_size"]
    lines = summary_lines(s)
    assert lines[0] == f"fit {s['data']} (15 train / 5 test points, seed 5): olct depth 1, C [1.0]"
    assert lines[1] == (f"model: the paper's form, {size['rows']:,} rows, {size['columns']:,} columns, "
                        f"{size['nonzeros']:,} nonzeros")
    assert size["rows"] != size["columns"]
    assert lines[3] == (f"objective: warm start {s['objective_warm_start']:.6g} -> MILP {s['objective_milp']:.6g} "
                        f"(true {s['objective_milp_true']:.6g})")


def test_a_missing_objective_is_a_dash_and_the_exact_objectives_read_in_order(echoed_fit) -> None:  # noqa: F811
    s = echoed_fit[0].summary
    lines = summary_lines({**s, "objective_milp": None, "objective_milp_true": None, "exact_objective_warm_start": 3.0,
                           "exact_objective_before_refine": 2.0, "exact_objective_after_refine": 1.0})
    assert lines[3].endswith("-> MILP - (true -)")
    assert lines[4] == "exact logistic objective: warm start 3, after MILP 2, after refinement 1"


def test_the_accuracy_and_count_lines_without_a_test_part(echoed_fit) -> None:  # noqa: F811
    s = {k: v for k, v in echoed_fit[0].summary.items() if not k.startswith("test_")}
    lines = summary_lines({**s, "n_test": 0, "nonzero_weights_per_node": [4, 0, 2]})
    assert f"balanced accuracy: train {s['train_balanced_accuracy']:.4f}" in lines
    assert "nonzero weights per node: [4, 0, 2]" in lines
    lines = summary_lines({**echoed_fit[0].summary, "test_balanced_accuracy_weighted": 0.5})
    assert not any(line.startswith("balanced accuracy, points weighted") for line in lines)


def test_class_weights_given_as_a_pair_are_not_said_balanced(echoed_fit) -> None:  # noqa: F811
    s = echoed_fit[0].summary
    head = summary_lines({**s, "spec": {**s["spec"], "class_weight": [1.0, 2.0]},
                          "class_weights": {"0": 1.0, "1": 2.0}})[0]
    assert head.endswith(", class weights 0=1, 1=2")


# ------------------------------------------------------------------ checks and small rules
@pytest.mark.parametrize("kw, message", [
    ({"leave_overrun": "yes"}, "The 'leave_overrun' parameter must be True or False"),
    ({"echo": None}, "The 'echo' parameter must be a function taking one line of text"),
    ({"threads": 0}, "The 'threads' parameter must be an integer from 1 to 1024"),
])
def test_fit_refuses_bad_arguments_before_building(kw: dict[str, Any], message: str) -> None:
    """max_nonzeros=1 makes building fail: each argument is refused first, by name."""
    with pytest.raises(OlctcError, match=f"^{message}"):
        fit(_heart(10), make_spec("olct", 1), max_nonzeros=1, **kw)


def test_a_miqp_with_the_wrong_solver_is_told_the_flag() -> None:
    with pytest.raises(OlctcError, match=r"fit it with SCIP \(--solver scip; solver='scip' in Python; or gurobi"):
        resolve_solver(make_spec("margot", 1), "cbc")


def test_a_small_objective_is_held_to_an_absolute_tolerance() -> None:
    """Below 1 the tolerance is TRUE_OBJ_RTOL itself (1e-6), not 1e-6 of the objective: a start lower by 8e-7 of
    an objective of 0.5 is no better."""
    from olctc.fit import _worse_than_start

    res = SolveResult("feasible", 0.5, None, None, None, [], "highs", "", 0.1, "")
    assert _worse_than_start(res, "highs", 0.5, 0.5 - 8e-7) is None
    assert _worse_than_start(res, "highs", 0.5, 0.5 - 2e-6) is not None


def test_the_one_class_warning_points_at_the_caller() -> None:
    """The warning is attributed to split's caller (stacklevel 2), where the test size was chosen."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split(_labelled(10, 2), 0.2, 0)
    assert [Path(w.filename).name for w in caught] == [Path(__file__).name]


def test_a_start_tree_deepened_by_copies_says_so() -> None:
    """At C 0.01 on 20 heart points, copying the depth-1 start tree's node below scores lower than fitting new
    nodes: recorded and said as copies."""
    ds, spec = _heart(10), make_spec("olct", 2, C=0.01)
    start = fit(ds, make_spec("olct", 1, C=0.01), solver="highs", threads=1, verbose=False).tree
    said: list[str] = []
    s = fit(ds, spec, solver="highs", threads=1, echo=said.append, start_tree=start).summary
    assert s["warm_start_deepened"] == "copies"
    assert "start tree deepened from depth 1: its last layer copied below" in said
