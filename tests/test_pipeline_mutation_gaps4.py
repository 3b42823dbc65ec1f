"""Gaps found by a fourth mutation pass over pipeline.py: the MIP start write_compiled writes from a start tree or a
weighted data set, what it records of it (manifest, CBC's cutoff in NAME.solvers.txt, SCIP's helper columns of a
MIQP), the files a recompile (or a failed one through a link) leaves, what it returns, and the files a solve that
follows reads, refuses to write over and warns about.

Each test pins behaviour that a specific mutant broke while the covering tests still passed (named in its
docstring); none is a bug seen in olctc. Models are compiled into tmp_path from TINY_CSV or a vendored data set and
solved by real solvers; what a solve hands a solver is caught at olctc.solve.solve_file (``_handed``) where the
difference is only which file the solver would read.
"""
from __future__ import annotations

import dataclasses
import json
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from olctc.compile import compile_problem
from olctc.data import read_csv
from olctc.datasets import load
from olctc.emit.params import cbc_cutoff, format_value
from olctc.errors import OlctcError
from olctc.pipeline import load_source, solve_compiled_file, write_compiled
from olctc.read import read_solution
from olctc.spec import make_spec
from olctc.start_tree import tree_start
from olctc.tree import Tree
from olctc.warmstart import warm_start

from conftest import TINY_CSV
from test_pipeline_mutation_gaps2 import _compiled
from test_pipeline_params_mutation_gaps import _handed


def _split_tree(comp) -> Tree:
    """A depth-1 tree on TINY_CSV's first feature: its MIP start (objective 6.30) is not the greedy one (4.16)."""
    return Tree.from_arrays(np.array([[1.0, 0.0, 0.0, 0.0]]), [0.0], schema=comp.dataset.schema, scaler=comp.scaler,
                            classes=comp.dataset.classes)


def _start_values(comp, path: Path) -> np.ndarray:
    """The values of HiGHS's start file ``path``, in the MILP's column order."""
    names = [str(n) for n in comp.milp.col_names()]
    values = read_solution(path, "highs", col_names=names).values
    return np.array([values[n] for n in names])


def _manifest(path: Path) -> dict:
    return json.loads(path.read_text())


def test_a_start_tree_is_the_start_written_and_recorded_whole(tmp_path: Path) -> None:
    """Pins m12 (`elif start` -> `if start`: the greedy warm start ran too and replaced the tree's start in the files,
    while the manifest still said "from": "start tree"), m27 (the adjustments dropped from the record) and m28
    (which tree, "as saved", dropped)."""
    comp = _compiled(tmp_path)
    tree = _split_tree(comp)
    x, info = tree_start(comp, tree)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs", start_tree=tree)
    assert np.array_equal(_start_values(comp, tmp_path / "m.start.highs.sol"), x)
    assert _manifest(tmp_path / "m.olctc.json")["warm_start"] == {
        "objective": info["objective"], "from": "start tree", "adjustments": [], "tree": "as saved"}
    assert info["objective"] > warm_start(comp.milp, comp.X, comp.dataset.y, comp.spec)[1]["objective"] + 1


def test_the_cbc_line_of_solvers_txt_cuts_off_at_the_starts_objective(tmp_path: Path) -> None:
    """Pins m21 (no start objective handed to write_param_files): NAME.solvers.txt's CBC command lost its -cutoff,
    which keeps CBC from returning a tree worse than the start (the cutoff is the start tree's, not the greedy's)."""
    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps", solvers="cbc", start_tree=_split_tree(comp))
    objective = _manifest(tmp_path / "m.olctc.json")["warm_start"]["objective"]
    cutoff = format_value(cbc_cutoff(objective))
    assert f"  CBC:    -mips m.start.cbc -cutoff {cutoff}   (right after" in (tmp_path / "m.solvers.txt").read_text()


def test_the_scip_start_of_a_miqp_gives_the_quadratic_parts_helper_columns(tmp_path: Path) -> None:
    """Pins m10 (no quadratic part handed to the start writers): SCIP's start of a MIQP lost the values of the helper
    columns SCIP adds for a quadratic objective, and SCIP discards a start without them. The start tree's split
    makes the quadratic part non-zero (the greedy start's is 0)."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    comp = compile_problem(read_csv(tmp_path / "tiny.csv", "y"), make_spec("margot", 1))
    tree = _split_tree(comp)
    x, _ = tree_start(comp, tree)
    write_compiled(comp, tmp_path / "q.mps", solvers="scip", start_tree=tree)
    lines = dict(line.split() for line in (tmp_path / "q.start.scip.sol").read_text().splitlines()[2:] if line)
    quadratic = comp.milp.quadratic_part(x)
    assert quadratic > 0 and float(lines["qmatrixvar"]) == float(lines["quadobjvar"]) == pytest.approx(quadratic)


def test_a_weighted_data_sets_start_is_its_weighted_warm_start(tmp_path: Path) -> None:
    """Pins m13 (the greedy warm start fitted without the sample weights): compile's start was the unweighted
    problem's tree, not the one `olctc fit` starts from, and its rows disagreed with the weighted MILP (a warning)."""
    ds = load("haberman", weight_column="age")
    comp = compile_problem(ds, make_spec("olct", 1))
    x, info = warm_start(comp.milp, comp.X, ds.y, comp.spec, sample_weight=ds.weight)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_compiled(comp, tmp_path / "m.mps", solvers="highs")
    assert np.array_equal(_start_values(comp, tmp_path / "m.start.highs.sol"), x)
    assert _manifest(tmp_path / "m.olctc.json")["warm_start"]["objective"] == info["objective"]


def test_a_compile_for_glpsol_alone_lists_no_warm_start_to_add(tmp_path: Path) -> None:
    """Pins m20 (`starts=start_asked` to write_param_files): a compile for glpsol alone, which takes no MIP start and
    so wrote none, gave NAME.solvers.txt a section on adding the warm start to the commands above."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="glpk")
    text = (tmp_path / "m.solvers.txt").read_text()
    assert "glpsol m.mps -w m.glpk.sol" in text and "warm start" not in text and "MIP start" not in text


def test_a_recompile_for_fewer_solvers_leaves_only_its_own_files(tmp_path: Path) -> None:
    """Pins m02 (`compiled_files(out)[3:]`: the first parameter file, NAME.highs.opt, never counted as stale) and
    m08/m35 (stale files kept): a recompile for SCIP alone left the earlier compile's HiGHS settings (or every
    other solver's files) beside a model they no longer match."""
    comp = _compiled(tmp_path)
    write_compiled(comp, tmp_path / "m.mps")
    write_compiled(comp, tmp_path / "m.mps", solvers="scip")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m.mps", "m.olctc.json", "m.scip.set", "m.solvers.txt", "m.start.scip.sol", "tiny.csv"]


def test_a_failed_compile_through_a_linked_model_leaves_no_mix(tmp_path: Path) -> None:
    """Pins m32 (no removal on a failure when the set is written in place, as through a linked model): a recompile
    whose warm start failed left the new model (through the link) beside the earlier compile's manifest and start,
    a mix that `olctc solve` reads as an edited model. The set goes, as documented (_staged_set)."""
    comp = _compiled(tmp_path)
    (tmp_path / "real.mps").write_text("")
    (tmp_path / "m.mps").symlink_to("real.mps")
    write_compiled(comp, tmp_path / "m.mps", solvers="highs")
    wrong = dataclasses.replace(comp, spec=make_spec("olct", 3))  # the warm start refuses it, once the model is written
    with pytest.raises(OlctcError, match=r"the MILP's w block has shape"):
        write_compiled(wrong, tmp_path / "m.mps", solvers="highs")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("m.")) == []


def test_write_compiled_returns_each_file_under_its_solvers_name(tmp_path: Path) -> None:
    """Pins m19 (`params:opt`, the suffix, not the solver) and m25 (`start:m.start.highs.sol`): the dict Python
    callers look a file up in by solver."""
    got = write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    assert got == {"model": tmp_path / "m.mps", "params:highs": tmp_path / "m.highs.opt",
                   "params:solvers": tmp_path / "m.solvers.txt", "start:highs": tmp_path / "m.start.highs.sol",
                   "manifest": tmp_path / "m.olctc.json"}


def test_a_solve_after_a_compile_without_starts_says_nothing_of_solvers(tmp_path: Path) -> None:
    """Pins m53 (dropping `"start" in files`): after `compile --solvers highs --no-start`, the solve warned that
    compile wrote no MIP start because none of the solvers chosen reads one, which is untrue (HiGHS does)."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs", start=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res, _ = solve_compiled_file(tmp_path / "m.mps", "highs", verbose=False, threads=1)
    assert res.status == "optimal"


@pytest.mark.parametrize("only", ["highs", "scip"])
def test_a_commercial_solver_in_process_takes_highss_or_scips_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, only: str) -> None:
    """Pins m56 (`(xpress,)` alone for the commercial solvers): after a compile for HiGHS or SCIP alone, Gurobi in
    process was handed no start, though olctc reads either file and hands the solver its values."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers=only)
    name = "m.start.highs.sol" if only == "highs" else "m.start.scip.sol"
    assert _handed(tmp_path, monkeypatch, "gurobi")["start_path"] == tmp_path / name


@pytest.mark.parametrize("solver, reads", [("cbc", "highs or scip"), ("gurobi", "scip, highs or xpress")])
def test_a_solver_in_process_is_told_its_own_start_file_is_its_programs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, solver: str, reads: str) -> None:
    """After `compile --solvers cbc`, `solve --solver cbc` warned "compile wrote MIP starts for cbc only, none that
    cbc reads", a contradiction to the reader: the file is the CBC program's, and in process olctc hands the
    solver the values of a start it reads itself (qa195's note). The warning says so, and which files it reads."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers=solver)
    with pytest.warns(UserWarning) as record:
        got = _handed(tmp_path, monkeypatch, solver)
    assert got["start_path"] is None
    assert [str(w.message) for w in record] == [
        f"compile wrote MIP starts for {solver} only (--solvers), none that {solver} reads (in process, olctc hands "
        f"{solver} the values of the start file of {reads}; the {solver} file is for the {solver} program): solving "
        f"without one (compile with --solvers {reads.split(',')[0].split(' ')[0]} to have it)"]


def test_a_solution_may_be_written_to_a_txt_file(tmp_path: Path) -> None:
    """Pins m46 (`.txt` dropped from solve's output suffixes): `olctc solve -o run.txt`, which the HiGHS solution
    layout is, was refused."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    res, sol = solve_compiled_file(tmp_path / "m.mps", "highs", output=tmp_path / "run.txt", verbose=False, threads=1)
    assert res.status == "optimal" and sol == tmp_path / "run.txt"
    assert sol.read_text().startswith("Model status\nOptimal\n")


@pytest.mark.parametrize(("name", "what"), [
    ("m.start.highs.sol", "MIP start"), ("m.solvers.txt", "file compile wrote beside the model"),
    ("d.txt", "data named in the manifest")])
def test_a_solution_is_not_written_over_an_input(tmp_path: Path, name: str, what: str) -> None:
    """Pins m44 (the start named as compile's other file, not as the MIP start it is), m45 (no check of compile's
    other files: the solution replaced NAME.solvers.txt) and m52 (no check of the data: a solution written over the
    training data, d.txt, which decode then reads). Each file is left as it was."""
    (tmp_path / "d.txt").write_text(TINY_CSV)
    write_compiled(compile_problem(read_csv(tmp_path / "d.txt", "y"), make_spec("olct", 1)), tmp_path / "m.mps",
                   solvers="highs")
    before = (tmp_path / name).read_bytes()
    with pytest.raises(OlctcError, match=rf"^-o {tmp_path / name} is also the input {what}; write to another file$"):
        solve_compiled_file(tmp_path / "m.mps", "highs", output=tmp_path / name, verbose=False)
    assert (tmp_path / name).read_bytes() == before


def test_a_solution_into_a_missing_folder_is_refused_before_the_solve(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pins m47 (`not exists and isfile`: no check_writable): a solution bound for a folder that is not there was
    found out only after the whole solve, its tree lost."""
    write_compiled(_compiled(tmp_path), tmp_path / "m.mps", solvers="highs")
    with pytest.raises(OlctcError, match=r"^cannot write .*/gone/x\.sol: folder .*/gone does not exist$"):
        _handed(tmp_path, monkeypatch, "highs", output=tmp_path / "gone" / "x.sol")


def test_training_data_from_a_pipe_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """Pins m57 (no refuse_read_once in load_source): data given as a FIFO was hashed, then read, and the read found
    it empty (or waited for a second writer); it is refused with the reason before either. Loaded on a thread: with
    no writer, a read would wait in open() for ever (10 s, the refusal takes milliseconds)."""
    info = _compiled(tmp_path).manifest["data"]
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    got: list[str] = []

    def load_it() -> None:
        try:
            load_source(info, fifo)
        except OlctcError as exc:
            got.append(str(exc))

    loading = threading.Thread(target=load_it, daemon=True)
    loading.start()
    loading.join(10)
    if loading.is_alive():  # waiting in open() for a writer: let it read an empty file
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not loading.is_alive() and got == [
        f"{fifo}: a pipe or device, read once: the training data is hashed, then read, so pass a data file (olctc "
        "reads .csv.gz files as they are)"]


def test_data_that_no_longer_reads_as_compiled_is_said_to_have_changed(tmp_path: Path) -> None:
    """Pins m58 (no hash of the file before reading it): a data file edited since compile so that it no longer reads
    (its target column renamed) failed as "no column y", not with the cause: the data changed since compile."""
    info = _compiled(tmp_path).manifest["data"]
    (tmp_path / "tiny.csv").write_text(TINY_CSV.replace(",y\n", ",label\n", 1))
    with pytest.raises(OlctcError, match=r"tiny\.csv: the data changed since compile \(sha256 [0-9a-f]{12}\.\.\. "
                                         r"!= [0-9a-f]{12}\.\.\.\)$"):
        load_source(info)
