"""Tests from a fourth mutation pass of the bench's experiments (registry look-up) and runner (progress bar, argument
checks, failure counts) (QA 2026-12-07). Each test pins behaviour some hand-written mutant got wrong while the bench
tests passed; the comments name the mutants (their ids are in the commit message). The runner tests run real CART
benches (haberman, two seeds killed at a 0.01 s run timeout; sonar) and one OLCT run on sonar killed at 5 s."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from olctc.bench import experiments as ex
from olctc.bench import runner
from olctc.bench import tasks as bench_tasks
from olctc.errors import OlctcError
from test_bench_experiments_runner_mutation_gaps2 import _lines
from test_bench_options_runner_mutation_gaps import _cart


# ---- experiments.py ------------------------------------------------------------------------------------------------

def test_experiment_names_are_case_sensitive_and_a_wrong_case_is_the_usual_error() -> None:
    """The folder's bench.json and the records hold the name as given: "Models" is no experiment, and says so in the
    one-line error that lists the known ones, not as a KeyError."""
    # Mutant: the check made case-insensitive while the look-up is not (KeyError 'Models').
    known = "tangents, phases, models, large, depth3"
    for name in ("Models", "PHASES"):
        with pytest.raises(OlctcError, match=re.escape(f"unknown experiment {name!r}; known: {known}")):
            ex.get_experiment(name)


# ---- runner.py -----------------------------------------------------------------------------------------------------

def test_default_progress_bar_is_thirty_marks_wide() -> None:
    """The bench's bar (stderr) is 30 marks wide unless asked otherwise: half done is 15 marks and 15 dots."""
    # Mutant: the default width 20.
    s = io.StringIO()
    p = runner.Progress(2, s)
    p.step()
    assert s.getvalue().startswith(f"[{'#' * 15}{'.' * 15}] 1/2 runs done, 1 left, elapsed 0:0")


@pytest.mark.parametrize("kw, message", [
    ({"jobs": 2.0}, "The 'jobs' parameter must be an integer >= 1. Got 2.0 instead."),
    ({"run_timeout": float("nan")}, "The 'run_timeout' parameter must be > 0 seconds. Got nan instead."),
])
def test_run_bench_refuses_a_float_job_count_and_a_nan_run_timeout(tmp_path: Path, kw: dict, message: str) -> None:
    """jobs counts processes (2.0 is refused as True is, before the folder exists); a NaN run timeout is named as not
    > 0, not as past the upper bound (NaN fails every comparison)."""
    # Mutants: the integer check on jobs dropped; the lower run_timeout check written so that NaN passes it.
    with pytest.raises(OlctcError, match=re.escape(message)):
        runner.run_bench(_cart(), tmp_path / "b", **kw)
    assert not (tmp_path / "b").exists()


def test_failed_runs_are_summed_over_the_call(tmp_path: Path) -> None:
    """Two CART runs killed at a 0.01 s run timeout are two failed runs of the call, not one (the count is per run,
    over all the call's runs); retried, both run and the call has none."""
    # Mutant: errors set by each run instead of added up (the last run's 0 or 1).
    d = tmp_path / "b"
    s = runner.run_bench(_cart(seeds="0,42"), d, echo=lambda m: None, progress_stream=io.StringIO(), run_timeout=0.01)
    assert [r["status"] for r in _lines(d)] == ["timeout", "timeout"]
    assert (s.total, s.ran, s.errors) == (2, 2, 2)
    s = runner.run_bench(_cart(seeds="0,42"), d, echo=lambda m: None, progress_stream=io.StringIO(),
                         retry_errors=True)
    assert (s.total, s.ran, s.errors) == (2, 2, 0)
    assert [r["status"] for r in _lines(d)[2:]] == ["optimal", "optimal"]


def test_two_jobs_run_at_once(tmp_path: Path) -> None:
    """With jobs=2 a long run does not hold up a short one: sonar's OLCT run (killed at its 5 s run timeout) comes
    before its CART run (milliseconds) in task order, yet both start together, so CART's record is written first.
    The records state jobs 2 either way: only the order shows whether the runs overlapped. (CART's run took 0.07 s
    start to record, under load.)"""
    # Mutant: run_isolated given 1 process whatever jobs (the records still saying jobs 2).
    opts = _cart(models="OLCT,CART", datasets="sonar", time_limit=30)
    assert [t["model"] for t in bench_tasks.make_tasks(opts)] == ["OLCT", "CART"]
    d = tmp_path / "b"
    s = runner.run_bench(opts, d, jobs=2, echo=lambda m: None, progress_stream=io.StringIO(), run_timeout=5.0)
    assert (s.total, s.ran) == (2, 2)
    assert [(r["model"], r["jobs"]) for r in _lines(d)] == [("CART", 2), ("OLCT", 2)]
