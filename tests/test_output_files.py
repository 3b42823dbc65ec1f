"""What `olctc compile` leaves on disk: file names, and no mix of two compiles after a failure."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from olctc.compile import compile_problem
from olctc.data import read_csv
from olctc.errors import OlctcError
from olctc.pipeline import write_compiled
from olctc.spec import make_spec

CSV = "a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,1,y\n2,5,x\n6,3,y\n"


def olctc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_a_failed_compile_leaves_neither_its_files_nor_the_earlier_ones(tmp_path, monkeypatch):
    (tmp_path / "t.csv").write_text(CSV)
    ds = read_csv(tmp_path / "t.csv", "label")
    write_compiled(compile_problem(ds, make_spec(depth=1)), tmp_path / "m.mps")
    earlier = sorted(p.name for p in tmp_path.iterdir())
    assert "m.olctc.json" in earlier and any(n.startswith("m.start.") for n in earlier)

    def broken(*a, **k):  # fails after the model and parameter files are written
        raise RuntimeError("MIP start failed")

    monkeypatch.setattr("olctc.emit.start.write_start", broken)
    with pytest.raises(RuntimeError, match="MIP start failed"):
        write_compiled(compile_problem(ds, make_spec(depth=1, C=5.0)), tmp_path / "m.mps")
    # not the earlier manifest and start files beside a new (or no) model: nothing of either
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


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
