"""What `olctc compile` leaves on disk: file names, and no mix of two compiles after a failure."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.compile import compile_problem
from olctc.data import read_csv
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.pipeline import write_compiled
from olctc.read import read_solution
from olctc.spec import make_spec
from olctc.warmstart import warm_start

CSV = "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,1,y\n2,5,x\n6,3,y\n"


def olctc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *args], capture_output=True, text=True, cwd=cwd)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_failed_compile_leaves_none_of_its_files_and_the_earlier_ones_whole(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text(CSV)
    ds = read_csv(tmp_path / "t.csv", "label")
    write_compiled(compile_problem(ds, make_spec(depth=1)), tmp_path / "m.mps")
    earlier = _files(tmp_path)
    assert "m.olctc.json" in earlier and any(n.startswith("m.start.") for n in earlier)

    def broken(*a, **k):  # fails after the model and parameter files are written
        raise RuntimeError("MIP start failed")

    monkeypatch.setattr("olctc.pipeline.atomic_write_text", broken)  # which writes the start files
    with pytest.raises(RuntimeError, match="MIP start failed"):
        write_compiled(compile_problem(ds, make_spec(depth=1, C=5.0)), tmp_path / "m.mps")
    # the earlier set as it was: not its manifest and starts beside a new model (a failed recompile removed it all)
    assert _files(tmp_path) == earlier
    monkeypatch.undo()
    write_compiled(compile_problem(ds, make_spec(depth=1, C=5.0)), tmp_path / "m.mps", start=False)
    now = _files(tmp_path)  # the new set whole, without the earlier set's start files
    assert not any(n.startswith("m.start.") for n in now) and now["m.mps"] != earlier["m.mps"]
    assert sorted(now) == sorted(n for n in earlier if not n.startswith("m.start."))


def test_a_killed_compiles_hidden_folder_is_named_on_the_next_compile(tmp_path):
    # SIGKILL leaves the hidden folder the set is written in (443 MB of a6a at depth 2, in no listing)
    (tmp_path / "t.csv").write_text(CSV)
    ds = read_csv(tmp_path / "t.csv", "label")
    left = tmp_path / ".m.mps.0123456789ab.tmp"
    left.mkdir()
    (left / "m.mps").write_text("part of a model\n")
    (tmp_path / ".m.mps.ba9876543210.tmp").write_text("an atomic write's temporary file: another matter\n")
    (tmp_path / ".n.mps.0123456789ab.tmp").mkdir()  # another name's
    with pytest.warns(UserWarning) as seen:
        write_compiled(compile_problem(ds, make_spec(depth=1)), tmp_path / "m.mps")
    said = [str(w.message) for w in seen if "killed" in str(w.message)]
    assert said == [f"{left}: left by a compile of m.mps that was killed before it finished, or in use by one "
                    "running now; nothing else reads it: remove it once none is running"]
    assert left.is_dir()  # said, not removed: without a folder lock it could be another compile's


def test_a_compile_through_a_linked_model_writes_the_file_linked_to(tmp_path):
    # the set is written in a hidden folder and renamed into place, but a rename would replace the link itself
    import hashlib

    (tmp_path / "t.csv").write_text(CSV)
    ds = read_csv(tmp_path / "t.csv", "label")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "real.mps").write_text("an earlier model\n")
    (tmp_path / "m.mps").symlink_to(tmp_path / "elsewhere" / "real.mps")
    write_compiled(compile_problem(ds, make_spec(depth=1)), tmp_path / "m.mps")
    real = (tmp_path / "elsewhere" / "real.mps").read_bytes()
    assert (tmp_path / "m.mps").is_symlink() and real.startswith(b"NAME")
    assert json.loads((tmp_path / "m.olctc.json").read_text())["model"]["sha256"] == hashlib.sha256(real).hexdigest()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def _warm_start_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "olctc-warm-start"]


def test_the_starts_written_beside_the_model_are_the_warm_starts(tmp_path):
    # compile runs the greedy warm start on a thread of its own while it writes the model
    comp = compile_problem(load("heart"), make_spec("olct", 2))
    write_compiled(comp, tmp_path / "m.mps")
    assert not _warm_start_threads()
    x, info = warm_start(comp.milp, comp.X, comp.dataset.y, comp.spec)
    names = [str(n) for n in comp.milp.col_names()]
    written = read_solution(tmp_path / "m.start.highs.sol", "highs", col_names=names).values
    assert written == dict(zip(names, x.tolist()))  # HiGHS start files hold every value to the bit
    man = json.loads((tmp_path / "m.olctc.json").read_text())
    assert man["warm_start"]["objective"] == info["objective"] > 0
    assert np.isclose(info["objective"], comp.milp.objective(x))


def test_a_warm_start_failing_on_its_thread_raises_here_and_leaves_no_file(tmp_path):
    comp = compile_problem(load("heart"), make_spec("olct", 2))
    write_compiled(comp, tmp_path / "m.mps")
    earlier = _files(tmp_path)
    assert "m.start.highs.sol" in earlier
    # a spec the MILP was not built for: the warm start refuses it on its thread; the caller raises that once the
    # model is written
    wrong = dataclasses.replace(comp, spec=make_spec("olct", 3))
    with pytest.raises(OlctcError, match=r"the MILP's w block has shape \(3, \d+\); the spec \(depth 3"):
        write_compiled(wrong, tmp_path / "m.mps")
    assert _files(tmp_path) == earlier and not _warm_start_threads()


def test_each_write_of_one_compiled_records_its_own_files(tmp_path):
    """A Compiled written twice: the second manifest listed the first write's start and parameter files (a.*)
    and its warm start, though the second wrote none."""
    from olctc.pipeline import solve_compiled_file

    comp = compile_problem(load("haberman"), make_spec("olct", 1))
    write_compiled(comp, tmp_path / "a.mps")
    write_compiled(comp, tmp_path / "b.mps", start=False, params=False)
    write_compiled(comp, tmp_path / "c.mps", solvers="scip")
    a, b, c = (json.loads((tmp_path / f"{s}.olctc.json").read_text()) for s in "abc")
    assert sorted(a["files"]) == ["params", "start"] and "a.start.highs.sol" in str(a["files"])
    assert b["files"] == {} and "warm_start" not in b
    assert sorted(c["files"]["start"]) == ["scip"] and c["files"]["solvers"] == ["scip"]
    assert a["warm_start"] == c["warm_start"] and "solvers" not in a["files"]
    assert comp.manifest["model"]["file"] == "c.mps" and comp.manifest["files"] == c["files"]  # the last write's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # b's start is not a.start.highs.sol, nor missing: there is none
        res, _ = solve_compiled_file(tmp_path / "b.mps", "highs", verbose=False)
    assert res.status == "optimal"


def test_output_names(tmp_path):
    (tmp_path / "t.csv").write_text(CSV)
    res = olctc("compile", "t.csv", "--target", "label", "--depth", "1", "-o", "MODEL.MPS", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "MODEL.olctc.json" in names and "MODEL.gurobi.prm" in names  # not MODEL.MPS.olctc.json
    res = olctc("compile", "t.csv", "--target", "label", "--depth", "1", "-o", "données.mps", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "données.mps").read_text().splitlines()[0] == "NAME donn_es FREE"  # ASCII names only
    (tmp_path / "afile").write_text("")
    res = olctc("compile", "t.csv", "--target", "label", "--depth", "1", "-o", "afile/m.mps", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.strip() == "error: cannot write afile/m.mps: folder afile is not a folder"


def test_a_compile_that_takes_another_models_manifest_says_so(tmp_path):
    """m.mps then m.lp: the second compile replaced m.olctc.json and the start and parameter files without a
    word, and `olctc solve m.mps` then warned that they belong to m.lp. Its line also says the form."""
    (tmp_path / "t.csv").write_text(CSV)
    args = ("compile", "t.csv", "--target", "label", "--depth", "1")
    first = olctc(*args, "-o", "m.mps", cwd=tmp_path)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    assert ", the paper's form: " in first.stdout.splitlines()[0]
    again = olctc(*args, "--score-variables", "-o", "m.mps", cwd=tmp_path)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert ", score-variable form: " in again.stdout.splitlines()[0]
    other = olctc(*args, "-o", "m.lp", cwd=tmp_path)
    assert other.returncode == 0
    assert other.stderr == ("note: m.olctc.json, its MIP start and parameter files were those of m.mps, which is "
                            "left without them (solve it without its MIP start, or compile it again)\n")


def test_split_error_names_the_class_by_its_label(tmp_path):
    from olctc.fit import split

    (tmp_path / "t.csv").write_text("a,label\n1,x\n2,x\n3,x\n4,x\n5,rare\n")
    with pytest.raises(OlctcError, match="class 'rare' has 1 point"):
        split(read_csv(tmp_path / "t.csv", "label"), 0.2, 0)


def test_leftovers_are_only_those_of_the_very_name(tmp_path):
    """A name whose bytes are not UTF-8 kept only its valid ones in its temporary name, and a name cut to fit one
    matched every name cut the same way: another output's leftover was blamed on this one."""
    import os

    from olctc.io import leftovers, temporary_name

    odd = os.fsdecode(b"a\xffb.csv")
    with open(tmp_path / temporary_name(odd), "w"):
        pass
    assert leftovers(tmp_path / "ab.csv", False) == []
    assert leftovers(tmp_path / odd, False) == [os.fspath(tmp_path / n) for n in os.listdir(tmp_path)]
    long_a, long_b = "x" * 240 + "A.csv", "x" * 240 + "B.csv"
    with open(tmp_path / temporary_name(long_a), "w"):
        pass
    assert leftovers(tmp_path / long_b, False) == [] and leftovers(tmp_path / long_a, False) == []
    wide = "é" * 200  # 400 bytes: cut at a whole character, as before
    assert temporary_name(wide).startswith("." + "é" * 118 + ".") and len(os.fsencode(temporary_name(wide))) <= 255


def test_a_running_writers_temporary_file_is_no_leftover(tmp_path):
    """Two grids into one folder at once: the second warned that the first's stage was left by a killed grid and
    told to remove it. A writer marks its temporary file or folder while it runs (a shared flock)."""
    import os

    from olctc.io import leftovers, temporary_name

    left = tmp_path / temporary_name("p.csv")
    left.write_text("part\n")
    (tmp_path / temporary_name("g")).mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import os, sys
from olctc.io import in_use_while, mark_in_use
mark_in_use(os.open({str(left)!r}, os.O_RDONLY))  # as atomic_open marks its file
(stage,) = [n for n in os.listdir({str(tmp_path)!r}) if n.startswith(".g.")]
with in_use_while(os.path.join({str(tmp_path)!r}, stage)):  # as grid and bench report mark their stage
    print("held", flush=True)
    sys.stdin.readline()
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert leftovers(tmp_path / "p.csv", False) == [] and leftovers(tmp_path / "g", True) == []
    finally:
        holder.communicate("\n", timeout=60)
    assert leftovers(tmp_path / "p.csv", False) == [os.fspath(left)]  # its writer gone: a leftover
    assert len(leftovers(tmp_path / "g", True)) == 1


def test_a_temporary_file_removed_mid_write_is_a_one_line_error(tmp_path):
    """A cleaner of temporary folders that removes atomic_open's file while it is written: the rename raised
    FileNotFoundError naming the temporary file (a traceback from the CLI); now an OlctcError naming the file asked
    for and what happened, nothing left under either name (QA 2026-12-06)."""
    from olctc.io import atomic_open

    out = tmp_path / "tree.json"
    with pytest.raises(OlctcError) as err:
        with atomic_open(out) as fh:
            fh.write("{}")
            fh.flush()
            (tmp,) = [p for p in tmp_path.iterdir() if p.name != out.name]
            tmp.unlink()
    assert str(err.value) == f"cannot write {out}: its temporary file {tmp} was removed while it was written"
    assert list(tmp_path.iterdir()) == []
