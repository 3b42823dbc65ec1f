"""Tests from a mutation pass over olctc.cluster's grid, read, final and slurm modules (QA 2026-12-06): the C
values and folds a grid takes, which rows each task trains on, the order and names of its tasks, grid.json and
jobs.tsv as written and as read back, the folders a grid refuses, and the task scripts run by bash. Each pins a
behaviour that a hand-written mutant changed while the rest of the suite passed."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from olctc.cluster import make_folds, make_grid, parse_C_values, read_grid
from olctc.data import read_csv
from olctc.errors import OlctcError
from olctc.spec import make_spec
from test_cluster import small_heart_csv
from test_selection_mutation_gaps import _assert_refused, _grid_copy

#: The grid of the module fixture: depth 2, C values 2 and 0.5 (in that order), 3 folds, seed 5.
C_VALUES = [2.0, 0.5]
FOLDS = 3
SEED = 5


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> tuple[Path, Any]:
    """A compiled (unsolved) depth-2 grid of HiGHS tasks on 30 heart rows, 12.5 s and one thread per task; and its
    Dataset."""
    root = tmp_path_factory.mktemp("gridgaps")
    ds = read_csv(small_heart_csv(root / "h.csv", 15), target="y")
    make_grid(ds, make_spec("olct", 2), root / "g", C_values=C_VALUES, folds=FOLDS, seed=SEED, solver="highs",
              time_limit=12.5, threads=1)
    return root / "g", ds


def _info(g: Path) -> dict[str, Any]:
    return json.loads((g / "grid.json").read_text())


def _jobs(g: Path) -> list[list[str]]:
    """The cells of each task line of jobs.tsv."""
    return [line.split("\t") for line in (g / "jobs.tsv").read_text().splitlines()[1:]]


def _refused(src: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], Any], match: str) -> None:
    """A copy of the grid ``src`` whose grid.json ``edit`` changed is refused by read_grid with ``match``."""
    g, info = _grid_copy(src, tmp_path)
    edit(info)
    _assert_refused(g, info, match)


# ---------------------------------------------------------------- C values and folds

@pytest.mark.parametrize("text, expected", [
    ("", "at least one value"), ([], "at least one value"),
    ("0", "finite and > 0"), ("1,0", "finite and > 0"), ("nan", "finite and > 0"), ([1.0, float("nan")], "finite"),
])
def test_C_values_refuse_no_value_zero_and_nan(text, expected) -> None:
    """No C value at all, a C of 0 and NaN are refused (a grid of no task, or a C no solver can use)."""
    with pytest.raises(OlctcError, match=rf"The 'C_values' parameter must be {expected}"):
        parse_C_values(text)


@pytest.mark.parametrize("folds", [1, True, 0])
def test_folds_below_2_or_a_bool_are_refused(folds) -> None:
    """make_folds takes an integer >= 2: one fold (or True) is an OlctcError, not scikit-learn's ValueError."""
    with pytest.raises(OlctcError, match=r"The 'folds' parameter must be an integer >= 2"):
        make_folds(np.array([1, -1] * 10), np.arange(20), folds, 0)


def test_folds_advice_when_a_class_has_exactly_two_points() -> None:
    """Two points of one class make 2 folds: the advice is --folds 2, not a smaller test part."""
    y = np.array([1] * 10 + [-1] * 2)
    with pytest.raises(OlctcError, match=r"only 2 point\(s\) of one class; use --folds 2 or fewer, or more data$"):
        make_folds(y, np.arange(12), 3, 0)


def test_folds_are_scikit_learns_stratified_shuffled_split_of_the_training_rows(grid) -> None:
    """Each fold is StratifiedKFold(shuffle, random_state=seed) over train_rows: its validation rows as that split
    gives them, its training rows the rest, both sorted source row numbers."""
    from sklearn.model_selection import StratifiedKFold

    g, ds = grid
    info = _info(g)
    train = np.array(info["train_rows"])
    skf = StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=SEED)
    expected = [{"train": sorted(int(r) for r in train[a]), "val": sorted(int(r) for r in train[b])}
                for a, b in skf.split(np.zeros(len(train)), ds.y[train])]
    assert info["folds"] == expected
    assert info["seed"] == SEED and info["test_size"] == 0.2


def test_fold_rows_are_sorted_even_when_the_training_rows_are_not() -> None:
    """make_folds returns sorted row numbers whatever the order of the training rows it is given."""
    rows = np.array([19, 3, 17, 0, 8, 12, 5, 14, 1, 10, 6, 2])
    y = np.zeros(20, dtype=int)
    y[rows[::2]], y[rows[1::2]] = 1, -1
    for f in make_folds(y, rows, 2, 0):
        assert f["train"] == sorted(f["train"]) and f["val"] == sorted(f["val"])
        assert sorted(f["train"] + f["val"]) == sorted(rows.tolist())


# ---------------------------------------------------------------- tasks: order, names, rows, commands

def test_tasks_go_fold_by_fold_through_the_C_grid_in_order(grid) -> None:
    """C_grid is the product of the C values as given (root first, not sorted); task k is fold k // 4 and
    combination k % 4, in tasks/NNNN with a solution named after the solver."""
    g, _ = grid
    info = _info(g)
    combos = [[2.0, 2.0], [2.0, 0.5], [0.5, 2.0], [0.5, 0.5]]
    assert info["C_values"] == C_VALUES and info["C_grid"] == combos
    assert info["tasks"] == [{"task": k, "fold": k // 4, "C": combos[k % 4], "model": f"tasks/{k:04d}/model.mps",
                              "solution": f"tasks/{k:04d}/model.highs.sol"} for k in range(12)]
    assert [r[:5] for r in _jobs(g)] == [[str(t["task"]), str(t["fold"]), ",".join(f"{c:g}" for c in t["C"]),
                                          t["model"], t["solution"]] for t in info["tasks"]]


def test_each_task_trains_on_its_folds_training_rows_with_its_C(grid) -> None:
    """A task's model is its fold's training rows (its manifest's rows), with the task's C per layer."""
    g, _ = grid
    info = _info(g)
    for t in info["tasks"]:
        man = json.loads((g / t["model"]).with_suffix(".olctc.json").read_text())
        assert man["data"]["rows"] == info["folds"][t["fold"]]["train"], t
        assert man["spec"]["C"] == t["C"]


def test_grid_json_records_threads_limits_and_solver(grid) -> None:
    """grid.json keeps the run's settings collect and the final fit reuse."""
    g, _ = grid
    info = _info(g)
    assert (info["threads"], info["time_limit"], info["solver"], info["max_nonzeros"]) == (1, 12.5, "highs", None)
    assert (info["format"], info["version"]) == ("olctc-grid", 1)


def test_task_commands_pass_threads_and_the_mip_start_to_both_solvers(grid) -> None:
    """The olctc command runs the exact time limit (12.5, not 12) and --threads 1; the gurobi_cl command sets
    Threads=1, reads the MIP start and writes a .sol-suffixed part file (gurobi_cl picks the format from the
    suffix) that it then moves onto the solution."""
    g, _ = grid
    row = _jobs(g)[5]
    assert " --solver highs --time-limit 12.5 --threads 1 -o tasks/0005/model.highs.sol.part " in row[5]
    assert row[6] == ("gurobi_cl InputFile=tasks/0005/model.gurobi.prm TimeLimit=12.5 Threads=1 "
                      "ResultFile=tasks/0005/model.gurobi.sol.part.sol InputFile=tasks/0005/model.start.gurobi.mst "
                      "tasks/0005/model.mps > tasks/0005/solve.log 2>&1 && { mv tasks/0005/model.gurobi.sol.part.sol "
                      "tasks/0005/model.gurobi.sol 2>/dev/null || test -s tasks/0005/model.gurobi.sol; }")
    # the files the commands read: HiGHS's settings and start (the job's solver) and Gurobi's
    assert sorted(p.name for p in (g / "tasks" / "0005").iterdir()) == [
        "model.gurobi.prm", "model.highs.opt", "model.mps", "model.olctc.json", "model.solvers.txt",
        "model.start.gurobi.mst", "model.start.highs.sol"]


def test_a_task_whose_part_file_is_gone_is_done_only_with_a_non_empty_solution(grid, tmp_path) -> None:
    """The command's last step (mv PART SOLUTION, else the solution exists): an empty solution file left by
    another run is not a solved task."""
    g, _ = grid
    promote = _jobs(g)[0][5].split(" && ", 1)[1]
    (tmp_path / "tasks" / "0000").mkdir(parents=True)
    sol = tmp_path / "tasks" / "0000" / "model.highs.sol"
    sol.write_text("")
    assert subprocess.run(["bash", "-c", promote], cwd=tmp_path).returncode != 0
    sol.write_text("x\n")
    assert subprocess.run(["bash", "-c", promote], cwd=tmp_path).returncode == 0


def test_make_grid_refuses_a_miqp_preset_for_a_milp_solver(grid, tmp_path) -> None:
    """make_grid (not only the CLI) refuses a MIQP preset with a MILP-only solver, naming the solvers that fit,
    before writing anything."""
    with pytest.raises(OlctcError, match=r"^preset margot is a MIQP \(quadratic objective\): use --solver scip, "):
        make_grid(grid[1], make_spec("margot", 1), tmp_path / "g", C_values=[1.0], folds=2, solver="highs")
    assert not (tmp_path / "g").exists()


def test_make_grid_checks_the_final_models_size_on_the_whole_training_part(grid, tmp_path) -> None:
    """max_nonzeros is checked before anything is written for the final model (every training row), the largest
    of the grid: a limit that each fold's model keeps but the final one passes is refused."""
    from olctc.compile import estimate_size

    ds, spec = grid[1], make_spec("olct", 1)
    limit = estimate_size(24, ds.p, spec).nonzeros - 1  # 24 training rows of 30 at test_size 0.2
    assert estimate_size(16, ds.p, spec).nonzeros <= limit  # a fold's training part fits
    with pytest.raises(OlctcError, match=rf"over the budget of {limit:,} nonzeros"):
        make_grid(ds, spec, tmp_path / "g", C_values=[1.0], folds=3, solver="highs", max_nonzeros=limit)
    assert not (tmp_path / "g").exists()


def test_a_task_its_fold_cannot_compile_names_the_fold_its_points_and_C(grid, tmp_path) -> None:
    """min_leaf above a fold's training points: the error says which fold, how many of the data's points it
    trains on and the task's C, and nothing is written."""
    spec = make_spec("olct", 1, min_leaf=20)
    with pytest.raises(OlctcError, match=r"^cross-validation, fold 0 \(16 of the 30 points\), C 0\.5: .*min_leaf"):
        make_grid(grid[1], spec, tmp_path / "g", C_values=[0.5], folds=3, solver="highs")
    assert not (tmp_path / "g").exists()


def test_each_job_array_of_a_grid_runs_its_own_tasks(grid, tmp_path, monkeypatch) -> None:
    """A grid of more tasks than a job array holds (ARRAY_CHUNK, lowered to 1 here) writes one script per array,
    each starting at its own first task, and submit.sh names them all."""
    import olctc.cluster.slurm

    monkeypatch.setattr(olctc.cluster.slurm, "ARRAY_CHUNK", 1)
    make_grid(grid[1], make_spec("olct", 1), tmp_path / "g", C_values=[1.0], folds=2, solver="highs")
    first, second = ((tmp_path / "g" / name).read_text() for name in ("submit.slurm", "submit-1.slurm"))
    assert "#SBATCH --array=0-0\n" in first and 'run_task "${SLURM_ARRAY_TASK_ID:?' in first
    assert "#SBATCH --array=0-0\n" in second and 'run_task "$(( 1 + ${SLURM_ARRAY_TASK_ID:?' in second
    assert "(2 job array(s): submit.slurm, submit-1.slurm)" in (tmp_path / "g" / "submit.sh").read_text()


def test_grid_scripts_are_the_job_arrays_by_their_exact_names(tmp_path) -> None:
    """grid_scripts lists submit.slurm and submit-N.slurm, not another file whose name merely starts so."""
    from olctc.cluster import grid_scripts

    for name in ("submit.slurm", "submit-1000.slurm", "submit.slurm.slurm", "submit-1.old.slurm", "submitx.slurm"):
        (tmp_path / name).write_text("")
    assert [p.name for p in grid_scripts(tmp_path)] == ["run_local.sh", "submit.sh", "submit-1000.slurm",
                                                        "submit.slurm"]


def test_an_olctc_cmd_the_tasks_shell_expands_is_not_checked_here() -> None:
    """A program path made by the task's shell ($HOME in double quotes, ~) is not looked for here: no warning,
    and it is written as given; in single quotes '$' is a letter, and the missing file is warned of."""
    from olctc.cluster import anchored_olctc_cmd, check_olctc_cmd

    for cmd in ('"$HOME/no such/olctc"', "~/no-such-olctc", "`echo x`/olctc"):
        assert check_olctc_cmd(cmd) is None, cmd
        assert anchored_olctc_cmd(cmd) == cmd
    assert "'/no$x/olctc', which is not a file here" in (check_olctc_cmd("'/no$x/olctc'") or "")


def test_an_absolute_olctc_cmd_is_written_as_given_and_a_trailing_space_is_no_unquoted_space() -> None:
    """An absolute program path is kept as written (only a relative one is made absolute); a command that is
    one word with spaces around it gets no advice about quoting a path with spaces."""
    import sys

    from olctc.cluster import anchored_olctc_cmd, check_olctc_cmd

    python = str(Path(sys.executable).parent / "." / Path(sys.executable).name)
    assert anchored_olctc_cmd(f" {python} -m olctc.cli") == f" {python} -m olctc.cli"
    assert check_olctc_cmd(" no-such-olctc ") == "--olctc-cmd: the tasks will run 'no-such-olctc', which is not on " \
        "PATH here"


def test_an_olctc_cmd_file_that_is_not_executable_is_warned_of(tmp_path) -> None:
    """A program path to a file without execute permission: every task's shell would say 'Permission denied', so
    grid warns (it said nothing); the same file made executable gets no warning."""
    from olctc.cluster import check_olctc_cmd

    program = tmp_path / "olctc"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o644)
    assert check_olctc_cmd(str(program)) == (
        f"--olctc-cmd: the tasks will run {str(program)!r}, which is a file but not executable here: make it "
        "executable (chmod +x) or run it through its interpreter (--olctc-cmd 'python -m olctc.cli')")
    program.chmod(0o755)
    assert check_olctc_cmd(str(program)) is None


def test_olctc_found_through_a_relative_path_entry_is_written_absolute(tmp_path, monkeypatch) -> None:
    """olctc found through PATH=my bin (relative) is written as its absolute path: the tasks run from the grid
    folder, where 'olctc' would name nothing."""
    from olctc.cluster import olctc_command

    (tmp_path / "my bin").mkdir()
    (tmp_path / "my bin" / "olctc").write_text("#!/bin/sh\n")
    (tmp_path / "my bin" / "olctc").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "my bin")
    assert olctc_command() == f"'{tmp_path}/my bin/olctc'"


# ---------------------------------------------------------------- grid.json read back

@pytest.mark.parametrize("edit, match", [
    (lambda d: d.__setitem__("format", "other"), r"not an olctc grid file \(format is not 'olctc-grid'\)"),
    (lambda d: d.__setitem__("version", 2), r"grid version 2; this olctc reads version 1"),
    (lambda d: d.__setitem__("version", True), r"grid version True; this olctc reads version 1"),
    (lambda d: d.pop("tasks"), r"the key 'tasks' is missing; the file is damaged"),
    (lambda d: d["data"].__setitem__("n", 0), r"field 'data.n' must be the number of rows of the data"),
    (lambda d: d["train_rows"].append(d["train_rows"][0]), r"field 'train_rows' must be a list of distinct row"),
    (lambda d: d["folds"][1].__setitem__("val", []), r"field 'folds\[1\]' must be disjoint non-empty"),
    (lambda d: d["C_grid"][2].append(1.0), r"field 'C_grid' must be a non-empty list of C combinations, each 2 "),
    (lambda d: d["C_grid"][2].__setitem__(0, 0), r"field 'C_grid' must be a non-empty list of C combinations"),
    (lambda d: d["tasks"][3].__setitem__("task", 2), r"field 'tasks\[3\].task' must be a task number not used"),
    (lambda d: d["tasks"][3].__setitem__("C", [2.0, 3.0]), r"field 'tasks\[3\].C' must be one of the combinations"),
    (lambda d: d["tasks"][3].__setitem__("model", "/tmp/model.mps"), r"field 'tasks\[3\].model' must be a file path "
     "inside the grid folder"),
    (lambda d: d["tasks"][3].__setitem__("solution", "../x.sol"), r"field 'tasks\[3\].solution' must be a file"),
    (lambda d: d.__setitem__("time_limit", 1e8), r"field 'time_limit' must be a positive number of seconds"),
    (lambda d: d.__setitem__("time_limit", 0), r"field 'time_limit' must be a positive number of seconds"),
])
def test_damaged_grid_json_is_refused(grid, tmp_path, edit, match) -> None:
    """read_grid names the field of grid.json that is not what collect relies on."""
    _refused(grid[0], tmp_path, edit, match)


def _edit_jobs(src: Path, tmp_path: Path, edit: Callable[[list[str]], Any]) -> Path:
    """A copy of the grid ``src`` whose jobs.tsv lines ``edit`` changed (in place)."""
    g, _ = _grid_copy(src, tmp_path)
    lines = (g / "jobs.tsv").read_text().splitlines()
    edit(lines)
    (g / "jobs.tsv").write_text("\n".join(lines) + "\n")
    return g


def _cell(line: str, column: int, value: str) -> str:
    cells = line.split("\t")
    cells[column] = value
    return "\t".join(cells)


@pytest.mark.parametrize("edit, message", [
    (lambda ls: ls.__setitem__(0, ls[0].replace("gurobi_command", "gurobi")),
     "line 1: the header must be task | fold | C | model | solution | command | gurobi_command (tab-separated)"),
    (lambda ls: ls.__setitem__(3, _cell(ls[3], 0, "12")), "line 4: task 12 is not in grid.json (tasks 0..11)"),
    (lambda ls: ls.__setitem__(3, _cell(ls[3], 0, "x")), "line 4: task id 'x' is not a number"),
    (lambda ls: ls.__setitem__(3, _cell(ls[3], 2, "0.5,2,2")), "line 4: task 2 has C '0.5,2,2', grid.json says 0.5,2"),
    (lambda ls: ls.__setitem__(3, _cell(ls[3], 3, "tasks/0003/model.mps")),
     "line 4: task 2 has model 'tasks/0003/model.mps', grid.json says 'tasks/0002/model.mps'"),
    (lambda ls: ls.__setitem__(3, _cell(ls[3], 1, "1")), "line 4: task 2 has fold '1', grid.json says '0'"),
    (lambda ls: ls.__setitem__(3, ls[3].rsplit("\t", 1)[0]), "line 4: 6 tab-separated fields, expected 7"),
])
def test_jobs_tsv_that_disagrees_with_grid_json_is_refused(grid, tmp_path, edit, message) -> None:
    """Every task line of jobs.tsv must match grid.json's task (id, fold, C, model); the error names the line."""
    g = _edit_jobs(grid[0], tmp_path, edit)
    with pytest.raises(OlctcError) as exc:
        read_grid(g)
    assert str(exc.value) == f"{g / 'jobs.tsv'} {message}"


def test_jobs_tsv_blank_lines_are_passed_over_and_a_missing_file_is_named(grid, tmp_path) -> None:
    """A blank line in jobs.tsv (an editor's) is no task; a grid without jobs.tsv is incomplete."""
    g = _edit_jobs(grid[0], tmp_path, lambda ls: ls.insert(4, ""))
    assert len(read_grid(g)["tasks"]) == 12
    (g / "jobs.tsv").unlink()
    with pytest.raises(OlctcError, match=r"jobs\.tsv: missing; the grid folder is incomplete$"):
        read_grid(g)


# ---------------------------------------------------------------- folders a grid refuses

def test_grid_folder_refusals_name_the_reason(tmp_path) -> None:
    """A folder holding a jobs.tsv (a half-copied grid) already holds a grid; a foreign folder's first three
    names are listed, with '...' only when there are more; a path with a line break is refused."""
    from olctc.cluster import check_grid_folder

    half = tmp_path / "half"
    half.mkdir()
    (half / "jobs.tsv").write_text("")
    with pytest.raises(OlctcError, match=r"half already holds a grid; choose a new folder \(or delete it\)$"):
        check_grid_folder(half)
    three = tmp_path / "three"
    three.mkdir()
    for name in ("c", "a", "b"):
        (three / name).write_text("")
    with pytest.raises(OlctcError, match=r"three is not empty and holds no grid \(a, b, c\): give a new"):
        check_grid_folder(three)
    (three / "d").write_text("")
    with pytest.raises(OlctcError, match=r"three is not empty and holds no grid \(a, b, c, \.\.\.\): give a new"):
        check_grid_folder(three)
    with pytest.raises(OlctcError, match=r"expected a path without a line break"):
        check_grid_folder(tmp_path / "a\nb")



@pytest.mark.parametrize("name", ["jobs.tsv", "grid.json"])
def test_a_file_written_into_the_folder_during_the_build_is_kept_not_replaced(grid, tmp_path, name) -> None:
    """A grid built into an empty folder refuses, when it moves its files in, to replace one that appeared there
    meanwhile (here written while the first task is echoed): that file stays, and no part of the grid does.
    grid.json goes last: every file moved in before it goes back, and is then removed with the rest."""
    out = tmp_path / "g"
    out.mkdir()

    def meanwhile(line: str) -> None:
        if not (out / name).exists():
            (out / name).write_text("mine\n")

    appeared = rf"cannot write .*/g/{re.escape(name)}: it appeared while the grid was built$"
    with pytest.raises(OlctcError, match=appeared):
        make_grid(grid[1], make_spec("olct", 1), out, C_values=[1.0], folds=2, solver="highs", echo=meanwhile)
    assert [p.name for p in out.iterdir()] == [name] and (out / name).read_text() == "mine\n"


def _record_renames(monkeypatch, fail_onto: Path | None = None) -> list[str]:
    """Record the names os.rename moves in olctc.cluster.grid (a grid's last step); with ``fail_onto``, the move
    onto that path fails as a full or read-only disk would make it (EACCES)."""
    import errno

    import olctc.cluster.grid

    moved: list[str] = []
    real = os.rename

    def rename(src, dst) -> None:
        if fail_onto is not None and Path(dst) == fail_onto:
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(dst))
        real(src, dst)
        moved.append(Path(dst).name)

    monkeypatch.setattr(olctc.cluster.grid.os, "rename", rename)
    return moved


def test_grid_json_is_moved_into_an_existing_folder_last(grid, tmp_path, monkeypatch) -> None:
    """Into an existing empty folder, the grid's files are moved one by one, grid.json last: it makes the folder a
    grid, so a grid stopped midway is never taken for a whole one."""
    out = tmp_path / "g"
    out.mkdir()
    moved = _record_renames(monkeypatch)
    make_grid(grid[1], make_spec("olct", 1), out, C_values=[1.0], folds=2, solver="highs")
    assert moved[-1] == "grid.json" and sorted(moved) == sorted(p.name for p in out.iterdir())


def test_a_grid_that_cannot_be_moved_into_place_removes_the_parent_folders_it_made(grid, tmp_path,
                                                                                     monkeypatch) -> None:
    """When the final rename fails, the missing parent folders made for the grid go too: nothing is left."""
    out = tmp_path / "x" / "y" / "g"
    _record_renames(monkeypatch, fail_onto=out)
    with pytest.raises(OlctcError, match=r"cannot write .*: Permission denied$"):
        make_grid(grid[1], make_spec("olct", 1), out, C_values=[1.0], folds=2, solver="highs")
    assert list(tmp_path.iterdir()) == []

# ---------------------------------------------------------------- the final fit

def test_final_data_and_spec_are_the_training_part_and_the_chosen_C(grid) -> None:
    """The final fit's data is every training row (all folds); its spec the grid's with the chosen C, in the form
    asked for (the grid's own when not asked)."""
    from olctc.cluster import final_dataset, final_spec

    g, ds = grid
    info = _info(g)
    assert final_dataset(info, ds).rows.tolist() == info["train_rows"]
    grids_form = make_spec("olct", 2).score_variables
    assert final_spec(info, (0.5, 2.0)).C == (0.5, 2.0)
    assert final_spec(info, (0.5, 2.0)).score_variables == grids_form
    assert final_spec(info, (0.5, 2.0), not grids_form).score_variables == (not grids_form)


def test_final_time_limit_is_collects_else_the_grids(grid) -> None:
    """A grid's too-short time limit is refused with the hint to give collect one; collect's own limit replaces
    it (and, when too short itself, is refused without that hint)."""
    from olctc.cluster import check_final_time_limit
    from olctc.errors import TimeLimitTooShort

    info = {**_info(grid[0]), "time_limit": 0.001}
    with pytest.raises(TimeLimitTooShort, match=r"olctc collect FOLDER --time-limit SECONDS\)$"):
        check_final_time_limit(info, None)
    check_final_time_limit(info, 30.0)
    with pytest.raises(TimeLimitTooShort) as exc:
        check_final_time_limit({**info, "time_limit": 30.0}, 0.001)
    assert "olctc collect FOLDER" not in str(exc.value)


def test_final_fit_of_a_cbc_cli_grid_runs_cbc_in_process_with_collects_limit(grid) -> None:
    """The final fit of a grid solved by cbc-cli runs its in-process twin, CBC; collect's time limit wins over the
    grid's (here too short to fit); the test part's size and score are recorded in the tree."""
    from olctc.cluster import fit_final

    g, ds = grid
    info = {**_info(g), "solver": "cbc-cli", "time_limit": 0.001}
    res, acc = fit_final(info, ds, (2.0, 2.0), time_limit=30.0, threads=1)
    assert res.summary["solver"] == "cbc"
    assert acc is not None and res.tree.meta["fit"]["n_test"] == 6
    assert res.tree.meta["fit"]["test_balanced_accuracy"] == acc


def test_final_fit_keeps_the_grids_nonzero_limit(grid) -> None:
    """grid --max-nonzeros holds for the final fit too: a model above it is refused."""
    from olctc.cluster import fit_final

    g, ds = grid
    with pytest.raises(OlctcError, match="nonzeros"):
        fit_final({**_info(g), "max_nonzeros": 10}, ds, (2.0, 2.0), threads=1)


def test_emit_final_failing_removes_the_final_folder_it_made_and_keeps_an_earlier_one(grid, tmp_path,
                                                                                      monkeypatch) -> None:
    """A final instance that cannot be written (a full disk, injected) leaves no final/ folder it made; an
    existing final/ stays, with what it held."""
    import errno

    import olctc.pipeline
    from olctc.cluster import emit_final

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    g, ds = grid
    monkeypatch.setattr(olctc.pipeline, "write_compiled", full)
    with pytest.raises(OlctcError, match=r"cannot write .*/final: No space left on device$"):
        emit_final(tmp_path, _info(g), ds, (2.0, 2.0))
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "final").mkdir()
    (tmp_path / "final" / "model.mps").write_text("earlier\n")
    with pytest.raises(OlctcError, match="No space left on device"):
        emit_final(tmp_path, _info(g), ds, (2.0, 2.0))
    assert [p.name for p in (tmp_path / "final").iterdir()] == ["model.mps"]


def test_final_folder_that_is_a_file_is_refused(tmp_path) -> None:
    """collect --emit-final refuses a grid whose 'final' is a file, naming it."""
    from olctc.cluster import check_final_folder

    (tmp_path / "final").write_text("")
    with pytest.raises(OlctcError, match=r"final/model\.mps: .*final exists and is not a folder$"):
        check_final_folder(tmp_path)


# ---------------------------------------------------------------- the task scripts, run by bash

def test_run_local_reruns_a_task_whose_solution_is_empty_and_reports_a_failure(tmp_path) -> None:
    """run_local.sh skips a task whose solution file has content, reruns one whose solution is empty (a solver
    stopped while writing), and exits 1 naming the folder of a task that failed while going on with the rest."""
    from olctc.cluster import local_script

    rows = ["\t".join(("task", "fold", "C", "model", "solution", "command", "gurobi_command"))]
    for k, command in enumerate(["echo ran 0 >> ran.txt", "echo ran 1 >> ran.txt", "false", "echo ran 3 >> ran.txt"]):
        (tmp_path / f"t{k}").mkdir()
        rows.append(f"{k}\t0\t1\tt{k}/model.mps\tt{k}/model.sol\t{command}\tfalse")
    (tmp_path / "jobs.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "t0" / "model.sol").write_text("")
    (tmp_path / "t1" / "model.sol").write_text("solved\n")
    (tmp_path / "run_local.sh").write_text(local_script())
    r = subprocess.run(["bash", str(tmp_path / "run_local.sh")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    assert (tmp_path / "ran.txt").read_text() == "ran 0\nran 3\n"
    assert "task 1: t1/model.sol exists, skipped" in r.stdout
    assert r.stderr == "task 2 failed (see t2/solve.log)\n"

