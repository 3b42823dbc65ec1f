"""Tests from a mutation-testing pass over olctc.solve.native (a result written in each solver's own solution format)
and olctc.solve.available (``olctc solvers``): each pins a behaviour that a small code change (a mutant) broke
without any other test failing. Files written, then read back by olctc's readers and compared with the solvers' own
samples; stand-in programs only for the failures (a banner on standard error, a program that reads its input) that
no installed program shows. (test_solve_calls_mutation_gaps.py and test_commercial_available_mutation_gaps.py hold
the earlier passes' tests.)"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from test_solve_calls_mutation_gaps import _result
from test_solve_external_mutation_gaps import DATA, _program

from olctc.errors import OlctcError
from olctc.read import read_solution
from olctc.solve import solve_file, write_native_solution
from olctc.solve.available import _in_process, available_solvers
from olctc.solve.available import _program as program_info

SAMPLES = DATA / "samples"

#: a raw status of each kind of early stop (``limit_kind``), as SCIP words it
RAW = {"time": "timelimit", "nodes": "nodelimit", "gap": "gaplimit", "solutions": "sollimit",
       "iterations": "NO_SOLUTION_FOUND, stopped on iterations", "interrupt": "userinterrupt", "other": "memlimit"}

#: The status each format's file states, as olctc's reader reads it back, per olctc status or kind of early stop:
#: (with values, without). CBC words every early stop but a time limit and ctrl-c "Stopped on iterations", HiGHS a
#: node or gap limit "Solution limit reached"; CPLEX has a code with an incumbent and one without.
READ_BACK = {
    "highs": {"optimal": "Optimal", "infeasible": "Infeasible", "unbounded": "Unbounded",
              "time": ("Time limit reached",) * 2, "nodes": ("Solution limit reached",) * 2,
              "gap": ("Solution limit reached",) * 2, "solutions": ("Solution limit reached",) * 2,
              "iterations": ("Iteration limit reached",) * 2, "interrupt": ("Interrupted by user",) * 2,
              "other": ("Unknown",) * 2},
    "cbc": {"optimal": "Optimal", "infeasible": "Infeasible", "unbounded": "Unbounded",
            **{kind: ("Stopped on iterations", "Stopped on iterations (no integer solution - continuous used)")
               for kind in ("nodes", "gap", "solutions", "iterations")},
            "time": ("Stopped on time", "Stopped on time (no integer solution - continuous used)"),
            "interrupt": ("Stopped on ctrl-c", "Stopped on ctrl-c (no integer solution - continuous used)"),
            "other": ("Stopped on iterations", "Status unknown")},
    "scip": {"optimal": "optimal solution found", "infeasible": "infeasible", "unbounded": "unbounded",
             "time": ("time limit reached",) * 2, "nodes": ("node limit reached",) * 2,
             "gap": ("gap limit reached",) * 2, "solutions": ("solution limit reached",) * 2,
             "iterations": ("unknown",) * 2, "interrupt": ("user interrupt",) * 2, "other": ("unknown",) * 2},
    "cplex": {"optimal": "101 integer optimal solution", "infeasible": "103 integer infeasible",
              "unbounded": "118 integer unbounded",
              "time": ("107 time limit exceeded", "108 time limit exceeded, no integer solution"),
              "interrupt": ("113 aborted", "114 aborted, no integer solution"),
              "nodes": ("105 node limit exceeded", "106 node limit exceeded, no integer solution"),
              "solutions": ("104 solution limit exceeded",) * 2,
              **{kind: ("127 integer feasible", "114 aborted, no integer solution") for kind in ("gap", "iterations",
                                                                                                 "other")}},
}


def _read_back(tmp_path: Path, fmt: str, status: str, raw: str, x: list[float] | None) -> tuple[str, str]:
    """(status, raw status) of a result of columns a, b written in ``fmt`` and read back by olctc's reader."""
    path = tmp_path / f"m.{fmt}.sol"
    write_native_solution(_result(status, raw, x=x, solver="scip"), path, fmt)
    sol = read_solution(path, col_names=["a", "b"])
    return sol.status, sol.raw_status


# ------------------------------------------------------------------ olctc.solve.native: status words
@pytest.mark.parametrize("fmt", sorted(READ_BACK))
def test_each_stop_reads_back_in_the_formats_own_words(tmp_path: Path, fmt: str) -> None:
    """Decode, the solve's exit code and a later read tell a stop by the words of its file: each olctc status and each
    kind of early stop, with a solution and without, is written in the words the solver itself uses for it (a word
    taken from another row of the table reads back as another stop)."""
    table = READ_BACK[fmt]
    for status, x in (("optimal", [1.0, 0.0]), ("infeasible", None), ("unbounded", None)):
        assert _read_back(tmp_path, fmt, status, status, x) == (status, table[status]), status
    for kind, raw in RAW.items():
        assert _read_back(tmp_path, fmt, "feasible", raw, [1.0, 0.0]) == ("feasible", table[kind][0]), kind
        assert _read_back(tmp_path, fmt, "no_solution", raw, None) == ("no_solution", table[kind][1]), kind


def test_a_highs_stop_of_another_kind_keeps_highss_own_words(tmp_path: Path) -> None:
    """A HiGHS result (in process or the program) keeps HiGHS's own words for a stop olctc has no kind for (its
    objective target), not "Unknown"; an empty raw status takes olctc's words, never an empty status line."""
    for solver in ("highs", "highs-cli"):
        res = _result("feasible", "Target for objective reached", solver=solver)
        write_native_solution(res, tmp_path / "h.sol", "highs")
        assert read_solution(tmp_path / "h.sol").raw_status == "Target for objective reached", solver
    write_native_solution(_result("feasible", ""), tmp_path / "e.sol", "highs")
    assert (tmp_path / "e.sol").read_text().startswith("Model status\nUnknown\n\n# Primal solution values\nFeasible\n")


def test_an_olctc_optimum_outranks_the_raw_status_of_a_limit_in_cplexs_file(tmp_path: Path) -> None:
    """A solve olctc took as optimal (its gap closed) though the solver stopped on a limit is CPLEX's 101, not 107."""
    assert _read_back(tmp_path, "cplex", "optimal", "timelimit", [1.0, 0.0]) == (
        "optimal", "101 integer optimal solution")


# ------------------------------------------------------------------ olctc.solve.native: layout
def test_files_without_a_solution_are_the_solvers_own(tmp_path: Path) -> None:
    """An infeasible model's file is, line for line, what the solver writes for one (HiGHS's sections and basis
    line, SCIP's "no solution available", Xpress's ENDATA alone); CBC's objective of a stop without a solution is
    the LP bound, as CBC's "continuous used" says."""
    infeasible = _result("infeasible", "Infeasible", x=None)
    write_native_solution(infeasible, tmp_path / "h.sol", "highs")
    own = (SAMPLES / "highs_1.7_infeasible.sol").read_text().replace("HiGHS v1", "HiGHS_basis_file v2")
    assert (tmp_path / "h.sol").read_text() == own
    write_native_solution(infeasible, tmp_path / "s.sol", "scip")
    assert (tmp_path / "s.sol").read_text() == (SAMPLES / "scip_infeasible.sol").read_text()
    write_native_solution(infeasible, tmp_path / "x.xpress.sol", "xpress")
    assert (tmp_path / "x.xpress.sol").read_text() == (SAMPLES / "xpress_9.9_infeasible.slx").read_text()
    write_native_solution(_result("no_solution", "timelimit", x=None, bound=97.25), tmp_path / "c.sol", "cbc")
    assert (tmp_path / "c.sol").read_text() == ("Stopped on time (no integer solution - continuous used) - objective "
                                                "value 97.25000000\n")


def test_cplex_and_copt_files_match_the_solvers_own(tmp_path: Path) -> None:
    """model.mps solved, written as CPLEX's file: its variables' lines (name, index from 0, value) are CPLEX's own;
    as COPT's: its objective line is COPT's ("# Objective value -21.5", no "=")."""
    res = solve_file(DATA / "model.mps", "highs", verbose=False, threads=1)
    write_native_solution(res, tmp_path / "model.cplex.sol", "cplex")
    ours = (tmp_path / "model.cplex.sol").read_text().splitlines()
    own = (SAMPLES / "cplex_22.1.1_solution.sol").read_text().splitlines()
    assert [ln for ln in ours if "<variable " in ln] == [ln for ln in own if "<variable " in ln]
    write_native_solution(res, tmp_path / "m.copt.sol", "copt")
    ours = (tmp_path / "m.copt.sol").read_text().splitlines()
    own = (SAMPLES / "copt_8.0_solution.sol").read_text().splitlines()
    assert ours[0] == own[0] == "# Objective value -21.5"
    assert [ln.split() for ln in ours[1:]] == [ln.split() for ln in own[1:] if ln.strip()]


@pytest.mark.parametrize("fmt", ["highs", "cbc", "scip", "gurobi", "cplex", "copt", "xpress"])
def test_values_read_back_to_the_last_bit(tmp_path: Path, fmt: str) -> None:
    """The files hold each value's shortest round-trip text, not the solvers' 8 or 15 digits: a start or a decode
    from the file has the very values solved (1/3 and 0.1 + 0.2 need 16 and 17 digits)."""
    x = [1.0 / 3.0, 0.1 + 0.2]
    write_native_solution(_result("optimal", "optimal", x=x, objective=0.1 + 0.2), tmp_path / f"m.{fmt}.sol", fmt)
    sol = read_solution(tmp_path / f"m.{fmt}.sol", col_names=["a", "b"])
    assert sol.values == {"a": x[0], "b": x[1]}
    assert fmt in ("cbc", "xpress") or sol.objective == 0.1 + 0.2


def test_a_gurobi_file_of_a_result_without_a_finite_bound_reads_back(tmp_path: Path) -> None:
    """DEFECT fixed: a result with no bound known (-inf: CBC stopped on time before its root LP) was written to
    Gurobi's file with olctc's note "..., bound -inf", which olctc's reader refused ("expected a finite bound"): the
    note leaves an infinite bound out, as HiGHS's file does."""
    write_native_solution(_result("feasible", "Stopped on time", bound=float("-inf"), solver="cbc"),
                          tmp_path / "m.gurobi.sol", "gurobi")
    sol = read_solution(tmp_path / "m.gurobi.sol")
    assert (sol.status, sol.objective, sol.bound, sol.values) == ("feasible", 20.0, None, {"a": 1.0, "b": 0.0})


def test_a_cplex_file_is_xml_whatever_the_column_names(tmp_path: Path) -> None:
    """Column names with XML's special characters (an LP file allows & and ") are escaped: the file stays
    well-formed, and reads back with the names as they were."""
    res = _result("optimal", "optimal", x=[1.0, 2.0], objective=3.0)
    res.col_names = ["a&b", 'c"d']
    write_native_solution(res, tmp_path / "m.cplex.sol", "cplex")
    names = [v.get("name") for v in ET.parse(tmp_path / "m.cplex.sol").getroot().iter("variable")]
    assert names == ["a&b", 'c"d']
    assert read_solution(tmp_path / "m.cplex.sol").values == {"a&b": 1.0, 'c"d': 2.0}


def test_an_xpress_file_named_by_blanks_has_a_name(tmp_path: Path) -> None:
    """Xpress's NAME needs a word: a file whose model name is blanks only is named "olctc"."""
    write_native_solution(_result("optimal", "optimal"), tmp_path / " .xpress.sol", "xpress")
    assert (tmp_path / " .xpress.sol").read_text() == "NAME olctc\n  C a 1\n  C b 0\nENDATA\n"


# ------------------------------------------------------------------ olctc.solve.native: refusals
def test_refusals_name_what_was_wrong(tmp_path: Path) -> None:
    """A format without a solution says which status the result had (the solver's too); an unknown format lists the
    formats in order; fewer costs than columns are refused, not written for the first columns only."""
    with pytest.raises(OlctcError) as exc:
        write_native_solution(_result("no_solution", "timelimit", x=None), tmp_path / "m.sol", "copt")
    assert str(exc.value) == ("COPT writes a solution file only when it holds a solution, and this result has none "
                              "(status no_solution, timelimit)")
    with pytest.raises(OlctcError) as exc:
        write_native_solution(_result("optimal", "optimal"), tmp_path / "m.sol", "glpk")
    assert "['cbc', 'copt', 'cplex', 'gurobi', 'highs', 'scip', 'xpress']" in str(exc.value)
    with pytest.raises(OlctcError, match="^costs have 1 entries for 2 columns$"):
        write_native_solution(_result("optimal", "optimal"), tmp_path / "m.sol", "scip", costs=np.array([1.0]))
    assert not (tmp_path / "m.sol").exists()


# ------------------------------------------------------------------ olctc.solve.available
def test_a_load_failure_without_a_message_is_named_by_its_type(tmp_path: Path, monkeypatch) -> None:
    """A package whose native library fails with an exception of no message (a stand-in ``mip`` raising a bare
    OSError) is noted by the exception's type, not by empty parentheses."""
    (tmp_path / "mip.py").write_text("raise OSError()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mip", raising=False)
    info = _in_process("cbc")
    assert (info.ready, info.found, info.note) == (False, True, "cannot load it: OSError (reinstall: pip install mip)")


def test_a_version_run_does_not_read_the_callers_input(tmp_path: Path) -> None:
    """``olctc solvers`` run with its standard input an open pipe (a script's, a job's): a program that reads its
    input at start gets none at once, and its version is read; it neither waits for the pipe until the timeout nor
    takes the caller's input."""
    fake = _program(tmp_path, "read line\necho 'GLPSOL--GLPK LP/MIP Solver 5.0'", "glpsol")
    code = textwrap.dedent(f"""
        import os
        os.environ["PATH"] = {str(tmp_path)!r}
        from olctc.solve.available import _program
        info = _program("glpk-cli", 3.0)
        print(info.ready, info.version, info.where)
    """)
    run = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        out = run.stdout.readline()  # written while the pipe is still open
    finally:
        run.stdin.close()
        run.wait(timeout=60)
    assert out.split() == ["True", "GLPK", "5.0", str(fake)]


def test_a_banner_on_standard_error_gives_the_version(tmp_path: Path, monkeypatch) -> None:
    """A program that prints its banner on standard error (and exits 0) is ready, with the banner's version."""
    _program(tmp_path, "echo 'GLPSOL--GLPK LP/MIP Solver 5.0' >&2", "glpsol")
    monkeypatch.setenv("PATH", str(tmp_path))
    info = program_info("glpk-cli", 5.0)
    assert (info.ready, info.version) == (True, "GLPK 5.0"), info


def test_a_library_that_imports_but_fails_to_load_is_broken(tmp_path: Path, monkeypatch) -> None:
    """python-mip imports without its CBC library and fails only when a model loads it: the check builds a model (a
    stand-in ``mip`` whose Model raises as the real one does), and the solver is not ready."""
    (tmp_path / "mip.py").write_text("CBC = 'CBC'\n\n\nclass Model:\n    def __init__(self, **kwargs):\n"
                                     "        raise OSError('libCbc.so: cannot open shared object file')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mip", raising=False)
    info = _in_process("cbc")
    assert (info.ready, info.found, info.version) == (False, True, None)
    assert info.note == "cannot load it: libCbc.so: cannot open shared object file (reinstall: pip install mip)"


def test_available_solvers_gives_gurobi_cl_the_timeout(tmp_path: Path, monkeypatch) -> None:
    """``available_solvers(timeout=...)`` bounds gurobi_cl's version run too (a gurobi_cl waiting on its licence
    server), not only the programs solve runs."""
    _program(tmp_path, "exec /bin/sleep 5", "gurobi_cl")
    monkeypatch.setenv("PATH", str(tmp_path))
    gurobi = available_solvers(timeout=0.3)[-1]
    assert gurobi.name == "gurobi-cli" and "timed out after 0.3 seconds" in gurobi.note, gurobi.note
