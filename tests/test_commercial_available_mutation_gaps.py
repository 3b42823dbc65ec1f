"""Tests from a mutation-testing pass over the commercial in-process bridges (olctc.solve.commercial, .gurobi, .cplex,
.copt, .xpress) and ``olctc solvers`` (olctc.solve.available): each pins a behaviour that a small code change (a
mutant) broke without any other test failing. Tiny LP files solved by the real size-limited wheels on one thread;
stand-in programs only for the programs' failures (a crash, a hang, a bad banner) that no installed program shows."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from test_commercial_in_process import SOLVERS, need
from test_solve_external_mutation_gaps import INFEASIBLE_LP, INT_LP, _model, _program
from test_solve_inprocess_mutation_gaps import DATA, UNBOUNDED_LP
from test_solve_mutation_gaps import LP

from olctc.errors import OlctcError
from olctc.process_state import check_interrupt, note_interrupt
from olctc.solve import solve_file
from olctc.solve.available import SolverInfo, _gurobi, _in_process, _program as program_info, table_lines
from olctc.solve.commercial import PACKAGES
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult

#: Models of a few lines: an LP, an infeasible MIP and LP, an unbounded LP and MIP, and an infeasible MIP whose
#: objective has no bound along a column (CPLEX's presolve cannot tell which)
MODELS = {"lp": LP, "inf": INFEASIBLE_LP, "inflp": INFEASIBLE_LP.replace("General\n y\n", ""), "unb": UNBOUNDED_LP,
          "unbmip": UNBOUNDED_LP.replace("End\n", "General\n y\nEnd\n"),
          "infunb": "Minimize\n obj: - x\nSubject To\n c1: y >= 2\n c2: y <= 1\nGeneral\n x\nEnd\n"}

#: Each solver's own status words for the models that have no optimum, and olctc's status of them: "infeasible or
#: unbounded" is "infeasible", as HiGHS's kUnboundedOrInfeasible is (a tree's objective is bounded below)
NO_OPTIMUM = {
    "gurobi": {"inf": ("INFEASIBLE", "infeasible"), "inflp": ("INFEASIBLE", "infeasible"),
               "unb": ("INF_OR_UNBD", "infeasible"), "unbmip": ("UNBOUNDED", "unbounded"),
               "infunb": ("INF_OR_UNBD", "infeasible")},
    "cplex": {"inf": ("MIP_infeasible", "infeasible"), "inflp": ("infeasible", "infeasible"),
              "unb": ("infeasible_or_unbounded", "infeasible"), "unbmip": ("MIP_unbounded", "unbounded"),
              "infunb": ("MIP_infeasible_or_unbounded", "infeasible")},
    "copt": {"inf": ("INFEASIBLE", "infeasible"), "inflp": ("INFEASIBLE", "infeasible"),
             "unb": ("UNBOUNDED", "unbounded"), "unbmip": ("INF_OR_UNB", "infeasible"),
             "infunb": ("INFEASIBLE", "infeasible")},
    "xpress": {"inf": ("INFEASIBLE", "infeasible"), "inflp": ("INFEASIBLE", "infeasible"),
               "unb": ("UNBOUNDED", "unbounded"), "unbmip": ("UNBOUNDED", "unbounded"),
               "infunb": ("INFEASIBLE", "infeasible")},
}

#: min x + 2 y with 3 <= x + y <= 4 a ranged row (RANGES): optimum 3 at x = 3, y = 0
RANGED_MPS = ("NAME r\nROWS\n N obj\n L c1\nCOLUMNS\n x obj 1 c1 1\n y obj 2 c1 1\nRHS\n rhs c1 4\nRANGES\n"
              " rng c1 1\nBOUNDS\n UP bnd x 10\n UP bnd y 10\nENDATA\n")


def _solve(solver: str, folder: Path, text: str, name: str) -> SolveResult:
    need(solver)
    return solve_file(_model(folder, text, name), solver, verbose=False, threads=1)


# ------------------------------------------------------------------ the bridges' results
@pytest.mark.parametrize("solver", SOLVERS)
def test_an_lps_optimum_is_its_own_bound(solver: str, tmp_path: Path) -> None:
    """The solvers give a MIP's bound only: an LP's optimum is its bound, gap 0 (not none), and its objective the LP
    objective (Xpress keeps an LP's in lpobjval, a MIP's in mipobjval)."""
    res = _solve(solver, tmp_path, LP, "lp.lp")
    assert (res.status, res.objective, res.bound, res.gap) == ("optimal", 4.0, 4.0, 0.0), res
    assert np.array_equal(res.x, [2.0, 1.0]) and res.col_names == ["x", "y"]


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kind", ["inf", "inflp", "unb", "unbmip", "infunb"])
def test_models_without_an_optimum_say_so_in_the_solvers_words(solver: str, kind: str, tmp_path: Path) -> None:
    """Each solver's words for an infeasible or unbounded LP or MIP map to olctc's status, with no values, objective
    or bound (a status left unmapped read as a limit: "no_solution")."""
    res = _solve(solver, tmp_path, MODELS[kind], f"{kind}.lp")
    assert (res.raw_status, res.status) == NO_OPTIMUM[solver][kind]
    assert (res.x, res.objective, res.bound, res.gap) == (None, None, None, None)


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_file_without_columns_is_refused(solver: str, tmp_path: Path) -> None:
    """An LP file with no column "solves" to 0 in each solver: refused, as HiGHS, CBC and SCIP refuse it."""
    need(solver)
    path = _model(tmp_path, "Minimize\n obj: \nSubject To\nEnd\n", "empty.lp")
    with pytest.raises(OlctcError) as exc:
        solve_file(path, solver, verbose=False, threads=1)
    assert str(exc.value) == f"{PACKAGES[solver][1]} read no columns from {path}: the file is not a valid lp model"


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_ranged_rows_helper_column_is_not_the_models(solver: str, tmp_path: Path) -> None:
    """Gurobi reads an MPS ranged row as an equality plus a column MPS_Rg<row>: the result has the file's columns."""
    res = _solve(solver, tmp_path, RANGED_MPS, "r.mps")
    assert (res.status, res.objective, res.col_names) == ("optimal", 3.0, ["x", "y"])
    assert np.array_equal(res.x, [3.0, 0.0])


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_solver_gets_the_time_left_after_reading(solver: str) -> None:
    """fit's solve has a deadline: the solver gets what is left of the time limit (under 2 s here: opening the first
    Xpress problem takes 0.7 s), not the whole limit (20 s) it was opened with. mknap takes each far longer."""
    need(solver)
    backend = importlib.import_module(f"olctc.solve.{solver}")
    opts = SolveOptions(time_limit=20.0, deadline=time.monotonic() + 2.0, threads=1, verbose=False)
    res = getattr(backend, f"{solver}_file")(DATA / "mknap.mps", opts)
    assert res.status == "feasible" and res.runtime < 6.0, (res.raw_status, res.runtime)


def test_a_stop_without_a_solution_keeps_the_bound() -> None:
    """A market-split instance has no solution found in a second: status no_solution, with the solver's bound."""
    need("gurobi")
    res = solve_file(DATA / "hard_msplit.mps", "gurobi", verbose=False, threads=1, time_limit=1.0)
    assert (res.status, res.raw_status, res.x, res.objective) == ("no_solution", "TIME_LIMIT", None, None)
    assert res.bound is not None and np.isfinite(res.bound) and res.gap is None, res.bound


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_lp_given_a_start_solves_as_an_lp(solver: str, tmp_path: Path) -> None:
    """A start given with an LP is no MIP start (CPLEX refuses one: "Not a mixed-integer problem"): the LP's
    optimum, its own bound."""
    need(solver)
    res = solve_file(_model(tmp_path, LP), solver, verbose=False, threads=1, start={"x": 3.0, "y": 0.0})
    assert (res.status, res.objective, res.bound) == ("optimal", 4.0, 4.0), res


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_solvers_error_is_olctcs_alone(solver: str, tmp_path: Path) -> None:
    """The solver's own exception is not chained to olctc's (a Python caller's traceback shows one error)."""
    need(solver)
    junk = _model(tmp_path, "NAME junk\nROWS\n this is not mps\nENDATA\n", "junk.mps")
    with pytest.raises(OlctcError, match=f"^{PACKAGES[solver][1]} cannot read model file ") as exc:
        solve_file(junk, solver, verbose=False, threads=1)
    assert exc.value.__cause__ is None and exc.value.__suppress_context__


def test_an_interrupt_pending_outlives_a_solve_that_was_not_interrupted(tmp_path: Path) -> None:
    """Only a solve that reports an interrupt has handled it: one received before a solve that ran to its end (while
    reading) still stops the command at its next commit."""
    note_interrupt(True)
    try:
        res = _solve("gurobi", tmp_path, INT_LP, "m.lp")
        assert res.status == "optimal"
        with pytest.raises(KeyboardInterrupt):
            check_interrupt()
    finally:
        note_interrupt(False)


# ------------------------------------------------------------------ import_solver
@pytest.fixture(scope="module")
def imported() -> dict:
    """A fresh interpreter imports coptpy through olctc, then leaves its working folder for a removed one."""
    need("copt")
    need("cplex")
    code = textwrap.dedent("""
        import json, os, sys, tempfile
        from olctc.errors import OlctcError
        from olctc.solve.commercial import import_solver
        out = {"loaded": import_solver("copt").__name__}
        names = list(sys.modules)
        out["highspy_first"] = "highspy" in names and names.index("highspy") < names.index("coptpy")
        gone = tempfile.mkdtemp()
        os.chdir(gone)
        os.rmdir(gone)
        out["again"] = import_solver("copt").__name__
        try:
            import_solver("cplex")
        except OlctcError as exc:
            out["cplex"] = str(exc)
        print(json.dumps(out))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_coptpy_is_imported_after_highspy(imported: dict) -> None:
    """coptpy 8.0 imported before highspy breaks highspy's Highs.readSolution in that process: olctc imports
    highspy first."""
    assert imported["loaded"] == "coptpy" and imported["highspy_first"] is True


def test_a_removed_working_folder_stops_only_a_package_not_yet_loaded(imported: dict) -> None:
    """A package loaded already goes on working; cplex, not loaded, would fail (or end the process) there: refused,
    saying why and what to do."""
    assert imported["again"] == "coptpy"
    assert imported["cplex"] == ("CPLEX's package cplex cannot be loaded from a working folder that no longer exists "
                                 "(it fails there, or ends the process): run olctc from an existing folder")


# ------------------------------------------------------------------ olctc solvers
def test_a_program_that_hangs_or_cannot_start_is_found_but_not_ready(tmp_path: Path, monkeypatch) -> None:
    """A version run past the timeout (a program waiting on a licence server) or one the system cannot start (a bad
    interpreter line) makes the program "not ready" with the reason, never a crash of ``olctc solvers``."""
    _program(tmp_path, "exec /bin/sleep 5", "gurobi_cl")
    _program(tmp_path, "exec /bin/sleep 5", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    t0 = time.monotonic()
    info = _gurobi(0.3)
    assert (info.ready, info.found, info.version) == (False, True, None)
    assert info.note.startswith(f"cannot run it: Command '['{tmp_path}/gurobi_cl', '--version']' timed out after 0.3")
    glpk = program_info("glpk-cli", 0.3)
    assert (glpk.ready, glpk.found) == (False, True) and "timed out after 0.3 seconds" in glpk.note, glpk.note
    assert time.monotonic() - t0 < 3.0  # the timeout asked for, not the default 20 s
    (tmp_path / "glpsol").write_text("#!/nonexistent/interpreter\n")
    glpk = program_info("glpk-cli", 5.0)
    assert (glpk.ready, glpk.found) == (False, True) and glpk.note.startswith("cannot run it: [Errno 2] "), glpk.note


def test_available_solvers_gives_each_program_the_timeout(tmp_path: Path, monkeypatch) -> None:
    """``available_solvers(timeout=...)`` bounds every program's version run, not only gurobi_cl's."""
    from olctc.solve.available import available_solvers

    _program(tmp_path, "exec /bin/sleep 5", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    t0 = time.monotonic()
    glpk = {i.name: i for i in available_solvers(timeout=0.3)}["glpk-cli"]
    assert not glpk.ready and "timed out after 0.3 seconds" in glpk.note, glpk.note
    assert time.monotonic() - t0 < 4.9


def test_a_version_run_killed_by_a_signal_or_silent_is_broken(tmp_path: Path, monkeypatch) -> None:
    """A negative exit code (killed by a signal: a crash) is a failure; a failure that printed nothing says so
    without a dangling colon; a long last line is cut at 200 characters."""
    fake = _program(tmp_path, "kill -9 $$", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    info = program_info("glpk-cli", 5.0)
    assert (info.ready, info.found, info.version) == (False, True, None)
    assert info.note == f"cannot run it: `{fake} --version` exited with code -9"
    fake.write_text("#!/bin/sh\nexit 3\n")
    assert program_info("glpk-cli", 5.0).note == f"cannot run it: `{fake} --version` exited with code 3"
    fake.write_text(f"#!/bin/sh\nprintf '{'a' * 300}' >&2\nexit 1\n")
    assert program_info("glpk-cli", 5.0).note.endswith(f"exited with code 1: {'a' * 200}")


def test_a_failing_version_run_names_its_error_not_its_banner(tmp_path: Path, monkeypatch) -> None:
    """A program that prints its banner on standard output and its error on standard error, then fails, is
    reported by the error (it was the banner's last line); standard output is the fallback when standard
    error holds nothing."""
    fake = _program(tmp_path, "echo 'GLPSOL--GLPK LP/MIP Solver 5.0'\necho 'glpsol: licence expired' >&2\n"
                              "echo 'See the manual' ; exit 1", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert program_info("glpk-cli", 5.0).note == (f"cannot run it: `{fake} --version` exited with code 1: "
                                                  "glpsol: licence expired")
    fake.write_text("#!/bin/sh\necho 'glpsol: cannot start'\necho '  ' >&2\nexit 2\n")
    assert program_info("glpk-cli", 5.0).note.endswith("exited with code 2: glpsol: cannot start")


def test_a_banner_that_is_not_utf8_still_gives_the_version(tmp_path: Path, monkeypatch) -> None:
    """A program's banner with a byte that is not UTF-8 (a Latin-1 copyright sign) is read, not a crash."""
    _program(tmp_path, "printf 'GLPSOL--GLPK LP/MIP Solver 5.0\\n\\251 2000-2020 Andrew Makhorin\\n'", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    info = program_info("glpk-cli", 5.0)
    assert (info.ready, info.version) == (True, "GLPK 5.0"), info


def test_gurobi_cl_that_fails_or_is_found_by_a_relative_path(tmp_path: Path, monkeypatch) -> None:
    """gurobi_cl that cannot run (no licence) is found, not ready, with its exit code; one found through a relative
    PATH entry is named by its absolute path; its banner may follow other lines."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    fake = _program(bin_, "echo 'ERROR 10009: No Gurobi license found' >&2\nexit 1", "gurobi_cl")
    monkeypatch.setenv("PATH", str(bin_))
    info = _gurobi(5.0)
    assert (info.ready, info.found, info.version, info.where) == (False, True, None, str(fake))
    assert info.note == f"cannot run it: `{fake} --version` exited with code 1: ERROR 10009: No Gurobi license found"
    fake.write_text("#!/bin/sh\necho 'Set parameter LogFile to value \"gurobi.log\"'\n"
                    "echo 'Gurobi Optimizer version 12.0.3 build v12.0.3rc0 (linux64)'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "bin")
    info = _gurobi(5.0)
    assert (info.ready, info.version, info.where) == (True, "Gurobi 12.0.3", str(fake))


def test_a_table_of_short_names_lines_up_under_its_header() -> None:
    """The widths count the header: with one short row, each value still starts under its column's name."""
    info = SolverInfo("cbc", "program", "grid", "MILP", False, False, None, "cbc", "")
    header, row = table_lines([info])
    assert row.index("missing") == header.index("version") and row.index("MILP") == header.index("models")


def test_a_package_whose_library_fails_to_load_is_broken_with_the_first_line(tmp_path: Path, monkeypatch) -> None:
    """python-mip raises OSError, not ImportError, when the CBC library does not load: the solver is found, not
    ready, its note the message's first line and how to reinstall (a stand-in ``mip`` raises as the real one)."""
    (tmp_path / "mip.py").write_text("raise OSError('libCbc.so: cannot open shared object file\\nsecond line')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mip", raising=False)
    info = _in_process("cbc")
    assert (info.ready, info.found, info.version) == (False, True, None)
    assert info.note == "cannot load it: libCbc.so: cannot open shared object file (reinstall: pip install mip)"
