"""Run one experiment into a bench folder: the tasks not done yet, one process each when asked, with a
progress bar; records appended as each task ends (``olctc.bench.folder`` has the folder's contract)."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


from olctc.bench.experiments import get_experiment
from olctc.bench.folder import (BENCH_JSON, FAILED, RUNS, append_records, latest, open_bench, own_records,
                                read_runs)
from olctc.bench.options import BenchOptions
from olctc.bench.tasks import execute_task, failed_records, hard_limit, make_tasks
from olctc.bench.workers import check_working_folder, run_isolated
from olctc.emit.params import MAX_TIME_LIMIT
from olctc.errors import param_error


class Progress:
    """Plain-text progress on stderr: a bar, runs done / left, elapsed time."""

    def __init__(self, total: int, stream=None, width: int = 30) -> None:
        self.total, self.done, self.width = total, 0, width
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = time.perf_counter()

    def line(self) -> str:
        frac = self.done / self.total if self.total else 1.0
        n = int(round(frac * self.width))
        el = int(time.perf_counter() - self.t0)
        return (f"[{'#' * n}{'.' * (self.width - n)}] {self.done}/{self.total} runs done, "
                f"{self.total - self.done} left, elapsed {el // 60}:{el % 60:02d}")

    def step(self, k: int = 1) -> None:
        self.done += k
        self.stream.write(self.line() + "\n")
        self.stream.flush()


@dataclass
class BenchSummary:
    """What a bench call did."""

    folder: Path
    total: int
    skipped: int
    ran: int
    errors: int
    bad_lines: int
    skipped_failed: int = 0  # skipped runs whose record is an error or a timeout (see --retry-errors)


def run_bench(opts: BenchOptions, out: str | os.PathLike[str], *, jobs: int = 1,
              echo: Callable[[str], None] = print, progress_stream=None,
              retry_errors: bool = False, run_timeout: float | None = None) -> BenchSummary:
    """Run every task of ``opts`` not yet in DIR/runs.jsonl, ``jobs`` at a time (1 thread each), each in
    its own process, killed after ``hard_limit(task, run_timeout)`` seconds (record status "timeout").

    ``retry_errors`` also runs again the tasks whose last record of some key is an error or a timeout;
    the report reads the last record of each key, so the new one replaces it there (nothing is rewritten).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise param_error("jobs", "an integer >= 1", jobs)
    if run_timeout is not None and not run_timeout > 0:
        raise param_error("run_timeout", "> 0 seconds", run_timeout)
    if run_timeout is not None and not run_timeout <= MAX_TIME_LIMIT:
        raise param_error("run_timeout", "at most 1e7 seconds (115 days)", run_timeout)
    exp = get_experiment(opts.experiment)
    if run_timeout is not None and run_timeout < opts.time_limit and any(exp.model(m).fits_olctc for m in opts.models):
        # accepted (a deliberate kill tests the timeout path), but said: every tree run then ends as a timeout,
        # which the bench reported only as "N failed" at its end (QA 2026-12-05)
        echo(f"note: run_timeout (--run-timeout) {run_timeout:g} s is below the time limit of each fit "
             f"({opts.time_limit:g} s): the tree runs will be killed (status timeout) before their solvers stop")
    check_working_folder()  # before bench.json is written: every run's process starts there
    with open_bench(out, opts) as d:
        return _run_todo(d, opts, jobs, echo, progress_stream, retry_errors, run_timeout)


def _run_todo(d: Path, opts: BenchOptions, jobs: int, echo: Callable[[str], None], progress_stream,
              retry_errors: bool, run_timeout: float | None) -> BenchSummary:
    """``run_bench`` once the folder is ready and held."""
    recs, bad = read_runs(d, opts.experiment)
    if bad:
        echo(f"{d / RUNS}: ignored {bad} unreadable line(s) (a run killed while writing, a line edited by hand, "
             "or a record of another experiment); any run they held is done again")
    tasks = make_tasks(opts)
    recs, other = own_records(recs, opts.to_json(), {k for t in tasks for k in t["keys"]})
    if other:
        echo(f"{d / RUNS}: ignored {other} record(s) of runs this bench does not have (a data set, seed, model "
             f"or option other than its {BENCH_JSON}'s: copied or edited in); those runs will be done")
    done = {r["key"] for r in recs}
    failed = {k for k, r in latest(recs).items() if r.get("status") in FAILED}
    if retry_errors:
        done -= failed
    todo = [t for t in tasks if not all(k in done for k in t["keys"])]
    skipped = len(tasks) - len(todo)
    # Skipped tasks whose record says error/timeout: "already done" alone would hide that they never worked.
    skipped_failed = sum(all(k in done for k in t["keys"]) and any(k in failed for k in t["keys"]) for t in tasks)
    if skipped:
        echo(f"{skipped} of {len(tasks)} run(s) already in {d / RUNS}: skipped")
    prog = Progress(len(tasks), progress_stream)
    prog.done = skipped
    if todo:
        prog.step(0)  # show the bar before the first (possibly long) run
    errors = 0

    def keep(records: list[dict[str, Any]]) -> None:
        nonlocal errors
        append_records(d, records)
        # per run, as the runs are counted: a failed phases run wrote 3 error records and read "3 failed" (QA)
        errors += any(r.get("status") in FAILED for r in records)
        prog.step()

    # Every run in its own process, even with one job: a native crash or a solver that ignores its time
    # limit costs that run only (status "error" / "timeout"), not the bench.
    run_isolated(timed_under(todo, jobs, run_timeout), jobs, execute_task, lambda t: t["hard_limit"],
                 failed_records, keep)
    return BenchSummary(d, len(tasks), skipped, len(todo), errors, bad, skipped_failed)


def timed_under(tasks: list[dict[str, Any]], jobs: int, run_timeout: float | None) -> list[dict[str, Any]]:
    """The tasks with the conditions their runs are timed under, which their records state (RUN_CONDITIONS):
    a bench resumed with another --jobs mixed runs timed under other loads, and nothing in the folder said so.
    The hard limit is the one the run is killed at, so a timeout record states the limit it hit."""
    return [dict(t, jobs=jobs, hard_limit=hard_limit(t, run_timeout)) for t in tasks]
