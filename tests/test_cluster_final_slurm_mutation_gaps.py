"""Tests from a second mutation pass over olctc.cluster.final and olctc.cluster.slurm (QA 2026-12-06): the final
fit's solver, form and recorded C, the final instance's files and limits, the Slurm options sbatch would refuse,
the job array's header lines, and the task runner as bash runs it (which jobs.tsv line a task id picks, the
gurobi_command column's solution, a missing array index, submit.sh's exit status). Each pins a behaviour that a
hand-written mutant changed while the rest of the suite passed."""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.cluster import (SlurmOptions, check_slurm_options, emit_final, final_spec, fit_final, make_grid,
                           rerun_advice, sbatch_available, slurm_script, submit_all_script, submit_scripts)
from olctc.cluster.scoring import TaskResult
from olctc.data import read_csv
from olctc.errors import OlctcError
from olctc.spec import make_spec
from test_cluster import small_heart_csv

HEADER = "\t".join(("task", "fold", "C", "model", "solution", "command", "gurobi_command"))


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> tuple[Path, Any]:
    """A compiled (unsolved) depth-2 grid of HiGHS tasks in the score-variable form on 24 heart rows (2 folds, C
    1 and 4, seed 3, 20 s a task); and its Dataset."""
    root = tmp_path_factory.mktemp("finalgaps")
    ds = read_csv(small_heart_csv(root / "h.csv", 12), target="y")
    spec = replace(make_spec("olct", 2), score_variables=True)
    make_grid(ds, spec, root / "g", C_values=[1.0, 4.0], folds=2, seed=3, solver="highs", time_limit=20.0,
              threads=1)
    return root / "g", ds


def _info(g: Path) -> dict[str, Any]:
    return json.loads((g / "grid.json").read_text())


# ---------------------------------------------------------------- the final fit and the final instance

def test_final_spec_takes_the_paper_form_from_a_score_variable_grid(grid) -> None:
    """collect --paper-form on a grid of the score form asks for score_variables False: that is the paper's form,
    not "the grid's own" (which only None means)."""
    info = _info(grid[0])
    assert final_spec(info, (1, 4)).score_variables is True
    assert final_spec(info, (1, 4), False).score_variables is False


@pytest.mark.parametrize("grid_solver", ["glpk-cli", "gurobi-cli"])
def test_final_fit_of_a_grid_without_an_in_process_twin_runs_fits_default(grid, grid_solver) -> None:
    """A grid solved by glpsol or gurobi_cl (no in-process twin) gets fit's default solver for the preset, HiGHS;
    the Python default form is the score form, and the tree records the chosen C in its order."""
    g, ds = grid
    res, acc = fit_final({**_info(g), "solver": grid_solver}, ds, (4.0, 1.0), threads=1)
    assert res.summary["solver"] == "highs"
    assert res.tree.meta["spec"].get("score_variables") is True
    assert res.tree.meta["grid"] == {"C": [4.0, 1.0], "folds": 2, "seed": 3}
    assert acc is not None


def test_emit_final_writes_only_its_files_named_final_and_keeps_the_nonzero_limit(grid, tmp_path) -> None:
    """final/ holds exactly the files emit_final returns (no staging folder left), the model and manifest are
    named 'final', the form asked for is written, and the grid's --max-nonzeros holds for the final instance."""
    g, ds = grid
    written = emit_final(tmp_path, _info(g), ds, (1.0, 4.0), score_variables=False)
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == sorted(p.name for p in written.values())
    assert all(p.parent == tmp_path / "final" for p in written.values())
    man = json.loads(written["manifest"].read_text())
    assert man["name"] == "final" and "score_variables" not in man["spec"]
    assert man["data"]["rows"] == _info(g)["train_rows"]
    assert written["model"].read_text().startswith("NAME") and "final" in written["model"].read_text()[:200]
    with pytest.raises(OlctcError, match="nonzeros"):
        emit_final(tmp_path / "other", {**_info(g), "max_nonzeros": 10}, ds, (1.0, 4.0))
    assert not (tmp_path / "other" / "final").exists()


def test_emit_final_failing_keeps_an_empty_final_folder_it_did_not_make(grid, tmp_path, monkeypatch) -> None:
    """Only a final/ folder that emit_final made is removed when writing fails (a full disk, injected as the
    existing test of the full disk does); one that was there, empty, stays."""
    import errno

    import olctc.pipeline

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    g, ds = grid
    (tmp_path / "final").mkdir()
    monkeypatch.setattr(olctc.pipeline, "write_compiled", full)
    with pytest.raises(OlctcError, match="No space left on device"):
        emit_final(tmp_path, _info(g), ds, (1.0, 4.0))
    assert (tmp_path / "final").is_dir() and list((tmp_path / "final").iterdir()) == []


# ---------------------------------------------------------------- Slurm options and the job array's header

@pytest.mark.parametrize("field, value", [("mem", "G"), ("mem", "4G x"), ("mem", "4G\nrm -rf ~"), ("mem", "4P"),
                                          ("account", "a,b"), ("partition", "a/b"), ("account", "a/b")])
def test_slurm_options_sbatch_would_refuse_are_refused(field, value) -> None:
    """A memory size without digits, with more after it, or in a unit Slurm lacks; an account list (sbatch takes
    one account) and a '/' in a name: each would fail every submission, or worse (a newline), on the cluster."""
    with pytest.raises(OlctcError, match=rf"The '{field}' parameter must be"):
        check_slurm_options(SlurmOptions(**{field: value}))


def test_job_array_header_defaults_margin_partitions_and_log_names() -> None:
    """SlurmOptions' defaults (1 CPU, 4G), its margin_s (the time is limit + margin when above 15% + 30 s), every
    partition of a list, and the log of the first array named by the task."""
    text = slurm_script(8, 60, SlurmOptions(job_name="x", partition="short,long", margin_s=600))
    for line in ("#SBATCH --cpus-per-task=1", "#SBATCH --mem=4G", "#SBATCH --time=00:11:00",
                 "#SBATCH --partition=short,long", "#SBATCH --output=logs/task-%a.out"):
        assert f"\n{line}\n" in text, line
    assert "#SBATCH --time=00:06:00\n" in slurm_script(8, 60, SlurmOptions(job_name="x"))


def test_only_a_grid_of_more_than_one_array_explains_its_arrays() -> None:
    """The note that array index k runs task first + k comes with a grid of more tasks than one array holds
    (1001), not with one that fits (1000)."""
    assert "# Array index k runs task 0 + k: tasks 0-999 of 1001." in slurm_script(1001, 60, SlurmOptions(job_name="x"))
    assert "Array index k runs task" not in slurm_script(1000, 60, SlurmOptions(job_name="x"))


def test_sbatch_available_follows_path(tmp_path, monkeypatch) -> None:
    """grid's note that sbatch is not here depends on sbatch_available, which looks for sbatch on PATH."""
    fake = tmp_path / "sbatch"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert sbatch_available() is True
    fake.unlink()
    assert sbatch_available() is False


# ---------------------------------------------------------------- the task runner, run by bash

def _tasks(d: Path, ids: list[int], solution: str = "model.cbc.sol") -> None:
    """jobs.tsv in ``d`` of tasks ``ids``, each in folder t<id>: its command appends 'cmd <id>' to ran.txt, its
    gurobi_command 'gurobi <id>'."""
    rows = [HEADER]
    for k in ids:
        (d / f"t{k}").mkdir()
        rows.append(f"{k}\t0\t1\tt{k}/model.mps\tt{k}/{solution}\techo cmd {k} >> ran.txt\techo gurobi {k} >> ran.txt")
    (d / "jobs.tsv").write_text("\n".join(rows) + "\n")


def _array_task(d: Path, index: str | None, **env: str) -> subprocess.CompletedProcess:
    """submit.slurm of ``d`` run by bash as Slurm runs array index ``index`` (None: not an array task)."""
    (d / "submit.slurm").write_text(slurm_script(12, 60, SlurmOptions(job_name="x")))
    e = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")} | env
    if index is not None:
        e["SLURM_ARRAY_TASK_ID"] = index
    return subprocess.run(["bash", "submit.slurm"], cwd=d, env=e, capture_output=True, text=True, timeout=60)


def _ran(d: Path) -> str:
    return (d / "ran.txt").read_text() if (d / "ran.txt").exists() else ""


def test_a_task_id_picks_its_own_line_not_every_id_it_is_a_prefix_of(tmp_path) -> None:
    """Task 1 of a grid of 12 runs line 1 only: matched as a pattern, it took tasks 10 and 11 too."""
    _tasks(tmp_path, list(range(12)))
    r = _array_task(tmp_path, "1")
    assert r.returncode == 0, r.stderr
    assert _ran(tmp_path) == "cmd 1\n"


def test_an_array_index_not_in_jobs_tsv_fails_and_no_index_at_all_is_refused(tmp_path) -> None:
    """An array index past jobs.tsv exits 2 saying so (it ran an empty command and exited 0); submit.slurm run
    without SLURM_ARRAY_TASK_ID refuses (it ran task 0)."""
    _tasks(tmp_path, [0, 1])
    r = _array_task(tmp_path, "5")
    assert (r.returncode, r.stderr) == (2, "task 5: not in jobs.tsv\n")
    r = _array_task(tmp_path, None)
    assert r.returncode != 0 and "not running as a Slurm array task" in r.stderr
    assert _ran(tmp_path) == ""


def test_the_gurobi_command_column_checks_gurobis_own_solution(tmp_path) -> None:
    """With OLCTC_COMMAND_COLUMN=gurobi_command a task is done when its model.gurobi.sol has content: task 0
    (solved by gurobi_cl) is skipped, task 1 (whose CBC solution exists, its gurobi one not) is run by gurobi_cl."""
    _tasks(tmp_path, [0, 1])
    (tmp_path / "t0" / "model.gurobi.sol").write_text("solved\n")
    (tmp_path / "t1" / "model.cbc.sol").write_text("solved\n")
    for index in ("0", "1"):
        r = _array_task(tmp_path, index, OLCTC_COMMAND_COLUMN="gurobi_command")
        assert r.returncode == 0, r.stderr
    assert _ran(tmp_path) == "gurobi 1\n"


def fake_sbatch_grid(tmp_path: Path, sbatch: str, n_tasks: int = 1) -> tuple[Path, dict[str, str]]:
    """(folder g holding the job arrays of an ``n_tasks`` grid, as empty scripts, and its submit.sh; an environment
    with ``sbatch``, a shell script's body, first on PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(f"#!/bin/sh\n{sbatch}\n")
    (bin_dir / "sbatch").chmod(0o755)
    g = tmp_path / "g"
    g.mkdir()
    scripts = submit_scripts(n_tasks)
    for name, _, _ in scripts:
        (g / name).write_text("#!/bin/bash\n")
    (g / "submit.sh").write_text(submit_all_script(len(scripts)))
    return g, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _submit_with_fake_sbatch(tmp_path: Path, sbatch: str, *args: str) -> subprocess.CompletedProcess:
    """``bash g/submit.sh ARGS`` for a one-array grid, with ``sbatch`` (a shell script's body) first on PATH."""
    g, env = fake_sbatch_grid(tmp_path, sbatch)
    return subprocess.run(["bash", str(g / "submit.sh"), *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


def test_submit_sh_exits_with_a_failed_sbatch_status(tmp_path) -> None:
    """submit.sh ends with the status of an sbatch that failed (3 here, a fake sbatch), not 1 nor 0."""
    r = _submit_with_fake_sbatch(tmp_path, "exit 3")
    assert r.returncode == 3, r.stderr


# ---------------------------------------------------------------- collect's scoring (mutants an earlier pass wrote)

def test_an_undefined_score_names_the_class_without_weight() -> None:
    """Code -1 is the first class, +1 the second: a fold of only 'yes' points has no 'no' point, and says so."""
    from olctc.cluster.scoring import why_undefined

    y = np.array([1, 1, 1])
    assert why_undefined(y, None, ["no", "yes"], None) == "class 'no' has no weight on this fold"
    assert why_undefined(-y, np.array([1.0, 2.0, 0.0]), ["no", "yes"], "w") == (
        "class 'yes' has no weight on this fold")


def _missing_task(tmp_path: Path, log: str | None, part: bool = False) -> TaskResult:
    """What _why_missing makes of task 1 with no solution, the solve.log ``log`` (None: none) and, with ``part``,
    its .part file."""
    from olctc.cluster.scoring import _why_missing

    d = tmp_path / "tasks" / "0001"
    d.mkdir(parents=True)
    sol = d / "model.highs.sol"
    if log is not None:
        (d / "solve.log").write_text(log)
    if part:
        Path(f"{sol}.part").write_text("x\n")
    r = TaskResult(1, 0, (1.0,))
    _why_missing(r, sol, tmp_path, 30.0)
    return r


def test_a_missing_solution_is_explained_from_the_last_lines_of_its_log(tmp_path) -> None:
    """An empty log (blank lines only) is a task not run; an interrupted solve without a .part was stopped; a
    .part next to a log that wrote its solution elsewhere is no finished solve to rename (a stopped one); the last
    line shown is the last non-blank one."""
    assert _missing_task(tmp_path / "a", "\n  \n").problem == "missing solution (not run yet?)"
    r = _missing_task(tmp_path / "b", "Running HiGHS\ninterrupted (the best solution found until then was written)\n")
    assert r.problem == ("missing solution (last line of solve.log: interrupted (the best solution found until then "
                         "was written)); the task was stopped (cancelled, killed, or its node lost)")
    r = _missing_task(tmp_path / "c", "solution written to other.sol\n\n\n", part=True)
    assert r.unrenamed is None
    assert r.problem == "missing solution (last line of solve.log: solution written to other.sol)"


def test_an_interrupt_followed_by_a_warning_is_still_a_stopped_task(tmp_path) -> None:
    """A warning printed after "interrupted (...)" (a library's on stderr at exit) does not turn a stopped task
    without a .part into one "still running?": the whole tail is read for the interrupt, not only its last line."""
    log = ("Running HiGHS\ninterrupted (the best solution found until then was written)\n"
           "UserWarning: resource_tracker: leaked semaphore\n")
    r = _missing_task(tmp_path, log)
    assert not r.running
    assert r.problem == ("missing solution (last line of solve.log: UserWarning: resource_tracker: leaked semaphore); "
                         "the task was stopped (cancelled, killed, or its node lost)")


def test_solve_log_status_reads_only_optimal_or_feasible() -> None:
    """A solve.log whose olctc line says infeasible (or no_solution) gives "unknown", not a status the table's
    notes do not know."""
    import tempfile

    from olctc.cluster.scoring import solve_log_status

    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "solve.log"
        log.write_text("status infeasible (highs: Infeasible), objective -\n")
        assert solve_log_status(log, "highs") == "unknown"
        log.write_text("status feasible (highs: Time limit reached), objective 1\n")
        assert solve_log_status(log, "highs") == "feasible"


def test_rerun_advice_notes_and_lists(tmp_path) -> None:
    """Only short tasks: the advice is their note alone (nothing to run again); tasks not run get the warning
    about queued jobs; 11 unrenamed solutions show 10 mv commands and '; ...'; only the job array that holds a
    task gets an sbatch line."""
    from olctc.cluster import resubmit_commands

    short = [TaskResult(0, 0, (1.0,), problem="missing solution (x)", short=True)]
    assert rerun_advice(short).startswith("task(s) 0000 ended with no solution within the grid's --time-limit")
    assert "run the missing tasks again" not in rerun_advice(short)
    queued = [TaskResult(0, 0, (1.0,), problem="missing solution (not run yet?)")]
    assert rerun_advice(queued).startswith("if the grid's jobs are still queued or running, wait for them")
    moved = [TaskResult(k, 0, (1.0,), problem="x", unrenamed=(tmp_path / f"{k}.part", tmp_path / f"{k}.sol"))
             for k in range(11)]
    advice = rerun_advice(moved)
    assert advice.count("mv ") == 10 and f"{tmp_path / '9.sol'}; ...), then collect again" in advice
    assert resubmit_commands("g", [1005], 2500) == ["(cd g && sbatch --array=5 submit-1000.slurm)"]


def test_the_table_notes_combinations_without_every_fold() -> None:
    """A C combination with a fold unscored is named as no candidate below the table."""
    from olctc.cluster.scoring import score_table_lines

    table = [{"C": [1.0], "folds_scored": 1, "folds": 2, "mean": 0.9, "std": 0.0},
             {"C": [2.0], "folds_scored": 2, "folds": 2, "mean": 0.8, "std": 0.1}]
    lines = score_table_lines(table, (2.0,), "balanced_accuracy")
    assert lines[-1] == "note: 1 C combination(s) without every fold scored are not candidates"
    assert lines[2].endswith(" <- best") and not lines[1].endswith(" <- best")


def _bin_without(tmp_path: Path, missing: str, programs: tuple[str, ...]) -> Path:
    """A folder for PATH holding links to ``programs`` (found here) but no ``missing``: a machine without it."""
    import shutil

    d = tmp_path / f"bin-no-{missing}"
    d.mkdir()
    for name in programs:
        (d / name).symlink_to(shutil.which(name))
    return d


def test_a_solved_task_is_skipped_where_flock_is_missing(tmp_path) -> None:
    """Without flock(1) (macOS, BSD) the lock step cannot skip a solved task: the test of its solution before it
    must (task 0 solved is skipped, task 1 runs)."""
    _tasks(tmp_path, [0, 1])
    (tmp_path / "t0" / "model.cbc.sol").write_text("solved\n")
    path = _bin_without(tmp_path, "flock", ("awk", "cut", "bash"))
    for index in ("0", "1"):
        r = _array_task(tmp_path, index, PATH=str(path))
        assert r.returncode == 0, r.stderr
    assert _ran(tmp_path) == "cmd 1\n"


def test_run_local_through_an_absolute_link_without_readlink_f(tmp_path) -> None:
    """Where readlink has no -f (macOS before 12.3), run_local.sh started through a link whose target is an
    absolute path follows it to its grid folder and runs the tasks."""
    from olctc.cluster import local_script

    g = tmp_path / "g"
    g.mkdir()
    _tasks(g, [0])
    (g / "run_local.sh").write_text(local_script())
    path = _bin_without(tmp_path, "readlink", ("awk", "cut", "bash", "dirname", "flock"))
    real = __import__("shutil").which("readlink")
    (path / "readlink").write_text(f'#!/bin/bash\n[ "$1" = -f ] && exit 1\nexec {real} "$@"\n')
    (path / "readlink").chmod(0o755)
    (tmp_path / "go.sh").symlink_to(g / "run_local.sh")
    r = subprocess.run(["bash", "go.sh"], cwd=tmp_path, env={**os.environ, "PATH": str(path)}, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert _ran(g) == "cmd 0\n"


def test_run_local_stops_after_a_task_interrupted_on_its_own(tmp_path) -> None:
    """A task whose olctc was interrupted (exit 130: a SIGINT to it alone, which the script's trap does not see)
    stops run_local.sh there with 130 and the advice to run it again; the next task is not started."""
    from olctc.cluster import local_script

    _tasks(tmp_path, [0, 1])
    jobs = tmp_path / "jobs.tsv"
    jobs.write_text(jobs.read_text().replace("echo cmd 0 >> ran.txt", "exit 130"))
    (tmp_path / "run_local.sh").write_text(local_script())
    r = subprocess.run(["bash", "run_local.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 130 and "task 0: interrupted; run run_local.sh again to go on" in r.stderr, r.stderr
    assert _ran(tmp_path) == ""
