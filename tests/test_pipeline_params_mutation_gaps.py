"""Gaps found by a mutation pass over write_compiled and solve_compiled_file (pipeline.py), the solver settings
files (emit/params.py) and the MIP-start files (emit/start.py; every start mutant was already killed).

Each test pins behaviour that a specific mutant of the code broke while the rest of the suite still passed
(named in its comment); none of them is a bug seen in olctc. Files are written by the real compile (or the real
settings writers) into tmp_path; HiGHS (highspy) reads its options file back. What solve_compiled_file hands a
solver is caught at olctc.solve.solve_file, before any solver runs.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import highspy
import pytest

from olctc.compile import compile_problem
from olctc.data import read_csv
from olctc.emit.params import highs_options_text, validate_limits, write_param_files
from olctc.errors import OlctcError
from olctc.pipeline import write_compiled
from olctc.spec import make_spec

from conftest import TINY_CSV, highs_option


def _compiled(tmp_path: Path, preset: str = "olct"):
    csv = tmp_path / "tiny.csv"
    csv.write_text(TINY_CSV)
    return compile_problem(read_csv(csv, "y"), make_spec(preset, 1))


def _highs() -> highspy.Highs:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


# ------------------------------------------------------------------ params.py: the files' values, read back


def test_the_highs_options_for_highs_1_11_keep_bit_14_off_and_the_others_on(tmp_path):
    # Pins mutant `v = int(v)` (presolve_rule_off unchanged) for a HiGHS older than 1.12 (bit_14_is_sparsify=False):
    # bit 14 is Probing in HiGHS 1.11, which the options file must then leave on.
    path = tmp_path / "m.highs.opt"
    path.write_text(highs_options_text(bit_14_is_sparsify=False))
    h = _highs()
    assert h.readOptions(str(path)) == highspy.HighsStatus.kOk
    assert highs_option(h, "presolve_rule_off") == 4096 + 8192
    assert highs_option(h, "mip_feasibility_tolerance") == 1e-9


def test_a_gap_of_one_is_refused():
    # Pins mutant `0 <= mip_gap <= 1` in validate_limits: a relative gap of 1 (100%) accepts any incumbent as
    # good enough; validate_limits documents the gap as in [0, 1).
    validate_limits(mip_gap=0.999)
    with pytest.raises(OlctcError, match=r"mip_gap.*\[0, 1\)"):
        validate_limits(mip_gap=1.0)


def test_a_failure_between_two_settings_files_leaves_none_of_them(tmp_path, monkeypatch):
    # Pins mutant `remove_files(paths)` -> `pass` in write_param_files: an error after the first files left them
    # behind (all or none).
    import olctc.emit.params as params

    real, calls = params.atomic_write_text, []

    def third_fails(path, text):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(path, text)

    monkeypatch.setattr(params, "atomic_write_text", third_fails)
    with pytest.raises(OSError):
        write_param_files(tmp_path, "m")
    assert len(calls) == 3 and sorted(os.listdir(tmp_path)) == []


def test_highs_reads_the_gap_as_its_relative_gap(tmp_path):
    # Pins mutant mip_rel_gap -> mip_abs_gap in PARAM_NAMES["highs"]: the earlier test used a gap of 1e-4, which
    # is HiGHS's default mip_rel_gap, so the value read back held whichever option the file named.
    path = tmp_path / "m.highs.opt"
    path.write_text(highs_options_text(mip_gap=0.05, time_limit=7.25, threads=1))
    h = _highs()
    assert h.readOptions(str(path)) == highspy.HighsStatus.kOk
    assert highs_option(h, "mip_rel_gap") == 0.05 and highs_option(h, "mip_abs_gap") == 1e-6
    assert highs_option(h, "time_limit") == 7.25 and highs_option(h, "threads") == 1


# ------------------------------------------------------------------ write_compiled: the set and the manifest


def test_a_failed_rename_leaves_no_file_of_the_set(tmp_path, monkeypatch):
    # Pins mutant dropping `remove_files(files)` when a rename into place fails: the model and parameter files
    # renamed before the failure stayed beside the earlier compile's starts and manifest (a mixed set); and the
    # renames in reverse order (`for f in reversed(files)`: the manifest first, before the model it names).
    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs,scip")
    real, renamed = os.replace, []

    def third_fails(src, dst, *a, **k):
        if Path(dst).parent == tmp_path and Path(dst).name.startswith("m."):
            renamed.append(Path(dst).name)
            if len(renamed) == 3:
                raise OSError(5, "Input/output error")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", third_fails)
    with pytest.raises(OlctcError, match="Input/output error"):
        write_compiled(comp, tmp_path / "m.mps", solvers="highs,scip")
    monkeypatch.undo()
    assert renamed[0] == "m.mps" and sorted(os.listdir(tmp_path)) == ["tiny.csv"]


def test_a_recompile_through_a_linked_model_removes_the_earlier_compiles_other_files(tmp_path):
    # Pins mutant dropping `remove_files(stale)` on the path for a linked file (written where it is): the earlier
    # compile's HiGHS options and start stayed beside a model compiled for SCIP alone.
    comp = _compiled(tmp_path)
    (tmp_path / "real.mps").write_text("")
    (tmp_path / "m.mps").symlink_to("real.mps")
    write_compiled(comp, tmp_path / "m.mps", solvers="highs,scip")
    assert (tmp_path / "m.start.highs.sol").exists() and (tmp_path / "m.highs.opt").exists()
    write_compiled(comp, tmp_path / "m.mps", solvers="scip")
    assert sorted(os.listdir(tmp_path)) == ["m.mps", "m.olctc.json", "m.scip.set", "m.solvers.txt",
                                            "m.start.scip.sol", "real.mps", "tiny.csv"]


def test_an_interrupt_received_while_the_set_was_written_keeps_the_earlier_set(tmp_path, monkeypatch):
    # Pins mutant dropping `check_interrupt()` before the renames in _staged_set: an interrupt the console program
    # had recorded while the files were written let the renames run, and the earlier compile's set was replaced by
    # one the user had stopped.
    import olctc.pipeline as pipeline
    import olctc.process_state as process_state

    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs")
    earlier = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real = pipeline.write_manifest

    def then_interrupted(*a, **k):
        real(*a, **k)
        monkeypatch.setattr(process_state, "_interrupt_pending", True)  # what note_interrupt records

    monkeypatch.setattr(pipeline, "write_manifest", then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_compiled(comp, tmp_path / "m.mps", solvers="scip")
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == earlier


# ------------------------------------------------------------------ solve_compiled_file: what the solver is handed


def test_solve_refuses_a_start_edited_since_compile(tmp_path):
    # Pins mutant dropping the sha256 check of the start in _start_file: an edited start (another model's) was
    # handed to the solver.
    from olctc.pipeline import solve_compiled_file

    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    start = tmp_path / "m.start.highs.sol"
    start.write_text(start.read_text() + "\n")
    with pytest.raises(OlctcError, match="the MIP start changed since compile"):
        solve_compiled_file(tmp_path / "m.mps", "highs", verbose=False)


class _Handed(Exception):
    pass


def _handed(tmp_path, monkeypatch, solver: str, **kwargs) -> dict:
    """What solve_compiled_file hands olctc.solve.solve_file for ``solver`` (the solve itself is not run)."""
    import olctc.solve
    from olctc.pipeline import solve_compiled_file

    got: dict = {}

    def solve_file(model, name, **kw):
        got.update(kw, solver=name)
        raise _Handed

    monkeypatch.setattr(olctc.solve, "solve_file", solve_file)
    with pytest.raises(_Handed):
        solve_compiled_file(tmp_path / "m.mps", solver, verbose=False, **kwargs)
    return got


def test_cbc_cli_is_handed_cbcs_start_with_its_objective_and_never_another_solvers(tmp_path, monkeypatch):
    # Pins mutant `"cbc-cli": ("highs",)` in START_SOLVERS_BY_BACKEND: CBC was handed HiGHS's start, a file in
    # another layout, and no warning that it had none of its own (the objective, CBC's cutoff, is checked too).
    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs,cbc")
    objective = json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["objective"]
    got = _handed(tmp_path, monkeypatch, "cbc-cli")
    assert got["start_path"] == tmp_path / "m.start.cbc" and got["start_objective"] == objective
    write_compiled(comp, tmp_path / "m.mps", solvers="highs")
    with pytest.warns(UserWarning, match="none that cbc-cli reads"):
        got = _handed(tmp_path, monkeypatch, "cbc-cli")
    assert got["start_path"] is None


def test_the_solver_gets_the_time_limit_less_the_reserve_for_writing_the_solution(tmp_path, monkeypatch):
    # Pins mutant `time_limit -= spent` (SOLUTION_RESERVE not kept back): the solver ran to the whole limit and the
    # solution was written after it.
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    got = _handed(tmp_path, monkeypatch, "highs", time_limit=10)
    assert 5.0 < got["time_limit"] <= 10 - 0.2
