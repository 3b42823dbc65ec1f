"""Solution-reader and decode behaviour a mutation pass (QA 2026-12-06) found unpinned: the HiGHS and GLPK
readers' refusals of damaged files (each naming the file, the line and what it expected), the statuses only one
writer uses, and decode's checks and notes (python-mip's .sol having no printing precision: in
test_read_solutions). Each solution file is a real sample (tests/data/solvers/samples) with
the edit stated, or a file a solver wrote here."""
from __future__ import annotations

import re

import numpy as np
import pytest

from olctc.decode import DecodeReport, decode_arrays
from olctc.errors import OlctcError
from olctc.formulation.topology import Topology
from olctc.read import read_solution
from test_core_mutation_gaps import compiled, decoded, solve_fixed
from test_read_mutation_gaps import COLS, SAMPLES, _edited, _error


# ---------------------------------------------------------------- HiGHS


def test_highs_columns_count_line_must_name_columns(tmp_path):
    """'# Rows 6' where '# Columns 6' belongs (the keyword checked, not only the token count) is refused."""
    path = _edited(tmp_path, "highs_solution.sol", ("# Columns 6", "# Rows 6"))
    assert _error(path) == ":7: expected '# Columns <n>', got '# Rows 6'"


def test_highs_objective_line_must_start_with_objective(tmp_path):
    """A line other than 'Objective <v>' after Feasible is named as such, not as a bad number."""
    path = _edited(tmp_path, "highs_solution.sol", ("Objective -21.5", "Value -21.5"))
    assert _error(path) == ":6: expected 'Objective <v>', got 'Value -21.5'"


def test_highs_sparse_index_must_be_a_number(tmp_path):
    """Style 4's third field is the column index: a non-number there is a damaged line."""
    path = _edited(tmp_path, "highs_solution_style4.sol", ("y 3 1", "y 3 one"))
    assert _error(path) == ":9: expected 'name value index', got 'y 3 one'"


def test_highs_pretty_blank_primal_among_values_is_refused(tmp_path):
    """Style 1 leaves every Primal field blank when there is no solution; one blank among values is a damaged line,
    not 'no solution' from an Optimal file."""
    line = "        1                  -5            5            3               Continuous  y"
    path = _edited(tmp_path, "highs_solution_style1.sol", (line, line.replace(" 3 ", "   ")))
    with pytest.raises(OlctcError, match=re.escape(f"{path}:4: expected a value under 'Primal' (HiGHS style 1 "
                                                   "fixed-width table), got '1                  -5 ")):
        read_solution(path)


def test_a_columns_line_without_the_style_1_header_is_no_known_format(tmp_path):
    """Style 1 is recognised by 'Columns' and then its 'Index Status ...' header, not by 'Columns' alone."""
    path = tmp_path / "cols.sol"
    path.write_text("Columns\nx 4\n")
    with pytest.raises(OlctcError, match=re.escape(f"{path}:1: expected a solution file of a known format")):
        read_solution(path)


# ---------------------------------------------------------------- GLPK raw (-w) and printable (-o)


def test_highs_style_2_status_letter_question_mark_is_no_solution(tmp_path):
    """HiGHS's glpsol-style writer says '?' for statuses GLPK has no letter for: read as HiGHS's, no solution."""
    path = _edited(tmp_path, "glpk_solution_w.txt", ("s mip 5 6 o -21.5", "s mip 5 6 ? -21.5"))
    sol = read_solution(path, format="highs", col_names=COLS)
    assert (sol.solver, sol.status, sol.raw_status, sol.values) == ("highs", "no_solution", "s mip ?: unknown", {})
    assert _error(path, col_names=COLS) == ":8: expected a status letter among o, f, n, u, got '?'"


def test_glpk_no_solution_file_cut_before_eof_is_refused(tmp_path):
    """A GLPK file with lines after 's' but no 'e o f' was cut, even when its status has no values to read."""
    path = _edited(tmp_path, "glpk_infeasible_w.txt", ("e o f\n", ""))
    assert _error(path, col_names=["a", "b"]) == (":12: expected 'e o f' as the last line, got end of file after "
                                                  "line 12 (file truncated?)")


def test_glpk_raw_stray_line_before_the_s_line_is_named(tmp_path):
    """A line that is neither a comment nor 's ...' before the 's' line is named, where it is."""
    path = _edited(tmp_path, "glpk_solution_w.txt", ("s mip", "x junk\ns mip"))
    assert _error(path, col_names=COLS) == (":8: expected an 's mip', 's bas' or 's ipt' line after the 'c' lines, "
                                            "got 'x junk'")


def test_glpk_raw_without_comment_lines_is_no_known_format(tmp_path):
    """glpsol -w always starts with 'c' lines: an 's mip' line first is not recognised as GLPK's."""
    text = (SAMPLES / "glpk_solution_w.txt").read_text()
    path = tmp_path / "noc.txt"
    path.write_text("".join(line for line in text.splitlines(True) if not line.startswith("c")))
    with pytest.raises(OlctcError, match=re.escape(f"{path}:1: expected a solution file of a known format")):
        read_solution(path, col_names=COLS)


def test_glpk_printable_table_shorter_than_its_columns_count_is_refused(tmp_path):
    """'Columns: 7' over a 6-line table: the file lost a column line."""
    path = _edited(tmp_path, "glpk_output_o.txt", ("Columns:    6", "Columns:    7"))
    assert _error(path) == ":24: expected 7 columns in the column table, as 'Columns:' says, got 6 (file truncated?)"


# ---------------------------------------------------------------- decode


def test_decode_folds_half_epsilon_into_every_routing_node():
    """The MILP sends a point right only at a score >= epsilon: the decoded tree splits halfway, at epsilon / 2
    folded into each routing node's b, so a new point scoring below epsilon / 2 at the solver's (w, b) goes left
    and one above it goes right (the training points alone, at 0 or >= epsilon, cannot show the fold)."""
    comp = compiled("olct", 2)
    p, half = comp.X.shape[1], comp.spec.epsilon / 2
    x = solve_fixed(comp, np.zeros((1, p)), np.zeros(1), nodes=[0])
    dec, _ = decoded(comp, x)
    solver_b = comp.milp.values(x, "b")
    inner = Topology(2).inner
    assert dec.b[inner].tolist() == (solver_b[inner] - half).tolist()
    # w = 0 at the root: a new point's root score is b, plus 0.9 or 1.1 times epsilon / 2 at the solver's (w, b)
    below, above = np.array([[dec.b[0] + 0.9 * half, 0, 0]]), np.array([[dec.b[0] + 1.1 * half, 0, 0]])
    assert Topology(2).route(below).tolist() == [1] and Topology(2).route(above).tolist() == [2]


def _report(status: str, true: float, **kw) -> DecodeReport:
    """A decode report of a solver's objective 23.2756 (its values' too) whose tree's true objective is ``true``."""
    return DecodeReport(solver="scip", status=status, raw_status=status, solver_objective=23.2756,
                        values_objective=23.2756, true_objective=true, exact_objective=None, bound=None, **kw)


def test_a_feasible_solution_far_above_its_tree_is_loss_slack_not_a_contradicted_optimum():
    """Loss columns far above the losses their (w, b) give contradict only a solution called optimal; a feasible
    (unfinished) one gets the loss-slack note, and finish records it as it was said."""
    rep = _report("feasible", 20.0)
    assert rep.loss_slack and not rep.optimum_contradicted
    text = "\n".join(rep.lines())
    assert "note: the tree's true objective is below the solver's" in text and "WARNING" not in text
    assert _report("optimal", 20.0).optimum_contradicted


def test_an_optimum_worse_than_the_warm_start_is_a_false_optimum_not_a_worse_than_start_note():
    """A solution called optimal with a better warm start is a false proof (its WARNING); the 'worse than the warm
    start' note is for solutions not called optimal."""
    optimal = _report("optimal", 23.2756, known_feasible=20.0)
    assert optimal.false_optimum and not optimal.worse_than_start
    text = "\n".join(optimal.lines())
    assert "the solver's proof is false" in text and "is a better tree" not in text
    feasible = _report("feasible", 23.2756, known_feasible=20.0)
    assert feasible.worse_than_start and not feasible.false_optimum


def test_a_trusted_solution_that_misses_rows_is_reported_not_refused():
    """``trusted`` (olctc fit ran the solver itself): values far off the rows are the solver's own inconsistency,
    kept in the report (max_row_violation), not refused as another model's file; untrusted, they are refused."""
    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    z = comp.milp.col_block("z")
    zc = np.arange(z.slice.start, z.slice.stop).reshape(z.shape)
    x[zc[:, 0]] = 1.0  # point 0 assigned to both leaves: its assignment row sums to 2, not 1
    dec, _ = decoded(comp, x)
    assert dec.report.max_row_violation >= 1.0
    # each column may sit at compile's 1e-9 past a bound: the objective may move by that times |c|
    cost = float(np.abs(comp.milp.c).sum())
    assert cost > 0 and dec.report.tolerance_slack == pytest.approx(1e-9 * cost)
    with pytest.raises(OlctcError, match=r"^solution: the values violate row \S+ of this model by [\d.]+: the solution "
                                         r"belongs to another model$"):
        decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x)
