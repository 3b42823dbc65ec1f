"""Solving with the real solvers: in process (HiGHS, CBC, SCIP) and external programs (no mocks)."""
from __future__ import annotations

import re
import shutil
import subprocess
import threading
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import highs_option
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.milp import MILP, Block
from olctc.read import read_solution
from olctc.solve import (COMMERCIAL_SOLVERS, EXTERNAL_SOLVERS, SOLVERS, SolveResult, solve_file, solve_milp,
                         write_native_solution)
from olctc.solve.inprocess import cbc_model, highs_model, scip_model
from olctc.solve.options import SolveOptions
from olctc.solve.result import gap_text, limit_kind

DATA = Path(__file__).parent / "data" / "solvers"
NAMES = ["x", "y", "z", "v", "w", "u"]
OPTIMUM = np.array([4.0, 3.0, 1.0, 3.0, 2.0, 0.0])
QP_OPTIMUM = np.array([7 / 3, 5 / 6])   # min -5.5x - 4y + x^2 + xy + y^2, x + y <= 10
QP_OBJECTIVE = -97 / 12

# What each solver's log says when it took the MIP start.
START_MARKER = {"highs": "MIP start solution is feasible", "highs-cli": "MIP start solution is feasible",
                "cbc": "MIPStart provided solution", "cbc-cli": "MIPStart provided solution",
                "scip": "feasible solution given by solution candidate storage",
                "gurobi": "Loaded user MIP start", "cplex": "MIP start 'olctc' defined initial solution",
                "copt": "was accepted", "xpress": "User solution (olctc) accepted"}
#: The solution formats that carry no status (Gurobi's, COPT's, Xpress's own files have none)
STATUSLESS = ("gurobi", "copt", "xpress")


@pytest.fixture(autouse=True)
def _commercial_wheel(request: pytest.FixtureRequest) -> None:
    """A test parametrized with a commercial solver skips when its wheel or licence cannot run here."""
    callspec = getattr(request.node, "callspec", None)
    solver = callspec.params.get("solver") if callspec is not None else None
    if solver in COMMERCIAL_SOLVERS:
        from test_commercial_in_process import need

        need(solver)


def _has_program(solver: str) -> bool:
    if solver == "highs-cli":
        try:
            import highsbox
        except ImportError:
            return False
        return Path(highsbox.highs_bin_path()).is_file()
    return shutil.which({"cbc-cli": "cbc", "glpk-cli": "glpsol"}[solver]) is not None


def need(solver: str) -> None:
    if solver in EXTERNAL_SOLVERS and not _has_program(solver):
        pytest.skip(f"{solver} program not installed")


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """The sample models copied to a scratch folder (external solvers write solutions beside them)."""
    for f in ("model.mps", "infeasible.mps", "mknap.mps", "hard_msplit.mps", "portable_qp.mps"):
        shutil.copy(DATA / f, tmp_path / f)
    return tmp_path


def solve_quiet(path: Path, solver: str, **kw) -> SolveResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # glpk-cli's tolerance warning
        return solve_file(path, solver, verbose=False, **kw)


@pytest.fixture(scope="module")
def stopped_by_time(tmp_path_factory: pytest.TempPathFactory):
    """mknap solved by an external program (``solver_path``: None for the default one) at a 1 s time limit,
    once per program: test_external_time_limit and test_external_bound_and_gap_of_a_stopped_solve check the
    same solve, which takes the limit's whole second each time it runs."""
    done: dict[tuple[str, str | None], SolveResult] = {}

    def stopped(solver: str, program: str | None = None) -> SolveResult:
        if (solver, program) not in done:
            folder = tmp_path_factory.mktemp("stopped")  # the program writes its solution beside the model
            shutil.copy(DATA / "mknap.mps", folder / "mknap.mps")
            done[solver, program] = solve_quiet(folder / "mknap.mps", solver, time_limit=1, solver_path=program)
        return done[solver, program]

    return stopped


# ------------------------------------------------------------------ in process
def test_gap_text_hides_round_off_only():
    # HiGHS reported a proven optimum's gap as 8.35e-16, which the fit's summary printed as "8.35e-14%"
    assert [gap_text(g) for g in (None, 0.0, 8.35e-16, -1e-12, 2e-9, 0.0125, 0.43125)] == \
        ["-", "0%", "0%", "0%", "2e-07%", "1.25%", "43.1%"]
    assert gap_text(0.43125, 4) == "43.12%"


@pytest.mark.parametrize("solver", SOLVERS)
def test_optimal(models: Path, solver: str) -> None:
    res = solve_file(models / "model.mps", solver, verbose=False)
    assert res.status == "optimal" and res.solver == solver and res.solver_version
    assert res.objective == pytest.approx(-21.5)
    assert res.bound == pytest.approx(-21.5) and res.gap == pytest.approx(0.0, abs=1e-9)
    assert res.col_names == NAMES   # file order, whatever order the solver keeps internally
    np.testing.assert_allclose(res.x, OPTIMUM, atol=1e-9)
    assert res.values()["z"] == pytest.approx(1.0)


@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible(models: Path, solver: str) -> None:
    res = solve_file(models / "infeasible.mps", solver, verbose=False)
    assert res.status == "infeasible" and res.x is None and res.objective is None
    assert res.col_names == ["a", "b"]


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_with_incumbent(models: Path, solver: str) -> None:
    res = solve_file(models / "mknap.mps", solver, time_limit=1, verbose=False)
    assert res.status == "feasible", res.raw_status
    assert limit_kind(res.raw_status) == "time", res.raw_status   # what decides a native file's words
    assert res.objective is not None and res.bound is not None and res.bound < res.objective
    assert res.gap is not None and res.gap > 0
    assert res.x is not None and len(res.x) == 250
    assert res.runtime < 10


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_without_incumbent(models: Path, solver: str) -> None:
    res = solve_file(models / "hard_msplit.mps", solver, time_limit=1, verbose=False)
    assert res.status == "no_solution", res.raw_status
    assert limit_kind(res.raw_status) == "time", res.raw_status
    assert res.x is None and res.objective is None


@pytest.mark.parametrize("solver", [*SOLVERS, "cbc-cli", "highs-cli"])
def test_time_limit_covers_reading_the_model(models: Path, solver: str) -> None:
    # The limit is the call's: a solver is handed what is left once the file is read, and a call left
    # with less than half a second refuses instead of overrunning.
    need(solver)
    with pytest.raises(TimeLimitTooShort, match=r"^no time is left to solve: reading the model took \d+\.\d s, leaving "
                                         r"0\.\d\d s of the time limit \(a solver needs at least 0\.5 s\)$"):
        solve_quiet(models / "mknap.mps", solver, time_limit=0.4)


def test_solve_command_limit_covers_checking_its_files(tmp_path: Path) -> None:
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    rng = np.random.default_rng(0)
    comp = compile_problem(from_arrays(rng.normal(size=(12, 2)), np.arange(12) % 2), make_spec("olct", 1))
    write_compiled(comp, tmp_path / "m.mps")
    with pytest.raises(TimeLimitTooShort, match=r"^--time-limit 0\.6 s leaves no time to solve: checking the model's "
                                         r"files took \d+\.\d s, writing the solution needs 0\.2 s and a solver "
                                         r"at least 0\.5 s: give at least 1 s$"):
        solve_compiled_file(tmp_path / "m.mps", "highs", time_limit=0.6, verbose=False)
    res, sol = solve_compiled_file(tmp_path / "m.mps", "highs", time_limit=5, verbose=False)
    assert res.status == "optimal" and sol.is_file()


def test_quadratic_on_scip(models: Path) -> None:
    res = solve_file(models / "portable_qp.mps", "scip", verbose=False)
    assert res.status == "optimal"
    assert res.col_names == ["x", "y_long_name_q"]   # SCIP's helper column qmatrixvar dropped
    assert res.objective == pytest.approx(QP_OBJECTIVE, abs=1e-6)
    np.testing.assert_allclose(res.x, QP_OPTIMUM, atol=1e-5)


@pytest.mark.parametrize("solver", ["highs", "cbc", *EXTERNAL_SOLVERS])
def test_quadratic_refused(models: Path, solver: str) -> None:
    # python-mip would silently drop QUADOBJ and answer the LP (-55): refuse instead
    with pytest.raises(OlctcError, match=r"MIQP \(quadratic objective\).*--solver scip"):
        solve_file(models / "portable_qp.mps", solver, verbose=False)


def test_tight_tolerances_are_set_on_the_solver_objects(models: Path) -> None:
    opts = SolveOptions(time_limit=7.5, threads=1, mip_gap=0.01, verbose=False)
    h = highs_model(opts)
    assert highs_option(h, "mip_feasibility_tolerance") == 1e-9
    assert highs_option(h, "primal_feasibility_tolerance") == 1e-9
    assert highs_option(h, "time_limit") == 7.5 and highs_option(h, "threads") == 1
    assert highs_option(h, "mip_rel_gap") == 0.01

    m, max_seconds = cbc_model(models / "model.mps", opts)
    assert m.integer_tol == 1e-9 and m.infeas_tol == 1e-9
    assert max_seconds == 7.5 and m.threads == 1 and m.max_mip_gap == 0.01

    s = scip_model(models / "model.mps", opts)
    assert s.getParam("numerics/feastol") == 1e-9
    assert s.getParam("limits/time") == 7.5 and s.getParam("limits/gap") == 0.01
    # the heap-corrupting heuristics are off in the model SCIP solves (tests/test_solver_bugs.py)
    assert s.getParam("heuristics/mpec/freq") == s.getParam("heuristics/nlpdiving/freq") == -1
    assert s.getParam("heuristics/adaptivediving/freq") == -1
    assert s.getParam("misc/usesymmetry") == 0  # its nauty call checks no clock (test_solver_bugs.py)


def test_cbc_library_receives_the_tolerance(models: Path, capfd: pytest.CaptureFixture[str]) -> None:
    # python-mip only hands integer_tol to CBC at optimize(): check CBC's own list of changed settings
    solve_file(models / "model.mps", "cbc", verbose=True)
    out = capfd.readouterr().out
    if "Non-default parameters" not in out:
        pytest.skip("this CBC build does not list changed parameters")
    assert "integerTolerance  1e-06 → 1e-09" in out


@pytest.mark.parametrize("solver", SOLVERS)
def test_mip_start_array(models: Path, solver: str, capfd: pytest.CaptureFixture[str]) -> None:
    res = solve_file(models / "model.mps", solver, start=OPTIMUM, verbose=True)
    assert res.status == "optimal" and res.objective == pytest.approx(-21.5)
    assert START_MARKER[solver] in capfd.readouterr().out


@pytest.mark.parametrize("solver", SOLVERS)
def test_mip_start_file(models: Path, solver: str, capfd: pytest.CaptureFixture[str]) -> None:
    from olctc.emit.start import write_start

    write_start(models / "model.highs.start.sol", NAMES, OPTIMUM, "highs", objective=-21.5)
    res = solve_file(models / "model.mps", solver, start_path=models / "model.highs.start.sol", verbose=True)
    assert res.status == "optimal"
    assert START_MARKER[solver] in capfd.readouterr().out


def test_partial_start_by_name_on_a_qp(models: Path) -> None:
    res = solve_file(models / "portable_qp.mps", "scip", start={"x": 2.0, "y_long_name_q": 1.0}, verbose=False)
    assert res.objective == pytest.approx(QP_OBJECTIVE, abs=1e-6)


def test_scip_takes_a_miqp_start_whole(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The start of a MIQP went to SCIP as a partial solution (its objective's helper column unset), which SCIP's
    completesol heuristic completes in a sub-SCIP: that corrupted SCIP 10.0.2's heap on a large MARGOT model
    (phishing), and a sub-SCIP not finished in the time limit lost the start. Now the helper's value is computed:
    SCIP takes the start as it is, at its own objective."""
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.spec import make_spec
    from olctc.warmstart import warm_start

    ds = load("heart")
    spec = make_spec(preset="margot", depth=2, C=[0.5, 0.5])
    comp = compile_problem(ds, spec, ds.name)
    x0, _ = warm_start(comp.milp, comp.X, ds.y, spec)
    capfd.readouterr()
    res = solve_milp(comp.milp, "scip", time_limit=3, start=x0, verbose=True)
    log = capfd.readouterr().out
    start = comp.milp.objective(x0)
    taken = re.search(r"1/1 feasible solution given by solution candidate storage, new primal bound (\S+)", log)
    assert taken and float(taken.group(1)) == pytest.approx(start, rel=1e-6), log[-3000:]
    assert "completesol" not in log and res.objective <= start * (1 + 1e-9)


def test_scip_warns_that_threads_are_ignored(models: Path) -> None:
    with pytest.warns(UserWarning, match="one thread"):
        solve_file(models / "model.mps", "scip", threads=2, verbose=False)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_threads(models: Path, solver: str) -> None:
    for threads in (1, 2):
        assert solve_file(models / "model.mps", solver, threads=threads, verbose=False).status == "optimal"


@pytest.mark.parametrize("caller_threads, threads", [(1, 2), (2, 1)])
def test_highs_threads_hold_whatever_the_calling_thread_ran(models: Path, caller_threads: int, threads: int) -> None:
    """HiGHS sizes one task scheduler per calling thread at its first run and fails a later run in that
    thread asking for another size (1.15: more threads; 1.16: more or fewer). olctc solves in
    highspy's worker thread, so what the caller ran before does not matter."""
    import highspy

    out: dict[str, object] = {}

    def caller() -> None:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", caller_threads)
        h.readModel(str(models / "model.mps"))
        out["caller"] = h.run()
        out["olctc"] = solve_file(models / "model.mps", "highs", threads=threads, verbose=False).status

    thread = threading.Thread(target=caller)   # a fresh thread: no scheduler from earlier tests
    thread.start()
    thread.join()
    assert out == {"caller": highspy.HighsStatus.kOk, "olctc": "optimal"}


# ------------------------------------------------------------------ objective constants
OBJCONST_MPS = """NAME OBJC FREE
ROWS
 N  obj
 L  c1
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    x         obj       -1.5
    x         c1        1
    MARKER                 'MARKER'                 'INTEND'
    OBJCONST  obj       5.25
RHS
    RHS       c1        3.5
BOUNDS
 UP BND       x         10
 FX BND       OBJCONST  1
ENDATA
"""


@pytest.mark.parametrize("solver", [*SOLVERS, *EXTERNAL_SOLVERS])
def test_objective_constant_column_counts_everywhere(tmp_path: Path, solver: str) -> None:
    need(solver)
    path = tmp_path / "objc.mps"
    path.write_text(OBJCONST_MPS)
    res = solve_quiet(path, solver)
    # x = 3 (integer, <= 3.5): -4.5 + 5.25, the same as highspy computes for this file
    assert res.objective == pytest.approx(0.75)
    np.testing.assert_allclose(res.x, [3.0, 1.0])


# ------------------------------------------------------------------ MILP objects
def leak_milp(obj_constant: float = 0.0) -> MILP:
    """One split score s in [-1, 1] and two points with the same feature, z_i = 1 routes point i right:
    left needs s <= 100 z_i, right needs s >= 1e-5 - 100 (1 - z_i). Rewarding point 1 right and point 2
    left is impossible (optimum 0); at default tolerances z_1 = 1 - 1e-7 passes as integral and the
    solver claims -1."""
    M, eps = 100.0, 1e-5
    A = sp.csr_matrix(np.array([[1.0, -M, 0.0], [1.0, 0.0, -M], [1.0, -M, 0.0], [1.0, 0.0, -M]]))
    return MILP(
        name="leak", c=np.array([0.0, -1.0, 1.0]), A=A, sense=np.array(["L", "L", "G", "G"]),
        rhs=np.array([0.0, 0.0, eps - M, eps - M]), lb=np.array([-1.0, 0.0, 0.0]), ub=np.ones(3),
        integer=np.array([False, True, True]),
        col_blocks=(Block("s", 0, (1,), ("node",), ((1,),)), Block("z", 1, (2,), ("point",), ((1, 2),))),
        row_blocks=(Block("left", 0, (2,), ("point",), ((1, 2),)), Block("right", 2, (2,), ("point",), ((1, 2),))),
        obj_constant=obj_constant)


def test_leak_model_is_a_real_regression() -> None:
    """SCIP at its default feasibility tolerance (1e-6, relative) reports the false optimum -1."""
    import pyscipopt

    milp = leak_milp()
    m = pyscipopt.Model()
    m.hideOutput()
    v = [m.addVar(lb=milp.lb[j], ub=milp.ub[j], vtype="I" if milp.integer[j] else "C") for j in range(3)]
    m.setObjective(pyscipopt.quicksum(float(milp.c[j]) * v[j] for j in range(3)))
    dense = milp.A.toarray()
    for i in range(milp.n_rows):
        expr = pyscipopt.quicksum(float(dense[i, j]) * v[j] for j in range(3))
        m.addCons(expr <= milp.rhs[i] if milp.sense[i] == "L" else expr >= milp.rhs[i])
    m.optimize()
    assert m.getObjVal() == pytest.approx(-1.0, abs=1e-5)


def test_tight_tolerances_fix_the_leak_with_highs_from_arrays() -> None:
    res = solve_milp(leak_milp(obj_constant=2.5), "highs", verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(2.5, abs=1e-9)
    assert res.col_names == ["s_1", "z_1", "z_2"]


@pytest.mark.parametrize("solver", ["cbc", "scip", *EXTERNAL_SOLVERS])
def test_tight_tolerances_fix_the_leak_through_a_file(solver: str) -> None:
    pytest.importorskip("olctc.emit.mps")
    need(solver)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = solve_milp(leak_milp(obj_constant=2.5), solver, verbose=False)
    assert res.col_names == ["s_1", "z_1", "z_2"] and len(res.x) == 3   # OBJCONST (if any) dropped
    if solver == "glpk-cli":
        # glpsol has no tolerance flags (hence its warning): GLPK 5.0 leaks here and claims 1.5
        assert res.status == "optimal" and res.objective <= 2.5 + 1e-9
    else:
        assert res.objective == pytest.approx(2.5, abs=1e-9)


def olct_leak_milp() -> MILP:
    """A 24-point depth-2 OLCT whose optimum HiGHS misses at its default tolerances."""
    from olctc.formulation import build_milp
    from olctc.spec import make_spec

    rng = np.random.default_rng(1)
    X = rng.normal(size=(24, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=24) > 0, 1, -1)
    return build_milp(X, y, make_spec("olct", 2, C=1.0, tangents="V0"))


def test_tight_tolerances_fix_an_olct_leak_in_highs() -> None:
    import highspy

    milp = olct_leak_milp()
    res = solve_milp(milp, "highs", verbose=False)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(23.5673515, rel=1e-6)
    viol = milp.violation(res.x)
    assert viol["integrality"] <= 1e-9 and viol["rows"] <= 1e-7

    # the same arrays at HiGHS's defaults (mip_feasibility_tolerance 1e-6): a false "optimal"
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    A = milp.A.tocsc()
    inf = highspy.kHighsInf
    h.passModel(milp.n_cols, milp.n_rows, A.nnz, 1, 1, milp.obj_constant, milp.c, milp.lb, milp.ub,
                np.where(milp.sense == "L", -inf, milp.rhs), np.where(milp.sense == "G", inf, milp.rhs),
                A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data, milp.integer.astype(np.int32))
    h.run()
    default = h.getInfo().objective_function_value
    if default >= res.objective - 1e-6:
        pytest.skip(f"this HiGHS ({h.version()}) does not leak at default tolerances on this model")
    assert h.modelStatusToString(h.getModelStatus()) == "Optimal"   # measured: 19.41, claimed optimal


@pytest.mark.parametrize("solver", ["cbc", "scip"])
def test_olct_through_a_file_reaches_the_true_optimum(solver: str) -> None:
    pytest.importorskip("olctc.emit.mps")
    res = solve_milp(olct_leak_milp(), solver, verbose=False, time_limit=60)
    assert res.status == "optimal" and res.objective == pytest.approx(23.5673515, rel=1e-6)


@pytest.mark.parametrize("solver", SOLVERS)
def test_solve_milp_start_in_milp_order(solver: str, capfd: pytest.CaptureFixture[str]) -> None:
    if solver != "highs":
        pytest.importorskip("olctc.emit.mps")
    res = solve_milp(leak_milp(obj_constant=2.5), solver, start=np.array([0.0, 0.0, 0.0]), verbose=True)
    assert res.objective == pytest.approx(2.5, abs=1e-9)
    # HiGHS's presolve empties this model: it checks the start but never reaches its MIP-start message
    marker = "Assessing feasibility of MIP" if solver == "highs" else START_MARKER[solver]
    assert marker in capfd.readouterr().out


def test_solve_milp_refuses_quadratic_on_highs() -> None:
    milp = leak_milp()
    milp.Q = sp.csr_matrix(np.eye(3))
    with pytest.raises(OlctcError, match="MIQP"):
        solve_milp(milp, "highs", verbose=False)


# ------------------------------------------------------------------ native solution files
@pytest.mark.parametrize("solver", SOLVERS)
def test_native_solution_reads_back(models: Path, solver: str, tmp_path: Path) -> None:
    res = solve_file(models / "model.mps", solver, verbose=False)
    for fmt in SOLVERS:   # own format and the others'
        path = tmp_path / f"out.{fmt}.sol"
        write_native_solution(res, path, fmt)
        sol = read_solution(path, col_names=NAMES)
        # Gurobi's format: olctc's note says the status; COPT's and Xpress's hold none
        assert sol.solver == fmt and sol.status == ("feasible" if fmt in ("copt", "xpress") else "optimal")
        assert fmt != "gurobi" or sol.bound == pytest.approx(-21.5)
        assert sol.objective == (None if fmt == "xpress" else pytest.approx(-21.5))  # Xpress's has no objective
        np.testing.assert_allclose(sol.to_array(NAMES), OPTIMUM)


@pytest.mark.parametrize("fmt", SOLVERS)
def test_native_limit_and_infeasible_statuses_read_back(models: Path, fmt: str, tmp_path: Path) -> None:
    feasible = SolveResult("feasible", -5.0, -6.0, 0.2, np.array([1.0, 0.5]), ["a", "b"], "highs", "x", 1.0,
                           "Time limit reached")
    nothing = SolveResult("no_solution", None, 97.0, None, None, ["a", "b"], "scip", "x", 1.0, "timelimit")
    infeasible = SolveResult("infeasible", None, None, None, None, ["a", "b"], "cbc", "x", 0.0, "INFEASIBLE")
    for res in (feasible, nothing, infeasible):
        path = tmp_path / f"{res.status}.sol"
        if fmt in ("gurobi", "copt") and res.x is None:  # they write no file without a solution
            with pytest.raises(OlctcError, match="writes a solution file only when it holds a solution"):
                write_native_solution(res, path, fmt)
            continue
        write_native_solution(res, path, fmt)
        sol = read_solution(path, col_names=["a", "b"])
        if fmt == "xpress" and res.x is None:  # ENDATA alone, whatever the reason
            assert sol.status == "no_solution", path.read_text()
        else:
            assert sol.status == res.status, path.read_text()
        if res.x is not None and fmt != "xpress":
            assert sol.objective == pytest.approx(-5.0)
        if res.x is not None and fmt in ("gurobi", "highs"):
            assert sol.bound == pytest.approx(-6.0)
            np.testing.assert_allclose(sol.to_array(["a", "b"]), res.x)


def test_native_layout_matches_the_solvers_own_files(models: Path, tmp_path: Path) -> None:
    res = solve_file(models / "model.mps", "highs", verbose=False)
    write_native_solution(res, tmp_path / "cbc.sol", "cbc")
    ours = (tmp_path / "cbc.sol").read_text().splitlines()
    sample = DATA / "cbc_2.10.8_solution.txt"
    if sample.is_file():
        cbc = sample.read_text().splitlines()
        assert ours[0] == cbc[0]
        # index, name and value columns line up with CBC's (the reduced cost is not known: 0)
        nonzero = [line for line in cbc[1:] if line.split()[2] != "0"]
        assert [line[:32] for line in ours[1:]] == [line[:32] for line in nonzero]
    costs = np.array([-3.0, -2.0, -4.0, -0.5, 1.0, 0.1])
    write_native_solution(res, tmp_path / "scip.sol", "scip", costs=costs)
    scip = (tmp_path / "scip.sol").read_text().splitlines()
    assert scip[0] == "solution status: optimal solution found"
    assert scip[1] == "objective value:                                -21.5"
    assert "z                                                   1 \t(obj:-4)" in scip
    write_native_solution(res, tmp_path / "highs.sol", "highs")
    highs = (tmp_path / "highs.sol").read_text()
    assert highs.startswith("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective -21.5\n"
                            "Objective_bound -21.5\nMIP_rel_gap 0\n# Columns 6\nx 4\ny 3\nz 1\nv 3\nw 2\nu 0\n")
    # as HiGHS 1.16 writes it (its bound and gap included: decode prints the gap from them)
    own = (DATA / "samples" / "highs_1.16_solution.sol").read_text()
    assert highs.splitlines()[:15] == own.splitlines()[:15] and own.splitlines()[15].startswith("# Rows")


def test_highs_file_of_a_stopped_solve_states_its_bound_and_highs_reads_it(models: Path, tmp_path: Path) -> None:
    # HiGHS writes the bound at an optimum only; olctc's file has it at a time limit too, so decode prints the
    # gap of the run that needs it (the README's promise held only for HiGHS's own files at an optimum)
    import highspy

    res = replace(solve_file(models / "model.mps", "highs", verbose=False), status="feasible", bound=-25.0,
                  gap=0.14, raw_status="Time limit reached")
    write_native_solution(res, tmp_path / "h.sol", "highs")
    assert "Objective -21.5\nObjective_bound -25\nMIP_rel_gap 0.14\n# Columns 6\n" in (tmp_path / "h.sol").read_text()
    sol = read_solution(tmp_path / "h.sol")
    assert (sol.status, sol.objective, sol.bound) == ("feasible", -21.5, -25.0)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(models / "model.mps"))
    assert h.readSolution(str(tmp_path / "h.sol"), 0) == highspy.HighsStatus.kOk
    np.testing.assert_allclose(h.getSolution().col_value, OPTIMUM)
    write_native_solution(replace(res, bound=None, gap=None), tmp_path / "n.sol", "highs")
    assert "Objective -21.5\n# Columns 6\n" in (tmp_path / "n.sol").read_text()


def test_native_files_are_accepted_as_starts_by_the_solvers(models: Path, tmp_path: Path) -> None:
    import highspy
    import pyscipopt

    res = solve_file(models / "model.mps", "scip", verbose=False)
    write_native_solution(res, tmp_path / "h.sol", "highs")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(models / "model.mps"))
    assert h.readSolution(str(tmp_path / "h.sol"), 0) == highspy.HighsStatus.kOk
    np.testing.assert_allclose(h.getSolution().col_value, OPTIMUM)

    write_native_solution(res, tmp_path / "s.sol", "scip")
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(models / "model.mps"))
    m.readSol(str(tmp_path / "s.sol"))
    m.setParam("limits/solutions", 1)   # stop at the first solution: it must be ours
    m.optimize()
    assert m.getObjVal() == pytest.approx(-21.5)

    cbc = shutil.which("cbc")
    if cbc:
        write_native_solution(res, tmp_path / "c.sol", "cbc")
        out = subprocess.run([cbc, str(models / "model.mps"), "-mips", str(tmp_path / "c.sol"), "-solve",
                              "-solu", str(tmp_path / "c.out")], capture_output=True, text=True, timeout=60).stdout
        assert "MIPStart provided solution with cost -21.5" in out


def test_native_rejects_unknown_format(models: Path, tmp_path: Path) -> None:
    res = solve_file(models / "model.mps", "highs", verbose=False)
    with pytest.raises(OlctcError, match="solver"):
        write_native_solution(res, tmp_path / "x.sol", "mosek")


# ------------------------------------------------------------------ external programs
@pytest.mark.parametrize("solver", EXTERNAL_SOLVERS)
def test_external_optimal(models: Path, solver: str) -> None:
    need(solver)
    res = solve_quiet(models / "model.mps", solver)
    assert res.status == "optimal" and res.solver == solver
    assert res.objective == pytest.approx(-21.5)
    assert res.col_names == NAMES
    np.testing.assert_allclose(res.x, OPTIMUM, atol=1e-9)
    # the solver's own file stays beside the model and reads back the same
    expected = {"cbc-cli": "model.cbc.sol", "highs-cli": "model.highs.sol", "glpk-cli": "model.glpk.sol"}
    assert res.solution_path == models / expected[solver]
    np.testing.assert_allclose(read_solution(res.solution_path, col_names=NAMES).to_array(NAMES), OPTIMUM)
    assert res.solver_version.split()[0] in ("CBC", "HiGHS", "GLPK")


@pytest.mark.parametrize("solver", EXTERNAL_SOLVERS)
def test_external_infeasible(models: Path, solver: str) -> None:
    need(solver)
    res = solve_quiet(models / "infeasible.mps", solver)
    assert res.status == "infeasible" and res.x is None


@pytest.mark.xdist_group("test_solve_stopped_by_time")  # with test_external_bound_and_gap_of_a_stopped_solve: one solve
@pytest.mark.parametrize("solver", EXTERNAL_SOLVERS)
def test_external_time_limit(stopped_by_time, solver: str) -> None:
    need(solver)
    res = stopped_by_time(solver)
    assert res.status == "feasible" and res.objective is not None and len(res.x) == 250
    assert res.runtime < 10


@pytest.mark.parametrize("solver", ["cbc-cli", "highs-cli"])
def test_external_mip_start(models: Path, solver: str, capfd: pytest.CaptureFixture[str]) -> None:
    need(solver)
    res = solve_file(models / "model.mps", solver, start=OPTIMUM, verbose=True)
    assert res.status == "optimal"
    out = capfd.readouterr().out
    assert START_MARKER[solver] in out
    assert "1e-09" in out   # the tolerances reached the program


@pytest.mark.parametrize("solver", ["cbc-cli", "highs-cli"])
def test_external_start_file_passed_as_is(models: Path, solver: str, capfd: pytest.CaptureFixture[str]) -> None:
    need(solver)
    from olctc.emit.start import start_filename, write_start

    kind = solver.removesuffix("-cli")
    path = models / start_filename("given", kind)
    write_start(path, NAMES, OPTIMUM, kind)
    res = solve_file(models / "model.mps", solver, start_path=path, verbose=True)
    assert res.status == "optimal" and START_MARKER[solver] in capfd.readouterr().out


def test_cbc_2_10_program(models: Path, capfd: pytest.CaptureFixture[str]) -> None:
    if not Path("/usr/bin/cbc").is_file():
        pytest.skip("Debian coinor-cbc not installed")
    res = solve_file(models / "model.mps", "cbc-cli", solver_path="/usr/bin/cbc", start=OPTIMUM,
                     solution_path=models / "other.sol", verbose=True)
    assert res.status == "optimal" and res.solver_version.startswith("CBC 2.10")
    assert res.solution_path == models / "other.sol" and (models / "other.sol").is_file()
    out = capfd.readouterr().out
    assert "integerTolerance was changed from 1e-07 to 1e-09" in out
    # CBC 2.10.8 prices this start at -21.8 after preprocessing (also in its sample log), then finds -21.5
    assert "MIPStart provided solution with cost" in out


def test_glpk_warns_about_tolerances_and_start(models: Path) -> None:
    need("glpk-cli")
    with pytest.warns(UserWarning) as record:
        res = solve_file(models / "model.mps", "glpk-cli", start=OPTIMUM, verbose=False)
    messages = " ".join(str(w.message) for w in record)
    assert "tolerances" in messages and "no MIP start" in messages and "thread" not in messages
    assert res.status == "optimal"
    # threads: none to give glpsol, which runs on one (the request was dropped without a word)
    with pytest.warns(UserWarning, match="^glpsol runs on one thread: the 2 threads asked for are not used$"):
        assert solve_file(models / "model.mps", "glpk-cli", threads=2, verbose=False).status == "optimal"
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        solve_file(models / "model.mps", "glpk-cli", threads=1, verbose=False)
    assert not [w for w in record if "thread" in str(w.message)]


@pytest.mark.parametrize("solver,hint", [("glpk-cli", "apt-get install glpk-utils"),
                                         ("cbc-cli", "apt-get install coinor-cbc")])
def test_missing_program_says_how_to_install(models: Path, monkeypatch: pytest.MonkeyPatch, solver: str,
                                             hint: str) -> None:
    monkeypatch.setenv("PATH", str(models))
    with pytest.raises(OlctcError, match=hint):
        solve_quiet(models / "model.mps", solver)


def test_bad_solver_path(models: Path) -> None:
    with pytest.raises(OlctcError, match="does not exist"):
        solve_file(models / "model.mps", "cbc-cli", solver_path=models / "nope", verbose=False)


@pytest.mark.parametrize("setpriv", [True, False])
def test_a_solver_program_the_system_cannot_start_is_a_one_line_error(tmp_path: Path, models: Path, monkeypatch,
                                                                       setpriv: bool) -> None:
    """Without setpriv (not Linux, or not installed) a program the kernel refuses (not an executable it knows,
    a script whose interpreter is missing) was an OSError traceback; setpriv itself reports it and exits 127."""
    from olctc.solve import external

    if not setpriv:
        monkeypatch.setattr(external, "dies_with_us", lambda: ())
    elif not external.dies_with_us():
        pytest.skip("no setpriv --pdeathsig here")
    for name, content in (("badelf", b"\x7fELFgarbage"), ("script", b"#!/nonexistent/python\nprint(1)\n")):
        prog = tmp_path / name
        prog.write_bytes(content)
        prog.chmod(0o755)
        with pytest.raises(OlctcError) as exc:
            solve_file(models / "model.mps", "cbc-cli", solver_path=prog, verbose=False)
        said = str(exc.value)
        assert ("\n" not in said and (said.startswith("cbc wrote no solution file (exit code 127)") if setpriv
                else said.startswith(f"cannot run the solver program {prog}: "))), said


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs,match", [
    ({"solver": "mosek"}, "'solver' parameter"),
    ({"time_limit": 0}, "time_limit"),
    ({"threads": 0}, "threads"),
    ({"mip_gap": 2.0}, "mip_gap"),
    ({"start": np.zeros(3)}, "3 values but the model has 6"),
    ({"start": OPTIMUM, "start_path": __file__}, "either start or start_path"),
    ({"start_path": "/nonexistent.sol"}, "does not exist"),
    ({"solver_path": "/usr/bin/cbc"}, "external solvers"),
])
def test_bad_input(models: Path, kwargs: dict, match: str) -> None:
    with pytest.raises(OlctcError, match=match):
        solve_file(models / "model.mps", **{"verbose": False, **kwargs})


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(OlctcError, match="does not exist"):
        solve_file(tmp_path / "none.mps", "highs")
    (tmp_path / "m.txt").write_text("x")
    with pytest.raises(OlctcError, match=r"\.mps or \.lp"):
        solve_file(tmp_path / "m.txt", "highs")


@pytest.mark.parametrize("preset, solver", [("margot", "scip"), ("olct", "highs"), ("olct", "cbc")])
def test_gap_has_one_definition_for_every_solver(preset: str, solver: str) -> None:
    """bench compares gaps of models solved by HiGHS (OLCT) and SCIP (MARGOT): SCIP's own gap divides by
    min(|primal|, |dual|) and read 94% where |objective - bound| / |objective| (HiGHS's, CBC's) is under 50%."""
    from olctc.datasets import load
    from olctc.formulation import build_milp
    from olctc.spec import make_spec
    from olctc.warmstart import warm_start

    ds = load("heart")
    spec = make_spec(preset, 2)
    milp = build_milp(ds.X, ds.y, spec)
    # CBC 3 s: at 2 s, reading the model took 1.3-1.6 s under load and CBC ended with no solution (2 of 6 runs)
    res = solve_milp(milp, solver, threads=1, verbose=False, time_limit=3 if solver == "cbc" else 2,
                     start=warm_start(milp, ds.X, ds.y, spec)[0])
    assert res.status == "feasible" and res.bound is not None  # stopped early: a gap to compare
    assert res.gap == pytest.approx(abs(res.objective - res.bound) / abs(res.objective), rel=1e-6, abs=1e-9)
    assert res.gap > 0.01


@pytest.mark.xdist_group("test_solve_stopped_by_time")
@pytest.mark.parametrize("solver, program", [("cbc-cli", None), ("cbc-cli", "/usr/bin/cbc"), ("highs-cli", None)])
def test_external_bound_and_gap_of_a_stopped_solve(stopped_by_time, solver: str, program: str | None) -> None:
    """CBC's solution file states no bound, nor HiGHS's of a MIP stopped by a limit: `olctc solve` printed
    'bound -, gap -'. The bound is taken from the program's closing summary; the in-process CBC's bound
    must lie between the LP relaxation's value and the objective (CBC prints it to 3 decimals)."""
    need(solver)
    if program is not None and not Path(program).is_file():
        pytest.skip(f"{program} not installed")
    from olctc.solve.result import relative_gap

    res = stopped_by_time(solver, program)
    assert res.status == "feasible" and res.bound is not None, res
    # mknap is a maximisation written as a minimisation: the bound is below the objective
    assert res.bound < res.objective and 0 < res.gap <= 1 and res.gap == relative_gap(res.objective, res.bound)
    import highspy

    h = highspy.Highs()
    h.silent()
    h.readModel(str(DATA / "mknap.mps"))
    h.setOptionValue("solve_relaxation", True)
    h.run()
    assert res.bound >= h.getInfo().objective_function_value - 1e-3


@pytest.mark.parametrize("solver", ["cbc-cli", "highs-cli", "glpk-cli"])
def test_external_optimum_has_its_objective_as_bound(models: Path, solver: str) -> None:
    need(solver)
    res = solve_quiet(models / "model.mps", solver)
    assert res.status == "optimal" and res.bound == pytest.approx(res.objective, rel=1e-9) and res.gap == 0.0


@pytest.mark.skipif(shutil.which("cbc") is None, reason="the cbc program is not installed")
def test_a_sigkilled_solve_takes_its_solver_program_with_it(tmp_path: Path) -> None:
    """`solve --solver cbc-cli` killed outright (kill -9, the out-of-memory killer) left CBC running on a core to
    its own limit (300 s here); the program now gets SIGKILL when olctc's process ends."""
    import os
    import signal
    import sys
    import time

    from conftest import assert_dies_with, child_processes, cli_sub, process_gone

    code, _, err = cli_sub(["compile", "--dataset", "ionosphere", "--depth", "2", "-o", "model.mps"], tmp_path)
    assert code == 0, err

    def program_of(pid: int) -> int | None:
        return next(iter(child_processes(pid)), None)

    cbc = None
    proc = subprocess.Popen([sys.executable, "-m", "olctc.cli", "solve", "model.mps", "--solver", "cbc-cli",
                             "--time-limit", "300", "-o", "model.sol"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        # the program itself, not a wrapper on its way to it (pyenv's shim, cbcbox's script: both exec it)
        while (cbc := program_of(proc.pid)) is None or not _exe(cbc).startswith("cbc"):
            assert proc.poll() is None and time.monotonic() < deadline, "the solve never started CBC"
            time.sleep(0.05)
        assert_dies_with(proc, cbc, 30, "CBC")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if cbc is not None and not process_gone(cbc):
            os.kill(cbc, signal.SIGKILL)  # an orphan left by a failure above
    assert not (tmp_path / "model.sol").exists()


def _exe(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/exe").resolve().name
    except OSError:
        return ""
