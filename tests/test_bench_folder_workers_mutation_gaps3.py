"""Third mutation pass over the bench folder (olctc.bench.folder) and the run processes (olctc.bench.workers),
QA 2026-12-07: the mutants pass 2 wrote but did not run. Each test pins a behaviour that a hand-made mutant broke
while the bench tests passed; the comments name the mutants (none was a bug seen in olctc). Real folders, a real
full file system (a tmpfs), real child processes and signals."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import tmpfs
from olctc.bench import folder as bench_folder
from olctc.bench.workers import run_isolated
from olctc.errors import OlctcError
from test_bench_folder_mutation_gaps import _cart, _open, _record
from test_bench_folder_workers_mutation_gaps2 import _gone, _note


# ---- folder.py ---------------------------------------------------------------------------------------------------

def test_a_test_score_without_its_training_score_is_no_record() -> None:
    """A finished run states both scores: a line with the test score but no training score key is skipped (the
    report crashed on the missing one); a training score of null is still a record."""
    # Mutant: the train_balanced_accuracy presence check dropped.
    rec = _record()
    del rec["train_balanced_accuracy"]
    assert not bench_folder.is_record(rec)
    assert bench_folder.is_record(_record(train_balanced_accuracy=None))


def test_the_check_under_the_lock_refuses_a_folder_that_became_foreign(tmp_path: Path) -> None:
    """The folder is checked again once held (``_prepare_folder``): files another program put there between the first
    look and the lock make it someone else's, and no bench.json is written into it."""
    # Mutant: the second look took the names without _contents' check (bench.json written beside their files).
    d = tmp_path / "b"
    d.mkdir()
    (d / "notes.txt").write_text("mine")
    with pytest.raises(OlctcError, match=r"is not a bench folder \(no bench.json\) and is not empty"):
        bench_folder._prepare_folder(d, _cart())
    assert sorted(p.name for p in d.iterdir()) == ["notes.txt"]


def test_a_first_record_that_finds_the_disk_full_leaves_no_runs_file(tmp_path: Path) -> None:
    """A first append on a full disk fails with a one-line error naming runs.jsonl, and takes back the empty file
    it created: the folder is left as it was (no empty runs.jsonl)."""
    # Mutant: the unlink of a runs file this append created dropped (an empty runs.jsonl left behind).
    with tmpfs(tmp_path / "m", "size=64k") as m:
        d = m / "b"
        _open(d, _cart())
        before = sorted(p.name for p in d.iterdir())
        fill = subprocess.run(["dd", "if=/dev/zero", f"of={m / 'fill'}", "bs=4k"], capture_output=True)
        assert b"No space left" in fill.stderr
        with pytest.raises(OlctcError, match=r"cannot write .*runs.jsonl: No space left on device \(the runs"):
            bench_folder.append_records(d, [_record()])
        assert sorted(p.name for p in d.iterdir()) == before and "runs.jsonl" not in before


# ---- workers.py: real child processes ----------------------------------------------------------------------------

def _stubborn(task: dict) -> list:
    """Ignore SIGTERM (a solver deep in a C call), note this process's id in ``task["note"]`` and hang; with
    ``task["notes"]``, wait until all those notes exist and return."""
    if "notes" in task:
        while not all(Path(n).exists() for n in task["notes"]):
            time.sleep(0.01)
        return [{"task": task["n"]}]
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _note(task["note"], str(os.getpid()))
    time.sleep(60)
    return []


STUBBORN = 14


def test_an_interrupt_gives_all_stubborn_runs_one_grace_period_together(tmp_path: Path) -> None:
    """Interrupted, the bench gives its runs one STOP_GRACE (0.5 s) in all before SIGKILL, not one per run: with 14
    runs ignoring SIGTERM it is gone within seconds, and so are they."""
    # Mutant: each stubborn run joined for the whole grace in turn (14 x 0.5 s = 7 s).
    notes = [str(tmp_path / f"note{i}") for i in range(STUBBORN)]
    tasks = [{"n": i, "note": n} for i, n in enumerate(notes)] + [{"n": STUBBORN, "notes": notes}]
    stopped: list[float] = []

    def keep(recs: list) -> None:
        stopped.append(time.monotonic())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_isolated(tasks, len(tasks), _stubborn, lambda t: 120.0, lambda *a: [], keep)
    took = time.monotonic() - stopped[0]
    pids = [int(Path(n).read_text()) for n in notes]
    try:
        assert all(_gone(pid) for pid in pids)
        assert took < 4.5, took  # one grace of 0.5 s, then SIGKILL; the mutant's 7 s (14 x 0.5) is out of reach
    finally:
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def _wait_for_go(task: dict) -> list:
    """Note this process's id in ``task["note"]``, wait for the file ``task["go"]``, and return."""
    _note(task["note"], str(os.getpid()))
    while not Path(task["go"]).exists():
        time.sleep(0.01)
    return [{"task": task["n"], "status": "optimal"}]


def test_a_spawned_run_ignores_a_ctrl_c_of_its_own(tmp_path: Path, monkeypatch) -> None:
    """A run ignores SIGINT (Ctrl-C reaches the whole process group; the bench owns it and stops its runs itself): a
    SIGINT to a run alone leaves it to finish with its records. Spawned runs (a temporary folder too long for the fork
    server's socket) start with Python's own SIGINT handler, which a fork server's children do not inherit."""
    # Mutant: _child without its SIGINT ignore: the spawned run died of KeyboardInterrupt, an "error" record.
    import tempfile
    import threading

    long_tmp = tmp_path / ("t" * 100)
    long_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_tmp))
    note, go = tmp_path / "note", tmp_path / "go"

    def interrupt_then_go() -> None:
        end = time.monotonic() + 120
        while not note.exists() and time.monotonic() < end:
            time.sleep(0.01)
        if note.exists():
            os.kill(int(note.read_text()), signal.SIGINT)
            time.sleep(0.5)
        go.touch()

    helper = threading.Thread(target=interrupt_then_go)
    helper.start()
    kept: list = []
    try:
        run_isolated([{"n": 1, "note": str(note), "go": str(go)}], 1, _wait_for_go, lambda t: 120.0,
                     lambda t, status, why, wall: [{"task": t["n"], "status": status, "error": why}], kept.extend)
    finally:
        go.touch()
        helper.join()
    assert kept == [{"task": 1, "status": "optimal"}]
