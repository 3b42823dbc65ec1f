"""Solution-reader behaviour a mutation pass over olctc/read/highs.py, glpk.py and _base.py found unpinned: the other
words of a GLPK print for "no feasible point", a print cut before its column table, HiGHS style 1 files missing their
'Rows' or 'Objective value:' line, style -1's 'F Primal solution', and comment lines added to a glpsol -w file. Each
file is a sample of tests/data/solvers/samples with the edit named in the test. What a
test says a file "read as" is what a mutated reader made of it, not a defect seen in olctc (QA 2026-12-07)."""
from __future__ import annotations

from pathlib import Path

import pytest

from olctc.read import read_solution
from test_read_mutation_gaps import COLS, OPT, SAMPLES, _error, _written

# ---------------------------------------------------------------- GLPK printable (glpsol -o, HiGHS style 3)


def test_glpk_print_cut_before_its_column_table_says_so(tmp_path: Path) -> None:
    """A print cut after the row table has no column table: the message names the table's header and the likely
    cause, so that a user looks for a cut file, not a foreign one."""
    text = (SAMPLES / "glpk_output_o.txt").read_text()
    path = _written(tmp_path, "cut_o.txt", text[:text.index("   No. Column name")])
    assert _error(path) == ": expected a column table ('No. Column name ...'), got none (file truncated?)"


@pytest.mark.parametrize("words", ["INTEGER INFEASIBLE", "EMPTY"])
def test_glpk_print_statuses_of_no_feasible_point_are_infeasible(tmp_path: Path, words: str) -> None:
    """The reader's other two words for "no feasible point" (HiGHS's MIP wording, and an LP print's): infeasible,
    never the "no_solution" of an unknown status (glpk_output_o.txt with its Status line edited)."""
    text = (SAMPLES / "glpk_output_o.txt").read_text().replace("INTEGER OPTIMAL", words, 1)
    sol = read_solution(_written(tmp_path, "o.txt", text))
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("infeasible", words, None, {})


# ---------------------------------------------------------------- GLPK raw (glpsol -w, HiGHS style 2)


def test_glpk_raw_file_with_added_comment_lines_is_still_detected(tmp_path: Path) -> None:
    """'c' lines are comments in glpsol's -w format, and a user may add some: the 's' line is looked for past the
    first dozen lines (20 comment lines added to glpk_solution_w.txt)."""
    text = (SAMPLES / "glpk_solution_w.txt").read_text().replace("c\n", "c\n" + "c kept for the record\n" * 20, 1)
    sol = read_solution(_written(tmp_path, "w.txt", text), col_names=COLS)
    assert (sol.solver, sol.status, sol.objective, sol.values) == ("glpk", "optimal", -21.5, OPT)


# ---------------------------------------------------------------- HiGHS style 1 (pretty)


def test_highs_style_1_without_its_rows_header_is_refused(tmp_path: Path) -> None:
    """The 'Rows' line ends the column table; without it (lines lost from the middle of the file) the table has no
    end, and an Optimal file read as "no solution" when the reader took the columns as none."""
    text = (SAMPLES / "highs_solution_style1.sol").read_text().replace("Rows\n", "", 1)
    message = _error(_written(tmp_path, "norows.sol", text))
    assert message == (":18: expected a 'Rows' table and a 'Model status:' line after the columns, got end of file "
                       "(file truncated?)")


def test_highs_style_1_cut_before_its_objective_is_refused(tmp_path: Path) -> None:
    """A style 1 file cut after 'Model status: Optimal' has values but no objective: a one-line error naming the
    missing line (a reader that looked the line up blindly crashed with KeyError)."""
    text = (SAMPLES / "highs_solution_style1.sol").read_text()
    path = _written(tmp_path, "noobj.sol", text[:text.index("Objective value")])
    assert _error(path) == ":18: expected an 'Objective value:' line, got end of file (file truncated?)"


# ---------------------------------------------------------------- HiGHS style -1 (old raw)


def test_highs_style_minus_1_without_primal_values_is_no_solution_not_infeasible(tmp_path: Path) -> None:
    """'F Primal solution' only says that the file holds no primal values; style -1 carries no model status, so
    nothing says the model is infeasible (highs_solution_style-1.sol with 'T' -> 'F')."""
    text = (SAMPLES / "highs_solution_style-1.sol").read_text().replace("T Primal solution", "F Primal solution", 1)
    sol = read_solution(_written(tmp_path, "f.sol", text), col_names=COLS)
    assert (sol.solver, sol.status, sol.values) == ("highs", "no_solution", {})
    assert sol.raw_status == "F Primal solution (style -1 has no model status)"
