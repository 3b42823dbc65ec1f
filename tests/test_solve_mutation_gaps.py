"""Tests from a mutation-testing pass over olctc.solve, olctc.pipeline's solve step and olctc.fit's orchestration:
each pins a behaviour that a small code change (a mutant) broke without any other test failing. Small real
models, real solvers on one thread, short limits."""
from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult, finite_or_none, highs_gap_left, relative_gap, resolve_status

DATA = Path(__file__).parent / "data" / "solvers"


def _result(status: str, objective: float | None, bound: float | None, solver: str = "highs") -> SolveResult:
    x = None if objective is None else np.zeros(2)
    return SolveResult(status, objective, bound, relative_gap(objective, bound), x, ["a", "b"], solver, "v", 0.1, "x")


# ------------------------------------------------------------------ status, gap and bound helpers
def test_an_optimum_without_values_is_no_solution() -> None:
    # mutant: resolve_status let "optimal" through without an incumbent (only "feasible" was checked)
    assert resolve_status("optimal", False) == "no_solution"
    assert resolve_status("feasible", False) == "no_solution"
    assert resolve_status("optimal", True) == "optimal"
    assert resolve_status("limit", True) == "feasible" and resolve_status("limit", False) == "no_solution"


def test_relative_gap_divides_by_the_objective_and_knows_no_gap_at_zero() -> None:
    # mutants: the gap divided by the bound; an objective of 0 with a bound of 1 gave a gap of 0 (a false proof)
    assert relative_gap(10.0, 8.0) == pytest.approx(0.2, abs=1e-15)
    assert relative_gap(0.0, 1.0) is None
    assert relative_gap(0.0, 0.0) == 0.0


def test_solver_infinity_of_either_sign_is_no_bound() -> None:
    # mutant: only +1e20 was taken for SCIP's infinity, -1e20 (a minimisation's bound before any LP) kept
    assert finite_or_none(-1e20) is None and finite_or_none(1e20) is None
    assert finite_or_none(-1e19) == -1e19 and finite_or_none(float("-inf")) is None


def test_highs_optimal_with_a_one_percent_gap_is_not_proven() -> None:
    # mutant: the gap HiGHS may leave was taken 100 times larger (2 % instead of 2e-4 of the objective)
    assert highs_gap_left(0.01, 100.0, 99.0, None) is True
    assert highs_gap_left(1e-4, 100.0, 99.99, None) is False
    assert highs_gap_left(0.01, 100.0, 99.0, 0.01) is False


# ------------------------------------------------------------------ in process: HiGHS, CBC, SCIP
LP = """\\ an LP, no integer column
Minimize
 obj: x + 2 y
Subject To
 c1: x + y >= 3
 c2: x - y <= 1
Bounds
 0 <= x <= 10
 0 <= y <= 10
End
"""


@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_an_lp_optimum_has_its_objective_as_bound_and_gap_zero(tmp_path: Path, solver: str) -> None:
    # mutants: HiGHS (and CBC) reported an LP's proven optimum with no bound and no gap
    from olctc.solve import solve_file

    (tmp_path / "lp.lp").write_text(LP)
    res = solve_file(tmp_path / "lp.lp", solver, threads=1, verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(4.0, abs=1e-9)
    assert res.bound == pytest.approx(4.0, abs=1e-9) and res.gap == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("program", ["cbc-cli", "highs-cli", "glpk-cli"])
def test_a_programs_optimum_has_a_bound(tmp_path: Path, program: str) -> None:
    # mutant: a program's optimum without a bound in its file or summary (CBC's) was reported with no bound
    from olctc.solve import solve_file

    (tmp_path / "lp.lp").write_text(LP.replace("End", "General\n y\nEnd"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glpsol's tolerances
        res = solve_file(tmp_path / "lp.lp", program, threads=1, verbose=False, solution_path=tmp_path / "lp.sol")
    assert res.status == "optimal" and res.objective == pytest.approx(4.0, abs=1e-9)
    assert res.bound == pytest.approx(4.0, abs=1e-6) and res.gap == pytest.approx(0.0, abs=1e-6)


def _late_options(limit: float, left: float) -> SolveOptions:
    """A call of ``limit`` seconds of which only ``left`` are left (the rest went on reading the model)."""
    return SolveOptions(time_limit=limit, threads=1, verbose=False, deadline=time.monotonic() + left)


@pytest.mark.parametrize("backend", ["highs", "cbc", "scip"])
def test_a_solver_gets_what_is_left_of_the_limit_not_the_whole_limit(backend: str) -> None:
    # mutants: the in-process solvers were handed the call's whole time limit (30 s), not the 1.5 s left of it
    from olctc.solve import cbc, highs, scip

    run = {"highs": highs.highs_file, "cbc": cbc.cbc_file, "scip": scip.scip_file}[backend]
    t0 = time.monotonic()
    res = run(DATA / "mknap.mps", _late_options(30.0, 1.5))
    # 20 s: far below the 30 s a solver handed the whole limit takes, far above 1.5 s on a loaded machine
    assert res.status == "feasible" and time.monotonic() - t0 < 20.0, (res.raw_status, time.monotonic() - t0)


@pytest.mark.parametrize("program", ["cbc-cli", "highs-cli"])
def test_a_solver_program_gets_what_is_left_of_the_limit(tmp_path: Path, program: str) -> None:
    # mutant: the programs were given the call's whole limit (30 s) as their own, not the 1.5 s left of it
    from dataclasses import replace

    from olctc.solve.external import solve_external

    opts = replace(_late_options(30.0, 1.5), solution_path=tmp_path / "mknap.sol")
    t0 = time.monotonic()
    res = solve_external(program, DATA / "mknap.mps", opts)
    assert res.status == "feasible" and time.monotonic() - t0 < 20.0, (res.raw_status, time.monotonic() - t0)


# ------------------------------------------------------------------ bound check, worse than the start
def test_an_optimum_whose_bound_is_above_it_by_a_thousandth_of_a_percent_is_no_proof() -> None:
    # mutant: bound_checked forgave a bound up to 1e-3 (relative) above the objective instead of 1e-6
    from olctc.solve import bound_checked

    with pytest.warns(UserWarning, match="calls its solution optimal, but its bound"):
        assert bound_checked(_result("optimal", 100.0, 100.001)).status == "feasible"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bound_checked(_result("optimal", 100.0, 100.00005)).status == "optimal"
        assert bound_checked(_result("optimal", 100.0, 99.0)).status == "optimal"  # below: a minimisation's


def test_a_solution_a_little_worse_than_the_warm_start_is_said_so() -> None:
    # mutant: the warning forgave solutions up to 1 % worse than the start (the slack is CBC's cutoff's, 1e-6)
    from olctc.pipeline import _warn_if_worse_than_start

    with pytest.warns(UserWarning, match=r"^highs's solution \(objective 100.01\) is worse than the warm start"):
        _warn_if_worse_than_start(_result("feasible", 100.01, 90.0), 100.0, "highs", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_if_worse_than_start(_result("feasible", 100.00005, 90.0), 100.0, "highs", True)  # within the slack
        _warn_if_worse_than_start(_result("feasible", 99.0, 90.0), 100.0, "highs", True)  # better
        _warn_if_worse_than_start(_result("no_solution", None, 90.0), 100.0, "highs", True)


# ------------------------------------------------------------------ fit's time budget
def test_solver_budget_keeps_back_the_time_spent_and_the_largest_reserve() -> None:
    # mutants: the reserve left out the warm start's time, or fell to 0 for a quick build; the time spent was not
    # taken off; the solver got the whole rest (share 1.0)
    from olctc.fit import solver_budget

    assert solver_budget(10.0, 1.0, 0.4, 2.0) == pytest.approx((10.0 - 1.0 - 2.0) * 0.9 - 1.0, abs=1e-12)  # warm
    assert solver_budget(10.0, 1.0, 4.0, 1.0) == pytest.approx((10.0 - 1.0 - 2.0) * 0.9 - 1.0, abs=1e-12)  # build/2
    assert solver_budget(10.0, 1.0, 0.2, 0.1) == pytest.approx((10.0 - 1.0 - 0.5) * 0.9 - 1.0, abs=1e-12)  # 0.5 s
    assert solver_budget(10.0, 6.0, 0.2, 0.1) == pytest.approx((10.0 - 6.0 - 0.5) * 0.9 - 1.0, abs=1e-12)


def test_solver_budget_refuses_under_one_second_and_names_the_least_limit() -> None:
    # mutants: a budget of 0.x s was accepted; the least limit named left the solver 0.1 s (1 / share, not 2)
    from olctc.errors import TimeLimitTooShort
    from olctc.fit import least_time_limit, solver_budget

    assert least_time_limit() == pytest.approx(0.5 + 2.0 / 0.9, abs=1e-12)
    with pytest.raises(TimeLimitTooShort, match=r"took 3\.0 s, .* give at least 7 s$"):
        solver_budget(6.0, 3.0, 0.2, 1.0)  # (6 - 3 - 1) * 0.9 - 1 = 0.8 s; 3 + 1 + 2.22 = 6.2 -> 7
    assert solver_budget(7.0, 3.0, 0.2, 1.0) == pytest.approx(1.7, abs=1e-12)


# ------------------------------------------------------------------ statuses of real solves
INF_OR_UNBD = """\\ y + z cannot be both >= 3 and <= 1; x alone would run off to -infinity
Minimize
 obj: - x
Subject To
 c1: y + z >= 3
 c2: y + z <= 1
Bounds
 x >= 0
 0 <= y <= 5
 0 <= z <= 5
General
 y z
End
"""


@pytest.mark.parametrize("solver", ["highs", "scip", "cbc"])
def test_infeasible_or_unbounded_is_infeasible(tmp_path: Path, solver: str) -> None:
    # mutants: HiGHS's "Primal infeasible or unbounded" and SCIP's "inforunbd" were mapped to "unbounded"
    from olctc.solve import solve_file

    (tmp_path / "iu.lp").write_text(INF_OR_UNBD)
    res = solve_file(tmp_path / "iu.lp", solver, threads=1, verbose=False)
    assert res.status == "infeasible" and res.x is None and res.objective is None, res.raw_status


@pytest.mark.parametrize("solver", ["highs", "scip", "cbc"])
def test_a_solve_stopped_without_a_solution_keeps_its_bound(solver: str) -> None:
    # mutants: SCIP (and CBC) dropped the bound of a solve the time limit stopped before any solution
    from olctc.solve import solve_file

    res = solve_file(DATA / "hard_msplit.mps", solver, time_limit=1, threads=1, verbose=False)
    assert res.status == "no_solution" and res.objective is None and res.gap is None
    assert res.bound is not None and 90.0 < res.bound < 100.0, res.bound


# ------------------------------------------------------------------ solve_compiled_file and fit
def _heart(per_class: int):
    """The first ``per_class`` points of each class of heart."""
    from olctc import datasets

    ds = datasets.load("heart")
    return ds.subset(np.r_[np.flatnonzero(ds.y < 0)[:per_class], np.flatnonzero(ds.y > 0)[:per_class]])


def test_olctc_solve_gives_cbc_the_compiled_starts_objective_as_cutoff(tmp_path: Path, capfd) -> None:
    # mutant: solve_compiled_file handed CBC the start file but not its verified objective (no cutoff)
    import json
    import re

    from olctc.compile import compile_problem
    from olctc.emit.params import cbc_cutoff
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    write_compiled(compile_problem(_heart(12), make_spec("olct", 2), "m"), tmp_path / "m.mps")
    warm = json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["objective"]
    capfd.readouterr()
    res, _ = solve_compiled_file(tmp_path / "m.mps", "cbc", threads=1, verbose=True)
    out = capfd.readouterr().out
    assert re.search(r"cutoff\s+1e\+50 \S+ " + re.escape(f"{cbc_cutoff(warm):.5g}"), out), out[-2000:]
    assert res.status == "optimal" and res.objective <= warm


def test_fit_hands_the_solver_its_warm_start(capfd) -> None:
    # mutant: fit built the warm start but solved without it (HiGHS then never says it took a start)
    from conftest import HIGHS_START_ACCEPTED
    from olctc.fit import fit
    from olctc.spec import make_spec

    capfd.readouterr()
    s = fit(_heart(10), make_spec("olct", 1), solver="highs", threads=1, verbose=True, echo=lambda _: None).summary
    found = HIGHS_START_ACCEPTED.search(capfd.readouterr().out)
    assert found and float(found[1]) == pytest.approx(s["objective_warm_start"], rel=1e-9)


def test_fit_that_keeps_its_warm_start_reports_the_start_not_the_solver() -> None:
    # mutants: with the warm start kept (CBC found no solution below its cutoff), the summary gave CBC's own status
    # ("no_solution") and gap (None) instead of the kept tree's: feasible, gap of the start against CBC's bound
    from olctc import datasets
    from olctc.fit import fit
    from olctc.spec import make_spec

    s = fit(datasets.load("heart").subset(np.arange(20)), make_spec("oct-h", 2), solver="cbc", threads=1,
            verbose=False).summary
    assert s["solution_from"] == "warm start" and s["solver_status"] == "no_solution" and s["objective_milp"] is None
    assert s["status"] == "feasible" and s["bound"] is not None
    assert s["gap"] == relative_gap(s["objective_warm_start_true"], s["bound"]) and s["gap"] > 0.5


def test_cbc_in_process_gets_the_cutoff_with_its_slack(tmp_path: Path, capfd) -> None:
    # mutant: CBC in process got the start's objective itself as cutoff, without cbc_cutoff's slack (1e-6 at 0),
    # which a start CBC rates a rounding error above olctc's misses
    import re

    from olctc.solve import solve_file

    (tmp_path / "kn.lp").write_text("Minimize\n obj: - 5 x - 4 y - 3 z\nSubject To\n c1: 2 x + 3 y + z <= 5\n"
                                    " c2: 4 x + y + 2 z <= 11\nBounds\n 0 <= x <= 3\n 0 <= y <= 3\n 0 <= z <= 3\n"
                                    "General\n x y z\nEnd\n")
    capfd.readouterr()
    res = solve_file(tmp_path / "kn.lp", "cbc", threads=1, verbose=True, start={"x": 0, "y": 0, "z": 0},
                     start_objective=0.0)
    out = capfd.readouterr().out
    assert re.search(r"cutoff\s+1e\+50 \S+ 1e-06\b", out), out[-2000:]
    assert res.status == "optimal" and res.objective == pytest.approx(-14.0, abs=1e-9)
