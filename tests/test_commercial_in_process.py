"""Gurobi, CPLEX, COPT and Xpress in process (``--solver gurobi|cplex|copt|xpress``), through the size-limited pip
wheels: every preset solved to the optimum HiGHS (SCIP for the MIQP presets) finds, the tight settings in effect
(the leak model's true optimum, Xpress's cutoff), the MIP start taken at the warm start's objective, a time limit
and a stop that keep the incumbent, the solution file in the solver's own format (read back by olctc's readers
and by the solver itself as a MIP start), fit and the estimators, and the errors of a bad file, a model above the
licence's size and a missing package.

The instances are test_live_commercial's (16 or 40 heart points), far inside the licences (COPT and Gurobi 2000
rows and 2000 columns, CPLEX 1000 and 1000, Xpress 5000 rows and columns together, 200 for a MIQP: the depth-2
SFS- and HFS-MARGOT models are above it, so Xpress solves them at depth 1).
"""
from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from pathlib import Path

import highspy
import numpy as np
import pytest
from conftest import cli_main, needs_solver_wheel
from test_live_commercial import MIQP, PRESETS, Instances, _cplex, _gurobipy, close, stem

from olctc.read import read_solution
from olctc.solve import COMMERCIAL_SOLVERS, solve_file, solve_milp, write_native_solution
from olctc.solve.commercial import PACKAGES
from olctc.solve.options import SolveOptions
from olctc.solve.result import limit_kind

SOLVERS = COMMERCIAL_SOLVERS
#: highspy is imported before coptpy in this process: coptpy 8.0 imported first breaks Highs.readSolution, which
#: test_solve and test_start_files call in the same worker
HIGHSPY_FIRST = highspy.__name__
#: Xpress Community's MIQP limit, rows plus columns (the depth-2 SFS- and HFS-MARGOT models have 214-217)
XPRESS_MIQP_MAX = 200


def need(solver: str) -> None:
    """Skip unless the solver's wheel is installed and its bundled licence runs (an expired one skips, saying so)."""
    if solver == "gurobi":
        _gurobipy()
    elif solver == "cplex":
        _cplex()
    else:
        needs_solver_wheel(PACKAGES[solver][0])


def open_session(solver: str, model: Path, opts: SolveOptions):
    """The backend's session of ``model`` (``olctc.solve.<solver>``'s GurobiSession, CplexSession ...)."""
    import importlib

    module = importlib.import_module(f"olctc.solve.{solver}")
    cls = getattr(module, {"gurobi": "GurobiSession", "cplex": "CplexSession", "copt": "CoptSession",
                           "xpress": "XpressSession"}[solver])
    return cls(module.import_solver(solver), model, opts)


# One pytest-xdist worker for this module and test_live_copt_xpress (--dist loadgroup): they share the compiled
# instances and their reference optima (shared_instances), built once per run rather than once in each module
# on each worker.
pytestmark = pytest.mark.xdist_group("commercial_instances")

_SHARED: list[Instances] = []


def shared_instances(tmp_path_factory) -> Instances:
    """The Instances of this module and test_live_copt_xpress: models and reference optima made on first use."""
    if not _SHARED:
        # compile in this process runs its greedy warm start in a forked child while scikit-learn is not imported
        # here, and each child imported it again (1-2 s a model); with it imported, on a thread
        import sklearn.linear_model  # noqa: F401

        _SHARED.append(Instances(tmp_path_factory.mktemp("commercial_instances")))
    return _SHARED[0]


@pytest.fixture(scope="module")
def inst(tmp_path_factory) -> Instances:
    return shared_instances(tmp_path_factory)


def depth_for(solver: str, preset: str) -> int:
    return 1 if solver == "xpress" and preset in ("margot-sfs", "margot-hfs") else 2


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_every_preset_solves_to_the_optimum_and_decodes(inst, solver, preset, tmp_path, capsys):
    """``olctc solve --solver S``: status optimal at the reference optimum; the file is the solver's own format
    (CPLEX's with its status), and ``olctc decode`` turns it into a tree whose true objective is that optimum."""
    need(solver)
    depth = depth_for(solver, preset)
    model = inst.model(preset, depth)
    if solver == "xpress" and preset in MIQP:
        size = inst.manifest(model)["model"]
        assert size["n_rows"] + size["n_cols"] <= XPRESS_MIQP_MAX, size
    ref = inst.reference(preset, depth)
    out = tmp_path / f"m.{solver}.sol"
    code, stdout, stderr = cli_main(["solve", model, "--solver", solver, "--quiet", "-o", out], capsys)
    assert code == 0, stderr
    line = stdout.splitlines()[0]
    assert line.startswith(f"status optimal ({solver}: "), line
    objective = float(re.search(r"objective (\S+),", line)[1])
    assert close(objective, ref), (objective, ref)
    sol = read_solution(out)
    assert sol.solver == solver and close(sol.objective if sol.objective is not None else objective, ref)
    # CPLEX's file holds its status, olctc's note in Gurobi's says it; COPT's and Xpress's carry none
    assert sol.status == ("optimal" if solver in ("cplex", "gurobi") else "feasible")
    manifest = model.with_name(stem(model) + ".olctc.json")
    keep = ["--no-refine"] if preset.startswith("olct") else []  # the others refine nothing (refused)
    code, stdout, stderr = cli_main(["decode", manifest, out, "-o", tmp_path / "t.json", *keep], capsys)
    assert code == 0, stderr
    status = json.loads((tmp_path / "t.json").read_text())["meta"]["status"]  # the tree says what solve said
    assert status == ("optimal" if solver in ("cplex", "gurobi") else "feasible"), status
    true = float(re.search(r"true objective of the solver's \(w, b\) \(real routing\): (\S+)", stdout)[1])
    assert close(true, ref, 1e-5), (true, ref)


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_default_solution_file_is_named_as_solvers_txt_names_it(inst, solver, tmp_path, capsys):
    # NAME.xpress.slx for Xpress (solve wrote NAME.xpress.sol, where compile's NAME.solvers.txt and the
    # docs name Xpress's file .slx), NAME.SOLVER.sol for the others
    need(solver)
    model = tmp_path / "m.mps"
    model.write_bytes(inst.model("olct", 1).read_bytes())
    code, _, stderr = cli_main(["solve", model, "--solver", solver, "--quiet"], capsys)
    assert code == 0, stderr
    name = f"m.{solver}.{'slx' if solver == 'xpress' else 'sol'}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["m.mps", name])
    assert read_solution(tmp_path / name).solver == solver
    if solver == "xpress":
        assert (tmp_path / name).read_text().startswith("NAME m\n")


@pytest.mark.parametrize("solver", SOLVERS)
def test_lp_files_and_the_score_form(inst, solver):
    """The LP file of the paper's form and the MPS file of the score form: the same optimum."""
    need(solver)
    ref = inst.reference("olct", 2)
    for form, fmt in (("paper", "lp"), ("score", "mps")):
        res = solve_file(inst.model("olct", 2, form, fmt), solver, verbose=False, threads=1)
        assert res.status == "optimal" and close(res.objective, ref), (form, fmt, res.objective, ref)
        assert res.solver == solver and res.solver_version.split()[0] in ("Gurobi", "CPLEX", "COPT", "Xpress")


#: The line of each solver's log that says it took the MIP start, and at which objective.
START_TAKEN = {"gurobi": r"Loaded user MIP start with objective (\S+)",
               "cplex": r"MIP start 'olctc' defined initial solution with objective (\S+)\.",
               "copt": r"Initial MIP solution # 1 with objective value (\S+) was accepted",
               "xpress": r"\*\*\* Solution found:\s+(\S+)\s+Time:\s*\S+\s+Heuristic: U"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_mip_start_is_taken_at_the_warm_starts_objective(inst, solver, capfd):
    """``olctc solve`` hands the solver compile's start: its log says it took it, at the manifest's objective."""
    need(solver)
    model = inst.model("olct", 2)
    ws = inst.manifest(model)["warm_start"]["objective"]
    capfd.readouterr()
    code, stdout, stderr = cli_main(["solve", model, "--solver", solver, "--threads", "1", "-o",
                                     model.with_name(f"start.{solver}.sol")], capfd)
    said = re.search(START_TAKEN[solver], stdout)
    assert code == 0 and said, stdout[-3000:]
    assert close(float(said[1]), ws, 1e-4), (said[0], ws)


#: Each solver's settings read back from a session: (integrality, feasibility, time limit, threads, gap, extra)
def _settings_in_effect(solver: str, session) -> tuple:
    if solver == "gurobi":
        p = session.model.Params
        return p.IntFeasTol, p.FeasibilityTol, p.TimeLimit, p.Threads, p.MIPGap, None
    if solver == "cplex":
        p = session.c.parameters
        return (p.mip.tolerances.integrality.get(), p.simplex.tolerances.feasibility.get(), p.timelimit.get(),
                p.threads.get(), p.mip.tolerances.mipgap.get(), None)
    if solver == "copt":
        m = session.model
        return (m.getParam("IntTol"), m.getParam("FeasTol"), m.getParam("TimeLimit"), m.getParam("Threads"),
                m.getParam("RelGap"), None)
    c = session.p.controls
    return c.miptol, c.feastol, c.timelimit, c.threads, c.miprelstop, c.mipaddcutoff


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_settings_are_in_effect(inst, solver):
    """Each setting olctc gives reaches the solver under its own name (read back from the solver): the tolerances,
    time limit, threads and gap asked for, and Xpress's mipaddcutoff."""
    need(solver)
    opts = SolveOptions(time_limit=12.5, threads=1, mip_gap=0.003, verbose=False)
    session = open_session(solver, inst.model("olct", 1), opts)
    try:
        got = _settings_in_effect(solver, session)
        session.set_time_limit(7.25)
        later = _settings_in_effect(solver, session)[2]
    finally:
        session.close()
    assert got[:5] == (1e-9, 1e-9, 12.5, 1, 0.003), got
    assert later == 7.25
    assert got[5] == (-1e-6 if solver == "xpress" else None)


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_tight_settings_find_the_leak_models_optimum(solver):
    """test_solve's 24-point OLCT model, whose optimum is 23.5673515 (HiGHS at default tolerances, COPT and Xpress
    too, call 16.64 optimal: the big-M rows leak): in process, each solver gets olctc's tolerances."""
    from test_solve import olct_leak_milp

    need(solver)
    res = solve_milp(olct_leak_milp(), solver, verbose=False, threads=1, mip_gap=0.0)
    assert res.status == "optimal" and close(res.objective, 23.5673515), res.objective


def test_xpress_keeps_its_optimum_within_the_others_gap(tmp_path, capsys):
    """Xpress's default mipaddcutoff (-1e-5) gave a 1e-5 worse 'optimal' here: in process it gets -1e-6."""
    from test_live_copt_xpress import cutoff_model

    need("xpress")
    res = solve_file(cutoff_model(tmp_path, capsys), "xpress", verbose=False, mip_gap=0.0)
    assert res.status == "optimal" and close(res.objective, 4.1306010, 1e-7), res.objective


@pytest.mark.parametrize("solver", SOLVERS)
def test_stopping_at_the_gap_asked_for_is_optimal(inst, solver):
    """A solve that reaches the relative gap asked for is "optimal", as HiGHS and CBC report it (CPLEX says 102,
    'optimal_tolerance': it was "feasible" until the small-model benchmark showed it on a MARGOT model)."""
    need(solver)
    model = inst.model("oct-h", 2, n=40)
    res = solve_file(model, solver, verbose=False, threads=1, mip_gap=0.95, time_limit=60)
    assert res.status == "optimal", res.raw_status
    assert res.gap is not None and 0 < res.gap <= 0.95 + 1e-9, res.gap


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_time_limit_keeps_the_incumbent(inst, solver, tmp_path, capsys):
    """OCT-H at depth 2 on 40 points is far from solved in a second: status feasible, stopped on time, the file
    written decodes to the objective the solver printed, no worse than the warm start."""
    need(solver)
    model = inst.model("oct-h", 2, n=40)
    ws = inst.manifest(model)["warm_start"]["objective"]
    out = tmp_path / f"tl.{solver}.sol"
    code, stdout, stderr = cli_main(["solve", model, "--solver", solver, "--quiet", "--threads", "1",
                                     "--time-limit", "1.5", "-o", out], capsys)
    assert code == 0, stderr
    line = stdout.splitlines()[0]
    assert line.startswith(f"status feasible ({solver}: "), line
    assert limit_kind(line.split(": ", 1)[1].split(")")[0]) == "time", line
    objective = float(re.search(r"objective (\S+),", line)[1])
    assert objective <= ws + 1e-9
    manifest = model.with_name(stem(model) + ".olctc.json")
    code, stdout, stderr = cli_main(["decode", manifest, out, "-o", tmp_path / "t.json"], capsys)
    assert code == 0, stderr
    assert close(float(re.search(r"true objective of the solver's \(w, b\) \(real routing\): (\S+)", stdout)[1]),
                 objective, 1e-5)


@pytest.mark.parametrize("solver", SOLVERS)
def test_stop_ends_the_solve_with_its_incumbent(inst, solver):
    """The call ``olctc.solve.calls._native`` makes on an interrupt (Ctrl-C, SIGTERM): the solver stops soon, keeps
    the incumbent (the start at least), and its status words say it was interrupted (exit 130 in the CLI)."""
    need(solver)
    model = inst.model("oct-h", 2, n=40)
    session = open_session(solver, model, SolveOptions(verbose=False, threads=1))
    try:
        start = read_solution(model.with_name(stem(model) + ".start.highs.sol"))
        session.set_start(start.to_array(session.col_names))
        solving = threading.Thread(target=session.optimize)
        solving.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        session.stop()
        solving.join(30)
        assert not solving.is_alive()
        assert time.monotonic() - t0 < 10
        out = session.outcome()
    finally:
        session.close()
    assert limit_kind(out.raw) == "interrupt", out.raw
    assert out.has_solution and out.x is not None and len(out.x) == len(session.col_names)


#: A line of each solver's log once it holds an incumbent (the start): the console program's interrupt lands after
LOG_HAS_INCUMBENT = {"gurobi": "Loaded user MIP start", "cplex": "defined initial solution", "copt": "was accepted",
                     "xpress": "User solution (olctc)"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_ctrl_c_writes_the_incumbent_and_exits_130(inst, solver, tmp_path):
    """``olctc solve`` interrupted (SIGINT) once the solver holds its start: the solver stops within seconds, the
    file holds its incumbent (CPLEX's says 'aborted'), and the exit code 130 tells a script it was stopped."""
    from test_interrupt import run_and_kill_after_line

    need(solver)
    model = inst.model("oct-h", 2, n=40)
    out = tmp_path / f"x.{solver}.sol"
    code, err, took = run_and_kill_after_line(["solve", model, "--solver", solver, "--threads", "1", "-o", out],
                                              tmp_path, LOG_HAS_INCUMBENT[solver], sig=signal.SIGINT, then=0.3)
    assert code == 130 and "interrupted (the best solution found until then was written)" in err, err
    assert took < 20, took
    sol = read_solution(out)
    assert sol.status == "feasible" and len(sol.values) > 0
    if solver == "cplex":
        assert sol.raw_status.startswith("113 aborted"), sol.raw_status


#: What test_fit_and_the_estimators_run_each_solver holds each solver to, fitted by the first of its four tests:
#: HiGHS's ``olctc fit`` objective ("highs") and SCIP's depth-1 MARGOTClassifier's summary ("scip")
_FIT_REFERENCES: dict = {}


def _fit_objective(data: Path, solver: str, folder: Path, capsys) -> float:
    """``olctc fit DATA --depth 2 --solver S`` on every point: its MILP objective."""
    code, stdout, stderr = cli_main(["fit", data, "--target", "y", "--depth", "2", "--test-size", "0", "--solver",
                                     solver, "--quiet", "-o", folder / f"{solver}.json"], capsys)
    assert code == 0, stderr
    return float(re.search(r"-> MILP (\S+) \(true", stdout)[1])


@pytest.mark.parametrize("solver", SOLVERS)
def test_fit_and_the_estimators_run_each_solver(inst, solver, tmp_path, capsys):
    """``olctc fit --solver S`` reaches HiGHS's MILP optimum on the same data; MARGOT (a MIQP) fits in process."""
    from olctc.estimator import MARGOTClassifier

    need(solver)
    data = inst.data[16]
    if "highs" not in _FIT_REFERENCES:
        _FIT_REFERENCES["highs"] = _fit_objective(data, "highs", tmp_path, capsys)
    objectives = [_FIT_REFERENCES["highs"], _fit_objective(data, solver, tmp_path, capsys)]
    assert close(objectives[1], objectives[0], 1e-5), objectives
    table = np.loadtxt(data, delimiter=",", skiprows=1)
    est = MARGOTClassifier(depth=1, solver=solver, threads=1, verbose=False).fit(table[:, :-1], table[:, -1])
    if "scip" not in _FIT_REFERENCES:
        _FIT_REFERENCES["scip"] = MARGOTClassifier(depth=1, solver="scip", verbose=False).fit(table[:, :-1],
                                                                                            table[:, -1]).summary_
    ref = _FIT_REFERENCES["scip"]
    assert (est.summary_["solver"], est.summary_["status"], ref["status"]) == (solver, "optimal", "optimal")
    assert close(est.summary_["objective_milp_true"], ref["objective_milp_true"], 1e-5)


#: The line of each solver's log that says it took a MIP start read from a file, and at which objective.
FILE_START_TAKEN = {"gurobi": START_TAKEN["gurobi"],
                    "cplex": r"MIP start '[^']*' defined initial solution with objective (\S+)\.",
                    "copt": START_TAKEN["copt"],
                    "xpress": r"\*\*\* Solution loaded \*+\s+Time:\s*\S+\s+Obj:\s+(\S+)"}


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_solution_file_is_one_the_solver_reads_back(inst, solver, tmp_path, capfd):
    """The file ``solve`` writes in the solver's format is one the solver itself loads as a MIP start (Gurobi's
    ``read``, CPLEX's ``MIP_starts.read``, COPT's ``readMst``, Xpress's ``readSlxSol``), at its objective."""
    need(solver)
    model = inst.model("olct", 2)
    res = solve_file(model, solver, verbose=False)
    out = tmp_path / f"m.{solver}.sol"
    write_native_solution(res, out, solver)
    assert np.array_equal(read_solution(out).to_array(res.col_names), res.x)
    capfd.readouterr()
    solve_with_start_file(solver, model, out)
    said = re.search(FILE_START_TAKEN[solver], capfd.readouterr().out)
    assert said and close(float(said[1]), res.objective, 1e-6), said


def solve_with_start_file(solver: str, model: Path, sol: Path) -> None:
    """The solver's own calls: read ``model``, then ``sol`` as a MIP start, and solve (log on stdout)."""
    if solver == "gurobi":
        import gurobipy as gp

        with gp.Env() as env, gp.read(str(model), env) as m:
            m.read(str(sol))
            m.optimize()
    elif solver == "cplex":
        import cplex

        c = cplex.Cplex()
        c.read(str(model))
        c.MIP_starts.read(str(sol))
        c.solve()
        c.end()
    elif solver == "copt":
        import coptpy

        env = coptpy.Envr()
        m = env.createModel()
        m.read(str(model))
        m.readMst(str(sol))
        m.solve()
        env.close()
    else:
        import xpress

        p = xpress.problem()
        p.readProb(str(model))
        p.readSlxSol(str(sol))
        p.optimize()
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------------------
# Bad input: one error line, exit 2, nothing written

@pytest.fixture(scope="module")
def too_big(tmp_path_factory) -> Path:
    """breast at depth 2 (5211 rows, 2549 columns): above every wheel's size limit."""
    from olctc.cli import main

    model = tmp_path_factory.mktemp("too_big") / "big.mps"
    with pytest.raises(SystemExit) as exc:
        main(["compile", "--dataset", "breast", "--depth", "2", "--solvers", "highs", "--no-start", "-o", str(model)])
    assert exc.value.code == 0
    return model


PRODUCTS = {solver: product for solver, (_, product, _) in PACKAGES.items()}


@pytest.mark.parametrize("solver", SOLVERS)
def test_bad_model_file_and_a_model_above_the_licence(solver, too_big, tmp_path, capsys):
    need(solver)
    junk = tmp_path / "junk.mps"
    junk.write_text("NAME junk\nROWS\n this is not mps\nENDATA\n")
    out = tmp_path / "x.sol"
    code, stdout, stderr = cli_main(["solve", junk, "--solver", solver, "--quiet", "-o", out], capsys)
    assert code == 2 and stderr.startswith(f"error: {PRODUCTS[solver]} cannot read model file {junk}: ")
    assert stderr.count("\n") == 1 and not out.exists()
    code, stdout, stderr = cli_main(["solve", too_big, "--solver", solver, "--quiet", "-o", out], capsys)
    assert code == 2 and stderr.startswith(f"error: {PRODUCTS[solver]} cannot solve model file {too_big}: "), stderr
    assert stderr.rstrip().endswith("lifts the limit)") and stderr.count("\n") == 1 and not out.exists(), stderr
    # fit hands the solver a file of its own: the message names no file the user never gave
    code, stdout, stderr = cli_main(["fit", "--dataset", "breast", "--depth", "2", "--solver", solver, "--quiet",
                                     "--time-limit", "60", "-o", tmp_path / "t.json"], capsys)
    assert code == 2 and stderr.startswith(f"error: {PRODUCTS[solver]} cannot solve the model: "), stderr
    assert "olctc-milp-" not in stderr and not (tmp_path / "t.json").exists()


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_missing_package_says_how_to_install_it(solver, inst, monkeypatch, tmp_path, capsys):
    package = PACKAGES[solver][0]
    monkeypatch.setitem(sys.modules, package, None)  # import raises ImportError, as without the package
    out = tmp_path / "x.sol"
    code, stdout, stderr = cli_main(["solve", inst.model("olct", 1), "--solver", solver, "--quiet", "-o", out],
                                    capsys)
    assert code == 2 and not out.exists()
    assert stderr.startswith(f"error: --solver {solver} runs {PRODUCTS[solver]} in process through the {package} "
                             f"package, which cannot be imported (") and f"): pip install {package} (" in stderr
    assert stderr.count("\n") == 1


# ---------------------------------------------------------------------------------------------------------
# A grid whose tasks run the solver in process (`olctc solve --solver S` on the nodes)

@pytest.mark.parametrize("solver,preset", [("gurobi", "olct"), ("copt", "margot")])
def test_a_grid_runs_the_solver_in_its_tasks(inst, solver, preset, tmp_path):
    """grid --solver S: each task's line is ``olctc solve --solver S``, with SCIP's start and settings beside the
    model and S's own settings file (to run a task by hand); run_local.sh solves them, and collect reads each
    task's status from its solve.log (S's file says none) and scores every task."""
    import json
    import os
    import subprocess

    from conftest import cli_here

    need(solver)
    g = tmp_path / "g"
    # one C value: two tasks, each a fresh interpreter (about a second) solving with S
    res = cli_here("grid", inst.data[40], "--target", "y", "--depth", "1", "--preset", preset, "--C-values",
                   "0.1", "--folds", "2", "--solver", solver, "--threads", "1", "--time-limit", "60",
                   "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o", g)
    assert res.returncode == 0, res.stderr
    jobs = (g / "jobs.tsv").read_text().splitlines()
    assert len(jobs) == 3 and all(f" --solver {solver} " in line for line in jobs[1:]), jobs
    task = g / "tasks" / "0000"
    assert {"model.scip.set", "model.start.scip.sol", "model.gurobi.prm"} <= set(os.listdir(task))
    run = subprocess.run(["bash", str(g / "run_local.sh")], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert {p.name for p in task.glob("*.sol")} == {"model.start.scip.sol", f"model.{solver}.sol"}
    res = cli_here("collect", g)
    assert res.returncode == 0, res.stderr
    tasks = json.loads((g / "cv_results.json").read_text())["tasks"]
    assert len(tasks) == 2 and {t["status"] for t in tasks} == {"optimal"}, tasks
    assert all(t["score"] is not None for t in tasks)


def test_bench_runs_margot_with_a_commercial_solver_and_scip_otherwise():
    """The paper solved every model with Gurobi: bench --solver gurobi (cplex, copt, xpress) gives it the MIQP
    models too; an open-source --solver leaves them to SCIP. Each record names the package's version."""
    from olctc.bench.experiments import MARGOT, OLCT
    from olctc.bench.tasks import _solver_for, solver_version

    for solver in ("highs", "cbc", "scip", *SOLVERS):
        task = {"options": {"solver": solver}}
        assert _solver_for(OLCT, task) == solver
        assert _solver_for(MARGOT, task) == ("scip" if solver in ("highs", "cbc") else solver)
    assert solver_version("gurobi").startswith("gurobipy ") and solver_version("copt").startswith("coptpy ")
    # the command takes them (its options refused all four: "must be one of highs, cbc, scip")
    from olctc.bench.options import make_options

    for solver in SOLVERS:
        assert make_options("models", datasets="heart", seeds="0", solver=solver, time_limit=5).solver == solver
