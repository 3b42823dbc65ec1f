"""Second mutation pass over the bench folder (olctc.bench.folder) and the run processes (olctc.bench.workers),
QA 2026-12-07. Each test pins a behaviour that a hand-made mutant broke while the bench tests passed; the comments
name the mutants (none was a bug seen in olctc). Real folders and files, real child processes and signals; the only
stand-in is a failing fsync (a disk error cannot be provoked on demand)."""
from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.bench import folder as bench_folder
from olctc.bench.workers import PRELOAD, run_isolated, socket_fits
from olctc.errors import OlctcError
from olctc.scratch import scratch_folder
from test_bench_folder_mutation_gaps import _cart, _open, _record
from test_bench_workers import _isolated
from test_scratch import tmpdir_env  # noqa: F401  (a fixture: the temporary folder is the test's own)


def _names(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def _edit_bench_json(d: Path, **options: Any) -> None:
    """Set ``options`` in the options of ``d``'s bench.json (as an edit or an older olctc would have written them)."""
    meta = json.loads((d / "bench.json").read_text())
    meta["options"].update(options)
    (d / "bench.json").write_text(json.dumps(meta))


# ---- folder.py: taking, refusing and checking the folder ---------------------------------------------------------

def test_a_refused_resume_and_a_foreign_folder_keep_their_files(tmp_path: Path) -> None:
    """Nothing is deleted in a folder bench refuses: a bench's keeps its lock file; a folder of someone else's files
    gets no lock file at all (it is refused before the lock is taken)."""
    # Mutants: the failure cleanup ran whether or not bench.json existed (it unlinked a refused bench's bench.lock);
    # the first _contents check dropped (bench.lock made in the foreign folder, then refused under the lock).
    d = tmp_path / "b"
    _open(d, _cart())
    with pytest.raises(OlctcError, match="was started with other options"):
        _open(d, _cart(seeds="1"))
    assert _names(d) == ["bench.json", "bench.lock"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OlctcError, match="is not a bench folder"):
        _open(other, _cart())
    assert _names(other) == ["notes.txt"]


def test_the_first_differing_option_in_name_order_is_named(tmp_path: Path) -> None:
    """With several options changed the message names the first by option name (seeds before time_limit)."""
    # Mutant: diff[-1]: the message named --time-limit.
    d = tmp_path / "b"
    _open(d, _cart())
    with pytest.raises(OlctcError, match=r"other options \(--seeds: 0 there, 1 now\)"):
        _open(d, _cart(seeds="1", time_limit=7))


def test_options_written_at_their_default_resume(tmp_path: Path) -> None:
    """A bench.json stating an option at its default (an older olctc wrote them all) is the bench that leaves
    them out: it resumes; a value other than the default is still refused."""
    # Mutants: OPTION_DEFAULTS not applied in _option_key; the default of threads not THREADS.
    d = tmp_path / "b"
    _open(d, _cart())
    _edit_bench_json(d, authors_split=False, threads=1, class_weight=None, score_variables=False, min_leaf=0,
                     smooth_pure_nodes=False)
    _open(d, _cart())
    _edit_bench_json(d, min_leaf=3)
    with pytest.raises(OlctcError, match=r"\(--min-leaf: 3 there, 0 now\)"):
        _open(d, _cart())


def test_fixed_C_is_compared_as_numbers_and_an_edited_one_never_matches(tmp_path: Path) -> None:
    """--fixed-C "1" resumes a folder written "1.0,1e0" (the same C); a value that is no C is "other options"."""
    # Mutants: fixed_C compared as text; an unparsable one raised parse_C's error instead of the folder's.
    d = tmp_path / "b"
    _open(d, _cart(fixed_C="1"))
    _edit_bench_json(d, fixed_C="1.0,1e0")
    _open(d, _cart(fixed_C="1"))
    _edit_bench_json(d, fixed_C="one")
    with pytest.raises(OlctcError, match=r"other options \(--fixed-C: one there, 1 now\)"):
        _open(d, _cart(fixed_C="1"))


@pytest.mark.parametrize("text, message", [
    ("[]", "names no known experiment"),
    ('{"experiment": "models", "options": []}', "'options' is list, expected an object"),
    ('{"experiment": "models", "options": {"threads": 1.5}}', "option 'threads' is 1.5, expected an integer"),
    ('{"experiment": "models", "options": {"seeds": ["0"]}}', "option 'seeds' is \\[\"0\"\\], expected a list of int"),
    ('{"experiment": "models", "options": {"datasets": "heart"}}', "option 'datasets' is \"heart\", expected a list"),
    ('{"experiment": "models", "options": {"time_limit": "3"}}', "option 'time_limit' is \"3\", expected a number"),
    ('{"experiment": "models", "options": {"C_grid": [1, "x"]}}', "option 'C_grid' .* expected a list of numbers"),
    ('{"experiment": "models", "options": {"solver": 3}}', "option 'solver' is 3, expected a name"),
])
def test_an_edited_bench_json_is_refused_with_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    """Each ill-typed part of bench.json is an OlctcError naming it, never a crash later (report, resume)."""
    # Mutants: the dict check before meta.get dropped (AttributeError); the options-object check dropped; threads
    # checked as a real; seeds' items or datasets' list-ness unchecked; time_limit, C_grid, solver unchecked.
    (tmp_path / "bench.json").write_text(text)
    with pytest.raises(OlctcError, match=message):
        bench_folder.read_bench_json(tmp_path)


def test_older_olctc_and_older_settings() -> None:
    """Who made an older folder reads "version unknown" without a version; only the known models the authors scale
    are named, and a folder at MODEL_SETTINGS names none."""
    # Mutants: an empty version; unknown names passed to exp.model (KeyError); settings > MODEL_SETTINGS.
    assert bench_folder.older_olctc({}) == "an earlier olctc (version unknown)"
    assert bench_folder.older_olctc({"olctc_version": "0.1.0", "created": "2026-12-01T10:00:00Z"}) == \
        "an earlier olctc (0.1.0, 2026-12-01)"
    models = ["MARGOT", "NOT-A-MODEL", "CART", "OCT-H"]
    assert bench_folder.at_older_settings({}, "models", models) == ["MARGOT", "OCT-H"]
    assert bench_folder.at_older_settings({"model_settings": bench_folder.MODEL_SETTINGS}, "models", models) == []


def test_a_runs_file_that_is_a_folder_is_refused_at_the_start(tmp_path: Path) -> None:
    """runs.jsonl as a folder: resuming is refused before any run ("cannot write"), and reading it says damaged."""
    # Mutants: _check_appendable dropped or its failure ignored (the bench ran, then failed at its first record);
    # read_runs' is-a-file check dropped ("cannot read ...: Is a directory").
    d = tmp_path / "b"
    _open(d, _cart())
    (d / "runs.jsonl").mkdir()
    with pytest.raises(OlctcError, match=r"cannot write .*runs.jsonl: Is a directory \(the runs recorded in it"):
        _open(d, _cart())
    with pytest.raises(OlctcError, match=r"runs.jsonl is not a file \(a folder\?\): the bench folder is damaged"):
        bench_folder.read_runs(d)


# ---- folder.py: records ------------------------------------------------------------------------------------------

def test_is_record_checks_experiment_status_and_number_types() -> None:
    """A line of another experiment, a non-text status, a finished run without its score or a number written as
    text is no record; a failed run (skipped too) needs no score."""
    # Mutants: the experiment filter, the status type check, the no-score check dropped; "skipped" not a failure;
    # numeric fields checked for size only (a string "1.5" passed as a time).
    assert bench_folder.is_record(_record(), "models")
    assert not bench_folder.is_record(_record(experiment="phases"), "models")
    assert bench_folder.is_record(_record(experiment="phases"))
    assert not bench_folder.is_record(_record(status=1))
    assert not bench_folder.is_record(_record(test_balanced_accuracy=None))
    assert bench_folder.is_record(_record(status="skipped", test_balanced_accuracy=None))
    assert not bench_folder.is_record(_record(time_solve="1.5"))
    assert bench_folder.is_record(_record(time_solve=1.5))


def test_own_records_need_their_key_but_not_every_option() -> None:
    """A record whose key the bench does not ask for is not its own; one stating none of RECORD_OPTIONS (an older
    olctc's) is."""
    # Mutants: the key filter dropped; an absent option compared as None (an older record counted another bench's).
    opts = _cart().to_json()
    old, other = _record(), _record(seed=7, key="haberman|7|CART")
    assert bench_folder.own_records([old, other], opts, {"haberman|0|CART"}) == ([old], 1)


def test_numpy_values_are_written_as_json_numbers_and_lists(tmp_path: Path) -> None:
    """Records carrying numpy integers and arrays are written as JSON integers and lists, not floats or text."""
    # Mutants: numpy integers written as floats; arrays written as their str().
    bench_folder.append_records(tmp_path, [_record(n=np.int64(3), x=np.float32(0.5), v=np.array([1, 2]))])
    line = (tmp_path / "runs.jsonl").read_text()
    assert '"n": 3,' in line and '"v": [1, 2]' in line
    (rec,), bad = bench_folder.read_runs(tmp_path)
    assert bad == 0 and (rec["n"], rec["x"], rec["v"]) == (3, 0.5, [1, 2])


def test_a_failing_fsync_cuts_the_runs_file_back(tmp_path: Path, monkeypatch) -> None:
    """An OSError after every byte was written (fsync: an I/O error) still undoes the append: the records before
    stay, the new ones go, and the error names the file."""
    # Mutant: the file cut back only when bytes were left to write: the unsynced records stayed.
    bench_folder.append_records(tmp_path, [_record()])
    before = (tmp_path / "runs.jsonl").read_bytes()

    def fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(bench_folder.os, "fsync", fsync)
    with pytest.raises(OlctcError, match=r"cannot write .*runs.jsonl: Input/output error \(the runs recorded"):
        bench_folder.append_records(tmp_path, [_record(seed=1, key="haberman|1|CART")])
    assert (tmp_path / "runs.jsonl").read_bytes() == before


def test_machine_info_counts_the_cores() -> None:
    """bench.json's machine states this machine's core count (what the timings ran on)."""
    # Mutant: nproc fixed at 1.
    assert bench_folder.machine_info()["nproc"] == os.cpu_count()


# ---- workers.py: real child processes ----------------------------------------------------------------------------

def _note(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole (a run tells the test its process id; a half-written note read as 0)."""
    Path(path + ".tmp").write_text(text)
    os.replace(path + ".tmp", path)


def _in_scratch(task: dict) -> list:
    """Make a scratch folder as a solve does, note this process's id and the folder in ``task["note"]``, then hang
    (ignoring SIGTERM when ``task["stubborn"]``, as a solver deep in a C call) or, with ``task["quick"]``, wait for
    ``task["wait_for"]`` and return."""
    if task.get("quick"):
        while not Path(task["wait_for"]).exists():
            time.sleep(0.01)
        return [{"task": task["n"]}]
    if task.get("stubborn"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    tempfile.tempdir = task["tmp"]
    with scratch_folder("olctc-solve-") as folder:
        _note(task["note"], json.dumps([os.getpid(), str(folder)]))
        time.sleep(60)
    return []


def _noted(note: Path) -> tuple[int, Path]:
    pid, folder = json.loads(note.read_text())
    return pid, Path(folder)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended and been reaped."""
    return not Path(f"/proc/{pid}").exists()


def test_a_run_ignoring_sigterm_past_its_hard_limit_is_killed_and_its_scratch_removed(tmpdir_env: Path) -> None:
    """A run that ignores SIGTERM at its hard limit is SIGKILLed after the grace period, and the scratch folder it
    left is removed then (not at the next solve)."""
    # Mutants: stop() without its SIGKILL (the run went on solving after its timeout record); stop() without the
    # sweep (its model file stayed in the temporary folder); GRACE 20 s.
    note = tmpdir_env.parent / "note.json"
    (rec,) = _isolated(_in_scratch, [{"n": 1, "stubborn": True, "tmp": str(tmpdir_env), "note": str(note)}],
                       limit=1.0)
    pid, folder = _noted(note)
    try:
        assert rec["status"] == "timeout" and _gone(pid) and not folder.exists()
        assert rec["wall"] < 15.0, rec["wall"]  # the hard limit, then GRACE (2 s); room for a loaded machine
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_an_interrupt_stops_the_runs_within_the_short_grace_and_removes_their_scratch(tmpdir_env: Path) -> None:
    """An interrupt in the parent stops a stubborn run within STOP_GRACE (half a second, then SIGKILL), and removes
    the scratch folder the run leaves."""
    # Mutants: STOP_GRACE 5 s; _stop_all without its sweep.
    note = tmpdir_env.parent / "note.json"
    tasks = [{"n": 1, "stubborn": True, "tmp": str(tmpdir_env), "note": str(note)},
             {"n": 2, "quick": True, "wait_for": str(note)}]
    stopped: list[float] = []

    def keep(recs: list) -> None:
        stopped.append(time.monotonic())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_isolated(tasks, 2, _in_scratch, lambda t: 60.0, lambda *a: [], keep)
    took = time.monotonic() - stopped[0]
    pid, folder = _noted(note)
    try:
        assert _gone(pid) and not folder.exists()
        assert took < 4.5, took  # STOP_GRACE 0.5 s; the mutant's 5 s is out of reach
    finally:
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)


def _quick_or_hang(task: dict) -> list:
    if task["n"] == 2:
        time.sleep(60)
    return [{"task": task["n"]}]


def test_a_dropped_interrupt_is_seen_within_a_second() -> None:
    """An interrupt Python dropped (noted, its KeyboardInterrupt lost) is seen at the next wake-up, at most MAX_WAIT
    (1 s) later, while a run goes on for a minute."""
    # Mutant: MAX_WAIT 10 s: the bench went on for up to 10 s after a SIGTERM.
    from olctc.process_state import note_interrupt

    _isolated(_quick_or_hang, [{"n": 0}])  # the fork server, if any, is started now
    noted: list[float] = []

    def keep(recs: list) -> None:
        noted.append(time.monotonic())
        note_interrupt()

    try:
        with pytest.raises(KeyboardInterrupt):
            run_isolated([{"n": 1}, {"n": 2}], 2, _quick_or_hang, lambda t: 120.0, lambda *a: [], keep)
    finally:
        note_interrupt(False)
    assert time.monotonic() - noted[0] < 7.0  # the mutant waits 10 s


def _modules(task: dict) -> list:
    return [sorted(m for m in task["modules"] if m in sys.modules)]


@pytest.mark.skipif(not socket_fits(tempfile.gettempdir()), reason="no fork server under a long TMPDIR")
def test_runs_start_with_the_fork_servers_preloads_imported() -> None:
    """A run forks from a server that imported PRELOAD once: the solvers and scikit-learn are there at its start
    (each run importing them itself cost about 2 s)."""
    # Mutant: set_forkserver_preload dropped: every run imported olctc's fit, the solvers and scikit-learn itself.
    wanted = ["highspy", "olctc.compile", "olctc.fit", "pyscipopt", "sklearn.svm"]
    assert set(wanted) <= set(PRELOAD)
    (got,) = _isolated(_modules, [{"n": 1, "modules": wanted}])
    assert got == wanted


def _raise(task: dict) -> list:
    raise ValueError(f"boom from run {task['n']}")


# run_isolated in a process whose standard error is closed (2>&-); prints the records it kept.
_CLOSED_STDERR = """
import json, sys
sys.path.insert(0, {tests!r})
import test_bench_folder_workers_mutation_gaps2 as t
from test_bench_workers import _isolated
print(json.dumps(_isolated(t._raise, [{{"n": 1}}])))
"""


def test_a_caller_with_stderr_closed_gets_its_runs_records(tmp_path: Path) -> None:
    """A caller started with standard error closed (an API script run with `2>&-`) gets a failed run's record,
    quoting the run's exception, and no error of its own. DEFECT fixed in this pass: passing the run's standard
    error on to the caller's closed one raised OSError (EBADF) out of run_isolated, which lost every record."""
    import shlex
    import subprocess

    script = _CLOSED_STDERR.format(tests=str(Path(__file__).parent))
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)} 2>&-"
    p = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout
    (rec,) = json.loads(p.stdout.splitlines()[-1])
    assert rec["status"] == "error" and rec["error"].startswith("WorkerDied: the run's process ended with exit code 1")
    assert rec["error"].endswith("stderr: 'ValueError: boom from run 1'")
