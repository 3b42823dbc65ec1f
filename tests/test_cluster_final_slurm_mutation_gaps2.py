"""Tests from a third mutation pass over olctc.cluster.final and olctc.cluster.slurm (QA 2026-12-07): the final
spec's C as chosen, what fit_final hands on to fit and how it scores the test part, emit_final's errors and its
staging folder, the Slurm options' message, times and header lines, and the job scripts as bash runs them (a task
without its folder, the command's shell and echo, a grid folder named like an option, every array submitted and the
worst status). Each pins a behaviour that a hand-written mutant (ids in the commit message) changed while the
targeted tests passed."""
from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import pytest

from olctc.cluster import (SUBMIT_ALL, SlurmOptions, check_final_time_limit, check_slurm_options, emit_final,
                           final_spec, fit_final, local_script, slurm_script, submit_scripts)
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.spec import make_spec
from test_cluster_final_slurm_mutation_gaps import _array_task, _bin_without, _ran, _tasks, fake_sbatch_grid
from test_cluster_scoring_final_slurm_mutation_gaps2 import _four_points_info


# ---------------------------------------------------------------- the final spec and the final fit


def test_final_spec_takes_the_chosen_C_in_layer_order_and_as_floats() -> None:
    """m02, m03: the chosen C reversed, or cut to integers (0.5 became 0), fitted another tree than the one the
    CV table chose."""
    info = {"spec": make_spec("olct", 2, C=[1.0, 1.0]).to_json()}
    assert final_spec(info, (0.5, 4)).C == (0.5, 4.0)


def test_a_grid_limit_too_short_is_one_error_not_a_chain() -> None:
    """m08: the hint's error raised without 'from None' showed fit's own error above it ("During handling of the
    above exception, another exception occurred") to a Python caller."""
    with pytest.raises(TimeLimitTooShort) as exc:
        check_final_time_limit({"time_limit": 0.1}, None)
    assert exc.value.__suppress_context__ and exc.value.__cause__ is None


@pytest.mark.parametrize("option, value", [("threads", 0), ("leave_overrun", 1)])
def test_fit_final_hands_its_options_to_fit(option, value) -> None:
    """m15, m17: threads or leave_overrun not passed on (fit ran with its defaults); fit's check of each shows it
    arrives."""
    info, ds = _four_points_info()
    with pytest.raises(OlctcError, match=f"The '{option}' parameter"):
        fit_final(info, ds, (1.0,), solver="highs", **{option: value})


def test_fit_final_is_verbose_only_when_asked(capsys) -> None:
    """m16: verbose not passed on: collect's final fit printed nothing of its solve."""
    info, ds = _four_points_info()
    fit_final(info, ds, (1.0,), solver="highs", threads=1)
    assert capsys.readouterr().out == ""
    fit_final(info, ds, (1.0,), solver="highs", threads=1, verbose=True)
    assert capsys.readouterr().out != ""


def test_fit_final_smooths_pure_nodes_when_asked() -> None:
    """m18: smooth_pure_nodes not passed on: the final tree had no pure-node record."""
    info, ds = _four_points_info()
    res, _ = fit_final(info, ds, (1.0,), solver="highs", threads=1)
    assert "pure_nodes" not in res.tree.meta
    res, _ = fit_final(info, ds, (1.0,), solver="highs", threads=1, smooth_pure_nodes=True)
    assert "pure_nodes" in res.tree.meta


def test_the_test_part_is_predicted_as_the_tree_predicts() -> None:
    """m20, m21: a point of decision value 0 predicted +1 (the tree predicts -1 there, and every score of olctc
    does); the test part's size not recorded. Here every decision value is 0 and the test point is of class -1."""
    info, ds = _four_points_info()
    res, acc = fit_final(info, ds, (1.0,), solver="highs", threads=1)
    assert res.tree.decision_function(ds.X[4:]).tolist() == [0.0]
    assert acc == 1.0 and res.tree.meta["fit"]["n_test"] == 1


def test_a_grid_without_a_test_part_has_no_test_score() -> None:
    """m19: an empty test part (grid --test-size 0) scored: no test score, no test size."""
    info, ds = _four_points_info(test_rows=[])
    res, acc = fit_final(info, ds, (1.0,), solver="highs", threads=1)
    assert acc is None and res.tree.meta["fit"]["n_test"] == 0
    assert "test_balanced_accuracy" not in res.tree.meta["fit"]


# ---------------------------------------------------------------- emit_final's errors


def test_a_failed_move_into_final_leaves_no_staging_folder(tmp_path) -> None:
    """m29: the staging folder kept after an error. final/model.mps is a folder (a real failure of the move): the
    error names it, final/ holds what it held, and no staging folder is left beside it."""
    info, ds = _four_points_info()
    (tmp_path / "final" / "model.mps").mkdir(parents=True)
    with pytest.raises(OlctcError, match=rf"^cannot write {tmp_path / 'final' / 'model.mps'}: Is a directory$"):
        emit_final(tmp_path, info, ds, (1.0,))
    assert [p.name for p in (tmp_path / "final").iterdir()] == ["model.mps"]


def test_emit_final_into_a_file_is_a_one_line_error(tmp_path) -> None:
    """m31: only FileNotFoundError made one line. A grid folder that is a file gives NotADirectoryError at mkdir:
    the one-line error, no traceback."""
    info, ds = _four_points_info()
    (tmp_path / "g").write_text("x\n")
    with pytest.raises(OlctcError, match=rf"^cannot write {tmp_path / 'g' / 'final'}: Not a directory$"):
        emit_final(tmp_path / "g", info, ds, (1.0,))


def test_a_fifo_named_final_is_refused_before_the_work(tmp_path) -> None:
    """m33: only a regular file named final refused; a FIFO (neither file nor folder) passed the early check."""
    from olctc.cluster import check_final_folder

    os.mkfifo(tmp_path / "final")
    with pytest.raises(OlctcError, match="final exists and is not a folder$"):
        check_final_folder(tmp_path)


# ---------------------------------------------------------------- Slurm options, times and the job array's header


def test_a_bad_memory_size_says_what_slurm_takes() -> None:
    """m42: the message's examples dropped; it names the forms sbatch takes."""
    with pytest.raises(OlctcError) as exc:
        check_slurm_options(SlurmOptions(mem="lots"))
    assert str(exc.value) == ("The 'mem' parameter must be a Slurm memory size such as '4G', '500M' or '4000' "
                              "(megabytes). Got 'lots' instead.")


@pytest.mark.parametrize("field, value", [("mem", ""), ("partition", "short long"), ("account", "my project")])
def test_an_empty_memory_size_or_a_name_with_a_space_is_refused(field, value) -> None:
    """m41, m46: an empty --mem (sbatch refuses "--mem=") or a space in a name (it ends the #SBATCH line's value:
    the job went to partition "short" only, or failed) passed."""
    with pytest.raises(OlctcError, match=rf"^The '{field}' parameter must be"):
        check_slurm_options(SlurmOptions(**{field: value}))


def test_slurm_times_round_any_fraction_up() -> None:
    """m48: seconds rounded to the nearest (60.2 s gave 60: Slurm's limit a fraction below the job's)."""
    from olctc.cluster.slurm import _slurm_time

    assert _slurm_time(60.2) == "00:01:01"


def test_a_grid_of_one_task_past_an_array_gets_a_second_array() -> None:
    """m66: the last array dropped when it holds a single task (grid of 1001 tasks: task 1000 never submitted)."""
    assert submit_scripts(1001) == [("submit.slurm", 0, 1000), ("submit-1000.slurm", 1000, 1)]


def test_job_array_header_takes_cpus_and_names_its_own_script() -> None:
    """m70, m77, m78: --cpus-per-task fixed at 1; the comments of a later array naming submit.slurm, or leaving out
    how to run gurobi_cl, when the lines are to be run with the array's own script."""
    text = slurm_script(2500, 60, SlurmOptions(job_name="x", cpus_per_task=4), first=1000)
    assert "\n#SBATCH --cpus-per-task=4\n" in text
    assert "sbatch --array=3,7 submit-1000.slurm runs only those indices." in text
    assert "\n# OLCTC_COMMAND_COLUMN=gurobi_command sbatch submit-1000.slurm runs gurobi_cl instead.\n" in text


# ---------------------------------------------------------------- the task runner, run by bash


def test_a_task_without_its_folder_runs_without_a_lock_error(tmp_path) -> None:
    """m57: the lock file opened in a task folder that is not there: bash printed "No such file or directory" to
    the task's log before running the task (whose command makes the folder)."""
    _tasks(tmp_path, [0])
    os.rmdir(tmp_path / "t0")
    r = _array_task(tmp_path, "0")
    assert (r.returncode, r.stderr) == (0, "")
    assert _ran(tmp_path) == "cmd 0\n"


def test_a_task_with_an_empty_solution_file_runs(tmp_path) -> None:
    """m56: an empty solution file (a solve cut short by a full disk, a failed gurobi_cl run) taken as solved:
    the task was skipped and never solved again."""
    _tasks(tmp_path, [0])
    (tmp_path / "t0" / "model.cbc.sol").write_text("")
    r = _array_task(tmp_path, "0")
    assert r.returncode == 0, r.stderr
    assert _ran(tmp_path) == "cmd 0\n"


def test_a_task_echoes_its_command_and_runs_it_with_bash(tmp_path) -> None:
    """m61: the command not echoed to the task's log; m60 (killed by the earlier tests too): run by sh, where
    dash fails bash's [[ ]]."""
    _tasks(tmp_path, [0])
    jobs = tmp_path / "jobs.tsv"
    jobs.write_text(jobs.read_text().replace("echo cmd 0 >> ran.txt", "[[ a == a ]] && echo cmd 0 >> ran.txt"))
    r = _array_task(tmp_path, "0")
    assert (r.returncode, r.stdout) == (0, "task 0: [[ a == a ]] && echo cmd 0 >> ran.txt\n"), r.stderr
    assert _ran(tmp_path) == "cmd 0\n"


def test_run_local_in_a_folder_named_like_an_option_without_readlink_f(tmp_path) -> None:
    """m62: "--" dropped before the folder of $0: where readlink has no -f, run_local.sh of a grid folder named
    "-g", run as -g/run_local.sh, had dirname read "-g" as an option and ran nothing."""
    g = tmp_path / "-g"
    g.mkdir()
    _tasks(g, [0])
    (g / "run_local.sh").write_text(local_script())
    path = _bin_without(tmp_path, "readlink", ("awk", "cut", "bash", "dirname", "flock"))
    (path / "readlink").write_text('#!/bin/bash\nexit 1\n')
    (path / "readlink").chmod(0o755)
    r = subprocess.run(["bash", "--", "-g/run_local.sh"], cwd=tmp_path, env={**os.environ, "PATH": str(path)},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert _ran(g) == "cmd 0\n"


def test_submit_from_elsewhere_without_jobs_tsv_says_to_submit_from_the_grid(tmp_path) -> None:
    """m76: submit.slurm started where there is no jobs.tsv said "task 0: not in jobs.tsv", not where to submit."""
    r = _array_task(tmp_path, "0")
    assert r.returncode == 2
    assert r.stderr == f"jobs.tsv not found in {tmp_path}: submit from the grid folder\n"


def _two_arrays(tmp_path: Path, sbatch: str, command: str) -> subprocess.CompletedProcess:
    """``command`` (a bash line) run in a grid folder of two job arrays and its submit.sh, with ``sbatch`` (a shell
    script's body) first on PATH; each sbatch call first appends its script's name to calls.txt there."""
    g, env = fake_sbatch_grid(tmp_path, f'echo "$1" >> calls.txt\n{sbatch}', 1500)
    return subprocess.run(["bash", "-c", command], cwd=g, env=env, capture_output=True, text=True, timeout=60)


def test_submit_sh_submits_every_array_and_waits_for_each(tmp_path) -> None:
    """m80, m81: the arrays submitted one after the other (the first failed sbatch, under set -e, left the next
    unsubmitted); the first failed wait ending the script while the other array's sbatch --wait still ran. Here
    submit-1000.slurm's sbatch fails at once with 3, submit.slurm's ends a second later."""
    r = _two_arrays(tmp_path, '[ "$1" = submit.slurm ] || exit 3; sleep 1; echo done > done.txt',
                    'bash submit.sh; rc=$?; [ -f done.txt ] && echo "both ended"; exit "$rc"')
    assert (r.returncode, r.stdout) == (3, "both ended\n"), r.stderr
    assert sorted((tmp_path / "g" / "calls.txt").read_text().split()) == ["submit-1000.slurm", "submit.slurm"]


def test_the_submit_line_grid_prints_submits_every_array(tmp_path) -> None:
    """m86: the one-line submission grid prints (cd DIR && SUBMIT_ALL) submitting submit.slurm alone."""
    r = _two_arrays(tmp_path, "exit 0", SUBMIT_ALL)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "g" / "calls.txt").read_text().split() == ["submit-1000.slurm", "submit.slurm"]


def test_a_later_task_is_not_held_by_a_lock_on_another_task(tmp_path) -> None:
    """m95: the task folder cut at its first '/' (tasks/, not tasks/0001/): every task locked one run.lock, and a
    task was skipped as "running in another process" while another task ran."""
    import fcntl

    d = tmp_path / "tasks"
    d.mkdir()
    _tasks(d, [0, 1])
    rows = (d / "jobs.tsv").read_text().replace("\tt", "\ttasks/t")
    (tmp_path / "jobs.tsv").write_text(rows)
    with open(d / "run.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        r = _array_task(tmp_path, "1")
    assert (r.returncode, r.stdout) == (0, "task 1: echo cmd 1 >> ran.txt\n"), r.stderr
    assert _ran(tmp_path) == "cmd 1\n"


# ---------------------------------------------------------------- a defect this pass found


@pytest.mark.parametrize("field, value, expected", [
    ("job_name", "x\nrm -rf ~", "a Slurm job name (letters, digits, '_', '-', '.')"),
    ("job_name", "my run", "a Slurm job name (letters, digits, '_', '-', '.')"),
    ("cpus_per_task", 0, "an integer >= 1"), ("cpus_per_task", "2\nrm -rf ~", "an integer >= 1"),
    # a string crashed job_seconds with a TypeError; inf wrote no time Slurm reads
    ("margin_s", "60", "a number of seconds >= 0"), ("margin_s", math.inf, "a number of seconds >= 0"),
    ("margin_s", -1, "a number of seconds >= 0")])
def test_a_job_name_or_cpu_count_that_breaks_the_header_is_refused(field, value, expected) -> None:
    """Defect (make_grid's SlurmOptions, which olctc grid's options check but the Python API did not): a newline in
    job_name or cpus_per_task ended the #SBATCH lines there, sbatch ignored every directive after the command it
    made (no --array, --time or --output: the job ran as no array task) and the job ran the rest as a command; a
    space cut the name; 0 CPUs made sbatch refuse the script."""
    with pytest.raises(OlctcError) as exc:
        check_slurm_options(SlurmOptions(**{field: value}))
    assert str(exc.value) == f"The '{field}' parameter must be {expected}. Got {value!r} instead."


def test_make_grid_refuses_a_job_name_with_a_newline_before_writing(tmp_path) -> None:
    """The defect as a user met it: make_grid wrote a submit.slurm whose directives stopped at the job name."""
    from olctc.cluster import make_grid
    from olctc.data import read_csv
    from test_cluster import small_heart_csv

    ds = read_csv(small_heart_csv(tmp_path / "h.csv", 6), target="y")
    with pytest.raises(OlctcError, match="^The 'job_name' parameter must be a Slurm job name"):
        make_grid(ds, make_spec("olct", 1), tmp_path / "g", C_values=[1.0], folds=2, solver="highs",
                  slurm=SlurmOptions(job_name="x\necho pwned"))
    assert not (tmp_path / "g").exists()
