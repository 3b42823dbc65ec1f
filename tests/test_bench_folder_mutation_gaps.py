"""Tests from a mutation pass of the bench's folder, options, experiments and runner (QA 2026-12-06). Each test pins
a behaviour that some mutant got wrong while the bench tests passed; the comments name the mutant (none was a bug seen
in olctc). The runner tests replace only the run processes (``run_isolated``) by in-process records: the folder, its
records and the resume logic are the real ones."""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from olctc.bench import experiments as ex
from olctc.bench import folder as bench_folder
from olctc.bench import runner
from olctc.bench.options import make_options
from olctc.bench.tasks import failed_records
from olctc.errors import OlctcError


def _cart(**kw) -> object:
    """Options of a one-data-set CART bench (no fit, no solver)."""
    return make_options("models", **{"models": "CART", "datasets": "haberman", "seeds": "0", **kw})


def _open(d: Path, opts) -> None:
    with bench_folder.open_bench(d, opts):
        pass


# ---- folder.py: taking and checking the folder ------------------------------------------------------------------

def test_a_failed_first_write_keeps_an_existing_empty_folder(tmp_path: Path, monkeypatch) -> None:
    """An empty folder the user made is kept when bench.json cannot be written; only the lock file goes."""
    # Mutant: _make_folder said it made a folder that existed, and the cleanup removed the user's folder.
    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bench_folder, "atomic_write_text", full)
    d = tmp_path / "mine"
    d.mkdir()
    with pytest.raises(OlctcError, match="No space left on device"):
        _open(d, _cart())
    assert d.is_dir() and list(d.iterdir()) == []
    new = tmp_path / "new"
    with pytest.raises(OlctcError):
        _open(new, _cart())
    assert not new.exists()  # a folder this call made is removed again


def test_a_folder_held_by_one_bench_is_refused_to_another(tmp_path: Path) -> None:
    """Two holders of one folder exclude each other (an exclusive lock): the second is refused, then taken."""
    # Mutant: a shared lock (LOCK_SH): two benches held the folder at once; the suite's holder took LOCK_EX itself.
    tmp_path.joinpath("bench.lock").write_text("")
    with bench_folder.exclusive(tmp_path):
        with pytest.raises(OlctcError, match="is in use by another olctc bench"):
            with bench_folder.exclusive(tmp_path):
                pass
    with bench_folder.exclusive(tmp_path):
        pass


@pytest.mark.parametrize("leftover", [".bench.json.0123456789ab.tmp", "bench.lock"])
def test_leftovers_of_a_killed_start_do_not_make_the_folder_foreign(tmp_path: Path, leftover: str) -> None:
    """A folder holding only a temporary file or the lock file (a bench killed before its bench.json) is taken."""
    # Mutants: temporary names counted as other files; bench.lock counted as another's file.
    d = tmp_path / "b"
    d.mkdir()
    (d / leftover).write_text("")
    _open(d, _cart())
    assert json.loads((d / "bench.json").read_text())["options"]["models"] == ["CART"]


def test_a_folder_without_runs_yet_resumes(tmp_path: Path) -> None:
    """bench.json without runs.jsonl (killed before the first record) resumes; runs.jsonl is not made early."""
    # Mutant: the appendable check opened a missing runs.jsonl (no O_CREAT) and refused the folder.
    d = tmp_path / "b"
    _open(d, _cart())
    _open(d, _cart())
    assert sorted(p.name for p in d.iterdir()) == ["bench.json", "bench.lock"]


@pytest.mark.parametrize("first, again", [({"seeds": "0,1"}, {"seeds": "1,0"}),
                                          ({"models": "CART,L1-LR"}, {"models": "L1-LR,CART"}),
                                          ({"datasets": "haberman,heart"}, {"datasets": "heart,haberman"})])
def test_set_options_resume_in_any_order(tmp_path: Path, first: dict, again: dict) -> None:
    """--seeds, --models and --datasets are sets: another order resumes the folder; another set is refused."""
    # Mutants: "seeds" or "models" left out of UNORDERED_OPTIONS.
    d = tmp_path / "b"
    _open(d, _cart(**first))
    _open(d, _cart(**again))
    key = next(iter(first))
    with pytest.raises(OlctcError, match="was started with other options"):
        _open(d, _cart(**{key: first[key].split(",")[0]}))


def test_a_bench_json_that_is_a_folder_is_called_damaged(tmp_path: Path) -> None:
    """bench.json as a folder: "not a file (a folder?)", not "no bench.json"."""
    # Mutant: the is-a-folder check dropped; the message said the folder had no bench.json.
    (tmp_path / "bench.json").mkdir()
    with pytest.raises(OlctcError, match=r"bench.json is not a file \(a folder\?\): the bench folder is damaged"):
        bench_folder.read_bench_json(tmp_path)


# ---- folder.py: records ------------------------------------------------------------------------------------------

def _record(**kw) -> dict:
    r = {"experiment": "models", "dataset": "haberman", "seed": 0, "model": "CART", "key": "haberman|0|CART",
         "status": "optimal", "test_balanced_accuracy": 0.5, "train_balanced_accuracy": 0.75}
    return {**r, **kw}


def test_is_record_pins_key_bounds_and_sizes() -> None:
    """A record's key must be its own data set|seed|model; shares lie in [0, 1], 0 included; numbers fit a float."""
    # Mutants: key == run_key(...) dropped; 0 <= v became 0 < v; the float-size check dropped.
    assert bench_folder.is_record(_record())
    assert not bench_folder.is_record(_record(key="heart|0|CART"))  # a line edited to another run's key
    assert not bench_folder.is_record(_record(key="haberman|1|CART"))
    assert bench_folder.is_record(_record(test_balanced_accuracy=0.0))  # every test point wrong: a valid score
    assert bench_folder.is_record(_record(train_balanced_accuracy=0.0, test_balanced_accuracy=1.0))
    assert not bench_folder.is_record(_record(test_balanced_accuracy=57.0))
    assert not bench_folder.is_record(_record(time_solve=10 ** 400))


def test_blank_lines_are_not_unreadable(tmp_path: Path) -> None:
    """Blank lines in runs.jsonl are passed over silently; only damaged lines count as unreadable."""
    # Mutant: the blank-line skip dropped: each blank line counted (and reported) as an unreadable line.
    rec = json.dumps(_record())
    (tmp_path / "runs.jsonl").write_text("\n" + rec + "\n\n  \n" + rec[:20] + "\n")
    recs, bad = bench_folder.read_runs(tmp_path, "models")
    assert len(recs) == 1 and bad == 1


@pytest.mark.parametrize("field, value", [("threads", 2), ("time_limit", 7.0), ("min_leaf", 3),
                                          ("score_variables", True), ("smooth_pure_nodes", True)])
def test_a_record_stating_other_options_is_not_this_benchs(field: str, value) -> None:
    """A record stating a RECORD_OPTIONS value other than bench.json's (defaults when absent) is another bench's."""
    # Mutant: "threads" left out of RECORD_OPTIONS: a --threads 2 bench's record counted as done here.
    opts = _cart().to_json()
    mine = _record(threads=1, time_limit=300.0, min_leaf=0, score_variables=False, smooth_pure_nodes=False)
    ours, other = bench_folder.own_records([mine, dict(mine, **{field: value})], opts, {"haberman|0|CART"})
    assert ours == [mine] and other == 1


def test_latest_is_the_last_record_of_each_key() -> None:
    """latest(): the record written last for a key supersedes the earlier ones (a retried run)."""
    # Mutant: the first record kept (setdefault): a retried error stayed "failed" for resume and report.
    a, b, c = _record(status="error", test_balanced_accuracy=None), _record(), _record(seed=1, key="haberman|1|CART")
    assert bench_folder.latest([a, c, b]) == {"haberman|0|CART": b, "haberman|1|CART": c}


def test_an_interrupt_in_mid_write_leaves_the_runs_file_as_it_was(tmp_path: Path, monkeypatch) -> None:
    """Ctrl-C between two partial writes of append_records: the file is cut back, no partial line is left."""
    # Mutant: only an OSError undid the write: the interrupt left half a record at the end of runs.jsonl.
    bench_folder.append_records(tmp_path, [_record()])
    before = (tmp_path / "runs.jsonl").read_bytes()
    real, calls = os.write, []

    def write(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(fd, bytes(data[:10]))

    monkeypatch.setattr(bench_folder.os, "write", write)
    with pytest.raises(KeyboardInterrupt):
        bench_folder.append_records(tmp_path, [_record(seed=1, key="haberman|1|CART")])
    monkeypatch.undo()
    assert (tmp_path / "runs.jsonl").read_bytes() == before and len(calls) == 2


def test_an_interrupt_just_after_the_last_write_keeps_the_records(tmp_path: Path, monkeypatch) -> None:
    """A kill's signal handler runs right after os.write returned every byte, before its count is taken: the
    record is whole on disk (a reader may have seen it), so it stays. It was cut back: CI's interrupted bench,
    killed once two records were in, then held one."""
    bench_folder.append_records(tmp_path, [_record()])
    real = os.write

    def write(fd, data):
        real(fd, data)
        raise KeyboardInterrupt  # what the handler raises at the first check after the call

    monkeypatch.setattr(bench_folder.os, "write", write)
    with pytest.raises(KeyboardInterrupt):
        bench_folder.append_records(tmp_path, [_record(seed=1, key="haberman|1|CART")])
    monkeypatch.undo()
    records, bad = bench_folder.read_runs(tmp_path)
    assert bad == 0 and [r["key"] for r in records] == ["haberman|0|CART", "haberman|1|CART"]


def test_an_interrupt_before_the_write_leaves_the_records_there(tmp_path: Path, monkeypatch) -> None:
    """An interrupt while append_records reads the file's size, before anything is written: the file is as it was.
    It was cut to the size not yet read, 0: every record of the bench gone."""
    bench_folder.append_records(tmp_path, [_record()])
    before = (tmp_path / "runs.jsonl").read_bytes()

    real, calls = os.fstat, []

    def fstat(fd):
        calls.append(fd)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(fd)

    monkeypatch.setattr(bench_folder.os, "fstat", fstat)
    with pytest.raises(KeyboardInterrupt):
        bench_folder.append_records(tmp_path, [_record(seed=1, key="haberman|1|CART")])
    monkeypatch.undo()
    assert (tmp_path / "runs.jsonl").read_bytes() == before


# ---- options.py --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, message", [
    ({"threads": 0}, "'threads' parameter must be an integer >= 1"),
    ({"time_limit": 0}, "'time_limit' parameter must be > 0 seconds"),
    ({"time_limit": float("nan")}, "'time_limit' parameter must be > 0 seconds"),
    ({"cv": 1}, "'cv' parameter must be an integer >= 2"),
    ({"cv": True}, "'cv' parameter must be an integer >= 2"),
    ({"C_grid": "0,1", "cv": 4}, "'C_grid' parameter must be positive finite numbers"),
    ({"C_grid": "1,1", "cv": 4}, "'C_grid' parameter must be distinct numbers"),
    ({"seeds": "0,0"}, "'seeds' parameter must be distinct integers"),
    ({"models": "CART,CART"}, "'models' parameter must be distinct model names"),
    ({"models": "CART,OLCT", "time_limit": 1}, "time limit"),  # a tree model among others: fit's floor
])
def test_make_options_refuses(kw: dict, message: str) -> None:
    """Each bad option is refused before any folder exists, with its own message."""
    # Mutants: threads < 0, time_limit < 0 (0 and NaN through), cv < 1, cv=True taken as 1, grid v >= 0,
    # duplicates let through, fit's time-limit floor only when every model is a tree.
    with pytest.raises(OlctcError, match=message):
        _cart(**kw)


def test_cv_may_equal_the_smaller_class_of_the_training_part() -> None:
    """--cv K is refused only above the training part's smaller class: K equal to it is taken."""
    # Mutant: cv >= least refused the largest valid K.
    with pytest.raises(OlctcError, match=r"at most \d+ folds for haberman") as e:
        _cart(cv=10 ** 6)
    least = int(re.search(r"at most (\d+) folds", str(e.value)).group(1))
    assert least > 2 and _cart(cv=least).cv == least
    with pytest.raises(OlctcError, match=f"at most {least} folds"):
        _cart(cv=least + 1)


# ---- experiments.py ----------------------------------------------------------------------------------------------

def test_experiment_model_properties() -> None:
    """Default model lists, which models are olctc fits, and which take the authors' scaled settings."""
    # Mutants: defaults ignoring default_models; phases not an olctc fit; OCT-H not authors-scaled.
    assert ex.EXPERIMENTS["models"].defaults == ("OLCT", "MARGOT", "SFS-MARGOT", "OCT-H", "CART", "L1-LR")
    assert ex.EXPERIMENTS["tangents"].defaults == ("OLCT-V0", "OLCT-V1", "OLCT-V2")
    assert ex.EXPERIMENTS["large"].defaults == ("OLCT", "MARGOT", "OCT-H", "CART", "L1-LR")
    assert ex.EXPERIMENTS["phases"].model("OLCT-phases").fits_olctc
    assert not ex.CART.fits_olctc and not ex.L1LR.fits_olctc
    assert ex.OCT_H.authors_scaled and ex.MARGOT.authors_scaled and ex.SFS_MARGOT.authors_scaled
    assert not ex.OLCT.authors_scaled and not ex.CART.authors_scaled


def test_resolve_C_from_the_anchor_table() -> None:
    """anchors: root C_1, every deeper layer C_2; a data set without an entry gets C = 1 on every layer."""
    # Mutants: deeper layers given C_1; the no-anchor default 10.
    table = ex.fixed_C_table()
    name = next(n for n, (c1, c2) in table.items() if c1 != c2)
    c1, c2 = table[name]
    assert ex.resolve_C(ex.OLCT, name, 3, "anchors") == ((c1, c2, c2), "anchors")
    absent = next(n for n in ex.LARGE if n not in table)
    assert ex.resolve_C(ex.OLCT, absent, 2, "anchors") == ((1.0, 1.0), "default (no anchor)")
    assert ex.resolve_C(ex.OCT_H, name, 2, "anchors") == ((ex.OCTH_C,) * 2, "oct-h: 1 / baseline error")


def test_cv_grids_are_the_papers() -> None:
    """SFS-MARGOT searches C in {0.01, 1, 100} under the default grid, a given grid otherwise; OCT-H's alphas
    2^-8 .. 2^2 and 0."""
    # Mutants: SFS-MARGOT always on the given grid; alpha 0 left out of OCT-H's grid.
    sfs = ex.cv_grid(ex.SFS_MARGOT, 2, ex.C_GRID)
    assert {c for g in sfs for c in g["C"]} == {0.01, 1.0, 100.0} and len(sfs) == 27
    assert {c for g in ex.cv_grid(ex.SFS_MARGOT, 2, (0.5, 2.0)) for c in g["C"]} == {0.5, 2.0}
    assert [g["alpha"] for g in ex.cv_grid(ex.OCT_H, 2, ex.C_GRID)] == [2.0 ** i for i in range(-8, 3)] + [0.0]


def test_anchor_of_phases_and_of_another_seed() -> None:
    """phases: only OLCT-V0R (the refined tree) has the authors' anchor; single-split experiments have none at
    another seed (another split)."""
    # Mutants: anchor given to the first output (OLCT-W); the other-seed check dropped.
    assert ex.anchor_method("phases", "OLCT-V0R") == "OLCT(v0,ref)"
    assert ex.anchor_method("phases", "OLCT-W") is None
    key = next(k for k in ex.single_anchors() if k[0] == "depth3")
    _, model, ds = key
    assert ex.anchor_for("depth3", model, ds, 0) == ex.single_anchors()[key]["bacc"]
    assert ex.anchor_for("depth3", model, ds, 42) is None


# ---- runner.py ---------------------------------------------------------------------------------------------------

def test_progress_bar_rounds_and_an_empty_bench_is_full() -> None:
    """The bar rounds done/total to the nearest of its width; a bench of no runs shows a full bar."""
    # Mutants: floor instead of round; an empty bench shown as an empty bar.
    p = runner.Progress(7, io.StringIO(), width=30)
    p.done = 2  # 2/7 of 30 = 8.57: 9 marks
    assert p.line().startswith("[" + "#" * 9 + "." * 21 + "] 2/7 runs done, 5 left")
    assert runner.Progress(0, io.StringIO(), width=10).line().startswith("[##########] 0/0 runs done, 0 left")


def _fake_runs(monkeypatch, fail: dict[int, set[str]] | None = None) -> list[list[str]]:
    """Replace the run processes: each task's records written at once, "optimal" unless ``fail[seed]`` names the
    record; returns the list of the keys of each task run."""
    ran: list[list[str]] = []

    def run_isolated(tasks, jobs, run, limit_of, failed, keep):
        for t in tasks:
            ran.append(t["keys"])
            bad = (fail or {}).get(t["seed"], set())
            keep([r if r["model"] in bad else dict(r, status="optimal", test_balanced_accuracy=0.5,
                                                    train_balanced_accuracy=0.5)
                  for r in failed_records(t, "error", "simulated", 0.0)])

    monkeypatch.setattr(runner, "run_isolated", run_isolated)
    return ran


def _phases(seeds: str = "0,1"):
    return make_options("phases", datasets="haberman", seeds=seeds, time_limit=5)


def test_a_phases_run_with_a_record_missing_runs_again(tmp_path: Path, monkeypatch) -> None:
    """A task is done only when every record it writes is there: a phases run missing OLCT-V0R runs again."""
    # Mutant: a task counted done when any of its keys was there.
    ran = _fake_runs(monkeypatch)
    d = tmp_path / "b"
    assert runner.run_bench(_phases(), d, echo=lambda m: None, progress_stream=io.StringIO()).ran == 2
    lines = (d / "runs.jsonl").read_text().splitlines()
    (d / "runs.jsonl").write_text("\n".join(lines[:2] + lines[3:]) + "\n")  # seed 0's OLCT-V0R gone
    ran.clear()
    s = runner.run_bench(_phases(), d, echo=lambda m: None, progress_stream=io.StringIO())
    assert (s.ran, s.skipped) == (1, 1) and ran == [["haberman|0|OLCT-W", "haberman|0|OLCT-V0", "haberman|0|OLCT-V0R"]]


def test_failed_runs_count_once_per_run_and_skipped_ones_when_any_record_failed(tmp_path: Path, monkeypatch) -> None:
    """errors counts runs (a failed phases run is one, not three); a skipped run counts as recorded failed when any
    of its records failed (the MILP after a warm start that worked)."""
    # Mutants: errors summed over records; skipped_failed only when all records failed.
    _fake_runs(monkeypatch, {1: {"OLCT-V0", "OLCT-V0R"}})
    d = tmp_path / "b"
    s = runner.run_bench(_phases(), d, echo=lambda m: None, progress_stream=io.StringIO())
    assert (s.ran, s.errors) == (2, 1)
    s = runner.run_bench(_phases(), d, echo=lambda m: None, progress_stream=io.StringIO())
    assert (s.ran, s.skipped, s.skipped_failed) == (0, 2, 1)


def test_progress_of_a_resumed_bench_counts_the_skipped_runs(tmp_path: Path, monkeypatch) -> None:
    """A resumed bench's bar starts at the runs already done and ends at total/total."""
    # Mutant: prog.done not set to the skipped runs: the bar ended at 1/2 with nothing left to do.
    _fake_runs(monkeypatch)
    err, d2 = io.StringIO(), tmp_path / "b"
    runner.run_bench(_phases("0,1"), d2, echo=lambda m: None, progress_stream=io.StringIO())
    lines = (d2 / "runs.jsonl").read_text().splitlines()
    (d2 / "runs.jsonl").write_text("\n".join(lines[:3]) + "\n")  # seed 1's run to do again
    runner.run_bench(_phases("0,1"), d2, echo=lambda m: None, progress_stream=err)
    shown = [s.split("]")[1].split(",")[0].strip() for s in err.getvalue().splitlines()]
    assert shown == ["1/2 runs done", "2/2 runs done"]


@pytest.mark.parametrize("run_timeout, noted", [(4.0, True), (5.0, False), (6.0, False)])
def test_a_run_timeout_below_the_time_limit_is_noted(tmp_path: Path, monkeypatch, run_timeout, noted) -> None:
    """The note on --run-timeout comes when it is below the fits' time limit, not at it."""
    # Mutant: the note also at run_timeout == time_limit.
    _fake_runs(monkeypatch)
    said: list[str] = []
    runner.run_bench(_phases("0"), tmp_path / "b", echo=said.append, progress_stream=io.StringIO(),
                     run_timeout=run_timeout)
    assert any("is below the time limit of each fit" in m for m in said) == noted
