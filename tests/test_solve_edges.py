"""Edges of `olctc solve` found by QA: early-stop statuses in CBC's own words, truncated or bogus model
files, a manifest beside the model that belongs to another model, -o naming an input, and limits that
broke solvers. Real solvers and real files throughout."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.read import read_solution
from olctc.solve import SolveResult, solve_file, write_native_solution
from conftest import cli_main as run_cli
from conftest import cli_sub as run_sub

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
LP = "Minimize\n obj: x + y\nSubject To\n c1: x + y >= 1.5\nBounds\n 0 <= x <= 1\n 0 <= y <= 1\nGenerals\n x y\nEnd\n"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """A compiled 12-point depth-1 model m.mps (manifest, starts) and its HiGHS solution m.highs.sol."""
    from olctc.compile import compile_problem
    from olctc.data import read_csv
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    d = tmp_path_factory.mktemp("compiled")
    rng = np.random.default_rng(0)
    rows = [f"{a!r},{b!r},{k % 2}" for k, (a, b) in enumerate(rng.normal(size=(12, 2)).tolist())]
    (d / "d.csv").write_text("a,b,y\n" + "\n".join(rows) + "\n")
    write_compiled(compile_problem(read_csv(d / "d.csv", "y"), make_spec("olct", 1)), d / "m.mps")
    solve_compiled_file(d / "m.mps", "highs", verbose=False)
    return d / "m.mps"


# ------------------------------------------------------------------ 1. CBC's words for an early stop
def test_in_process_cbc_says_which_limit_stopped_it() -> None:
    # python-mip reports FEASIBLE for every early stop; CBC itself knows which limit it hit.
    import mip

    from olctc.solve.inprocess import _cbc_stop_reason

    m = mip.Model(solver_name=mip.CBC)
    m.verbose = 0
    m.read(str(SAMPLES / "mknap.mps"))
    assert m.optimize(max_nodes=1).name == "FEASIBLE"
    assert _cbc_stop_reason(m) == "nodes"


def test_cbc_time_limit_is_written_as_cbc_writes_it(tmp_path: Path) -> None:
    res = solve_file(SAMPLES / "mknap.mps", "cbc", time_limit=1, verbose=False)
    assert res.status == "feasible" and res.raw_status == "FEASIBLE, stopped on time"
    write_native_solution(res, tmp_path / "t.sol", "cbc")
    head = (tmp_path / "t.sol").read_text().splitlines()[0]
    assert head == f"Stopped on time - objective value {res.objective:.8f}"
    sol = read_solution(tmp_path / "t.sol", col_names=res.col_names)
    assert (sol.status, sol.raw_status) == ("feasible", "Stopped on time")
    assert sol.objective == pytest.approx(res.objective)
    np.testing.assert_allclose(sol.to_array(res.col_names), res.x)


def test_cbc_time_limit_header_matches_cbc_byte_for_byte(tmp_path: Path) -> None:
    # The first lines of CBC 2.10.8's own files for `-sec 2`: with and without an incumbent.
    with_incumbent = (SAMPLES / "cbc_timelimit_incumbent_solution.txt").read_text().splitlines()[0]
    without = (SAMPLES / "cbc_timelimit_solution.txt").read_text().splitlines()[0]
    feasible = SolveResult("feasible", -5540.0, -5600.0, 0.01, np.array([1.0, 0.0]), ["a", "b"], "cbc", "x", 2.0,
                           "FEASIBLE, stopped on time")
    nothing = SolveResult("no_solution", None, 95.20897936, None, None, ["a", "b"], "cbc", "x", 2.0,
                          "NO_SOLUTION_FOUND, stopped on time")
    for res, cbc, status in ((feasible, with_incumbent, "feasible"), (nothing, without, "no_solution")):
        write_native_solution(res, tmp_path / "s.sol", "cbc")
        assert (tmp_path / "s.sol").read_text().splitlines()[0] == cbc
        assert read_solution(tmp_path / "s.sol", col_names=["a", "b"]).status == status


def test_cbc_without_a_reason_never_writes_status_unknown_over_a_solution(compiled: Path, tmp_path: Path,
                                                                          capsys) -> None:
    # A stop python-mip reports as bare FEASIBLE still reads back (and decodes) as a solution.
    sol = read_solution(compiled.with_name("m.highs.sol"))
    names = list(sol.values)
    res = SolveResult("feasible", sol.objective, None, None, sol.to_array(names), names, "cbc", "x", 1.0, "FEASIBLE")
    write_native_solution(res, tmp_path / "m.cbc.sol", "cbc")
    assert (tmp_path / "m.cbc.sol").read_text().startswith("Stopped on iterations - objective value ")
    code, out, err = run_cli(["decode", str(compiled.with_name("m.olctc.json")), str(tmp_path / "m.cbc.sol"),
                              "-o", str(tmp_path / "t.json")], capsys)
    assert (code, err) == (0, "") and "cbc says feasible (Stopped on iterations)" in out


# ------------------------------------------------------------------ 2. truncated and bogus model files
@pytest.fixture
def broken(tmp_path: Path) -> Path:
    model = (SAMPLES / "model.mps").read_text()
    (tmp_path / "cut.mps").write_text(model[: model.index("ENDATA")])
    (tmp_path / "cut.lp").write_text(LP[: LP.index("End")])
    (tmp_path / "cut.mps.gz").write_bytes(gzip.compress(model.encode())[:-40])
    (tmp_path / "noend.mps.gz").write_bytes(gzip.compress(model[: model.index("ENDATA")].encode()))
    (tmp_path / "empty.lp").write_text("")
    (tmp_path / "nocols.lp").write_text("hello\nEnd\n")
    (tmp_path / "garbage.mps").write_text("NAME x\nROWS\n N obj\nCOLUMNS\n    x  obj  1\n  garbage here\nENDATA\n")
    return tmp_path


@pytest.mark.parametrize("name,message", [
    ("cut.mps", "cut.mps: the file ends before its 'ENDATA' line (truncated?); write it again"),
    ("cut.lp", "cut.lp: the file ends before its 'End' line (truncated?); write it again"),
    ("noend.mps.gz", "noend.mps.gz: the file ends before its 'ENDATA' line (truncated?); write it again"),
    ("cut.mps.gz", "cut.mps.gz: cannot read: Compressed file ended before the end-of-stream marker was reached"),
    ("empty.lp", "empty.lp: the model file is empty; write it again"),
])
@pytest.mark.parametrize("solver", ["highs", "scip", "cbc-cli", "glpk-cli"])
def test_incomplete_model_never_reaches_a_solver(broken: Path, name: str, message: str, solver: str) -> None:
    # SCIP solved the part of a truncated LP it read; CBC segfaults on one (see the subprocess test).
    with pytest.raises(OlctcError) as exc:
        solve_file(broken / name, solver, verbose=False, col_names=["x", "y"])
    assert str(exc.value) == f"{broken}/{message}"
    assert not list(broken.glob("*.sol"))


@pytest.mark.parametrize("solver", ["cbc", "cbc-cli"])
def test_truncated_lp_is_refused_before_cbc_crashes(broken: Path, solver: str) -> None:
    # in a child process: before the check, CBC's LP reader took the whole interpreter down
    if solver == "cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("cbc program not installed")
    code, out, err = run_sub(["solve", "cut.lp", "--solver", solver], broken)
    assert (code, err) == (2, "error: cut.lp: the file ends before its 'End' line (truncated?); write it again\n")


def test_an_unchanged_gz_model_is_decompressed_once_to_see_its_end(tmp_path: Path, monkeypatch) -> None:
    # `olctc solve` checked a .gz model before reading its manifest and solve_file again: two whole
    # decompressions (2-3 s each for a6a's model) for one answer
    from olctc.solve import modelfile

    model = (SAMPLES / "model.mps").read_text()
    path = tmp_path / "m.mps.gz"
    path.write_bytes(gzip.compress(model.encode()))
    reads = []
    real = modelfile._tail
    monkeypatch.setattr(modelfile, "_tail", lambda p: reads.append(p) or real(p))
    modelfile.check_complete(path)
    modelfile.check_complete(path)
    assert len(reads) == 1
    path.write_bytes(gzip.compress(model[: model.index("ENDATA")].encode()))  # changed: checked again
    with pytest.raises(OlctcError, match="ends before its 'ENDATA' line"):
        modelfile.check_complete(path)
    assert len(reads) == 2


def test_complete_files_pass_whatever_their_case_and_trailing_comments(tmp_path: Path) -> None:
    (tmp_path / "a.lp").write_text(LP.replace("End", "end") + "\\ written by hand\n\n")
    model = (SAMPLES / "model.mps").read_text()
    (tmp_path / "b.mps.gz").write_bytes(gzip.compress((model + "* trailing comment\n").encode()))
    assert solve_file(tmp_path / "a.lp", "scip", verbose=False).objective == pytest.approx(2.0)
    assert solve_file(tmp_path / "b.mps.gz", "highs", verbose=False).objective == pytest.approx(-21.5)


# an LP of 1e6 rows (78 MB), written in 1-2 s, read by HiGHS in about 6 s and by glpsol (1.4 GB) in about 8 on a
# quiet machine here: far past the limits below (0.6 s, 2 s), and glpsol past its limit (1.5 s) and its 3 s grace
_BIG_N = 1_000_000


@pytest.fixture(scope="module")
def big_lp(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.mps"
    n = _BIG_N
    with open(path, "w") as f:
        f.write("NAME big\nROWS\n N obj\n" + "".join(f" L r{i}\n" for i in range(n)) + "COLUMNS\n")
        f.write("".join(f"    x{i} obj 1 r{i} 1\n    x{i} r{(i + 1) % n} 1\n" for i in range(n)))
        f.write("RHS\n" + "".join(f"    rhs r{i} 1\n" for i in range(n)) + "ENDATA\n")
    return path


@pytest.mark.parametrize("solver, reader", [("highs", "HiGHS"), ("highs-cli", "highs")])
def test_highs_stopped_reading_by_its_time_limit_says_so(big_lp: Path, tmp_path: Path, solver: str,
                                                         reader: str) -> None:
    """HiGHS's parser stops at the time limit and returns the error a broken file gets: it read as "cannot read
    model file" (in process) or "wrote no solution file" (the program), where SCIP and CBC in the same place say
    the time ran out (TimeLimitTooShort)."""
    from olctc.errors import TimeLimitTooShort

    if solver == "highs-cli":
        pytest.importorskip("highsbox")
    # the program: with the names a manifest gives, olctc does not read the file itself
    files = {"col_names": [f"x{i}" for i in range(_BIG_N)], "solution_path": tmp_path / "s.sol"}
    with pytest.raises(TimeLimitTooShort, match=f"{reader} stopped reading model file {big_lp} when the time limit"):
        # the program's: olctc's own handling of a million names takes about 0.3 s of the limit before it starts (over
        # 0.5 s under load, which left less than a solver's minimum of 1 s); HiGHS reads for about 6 s
        solve_file(big_lp, solver, time_limit=2.0 if solver.endswith("-cli") else 0.6, verbose=False,
                   **(files if solver.endswith("-cli") else {}))


def test_glpsol_past_its_time_limit_says_why(big_lp: Path, tmp_path: Path) -> None:
    """glpsol's --tmlim leaves out reading the model (and holds for the LP relaxation and the search each): it ran
    30 s at a 10 s limit on a6a, with nothing said. A limit of 1.5 s: olctc's handling of a million names took over
    0.5 s of a 1 s limit under load, and too little was left to start glpsol; glpsol reads for about 8 s, past the
    1.5 s and its 3.1 s grace."""
    _program_or_skip("glpk-cli")
    names = [f"x{i}" for i in range(_BIG_N)]
    with pytest.warns(UserWarning, match=r"glpsol ran \S+ s, \S+ s past its time limit of \S+ s: glpsol's --tmlim "
                      "leaves out reading the model"):
        solve_file(big_lp, "glpk-cli", time_limit=1.5, verbose=False, col_names=names,
                   solution_path=tmp_path / "s.sol")


def test_glpsol_stopped_by_its_time_limit_says_so(tmp_path: Path, capsys) -> None:
    """glpsol's solution file says only "u" (undefined) for a search its time limit ended: its log says why."""
    _program_or_skip("glpk-cli")
    rng = np.random.default_rng(1)  # a market split instance: GLPK finds no solution for long
    A = rng.integers(0, 100, size=(5, 40))
    rows = [f" c{i}: " + " + ".join(f"{a} x{j}" for j, a in enumerate(r)) + f" = {r.sum() // 2}"
            for i, r in enumerate(A)]
    (tmp_path / "ms.lp").write_text("Minimize\n obj: s\nSubject To\n" + "\n".join(rows) + "\nBounds\n 0 <= s <= 1\n"
                                    "Binaries\n " + " ".join(f"x{j}" for j in range(40)) + "\nEnd\n")
    code, _out, err = run_cli(["solve", tmp_path / "ms.lp", "--solver", "glpk-cli", "--time-limit", "2", "--quiet",
                               "-o", tmp_path / "ms.sol"], capsys)
    assert code == 1 and "found no solution (s mip u: undefined; stopped on time): its time limit came before it " \
        "found any solution" in err, err


def test_scip_reader_error_is_one_line_naming_the_file(broken: Path, capfd) -> None:
    capfd.readouterr()
    with pytest.raises(OlctcError) as exc:
        solve_file(broken / "garbage.mps", "scip", verbose=False)
    assert str(exc.value) == f"SCIP cannot read model file {broken}/garbage.mps: Syntax error in line 6"
    assert capfd.readouterr().err == ""   # SCIP's own error lines are in the message, not on stderr


@pytest.mark.parametrize("solver,reader", [("scip", "SCIP"), ("highs", "HiGHS"), ("cbc", "CBC")])
def test_a_file_without_columns_is_refused(broken: Path, solver: str, reader: str) -> None:
    # SCIP "solved" it to optimality (objective 0); HiGHS called it Empty.
    path = broken / ("nocols.lp" if solver != "highs" else "nocols.mps")
    if solver == "highs":
        path.write_text("hello\nENDATA\n")
    with pytest.raises(OlctcError) as exc:
        solve_file(path, solver, verbose=False)
    assert str(exc.value) == f"{reader} read no columns from {path}: the file is not a valid {path.suffix[1:]} model"


# ------------------------------------------------------------------ 3. a manifest of another model
@pytest.fixture
def two_models(tmp_path: Path) -> Path:
    """s.mps (depth 1) and s.lp (depth 2) compiled from the same data: s.olctc.json is s.lp's."""
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.pipeline import write_compiled
    from olctc.spec import make_spec

    rng = np.random.default_rng(1)
    ds = from_arrays(rng.normal(size=(10, 2)), np.arange(10) % 2)
    write_compiled(compile_problem(ds, make_spec("olct", 1)), tmp_path / "s.mps")
    write_compiled(compile_problem(ds, make_spec("olct", 2)), tmp_path / "s.lp")
    return tmp_path


@pytest.mark.parametrize("solver", ["highs", "cbc-cli"])
def test_manifest_of_another_model_is_not_used(two_models: Path, solver: str, capfd) -> None:
    from olctc.pipeline import solve_compiled_file

    if solver == "cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("cbc program not installed")
    with pytest.warns(UserWarning) as record:
        res, sol = solve_compiled_file(two_models / "s.mps", solver, verbose=True)
    assert [str(w.message) for w in record] == [
        "s.olctc.json was written for model file 's.lp', not s.mps: solving without the MIP start compile wrote"]
    log = capfd.readouterr().out
    assert "MIP start" not in log and "mipstart" not in log.lower()
    # the columns are s.mps's own, not the depth-2 names of s.lp's manifest
    direct = solve_file(two_models / "s.mps", "highs", verbose=False)
    assert res.status == "optimal" and res.col_names == direct.col_names
    assert res.objective == pytest.approx(direct.objective, rel=1e-7)


def test_model_edited_after_compile_solves_without_its_start(two_models: Path, capsys) -> None:
    lp = two_models / "s.lp"
    lp.write_text(lp.read_text() + "\\ edited\n")
    code, out, err = run_cli(["solve", str(lp), "--quiet"], capsys)
    assert code == 0 and "status optimal" in out
    assert err == ("warning: s.lp changed since compile (its sha256 is not the one in s.olctc.json): "
                   "solving without the MIP start compile wrote\n")
    code, out, err = run_cli(["solve", str(lp), "--quiet", "--no-start"], capsys)
    assert (code, err) == (0, "")   # no start asked for: nothing to warn about


def test_a_missing_start_file_is_named_not_skipped_in_silence(two_models: Path, capsys) -> None:
    # a deleted start made the solve run without it, and with a short limit HiGHS then found nothing
    (two_models / "s.start.highs.sol").unlink()
    code, out, err = run_cli(["solve", str(two_models / "s.lp"), "--quiet"], capsys)
    assert code == 0 and "status optimal" in out
    assert err == (f"warning: {two_models / 's.start.highs.sol'}: missing (compile wrote it); solving without the "
                   "MIP start (--no-start says so on purpose)\n")
    code, out, err = run_cli(["solve", str(two_models / "s.lp"), "--quiet", "--no-start"], capsys)
    assert (code, err) == (0, "")


def test_matching_manifest_still_gives_its_start(two_models: Path, capfd) -> None:
    from conftest import HIGHS_START_ACCEPTED
    from olctc.pipeline import solve_compiled_file

    res, _ = solve_compiled_file(two_models / "s.lp", "highs", verbose=True)
    assert res.status == "optimal" and HIGHS_START_ACCEPTED.search(capfd.readouterr().out)


@pytest.mark.parametrize("preset", ["margot", "olct"])
def test_in_process_scip_takes_the_start_compile_wrote(tmp_path: Path, preset: str, capfd) -> None:
    """A MIQP has no HiGHS start (HiGHS does not solve one): SCIP in process used to solve it with no start at
    all; it reads SCIP's own. A MILP's HiGHS start is still the one taken."""
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    rng = np.random.default_rng(2)
    ds = from_arrays(rng.normal(size=(14, 3)), np.arange(14) % 2)
    write_compiled(compile_problem(ds, make_spec(preset, 1)), tmp_path / "q.mps")
    assert (tmp_path / "q.start.highs.sol").exists() == (preset == "olct")
    started = ("feasible solution given by solution candidate storage", "feasible solution found by completesol")
    for use_start in (True, False):
        res, _ = solve_compiled_file(tmp_path / "q.mps", "scip", verbose=True, use_start=use_start)
        log = capfd.readouterr().out
        assert res.status == "optimal" and any(s in log for s in started) == use_start, log


# ------------------------------------------------------------------ 4. -o naming an input
@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_output_linked_to_the_model_is_refused(compiled: Path, tmp_path: Path, link: str, capsys) -> None:
    out = tmp_path / "out.sol"
    (os.symlink if link == "symlink" else os.link)(compiled, out)
    before = compiled.read_bytes()
    code, _, err = run_cli(["solve", str(compiled), "--quiet", "-o", str(out)], capsys)
    assert (code, err) == (2, f"error: -o {out} is also the input model; write to another file\n")
    assert compiled.read_bytes() == before


def test_check_not_input(tmp_path: Path, monkeypatch) -> None:
    from olctc.io import check_not_input

    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("a\n")
    check_not_input("new.csv", ("data", "x.csv"))          # not there yet: cannot be an input
    check_not_input("x.csv", ("data", None), ("data", "gone.csv"), ("data", 0))
    with pytest.raises(OlctcError, match=r"^-o \./x\.csv is also the input data; write to another file$"):
        check_not_input("./x.csv", ("tree", "t.json"), ("data", tmp_path / "x.csv"))


# ------------------------------------------------------------------ 5. limits
@pytest.mark.parametrize("kwargs,message", [
    ({"time_limit": 1e10}, "The 'time_limit' parameter must be a positive number of seconds, at most 1e7 "
                           "(115 days; pass None for no limit). Got 10000000000.0 instead."),
    ({"time_limit": float("inf")}, "The 'time_limit' parameter must be a positive number of seconds, at most "
                                   "1e7 (115 days; pass None for no limit). Got inf instead."),
    ({"threads": 100000}, "The 'threads' parameter must be an integer from 1 to 1024 (more threads than cores "
                          "only slow a solver down). Got 100000 instead."),
    ({"threads": 2.0}, "The 'threads' parameter must be an integer from 1 to 1024 (more threads than cores "
                       "only slow a solver down). Got 2.0 instead."),
])
def test_library_limits(kwargs: dict, message: str) -> None:
    with pytest.raises(OlctcError) as exc:
        solve_file(SAMPLES / "model.mps", "highs", verbose=False, **kwargs)
    assert str(exc.value) == message


@pytest.mark.parametrize("solver", ["highs", "cbc", "scip", "cbc-cli"])
def test_largest_limits_are_accepted(solver: str, tmp_path: Path) -> None:
    if solver == "cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("cbc program not installed")
    shutil.copy(SAMPLES / "model.mps", tmp_path)   # a program writes its solution beside the model
    res = solve_file(tmp_path / "model.mps", solver, verbose=False, time_limit=1e7,
                     threads=1024 if solver == "cbc" else None)
    assert res.status == "optimal" and res.objective == pytest.approx(-21.5)


_INFEASIBLE_MPS = """NAME          INF
ROWS
 N  OBJ
 G  R1
 L  R2
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    X         OBJ       1.0          R1        1.0
    X         R2        1.0
    MARKER                 'MARKER'                 'INTEND'
RHS
    RHS       R1        2.0          R2        1.0
BOUNDS
 UP BND       X         5.0
ENDATA
"""


@pytest.mark.parametrize("solver", ["highs", "cbc", "cbc-cli"])
def test_solve_without_a_solution_exits_1_whichever_solver(tmp_path, capsys, solver):
    # in-process solvers exited 2 (the code for bad input), cbc-cli exited 0 after writing CBC's own file
    from conftest import cli_main

    (tmp_path / "inf.mps").write_text(_INFEASIBLE_MPS)
    sol = tmp_path / "inf.sol"
    code, _out, err = cli_main(["solve", str(tmp_path / "inf.mps"), "--solver", solver, "--quiet", "-o", str(sol)],
                               capsys)
    assert code == 1 and err.startswith(f"error: {solver} found no solution (") and err.count("\n") == 1, err
    # an external solver writes its own record of the outcome; olctc writes nothing it could be decoded from
    assert sol.exists() == solver.endswith("-cli")


@pytest.mark.parametrize("raw, advised", [
    ("Stopped on time (LP relaxation not completed, no integer solution)", True),  # Debian's CBC on a6a
    ("Time limit reached", True), ("time limit reached before the solver started", True),
    ("Infeasible", False), ("Interrupted by user", False)])
def test_a_solve_that_its_time_limit_ended_with_no_solution_says_what_to_do(raw, advised):
    from olctc.pipeline import time_advice

    advice = time_advice(raw)
    assert bool(advice) == advised
    assert not advised or ("more time" in advice and "olctc fit" in advice and "\n" not in advice)
    assert ("the MIP start included" in advice) == advised
    assert "MIP start" not in time_advice(raw, start=False)  # solve --no-start: no start to speak of


# ------------------------------------------------------------------ model file names solvers misread
#: name -> (content, optimum). CBC tells LP from MPS by a case-sensitive suffix (it read M.LP as MPS and
#: loaded nothing; M.MPS works only because MPS is its fallback); HiGHS and glpsol refuse a .GZ suffix.
_NAMED = {"M.LP": ("lp", 2.0), "m.Lp": ("lp", 2.0), "M.MPS": ("mps", -21.5), "m.lp.GZ": ("lp.gz", 2.0),
          "m.mps.Gz": ("mps.gz", -21.5), "link.lp": ("link", 2.0)}
_PROGRAMS = {"cbc-cli": None, "cbc-2.10": "/usr/bin/cbc", "highs-cli": None, "glpk-cli": None,
             "highs": None, "cbc": None, "scip": None}  # the last three in process


def test_the_largest_tangent_point_gives_every_reader_the_same_model(tmp_path: Path, capsys) -> None:
    """A tangent at 30 or 40 had coefficients of 1e-20..1e-13 that HiGHS, SCIP, CBC, Gurobi and COPT dropped and
    CPLEX and Xpress kept; Xpress then called a point 2% above the optimum optimal (haberman, depth 1). At the
    largest point allowed (13.8) HiGHS reads every entry, and Xpress finds HiGHS's optimum."""
    import re

    import highspy
    from conftest import needs_solver_wheel

    model = tmp_path / "h.mps"
    code, _, err = run_cli(["compile", "--dataset", "haberman", "--depth", "1", "--tangents", "-inf,0,13.8,inf",
                            "--solvers", "highs", "-o", model], capsys)
    assert code == 0, err
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(model))
    manifest = json.loads(model.with_name("h.olctc.json").read_text())
    assert len(h.getLp().a_matrix_.index_) == manifest["model"]["nnz"]  # nothing dropped as below 1e-9
    objectives = {}
    for solver in ("highs", "xpress"):
        if solver == "xpress":
            needs_solver_wheel("xpress")
        code, out, err = run_cli(["solve", model, "--solver", solver, "--quiet", "-o", tmp_path / f"{solver}.sol"],
                                 capsys)
        assert code == 0, err
        objectives[solver] = float(re.search(r"status optimal \(.*\), objective (\S+),", out)[1])
    assert objectives["xpress"] == pytest.approx(objectives["highs"], rel=1e-7), objectives


def test_an_optimum_whose_bound_lies_above_it_is_no_proof() -> None:
    """Xpress called a point optimal with its bound 18% above it (objective 119.24, bound 140.96); olctc printed
    "status optimal"."""
    from olctc.solve import bound_checked

    def result(objective: float, bound: float) -> SolveResult:
        return SolveResult("optimal", objective, bound, None, np.zeros(2), ["a", "b"], "xpress", "x", 0.1, "OPTIMAL")

    with pytest.warns(UserWarning, match=r"^xpress calls its solution optimal, but its bound 140.96 lies above its "
                                         r"objective 119.24, which the bound of a minimisation cannot"):
        assert bound_checked(result(119.24, 140.96)).status == "feasible"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # round-off above the optimum is no contradiction
        assert bound_checked(result(119.24, 119.24 * (1 + 1e-9))).status == "optimal"
        assert bound_checked(result(0.0, 5e-7)).status == "optimal"


@pytest.mark.parametrize("solver", ["glpk-cli", "cbc-cli", "highs"])
def test_a_solution_written_to_a_device_leaves_the_device(compiled: Path, tmp_path: Path, solver: str,
                                                          capsys) -> None:
    """glpsol replaces the file its -o or -w names, a device included (as root, `glpsol ... -o /dev/null` made
    /dev/null a regular file on this machine): olctc hands a program its own temporary file, never the user's."""
    import stat

    _program_or_skip(solver)
    dev = tmp_path / "null"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    code, _, err = run_cli(["solve", compiled, "--solver", solver, "--quiet", "-o", dev], capsys)
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def _compiled_copy(compiled: Path, folder: Path) -> Path:
    """``folder`` (made) holding a copy of the compiled fixture's files (model, manifest, starts, solution)."""
    folder.mkdir(parents=True)
    for f in compiled.parent.glob("m.*"):
        shutil.copy(f, folder / f.name)
    return folder


def _program_or_skip(program: str) -> tuple[str, str | None]:
    """(olctc's solver name, the program to run or None) of a key of ``_PROGRAMS``; the test skipped without it."""
    solver = program if program != "cbc-2.10" else "cbc-cli"
    exe = _PROGRAMS[program] or {"cbc-cli": "cbc", "highs-cli": "highs", "glpk-cli": "glpsol"}.get(solver)
    if program == "highs-cli":
        pytest.importorskip("highsbox")
    elif exe is not None and shutil.which(exe) is None:
        pytest.skip(f"{exe} not installed")
    return solver, exe


@pytest.mark.parametrize("name", list(_NAMED))
@pytest.mark.parametrize("program", list(_PROGRAMS))
def test_every_solver_reads_a_model_whatever_its_name(tmp_path: Path, name: str, program: str, capsys) -> None:
    """`olctc solve NAME` on files made elsewhere: upper-case suffixes, and a link named .lp to a file without
    a suffix (the program was given the link's target, whose name says nothing). In process too: python-mip's
    CBC read m.LP as MPS (no columns), HiGHS and SCIP refused m.lp.GZ (SCIP with a traceback)."""
    import re

    solver, exe = _program_or_skip(program)
    kind, optimum = _NAMED[name]
    mps = (Path(__file__).parent / "data" / "solvers" / "model.mps").read_bytes()
    data = mps if kind.startswith("mps") else LP.encode()
    if kind.endswith(".gz"):
        data = gzip.compress(data)
    if kind == "link":
        (tmp_path / "store").mkdir()
        (tmp_path / "store" / "blob").write_bytes(data)
        os.symlink(tmp_path / "store" / "blob", tmp_path / name)
    else:
        (tmp_path / name).write_bytes(data)
    before = sorted(p.name for p in tmp_path.iterdir())
    sol = tmp_path / "out.sol"
    args = ["solve", tmp_path / name, "--solver", solver, "--quiet", "-o", sol, "--time-limit", "20"]
    code, out, err = run_cli(args + (["--solver-path", exe] if _PROGRAMS[program] else []), capsys)
    assert code == 0, err
    found = re.search(r"status optimal \(.*\), objective (\S+),", out)
    assert found and float(found.group(1)) == pytest.approx(optimum), out
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + ["out.sol"])  # no link left beside it


@pytest.mark.parametrize("program", list(_PROGRAMS))
def test_a_model_and_start_under_a_long_path_reach_every_solver(compiled: Path, tmp_path: Path, program: str,
                                                                capsys) -> None:
    """CBC cut a path of about 400 characters: in process it read "no columns", Debian's program aborted on a
    buffer overflow (a segmentation fault on longer paths), cbcbox's said "Current model not valid"."""
    import re

    solver, exe = _program_or_skip(program)
    deep = _compiled_copy(compiled, tmp_path / ("q" * 200) / ("s" * 200) / ("t" * 100))
    (deep / "m.highs.sol").unlink()
    sol = deep / ("long-solution-name-" * 10 + ".sol")
    args = ["solve", deep / "m.mps", "--solver", solver, "--quiet", "-o", sol, "--time-limit", "20"]
    code, out, err = run_cli(args + (["--solver-path", exe] if _PROGRAMS[program] else []), capsys)
    assert code == 0, err
    found = re.search(r"status optimal \(.*\), objective (\S+),", out)
    optimum = read_solution(compiled.parent / "m.highs.sol").objective
    assert found and float(found.group(1)) == pytest.approx(optimum, rel=1e-6), out
    if solver != "glpk-cli":  # a glpk -w file holds no column names
        assert read_solution(sol).objective == pytest.approx(optimum, rel=1e-6)
    assert sol.stat().st_size > 0


@pytest.mark.parametrize("solver", ["cbc-cli", "glpk-cli"])
def test_a_program_log_naming_a_path_with_an_e_acute_reaches_an_ascii_stdout(compiled: Path, tmp_path: Path,
                                                                              solver: str) -> None:
    """The program's command line and log lines went to stdout with print(): an é in the model's folder raised
    UnicodeEncodeError there (a traceback, no solution), and every task of a grid under such a folder failed."""
    import subprocess
    import sys

    _program_or_skip(solver)
    here = _compiled_copy(compiled, tmp_path / "dé")
    p = subprocess.run([sys.executable, "-m", "olctc.cli", "solve", "m.mps", "--solver", solver, "-o", "out.sol",
                        "--time-limit", "20"], capture_output=True, cwd=here, timeout=120,
                       env={**os.environ, "PYTHONIOENCODING": "ascii"})
    out = p.stdout.decode("ascii")  # ASCII only: the é replaced
    assert p.returncode == 0 and "d?" in out and "status optimal" in out, p.stderr.decode(errors="replace")
    assert (here / "out.sol").stat().st_size > 0


# 8 weighted points, both classes, OCT-H at depth 2: python-mip's CBC (cbcbox devel 146ce89) calls this model
# infeasible without its MIP start; HiGHS, SCIP and a brute force over routings find 0.4 (QA 2026-12-05).
_OCTH_CSV = ("x0,x1,wt,y\n0.0,0.3,1.0,n\n-0.27,-0.89,2.0,n\n-0.45,-0.99,3.0,n\n0.06,1.34,1.0,n\n-0.49,-0.62,2.0,n\n"
             "0.49,0.36,1.0,p\n0.11,-0.93,0.5,n\n-0.03,0.7,2.5,n\n")


def test_a_false_infeasible_is_called_false(tmp_path, capsys):
    (tmp_path / "d.csv").write_text(_OCTH_CSV)
    model = tmp_path / "m.mps"
    code, _out, err = run_cli(["compile", str(tmp_path / "d.csv"), "--target", "y", "--weight-column", "wt",
                               "--preset", "oct-h", "--depth", "2", "--C", "1,2", "--alpha", "0.4", "--class-weight",
                               "balanced", "-o", str(model)], capsys)
    assert code == 0, err
    code, out, err = run_cli(["solve", str(model), "--solver", "highs", "--quiet", "-o", str(tmp_path / "h.sol")],
                             capsys)
    assert code == 0 and "objective 0.4," in out, (out, err)
    code, out, err = run_cli(["solve", str(model), "--solver", "cbc", "--quiet", "--no-start",
                              "-o", str(tmp_path / "c.sol")], capsys)
    if code == 0:  # another CBC build than the one measured: it must have found the optimum, not a false one
        assert "objective 0.4," in out, out
        return
    assert code == 1 and err == ("error: cbc found no solution (INFEASIBLE), which is false: the warm start compile "
                                 "wrote is a feasible point of the model (objective 13), so the solver's numerics "
                                 "failed (CBC's do on these models); solve with highs or scip; nothing written\n"), err
    assert not (tmp_path / "c.sol").exists()


def test_false_infeasible_names_the_solvers_left():
    from olctc.solve.result import false_infeasible

    assert false_infeasible("no_solution", 3.0, "cbc") == "" and false_infeasible("infeasible", None, "cbc") == ""
    assert false_infeasible("infeasible", 3.0, "cbc-cli").endswith("numerics failed (CBC's do on these models); "
                                                                   "solve with highs or scip")
    assert false_infeasible("infeasible", 3.0, "highs-cli").endswith("numerics failed; solve with scip")
    # a MIQP (margot*): HiGHS does not solve one
    assert false_infeasible("infeasible", 3.0, "gurobi", quadratic=True).endswith("; solve with scip")
    assert false_infeasible("infeasible", 3.0, "scip", quadratic=True).endswith("; solve with another solver")


# ---- LP lines and CBC's LP reader (QA 2026-12-05) ------------------------------------------------------------

def _wide_lp(tmp_path: Path, capsys) -> Path:
    """The LP file of 20 points x 600 features at depth 1, compiled in this process (rows of 600 terms)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20, 600))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "p", "n")
    lines = [",".join([*(f"f{j}" for j in range(600)), "y"])]
    lines += [",".join([*(repr(float(v)) for v in row), label]) for row, label in zip(X, y)]
    (tmp_path / "wide.csv").write_text("\n".join(lines) + "\n")
    model = tmp_path / "wide.lp"
    code, _, err = run_cli(["compile", str(tmp_path / "wide.csv"), "--target", "y", "--depth", "1", "-o",
                            str(model)], capsys)
    assert code == 0, err
    return model


def _longest_line(path: Path) -> int:
    return max(len(line) for line in path.read_bytes().split(b"\n"))


@pytest.mark.parametrize("solver", ["cbc", "cbc-cli"])
def test_a_wide_lp_file_keeps_its_names_in_cbc(tmp_path: Path, capsys, solver: str) -> None:
    """The LP of wide data: lines of at most 510 characters (CPLEX's limit), and CBC keeps its column names.
    At 4000, lines of about 2,900 made python-mip's CBC name the columns x0, x1, ...: it reported the solve
    optimal, dropped the MIP start, and wrote a solution decode called another model's."""
    if solver == "cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("cbc not installed")
    model = _wide_lp(tmp_path, capsys)
    assert _longest_line(model) <= 510
    sol = tmp_path / "wide.sol"
    code, out, err = run_cli(["solve", str(model), "--solver", solver, "--time-limit", "30", "--quiet", "-o",
                              str(sol)], capsys)
    assert code == 0, err
    assert read_solution(sol).values.keys() >= {"w_0_0"} and "x0" not in read_solution(sol).values
    code, _, err = run_cli(["decode", str(model.with_suffix(".olctc.json")), str(sol), "-o",
                            str(tmp_path / "t.json")], capsys)
    assert code == 0, err


def test_cbc_losing_an_lp_files_names_is_said(tmp_path: Path, capsys, monkeypatch) -> None:
    """The same model written with the old 4000-character lines: python-mip's CBC names its columns x0, x1, ...
    solve now refuses (it exited 0 with a solution of those names), the cbc program's solution is refused
    before it is written, and decode says what x0 is instead of "another model"."""
    from olctc.emit import lp

    monkeypatch.setattr(lp, "MAX_LINE", 4000)
    model = _wide_lp(tmp_path, capsys)
    assert _longest_line(model) > 2000
    sol = tmp_path / "wide.sol"
    code, out, err = run_cli(["solve", str(model), "--solver", "cbc", "--time-limit", "30", "--quiet", "-o",
                              str(sol)], capsys)
    if code == 0:  # another CBC build than the one measured (cbcbox 2.935): it must have kept the names
        from olctc.solve.cbc import _cbc_version

        assert "cbcbox 2.935" not in _cbc_version() and "x0" not in read_solution(sol).values
        return
    when = "its LP reader fails on some lines over 1,000 characters (it reads 1,023 bytes at a time)"
    assert code == 2 and err.endswith(f"error: CBC lost the column names of {model} reading it (it named them "
                                      f"x0, x1, ...: {when}): solve the model written as MPS, or with another "
                                      "solver\n"), err
    assert not sol.exists()
    hint = (f"CBC names the columns x0, x1, ... when it cannot read an LP file's names ({when}): solve the model "
            "written as MPS, or with another solver")
    if shutil.which("cbc") is not None:
        code, out, err = run_cli(["solve", str(model), "--solver", "cbc-cli", "--time-limit", "30", "--quiet",
                                  "-o", str(sol)], capsys)
        assert code == 2 and err.endswith(f"error: the solution cbc wrote: expected only columns of the model, got "
                                          f"unknown column 'x0': {hint}\n"), err
        assert not sol.exists()
    sol.write_text("Optimal - objective value 1.5\n      0 x0  0.25  0\n      7 x7  1  0\n")
    code, _, err = run_cli(["decode", str(model.with_suffix(".olctc.json")), str(sol), "-o",
                            str(tmp_path / "t.json")], capsys)
    assert code == 2 and err == f"error: {sol}: column 'x0' is not in this model: {hint}\n", err
    assert not (tmp_path / "t.json").exists()
    # another solver's file of columns x0, x1, ...: CBC's reader is not why (the review's HiGHS file got the hint)
    other = tmp_path / "other.sol"
    other.write_text("# Solution for model wide\n# Objective value = 1.5\nx0 0.25\nx7 1\n")  # Gurobi's
    code, _, err = run_cli(["decode", str(model.with_suffix(".olctc.json")), str(other), "-o",
                            str(tmp_path / "t.json")], capsys)
    assert code == 2 and "the solution belongs to another model" in err and "CBC" not in err, err


def test_a_gz_model_that_is_not_gzip_data_is_named_so(compiled, tmp_path: Path, capsys) -> None:
    """A plain model file named .mps.gz: "cannot read: Not a gzipped file (b'NA')" (QA 2026-12-05)."""
    bad = tmp_path / "m.mps.gz"
    shutil.copy(compiled, bad)
    code, _, err = run_cli(["solve", str(bad), "--quiet", "-o", str(tmp_path / "s.sol")], capsys)
    assert code == 2 and err == (f"error: {bad}: not gzip data, though its name ends in .gz: rename it m.mps if "
                                 "it is the model as text\n"), err
    assert not (tmp_path / "s.sol").exists()


@pytest.mark.skipif(shutil.which("glpsol") is None, reason="glpsol not installed")
def test_a_solution_worse_than_the_warm_start_is_said_so(tmp_path, capsys) -> None:
    """glpsol takes no MIP start: stopped early, it returned a tree 42% worse than compile's warm start (heart, 5 s),
    and solve and decode passed it on in silence. Its first solution (gap 0.99, no clock: the same every run) is
    worse than the start here; solve warns, decode adds a note; a solution better than the start gets neither."""
    from olctc.pipeline import _warn_if_worse_than_start
    from test_cluster import small_heart_csv

    data = small_heart_csv(tmp_path / "h.csv", per_class=12)
    assert run_cli(["compile", data, "--target", "y", "--depth", "2", "-o", tmp_path / "m.mps"], capsys)[0] == 0
    warm = json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["objective"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glpsol's tolerances
        first = solve_file(tmp_path / "m.mps", "glpk-cli", mip_gap=0.99, verbose=False,
                           solution_path=tmp_path / "m.glpk.sol")
    assert first.status == "feasible" and first.objective > warm * 1.05, (first.objective, warm)
    with pytest.warns(UserWarning) as caught:
        _warn_if_worse_than_start(first, warm, "glpk-cli", False)
    assert [str(w.message) for w in caught] == [
        f"glpk-cli's solution (objective {first.objective:.10g}) is worse than the warm start compile wrote "
        f"(objective {warm:.10g}), which glpsol cannot take as a start: `olctc fit` keeps the better of the two; "
        "or solve with a solver that reads it"]
    code, out, err = run_cli(["decode", tmp_path / "m.olctc.json", tmp_path / "m.glpk.sol", "-o",
                              tmp_path / "t.json"], capsys)
    assert code in (0, 3), err  # 3: glpsol's 1e-5 integrality tolerance routed a point for free (said too)
    assert (f"note: the warm start compile wrote is a better tree (objective {warm:.10g}) than this solution's "
            "(glpsol takes no MIP start): `olctc fit` keeps the better of the two, or solve again with a solver "
            "that reads the start\n") in out
    # HiGHS from the start: never worse than it, and nothing said
    code, out, err = run_cli(["solve", tmp_path / "m.mps", "--quiet", "-o", tmp_path / "m.highs.sol"], capsys)
    assert code == 0 and "worse than the warm start" not in out + err, err
    code, out, err = run_cli(["decode", tmp_path / "m.olctc.json", tmp_path / "m.highs.sol", "-o",
                              tmp_path / "t2.json"], capsys)
    assert code == 0 and "better tree" not in out, err
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_if_worse_than_start(first, first.objective, "glpk-cli", False)  # equal: not worse
