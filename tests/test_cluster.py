"""`olctc grid` / `olctc collect`: grid folders, job scripts, run locally with real solvers, bad input."""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import cli_here, tmpfs
from olctc.cli import _register_optional, cli
from olctc.cluster import C_grid, collect, make_folds, parse_C_values, pick_best, rerun_advice
from olctc.datasets import dataset_path
from olctc.errors import OlctcError

_register_optional()

# One pytest-xdist worker for the module: solved_grid (8 CBC solves) was built by each worker that ran one of
# the tests using it.
pytestmark = pytest.mark.xdist_group("cluster")


def small_heart_csv(path: Path, per_class: int = 30) -> Path:
    """The first ``per_class`` rows of each class of the vendored heart data, as a CSV file."""
    text = gzip.decompress(dataset_path("heart").read_bytes()).decode()
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    yi = header.index("y")
    pos = [r for r in body if r[yi] == "1"][:per_class]
    neg = [r for r in body if r[yi] == "0"][:per_class]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(pos + neg)
    return path


def run_tasks_here(grid: Path) -> None:
    """Every unsolved task of ``grid``'s jobs.tsv as run_local.sh runs it, its `olctc solve` command line run in
    this process (cli_here, from the grid folder): its output into its solve.log, its .part moved onto its
    solution. For the tests whose subject is what the tasks give, not the scripts (bash runs them in the tests
    of run_local.sh below, Slurm in test_slurm.py): a fresh interpreter per task cost about a second."""
    lines = (grid / "jobs.tsv").read_text().splitlines()
    assert lines[0].split("\t")[:6] == ["task", "fold", "C", "model", "solution", "command"], lines[0]
    for line in lines[1:]:
        task, _, _, _, sol, command = line.split("\t")[:6]
        if (grid / sol).exists() and (grid / sol).stat().st_size > 0:
            continue  # as run_local.sh: a solved task is skipped
        # OLCTC_CMD solve MODEL ... -o PART > LOG 2>&1 && { mv PART SOLUTION 2>/dev/null || test -s SOLUTION; }
        words = shlex.split(command)
        at, to = words.index("solve"), words.index(">")
        part, log = words[words.index("-o") + 1], words[to + 1]
        assert words[:at] in (["olctc"], [sys.executable, "-m", "olctc.cli"]), command
        assert words[to:] == [">", log, "2>&1", "&&", "{", "mv", part, sol, "2>/dev/null", "||", "test", "-s",
                              f"{sol};", "}"], command
        done = cli_here(*words[at:to], cwd=grid)
        (grid / log).write_text(done.stdout + done.stderr)
        assert done.returncode == 0, f"task {task}: {command}\n{done.stdout}{done.stderr}"
        os.replace(grid / part, grid / sol)


@pytest.fixture(scope="module")
def solved_grid(tmp_path_factory):
    """A 2-fold x 2x2 C grid on 60 heart rows, solved by CBC: each task's command line run in this process
    (run_tasks_here; bash runs run_local.sh on this grid in test_grid_folder_contents and in
    test_collect_advice_for_a_broken_solution_fixes_it, where it solves CBC tasks)."""
    root = tmp_path_factory.mktemp("grid")
    data = small_heart_csv(root / "heart60.csv")
    out = root / "g"
    res = CliRunner().invoke(cli, [
        "grid", str(data), "--target", "y", "--depth", "2", "--C-values", "0.01,10", "--folds", "2",
        "--test-size", "0.2", "--seed", "1", "--solver", "cbc-cli", "--time-limit", "30",
        "--partition", "short", "--account", "proj1", "--mem", "1G",
        "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o", str(out)])
    assert res.exit_code == 0, res.output + repr(res.exception)
    run_tasks_here(out)
    return out, data, res.output


def test_helpers():
    assert parse_C_values("0.1, 1,10") == [0.1, 1.0, 10.0]
    with pytest.raises(OlctcError, match="The 'C_values' parameter must be finite and > 0"):
        parse_C_values("1,-1")
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be below 1e20 for every value \(solvers "
                                         r"read a cost of 1e20 or more as infinite\)"):
        parse_C_values("1,1e20")
    assert parse_C_values("9.9e19") == [9.9e19]
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be numbers separated by commas"):
        parse_C_values("1_0")  # float() reads it as 10
    with pytest.raises(OlctcError, match="distinct"):
        parse_C_values("1,1")
    assert C_grid([1, 10], 2) == [(1.0, 1.0), (1.0, 10.0), (10.0, 1.0), (10.0, 10.0)]
    y = np.array([1, -1] * 10)
    folds = make_folds(y, np.arange(20), 4, 0)
    assert sorted(r for f in folds for r in f["val"]) == list(range(20))
    with pytest.raises(OlctcError, match="stratified folds"):
        make_folds(np.array([1, 1, 1, -1]), np.arange(4), 2, 0)
    # ties go to the smaller sum of C, then the smaller tuple
    table = [{"C": [10.0, 1.0], "folds_scored": 2, "folds": 2, "mean": 0.8},
             {"C": [1.0, 10.0], "folds_scored": 2, "folds": 2, "mean": 0.8},
             {"C": [1.0, 1.0], "folds_scored": 1, "folds": 2, "mean": 0.9}]
    assert pick_best(table) == (1.0, 10.0)
    # sums equal in decimals are equal (in doubles 0.7 + 0.1 < 0.3 + 0.5, and 0.3 + 0.2 + 0.1 < 0.1 + 0.2 + 0.3)
    for Cs, best in (([[0.7, 0.1], [0.3, 0.5]], (0.3, 0.5)), ([[0.3, 0.2, 0.1], [0.1, 0.2, 0.3]], (0.1, 0.2, 0.3)),
                     ([[0.7, 0.1], [0.3, 0.6]], (0.7, 0.1))):
        assert pick_best([{"C": C, "folds_scored": 2, "folds": 2, "mean": 0.8} for C in Cs]) == best
    # a better mean wins however close: only rounding ties go to the smaller C (mutation pass, QA 2026-12-06)
    assert pick_best([{"C": C, "folds_scored": 2, "folds": 2, "mean": m}
                      for C, m in (([10.0, 10.0], 0.8), ([1.0, 1.0], 0.7995))]) == (10.0, 10.0)
    # the CV score is the mean of the fold scores (with 3 folds, not the median: 0.8 for C = 1, not 0.9)
    from olctc.cluster import cv_table
    from olctc.cluster.scoring import TaskResult

    res = [TaskResult(k, k % 3, (C,), score=s) for k, (C, s) in
           enumerate([(1.0, 0.5), (1.0, 0.9), (1.0, 1.0), (10.0, 0.85), (10.0, 0.85), (10.0, 0.85)])]
    table = cv_table(res, {"folds": [{}, {}, {}], "C_grid": [[1.0], [10.0]]})
    assert [(r["C"], r["mean"]) for r in table] == [([1.0], pytest.approx(0.8)), ([10.0], pytest.approx(0.85))]
    assert pick_best(table) == (10.0,)


def test_grid_folder_contents(solved_grid):
    out, data, output = solved_grid
    assert "8 tasks" in output
    info = json.loads((out / "grid.json").read_text())
    assert info["format"] == "olctc-grid" and info["data"]["source"] == str(data.resolve())
    assert len(info["train_rows"]) == 48 and len(info["test_rows"]) == 12
    assert not set(info["train_rows"]) & set(info["test_rows"])
    assert len(info["folds"]) == 2 and info["C_grid"] == [[0.01, 0.01], [0.01, 10.0], [10.0, 0.01], [10.0, 10.0]]
    for f in info["folds"]:
        assert sorted(f["train"] + f["val"]) == sorted(info["train_rows"])
    lines = (out / "jobs.tsv").read_text().splitlines()
    assert lines[0].split("\t") == ["task", "fold", "C", "model", "solution", "command", "gurobi_command"]
    assert len(lines) == 9
    cells = lines[2].split("\t")
    assert cells[:5] == ["1", "0", "0.01,10", "tasks/0001/model.mps", "tasks/0001/model.cbc.sol"]
    assert "solve tasks/0001/model.mps --solver cbc-cli --time-limit 30" in cells[5]
    assert cells[6].startswith("gurobi_cl InputFile=tasks/0001/model.gurobi.prm TimeLimit=30 ResultFile=")
    assert "InputFile=tasks/0001/model.start.gurobi.mst tasks/0001/model.mps" in cells[6]
    man = json.loads((out / "tasks/0001/model.olctc.json").read_text())
    assert man["spec"]["C"] == [0.01, 10.0] and man["data"]["rows"] == info["folds"][0]["train"]
    slurm = (out / "submit.slurm").read_text()
    for line in ("#SBATCH --array=0-7", "#SBATCH --time=00:05:30", "#SBATCH --mem=1G",
                 "#SBATCH --partition=short", "#SBATCH --account=proj1", "#SBATCH --cpus-per-task=1",
                 "#SBATCH --job-name=olctc-g\n"):  # named after the folder: two grids differ in squeue
        assert line in slurm
    for k in range(8):
        assert (out / f"tasks/{k:04d}/model.cbc.sol").exists()
    # safe to run again: every task is skipped
    again = subprocess.run(["bash", str(out / "run_local.sh")], capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout.count("exists, skipped") == 8


def test_collect_fits_final_tree(solved_grid, tmp_path):
    out, _, _ = solved_grid
    tree_path = tmp_path / "tree.json"
    res = cli_here("collect", str(out), "-o", str(tree_path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert "tasks: 8 of 8 scored" in res.stdout
    assert "<- best" in res.stdout and "best C:" in res.stdout
    assert "test balanced accuracy" in res.stdout
    table = json.loads((out / "cv_results.json").read_text())
    best = table["best"]
    rows = {tuple(r["C"]): r for r in table["table"]}
    assert all(r["folds_scored"] == 2 for r in rows.values())
    top = max(r["mean"] for r in rows.values())
    assert rows[tuple(best)]["mean"] == pytest.approx(top)
    tree = json.loads(tree_path.read_text())
    assert tree  # a JSON tree
    from olctc.export.json import load

    t = load(tree_path)
    assert t.depth == 2 and t.meta["grid"]["C"] == best
    assert t.meta["fit"]["solver"] == "cbc"  # the grid ran cbc-cli: its in-process twin fits the final tree
    # the grid's test part (20% of 60 rows), which the test score was computed on: n_test said 0
    fit = t.meta["fit"]
    assert (fit["n_train"], fit["n_test"]) == (48, 12) and 0 <= fit["test_balanced_accuracy"] <= 1
    # the seed of that part (the final fit recorded its default, 0: QA pass, 2026-12-04), as olctc fit --cv does
    assert fit["seed"] == t.meta["grid"]["seed"] == 1
    # in process, the form olctc fit solves by default (the grid's files are the paper's form)
    assert "training points, score-variable form: " in res.stdout and t.meta["spec"]["score_variables"] is True
    assert "score_variables" not in json.loads((out / "tasks/0000/model.olctc.json").read_text())["spec"]
    paper = cli_here("collect", str(out), "-o", str(tmp_path / "paper.json"), "--quiet", "--paper-form")
    assert paper.returncode == 0 and "training points, the paper's form: " in paper.stdout, paper.stderr
    p = load(tmp_path / "paper.json")
    assert "score_variables" not in p.meta["spec"] and p.meta["grid"]["C"] == best


def test_collect_smooths_pure_nodes_when_asked(solved_grid, tmp_path):
    """--smooth-pure-nodes reaches every task's tree (scored by log loss here: every task has a one-class node,
    24 fit points each) and the final fit; scores recomputed from the tasks' trees decoded here."""
    from sklearn.metrics import log_loss

    from olctc import read_csv
    from olctc.decode import decode_file
    from olctc.export.json import load

    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    args = ["collect", str(g), "--quiet", "--scoring", "neg_log_loss"]
    plain = cli_here(*args, "-o", str(tmp_path / "plain.json"))
    plain_scores = [r["score"] for r in json.loads((g / "cv_results.json").read_text())["tasks"]]
    res = cli_here(*args, "-o", str(tmp_path / "smooth.json"), "--smooth-pure-nodes")
    assert plain.returncode == res.returncode == 0, res.stderr
    info = json.loads((g / "grid.json").read_text())
    ds = read_csv(info["data"]["source"], target="y")  # heart60's columns are all numeric: X as given
    X = ds.X
    for r in json.loads((g / "cv_results.json").read_text())["tasks"]:
        task = g / "tasks" / f"{r['task']:04d}"
        tree, _ = decode_file(task / "model.olctc.json", task / "model.cbc.sol", smooth_pure_nodes=True)
        assert tree.meta["pure_nodes"]["nodes"]
        val = np.asarray(info["folds"][r["fold"]]["val"])
        want = -log_loss(ds.y[val], tree.predict_proba(X[val]), labels=[-1, 1])
        assert r["score"] == pytest.approx(want, rel=1e-9)
        assert r["score"] != pytest.approx(plain_scores[r["task"]], rel=1e-6)
    t, p = load(tmp_path / "smooth.json"), load(tmp_path / "plain.json")
    assert "pure_nodes" not in p.meta
    rows = np.asarray(info["train_rows"])
    reached = t.apply(X[rows])
    for s in t.meta["pure_nodes"]["nodes"]:  # recorded (asked for) even when the final fit has none
        at = reached == s
        m_pos = int((ds.y[rows][at] > 0).sum())
        assert m_pos in (0, int(at.sum()))
        np.testing.assert_allclose(t.predict_proba(X[rows][at])[:, 1], (m_pos + 1) / (at.sum() + 2), rtol=1e-12)
    assert json.loads((g / "cv_results.json").read_text())["smooth_pure_nodes"] is True
    # --emit-final: the decode it says to run smooths the final tree as the scores that chose C were
    emit_args = ["collect", str(g), "--scoring", "neg_log_loss", "--emit-final"]
    emit = cli_here(*emit_args, "--smooth-pure-nodes")
    assert emit.returncode == 0, emit.stderr
    assert re.search(r"olctc decode \S+model\.olctc\.json SOLUTION --smooth-pure-nodes -o tree\.json", emit.stdout)
    assert "--smooth-pure-nodes" not in cli_here(*emit_args).stdout
    assert "smooth_pure_nodes" not in json.loads((g / "cv_results.json").read_text())


def test_collect_leaves_a_busy_highs_with_its_best_solution(solved_grid, tmp_path):
    """collect's final fit is the console's, as olctc fit's: HiGHS still busy past its limit is left."""
    from test_solver_overrun import HANG_AFTER_INCUMBENT, LEAVE_WAIT, _cli, overrun_grace

    out, _, _ = solved_grid
    limit = 5  # a fit's limit must leave the solver 1 s after building and the warm start, as in every test
    res, took = _cli(HANG_AFTER_INCUMBENT, ["collect", str(out), "-o", str(tmp_path / "tree.json"), "--solver",
                                            "highs", "--time-limit", str(limit), "--quiet"], tmp_path)
    assert res.returncode == 0, res.stderr
    fit = json.loads((tmp_path / "tree.json").read_text())["meta"]["fit"]
    assert "was left" in fit["solver_left"] and fit["solution_from"] == "highs", fit
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + 10, took


def test_collect_names_a_missing_task_folder(solved_grid, tmp_path):
    # it said "missing solution (not run yet?)", and the rerun it advised failed on the folder's solve.log
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    shutil.rmtree(g / "tasks/0007")
    problems = {r.task: r.problem for r in collect(g).results if r.problem}
    assert problems == {7: "its folder tasks/0007 is missing: restore it (its model, manifest and start) or make "
                           "the grid again"}


def _task_6_left_as_part(solved_grid, g: Path) -> Path:
    """A copy ``g`` of the solved grid whose task 6's solution is back under its .part name; the solution's path."""
    shutil.copytree(solved_grid[0], g)
    sol = g / "tasks/0006/model.cbc.sol"
    sol.rename(f"{sol}.part")
    return sol


def test_collect_says_a_stopped_tasks_part_file_is_not_scored(solved_grid, tmp_path):
    # solve.log said "the best solution found until then was written" (to the .part the grid's command renames
    # once the solve ends), and collect said only "missing solution"
    g = tmp_path / "g"
    _task_6_left_as_part(solved_grid, g)
    (g / "tasks/0006/solve.log").write_text("interrupted (the best solution found until then was written)\n")
    problems = {r.task: r.problem for r in collect(g).results if r.problem}
    assert problems == {6: "missing solution (last line of solve.log: interrupted (the best solution found until "
                           "then was written)); the task was stopped (cancelled, killed, or its node lost): "
                           "model.cbc.sol.part holds its best solution until then, which collect does not score"}
    # Slurm's log of the task says why: the job's time limit (then: more job time), or scancel
    (g / "logs").mkdir(exist_ok=True)
    for said, how in (("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 DUE TO TIME LIMIT ***",
                       "killed at its job's time limit (give the job more time than the grid's --time-limit: "
                       "#SBATCH --time in submit.slurm)"),
                      ("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 DUE TO PREEMPTION ***",
                       "cancelled by Slurm (preemption)"),
                      ("slurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-12-05T20:50:01 ***",
                       "cancelled (scancel)")):
        (g / "logs/task-6.out").write_text(f"task 6: olctc solve ...\n{said}\n")
        (problem,) = [r.problem for r in collect(g).results if r.problem]
        assert f"; the task was {how}: model.cbc.sol.part holds" in problem, problem


def test_collect_says_a_finished_part_file_needs_only_its_rename(solved_grid, tmp_path):
    # a task stopped between its solve's end and the mv (QA: 1156 tasks): collect said "missing solution" and the
    # advice solved the task again, though the .part held the whole solution
    g = tmp_path / "g g"
    sol = _task_6_left_as_part(solved_grid, g)
    lines = (g / "tasks/0006/solve.log").read_text().splitlines()
    tail = lines[-1]  # CBC's note on its "optimal" (stderr) comes after the line saying where the solution went
    assert any(ln.startswith("solution written to ") and ln.endswith("model.cbc.sol.part") for ln in lines[-3:])
    col = collect(g)
    (problem,) = [r.problem for r in col.results if r.problem]
    mv = f"mv {shlex.quote(f'{sol}.part')} {shlex.quote(str(sol))}"
    assert problem == (f"missing solution (last line of solve.log: {tail}); the solve ended and wrote "
                       f"model.cbc.sol.part, but the task was stopped before it renamed the file: {mv}, then collect "
                       "again (no solve needed)")
    # the advice renames it, and submits nothing (solved again, the task's run would replace the .part)
    assert rerun_advice(col.results, g, len(col.results)) == (f"rename the finished solution file(s) of task(s) 0006 "
                                                              f"({mv}), then collect again: no solve needed")
    subprocess.run(mv, shell=True, check=True)
    assert not [r.problem for r in collect(g).results if r.problem]


def test_collect_tells_a_task_too_short_for_its_solver_and_one_still_running_from_one_to_resubmit(solved_grid,
                                                                                                  tmp_path):
    """Under a real Slurm (QA, 2026-12-05): glpsol found no solution within the grid's limit and its own file, left
    at the .part, was called a job stopped early, with advice to resubmit, which ends the same way; a task still
    running was told to be solved again, and run_local.sh then solved it twice."""
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    for k in range(4):
        (g / f"tasks/{k:04d}/model.cbc.sol").unlink()
    no_solution = ("error: cbc-cli found no solution (Stopped on time (no integer solution - continuous used)): its "
                   "time limit came before it found any solution; give it more time")
    (g / "tasks/0000/solve.log").write_text(f"Cbc0010I ...\n{no_solution}; its file model.cbc.sol.part holds none\n")
    (g / "tasks/0000/model.cbc.sol.part").write_text("Stopped on time - objective value 0\n")
    (g / "tasks/0001/solve.log").write_text("Cbc0010I After 300 nodes, 41 on tree, 57.1 best solution\n")
    (g / "tasks/0002/solve.log").unlink()
    # olctc solve's own TimeLimitTooShort, a warning after it
    (g / "tasks/0003/solve.log").write_text("error: --time-limit 0.6 s leaves no time to solve: checking the model's "
                                            "files took 0.5 s\nwarning: a later line\n")
    col = collect(g)
    problems = {r.task: r.problem for r in col.results if r.problem}
    assert problems[0] == f"missing solution (last line of solve.log: {no_solution}; its file model.cbc.sol.part " \
        "holds none)"  # no word of a job stopped early
    assert re.fullmatch(r"missing solution \(last line of solve.log: Cbc0010I After 300 nodes, 41 on tree, 57.1 best "
                        r"solution\); still running\? \(its solve.log was written \d+ s ago\)", problems[1]), \
        problems[1]
    assert problems[2] == "missing solution (not run yet?)"
    advice = rerun_advice(col.results, g, len(col.results))
    assert advice.startswith("task(s) 0001 may still be running: wait for them to end, then run the missing tasks "
                             f"again (resubmit; solved tasks are skipped); only these: (cd {g} && sbatch --array=1-2 "
                             "submit.slurm)"), advice
    assert advice.endswith("; task(s) 0000, 0003 ended with no solution within the grid's --time-limit (see their "
                           "solve.log): solved again the same way they end the same; make the grid again with a "
                           "longer --time-limit (or another --solver)"), advice
    os.utime(g / "tasks/0001/solve.log", (0, 0))  # written long ago: killed outright, not running
    col = collect(g)
    assert not any(r.running for r in col.results)
    assert rerun_advice(col.results, g, len(col.results)).startswith(
        "if the grid's jobs are still queued or running, wait for them (resubmitted, a task is solved twice); run the "
        "missing tasks again")


def test_collect_does_not_call_a_solution_unusable_for_an_error_of_olctcs_own(solved_grid, monkeypatch):
    # a bug in decoding (here a NameError, as once while decode.py was edited) made every task's good solution
    # "unusable", with advice to delete them all before resubmitting
    import olctc.decode

    out, _, _ = solved_grid
    real = olctc.decode.decode_file

    def broken(manifest, solution, **kw):
        if "0003" in str(solution):
            raise NameError("name 'os' is not defined")
        return real(manifest, solution, **kw)

    monkeypatch.setattr(olctc.decode, "decode_file", broken)
    col = collect(out)
    problems = {r.task: r.problem for r in col.results if r.problem}
    assert problems == {3: "decoding failed: NameError: name 'os' is not defined (an error in olctc, not in the "
                           "solution file: keep the file, and report the error)"}
    assert not any(r.unusable for r in col.results)


def test_collect_names_an_unusable_manifest_as_such(solved_grid, tmp_path):
    # a damaged task manifest was an "unusable solution", with advice to delete the (good) solution and resubmit,
    # after which the task's solve failed on the same manifest's model all the same
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    manifest = g / "tasks/0004/model.olctc.json"
    manifest.write_text(manifest.read_text()[:200])
    problems = {r.task: r.problem for r in collect(g).results if r.problem}
    assert list(problems) == [4] and problems[4].startswith(f"unusable manifest: {manifest}: not a valid manifest")
    assert problems[4].endswith("; restore the task folder's files (model, manifest, start) or make the grid again")
    res = cli_here("collect", str(g), "--emit-final")
    assert res.returncode == 0, res.stderr
    assert "unusable solution" not in res.stdout and "rm " not in res.stdout


def test_collect_with_bad_solutions(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "tasks/0001/model.cbc.sol").unlink()
    (g / "tasks/0001/solve.log").write_text("Killed: time limit of the job reached\n")
    (g / "tasks/0002/model.cbc.sol").write_text("garbage\n")
    shutil.copy(g / "tasks/0004/model.cbc.sol", g / "tasks/0003/model.cbc.sol")  # another fold's solution
    (g / "tasks/0005/model.cbc.sol").write_text("Infeasible - objective value 0.00000000\n")
    col = collect(g)
    problems = {r.task: r.problem for r in col.results if r.problem}
    assert set(problems) == {1, 2, 3, 5}
    assert problems[1].startswith("missing solution") and "Killed" in problems[1]
    assert "unusable solution" in problems[2] and "garbage" in problems[2]
    assert "another model" in problems[3]
    assert "cbc reports infeasible" in problems[5]
    # only complete combinations are candidates: C (0.01,0.01) is the only one with both folds
    assert col.best == (0.01, 0.01)
    res = cli_here("collect", str(g), "--emit-final")
    assert res.returncode == 0, res.stderr
    assert "tasks: 4 of 8 scored" in res.stdout and "are not candidates" in res.stdout
    # resubmitting skips a task whose solution file is not empty: the unusable ones must go first
    unusable = " ".join(str(g / f"tasks/{k:04d}/model.cbc.sol") for k in (2, 3, 5))
    assert ("note: to solve the tasks of unusable solutions again, delete the unusable solution file(s) first "
            f"(rm {unusable}: resubmitting skips every task that has a solution file)") in res.stdout
    assert (g / "final/model.mps").exists() and (g / "final/model.olctc.json").exists()
    man = json.loads((g / "final/model.olctc.json").read_text())
    assert man["spec"]["C"] == [0.01, 0.01] and len(man["data"]["rows"]) == 48
    assert "score_variables" not in man["spec"]  # the grid's form, unless told
    # the files in one column (roles are up to 14 characters), then the next steps, which work as printed
    listed = [line for line in res.stdout.splitlines() if line.startswith("  ") and "/final/" in line]
    assert len(listed) == 17 and len({line.index(str(g)) for line in listed}) == 1, listed
    then = next(line for line in res.stdout.splitlines() if line.startswith("then: solve it"))
    solve = then.split("or ", 1)[1].split(")", 1)[0].replace("SOLUTION", str(g / "final.sol")).split()
    decode = then.split(" and ", 1)[1].replace("SOLUTION", str(g / "final.sol"))
    decode = decode.replace("tree.json", str(g / "final.json")).split()
    assert solve[:2] == ["olctc", "solve"] and decode[:2] == ["olctc", "decode"]
    # a 2 s limit added, as --quiet: the printed command is checked, not the optimum (proving it took 4-6 s)
    assert cli_here(*solve[1:], "--quiet", "--time-limit", "2").returncode == 0
    done = cli_here(*decode[1:])
    assert done.returncode == 0 and (g / "final.json").exists(), done.stderr
    # a solution beside the final instance: emitting the same instance again says nothing, as it still fits
    sol = g / "final/model.highs.sol"
    shutil.copy(g / "final.sol", sol)
    again = cli_here("collect", str(g), "--emit-final")
    assert again.returncode == 0 and "note: " + str(g / "final") not in again.stdout, again.stdout
    assert cli_here("decode", str(g / "final/model.olctc.json"), str(sol), "-o",
                  str(g / "t2.json")).returncode == 0
    # another instance there (as from an earlier grid's best C): its solution is named, not removed
    other = cli_here("compile", str(out.parent / "heart60.csv"), "--target", "y", "--depth", "2", "--C", "3",
                   "-o", str(g / "final/model.mps"))
    assert other.returncode == 0, other.stderr
    again = cli_here("collect", str(g), "--emit-final")
    assert again.returncode == 0, again.stderr
    assert (f"note: {g / 'final'} also holds model.highs.sol, written before this instance; a solution of an "
            "earlier instance does not fit this one") in again.stdout
    assert sol.exists()
    scores = cli_here("collect", str(g), "--emit-final", "--score-variables")
    assert scores.returncode == 0, scores.stderr
    assert json.loads((g / "final/model.olctc.json").read_text())["spec"]["score_variables"] is True
    # too little left: no combination complete
    (g / "tasks/0000/model.cbc.sol").unlink()
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and "too little is left" in res.stderr


def test_collect_does_not_call_gurobi_solutions_unproven(solved_grid, tmp_path):
    """A Gurobi .sol file carries no status: every task of a grid solved by gurobi_cl was "not proven
    optimal (status feasible)", even those Gurobi proved. They are "unknown" now, and collect says why."""
    from olctc.compile import read_manifest
    from olctc.milp import names_from_block_map
    from olctc.read.api import read_solution

    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    for sol in sorted(g.glob("tasks/*/model.cbc.sol")):
        cbc = read_solution(sol)
        names = names_from_block_map(read_manifest(sol.with_name("model.olctc.json"), check_model=False)
                                     ["blocks"]["columns"])
        sol.write_text(f"# Solution for model m\n# Objective value = {cbc.objective!r}\n"
                       + "".join(f"{n} {cbc.values.get(str(n), 0.0)!r}\n" for n in names))
    res = cli_here("collect", str(g))
    assert res.returncode == 0, res.stderr
    assert "not proven optimal" not in res.stdout
    assert ("note: 4 of the scored tasks come from Gurobi, COPT or Xpress solution files, which do not say whether "
            "the solution is optimal, and their solve.log holds no olctc or Gurobi log that does (tasks 0002, 0003, "
            "0006, 0007); a fit stopped at its time limit scores the best tree found") in res.stdout
    tasks = json.loads((g / "cv_results.json").read_text())["tasks"]
    # CBC bent its tolerances on the C1 = 0.01 tasks (CBC does, docs/BENCHMARKS.md): feasible, and said once each
    bent = {t["task"] for t in tasks if f"task {t['task']:04d}: warning: the solver's objective differs from the " \
            "tree's (tolerances)" in res.stdout}
    assert bent == {0, 1, 4, 5}, res.stdout
    assert {t["task"]: t["status"] for t in tasks} == {t["task"]: "feasible" if t["task"] in bent else "unknown"
                                                      for t in tasks}
    assert all(t["score"] is not None for t in tasks)


def test_collect_names_a_second_solution_in_a_task_folder(solved_grid, tmp_path):
    # both columns run on one task (two runs' jobs): the table silently held the first of them
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    shutil.copy(g / "tasks/0001/model.cbc.sol", g / "tasks/0001/model.gurobi.sol")
    res = cli_here("collect", str(g))
    assert res.returncode == 0, res.stderr
    assert ("  task 0001: warning: model.gurobi.sol is there too (the gurobi_command column's solution): "
            "model.cbc.sol was scored; remove the one not to score\n") in res.stdout, res.stdout
    assert res.stdout.count("is there too") == 1


def test_collect_does_not_count_an_optimum_its_values_contradict(solved_grid, tmp_path):
    """A solution called optimal whose loss columns sit above its tree's losses (a false proof, or another model's
    optimum in the folder) was scored as a proven optimum; now "feasible", with a warning (as decode records it)."""
    from olctc.compile import read_manifest
    from olctc.decode import decode_file, rebuild, solution_vector
    from olctc.read.api import read_solution

    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    # a task CBC solved cleanly (at C 0.01 it routes points through its tolerances on some: reported as such)
    task = next(t for t in range(8) if (rep := decode_file(g / f"tasks/{t:04d}/model.olctc.json",
                                                          g / f"tasks/{t:04d}/model.cbc.sol")[1]).ok
                and rep.status == "optimal")
    sol = g / f"tasks/{task:04d}/model.cbc.sol"
    milp = rebuild(read_manifest(sol.with_name("model.olctc.json"), check_model=False))[0]
    names = [str(n) for n in milp.col_names()]
    x = solution_vector(milp, read_solution(sol))
    k = next(j for j, n in enumerate(names) if n.startswith("xi_") and milp.c[j] > 0)  # feasible at any height
    x[k] += 0.5 * max(1.0, milp.objective(x)) / milp.c[k]  # the objective up by half: a loss column left high
    sol.write_text(f"Optimal - objective value {milp.objective(x)!r}\n"
                   + "".join(f"{j:>7} {n} {v!r} 0\n" for j, (n, v) in enumerate(zip(names, x.tolist())) if v))
    res = cli_here("collect", str(g))
    assert res.returncode == 0, res.stderr
    said = (f"  task {task:04d}: warning: the solver calls its solution optimal, but its (w, b) give this model an "
            "objective lower than a MIP gap allows: a false proof, or another model's solution in this task's "
            "folder?\n")
    assert said in res.stdout, res.stdout
    assert res.stdout.count("an objective lower than a MIP gap allows") == 1
    tasks = json.loads((g / "cv_results.json").read_text())["tasks"]
    assert tasks[task]["status"] == "feasible", tasks


def test_collect_bad_folders(solved_grid, tmp_path):
    out, data, _ = solved_grid
    res = cli_here("collect", str(tmp_path))
    assert res.returncode == 2 and "is not an olctc grid folder" in res.stderr
    g = tmp_path / "g"
    shutil.copytree(out, g)
    jobs = g / "jobs.tsv"
    lines = jobs.read_text().splitlines()
    lines[3] = lines[3].replace("\t10,0.01\t", "\t10,1\t")
    jobs.write_text("\n".join(lines) + "\n")
    res = cli_here("collect", str(g))
    assert res.returncode == 2
    assert "jobs.tsv line 4: task 2 has C '10,1', grid.json says 10,0.01" in res.stderr
    lines = (out / "jobs.tsv").read_text().splitlines()
    jobs.write_text("\n".join(lines[:-1]) + "\n")
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and "task(s) [7] of grid.json are not listed" in res.stderr
    jobs.write_text("\n".join(lines + [lines[1]]) + "\n")
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and "line 10: task 0 is listed twice" in res.stderr
    # the data changed since `olctc grid`
    shutil.copy(out / "jobs.tsv", jobs)
    changed = tmp_path / "changed.csv"
    text = data.read_text().splitlines()
    changed.write_text("\n".join(text[:-1]) + "\n")
    res = cli_here("collect", str(g), "--data", str(changed))
    assert res.returncode == 2 and "the data changed since `olctc grid`" in res.stderr
    # -o onto a file of the grid, or onto the data, would destroy what collect reads
    before = (g / "grid.json").read_bytes()
    res = cli_here("collect", str(g), "-o", str(g / "grid.json"))
    assert res.returncode == 2 and res.stderr == f"error: -o {g / 'grid.json'} is also the input grid file; " \
        "write to another file\n", res.stderr
    assert (g / "grid.json").read_bytes() == before
    res = cli_here("collect", str(g), "--data", str(data), "-o", str(data))
    assert res.returncode == 2 and "is also the input data" in res.stderr
    # a task's manifest, overwritten, made the task "unusable" and the C picked among the others
    manifest = g / "tasks" / "0000" / "model.olctc.json"
    before = manifest.read_bytes()
    res = cli_here("collect", str(g), "-o", str(manifest))
    assert res.returncode == 2 and res.stderr == f"error: -o {manifest} is inside {g / 'tasks'}, whose manifests " \
        "and solutions collect reads; write the tree elsewhere\n", res.stderr
    assert manifest.read_bytes() == before


def test_grid_bad_input(tmp_path):
    data = small_heart_csv(tmp_path / "h.csv", 10)
    res = cli_here("grid", str(data), "--target", "y", "--C-values", "1,x", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "C_values" in res.stderr
    res = cli_here("grid", str(data), "--target", "y", "--solver", "nope", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "The 'solver' parameter" in res.stderr
    res = cli_here("grid", str(data), "--target", "y", "--preset", "margot", "--solver", "cbc-cli",
                 "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "MIQP" in res.stderr
    res = cli_here("grid", str(data), "--target", "y", "--folds", "9", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "stratified folds" in res.stderr and "use --folds 8 or fewer, or more data" \
        in res.stderr
    # a fold count the data cannot give at any --folds: no advice to use --folds 2 (QA pass, 2026-12-03)
    res = cli_here("grid", str(data), "--target", "y", "--test-size", "0.9", "--folds", "2", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and res.stderr.endswith("point(s) of one class; use a smaller --test-size or more "
                                                       "data\n"), res.stderr
    # the tasks would only fail on the cluster, one by one; leaving the option out gives 600 s, not no limit
    res = cli_here("grid", str(data), "--target", "y", "--time-limit", "1e10", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and res.stderr == ("error: The 'time_limit' parameter (--time-limit) must be a "
                                                  "positive number of seconds, at most 1e7 (115 days). Got "
                                                  "10000000000.0 instead.\n"), res.stderr
    res = cli_here("grid", str(data), "--target", "y", "--threads", "0", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "The 'threads' parameter (--threads) must be" in res.stderr
    assert not (tmp_path / "a").exists()
    ok = cli_here("grid", "--dataset", "heart", "--depth", "1", "--C-values", "1", "--folds", "2",
                "--solver", "olctc", "--time-limit", "5", "--test-size", "0", "-o", str(tmp_path / "b"))
    assert ok.returncode == 0, ok.stderr
    info = json.loads((tmp_path / "b/grid.json").read_text())
    assert info["test_rows"] == [] and len(info["train_rows"]) == 297 and info["data"]["source"] == "dataset:heart"
    if shutil.which("sbatch") is None:
        assert "sbatch is not on PATH" in ok.stdout
    assert "--solver highs" in (tmp_path / "b/jobs.tsv").read_text()
    again = cli_here("grid", "--dataset", "heart", "-o", str(tmp_path / "b"))
    assert again.returncode == 2 and "already holds a grid" in again.stderr


# ---- QA: damaged grid.json, odd Slurm values, foreign folders --------------------------------------------

@pytest.mark.parametrize("edit, message", [
    # fields jobs.tsv does not repeat: each used to end in a traceback, or (a -1 row) score silently
    # on another row of the data
    (lambda d: d["folds"][0]["val"].append(-1), "field 'folds[0].val' holds -1, not a row number from 0 to 59"),
    (lambda d: d["test_rows"].append(500), "field 'test_rows' holds 500, not a row number from 0 to 59"),
    (lambda d: d.__setitem__("spec", 3), "field 'spec' must be an object (the tree specification), got 3"),
    (lambda d: d["spec"].pop("preset"), "field 'spec' is not a valid tree specification (KeyError: 'preset')"),
    (lambda d: d.__setitem__("C_grid", [["a", 1]]), "field 'C_grid' must be a non-empty list of C combinations"),
    (lambda d: d["data"].pop("source"), "field 'data.source' must be a string, got nothing (missing)"),
    (lambda d: d.pop("seed"), "field 'seed' must be an integer, got nothing (missing)"),
    (lambda d: d.__setitem__("time_limit", "x"), "field 'time_limit' must be a positive number of seconds"),
    (lambda d: d.__setitem__("solver", ["cbc"]), "field 'solver' must be one of cbc-cli"),
])
def test_collect_damaged_grid_json_is_a_one_line_error(solved_grid, tmp_path, edit, message):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    info = json.loads((g / "grid.json").read_text())
    edit(info)
    (g / "grid.json").write_text(json.dumps(info))
    with pytest.raises(OlctcError) as e:
        collect(g)
    assert str(e.value).startswith(f"{g / 'grid.json'}: {message}"), str(e.value)
    assert "\n" not in str(e.value)


def test_collect_damaged_grid_json_through_the_cli(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    info = json.loads((g / "grid.json").read_text())
    info["tasks"] = 5  # used to: TypeError traceback, exit 1
    (g / "grid.json").write_text(json.dumps(info))
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and res.stderr == (f"error: {g / 'grid.json'}: field 'tasks' must be a non-empty "
                                                  "list of tasks, got 5; the file is damaged (edited?)\n")


def test_collect_refuses_a_bad_solver_before_decoding(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "cv_results.json").unlink(missing_ok=True)
    res = cli_here("collect", str(g), "--solver", "cbc-cli")
    assert res.returncode == 2 and res.stderr == ("error: The 'solver' parameter (--solver) must be one of "
                                                  "highs, cbc, scip, gurobi, cplex, copt, xpress "
                                                  "for an in-process fit. Got 'cbc-cli' instead.\n")
    assert res.stdout == "" and not (g / "cv_results.json").exists()  # used to: every task decoded first


def test_collect_refuses_an_unwritable_output_before_decoding(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "cv_results.json").unlink(missing_ok=True)
    res = cli_here("collect", str(g), "-o", str(tmp_path / "missing" / "final.json"))
    assert res.returncode == 2 and "missing" in res.stderr and res.stderr.count("\n") == 1, res.stderr
    assert res.stdout == "" and not (g / "cv_results.json").exists()  # used to: decoded, fitted, then failed


@pytest.mark.parametrize("name, args", [("cv_results.json", []), ("final_tree.json", []), ("final", ["--emit-final"])])
def test_collect_refuses_its_own_files_as_links_out_of_the_folder(solved_grid, tmp_path, name, args):
    """A grid folder from elsewhere can hold symbolic links (tar keeps them): collect wrote cv_results.json
    through one, replacing a user's file outside the folder (QA 2026-12-05). Its own files and folder in the grid
    folder are refused as links, before anything is decoded."""
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    victim = tmp_path / "notes"
    victim.mkdir()
    (victim / "notes.txt").write_text("mine\n")
    target = victim if name == "final" else victim / "notes.txt"
    for own in ("cv_results.json", "final_tree.json"):
        (g / own).unlink(missing_ok=True)
    shutil.rmtree(g / "final", ignore_errors=True)
    (g / name).symlink_to(target)
    res = cli_here("collect", str(g), *args)
    assert res.returncode == 2 and res.stderr.startswith(f"error: {g / name} is a symbolic link (to {target}): "), \
        res.stderr
    assert res.stderr.count("\n") == 1 and res.stdout == ""
    assert [p.name for p in victim.iterdir()] == ["notes.txt"] and (victim / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("args, message", [
    # a newline ended the #SBATCH line and made the rest a command of every job
    (["--partition", "short\nrm -rf ~"], "The 'partition' parameter (--partition) must be a Slurm partition name "
                                         "(letters, digits, '_', '-', '.'), or several with commas between them. "
                                         "Got 'short\\nrm -rf ~' instead."),
    # sbatch took 'a;b' in the script and Slurm refused every submission
    (["--partition", "a;b"], "The 'partition' parameter (--partition) must be a Slurm partition name"),
    (["--partition", "a,"], "The 'partition' parameter (--partition) must be a Slurm partition name"),
    (["--account", ""], "The 'account' parameter (--account) must be a Slurm account name (letters, digits, '_', "
                        "'-', '.')."),
    (["--account", "p'1"], "The 'account' parameter (--account) must be a Slurm account name"),
    (["--mem", ""], "The 'mem' parameter (--mem) must be a Slurm memory size such as '4G', '500M' or '4000' "
                    "(megabytes)."),
    (["--olctc-cmd", " "], "The 'olctc_cmd' parameter (--olctc-cmd) must be a command on one line"),
    # every task would run `olctc solve --threads 2000`, which refuses it: the whole array failing on the cluster
    (["--cpus-per-task", "2000"], "The 'cpus_per_task' parameter (--cpus-per-task) must be at most 1024 (each "
                                  "task's solver "
                                  "threads) unless --threads is given. Got 2000 instead."),
])
def test_grid_refuses_values_its_jobs_would_fail_on(tmp_path, args, message):
    data = small_heart_csv(tmp_path / "h.csv", 10)
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2", *args,
                 "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and res.stderr.startswith(f"error: {message}") and res.stderr.count("\n") == 1, \
        res.stderr
    assert not (tmp_path / "a").exists()


def test_slurm_names_that_sbatch_takes_pass():
    from olctc.cluster import SlurmOptions, check_slurm_options

    check_slurm_options(SlurmOptions(partition="short,gpu-a100,long_2.x", account="proj-1.a_b"))
    for mem in ("4G", "4GB", "512mb", "4000", "2t"):  # '4GB' was refused, which sbatch takes (QA pass, Slurm 22.05)
        check_slurm_options(SlurmOptions(mem=mem))


def test_grid_warns_of_an_olctc_cmd_path_with_an_unquoted_space(tmp_path):
    """Written unquoted into every task's command, '/my dir/olctc' ran '/my' and every task failed; grid said
    nothing. It warns now, and the quoted path runs (the task's command, as run_local.sh runs it)."""
    data = small_heart_csv(tmp_path / "h.csv", 10)
    spaced = tmp_path / "my dir"
    spaced.mkdir()
    program = spaced / "olctc"
    program.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m olctc.cli \"$@\"\n")
    program.chmod(0o755)
    args = ["grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2"]
    res = cli_here(*args, "--olctc-cmd", str(program), "-o", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    assert res.stderr == (f"warning: --olctc-cmd: the tasks will run {str(tmp_path / 'my')!r}, which is not a file "
                          "here; a path with spaces must be quoted inside the option, as in --olctc-cmd "
                          "\"'/my dir/olctc'\"\n")
    res = cli_here(*args, "--olctc-cmd", shlex.quote(str(program)), "-o", str(tmp_path / "b"))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    command = (tmp_path / "b" / "jobs.tsv").read_text().splitlines()[1].split("\t")[5]
    prefix = command.split(" solve ")[0]
    ran = subprocess.run(["bash", "-c", f"{prefix} --version"], capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout.startswith("olctc"), (ran.stdout, ran.stderr)
    res = cli_here(*args, "--olctc-cmd", "'unbalanced", "-o", str(tmp_path / "c"))
    assert res.returncode == 2 and res.stderr == (
        "error: The 'olctc_cmd' parameter (--olctc-cmd) must be a command on one line, such as 'olctc' or "
        "'python -m olctc.cli', its quotes balanced. Got \"'unbalanced\" instead.\n")
    assert not (tmp_path / "c").exists()
    # a comment hid each task's arguments: every task ran `true`, "succeeded", and wrote nothing
    res = cli_here(*args, "--olctc-cmd", "true #", "-o", str(tmp_path / "d"))
    assert res.returncode == 2 and res.stderr == (
        "error: The 'olctc_cmd' parameter (--olctc-cmd) must be a command on one line, such as 'olctc' or "
        "'python -m olctc.cli', without a comment (an unquoted #), which would hide the arguments each task adds. "
        "Got 'true #' instead.\n"), res.stderr
    assert not (tmp_path / "d").exists()
    from olctc.cluster.grid import _has_comment

    for cmd, comment in [("x #c", True), ("x;#", True), ("a#b", False), ("'#' x", False), ("x \\#", False),
                         ('x "\\"#"', False), ("x $#", False)]:  # as bash reads them
        said = subprocess.run(["bash", "-c", f"printf '<%s>' {cmd} END"], capture_output=True, text=True).stdout
        assert _has_comment(cmd) == comment == ("END" not in said), (cmd, said)


def test_a_large_grid_is_noted_before_its_tasks_are_written(tmp_path, monkeypatch, capsys):
    """30 C values at depth 2 made 1800 tasks (a minute of writing, 700 MB) without a word; here the limit is
    lowered to 3 so that 2 values over 1 layer and 2 folds (4 tasks) pass it."""
    import olctc.cluster.grid
    from conftest import cli_main

    monkeypatch.setattr(olctc.cluster.grid, "LARGE_GRID_TASKS", 3)
    data = small_heart_csv(tmp_path / "h.csv", 10)
    code, out, err = cli_main(["grid", data, "--target", "y", "--depth", "1", "--C-values", "1,10", "--folds", "2",
                               "-o", tmp_path / "a"], capsys)
    assert code == 0, err
    note = ("note: 4 tasks: 2 C values per layer over 1 layer(s) make 2 combinations, times 2 folds; each task "
            "is a model file to write and a solve to run (fewer --C-values make fewer)")
    assert out.splitlines()[0] == note, out
    monkeypatch.setattr(olctc.cluster.grid, "LARGE_GRID_TASKS", 4)
    code, out, err = cli_main(["grid", data, "--target", "y", "--depth", "1", "--C-values", "1,10", "--folds", "2",
                               "-o", tmp_path / "b"], capsys)
    assert code == 0 and "note: 4 tasks" not in out


def test_grid_refuses_a_folder_of_other_files(tmp_path):
    data = small_heart_csv(tmp_path / "h.csv", 10)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "run_local.sh").write_text("my own script\n")  # used to: overwritten by the grid's
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "-o", str(mine))
    assert res.returncode == 2 and res.stderr == (f"error: {mine} is not empty and holds no grid (run_local.sh): "
                                                  "give a new or empty folder\n")
    assert [p.name for p in mine.iterdir()] == ["run_local.sh"]
    assert (mine / "run_local.sh").read_text() == "my own script\n"
    # a stopped grid leaves nothing now, so tasks/ and logs/ are someone's files like any other (they were
    # accepted as an older olctc's leftovers, and written into)
    left = tmp_path / "left"
    (left / "tasks" / "0000").mkdir(parents=True)
    (left / "logs").mkdir()
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "-o", str(left))
    assert res.returncode == 2 and res.stderr == (f"error: {left} is not empty and holds no grid (logs, tasks): "
                                                  "give a new or empty folder\n")
    assert sorted(p.name for p in left.rglob("*")) == ["0000", "logs", "tasks"]
    # the temporary folder of a grid killed outright (SIGKILL) is no reason to refuse
    killed = tmp_path / "killed"
    (killed / ".killed.0123456789ab.tmp" / "tasks").mkdir(parents=True)
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "-o", str(killed))
    assert res.returncode == 0, res.stderr
    assert (killed / "grid.json").exists()
    # and is named, not removed (it could be another grid's, under way)
    assert (f"warning: {killed / '.killed.0123456789ab.tmp'}: left by a grid of killed that was killed before it "
            "finished, or in use by one running now; nothing else reads it: remove it once none is running\n"
            ) in res.stderr
    assert (killed / ".killed.0123456789ab.tmp" / "tasks").is_dir()


def test_grid_empty_output_is_refused_not_the_current_folder(tmp_path):
    res = cli_here("grid", "--dataset", "heart", "--depth", "1", "--C-values", "1", "--folds", "2", "-o", "",
                   cwd=tmp_path)  # in process, from tmp_path: the current folder is what is checked
    assert res.returncode == 2 and res.stderr == ("error: The 'output' parameter (--output) must be a folder "
                                                  "path (-o DIR). "
                                                  "Got '' instead.\n")
    assert list(tmp_path.iterdir()) == []  # used to: grid.json, tasks/, scripts in the current folder


def test_grid_prints_commands_a_shell_can_run(tmp_path, monkeypatch):
    # "-o grid/" printed "grid//run_local.sh"; a folder with a space printed a command that split it
    data = small_heart_csv(tmp_path / "h.csv", 10)
    monkeypatch.chdir(tmp_path)
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "--solver", "highs", "--time-limit", "5", "-o", "my grid/")
    assert res.returncode == 0, res.stderr
    lines = {ln.split(":", 1)[0].strip(): ln.split(":", 1)[1].strip() for ln in res.stdout.splitlines()
             if ln.startswith("  ") and ":" in ln and not ln.strip().startswith("task")}
    assert lines["submit"] == "bash 'my grid/submit.sh'   (or cd 'my grid' && sbatch submit.slurm)"
    assert lines["then"] == "olctc collect 'my grid'"
    run = subprocess.run(["bash", "-c", lines["locally"]], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert len(list((tmp_path / "my grid" / "tasks").glob("*/model.highs.sol"))) == 2


def test_grid_solves_with_olctc_and_highs_unless_told(tmp_path):
    """CBC proves false optima on these models (docs/BENCHMARKS.md): a grid's default is `olctc solve`
    with HiGHS, and collect's final fit follows it."""
    from olctc.cluster import GRID_SOLVERS

    data = small_heart_csv(tmp_path / "h.csv", per_class=10)
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "--time-limit", "10", "-o", str(tmp_path / "g"))
    assert res.returncode == 0, res.stderr
    info = json.loads((tmp_path / "g" / "grid.json").read_text())
    assert info["solver"] == "olctc" and GRID_SOLVERS["olctc"] == "highs"
    rows = [ln.split("\t") for ln in (tmp_path / "g" / "jobs.tsv").read_text().splitlines()[1:]]
    assert len(rows) == 2 and all(r[5].startswith(f"olctc solve {r[3]} --solver highs ") for r in rows)


# ---- QA: grids that fail or stop leave nothing; --solver help; collect's advice -----------------------------

def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


_GRID_ARGS = ("grid", "--dataset", "heart", "--depth", "1", "--folds", "2", "--C-values", "1,10", "--time-limit", "5")


@pytest.mark.parametrize("output", ["afile/g", "afile/x/g"])
def test_grid_under_a_file_is_a_one_line_error(tmp_path, output):
    (tmp_path / "afile").write_text("")
    res = cli_here(*_GRID_ARGS, "-o", output, cwd=tmp_path)  # in process, from tmp_path
    # used to: NotADirectoryError traceback, exit 1
    assert res.returncode == 2 and res.stderr == f"error: cannot write {output}: folder afile is not a folder\n"
    assert _tree(tmp_path) == ["afile"] and (tmp_path / "afile").read_text() == ""


def test_grid_on_a_full_disk_leaves_the_folder_as_it_was(tmp_path):
    with tmpfs(tmp_path / "small", "size=300k") as small:
        # used to: small/g/logs, tasks/0000 whole and tasks/0001 empty stayed behind
        res = cli_here(*_GRID_ARGS, "-o", str(small / "x" / "y" / "g"))
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
        assert res.stderr.startswith(f"error: cannot write {small}/x/y/g/tasks/")
        assert res.stderr.endswith(": No space left on device\n") and ".tmp" not in res.stderr
        assert _tree(small) == []  # nor the parents x/y that the grid would have created
        empty = small / "e"
        empty.mkdir()
        empty.chmod(0o751)
        before = empty.stat()
        res = cli_here(*_GRID_ARGS, "-o", str(empty))
        assert res.returncode == 2 and res.stderr.startswith(f"error: cannot write {empty}/tasks/"), res.stderr
        assert _tree(small) == ["e"]
        after = empty.stat()  # the same folder, not another one under its name
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_grid_on_a_read_only_disk_is_a_one_line_error(tmp_path):
    with tmpfs(tmp_path / "ro", "ro") as ro:
        res = cli_here(*_GRID_ARGS, "-o", str(ro / "g"))
        assert res.returncode == 2 and res.stderr == f"error: cannot write {ro / 'g'}: folder {ro} is not writable\n"
        assert res.stdout == ""  # refused before compiling anything


def test_make_grid_refuses_python_values_it_would_fail_on_before_writing(tmp_path):
    # QA 2026-12-05: each of these made a grid collect could not use (a subset, arrays: "the data has 297 rows",
    # "arrays is not there"), wrote "None solve ..." into every task, or failed as AttributeError/TypeError
    import numpy as np

    from olctc.cluster import SlurmOptions, make_grid
    from olctc.data import from_arrays
    from olctc.datasets import load
    from olctc.spec import make_spec

    ds, spec = load("heart"), make_spec("olct", 1)
    out = tmp_path / "g"
    cases = [
        (dict(ds=ds.subset(np.arange(60))), "ds is part of its data (Dataset.subset): a grid records its whole "
         "source, which collect reloads, and makes its own split of it: pass the whole Dataset"),
        (dict(ds=from_arrays(ds.X, ds.y)), "ds comes from 'arrays', no file collect can reload it from: a grid "
         "needs data read from a CSV file (read_csv) or a vendored data set (load_dataset)"),
        (dict(ds=None), "The 'ds' parameter must be an olctc Dataset"),
        (dict(spec=ds), "The 'spec' parameter"),
        (dict(olctc_cmd=None), "The 'olctc_cmd' parameter must be the command that runs olctc where the tasks run"),
        (dict(olctc_cmd=" "), "The 'olctc_cmd' parameter"),
        (dict(time_limit="30"), "The 'time_limit' parameter must be a positive number of seconds"),
        (dict(time_limit=None), "The 'time_limit' parameter"),
        (dict(threads=0), "The 'threads' parameter must be an integer from 1"),
        (dict(threads="x"), "The 'threads' parameter"),
        (dict(echo=5), "The 'echo' parameter must be None or a function"),
        (dict(slurm="x"), "The 'slurm' parameter must be None or olctc.cluster.SlurmOptions(...). Got 'x'"),
    ]
    for change, message in cases:
        args = dict(ds=ds, spec=spec, out=out, C_values=[1.0], folds=2, solver="highs", time_limit=30.0)
        args.update(change)
        with pytest.raises(OlctcError) as info:
            make_grid(**args)
        assert str(info.value).startswith(message), (change, str(info.value))
        assert "--" not in str(info.value), str(info.value)  # Python's names, not the command's options
    assert not out.exists()
    assert len(make_grid(ds, spec, out, C_values=[1.0], folds=2, solver="highs", time_limit=30.0,
                         slurm=SlurmOptions()).tasks) == 2


def test_grid_failing_after_its_tasks_leaves_nothing(tmp_path):
    from olctc.cluster import make_grid
    from olctc.datasets import load
    from olctc.spec import make_spec

    empty = tmp_path / "empty"
    empty.mkdir()
    for out in (tmp_path / "new" / "g", empty):
        # the tab is found when jobs.tsv is written, after every task was compiled
        with pytest.raises(OlctcError, match="a path contains a tab or newline"):
            make_grid(load("heart"), make_spec("olct", 1), out, C_values=[1.0], folds=2, olctc_cmd="olctc\tx")
    assert _tree(tmp_path) == ["empty"]


def test_grid_files_name_no_temporary_folder(tmp_path, monkeypatch):
    """The grid is built under a temporary name and renamed: nothing written may name that folder."""
    here = tmp_path / "here"
    here.mkdir()
    for output, cwd in (("a/b/g", tmp_path), (".", here)):  # missing parents are made; "." is kept
        monkeypatch.chdir(cwd)
        res = cli_here(*_GRID_ARGS, "-o", output)
        assert res.returncode == 0, res.stderr
        grid = cwd / output
        assert {"grid.json", "jobs.tsv", "submit.slurm", "submit.sh", "run_local.sh", "tasks", "logs"} == \
            {p.name for p in grid.iterdir()}
        files = [p for p in grid.rglob("*") if p.is_file()]
        assert len(files) > 20
        for f in files:
            text = f.read_bytes().decode("utf-8", "replace")
            assert str(tmp_path) not in text and not re.search(r"\.(g|here)\.[0-9a-f]{12}\.tmp", text), f
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "here"]


def test_grid_help_lists_every_solver_it_accepts(tmp_path):
    from olctc.cluster import GRID_SOLVERS

    res = CliRunner().invoke(cli, ["grid", "--help"])
    text = re.sub(r"(?<=\w-) (?=\w)", "", " ".join(res.output.split()))  # click wraps at hyphens
    # used to: olctc, highs-cli, cbc-cli, glpk-cli, gurobi-cli; scip, the MIQP presets' solver, accepted unlisted
    for name in GRID_SOLVERS:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), name
    assert ("The MIQP presets (margot, margot-sfs, margot-hfs) need scip, gurobi-cli, gurobi, cplex, copt or "
            "xpress.") in text
    data = small_heart_csv(tmp_path / "h.csv", 10)
    ok = cli_here("grid", str(data), "--target", "y", "--preset", "margot", "--depth", "1", "--C-values", "1",
                "--folds", "2", "--solver", "scip", "--time-limit", "5", "-o", str(tmp_path / "g"))
    assert ok.returncode == 0, ok.stderr
    assert "--solver scip" in (tmp_path / "g" / "jobs.tsv").read_text()


def test_grid_warns_of_a_time_limit_collects_final_fit_refuses(tmp_path, capsys):
    # each task's solve takes 2 s; collect's final fit, which takes the grid's limit, refused it after every task
    # had run (QA: 1156 tasks). grid says so, and the collect it advises runs.
    from conftest import cli_main

    data = small_heart_csv(tmp_path / "h.csv", per_class=12)
    out = tmp_path / "g"
    grid = ["grid", data, "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
            "--olctc-cmd", f"{sys.executable} -m olctc.cli"]
    code, _, err = cli_main([*grid, "--time-limit", "2", "-o", out], capsys)
    assert code == 0 and err == ("warning: --time-limit 2 s is enough for each task's solve but not for the final fit "
                                 "of olctc collect, which takes the grid's limit unless given its own: give collect "
                                 "--time-limit 3 or more (or --emit-final)\n"), err
    run_tasks_here(out)
    code, _, err = cli_main(["collect", out, "-o", tmp_path / "t.json"], capsys)
    assert code == 2 and "give at least 3 s" in err, err
    code, _, err = cli_main(["collect", out, "--time-limit", "3", "-o", tmp_path / "t.json"], capsys)
    assert code == 0 and (tmp_path / "t.json").exists(), err
    code, _, err = cli_main([*grid, "--time-limit", "3", "-o", tmp_path / "g3"], capsys)
    assert code == 0 and err == "", err


def test_collect_advice_for_a_broken_solution_fixes_it(solved_grid, tmp_path):
    """The jobs skip a task whose solution file is not empty: resubmitting never replaces a truncated one."""
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "cv_results.json").unlink(missing_ok=True)
    broken = g / "tasks/0000/model.cbc.sol"
    broken.write_text(broken.read_text()[:40])  # truncated, as by a full disk or a killed copy
    for k in (1, 2, 3):  # fold 0 of every C missing: nothing to choose C from
        (g / f"tasks/{k:04d}/model.cbc.sol").unlink()
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    # deliberate: the scores so far are written, and the error says so
    assert f"the scores so far are in {g / 'cv_results.json'}, with best null" in res.stderr
    assert json.loads((g / "cv_results.json").read_text())["best"] is None
    advice = re.search(r"\(rm ([^:]*): resubmitting skips every task that has a solution file\), then run the "
                       r"missing tasks again", res.stderr)
    assert advice and advice.group(1) == str(broken), res.stderr
    # resubmitting alone solves the missing tasks 1-3, never the broken task 0
    rerun = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True)
    assert rerun.returncode == 0 and "task 0: tasks/0000/model.cbc.sol exists, skipped" in rerun.stdout
    res = cli_here("collect", str(g), "--emit-final")
    assert res.returncode == 0 and "tasks: 7 of 8 scored" in res.stdout and f"(rm {broken}:" in res.stdout
    subprocess.run(["bash", "-c", f"rm {advice.group(1)}"], check=True)  # the advice, as a user would follow it
    rerun = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True)
    assert rerun.returncode == 0 and rerun.stdout.count("exists, skipped") == 7, rerun.stdout + rerun.stderr
    res = cli_here("collect", str(g), "--emit-final")
    assert res.returncode == 0 and "tasks: 8 of 8 scored" in res.stdout, res.stderr


def test_collect_missing_solutions_keep_the_resubmit_advice(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    for k in range(4):
        (g / f"tasks/{k:04d}/model.cbc.sol").unlink()
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and res.stderr.endswith(
        "too little is left to choose C: run the missing tasks again (resubmit; solved tasks are skipped); only "
        f"these: (cd {g} && sbatch --array=0-3 submit.slurm), or {g / 'run_local.sh'} without Slurm\n"), res.stderr
    assert "rm " not in res.stderr and "unusable" not in res.stdout


def test_collect_emit_final_onto_a_file_is_refused_before_decoding(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "cv_results.json").unlink(missing_ok=True)
    shutil.rmtree(g / "final", ignore_errors=True)
    (g / "final").write_text("mine\n")
    res = cli_here("collect", str(g), "--emit-final")
    # used to: every task decoded, then a FileExistsError traceback (exit 1)
    assert res.returncode == 2 and res.stderr == (f"error: cannot write {g / 'final' / 'model.mps'}: "
                                                  f"{g / 'final'} exists and is not a folder\n")
    assert res.stdout == "" and not (g / "cv_results.json").exists() and (g / "final").read_text() == "mine\n"


# ---- QA: exact C values, Ctrl-C of run_local.sh, unproven optima, job arrays of large grids -------------------

def small_grid(tmp_path: Path, C_values: str, time_limit: str) -> Path:
    """A depth-1, 2-fold grid of HiGHS tasks on 20 heart rows, in tmp_path/g."""
    data = small_heart_csv(tmp_path / "h.csv", per_class=10)
    g = tmp_path / "g"
    res = cli_here("grid", str(data), "--target", "y", "--depth", "1", "--C-values", C_values, "--folds", "2",
                 "--solver", "highs", "--time-limit", time_limit, "-o", str(g))
    assert res.returncode == 0, res.stderr
    return g


def test_grid_C_values_of_many_digits_are_collected(tmp_path):
    """jobs.tsv wrote C with {:g} (0.123456789 -> 0.123457): collect then refused the grid's own jobs.tsv."""
    g = small_grid(tmp_path, "0.123456789,3", "1234567")
    rows = [ln.split("\t") for ln in (g / "jobs.tsv").read_text().splitlines()[1:]]
    assert [r[2] for r in rows] == ["0.123456789", "3", "0.123456789", "3"]
    # the time limit exactly too (it was --time-limit 1.23457e+06, TimeLimit=1.23457e+06)
    assert all("--time-limit 1234567 " in r[5] and "TimeLimit=1234567 " in r[6] for r in rows)
    run_tasks_here(g)  # the tasks' command lines as written, in process
    col = cli_here("collect", str(g), "--emit-final")
    assert col.returncode == 0, col.stderr
    assert "tasks: 4 of 4 scored" in col.stdout and "0.123456789" in col.stdout


def test_run_local_stops_at_ctrl_c(tmp_path):
    """olctc exits 130 at Ctrl-C and bash went on with the next task: every task needed its own Ctrl-C."""
    import os
    import signal
    import time

    g = tmp_path / "g"
    res = cli_here("grid", "--dataset", "heart", "--depth", "2", "--C-values", "1", "--folds", "2", "--solver",
                 "highs", "--time-limit", "10", "-o", str(g))
    assert res.returncode == 0, res.stderr
    proc = subprocess.Popen(["bash", str(g / "run_local.sh")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # its own process group, as a terminal's job
    log = g / "tasks/0000/solve.log"
    t0 = time.monotonic()
    while "Solving" not in (log.read_text() if log.exists() else "") and time.monotonic() - t0 < 60:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground process group
    try:
        out, err = proc.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 130, out + err
    assert not (g / "tasks/0001/solve.log").exists(), out  # the next task never started
    assert f"interrupted: run {g / 'run_local.sh'} again to go on" in err
    assert not (g / "tasks/0000/model.highs.sol").exists()  # only the .part of the interrupted solve
    # The runner ended after its solve, whose task lock is free: a flock running the solve died at the Ctrl-C
    # at once, the runner with it, and the solve went on, holding the lock (a rerun then skipped the task as
    # "running in another process", QA 2026-12-05).
    assert log.read_text().splitlines()[-1].startswith("interrupted"), log.read_text()[-300:]
    free = subprocess.run(["flock", "-n", "-E", "75", str(g / "tasks/0000/model.mps"), "true"])
    assert free.returncode == 0


@pytest.mark.parametrize("scoring", ["neg_log_loss", "roc_auc", "accuracy", "neg_brier_score"])
def test_collect_scoring_chooses_C_by_scikit_learns_scorer(solved_grid, tmp_path, scoring):
    """collect chose C by balanced accuracy only: --scoring NAME scores every task with scikit-learn's scorer
    of that name, recomputed here from each task's decoded tree."""
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.metrics import get_scorer

    from olctc.compile import manifest_path
    from olctc.decode import decode_file

    out, data, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g, ignore=shutil.ignore_patterns("cv_results.json", "final*"))
    res = cli_here("collect", str(g), "--scoring", scoring, "--emit-final")
    assert res.returncode == 0, res.stderr
    cv = json.loads((g / "cv_results.json").read_text())
    assert cv["scoring"] == scoring
    info = json.loads((g / "grid.json").read_text())
    from olctc.data import read_csv

    ds = read_csv(data, target="y")

    class Scored(ClassifierMixin, BaseEstimator):  # the tree as a fitted classifier, for scikit-learn's scorer
        classes_ = np.array([-1, 1])

        def __init__(self, tree):
            self.tree = tree

        def predict(self, X):
            return np.where(self.tree.decision_function(X) > 0, 1, -1)

        def predict_proba(self, X):
            return self.tree.predict_proba(X)

        def decision_function(self, X):
            return self.tree.decision_function(X)

    scorer = get_scorer(scoring)
    for t in cv["tasks"]:
        tree, _ = decode_file(manifest_path(g / f"tasks/{t['task']:04d}/model.mps"),
                              g / f"tasks/{t['task']:04d}/model.cbc.sol")
        val = np.asarray(info["folds"][t["fold"]]["val"])
        assert t["score"] == pytest.approx(scorer(Scored(tree), ds.X[val], ds.y[val]), rel=1e-12, abs=1e-12)
    means = {tuple(r["C"]): r["mean"] for r in cv["table"]}
    assert tuple(cv["best"]) in [C for C, m in means.items() if m == max(means.values())]
    label = {"neg_log_loss": "negative log loss", "roc_auc": "ROC AUC", "accuracy": "accuracy",
             "neg_brier_score": "negative Brier score"}[scoring]
    assert f"(mean validation {label} " in res.stdout
    if scoring.startswith("neg_"):
        assert all(m < 0 for m in means.values())


def test_collect_says_a_fold_the_scoring_cannot_score_needs_another_scoring(tmp_path):
    """ROC AUC on a validation fold whose positives all weigh 0 is nan (scikit-learn warns): collect crashed with
    'min() arg is an empty sequence'. Such a task is solved; resubmitting it changes nothing."""
    data = small_heart_csv(tmp_path / "h.csv", per_class=10)  # rows 0-9 class 1, rows 10-19 class 0
    rows = list(csv.reader(data.open()))

    def grid(name: str, weights: list[int]) -> Path:
        with open(tmp_path / f"{name}.csv", "w", newline="") as f:
            csv.writer(f).writerows([rows[0] + ["w"]] + [r + [str(w)] for r, w in zip(rows[1:], weights)])
        res = cli_here("grid", str(tmp_path / f"{name}.csv"), "--target", "y", "--weight-column", "w", "--depth",
                     "1", "--C-values", "1", "--folds", "3", "--test-size", "0", "--solver", "highs",
                     "-o", str(tmp_path / name))
        assert res.returncode == 0, res.stderr
        return tmp_path / name

    folds = [f["val"] for f in json.loads((grid("a", [1] * 20) / "grid.json").read_text())["folds"]]
    keep = {next(i for i in folds[1] if i < 10), next(i for i in folds[2] if i < 10)}
    g = grid("b", [1 if i in keep or i >= 10 else 0 for i in range(20)])  # fold 0: no class-1 weight
    assert [f["val"] for f in json.loads((g / "grid.json").read_text())["folds"]] == folds
    run_tasks_here(g)  # the tasks' command lines as written, in process
    res = cli_here("collect", str(g), "--scoring", "roc_auc")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr and "warning" not in res.stderr.lower(), res.stderr
    assert ("no ROC AUC on validation fold 0: class 1 has no weight on this fold (its points weigh 0 in column "
            "'w')") in res.stdout
    advice = ("task(s) 0000 are solved, but the scoring is undefined on their validation folds (solving them again "
              "changes nothing): collect again with another --scoring")
    assert f"note: {advice}" in res.stdout and "resubmit" not in res.stdout + res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.endswith(f"too little is left to choose C: {advice}\n")
    cv = json.loads((g / "cv_results.json").read_text())
    assert cv["best"] is None and [t["score"] is None for t in cv["tasks"]] == [True, False, False]
    assert cli_here("collect", str(g)).returncode == 0  # balanced accuracy scores fold 0 on its class-0 points


def test_rerun_advice_keeps_solving_and_scoring_apart():
    """Missing tasks get the resubmit advice, unscorable ones the --scoring advice, and neither the other's."""
    from olctc.cluster import TaskResult, rerun_advice

    missing = TaskResult(3, 0, (1.0,), problem="missing solution")
    unscorable = TaskResult(4, 1, (1.0,), problem="no ROC AUC ...", unscorable=True)
    assert rerun_advice([missing]) == "run the missing tasks again (resubmit; solved tasks are skipped)"
    assert rerun_advice([unscorable]).startswith("task(s) 0004 are solved, but the scoring is undefined")
    both = rerun_advice([missing, unscorable])
    assert both.startswith("run the missing tasks again") and "; task(s) 0004 are solved" in both


def test_collect_refuses_an_unknown_scoring_before_decoding(solved_grid):
    out, _, _ = solved_grid
    res = cli_here("collect", str(out), "--scoring", "log_loss")
    assert res.returncode == 2 and res.stderr == (
        "error: The 'scoring' parameter (--scoring) must be one of balanced_accuracy, accuracy, roc_auc, "
        "neg_log_loss, neg_brier_score. Got 'log_loss' instead.\n"), res.stderr
    assert "C1" not in res.stdout  # no table: nothing was decoded


def test_run_local_names_the_folder_of_a_failed_task(tmp_path):
    """A failed task was reported as 'task 1 failed (see its solve.log)', its folder (tasks/0001) left to guess."""
    g = small_grid(tmp_path, "1", "30")
    (g / "tasks/0001/model.mps").write_text("NAME broken\n")  # a model file cut short, as by a full disk
    run = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "task 1 failed (see tasks/0001/solve.log)" in run.stderr, run.stderr
    assert "task 0 failed" not in run.stderr and (g / "tasks/0000/model.highs.sol").exists()
    assert (g / "tasks/0001/solve.log").exists()


def test_collect_says_which_scores_are_not_proven_optimal(tmp_path):
    """Tasks stopped at their time limit were counted as scored like the others: 'tasks: 2 of 2 scored'."""
    g = tmp_path / "g"
    # 2 s: at 1 s, reading the model on a loaded machine left the solver no time ("no time is left to solve");
    # heart at depth 2 still ends far from proven (gap about 50%)
    res = cli_here("grid", "--dataset", "heart", "--depth", "2", "--C-values", "1", "--folds", "2", "--solver",
                 "highs", "--time-limit", "2", "-o", str(g))
    assert res.returncode == 0, res.stderr
    run_tasks_here(g)  # the tasks' command lines as written, in process
    col = cli_here("collect", str(g), "--emit-final")
    assert col.returncode == 0, col.stderr
    assert "tasks: 2 of 2 scored" in col.stdout
    assert ("note: 2 of the scored tasks are not proven optimal (status feasible; tasks 0000, 0001): their scores "
            "are the best trees found") in col.stdout
    cv = json.loads((g / "cv_results.json").read_text())
    assert [t["status"] for t in cv["tasks"]] == ["feasible", "feasible"]


def test_large_grids_get_job_arrays_slurm_accepts():
    """One array of 0..N-1 for every grid: Slurm refuses indices >= MaxArraySize (1001 by default), so a grid
    of more than 1001 tasks could not be submitted at all (real sbatch: tests/test_slurm.py)."""
    from olctc.cluster import SlurmOptions, resubmit_commands, slurm_script, submit_scripts

    assert submit_scripts(8) == [("submit.slurm", 0, 8)]
    assert submit_scripts(2500) == [("submit.slurm", 0, 1000), ("submit-1000.slurm", 1000, 1000),
                                    ("submit-2000.slurm", 2000, 500)]
    text = slurm_script(2500, 60, SlurmOptions(), first=2000)
    assert "#SBATCH --array=0-499\n" in text and "#SBATCH --output=logs/task-2%3a.out\n" in text
    assert "#SBATCH --open-mode=append\n" in text  # a resubmitted task's skip replaced the log that solved it
    assert 'run_task "$(( 2000 + ${SLURM_ARRAY_TASK_ID:?' in text
    assert "#SBATCH --array=0-999\n" in slurm_script(2500, 60, SlurmOptions())
    assert resubmit_commands("my g", [3, 999, 1000, 1005, 1006, 1007, 2001], 2500) == [
        "(cd 'my g' && sbatch --array=3,999 submit.slurm)", "(cd 'my g' && sbatch --array=0,5-7 submit-1000.slurm)",
        "(cd 'my g' && sbatch --array=1 submit-2000.slurm)"]


def test_job_names_follow_the_folder(tmp_path):
    """Every grid's jobs were named olctc-grid; a name with a space would end the #SBATCH line's value."""
    data = small_heart_csv(tmp_path / "heart60.csv")
    for folder, name in (("run 3 ü", "olctc-run_3__"), ("depth2.C-grid", "olctc-depth2.C-grid")):
        res = CliRunner().invoke(cli, ["grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1",
                                       "--folds", "2", "-o", str(tmp_path / folder)])
        assert res.exit_code == 0, res.output
        assert f"#SBATCH --job-name={name}\n" in (tmp_path / folder / "submit.slurm").read_text()


def test_a_jobs_file_saved_with_windows_line_ends_still_runs(tmp_path):
    """The last column (gurobi_command) ended in '\\r' when jobs.tsv came back from an editor with CRLF line
    ends: its mv target became 'model.gurobi.sol\\r'. run_task strips it; the tasks run and collect reads it."""
    data = small_heart_csv(tmp_path / "heart60.csv")
    g = tmp_path / "g"
    res = CliRunner().invoke(cli, ["grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1",
                                   "--folds", "2", "--time-limit", "10", "--olctc-cmd",
                                   f"{sys.executable} -m olctc.cli", "-o", str(g)])
    assert res.exit_code == 0, res.output
    jobs = g / "jobs.tsv"
    jobs.write_bytes(jobs.read_bytes().replace(b"\n", b"\r\n"))
    env = dict(os.environ, OLCTC_COMMAND_COLUMN="gurobi_command")
    gurobi = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, env=env)  # bytes: \r kept
    said = [line for line in gurobi.stdout.split(b"\n") if line.startswith(b"task 0: gurobi_cl")]
    assert said and said[0].endswith(b"test -s tasks/0000/model.gurobi.sol; }"), said  # not '...sol\r'
    run = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    col = cli_here("collect", str(g), "--quiet")
    assert col.returncode == 0 and "tasks: 2 of 2 scored" in col.stdout, col.stdout + col.stderr


def test_collect_table_lines_up_long_C_values_and_shows_no_spread_for_one_fold():
    """C values longer than 8 characters pushed their row's columns right; one scored fold showed std
    0.0000, as if the folds agreed."""
    from olctc.cluster import Collected, table_lines

    table = [{"C": [1e-05, 0.00123456789], "folds_scored": 1, "folds": 2, "mean": 0.8, "std": 0.0, "scores": {}},
             {"C": [10.0, 1.0], "folds_scored": 2, "folds": 2, "mean": 0.7, "std": 0.05, "scores": {}}]
    lines = table_lines(Collected([], table, (10.0, 1.0), {"tasks": []}, Path("g")))
    assert lines[:3] == ["C1             C2             folds  mean bal.acc   std",
                         "1e-05          0.00123456789  1/2    0.8000        -",
                         "10             1              2/2    0.7000        0.0500 <- best"]


def test_collect_reads_the_grids_data_once(solved_grid, monkeypatch):
    """Every task was decoded from the CSV read and hashed again (1.6 s a task at 100k x 20, times hundreds
    of tasks): collect reads it once and hands it to each task's decode, which checks it against the
    task's manifest. The same scores as decoding each task on its own."""
    import olctc.data
    from olctc.cluster import score_tasks
    from olctc.compile import manifest_path
    from olctc.decode import decode_file

    out, _, _ = solved_grid
    reads = []
    real = olctc.data.read_csv
    monkeypatch.setattr(olctc.data, "read_csv", lambda *a, **k: reads.append(a[0]) or real(*a, **k))
    col = collect(out)
    assert len(reads) == 1, reads
    assert [r.score for r in col.results] == [r.score for r in score_tasks(out, col.info, col.dataset)]
    assert all(r.score is not None for r in col.results)
    # the decode of a task with the data handed over equals its decode from the file
    task = col.info["tasks"][3]
    man, sol = manifest_path(out / task["model"]), out / task["solution"]
    from olctc.export.json import dump

    assert dump(decode_file(man, sol, source=col.dataset)[0]) == dump(decode_file(man, sol)[0])


def test_decode_refuses_a_source_dataset_that_is_not_the_manifests(solved_grid):
    from olctc.compile import manifest_path
    from olctc.datasets import load
    from olctc.decode import decode_file

    out, _, _ = solved_grid
    man, sol = manifest_path(out / "tasks/0000/model.mps"), out / "tasks/0000/model.cbc.sol"
    with pytest.raises(OlctcError, match=r"the data changed since compile \(sha256 "):
        decode_file(man, sol, source=load("heart"))
    with pytest.raises(OlctcError, match=r"^The 'source' parameter must be an olctc Dataset"):
        decode_file(man, sol, source="heart.csv")


def test_collect_refuses_task_folders_of_another_grid(solved_grid, tmp_path):
    """A task folder holding another task's model and solution (copied back from another grid: other C values,
    another seed's folds) was decoded and scored as this task: trees labelled with this grid's C, or scored on
    points they were trained on, exit 0 (QA pass, 2026-12-03). Each task's manifest says what it was compiled
    for: collect compares it with grid.json."""
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    tasks = json.loads((g / "grid.json").read_text())["tasks"]
    t0 = tasks[0]
    other_C = next(t for t in tasks if t["fold"] == t0["fold"] and t["C"] != t0["C"])
    other_fold = next(t for t in tasks if t["fold"] != t0["fold"] and t["C"] == t0["C"])
    for dst, src in ((t0, other_C), (other_fold, t0)):
        shutil.rmtree(g / f"tasks/{dst['task']:04d}")
        shutil.copytree(out / f"tasks/{src['task']:04d}", g / f"tasks/{dst['task']:04d}")
    col = collect(g)
    problems = {r.task: r.problem for r in col.results if r.problem}
    assert set(problems) == {t0["task"], other_fold["task"]}, problems
    assert problems[t0["task"]] == (f"another grid's task: its model was compiled with C {other_C['C']}, the grid's "
                                    f"task {t0['task']} has C {[float(c) for c in t0['C']]}")
    assert problems[other_fold["task"]] == ("another grid's task: its model was compiled on other training rows than "
                                            f"the grid's fold {other_fold['fold']}")
    res = cli_here("collect", str(g), "--emit-final")
    assert res.returncode == 0, res.stderr
    assert (f"task folder(s) {min(t0['task'], other_fold['task']):04d}, {max(t0['task'], other_fold['task']):04d} "
            "hold another grid's files: copy this grid's own tasks back (or make the grid again with olctc grid), "
            "then collect again") in res.stdout


def test_slurm_time_covers_the_solvers_overrun_on_long_limits():
    """A flat 300 s margin was less than a solver's overrun past long limits (10% + 10 s for CBC, 5% + 3 s for
    HiGHS, plus reading the model): Slurm killed tasks olctc would have ended (QA pass, 2026-12-03)."""
    from olctc.cluster import SlurmOptions, slurm_script
    from olctc.cluster.slurm import job_seconds

    assert job_seconds(30) == 330 and job_seconds(600) == 900  # the 300 s margin below about 30 minutes
    assert job_seconds(7200) == 7200 + 1110 and job_seconds(3600) >= 3600 * 1.1 + 10 + 27
    assert "#SBATCH --time=02:18:30" in slurm_script(4, 7200, SlurmOptions(job_name="g"))


@pytest.mark.parametrize("where", ["cv_results.json", "final_tree.json"])
def test_collect_refuses_a_folder_where_it_writes_a_file_before_decoding(solved_grid, tmp_path, where):
    """A folder under cv_results.json or the default final_tree.json failed only once every task had been decoded
    and the table printed (-o is click's: a folder there is refused at once): refused at once now, nothing printed."""
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g, ignore=shutil.ignore_patterns("cv_results.json", "final*"))
    bad = g / where
    bad.mkdir()
    res = cli_here("collect", str(g), "--quiet")
    assert (res.returncode, res.stdout) == (2, "")
    assert res.stderr == f"error: cannot write {bad}: it is a folder; give a file name\n"
