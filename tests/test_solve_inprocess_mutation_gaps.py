"""Tests from a mutation-testing pass over olctc's in-process solvers (olctc.solve.highs, .scip, .cbc), their options
(olctc.solve.options), the result object (olctc.solve.result) and olctc.solve's entry points: each pins a behaviour
that a small code change (a mutant) broke without any other test failing. Tiny real models, real solvers on one
thread. (test_solve_mutation_gaps.py and test_solve_external_mutation_gaps.py hold the earlier passes' tests.)"""
from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest
from test_solve import leak_milp
from test_solve_external_mutation_gaps import INFEASIBLE_LP, _model

from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.solve import solve_file, solve_milp, write_native_solution
from olctc.solve.options import SolveOptions, overrun_grace, start_vector
from olctc.solve.result import highs_gap_left, limit_kind, relative_gap

DATA = Path(__file__).parent / "data" / "solvers"

#: y - x <= 1 holds for any large x: min - x - y runs off to -infinity (an LP, no integer column)
UNBOUNDED_LP = "Minimize\n obj: - x - y\nSubject To\n c1: y - x <= 1\nBounds\n x >= 0\n 0 <= y <= 3\nEnd\n"


# ------------------------------------------------------------------ olctc.solve.result
@pytest.mark.parametrize("raw, kind", [
    ("Stopped on ctrl-c", "interrupt"),  # CBC's solution file after Ctrl-C
    ("abort_user", "interrupt"),  # CPLEX's status name of a user's abort
    ("Solution limit reached", "solutions"),  # HiGHS's
    ("Stopped on iterations", "iterations"),
    ("Time limit reached", "time"),  # HiGHS's, capitalised
])
def test_limit_kind_knows_every_solvers_words(raw: str, kind: str) -> None:
    """The kind of an early stop decides the status words a native solution file gets (olctc.solve.native) and
    whether fit treats the stop as the user's interrupt."""
    assert limit_kind(raw) == kind


def test_a_results_values_are_plain_floats(tmp_path: Path) -> None:
    """values() gives Python floats (numpy 2 prints its own scalars as np.float64(4.0) in messages and reprs)."""
    res = solve_file(_model(tmp_path), "highs", threads=1, verbose=False)
    assert res.has_solution and res.values() == {"x": 2.0, "y": 1.0}
    assert all(type(v) is float for v in res.values().values())


def test_highs_optimum_may_leave_twice_its_gap_and_ten_times_its_absolute_gap() -> None:
    """HiGHS's "Optimal" is taken as proven unless its gap exceeds twice mip_rel_gap (1e-4) and ten times
    mip_abs_gap (1e-6) at once: its own stopping rule, with room for round-off, is no false optimum."""
    assert not highs_gap_left(1.5e-4, 100.0, 99.985, None)
    assert not highs_gap_left(0.01, 1e-4, 0.99e-4, None)  # a 1 % gap of 1e-6 in absolute terms
    assert highs_gap_left(3e-4, 100.0, 99.97, None)


def test_relative_gap_of_a_negative_objective_is_positive() -> None:
    """|objective - bound| / |objective|: a negative objective (a minimisation below 0) has a positive gap."""
    assert relative_gap(-10.0, -12.0) == pytest.approx(0.2, abs=1e-15)


# ------------------------------------------------------------------ olctc.solve.options
def test_remaining_without_a_deadline_is_the_whole_limit() -> None:
    """A backend called without a deadline (its own caller's limit) gets the whole time limit, not none."""
    assert SolveOptions(time_limit=5.0).remaining() == 5.0 and SolveOptions().remaining() is None
    assert SolveOptions(time_limit=10.0, deadline=time.monotonic() + 5.0).remaining() == pytest.approx(5.0, abs=0.5)


def test_remaining_refuses_under_half_a_second_and_says_what_reading_took() -> None:
    """Under MIN_SOLVE_SECONDS (0.5 s) left, no solver is started: the message says how long reading took (the
    limit less what is left) and never a negative time left."""
    with pytest.raises(TimeLimitTooShort, match=r"reading the model took 9\.7 s, leaving 0\.[23]\d s of the time"):
        SolveOptions(time_limit=10.0, deadline=time.monotonic() + 0.3).remaining()
    with pytest.raises(TimeLimitTooShort, match=r"leaving 0\.00 s of the time limit"):
        SolveOptions(time_limit=10.0, deadline=time.monotonic() - 2.0).remaining()


def test_overrun_grace_is_three_seconds_and_five_percent() -> None:
    """How long the console program waits for a HiGHS past its limit before leaving it (docstring's numbers)."""
    assert overrun_grace(0.0) == 3.0 and overrun_grace(60.0) == pytest.approx(6.0, abs=1e-12)


def test_start_vector_ignores_unknown_names_and_refuses_bad_values() -> None:
    """A start read from another solver's file may name helper columns the model lacks (ignored); a start of the
    wrong length or with NaN is refused before any solver sees it."""
    assert list(start_vector({"x": 2.0, "OBJCONST_OTHER": 1.0}, ["x", "y"])) == [2.0, 0.0]
    with pytest.raises(OlctcError, match="NaN or infinite"):
        start_vector({"x": float("nan")}, ["x", "y"])
    with pytest.raises(OlctcError, match="has 3 values but the model has 2 columns"):
        start_vector(np.zeros(3), ["x", "y"])
    with pytest.raises(OlctcError, match="has 1 values but the model has 2 columns"):
        start_vector(np.zeros(1), ["x", "y"])


def test_a_start_file_without_values_is_refused(tmp_path: Path) -> None:
    """An infeasible solve's own solution file holds no values: as a MIP start it is refused, not taken as all
    zeros."""
    infeasible = _model(tmp_path, INFEASIBLE_LP, "inf.lp")
    res = solve_file(infeasible, "highs", threads=1, verbose=False)
    assert res.status == "infeasible"
    write_native_solution(res, tmp_path / "inf.sol", "highs")
    with pytest.raises(OlctcError, match=r"inf\.sol holds no solution values \(status infeasible\)"):
        solve_file(_model(tmp_path), "highs", threads=1, verbose=False, start_path=tmp_path / "inf.sol")


# ------------------------------------------------------------------ HiGHS
def test_highs_reports_an_unbounded_lp_as_unbounded(tmp_path: Path) -> None:
    """HiGHS's kUnbounded (an LP; presolve says "infeasible or unbounded" of a MIP) is "unbounded", no solution."""
    res = solve_file(_model(tmp_path, UNBOUNDED_LP), "highs", threads=1, verbose=False)
    assert (res.status, res.raw_status, res.x) == ("unbounded", "Unbounded", None)


def test_highs_from_arrays_takes_a_start_file(tmp_path: Path, capfd) -> None:
    """solve_milp(..., "highs", start_path=...) hands HiGHS the file's values (HiGHS checks the start: its log says
    so), as solve_file does."""
    milp = leak_milp()
    res = solve_milp(milp, "highs", threads=1, verbose=False)
    write_native_solution(res, tmp_path / "s.sol", "highs")
    capfd.readouterr()
    solve_milp(milp, "highs", threads=1, verbose=True, start_path=tmp_path / "s.sol")
    assert "Assessing feasibility of MIP" in capfd.readouterr().out


def test_highs_names_the_file_it_cannot_read(tmp_path: Path) -> None:
    """A complete-looking MPS file HiGHS's reader refuses is named in the error."""
    bad = tmp_path / "bad.mps"
    bad.write_text("NAME bad\nROWS\n N obj\n Q r1\nCOLUMNS\n x obj 1\nRHS\nENDATA\n")  # no row type Q
    with pytest.raises(OlctcError, match=f"HiGHS cannot read model file {re.escape(str(bad))}$"):
        solve_file(bad, "highs", threads=1, verbose=False)


def test_highs_from_arrays_solves_a_milp_without_integers_as_an_lp() -> None:
    """A MILP object with no integer column is an LP to HiGHS: its optimum is its own bound, gap 0 (no MIP bound)."""
    milp = leak_milp()
    milp.integer[:] = False
    res = solve_milp(milp, "highs", threads=1, verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(-1.0, abs=1e-6)
    assert (res.bound, res.gap) == (res.objective, 0.0)


def test_highs_incumbents_kept_for_a_solve_left_running_carry_their_bound() -> None:
    """Each improving solution HiGHS reports is kept with the dual bound of that moment: a solve left running past
    its limit reports that bound (and its gap), not none. The run is in a solver thread, as olctc's own: the caller's
    thread may hold a task scheduler of another size (an earlier test's h.run() at default threads), which HiGHS
    refuses under threads=1."""
    from olctc.solve.calls import _native
    from olctc.solve.highs import _highs_thread_run, _keep_incumbent, highs_model, read_model

    h = highs_model(SolveOptions(time_limit=1.0, threads=1, verbose=False))
    read_model(h, DATA / "mknap.mps")
    best: dict = {}
    h.cbMipImprovingSolution.subscribe(lambda e: _keep_incumbent(e, best))
    _native(lambda: _highs_thread_run(h), stop=h.cancelSolve)
    objective, bound, x = best["x"]
    assert x.shape == (250,) and bound is not None and bound < objective


# ------------------------------------------------------------------ CBC
def test_cbc_leaves_a_bad8_mps_that_was_there_before(tmp_path: Path, monkeypatch) -> None:
    """Only the bad8.mps a CBC solve dumps is removed from the working folder, never the user's own file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad8.mps").write_text("mine\n")
    res = solve_file(_model(tmp_path), "cbc", threads=1, verbose=False)
    assert res.status == "optimal" and (tmp_path / "bad8.mps").read_text() == "mine\n"


def test_cbc_names_both_the_python_mip_and_the_cbcbox_it_runs(tmp_path: Path) -> None:
    """python-mip runs cbcbox's CBC when installed (CBC devel, not the bundled 2.10): the version says both."""
    import importlib.metadata

    try:
        box = importlib.metadata.version("cbcbox")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("cbcbox is not installed")
    res = solve_file(_model(tmp_path), "cbc", threads=1, verbose=False)
    assert res.solver_version == f"CBC via mip {importlib.metadata.version('mip')}, cbcbox {box}"


# ------------------------------------------------------------------ olctc.solve's entry points
def test_a_start_objective_must_be_finite(tmp_path: Path) -> None:
    """An infinite start_objective would be CBC's cutoff (every solution cut off): refused."""
    with pytest.raises(OlctcError, match="start_objective"):
        solve_file(_model(tmp_path), "cbc", verbose=False, start_objective=float("inf"))


def test_a_milp_solved_by_a_program_names_no_solution_file() -> None:
    """solve_milp's program writes its solution into a scratch folder that is gone when the call returns: the
    result names no file (not a path that no longer exists)."""
    res = solve_milp(leak_milp(), "cbc-cli", threads=1, verbose=False)
    assert res.status == "optimal" and res.solution_path is None


def test_the_time_to_read_the_model_back_depends_on_the_solver() -> None:
    """SCIP reads a model up to 4.5 times as long as olctc wrote it, the others 3.5 times, and a solver needs half a
    second more: with 0.9 s left after 0.1 s of writing, CBC may start (0.85 s) but SCIP may not (0.95 s)."""
    from olctc.solve import _check_time_to_read

    opts = SolveOptions(time_limit=10.0, deadline=time.monotonic() + 0.9)
    _check_time_to_read(opts, "cbc", 0.1)
    with pytest.raises(TimeLimitTooShort, match=r"writing the model for scip took 0\.1 s.*about 0\.5 s\) and the 0\.5"):
        _check_time_to_read(opts, "scip", 0.1)
    with pytest.raises(TimeLimitTooShort):
        _check_time_to_read(SolveOptions(time_limit=10.0, deadline=time.monotonic() + 0.4), "cbc", 0.0)


def test_a_file_answer_lacking_a_milp_column_is_refused(tmp_path: Path) -> None:
    """Mapping a file solve's answer onto a MILP's columns names a column the answer lacks."""
    from olctc.solve import _to_milp_columns

    res = solve_file(_model(tmp_path), "highs", threads=1, verbose=False)
    with pytest.raises(OlctcError, match="the solver's answer lacks column z of the model"):
        _to_milp_columns(res, ["y", "z"])


# ------------------------------------------------------------------ olctc.solve.available
def test_a_program_that_fails_its_version_run_is_found_but_broken(tmp_path: Path, monkeypatch) -> None:
    """A program on PATH whose version run exits non-zero (a missing shared library: code 1 or 127) is found, not
    ready: "broken" in the table, its note the command, the exit code and the last line it printed, with terminal
    escapes made harmless."""
    from olctc.solve.available import _program, table_lines

    fake = tmp_path / "glpsol"
    fake.write_text("#!/bin/sh\nprintf 'first line\\nglpsol: cannot load \\033[31mlibglpk.so.40\\n\\n' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    info = _program("glpk-cli", 10.0)
    assert (info.ready, info.found, info.version, info.where) == (False, True, None, str(fake))
    assert info.note == f"cannot run it: `{fake} --version` exited with code 1: glpsol: cannot load ?[31mlibglpk.so.40"
    assert table_lines([info])[1].split()[5] == "broken"  # name, runs, "solve, grid", models, version


def test_a_quiet_highs_solve_prints_nothing(tmp_path: Path, capfd) -> None:
    """verbose=False turns HiGHS's log off (its output_flag), verbose=True on: a library call's stdout stays clean."""
    model = _model(tmp_path)
    capfd.readouterr()
    solve_file(model, "highs", threads=1, verbose=False)
    assert capfd.readouterr().out == ""
    solve_file(model, "highs", threads=1, verbose=True)
    assert "MIP m has 2 rows; 2 cols; 4 nonzeros" in capfd.readouterr().out


def test_solve_milp_gives_cbc_a_feasible_starts_objective_as_cutoff(capfd) -> None:
    """solve_milp checks a MIP start against the MILP itself: a feasible one (within 1e-7) gives CBC its objective as
    cutoff (CBC does not keep its start otherwise); one a row misses by 1e-4 gives none."""
    milp = leak_milp()  # s <= 100 z_i: s = 1e-4 with z = 0 breaks it
    capfd.readouterr()
    solve_milp(milp, "cbc", threads=1, verbose=True, start=np.zeros(3))
    assert re.search(r"cutoff\s+1e\+50 \S+ 1e-06\b", capfd.readouterr().out)
    solve_milp(milp, "cbc", threads=1, verbose=True, start=np.array([1e-4, 0.0, 0.0]))
    assert "cutoff" not in capfd.readouterr().out


def test_a_miqp_refused_says_how_to_choose_scip_in_python_too() -> None:
    """The refusal of a MIQP names the way to choose SCIP from the command line and from Python, and the
    commercial solvers that take one."""
    with pytest.raises(OlctcError, match=re.escape(
            "which highs cannot solve; solve it with SCIP (--solver scip; solver='scip' in Python; or gurobi, cplex, "
            "copt, xpress where installed)")):
        solve_file(DATA / "portable_qp.mps", "highs", verbose=False)
