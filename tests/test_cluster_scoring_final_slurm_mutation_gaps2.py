"""Tests from a second mutation pass over olctc.cluster.scoring, final and slurm (QA 2026-12-07): collect's scorers
and their names, what a task without a solution is told from its logs (a solve ended short, a finished file left
under its .part.sol name, a cancelled job), the task's flags the advice relies on, the CV table and its notes, the
sbatch lines of the advice, the final fit and the job scripts as bash runs them. Each pins a behaviour that a
hand-written mutant changed while the targeted tests passed."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics

from olctc.cluster import collect, rerun_advice
from olctc.cluster.scoring import SCORINGS, TaskResult, validation_score
from olctc.data.arrays import from_arrays
from olctc.fit import fit
from olctc.spec import make_spec
from test_cluster_final_slurm_mutation_gaps import _missing_task, _submit_with_fake_sbatch
from test_cluster_scoring_mutation_gaps import _weighted_grid, weighted_grid  # noqa: F401  (a fixture)
from test_selection_mutation_gaps import _grid_copy


# ---------------------------------------------------------------- the scorers


@pytest.fixture(scope="module")
def scored_tree():
    """A depth-1 tree fitted by HiGHS on 12 overlapping points, and a weighted validation set for it."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 2))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=12) > 0, 1, -1)
    tree = fit(from_arrays(X, y), make_spec("olct", 1, C=[1.0]), solver="highs", threads=1).tree
    Xv = rng.normal(size=(10, 2))
    yv = np.array([1, -1] * 5)
    wv = np.array([1.0, 3.0, 2.0, 1.0, 5.0, 1.0, 1.0, 2.0, 4.0, 1.0])
    return tree, Xv, yv, wv


def test_roc_auc_and_brier_score_are_scikit_learns_weighted_ones(scored_tree) -> None:
    """Mutants: ROC AUC's weights dropped; the Brier score of the negative class's probability; the Brier score
    not negated (collect takes the greatest score as the best). Each is scikit-learn's, points weighted."""
    tree, X, y, w = scored_tree
    p = tree.predict_proba(X)[:, 1]
    assert not np.allclose(p, 0.5)
    auc = metrics.roc_auc_score(y, tree.decision_function(X), sample_weight=w)
    assert auc != pytest.approx(metrics.roc_auc_score(y, tree.decision_function(X)), abs=1e-6)
    assert validation_score("roc_auc", tree, X, y, w) == pytest.approx(auc, abs=1e-12)
    brier = metrics.brier_score_loss(y, p, sample_weight=w, pos_label=1)
    assert brier != pytest.approx(metrics.brier_score_loss(y, 1 - p, sample_weight=w, pos_label=1), abs=1e-6)
    assert validation_score("neg_brier_score", tree, X, y, w) == pytest.approx(-brier, abs=1e-12)


def test_the_scorings_names_and_headers() -> None:
    """The names collect's messages use ("no negative Brier score on validation fold 0") and the table's headers.
    Mutant: "Brier score" for the negated one."""
    assert {k: (s.name, s.header) for k, s in SCORINGS.items()} == {
        "balanced_accuracy": ("balanced accuracy", "bal.acc"), "accuracy": ("accuracy", "acc"),
        "roc_auc": ("ROC AUC", "roc_auc"), "neg_log_loss": ("negative log loss", "-log_loss"),
        "neg_brier_score": ("negative Brier score", "-brier")}


# ---------------------------------------------------------------- a task without a solution


@pytest.mark.parametrize("line", [
    "error: the solver stopped without a solution: its time limit came before it found one",
    "error: a time limit of 2 s leaves no time to solve: building the model took 3.0 s",
    "error: no time is left to solve: HiGHS stopped reading model file m.mps when the limit came",
    "error: highs was still running past its time limit (work that checks no clock) and was left"])
def test_a_solve_that_ended_for_lack_of_time_is_short(tmp_path, line) -> None:
    """Mutants: one phrasing of each dropped from _ENDED_SHORT; r.short not set. Each error line olctc writes when
    a solve ends with no solution for lack of time marks the task short (solving it again the same way cannot
    help), even with a warning after it."""
    r = _missing_task(tmp_path, f"Running\n{line}\nUserWarning: something at exit\n")
    assert r.short and not r.running
    assert r.problem == "missing solution (last line of solve.log: UserWarning: something at exit)"
    assert rerun_advice([r]).startswith("task(s) 0001 ended with no solution within the grid's --time-limit")


def test_a_solve_log_that_cannot_be_read_is_a_task_not_run(tmp_path) -> None:
    """Mutant: only a missing log (FileNotFoundError) caught. A solve.log that is a folder (or unreadable) gives
    no lines: the task reads as not run yet, with no traceback."""
    d = tmp_path / "tasks" / "0001"
    (d / "solve.log").mkdir(parents=True)
    from olctc.cluster.scoring import _why_missing

    r = TaskResult(1, 0, (1.0,))
    _why_missing(r, d / "model.highs.sol", tmp_path, 30.0)
    assert r.problem == "missing solution (not run yet?)"


def test_a_finished_solution_left_as_part_sol_is_to_rename(tmp_path) -> None:
    """Mutants: only PART checked, not PART.sol (the name a solver that adds '.sol' gives it); the rename's
    (from, to) swapped. A finished solve whose file is SOLUTION.part.sol is told to mv it onto SOLUTION."""
    sol = tmp_path / "tasks" / "0001" / "model.highs.sol"
    part = Path(f"{sol}.part.sol")
    (tmp_path / "tasks" / "0001").mkdir(parents=True)
    part.write_text("x\n")
    log = "status optimal (highs: Optimal), objective 1\nsolution written to tasks/0001/model.highs.sol.part.sol\n"
    (sol.parent / "solve.log").write_text(log)
    from olctc.cluster.scoring import _why_missing

    r = TaskResult(1, 0, (1.0,))
    _why_missing(r, sol, tmp_path, 30.0)
    assert r.unrenamed == (part, sol)
    assert r.problem.endswith(f"the task was stopped before it renamed the file: mv {part} {sol}, then collect again "
                              "(no solve needed)")


def test_a_solve_that_ended_in_an_error_is_not_still_running(tmp_path) -> None:
    """Mutant: only "solution written to" read as a solve's end. A fresh log whose solve ended in an error is an
    ended solve (rerun once the cause is gone), not one "still running?" that the advice says to wait for."""
    r = _missing_task(tmp_path, "Running HiGHS\nerror: cannot read model.mps: truncated\n")
    assert not r.running
    assert r.problem == "missing solution (last line of solve.log: error: cannot read model.mps: truncated)"


@pytest.mark.parametrize("slurm, how", [
    ("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 DUE TO PREEMPTION ***",
     "cancelled by Slurm (preemption)"),
    ("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 ***", "cancelled (scancel)")])
def test_a_stopped_task_names_how_slurm_ended_it(tmp_path, slurm, how) -> None:
    """Mutants: Slurm's reason shown in capitals; a plain scancel not told apart from a lost node. The task's
    Slurm log says how its job ended."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "task-1.out").write_text("task 1: olctc solve ...\n" + slurm + "\n")
    r = _missing_task(tmp_path, "Running HiGHS\n", part=True)
    assert r.problem == (f"missing solution (last line of solve.log: Running HiGHS); the task was {how}: "
                         "model.highs.sol.part holds its best solution until then, which collect does not score")


# ---------------------------------------------------------------- a task's flags, read from a real grid


def test_collect_flags_unusable_foreign_and_empty_solutions(weighted_grid, tmp_path) -> None:  # noqa: F811
    """Mutants: an unusable solution not recorded as such (the advice then lacks its rm); a foreign task not
    flagged (the advice then says to resubmit it, solving the other grid's model); an empty solution file decoded
    (and called unusable) instead of missing."""
    g, _ = _grid_copy(weighted_grid, tmp_path)
    bad = g / "tasks/0000/model.highs.sol"
    bad.write_text("Model status\nOptimal\n")  # cut short
    (g / "tasks/0001/model.highs.sol").write_text("")
    (g / "tasks/0001/solve.log").write_text("")
    col = collect(g)
    r0, r1 = col.results
    assert r0.unusable == bad and r0.problem.startswith("unusable solution: ")
    assert (r1.problem, r1.unusable) == ("missing solution (not run yet?)", None)
    assert rerun_advice(col.results).startswith(f"delete the unusable solution file(s) first (rm {bad}: ")
    # the two task folders swapped: each was compiled on the other fold's training rows
    h, _ = _grid_copy(weighted_grid, tmp_path / "swap")
    os.rename(h / "tasks/0000", h / "tmp")
    os.rename(h / "tasks/0001", h / "tasks/0000")
    os.rename(h / "tmp", h / "tasks/0001")
    col = collect(h)
    assert [r.foreign for r in col.results] == [True, True]
    assert rerun_advice(col.results, h, 2).startswith("task folder(s) 0000, 0001 hold another grid's files")


def test_an_empty_gurobi_file_beside_a_scored_solution_is_no_second_solution(weighted_grid,  # noqa: F811
                                                                             tmp_path) -> None:
    """Mutant: any model.gurobi.sol warned of. An empty one (a gurobi_command run that failed) holds no solution:
    no warning that two were there."""
    g, _ = _grid_copy(weighted_grid, tmp_path)
    (g / "tasks/0001/model.gurobi.sol").write_text("")
    r = collect(g).results[1]
    assert r.score is not None and r.warnings == []


def test_a_bent_task_is_not_noted_as_unproven(tmp_path) -> None:
    """Mutant: the table's "not proven optimal" note counting a task whose solver bent its tolerances (status
    feasible as decode records it): its own warning says why, which is no time limit."""
    from olctc.cluster.scoring import Collected, cv_table, table_lines

    info = {"folds": [{}, {}], "C_grid": [[1.0]], "tasks": [{}, {}]}
    warning = "the solver's objective differs from the tree's (tolerances)"
    res = [TaskResult(0, 0, (1.0,), score=0.8, status="optimal"),
           TaskResult(1, 1, (1.0,), score=0.7, status="feasible", bent=True, warnings=[warning])]
    lines = table_lines(Collected(res, cv_table(res, info), (1.0,), info, tmp_path))
    assert f"  task 0001: warning: {warning}" in lines
    assert not any("not proven optimal" in ln for ln in lines), lines


# ---------------------------------------------------------------- solve.log's status, why a score is undefined


def test_solve_log_status_reads_the_last_line_of_the_solver_asked(tmp_path) -> None:
    """Mutants: a line of another solver taken; the first line taken, not the last; an unreadable log called
    feasible. olctc solve's status lines of a rerun follow the first run's: the last for the format asked counts;
    a missing log is "unknown"."""
    from olctc.cluster.scoring import solve_log_status

    log = tmp_path / "solve.log"
    log.write_text("status feasible (gurobi: TIME_LIMIT), objective 2\nstatus optimal (gurobi: OPTIMAL), objective 1\n"
                   "status feasible (copt: timeout), objective 3\n")
    assert solve_log_status(log, "gurobi") == "optimal"
    assert solve_log_status(log, "copt") == "feasible"
    assert solve_log_status(tmp_path / "none.log", "gurobi") == "unknown"


def test_why_undefined_names_the_weightless_class_and_its_column_only_when_it_has_points() -> None:
    """Mutants: the weight column named for a class absent from the fold; a class of weight 0 not found. A class
    with points of weight 0 names the column; a class without points there does not."""
    from olctc.cluster.scoring import why_undefined

    y = np.array([-1, -1, 1])
    assert why_undefined(y, np.array([1.0, 1.0, 0.0]), ["no", "yes"], "w") == (
        "class 'yes' has no weight on this fold (its points weigh 0 in column 'w')")
    assert why_undefined(np.array([-1, -1]), np.array([1.0, 1.0]), ["no", "yes"], "w") == (
        "class 'yes' has no weight on this fold")
    assert why_undefined(y, np.array([1.0, 1.0, 2.0]), ["no", "yes"], "w") == "the scorer gave nan"


# ---------------------------------------------------------------- the CV table and the choice


def test_cv_table_counts_scored_folds_only_and_keys_scores_by_fold_text() -> None:
    """Mutants: folds_scored counting tasks with a problem; the fold scores keyed by int (cv_results.json's keys
    are text, and a table read back must compare equal). An incomplete row, however good, is no candidate."""
    from olctc.cluster.scoring import cv_table, pick_best

    res = [TaskResult(0, 0, (1.0,), score=0.9), TaskResult(1, 1, (1.0,), problem="missing solution (x)"),
           TaskResult(2, 0, (10.0,), score=0.6), TaskResult(3, 1, (10.0,), score=0.7)]
    table = cv_table(res, {"folds": [{}, {}], "C_grid": [[1.0], [10.0]]})
    assert table[0] == {"C": [1.0], "folds_scored": 1, "folds": 2, "mean": 0.9, "std": 0.0, "scores": {"0": 0.9}}
    assert table[1]["scores"] == {"0": 0.6, "1": 0.7}
    assert pick_best(table) == (10.0,)


def test_a_tie_of_equal_sums_goes_to_the_smaller_C_tuple_in_layer_order() -> None:
    """Mutant: the tuples compared from the last layer. (1, 3) and (3, 1) tie in mean and sum: (1, 3) wins."""
    from olctc.cluster.scoring import pick_best

    table = [{"C": [3.0, 1.0], "folds_scored": 2, "folds": 2, "mean": 0.8},
             {"C": [1.0, 3.0], "folds_scored": 2, "folds": 2, "mean": 0.8}]
    assert pick_best(table) == (1.0, 3.0)


def test_the_table_prints_means_to_4_places_under_the_scorings_header() -> None:
    """Mutants: 3 places; the scoring's name for its header; a narrower C column; a spread shown for one scored
    fold. Exact lines of a table."""
    from olctc.cluster.scoring import score_table_lines

    table = [{"C": [0.5], "folds_scored": 2, "folds": 2, "mean": -0.123456, "std": 0.01234},
             {"C": [10.0], "folds_scored": 2, "folds": 2, "mean": -0.2, "std": 0.0},
             {"C": [100.0], "folds_scored": 1, "folds": 2, "mean": -0.1, "std": 0.0}]
    assert score_table_lines(table, (0.5,), "neg_brier_score") == [
        "C1        folds  mean -brier    std",
        "0.5       2/2    -0.1235       0.0123 <- best",
        "10        2/2    -0.2000       0.0000",
        "100       1/2    -0.1000       -",
        "note: 1 C combination(s) without every fold scored are not candidates"]


# ---------------------------------------------------------------- the final fit


def _four_points_info(**extra):
    """Five points of x = -1, 1 (both classes at each), a grid's info training on the first four, testing on the
    last (as test_selection_mutation_gaps' case)."""
    ds = from_arrays(np.array([[-1.0], [-1.0], [1.0], [1.0], [1.0]]), np.array([1, -1, 1, -1, -1]))
    info = {"train_rows": [0, 1, 2, 3], "test_rows": [4], "spec": make_spec("olct", 1, C=[1.0]).to_json(),
            "seed": 0, "folds": [{}, {}], "time_limit": 30, **extra}
    return info, ds


def test_the_final_fit_trains_on_the_training_part_with_the_grids_solver_and_nonzero_limit() -> None:
    """Mutants: final_dataset the whole data; a grid of cbc-cli not finished by CBC in process (its twin); the
    grid's seed or --max-nonzeros not passed to the final fit; collect's --time-limit not replacing the grid's."""
    from olctc.cluster.final import final_dataset, fit_final
    from olctc.errors import OlctcError, TimeLimitTooShort

    info, ds = _four_points_info(solver="cbc-cli", seed=7)
    assert final_dataset(info, ds).X.tolist() == [[-1.0], [-1.0], [1.0], [1.0]]
    res, _ = fit_final(info, ds, (1.0,), threads=1)
    assert (res.summary["solver"], res.summary["seed"]) == ("cbc", 7)
    with pytest.raises(TimeLimitTooShort, match="leaves no time to solve"):
        fit_final(info, ds, (1.0,), threads=1, time_limit=0.1)
    assert res.tree.meta["fit"]["n_train"] == 4
    with pytest.raises(OlctcError, match="nonzeros"):
        fit_final({**info, "max_nonzeros": 3}, ds, (1.0,), threads=1)


def test_the_final_fits_weighted_test_score_weighs_the_test_points() -> None:
    """Mutant: the weighted test balanced accuracy computed without the weights."""
    from olctc.cluster.final import fit_final
    from olctc.fit import balanced_accuracy

    X = np.array([[-2.0], [-1.0], [1.0], [2.0], [-1.5], [1.5], [0.5], [-0.5]])
    y = np.array([-1, -1, 1, 1, -1, 1, -1, 1])
    ds = from_arrays(X, y, sample_weight=np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 5.0, 1.0]))
    info = {"train_rows": [0, 1, 2, 3], "test_rows": [4, 5, 6, 7], "spec": make_spec("olct", 1, C=[1.0]).to_json(),
            "seed": 0, "folds": [{}, {}], "time_limit": 30}
    res, acc = fit_final(info, ds, (1.0,), solver="highs", threads=1)
    te = ds.subset(np.array([4, 5, 6, 7]))
    pred = np.where(res.tree.decision_function(te.X) > 0, 1, -1)
    weighted = balanced_accuracy(te.y, pred, te.weight)
    assert weighted != pytest.approx(acc)
    assert res.tree.meta["fit"]["test_balanced_accuracy_weighted"] == pytest.approx(weighted, abs=1e-12)


def test_a_final_time_limit_too_short_names_collects_option_only_when_it_was_the_grids() -> None:
    """Mutants: the hint "(the final fit takes the grid's --time-limit unless ...)" given when collect's own limit
    was too short, and not when the grid's was; the grid's limit not checked when collect gives none."""
    from olctc.cluster.final import check_final_time_limit
    from olctc.errors import TimeLimitTooShort

    hint = "(the final fit takes the grid's --time-limit unless collect is given one"
    with pytest.raises(TimeLimitTooShort) as grid_s:
        check_final_time_limit({"time_limit": 0.1}, None)
    assert hint in str(grid_s.value)
    with pytest.raises(TimeLimitTooShort) as own:
        check_final_time_limit({"time_limit": 30}, 0.1)
    assert hint not in str(own.value)
    check_final_time_limit({"time_limit": 0.1}, 30)  # collect's own limit replaces the grid's


def test_emit_final_refuses_a_file_named_final(tmp_path) -> None:
    """Mutant: a file where final/ goes not checked before collect decodes every task."""
    from olctc.cluster.final import check_final_folder
    from olctc.errors import OlctcError

    (tmp_path / "final").write_text("x")
    with pytest.raises(OlctcError, match=r"final/model\.mps: .*final exists and is not a folder$"):
        check_final_folder(tmp_path)


# ---------------------------------------------------------------- the job scripts


def test_slurm_times_round_up_and_show_days() -> None:
    """Mutants: seconds truncated (59.5 s asked, 59 s given: Slurm kills the task first); the hours of a time of
    days not padded (Slurm reads D-HH:MM:SS); the 15% + 30 s margin of long limits."""
    from olctc.cluster.slurm import _slurm_time, job_seconds

    assert _slurm_time(59.5) == "00:01:00"
    assert _slurm_time(90061) == "1-01:01:01"
    assert job_seconds(7200) == 7200 + 0.15 * 7200 + 30


def test_job_array_header_lines_of_a_later_array(tmp_path) -> None:
    """Mutants: the array's last index one too many; the log of a later array named by its index (tasks 1000+
    would overwrite tasks 0+'s logs); --open-mode=append dropped; the account only with a partition; a memory size
    in Slurm's 'GB' refused; an empty partition passed; the last array's task count not cut to the grid's."""
    from olctc.cluster import SlurmOptions, check_slurm_options, slurm_script, submit_scripts
    from olctc.errors import OlctcError

    text = slurm_script(2500, 60, SlurmOptions(job_name="x", account="proj1"), first=2000)
    for line in ("#SBATCH --array=0-499", "#SBATCH --output=logs/task-2%3a.out", "#SBATCH --open-mode=append",
                 "#SBATCH --account=proj1"):
        assert f"\n{line}\n" in text, line
    assert "--partition" not in text
    assert submit_scripts(2500)[-1] == ("submit-2000.slurm", 2000, 500)
    check_slurm_options(SlurmOptions(mem="4GB"))
    with pytest.raises(OlctcError, match="The 'partition' parameter must be"):
        check_slurm_options(SlurmOptions(partition=""))


def test_a_later_arrays_index_runs_its_own_task_from_the_submit_folder(tmp_path) -> None:
    """Mutants: array index k of submit-1000.slurm run as task k, not 1000 + k; the job not moved to
    SLURM_SUBMIT_DIR (Slurm starts it there, but srun/sbatch --chdir may not); a failed command's status lost."""
    from olctc.cluster import SlurmOptions, slurm_script
    from test_cluster_final_slurm_mutation_gaps import _ran, _tasks

    g = tmp_path / "g"
    g.mkdir()
    _tasks(g, [3, 1003, 1004])
    jobs = g / "jobs.tsv"
    jobs.write_text(jobs.read_text().replace("echo cmd 1004 >> ran.txt", "exit 4"))
    (g / "submit-1000.slurm").write_text(slurm_script(2500, 60, SlurmOptions(job_name="x"), first=1000))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")} | {"SLURM_SUBMIT_DIR": str(g)}
    runs = [subprocess.run(["bash", str(g / "submit-1000.slurm")], cwd=tmp_path, capture_output=True, text=True,
                           timeout=60, env={**env, "SLURM_ARRAY_TASK_ID": k}) for k in ("3", "4")]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[1].returncode == 4, runs[1].stderr
    assert _ran(g) == "cmd 1003\n"


def test_a_task_held_by_another_run_is_skipped(tmp_path) -> None:
    """Mutant: the lock's conflict (flock -E 75) not acted on. While another process holds t0/run.lock, task 0
    is left to it: skipped, exit 0, its command not run."""
    import fcntl

    from test_cluster_final_slurm_mutation_gaps import _array_task, _ran, _tasks

    _tasks(tmp_path, [0])
    with open(tmp_path / "t0" / "run.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        r = _array_task(tmp_path, "0")
    assert (r.returncode, r.stdout) == (0, "task 0: running in another process, skipped\n"), r.stderr
    assert _ran(tmp_path) == ""


def test_run_local_runs_every_task_names_a_failed_ones_folder_and_exits_1(tmp_path) -> None:
    """Mutants: jobs.tsv's header read as a task; a failed task's folder not named; the run's status 0 after a
    failed task; a folder without jobs.tsv run (nothing done, exit 0)."""
    from olctc.cluster import local_script
    from test_cluster_final_slurm_mutation_gaps import _ran, _tasks

    _tasks(tmp_path, [0, 1, 2])
    jobs = tmp_path / "jobs.tsv"
    jobs.write_text(jobs.read_text().replace("echo cmd 1 >> ran.txt", "exit 3"))
    (tmp_path / "run_local.sh").write_text(local_script())
    r = subprocess.run(["bash", "run_local.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert r.stderr == "task 1 failed (see t1/solve.log)\n"
    assert _ran(tmp_path) == "cmd 0\ncmd 2\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "run_local.sh").write_text(local_script())
    r = subprocess.run(["bash", "run_local.sh"], cwd=empty, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "jobs.tsv not found in " in r.stderr, r.stderr


def test_submit_sh_lists_its_arrays_and_passes_its_options_to_each_sbatch(tmp_path) -> None:
    """Mutants: the arrays not named in submit.sh's header; its options (bash submit.sh --partition=short) not
    passed to sbatch. A fake sbatch records its arguments."""
    from olctc.cluster import submit_all_script

    text = submit_all_script(3)
    assert "# (3 job array(s): submit.slurm, submit-1000.slurm, submit-2000.slurm). " in text
    r = _submit_with_fake_sbatch(tmp_path, 'echo "$@" >> "$(dirname "$0")/args.txt"', "--partition=short")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "bin" / "args.txt").read_text() == "--partition=short submit.slurm\n"


# ---------------------------------------------------------------- the advice's sbatch lines and notes


def test_resubmit_lines_give_ranges_of_array_indices() -> None:
    """Mutants: runs of tasks listed one by one; runs grouped wrongly; task numbers unsorted or repeated; a later
    array's tasks given as task numbers, not its indices."""
    from olctc.cluster import resubmit_commands

    assert resubmit_commands("g", [7, 1, 2, 3, 2, 1005, 1006, 1009], 1500) == [
        "(cd g && sbatch --array=1-3,7 submit.slurm)", "(cd g && sbatch --array=5-6,9 submit-1000.slurm)"]


def test_the_advice_counts_array_entries_and_names_run_local_by_its_path(tmp_path) -> None:
    """Mutants: the 50-entry limit counted in sbatch lines, not --array entries (two arrays of 30 scattered tasks
    each would get a line of 60 numbers); run_local.sh named without its folder."""
    def missing(ids):
        return [TaskResult(k, 0, (1.0,), problem="missing solution (last line of solve.log: x)") for k in ids]

    few = rerun_advice(missing([1, 3]), tmp_path, 10)
    assert few.endswith(f"; only these: (cd {tmp_path} && sbatch --array=1,3 submit.slurm), or "
                        f"{tmp_path / 'run_local.sh'} without Slurm")
    many = missing(list(range(0, 60, 2)) + list(range(1000, 1060, 2)))
    assert "only these" not in rerun_advice(many, tmp_path, 1100)


def test_an_unrenamed_task_is_not_to_solve_again_and_a_running_one_is_waited_for(tmp_path) -> None:
    """Mutants: a task whose finished .part only needs its mv counted among those to solve again; the wait for a
    task still running only said when a solution is unusable."""
    part, sol = tmp_path / "s.part", tmp_path / "s"
    moved = TaskResult(1, 0, (1.0,), problem="missing solution (x)", unrenamed=(part, sol))
    assert rerun_advice([moved]) == (f"rename the finished solution file(s) of task(s) 0001 (mv {part} {sol}), then "
                                     "collect again: no solve needed")
    running = TaskResult(2, 0, (1.0,), problem="missing solution (x); still running?", running=True)
    assert rerun_advice([running]).startswith("task(s) 0002 may still be running: wait for them to end, then run "
                                              "the missing tasks again")
    queued = TaskResult(3, 0, (1.0,), problem="missing solution (not run yet?)")
    ended = TaskResult(4, 0, (1.0,), problem="missing solution (last line of solve.log: error: x)")
    assert rerun_advice([queued, ended]).startswith("if the grid's jobs are still queued or running, wait for them")


def test_table_lines_count_scored_tasks_and_note_each_kind_of_problem(tmp_path) -> None:
    """Mutants: every task counted scored; Gurobi's "unknown" status counted as not proven optimal; every warning
    of a task after its first dropped; the advice for unscored tasks, or for unscorable ones alone, left out."""
    from olctc.cluster.scoring import Collected, cv_table, table_lines

    info = {"folds": [{}, {}], "C_grid": [[1.0]], "tasks": [{}, {}, {}]}
    res = [TaskResult(0, 0, (1.0,), score=0.8, status="unknown", warnings=["one", "two"]),
           TaskResult(1, 1, (1.0,), score=0.7, status="feasible"),
           TaskResult(2, 1, (1.0,), problem="no ROC AUC on validation fold 1: x", unscorable=True)]
    lines = table_lines(Collected(res, cv_table(res, info), None, info, tmp_path, scoring="roc_auc"))
    assert "tasks: 2 of 3 scored" in lines
    assert ["  task 0000: warning: one", "  task 0000: warning: two"] == [ln for ln in lines if "warning" in ln]
    notes = [ln for ln in lines if ln.startswith("note: ")]
    assert len(notes) == 3
    assert notes[0].startswith("note: 1 of the scored tasks are not proven optimal (status feasible; tasks 0001)")
    assert notes[1].startswith("note: 1 of the scored tasks come from Gurobi, COPT or Xpress solution files")
    assert notes[2] == ("note: task(s) 0002 are solved, but the scoring is undefined on their validation folds "
                        "(solving them again changes nothing): collect again with another --scoring")
    res[1] = TaskResult(1, 1, (1.0,), problem="missing solution (not run yet?)")
    lines = table_lines(Collected(res, cv_table(res, info), None, info, tmp_path, scoring="roc_auc"))
    assert lines[-1].startswith("note: to solve the unscored tasks, if the grid's jobs are still queued")


# ---------------------------------------------------------------- another grid's task folder; collect's checks


def test_collect_tells_another_grids_task_by_its_spec_or_data(tmp_path) -> None:
    """Mutants: the spec's other fields not compared; the data's sha256 compared only when grid.json has none. A
    task folder of a grid of another big-M, or of other weights on the same rows, is another grid's task."""
    g = _weighted_grid(tmp_path, "g", [1 + i % 3 for i in range(20)], solve=False)
    big = _weighted_grid(tmp_path, "b", [1 + i % 3 for i in range(20)], "--big-m", "50", solve=False)
    other = _weighted_grid(tmp_path, "o", [1 + i % 2 for i in range(20)], solve=False)
    for t, src in ((0, big), (1, other)):
        shutil.rmtree(g / f"tasks/000{t}")
        shutil.copytree(src / f"tasks/000{t}", g / f"tasks/000{t}")
        (g / f"tasks/000{t}/model.highs.sol").write_text("Model status\nOptimal\n")
    r0, r1 = collect(g).results
    assert (r0.foreign, r0.problem) == (True, "another grid's task: its model was compiled with big_m 50.0, the "
                                              "grid's with 100.0")
    assert (r1.foreign, r1.problem) == (True, "another grid's task: its model was compiled from other data (sha256) "
                                              "than the grid's")


def test_training_rows_of_weight_0_left_out_by_compile_are_no_other_grids(tmp_path) -> None:
    """Mutants: the rows of weight 0 kept (or every row kept) in the training rows compared with the manifest's.
    compile leaves them out: the grid's own tasks are scored, not called another grid's."""
    g = _weighted_grid(tmp_path, "z", [i % 3 for i in range(20)])
    col = collect(g)
    assert [(r.problem, r.foreign) for r in col.results] == [(None, False), (None, False)]
    assert all(r.score is not None for r in col.results)


def test_collect_checks_its_arguments_first(weighted_grid) -> None:  # noqa: F811
    """Mutants: data_path, refine and scoring not checked (or the option not named) before the grid is read."""
    from olctc.errors import OlctcError

    with pytest.raises(OlctcError, match=r"^The 'data_path' parameter must be a file path"):
        collect(weighted_grid, data_path=5)
    with pytest.raises(OlctcError, match=r"^The 'refine' parameter must be True or False\. Got 1 instead\.$"):
        collect(weighted_grid, refine=1)
    with pytest.raises(OlctcError, match=r"^The 'scoring' parameter \(--scoring\) must be one of balanced_accuracy, "):
        collect(weighted_grid, scoring="f1")


def test_collect_without_refinement_scores_the_solvers_trees(weighted_grid) -> None:  # noqa: F811
    """Mutant: refine=False not passed on to decoding. collect(refine=False) scores each task's tree as the solver
    left it (decode_file's refine=False), which here scores otherwise than the refined one."""
    from olctc.compile import manifest_path
    from olctc.decode import decode_file

    plain, refined = collect(weighted_grid, refine=False, scoring="neg_log_loss"), collect(weighted_grid,
                                                                                          scoring="neg_log_loss")
    ds = plain.dataset
    for r, rr in zip(plain.results, refined.results):
        d = weighted_grid / f"tasks/{r.task:04d}"
        tree, _ = decode_file(manifest_path(d / "model.mps"), d / "model.highs.sol", refine=False)
        val = np.asarray(plain.info["folds"][r.fold]["val"])
        assert r.score == pytest.approx(validation_score("neg_log_loss", tree, ds.X[val], ds.y[val], ds.weight[val]),
                                        rel=1e-12)
    assert [r.score for r in plain.results] != pytest.approx([r.score for r in refined.results], rel=1e-6)


def test_emit_final_into_a_missing_folder_is_a_one_line_error(tmp_path) -> None:
    """Mutant: an OSError of emit_final's own (final/ cannot be made: its grid folder is gone) raised as it is, a
    traceback, not the one-line error naming the folder."""
    from olctc.cluster.final import emit_final
    from olctc.errors import OlctcError

    info, ds = _four_points_info()
    gone = tmp_path / "gone"
    with pytest.raises(OlctcError, match=rf"^cannot write {gone / 'final'}: No such file or directory$"):
        emit_final(gone, info, ds, (1.0,))
    assert not gone.exists()


def test_the_end_of_a_long_solve_log_and_slurm_log_is_read(tmp_path) -> None:
    """Mutant: the first lines of a log read, not its last. A solve's log has its solver's progress before its
    end: the last line shown is the last one, and Slurm's reason at the end of its 8-line log is found."""
    progress = "".join(f"progress line {k}\n" for k in range(8))
    r = _missing_task(tmp_path / "a", progress + "error: no time is left to solve: HiGHS stopped reading\n")
    assert r.short
    assert r.problem == ("missing solution (last line of solve.log: error: no time is left to solve: HiGHS stopped "
                         "reading)")
    (tmp_path / "b" / "logs").mkdir(parents=True)
    (tmp_path / "b" / "logs" / "task-1.out").write_text(
        progress + "slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 DUE TO NODE FAILURE ***\n")
    r = _missing_task(tmp_path / "b", progress, part=True)
    assert r.problem == ("missing solution (last line of solve.log: progress line 7); the task was cancelled by Slurm "
                         "(node failure): model.highs.sol.part holds its best solution until then, which collect does "
                         "not score")
