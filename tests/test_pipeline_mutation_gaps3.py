"""Gaps found by a third mutation pass over pipeline.py: reading the training data back (load_source,
training_data), the MIP start and column names a solve hands a solver, its output to a pipe, its advice on a
time limit too short and its warning on a solution worse than the warm start.

Each test pins behaviour that a specific mutant broke while the suite still passed (named in its docstring);
none is a bug seen in olctc. Data files are real and read for real, models compiled into tmp_path and solved by
real solvers; where a solver's result cannot be had for real on a tiny model, the test says what stands in.
"""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from olctc.compile import compile_problem
from olctc.data import read_csv
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.pipeline import load_source, solve_compiled_file, training_data, write_compiled
from olctc.spec import make_spec

from conftest import TINY_CSV
from test_pipeline_mutation_gaps2 import _compiled
from test_pipeline_params_mutation_gaps import _handed


def _manifest(folder: Path, rows: list[int] | None = None, name: str = "tiny.csv") -> dict[str, Any]:
    """The manifest (as written: through JSON) of a compile of TINY_CSV, saved as ``folder``/``name``, or of its
    ``rows`` (any order, repeats allowed)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(TINY_CSV)
    ds = read_csv(folder / name, "y")
    comp = compile_problem(ds if rows is None else ds.subset(rows), make_spec("olct", 1))
    return json.loads(json.dumps(comp.manifest))


def test_a_split_decodes_from_its_rows_in_their_order_with_repeats(tmp_path: Path) -> None:
    """Pins mutant `np.unique(rows)` in training_data: a split compiled from rows given unsorted or repeated
    (a bootstrap sample through the Python API) was read back sorted and without its repeats: other data than
    the model's."""
    man = _manifest(tmp_path, [3, 0, 0, 5])
    whole = read_csv(tmp_path / "tiny.csv", "y")
    got = training_data(man)
    assert got.n == 4 and (got.X == whole.X[[3, 0, 0, 5]]).all() and (got.y == whole.y[[3, 0, 0, 5]]).all()


def test_a_row_past_the_data_is_named_with_the_file_given(tmp_path: Path) -> None:
    """Pins mutants of training_data's row check: `max(rows) > ds.n` let row n (one past the end) through to an
    IndexError; the message named the smallest row (`min`), not the one past the data; and it named the
    manifest's source, not the file the user gave with --data."""
    man = _manifest(tmp_path, [3, 0, 0, 5])
    man["data"]["rows"] = [3, 0, 0, 6]  # tiny.csv has 6 rows: 0..5
    copy = tmp_path / "copy.csv"
    shutil.copy(tmp_path / "tiny.csv", copy)
    with pytest.raises(OlctcError, match=rf"^manifest: field 'data.rows' names row 6, but the training data "
                                         rf"{copy} has 6 rows \(edited\?\); compile again$"):
        training_data(man, copy)


def test_a_data_file_named_arrays_or_dataset_is_read_as_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins mutants of load_source's source kinds: `src == ARRAYS_SOURCE` alone refused a data file the user
    gave as `--data arrays` (data from_arrays records the source "arrays"), and `startswith("dataset")` took
    `--data dataset.csv` for a vendored data set (IndexError)."""
    monkeypatch.chdir(tmp_path)
    info = _manifest(tmp_path, name="arrays")["data"]
    shutil.copy("arrays", "dataset.csv")
    assert load_source(info, "arrays").n == 6 and load_source(info, "dataset.csv").n == 6


def test_a_vendored_data_set_is_read_back_as_compiled(tmp_path: Path) -> None:
    """Pins mutants dropping positive_class, dropped or weight_column from load_source's `dataset:` branch: the
    file's hash does not change with them, so haberman came back with the other positive class, its dropped
    column back, or no weights, and decode rebuilt another model than the one solved."""
    ds = load("haberman", positive_class=1, drop=["year_of_operation"], weight_column="age")
    got = load_source(ds.source_info())
    assert got.classes == ds.classes and (got.y == ds.y).all() and got.feature_names == ds.feature_names
    assert got.weight is not None and (got.weight == ds.weight).all()


def test_a_csv_is_read_back_with_its_positive_class_and_without_a_second_warning(tmp_path: Path) -> None:
    """Pins mutants of load_source's CSV branch: positive_class dropped (a compile with -1 as the positive class
    came back with +1's: every label the other way round) and `warn_identifiers=True` (the identifier column
    compile warned about was warned about again at every decode and collect). 20 rows: the least warned of."""
    data = tmp_path / "ids.csv"
    data.write_text("id,a,y\n" + "".join(f"p{i},{i * 0.5},{1 if i % 3 else -1}\n" for i in range(20)))
    with pytest.warns(UserWarning, match="identifier"):
        ds = read_csv(data, "y", positive_class=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = load_source(ds.source_info())
    assert got.classes == ds.classes == (1, -1) and (got.y == ds.y).all()


def test_a_solver_program_reads_no_column_names_from_the_model_compile_recorded_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins mutants handing no `col_names` to a solver program (in solve_compiled_file, or in _solve_external's
    call of solve_file): the model file was then read a second time for its column names, which the manifest
    holds (the -cli solvers' way to large models: minutes of reading a model of hundreds of MB)."""
    import olctc.solve.external

    def file_columns(path: Path) -> None:
        raise AssertionError(f"{path} read for its column names")

    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="cbc")
    monkeypatch.setattr(olctc.solve.external, "file_columns", file_columns)
    res, _ = solve_compiled_file(tmp_path / "m.mps", "cbc-cli", verbose=False, threads=1)
    assert res.status == "optimal" and res.x is not None and len(res.x) == len(res.col_names)


def test_glpsol_is_handed_no_start_and_no_cutoff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins mutant `"glpk-cli": ("highs",)` in START_SOLVERS_BY_BACKEND: glpsol, which takes no MIP start, was
    handed HiGHS's, and the start's objective as a cutoff; its program then warned that it ignored the start."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs,glpk")
    got = _handed(tmp_path, monkeypatch, "glpk-cli")
    assert got["start_path"] is None and got["start_objective"] is None


def test_a_miqp_compiled_for_every_solver_names_its_solvers_to_a_linear_only_program(tmp_path: Path) -> None:
    """Pins mutant dropping `chosen is not None` in _start_file: a MIQP compiled for every solver (no
    --solvers: the manifest lists none) has no CBC start, and cbc-cli's solve failed with a TypeError (joining
    None) before it could say that CBC cannot solve a MIQP and which solver can."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    write_compiled(compile_problem(read_csv(tmp_path / "tiny.csv", "y"), make_spec("margot", 1)), tmp_path / "m.mps")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(OlctcError, match=r"is a MIQP \(quadratic objective\), which cbc-cli cannot solve; "
                                             r"solve it with SCIP"):
            solve_compiled_file(tmp_path / "m.mps", "cbc-cli", verbose=False)


def test_a_solution_goes_to_a_pipe_in_a_folder_no_file_can_be_made_in(tmp_path: Path) -> None:
    """Pins mutant `if True:` before solve's check_writable: a pipe or device given as the output (-o
    /dev/fd/N, a FIFO) is written to directly, and its folder (/proc/self/fd, where no file can be made) was
    checked as if a file were to be made there: the solve was refused."""
    import os

    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    read, write = os.pipe()
    with os.fdopen(read, "rb") as got:
        try:
            res, _ = solve_compiled_file(tmp_path / "m.mps", "highs", output=f"/proc/self/fd/{write}",
                                         verbose=False, threads=1)
        finally:
            os.close(write)
        assert res.status == "optimal" and got.read().startswith(b"Model status\nOptimal\n")


def test_a_time_limit_too_short_asks_for_enough_after_slow_checks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins mutant `least = ceil(spent + MIN_SOLVE_SECONDS)`: after 0.35 s of checking the model's files, a
    --time-limit of 1 s was refused with "give at least 1 s", which the next run is refused with too: the
    least is what the checks took, the solution's reserve (0.2 s) and the solver's 0.5 s, rounded up."""
    import time

    import olctc.pipeline
    from olctc.errors import TimeLimitTooShort
    from olctc.io import sha256_file

    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    slow = [0.35]

    def slow_sha256_file(path: Path) -> str:
        time.sleep(slow.pop() if slow else 0)  # the first file only (the model): its hash took 0.35 s
        return sha256_file(path)

    monkeypatch.setattr(olctc.pipeline, "sha256_file", slow_sha256_file)
    with pytest.raises(TimeLimitTooShort, match=r"took \d+\.\d s, .*: give at least 2 s$"):
        solve_compiled_file(tmp_path / "m.mps", "highs", time_limit=1, verbose=False)


def test_a_solve_says_when_its_solution_is_worse_than_the_warm_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins mutant dropping solve_compiled_file's call of _warn_if_worse_than_start (its tests call it alone):
    a solution worse than the warm start compile wrote was passed on in silence. HiGHS's solve is real; its
    objective is made worse afterwards, as a solver stopped early on a poor point would return it."""
    import olctc.solve

    real = olctc.solve.solve_file

    def worse(*args: Any, **kwargs: Any) -> Any:
        res = real(*args, **kwargs)
        res.objective += 1.0
        return res

    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    monkeypatch.setattr(olctc.solve, "solve_file", worse)
    with pytest.warns(UserWarning, match=r"^highs's solution \(objective [\d.]+\) is worse than the warm start "
                                         r"compile wrote \(objective [\d.]+\), though it was given it as its MIP"):
        res, _ = solve_compiled_file(tmp_path / "m.mps", "highs", verbose=False, threads=1)
    assert res.status == "optimal"
