"""Solution-reader behaviour a third mutation pass over olctc/read (_base, api, solution, highs, glpk, cbc, scip;
QA 2026-12-07) found unpinned, and two misreads it fixed: a column name holding a line separator (U+2028) was split
into two lines, and HiGHS style 3 of an unbounded MIP read as "an LP solution". Files are real samples
(tests/data/solvers/samples), edited where a test says so, or written by glpsol, HiGHS and CPLEX on tiny models."""
from __future__ import annotations

import codecs
import subprocess
from pathlib import Path

import pytest

from olctc.read import read_solution
from olctc.read._base import known_formats, read_as_written
from test_read_formats_mutation_gaps2 import HAVE_GLPSOL, _glpsol
from test_read_mutation_gaps import COLS, SAMPLES, _edited, _error, _written
from test_read_mutation_gaps2 import _highs_written
from test_read_solutions import UNBOUNDED_MPS

_UNKNOWN = f"expected a solution file of a known format ({known_formats()})"


def _joined(tmp_path: Path, *samples: str) -> Path:
    """The sample files one after another in one file (an old solution file appended to, say)."""
    return _written(tmp_path, "joined.sol", "".join((SAMPLES / s).read_text() for s in samples))


# ---------------------------------------------------------------- plumbing: _base, api


def test_text_starting_with_pk_is_no_zip_archive(tmp_path: Path) -> None:
    """A zip archive is recognised by its whole local-header signature: text starting 'PK' (m12) is an unknown
    format, quoted as such, not an archive to extract."""
    path = _written(tmp_path, "pk.txt", "PKG solution list\n")
    assert _error(path) == f":1: {_UNKNOWN}, got 'PKG solution list'"


@pytest.mark.parametrize("bom", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE], ids=["le", "be"])
def test_a_utf16_head_of_either_byte_order_is_not_read_as_written(bom: bytes) -> None:
    """read_source decodes UTF-16 of both byte orders, so neither reads as its bytes (m22: big-endian missed)."""
    codec = "utf-16-le" if bom == codecs.BOM_UTF16_LE else "utf-16-be"
    assert not read_as_written(bom + "Model status\nOptimal\n".encode(codec))


def test_a_forced_format_names_the_first_nonblank_line_stripped(tmp_path: Path) -> None:
    """--format on a file of no known format quotes its first non-blank line without padding, as detection does
    (m27: the raw first line, here '')."""
    path = _written(tmp_path, "odd.sol", "\n   some text   \n")
    assert _error(path, format="cbc") == (": expected a CBC solution file (first line '<status> - objective value "
                                          "<v>'), got 'some text'")


# ---------------------------------------------------------------- HiGHS


def test_highs_primal_infeasible_or_unbounded_with_a_feasible_point_is_no_solution(tmp_path: Path) -> None:
    """'Primal infeasible or unbounded' is no solution even over 'Feasible' values (m36 read them as a feasible
    solution); highs_solution.sol with its status so edited."""
    path = _edited(tmp_path, "highs_solution.sol", ("Optimal\n", "Primal infeasible or unbounded\n"))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.values) == ("no_solution", "Primal infeasible or unbounded", {})


def test_a_sparse_highs_file_followed_by_another_is_refused(tmp_path: Path) -> None:
    """Style 4 has no '# Rows' section, so a second file's 'Model status' comes right after the last column: it is
    a second solution there too (m42 looked for it from the line after)."""
    path = _joined(tmp_path, "highs_solution_style4.sol", "highs_solution.sol")
    n = len((SAMPLES / "highs_solution_style4.sol").read_text().splitlines())
    assert _error(path).startswith(f":{n + 1}: expected one solution (the file holds a second 'Model status'")


def test_a_columns_line_alone_is_no_known_format(tmp_path: Path) -> None:
    """'Columns' with nothing after it (a style 1 file cut after its first line) is an unknown format, not an
    IndexError from looking for the table header (m45)."""
    assert _error(_written(tmp_path, "cut.sol", "Columns\n")) == f":1: {_UNKNOWN}, got 'Columns'"


def test_highs_style_minus_1_cut_one_value_short_is_refused(tmp_path: Path) -> None:
    """A style -1 file that ends after 5 of its 6 values was cut: refused as such (m52 ran past the end)."""
    text = (SAMPLES / "highs_solution_style-1.sol").read_text()
    path = _written(tmp_path, "cut.sol", text[:text.index("0 \nRows")])
    assert _error(path, col_names=COLS) == (":10: expected 6 values after 'Columns' (line 5), got fewer "
                                            "(file truncated?)")


# ---------------------------------------------------------------- GLPK (and HiGHS styles 2, 3)


@pytest.mark.skipif(not HAVE_GLPSOL, reason="needs glpsol")
def test_glpk_printable_integer_undefined_carries_no_lp_remark(tmp_path: Path) -> None:
    """glpsol --tmlim 0 on hard_msplit.mps -o says 'INTEGER UNDEFINED': a MIP status, no solution, and not "an LP
    solution" (m57 added that remark to every INTEGER status read as no solution)."""
    sol = read_solution(_glpsol(tmp_path, "hard_msplit.mps", "--tmlim", "0", flag="-o"))
    assert (sol.status, sol.raw_status) == ("no_solution", "INTEGER UNDEFINED")


def test_glpk_printable_objective_without_a_name_is_read(tmp_path: Path) -> None:
    """HiGHS style 3 of a model whose objective has no name writes 'Objective:  0 (MINimum)', without 'obj =':
    the number is read (m59 took the text after '=' and crashed)."""
    sol = read_solution(_highs_written(tmp_path, 3))
    assert (sol.status, sol.objective, sol.values) == ("optimal", 0.0, {"a": 0.0, "b": 0.0})


def test_glpk_raw_column_count_that_is_no_number_is_named_on_the_s_line(tmp_path: Path) -> None:
    """A column count that is no integer is refused on the 's' line, line 8 (m66 gave no line)."""
    path = _edited(tmp_path, "glpk_solution_w.txt", ("s mip 5 6 o", "s mip 5 six o"))
    assert _error(path, col_names=COLS) == ":8: expected the number of columns in the 's' line, got 'six'"


def test_glpk_lp_basic_solution_with_an_undefined_primal_is_no_solution(tmp_path: Path) -> None:
    """Primal status 'u' (undefined) of an 's bas' line says nothing of feasibility: no solution, not infeasible
    (m68); glpk_lp_only_w.txt with its primal status so edited."""
    path = _edited(tmp_path, "glpk_lp_only_w.txt", ("s bas 1 2 f f", "s bas 1 2 u f"))
    sol = read_solution(path, col_names=["x", "y"])
    assert (sol.status, sol.raw_status) == (
        "no_solution", "s bas u f: LP basic solution, primal undefined (not a MIP solution)")


def test_highs_style_3_of_an_unbounded_mip_is_unbounded(tmp_path: Path) -> None:
    """DEFECT fixed: HiGHS 1.16's style 3 of a MIP it found unbounded says 'Status: UNBOUNDED' over a MIP's table;
    it read as no_solution '(an LP solution, not a MIP solution)'. It is unbounded, as style 0 of the same solve."""
    path = _highs_written(tmp_path, 3, unbounded=True)
    for fmt in (None, "highs"):
        sol = read_solution(path, format=fmt)
        assert (sol.status, sol.raw_status, sol.values) == ("unbounded", "UNBOUNDED", {})
    assert read_solution(_highs_written(tmp_path, 0, unbounded=True)).status == "unbounded"


@pytest.mark.skipif(not HAVE_GLPSOL, reason="needs glpsol")
def test_an_lp_print_saying_unbounded_is_still_no_mip_solution(tmp_path: Path) -> None:
    """The fix above is for a MIP's table only: glpsol --nomip --nopresol on an unbounded model prints an LP
    solution (St and Marginal fields) with 'UNBOUNDED', which stays no solution, as the relaxation's status."""
    (tmp_path / "unb.mps").write_text(UNBOUNDED_MPS)
    subprocess.run(["glpsol", "--freemps", "--nomip", "--nopresol", "unb.mps", "-o", "o.txt"], cwd=tmp_path,
                   check=True, capture_output=True, timeout=60)
    sol = read_solution(tmp_path / "o.txt")
    assert (sol.status, sol.raw_status) == ("no_solution", "UNBOUNDED (an LP solution, not a MIP solution)")


# ---------------------------------------------------------------- SCIP


def test_scip_infeasible_or_unbounded_with_values_is_no_solution(tmp_path: Path) -> None:
    """'infeasible or unbounded' is no solution even when values follow (m78 read them as a feasible solution);
    scip_solution.sol with its status so edited."""
    path = _edited(tmp_path, "scip_solution.sol", ("optimal solution found", "infeasible or unbounded"))
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.values) == ("no_solution", "infeasible or unbounded", {})


# ---------------------------------------------------------------- names holding line separators


def test_cplex_column_name_with_a_line_separator_survives(tmp_path: Path) -> None:
    """DEFECT fixed: CPLEX keeps any byte in a name, and a name holding U+2028 (written in UTF-8) lost it: lines
    were split with str.splitlines, which breaks there, and the XML read 'a b'. Lines end at LF, CRLF, CR alone."""
    cplex = pytest.importorskip("cplex")
    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream):
        stream(None)
    c.parameters.threads.set(1)
    c.variables.add(obj=[-1.0, -2.0], ub=[3.0, 1.0], names=["a\u2028b", "c"], types="II")
    c.solve()
    c.solution.write(str(tmp_path / "x.sol"))
    sol = read_solution(tmp_path / "x.sol")
    assert (sol.status, sol.values) == ("optimal", {"a\u2028b": 3.0, "c": 1.0})

