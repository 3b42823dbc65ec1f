"""Tests from a mutation-testing pass over olctc.solve.external (the solver programs cbc, highs and glpsol),
olctc.solve.modelfile, olctc.solve.native and olctc.solve.calls: each pins a behaviour that a small code change
broke without any other test failing. Real programs on tiny models; a small shell script stands in for a solver
program only where a real one cannot be made to print or write what the test needs."""
from __future__ import annotations

import os
import re
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.solve import SolveResult, solve_file, write_native_solution
from olctc.solve.external import EXTERNAL, Invocation, dies_with_us, locate, solve_external
from olctc.solve.options import SolveOptions
from test_solve_mutation_gaps import LP

DATA = Path(__file__).parent / "data" / "solvers"
DEBIAN_CBC = Path("/usr/bin/cbc")

#: min x + 2 y, x + y >= 3, x - y <= 1, y integer: optimum 4 at x = 2, y = 1 (x = 1, y = 2 costs 5)
INT_LP = LP.replace("an LP, no integer column", "a tiny MIP").replace("End\n", "General\n y\nEnd\n")
INFEASIBLE_LP = INT_LP.replace("c2: x - y <= 1", "c2: x + y <= 1")


def _model(folder: Path, text: str = INT_LP, name: str = "m.lp") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _program(folder: Path, body: str, name: str = "fake-solver") -> Path:
    """An executable shell script standing in for a solver program; ``$sol`` is the path after its last flag."""
    path = folder / name
    path.write_text("#!/bin/sh\nfor a in \"$@\"; do sol=$a; done\n" + body + "\n")
    path.chmod(0o755)
    return path


def _run(program: str, model: Path, *, verbose: bool = False, **kwargs) -> SolveResult:
    """solve_file on one thread, quiet unless told, tolerance warnings (glpsol's) left out."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="glpsol has no command-line flag")
        return solve_file(model, program, threads=1, verbose=verbose, **kwargs)


# ------------------------------------------------------------------ finding the program
def test_a_bare_program_name_is_looked_up_on_path(tmp_path: Path) -> None:
    """solver_path="glpsol" runs the glpsol on PATH; a bare name found nowhere says so and asks for a path."""
    res = _run("glpk-cli", _model(tmp_path), solver_path="glpsol")
    assert res.status == "optimal" and res.objective == pytest.approx(4.0, abs=1e-9)
    with pytest.raises(OlctcError, match=r"'no-such-solver-xyz' is not on PATH, nor a file in this folder: give"):
        _run("glpk-cli", _model(tmp_path), solver_path="no-such-solver-xyz")


def test_a_solver_path_that_is_not_executable_is_refused(tmp_path: Path, monkeypatch) -> None:
    """A file without its execute bit is refused before anything runs, naming the file."""
    plain = tmp_path / "cbc"
    plain.write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(OlctcError, match=f"solver program {re.escape(str(plain))} does not exist or is not exec"):
        _run("cbc-cli", _model(tmp_path), solver_path=plain)
    monkeypatch.chdir(tmp_path)  # a bare name of such a file here: the same, not "not on PATH"
    (tmp_path / "mysolver").write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(OlctcError, match=f"solver program {tmp_path / 'mysolver'} does not exist or is not exec"):
        _run("cbc-cli", _model(tmp_path), solver_path="mysolver")


def test_a_program_found_through_a_relative_path_entry_still_runs(tmp_path: Path, monkeypatch) -> None:
    """PATH=bin (relative) finds ./bin/glpsol; the program runs in a scratch folder, so it is run by its absolute
    path."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "glpsol").symlink_to("/usr/bin/glpsol")
    model = _model(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "bin")
    exe, _ = locate(EXTERNAL["glpk-cli"], None)
    assert exe == tmp_path / "bin" / "glpsol"
    assert _run("glpk-cli", model).objective == pytest.approx(4.0, abs=1e-9)


def test_the_kill_with_us_guard_is_found_without_the_system_folders_on_path(monkeypatch) -> None:
    """setpriv (the guard that kills a solver program with olctc) is looked up once per process: a PATH without
    /usr/bin at that first call made every later program run unguarded; the system's folders are looked in too."""
    setpriv = shutil.which("setpriv", path=os.defpath)
    if not sys.platform.startswith("linux") or setpriv is None:
        pytest.skip("no setpriv in the system's folders")
    monkeypatch.setenv("PATH", "bin")
    assert dies_with_us.__wrapped__() == (setpriv, "--pdeathsig", "KILL", "--")


# ------------------------------------------------------------------ the programs' answers
def test_the_cbc_program_names_its_version_and_writes_beside_the_model(tmp_path: Path) -> None:
    """Debian's CBC says "Version: 2.10.x"; without solution_path the file is <stem>.cbc.sol beside the model."""
    res = _run("cbc-cli", _model(tmp_path), solver_path=DEBIAN_CBC)
    assert re.fullmatch(r"CBC 2\.10\.\d+", res.solver_version), res.solver_version
    assert res.solution_path == tmp_path / "m.cbc.sol" and res.solution_path.is_file()


def test_glpsols_solution_is_named_glpk_and_an_infeasible_model_has_no_values(tmp_path: Path) -> None:
    """glpsol's file is <stem>.glpk.sol (not .glpsol.sol); an infeasible model has no x and no objective, and its
    raw status says nothing of a time limit."""
    res = _run("glpk-cli", _model(tmp_path, INFEASIBLE_LP))
    assert res.solution_path == tmp_path / "m.glpk.sol" and res.solution_path.is_file()
    assert res.status == "infeasible" and res.x is None and res.objective is None
    assert "stopped on time" not in res.raw_status and res.solver_version.startswith("GLPK ")


def test_glpsol_warns_of_threads_it_cannot_use_and_of_a_start_it_cannot_take(tmp_path: Path) -> None:
    """glpsol runs on one thread and takes no MIP start: both said, and nothing said for threads=1."""
    model = _model(tmp_path)
    with pytest.warns(UserWarning) as seen:
        solve_file(model, "glpk-cli", threads=2, verbose=False, start={"x": 1, "y": 2})
    said = [str(w.message) for w in seen]
    assert any("the 2 threads asked for are not used" in s for s in said), said
    assert any("glpsol takes no MIP start; the start is ignored" in s for s in said), said
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        solve_file(model, "glpk-cli", threads=1, verbose=False)
    assert not [w for w in quiet if "threads" in str(w.message)]


def test_a_solution_into_a_missing_folder_is_refused_before_solving(tmp_path: Path) -> None:
    with pytest.raises(OlctcError, match=r"cannot write solution .*: folder .*nowhere does not exist"):
        _run("cbc-cli", _model(tmp_path), solution_path=tmp_path / "nowhere" / "m.sol")


def test_a_missing_start_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OlctcError, match=r"MIP start file .*none\.sol does not exist"):
        solve_external("cbc-cli", _model(tmp_path), SolveOptions(threads=1, start_path=tmp_path / "none.sol"))


def test_a_verbose_run_echoes_the_command_and_the_programs_log(tmp_path: Path, capfd) -> None:
    capfd.readouterr()
    solve_file(_model(tmp_path), "cbc-cli", threads=1, verbose=True, solver_path=DEBIAN_CBC)
    out = capfd.readouterr().out
    assert re.search(r"^running: /usr/bin/cbc \S+/m\.lp ", out, re.M), out[:300]
    assert "Welcome to the CBC MILP Solver" in out and "Objective value:" in out


def test_the_cbc_programs_bound_comes_from_its_closing_summary(tmp_path: Path) -> None:
    """CBC's solution file has no bound: a run stopped before any solution takes it from "Lower bound:"."""
    res = solve_file(DATA / "hard_msplit.mps", "cbc-cli", time_limit=1, threads=1, verbose=False,
                     solution_path=tmp_path / "h.sol")
    assert res.status == "no_solution" and res.objective is None
    assert res.bound is not None and 90.0 < res.bound < 100.0, res.bound


# ------------------------------------------------------------------ what a program printed or wrote
CBC_SOLUTION = "printf 'Stopped on time - objective value 4.00000000\\n      0 x 1 0\\n      1 y 2 0\\n' > \"$sol\""


def _fake_cbc(folder: Path, body: str) -> SolveResult:
    return _run("cbc-cli", _model(folder), solver_path=_program(folder, body, "cbc"), col_names=["x", "y"])


def test_a_program_that_wrote_nothing_is_named_with_its_exit_code_and_last_three_lines(tmp_path: Path) -> None:
    """Lines are kept to the end of a long log (more than CBC's 60-line summary away from its start)."""
    body = "i=0; while [ $i -lt 100 ]; do echo log $i; i=$((i+1)); done; echo l2; echo; echo l3; echo l4; exit 3"
    with pytest.raises(OlctcError, match=r"^cbc wrote no solution file \(exit code 3\); last output: l3 \| l4$"):
        _fake_cbc(tmp_path, body)


def test_an_empty_solution_file_is_no_solution_file(tmp_path: Path) -> None:
    with pytest.raises(OlctcError, match=r"^cbc wrote no solution file \(exit code 0\); it printed nothing$"):
        _fake_cbc(tmp_path, ': > "$sol"')
    assert not (tmp_path / "m.cbc.sol").exists()


def test_a_solution_file_olctc_cannot_read_is_named_as_the_programs(tmp_path: Path) -> None:
    """The error names "the solution cbc wrote", not olctc's scratch file that is gone."""
    with pytest.raises(OlctcError, match="the solution cbc wrote") as err:
        _fake_cbc(tmp_path, "echo 'no solver writes this' > \"$sol\"")
    assert "olctc-solve-" not in str(err.value)


def test_highs_stopped_while_reading_is_a_time_limit_too_short(tmp_path: Path) -> None:
    highs = _program(tmp_path, "echo 'HiGHS reader reached time_limit'", "highs")
    with pytest.raises(TimeLimitTooShort, match=r"highs stopped reading model file .*m\.lp when the time limit ran"):
        _run("highs-cli", _model(tmp_path), solver_path=highs, col_names=["x", "y"], time_limit=5)


def test_the_version_is_read_from_the_head_of_the_log_and_the_bound_from_its_last_summary(tmp_path: Path) -> None:
    """"Version:" on the log's fifth line names the version; of two "Lower bound:" lines the last one counts."""
    res = _fake_cbc(tmp_path, "echo a; echo b; echo c; echo d; echo 'Version: 9.9'; echo 'Lower bound: 1.0';"
                              f"echo 'Lower bound: 3.5'; {CBC_SOLUTION}")
    assert res.solver_version == "CBC 9.9"
    assert res.status == "feasible" and res.bound == 3.5 and list(res.x) == [1.0, 2.0]


def test_a_program_of_unknown_version_and_an_infinite_bound(tmp_path: Path) -> None:
    """No version line: "cbc (version unknown)"; CBC's "Lower bound: -1e+50" is no bound."""
    res = _fake_cbc(tmp_path, f"echo 'Lower bound: -1e+50'; {CBC_SOLUTION}")
    assert res.solver_version == "cbc (version unknown)"
    assert res.bound is None and res.gap is None and res.objective == 4.0


def test_a_program_past_its_time_limit_and_grace_is_said_to_be(tmp_path: Path, monkeypatch) -> None:
    """glpsol ran 1.3 s on a 1 s limit, past it and its grace (0 s here, 3 s and more in use): the warning
    says why glpsol may."""
    from olctc.solve import external

    monkeypatch.setattr(external, "overrun_grace", lambda limit: 0.0)
    glpsol = _program(tmp_path, "sleep 1.3; exec /usr/bin/glpsol \"$@\"", "glpsol")
    with pytest.warns(UserWarning, match=r"glpsol ran \d+\.\d s, \d+\.\d s past its time limit of 1\.0 s: glpsol's "):
        _run("glpk-cli", _model(tmp_path), solver_path=glpsol, time_limit=1)


@pytest.mark.parametrize(("says", "rule_off"), [("HiGHS version 1.12.0", 28672), ("HiGHS version 1.11.3", 12288),
                                                 ("no version here", 28672)])
def test_highs_options_keep_bit_14_for_a_highs_of_1_12_or_unknown(tmp_path: Path, says: str, rule_off: int) -> None:
    """presolve_rule_off's bit 14 (Sparsify from HiGHS 1.12, Probing in 1.11) is left out for a HiGHS older than
    1.12 only; a HiGHS whose version cannot be told is taken as new."""
    highs = _program(tmp_path, f"echo '{says}'", "highs")
    inv = Invocation(exe=highs, model=tmp_path / "m.lp", solution=tmp_path / "m.sol", start=None, workdir=tmp_path)
    cmd = EXTERNAL["highs-cli"].command(inv, SolveOptions(threads=1))
    assert cmd[cmd.index("--options_file") + 1] == str(tmp_path / "olctc.highs.opt")
    options = (tmp_path / "olctc.highs.opt").read_text()
    assert re.findall(r"^presolve_rule_off = (\d+)$", options, re.M) == [str(rule_off)]


# ------------------------------------------------------------------ olctc.solve.native
def test_a_highs_file_states_no_infinite_bound(tmp_path: Path) -> None:
    """A bound of -inf (none known) is left out of HiGHS's file, whose reader would take it as a number."""
    res = SolveResult("feasible", 4.0, float("-inf"), None, np.array([1.0, 2.0]), ["x", "y"], "cbc", "v", 1.0,
                      "Stopped on time")
    write_native_solution(res, tmp_path / "h.sol", "highs-cli")
    text = (tmp_path / "h.sol").read_text()
    assert "Objective 4\n# Columns 2\nx 1\ny 2\n" in text and "Objective_bound" not in text


def test_a_cplex_file_without_a_solution_has_cplexs_no_solution_code(tmp_path: Path) -> None:
    """A time limit before any solution: CPLEX's 108 ("..., no integer solution"), not 107 (one was found)."""
    res = SolveResult("no_solution", None, 97.0, None, None, ["x", "y"], "scip", "v", 1.0, "timelimit")
    write_native_solution(res, tmp_path / "m.cplex.sol", "cplex")
    text = (tmp_path / "m.cplex.sol").read_text()
    assert 'solutionStatusValue="108"' in text and 'primalFeasible="0"' in text and "<variables>" not in text
    assert 'solutionStatusString="time limit exceeded, no integer solution"' in text


def test_an_xpress_slx_file_names_the_model_without_its_suffix(tmp_path: Path) -> None:
    """NAME of m.xpress.slx is m (one word), and values must match the columns one for one."""
    res = SolveResult("optimal", 4.0, 4.0, 0.0, np.array([1.0, 2.0]), ["x", "y"], "highs", "v", 1.0, "Optimal")
    write_native_solution(res, tmp_path / "m.xpress.slx", "xpress")
    assert (tmp_path / "m.xpress.slx").read_text() == "NAME m\n  C x 1\n  C y 2\nENDATA\n"
    with pytest.raises(OlctcError, match="result has 2 values for 3 columns"):
        write_native_solution(SolveResult(**{**res.__dict__, "col_names": ["x", "y", "z"]}), tmp_path / "b.sol", "cbc")


# ------------------------------------------------------------------ olctc.solve.calls
def test_only_a_solve_left_after_an_interrupt_is_said_to_have_been_left_after_it() -> None:
    """A solver left running past its time limit is no solver left after an interrupt."""
    from dataclasses import replace

    from olctc.solve.calls import INTERRUPT_WAIT, left_after_interrupt

    res = SolveResult("feasible", 1.0, 0.5, 0.5, np.zeros(2), ["a", "b"], "highs", "v", 1.0, "Time limit reached",
                      left_running=True)
    assert left_after_interrupt(res) is None
    assert left_after_interrupt(replace(res, raw_status="Interrupted by user")) == \
        f"had not stopped {INTERRUPT_WAIT:g} s after the interrupt and was left"
    assert left_after_interrupt(replace(res, raw_status="Interrupted by user", left_running=False)) is None


def test_a_start_vector_needs_the_bounds_only_for_a_start_by_name() -> None:
    """An array start is used as given (the bounds, which may cost a model read, are not asked for); a mapping's
    missing columns are clipped into their bounds."""
    from olctc.solve.calls import _start_values

    def no_bounds() -> tuple[np.ndarray, np.ndarray]:
        raise AssertionError("bounds asked for")

    opts = SolveOptions(start=np.array([1.0, 2.0]))
    assert list(_start_values(opts, ["x", "y"], no_bounds)) == [1.0, 2.0]
    opts = SolveOptions(start={"x": 1.0})
    assert list(_start_values(opts, ["x", "y"], lambda: (np.array([0.0, 2.0]), np.array([5.0, 3.0])))) == [1.0, 2.0]


# ------------------------------------------------------------------ olctc.solve.modelfile
@pytest.mark.parametrize("section", ["QUADOBJ", "QMATRIX", "QSECTION", "QCMATRIX"])
def test_every_quadratic_mps_section_makes_a_quadratic_file(tmp_path: Path, section: str) -> None:
    """CPLEX's older QSECTION and quadratic rows (QCMATRIX) count as well as QUADOBJ and QMATRIX."""
    from olctc.solve.modelfile import is_quadratic_file

    text = (DATA / "model.mps").read_text()
    assert not is_quadratic_file(DATA / "model.mps") and "\nENDATA" in text
    path = tmp_path / "q.mps"
    path.write_text(text.replace("\nENDATA", f"\n{section}\n    x  x  1\nENDATA"))
    assert is_quadratic_file(path)
