"""Tests from a second mutation pass of the bench's options and runner (QA 2026-12-06). Each test pins a behaviour
that some hand-written mutant got wrong while the bench tests passed; the comments name the mutant (none was a bug
seen in olctc). The runner tests run real CART benches (one data set, one seed: a second or two each)."""
from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from olctc.bench import options as bench_options
from olctc.bench import runner
from olctc.bench.options import MAX_SEED, make_options, parse_datasets, parse_models, parse_seeds
from olctc.emit.params import MAX_THREADS, MAX_TIME_LIMIT
from conftest import CPYTHON_DELETED_CWD_BUG
from olctc.errors import OlctcError


def _cart(**kw) -> bench_options.BenchOptions:
    """Options of a one-data-set CART bench (no solver)."""
    return make_options("models", **{"models": "CART", "datasets": "haberman", "seeds": "0", **kw})


# ---- options.py --------------------------------------------------------------------------------------------------

def test_default_options_leave_every_later_option_out_of_the_folder() -> None:
    """bench.json of default options names only the options every folder had: older folders stay resumable."""
    # Mutant: smooth_pure_nodes (or min_leaf, threads, ...) always written.
    assert set(_cart().to_json()) == {"experiment", "datasets", "seeds", "models", "solver", "time_limit",
                                      "fixed_C", "cv", "C_grid"}
    on = _cart(smooth_pure_nodes=True, score_variables=True, min_leaf=2, authors_split=True).to_json()
    assert (on["smooth_pure_nodes"], on["score_variables"], on["min_leaf"], on["authors_split"]) == (True, True, 2,
                                                                                                     True)


def test_the_largest_seed_is_taken() -> None:
    """Seeds run from 0 to 2**32 - 1, both ends included (scikit-learn's random_state)."""
    # Mutants: MAX_SEED 2**31 - 1; the upper bound exclusive.
    assert MAX_SEED == 2 ** 32 - 1
    assert parse_seeds("0,4294967295", ()) == (0, 4294967295)


def test_names_are_stripped_and_a_data_set_twice_is_refused() -> None:
    """'haberman, heart' names two data sets; the same data set twice is refused (two runs of one key)."""
    # Mutants: names not stripped; duplicate data sets let through.
    assert parse_datasets("haberman, heart", ()) == ("haberman", "heart")
    assert parse_models(" CART , L1-LR", bench_options.get_experiment("models")) == ("CART", "L1-LR")
    with pytest.raises(OlctcError, match="'datasets' parameter must be distinct data set names"):
        parse_datasets("haberman,haberman", ())


@pytest.mark.parametrize("kw, message", [
    ({"threads": True}, "'threads' parameter must be an integer >= 1"),
    ({"threads": MAX_THREADS + 1}, f"'threads' parameter must be at most {MAX_THREADS}"),
    ({"time_limit": MAX_TIME_LIMIT * 1.5}, "'time_limit' parameter must be at most 1e7 seconds"),
    ({"solver": "glpk"}, "'solver' parameter must be one of highs, cbc, scip"),
    ({"class_weight": "Balanced"}, r"'class_weight' parameter \(--class-weight\) must be 'balanced' or unset"),
    ({"min_leaf": True}, r"'min_leaf' parameter \(--min-leaf\) must be an integer >= 0"),
    ({"min_leaf": 1.5}, r"'min_leaf' parameter \(--min-leaf\) must be an integer >= 0"),
    ({"cv": 2, "C_grid": "1,1e20"}, "'C_grid' parameter must be below 1e20 for every value"),
    ({"models": "CART", "C_grid": "1,10"}, "--C-grid is the grid --cv searches"),
])
def test_make_options_refuses_each_with_its_message(kw: dict, message: str) -> None:
    """Each bad option is refused before any folder exists, naming the option."""
    # Mutants: bool taken as an int; the bounds' checks dropped or off by one; the option's name dropped.
    with pytest.raises(OlctcError, match=message):
        _cart(**kw)


def test_the_upper_bounds_themselves_are_taken() -> None:
    """--threads 1024 and --time-limit 1e7 are the largest values taken, not refused; the time limit is a float."""
    # Mutants: threads >= MAX_THREADS refused; time_limit < MAX_TIME_LIMIT required; float() dropped.
    o = _cart(threads=MAX_THREADS, time_limit=int(MAX_TIME_LIMIT))
    assert (o.threads, o.time_limit) == (MAX_THREADS, MAX_TIME_LIMIT) and isinstance(o.time_limit, float)


def test_a_grid_is_taken_when_any_model_is_l1lr_and_cv_sets_fixed_C() -> None:
    """--C-grid needs only one model that searches it (L1-LR among others); --cv records fixed_C as 'cv'."""
    # Mutants: uses_C_grid only when every model is L1-LR; fixed_C kept at 'anchors' under --cv.
    assert _cart(models="CART,L1-LR", C_grid="1,10").C_grid == (1.0, 10.0)
    assert _cart(cv=2).fixed_C == "cv" and _cart().fixed_C == "anchors"


def test_fold_and_min_leaf_bounds_count_the_authors_split() -> None:
    """With --authors-split the bounds are those of the authors' training part (a row fewer): breast's smaller
    class holds 170 points in olctc's, 169 in theirs; heart's training part 237 points, 236 in theirs."""
    # Mutants: _check_folds / _check_min_leaf on olctc's split whatever --authors-split.
    assert _cart(datasets="breast", cv=170).cv == 170
    with pytest.raises(OlctcError, match="at most 169 folds for breast"):
        _cart(datasets="breast", cv=170, authors_split=True)
    assert _cart(datasets="heart", min_leaf=237).min_leaf == 237
    with pytest.raises(OlctcError, match="at most 236 .*heart's training part"):
        _cart(datasets="heart", min_leaf=237, authors_split=True)


# ---- runner.py ---------------------------------------------------------------------------------------------------

def test_progress_line_shows_minutes_and_two_digit_seconds_one_line_per_step() -> None:
    """elapsed reads m:ss; each step writes one whole line (a log keeps every line)."""
    # Mutants: seconds unpadded; minutes as hours; '\r' for '\n'.
    s = io.StringIO()
    p = runner.Progress(2, s, width=4)
    p.t0 = time.perf_counter() - 65.2
    p.step()
    p.step()
    assert s.getvalue().splitlines(keepends=True) == ["[##..] 1/2 runs done, 1 left, elapsed 1:05\n",
                                                      "[####] 2/2 runs done, 0 left, elapsed 1:05\n"]


def test_each_progress_line_reaches_a_buffered_file_at_once(tmp_path: Path) -> None:
    """Each step is flushed: a bar sent to a file (nohup, a CI log) shows the run in progress, not at the end."""
    # Mutant: the flush dropped (the line stayed in the file object's buffer).
    with open(tmp_path / "log", "w", buffering=8192) as f:
        runner.Progress(3, f, width=3).step()
        assert (tmp_path / "log").read_text().startswith("[#..] 1/3 runs done, 2 left, elapsed 0:0")


@pytest.mark.parametrize("kw, message", [
    ({"jobs": True}, "'jobs' parameter must be an integer >= 1"),
    ({"run_timeout": 0.0}, "'run_timeout' parameter must be > 0 seconds"),
    ({"run_timeout": MAX_TIME_LIMIT * 2}, "'run_timeout' parameter must be at most 1e7 seconds"),
])
def test_run_bench_refuses_bad_jobs_and_run_timeouts(tmp_path: Path, kw: dict, message: str) -> None:
    """jobs=True is no count; a run timeout of 0 or past 1e7 s is refused before the folder exists."""
    # Mutants: bool jobs taken as 1; run_timeout 0 let through; the upper bound dropped.
    with pytest.raises(OlctcError, match=message):
        runner.run_bench(_cart(), tmp_path / "b", **kw)
    assert not (tmp_path / "b").exists()


def test_a_real_bench_counts_shows_and_resumes(tmp_path: Path) -> None:
    """A CART bench: the bar before the run and after it; resumed, the run is said skipped (k of total), no bar is
    shown, and an unreadable line is counted; a run timeout below the time limit is not noted without tree
    models (nothing of CART's is killed by it); its records state the jobs and the hard limit they ran under."""
    # Mutants: the bar shown with nothing to do; 'k of todo'; bad lines not counted; the note for CART too;
    # records stating jobs 1 or the default hard limit; a run timeout of exactly 1e7 s refused; the note on
    # records of other runs dropped.
    d, said, bar = tmp_path / "b", [], io.StringIO()
    s = runner.run_bench(_cart(), d, jobs=2, echo=said.append, progress_stream=bar, run_timeout=100.0)
    assert (s.total, s.skipped, s.ran, s.errors, s.bad_lines) == (1, 0, 1, 0, 0) and said == []
    assert [x.split("]")[1].split(",")[0] for x in bar.getvalue().splitlines()] == [" 0/1 runs done",
                                                                                   " 1/1 runs done"]
    (rec,) = [json.loads(x) for x in (d / "runs.jsonl").read_text().splitlines()]
    assert (rec["jobs"], rec["hard_limit"]) == (2, 100.0)
    with open(d / "runs.jsonl", "a") as f:  # a damaged line, and a record of a seed this bench does not run
        f.write("{not json\n" + json.dumps(dict(rec, seed=1, key="haberman|1|CART")) + "\n")
    said, bar = [], io.StringIO()
    s = runner.run_bench(_cart(), d, echo=said.append, progress_stream=bar, run_timeout=MAX_TIME_LIMIT)
    assert (s.total, s.skipped, s.ran, s.bad_lines) == (1, 1, 0, 1) and bar.getvalue() == ""
    assert said[-1] == f"1 of 1 run(s) already in {d / 'runs.jsonl'}: skipped"
    assert sum("ignored 1 record(s) of runs this bench does not have" in m for m in said) == 1


@CPYTHON_DELETED_CWD_BUG
def test_a_deleted_working_folder_is_refused_before_the_bench_folder_exists(tmp_path: Path, monkeypatch) -> None:
    """Run from a folder deleted since: refused before bench.json is written (else the folder is left behind,
    holding options, and the workers fail to start anyway)."""
    # Mutant: run_bench's check_working_folder dropped (run_isolated's own check came after open_bench).
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(OlctcError, match="the current folder no longer exists"):
        runner.run_bench(_cart(), tmp_path / "b", echo=lambda m: None, progress_stream=io.StringIO())
    assert not (tmp_path / "b").exists()
