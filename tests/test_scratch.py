"""olctc's folders in the system's temporary folder: a killed process's are removed by the next olctc that makes one,
a running process's and everything else are left alone."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from olctc.scratch import MARK, scratch_folder, sweep

PREFIX = "olctc-test-"

HOLD = f"""
import sys, time
from olctc.scratch import scratch_folder
with scratch_folder({PREFIX!r}) as d:
    (d / "model.mps").write_text("x")
    print(d, flush=True)
    time.sleep(600)
"""


@pytest.fixture
def tmpdir_env(tmp_path, monkeypatch):
    """The system's temporary folder is ``tmp_path/t``, for this process and the ones it starts: no other test's
    folders are in sight."""
    root = tmp_path / "t"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))
    return root


def _holder() -> tuple[subprocess.Popen, Path]:
    p = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None
    return p, Path(p.stdout.readline().strip())


def _names(root: Path) -> list[str]:
    return sorted(os.listdir(root))


def test_a_killed_process_folder_is_removed_by_the_next_one(tmpdir_env):
    p, held = _holder()
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert sorted(os.listdir(held)) == [MARK, "model.mps"]  # os._exit / SIGKILL: nothing cleaned up
    with scratch_folder(PREFIX) as mine:
        assert not held.exists()
        assert mine.is_dir() and sorted(os.listdir(mine)) == [MARK]
    assert _names(tmpdir_env) == []


def test_a_running_process_folder_is_left_alone(tmpdir_env):
    p, held = _holder()
    try:
        with scratch_folder(PREFIX) as mine:
            assert held.is_dir() and sorted(os.listdir(held)) == [MARK, "model.mps"]
        assert sweep(PREFIX) == []
        assert _names(tmpdir_env) == [held.name] and not mine.exists()
    finally:
        p.kill()
        p.wait(timeout=30)
    assert sweep(PREFIX) == [held]
    assert _names(tmpdir_env) == []


def test_what_olctc_did_not_mark_is_left_alone(tmpdir_env):
    root = tmpdir_env
    # an earlier olctc's folder (no mark), names that are not tempfile's, another prefix, a file, a link
    (root / f"{PREFIX}aaaaaaaa").mkdir()
    (root / f"{PREFIX}aaaaaaaa" / "model.mps").write_text("x")
    for name in (f"{PREFIX}bbbbbbbbb", f"{PREFIX}ccccccc", "olctc-other-dddddddd"):
        (root / name).mkdir()
        (root / name / MARK).write_text("")
    (root / f"{PREFIX}eeeeeeee").write_text("a file")
    target = root / "target"
    target.mkdir()
    (target / MARK).write_text("")
    (root / f"{PREFIX}ffffffff").symlink_to(target)
    before = _names(root)
    with scratch_folder(PREFIX):
        pass
    assert _names(root) == before
    assert (target / MARK).exists()


def _kill_once_marked(cmd: list[str], root: Path, prefixes: list[str]) -> list[Path]:
    """Run ``cmd`` and SIGKILL it a second after it has marked a folder of each of ``prefixes`` in ``root``;
    those folders."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    left: list[Path] = []
    while len(left) < len(prefixes):
        assert p.poll() is None and time.monotonic() < deadline, f"{cmd[3]} ended before its solve: {p.stderr}"
        left = [d for d in root.iterdir() if (d / MARK).exists()]
        time.sleep(0.05)
    time.sleep(1.0)  # into the solve
    p.send_signal(signal.SIGKILL)
    p.communicate(timeout=30)
    assert sorted(d.name[:-8] for d in left) == prefixes
    assert all(d.is_dir() for d in left)
    return left


def _olctc(*args) -> list[str]:
    return [sys.executable, "-m", "olctc.cli", *map(str, args)]


def test_a_fit_killed_in_its_solve_leaves_its_model_until_the_next_solve(tmpdir_env, tmp_path):
    """The case that counts: a bench run stopped at its hard limit (SIGKILL) in CBC's solve left the model file,
    157 MB for phishing at depth 2, on every kill."""
    left = _kill_once_marked(_olctc("fit", "--dataset", "breast", "--depth", "3", "--solver", "cbc", "--time-limit",
                                    "60", "-o", tmp_path / "tree.json"), tmpdir_env, ["olctc-milp-"])
    assert (left[0] / "model.mps").is_file()
    r = subprocess.run(_olctc("fit", "--dataset", "heart", "--depth", "1", "--solver", "cbc", "--time-limit", "20",
                              "--quiet", "-o", tmp_path / "heart.json"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _names(tmpdir_env) == []


def test_a_solve_by_a_solver_program_killed_leaves_its_folders_until_the_next_one(tmpdir_env, tmp_path):
    """olctc solve --solver cbc-cli: the CBC program dies with olctc (setpriv), its working folder and the one its
    solution file is staged in stay behind."""
    from conftest import cli_here

    assert cli_here("compile", "--dataset", "breast", "--depth", "3", "-o", "m.mps", cwd=tmp_path).returncode == 0
    _kill_once_marked(_olctc("solve", tmp_path / "m.mps", "--solver", "cbc-cli", "--time-limit", "60", "-o",
                             tmp_path / "m.cbc.sol"), tmpdir_env, ["olctc-solution-", "olctc-solve-"])
    assert cli_here("compile", "--dataset", "heart", "--depth", "1", "-o", "h.mps", cwd=tmp_path).returncode == 0
    r = subprocess.run(_olctc("solve", tmp_path / "h.mps", "--solver", "cbc-cli", "--time-limit", "20", "-o",
                              tmp_path / "h.cbc.sol"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert _names(tmpdir_env) == []


def test_a_folder_removed_meanwhile_fails_nothing(tmpdir_env):
    import shutil

    with scratch_folder(PREFIX) as mine:
        shutil.rmtree(mine)
    assert _names(tmpdir_env) == []
