"""Tests from a second mutation pass over olctc.cluster's grid and read modules (QA 2026-12-07): each field of
grid.json and each line of jobs.tsv that read_grid checks and no test damaged, the C values and Python values a
grid refuses, the job name, the note of a large grid, the files a grid moves into an existing folder and moves
back, the scripts' permissions, and the olctc command and solver programs the tasks run. Each pins a behaviour
that a hand-written mutant changed while the targeted tests passed."""
from __future__ import annotations

import json
import stat
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.cluster import make_folds, make_grid, parse_C_values, read_grid
from olctc.data import read_csv
from olctc.errors import OlctcError
from olctc.spec import make_spec
from test_cluster import small_heart_csv
from test_cluster_grid_mutation_gaps import _edit_jobs, _refused


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> tuple[Path, Any]:
    """A compiled (unsolved) depth-1 grid of HiGHS tasks on 30 heart rows: C values 1 and 2, 3 folds (6 tasks);
    and its Dataset."""
    root = tmp_path_factory.mktemp("gridgaps2")
    ds = read_csv(small_heart_csv(root / "h.csv", 15), target="y")
    make_grid(ds, make_spec("olct", 1), root / "g", C_values=[1.0, 2.0], folds=3, seed=3, solver="highs",
              time_limit=20.0)
    return root / "g", ds


def _grid(ds, out: Path, **kwargs) -> Any:
    """A depth-1 HiGHS grid of ``ds`` in ``out``: C 1, 2 folds unless told."""
    return make_grid(ds, make_spec("olct", 1), out, **{"C_values": [1.0], "folds": 2, "solver": "highs", **kwargs})


# ---------------------------------------------------------------- grid.json read back

def _fold_val_test_row(d: dict[str, Any]) -> None:
    d["folds"][0]["val"].append(d["test_rows"][0])


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.pop("test_rows"), r"the key 'test_rows' is missing; the file is damaged$"),
    (lambda d: d.__setitem__("data", "h.csv"), r"field 'data' must be an object, got 'h.csv'"),
    (lambda d: d["data"].pop("sha256"), r"field 'data.sha256' must be a string, got nothing \(missing\)"),
    (lambda d: d["data"].__setitem__("dropped", [1]), r"field 'data.dropped' must be a list of column names"),
    (lambda d: d.__setitem__("train_rows", 5), r"field 'train_rows' must be a list of row numbers from 0 to 29, "
     r"got 5"),
    (lambda d: d["train_rows"].append(30), r"field 'train_rows' holds 30, not a row number from 0 to 29 of the"),
    (lambda d: d.__setitem__("train_rows", []), r"field 'train_rows' must be a non-empty list of row numbers"),
    (lambda d: d["test_rows"].append(d["train_rows"][1]), r"field 'test_rows' must be rows outside train_rows"),
    (lambda d: d.__setitem__("folds", d["folds"][:1]), r"field 'folds' must be a list of at least 2 folds"),
    (lambda d: d["folds"].__setitem__(1, 3), r"field 'folds\[1\]' must be an object with 'train' and 'val' rows"),
    (_fold_val_test_row, r"field 'folds\[0\]' must be disjoint non-empty 'train' and 'val' parts of train_rows"),
    (lambda d: d["folds"][0]["val"].append(d["folds"][0]["train"][0]), r"field 'folds\[0\]' must be disjoint "),
    (lambda d: d["spec"].__setitem__("depth", 0), r"field 'spec' is not a valid tree specification: The 'depth' "
     r"parameter must be an integer >= 1"),
    (lambda d: d.__setitem__("tasks", []), r"field 'tasks' must be a non-empty list of tasks"),
    (lambda d: d["tasks"].__setitem__(2, "t"), r"field 'tasks\[2\]' must be an object, got 't'"),
    (lambda d: d["tasks"][2].__setitem__("fold", 3), r"field 'tasks\[2\].fold' must be a fold number from 0 to 2"),
    (lambda d: d.__setitem__("max_nonzeros", 0), r"field 'max_nonzeros' must be an integer >= 1 \(or null\)"),
    (lambda d: d.__setitem__("solver", "nope"), r"field 'solver' must be one of cbc-cli, "),
])
def test_damaged_grid_json_fields_are_refused(grid, tmp_path, edit, match) -> None:
    """read_grid names the field of grid.json that is not what collect relies on, whatever it holds."""
    _refused(grid[0], tmp_path, edit, match)


def test_a_grid_folder_that_is_no_folder_or_no_json_is_refused(grid, tmp_path) -> None:
    """read_grid of a file is 'not a folder'; a grid.json that is not JSON, or JSON that is no object, is named as
    such (not a traceback)."""
    (tmp_path / "f").write_text("")
    with pytest.raises(OlctcError, match=r"/f: not a folder$"):
        read_grid(tmp_path / "f")
    g = tmp_path / "g"
    g.mkdir()
    (g / "grid.json").write_text("{")
    with pytest.raises(OlctcError, match=r"grid\.json: not readable JSON \("):
        read_grid(g)
    (g / "grid.json").write_text("[1]")
    with pytest.raises(OlctcError, match=r"grid\.json: not an olctc grid file \(format is not 'olctc-grid'\)$"):
        read_grid(g)


def test_jobs_tsv_empty_or_naming_another_solution_or_missing_tasks_is_refused(grid, tmp_path) -> None:
    """An empty jobs.tsv has no header; a task line's solution must be grid.json's; every task missing from it is
    listed (up to 10)."""
    g = _edit_jobs(grid[0], tmp_path / "a", lambda ls: ls.__setitem__(slice(None), []))
    (g / "jobs.tsv").write_text("")
    with pytest.raises(OlctcError, match=r"jobs\.tsv line 1: the header must be task \| fold \| C"):
        read_grid(g)
    other = "tasks/0002/model.cbc.sol"
    g = _edit_jobs(grid[0], tmp_path / "b", lambda ls: ls.__setitem__(3, ls[3].replace(
        "\ttasks/0002/model.highs.sol\t", f"\t{other}\t")))
    with pytest.raises(OlctcError) as exc:
        read_grid(g)
    assert str(exc.value) == (f"{g / 'jobs.tsv'} line 4: task 2 has solution {other!r}, grid.json says "
                              "'tasks/0002/model.highs.sol'")
    g = _edit_jobs(grid[0], tmp_path / "c", lambda ls: ls.__setitem__(slice(2, None), []))
    with pytest.raises(OlctcError, match=r"jobs\.tsv: task\(s\) \[1, 2, 3, 4, 5\] of grid\.json are not listed$"):
        read_grid(g)


# ---------------------------------------------------------------- what a grid writes

def test_C_values_refuse_infinity_repeats_and_keep_every_value_given() -> None:
    """An infinite C and a repeated one are refused; a sequence of values is taken whole, in its order."""
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be finite and > 0"):
        parse_C_values("1,inf")
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be distinct values\. Got '1,1'"):
        parse_C_values("1,1")
    with pytest.raises(OlctcError, match=r"The 'C_values' parameter must be at least one value"):
        parse_C_values(" ")
    assert parse_C_values([3, 0.5]) == [3.0, 0.5] and parse_C_values("3, 0.5") == [3.0, 0.5]


def test_grid_json_records_the_datas_size(grid) -> None:
    """grid.json's data records its rows and columns besides its source."""
    g, ds = grid
    data = json.loads((g / "grid.json").read_text())["data"]
    assert (data["n"], data["p"]) == (30, ds.p) and data["source"].endswith("h.csv")


def test_a_long_folder_name_makes_a_job_name_of_its_first_40_characters(grid, tmp_path) -> None:
    """The job name is olctc- and the folder's name cut to 40 characters."""
    name = "n" * 30 + "m" * 20
    _grid(grid[1], tmp_path / name)
    assert f"#SBATCH --job-name=olctc-{'n' * 30}{'m' * 10}\n" in (tmp_path / name / "submit.slurm").read_text()


def test_a_grid_of_exactly_the_large_grid_tasks_gets_no_note(grid, tmp_path, monkeypatch) -> None:
    """The note is for more tasks than LARGE_GRID_TASKS (lowered to 2 here), not as many."""
    import olctc.cluster.grid

    monkeypatch.setattr(olctc.cluster.grid, "LARGE_GRID_TASKS", 2)
    lines: list[str] = []
    _grid(grid[1], tmp_path / "g", echo=lines.append)
    assert not any(line.startswith("note:") for line in lines) and len(lines) == 2


def test_echo_names_each_tasks_rows_and_columns(grid, tmp_path) -> None:
    """Each task echoed names its fold, C and its model's rows and columns (as compiled)."""
    from olctc.compile import compile_problem

    lines: list[str] = []
    ds = grid[1]
    info = _grid(ds, tmp_path / "g", echo=lines.append).info
    rows = info["folds"][1]["train"]
    import numpy as np

    comp = compile_problem(ds.subset(np.array(rows)), make_spec("olct", 1, C=(1.0,)), "x", rows=np.array(rows))
    assert comp.milp.n_rows != comp.milp.n_cols
    assert lines[1] == f"  task 0001: fold 1, C 1 ({comp.milp.n_rows:,} rows, {comp.milp.n_cols:,} columns)"


def test_every_script_of_a_grid_is_executable(grid, tmp_path, monkeypatch) -> None:
    """run_local.sh, submit.sh and every job array's script are made executable (rwxr-xr-x)."""
    import olctc.cluster.slurm

    monkeypatch.setattr(olctc.cluster.slurm, "ARRAY_CHUNK", 1)
    _grid(grid[1], tmp_path / "g")
    for name in ("run_local.sh", "submit.sh", "submit.slurm", "submit-1.slurm"):
        assert stat.S_IMODE((tmp_path / "g" / name).stat().st_mode) == 0o755, name


def test_an_olctc_cmd_with_a_line_break_is_refused_before_anything_is_written(grid, tmp_path) -> None:
    """A line break in the command would split every task's line of jobs.tsv: refused, and nothing is left."""
    with pytest.raises(OlctcError, match=r"a path contains a tab or newline; use plain folder names$"):
        _grid(grid[1], tmp_path / "g", olctc_cmd="olctc\nx")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- the folder a grid is built in

def test_a_dangling_link_as_the_grid_folder_is_refused_as_not_a_folder(tmp_path) -> None:
    """A symbolic link to nothing where the grid would go exists (as a link) and is no folder."""
    from olctc.cluster import check_grid_folder

    (tmp_path / "g").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OlctcError, match=r"/g exists and is not a folder$"):
        check_grid_folder(tmp_path / "g")


def test_a_leftover_of_a_killed_grid_is_no_reason_to_refuse_and_is_warned_of(grid, tmp_path) -> None:
    """An empty folder holding only a killed grid's temporary folder takes a grid, with a warning naming the
    leftover; the leftover stays (it may be another grid's, running)."""
    out = tmp_path / "g"
    left = out / ".g.0123456789ab.tmp"
    left.mkdir(parents=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _grid(grid[1], out)
    assert any(str(left) in str(w.message) and "killed before it finished" in str(w.message) for w in caught)
    assert left.is_dir() and (out / "grid.json").is_file()


# ---------------------------------------------------------------- the programs the tasks run

@pytest.mark.parametrize("solver, program", [("gurobi-cli", "gurobi_cl"), ("glpk-cli", "glpsol")])
def test_a_solver_program_not_on_path_is_warned_of(solver, program, monkeypatch) -> None:
    """gurobi_cl and glpsol missing here: the warning names the program every task of the grid would run."""
    from olctc.cluster.grid import solver_program_warning

    monkeypatch.setenv("PATH", "/nonexistent")
    assert solver_program_warning(solver) == (f"--solver {solver}: the tasks run the program {program!r}, which is "
                                              "not on PATH here: make it available where they run (or choose "
                                              "another --solver)")
    assert solver_program_warning("highs") is None


def test_an_olctc_cmd_with_a_carriage_return_is_refused() -> None:
    """A carriage return (a command pasted from a Windows file) is no command on one line."""
    from olctc.cluster import check_olctc_cmd

    with pytest.raises(OlctcError, match=r"The 'olctc_cmd' parameter \(--olctc-cmd\) must be a command on one line"):
        check_olctc_cmd("olctc\r")


def test_a_backslash_in_single_quotes_does_not_hide_a_comment() -> None:
    """In single quotes a backslash is a letter: 'a\\' closes the quote, and the '#' after it starts a comment
    (bash agrees: printf prints no END)."""
    import subprocess

    from olctc.cluster.grid import _has_comment

    cmd = "x 'a\\' #"
    said = subprocess.run(["bash", "-c", f"printf '<%s>' {cmd} END"], capture_output=True, text=True).stdout
    assert "END" not in said and _has_comment(cmd)


def test_a_dollar_after_the_first_word_does_not_skip_the_check_of_the_program() -> None:
    """Only the program's own word is the shell's to expand: after ';' the '$' of another command is not, and the
    missing program is still warned of."""
    from olctc.cluster import check_olctc_cmd

    assert "which is not a file here" in (check_olctc_cmd("/no/such/olctc;$HOME") or "")


def test_a_relative_program_the_shell_expands_is_written_as_given(tmp_path, monkeypatch) -> None:
    """bin/$X names a file here, but the task's shell expands $X: written as given, not made absolute (which
    would quote the '$' into a letter). A relative path with a space is made absolute and quoted."""
    from olctc.cluster import anchored_olctc_cmd

    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "$X").write_text("")
    assert anchored_olctc_cmd("bin/$X solve") == "bin/$X solve"
    (tmp_path / "my bin").mkdir()
    (tmp_path / "my bin" / "olctc").write_text("")
    assert anchored_olctc_cmd("'my bin/olctc' -v") == f"'{tmp_path}/my bin/olctc' -v"


def test_without_olctc_on_path_the_tasks_run_this_python_quoted(monkeypatch) -> None:
    """No olctc on PATH: the tasks run this Python's olctc.cli, its path quoted for the shell."""
    import sys

    from olctc.cluster import olctc_command

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(sys, "executable", "/my env/bin/python")
    assert olctc_command() == "'/my env/bin/python' -m olctc.cli"


@pytest.mark.parametrize("folds", [None, "3"])
def test_make_grid_with_echo_refuses_a_fold_count_that_is_no_integer(grid, tmp_path, folds) -> None:
    """With echo, the task count of the large-grid note multiplied by folds first: None or '3' was a TypeError
    ("'>' not supported between instances of 'str' and 'int'"), not the parameter's error. Nothing is written."""
    with pytest.raises(OlctcError, match=r"^The 'folds' parameter must be an integer >= 2\. Got "):
        _grid(grid[1], tmp_path / "g", folds=folds, echo=lambda line: None)
    assert list(tmp_path.iterdir()) == []


def test_numpy_integer_folds_are_taken_as_fit_cv_takes_them(grid, tmp_path) -> None:
    """make_folds and make_grid took Python ints only: np.int64(2) was refused with "Got 2 instead" (fit_cv and
    --cv take numpy integers); grid.json records a plain int."""
    assert len(make_folds(np.array([1, -1] * 10), np.arange(20), np.int64(2), 0)) == 2
    g = _grid(grid[1], tmp_path / "g", folds=np.int64(2))
    assert type(g.info["folds"]) is list and len(g.info["folds"]) == 2
    assert len(json.loads((tmp_path / "g" / "grid.json").read_text())["folds"]) == 2


def test_a_jobs_tsv_that_is_a_folder_or_not_text_is_a_one_line_error(grid, tmp_path) -> None:
    """jobs.tsv as a folder, or holding bytes that are not UTF-8, ended collect in a traceback (IsADirectoryError,
    UnicodeDecodeError); it is named as unreadable, as a grid.json that is not JSON is."""
    from conftest import cli_here

    g = _edit_jobs(grid[0], tmp_path, lambda ls: None)
    (g / "jobs.tsv").write_bytes(b"task\xff\n")
    with pytest.raises(OlctcError, match=r"jobs\.tsv: not readable as text \('utf-8' codec can't decode byte 0xff"):
        read_grid(g)
    (g / "jobs.tsv").unlink()
    (g / "jobs.tsv").mkdir()
    res = cli_here("collect", str(g))
    assert res.returncode == 2 and res.stderr.startswith(f"error: {g / 'jobs.tsv'}: not readable as text ("), \
        res.stderr
    assert res.stderr.endswith("; the grid folder is damaged\n") and res.stderr.count("\n") == 1, res.stderr
