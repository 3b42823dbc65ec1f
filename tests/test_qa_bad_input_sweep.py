"""A sweep of bad input across the commands (QA pass, 2026-12-04): what it found, each fixed since.

A tree file whose two columns share a name (a rename by hand) read one column for both features with only a
note of the other left out; grid wrote tasks whose `olctc solve` refused their time limit on the cluster; a file
name holding a line break split the one-line error; collect --emit-final took --quiet, fit --no-refine a preset
that refines nothing, --drop a column twice, and compile --solvers with no file to write; grid's one-thread
solvers took --threads with a word only in each task's log; messages: a node's positive count above its count
showed the whole list, a binary or foreign file given as a model was called truncated, and a folder refusing a
file was "not writable (No such file or directory)"."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from conftest import cli_main
from olctc.tree import Tree


def _tree(tmp_path, **edit):
    Tree.from_arrays(np.array([[1.0, -0.5]]), [0.1], feature_names=["a", "b"], classes=("no", "yes")).save(
        tmp_path / "t.json")
    d = json.loads((tmp_path / "t.json").read_text())
    for key, value in edit.items():
        d[key] = value
    (tmp_path / "t.json").write_text(json.dumps(d))
    return tmp_path / "t.json"


def _one_line_error(code: int, err: str, text: str) -> None:
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and text in err, (code, err)


def test_tree_with_two_columns_of_one_name_is_warned_of(tmp_path, capsys):
    d = json.loads(_tree(tmp_path).read_text())
    path = _tree(tmp_path, columns=[d["columns"][0], {"name": "a", "kind": "numeric"}], feature_names=["a", "a"])
    (tmp_path / "x.csv").write_text("a,b\n1,5\n2,-3\n")
    code, out, err = cli_main(["predict", path, tmp_path / "x.csv", "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    assert (f"warning: {path}: columns 0 and 1 are both named 'a': both read that one input column (a tree fitted "
            "on a table's columns has distinct names: was the file edited?)") in err
    assert "ignoring 1 column(s) the tree does not use: 'b'" in err
    code, out, err = cli_main(["predict", _tree(tmp_path), tmp_path / "x.csv", "-o", tmp_path / "p.csv"], capsys)
    assert code == 0 and "warning" not in err, err


def test_node_with_more_positive_points_than_points_is_named(tmp_path, capsys):
    d = json.loads(_tree(tmp_path).read_text())
    nodes = dict(d["nodes"], n=[306], pos=[400])
    code, out, err = cli_main(["export", _tree(tmp_path, nodes=nodes), "--format", "text"], capsys)
    _one_line_error(code, err, "nodes.pos[0]: expected at most nodes.n[0] = 306 positive points (of the training "
                               "points that reached the node), got 400")


def test_grid_refuses_a_time_limit_no_task_could_solve_in(tmp_path, capsys):
    code, out, err = cli_main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
                               "--time-limit", "0.9", "-o", tmp_path / "g"], capsys)
    _one_line_error(code, err, "--time-limit 0.9 s leaves each task's `olctc solve` no time to solve: writing the "
                               "solution needs 0.2 s and a solver at least 0.5 s, besides checking the model's files: "
                               "give at least 1 s (more for a large model)")
    assert os.listdir(tmp_path) == []


def test_file_name_with_a_line_break_stays_on_the_error_line(tmp_path, capsys):
    code, out, err = cli_main(["compile", tmp_path / "no\nsuch.csv", "--target", "y", "-o", tmp_path / "m.mps"],
                              capsys)
    _one_line_error(code, err, "no\\nsuch.csv: no such file")
    code, out, err = cli_main(["predict", _tree(tmp_path), tmp_path / "x\u2028y.csv"], capsys)
    _one_line_error(code, err, "x\\u2028y.csv")


def test_options_that_do_nothing_are_refused(tmp_path, capsys):
    code, out, err = cli_main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
                               "--time-limit", "10", "-o", tmp_path / "g"], capsys)
    assert code == 0, err
    code, out, err = cli_main(["collect", tmp_path / "g", "--emit-final", "--quiet"], capsys)
    _one_line_error(code, err, "--quiet applies to the final fit in process, which --emit-final does not run")
    assert not (tmp_path / "g" / "final").exists()
    code, out, err = cli_main(["fit", "--dataset", "haberman", "--depth", "1", "--time-limit", "5", "--preset",
                               "margot", "--no-refine", "-o", tmp_path / "t.json"], capsys)
    _one_line_error(code, err, "--no-refine applies to the logistic presets (olct, olct-univariate), whose last "
                               "layer refinement refits; margot refines nothing: leave it out")
    # decode too (it said nothing and wrote the tree): the preset is the manifest's
    code, out, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "--preset", "margot-sfs",
                               "-o", tmp_path / "q.mps"], capsys)
    assert code == 0, err
    code, out, err = cli_main(["decode", tmp_path / "q.olctc.json", tmp_path / "q.mps", "--no-refine",
                               "-o", tmp_path / "q.json"], capsys)
    _one_line_error(code, err, "--no-refine applies to the logistic presets (olct, olct-univariate), whose last "
                               "layer refinement refits; margot-sfs refines nothing: leave it out")
    for f in tmp_path.glob("q.*"):
        f.unlink()
    for cmd in (["compile", "--no-start", "--no-params", "-o", tmp_path / "m.mps"], ["fit", "-o", tmp_path / "t.json"]):
        code, out, err = cli_main([cmd[0], "--dataset", "haberman", "--depth", "1", "--drop", "age", "--drop",
                                   "nodes", "--drop", "age", *cmd[1:]], capsys)
        _one_line_error(code, err, "--drop names column 'age' twice: give each column once")
    assert sorted(os.listdir(tmp_path)) == ["g"]


@pytest.mark.parametrize("name,content,message", [
    ("m.mps", b"NAME x\nROWS\n\x02\x00\x01junk", "m.mps: not an MPS file: it holds binary content (byte 0x02), where "
                                                "an MPS model is text ending in its 'ENDATA' line"),
    ("m.lp", b"hello world\n", "m.lp: not an LP file: it starts with 'hello world', where an LP model starts with "
                               "'minimize' or 'maximize'"),
    ("m.mps", b"* a comment\nA,B,C\n1,2,3\n", "m.mps: not an MPS file: it starts with 'A,B,C', where an MPS model "
                                              "starts with 'NAME' or 'ROWS'"),
    ("m.mps", b"NAME m\nROWS\n N obj\nCOLUMNS\n", "m.mps: the file ends before its 'ENDATA' line (truncated?)"),
    ("m.lp", b"\\ comment\nMinimize\n obj: x\nSubject To\n", "m.lp: the file ends before its 'End' line"),
])
def test_a_file_that_is_no_model_is_named_so(tmp_path, capsys, name, content, message):
    (tmp_path / name).write_bytes(content)
    code, out, err = cli_main(["solve", tmp_path / name, "--solver", "highs"], capsys)
    _one_line_error(code, err, message)


def test_a_folder_that_takes_no_file_says_why(tmp_path, capsys):
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc here")
    code, out, err = cli_main(["export", _tree(tmp_path), "-o", "/proc/x.json"], capsys)
    _one_line_error(code, err, "cannot write /proc/x.json: folder /proc is not writable (making a file there "
                               "failed: ")


def test_compile_refuses_solvers_with_no_file_to_write(tmp_path, capsys):
    code, out, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "--solvers", "highs", "--no-start",
                               "--no-params", "-o", tmp_path / "m.mps"], capsys)
    _one_line_error(code, err, "--solvers picks the solvers whose MIP start and parameter files compile writes, "
                               "which --no-start and --no-params leave out: drop one of them")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("solver,threads,single", [("glpk-cli", ["--threads", "4"], "glpsol"),
                                                   ("scip", ["--cpus-per-task", "2"], "SCIP's branch and bound")])
def test_grid_warns_of_threads_a_one_thread_solver_leaves_idle(tmp_path, capsys, solver, threads, single):
    code, out, err = cli_main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
                               "--solver", solver, *threads, "--time-limit", "10", "-o", tmp_path / "g"], capsys)
    n = threads[1]
    assert code == 0 and (f"warning: {single} runs on one thread: the {n} threads of each task (--threads, or "
                          "--cpus-per-task) are not used; --cpus-per-task 1 reserves what a task uses") in err, err
    code, out, err = cli_main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
                               "--solver", "highs", *threads, "--time-limit", "10", "-o", tmp_path / "h"], capsys)
    assert code == 0 and "warning" not in err, err
