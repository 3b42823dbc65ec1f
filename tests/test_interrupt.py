"""Interrupting olctc (SIGTERM, as a scheduler or `timeout` would) leaves no file under a final name."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def run_and_kill(args: list[str], folder: Path, after: float) -> tuple[int, str]:
    p = subprocess.Popen([sys.executable, "-m", "olctc.cli", *args], cwd=folder, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    return p.returncode, err


@pytest.mark.parametrize("after", [3.0, 6.0])
def test_compile_killed_midway_leaves_nothing(tmp_path, after):
    # a6a depth 2 takes well over 6 s to compile with its warm start: the kill lands mid-way
    code, err = run_and_kill(["compile", "--dataset", "a6a", "--depth", "2", "-o", "a6a.mps"], tmp_path, after)
    assert code == 130 and err.strip().endswith("interrupted") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_fit_killed_during_solve_writes_no_tree(tmp_path):
    code, err = run_and_kill(["fit", "--dataset", "heart", "--solver", "highs", "--time-limit", "40", "--quiet",
                              "-o", "tree.json"], tmp_path, 5.0)
    assert code == 130 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_fit_killed_with_keep_incumbent_writes_the_best_tree(tmp_path):
    code, err = run_and_kill(["fit", "--dataset", "heart", "--solver", "highs", "--time-limit", "40", "--quiet",
                              "--keep-incumbent", "-o", "tree.json"], tmp_path, 5.0)
    assert code == 0, err
    from olctc.export.json import load

    tree = load(tmp_path / "tree.json")
    assert tree.meta["fit"]["raw_status"] == "Interrupted by user"
    assert [p.name for p in tmp_path.iterdir()] == ["tree.json"]
