"""compile / solve / decode / fit / bench / grid / collect behaviour a second mutation pass over cli.py, cli_bench.py
and cli_cluster.py (QA 2026-12-07) found no test pinning: option checks that refuse one combination and take the
next, lines said or not, which stream they go to, exit codes, files written or not on a failure. Every case runs
the real CLI in process (``olctc.cli.main`` through conftest's cli_here) with real solves, bar one check of a
helper's threshold; the mutant each test kills is named in its docstring."""
from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest

from conftest import TINY_CSV, cli_here, tiny_folder
from test_cli_cluster_mutation_gaps2 import GRID
from test_cluster import run_tasks_here

#: TINY_CSV with two more points and a weight column w: the third point weighs 0, the fifth 2.
WEIGHTED_CSV = ("a,b,c,y,w\n0.5,-1.25,x,1,1\n1.5,0.75,y,-1,1\n-0.25,2.0,x,1,0\n-1.0,-0.5,y,-1,1\n2.0,1.0,x,-1,2\n"
                "0.1,0.3,y,1,1\n0.3,0.2,x,1,1\n1.1,-0.2,y,-1,1\n")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tiny.csv, a depth-1 tree fitted on it (t1.json), its depth-1 model m.mps (HiGHS's files) solved (m.sol)."""
    return tiny_folder(tmp_path_factory.mktemp("gaps2_tiny"),
                       ["fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--quiet",
                        "-o", "t1.json"],
                       ["compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "m.mps"],
                       ["solve", "m.mps", "--threads", "1", "--quiet", "-o", "m.sol"])


@pytest.fixture(scope="module")
def weighted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """w.csv (WEIGHTED_CSV) and grid gw on it (--weight-column w, no test part, two folds, one C), solved."""
    d = tmp_path_factory.mktemp("gaps2_weighted")
    (d / "w.csv").write_text(WEIGHTED_CSV)
    tiny_folder(d, ["grid", "w.csv", "--target", "y", "--weight-column", "w", "--depth", "1", "--C-values", "1",
                    "--folds", "2", "--time-limit", "5", "--test-size", "0", "-o", "gw"])
    run_tasks_here(d / "gw")
    return d


@pytest.fixture
def solved(tmp_path: Path) -> Path:
    """A fresh folder holding tiny.csv and GRID's two-task grid g, both tasks solved by HiGHS (each test may
    spoil it)."""
    d = tiny_folder(tmp_path, [*GRID, "--time-limit", "5", "-o", "g"])
    run_tasks_here(d / "g")
    return d


def _refused(r, said: str) -> None:
    """Exit 2, nothing on standard output, one error line on standard error starting with ``said``."""
    assert (r.returncode, r.stdout) == (2, ""), (r.returncode, r.stdout, r.stderr)
    assert r.stderr.startswith(f"error: {said}") and r.stderr.count("\n") == 1, r.stderr


# ---------------------------------------------------------------- compile: option combinations

def test_compile_refuses_start_tree_with_no_start(tiny: Path) -> None:
    """--start-tree with --no-start is refused before anything is written; --start-tree alone is taken. Mutant:
    the check's `not start` flipped."""
    _refused(cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--start-tree", "t1.json", "--no-start",
                      "-o", "ns.mps", cwd=tiny),
             "--start-tree gives the MIP start files, which --no-start leaves out: drop one of them")
    assert not list(tiny.glob("ns.*"))


def test_compile_solvers_needs_start_or_params_not_both(tiny: Path) -> None:
    """--solvers with --no-params (MIP starts still written) is taken; with --no-start and --no-params too, it
    picks nothing and is refused. Mutant: `and not params` as `or not params`."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "--no-params",
                 "-o", "np.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tiny.glob("np.*")) == ["np.mps", "np.olctc.json", "np.start.highs.sol"]
    _refused(cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "--no-params",
                      "--no-start", "-o", "nn.mps", cwd=tiny),
             "--solvers picks the solvers whose MIP start and parameter files compile writes, which --no-start and "
             "--no-params leave out: drop one of them")
    assert not list(tiny.glob("nn.*"))


def test_compile_start_tree_for_glpk_alone_is_refused(tiny: Path) -> None:
    """--solvers glpk alone is taken (glpsol's files written); with --start-tree, whose MIP start glpsol cannot
    read, it is refused. Mutant: the check made for `start_tree is None`."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "glpk", "-o", "gl.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert (tiny / "gl.glpk.args").is_file()
    _refused(cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "glpk", "--start-tree",
                      "t1.json", "-o", "gs.mps", cwd=tiny),
             "--start-tree gives the MIP start files, and glpsol (--solvers glpk) reads none: add a solver that does")
    assert not list(tiny.glob("gs.*"))


def test_compile_start_tree_says_the_starts_objective(tiny: Path) -> None:
    """compile --start-tree says the MIP start's objective, the one its manifest records. Mutant: the line
    dropped."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "--start-tree",
                 "t1.json", "-o", "st.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    ws = json.loads((tiny / "st.olctc.json").read_text())["warm_start"]
    assert f"MIP start from --start-tree t1.json: objective {ws['objective']:.10g}" in r.stdout.splitlines()


def test_compile_over_another_models_manifest_notes_it_on_stderr(tmp_path: Path) -> None:
    """Compiling x.lp where x.mps's manifest is: a note on standard error (not standard output) that x.mps is left
    without its files; compiling x.lp again says nothing of it. Mutants: the `!=` flipped; the note on stdout."""
    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o",
                           "x.mps"])
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "x.lp",
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ("note: x.olctc.json, its MIP start and parameter files were those of x.mps, which is left "
                        "without them (solve it without its MIP start, or compile it again)\n")
    assert "note" not in r.stdout
    again = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "x.lp",
                     cwd=tmp_path)
    assert (again.returncode, again.stderr) == (0, "")


def test_compile_counts_the_points_of_weight_zero_left_out(tmp_path: Path) -> None:
    """A point of weight 0 is left out of the model, and the summary line says so. Mutant: always 'N points'."""
    (tmp_path / "w.csv").write_text(WEIGHTED_CSV)
    r = cli_here("compile", "w.csv", "--target", "y", "--weight-column", "w", "--depth", "1", "--solvers", "highs",
                 "-o", "w.mps", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("compiled w (7 of 8 points, 1 of weight 0 left out, 4 features) as olct depth 1")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_compile_from_a_pipe_notes_on_stderr_that_decode_needs_a_file(tmp_path: Path) -> None:
    """Data read from a named pipe: compiled, with a note on standard error (standard output holds the summary
    and the files) that decode will need the data in a file. Mutant: the note on standard output."""
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as f:
            f.write(TINY_CSV)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    r = cli_here("compile", "data.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "p.mps",
                 cwd=tmp_path)
    writer.join(30)
    assert r.returncode == 0, r.stderr
    assert "is a pipe" not in r.stdout
    assert r.stderr.startswith("note: data.csv is a pipe: decode reads the training data again, so save it to a "
                               "file and pass that with --data"), r.stderr


def test_score_variables_hint_only_when_they_halve_the_model() -> None:
    """The hint comes when the score form would take at most half the nonzeros, not when it would merely be
    smaller. Mutant: `smaller > nnz / 2` as `smaller > nnz`."""
    from dataclasses import replace

    from olctc.cli import SCORE_HINT_NNZ, _score_variables_hint, _spec
    from olctc.compile import estimate_size

    spec = _spec("olct", 2, "1", "V0", 100.0, 1e-5, 1.0, None)
    n, p = 20_000, 40
    smaller = estimate_size(n, p, replace(spec, score_variables=True)).nonzeros
    assert smaller * 1.5 >= SCORE_HINT_NNZ  # both cases below are past the noise threshold
    assert _score_variables_hint(n, p, spec, int(smaller * 1.5)) is None
    hint = _score_variables_hint(n, p, spec, smaller * 3)
    assert hint == (f"hint: --score-variables would write about {smaller:,} instead of {smaller * 3:,} nonzeros "
                    "(same optimum, a 3.0x smaller file)")


# ---------------------------------------------------------------- solve / decode

def test_solve_solver_path_with_an_in_process_solver_names_the_programs(tiny: Path) -> None:
    """--solver-path with --solver highs (in process) is refused naming the solver programs, and nothing is
    written. Mutant: the check made for the programs instead."""
    _refused(cli_here("solve", "m.mps", "--solver", "highs", "--solver-path", "/bin/true", "-o", "sp.sol", cwd=tiny),
             "--solver-path applies to the solver programs (cbc-cli, highs-cli, glpk-cli), not to highs, which runs "
             "in process")
    assert not (tiny / "sp.sol").exists()


def test_decode_refinement_line_goes_from_the_solvers_tree_to_the_refit(tiny: Path) -> None:
    """The refinement line gives the exact objective before, then after the refit (lower), the figure the
    report's 'exact objective' line gave first. Mutant: the two swapped."""
    r = cli_here("decode", "m.olctc.json", "m.sol", "-o", "d.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    exact = float(re.search(r"^exact objective \(true logistic loss\) of the solver's \(w, b\): (\S+)$", r.stdout,
                            re.M)[1])
    found = re.search(r"^refinement: exact objective of the tree \(b moved to the routing midpoint\) (\S+) -> (\S+) "
                      r"\(refit nodes \[0\]\)$", r.stdout, re.M)
    assert found, r.stdout
    before, after = float(found[1]), float(found[2])
    assert before == pytest.approx(exact, rel=1e-9) and after < before


def test_decode_smooth_pure_nodes_says_which_nodes(tmp_path: Path) -> None:
    """decode --smooth-pure-nodes of a depth-2 tiny tree with a one-class last-layer node: a line names the node
    smoothed and the objective's change, as the tree's meta records it. Mutant: the line dropped."""
    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "--solvers", "highs", "-o", "d2.mps"],
                ["solve", "d2.mps", "--threads", "1", "--quiet", "-o", "d2.sol"])
    r = cli_here("decode", "d2.olctc.json", "d2.sol", "--smooth-pure-nodes", "-o", "d2.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pure = json.loads((tmp_path / "d2.json").read_text())["meta"]["pure_nodes"]
    assert pure["nodes"]
    assert (f"pure node(s) {', '.join(map(str, pure['nodes']))} smoothed (w = 0, b the log-odds of their points plus "
            f"one of each class): exact objective {pure['objective_before']:.10g} -> "
            f"{pure['objective_after']:.10g}") in r.stdout.splitlines()


# ---------------------------------------------------------------- --no-refine: the presets with nothing to refine

def test_no_refine_is_refused_for_oct_h_by_fit_and_decode_and_taken_for_olct(tmp_path: Path) -> None:
    """fit and decode --no-refine of an OCT-H model are refused (nothing to refine), before any work; fit
    --no-refine of OLCT fits. Mutants: the preset check flipped; fit's or decode's check dropped."""
    said = ("--no-refine applies to the logistic presets (olct, olct-univariate), whose last layer refinement "
            "refits; oct-h refines nothing: leave it out")
    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "--preset", "oct-h", "--depth", "1",
                           "--solvers", "highs", "-o", "h.mps"],
                ["solve", "h.mps", "--threads", "1", "--quiet", "-o", "h.sol"])
    _refused(cli_here("fit", "tiny.csv", "--target", "y", "--preset", "oct-h", "--depth", "1", "--no-refine",
                      "-o", "f.json", cwd=tmp_path), said)
    _refused(cli_here("decode", "h.olctc.json", "h.sol", "--no-refine", "-o", "d.json", cwd=tmp_path), said)
    assert not (tmp_path / "f.json").exists() and not (tmp_path / "d.json").exists()
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--quiet", "--no-refine",
                 "-o", "o.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "refine" not in json.loads((tmp_path / "o.json").read_text())["meta"]


# ---------------------------------------------------------------- fit

def test_fit_scoring_without_cv_says_to_leave_it_out(tmp_path: Path) -> None:
    """--scoring without --cv: the way out is to leave out --scoring (giving one C with --C would fail again).
    Mutant: the advice always 'give one C with --C'."""
    _refused(cli_here("fit", "missing.csv", "--target", "y", "--scoring", "accuracy", "-o", "t.json", cwd=tmp_path),
             "--scoring accuracy applies to cross-validation only: add --cv K (such as --cv 4) to choose C among "
             "--C-values, or leave out --scoring")


def test_fit_cv_refuses_a_C_given(tmp_path: Path) -> None:
    """--C with --cv (which chooses C) is refused before the data is read. Mutant: the check dropped."""
    _refused(cli_here("fit", "missing.csv", "--target", "y", "--cv", "2", "--C", "3", "-o", "t.json", cwd=tmp_path),
             "--C does not apply with --cv, which chooses C among --C-values")


# ---------------------------------------------------------------- bench

def test_bench_failed_runs_exit_1_and_a_rerun_counts_them(tmp_path: Path) -> None:
    """A run killed by --run-timeout: exit 1, the summary on stdout, the error line on stderr. A second call skips
    it, saying it was recorded as failed and how to run it again, exit 0. Mutants: exit 2; the error line on
    stdout; the 'recorded as failed' part said when none was."""
    # a6a: loading it alone takes longer than the 0.01 s (haberman's CART run, 300 rows, sometimes ended within it)
    args = ["bench", "models", "--datasets", "a6a", "--models", "CART", "--seeds", "0", "-o", "b"]
    r = cli_here(*args, "--run-timeout", "0.01", cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout == ("bench models: 1 run(s) done now, 0 skipped (already done), 1 failed; results in "
                        "b/runs.jsonl\n")
    assert r.stderr.splitlines()[-1] == ("error: 1 run(s) of this call failed (error or timeout; each record says "
                                         "why): `olctc bench report` counts them as failed, --retry-errors runs them "
                                         "again")
    r = cli_here(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("bench models: 0 run(s) done now, 1 skipped (already done; 1 of them recorded as failed "
                        "(error, timeout or skipped): --retry-errors runs them again), 0 failed; results in "
                        "b/runs.jsonl\n")
    assert "error" not in r.stderr


# ---------------------------------------------------------------- grid

def test_grid_warns_of_a_solver_program_not_on_path(tmp_path: Path) -> None:
    """--solver gurobi-cli where gurobi_cl is not on PATH: the grid is written, with a warning. Mutant: the warning
    dropped."""
    from shutil import which

    if which("gurobi_cl"):
        pytest.skip("gurobi_cl is on PATH here")
    tiny_folder(tmp_path)
    r = cli_here(*GRID, "--time-limit", "5", "--solver", "gurobi-cli", "-o", "g", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ("warning: --solver gurobi-cli: the tasks run the program 'gurobi_cl', which is not on PATH here"
            in r.stderr), r.stderr
    assert (tmp_path / "g" / "jobs.tsv").is_file()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a named pipe")
def test_grid_refuses_data_from_a_pipe_before_reading_it(tmp_path: Path) -> None:
    """grid from a named pipe is refused (collect reads the data again), before opening it, no folder made.
    Mutant: the check dropped (the pipe read, fed by the writer here, and the grid written)."""
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    done = threading.Event()

    def feed() -> None:  # a writer only once the pipe is opened to read: a grid that reads it ends, not hangs
        while not done.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                done.wait(0.05)
                continue
            with os.fdopen(fd, "w") as f:
                f.write(TINY_CSV)
            return

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        r = cli_here("grid", "data.csv", "--target", "y", "--depth", "1", "-o", "g", cwd=tmp_path)
    finally:
        done.set()
        writer.join(5)
    _refused(r, "data.csv: a pipe or device, read once: olctc collect reads the grid's data again, so pass a data "
                "file")
    assert not (tmp_path / "g").exists()


# ---------------------------------------------------------------- collect: refused before decoding any task

def test_collect_refuses_an_output_inside_the_tasks_folder(solved: Path) -> None:
    """-o inside FOLDER/tasks is refused, nothing written. Mutant: the check dropped (the tree written there)."""
    _refused(cli_here("collect", "g", "-o", "g/tasks/t.json", cwd=solved),
             "-o g/tasks/t.json is inside g/tasks, whose manifests and solutions collect reads; write the tree "
             "elsewhere")
    assert not (solved / "g" / "tasks" / "t.json").exists() and not (solved / "g" / "cv_results.json").exists()


def test_collect_refuses_a_linked_cv_results_before_decoding(solved: Path, tmp_path: Path) -> None:
    """FOLDER/cv_results.json a symbolic link to a file elsewhere: refused, the file it names untouched. Mutant:
    check_not_linked dropped (the table written through the link)."""
    outside = tmp_path / "mine.txt"
    outside.write_text("mine\n")
    (solved / "g" / "cv_results.json").symlink_to(outside)
    _refused(cli_here("collect", "g", "--emit-final", cwd=solved),
             f"g/cv_results.json is a symbolic link (to {outside}): collect writes it as a file of the folder's own")
    assert outside.read_text() == "mine\n"


def test_collect_emit_final_refuses_a_file_named_final_before_decoding(solved: Path) -> None:
    """--emit-final with FOLDER/final a file: refused before decoding (no table, no cv_results.json). Mutant:
    check_final_folder dropped."""
    (solved / "g" / "final").write_text("x\n")
    r = cli_here("collect", "g", "--emit-final", cwd=solved)
    assert (r.returncode, r.stdout) == (2, ""), r.stdout + r.stderr
    assert r.stderr == "error: cannot write g/final/model.mps: g/final exists and is not a folder\n", r.stderr
    assert not (solved / "g" / "cv_results.json").exists()


def test_collect_refuses_an_output_in_a_missing_folder_before_the_fit(solved: Path) -> None:
    """-o in a folder that does not exist: refused before decoding and fitting. Mutant: check_writable dropped
    (the fit done, then the tree not written)."""
    _refused(cli_here("collect", "g", "--quiet", "-o", "nodir/t.json", cwd=solved),
             "cannot write nodir/t.json: folder nodir does not exist")
    assert not (solved / "g" / "cv_results.json").exists()


def test_collect_smooth_pure_nodes_is_recorded_in_cv_results(solved: Path) -> None:
    """--smooth-pure-nodes is recorded in cv_results.json (the scores are the smoothed trees'). Mutant: the key
    never written."""
    r = cli_here("collect", "g", "--emit-final", "--smooth-pure-nodes", cwd=solved)
    assert r.returncode == 0, r.stderr
    assert json.loads((solved / "g" / "cv_results.json").read_text())["smooth_pure_nodes"] is True


# ---------------------------------------------------------------- collect: the final fit of a weighted grid

def test_collect_final_fit_of_a_weighted_grid(weighted: Path) -> None:
    """The final fit of a grid with a weight column: the score form by default, the point of weight 0 counted out,
    the weighted balanced accuracy (the CV table's measure) on a line of its own; no test part, so no test score.
    Mutants: the default form the paper's; 'less 1 of weight 0' dropped; the weighted line dropped."""
    r = cli_here("collect", "gw", "--quiet", "-o", "fw.json", cwd=weighted)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"best C: 1 \(mean validation balanced accuracy \d\.\d{4}, points weighted by column 'w'\)",
                        lines[-4]), lines
    assert re.fullmatch(r"final fit on 8 training points less 1 of weight 0, score-variable form: optimal \(gap 0%\), "
                        r"train balanced accuracy \d\.\d{4}", lines[-3]), lines
    assert re.fullmatch(r"balanced accuracy, points weighted by column 'w': train \d\.\d{4}", lines[-2]), lines
    assert lines[-1] == "tree written to fw.json"
    meta = json.loads((weighted / "fw.json").read_text())["meta"]
    assert meta["spec"]["score_variables"] is True


def test_collect_final_fit_by_cbc_warns_of_its_optimum(solved: Path) -> None:
    """collect --solver cbc: the final fit's 'optimal' comes with fit's note on standard error that CBC proves false
    optima on these models (collect said 'optimal' with no note, where fit and solve give it); the table and the
    fit line stay on standard output. Defect fixed: collect never called _note_cbc_optimum."""
    from olctc.cli import CBC_NOTE

    r = cli_here("collect", "g", "--solver", "cbc", "--quiet", "--time-limit", "30", "-o", "c.json", cwd=solved)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^final fit on 4 training points, score-variable form: optimal \(gap 0%\)", r.stdout, re.M), \
        r.stdout
    assert CBC_NOTE + "\n" in r.stderr and "CBC" not in r.stdout
    assert r.stdout.splitlines()[-1] == "tree written to c.json"


@pytest.mark.parametrize("command,default", [("fit", "--score-variables."), ("compile", "--paper-form."),
                                             ("grid", "--paper-form.")])
def test_help_names_each_commands_default_form(command: str, default: str) -> None:
    """--score-variables/--paper-form's help ends with the command's own default: fit solves in the score form,
    compile and grid write the paper's. Mutant: the two swapped in the help."""
    r = cli_here(command, "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert f"as the paper's model. Default: {default}" in text, text
