"""export / predict / explain / grid / collect behaviour a mutation pass over cli_tree.py and cli_cluster.py
(QA 2026-12-06) could change without any other test noticing. Every case runs the real CLI (``olctc.cli.main``)."""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from conftest import cli_here, tiny_folder
from olctc.datasets import dataset_path
from olctc.export.json import save
from test_tree import tree_for


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """tiny.csv (numeric a, b; text c; labels y) and a depth-1 tree fitted on it, tree.json."""
    return tiny_folder(tmp_path_factory.mktemp("mut_tiny"),
                       ["fit", "tiny.csv", "--target", "y", "--depth", "1", "--quiet", "-o", "tree.json"])


@pytest.fixture(scope="module")
def heart(tmp_path_factory) -> Path:
    """A depth-2 tree on heart (tree.json, numeric columns, classes 0 and 1) and heart.csv, its data."""
    d = tmp_path_factory.mktemp("mut_heart")
    save(tree_for("heart", 2), d / "tree.json")
    (d / "heart.csv").write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    return d


# ---------------------------------------------------------------- predict / explain: cells

@pytest.mark.parametrize("command", [["predict", "tree.json", "e.csv"], ["explain", "tree.json", "--data", "e.csv",
                                                                         "--row", "1"]])
def test_an_empty_text_cell_is_an_error_not_an_unseen_category(tiny, command):
    """An empty cell in a text (categorical) column is refused as in a numeric one, not scored as unseen."""
    (tiny / "e.csv").write_text("a,b,c\n0.5,1,x\n1,2,\n")
    r = cli_here(*command, cwd=tiny)
    assert r.returncode == 2 and r.stdout == ""
    assert "e.csv: line 3 column 'c': empty cell; the tree needs a value for every feature" in r.stderr


# ---------------------------------------------------------------- export

def test_export_format_from_an_upper_case_suffix(tiny):
    """The format comes from the -o suffix in any case: OUT.PY is a Python module."""
    r = cli_here("export", "tree.json", "-o", "OUT.PY", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "python written to OUT.PY\n"
    assert "def predict(" in (tiny / "OUT.PY").read_text()


def test_export_to_stdout_is_the_file_byte_for_byte(tiny):
    """-o - prints what -o FILE writes, with no newline added at the end."""
    r = cli_here("export", "tree.json", "--format", "text", "-o", "-", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert cli_here("export", "tree.json", "-o", "t.txt", cwd=tiny).returncode == 0
    assert r.stdout == (tiny / "t.txt").read_text()


# ---------------------------------------------------------------- predict: output

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_predict_to_a_pipe_writes_nothing_before_a_fault(tiny, tmp_path):
    """-o PIPE is spooled like standard output: a fault at the file's last row leaves the pipe with nothing,
    not the header and the rows before it."""
    (tmp_path / "e.csv").write_text("a,b,c\n0.5,1,x\n1,2,\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that opening it to write does not block
    try:
        r = cli_here("predict", tiny / "tree.json", "e.csv", "-o", "fifo", cwd=tmp_path)
        try:
            got = os.read(fd, 1 << 16)
        except BlockingIOError:
            got = b""
    finally:
        os.close(fd)
    assert r.returncode == 2 and "line 3 column 'c': empty cell" in r.stderr
    assert got == b""


# ---------------------------------------------------------------- predict --target: the score line

def test_target_scores_a_tie_at_zero_as_the_negative_class(tiny):
    """A score of exactly 0 predicts the negative class, and --target counts it so (the line matches the CSV)."""
    r = cli_here("predict", "tree.json", "tiny.csv", "--target", "y", cwd=tiny)  # every weight 0: every score 0
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["prediction"] + ["-1"] * 6
    assert r.stderr.splitlines()[-1] == ("accuracy 0.5000, balanced accuracy 0.5000, log loss 0.6931, Brier score "
                                         "0.2500 on 6 rows (column 'y'; recall 1.0000 of -1, 0.0000 of 1)")


def test_target_line_matches_the_written_probabilities(heart):
    """--target's accuracy, balanced accuracy, recalls, log loss and Brier score are those of the predictions and
    probabilities written, on standard output with -o FILE."""
    import numpy as np
    import pandas as pd

    r = cli_here("predict", "tree.json", "heart.csv", "--proba", "--target", "y", "-o", "p.csv", cwd=heart)
    assert r.returncode == 0, r.stderr
    p, y = pd.read_csv(heart / "p.csv"), pd.read_csv(heart / "heart.csv")["y"].to_numpy()
    lines = r.stdout.splitlines()
    assert lines[0] == f"{len(y)} prediction(s) written to p.csv"
    pred, p1 = p["prediction"].to_numpy(), p["proba_1"].to_numpy()
    recall = [np.mean(pred[y == c] == c) for c in (0, 1)]
    loss = -np.mean(np.log(np.where(y == 1, p1, 1 - p1)))
    brier = np.mean((p1 - y) ** 2)
    assert lines[1] == (f"accuracy {np.mean(pred == y):.4f}, balanced accuracy {np.mean(recall):.4f}, log loss "
                        f"{loss:.4f}, Brier score {brier:.4f} on {len(y)} rows (column 'y'; recall {recall[0]:.4f} "
                        f"of 0, {recall[1]:.4f} of 1)")
    assert 0 < recall[0] < 1 and 0 < recall[1] < 1 and recall[0] != recall[1]  # the line tells them apart


def test_target_refuses_a_label_two_classes_read_as(tiny, tmp_path):
    """A label cell that reads as two classes (the cell 1 for the classes '1.0' and '1e0') is refused, not scored as
    either; each class's own spelling is scored."""
    from olctc.tree import Tree

    t = Tree.load(tiny / "tree.json")
    t.classes = ("1.0", "1e0")
    t.save(tmp_path / "amb.json")
    (tmp_path / "ok.csv").write_text("a,b,c,y\n0.5,1,x,1.0\n1,2,y,1e0\n")
    (tmp_path / "amb.csv").write_text("a,b,c,y\n0.5,1,x,1.0\n1,2,y,1\n")
    r = cli_here("predict", "amb.json", "ok.csv", "--target", "y", cwd=tmp_path)
    assert r.returncode == 0 and "recall 1.0000 of '1.0', 0.0000 of '1e0'" in r.stderr, r.stderr
    r = cli_here("predict", "amb.json", "amb.csv", "--target", "y", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert "--target 'y' line 3: label '1' is not one of the tree's classes ('1.0', '1e0')" in r.stderr


@pytest.mark.parametrize("bias,shown", [(5000.0, "log loss 2500.0000"), (5e6, "log loss 2.5000e+06")])
def test_target_log_loss_is_fixed_point_below_a_million(tiny, tmp_path, bias, shown):
    """Half the rows wrong by a score of ``bias``: a log loss of bias / 2, in fixed point up to 1e6, then e-notation."""
    from olctc.tree import Tree

    Tree.from_arrays([[0.0, 0.0]], [bias], feature_names=["a", "b"]).save(tmp_path / "t.json")
    r = cli_here("predict", "t.json", tiny / "tiny.csv", "--target", "y", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert f", {shown}, Brier score 0.5000 on 6 rows" in r.stderr.splitlines()[-1]


@pytest.mark.parametrize("classes,result", [
    (("not good", "good"), "recall 1.0000 of 'not good', 0.0000 of 'good'; 'maybe' scored as 'not good')"),
    (("not bad", "good"), "error: r.csv: --target 'y' line 3: label 'maybe' is not one of the tree's classes"),
])
def test_target_takes_other_labels_as_the_rest_only_for_not_p(tmp_path, classes, result):
    """Only a negative class named 'not P' for the positive class P (one against the rest) takes the labels the tree
    does not name; 'not bad' against 'good' is no such pair: such a label is refused."""
    from olctc.tree import Tree

    Tree.from_arrays([[0.0, 0.0]], [0.0], feature_names=["a", "b"], classes=classes).save(tmp_path / "t.json")
    (tmp_path / "r.csv").write_text("a,b,y\n0,0,good\n1,1,maybe\n2,2,not good\n")
    r = cli_here("predict", "t.json", "r.csv", "--target", "y", cwd=tmp_path)
    assert result in r.stderr.splitlines()[-1]
    assert r.returncode == (2 if result.startswith("error") else 0)


def test_predict_dash_o_is_standard_output(tiny, tmp_path):
    """predict -o - prints the CSV on standard output (the score line on standard error) and writes no file '-'."""
    r = cli_here("predict", tiny / "tree.json", tiny / "tiny.csv", "--target", "y", "-o", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "prediction\n" + "-1\n" * 6
    assert r.stderr.splitlines()[-1].startswith("accuracy 0.5000")
    assert list(tmp_path.iterdir()) == []


def test_predict_names_a_missing_id_column_before_a_missing_target(tiny):
    """With --id-column and --target both not columns, the error is --id-column's (the options' order)."""
    r = cli_here("predict", "tree.json", "tiny.csv", "--id-column", "nope", "--target", "nope2", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: tiny.csv: --id-column 'nope' is not a column; columns are: a, b, c, y\n"


def test_predict_names_the_first_overflowing_row_across_chunks(tmp_path, monkeypatch):
    """Two rows whose scores overflow, in different chunks of the file: the error names the first one."""
    import olctc.data.table
    from olctc.tree import Tree

    monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 10)  # 5 rows of 2 cells per chunk
    Tree.from_arrays([[10.0, 1.0]], [0.0], feature_names=["a", "b"]).save(tmp_path / "t.json")
    rows = [f"{k % 5},1" for k in range(40)]
    rows[12], rows[31] = "1e308,1", "-1e308,1"
    (tmp_path / "d.csv").write_text("a,b\n" + "\n".join(rows) + "\n")
    r = cli_here("predict", "t.json", "d.csv", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: d.csv: row 12 (line 14): the score of node 0 overflows"), r.stderr


# ---------------------------------------------------------------- explain

def test_explain_refuses_top_zero(tiny):
    """--top 0 is refused (at least 1 feature per node), as a negative --top is."""
    r = cli_here("explain", "tree.json", "--data", "tiny.csv", "--row", "0", "--top", "0", cwd=tiny)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", "error: --top must be at least 1; got 0\n")


def test_explain_json_keeps_non_ascii_names_as_they_are(tmp_path):
    """explain --json writes a feature name such as 'größe' as it is, not as \\u escapes."""
    from olctc.tree import Tree

    Tree.from_arrays([[1.0, 2.0]], [0.5], feature_names=["größe", "b"]).save(tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("größe,b\n1,2\n", encoding="utf-8")
    r = cli_here("explain", "t.json", "--data", "d.csv", "--row", "0", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "größe" in r.stdout and "\\u" not in r.stdout
    assert json.loads(r.stdout)["row"] == 0


def test_export_bad_table_is_refused_before_the_tree_is_read(tmp_path):
    """A bad --table name is the error even when the tree file is broken too: it is checked first."""
    (tmp_path / "bad.json").write_text("{")
    r = cli_here("export", "bad.json", "--format", "sql", "--table", "a..b", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: table 'a..b': expected a name of one to three non-empty parts"), r.stderr


# ---------------------------------------------------------------- grid

GRID = ["grid", "tiny.csv", "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2", "--time-limit", "5"]


def test_grid_refuses_zero_cpus_per_task(tiny, tmp_path):
    """--cpus-per-task 0 is refused before anything is written."""
    r = cli_here(*GRID, "--cpus-per-task", "0", "-o", tmp_path / "g", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert "--cpus-per-task) must be >= 1. Got 0 instead." in r.stderr
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("options,threads,cpus", [
    (["--cpus-per-task", "2"], "--threads 2 ", 2),
    (["--cpus-per-task", "2000", "--threads", "4"], "--threads 4 ", 2000),
])
def test_grid_threads_follow_cpus_per_task_unless_given(tiny, tmp_path, options, threads, cpus):
    """Each task's solve runs --cpus-per-task threads when above 1; --threads, when given, allows more CPUs than
    a solver's thread limit."""
    r = cli_here(*GRID, *options, "-o", tmp_path / "g", cwd=tiny)
    assert r.returncode == 0, r.stderr
    commands = [line.split("\t")[5] for line in (tmp_path / "g" / "jobs.tsv").read_text().splitlines()[1:]]
    assert len(commands) == 2 and all(threads in c for c in commands)
    assert f"#SBATCH --cpus-per-task={cpus}\n" in (tmp_path / "g" / "submit.slurm").read_text()


def test_grid_warns_that_scip_uses_one_of_two_threads(tiny, tmp_path):
    """--solver scip with 2 threads per task: a warning that SCIP's branch and bound uses one."""
    r = cli_here(*GRID, "--solver", "scip", "--threads", "2", "-o", tmp_path / "g", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert "warning: SCIP's branch and bound runs on one thread: the 2 threads of each task" in r.stderr


def test_grid_defaults(heart, tmp_path, monkeypatch):
    """Without the options: 4 folds, C in 0.01, 0.1, 1, 10, 100, a 20% test share, 600 s per task, --mem 4G;
    and, where sbatch is not on PATH, a note naming run_local.sh."""
    import olctc.cluster.slurm

    monkeypatch.setattr(olctc.cluster.slurm, "sbatch_available", lambda: False)
    r = cli_here("grid", "heart.csv", "--target", "y", "--depth", "1", "-o", tmp_path / "g", cwd=heart)
    assert r.returncode == 0, r.stderr
    info = json.loads((tmp_path / "g" / "grid.json").read_text())
    assert (len(info["folds"]), info["C_grid"], info["time_limit"]) == (4, [[0.01], [0.1], [1.0], [10.0], [100.0]], 600)
    assert (len(info["train_rows"]), len(info["test_rows"])) == (237, 60)
    assert "#SBATCH --mem=4G\n" in (tmp_path / "g" / "submit.slurm").read_text()
    assert "4 folds x 5 C combinations = 20 tasks" in r.stdout
    assert r.stdout.splitlines()[-1] == (f"note: sbatch is not on PATH here: copy the folder to a Slurm cluster, or "
                                         f"run {tmp_path / 'g' / 'run_local.sh'}")


def test_grid_refuses_a_single_C(tiny, tmp_path):
    """grid --C is refused (its C values come from --C-values), not ignored."""
    r = cli_here(*GRID, "--C", "5", "-o", tmp_path / "g", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --C 5 does not apply to grid: its tasks take each layer's C from --C-values")
    assert not (tmp_path / "g").exists()


# ---------------------------------------------------------------- collect

def test_collect_emit_final_refuses_quiet(tiny, tmp_path):
    """--quiet hides the log of the in-process final fit, which --emit-final does not run: refused, nothing written."""
    assert cli_here(*GRID, "-o", tmp_path / "g", cwd=tiny).returncode == 0
    r = cli_here("collect", "g", "--emit-final", "--quiet", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --quiet applies to the final fit in process, which --emit-final does not run")
    assert not (tmp_path / "g" / "final").exists() and not (tmp_path / "g" / "cv_results.json").exists()


@pytest.mark.parametrize("script", ["submit.sh", "run_local.sh", "submit.slurm"])
def test_collect_refuses_to_write_the_tree_over_a_job_script(tiny, tmp_path, script):
    """-o naming one of the grid's scripts is refused by name (the grid could no longer be run), script untouched."""
    assert cli_here(*GRID, "-o", tmp_path / "g", cwd=tiny).returncode == 0
    before = (tmp_path / "g" / script).read_bytes()
    r = cli_here("collect", "g", "-o", f"g/{script}", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == f"error: -o g/{script} is the grid's job script g/{script}; write the tree elsewhere\n"
    assert (tmp_path / "g" / script).read_bytes() == before


def test_collect_emit_final_ignores_a_linked_final_tree(tiny, tmp_path):
    """--emit-final writes no final_tree.json: a symbolic link there is not refused (the link refusal is for the
    in-process fit); here collect goes on to the table, whose tasks are not solved yet."""
    assert cli_here(*GRID, "-o", tmp_path / "g", cwd=tiny).returncode == 0
    (tmp_path / "g" / "final_tree.json").symlink_to(tmp_path / "elsewhere.json")
    r = cli_here("collect", "g", "--emit-final", cwd=tmp_path)
    assert r.returncode == 2 and "tasks: 0 of 2 scored" in r.stdout
    assert r.stderr.startswith("error: g: no C combination has every fold scored (0 of 2 tasks usable; "), r.stderr
    r = cli_here("collect", "g", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "") and "g/final_tree.json is a symbolic link" in r.stderr


@pytest.fixture(scope="module")
def solved(tiny, tmp_path_factory) -> Path:
    """A folder holding tiny.csv and grid g (2 folds, C 1) with both tasks solved by highs."""
    d = tmp_path_factory.mktemp("mut_solved")
    (d / "tiny.csv").write_text((tiny / "tiny.csv").read_text())
    assert cli_here(*GRID, "-o", "g", cwd=d).returncode == 0
    for task in ("0000", "0001"):
        r = cli_here("solve", f"g/tasks/{task}/model.mps", "--solver", "highs", "--threads", "1", "--quiet",
                     "-o", f"g/tasks/{task}/model.highs.sol", cwd=d)
        assert r.returncode == 0, r.stderr
    return d


def test_collect_quiet_hides_the_final_fits_log(solved):
    """collect --quiet leaves out the solver's log of the final fit, which collect shows by default; the tree goes
    to FOLDER/final_tree.json; C is chosen by balanced accuracy by default."""
    quiet = cli_here("collect", "g", "--quiet", "--time-limit", "10", cwd=solved)
    loud = cli_here("collect", "g", "--time-limit", "10", cwd=solved)
    assert quiet.returncode == loud.returncode == 0, quiet.stderr + loud.stderr
    assert "warm start objective" in loud.stdout + loud.stderr
    assert "warm start objective" not in quiet.stdout + quiet.stderr
    assert quiet.stdout.splitlines()[-1] == "tree written to g/final_tree.json"
    assert (solved / "g" / "final_tree.json").is_file()
    assert json.loads((solved / "g" / "cv_results.json").read_text())["scoring"] == "balanced_accuracy"  # default

