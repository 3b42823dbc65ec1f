"""Solution-format behaviour a second mutation pass over the readers (olctc/read: gurobi, cplex, scip, xpress,
copt, api, solution) found unpinned: truncation checks, the line a malformed line is reported on, statuses a
reader maps, comment lines, hexadecimal values, detection, and Solution.to_array's column checks. Every file is
a real sample of tests/data/solvers/samples with the edit named in each test, or written by CPLEX or Gurobi (their
size-limited wheels; skipped without them) on a sample model (QA 2026-12-06)."""
from __future__ import annotations

from pathlib import Path

import pytest

from olctc.errors import OlctcError
from olctc.read import read_solution
from test_read_mutation_gaps import COLS, SAMPLES, _edited, _error


# ---------------------------------------------------------------- Gurobi


def test_gurobi_file_cut_inside_its_last_line_is_refused(tmp_path):
    """A .sol file has no count and no end marker: a last line without its newline ('MPS_Rgc3 5' cut before its
    end) is the only sign of a cut file, and is refused on that line."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("MPS_Rgc3 5\n", "MPS_Rgc3 5"))
    assert _error(path) == ":9: expected a newline at the end of the last line, got a cut line (file truncated?)"


def test_gurobi_objective_error_names_the_objective_line(tmp_path):
    """A non-finite objective ('1e+400' overflows to inf) is refused on line 2, where '# Objective value' is."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("= -21.5", "= 1e+400"))
    assert _error(path) == ":2: expected a finite objective value, got '1e+400'"


def test_gurobi_comment_among_the_values_is_refused_on_its_line(tmp_path):
    """Values come in one block after the comments; a comment between them (two files pasted together, say) is
    refused on its own line rather than skipped."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("x 4\n", "x 4\n# Objective value = -20\n"))
    assert _error(path) == ":4: expected 'name value' lines after the comments, got '# Objective value = -20'"


def test_gurobi_comment_without_a_space_after_the_hash_is_a_comment(tmp_path):
    """Any line starting with '#' is a comment, as for Gurobi's own reader of .sol/.mst files."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("# Objective value = -21.5\n",
                                                     "# Objective value = -21.5\n#edited by hand\n"))
    assert read_solution(path).to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


def test_gurobi_value_line_with_a_third_token_is_refused(tmp_path):
    """Gurobi writes 'name value' and nothing else; a third token (a name with a space, a pasted column) is
    refused on its line."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("y 3\n", "y 3 0\n"))
    assert _error(path) == ":4: expected 'name value', got 'y 3 0'"


def test_gurobi_log_status_is_the_last_solve_of_the_log(tmp_path):
    """A log that holds two solves (gurobipy appends every optimize() to its LogFile) ends as its last one does: a
    solution-limit stop (mknap.mps), then a solve to optimality (model.mps), is "optimal"."""
    gp = pytest.importorskip("gurobipy")
    from olctc.read.gurobi import log_status

    log = tmp_path / "solve.log"
    with gp.Env(params={"LogToConsole": 0}) as env:
        for sample, limit, status in (("mknap.mps", 1, gp.GRB.SOLUTION_LIMIT), ("model.mps", gp.GRB.MAXINT,
                                                                                gp.GRB.OPTIMAL)):
            with gp.read(str(SAMPLES / sample), env) as m:
                m.Params.LogFile, m.Params.Threads, m.Params.SolutionLimit = str(log), 1, limit
                m.optimize()
                assert m.Status == status
    assert log.read_text().count("Best objective ") == 2
    assert log_status(log) == "optimal"


# ---------------------------------------------------------------- CPLEX


def _cplex(model: Path):
    """A quiet one-thread cplex.Cplex holding ``model`` (skips without the cplex wheel)."""
    cplex = pytest.importorskip("cplex")
    c = cplex.Cplex()
    c.set_results_stream(None)
    c.set_log_stream(None)
    c.set_warning_stream(None)
    c.read(str(model))
    c.parameters.threads.set(1)
    return c


@pytest.mark.parametrize("gap, pool_gap, code, words", [
    (0.0, 0.0, 130, "all reachable solutions enumerated, pool tolerance"),
    (0.5, 1e75, 129, "all reachable solutions enumerated, integer optimal"),
], ids=["130-pool-tolerance", "129-integer-optimal"])
def test_cplex_populate_that_enumerated_every_solution_is_optimal(tmp_path, gap, pool_gap, code, words):
    """Cplex.populate_solution_pool on model.mps ends with 129 or 130 (measured, cplex 22.2): the incumbent is
    proven optimal, so it reads as "optimal" with its values, not as a limit stop."""
    c = _cplex(SAMPLES / "model.mps")
    c.parameters.mip.pool.intensity.set(4)
    c.parameters.mip.limits.populate.set(1000)
    c.parameters.mip.tolerances.mipgap.set(gap)
    c.parameters.mip.pool.absgap.set(pool_gap)
    c.populate_solution_pool()
    c.solution.write(str(tmp_path / "pop.sol"))
    sol = read_solution(tmp_path / "pop.sol")
    assert (sol.status, sol.raw_status, sol.objective) == ("optimal", f"{code} {words}", -21.5)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


def test_cplex_lp_status_3_infeasible_is_infeasible(tmp_path):
    """CPLEX solving infeasible.mps as an LP (presolve off) writes a basic solution with status 3 'infeasible'
    (measured, cplex 22.2): an LP code, but an infeasible relaxation means an infeasible MIP, so it reads as
    "infeasible", not as an LP answer with no solution."""
    c = _cplex(SAMPLES / "infeasible.mps")
    c.parameters.preprocessing.presolve.set(0)
    c.set_problem_type(c.problem_type.LP)
    c.solve()
    c.solution.write(str(tmp_path / "lp.sol"))
    sol = read_solution(tmp_path / "lp.sol")
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("infeasible", "3 infeasible", None, {})


def test_cplex_lp_optimum_of_a_mip_is_no_solution(tmp_path):
    """model.mps solved as an LP writes status 1 'optimal' with primalFeasible 1 (measured, cplex 22.2): an LP
    relaxation's optimum, fractional, is no MIP solution; the raw status says why."""
    c = _cplex(SAMPLES / "model.mps")
    c.set_problem_type(c.problem_type.LP)
    c.solve()
    c.solution.write(str(tmp_path / "lp.sol"))
    assert 'primalFeasible="1"' in (tmp_path / "lp.sol").read_text()
    sol = read_solution(tmp_path / "lp.sol")
    assert (sol.status, sol.raw_status, sol.values) == (
        "no_solution", "1 optimal (an LP solution, not a MIP solution)", {})


def test_cplex_status_118_is_unbounded_without_values(tmp_path):
    """118 (CPXMIP_UNBOUNDED, 'integer unbounded') is "unbounded" even with primalFeasible 1: the values CPLEX
    writes then are a point of an unbounded model, not a solution."""
    path = _edited(tmp_path, "cplex_solution.sol", ('solutionStatusValue="101"', 'solutionStatusValue="118"'),
                   ('"integer optimal solution"', '"integer unbounded"'))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("unbounded", "118 integer unbounded", None, {})


def test_cplex_header_without_a_write_level_lists_every_column(tmp_path):
    """Without writeLevel (files from before the attribute) the file is taken as level 1, every column listed: a
    column missing from it is an error, not a zero."""
    path = _edited(tmp_path, "cplex_solution.sol", ('\n   writeLevel="1"', ""),
                   ('  <variable name="u" index="5" value="0"/>\n', ""))
    sol = read_solution(path)
    assert not sol.omits_zeros
    with pytest.raises(OlctcError, match="expected a value for every column, got none for column 'u'"):
        sol.to_array(COLS)


def test_cplex_variables_without_names_take_them_from_col_names_by_index(tmp_path):
    """A <variable> with an index and no name gets its name from col_names; an index outside col_names, or not a
    plain number ('-1' would silently name the last column), is refused."""
    path = _edited(tmp_path, "cplex_solution.sol", ('name="x" ', ""), ('name="u" ', ""))
    sol = read_solution(path, col_names=COLS)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]
    for index in ("6", "-1"):
        bad = _edited(tmp_path, "cplex_solution.sol", ('name="u" index="5"', f'index="{index}"'))
        assert _error(bad, col_names=COLS) == (": expected a <variable> with a name (or an index and col_names), "
                                               f"got '<variable index=\"{index}\" value=\"0\" />'")


def test_cplex_solution_pool_file_reads_its_first_solution(tmp_path):
    """Cplex.solution.pool.write after populate writes <CPLEXSolutions> around every pool solution (measured,
    cplex 22.2: 102 of them on model.mps, the first being the optimum); '<CPLEXSolution' is then on the third line,
    and the first solution is read."""
    c = _cplex(SAMPLES / "model.mps")
    c.parameters.mip.pool.intensity.set(4)
    c.parameters.mip.limits.populate.set(1000)
    c.populate_solution_pool()
    c.solution.pool.write(str(tmp_path / "pool.sol"))
    assert (tmp_path / "pool.sol").read_text().splitlines()[1].startswith("<CPLEXSolutions")
    sol = read_solution(tmp_path / "pool.sol")
    assert (sol.solver, sol.status, sol.objective) == ("cplex", "optimal", -21.5)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


def test_a_gurobi_file_naming_a_cplex_tag_is_still_a_gurobi_file(tmp_path):
    """CPLEX's XML starts with '<': a Gurobi .sol of a model named '<CPLEXSolution>' (any MPS NAME goes) is not
    taken for CPLEX's just because the tag is in its first lines."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("TINYMILP", "<CPLEXSolution>"))
    assert read_solution(path).solver == "gurobi"


# ---------------------------------------------------------------- SCIP


def test_scip_unbounded_status_is_unbounded(tmp_path):
    """'solution status: unbounded' (SCIP writes 'objective value:' and a point then) is "unbounded", no values."""
    path = _edited(tmp_path, "scip_solution.sol", ("optimal solution found", "unbounded"))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.values) == ("unbounded", "unbounded", {})
    with pytest.raises(OlctcError, match="expected a solution to convert to an array, got status 'unbounded'"):
        sol.to_array(COLS)


def test_scip_blank_lines_after_the_status_line_are_skipped(tmp_path):
    """Blank lines between 'solution status:' and 'objective value:' (an editor, a concatenating script) change
    nothing; the raw status is the status words without the padding."""
    path = _edited(tmp_path, "scip_solution.sol", ("found\n", "found   \n\n  \n"))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective) == ("optimal", "optimal solution found", -21.5)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


def test_scip_file_cut_inside_its_last_line_is_refused(tmp_path):
    """SCIP's file has no count and no end marker: a last line without its newline ('w 2' of 'w 2 (obj:1)')
    is a cut file, refused on that line."""
    path = _edited(tmp_path, "scip_solution.sol", ("2 \t(obj:1)\n", "2"))
    assert _error(path) == ":7: expected a newline at the end of the last line, got a cut line (file truncated?)"


def test_scip_objective_error_names_its_line(tmp_path):
    """A non-finite objective is refused on line 2, under the status line."""
    path = _edited(tmp_path, "scip_solution.sol", ("-21.5\n", "nan\n"))
    assert _error(path) == ":2: expected a finite objective value, got 'nan'"


def test_scip_value_lines_with_or_without_the_objective_coefficient(tmp_path):
    """'name value' alone reads as 'name value (obj:c)' does; a fourth token is refused on its line."""
    path = _edited(tmp_path, "scip_solution.sol", ("1 \t(obj:-4)", "1"))
    assert read_solution(path).to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]
    path = _edited(tmp_path, "scip_solution.sol", ("(obj:-3)", "(obj:-3) 7"))
    assert _error(path).startswith(":4: expected 'name value (obj:c)', got 'x  ")


# ---------------------------------------------------------------- Xpress


def test_xpress_hex_value_of_the_wrong_length_is_refused_on_its_line(tmp_path):
    """Flag 'x' writes 16 hexadecimal digits; a cut one ('0x4008', 2 bytes) is no double and is refused on its
    line, naming the column."""
    path = _edited(tmp_path, "xpress_9.9_solution_hex.slx", ("0x4008000000000000", "0x4008"))
    assert _error(path) == (":3: expected a finite double as 16 hexadecimal digits (0x...) as the value of column "
                            "'y', got '0x4008'")


def test_xpress_file_of_a_model_with_no_columns_reads_as_an_empty_solution(tmp_path):
    """'NAME' then 'ENDATA' at once (a model without columns) is an Xpress file with an empty solution."""
    path = tmp_path / "empty.slx"
    path.write_text((SAMPLES / "xpress_9.9_solution.slx").read_text().splitlines()[0] + "\nENDATA\n")
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.values) == ("xpress", "feasible", {})


def test_xpress_second_name_line_is_one_solution_too_many(tmp_path):
    """Two .slx files pasted together without the first 'ENDATA': the second 'NAME' line is refused on its line."""
    path = _edited(tmp_path, "xpress_9.9_solution.slx", ("  C w", "NAME          TINYMILP\n  C w"))
    assert _error(path) == ":6: expected one solution per file ('C name value' lines), got 'NAME          TINYMILP'"


def test_xpress_value_line_with_a_fourth_token_is_refused(tmp_path):
    """'C name value' has three tokens; a fourth (a name with a space in it) is refused on its line."""
    path = _edited(tmp_path, "xpress_9.9_solution.slx", ("  C z ", "  C z 0"))
    assert _error(path).startswith(":4: expected 'C name value', got 'C z 0 ")


# ---------------------------------------------------------------- COPT


def test_a_gurobi_file_without_its_model_line_is_no_copt_file(tmp_path):
    """'# Objective value = v' first is Gurobi's second line (COPT writes no '='): the file is of no known format,
    not a COPT file with a bad objective."""
    path = tmp_path / "cut.sol"
    path.write_text("".join((SAMPLES / "gurobi_solution.sol").read_text().splitlines(True)[1:]))
    assert _error(path).startswith(":1: expected a solution file of a known format (")


def test_copt_bad_value_is_refused_on_its_own_line(tmp_path):
    """Line numbers count the objective line: 'y 1e+30x' is line 3 of the file."""
    path = _edited(tmp_path, "copt_8.0_solution.sol", ("y         3", "y         1e+30x"))
    assert _error(path) == ":3: expected a finite number as the value of column 'y', got '1e+30x'"


def test_copt_value_line_with_a_third_token_is_refused(tmp_path):
    """COPT writes 'name value'; a third token is refused on its line."""
    path = _edited(tmp_path, "copt_8.0_solution.sol", ("z         1", "z         1 0"))
    assert _error(path) == ":4: expected 'name value', got 'z         1 0'"


def test_copt_objective_error_names_line_1(tmp_path):
    """An objective of 'inf' is refused on line 1, where COPT writes it."""
    path = _edited(tmp_path, "copt_8.0_solution.sol", ("-21.5", "inf"))
    assert _error(path) == ":1: expected a finite objective value, got 'inf'"


# ---------------------------------------------------------------- Solution.to_array


def test_only_gurobi_solutions_skip_mps_range_columns(tmp_path):
    """MPS_Rg<row> columns are Gurobi's own (ranged rows): a CPLEX file naming one names an unknown column."""
    cplex = _edited(tmp_path, "cplex_solution.sol", ('  <variable name="u" index="5" value="0"/>',
                                                     '  <variable name="u" index="5" value="0"/>\n'
                                                     '  <variable name="MPS_Rgc3" index="6" value="5"/>'))
    with pytest.raises(OlctcError, match="got unknown column 'MPS_Rgc3'$"):
        read_solution(cplex).to_array(COLS)


def test_unknown_x_column_of_a_model_named_x0_x1_gets_no_lost_names_hint():
    """CBC's x0, x1, ... hint is for models whose own names CBC lost; mknap's columns are x0..x249 themselves, so a
    column the model lacks (x248, against a model cut to x0..x247) is just unknown."""
    sol = read_solution(SAMPLES / "cbc_timelimit_incumbent_solution.txt")
    with pytest.raises(OlctcError) as err:
        sol.to_array([f"x{i}" for i in range(248)])
    assert str(err.value).endswith("expected only columns of the model, got unknown column 'x248'")


def test_a_solution_status_outside_the_five_is_refused():
    """Solution takes only the statuses of STATUSES."""
    from olctc.read import Solution

    with pytest.raises(ValueError, match="status must be one of"):
        Solution(status="timelimit", objective=None, values={}, solver="scip", raw_status="x", omits_zeros=True)
