"""Solution-reader behaviour a mutation pass found unpinned: a status or bound the reader reads but no test checked,
the zeros a sparse CPLEX file leaves out, CBC's row block of a one-row model, and HiGHS style -1 lines that carry a
dual (and a basis status) after the value. Each file is a real sample (tests/data/solvers/samples) with the edit a
real solver makes, or a file written by the solver itself on a sample model; the comments say which run. What a
test says a file "read as" is what the mutated reader made of it (QA 2026-12-06), not a defect seen in olctc."""
from __future__ import annotations

from pathlib import Path

import pytest

from olctc.errors import OlctcError
from olctc.read import read_solution

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
COLS = ["x", "y", "z", "v", "w", "u"]  # model.mps column order
OPT = {"x": 4.0, "y": 3.0, "z": 1.0, "v": 3.0, "w": 2.0, "u": 0.0}  # model.mps's optimum, objective -21.5


def _edited(tmp_path: Path, sample: str, *edits: tuple[str, str]) -> Path:
    """A copy of a sample solution file with each (old, new) edit applied once (each must apply)."""
    text = (SAMPLES / sample).read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / f"edited-{sample}"
    path.write_text(text)
    return path


def _error(path: Path, **kwargs: object) -> str:
    """The message read_solution refuses ``path`` with, less the path itself (which starts every message)."""
    with pytest.raises(OlctcError) as err:
        read_solution(path, **kwargs)  # type: ignore[arg-type]
    message = str(err.value)
    assert message.startswith(str(path))
    return message[len(str(path)):]


def _written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- Gurobi: olctc solve's note line


@pytest.mark.parametrize("note, status, bound", [
    ("# olctc: status optimal, bound -21.5", "optimal", -21.5),
    ("# olctc: status optimal, bound 1", "optimal", 1.0),
    ("# olctc: status feasible, bound -22", "feasible", -22.0),
    ("# olctc: status optimal", "optimal", None),
], ids=["optimal-bound", "optimal-bound-1", "feasible-bound", "optimal-no-bound"])
def test_gurobi_olctc_note_gives_the_status_and_the_bound(tmp_path, note, status, bound):
    """olctc solve --solver gurobi writes its status and bound in a comment after '# Objective value' (see
    olctc/solve/native.py _gurobi_text); a reader ignoring it read every such file as "feasible" and dropped the
    bound."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("# Objective value = -21.5\n",
                                                     f"# Objective value = -21.5\n{note}\n"))
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.objective, sol.bound) == ("gurobi", status, -21.5, bound)
    assert sol.raw_status == f"{status} (olctc solve's note in the file)"
    assert sol.values == {**OPT, "MPS_Rgc3": 5.0}


# ---------------------------------------------------------------- CPLEX


def test_cplex_status_102_optimal_within_tolerance_is_optimal(tmp_path):
    """CPLEX stopping on its MIP gap writes 102 'integer optimal, tolerance' (measured: cplex 22.2, mknap.mps with
    mipgap 0.05, Cplex.solution.write; dualFeasible="0" there). It read as "feasible"."""
    path = _edited(tmp_path, "cplex_solution.sol",
                   ('solutionStatusValue="101"', 'solutionStatusValue="102"'),
                   ('solutionStatusString="integer optimal solution"',
                    'solutionStatusString="integer optimal, tolerance"'),
                   ('dualFeasible="1"', 'dualFeasible="0"'))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective) == ("optimal", "102 integer optimal, tolerance", -21.5)
    assert sol.values == OPT


def test_cplex_limit_stop_without_a_primal_feasible_solution_is_no_solution(tmp_path):
    """A MIP code >= 100 that is not optimal/infeasible/unbounded (107, time limit) holds a solution only when
    primalFeasible is 1. This is cplex_solution.sol with the header of such a stop and primalFeasible="0" (no CPLEX
    run was seen writing 107 with it: the file pins the reader's documented rule); it read as "feasible"."""
    path = _edited(tmp_path, "cplex_solution.sol",
                   ('solutionStatusValue="101"', 'solutionStatusValue="107"'),
                   ('solutionStatusString="integer optimal solution"',
                    'solutionStatusString="time limit exceeded"'),
                   ('primalFeasible="1"', 'primalFeasible="0"'))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("no_solution", "107 time limit exceeded",
                                                                       None, {})
    # the same stop with primalFeasible="1" is a solution: the flag, not the code, made the difference
    feasible = read_solution(_edited(tmp_path, "cplex_solution.sol",
                                     ('solutionStatusValue="101"', 'solutionStatusValue="107"')))
    assert (feasible.status, feasible.values) == ("feasible", OPT)


def test_cplex_write_level_3_leaves_zero_columns_out_and_they_read_as_zero(tmp_path):
    """writeLevel 3 writes nonzero variables only, and no <linearConstraints> (measured: cplex 22.2, model.mps,
    parameters.output.writelevel 3: u = 0 is missing). The reader must mark the file omits_zeros, so to_array fills
    u with 0 (else it raises 'missing column')."""
    text = (SAMPLES / "cplex_solution.sol").read_text()
    constraints = text[text.index(" <linearConstraints>"):text.index(" <variables>")]
    path = _edited(tmp_path, "cplex_solution.sol", ('writeLevel="1"', 'writeLevel="3"'), (constraints, ""),
                   ('  <variable name="u" index="5" value="0"/>\n', ""))
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.omits_zeros) == ("optimal", -21.5, True)
    assert sol.values == {k: v for k, v in OPT.items() if v}
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]


# ---------------------------------------------------------------- SCIP


def test_scip_infeasible_or_unbounded_is_no_solution_not_infeasible(tmp_path):
    """SCIP's INFORUNBD status prints 'infeasible or unbounded' (measured: pyscipopt 6.3 / SCIP 10, statistics
    'problem is solved [infeasible or unbounded]'); the shell's write solution then says 'no solution available'.
    Unboundedness is not ruled out, so it must not read as "infeasible"."""
    path = _edited(tmp_path, "scip_infeasible.sol",
                   ("solution status: infeasible\n", "solution status: infeasible or unbounded\n"))
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.raw_status, sol.objective, sol.values) == (
        "scip", "no_solution", "infeasible or unbounded", None, {})


# ---------------------------------------------------------------- GLPK


def test_glpk_lp_basic_solution_with_no_primal_feasible_point_is_infeasible(tmp_path):
    """An LP with no feasible point: 'glpsol --nomip --nopresol infeasible.mps -w' (GLPK 5.0) writes
    'c Status: INFEASIBLE (FINAL)' and 's bas 2 2 n i 1.5'. The same edit of glpk_lp_only_w.txt: primal 'n'
    (no feasible solution) means the model is infeasible; it read as no_solution."""
    path = _edited(tmp_path, "glpk_lp_only_w.txt", ("c Status:     OPTIMAL", "c Status:     INFEASIBLE (FINAL)"),
                   ("s bas 1 2 f f -6.5", "s bas 1 2 n i -6.5"))
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.objective, sol.values) == ("glpk", "infeasible", None, {})
    assert sol.raw_status == "s bas n i: LP basic solution, primal no feasible solution (not a MIP solution)"


# ---------------------------------------------------------------- HiGHS


@pytest.mark.parametrize("primal", ["None", "Infeasible"])
def test_highs_optimal_model_status_without_feasible_primal_values_is_no_solution(tmp_path, primal):
    """highs_solution.sol with the primal solution status HiGHS writes when it has no (or no feasible) primal point.
    No HiGHS run was seen pairing it with 'Optimal': the file pins the reader's rule that values must be Feasible to
    be a solution; it read as "optimal" with the values."""
    path = _edited(tmp_path, "highs_solution.sol", ("# Primal solution values\nFeasible\n",
                                                    f"# Primal solution values\n{primal}\n"))
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.raw_status, sol.objective, sol.values) == (
        "highs", "no_solution", "Optimal", None, {})


# highspy 1.16.0 on samples/lp_only.mps: h.readModel(...); h.run(); h.writeSolution(f, -1). An LP has duals and a
# basis, so each value line is 'value dual basis_status' (the MIP sample highs_solution_style-1.sol has 'value ').
HIGHS_LP_STYLE_MINUS_1 = """\
2 1 : Number of columns and rows for primal or dual solution or basis
T Primal solution
T Dual solution
T Basis
Columns
1.5 0 1
2.5 -1 2
Rows
4 -1 2
"""
# The same with solver=ipm, run_crossover=off: duals, no basis, so 'value dual ' lines.
HIGHS_LP_IPM_STYLE_MINUS_1 = """\
2 1 : Number of columns and rows for primal or dual solution or basis
T Primal solution
T Dual solution
F Basis
Columns
1.5 0 
2.5 -1 
Rows
4 -1 
"""


@pytest.mark.parametrize("text", [HIGHS_LP_STYLE_MINUS_1, HIGHS_LP_IPM_STYLE_MINUS_1], ids=["basis", "ipm"])
def test_highs_style_minus_1_value_is_the_first_token_of_a_value_dual_line(tmp_path, text):
    """The primal value is the first token; reading the last one gave the dual (or the basis status)."""
    sol = read_solution(_written(tmp_path, "lp.sol", text), col_names=["x", "y"])
    assert (sol.solver, sol.status, sol.objective) == ("highs", "feasible", None)
    assert sol.values == {"x": 1.5, "y": 2.5}
    assert sol.to_array(["x", "y"]).tolist() == [1.5, 2.5]


# ---------------------------------------------------------------- CBC


# /usr/bin/cbc (2.10.8) samples/lp_only.mps -printingOptions all -solve -solu f: one row, so the row block is the
# single index 0, and the column indices restart at 0 (cbc_2.10.8_printall_solution.txt has five rows).
CBC_ONE_ROW_PRINTALL = """\
Optimal - objective value -6.50000000
      0 c1                     4                      -1
      0 x                    1.5                       0
      1 y                    2.5                      -1
"""


def test_cbc_printall_one_row_model_drops_its_row(tmp_path):
    """A row block of one line (index 0) followed by column 0 is a restart too; it kept row c1 as a column."""
    sol = read_solution(_written(tmp_path, "cbc.txt", CBC_ONE_ROW_PRINTALL))
    assert (sol.solver, sol.status, sol.objective) == ("cbc", "optimal", -6.5)
    assert sol.values == {"x": 1.5, "y": 2.5}
    assert sol.to_array(["x", "y"]).tolist() == [1.5, 2.5]
