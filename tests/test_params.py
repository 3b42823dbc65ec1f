"""Solver settings files: content, and that each real solver program accepts them."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import highs_option
from olctc.emit.params import (PARAM_FILES, PARAM_NAMES, TIGHT_TOL, cbc_args, cbc_cutoff, glpk_args, solver_settings,
                               write_param_files)
from olctc.errors import OlctcError

DATA = Path(__file__).parent / "data" / "solvers"
MODEL = DATA / "model.mps"


def _highs_cli() -> tuple[str, dict[str, str]] | None:
    try:
        import highsbox
    except ImportError:
        return None
    exe = Path(highsbox.highs_bin_path())
    if not exe.is_file():
        return None
    import os
    env = dict(os.environ, LD_LIBRARY_PATH=highsbox.highs_lib_dir())
    return str(exe), env


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = write_param_files(tmp_path, "tree", time_limit=30, threads=2, mip_gap=1e-4)
    return {p.name[len("tree."):]: p for p in paths}


def test_writes_one_file_per_solver(files: dict[str, Path]) -> None:
    assert list(files) == list(PARAM_FILES)
    assert set(files) == {"highs.opt", "scip.set", "gurobi.prm", "cplex.prm", "cbc.args", "glpk.args", "copt.par",
                          "solvers.txt"}


def test_every_solver_gets_tight_tolerances() -> None:
    assert TIGHT_TOL == 1e-9
    for interface, names in PARAM_NAMES.items():
        settings = solver_settings(interface)
        if interface == "glpk-cli":
            assert settings == {}  # glpsol has no tolerance flags
        else:
            assert settings[names.integrality] == 1e-9 and settings[names.feasibility] == 1e-9


def test_gurobi_and_cplex_files(files: dict[str, Path]) -> None:
    gurobi = files["gurobi.prm"].read_text().splitlines()
    assert "IntFeasTol 1e-09" in gurobi and "FeasibilityTol 1e-09" in gurobi
    assert "TimeLimit 30" in gurobi and "Threads 2" in gurobi and "MIPGap 0.0001" in gurobi
    cplex = files["cplex.prm"].read_text().splitlines()
    assert "CPXPARAM_MIP_Tolerances_Integrality 1e-09" in cplex
    assert "CPXPARAM_Simplex_Tolerances_Feasibility 1e-09" in cplex
    assert "CPXPARAM_TimeLimit 30" in cplex and "CPXPARAM_Threads 2" in cplex
    # comments only with '#' at the line start (both PRM readers skip those lines)
    assert all(not line or line.startswith("#") or len(line.split()) == 2 for line in gurobi + cplex)


def test_highs_options_file_read_by_highspy(files: dict[str, Path]) -> None:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readOptions(str(files["highs.opt"])) == highspy.HighsStatus.kOk
    assert highs_option(h, "mip_feasibility_tolerance") == 1e-9
    assert highs_option(h, "primal_feasibility_tolerance") == 1e-9
    assert highs_option(h, "time_limit") == 30.0
    assert highs_option(h, "threads") == 2
    assert highs_option(h, "mip_rel_gap") == 1e-4
    # WORKAROUNDS: sparsify never returned on a6a; the aggregator and parallel rows and columns cut OCT-H optima off
    assert highs_option(h, "presolve_rule_off") == (1 << 14) | (1 << 13) | (1 << 12)


def test_highs_options_file_read_by_highs_cli(files: dict[str, Path], tmp_path: Path) -> None:
    cli = _highs_cli()
    if cli is None:
        pytest.skip("highsbox not installed")
    exe, env = cli
    out = subprocess.run([exe, "--model_file", str(MODEL), "--options_file", str(files["highs.opt"])],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60).stdout
    # the CLI echoes every non-default option it set
    assert "Set option mip_feasibility_tolerance to 1e-09" in out
    assert "Set option primal_feasibility_tolerance to 1e-09" in out
    assert "Set option time_limit to 30" in out
    assert "Set option threads to 2" in out
    assert re.search(r"Rule 14 \(set bit 14 = +16384\): Sparsify", out)  # WORKAROUNDS, taken from the file
    assert re.search(r"Rule 12 \(set bit 12 = +4096\): Aggregator", out)
    assert re.search(r"Rule 13 \(set bit 13 = +8192\): Parallel rows and columns", out)
    assert "Optimal" in out


def test_scip_settings_read_by_pyscipopt(files: dict[str, Path]) -> None:
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    m.readParams(str(files["scip.set"]))
    assert m.getParam("numerics/feastol") == 1e-9
    assert m.getParam("limits/time") == 30.0
    assert m.getParam("limits/gap") == 1e-4
    assert m.getParam("heuristics/mpec/freq") == -1  # WORKAROUNDS: SCIP's MPEC heuristic corrupts its heap


@pytest.mark.parametrize("program", ["/usr/bin/cbc", "cbc"])
def test_cbc_accepts_the_flags(files: dict[str, Path], tmp_path: Path, program: str) -> None:
    exe = program if Path(program).is_file() else shutil.which(program)
    if exe is None:
        pytest.skip(f"{program} not installed")
    args = files["cbc.args"].read_text().split()
    assert args == cbc_args(time_limit=30, threads=2, mip_gap=1e-4)
    sol = tmp_path / "out.txt"
    out = subprocess.run([exe, str(MODEL), *args, "-solve", "-solu", str(sol)], capture_output=True,
                         text=True, cwd=tmp_path, timeout=60).stdout
    assert "Illegal" not in out and "illegal" not in out
    if "Version: 2.10" in out:   # CBC 2.10 echoes each change
        assert "integerTolerance was changed from 1e-07 to 1e-09" in out
        assert "primalTolerance was changed from 1e-07 to 1e-09" in out
        assert "seconds was changed from 1e+100 to 30" in out
        assert "Option for preprocess changed from sos to off" in out  # WORKAROUNDS: false optima
        assert "increment was changed from 1e-10 to 1e-09" in out
    else:                        # cbcbox devel lists non-default parameters (not primalT)
        assert "integerTolerance  1e-06 → 1e-09" in out
        assert "preprocess  sos → off" in out and "increment  0.0001 → 1e-09" in out
    assert re.match(r"Optimal( \(within gap tolerance\))? - objective value -21.5", sol.read_text())


def test_glpsol_accepts_the_flags(files: dict[str, Path], tmp_path: Path) -> None:
    exe = shutil.which("glpsol")
    if exe is None:
        pytest.skip("glpsol not installed")
    args = files["glpk.args"].read_text().split()
    assert args == ["--tmlim", "30", "--mipgap", "0.0001"]
    sol = tmp_path / "out.txt"
    proc = subprocess.run([exe, str(MODEL), *args, "-w", str(sol)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stdout
    assert "s mip 5 6 o -21.5" in sol.read_text()


def test_glpk_time_limit_rounded_down_to_whole_seconds() -> None:
    # glpsol answers "Invalid time limit '1.5'" to a fractional value; a limit is an upper bound (rounded up,
    # with glpsol's own overrun, solve --time-limit 8 took 10.5 s), and at least 1 s
    assert glpk_args(time_limit=1.5) == ["--tmlim", "1"]
    assert glpk_args(time_limit=7.99) == ["--tmlim", "7"] and glpk_args(time_limit=0.6) == ["--tmlim", "1"]


def test_no_limits_gives_tolerances_only(tmp_path: Path) -> None:
    paths = write_param_files(tmp_path, "m")
    text = {p.name: p.read_text() for p in paths}
    assert text["m.cbc.args"] == "-integerT 1e-09 -primalT 1e-09 -preprocess off -increment 1e-09\n"
    assert "time_limit" not in text["m.highs.opt"] and "threads" not in text["m.highs.opt"]
    assert "glpsol m.mps -w m.glpk.sol" in text["m.solvers.txt"]


@pytest.mark.parametrize("kwargs", [{"time_limit": 0}, {"time_limit": -1.0}, {"threads": 0},
                                    {"threads": 1.5}, {"mip_gap": 1.5}, {"mip_gap": -0.1}])
def test_bad_limits_rejected(tmp_path: Path, kwargs: dict) -> None:
    with pytest.raises(OlctcError):
        write_param_files(tmp_path, "m", **kwargs)


def test_missing_folder_rejected(tmp_path: Path) -> None:
    with pytest.raises(OlctcError, match="does not exist"):
        write_param_files(tmp_path / "nope", "m")


def _said(text: str, solver: str) -> list[list[str]]:
    """The commands (or start flags) that ``NAME.solvers.txt`` gives for ``solver``, as argument lists."""
    import shlex

    lines = [ln.split(":", 1)[1] for ln in text.splitlines() if ln.startswith(f"  {solver}:")]
    return [shlex.split(ln.split("   (")[0]) for ln in lines]


def test_solvers_txt_commands_run_as_written_with_and_without_the_start(tmp_path: Path, capsys) -> None:
    """The CBC and HiGHS command lines of ``compile``'s solvers.txt, run as written: they solve the model,
    and with the start flags put where the file says, each program reports using the warm start."""
    import json

    from conftest import HIGHS_START_ACCEPTED, cli_main
    from olctc.read import read_solution
    from test_cluster import small_heart_csv

    data = small_heart_csv(tmp_path / "h.csv", per_class=12)
    assert cli_main(["compile", data, "--target", "y", "--depth", "2", "-o", tmp_path / "m.mps"], capsys)[0] == 0
    text = (tmp_path / "m.solvers.txt").read_text()
    warm = json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["objective"]
    (cbc, cbc_start), (highs, highs_start) = _said(text, "CBC"), _said(text, "HiGHS")
    # the cutoff keeps CBC from returning a tree worse than its start (olctc.emit.params.cbc_cutoff)
    assert cbc[:2] == ["cbc", "m.mps"] and cbc_start == ["-mips", "m.start.cbc", "-cutoff", repr(cbc_cutoff(warm))]
    assert highs[-2:] == ["--solution_file", "m.highs.sol"] and highs_start[0] == "--read_solution_file"
    exe = _highs_cli()
    runs = {}
    # cbcbox's CBC (python-mip's dependency); Debian's CBC 2.10 proves false optima here, see CBC_PARAMETERS
    cbc_devel = Path(sys.executable).with_name("cbc")
    if cbc_devel.is_file():
        runs["cbc"] = ([str(cbc_devel)] + cbc[1:], 2, cbc_start, "m.cbc.sol", None)
    if exe is not None:
        runs["highs"] = ([exe[0]] + highs[1:], len(highs) - 2, highs_start, "m.highs.sol", exe[1])
    for name, (cmd, at, flags, sol, env) in runs.items():
        objectives = []
        for with_start in (False, True):
            args = cmd[:at] + flags + cmd[at:] if with_start else cmd
            proc = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            log = proc.stdout
            if with_start and name == "cbc":
                # CBC fixes the start's integers and solves for the rest: a cost at most the start's
                found = re.search(r"MIPStart provided solution with cost (\S+)", log)
                assert found and float(found.group(1)) <= warm + 1e-5, log
                said = r"cutoff (was changed from 1e\+100 to|\s*1e\+50 \S+) "  # CBC 2.10's words, then the devel's
                assert re.search(said + f"{cbc_cutoff(warm):.6g}", log), log
            elif with_start:
                found = HIGHS_START_ACCEPTED.search(log)
                assert found and abs(float(found.group(1)) - warm) <= 1e-6 * max(1.0, abs(warm)), log
            else:
                assert "MIPStart" not in log and not HIGHS_START_ACCEPTED.search(log)
            objectives.append(read_solution(tmp_path / sol).objective)
        assert objectives[0] == pytest.approx(objectives[1], rel=1e-6) and objectives[1] <= warm + 1e-9, name
    assert runs, "neither cbcbox's CBC nor highsbox's HiGHS is installed"


def _programs() -> dict[str, tuple[str, dict[str, str] | None]]:
    """solvers.txt's solver word -> (program to run in place of its first word, environment), for the
    programs installed here: cbcbox's CBC on PATH, Debian's CBC 2.10, highsbox's HiGHS CLI, glpsol."""
    out: dict[str, tuple[str, dict[str, str] | None]] = {}
    for key, exe in (("CBC", shutil.which("cbc")), ("CBC 2.10", "/usr/bin/cbc"), ("GLPK", shutil.which("glpsol"))):
        if exe and Path(exe).is_file():
            out[key] = (exe, None)
    highs = _highs_cli()
    if highs is not None:
        out["HiGHS"] = highs
    return out


#: The flag before the solution file in each program's solvers.txt command line.
_SOLUTION_FLAG = {"CBC": "-solu", "HiGHS": "--solution_file", "GLPK": "-w"}


def _run_as_written(folder: Path, text: str, key: str, exe: str, env: dict[str, str] | None, model: str):
    """Run ``key``'s command of solvers.txt in ``folder`` as written (``exe`` for its first word); its solution.

    ``model``: the model file, whose column names map glpsol's numbered columns."""
    from olctc.read import read_solution
    from olctc.solve.modelfile import file_columns

    cmd = _said(text, key.split()[0])[0]
    sol = folder / cmd[cmd.index(_SOLUTION_FLAG[key.split()[0]]) + 1]
    proc = subprocess.run([exe] + cmd[1:], cwd=folder, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and sol.is_file(), (key, cmd, proc.stdout[-2000:] + proc.stderr)
    return read_solution(sol, col_names=file_columns(folder / model)[0])


def test_solvers_txt_commands_for_an_lp_model_run_as_written(tmp_path: Path, capsys) -> None:
    """compile -o m.lp: every parameter file names m.lp (not an m.mps that was never written), glpsol
    gets --lp, and the CBC, HiGHS and glpsol commands run as written solve it to the objective that the
    same commands give for m.mps."""
    from conftest import cli_main

    text = {}
    for fmt in ("mps", "lp"):
        (tmp_path / fmt).mkdir()
        args = ["compile", "--dataset", "haberman", "--depth", "1", "-o", tmp_path / fmt / f"m.{fmt}"]
        assert cli_main(args, capsys)[0] == 0
        text[fmt] = (tmp_path / fmt / "m.solvers.txt").read_text()
    lp_files = {p.name: p.read_text() for p in (tmp_path / "lp").glob("m.*")
                if not p.name.startswith(("m.start.", "m.olctc")) and p.name != "m.lp"}
    assert len(lp_files) == len(PARAM_FILES) and not [n for n, t in lp_files.items() if "m.mps" in t]
    assert lp_files["m.glpk.args"] == "--lp\n"
    said = text["lp"]
    assert said.startswith("Solver settings for m.lp ")
    assert _said(said, "GLPK")[0] == ["glpsol", "m.lp", "--lp", "-w", "m.glpk.sol"]
    assert _said(said, "HiGHS")[0][:3] == ["highs", "--model_file", "m.lp"]
    assert _said(said, "CBC")[0][:2] == ["cbc", "m.lp"]
    for line in ("read m.lp optimize", "gurobipy.read('m.lp')", "cplex.Cplex('m.lp')", "(after read m.lp)"):
        assert line in said, line
    programs = _programs()
    assert programs, "none of CBC, HiGHS CLI and glpsol is installed"
    for key, (exe, env) in programs.items():
        mps = _run_as_written(tmp_path / "mps", text["mps"], key, exe, env, "m.mps")
        lp = _run_as_written(tmp_path / "lp", said, key, exe, env, "m.lp")
        assert lp.status == mps.status == "optimal", (key, lp.raw_status, mps.raw_status)
        assert lp.objective == pytest.approx(mps.objective, rel=1e-7), key


#: A stand-in for the `scip` program: SCIP's own shell (the dialog of the libscip that PySCIPOpt ships), given
#: each -c argument as one input line, as scip's main does (SCIPprocessShellArguments), then "quit".
_SCIP_SHELL = """\
import ctypes, glob, os, sys
import pyscipopt
lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(pyscipopt.__file__), os.pardir, "pyscipopt.libs",
                                         "libscip*.so*"))[0])
scip = ctypes.c_void_p()
assert lib.SCIPcreate(ctypes.byref(scip)) == 1 and lib.SCIPincludeDefaultPlugins(scip) == 1
args = sys.argv[1:]
for flag, line in zip(args[::2], args[1::2]):
    assert flag == "-c", args
    assert lib.SCIPaddDialogInputLine(scip, line.encode()) == 1
assert lib.SCIPaddDialogInputLine(scip, b"quit") == 1 and lib.SCIPstartInteraction(scip) == 1
"""


def scip_shell_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH finds a `scip` that is SCIP's own shell (``_SCIP_SHELL``, in ``tmp_path/bin``);
    skips when this PySCIPOpt links a system libscip instead of one of its own."""
    import glob
    import os

    import pyscipopt

    if not glob.glob(os.path.join(os.path.dirname(pyscipopt.__file__), os.pardir, "pyscipopt.libs", "libscip*")):
        pytest.skip("this PySCIPOpt links a system libscip, not one of its own")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "scip").write_text(f"#!/bin/sh\nexec {sys.executable} {bin_dir / 'shell.py'} \"$@\"\n")
    (bin_dir / "scip").chmod(0o755)
    (bin_dir / "shell.py").write_text(_SCIP_SHELL)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_solvers_txt_scip_line_runs_as_written_with_spaces_and_quotes_in_the_name(tmp_path: Path, capsys) -> None:
    """SCIP's shell splits a line at spaces: 'read my model.lp' read 'my'. The SCIP line of solvers.txt now
    quotes such names for SCIP's shell, and the line (with the start's read put where the file says) runs
    in bash as written, through SCIP's own dialog, to a solution that decodes."""
    from conftest import cli_main

    env = scip_shell_env(tmp_path)
    name = 'my "odd" model'
    assert cli_main(["compile", "--dataset", "haberman", "--depth", "1", "-o", tmp_path / f"{name}.lp"], capsys)[0] == 0
    text = (tmp_path / f"{name}.solvers.txt").read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("  SCIP:   scip -c "))[len("  SCIP:   "):]
    read_start = next(ln for ln in text.splitlines() if ln.startswith("  SCIP:   read "))
    assert read_start == '  SCIP:   read "my \\"odd\\" model.start.scip.sol"   (after read "my \\"odd\\" model.lp")'
    start_word = read_start.split("   (")[0][len("  SCIP:   "):]
    line = line.replace(" optimize ", f" {start_word} optimize ", 1)  # "after read MODEL", as the file says
    proc = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "accepted" in out, out[-3000:]  # the start was read and taken
    assert (tmp_path / f"{name}.scip.sol").is_file(), out[-3000:]
    code, _, err = cli_main(["decode", tmp_path / f"{name}.olctc.json", tmp_path / f"{name}.scip.sol",
                             "-o", tmp_path / "t.json"], capsys)
    assert code == 0, err


def test_param_files_name_the_model_given(tmp_path: Path) -> None:
    write_param_files(tmp_path, "m", model="m.lp", time_limit=30)
    assert (tmp_path / "m.glpk.args").read_text() == "--lp --tmlim 30\n"
    text = (tmp_path / "m.solvers.txt").read_text()
    assert "m.lp" in text and "m.mps" not in text
    write_param_files(tmp_path, "m", model="m.MPS")
    assert (tmp_path / "m.glpk.args").read_text() == "\n"  # glpsol reads free MPS by default
    assert _said((tmp_path / "m.solvers.txt").read_text(), "CBC")[0][:2] == ["cbc", "m.MPS"]


@pytest.mark.parametrize("model", ["x.lp", "m.txt", "m.lp.gz", "mm.lp", "m"])
def test_a_model_name_of_another_stem_or_format_is_refused(tmp_path: Path, model: str) -> None:
    with pytest.raises(OlctcError, match=r"The 'model' parameter must be the model file's name, m.mps or m.lp\. "
                                         rf"Got '{re.escape(model)}' instead\."):
        write_param_files(tmp_path, "m", model=model)
    assert list(tmp_path.iterdir()) == []


def test_file_names_with_spaces_stay_one_argument(tmp_path: Path) -> None:
    """glpsol run as solvers.txt says on a model whose name has a space."""
    exe = shutil.which("glpsol")
    if exe is None:
        pytest.skip("glpsol not installed")
    shutil.copy(MODEL, tmp_path / "my model.mps")
    write_param_files(tmp_path, "my model", model="my model.mps")
    text = (tmp_path / "my model.solvers.txt").read_text()
    assert _said(text, "HiGHS")[0][:3] == ["highs", "--model_file", "my model.mps"]
    sol = _run_as_written(tmp_path, text, "GLPK", exe, None, "my model.mps")
    assert sol.objective == pytest.approx(-21.5)


def test_recompiling_under_a_name_removes_the_earlier_models_start_and_param_files(tmp_path: Path, capsys) -> None:
    """Only the exact names compile writes for the stem go, and only those this compile did not write;
    the manifest and the printed list name what is there."""
    import json

    from conftest import cli_main
    from olctc.emit.start import START_FORMATS, start_filename

    def compile_(*args: str) -> str:
        code, out, err = cli_main(["compile", *args], capsys)
        assert code == 0, err
        return out

    def listed(out: str) -> set[str]:
        return {Path(line.split()[-1]).name for line in out.splitlines()[1:] if line.startswith("  ")}

    params = {f"h.{suffix}" for suffix in PARAM_FILES}
    starts = {start_filename("h", s) for s in START_FORMATS}
    compile_("--dataset", "haberman", "--depth", "1", "-o", tmp_path / "h.mps")
    others = {"h.start.cbc.bak", "h.notes.txt", "g.start.cbc", "g.highs.opt", "hh.highs.opt"}
    for name in others:
        (tmp_path / name).write_text("not compile's\n")
    (tmp_path / "h.scip.sol").mkdir()  # a name compile writes for no stem: left alone
    out = compile_("--dataset", "heart", "--depth", "1", "--no-start", "--no-params", "-o", tmp_path / "h.mps")
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"h.mps", "h.olctc.json", "h.scip.sol"} | others
    assert listed(out) == {"h.mps", "h.olctc.json"}
    assert json.loads((tmp_path / "h.olctc.json").read_text())["files"] == {}

    out = compile_("--dataset", "heart", "--depth", "1", "--no-start", "-o", tmp_path / "h.mps")
    assert {p.name for p in tmp_path.iterdir()} == {"h.mps", "h.olctc.json", "h.scip.sol"} | others | params
    assert listed(out) == {"h.mps", "h.olctc.json"} | params

    out = compile_("--dataset", "heart", "--depth", "1", "--no-params", "-o", tmp_path / "h.lp")
    # the other model file is a model, never compile's to remove; its settings went with its manifest
    assert {p.name for p in tmp_path.iterdir()} == {"h.mps", "h.lp", "h.olctc.json", "h.scip.sol"} | others | starts
    assert listed(out) == {"h.lp", "h.olctc.json"} | starts
    man = json.loads((tmp_path / "h.olctc.json").read_text())
    assert "params" not in man["files"] and {e["file"] for e in man["files"]["start"].values()} == starts
    assert all((tmp_path / name).read_text() == "not compile's\n" for name in others)


def test_a_miqp_gets_files_for_the_solvers_that_solve_it(tmp_path: Path, capsys) -> None:
    """solvers.txt gave a MARGOT model HiGHS, CBC and glpsol command lines: HiGHS refuses a MIQP, glpsol
    cannot read QUADOBJ, CBC 2.10 called a feasible model infeasible. A MIQP gets SCIP's, Gurobi's, CPLEX's,
    COPT's and Xpress's files only, and a recompile of a linear model under its name leaves none of the others."""
    import json

    from conftest import cli_main

    code, _, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "-o", tmp_path / "h.mps"], capsys)
    assert code == 0, err
    code, out, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "--preset", "margot",
                               "-o", tmp_path / "h.mps"], capsys)
    assert code == 0, err
    assert {p.name for p in tmp_path.iterdir()} == {
        "h.mps", "h.olctc.json", "h.scip.set", "h.gurobi.prm", "h.cplex.prm", "h.copt.par", "h.solvers.txt",
        "h.start.gurobi.mst", "h.start.cplex.mst", "h.start.scip.sol", "h.start.copt.mst", "h.start.xpress.slx"}
    man = json.loads((tmp_path / "h.olctc.json").read_text())
    assert man["files"]["params"] == ["h.copt.par", "h.cplex.prm", "h.gurobi.prm", "h.scip.set", "h.solvers.txt"]
    assert set(man["files"]["start"]) == {"gurobi", "cplex", "scip", "copt", "xpress"}
    text = (tmp_path / "h.solvers.txt").read_text()
    commands = [m.group(1) for m in re.finditer(r"^  (\w+): ", text, re.M)]
    assert commands == ["SCIP", "Gurobi", "CPLEX", "COPT", "Xpress"] * 2  # settings, then starts
    assert "HiGHS, CBC and GLPK do not solve this model" in text


def test_in_process_highs_gets_the_workarounds() -> None:
    """highspy refused presolve_rule_off as the float olctc passed every other setting as."""
    from olctc.solve.inprocess import highs_model
    from olctc.solve.options import SolveOptions

    h = highs_model(SolveOptions(time_limit=5, threads=1, verbose=False))
    assert highs_option(h, "presolve_rule_off") == (1 << 14) | (1 << 13) | (1 << 12)
    assert highs_option(h, "threads") == 1 and highs_option(h, "time_limit") == 5.0
    assert highs_option(h, "mip_feasibility_tolerance") == 1e-9


def test_solvers_txt_names_glpks_flag_file_only_when_it_holds_flags(tmp_path: Path) -> None:
    # an MPS model needs no glpsol flag: "(flags also in m.glpk.args)" pointed to an empty file
    text = {p.name: p.read_text() for p in write_param_files(tmp_path, "m")}
    assert text["m.glpk.args"].strip() == "" and "glpk.args" not in text["m.solvers.txt"]
    text = {p.name: p.read_text() for p in write_param_files(tmp_path, "m", model="m.lp")}
    assert text["m.glpk.args"].strip() == "--lp" and "(flags also in m.glpk.args)" in text["m.solvers.txt"]


def test_solvers_txt_says_where_each_time_limit_goes_unless_it_sets_one(tmp_path: Path) -> None:
    text = write_param_files(tmp_path, "m")
    said = next(p for p in text if p.name == "m.solvers.txt").read_text()
    assert ("  No time limit is set above; add HiGHS --time_limit S, CBC -timeMode elapsed -sec S (before -solve)"
            in said)
    limited = next(p for p in write_param_files(tmp_path, "m", time_limit=30) if p.name == "m.solvers.txt")
    assert "No time limit" not in limited.read_text()
