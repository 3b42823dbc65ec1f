"""Tests from a mutation-testing pass over olctc.solve.calls (the solver thread, an interrupt's and an overrun's
handling, folded output), olctc.solve.native and olctc.solve.result: each pins a behaviour that a small code change
(a mutant) broke without any other test failing. Real threads, real signals, real file descriptors; the solver
calls are small Python callables standing in for a native solve (the behaviour pinned is ``_native``'s own).
(test_solve_external_mutation_gaps.py and test_solve_inprocess_mutation_gaps.py hold the earlier passes' tests.)"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from test_solve_external_mutation_gaps import _model

from olctc import fpenv
from olctc.errors import OlctcError
from olctc.read import read_solution
from olctc.solve import SolveResult, solve_file, write_native_solution
from olctc.solve.calls import INTERRUPT_WAIT, _native, _start_values, repeats_folded
from olctc.solve.options import SolveOptions
from olctc.solve.result import highs_gap_left, limit_kind, relative_gap


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread for the test (a test run may have inherited it
    ignored), and the handler found is put back (at the C level too) afterwards."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


# ------------------------------------------------------------------ _native: where the call runs
def test_a_library_callers_call_runs_in_its_own_thread_and_a_stoppable_one_in_the_solver_thread() -> None:
    """A library caller's main thread runs an unstoppable call itself (a busy thread left behind would outlive
    it); a call that can be stopped runs in the long-lived solver thread, so that an interrupt is seen at once."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("the main thread's rule")
    assert _native(threading.current_thread) is threading.main_thread()
    assert _native(threading.current_thread, stop=lambda: None).name == "olctc-solver"


def test_an_error_in_the_solver_thread_reaches_the_caller_as_itself() -> None:
    """A solver's exception (an OlctcError of a bad model, a MemoryError) is raised in the caller's thread as it
    was, not as a missing result."""
    def fails() -> None:
        raise OlctcError("the solver refused the model")

    with pytest.raises(OlctcError, match="the solver refused the model"):
        _native(fails, stop=lambda: None)


def test_a_call_runs_in_the_callers_floating_point_environment() -> None:
    """The solver thread takes the caller's FPU settings for the call (as if the caller ran it): a caller left at
    double precision by Xpress gets its solver call run at double precision too, in any worker."""
    if fpenv.controls() is None:
        pytest.skip("reads x86-64 glibc's fenv_t")
    with fpenv.kept():
        raw = bytearray(fpenv.saved().raw)
        raw[0:2] = (0x27F).to_bytes(2, "little")  # the x87 control word: double precision
        fpenv.restore(ctypes.create_string_buffer(bytes(raw), len(raw)))
        assert list(_native(fpenv.controls, stop=lambda: None)) == [0x27F, 0x1F80]
    assert list(_native(fpenv.controls, stop=lambda: None)) != [0x27F, 0x1F80]


@pytest.mark.parametrize("solver", ["scip", "cbc"])
def test_an_in_process_solves_runtime_is_the_time_it_took(tmp_path: Path, solver: str) -> None:
    """The runtime of an in-process solve is the optimize call's wall time: positive, and not the whole call's."""
    t0 = time.perf_counter()
    res = solve_file(_model(tmp_path), solver, threads=1, verbose=False)
    assert res.status == "optimal" and 0 < res.runtime <= time.perf_counter() - t0


def test_a_solve_without_a_start_never_asks_for_the_bounds() -> None:
    """The bounds may cost a pass over the model (SCIP's, the commercial solvers'): without a start they are not
    asked for."""
    def no_bounds() -> tuple[np.ndarray, np.ndarray]:
        raise AssertionError("bounds asked for")

    assert _start_values(SolveOptions(), ["x", "y"], no_bounds) is None


# ------------------------------------------------------------------ _native: an interrupt
def test_an_interrupt_asks_a_stoppable_call_to_stop_until_it_does_and_returns_its_result(ctrl_c: None) -> None:
    """Ctrl-C during a solve that can be stopped: the solver is asked to stop, asked again when it refuses (it had
    not started), and its result (the incumbent) is returned; no KeyboardInterrupt reaches the caller."""
    release, asked = threading.Event(), []

    def call() -> str:
        os.kill(os.getpid(), signal.SIGINT)  # the main thread, waiting in _native, gets the KeyboardInterrupt
        return "stopped" if release.wait(10) else "ran on"

    def stop() -> None:
        asked.append(time.monotonic())
        if len(asked) == 1:
            raise RuntimeError("not started yet")
        release.set()

    try:
        value = _native(call, stop=stop)
    except KeyboardInterrupt:
        pytest.fail("the interrupt reached the caller of a call that can be stopped")
    assert value == "stopped" and len(asked) == 2


def test_an_interrupt_of_a_call_that_cannot_be_stopped_goes_on_at_once(ctrl_c: None) -> None:
    """Without ``stop`` (python-mip's CBC) the KeyboardInterrupt goes on at once, the call left running (the
    console program leaves by os._exit), rather than waiting for the solve's end."""
    release = threading.Event()

    def call() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        return "stopped" if release.wait(3) else "ran on"

    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            _native(call, leave_at=time.monotonic() + 60)
        assert time.monotonic() - t0 < 2.0
    finally:
        release.set()


def test_the_callers_ctrl_c_handler_is_taken_back_while_the_call_runs(ctrl_c: None) -> None:
    """Clp installs its own SIGINT handler while it solves an LP, and CBC then ignored Ctrl-C when that LP was not
    its root's: _native puts the caller's handler back (at the C level) while it waits."""
    libc = ctypes.CDLL(None)
    libc.signal.restype, libc.signal.argtypes = ctypes.c_void_p, [ctypes.c_int, ctypes.c_void_p]
    sig_ign = 1

    def call() -> int | None:
        libc.signal(signal.SIGINT, sig_ign)  # as a native library would
        time.sleep(0.4)
        return libc.signal(signal.SIGINT, sig_ign)  # what is installed now (the fixture puts Python's back)

    assert _native(call, stop=lambda: None) not in (None, sig_ign)


def test_the_console_program_waits_for_an_interrupted_solver_less_than_slurms_kill_wait() -> None:
    """After an interrupt's stop the console program waits INTERRUPT_WAIT seconds before leaving the solver: it
    must be well below Slurm's KillWait (30 s by default), which kills the job with nothing written."""
    assert 2.5 < INTERRUPT_WAIT <= 15


# ------------------------------------------------------------------ _native: leave_at
def test_a_call_past_leave_at_is_asked_by_cancel_not_stop() -> None:
    """At ``leave_at`` a call is asked to stop by ``cancel`` when there is one (``stop`` would keep the solve's
    interrupt status), promptly, and the result of a call that then stops is returned."""
    release, asked = threading.Event(), []

    def ask(name: str) -> None:
        asked.append(name)
        release.set()

    t0 = time.monotonic()
    value = _native(lambda: "stopped" if release.wait(10) else "ran on", stop=lambda: ask("stop"),
                    leave_at=t0 + 0.2, cancel=lambda: ask("cancel"))
    assert (value, asked) == ("stopped", ["cancel"])
    assert 0.2 <= time.monotonic() - t0 < 1.1


def test_a_call_past_leave_at_whose_cancel_fails_is_given_a_second_to_stop() -> None:
    """A cancel that raises is ignored, and a call that stops within LEAVE_WAIT (1 s) of being asked is waited
    for: its result comes back, no SolverLeft."""
    release = threading.Event()

    def cancel() -> None:
        threading.Timer(0.4, release.set).start()  # the solver stops 0.4 s later, of its own accord
        raise RuntimeError("the solver cannot be cancelled yet")

    value = _native(lambda: "stopped" if release.wait(3) else "ran on", leave_at=time.monotonic() + 0.1,
                    cancel=cancel)
    assert value == "stopped"


_REDIRECTED = """
import sys
from olctc.solve.calls import _fd_redirected
print("before")  # buffered: stdout is a pipe
with open(sys.argv[1], "w") as null, _fd_redirected(1, null):
    print("inside")
print("after")
"""


def test_a_redirection_keeps_what_python_buffered_on_its_own_side(tmp_path: Path) -> None:
    """A quiet HiGHS solve points fd 1 at /dev/null for its call: what Python had buffered before goes out first,
    and what it buffered inside goes to the file, not to the restored stdout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    res = subprocess.run([sys.executable, "-c", _REDIRECTED, str(tmp_path / "null")], capture_output=True,
                         text=True, timeout=60, env=env)
    assert (res.returncode, res.stdout, (tmp_path / "null").read_text()) == (0, "before\nafter\n", "inside\n")


# ------------------------------------------------------------------ repeats_folded
def test_a_line_repeated_twice_is_counted_by_its_first_80_characters(capfd: pytest.CaptureFixture[str]) -> None:
    """Each distinct line passes once; a line written twice gets its count line too (not only many repeats),
    naming the first 80 characters; a last line without its newline still passes through."""
    capfd.readouterr()
    long = b"L" * 79 + b"Mx" * 10
    with repeats_folded(2):
        for line in (b"twice\n", b"twice\n", long + b"\n", long + b"\n", b"once\n"):
            os.write(2, line)
        os.write(2, b"no newline")
    err = capfd.readouterr().err
    assert err.startswith("twice\n" + long.decode() + "\nonce\nno newline"), err
    assert err.endswith("(the line 'twice' was printed 2 times)\n"
                        f"(the line '{'L' * 79}M' was printed 2 times)\n"), err


def test_a_block_that_does_not_fold_passes_every_repeat(capfd: pytest.CaptureFixture[str]) -> None:
    """once=False (a quiet CBC solve, which only hides Clp's debug lines) passes every repeated line, also beside a
    folding block: a line is folded only when every block in progress folds."""
    capfd.readouterr()
    with repeats_folded(2, once=False):
        os.write(2, b"again\n")
        with repeats_folded(2):
            os.write(2, b"again\n")
            os.write(2, b"again\n")
            time.sleep(0.2)  # the reader judges a line by the blocks in progress when it reads it
        os.write(2, b"again\n")
    assert capfd.readouterr().err == "again\n" * 4


def test_a_child_process_writing_after_the_block_has_its_lines_passed_as_written(
        capfd: pytest.CaptureFixture[str]) -> None:
    """A child started during a folding block keeps the pipe: its lines after the block are passed on unchanged,
    repeats included (the block's folding ended with it)."""
    capfd.readouterr()
    with repeats_folded(2):
        child = subprocess.Popen([sys.executable, "-c", "import os, time; time.sleep(0.5); "
                                  "os.write(2, b'child\\n'); os.write(2, b'child\\n')"])
    assert child.wait(30) == 0
    time.sleep(0.2)  # the reader passes the child's lines on
    assert capfd.readouterr().err == "child\nchild\n"


def test_a_line_is_hidden_only_while_every_block_hides_it(capfd: pytest.CaptureFixture[str]) -> None:
    """A quiet solve's known notice is hidden, but shown while a verbose solve runs beside it; once the verbose
    block has ended its settings are gone and the notice is hidden again. (The reader judges a line by the blocks in
    progress when it reads it: the pauses let it read each line before the next block starts or ends.)"""
    capfd.readouterr()
    with repeats_folded(2, hide=(b"notice",), once=False):
        os.write(2, b"notice 1\n")
        time.sleep(0.2)
        with repeats_folded(2, once=False):
            os.write(2, b"notice 2\n")
            time.sleep(0.2)
        os.write(2, b"notice 3\n")
        os.write(2, b"other\n")
    assert capfd.readouterr().err == "notice 2\nother\n"


# ------------------------------------------------------------------ olctc.solve.native
def _result(status: str, raw: str, x: tuple[float, ...] | list[float] | None = (1.0, 0.0),
            objective: float | None = 20.0, bound: float | None = 10.0, solver: str = "highs") -> SolveResult:
    """A result of two columns a, b (values ``x``) as ``solver`` reports it."""
    values = None if x is None else np.array(x, dtype=float)
    return SolveResult(status, None if values is None else objective, bound, None, values, ["a", "b"], solver, "v",
                       1.0, raw)


def test_a_highs_optimum_olctc_did_not_take_as_proven_is_not_written_optimal(tmp_path: Path) -> None:
    """DEFECT fixed: HiGHS's file kept HiGHS's own "Optimal" for a result olctc made "feasible" (a gap HiGHS should
    not have left, a bound above the objective: raw_status keeps "Optimal"); the file read back, and decoded, as a
    proven optimum. Its words are then olctc's ("Unknown" with values: feasible); a real optimum keeps HiGHS's."""
    write_native_solution(_result("feasible", "Optimal"), tmp_path / "m.highs.sol", "highs")
    assert read_solution(tmp_path / "m.highs.sol").status == "feasible"
    write_native_solution(_result("optimal", "Optimal", objective=10.0), tmp_path / "o.highs.sol", "highs")
    assert (tmp_path / "o.highs.sol").read_text().startswith("Model status\nOptimal\n")


def test_a_highs_file_writes_negative_zero_as_zero_and_no_infinite_gap(tmp_path: Path) -> None:
    """Solvers return -0.0 for columns at 0: written "0" (HiGHS's own), never "-0"; a gap that overflowed (an
    objective of 1e-310) is left out like an infinite bound, where HiGHS's reader would take "inf" for a gap."""
    res = _result("feasible", "Time limit reached", x=[-0.0, 2.0], objective=1e-310, bound=1.0)
    res.gap = float("inf")
    write_native_solution(res, tmp_path / "h.sol", "highs")
    text = (tmp_path / "h.sol").read_text()
    assert "Objective_bound 1\n# Columns 2\na 0\nb 2\n" in text and "MIP_rel_gap" not in text


def test_a_cbc_file_of_no_solution_for_an_unknown_reason_says_status_unknown(tmp_path: Path) -> None:
    """CBC's "(no integer solution - continuous used)" follows the words of a known early stop only: a stop of no
    known kind without a solution is "Status unknown", objective 0, and reads back as no solution."""
    write_native_solution(_result("no_solution", "NO_SOLUTION_FOUND", x=None), tmp_path / "c.sol", "cbc")
    assert (tmp_path / "c.sol").read_text() == "Status unknown - objective value 0.00000000\n"
    assert read_solution(tmp_path / "c.sol", col_names=["a", "b"]).status == "no_solution"


def test_an_interrupted_solves_file_says_so_in_every_format_with_status_words(tmp_path: Path) -> None:
    """An interrupt's words per format (HiGHS's "Interrupted by user", CBC's "Stopped on ctrl-c", SCIP's "user
    interrupt", CPLEX's "113 aborted"), read back, are an interrupt again: decode and the solve's exit code (130)
    tell the stop by them."""
    for fmt in ("highs", "cbc", "scip", "cplex"):
        write_native_solution(_result("feasible", "userinterrupt", solver="scip"), tmp_path / f"m.{fmt}.sol", fmt)
        sol = read_solution(tmp_path / f"m.{fmt}.sol", col_names=["a", "b"])
        assert (sol.status, limit_kind(sol.raw_status)) == ("feasible", "interrupt"), (fmt, sol.raw_status)


@pytest.mark.parametrize("fmt, raw, words", [
    ("scip", "nodelimit", "node limit reached"), ("scip", "gaplimit", "gap limit reached"),
    ("cplex", "nodelimit", '"106" solutionStatusString="node limit exceeded, no')])
def test_a_node_or_gap_limits_file_names_the_limit(tmp_path: Path, fmt: str, raw: str, words: str) -> None:
    """SCIP's and CPLEX's formats have words of their own for a node limit (CPLEX's code 106 without a solution)
    and SCIP's for a gap limit: such a stop is not written as an unknown stop."""
    write_native_solution(_result("no_solution", raw, x=None, solver="scip"), tmp_path / f"m.{fmt}.sol", fmt)
    assert words in (tmp_path / f"m.{fmt}.sol").read_text().replace("\n   ", " ")


# ------------------------------------------------------------------ olctc.solve.result
@pytest.mark.parametrize("raw, kind", [
    ("nodelimit", "nodes"), ("gaplimit", "gap"), ("bestsollimit", "solutions"),  # SCIP's
    ("NO_SOLUTION_FOUND, stopped on nodes", "nodes"),  # python-mip's status, then CBC's reason
    ("NO_SOLUTION_FOUND, stopped on iterations", "iterations"),
    ("NO_SOLUTION_FOUND", "other"),
    ("114 aborted, no integer solution", "interrupt"),  # CPLEX's file, as read back: an abort, no solution limit
])
def test_limit_kind_takes_no_solution_for_no_solution_limit(raw: str, kind: str) -> None:
    """DEFECT fixed: the "sol" of python-mip's NO_SOLUTION_FOUND (and of CPLEX's "no integer solution") was taken for
    a solution limit: CBC stopped on iterations before any solution was written "Solution limit reached" to HiGHS's
    file, and code 104 "solution limit exceeded" to CPLEX's. The node and gap limits keep their kinds."""
    assert limit_kind(raw) == kind


def test_a_cbc_stop_on_iterations_without_a_solution_is_an_iteration_limit_in_highss_file(tmp_path: Path) -> None:
    """The defect above, as a file: HiGHS's words for CBC's iteration limit before any solution."""
    write_native_solution(_result("no_solution", "NO_SOLUTION_FOUND, stopped on iterations", x=None, solver="cbc"),
                          tmp_path / "m.highs.sol", "highs")
    assert (tmp_path / "m.highs.sol").read_text().startswith(
        "Model status\nIteration limit reached\n\n# Primal solution values\nNone\n")  # HiGHS's "no values"


@pytest.mark.parametrize("raw, code", [("userinterrupt", 114), ("memlimit", 114), ("nodelimit", 106)])
def test_a_cplex_file_without_a_solution_has_the_no_solution_code_of_its_stop(tmp_path: Path, raw: str,
                                                                              code: int) -> None:
    """CPLEX's codes without an incumbent (114 aborted, 106 node limit: ", no integer solution"), never the code of
    a stop with one (113, 105, 127 "integer feasible"), which CPLEX's own reader takes as holding a solution."""
    write_native_solution(_result("no_solution", raw, x=None, solver="scip"), tmp_path / "m.cplex.sol", "cplex")
    text = (tmp_path / "m.cplex.sol").read_text()
    assert f'solutionStatusValue="{code}"' in text and ', no integer solution"' in text


def test_a_scip_file_lists_the_nonzero_columns_only(tmp_path: Path) -> None:
    """As SCIP writes its own (a missing column is 0 to its reader)."""
    write_native_solution(_result("optimal", "optimal", objective=10.0), tmp_path / "m.scip.sol", "scip")
    assert (tmp_path / "m.scip.sol").read_text().splitlines()[2:] == [f"{'a':<32} {'1':>20}"]


def test_values_or_costs_that_do_not_match_the_columns_are_refused(tmp_path: Path) -> None:
    """More values than columns (not only fewer), or costs of another length, are refused rather than cut to fit."""
    res = _result("optimal", "Optimal", x=[1.0, 0.0, 3.0], objective=10.0)
    with pytest.raises(OlctcError, match="result has 3 values for 2 columns"):
        write_native_solution(res, tmp_path / "m.sol", "highs")
    with pytest.raises(OlctcError, match="costs have 3 entries for 2 columns"):
        write_native_solution(_result("optimal", "Optimal", objective=10.0), tmp_path / "m.sol", "scip",
                              costs=[1.0, 2.0, 3.0])  # type: ignore[arg-type]  # a list, as a caller may pass
    assert not (tmp_path / "m.sol").exists()


def test_the_gap_of_a_maximisations_file_is_positive_and_a_result_without_values_has_none() -> None:
    """A file may maximise (its bound above its objective): the gap is |objective - bound| / |objective|, never
    negative, and unknown without a bound; values() of a result without a solution is an empty mapping, not None
    (callers iterate over it)."""
    assert relative_gap(10.0, 12.0) == pytest.approx(0.2, abs=1e-15)
    assert relative_gap(10.0, None) is None  # no bound known (CBC before its root LP)
    assert _result("infeasible", "Infeasible", x=None).values() == {}


def test_highs_leaves_a_gap_only_below_its_objective_and_beyond_ten_times_its_absolute_gap() -> None:
    """HiGHS's "Optimal" is no false optimum when its bound lies above the objective (bound_checked says so, with a
    warning), nor when objective and bound differ by at most 10 x mip_abs_gap (1e-5); 2e-5 is a gap left."""
    assert not highs_gap_left(0.5, 10.0, 15.0, None)
    assert highs_gap_left(0.1, 2e-4, 1.8e-4, None)


def test_an_xpress_files_name_is_one_word_and_a_gurobi_files_is_the_model_s(tmp_path: Path) -> None:
    """Xpress's NAME takes one word: the spaces of the file's name are dropped; a file named only by the suffix
    (".gurobi.sol") names the model as its stem, not as nothing."""
    res = _result("optimal", "Optimal", objective=10.0)
    write_native_solution(res, tmp_path / "my model.xpress.sol", "xpress")
    assert (tmp_path / "my model.xpress.sol").read_text().startswith("NAME mymodel\n")
    write_native_solution(res, tmp_path / ".gurobi.sol", "gurobi")
    assert (tmp_path / ".gurobi.sol").read_text().startswith("# Solution for model .gurobi\n")
