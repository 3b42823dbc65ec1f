"""`olctc fit` and `olctc solve` leave a HiGHS solve still busy well past its time limit, with the best
solution HiGHS had found (fit: else the warm start).

HiGHS checks no clock in parts of its presolve (on a6a and w5a, `fit --time-limit 60` ran 57-111 s, and
94 s at --time-limit 15). The console program now leaves such a solve ``overrun_grace`` past the limit,
at the lowest CPU priority, takes the incumbent HiGHS's improving-solution callback kept (none: fit keeps
the warm start), and exits by ``os._exit``. The tests make the improving-solution callback (or the whole run)
block the solver thread. One opt-in test makes HiGHS hang for real, on the machines where it does: its sparsify
presolve step, which olctc switches off because it never returned on a6a's score form, is switched back on.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import olctc
from conftest import cli_here
from olctc.solve.inprocess import LEAVE_WAIT
from olctc.solve.options import overrun_grace


def _run_python(code: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


# A fresh process for each: leaving lowers the priority of every other thread of the process.
NATIVE = """
    import json, os
    os.environ["OPENBLAS_NUM_THREADS"] = "2"  # numpy's BLAS with threads of its own, on any machine
    import threading, time
    import numpy
    from threadpoolctl import threadpool_info
    from olctc import process_state
    from olctc.solve import inprocess

    def blas_threads():
        return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    release, seen = threading.Event(), {}

    def call():
        seen["tid"] = threading.get_native_id()
        stopped = release.wait(30)
        return "stopped" if stopped else "ran out"

    def cancel():
        seen["asked"] = time.monotonic() - t0
        if HONOUR:
            release.set()

    seen["blas_before"] = blas_threads()
    t0 = time.monotonic()
    try:
        seen["value"] = inprocess._native(call, leave_at=t0 + 0.5, cancel=cancel)
    except inprocess.SolverLeft:
        seen["left"] = True
    seen["took"] = time.monotonic() - t0
    seen["solver_left"] = process_state.solver_left()
    seen["nice_solver"] = os.getpriority(os.PRIO_PROCESS, seen["tid"])
    seen["nice_main"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen["blas_after"] = blas_threads()
    release.set()
    print(json.dumps(seen))
"""


def test_a_call_still_running_past_leave_at_is_asked_to_stop_then_left_at_low_priority():
    out = _run_python("HONOUR = False\n" + textwrap.dedent(NATIVE))
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen.get("left") and "value" not in seen
    assert 0.5 <= seen["asked"] < 0.5 + 0.5
    assert 0.5 + LEAVE_WAIT <= seen["took"] < 0.5 + LEAVE_WAIT + 1.0
    assert seen["solver_left"] is True
    assert (seen["nice_solver"], seen["nice_main"]) == (19, 0)
    # BLAS's own threads were given the lowest priority too, and every product after waited on them behind the
    # solver (a6a's decode and refinement 2 s instead of 0.2): BLAS works on the caller's thread now
    assert (seen["blas_before"], seen["blas_after"]) == (2, 1)


def test_a_call_that_stops_when_asked_is_not_left():
    out = _run_python("HONOUR = True\n" + textwrap.dedent(NATIVE))
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["value"] == "stopped" and "left" not in seen
    assert seen["took"] < 0.5 + 0.5
    assert seen["solver_left"] is False and seen["nice_solver"] == 0
    assert seen["blas_before"] == seen["blas_after"] == 2


# HiGHS busy in work that checks no clock after it has found an incumbent: the improving-solution callback
# that keeps the incumbent is made to block the solver thread (a real HiGHS run, a real incumbent).
HANG_AFTER_INCUMBENT = """
    import sys, time
    from olctc.solve import highs
    keep = highs._keep_incumbent

    def keep_then_hang(event, best):
        keep(event, best)
        time.sleep(60)

    highs._keep_incumbent = keep_then_hang
"""
# HiGHS busy before it has any incumbent (the real hang of the fit test above, without its 1,500 rows)
HANG_AT_ONCE = """
    import sys, time
    from olctc.solve import highs
    highs._highs_thread_run = lambda h: time.sleep(60)
"""


def _cli(prelude: str, args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.monotonic()
    out = _run_python(textwrap.dedent(prelude) + textwrap.dedent(f"""
        from olctc.cli import main
        sys.argv = ["olctc", *{args!r}]
        main()
    """), cwd=cwd)
    return out, time.monotonic() - t0


def _assert_fit_kept_the_warm_start(out: subprocess.CompletedProcess, took: float, folder: Path, limit: float,
                                    slack: float) -> None:
    assert out.returncode == 0, out.stderr
    meta = json.loads((folder / "tree.json").read_text())["meta"]["fit"]
    assert meta["solution_from"] == "warm start", meta
    assert meta["status"] == "feasible" and meta["solver_status"] == "no_solution"
    assert "was still running" in meta["warm_start_kept"] and "was left" in meta["warm_start_kept"]
    assert "solution from warm start (highs was still running" in out.stdout
    # the solve itself (timed by olctc's monotonic clock, as the leaving is) ends at the limit, the grace and
    # the wait; it used to be HiGHS's presolve time (79 s for fewer rows)
    assert meta["time_solve"] < limit + overrun_grace(limit) + LEAVE_WAIT + 2, meta["time_solve"]
    # the whole command also: it leaves by os._exit, not once HiGHS returns
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + slack, took


# --keep-incumbent changes only what an interrupt does (tests/test_interrupt.py); leaving is the same
@pytest.mark.parametrize("keep", [False], ids=["plain"])
def test_fit_leaves_a_highs_hung_before_any_incumbent_and_writes_the_warm_start_tree(tmp_path, keep):
    # HiGHS's run blocks the solver thread at once (HANG_AT_ONCE), as its sparsify presolve did on a6a (the test
    # below). 5 s, as the other fits here: building and the warm start leave the solver time on a loaded machine
    limit = 5
    args = ["fit", "--dataset", "heart", "--depth", "2", "--time-limit", str(limit), "--quiet", "-o", "tree.json"]
    out, took = _cli(HANG_AT_ONCE, args + (["--keep-incumbent"] if keep else []), tmp_path)
    # slack for start-up, decoding and refinement, which a loaded machine stretches (the fits below: 17.9 s
    # measured under load where 10 s of slack failed), still well below the 60 s hang
    _assert_fit_kept_the_warm_start(out, took, tmp_path, limit, slack=30)


@pytest.mark.skipif(os.environ.get("OLCTC_LONG_TESTS") != "1", reason=(
    "HiGHS's sparsify presolve hangs on 1,500 rows of a6a on some machines only (CI's HiGHS returned within the "
    "limit); OLCTC_LONG_TESTS=1 runs it (a fit leaving a hung HiGHS is checked in every run, on heart: above)"))
def test_fit_leaves_highs_hung_in_its_sparsify_presolve_and_writes_the_warm_start_tree(tmp_path):
    # 1,500 rows of a6a; with sparsify on, HiGHS's presolve of the score form took 79 s at a 5 s limit
    # (2,000 rows; 12-56 s with 1,000, over 106 s with 1,500), and never returned on the whole set, on the
    # machine this was measured on; on CI's, HiGHS 1.16 returned within the limit. The limit
    # leaves the solver time on a loaded machine: at 8 s with 2,500 rows, building and the warm start took
    # 3.6-4.5 s under load and the fit refused to start ("give at least 9 s"): it refuses once they and its
    # reserve pass the limit less 2.2 s. Measured side by side under load, they and the reserve took 2.5 s with
    # 2,000 rows (this test's earlier 10 s allowed three times that), 1.0-1.3 s with 1,500 or 1,000 rows (the
    # warm start's time hardly depends on them): 7 s allows almost four times that, 5 s only twice (refused on
    # a machine loaded four times over). Not 1,000 rows: their 12 s hang is too close to the solve's 8 s
    src = Path(olctc.__file__).parent / "datasets" / "a6a.csv.gz"
    with gzip.open(src, "rt") as f:
        lines = [next(f) for _ in range(1501)]
    (tmp_path / "a6a.csv").write_text("".join(lines))
    target = lines[0].strip().split(",")[-1]
    limit = 7
    args = ["fit", "a6a.csv", "--target", target, "--depth", "2", "--time-limit", str(limit), "--threads", "1",
            "--quiet", "-o", "tree.json"]
    # HiGHS as shipped: its sparsify presolve step, which olctc switches off, hangs here
    prelude = """
        import sys
        import olctc.emit.params as params
        params.WORKAROUNDS["highs"] = {}
    """
    out, took = _cli(prelude, args, tmp_path)
    if out.returncode == 0 and "solution from highs" in out.stdout:
        pytest.skip("HiGHS's sparsify presolve returned within the limit on this machine: nothing was left")
    # start-up, reading 1,500 rows, decoding and refinement are CPU work a loaded machine stretches: 32 s
    # measured under load (15 s of slack failed), still well below the hang's 79 s
    _assert_fit_kept_the_warm_start(out, took, tmp_path, limit, slack=40)


@pytest.fixture(scope="module")
def heart_compiled(tmp_path_factory) -> Path:
    """The heart depth-1 model and its start files, compiled once, in this process (compiling is not what
    these tests check). Depth 1: its model (0.46 MB) is a quarter of depth 2's, and reading and checking it
    take under half the time (below)."""
    folder = tmp_path_factory.mktemp("heart")
    res = cli_here("compile", "--dataset", "heart", "--depth", "1", "-o", folder / "h.mps")
    assert res.returncode == 0, res.stderr
    return folder


#: the tests of heart_compiled's model: one worker compiles it once
HEART_GROUP = pytest.mark.xdist_group("test_solver_overrun_heart")


@pytest.fixture
def heart_model(heart_compiled, tmp_path):
    # a copy of its own: one test writes h.sol beside the model, another checks that none is written
    for f in heart_compiled.iterdir():
        shutil.copy(f, tmp_path)
    return tmp_path / "h.mps"


@HEART_GROUP
def test_solve_leaves_a_busy_highs_and_writes_its_best_solution(heart_model):
    import highspy
    import numpy as np
    import scipy.sparse as sp

    from olctc.read import read_solution

    # the limit covers reading the model: at 2 s, reading depth 2's took 1.4 s on a loaded machine and solve
    # refused to start ("no time is left to solve"). Side by side under load, the solve had spent 0.5-0.7 s on
    # depth 2's before solving and 0.3 s on depth 1's (the fixture's): 2 s allows 4 times that, as 3 s did
    limit = 2
    out, took = _cli(HANG_AFTER_INCUMBENT, ["solve", "h.mps", "--time-limit", str(limit), "--quiet", "-o", "h.sol"],
                     heart_model.parent)
    assert out.returncode == 0, out.stderr
    assert "was left: the best solution it had found is written" in out.stdout, out.stdout
    # below the callback's 60 s; the slack is start-up, reading and writing, which a loaded machine stretches
    # (the fit tests below measured 17.9 s for a 17.2 s bound with 10 s of slack)
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + 30, took
    sol = read_solution(heart_model.parent / "h.sol")
    assert sol.status == "feasible" and sol.values
    # the values are the original model's, every column: objective and rows recomputed from the file
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(heart_model))
    lp = h.getLp()
    x = np.array([sol.values[n] for n in lp.col_names_])
    A = sp.csc_matrix((lp.a_matrix_.value_, lp.a_matrix_.index_, lp.a_matrix_.start_),
                      shape=(lp.num_row_, lp.num_col_))
    ax = A @ x
    assert np.all(ax >= np.array(lp.row_lower_) - 1e-6) and np.all(ax <= np.array(lp.row_upper_) + 1e-6)
    assert np.array(lp.col_cost_) @ x + lp.offset_ == pytest.approx(sol.objective, rel=1e-9)


@HEART_GROUP
def test_solve_leaving_a_highs_with_no_solution_writes_nothing(heart_model):
    limit = 2  # reading the model is part of it, as above
    out, took = _cli(HANG_AT_ONCE, ["solve", "h.mps", "--time-limit", str(limit), "--quiet", "-o", "h.sol"],
                     heart_model.parent)
    assert out.returncode == 1, out.stderr
    assert "past its time limit (work that checks no clock) and was left, with no solution; nothing written" \
        in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert not (heart_model.parent / "h.sol").exists()
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + 30, took  # below the 60 s hang; slack as above


# HiGHS deaf to a stop request after its first incumbent, as it was for 55-93 s after a SIGTERM in some phases
# (breast, depth 3; under Slurm, whose KillWait then SIGKILLed it with nothing written): the improving-solution
# callback blocks the solver thread, after touching a file that says the incumbent is kept.
HANG_DEAF_AFTER_INCUMBENT = """
    import pathlib, sys, time
    from olctc.solve import highs
    keep = highs._keep_incumbent

    def keep_then_hang(event, best):
        keep(event, best)
        pathlib.Path("incumbent-kept").touch()
        time.sleep(120)

    highs._keep_incumbent = keep_then_hang
"""


@HEART_GROUP
@pytest.mark.parametrize("command", ["solve", "fit"])
def test_a_highs_deaf_to_an_interrupt_is_left_with_its_incumbent(heart_model, command):
    import signal

    from olctc.solve.calls import INTERRUPT_WAIT

    folder = heart_model.parent
    args = (["solve", "h.mps", "--time-limit", "300", "-o", "h.sol"] if command == "solve" else
            ["fit", "--dataset", "heart", "--depth", "1", "--time-limit", "300", "--keep-incumbent", "-o", "t.json"])
    code = (textwrap.dedent(HANG_DEAF_AFTER_INCUMBENT)
            + f"\nfrom olctc.cli import main\nsys.argv = ['olctc', *{args!r}]\nmain()\n")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        deadline = time.monotonic() + 120
        while not (folder / "incumbent-kept").exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (folder / "incumbent-kept").exists(), p.communicate(timeout=60)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
        took = time.monotonic() - t0
    finally:
        p.kill()
    # it waited for HiGHS until it stopped (the callback's 120 s): now INTERRUPT_WAIT, then it leaves
    assert p.returncode == 130 and took < INTERRUPT_WAIT + 20, (p.returncode, took, err)
    assert f"highs had not stopped {INTERRUPT_WAIT:g} s after the interrupt and was left" in out, out
    if command == "solve":
        assert err.strip() == "interrupted (the best solution found until then was written)", err
        from olctc.read import read_solution

        sol = read_solution(folder / "h.sol")
        # HiGHS's first incumbent is the MIP start compile wrote: the warm start's objective
        warm = json.loads((folder / "h.olctc.json").read_text())["warm_start"]["objective"]
        assert sol.raw_status == "Interrupted by user" and sol.objective == pytest.approx(warm, rel=1e-9)
    else:
        fit = json.loads((folder / "t.json").read_text())["meta"]["fit"]
        assert fit["solution_from"] == "highs" and "had not stopped" in fit["solver_left"], fit


def test_fit_leaves_a_busy_highs_with_its_best_solution(tmp_path):
    # 5 s, as every fit in the tests: at 3 s fit's budget (90% of what building, the warm start and a 0.5 s
    # reserve leave, minus 1 s) left the solver under 1 s once building and the warm start took 0.3 s, on a
    # loaded machine, and the fit refused to start ("give at least 4 s"); 4 s tolerates 1.28 s, 5 s 2.28 s
    limit = 5
    out, took = _cli(HANG_AFTER_INCUMBENT, ["fit", "--dataset", "heart", "--depth", "2", "--time-limit", str(limit),
                                            "-o", "tree.json"], tmp_path)
    assert out.returncode == 0, out.stderr
    fit = json.loads((tmp_path / "tree.json").read_text())["meta"]["fit"]
    assert fit["solution_from"] == "highs" and "warm_start_kept" not in fit, fit
    assert "was still running" in fit["solver_left"] and "was left" in fit["solver_left"]
    assert fit["status"] == fit["solver_status"] == "feasible"
    # HiGHS's first incumbent is the warm start it was given: the same objective, now the solver's answer
    assert fit["objective_milp"] == pytest.approx(fit["objective_warm_start"], rel=1e-9)
    assert "taking the best solution it had found" in out.stdout
    # the report says so too (a --quiet fit prints only it): "solution from highs" alone read as a normal stop
    assert f"solution from highs ({fit['solver_left']})" in out.stdout, out.stdout
    assert fit["time_solve"] < limit + overrun_grace(limit) + LEAVE_WAIT + 2, fit["time_solve"]
    # the whole command leaves HiGHS (the callback sleeps 60 s): 17.9 s measured under load, where 10 s of
    # slack for start-up, the model, decoding and refinement failed
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + 30, took


# HiGHS busy past its limit in work that checks no clock, which stops when olctc asks at the leave point: the
# improving-solution callback blocks the solver thread until cancelSolve is called.
BUSY_UNTIL_ASKED = """
    import sys, threading
    import highspy
    from olctc.solve import highs

    asked = threading.Event()
    keep, cancel = highs._keep_incumbent, highspy.Highs.cancelSolve

    def keep_until_asked(event, best):
        keep(event, best)
        asked.wait(60)

    def cancel_and_release(self):
        cancel(self)
        asked.set()

    highs._keep_incumbent = keep_until_asked
    highspy.Highs.cancelSolve = cancel_and_release
"""


def test_a_highs_that_stops_when_asked_at_the_leave_point_ends_a_fit_on_time_not_interrupted(tmp_path):
    """HiGHS, asked to stop at the leave point, stopped within LEAVE_WAIT with "Interrupted by user": the fit took
    it for the user's interrupt and exited 130 with no tree (QA, w5a depth 3 at --time-limit 10, no signal sent).
    It is the time limit's stop: the fit keeps HiGHS's solution and exits 0."""
    limit = 5
    out, took = _cli(BUSY_UNTIL_ASKED, ["fit", "--dataset", "heart", "--depth", "2", "--time-limit", str(limit),
                                        "-o", "tree.json"], tmp_path)
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert "interrupted" not in out.stderr
    fit = json.loads((tmp_path / "tree.json").read_text())["meta"]["fit"]
    assert fit["solution_from"] == "highs" and "solver_left" not in fit, fit
    assert (fit["status"], fit["raw_status"]) == ("feasible", "Time limit reached"), fit
    assert took < limit + overrun_grace(limit) + LEAVE_WAIT + 40, took


@HEART_GROUP
def test_a_highs_that_stops_when_asked_at_the_leave_point_ends_a_solve_on_time(heart_model):
    limit = 2
    out, _ = _cli(BUSY_UNTIL_ASKED, ["solve", "h.mps", "--time-limit", str(limit), "--quiet", "-o", "h.sol"],
                  heart_model.parent)
    assert out.returncode == 0 and "interrupted" not in out.stderr, (out.returncode, out.stderr)
    from olctc.read import read_solution

    sol = read_solution(heart_model.parent / "h.sol")
    assert (sol.status, sol.raw_status) == ("feasible", "Time limit reached") and sol.values
