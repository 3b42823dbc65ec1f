"""Tests from a mutation-testing pass over olctc.fit (split, the time budget rules, balanced accuracy, what fit
keeps and records when the solver hands back no tree) and olctc.bench.workers (running tasks isolated, hard time
limits, failure records). Each pins a behaviour that a small code change broke without any other test failing.
Tiny real data (heart rows), real fits on one thread; the worker tests run real child processes."""
from __future__ import annotations

import copy
import os
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.bench.workers import QUOTE, SOCKET_PATH_MAX, _LISTENER_SUFFIX, socket_fits
from olctc.data.arrays import from_arrays
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.fit import balanced_accuracy, check_time_limit, fit, least_time_limit, solver_budget, split
from olctc.solve.result import SolveResult
from olctc.spec import make_spec
from test_bench_workers import _isolated
from test_solve_mutation_gaps import _heart


def _labelled(n_neg: int, n_pos: int):
    """A one-feature data set of ``n_neg`` points of class 0 then ``n_pos`` of class 1."""
    y = np.r_[np.zeros(n_neg), np.ones(n_pos)]
    return from_arrays(np.arange(y.size, dtype=float).reshape(-1, 1), y)


# ------------------------------------------------------------------ the time budget rules
def test_the_least_time_limit_itself_is_taken_and_leaves_the_solver_one_second() -> None:
    """check_time_limit takes the limit it names as the least, and solver_budget gives it exactly 1 s then."""
    least = least_time_limit()
    check_time_limit(least)
    assert solver_budget(least, 0.0, 0.0) == 1.0
    with pytest.raises(TimeLimitTooShort, match=r"decoding, refinement .* give at least 3 s$"):
        check_time_limit(least - 1e-9)


def test_fit_refuses_a_short_limit_before_building_with_the_early_message() -> None:
    """A limit below the least is refused by the early check (which names no build time), not after building."""
    with pytest.raises(TimeLimitTooShort) as exc:
        fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, time_limit=2.0, verbose=False)
    assert "building the model" not in str(exc.value) and "give at least 3 s" in str(exc.value)


def test_a_miqp_preset_is_fit_with_scip_by_default_and_never_with_highs() -> None:
    from olctc.fit import resolve_solver

    margot = make_spec("margot", 1)
    assert resolve_solver(margot, None) == "scip" and resolve_solver(make_spec("olct", 1), None) == "highs"
    with pytest.raises(OlctcError, match="preset margot is a MIQP"):
        resolve_solver(margot, "highs")


# ------------------------------------------------------------------ balanced_accuracy
def test_balanced_accuracy_leaves_out_a_class_of_weight_zero_and_is_nan_with_no_points() -> None:
    """A class whose points all weigh 0 has no rate (as scikit-learn); no points at all give NaN, not 0."""
    y, pred = np.array([-1, -1, 1, 1]), np.array([-1, 1, 1, 1])
    assert balanced_accuracy(y, pred, np.array([1.0, 1.0, 0.0, 0.0])) == 0.5
    assert balanced_accuracy(y, pred, np.array([1.0, 3.0, 1.0, 1.0])) == pytest.approx((0.25 + 1.0) / 2, abs=1e-15)
    assert np.isnan(balanced_accuracy(np.array([]), np.array([])))


# ------------------------------------------------------------------ split
def test_split_refuses_a_class_of_one_point_by_name() -> None:
    with pytest.raises(OlctcError, match=r"class 1 has 1 point\(s\), a stratified split needs at least 2"):
        split(_labelled(5, 1), 0.5, 0)


def test_split_refuses_a_test_part_of_one_point_and_takes_one_of_two() -> None:
    """The test part's size is rounded up (scikit-learn's rule): 10 points at 0.1 give 1 (refused), at 0.15 give 2."""
    with pytest.raises(OlctcError, match="the test part would hold 1 and the training part 9"):
        split(_labelled(5, 5), 0.1, 0)
    tr, te = split(_labelled(5, 5), 0.15, 0)
    assert te.size == 2 and tr.size == 8


def test_split_takes_every_32_bit_seed() -> None:
    split(_labelled(5, 5), 0.2, 2 ** 32 - 1)
    with pytest.raises(OlctcError, match="seed"):
        split(_labelled(5, 5), 0.2, 2 ** 32)


def test_an_unordered_split_keeps_scikit_learns_draw_order() -> None:
    from sklearn.model_selection import train_test_split

    ds = _heart(15)
    tr, te = split(ds, 0.3, 7, ordered=False)
    want_tr, want_te = train_test_split(np.arange(ds.n), test_size=0.3, random_state=7, stratify=ds.y)
    assert tr.tolist() == want_tr.tolist() and te.tolist() == want_te.tolist()
    assert tr.tolist() != sorted(tr.tolist())  # the case shows the order


def test_a_test_part_of_one_class_is_warned_about_by_that_class() -> None:
    with pytest.warns(UserWarning, match=r"holds class 0 only"):
        split(_labelled(10, 2), 0.2, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        split(_labelled(10, 4), 0.5, 0)


# ------------------------------------------------------------------ fit: what it keeps when the solver gives no tree
def _fake_solve(monkeypatch, raw_status: str, left_running: bool = False, raises: type | None = None) -> None:
    """olctc.solve.solve_milp handing back no solution with ``raw_status`` (or raising ``raises``)."""
    import olctc.solve

    def solve_milp(milp, solver, **kw):
        if raises is not None:
            raise raises
        return SolveResult("no_solution", None, None, None, None, [], solver, "", 0.01, raw_status,
                           left_running=left_running)

    monkeypatch.setattr(olctc.solve, "solve_milp", solve_milp)


def _fit1(**kw: Any) -> dict[str, Any]:
    return fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, **kw).summary


def test_an_interrupted_solve_stops_the_fit_unless_the_incumbent_is_kept(monkeypatch) -> None:
    _fake_solve(monkeypatch, "interrupted")
    with pytest.raises(KeyboardInterrupt):
        _fit1(verbose=False)
    s = _fit1(verbose=False, keep_incumbent=True)
    assert s["solution_from"] == "warm start" and s["warm_start_kept"] == "highs interrupted"
    assert s["status"] == "feasible" and "solver_left" not in s


def test_a_solver_left_after_an_interrupt_with_no_solution_says_so_and_keeps_the_start(monkeypatch) -> None:
    """The reason the start is kept is the solver left running, echoed as such (no objective to quote)."""
    _fake_solve(monkeypatch, "interrupted", left_running=True)
    said: list[str] = []
    s = _fit1(verbose=True, keep_incumbent=True, echo=said.append)
    assert s["solver_left"].startswith("highs had not stopped") and s["warm_start_kept"] == s["solver_left"]
    assert f"{s['solver_left']}: keeping the warm start" in said
    assert not any("taking the best solution" in line for line in said)


def test_a_solver_left_without_a_time_limit_is_not_said_past_one(monkeypatch) -> None:
    """left_running with no time limit (not the interrupt case) has no "past its time limit" words."""
    _fake_solve(monkeypatch, "time limit reached", left_running=True)
    s = _fit1(verbose=False)
    assert "solver_left" not in s and s["warm_start_kept"] == "highs found no solution (time limit reached)"


@pytest.mark.parametrize("solver, raised", [("highs", KeyboardInterrupt), ("cbc", KeyboardInterrupt),
                                            ("highs", TimeLimitTooShort)])
def test_a_solve_that_never_started_keeps_the_start_or_raises(monkeypatch, solver: str, raised: type) -> None:
    """An interrupt before the solver ran keeps the warm start (keep_incumbent), except for a library caller's
    CBC, which raises; a solver budget used up before the start keeps it too."""
    _fake_solve(monkeypatch, "", raises=raised)
    if solver == "cbc":
        with pytest.raises(KeyboardInterrupt):
            fit(_heart(10), make_spec("olct", 1), solver="cbc", threads=1, keep_incumbent=True, verbose=False)
        return
    s = _fit1(verbose=False, keep_incumbent=True)
    why = ("highs interrupted before the solver started" if raised is KeyboardInterrupt
           else "highs found no solution (time limit reached before the solver started)")
    assert s["solution_from"] == "warm start" and s["warm_start_kept"] == why


def test_fit_gives_refinement_the_limits_deadline(monkeypatch) -> None:
    """Refinement's polish is stopped at the fit's deadline (start + time limit), and at none without a limit."""
    import olctc.fit as fit_module

    seen: list = []
    real = fit_module._finish_in_time

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(fit_module, "_finish_in_time", spy)
    t0 = time.perf_counter()
    _fit1(verbose=False, time_limit=30)
    assert seen[0] is not None and t0 + 30 <= seen[0] <= time.perf_counter() + 30
    _fit1(verbose=False)
    assert seen[1] is None


# ------------------------------------------------------------------ fit's summary and its lines
@pytest.fixture(scope="module")
def heart_fit():
    """A depth-1 OLCT fit (HiGHS, one thread) of 60 heart points with a test part of a quarter."""
    return fit(_heart(30), make_spec("olct", 1), solver="highs", threads=1, test_size=0.25, seed=3, verbose=False)


def test_the_summary_counts_the_parts_and_names_the_top_five_features(heart_fit) -> None:
    s, tree = heart_fit.summary, heart_fit.tree
    assert (s["n_train"], s["n_test"]) == (45, 15) and "test_balanced_accuracy" in s
    assert s["features_used"] >= 6 and len(s["top_features"]) == 5
    assert "spec" not in tree.meta["fit"] and tree.meta["fit"]["n_test"] == 15


def test_the_weighted_balanced_accuracies_use_the_point_weights() -> None:
    """A fit with point weights records each part's balanced accuracy with those weights as well as without."""
    ds = _heart(20)
    w = np.where(np.arange(ds.n) % 3 == 0, 5.0, 1.0)
    wds = from_arrays(ds.X, ds.y, sample_weight=w)
    res = fit(wds, make_spec("olct", 1), solver="highs", threads=1, test_size=0.25, seed=1, verbose=False)
    s = res.summary
    for part, rows in (("train", res.train_rows), ("test", res.test_rows)):
        pred = np.where(res.tree.decision_function(ds.X[rows]) > 0, 1, -1)
        assert s[f"{part}_balanced_accuracy_weighted"] == balanced_accuracy(wds.y[rows], pred, w[rows])
        assert s[f"{part}_balanced_accuracy"] == balanced_accuracy(wds.y[rows], pred)
    assert s["test_balanced_accuracy_weighted"] != s["test_balanced_accuracy"]  # the weights matter here


def test_a_negligible_weight_is_no_feature_used(heart_fit) -> None:
    from olctc.fit import _feature_shares
    from olctc.tree import NEGLIGIBLE_WEIGHT, weights_used

    tree = copy.deepcopy(heart_fit.tree)
    unused = np.flatnonzero(~weights_used(tree.W).any(axis=0))
    before = _feature_shares(tree)["features_used"]
    assert unused.size  # the case needs a feature the tree does not use
    tree.W[0, unused[0]] = NEGLIGIBLE_WEIGHT / 2
    assert _feature_shares(tree)["features_used"] == before


def test_the_tangent_note_is_not_said_of_a_kept_warm_start(heart_fit) -> None:
    """The note on the MILP scoring worse than the start on the exact loss is for a solver's tree only."""
    from olctc.fit import summary_lines

    s = {**heart_fit.summary, "exact_objective_warm_start": 1.0, "exact_objective_before_refine": 2.0}
    assert any(line.startswith("note: the MILP minimises the loss") for line in summary_lines(s))
    s["solution_from"] = "warm start"
    assert not any(line.startswith("note: the MILP minimises the loss") for line in summary_lines(s))


def test_counts_and_shares_as_printed() -> None:
    """A depth-5 tree's 31 counts are listed whole; a name that starts with a quote is quoted."""
    from olctc.fit import _counts_text, shares_text

    assert _counts_text([2] * 31) == str([2] * 31)
    assert _counts_text([2] * 32).endswith("(32 nodes: 64 in all, at most 2; the tree file has them all)")
    assert shares_text([['"q', 0.5], ["c", 0.125]]) == '""q" 0.500, c 0.125'


def test_a_tree_scored_worse_than_its_start_is_said_why() -> None:
    """Worse than the start beyond the tolerance; a solver's own worse best, told apart from a routing leak."""
    from olctc.fit import _worse_than_start

    def res(obj: float | None) -> SolveResult:
        return SolveResult("feasible", obj, None, None, None, [], "highs", "", 0.1, "")

    assert _worse_than_start(res(10.0), "highs", 10.0 + 5e-6, 10.0) is None  # within 1e-6 relative
    assert _worse_than_start(res(10.02), "cbc", 10.02, 10.0).startswith("cbc returned a solution worse")
    assert _worse_than_start(res(9.0), "cbc", 10.02, 10.0).startswith("cbc's solution routes worse")
    assert _worse_than_start(res(None), "cbc", 10.02, 10.0).startswith("cbc's solution routes worse")


def test_refinement_stopped_at_the_deadline_is_noted() -> None:
    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays
    from olctc.fit import _finish_in_time
    from olctc.warmstart import warm_start

    spec = make_spec("olct", 1)
    comp = compile_problem(_heart(10), spec, "h")
    x0, _ = warm_start(comp.milp, comp.X, comp.dataset.y, spec)
    dec = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x0, None, trusted=True)
    tree, report = _finish_in_time(dec, comp, comp.dataset, True, False, time.perf_counter() - 1.0)
    assert any(n.startswith("refinement stopped at the time limit") for n in report.notes)
    assert tree.meta["notes"] == report.notes[-1:]


# ------------------------------------------------------------------ bench workers: real child processes
def _stamp(task: dict) -> list:
    start = time.monotonic()
    time.sleep(0.2)
    return [{"task": task["n"], "start": start, "end": time.monotonic()}]


def _exit_after_writing(task: dict) -> list:
    """Write ``task["err"]`` (bytes) to file descriptor 2 and end the process with ``task["code"]`` (a negative
    code: that signal), returning nothing."""
    import signal

    os.write(2, task["err"])
    if task["code"] < 0:
        signal.signal(-task["code"], signal.SIG_DFL)
        os.kill(os.getpid(), -task["code"])
        time.sleep(10)
    os._exit(task["code"])


def _sleep(task: dict) -> list:
    time.sleep(30)
    return []


def test_one_job_runs_the_tasks_one_at_a_time_in_their_order() -> None:
    recs = _isolated(_stamp, [{"n": 1}, {"n": 2}, {"n": 3}], jobs=1)
    assert [r["task"] for r in recs] == [1, 2, 3]
    assert all(b["start"] >= a["end"] for a, b in zip(recs, recs[1:]))


def test_a_dead_runs_record_names_its_exit_and_quotes_its_last_line(capfd) -> None:
    """Exit code or signal (one Python has no name for too), and the last non-blank line of its stderr, cut at
    QUOTE characters; a progress line ended by carriage returns is passed on as lines; none quoted when silent."""
    long, exact = b"x" * (QUOTE + 50), b"y" * QUOTE
    tasks = [{"n": 1, "err": b"first\n" + long + b"\n\n  \n", "code": 3},
             {"n": 2, "err": b"step 1\rstep 2\r", "code": 0},
             {"n": 3, "err": b"", "code": -40},
             {"n": 4, "err": exact, "code": 5}]
    capfd.readouterr()
    recs = {r["task"]: r for r in _isolated(_exit_after_writing, tasks, jobs=1)}
    err = capfd.readouterr().err
    head = "WorkerDied: the run's process ended with "
    assert recs[1]["status"] == "error" and recs[1]["error"].startswith(head + "exit code 3 without")
    assert recs[1]["error"].endswith(f"stderr: '{'x' * (QUOTE - 3)}...'")
    assert recs[2]["error"].startswith(head + "exit code 0 ") and recs[2]["error"].endswith("stderr: 'step 2'")
    assert recs[3]["error"].startswith(head + "killed by signal 40 ") and "last line" not in recs[3]["error"]
    assert recs[4]["error"].endswith(f"stderr: '{'y' * QUOTE}'")
    assert "step 1\nstep 2\n" in err and err.endswith(exact.decode() + "\n")


def test_a_hung_run_is_killed_at_its_hard_limit_and_timed() -> None:
    """Killed at once (SIGTERM, no grace period needed) when its hard limit is up, and timed from its start."""
    _isolated(_stamp, [{"n": 0}])  # the fork server, if any, is started now: its imports are not the run's time
    (rec,) = _isolated(_sleep, [{"n": 1}], limit=2.0)
    assert rec["status"] == "timeout" and rec["error"].startswith("RunTimeout: no result after 2 s")
    # under 2 limits: a load margin of almost 2 s (a 1 s limit with a 1.9 s bound is tight on a loaded CI machine)
    assert 2.0 < rec["wall"] < 3.9, rec["wall"]


def test_a_hard_limit_of_centuries_is_waited_on_and_no_descriptor_is_left_open() -> None:
    _isolated(_stamp, [{"n": 0}])  # the fork server, if any, is started now
    before = len(os.listdir("/proc/self/fd"))
    assert sorted(r["task"] for r in _isolated(_stamp, [{"n": 1}, {"n": 2}, {"n": 3}], limit=1e12)) == [1, 2, 3]
    assert len(os.listdir("/proc/self/fd")) == before


def test_the_socket_path_limit_is_inclusive() -> None:
    room = SOCKET_PATH_MAX - _LISTENER_SUFFIX
    assert socket_fits("/" + "a" * (room - 1)) and not socket_fits("/" + "a" * room)


def test_run_isolated_refuses_a_deleted_working_folder(tmp_path: Path, monkeypatch) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(OlctcError, match="the current folder no longer exists"):
        _isolated(_stamp, [])
