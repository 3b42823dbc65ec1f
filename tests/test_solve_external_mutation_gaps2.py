"""Tests from a second mutation-testing pass over olctc.solve.external (the solver programs cbc, highs and glpsol)
and olctc.solve.modelfile: each pins a behaviour that a small code change broke without any other targeted test
failing. Real programs on tiny models; a small shell script stands in for a solver program only where a real one
cannot be made to print, wait or write what the test needs."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

from conftest import process_gone
from olctc.errors import OlctcError
from olctc.process_state import note_interrupt
from olctc.solve import solve_file
from olctc.solve.external import EXTERNAL, _run, locate, solve_external
from olctc.solve.modelfile import check_complete, check_model_path, is_quadratic_file, model_stem, names_lost
from olctc.solve.options import SolveOptions
from test_solve_external_mutation_gaps import CBC_SOLUTION, DEBIAN_CBC, INFEASIBLE_LP, INT_LP, _model, _program
from test_solve_external_mutation_gaps import _run as _solve

#: INT_LP with x >= 2 integer: a start naming y only gets x = 2 (0 clipped into x's bounds), which makes it
#: feasible (CBC would move x into its bounds itself; HiGHS reports the start's columns out of their bounds)
LOW_X_LP = INT_LP.replace("0 <= x <= 10", "2 <= x <= 10").replace("General\n y\n", "General\n x y\n")
assert LOW_X_LP.count("2 <= x") == 1


# ------------------------------------------------------------------ MIP starts and CBC's flags
def test_cbc_takes_a_start_by_name_with_the_cutoff_of_its_objective(tmp_path: Path, capfd) -> None:
    """The start reaches CBC (-mips), its objective becomes CBC's cutoff, and a start without an objective gets
    no cutoff at all."""
    model = _model(tmp_path)
    capfd.readouterr()
    res = _solve("cbc-cli", model, verbose=True, solver_path=DEBIAN_CBC, start={"x": 1, "y": 2}, start_objective=5.0)
    out = capfd.readouterr().out
    assert res.status == "optimal" and res.objective == pytest.approx(4.0, abs=1e-9)
    assert "MIPStart provided solution with cost 5" in out and "cutoff was changed from 1e+100 to 5" in out, out
    _solve("cbc-cli", model, verbose=True, solver_path=DEBIAN_CBC, start={"x": 1, "y": 2})
    out = capfd.readouterr().out
    assert "MIPStart provided solution with cost 5" in out and "-cutoff" not in out, out


def test_cbc_counts_its_time_limit_in_wall_time(tmp_path: Path, capfd) -> None:
    """CBC's -sec counts CPU time unless told otherwise: a time limit comes with -timeMode elapsed (CBC echoes
    its command line), and no limit without it."""
    capfd.readouterr()
    _solve("cbc-cli", _model(tmp_path), verbose=True, solver_path=DEBIAN_CBC, time_limit=30)
    out = capfd.readouterr().out
    assert re.search(r"^command line - .* -sec 29\.9\d* .*-timeMode elapsed .*-solve -solu ", out, re.M), out[:600]
    _solve("cbc-cli", _model(tmp_path), verbose=True, solver_path=DEBIAN_CBC)
    assert "-timeMode" not in capfd.readouterr().out


def test_a_start_by_name_is_clipped_into_the_bounds_even_with_the_columns_given(tmp_path: Path, capfd) -> None:
    """With the column names known (a manifest's), the bounds are still read from the file for a start by name:
    its missing x is 0 clipped to x's lower bound 2, which HiGHS finds feasible (no column out of its bounds)."""
    pytest.importorskip("highsbox")
    capfd.readouterr()
    opts = SolveOptions(threads=1, verbose=True, col_names=("x", "y"), start={"y": 1})
    res = solve_external("highs-cli", _model(tmp_path, LOW_X_LP), opts)
    assert res.objective == pytest.approx(4.0, abs=1e-9)
    out = capfd.readouterr().out
    assert re.search(r"^Col\s+infeasibilities\s+0\s+0\s+0$", out, re.M), out


def test_a_relative_start_file_reaches_highs_though_it_runs_in_another_folder(tmp_path: Path, capfd,
                                                                            monkeypatch) -> None:
    """The HiGHS program gets the start (--read_solution_file) by its absolute path: it runs in a scratch folder."""
    pytest.importorskip("highsbox")
    from olctc.emit.start import write_start

    import numpy as np

    model = _model(tmp_path)
    write_start(tmp_path / "s.sol", ["x", "y"], np.array([1.0, 2.0]), "highs")
    monkeypatch.chdir(tmp_path)
    capfd.readouterr()
    res = _solve("highs-cli", model, verbose=True, start_path="s.sol")
    assert res.objective == pytest.approx(4.0, abs=1e-9)
    assert "MIP start solution is feasible, objective value is 5" in capfd.readouterr().out


# ------------------------------------------------------------------ where files go
def test_a_solution_named_like_the_model_never_writes_over_the_model(tmp_path: Path) -> None:
    """M.LP is handed to CBC as a link M.lp; a solution asked for as M.lp must not be written through that link
    over the model (the link lives in a folder of its own)."""
    model = _model(tmp_path, name="M.LP")
    res = _solve("cbc-cli", model, solver_path=DEBIAN_CBC, solution_path=tmp_path / "M.lp")
    assert model.read_text() == INT_LP
    assert res.objective == pytest.approx(4.0, abs=1e-9) and (tmp_path / "M.lp").read_text() != INT_LP


def test_a_cbc_built_from_git_is_named_with_its_commit(tmp_path: Path) -> None:
    """cbcbox's CBC says "CBC devel (git:146ce89)", no "Version:" line: the version is that whole phrase."""
    res = _solve("cbc-cli", _model(tmp_path))
    if "devel" not in res.solver_version and res.solver_version.startswith("CBC 2."):
        pytest.skip("the cbc on PATH is a release")
    assert re.fullmatch(r"CBC devel \(git:\w+\)", res.solver_version), res.solver_version


def test_cbcs_objective_of_an_infeasible_model_is_none(tmp_path: Path) -> None:
    """CBC's file of an infeasible model states "objective value 0" and values: no x, hence no objective."""
    res = _solve("cbc-cli", _model(tmp_path, INFEASIBLE_LP), solver_path=DEBIAN_CBC)
    assert res.status == "infeasible" and res.x is None and res.objective is None


# ------------------------------------------------------------------ the program's environment
def test_highsboxs_library_folder_leads_the_library_path_and_adds_no_empty_entry(monkeypatch) -> None:
    """highsbox's program finds libhighs through LD_LIBRARY_PATH: its lib folder first, and no empty entry (which
    the loader reads as the current folder) when none was set."""
    pytest.importorskip("highsbox")
    monkeypatch.setenv("PATH", os.defpath)  # the highsbox program, not another highs
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    exe, env = locate(EXTERNAL["highs-cli"], None)
    lib = exe.resolve().parent.parent / "lib"
    assert env["LD_LIBRARY_PATH"] == str(lib)
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/elsewhere")
    assert locate(EXTERNAL["highs-cli"], None)[1]["LD_LIBRARY_PATH"] == f"{lib}{os.pathsep}/opt/elsewhere"


# ------------------------------------------------------------------ running the program
def test_the_watchdog_kills_a_program_far_past_its_time(tmp_path: Path) -> None:
    """A program still running at the hard timeout is killed: _run returns with SIGKILL's exit code."""
    sleeper = _program(tmp_path, "echo started; exec sleep 30", "sleeper")
    t0 = time.monotonic()
    code, head, tail = _run([str(sleeper)], dict(os.environ), False, 1.0, cwd=tmp_path)
    assert time.monotonic() - t0 < 10 and code == -9 and head == "started\n" and tail == ["started"]


def test_the_watchdog_is_stopped_when_the_program_ends() -> None:
    """The watchdog thread ends with the program, not an hour later."""
    before = set(threading.enumerate())
    _run(["true"], dict(os.environ), False, 3600.0, cwd=Path.cwd())
    deadline = time.monotonic() + 5
    while [t for t in set(threading.enumerate()) - before if isinstance(t, threading.Timer) and t.is_alive()]:
        assert time.monotonic() < deadline, "the watchdog outlived its program"
        time.sleep(0.05)


def test_an_interrupt_while_the_program_runs_kills_it(tmp_path: Path) -> None:
    """An interrupt seen between two lines of the log is raised at once, and the program is killed, not left
    running (Popen's exit on KeyboardInterrupt does not wait for it)."""
    sleeper = _program(tmp_path, f"echo $$ > {tmp_path / 'pid'}; echo one; exec sleep 30", "sleeper")
    note_interrupt()
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            _run([str(sleeper)], dict(os.environ), False, None, cwd=tmp_path)
    finally:
        note_interrupt(False)
    assert time.monotonic() - t0 < 10
    pid = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 10
    while not process_gone(pid):
        assert time.monotonic() < deadline, "the program outlived the interrupt"
        time.sleep(0.05)


def test_a_program_within_its_grace_runs_to_its_end_without_a_warning(tmp_path: Path) -> None:
    """A program 0.6 s past its 0.6 s limit is inside the grace (3 s and more): no warning, and the watchdog (twice
    the limit and a minute) leaves it be."""
    cbc = _program(tmp_path, f"sleep 1.2; {CBC_SOLUTION}", "cbc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = solve_file(_model(tmp_path), "cbc-cli", threads=1, verbose=False, solver_path=cbc,
                         col_names=["x", "y"], time_limit=0.6)
    assert res.objective == 4.0 and list(res.x) == [1.0, 2.0] and 1.2 <= res.runtime < 30


def test_the_overrun_warning_says_how_long_and_how_far_past(tmp_path: Path, monkeypatch) -> None:
    """Both numbers of "ran R s, P s past its time limit of L s" agree: P = R - L."""
    from olctc.solve import external

    monkeypatch.setattr(external, "overrun_grace", lambda limit: 0.0)
    cbc = _program(tmp_path, f"sleep 1.6; {CBC_SOLUTION}", "cbc")
    with pytest.warns(UserWarning, match="past its time limit") as seen:
        solve_file(_model(tmp_path), "cbc-cli", threads=1, verbose=False, solver_path=cbc, col_names=["x", "y"],
                   time_limit=1)
    said = next(str(w.message) for w in seen if "past its time limit" in str(w.message))
    ran, past, limit = map(float, re.search(r"ran (\S+) s, (\S+) s past its time limit of (\S+) s", said).groups())
    assert limit == 1.0 and ran >= 1.6 and past == pytest.approx(ran - limit, abs=0.11), said


def test_a_verbose_programs_log_is_passed_on_as_it_comes(tmp_path: Path) -> None:
    """Each line is flushed as the program prints it: a log piped elsewhere shows it before the program ends."""
    cbc = _program(tmp_path, "echo hello from the solver; exec sleep 30", "cbc")
    model = _model(tmp_path)
    code = (f"from olctc.solve import solve_file\nsolve_file({str(model)!r}, 'cbc-cli', verbose=True, "
            f"solver_path={str(cbc)!r}, col_names=['x', 'y'])\n")
    # a pipe: the child's stdout is block-buffered (PYTHONUNBUFFERED unset), as under a job scheduler's log file
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONUNBUFFERED": ""}, start_new_session=True)
    seen: list[bytes] = []

    def read() -> None:
        for line in proc.stdout:
            seen.append(line)

    reader = threading.Thread(target=read, daemon=True)
    try:
        reader.start()
        deadline = time.monotonic() + 15
        while not any(b"hello from the solver" in line for line in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(b"hello from the solver" in line for line in seen), seen
    finally:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=30)


def test_highs_stopped_reading_is_seen_on_any_line_of_its_log(tmp_path: Path) -> None:
    """The reader's "time_limit" line follows others (HiGHS's banner): one line saying it is enough."""
    from olctc.errors import TimeLimitTooShort

    highs = _program(tmp_path, "echo 'Running HiGHS 1.12.0'; echo 'HiGHS reader reached time_limit'", "highs")
    with pytest.raises(TimeLimitTooShort, match="highs stopped reading model file"):
        solve_file(_model(tmp_path), "highs-cli", threads=1, verbose=False, solver_path=highs, col_names=["x", "y"],
                   time_limit=5)


# ------------------------------------------------------------------ olctc.solve.modelfile
def test_a_models_stem_drops_only_its_last_suffix() -> None:
    assert model_stem("out/my.tree.v2.mps.GZ") == "my.tree.v2" and model_stem("a.b.lp") == "a.b"
    assert model_stem("plain") == "plain"


def test_a_model_edited_to_the_same_size_is_checked_again(tmp_path: Path) -> None:
    """A complete file is remembered by path, size and time: rewritten cut (same size, later time), it is refused."""
    path = tmp_path / "m.lp"
    path.write_text(INT_LP)
    check_complete(path)
    cut = INT_LP.replace("End\n", "Enx\n")
    path.write_text(cut)
    os.utime(path, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    with pytest.raises(OlctcError, match="ends before its 'End' line"):
        check_complete(path)


def test_a_complete_looking_line_before_the_last_one_does_not_make_a_file_complete(tmp_path: Path) -> None:
    """Only the last line that is not blank or a comment counts: "End" and then more text is a cut file."""
    path = tmp_path / "two.lp"
    path.write_text(INT_LP + INT_LP.split("Subject To")[0])
    with pytest.raises(OlctcError, match=r"two\.lp: the file ends before its 'End' line \(truncated\?\)"):
        check_complete(path)


@pytest.mark.parametrize("first", ["OBJSENSE", "OBJSENSE MAX", "OBJNAME obj", "ROWS"])
def test_a_cut_mps_starting_with_any_mps_section_is_called_cut(tmp_path: Path, first: str) -> None:
    """OBJSENSE and OBJNAME start MPS files too: such a file cut short is truncated, not "not an MPS file"."""
    path = tmp_path / "cut.mps"
    path.write_text(f"{first}\n N obj\nCOLUMNS\n    x obj 1\n")
    with pytest.raises(OlctcError, match=r"the file ends before its 'ENDATA' line"):
        check_complete(path)


def test_a_file_that_is_not_a_model_names_the_words_a_model_starts_with(tmp_path: Path) -> None:
    path = tmp_path / "notes.mps"
    path.write_text("* a comment\nhello\n")
    with pytest.raises(OlctcError, match=r"starts with 'hello', where an MPS model starts with 'NAME' or 'ROWS'$"):
        check_complete(path)
    lp = tmp_path / "notes.lp"
    lp.write_text("\\ comment\nhello\n")
    with pytest.raises(OlctcError, match=r"starts with 'hello', where an LP model starts with 'minimize' or 'maxim"):
        check_complete(lp)


def test_binary_content_names_its_first_control_byte(tmp_path: Path) -> None:
    path = tmp_path / "b.mps"
    path.write_bytes(b"NAME b\n\x01\x02 ENDATA\n")
    with pytest.raises(OlctcError, match=r"b\.mps: not an MPS file: it holds binary content \(byte 0x01\)"):
        check_complete(path)


def test_a_whitespace_only_file_is_empty_and_a_folder_is_not_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.lp"
    path.write_text("\n  \n")
    with pytest.raises(OlctcError, match=r"blank\.lp: the model file is empty; write it again"):
        check_complete(path)
    (tmp_path / "dir.lp").mkdir()
    with pytest.raises(OlctcError, match=r"model file .*dir\.lp is not a regular file$"):
        check_model_path(tmp_path / "dir.lp")


def test_a_model_longer_than_the_tail_read_is_still_seen_complete(tmp_path: Path) -> None:
    """Only the last 64 KB are read: a long model's comment-free End is found there."""
    path = tmp_path / "long.lp"
    path.write_text(INT_LP.replace("End\n", "\\ " + "c" * 70_000 + "\nEnd\n"))
    check_complete(path)


def test_a_quadratic_section_across_two_read_chunks_is_found(tmp_path: Path) -> None:
    """The file is scanned in 16 MB chunks that overlap: a QUADOBJ split by a chunk's end is still seen."""
    from olctc.solve import modelfile

    head = b"NAME q\n" + b"*" * (modelfile._CHUNK - len(b"NAME q\n") - 4) + b"\n"
    path = tmp_path / "q.mps"
    path.write_bytes(head + b"QUADOBJ\n    x  x  1\nENDATA\n")
    assert path.read_bytes().index(b"\nQUADOBJ") < modelfile._CHUNK < path.read_bytes().index(b"QUADOBJ") + 7
    assert is_quadratic_file(path)


def test_an_lp_product_of_two_columns_is_quadratic_and_a_bracketed_name_is_not(tmp_path: Path) -> None:
    path = tmp_path / "q.lp"
    path.write_text("Minimize\n obj: [ 2 x * y ] / 2\nEnd\n")
    assert is_quadratic_file(path)
    path.write_text("Minimize\n obj: x[3] + y[2]\nEnd\n")
    assert not is_quadratic_file(path)


def test_names_x0_x1_are_lost_names_only_where_the_file_names_no_x0(tmp_path: Path) -> None:
    """CBC's stand-in names x0, x1, ...: lost names unless the file names a column x0; names that are not x0, x1,
    ... in order are never lost; an MPS file's are never taken for lost."""
    lp = tmp_path / "m.lp"
    lp.write_text(INT_LP)
    assert names_lost(lp, ["x0", "x1"]) and not names_lost(lp, ["x0", "y"]) and not names_lost(lp, ["x", "y"])
    lp.write_text(INT_LP.replace("x + 2 y", "x0 + 2 y"))
    assert not names_lost(lp, ["x0", "x1"])
    lp.write_text(INT_LP.replace("x + 2 y", "xx0 + 2 y"))  # x0 inside another name is no x0
    assert names_lost(lp, ["x0", "x1"])
    mps = tmp_path / "m.mps"
    mps.write_text("NAME m\nENDATA\n")
    assert not names_lost(mps, ["x0", "x1"])


def test_comments_after_the_last_line_fill_no_more_than_the_tail_read(tmp_path: Path) -> None:
    """Trailing comments of a few hundred bytes after End: End is still within the 64 KB read from the end."""
    path = tmp_path / "c.lp"
    path.write_text(INT_LP + "".join(f"\\ trailing comment {i} {'-' * 60}\n" for i in range(20)))
    check_complete(path)


def test_an_lp_file_whose_name_is_not_utf8_reaches_cbc_as_an_lp_file(tmp_path: Path) -> None:
    """A name with the byte 0xE9 is handed over as model.lp: the suffix keeps telling CBC the format."""
    model = tmp_path / os.fsdecode(b"m\xe9.lp")
    model.write_text(INT_LP)
    error = None
    try:
        res = _solve("cbc-cli", model, solver_path=DEBIAN_CBC, solution_path=tmp_path / "m.sol")
    except OlctcError as exc:  # ascii(), not chained: pytest-xdist cannot send a report holding a lone surrogate
        error = ascii(str(exc))
    assert error is None, f"cbc did not solve the model: {error}"
    assert res.status == "optimal" and res.objective == pytest.approx(4.0, abs=1e-9)


@pytest.mark.parametrize("program", ["cbc-cli", "highs-cli"])
@pytest.mark.parametrize("name", ["model", "start"])
def test_a_solution_named_like_a_scratch_folder_is_written(tmp_path: Path, program: str, name: str) -> None:
    """A solution file named "model" or "start" (no suffix) took the name of the scratch folder the model link or
    the start lives in: the program could not write it, and the whole solve was lost."""
    if program == "highs-cli":
        pytest.importorskip("highsbox")
    res = _solve(program, _model(tmp_path), solution_path=tmp_path / name, start={"x": 1, "y": 2})
    assert res.objective == pytest.approx(4.0, abs=1e-9) and res.solution_path == tmp_path / name
    assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0
