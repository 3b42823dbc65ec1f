"""Solution-format behaviour a mutation pass over the CPLEX, Xpress and COPT readers (olctc/read/cplex.py,
xpress.py, copt.py) found unpinned: a CPLEX header's optional attributes (status string, objective, primalFeasible)
and what their absence means, a <CPLEXSolution> without a header, variables with an empty name, the objective's
error message, and the line a repeated COPT column is reported on. Every file is a real sample of
tests/data/solvers/samples with the edit named in each test (QA 2026-12-07)."""
from __future__ import annotations

from olctc.read import read_solution
from test_read_mutation_gaps import COLS, OPT, _edited, _error


def test_cplex_header_without_a_status_string_gives_the_code_alone(tmp_path):
    """The raw status is the code and CPLEX's words for it; without the words it is the code alone, with no
    trailing space to trip a comparison or a log line."""
    path = _edited(tmp_path, "cplex_solution.sol", ('\n   solutionStatusString="integer optimal solution"', ""))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status) == ("optimal", "101")


def test_cplex_header_without_an_objective_value_has_no_objective(tmp_path):
    """No objectiveValue means an unknown objective (None, which decode recomputes from the values), never 0.0:
    a made-up 0 would be taken for the optimum of model.mps (-21.5)."""
    path = _edited(tmp_path, "cplex_solution.sol", ('\n   objectiveValue="-21.5"', ""))
    sol = read_solution(path)
    assert (sol.status, sol.objective) == ("optimal", None)
    assert sol.values == OPT


def test_cplex_non_finite_objective_is_refused_by_its_attribute_name(tmp_path):
    """A non-finite objectiveValue ('1e+400' overflows) is refused naming the attribute and what it must be; the
    XML has no line numbers, so the message has none."""
    path = _edited(tmp_path, "cplex_solution.sol", ('objectiveValue="-21.5"', 'objectiveValue="1e+400"'))
    assert _error(path) == ": expected a finite objectiveValue, got '1e+400'"


def test_cplex_limit_stop_without_primal_feasible_attribute_is_feasible(tmp_path):
    """A limit stop (107, time limit with an integer solution) is "feasible" unless the header says
    primalFeasible="0": a header without the attribute keeps its solution and values."""
    path = _edited(tmp_path, "cplex_solution.sol", ('solutionStatusValue="101"', 'solutionStatusValue="107"'),
                   ('solutionStatusString="integer optimal solution"', 'solutionStatusString="time limit exceeded"'),
                   ('\n   primalFeasible="1"', ""))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective) == ("feasible", "107 time limit exceeded", -21.5)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


def test_cplex_solution_without_a_header_is_refused_not_a_crash(tmp_path):
    """A <CPLEXSolution> whose <header> is gone (cut by hand, or another program's XML) is refused with the
    one-line error naming what was expected, not an AttributeError."""
    path = _edited(tmp_path, "cplex_solution.sol", ("<header", "<heading"))
    assert _error(path) == ": expected a <CPLEXSolution> with a <header>, got <CPLEXSolution>"


def test_cplex_variable_with_an_empty_name_takes_its_name_from_col_names(tmp_path):
    """name="" is no name: the variable is named from its index and col_names, as when the attribute is absent,
    rather than read as a column called ''."""
    path = _edited(tmp_path, "cplex_solution.sol", ('name="y" index="1"', 'name="" index="1"'))
    sol = read_solution(path, col_names=COLS)
    assert sol.values == OPT


def test_copt_column_twice_is_refused_on_its_second_line(tmp_path):
    """COPT's file has line numbers (unlike CPLEX's XML): a column written twice is refused on the line of its
    second appearance, naming the line of the first."""
    path = _edited(tmp_path, "copt_8.0_solution.sol", ("z         1\n", "z         1\nx         4\n"))
    assert _error(path) == ":5: expected each column once, got 'x' again (first on line 2)"
