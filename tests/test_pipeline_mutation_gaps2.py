"""Gaps found by a second mutation pass over pipeline.py: the task time limit grid checks, compile through a linked
model, the worse-than-start warning's edges, the solver programs' results, the MIP start each backend is handed
and the files solve looks up through a link.

Each test pins behaviour that a specific mutant broke while the suite still passed (named in its comment); none
is a bug seen in olctc. Models are compiled for real into tmp_path and solved by real solvers (CBC, glpsol, Xpress's
community wheel); what solve_compiled_file hands a solver is caught at olctc.solve.solve_file (``_handed``, the
first pass's helper) where the difference is only which file the solver would read.
"""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.compile import compile_problem
from olctc.emit.params import cbc_cutoff
from olctc.data import read_csv
from olctc.errors import TimeLimitTooShort
from olctc.pipeline import _warn_if_worse_than_start, check_task_time_limit, solve_compiled_file, write_compiled
from olctc.solve import SolveResult
from olctc.solve.result import relative_gap
from olctc.spec import make_spec

from conftest import TINY_CSV, needs_solver_wheel
from test_pipeline_params_mutation_gaps import _handed


def _compiled(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / "tiny.csv"
    csv.write_text(TINY_CSV)
    return compile_problem(read_csv(csv, "y"), make_spec("olct", 1))


def _result(status: str, objective: float | None, solver: str = "highs") -> SolveResult:
    x = None if objective is None else np.zeros(2)
    return SolveResult(status, objective, 0.0, relative_gap(objective, 0.0), x, ["a", "b"], solver, "v", 0.1, "x")


def test_a_grid_time_limit_of_exactly_the_least_is_taken() -> None:
    # Pins mutant `time_limit <= least` in check_task_time_limit: the message says "give at least 1 s", and grid
    # then refused --time-limit 1 too.
    check_task_time_limit(1)
    with pytest.raises(TimeLimitTooShort, match=r"give at least 1 s"):
        check_task_time_limit(0.99)


def test_a_compile_through_a_linked_model_writes_the_file_it_names_and_keeps_the_link(tmp_path: Path) -> None:
    # Pins mutant dropping `path.is_symlink()` in _not_a_plain_file: the staged rename replaced the link with a
    # file of its own, and the file the link named kept its old content.
    comp = _compiled(tmp_path)
    (tmp_path / "real.mps").write_text("")
    (tmp_path / "m.mps").symlink_to("real.mps")
    write_compiled(comp, tmp_path / "m.mps", solvers="highs")
    assert (tmp_path / "m.mps").is_symlink() and (tmp_path / "real.mps").read_text().startswith("NAME")


def test_a_start_file_that_is_a_pipe_is_written_through_and_hashed_from_its_text(tmp_path: Path) -> None:
    """A start file name that is a FIFO is written where it is (a set holding one is not staged). Its sha256 was
    taken by reading the file back: the reader had taken the bytes, and compile waited in open() for a writer that
    never came. Now the digest is the written text's, and the manifest's entry matches the bytes the reader got."""
    import hashlib
    import json
    import os
    import threading

    comp = _compiled(tmp_path)
    fifo = tmp_path / "m.start.highs.sol"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done: list[dict] = []
    compiling = threading.Thread(target=lambda: done.append(write_compiled(comp, tmp_path / "m.mps",
                                                                             solvers="highs")), daemon=True)
    compiling.start()
    compiling.join(60)
    reader.join(10)
    assert done and got and got[0].startswith(b"Model status"), "compile hung on the pipe it had written"
    entry = json.loads((tmp_path / "m.olctc.json").read_text())["files"]["start"]["highs"]
    assert entry == {"file": fifo.name, "sha256": hashlib.sha256(got[0]).hexdigest()} and fifo.is_fifo()


def test_the_worse_than_start_warning_names_why_for_each_case() -> None:
    # Pins mutant `if solver.endswith("-cli")` for glpk-cli's wording: CBC's program not given the start was told
    # that glpsol cannot take one; mutant dropping the status check: a result with no solution was compared; and
    # mutant `<` for `<=`: a solution exactly at CBC's cutoff (the slack allowed) was called worse.
    with pytest.warns(UserWarning, match=r"^cbc-cli's solution .* which it was not given: .*; or solve again with it"):
        _warn_if_worse_than_start(_result("feasible", 101.0, "cbc-cli"), 100.0, "cbc-cli", False)
    with pytest.warns(UserWarning, match=r"though it was given it as its MIP start \(the solver did not keep it\): "
                      r"`olctc fit` keeps the better of the two$"):
        _warn_if_worse_than_start(_result("optimal", 101.0, "cbc-cli"), 100.0, "cbc-cli", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_if_worse_than_start(_result("infeasible", 101.0), 100.0, "highs", True)
        _warn_if_worse_than_start(_result("feasible", cbc_cutoff(100.0)), 100.0, "highs", True)  # at the slack
        _warn_if_worse_than_start(_result("feasible", 101.0), None, "highs", True)


def test_a_solver_programs_result_names_the_solution_file_it_wrote(tmp_path: Path) -> None:
    # Pins mutant dropping `res.solution_path = sol` in _solve_external: the result named the temporary folder's
    # file, gone once solve returned.
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="cbc")
    res, sol = solve_compiled_file(tmp_path / "m.mps", "cbc-cli", verbose=False, threads=1)
    assert res.status == "optimal" and sol == tmp_path / "m.cbc.sol" and res.solution_path == sol and sol.exists()


def test_xpress_writes_its_solution_under_the_name_solvers_txt_gives_it(tmp_path: Path) -> None:
    # Pins mutant dropping `'slx' if solver == 'xpress'`: the default solution file was NAME.xpress.sol, not the
    # NAME.xpress.slx that compile's NAME.solvers.txt names for an Xpress run.
    needs_solver_wheel("xpress")
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="xpress")
    res, sol = solve_compiled_file(tmp_path / "m.mps", "xpress", verbose=False, threads=1)
    assert res.status == "optimal" and sol == tmp_path / "m.xpress.slx" and sol.exists()


def test_glpsol_after_a_compile_for_highs_alone_solves_without_a_word(tmp_path: Path) -> None:
    # Pins mutant dropping `kinds` from _start_file's warning: glpsol takes no start at all, and the warning's
    # "compile with --solvers {kinds[0]}" failed with IndexError.
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # glpsol's tolerance note
        res, _ = solve_compiled_file(tmp_path / "m.mps", "glpk-cli", verbose=False)
    assert res.status == "optimal"


def test_each_backend_is_handed_its_own_start(tmp_path: Path, monkeypatch) -> None:
    # Pins mutants of START_SOLVERS_BY_BACKEND: HiGHS in process preferred SCIP's start to its own; the HiGHS
    # program got none; a commercial solver compiled for with Xpress's start alone got none.
    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs,scip")
    assert _handed(tmp_path, monkeypatch, "highs")["start_path"] == tmp_path / "m.start.highs.sol"
    assert _handed(tmp_path, monkeypatch, "highs-cli")["start_path"] == tmp_path / "m.start.highs.sol"
    write_compiled(comp, tmp_path / "m.mps", solvers="xpress")
    assert _handed(tmp_path, monkeypatch, "gurobi")["start_path"] == tmp_path / "m.start.xpress.slx"


def test_no_start_means_no_cutoff_and_no_warning_about_an_edited_model(tmp_path: Path, monkeypatch) -> None:
    # Pins mutant `start_objective = known_feasible` (CBC got the warm start's objective as its cutoff with
    # --no-start) and mutant `if True:` for the "solving without the MIP start" warning (said with --no-start).
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="cbc")
    got = _handed(tmp_path, monkeypatch, "cbc-cli", use_start=False)
    assert got["start_path"] is None and got["start_objective"] is None
    model = tmp_path / "m.mps"
    model.write_text(model.read_text().replace("ENDATA", "ENDATA\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _handed(tmp_path, monkeypatch, "cbc-cli", use_start=False)["start_path"] is None


def test_a_link_with_its_own_manifest_uses_the_files_beside_the_link(tmp_path: Path, monkeypatch) -> None:
    # Pins mutant `if model.is_symlink():` (the link resolved though a manifest stands beside it): a copied set
    # whose model is a link to the original was solved with the original folder's start, not its own.
    write_compiled(_compiled(tmp_path / "a"), tmp_path / "a" / "m.mps", solvers="highs")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "m.mps").unlink()
    (tmp_path / "b" / "m.mps").symlink_to(tmp_path / "a" / "m.mps")
    got = _handed(tmp_path / "b", monkeypatch, "highs")
    assert got["start_path"] == tmp_path / "b" / "m.start.highs.sol"


def test_a_link_alone_finds_the_start_beside_the_model_it_names(tmp_path: Path, monkeypatch) -> None:
    # Pins mutant `_start_file(model, ...)` (the link's folder, not the model's): the start was looked for beside
    # the link, missing there, and the solve ran without it.
    write_compiled(_compiled(tmp_path / "a"), tmp_path / "a" / "m.mps", solvers="highs")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "m.mps").symlink_to(tmp_path / "a" / "m.mps")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _handed(tmp_path / "b", monkeypatch, "highs")
    assert got["start_path"] == tmp_path / "a" / "m.start.highs.sol"
