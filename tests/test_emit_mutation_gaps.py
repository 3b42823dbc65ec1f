"""Gaps found by a mutation pass over the MPS/LP writers, start_tree, the Slurm scripts, io and the Python export.

Each test pins behaviour that a specific mutant of the code broke while the rest of the suite still passed
(named in its comment); none of them is a bug seen in olctc. Files are read back by HiGHS (highspy), CBC and
GLPK where a file is involved; generated code runs in a fresh interpreter.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from olctc.emit.lp import write_lp
from olctc.emit.mps import write_mps
from olctc.milp import MILP, Block
from olctc.start_tree import label_key, start_trees, start_weights
from olctc.tree import Tree
from test_emit_writers import highs_read

INF = np.inf
CBC = "/usr/bin/cbc"
GLPSOL = "/usr/bin/glpsol"
need_cbc = pytest.mark.skipif(not os.path.exists(CBC), reason="no /usr/bin/cbc")
need_glpk = pytest.mark.skipif(not os.path.exists(GLPSOL), reason="no /usr/bin/glpsol")


def _milp(c, A, sense, rhs, lb, ub, integer, name="t") -> MILP:
    c = np.asarray(c, dtype=float)
    A = sp.csr_matrix(np.asarray(A, dtype=float))
    m, n = A.shape
    return MILP(name, c, A, np.asarray(sense, dtype="U1"), np.asarray(rhs, dtype=float),
                np.asarray(lb, dtype=float), np.asarray(ub, dtype=float), np.asarray(integer, dtype=bool),
                (Block("x", 0, (n,), ("i",), (tuple(range(n)),)),), (Block("r", 0, (m,), ("i",), (tuple(range(m)),)),))


def _highs_optimum(path) -> float:
    h = highs_read(path)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value


def _cbc_optimum(path, tmp_path) -> float:
    out = tmp_path / (path.name + ".cbc.txt")
    subprocess.run([CBC, str(path), "-solve", "-solu", str(out)], check=True, capture_output=True, timeout=60)
    first = out.read_text().splitlines()[0]
    assert first.startswith("Optimal"), first
    return float(first.rsplit(" ", 1)[1])


def _glpk_optimum(path, tmp_path) -> float:
    out = tmp_path / (path.name + ".glpk.txt")
    fmt = "--freemps" if path.suffix == ".mps" else "--lp"
    r = subprocess.run([GLPSOL, fmt, str(path), "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    return float(re.search(r"Objective:\s+\S+ = (\S+)", out.read_text()).group(1))


# ------------------------------------------------------------------ MPS / LP: integer column, negative lower bound

@need_cbc
@need_glpk
@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_an_integer_column_in_minus_one_to_one_is_not_written_as_binary(fmt, tmp_path):
    # Pins mutants that took an integer column with bounds [-1, 1] for a binary (BV in MPS; no Bounds line,
    # default [0, inf) in LP): every reader then finds the optimum 0 instead of -1.
    p = _milp([1.0, 1.0], [[1.0, 1.0]], ["L"], [5.0], [-1.0, 0.0], [1.0, 3.0], [True, True])
    path = tmp_path / f"m.{fmt}"
    (write_mps if fmt == "mps" else write_lp)(p, path)
    lp = highs_read(path).getLp()
    assert list(lp.col_lower_) == [-1.0, 0.0] and list(lp.col_upper_) == [1.0, 3.0]
    assert [v == highspy.HighsVarType.kInteger for v in lp.integrality_] == [True, True]
    assert _highs_optimum(path) == -1.0
    assert _cbc_optimum(path, tmp_path) == -1.0
    assert _glpk_optimum(path, tmp_path) == -1.0


def test_mps_integer_block_at_the_last_column_is_closed(tmp_path):
    # Pins a mutant that dropped the closing INTEND marker when the last column is integer (the marker after
    # the last COLUMNS line): the documented layout puts every integer run between INTORG and INTEND.
    p = _milp([1.0, -1.0, -1.0], [[1.0, 1.0, 1.0]], ["L"], [2.5], [0.0, 0.0, 0.0], [INF, 4.0, 4.0],
              [False, True, True])
    path = tmp_path / "m.mps"
    write_mps(p, path)
    lines = path.read_text().splitlines()
    columns = lines[lines.index("COLUMNS") + 1:lines.index("RHS")]
    assert columns[0].split() == ["x_0", "OBJ", "1"]
    assert columns[2] == "    MARKER0000  'MARKER'                 'INTORG'"
    assert columns[-1] == "    MARKER0001  'MARKER'                 'INTEND'"
    assert [ln for ln in lines if "MARKER" in ln] == [columns[2], columns[-1]]
    assert [v == highspy.HighsVarType.kInteger for v in highs_read(path).getLp().integrality_] == [False, True, True]
    assert _highs_optimum(path) == -2.0


# ------------------------------------------------------------------ start_tree

def _tree3() -> Tree:
    return Tree.from_arrays(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.zeros(3), feature_names=["a", "b"],
                            classes=(0, 1))


def test_a_kept_node_one_past_the_last_is_passed_over():
    # Pins a mutant that accepted node id == n_nodes in meta.refine.nodes_refit (<= instead of <): the hand-edited
    # record then raised IndexError instead of being passed over.
    t = _tree3()
    t.meta = {"refine": {"nodes_refit": [3], "before": {"W": [[5.0, 0.0]], "b": [1.0]}}}
    kept = start_trees(t)
    assert len(kept) == 1 and kept[0] is t
    t.meta = {"refine": {"nodes_refit": [2], "before": {"W": [[5.0, 0.0]], "b": [1.0]}}}
    got = start_trees(t)
    assert len(got) == 2 and got[1].W.tolist() == [[1.0, 0.0], [0.0, 1.0], [5.0, 0.0]]


def test_float_class_labels_match_the_integer_classes_of_a_tree():
    # Pins a mutant that stopped reading 1.0 as 1 in label_key: a tree of classes (0, 1) was then refused as a
    # start for data whose classes are (0.0, 1.0).
    from olctc.data import Column, Scaler, Schema
    from olctc.spec import make_spec

    assert label_key(1.0) == label_key(1) == label_key(True) == label_key("1") == "1"
    assert label_key(0.0) == "0" and label_key(2.5) == "2.5"
    schema = Schema((Column("a", "numeric"), Column("b", "numeric")))
    W, b = start_weights(_tree3(), schema, Scaler(np.zeros(2), np.ones(2)), (0.0, 1.0), make_spec(depth=2))
    assert W.tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] and b.tolist() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------ Slurm scripts

def test_a_grid_of_one_task_more_than_an_array_gets_a_second_array():
    # Pins a mutant whose loop over arrays stopped one task early (range(0, n - 1, 1000)): a grid of 1001 tasks
    # got one script, and task 1000 was never submitted.
    from olctc.cluster.slurm import submit_scripts

    assert submit_scripts(1001) == [("submit.slurm", 0, 1000), ("submit-1000.slurm", 1000, 1)]
    assert submit_scripts(1000) == [("submit.slurm", 0, 1000)]
    assert submit_scripts(2001)[-1] == ("submit-2000.slurm", 2000, 1)


def test_array_index_zero_of_a_second_array_runs_its_first_task(tmp_path):
    # Pins a mutant of run_task "$(( first + index - 1 ))": index 0 of submit-1000.slurm ran task 999 (already
    # another array's) and the last task of the array never ran. The script runs under bash, as sbatch would.
    from olctc.cluster.slurm import SlurmOptions, slurm_script

    rows = ["id\tdepth\tC\tfold\tsolution\tcommand\tgurobi_command"]
    for k in (999, 1000, 1001):
        (tmp_path / f"t{k}").mkdir()
        rows.append(f"{k}\t1\t1\t0\tt{k}/model.sol\techo ran {k} >> ran.txt\tfalse")
    (tmp_path / "jobs.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "submit-1000.slurm").write_text(slurm_script(1002, 60, SlurmOptions(job_name="x"), first=1000))
    for index in ("0", "1"):
        env = {**os.environ, "SLURM_ARRAY_TASK_ID": index, "SLURM_SUBMIT_DIR": str(tmp_path)}
        r = subprocess.run(["bash", "submit-1000.slurm"], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "ran.txt").read_text() == "ran 1000\nran 1001\n"


def test_slurm_time_rounds_a_fraction_of_a_second_up():
    # Pins a mutant that truncated the job time (int() instead of ceil): 300.25 s became 00:05:00, less than the
    # solve limit plus margin.
    from olctc.cluster.slurm import SlurmOptions, _slurm_time, slurm_script

    assert _slurm_time(300.25) == "00:05:01" and _slurm_time(300.0) == "00:05:00"
    assert _slurm_time(86400.5) == "1-00:00:01"
    assert "#SBATCH --time=00:05:01\n" in slurm_script(3, 0.25, SlurmOptions(job_name="x"))


def test_submit_sh_passes_an_option_with_a_space_as_one_word(tmp_path):
    # Pins a mutant that dropped the quotes of "$@" in submit.sh: `bash submit.sh --comment="two words"` gave
    # sbatch the words --comment=two and words (a script named "words" to submit). A fake sbatch records argv.
    from olctc.cluster.slurm import submit_all_script

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "sbatch"
    fake.write_text('#!/bin/bash\nfor a in "$@"; do printf "[%s]" "$a"; done >> "$SBATCH_LOG"; echo >> "$SBATCH_LOG"\n')
    fake.chmod(0o755)
    grid = tmp_path / "g"
    grid.mkdir()
    (grid / "submit.slurm").write_text("#!/bin/bash\n")
    (grid / "submit.sh").write_text(submit_all_script(1))
    log = tmp_path / "argv.txt"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SBATCH_LOG": str(log)}
    r = subprocess.run(["bash", str(grid / "submit.sh"), "--comment=two words", "--wait"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert log.read_text() == "[--comment=two words][--wait][submit.slurm]\n"


@pytest.mark.skipif(not __import__("shutil").which("flock"), reason="no flock(1)")
def test_run_local_leaves_a_task_another_run_holds(tmp_path):
    # Pins a mutant that read flock's conflict status wrong (76 for its -E 75): a task whose run.lock another
    # runner holds was solved a second time. This process holds the lock; run_local.sh must skip that task only.
    import fcntl

    from olctc.cluster.slurm import local_script

    rows = ["id\tdepth\tC\tfold\tsolution\tcommand\tgurobi_command"]
    for k in (0, 1):
        (tmp_path / f"t{k}").mkdir()
        rows.append(f"{k}\t1\t1\t0\tt{k}/model.sol\techo ran {k} >> ran.txt\tfalse")
    (tmp_path / "jobs.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "run_local.sh").write_text(local_script())
    fd = os.open(tmp_path / "t0" / "run.lock", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = subprocess.run(["bash", "run_local.sh"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    finally:
        os.close(fd)
    assert r.returncode == 0, r.stderr
    assert "task 0: running in another process, skipped" in r.stdout
    assert (tmp_path / "ran.txt").read_text() == "ran 1\n"


# ------------------------------------------------------------------ io: temporary files and leftovers

def test_a_file_being_written_is_no_leftover_until_its_writer_dies(tmp_path):
    # Pins a mutant that no longer marked atomic_open's temporary file in use (mark_in_use dropped): leftovers()
    # then named the file a running write was filling as one a killed write left behind.
    from olctc.io import atomic_open, leftovers

    target = tmp_path / "model.mps"
    with atomic_open(target, "w") as fh:
        fh.write("x")
        assert leftovers(target, False) == []
        tmp = fh.name
    assert target.read_text() == "x" and not os.path.exists(tmp)
    dead = tmp_path / ".model.mps.0123456789ab.tmp"  # a write killed outright: nobody holds its lock
    dead.write_text("half")
    assert leftovers(target, False) == [os.fspath(dead)]


def test_only_hidden_tmp_names_are_temporary_and_a_grid_refuses_other_files(tmp_path):
    # Pins a mutant of is_temporary_name ("." or ".tmp" instead of both): a folder holding the user's notes.tmp or
    # .config passed as empty, and a grid was written over it.
    from olctc.cluster.grid import check_grid_folder
    from olctc.errors import OlctcError
    from olctc.io import is_temporary_name

    assert is_temporary_name(".model.mps.0123456789ab.tmp")
    assert not is_temporary_name("notes.tmp") and not is_temporary_name(".config")
    for name in ("notes.tmp", ".config"):
        folder = tmp_path / name.strip(".")
        folder.mkdir()
        (folder / name).write_text("mine")
        with pytest.raises(OlctcError, match="is not empty and holds no grid"):
            check_grid_folder(folder)
    ok = tmp_path / "ok"
    ok.mkdir()
    (ok / ".g.0123456789ab.tmp").write_text("")
    check_grid_folder(ok)


def test_an_interrupt_recorded_during_a_write_keeps_the_file_out(tmp_path):
    # Pins a mutant that renamed the temporary file into place before checking for a recorded interrupt: a write
    # Ctrl-C cut (an interrupt Python dropped, recorded by note_interrupt) still committed its file.
    from olctc.io import atomic_open
    from olctc.process_state import note_interrupt

    target = tmp_path / "tree.json"
    try:
        with pytest.raises(KeyboardInterrupt):
            with atomic_open(target, "w") as fh:
                fh.write("{}")
                note_interrupt(True)
    finally:
        note_interrupt(False)
    assert os.listdir(tmp_path) == []


def test_folder_lock_is_exclusive_and_a_second_holder_waits(tmp_path):
    # Pins a mutant that took folder_lock's flock shared: a second compile into the folder took it at once (no
    # "waiting" call) and both wrote their sets of files together.
    import fcntl
    import threading

    from olctc.io import folder_lock

    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        with folder_lock(tmp_path):
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # free once the block is over
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
    events, held, release = [], threading.Event(), threading.Event()

    def holder():
        with folder_lock(tmp_path):
            held.set()
            release.wait(30)
            events.append("released")

    th = threading.Thread(target=holder)
    th.start()
    assert held.wait(30)
    with folder_lock(tmp_path, waiting=lambda: (events.append("waiting"), release.set())):
        events.append("second")
    th.join(30)
    assert events == ["waiting", "released", "second"]


# ------------------------------------------------------------------ the exported Python module

def test_exported_python_predicts_the_first_class_at_a_score_of_exactly_zero(tmp_path):
    # Pins a mutant of the generated predict (>= 0 instead of > 0): a row whose last-layer score is exactly 0 got
    # CLASSES[1], where olctc's Tree.predict gives CLASSES[0]. The module runs in a fresh interpreter.
    from olctc.export.python import to_python

    tree = Tree.from_arrays(np.array([[1.0], [0.5], [1.0]]), np.array([-1.0, 0.25, -2.0]), feature_names=["a"],
                            classes=("no", "yes"))
    (tmp_path / "exported_tree.py").write_text(to_python(tree))
    code = ("import json, exported_tree as m\n"
            "print(json.dumps([[m.apply([v]), m.decision_function([v]), m.predict([v]), m.predict_proba([v])]"
            " for v in (2.0, 1.0, 3.0)]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('[[2, 0.0, "no", [0.5, 0.5]], [1, 0.75, "yes", [0.320821300824607, 0.679178699175393]], '
                        '[2, 1.0, "yes", [0.2689414213699951, 0.7310585786300049]]]\n')
    X = np.array([[2.0], [1.0], [3.0]])
    assert tree.predict(X).tolist() == ["no", "yes", "yes"]


def test_exported_python_refuses_nan_in_a_categorical_column(tmp_path):
    # Pins a mutant of the generated _category that took only None as missing: NaN (and pandas' NaT) became the
    # category "nan", silently encoded as unseen, where Tree.predict raises. Run in a fresh interpreter.
    from olctc.data import Column, Schema
    from olctc.export.python import to_python

    schema = Schema((Column("colour", "categorical", ("blue", "red")),))
    tree = Tree.from_arrays(np.array([[2.0, -1.0]]), np.array([0.5]), schema=schema, classes=(0, 1))
    (tmp_path / "exported_tree.py").write_text(to_python(tree))
    code = ("import exported_tree as m\n"
            "print(m.decision_function({'colour': 'blue'}), m.decision_function({'colour': 'green'}))\n"
            "for v in (float('nan'), None):\n"
            "    try:\n        m.predict({'colour': v})\n    except ValueError as e:\n        print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["2.5 0.5",
                                     "column 0 ('colour') must be a category, got the missing value nan",
                                     "column 0 ('colour') must be a category, got the missing value None"]
