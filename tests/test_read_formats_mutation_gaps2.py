"""Solution-reader behaviour a second mutation pass over olctc/read (glpk, cbc, cplex, scip, gurobi, copt,
xpress, solution, api) found unpinned: glpsol's interior-point files, statuses and remarks no test read, the line
an error names, Gurobi logs that end otherwise than optimal, and the collector left as found. Files are written by
the real solver in the test (glpsol, gurobipy, cplex, CBC; skipped without it) or are samples of
tests/data/solvers/samples with the edit named in the test (QA 2026-12-07)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from olctc.errors import OlctcError
from olctc.read import read_solution
from test_read_mutation_gaps import COLS, OPT, SAMPLES, _edited, _error, _written

HAVE_GLPSOL = shutil.which("glpsol") is not None


def _glpsol(tmp_path: Path, model: str, *options: str, flag: str = "-w") -> Path:
    """``glpsol MODEL OPTIONS -w out`` on a sample model: glpsol's raw solution file (``flag`` "-o": printable)."""
    out = tmp_path / f"{model}{flag}.txt"
    subprocess.run(["glpsol", str(SAMPLES / model), *options, flag, str(out)], check=True, capture_output=True,
                   timeout=60)
    return out


# ---------------------------------------------------------------- GLPK


@pytest.mark.skipif(not HAVE_GLPSOL, reason="needs glpsol")
def test_glpk_interior_point_solution_is_read_and_is_no_mip_solution(tmp_path):
    """glpsol --interior writes 's ipt ROWS COLS STATUS OBJ' (six tokens, no dual status): it is GLPK's format,
    and an LP's answer, not a MIP solution; raw_status names the method and the primal status."""
    sol = read_solution(_glpsol(tmp_path, "lp_only.mps", "--interior"), col_names=["x", "y"])
    assert (sol.solver, sol.status, sol.objective, sol.values) == ("glpk", "no_solution", None, {})
    assert sol.raw_status == "s ipt o: LP interior-point solution, primal optimal (not a MIP solution)"


@pytest.mark.skipif(not HAVE_GLPSOL, reason="needs glpsol")
def test_glpk_interior_point_with_no_primal_feasible_point_is_infeasible(tmp_path):
    """'s ipt 2 2 n ...' (infeasible.mps, --nomip --interior): no primal feasible point of the relaxation, so the
    MIP is infeasible too."""
    sol = read_solution(_glpsol(tmp_path, "infeasible.mps", "--nomip", "--interior"), col_names=["x", "y"])
    assert (sol.status, sol.values) == ("infeasible", {})
    assert sol.raw_status.startswith("s ipt n: LP interior-point solution, primal no feasible solution")
    printed = read_solution(_glpsol(tmp_path, "infeasible.mps", "--nomip", "--interior", flag="-o"))
    assert (printed.status, printed.raw_status, printed.values) == ("infeasible", "INFEASIBLE (FINAL)", {})


def test_glpk_lp_basic_solution_stopped_at_an_infeasible_point_is_no_solution(tmp_path):
    """Primal status 'i' (infeasible intermediate: the simplex stopped before it found a feasible point) says
    nothing of the MIP: no_solution, unlike 'n' (no feasible point exists). glpk_lp_only_w.txt with 'f' -> 'i'."""
    sol = read_solution(_edited(tmp_path, "glpk_lp_only_w.txt", ("s bas 1 2 f f", "s bas 1 2 i f")),
                        col_names=["x", "y"])
    assert (sol.status, sol.raw_status) == (
        "no_solution", "s bas i f: LP basic solution, primal infeasible (not a MIP solution)")


def test_glpk_raw_first_j_line_without_its_space_is_named(tmp_path):
    """The first 'j' line run together ('j1 4') is named on its own line (14), not counted away as a missing line
    ('5 j lines, file truncated?')."""
    path = _edited(tmp_path, "glpk_solution_w.txt", ("j 1 4", "j1 4"))
    assert _error(path, col_names=COLS) == ":14: expected 'j COL VALUE', got 'j1 4'"


def test_glpk_printable_integer_unbounded_is_unbounded(tmp_path):
    """'INTEGER UNBOUNDED' (HiGHS style 3's wording; glpk_output_o.txt with its status so edited) is unbounded,
    without values."""
    sol = read_solution(_edited(tmp_path, "glpk_output_o.txt", ("INTEGER OPTIMAL", "INTEGER UNBOUNDED")))
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("unbounded", "INTEGER UNBOUNDED", None, {})


# ---------------------------------------------------------------- CBC


def test_cbc_index_that_is_no_integer_is_named_on_its_line(tmp_path):
    """A line whose index is no integer ('3.0', two lines run together, say) is named where it is (line 5), not
    blamed on the first value line."""
    path = _edited(tmp_path, "cbc_2.10.8_solution.txt", ("      3 v", "    3.0 v"))
    assert _error(path) == ":5: expected 'index name value reduced_cost', got '3.0 v                      3 " \
                           "                   -0.5'"


@pytest.mark.parametrize("index", ["--3", "\u00b3"])
def test_cbc_index_of_digits_int_refuses_is_named_not_a_crash(tmp_path, index):
    """DEFECT fixed: an index that passes a digits test but not int() ('--3' with its minus signs stripped, a
    superscript three) made the reader raise StopIteration while it looked for the bad line; it is named."""
    path = _edited(tmp_path, "cbc_2.10.8_solution.txt", ("      3 v", f"  {index:>5} v"))
    assert _error(path).startswith(f":5: expected 'index name value reduced_cost', got '{index} v ")


# ---------------------------------------------------------------- CPLEX


def test_cplex_status_value_that_is_no_integer_is_named(tmp_path):
    """solutionStatusValue must be an integer code ('1O1', a letter O for a zero, is not): the message says so."""
    path = _edited(tmp_path, "cplex_solution.sol", ('solutionStatusValue="101"', 'solutionStatusValue="1O1"'))
    assert _error(path) == ": expected an integer solutionStatusValue, got '1O1'"


# ---------------------------------------------------------------- Gurobi


@pytest.mark.parametrize("note", ["# olctc: status optimality unknown", "# olctc: status feasible, bound -22 (gap 2%)"])
def test_gurobi_olctc_note_with_more_words_is_refused(tmp_path, note):
    """The note is the whole line: one that goes on past its status or bound ('optimality unknown' is not
    'optimal') is refused on its line, not read by its first words."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("# Objective value = -21.5\n",
                                                     f"# Objective value = -21.5\n{note}\n"))
    assert _error(path) == f":3: expected '# olctc: status optimal|feasible[, bound B]', got {note!r}"


# ---------------------------------------------------------------- Gurobi's log


def _gurobi_log(tmp_path: Path, model: str, terminate: bool = False, **params: object) -> Path:
    """gurobipy's LogFile of one one-thread solve of a sample model; ``terminate``: stop at the first incumbent
    from a callback (what Ctrl-C or a grid's cancel does)."""
    gp = pytest.importorskip("gurobipy")
    log = tmp_path / f"{model}.log"

    def stop(m, where):
        if where == gp.GRB.Callback.MIPSOL:
            m.terminate()

    with gp.Env(params={"LogToConsole": 0}) as env, gp.read(str(SAMPLES / model), env) as m:
        m.Params.LogFile, m.Params.Threads = str(log), 1
        for name, value in params.items():
            m.setParam(name, value)
        m.optimize(stop if terminate else None)
        assert m.SolCount >= 1
    return log


def test_gurobi_log_of_a_limit_stop_is_feasible(tmp_path):
    """'Solution limit reached' then 'Best objective ...' (mknap.mps, SolutionLimit 1): a solution, not proven
    optimal."""
    from olctc.read.gurobi import log_status

    log = _gurobi_log(tmp_path, "mknap.mps", SolutionLimit=1)
    assert "Solution limit reached" in log.read_text()
    assert log_status(log) == "feasible"


def test_gurobi_log_of_an_interrupted_solve_is_feasible(tmp_path):
    """Gurobi 13 ends a solve stopped by terminate() (or Ctrl-C) with 'Solve interrupted': a solution, not proven
    optimal, rather than a log that says nothing."""
    from olctc.read.gurobi import log_status

    log = _gurobi_log(tmp_path, "mknap.mps", terminate=True)
    if "Solve interrupted" not in log.read_text():
        pytest.skip("this Gurobi words an interrupted solve otherwise")
    assert log_status(log) == "feasible"


def test_gurobi_log_status_of_a_directory_or_a_missing_file_is_unknown(tmp_path):
    """No log to read (a directory where the log should be, or no file) is "unknown", not an OSError."""
    from olctc.read.gurobi import log_status

    assert log_status(tmp_path) == "unknown"
    assert log_status(tmp_path / "missing.log") == "unknown"


# ---------------------------------------------------------------- COPT


def test_copt_comment_without_a_space_among_the_values_is_refused(tmp_path):
    """A '#' line of two tokens among the values ('#x 4', a column commented out by hand) is refused on its line,
    not read as a column named '#x'."""
    path = _edited(tmp_path, "copt_8.0_solution.sol", ("x         4\n", "x         4\n#x 4\n"))
    assert _error(path) == ":3: expected 'name value' lines after the objective, got '#x 4'"


# ---------------------------------------------------------------- Xpress


def test_xpress_hex_values_with_a_capital_x_read_the_same(tmp_path):
    """'0X' is a hexadecimal prefix as '0x' is (as in C's strtod; the reader lowers the prefix): the same values."""
    path = _written(tmp_path, "upper.slx", (SAMPLES / "xpress_9.9_solution_hex.slx").read_text().replace("0x", "0X"))
    assert read_solution(path).values == OPT


def test_xpress_hex_value_without_its_prefix_is_refused(tmp_path):
    """In a file of hexadecimal values, 18 hexadecimal digits without '0x' ('4008000000000000ab') are no double's
    bits and are refused on their line, not read as the last 16 digits."""
    path = _edited(tmp_path, "xpress_9.9_solution_hex.slx", ("0x4008000000000000", "4008000000000000ab"))
    assert _error(path) == (":3: expected a finite double as 16 hexadecimal digits (0x...) as the value of column "
                            "'y', got '4008000000000000ab'")


# ---------------------------------------------------------------- Solution.to_array


def test_to_array_names_the_first_column_without_a_value(tmp_path):
    """Two columns missing from a Gurobi file ('y' and 'u', which is last): the message names 'y', the first in the
    model's order."""
    sol = read_solution(_edited(tmp_path, "gurobi_solution.sol", ("y 3\n", ""), ("u 0\n", "")))
    with pytest.raises(OlctcError) as err:
        sol.to_array(COLS)
    assert str(err.value).endswith(": expected a value for every column, got none for column 'y'")
