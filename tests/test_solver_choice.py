"""compile --solvers: the parameter and MIP-start files of some solvers only, what solve then reads, and the
grid tasks that hold their job's solver's files and Gurobi's."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import HIGHS_START_ACCEPTED, cli_here
from olctc.emit.params import check_solvers, write_param_files
from olctc.errors import OlctcError


def _compile(folder: Path, name: str = "m.mps", preset: str = "olct", **kw) -> dict[str, Path]:
    """A 16-point depth-1 model compiled into ``folder`` from d.csv beside it (written once)."""
    from olctc.compile import compile_problem
    from olctc.data import read_csv
    from olctc.pipeline import write_compiled
    from olctc.spec import make_spec

    folder.mkdir(exist_ok=True)
    data = folder.parent / "d.csv"
    if not data.exists():
        rng = np.random.default_rng(3)
        rows = [",".join(map(repr, r)) + f",{k % 2}" for k, r in enumerate(rng.normal(size=(16, 3)).tolist())]
        data.write_text("a,b,c,y\n" + "\n".join(rows) + "\n")
    return write_compiled(compile_problem(read_csv(data, "y"), make_spec(preset, 1)), folder / name, **kw)


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("given, expected", [
    ("gurobi,highs", ("highs", "gurobi")),       # SOLVER_FILES order, whatever the list's
    (" SCIP , scip,cbc", ("scip", "cbc")),        # case, spaces and repeats
    (["glpk"], ("glpk",)),
    (None, None),                                 # every solver
])
def test_check_solvers_reads_a_list(given, expected):
    assert check_solvers(given) == expected


@pytest.mark.parametrize("given, quadratic, message", [
    ("highs,gurobl", False, "The 'solvers' parameter must be a comma list of highs, scip, gurobi, cplex, cbc, glpk, "
                            "copt, xpress. Got 'gurobl' instead."),
    ("", False, "Got '' instead."),
    ([], False, "Got [] instead."),
    ("scip,highs", True, "solvers: highs does not solve this model, whose objective is quadratic (a MIQP); pick "
                         "among scip, gurobi, cplex, copt, xpress"),
])
def test_check_solvers_refuses(given, quadratic, message):
    with pytest.raises(OlctcError) as err:
        check_solvers(given, quadratic)
    assert message in str(err.value)


def test_param_files_of_two_solvers(tmp_path):
    paths = write_param_files(tmp_path, "m", starts=True, solvers=("scip", "gurobi"))
    assert [p.name for p in paths] == ["m.scip.set", "m.gurobi.prm", "m.solvers.txt"]
    assert _names(tmp_path) == ["m.gurobi.prm", "m.scip.set", "m.solvers.txt"]
    listed = (tmp_path / "m.solvers.txt").read_text()
    for named in ("SCIP:   scip -c", "Gurobi: m = gurobipy.read", "SCIP:   read m.start.scip.sol",
                  "Gurobi: m.read('m.start.gurobi.mst')", "written for these solvers only"):
        assert named in listed
    for other in ("HiGHS", "CBC", "CPLEX", "GLPK", "glpsol"):
        assert other not in listed
    # each file the two solvers get is the one every solver's set has, byte for byte
    write_param_files(tmp_path, "all", starts=True)
    for suffix in ("scip.set", "gurobi.prm"):
        assert (tmp_path / f"m.{suffix}").read_bytes() == (tmp_path / f"all.{suffix}").read_bytes()


def test_compile_for_two_solvers_writes_their_files_only(tmp_path):
    full = _compile(tmp_path / "full")
    some = _compile(tmp_path / "some", solvers="gurobi,highs")
    assert _names(tmp_path / "some") == ["m.gurobi.prm", "m.highs.opt", "m.mps", "m.olctc.json", "m.solvers.txt",
                                         "m.start.gurobi.mst", "m.start.highs.sol"]
    assert len(_names(tmp_path / "full")) == 17 and set(full) > set(some)
    man = json.loads(some["manifest"].read_text())
    assert man["files"]["solvers"] == ["highs", "gurobi"]
    assert sorted(man["files"]["start"]) == ["gurobi", "highs"]
    assert man["files"]["params"] == ["m.gurobi.prm", "m.highs.opt", "m.solvers.txt"]
    full_man = json.loads(full["manifest"].read_text())
    assert "solvers" not in full_man["files"] and man["warm_start"] == full_man["warm_start"]
    for key in ("model", "start:highs", "start:gurobi", "params:highs", "params:gurobi"):
        assert some[key].read_bytes() == full[key].read_bytes(), key


def test_a_compile_for_other_solvers_replaces_the_whole_set(tmp_path):
    _compile(tmp_path / "c")
    _compile(tmp_path / "c", solvers="scip")
    assert _names(tmp_path / "c") == ["m.mps", "m.olctc.json", "m.scip.set", "m.solvers.txt", "m.start.scip.sol"]
    _compile(tmp_path / "c")
    assert len(_names(tmp_path / "c")) == 17
    assert "solvers" not in json.loads((tmp_path / "c" / "m.olctc.json").read_text())["files"]


def test_glpk_alone_reads_no_start_so_none_is_computed(tmp_path):
    written = _compile(tmp_path / "c", solvers="glpk")
    assert _names(tmp_path / "c") == ["m.glpk.args", "m.mps", "m.olctc.json", "m.solvers.txt"]
    man = json.loads(written["manifest"].read_text())
    assert man["files"]["start"] == {} and "warm_start" not in man  # asked for, none written
    assert "warm start" not in (tmp_path / "c" / "m.solvers.txt").read_text()


def test_a_solve_after_a_compile_for_glpk_alone_says_it_has_no_start(tmp_path):
    # used to: solve with no start and no word (the manifest did not say a start had been asked for)
    from olctc.pipeline import solve_compiled_file

    _compile(tmp_path / "c", solvers="glpk")
    with pytest.warns(UserWarning) as record:
        res, _ = solve_compiled_file(tmp_path / "c" / "m.mps", "highs", verbose=False)
    assert res.status == "optimal"
    assert [str(w.message) for w in record] == [
        "compile wrote no MIP start (--solvers glpk: none of them reads one): solving without one "
        "(compile with --solvers highs to have it)"]
    for no_start in ({"solvers": "glpk"}, {"solvers": "gurobi"}, {}):  # --no-start: no start, on purpose
        _compile(tmp_path / "n", start=False, **no_start)
        assert "start" not in json.loads((tmp_path / "n" / "m.olctc.json").read_text())["files"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert solve_compiled_file(tmp_path / "n" / "m.mps", "highs", verbose=False)[0].status == "optimal"


def test_a_start_tree_for_glpk_alone_is_refused(tmp_path):
    from olctc.decode import decode_file
    from olctc.pipeline import solve_compiled_file

    _compile(tmp_path / "first")
    _, sol = solve_compiled_file(tmp_path / "first" / "m.mps", "highs", verbose=False)
    tree, _ = decode_file(tmp_path / "first" / "m.olctc.json", sol)
    with pytest.raises(OlctcError, match=r"none of the solvers chosen \(glpk\) reads one"):
        _compile(tmp_path / "second", solvers=["glpk"], start_tree=tree)
    assert _names(tmp_path / "second") == []
    _compile(tmp_path / "second", solvers=["glpk", "cbc"], start_tree=tree)
    assert "m.start.cbc" in _names(tmp_path / "second")


def test_a_miqp_for_a_linear_only_solver_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(OlctcError, match="cbc does not solve this model, whose objective is quadratic"):
        _compile(tmp_path / "c", preset="margot", solvers="scip,cbc")
    assert _names(tmp_path / "c") == []


def test_solve_reads_the_start_there_is_and_says_when_there_is_none(tmp_path, capfd):
    """In process, any start compile wrote (SCIP's here, read by HiGHS); a solver program whose start was left
    out solves without one, with a warning that says which --solvers would have given it."""
    from olctc.pipeline import solve_compiled_file

    _compile(tmp_path / "c", solvers="scip")
    res, _ = solve_compiled_file(tmp_path / "c" / "m.mps", "highs", verbose=True)
    assert res.status == "optimal" and HIGHS_START_ACCEPTED.search(capfd.readouterr().out)
    with pytest.warns(UserWarning) as record:
        res, _ = solve_compiled_file(tmp_path / "c" / "m.mps", "highs-cli", verbose=False)
    assert res.status == "optimal"
    assert [str(w.message) for w in record] == [
        "compile wrote MIP starts for scip only (--solvers), none that highs-cli reads: solving without one "
        "(compile with --solvers highs to have it)"]


@pytest.mark.parametrize("args, message", [
    (["--solvers", "highs,mosek"], "error: The 'solvers' parameter (--solvers) must be a comma list of highs, "
                                   "scip, gurobi, cplex, cbc, glpk, copt, xpress. Got 'mosek' instead."),
    (["--preset", "margot", "--solvers", "glpk"], "error: --solvers: glpk does not solve this model, whose "
                                                  "objective is quadratic (a MIQP); pick among scip, gurobi, cplex, "
                                                  "copt, xpress"),
    (["--solvers", "glpk", "--start-tree", "tree.json"], "error: --start-tree gives the MIP start files, and "
                                                         "glpsol (--solvers glpk) reads none: add a solver that does"),
])
def test_cli_refusals(tmp_path, args, message):
    (tmp_path / "tree.json").write_text("{}")
    p = cli_here("compile", "--dataset", "haberman", "-o", "m.mps", *args, cwd=tmp_path)
    assert (p.returncode, p.stderr) == (2, message + "\n")
    assert _names(tmp_path) == ["tree.json"]


def test_cli_compile_lists_what_it_wrote(tmp_path):
    p = cli_here("compile", "--dataset", "haberman", "-o", "m.mps", "--solvers", "cbc", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert _names(tmp_path) == ["m.cbc.args", "m.mps", "m.olctc.json", "m.solvers.txt", "m.start.cbc"]
    assert "start:cbc       m.start.cbc" in p.stdout and "highs" not in p.stdout


#: What the solver's log says once it holds the MIP start (SCIP takes MARGOT's whole, its helper column's value
#: computed; it used to complete a partial one with its completesol heuristic).
TOOK_START = {"olctc": HIGHS_START_ACCEPTED.pattern,
              "scip": "1/1 feasible solution given by solution candidate storage", "glpk-cli": None}


@pytest.mark.parametrize("solver, preset, expected", [
    ("olctc", "olct", ["gurobi.prm", "highs.opt", "start.gurobi.mst", "start.highs.sol"]),
    ("scip", "margot", ["gurobi.prm", "scip.set", "start.gurobi.mst", "start.scip.sol"]),
    ("glpk-cli", "olct", ["glpk.args", "gurobi.prm", "start.gurobi.mst"]),
])
def test_grid_tasks_hold_their_solvers_files_and_gurobis(tmp_path, solver, preset, expected, capfd):
    """And the task's job reads its start (SCIP on a MARGOT task read none before: it looked for HiGHS's)."""
    import re

    from olctc.cluster.grid import GRID_SOLVERS
    from olctc.pipeline import solve_compiled_file

    p = cli_here("grid", "--dataset", "haberman", "--depth", "1", "--preset", preset, "--folds", "2",
                 "--C-values", "1", "--solver", solver, "-o", "g", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    tasks = sorted((tmp_path / "g" / "tasks").iterdir())
    assert len(tasks) == 2
    for task in tasks:
        assert _names(task) == sorted(["model.mps", "model.olctc.json", "model.solvers.txt"]
                                      + [f"model.{s}" for s in expected])
    if TOOK_START[solver]:
        capfd.readouterr()
        solve_compiled_file(tasks[0] / "model.mps", GRID_SOLVERS[solver], time_limit=20, output=tmp_path / "x.sol")
        assert re.search(TOOK_START[solver], capfd.readouterr().out)
