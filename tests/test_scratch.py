"""olctc's folders in the system's temporary folder: a killed process's are removed by the next olctc solve, a running
process's and everything else are left alone."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from olctc.scratch import MARK, PREFIXES, scratch_folder, sweep

PREFIX = "olctc-milp-"

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
    for var in ("TEMP", "TMP"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TMPDIR", str(root))
    return root


def _holder() -> tuple[subprocess.Popen, Path]:
    p = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None
    return p, Path(p.stdout.readline().strip())


def _killed_holder() -> Path:
    p, held = _holder()
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    return held


def _names(root: Path) -> list[str]:
    return sorted(os.listdir(root))


def _left(root: Path, name: str, *files: str, host: bytes | None = None) -> Path:
    """A folder as a killed olctc leaves it: ``files`` (empty) and the marker naming ``host`` (this machine)."""
    d = root / name
    d.mkdir()
    for f in files:
        (d / f).parent.mkdir(parents=True, exist_ok=True)
        (d / f).write_text("x")
    (d / MARK).write_bytes(socket.gethostname().encode() if host is None else host)
    return d


def test_a_killed_process_folder_is_removed_by_the_next_one(tmpdir_env):
    held = _killed_holder()
    assert sorted(os.listdir(held)) == [MARK, "model.mps"]  # os._exit / SIGKILL: nothing cleaned up
    with scratch_folder(PREFIX) as mine:
        assert not held.exists()
        assert mine.is_dir() and sorted(os.listdir(mine)) == [MARK]
    assert _names(tmpdir_env) == []


def test_every_kind_is_swept_by_every_kind_and_by_a_highs_solve(tmpdir_env):
    for prefix in PREFIXES:
        _left(tmpdir_env, prefix + "deadbeef", "model.mps")
    with scratch_folder("olctc-model-"):
        assert _names(tmpdir_env)[0].startswith("olctc-model-") and len(_names(tmpdir_env)) == 1
    for prefix in PREFIXES:
        _left(tmpdir_env, prefix + "deadbeef", "model.mps")
    # HiGHS takes arrays and makes no folder: its solve sweeps too (the default solver would leave them for good)
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.solve import solve_milp
    from olctc.spec import make_spec

    milp = compile_problem(load("heart"), make_spec("olct", 1)).milp
    assert solve_milp(milp, "highs", time_limit=5, verbose=False).x is not None
    assert _names(tmpdir_env) == []


def test_a_running_process_folder_is_left_alone(tmpdir_env):
    p, held = _holder()
    try:
        with scratch_folder(PREFIX) as mine:
            assert held.is_dir() and sorted(os.listdir(held)) == [MARK, "model.mps"]
        assert sweep() == []
        assert _names(tmpdir_env) == [held.name] and not mine.exists()
    finally:
        p.kill()
        p.wait(timeout=30)
    assert sweep() == [held]
    assert _names(tmpdir_env) == []


def test_what_olctc_did_not_mark_is_left_alone(tmpdir_env):
    root = tmpdir_env
    # an earlier olctc's folder (no mark), names that are not tempfile's, another prefix, a file, a link
    (root / f"{PREFIX}aaaaaaaa").mkdir()
    (root / f"{PREFIX}aaaaaaaa" / "model.mps").write_text("x")
    for name in (f"{PREFIX}bbbbbbbbb", f"{PREFIX}ccccccc", "olctc-other-dddddddd"):
        _left(root, name)
    (root / f"{PREFIX}eeeeeeee").write_text("a file")
    target = _left(root, "target")
    (root / f"{PREFIX}ffffffff").symlink_to(target)
    # a marker that is a link, a folder, or a FIFO (whose open would wait for a writer for ever)
    link = root / f"{PREFIX}gggggggg"
    link.mkdir()
    (link / MARK).symlink_to(target / MARK)
    (root / f"{PREFIX}hhhhhhhh" / MARK).mkdir(parents=True)
    (root / f"{PREFIX}iiiiiiii").mkdir()
    os.mkfifo(root / f"{PREFIX}iiiiiiii" / MARK)
    # another machine's (a file system shared by machines whose flocks are each their own)
    _left(root, f"{PREFIX}jjjjjjjj", "model.mps", host=b"another-host")
    before = _names(root)
    with scratch_folder(PREFIX):
        pass
    assert _names(root) == before
    assert (target / MARK).exists()


def test_a_removal_cut_short_is_finished_by_the_next_sweep(tmpdir_env):
    d = _left(tmpdir_env, PREFIX + "deadbeef", *[f"f{i:03d}" for i in range(200)], "sub/deeper/x")
    # the sweep was killed halfway: the marker goes last, so the rest is still recognised
    for i in range(100):
        (d / f"f{i:03d}").unlink()
    assert sweep() == [d] and not d.exists()


def test_read_only_subfolders_are_removed_and_linked_folders_keep_their_mode(tmpdir_env, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o755)
    (outside / "keep").write_text("x")
    d = _left(tmpdir_env, PREFIX + "deadbeef", "ro/inner/x")
    (d / "link").symlink_to(outside)
    (d / "ro" / "inner").chmod(0o500)
    (d / "ro").chmod(0o500)
    assert sweep() == [d] and not d.exists()
    assert (outside / "keep").exists() and (outside.stat().st_mode & 0o777) == 0o755


def test_what_cannot_be_removed_keeps_its_marker(tmpdir_env):
    """A file system mounted inside a leftover is not entered (rmtree went into it and emptied it); the folder
    keeps its marker, and a later sweep, once it is unmounted, removes it."""
    from conftest import tmpfs

    d = _left(tmpdir_env, PREFIX + "deadbeef", "model.mps")
    with tmpfs(d / "m") as mounted:
        (mounted / "data").write_text("someone's")
        assert sweep() == []
        assert (mounted / "data").read_text() == "someone's" and (d / MARK).exists()
    assert sweep() == [d] and not d.exists()


def test_a_full_temporary_folder_is_swept_before_the_next_folder_is_made(tmp_path, monkeypatch):
    """The sweep comes first: a temporary folder filled up by leftovers had no room for the folder whose making
    would have swept them (a tmpfs out of inodes: mkdtemp fails with ENOSPC)."""
    from conftest import tmpfs

    # 10 inodes: the root and three leftovers of three (folder, model, marker), nothing more
    with tmpfs(tmp_path / "t", "size=1m,nr_inodes=10") as root:
        monkeypatch.setattr(tempfile, "tempdir", str(root))
        monkeypatch.setenv("TMPDIR", str(root))
        left = [_left(root, f"{PREFIX}dead{i:04d}", "model.mps") for i in range(3)]
        with pytest.raises(OSError, match="No space left"):
            tempfile.mkdtemp()  # full
        with scratch_folder(PREFIX) as mine:
            assert not any(d.exists() for d in left) and _names(root) == [mine.name]
        assert _names(root) == []


def test_tmpdir_is_swept_where_tempfile_passed_it_over(tmpdir_env, tmp_path, monkeypatch):
    # tempfile.gettempdir() skips a $TMPDIR it cannot write a file in (full): the leftovers that filled it must go
    other = tmp_path / "full"
    other.mkdir()
    d = _left(other, PREFIX + "deadbeef", "model.mps")
    monkeypatch.setenv("TMPDIR", str(other))
    assert sweep() == [d]


def test_a_second_sweeper_leaves_a_folder_to_the_first(tmpdir_env):
    import fcntl

    d = _left(tmpdir_env, PREFIX + "deadbeef", "model.mps")
    fd = os.open(d / MARK, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a sweep in another process is removing it
        assert sweep() == [] and d.exists()
    finally:
        os.close(fd)


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


def test_an_interrupt_during_the_removal_leaves_nothing_and_is_raised_after(tmpdir_env, monkeypatch):
    """Ctrl-C pressed twice: the second interrupt cut tempfile's removal short after it had taken the marker, and
    the folder stayed for good (no sweep removes an unmarked folder; 3 runs in 30)."""
    import olctc.scratch as scratch

    real, calls = scratch._remove_contents, []

    def cut_short(folder):  # the second Ctrl-C, at the start of the removal
        calls.append(folder)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(folder)

    monkeypatch.setattr(scratch, "_remove_contents", cut_short)
    with pytest.raises(KeyboardInterrupt):
        with scratch_folder(PREFIX) as mine:
            (mine / "model.mps").write_text("x")
            raise KeyboardInterrupt  # the first
    assert len(calls) == 2 and _names(tmpdir_env) == []


def test_an_unmarked_folder_and_one_cut_short_after_its_marker_are_removed(tmpdir_env, monkeypatch):
    """Where no marker can be made (no flocks, no inode left) the folder holds no marker, and an interrupt between
    the marker's removal and the folder's leaves it empty: both stayed for good (no sweep removes them)."""
    import olctc.scratch as scratch

    monkeypatch.setattr(scratch, "mark_in_use", lambda fd: False)
    with scratch_folder(PREFIX) as mine:
        (mine / "model.mps").write_text("x")
        assert not (mine / MARK).exists()
    assert _names(tmpdir_env) == []
    monkeypatch.undo()
    real, calls = os.rmdir, []

    def cut_short(path, *args, **kwargs):  # Ctrl-C once the marker has gone
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "rmdir", cut_short)
    with pytest.raises(KeyboardInterrupt):
        with scratch_folder(PREFIX) as mine:
            (mine / "model.mps").write_text("x")
    assert len(calls) == 2 and _names(tmpdir_env) == []


def test_a_folder_removed_meanwhile_fails_nothing(tmpdir_env):
    import shutil

    with scratch_folder(PREFIX) as mine:
        shutil.rmtree(mine)
    assert _names(tmpdir_env) == []
