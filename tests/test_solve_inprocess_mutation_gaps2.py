"""Tests from a second mutation-testing pass over olctc's in-process solvers (olctc.solve.highs, .cbc, .scip) and
their options (olctc.solve.options): each pins a behaviour that a small code change (a mutant) broke without any
other test failing. Tiny real models, real solvers on one thread. (test_solve_inprocess_mutation_gaps.py holds the
first pass's tests.)"""
from __future__ import annotations

import shutil
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import highspy
import numpy as np
import pytest
from test_solve import START_MARKER, leak_milp, need
from test_solve_external_mutation_gaps import _model
from test_solve_inprocess_mutation_gaps import UNBOUNDED_LP

from olctc.errors import OlctcError
from olctc.solve import solve_file, solve_milp
from olctc.solve.options import start_vector

DATA = Path(__file__).parent / "data" / "solvers"


# ------------------------------------------------------------------ statuses, bounds and gaps
@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_a_solve_stopped_at_the_users_gap_is_optimal_with_the_solvers_bound(solver: str) -> None:
    """A solve that stops at the mip_gap asked for (5 % on mknap; each stops between 0.8 % and 2.4 %) is "optimal",
    with the solver's own bound below the objective: HiGHS's "Optimal" is not taken for a gap left unproven (its
    2e-4 default) when the user allowed more, and CBC's MIP optimum keeps its bound (not the objective, gap 0, as for
    an LP)."""
    res = solve_file(DATA / "mknap.mps", solver, threads=1, verbose=False, mip_gap=0.05, time_limit=60)
    assert res.status == "optimal", res.raw_status
    assert res.bound is not None and res.bound < res.objective
    assert res.gap is not None and 1e-3 < res.gap <= 0.05


@pytest.mark.parametrize("solver", ["cbc", "scip"])
def test_cbc_and_scip_report_an_unbounded_lp_as_unbounded(tmp_path: Path, solver: str) -> None:
    """CBC's UNBOUNDED and SCIP's "unbounded" are "unbounded" (not "infeasible": the cli's advice differs), with no
    values: SCIP's unbounded ray is no solution."""
    res = solve_file(_model(tmp_path, UNBOUNDED_LP), solver, threads=1, verbose=False)
    assert (res.status, res.x, res.objective, res.bound) == ("unbounded", None, None, None), res.raw_status


@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_an_infeasible_mip_has_no_bound_and_no_gap(solver: str) -> None:
    """An infeasible MIP reports neither bound nor gap: the solvers' infinite bound (HiGHS's inf) is none."""
    res = solve_file(DATA / "infeasible.mps", solver, threads=1, verbose=False)
    assert (res.status, res.bound, res.gap) == ("infeasible", None, None), res.raw_status


def test_cbc_says_which_limit_stopped_a_solve_without_a_solution() -> None:
    """python-mip's NO_SOLUTION_FOUND gets CBC's reason too ("stopped on time"): a solution file then reads back as
    a time-limited solve, not as one of unknown status."""
    res = solve_file(DATA / "hard_msplit.mps", "cbc", threads=1, verbose=False, time_limit=1)
    assert (res.status, res.raw_status) == ("no_solution", "NO_SOLUTION_FOUND, stopped on time")


# ------------------------------------------------------------------ HiGHS
def test_highs_names_its_version_and_times_its_run() -> None:
    """The result says which HiGHS ran ("HiGHS 1.16.0") and how long the solve took."""
    res = solve_milp(leak_milp(), "highs", threads=1, verbose=False)
    assert res.solver_version == f"HiGHS {highspy.Highs().version()}" and res.runtime > 0.0


def test_highs_solves_a_milp_with_a_coefficient_it_drops() -> None:
    """A coefficient of 1e-12 makes HiGHS's passModel warn (it drops the entry) but not fail: the MILP is solved,
    not refused as a model HiGHS rejected."""
    milp = leak_milp()
    A = milp.A.tolil()
    A[0, 2] = 1e-12
    milp = replace(milp, A=A.tocsr())
    res = solve_milp(milp, "highs", threads=1, verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("edit,message", [
    ({"c": np.array([0.0, np.nan, 1.0])}, r"^c holds nan; only finite numbers are allowed in a model$"),
    ({"rhs": np.array([0.0, 0.0, -np.inf, 1.0])}, r"^rhs holds -inf; only finite"),
    ({"obj_constant": np.inf}, r"^obj_constant holds inf; only finite"),
    ({"lb": np.array([np.nan, 0.0, 0.0])}, r"^a variable bound is NaN$"),
    ({"sense": np.array(["L", "L", "G", "X"])}, r"^row sense 'X' is not one of"),
])
@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_every_solver_refuses_a_milp_with_a_number_no_model_holds(solver: str, edit: dict, message: str) -> None:
    """HiGHS gets the arrays, not the MPS file the other solvers read, but is given the writers' checks: a NaN cost
    passed passModel without a word and HiGHS called the model "infeasible"; an unknown sense was an equality."""
    with pytest.raises(OlctcError, match=message):
        solve_milp(replace(leak_milp(), **edit), solver, threads=1, verbose=False)


def test_highs_prints_its_banner_when_the_first_solve_is_verbose() -> None:
    """Only a quiet first construction hides HiGHS's banner (printed by the process's first Highs()): a verbose first
    solve shows it, as HiGHS's own log would."""
    code = ("from pathlib import Path; from olctc.solve import solve_file; "
            f"solve_file(Path({str(DATA / 'model.mps')!r}), 'highs', threads=1, verbose=True)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert out.startswith(f"Running HiGHS {highspy.Highs().version()}"), out[:200]


# ------------------------------------------------------------------ SCIP
def test_scip_on_one_thread_warns_nothing(tmp_path: Path) -> None:
    """Only threads > 1 is worth SCIP's "runs on one thread" warning: threads=1 is what it does."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert solve_file(_model(tmp_path), "scip", threads=1, verbose=False).status == "optimal"


# ------------------------------------------------------------------ olctc.solve.options
def test_a_start_array_of_one_column_is_a_vector() -> None:
    """An (n, 1) array (a column of a matrix) is a start of n values, as solvers take it."""
    assert start_vector(np.array([[1.0], [2.0]]), ["x", "y"]).tolist() == [1.0, 2.0]


def test_an_infinite_start_value_is_refused() -> None:
    """An infinite value (not only NaN) is refused before any solver sees it."""
    with pytest.raises(OlctcError, match="NaN or infinite"):
        start_vector(np.array([np.inf, 0.0]), ["x", "y"])


def test_a_glpk_solution_file_is_a_start_in_process(tmp_path: Path, capfd) -> None:
    """GLPK's -w file numbers its columns: read as a MIP start, the model's column names map them (HiGHS then says
    it took the start)."""
    need("glpk-cli")
    shutil.copy(DATA / "model.mps", tmp_path / "model.mps")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glpsol's tolerances
        solve_file(tmp_path / "model.mps", "glpk-cli", verbose=False, solution_path=tmp_path / "g.sol")
    capfd.readouterr()
    res = solve_file(tmp_path / "model.mps", "highs", threads=1, verbose=True, start_path=tmp_path / "g.sol")
    assert res.status == "optimal" and START_MARKER["highs"] in capfd.readouterr().out
