"""Gaps found by a third mutation pass over olctc.emit.params and olctc.emit.start (qa178).

Each test pins behaviour that a hand-written mutant broke while the params, start-file and emit tests still
passed. Where the rule is about what a solver does with a file, the solver reads it: SCIP through PySCIPOpt,
python-mip, CBC's program, and the Gurobi, CPLEX, COPT and Xpress wheels; the text or the message only where the
text is the rule.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from olctc.emit.params import (check_solvers, format_value, scip_word, solver_settings, validate_limits,
                               write_param_files, xpress_settings)
from olctc.emit.start import start_text
from olctc.errors import OlctcError
from conftest import highs_option, needs_solver_wheel
from test_start_files import COLS, START


def _written(tmp_path: Path, name: str, **kwargs: object) -> str:
    """The text of ``m.<name>`` as write_param_files writes it for a linear model ``m.mps``."""
    write_param_files(tmp_path, "m", **kwargs)  # type: ignore[arg-type]
    return (tmp_path / f"m.{name}").read_text()


def _cbc_start_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("  CBC:    -mips "))


@pytest.mark.parametrize("objective, cutoff", [(0.0, "1e-06"), (-5000.0, "-4999.995"), (0.5, "0.500001")])
def test_the_cbc_cutoff_is_the_starts_objective_plus_a_slack_relative_above_one(tmp_path: Path, objective: float,
                                                                                 cutoff: str) -> None:
    """CBC's cutoff sits above the start's objective by 1e-6 of its size, and by 1e-6 at least near 0, so that
    the start CBC evaluates again (rounding differently) is never cut off: at objective 0 a purely relative slack
    is none at all, and a negative objective needs its magnitude, not its value, to scale the slack."""
    text = _written(tmp_path, "solvers.txt", starts=True, start_objective=objective)
    assert f" -cutoff {cutoff}   " in _cbc_start_line(text)


@pytest.mark.parametrize("limit", ["time_limit", "mip_gap"])
def test_a_limit_too_large_for_a_float_is_refused_with_the_limits_message(limit: str) -> None:
    """10**400 is an int no float holds: float() raises OverflowError, which must become the usual OlctcError
    naming the limit, not escape as a crash."""
    with pytest.raises(OlctcError, match=f"The '{limit}' parameter must be "):
        validate_limits(**{limit: 10 ** 400})


@pytest.mark.parametrize("cli, unlimited, said", [
    (True, True, "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 "
                 "(115 days; leave the option out for no limit). Got 0 instead."),
    (False, True, "The 'time_limit' parameter must be a positive number of seconds, at most 1e7 "
                  "(115 days; pass None for no limit). Got 0 instead."),
    (True, False, "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 "
                  "(115 days). Got 0 instead."),
])
def test_a_bad_time_limit_says_how_to_ask_for_none_in_the_callers_own_words(cli: bool, unlimited: bool,
                                                                            said: str) -> None:
    """A command-line user leaves the option out, a Python caller passes None, and a caller whose None is not
    'no limit' (grid's 600 s default) gets no such hint; the option is named as typed, with hyphens."""
    with pytest.raises(OlctcError) as err:
        validate_limits(time_limit=0, cli=cli, unlimited=unlimited)
    assert str(err.value) == said


def test_a_bad_gap_from_the_command_line_names_the_hyphenated_option() -> None:
    """The option a user typed is --mip-gap; a message naming --mip_gap names no option of olctc."""
    with pytest.raises(OlctcError, match=re.escape("The 'mip_gap' parameter (--mip-gap) must be a relative gap")):
        validate_limits(mip_gap=1.0, cli=True)


def test_integral_floats_print_as_integers_below_1e15_only() -> None:
    """A time limit of 60.0 is '60' in every settings file, as an int is; from 1e15 on the exponent stays: 1e20 is
    '1e+20', not 21 digits (and 1e300 not 301)."""
    assert [format_value(v) for v in (60.0, 1e14, 1e20, 1e300)] == ["60", "100000000000000", "1e+20", "1e+300"]


def test_the_highs_options_file_explains_its_presolve_bits_and_highs_reads_it(tmp_path: Path) -> None:
    """presolve_rule_off = 28672 is a number no reader can decode: the file says, in '#' lines HiGHS skips, which
    rules it turns off and what HiGHS 1.11 needs instead, and HiGHS reads the file with them."""
    import highspy

    text = _written(tmp_path, "highs.opt")
    note = [line for line in text.splitlines() if line.startswith("# ") and "presolve" in line.lower()]
    assert note and note[0].startswith("# presolve_rule_off = 28672 turns off three presolve rules"), text
    assert "with HiGHS 1.11 write" in text.replace("\n# ", " ")
    h = highspy.Highs()
    h.silent()
    assert h.readOptions(str(tmp_path / "m.highs.opt")) == highspy.HighsStatus.kOk
    assert highs_option(h, "presolve_rule_off") == 28672


@pytest.mark.parametrize("name", ["a\tb", "a\nb"])
def test_a_scip_word_with_a_tab_or_newline_is_quoted(name: str) -> None:
    """SCIP's dialog splits a line at any white space (isspace in SCIPdialoghdlrGetWord), not at spaces only."""
    assert scip_word(name) == f'"{name}"'


def test_scip_reads_every_workaround_from_its_settings_file(tmp_path: Path) -> None:
    """Each SCIP workaround is what keeps a run alive or finite (WORKAROUNDS): the heuristics that corrupt its
    heap off, an absolute gap of 1e-6 and symmetry detection off. SCIP reads them back from the file."""
    import pyscipopt

    write_param_files(tmp_path, "m", solvers=["scip"])
    m = pyscipopt.Model()
    m.hideOutput()
    m.readParams(str(tmp_path / "m.scip.set"))
    got = {k: m.getParam(k) for k in ("heuristics/mpec/freq", "heuristics/nlpdiving/freq",
                                      "heuristics/adaptivediving/freq", "limits/absgap", "misc/usesymmetry")}
    assert got == {"heuristics/mpec/freq": -1, "heuristics/nlpdiving/freq": -1, "heuristics/adaptivediving/freq": -1,
                   "limits/absgap": 1e-6, "misc/usesymmetry": 0}


def test_python_mip_gets_the_gap_as_its_relative_gap() -> None:
    """The gap olctc takes is relative: python-mip's max_mip_gap, not max_mip_gap_abs (an absolute 0.1 on an
    objective of 500 is a far tighter stop)."""
    import mip

    m = mip.Model(solver_name=mip.CBC)
    m.verbose = 0
    default_abs = m.max_mip_gap_abs
    for attr, value in solver_settings("python-mip", mip_gap=0.1).items():
        setattr(m, attr, value)
    assert (m.max_mip_gap, m.max_mip_gap_abs, m.integer_tol, m.infeas_tol) == (0.1, default_abs, 1e-9, 1e-9)


def test_cbc_reads_the_gap_flag_as_its_ratio_gap(tmp_path: Path) -> None:
    """CBC's program echoes each flag it takes: the gap goes to ratioGap (relative), not allowableGap."""
    model = tmp_path / "m.lp"
    model.write_text("Minimize\n obj: x\nSubject To\n c: x >= 1\nBounds\n 0 <= x <= 3\nGeneral\n x\nEnd\n")
    args = _written(tmp_path, "cbc.args", mip_gap=0.25).split()
    proc = subprocess.run(["cbc", str(model), *args, "-solve"], capture_output=True, text=True, timeout=60)
    assert re.search(r"ratioGap\s+0\s+\S+\s+0\.25", proc.stdout), proc.stdout
    assert "allowableGap" not in proc.stdout


def test_gurobi_and_cplex_read_the_gap_as_their_relative_gap(tmp_path: Path) -> None:
    """Both .prm files carry the relative gap: Gurobi's MIPGap and CPLEX's mip.tolerances.mipgap, each read back
    by its own wheel, while the absolute gap keeps its default."""
    gurobipy = pytest.importorskip("gurobipy")
    cplex = pytest.importorskip("cplex")
    write_param_files(tmp_path, "m", mip_gap=0.25, solvers=["gurobi", "cplex"])
    with gurobipy.Env(params={"OutputFlag": 0}) as env, gurobipy.Model(env=env) as g:
        g.read(str(tmp_path / "m.gurobi.prm"))
        assert (g.Params.MIPGap, g.Params.MIPGapAbs, g.Params.IntFeasTol) == (0.25, 1e-10, 1e-9)
    c = cplex.Cplex()
    for stream in (c.set_results_stream, c.set_log_stream, c.set_warning_stream):
        stream(None)
    c.parameters.read_file(str(tmp_path / "m.cplex.prm"))
    tol = c.parameters.mip.tolerances
    assert (tol.mipgap.get(), tol.absmipgap.get(), tol.integrality.get()) == (0.25, 1e-6, 1e-9)
    c.end()


def test_copt_reads_the_gap_as_its_relative_gap(tmp_path: Path) -> None:
    """COPT's parameter file gives RelGap, read back by COPT (in a process of its own: needs_solver_wheel)."""
    needs_solver_wheel("coptpy")
    write_param_files(tmp_path, "m", mip_gap=0.25, solvers=["copt"])
    script = (f"import coptpy\nm = coptpy.Envr().createModel('t')\nm.readParam({str(tmp_path / 'm.copt.par')!r})\n"
              "print('RESULT', m.getParam('RelGap'), m.getParam('IntTol'), m.getParam('FeasTol'))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "RESULT 0.25 1e-09 1e-09" in done.stdout, done.stdout + done.stderr


@pytest.mark.filterwarnings("ignore:Using the Community license")
def test_xpress_takes_every_control_in_the_order_given(capfd: pytest.CaptureFixture[str]) -> None:
    """Xpress refuses a miptol below the feastol of the moment ("?710 Warning: MIPTOL (1.e-9) must not be less
    than FEASTOL (1.e-6)"), so feastol must come first in setControl's dict; the gap is its relative miprelstop
    and the added cutoff -1e-6 (XPRESS_ADD_CUTOFF)."""
    needs_solver_wheel("xpress")
    import xpress as xp

    p = xp.problem()
    capfd.readouterr()
    p.setControl(xpress_settings(mip_gap=0.25))
    said = capfd.readouterr()
    assert "must not be less than" not in said.out + said.err, said
    got = {k: p.getControl(k) for k in ("feastol", "miptol", "miprelstop", "mipaddcutoff")}
    assert got == {"feastol": 1e-9, "miptol": 1e-9, "miprelstop": 0.25, "mipaddcutoff": -1e-6}


@pytest.mark.parametrize("bad", [5, 2.5])
def test_solvers_of_no_list_type_are_refused_by_name(bad: object) -> None:
    """An int is no list of solvers: the message says what is expected, not "'int' object is not iterable"."""
    with pytest.raises(OlctcError, match="The 'solvers' parameter must be a comma list of highs, scip"):
        check_solvers(bad)  # type: ignore[arg-type]


def test_solvers_are_matched_without_case_or_spaces_and_returned_in_one_order() -> None:
    """' SCIP, highs' is HiGHS and SCIP, in SOLVER_FILES order whatever order and case they came in, once each."""
    assert check_solvers(" SCIP, highs,scip") == ("highs", "scip")
    assert check_solvers(["Gurobi", "cbc"]) == ("gurobi", "cbc") == check_solvers("cbc,gurobi")


@pytest.mark.parametrize("given, named", [([], "[]"), ("highs,nope", "'nope'")])
def test_no_solvers_or_an_unknown_one_is_refused_naming_what_was_wrong(given: object, named: str) -> None:
    """An empty list leaves nothing to write; an unknown name is named alone, not the whole list."""
    with pytest.raises(OlctcError, match=re.escape(f"Got {named} instead.")):
        check_solvers(given)  # type: ignore[arg-type]


def test_a_miqp_refuses_a_linear_only_solver_naming_the_option_as_called() -> None:
    """From the command line the message names --solvers; from Python, the parameter solvers."""
    with pytest.raises(OlctcError, match=r"^--solvers: cbc does not solve this model"):
        check_solvers("scip,cbc", quadratic=True, option="--solvers")
    with pytest.raises(OlctcError, match=r"^solvers: cbc does not solve this model"):
        check_solvers("scip,cbc", quadratic=True)


def test_an_empty_stem_is_refused(tmp_path: Path) -> None:
    """An empty stem would write hidden files '.highs.opt', '.mps' ...: refused before anything is written."""
    with pytest.raises(OlctcError, match="The 'stem' parameter must be a file name without folder"):
        write_param_files(tmp_path, "")
    assert list(tmp_path.iterdir()) == []


def test_an_upper_case_model_suffix_is_taken(tmp_path: Path) -> None:
    """compile writes NAME.MPS as asked; its settings name that file."""
    assert "highs --model_file m.MPS " in _written(tmp_path, "solvers.txt", model="m.MPS")


def test_a_solver_subset_lists_only_its_commands_and_says_so(tmp_path: Path) -> None:
    """solvers.txt for SCIP alone has no HiGHS line and says the other files were left out (for a MIQP too, the
    one note); for a MIQP and every solver it says why HiGHS, CBC and GLPK are missing instead."""
    text = _written(tmp_path, "solvers.txt", solvers=["scip"])
    assert "HiGHS" not in text and "(written for these solvers only" in text and "a MIQP" not in text
    (tmp_path / "s").mkdir()
    write_param_files(tmp_path / "s", "m", quadratic=True, solvers=["scip"])
    text = (tmp_path / "s" / "m.solvers.txt").read_text()
    assert "(written for these solvers only" in text and "a MIQP" not in text
    (tmp_path / "q").mkdir()
    write_param_files(tmp_path / "q", "m", quadratic=True)
    text = (tmp_path / "q" / "m.solvers.txt").read_text()
    assert "its objective is quadratic, a MIQP" in text and "written for these solvers only" not in text


def test_a_huge_value_is_written_as_a_number_that_reads_back(tmp_path: Path) -> None:
    """Values of 2**63 and more do not fit int64: they are written as floats, not as a wrapped-around integer."""
    x = np.array([1e20, -2.0 ** 63, 2.0 ** 53, 3.0])
    text = start_text(tmp_path / "m.start.gurobi.mst", ["a", "b", "c", "d"], x, "gurobi")
    assert [float(line.split()[1]) for line in text.splitlines()[1:]] == x.tolist()


def test_a_non_finite_value_is_named_by_its_own_column(tmp_path: Path) -> None:
    """The message names the first non-finite column, not the first finite one."""
    x = START.copy()
    x[2] = np.inf
    with pytest.raises(OlctcError, match=re.escape("got inf for column 'z'")):
        start_text(tmp_path / "m.start.gurobi.mst", COLS, x, "gurobi")


def test_a_non_finite_quadratic_part_is_refused(tmp_path: Path) -> None:
    """SCIP's helper column would get 'nan', which no reader takes as a number."""
    with pytest.raises(OlctcError, match="expected a finite quadratic part, got nan"):
        start_text(tmp_path / "m.start.scip.sol", COLS, START, "scip", quadratic=float("nan"))


def test_a_start_of_objective_zero_keeps_its_objective_line(tmp_path: Path) -> None:
    """An objective of 0 is an objective: it is written like any other, not dropped as if none were given."""
    gurobi = start_text(tmp_path / "m.start.gurobi.mst", COLS, START, "gurobi", 0.0)
    cbc = start_text(tmp_path / "m.start.cbc", COLS, START, "cbc", 0.0)
    assert gurobi.startswith("# MIP start\n# Objective value = 0.0\n")
    assert cbc.startswith("Status unknown - objective value 0.0\n")


def test_the_long_name_in_cbcs_error_is_cut_to_40_characters(tmp_path: Path) -> None:
    """The column named in the message is cut: a 300-character name would bury the reason."""
    with pytest.raises(OlctcError) as err:
        start_text(tmp_path / "m.start.cbc", ["y" * 300], np.array([1.0]), "cbc")
    assert str(err.value).endswith(f"for column {'y' * 40!r}")


def test_both_helper_names_taken_names_the_first_in_order(tmp_path: Path) -> None:
    """With both SCIP helper names taken by columns, the message names qmatrixvar, the first in sorted order."""
    with pytest.raises(OlctcError, match="column 'qmatrixvar' has the name"):
        start_text(tmp_path / "m.start.scip.sol", ["quadobjvar", "qmatrixvar"], np.array([1.0, 2.0]), "scip",
                   quadratic=1.0)


def test_cplex_reads_a_start_whose_only_odd_name_has_a_double_quote(tmp_path: Path) -> None:
    """A double quote in a name ends a '"'-quoted XML attribute: the name must be escaped (quoteattr) even when
    no '&', '<' or '>' is in sight, or CPLEX refuses the whole start as malformed XML."""
    cplex = pytest.importorskip("cplex")
    path = tmp_path / "m.cplex.mst"
    path.write_text(start_text(path, ['a"b', "c"], np.array([1.0, 2.0]), "cplex", 5.0))
    c = cplex.Cplex()
    for stream in (c.set_results_stream, c.set_log_stream, c.set_warning_stream):
        stream(None)
    c.variables.add(obj=[1.0, 2.0], lb=[0.0, 0.0], ub=[3.0, 3.0], types="II", names=['a"b', "c"])
    c.MIP_starts.read(str(path))
    pair = c.MIP_starts.get_starts(0)[0]
    assert (list(pair.ind), list(pair.val)) == ([0, 1], [1.0, 2.0])
