"""Solution-reader behaviour a mutation pass over olctc/read (cbc, scip, gurobi, solution, api) found unpinned: a CBC
header with words after the objective, a column line with a fifth field, remarks in another case, the raw statuses
and omits_zeros of files without a solution, the lost-names hint for a column 'x' and for a file that lists x0, the
line a bad bound is named on, and Gurobi logs that hold two solves or bytes that are not UTF-8. Files are written by
the real solver in the test (python-mip's CBC, PySCIPOpt, gurobipy; skipped without it) or are samples of
tests/data/solvers/samples with the edit named in the test (QA 2026-12-07)."""
from __future__ import annotations

import pytest

from olctc.errors import OlctcError
from olctc.read import Solution, detect_format, read_solution
from olctc.read.gurobi import log_status
from test_read_formats_mutation_gaps2 import _gurobi_log
from test_read_mutation_gaps import COLS, OPT, SAMPLES, _edited, _error

MODEL = SAMPLES / "model.mps"


# ---------------------------------------------------------------- CBC


def test_cbc_header_with_words_after_the_objective_is_no_cbc_file():
    """The header is '<status> - objective value <v>' and nothing after it: a line that goes on (two files run
    together, a log line) is not taken for CBC with the rest ignored."""
    with pytest.raises(OlctcError, match="^solution text:1: expected a solution file of a known format"):
        detect_format("Optimal - objective value -21.50000000 after\n      0 x 4 -2\n")


def test_cbc_column_line_with_a_fifth_field_is_refused_on_its_line(tmp_path):
    """CBC writes 'index name value reduced_cost' (four fields, a '**' prefix stripped first): a fifth field means
    another layout, refused on its line rather than read by position."""
    path = _edited(tmp_path, "cbc_2.10.8_solution.txt", ("1 y                      3                    -2.1\n",
                                                         "1 y                      3                    -2.1 7\n"))
    assert _error(path) == (":3: expected 'index name value reduced_cost', "
                            "got '1 y                      3                    -2.1 7'")


def test_cbc_no_integer_solution_remark_is_found_in_any_case(tmp_path):
    """The 'no integer solution' remark is matched whatever its case (its wording already varies between CBC
    versions): a 'Stopped on time (No integer solution ...)' file holds an LP relaxation, not a solution."""
    path = _edited(tmp_path, "cbc_timelimit_solution.txt", ("(no integer", "(No Integer"))
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.values) == ("no_solution", None, {})


def test_cbc_infeasible_file_is_a_sparse_format_without_values():
    """Every CBC file is of the sparse format (omits_zeros), including one without a solution: the whole Solution
    of the infeasible sample."""
    path = SAMPLES / "cbc_infeasible_solution.txt"
    assert read_solution(path) == Solution(status="infeasible", objective=None, values={}, solver="cbc",
                                           raw_status="Infeasible", omits_zeros=True, path=str(path))


def test_cbc_column_named_x_alone_gets_no_lost_names_hint():
    """CBC's own names are x followed by digits: a CBC solution's column 'x' (model.mps has one) that the model
    lacks is just an unknown column, with no hint that CBC lost the model's names."""
    sol = read_solution(SAMPLES / "cbc_2.10.8_solution.txt")
    with pytest.raises(OlctcError, match=r"got unknown column 'x'$"):
        sol.to_array(COLS[1:])

def test_cbc_lost_names_hint_asks_whether_the_model_has_an_x0(tmp_path):
    """The hint is for a model whose own names are not x0, x1, ...: it is judged on the model's columns, so a CBC
    file that does list x0 (nonzero, hence printed) still gets it."""
    sol = read_solution(_edited(tmp_path, "cbc_2.10.8_solution.txt", (" x ", " x0 ")))
    with pytest.raises(OlctcError, match=r"got unknown column 'x0': CBC names the columns x0, x1, \.\.\."):
        sol.to_array(COLS)


# ---------------------------------------------------------------- SCIP


def test_pyscipopt_best_solution_raw_status_says_there_is_no_status_line(tmp_path):
    """PySCIPOpt's writeBestSol starts at 'objective value:': raw_status names that writer, so a message about
    a 'feasible' solution says where the missing status went."""
    pyscipopt = pytest.importorskip("pyscipopt")
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(MODEL))
    m.optimize()
    m.writeBestSol(str(tmp_path / "best.sol"))
    sol = read_solution(tmp_path / "best.sol")
    assert (sol.status, sol.raw_status) == ("feasible", "no status line (PySCIPOpt writeBestSol)")
    assert sol.to_array(COLS).tolist() == [OPT[c] for c in COLS]


# ---------------------------------------------------------------- Gurobi


def test_gurobi_note_with_a_bad_bound_is_refused_on_its_line(tmp_path):
    """The bound of olctc solve's note is named on the note's own line (3 in the sample)."""
    path = _edited(tmp_path, "gurobi_solution.sol", ("# Objective value = -21.5\n",
                                                     "# Objective value = -21.5\n# olctc: status optimal, bound nan\n"))
    assert _error(path) == ":3: expected a finite bound, got 'nan'"


def test_gurobi_log_of_two_solves_is_the_status_of_the_last(tmp_path):
    """Gurobi appends to an existing LogFile: after an optimal solve and then an infeasible one, the log's status
    is the last solve's ('Model is infeasible': unknown), not the optimal status of the solve before it."""
    gp = pytest.importorskip("gurobipy")
    log = _gurobi_log(tmp_path, "model.mps")
    with gp.Env(params={"LogToConsole": 0}) as env, gp.read(str(SAMPLES / "infeasible.mps"), env) as m:
        m.Params.LogFile, m.Params.Threads = str(log), 1
        m.optimize()
        assert m.Status == gp.GRB.INFEASIBLE
    text = log.read_text()
    assert text.count("Best objective ") == 2 and "Optimal solution found" in text
    assert log_status(log) == "unknown"


@pytest.mark.parametrize("status", ["optimal", "feasible"])
def test_gurobi_warnings_before_its_best_objective_line_keep_the_status(tmp_path, status):
    """Gurobi prints its violation warnings between the status line and "Best objective ..." (as its logs show:
    "Optimal solution found (tolerance 1.00e-04)", "Warning: max constraint violation (5.9729e-05) exceeds
    tolerance", "Warning: max bound violation ...", "Best objective ..."): an optimal grid solve read as unknown."""
    log = _gurobi_log(tmp_path, "model.mps", terminate=status == "feasible")
    text = log.read_text()
    best = text.index("Best objective ")
    warned = (text[:best] + "Warning: max constraint violation (5.9729e-05) exceeds tolerance\n"
              "Warning: max bound violation (3.7117e-04) exceeds tolerance\n" + text[best:])
    log.write_text(warned)
    assert log_status(log) == status
    log.write_text(warned.replace("Warning: max bound", "Max bound"))  # a line not Gurobi's warning: no status
    assert log_status(log) == "unknown"


def test_gurobi_log_with_bytes_that_are_not_utf8_is_read(tmp_path):
    """A log echoes file names, which may be Latin-1 bytes ('modèle.mps'): such a line does not make the log
    unreadable, and the status at its end is still found."""
    log = _gurobi_log(tmp_path, "model.mps")
    log.write_bytes(b"Read MPS format model from file /data/mod\xe8le.mps\n" + log.read_bytes())
    assert log_status(log) == "optimal"
