"""Tests from a third mutation pass over olctc.cluster's grid and read modules (QA 2026-12-07): the Python values
make_grid refuses before writing anything, the files and names of each solver's tasks, the rows and settings
grid.json records, the folders a grid cannot be built in, the olctc commands refused or rewritten, and each field
of grid.json and line of jobs.tsv that read_grid checks and no earlier test damaged (or kept as it may be). Each
pins a behaviour that a hand-written mutant changed while the targeted tests passed."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from olctc.cluster import (anchored_olctc_cmd, check_grid_folder, check_olctc_cmd, make_folds, make_grid,
                           parse_C_values, read_grid)
from olctc.errors import OlctcError
from olctc.spec import make_spec
from test_cluster_grid_mutation_gaps import _edit_jobs, _info, _refused
from test_cluster_grid_read_mutation_gaps2 import _grid, grid  # noqa: F401  (grid: a fixture)
from test_selection_mutation_gaps import _grid_copy


def _accepted(src: Path, tmp_path: Path, edit: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """read_grid of a copy of the grid ``src`` whose grid.json ``edit`` changed (and which it must take)."""
    g, info = _grid_copy(src, tmp_path)
    edit(info)
    (g / "grid.json").write_text(json.dumps(info))
    return read_grid(g)


# ---------------------------------------------------------------- what make_grid refuses before writing

def test_C_values_of_1e20_or_more_are_refused() -> None:
    """Solvers read a cost of 1e20 as infinite: such a C value is refused, whichever value it is."""
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be below 1e20 for every value"):
        parse_C_values("1,1e20")


@pytest.mark.parametrize("C_values, match", [
    (None, r"numbers such as \[0\.1, 1, 10\], or a text such as '0\.1,1,10'\. Got None instead"),
    (1.0, r"numbers such as \[0\.1, 1, 10\], or a text such as '0\.1,1,10'\. Got 1\.0 instead"),
    (["a"], r"a list of numbers\. Got \['a'\] instead"),
])
def test_C_values_that_are_no_numbers_are_the_parameters_error(grid, tmp_path, C_values, match) -> None:  # noqa: F811
    """Defect fixed in this pass: make_grid(C_values=None, 1.0 or ['a']) ended in float()'s TypeError or
    ValueError; it is the C_values parameter's error (in fit_cv's words), before anything is written."""
    with pytest.raises(OlctcError, match=r"^The 'C_values' parameter must be " + match):
        _grid(grid[1], tmp_path / "g", C_values=C_values)
    assert list(tmp_path.iterdir()) == []
    assert parse_C_values(np.array([0.5, 2])) == [0.5, 2.0]


def test_folds_advice_when_a_class_has_one_point() -> None:
    """One point of a class in the training part makes no 2 folds: the advice is a smaller test part, not
    fewer folds."""
    with pytest.raises(OlctcError, match=r"only 1 point\(s\) of one class; use a smaller --test-size or more data$"):
        make_folds(np.array([1] * 10 + [-1]), np.arange(11), 2, 0)


def test_folds_error_names_the_option_it_was_given_by() -> None:
    """check_folds names the option the folds came from (the CLI's), as every parameter error does."""
    from olctc.cluster.grid import check_folds

    with pytest.raises(OlctcError, match=r"^The 'folds' parameter \(--folds\) must be an integer >= 2\. Got 1"):
        check_folds(1, option="--folds")


@pytest.mark.parametrize("kwargs, match", [
    ({"solver": "nope"}, r"^The 'solver' parameter must be one of cbc-cli, highs-cli, glpk-cli, gurobi-cli, olctc"),
    ({"time_limit": None}, r"^The 'time_limit' parameter must be a positive number of seconds, at most 1e7"),
    ({"olctc_cmd": "  "}, r"^The 'olctc_cmd' parameter must be the command that runs olctc where the tasks run"),
    ({"slurm": "x"}, r"^The 'slurm' parameter must be None or olctc\.cluster\.SlurmOptions\(\.\.\.\)"),
    ({"olctc_cmd": "olctc\tx"}, r"^task 0: a path contains a tab or newline; use plain folder names$"),
])
def test_make_grid_refuses_python_values_and_writes_nothing(grid, tmp_path, kwargs, match) -> None:  # noqa: F811
    """A solver that is no grid solver, no time limit, a blank olctc command, a slurm that is not SlurmOptions
    and a tab in the command are refused as such (not a KeyError, 'None solve', an AttributeError or a jobs.tsv
    line split in two), and no folder is made."""
    with pytest.raises(OlctcError, match=match):
        _grid(grid[1], tmp_path / "g", **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_a_blank_output_is_refused_not_made_in_the_current_folder(grid, tmp_path, monkeypatch) -> None:  # noqa: F811
    """-o ' ' (an unset variable in a script) is refused, not made as a folder named ' ' here."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OlctcError, match=r"^The 'output' parameter must be a folder path \(-o DIR\)"):
        _grid(grid[1], " ")
    assert list(tmp_path.iterdir()) == []


def test_the_miqp_refusal_ends_with_the_last_solver_that_fits(grid, tmp_path) -> None:  # noqa: F811
    """The solvers of a MIQP preset are listed as a sentence: '..., cplex, copt or xpress'."""
    with pytest.raises(OlctcError, match=r"use --solver scip, gurobi-cli, gurobi, cplex, copt or xpress$"):
        make_grid(grid[1], make_spec("margot", 1), tmp_path / "g", C_values=[1.0], folds=2, solver="highs")


def test_data_without_a_source_is_refused_naming_nowhere(grid, tmp_path) -> None:  # noqa: F811
    """A Dataset with an empty source is said to come from 'nowhere', not from ''."""
    ds = copy.copy(grid[1])
    ds.source = ""
    with pytest.raises(OlctcError, match=r"^ds comes from 'nowhere', no file collect can reload it from"):
        _grid(ds, tmp_path / "g")


def test_a_vendored_data_set_makes_a_grid(tmp_path) -> None:
    """A vendored data set is no file here but collect reloads it by name: grid takes it and records its name."""
    from olctc.datasets import load

    info = _grid(load("haberman"), tmp_path / "g").info
    assert info["data"]["source"] == "dataset:haberman" and info["data"]["n"] == 306


# ---------------------------------------------------------------- what a grid writes

def test_the_train_and_test_rows_are_fits_split_by_the_grids_seed(grid) -> None:  # noqa: F811
    """The test part is olctc.fit.split's with the grid's seed and test size, as fit --test-size makes it: the
    final score is comparable."""
    from olctc.fit import split

    g, ds = grid
    train, test = split(ds, 0.2, 3)
    info = _info(g)
    assert (info["train_rows"], info["test_rows"]) == ([int(r) for r in train], [int(r) for r in test])


def test_grid_json_records_the_test_size_given(grid, tmp_path) -> None:  # noqa: F811
    """A test size other than the default is recorded as given, with a test part of that size."""
    info = _grid(grid[1], tmp_path / "g", test_size=0.3).info
    assert info["test_size"] == 0.3 and len(info["test_rows"]) == 9


def test_a_large_time_limit_is_written_whole_on_the_task_command(grid, tmp_path) -> None:  # noqa: F811
    """1234567 s goes on each task's olctc command as 1234567 ({:g} wrote 1.23457e+06, a shorter limit)."""
    tasks = _grid(grid[1], tmp_path / "g", time_limit=1234567.0).tasks
    assert " --time-limit 1234567 -o " in tasks[0]["command"]


def test_a_C_value_of_many_digits_is_written_exactly_and_read_back(grid, tmp_path) -> None:  # noqa: F811
    """jobs.tsv writes C 0.123456789 as given, and read_grid takes the grid's own files."""
    _grid(grid[1], tmp_path / "g", C_values=[0.123456789])
    assert (tmp_path / "g" / "jobs.tsv").read_text().splitlines()[1].split("\t")[2] == "0.123456789"
    assert read_grid(tmp_path / "g")["tasks"][0]["C"] == [0.123456789]


def test_a_dash_in_the_folder_name_is_kept_in_the_job_name(grid, tmp_path) -> None:  # noqa: F811
    """'-' and '.' are word characters of a job name: folder my-grid.v2 makes job olctc-my-grid.v2."""
    _grid(grid[1], tmp_path / "my-grid.v2")
    assert "#SBATCH --job-name=olctc-my-grid.v2\n" in (tmp_path / "my-grid.v2" / "submit.slurm").read_text()


def test_the_large_grid_note_counts_values_combinations_and_folds(grid, tmp_path, monkeypatch) -> None:  # noqa: F811
    """At depth 2 the note tells the C values per layer apart from the combinations they make."""
    import olctc.cluster.grid

    monkeypatch.setattr(olctc.cluster.grid, "LARGE_GRID_TASKS", 1)
    lines: list[str] = []

    def echo(line: str) -> None:  # stop at the note: the tasks need not be compiled
        lines.append(line)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        make_grid(grid[1], make_spec("olct", 2), tmp_path / "g", C_values=[1.0, 2.0], folds=2, echo=echo)
    assert lines[0].startswith("note: 8 tasks: 2 C values per layer over 2 layer(s) make 4 combinations, times 2 "
                               "folds; ")


@pytest.mark.parametrize("solver, solution, files", [
    ("cbc", "cbc", {"cbc.args", "highs.opt", "start.cbc", "start.highs.sol"}),
    ("scip", "scip", {"scip.set", "start.scip.sol"}),
    ("gurobi", "gurobi", {"scip.set", "start.scip.sol"}),
    ("cbc-cli", "cbc", {"cbc.args", "start.cbc"}),
    ("gurobi-cli", "gurobi", set()),
])
def test_each_solvers_tasks_hold_its_files_and_name_its_solution(grid, tmp_path, solver, solution,  # noqa: F811
                                                                 files) -> None:
    """A task holds the model, its manifest, Gurobi's settings and start (jobs.tsv's other command) and the files
    of the solver that runs it (CBC's in-process run reads HiGHS's start; Gurobi's in process reads SCIP's); its
    solution is named after the solver, without '-cli'."""
    t = _grid(grid[1], tmp_path / "g", solver=solver).tasks[0]
    assert t["solution"] == f"tasks/0000/model.{solution}.sol"
    common = {"mps", "olctc.json", "solvers.txt", "gurobi.prm", "start.gurobi.mst"}
    assert sorted(p.name for p in (tmp_path / "g" / "tasks" / "0000").iterdir()) == sorted(
        f"model.{s}" for s in common | files)


# ---------------------------------------------------------------- the folder a grid is built in

@pytest.mark.parametrize("make", [lambda p: p.write_text(""), lambda p: p.symlink_to(p.parent / "nowhere")],
                         ids=["file", "dangling-link"])
def test_a_grid_under_a_file_or_a_dangling_link_is_refused(tmp_path, make) -> None:
    """The grid's nearest existing parent must be a folder: a file there, or a link to nothing, is named."""
    make(tmp_path / "f")
    with pytest.raises(OlctcError, match=rf"^cannot write {tmp_path}/f/g: folder {tmp_path}/f is not a folder$"):
        check_grid_folder(tmp_path / "f" / "g")


def test_a_folder_made_by_another_during_the_build_is_not_called_a_grid(grid, tmp_path) -> None:  # noqa: F811
    """When the folder appears during the build holding no grid.json, the error is the system's (not 'already
    holds a grid'), the other's file stays and nothing of the grid is left."""
    out = tmp_path / "g"

    def meanwhile(line: str) -> None:
        if not out.exists():
            out.mkdir()
            (out / "x").write_text("")

    with pytest.raises(OlctcError, match=rf"^cannot write {out}: Directory not empty$"):
        _grid(grid[1], out, echo=meanwhile)
    assert [p.name for p in tmp_path.iterdir()] == ["g"] and [p.name for p in out.iterdir()] == ["x"]


def test_the_grid_is_built_beside_its_folder_under_a_name_after_it(grid, tmp_path) -> None:  # noqa: F811
    """The temporary folder is named after the grid's (.g.XXXX.tmp): the leftover of a killed grid is found by
    the next grid into the same folder."""
    seen: list[str] = []
    _grid(grid[1], tmp_path / "g", echo=lambda line: seen.extend(p.name for p in tmp_path.iterdir()))
    assert seen and all(n.startswith(".g.") and n.endswith(".tmp") for n in seen), seen


# ---------------------------------------------------------------- the olctc command

@pytest.mark.parametrize("cmd, match", [
    ("olctc\tsolve", r"must be a command on one line, such as 'olctc' or 'python -m olctc\.cli'\. Got"),
    ("'olctc", r"must be a command on one line, such as 'olctc' or 'python -m olctc\.cli', its quotes balanced"),
    ("true;#", r"must be a command on one line, .*\.cli', without a comment \(an unquoted #\)"),
    ("#olctc", r"must be a command on one line, .*\.cli', without a comment \(an unquoted #\)"),
])
def test_olctc_cmds_no_task_script_can_run_are_refused(cmd, match) -> None:
    """A tab, an open quote, and a comment after ';' or at the start (which hides each task's arguments)."""
    with pytest.raises(OlctcError, match=r"^The 'olctc_cmd' parameter \(--olctc-cmd\) " + match):
        check_olctc_cmd(cmd)


def test_a_program_found_on_path_is_not_checked_as_a_file_here(tmp_path, monkeypatch) -> None:
    """'sh -c true' runs the sh found on PATH: no warning, though no file 'sh' is in the current folder."""
    monkeypatch.chdir(tmp_path)
    assert check_olctc_cmd("sh -c true") is None


@pytest.mark.parametrize("cmd", ["bin/olctc solve", "", "   "])
def test_a_relative_program_that_is_not_here_or_no_command_is_written_as_given(tmp_path, monkeypatch, cmd) -> None:
    """Only a relative path to a file here is made absolute; a missing one (check_olctc_cmd warns of it) and an
    empty command are returned as given."""
    monkeypatch.chdir(tmp_path)
    assert anchored_olctc_cmd(cmd) == cmd


# ---------------------------------------------------------------- grid.json read back

@pytest.mark.parametrize("edit, match", [
    (lambda d: d.pop("data"), r"the key 'data' is missing; the file is damaged$"),
    (lambda d: d.pop("spec"), r"the key 'spec' is missing; the file is damaged$"),
    (lambda d: d.pop("C_grid"), r"the key 'C_grid' is missing; the file is damaged$"),
    (lambda d: d["data"].__setitem__("source", 5), r"field 'data\.source' must be a string, got 5"),
    (lambda d: d["data"].__setitem__("n", 30.5), r"field 'data\.n' must be the number of rows of the data"),
    (lambda d: d["test_rows"].append(-1), r"field 'test_rows' holds -1, not a row number from 0 to 29"),
    (lambda d: d["test_rows"].append(1.5), r"field 'test_rows' holds 1\.5, not a row number from 0 to 29"),
    (lambda d: d["test_rows"].append(30), r"field 'test_rows' holds 30, not a row number from 0 to 29"),
    (lambda d: d["folds"][0].__setitem__("train", []), r"field 'folds\[0\]' must be disjoint non-empty"),
    (lambda d: d.__setitem__("spec", [1]), r"field 'spec' must be an object \(the tree specification\), got"),
    (lambda d: d["spec"].pop("preset"), r"field 'spec' is not a valid tree specification \(KeyError: 'preset'\)"),
    (lambda d: d["C_grid"][0].__setitem__(0, float("inf")), r"field 'C_grid' must be a non-empty list of C "),
    (lambda d: d["C_grid"][0].__setitem__(0, True), r"field 'C_grid' must be a non-empty list of C combinations"),
    (lambda d: d.__setitem__("C_grid", []), r"field 'C_grid' must be a non-empty list of C combinations, each 1 "),
    (lambda d: d["tasks"][0].__setitem__("task", "0"), r"field 'tasks\[0\]\.task' must be a task number not used"),
    (lambda d: d["tasks"][1].__setitem__("fold", -1), r"field 'tasks\[1\]\.fold' must be a fold number from 0 to 2"),
    (lambda d: d["tasks"][1].__setitem__("C", ["2"]), r"field 'tasks\[1\]\.C' must be one of the combinations"),
    (lambda d: d["tasks"][1].__setitem__("model", ""), r"field 'tasks\[1\]\.model' must be a file path inside"),
    (lambda d: d.__setitem__("seed", "3"), r"field 'seed' must be an integer, got '3'"),
    (lambda d: d.__setitem__("max_nonzeros", 1.5), r"field 'max_nonzeros' must be an integer >= 1 \(or null\)"),
])
def test_damaged_grid_json_fields_are_refused(grid, tmp_path, edit, match) -> None:  # noqa: F811
    """read_grid names what is missing or wrong in grid.json, as an error (not a traceback, and not accepted)."""
    _refused(grid[0], tmp_path, edit, match)


@pytest.mark.parametrize("edit", [lambda d: d.__setitem__("time_limit", None),
                                  lambda d: d.__setitem__("time_limit", 1e7), lambda d: d.pop("solver")],
                         ids=["no-limit", "longest-limit", "no-solver"])
def test_grid_json_values_collect_takes(grid, tmp_path, edit) -> None:  # noqa: F811
    """A null time limit, the longest one (1e7 s) and no solver (a grid from before the field) are read."""
    assert len(_accepted(grid[0], tmp_path, edit)["tasks"]) == 6


def test_a_folder_without_grid_json_says_how_to_make_one(tmp_path) -> None:
    """An empty folder is no grid folder, and the error says which command makes one."""
    with pytest.raises(OlctcError, match=r"is not an olctc grid folder \(no grid\.json\); create one with `olctc "
                                         r"grid`$"):
        read_grid(tmp_path)


def test_the_grids_data_missing_is_named_as_the_grids(grid, tmp_path) -> None:  # noqa: F811
    """A grid whose data file is gone names it as the grid's data and says how to give its path."""
    from olctc.cluster.read import load_grid_data

    info = _info(grid[0])
    info["data"]["source"] = str(tmp_path / "gone.csv")
    with pytest.raises(OlctcError, match=rf"^the grid's data {tmp_path}/gone\.csv is not there; pass its path with "
                                         r"--data \(data_path= in Python\)$"):
        load_grid_data(info)


# ---------------------------------------------------------------- jobs.tsv read back

def test_a_task_listed_twice_in_jobs_tsv_is_refused(grid, tmp_path) -> None:  # noqa: F811
    """A task line repeated (jobs.tsv concatenated, or edited) is named with its line."""
    g = _edit_jobs(grid[0], tmp_path, lambda ls: ls.append(ls[1]))
    with pytest.raises(OlctcError) as exc:
        read_grid(g)
    assert str(exc.value) == f"{g / 'jobs.tsv'} line 8: task 0 is listed twice"


def test_jobs_tsv_lines_of_blanks_and_a_C_a_rounding_apart_are_taken(grid, tmp_path) -> None:  # noqa: F811
    """A line of spaces is no task, and a C written 1.0000000000000002 is grid.json's 1 (a float's last digit)."""
    def edit(ls: list[str]) -> None:
        ls.insert(2, "   ")
        ls[1] = ls[1].replace("\t1\t", "\t1.0000000000000002\t", 1)

    g = _edit_jobs(grid[0], tmp_path, edit)
    assert "\t1.0000000000000002\t" in (g / "jobs.tsv").read_text()
    assert len(read_grid(g)["tasks"]) == 6


def test_at_most_ten_tasks_missing_from_jobs_tsv_are_listed(grid, tmp_path) -> None:  # noqa: F811
    """Of 12 tasks missing from jobs.tsv, the first 10 are named: the line stays short for a grid of thousands."""
    _grid(grid[1], tmp_path / "src", C_values=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    g = _edit_jobs(tmp_path / "src", tmp_path, lambda ls: ls.__setitem__(slice(1, None), []))
    with pytest.raises(OlctcError, match=r"jobs\.tsv: task\(s\) \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\] of grid\.json are "
                                         r"not listed$"):
        read_grid(g)
