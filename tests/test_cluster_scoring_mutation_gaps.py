"""Tests from a mutation pass over olctc.cluster.scoring (QA 2026-12-06): collect's validation scores (weighted,
and a point of score exactly 0), the CV table's spread and its tie breaking, a task solved by the
gurobi_command column, what a task without a solution is told (stopped, still running), and the advice's
lists (task numbers, sbatch lines, the files to delete). Each pins a behaviour that a hand-written mutant
changed while the rest of the suite passed."""
from __future__ import annotations

import csv
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn import metrics

from conftest import cli_here
from olctc.cluster import collect, cv_table, pick_best, rerun_advice
from olctc.cluster.scoring import TaskResult, validation_score
from olctc.compile import manifest_path
from olctc.data.arrays import from_arrays
from olctc.decode import decode_file
from olctc.errors import OlctcError
from olctc.fit import fit
from olctc.spec import make_spec
from test_cluster import run_tasks_here, small_heart_csv
from test_selection_mutation_gaps import _grid_copy

#: The grid's --time-limit: a task's solve.log written less than this + 120 s ago may be a solve still running.
TIME_LIMIT = 30


@pytest.fixture(scope="module")
def weighted_grid(tmp_path_factory) -> Path:
    """A depth-1, 2-fold grid of one C on 20 heart rows whose weight column w holds 1, 2 and 3, its two HiGHS
    tasks solved in this process (no test part)."""
    return _weighted_grid(tmp_path_factory.mktemp("scoring"), "g", [1 + i % 3 for i in range(20)])


def _weighted_grid(root: Path, name: str, weights: list[int], *options: str, solve: bool = True) -> Path:
    """A depth-1 (unless ``options`` say) 2-fold grid of C 1 on 20 heart rows with weight column w = ``weights``,
    HiGHS tasks (solved in this process when ``solve``), seed 0, no test part."""
    rows = list(csv.reader(small_heart_csv(root / f"{name}h.csv", per_class=10).open()))
    with open(root / f"{name}.csv", "w", newline="") as f:
        csv.writer(f).writerows([rows[0] + ["w"]] + [r + [str(w)] for r, w in zip(rows[1:], weights)])
    res = cli_here("grid", root / f"{name}.csv", "--target", "y", "--weight-column", "w", "--depth", "1",
                   "--C-values", "1", "--folds", "2", "--test-size", "0", "--solver", "highs",
                   "--time-limit", TIME_LIMIT, "--threads", "1", *options, "-o", root / name)
    assert res.returncode == 0, res.stderr
    if solve:
        run_tasks_here(root / name)
    return root / name


# ---------------------------------------------------------------- validation scores


def test_collect_weighs_each_validation_points_log_loss_by_the_weight_column(weighted_grid) -> None:
    """Mutant: log loss scored each validation point alike, the weight column dropped (ROC AUC's weights are
    pinned in test_cluster.py). Each task's score is scikit-learn's log loss with sample_weight, negated, and
    not the unweighted one, on this data."""
    def scorer(y: np.ndarray, tree: Any, X: np.ndarray, w: np.ndarray | None) -> float:
        return -metrics.log_loss(y, tree.predict_proba(X), sample_weight=w, labels=[-1, 1])

    col = collect(weighted_grid, scoring="neg_log_loss")
    ds = col.dataset
    assert ds.weight is not None and not np.all(ds.weight == 1)
    for r in col.results:
        tree, _ = decode_file(manifest_path(weighted_grid / f"tasks/{r.task:04d}/model.mps"),
                              weighted_grid / f"tasks/{r.task:04d}/model.highs.sol")
        val = np.asarray(col.info["folds"][r.fold]["val"])
        X, y, w = ds.X[val], ds.y[val], ds.weight[val]
        assert r.score == pytest.approx(scorer(y, tree, X, w), rel=1e-12)
        assert r.score != pytest.approx(scorer(y, tree, X, None), rel=1e-6)


@pytest.mark.parametrize("scoring", ["balanced_accuracy", "accuracy"])
def test_a_validation_point_of_score_exactly_0_counts_negative(scoring) -> None:
    """Mutant K1 (and its twin in accuracy): a point of decision score exactly 0 counted positive (>= 0), where
    the tree predicts it negative (score > 0 is positive). A tree whose optimum is w = 0, b = 0 scores every
    point 0: a fold whose two classes sit symmetric gives one (tests/test_selection_mutation_gaps.py pins the
    same for the final fit's test score; collect's scoring had no such test)."""
    ds = from_arrays(np.array([[-1.0], [-1.0], [1.0], [1.0]]), np.array([1, -1, 1, -1]))
    tree = fit(ds, make_spec("olct", 1, C=[1.0]), solver="highs", threads=1).tree
    # a validation fold whose class-1 point weighs 0 (as test_cluster.py's weighted fold 0): with every score 0,
    # the tree predicts the two class -1 points right (1.0), the mutant wrong (0.0)
    X, y, w = np.array([[0.5], [-0.5], [3.0]]), np.array([-1, -1, 1]), np.array([1.0, 2.0, 0.0])
    assert tree.decision_function(X).tolist() == [0.0, 0.0, 0.0]
    assert validation_score(scoring, tree, X, y, w) == 1.0


# ---------------------------------------------------------------- the CV table and the choice of C


def test_cv_table_std_is_the_folds_population_spread() -> None:
    """Mutant: the sample std (ddof=1), and no std for one scored fold. The table's std is numpy's np.std, as
    scikit-learn's std_test_score: 3 folds 0.5, 0.9, 1.0 spread 0.2160 (0.2646 by ddof=1); one fold, 0.0 (the
    printed table shows "-" for it: its json keeps the number)."""
    res = [TaskResult(k, k % 3, (C,), score=s) for k, (C, s) in
           enumerate([(1.0, 0.5), (1.0, 0.9), (1.0, 1.0), (10.0, 0.8)])]
    table = cv_table(res, {"folds": [{}, {}, {}], "C_grid": [[1.0], [10.0]]})
    assert table[0]["std"] == pytest.approx(float(np.std([0.5, 0.9, 1.0])), abs=1e-15)
    assert table[0]["std"] == pytest.approx(0.2160, abs=1e-4)
    assert (table[1]["folds_scored"], table[1]["std"]) == (1, 0.0)


def test_means_one_rounding_apart_are_a_tie_that_the_smaller_C_wins() -> None:
    """Mutant: ties only at exactly equal means. Fold scores 0.1 and 0.7 average 0.39999999999999997 in
    doubles, 0.3 and 0.5 average 0.4: the same mean, which the smaller C wins (TIE_TOL), not the larger C
    for its last bit."""
    res = [TaskResult(k, k % 2, (C,), score=s) for k, (C, s) in
           enumerate([(1.0, 0.1), (1.0, 0.7), (10.0, 0.3), (10.0, 0.5)])]
    table = cv_table(res, {"folds": [{}, {}], "C_grid": [[1.0], [10.0]]})
    assert table[0]["mean"] < table[1]["mean"] == 0.4  # the doubles do differ
    assert pick_best(table) == (1.0,)


def test_a_validation_row_whose_score_overflows_stops_collect_naming_its_data_row(tmp_path) -> None:
    """A huge row (1e308 in every feature) of heart's 20: its score overflows where it validates. The task was left
    unscored, named by the row's place in its fold, with "collect again with another --scoring", which no scoring
    helps. As cross_validate, collect now stops, naming the task and the row in the data (line 5 of the file)."""
    rows = list(csv.reader(small_heart_csv(tmp_path / "h.csv", per_class=10).open()))
    target = rows[0].index("y")
    rows[4] = [c if j == target else "1e308" for j, c in enumerate(rows[4])]
    with open(tmp_path / "big.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    res = cli_here("grid", tmp_path / "big.csv", "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                   "--test-size", "0", "--solver", "highs", "--time-limit", TIME_LIMIT, "--threads", "1",
                   "-o", tmp_path / "g")
    assert res.returncode == 0, res.stderr
    run_tasks_here(tmp_path / "g")
    with pytest.raises(OlctcError) as exc:
        collect(tmp_path / "g")
    assert re.fullmatch(r"task 000[01] \(fold [01], C 1\): validation row 3 of the data: the score of node 0 "
                        r"overflows \(values too large for the tree's weights\); rescale the data and make the grid "
                        r"again", str(exc.value)), str(exc.value)


def test_collect_refuses_a_grid_json_whose_row_count_is_not_the_datas(weighted_grid, tmp_path) -> None:
    """Mutant: collect's check of data.n against the data dropped. A grid.json whose data.n says more rows than
    the data has (every row number of it still below n, so read_grid passes it) is a damaged file: refused, not
    scored."""
    g, info = _grid_copy(weighted_grid, tmp_path)
    info["data"]["n"] += 1
    (g / "grid.json").write_text(json.dumps(info))
    with pytest.raises(OlctcError, match=r"grid.json: field 'data.n' is 21, but the data has 20 rows; the file is "
                                         r"damaged \(edited\?\)$"):
        collect(g)


# ---------------------------------------------------------------- tasks without a usable solution


def test_a_task_solved_by_the_gurobi_command_column_is_scored(weighted_grid, tmp_path) -> None:
    """Mutant: collect looked only at the task's own solution name. A task whose solve ran the gurobi_command
    column has model.gurobi.sol instead (and an empty own file, as a failed first run leaves): it is scored from
    that file, status unknown (a Gurobi file says none), with the same score as its own solver's solution."""
    from olctc.compile import read_manifest
    from olctc.milp import names_from_block_map
    from olctc.read.api import read_solution

    g, _ = _grid_copy(weighted_grid, tmp_path)
    before = {r.task: r.score for r in collect(g).results}
    own = g / "tasks/0001/model.highs.sol"
    sol = read_solution(own)
    names = names_from_block_map(read_manifest(g / "tasks/0001/model.olctc.json", check_model=False)
                                 ["blocks"]["columns"])
    (g / "tasks/0001/model.gurobi.sol").write_text(f"# Solution for model m\n# Objective value = {sol.objective!r}\n"
                                                   + "".join(f"{n} {sol.values.get(str(n), 0.0)!r}\n" for n in names))
    own.write_text("")
    (g / "tasks/0001/solve.log").write_text("")
    col = collect(g)
    r = col.results[1]
    assert (r.problem, r.status, r.warnings) == (None, "unknown", [])
    assert r.score == pytest.approx(before[1], abs=1e-12)


def _stopped_task(g: Path, log: str) -> Path:
    """Task 1 of grid ``g`` left as a stopped run leaves it: its solution back at its .part name, its solve.log
    ``log``; the solution's path."""
    sol = g / "tasks/0001/model.highs.sol"
    sol.rename(f"{sol}.part")
    (g / "tasks/0001/solve.log").write_text(log)
    return sol


def test_an_interrupted_solve_is_stopped_not_a_finished_one_left_unrenamed(weighted_grid, tmp_path) -> None:
    """Mutant: the "interrupted" line not looked at. olctc solve interrupted writes the best solution so far to
    the .part, says "solution written to ...part", then "interrupted (...)" (cli.py): that .part is a stopped
    solve's, not a finished one to rename (the advice to mv it would have scored a partial solve as final).
    DEFECT fixed with this test: the "solution written to" line made collect take such a log for an ended solve,
    so the real log lost the "stopped" explanation and Slurm's reason (test_cluster.py wrote only the last line)."""
    g, _ = _grid_copy(weighted_grid, tmp_path)
    _stopped_task(g, "status feasible (highs: Interrupted), objective 1.0\nsolution written to "
                     "tasks/0001/model.highs.sol.part\ninterrupted (the best solution found until then was written)\n")
    col = collect(g)
    r = col.results[1]
    assert r.unrenamed is None
    assert r.problem == ("missing solution (last line of solve.log: interrupted (the best solution found until then "
                         "was written)); the task was stopped (cancelled, killed, or its node lost): "
                         "model.highs.sol.part holds its best solution until then, which collect does not score")
    assert "mv " not in rerun_advice(col.results, g, len(col.results))
    # Slurm's log says why: the job's time limit, whose advice (more job time) the ended-solve branch dropped
    (g / "logs").mkdir(exist_ok=True)
    (g / "logs/task-1.out").write_text("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 DUE TO "
                                       "TIME LIMIT ***\n")
    assert "; the task was killed at its job's time limit (give the job more time" in str(collect(g).results[1].problem)


def test_a_task_whose_log_was_written_within_its_time_limit_and_2_minutes_may_still_be_running(weighted_grid,
                                                                                                tmp_path) -> None:
    """Mutant: "still running?" only while the log is younger than the grid's time limit. A solver can print
    nothing for a while past its limit: a log 100 s past the 30 s limit may still be a running solve (resubmitted,
    it would be solved twice), one 200 s past it is not."""
    g, _ = _grid_copy(weighted_grid, tmp_path)
    (g / "tasks/0001/model.highs.sol").unlink()
    log = g / "tasks/0001/solve.log"
    log.write_text("Running HiGHS 1.7.0\n")
    for past, running in ((100, True), (200, False)):
        then = time.time() - TIME_LIMIT - past
        os.utime(log, (then, then))
        r = collect(g).results[1]
        assert r.running is running, (past, r.problem)
        assert ("still running?" in str(r.problem)) is running


# ---------------------------------------------------------------- the advice's lists


def _missing(ids: list[int]) -> list[TaskResult]:
    return [TaskResult(k, 0, (1.0,), problem="missing solution (last line of solve.log: x)") for k in ids]


def test_the_advice_lists_sbatch_lines_for_at_most_50_array_entries(tmp_path) -> None:
    """Mutant: the sbatch lines always given. 50 scattered tasks (50 --array entries) get them; 51 do not (then
    resubmitting the whole array is simpler than a line of 51 numbers)."""
    for n, listed in ((50, True), (51, False)):
        advice = rerun_advice(_missing(list(range(0, 2 * n, 2))), tmp_path, 2 * n)
        assert ("only these: (cd " in advice) is listed, advice[:200]
        assert advice.startswith("run the missing tasks again (resubmit; solved tasks are skipped)")


def test_the_advice_names_up_to_10_unusable_files_and_counts_more(tmp_path) -> None:
    """Mutant: every unusable file named, however many. Up to 10 are listed for rm; more are counted (the table
    above lists each task's problem)."""
    def results(n: int) -> list[TaskResult]:
        return [TaskResult(k, 0, (1.0,), problem="unusable solution: x", unusable=tmp_path / f"{k}.sol")
                for k in range(n)]

    ten = rerun_advice(results(10))
    assert ten.startswith("delete the unusable solution file(s) first (rm " + " ".join(
        str(tmp_path / f"{k}.sol") for k in range(10)) + ": resubmitting skips"), ten
    assert rerun_advice(results(11)).startswith(
        "delete the unusable solution file(s) first (delete the 11 unusable solution files of the tasks listed above: "
        "resubmitting skips every task that has a solution file), then run the missing tasks again")


def test_task_lists_show_the_first_ten_numbers_then_dots() -> None:
    """Mutant: every task number listed. A grid of thousands of tasks would print them all in one note."""
    foreign = [TaskResult(k, 0, (1.0,), problem="another grid's task: x", foreign=True) for k in range(3, 15)]
    assert rerun_advice(foreign[:10]).startswith(
        "task folder(s) 0003, 0004, 0005, 0006, 0007, 0008, 0009, 0010, 0011, 0012 hold another grid's files")
    assert rerun_advice(foreign).startswith(
        "task folder(s) 0003, 0004, 0005, 0006, 0007, 0008, 0009, 0010, 0011, 0012, ... hold another grid's files")
