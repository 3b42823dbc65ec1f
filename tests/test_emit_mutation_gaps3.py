"""Gaps found by a fourth mutation pass over olctc.emit.start and olctc.emit.params (qa145's unrun mutants).

Each test pins behaviour that a hand-written mutant broke while the existing start-file, params and emit tests
still passed. Where the rule is about what a solver does with the file, the solver reads it: CPLEX (its wheel)
and SCIP's own shell (test_params' stand-in for the scip program, libscip's dialog); the text or message only
where the text is the rule. None of them is a defect seen in olctc.
"""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import numpy as np
import pytest

from olctc.emit.lp import write_lp
from olctc.emit.params import write_param_files
from olctc.emit.start import start_filename, start_text, start_texts, write_start
from olctc.errors import OlctcError
from olctc.read import read_solution
from test_emit_writers import make
from test_params import scip_shell_env
from test_start_files import COLS, START, START_OBJ


def test_cplex_reads_a_start_whose_only_odd_names_have_an_ampersand(tmp_path: Path) -> None:
    """The XML start escapes names only when one of them needs it: a bare '&' needs it as much as '<' or a quote,
    or CPLEX refuses the whole file ("XML parsing error ... not well-formed"). The problem name, the file's stem,
    is escaped too: a stem with '&' is a file name like any other."""
    cplex = pytest.importorskip("cplex")
    path = tmp_path / "r&d.cplex.mst"
    write_start(path, ["a&b", "c"], np.array([1.0, 2.0]), "cplex", 5.0)
    c = cplex.Cplex()
    for stream in (c.set_results_stream, c.set_log_stream, c.set_warning_stream):
        stream(None)
    c.variables.add(obj=[1.0, 2.0], lb=[0.0, 0.0], ub=[3.0, 3.0], types="II", names=["a&b", "c"])
    c.MIP_starts.read(str(path))
    assert c.MIP_starts.get_num() == 1
    pair = c.MIP_starts.get_starts(0)[0]
    assert (list(pair.ind), list(pair.val)) == ([0, 1], [1.0, 2.0])


def test_a_numpy_objective_is_written_as_a_plain_number(tmp_path: Path) -> None:
    """The objective usually comes out of numpy arithmetic; its repr is 'np.float64(-19.5)' (NumPy 2), which is
    not a number in any start header. Every format writes '-19.5', and the HiGHS start reads back with it."""
    paths = [tmp_path / start_filename("m", s) for s in ("gurobi", "cbc", "highs", "scip")]
    texts = start_texts(paths, COLS, START, ["gurobi", "cbc", "highs", "scip"], np.float64(START_OBJ))
    assert all("np." not in t and str(START_OBJ) in t for t in texts), texts
    write_start(paths[2], COLS, START, "highs", np.float64(START_OBJ))
    assert read_solution(paths[2]).objective == START_OBJ


def test_start_texts_gives_each_cplex_path_its_own_problem_name(tmp_path: Path) -> None:
    """Only Gurobi's text (shared with COPT) is the same whatever the path; CPLEX's names its problem after its
    file, so two CPLEX starts in one call must not share one text."""
    a, b = tmp_path / "a.cplex.mst", tmp_path / "b.cplex.mst"
    got = start_texts([a, b], COLS, START, ["cplex", "cplex"])
    assert got == [start_text(a, COLS, START, "cplex"), start_text(b, COLS, START, "cplex")]
    assert 'problemName="a"' in got[0] and 'problemName="b"' in got[1]


def test_start_texts_refuses_no_solvers_with_its_own_error(tmp_path: Path) -> None:
    """No paths and no solvers is the caller's mistake, said as such, not an IndexError from inside."""
    with pytest.raises(OlctcError, match="expected one path per solver, got 0 paths for 0 solvers"):
        start_texts([], COLS, START, [])


@pytest.mark.parametrize("shape", [(6, 1), (6, 2)])
def test_a_start_of_one_row_per_column_but_two_dimensions_is_refused(tmp_path: Path, shape: tuple[int, int]) -> None:
    """Values shaped (6, k) have one row per column yet are not one value per column: refused with an OlctcError
    that says so, as a (5,) or (2, 3) array is, not passed on to fail inside the formatting."""
    path = tmp_path / "m.start.gurobi.mst"
    said = f"expected 6 values (one per column), got an array of shape {shape}"
    with pytest.raises(OlctcError, match=re.escape(said)):
        start_text(path, COLS, np.ones(shape), "gurobi")


def test_a_column_named_like_scips_helper_is_refused_for_scip_only(tmp_path: Path) -> None:
    """A column called qmatrixvar clashes with SCIP's helper in a MIQP start for SCIP; the other solvers have no
    helper, and their starts for the same model are written."""
    names = ["qmatrixvar", "y"]
    text = start_text(tmp_path / "m.start.gurobi.mst", names, np.array([1.0, 2.0]), "gurobi", quadratic=1.0)
    assert text == "# MIP start\nqmatrixvar 1\ny 2\n"
    with pytest.raises(OlctcError, match="column 'qmatrixvar' has the name SCIP gives the helper column"):
        start_text(tmp_path / "m.start.scip.sol", names, np.array([1.0, 2.0]), "scip", quadratic=1.0)


@pytest.mark.parametrize("stem", ["o'brien", "a\\\\b"])
def test_solvers_txt_scip_line_runs_for_a_name_with_a_quote_or_backslashes(tmp_path: Path, stem: str) -> None:
    """SCIP's shell reads a single quote as the start of a quoted word (measured: 'read o'brien.lp optimize quit'
    looks for the file "obrien.lp optimize quit"), so a name with one must be quoted even without a space; in a
    quoted word it reads \\\\ as one backslash, so a name's backslashes must be doubled. The SCIP line of
    solvers.txt, with the start's read put where the file says, runs through SCIP's own dialog and SCIP takes the
    start."""
    env = scip_shell_env(tmp_path)
    p = make([1.0, 2.0], [[1.0, 1.0]], ["G"], [1.0], [0.0, 0.0], [3.0, 3.0], [True, True], cols=["x", "y"])
    write_lp(p, tmp_path / f"{stem}.lp")
    write_start(tmp_path / start_filename(stem, "scip"), ["x", "y"], np.array([0.0, 1.0]), "scip", 2.0)
    write_param_files(tmp_path, stem, model=f"{stem}.lp", starts=True, solvers=["scip"])
    text = (tmp_path / f"{stem}.solvers.txt").read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("  SCIP:   scip -c "))[len("  SCIP:   "):]
    read_start = next(ln for ln in text.splitlines() if ln.startswith("  SCIP:   read "))
    start_word = read_start.split("   (")[0][len("  SCIP:   "):]
    args = shlex.split(line)  # the start's read goes "after read MODEL", as the file says
    line = shlex.join(args[:2] + [args[2].replace(" optimize ", f" {start_word} optimize ", 1)] + args[3:])
    proc = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "new primal bound 2.000000e+00" in out, out[-3000:]
    assert read_solution(tmp_path / f"{stem}.scip.sol").objective == 1.0


@pytest.mark.parametrize("bad", ["x\ty", "x\ny", "x\u00a0y"])
def test_a_column_name_with_any_whitespace_is_refused(tmp_path: Path, bad: str) -> None:
    """Every start layout is one 'name value' per line, split at whitespace: a tab or a newline inside a name
    splits it as a space does (a newline even makes two lines), so any whitespace is refused, not a space only."""
    path = tmp_path / "m.start.gurobi.mst"
    with pytest.raises(OlctcError, match=re.escape(f"expected column names without whitespace, got {bad!r}")):
        start_text(path, ["a", bad], np.array([1.0, 2.0]), "gurobi")
