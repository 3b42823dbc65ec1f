"""Tests from a mutation-testing pass over the flow the commercial in-process solvers share
(olctc.solve.commercial): each pins a behaviour that a small code change (a mutant) broke without any other test
failing. Tiny models solved by the real size-limited wheels on one thread; a stand-in package only for an import
failure no installed package shows."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from test_commercial_available_mutation_gaps import _solve
from test_commercial_in_process import SOLVERS, START_TAKEN, need
from test_solve_external_mutation_gaps import INT_LP, _model
from test_solve_inprocess_mutation_gaps import DATA
from test_solve_mutation_gaps import LP

from olctc.errors import OlctcError
from olctc.solve import solve_file
from olctc.solve.commercial import PACKAGES, import_solver, solve_session, solver_errors
from olctc.solve.gurobi import GUROBI_STATUS, GurobiSession
from olctc.solve.options import SolveOptions


# ------------------------------------------------------------------ import_solver
def test_a_package_that_is_there_but_fails_to_import_says_how_to_install_it(tmp_path: Path, monkeypatch) -> None:
    """A wheel whose native library does not load raises ImportError, not ModuleNotFoundError: the same one line
    (with the licence note) as a missing package, not chained to the import's traceback (a stand-in ``xpress``
    raises as a broken one does)."""
    (tmp_path / "xpress.py").write_text("raise ImportError('libxprs.so: cannot open shared object file')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "xpress", raising=False)
    with pytest.raises(OlctcError) as exc:
        import_solver("xpress")
    assert str(exc.value) == ("--solver xpress runs Xpress in process through the xpress package, which cannot be "
                              "imported (libxprs.so: cannot open shared object file): pip install xpress "
                              f"({PACKAGES['xpress'][2]})")
    assert exc.value.__cause__ is None and exc.value.__suppress_context__


# ------------------------------------------------------------------ solver_errors
class _SolverError(Exception):
    """An exception class of a solver package (the flow is given each package's own)."""


#: The refusals of each wheel's size-limited licence, as the packages word them: each gets the licence note
REFUSALS = {
    "gurobi": "Model too large for size-limited license; visit https://gurobi.com/unrestricted for more information",
    "cplex": "CPLEX Error  1016: Community Edition. Problem size limits exceeded.\nPurchase at "
             "http://ibm.biz/error1016.",
    "copt": "(LICENSE) Fail to solve problem",
    "xpress": "?1000 Error: too many rows and columns. The maximum is 5000",
}


@pytest.mark.parametrize("solver", sorted(REFUSALS))
def test_a_size_limited_licences_refusal_says_how_to_lift_it(solver: str) -> None:
    """Each package's own words for a model above its licence (any of them, whatever their case) add how to lift
    the limit; the message is one line, its runs of white space one space, and the package's error unchained."""
    with pytest.raises(OlctcError) as exc, solver_errors(solver, "solve model file m.lp", (_SolverError,)):
        raise _SolverError(REFUSALS[solver])
    why = " ".join(REFUSALS[solver].split())
    product, licence = PACKAGES[solver][1:]
    assert str(exc.value) == f"{product} cannot solve model file m.lp: {why} ({licence})"
    assert exc.value.__cause__ is None and exc.value.__suppress_context__


def test_another_error_gets_no_licence_note_and_an_empty_one_its_class_name() -> None:
    """An error that is no licence's refusal says only why; one with no message says at least what it was."""
    with pytest.raises(OlctcError) as exc, solver_errors("gurobi", "read model file m.lp", (_SolverError,)):
        raise _SolverError("Unable to read file")
    assert str(exc.value) == "Gurobi cannot read model file m.lp: Unable to read file"
    with pytest.raises(OlctcError) as exc, solver_errors("cplex", "read model file m.lp", (_SolverError,)):
        raise _SolverError(" \n")
    assert str(exc.value) == "CPLEX cannot read model file m.lp: _SolverError"


# ------------------------------------------------------------------ solve_session
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_mip_stopped_at_the_gap_asked_for_keeps_its_own_bound_and_gap(solver: str) -> None:
    """A MIP stopped at a 50% gap is optimal with the solver's bound, not its objective, and olctc's gap relative to
    the objective (as HiGHS, CBC and Gurobi report it; COPT and Xpress stop on a gap relative to the bound)."""
    need(solver)
    res = solve_file(DATA / "mknap.mps", solver, verbose=False, threads=1, mip_gap=0.5)
    assert res.status == "optimal" and res.bound < res.objective < 0, res
    assert res.gap == pytest.approx(abs(res.objective - res.bound) / abs(res.objective)) and res.gap > 0


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_result_names_the_solver_its_version_and_the_time_it_took(solver: str, tmp_path: Path) -> None:
    """The result says which product and version solved, and a solve time that is the solve's own (not 0, not more
    than the call took)."""
    need(solver)
    t0 = time.perf_counter()
    res = _solve(solver, tmp_path, INT_LP, "m.lp")
    took = time.perf_counter() - t0
    assert (res.status, res.objective, res.solver) == ("optimal", 4.0, solver)
    assert re.fullmatch(rf"{PACKAGES[solver][1]} \d+\.\d+.*", res.solver_version), res.solver_version
    assert 0 < res.runtime <= took, (res.runtime, took)


def test_a_start_file_is_the_solvers_mip_start(tmp_path: Path, capfd) -> None:
    """A MIP start given as a file (no start in memory) reaches the solver: its log says it took it, at the file's
    objective (x = 1, y = 2 costs 5; the optimum is 4)."""
    need("gurobi")
    start = tmp_path / "start.sol"
    start.write_text("# Solution for model m\n# Objective value = 5\nx 1\ny 2\n")  # Gurobi's format
    capfd.readouterr()
    res = solve_file(_model(tmp_path), "gurobi", verbose=True, threads=1, start_path=start)
    said = re.search(START_TAKEN["gurobi"], capfd.readouterr().out)
    assert res.objective == 4.0 and said and float(said[1]) == 5.0, said


def test_the_session_is_closed_after_its_solve(tmp_path: Path) -> None:
    """The solver's model and environment (its licence token) are freed once the result is read, not only when
    the solve fails."""
    need("gurobi")
    gp = import_solver("gurobi")
    path = _model(tmp_path, LP, "lp.lp")
    opts = SolveOptions(threads=1, verbose=False)
    opened: list[GurobiSession] = []

    def session() -> GurobiSession:
        opened.append(GurobiSession(gp, path, opts))
        return opened[0]

    res = solve_session("gurobi", GUROBI_STATUS, session, path, opts, (gp.GurobiError,))
    assert res.objective == 4.0
    with pytest.raises(gp.GurobiError, match="freed"):
        opened[0].model.getVars()
