"""compile / solve / fit / bench / grid / collect behaviour a second mutation pass over cli.py and cli_cluster.py
(QA 2026-12-06) could change without any other test noticing. Every case runs the real CLI in process
(``olctc.cli.main`` through conftest's cli_here), on tiny.csv or a vendored data set, with real solves."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import TINY_CSV, cli_here, tiny_folder
from test_cluster import run_tasks_here

#: A two-task grid (depth 1, one C, two folds) on tiny.csv, as test_cli_mutation_gaps' GRID.
GRID = ["grid", "tiny.csv", "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding tiny.csv and its depth-1 model m.mps with HiGHS's files only."""
    return tiny_folder(tmp_path_factory.mktemp("mut2_tiny"),
                       ["compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "m.mps"])


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding tiny.csv and grid g (GRID, 5 s per task) with both tasks solved by HiGHS."""
    d = tiny_folder(tmp_path_factory.mktemp("mut2_solved"), [*GRID, "--time-limit", "5", "-o", "g"])
    run_tasks_here(d / "g")
    return d


# ---------------------------------------------------------------- compile / solve / fit

def test_solve_refuses_a_solver_path_of_blanks(tiny: Path) -> None:
    """--solver-path of blanks names no program, as '' does (not taken for a program called '  ').
    Mutant: only the empty string refused."""
    r = cli_here("solve", "m.mps", "--solver", "cbc-cli", "--solver-path", "  ", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: --solver-path '  ' names no program: give the solver program's path\n"


def test_solve_by_the_cbc_program_warns_of_its_optimum(tiny: Path) -> None:
    """An 'optimal' from the CBC program (cbc-cli) gets the note that CBC proves false optima on these models, as
    CBC in process does. Mutant: the note for in-process CBC only."""
    from olctc.cli import CBC_NOTE

    r = cli_here("solve", "m.mps", "--solver", "cbc-cli", "--threads", "1", "--no-start", "--quiet", "-o", "m.sol",
                 cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("status optimal (cbc-cli: ") and r.stderr == CBC_NOTE + "\n", r.stdout + r.stderr


def test_fit_without_cv_names_the_first_cv_option_given(tiny: Path) -> None:
    """--C-values and --scoring both given without --cv: the error is --C-values', the first of the options, with
    its own way out (one C with --C). Mutant: the last option given named."""
    r = cli_here("fit", "tiny.csv", "--target", "y", "--scoring", "roc_auc", "--C-values", "1,2", "-o", "t.json",
                 cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --C-values 1,2 applies to cross-validation only: "), r.stderr
    assert r.stderr.endswith("or give one C with --C\n"), r.stderr


def test_a_vendored_data_set_takes_target_y(tmp_path: Path) -> None:
    """--dataset NAME --target y is accepted: y is where a vendored data set keeps its label (another column is
    refused elsewhere). Mutant: any --target refused with --dataset."""
    r = cli_here("compile", "--dataset", "haberman", "--target", "y", "--depth", "1", "--no-start", "--no-params",
                 "-o", "h.lp", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("compiled haberman (306 points, 3 features)"), r.stdout


def test_compile_over_a_manifest_naming_no_file_says_nothing_of_it(tiny: Path) -> None:
    """An existing manifest whose model "file" is not a string (an edited one) is read leniently as naming no model:
    compile replaces it without a note about a model called 5. Mutant: the field's value taken whatever its type."""
    man = json.loads((tiny / "m.olctc.json").read_text())
    man["model"]["file"] = 5
    (tiny / "m.olctc.json").write_text(json.dumps(man))
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "m.mps",
                 cwd=tiny)
    assert (r.returncode, r.stderr) == (0, "")
    assert json.loads((tiny / "m.olctc.json").read_text())["model"]["file"] == "m.mps"


def test_bench_names_the_C_option_typed_with_its_value_after_an_equals_sign(tmp_path: Path) -> None:
    """--C-grid=abc names --C-grid, the option typed (as --C-grid abc does), not the other name --C-values.
    Mutant: only an option typed as a word of its own recognised."""
    r = cli_here("bench", "models", "--C-grid=abc", "-o", "b", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: The 'C_grid' parameter (--C-grid) must be positive numbers"), r.stderr
    assert not (tmp_path / "b").exists()


def test_fit_cv_says_the_choice_its_score_folds_and_weights(tmp_path: Path) -> None:
    """fit --cv's closing line: the C chosen, by balanced accuracy (the default scoring), its mean over the K folds,
    and the weight column the scores weighed points by. Mutants: another default scoring; the fold count off by
    one; the weight column left out of the line."""
    lines = TINY_CSV.splitlines()
    (tmp_path / "tw.csv").write_text("".join(f"{row},{w}\n" for row, w in zip(lines, "w 1 2 1 1 2 1".split())))
    r = cli_here("fit", "tw.csv", "--target", "y", "--weight-column", "w", "--depth", "1", "--cv", "2", "--C-values",
                 "1,10", "--test-size", "0", "--quiet", "--threads", "1", "-o", "cv.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^best C: 1 \(mean validation balanced accuracy \d\.\d{4} over 2 folds, points weighted by "
                     r"column 'w'; cross-validation took \d+\.\d s\)$", r.stdout, re.M), r.stdout
    assert json.loads((tmp_path / "cv.json").read_text())["meta"]["cv"]["scoring"] == "balanced_accuracy"


# ---------------------------------------------------------------- grid

def test_grid_help_lists_the_solver_programs() -> None:
    """--solver's help groups the choices as make_grid takes them: the programs together, gurobi-cli's named.
    Mutant: the programs not recognised by their -cli suffix (listed among the in-process solvers)."""
    from olctc.cli_cluster import _solver_help

    assert "; cbc-cli, highs-cli, glpk-cli, gurobi-cli (that program; gurobi-cli runs gurobi_cl)." in _solver_help()


def test_grid_output_with_a_trailing_slash_is_named_without_it(tmp_path: Path) -> None:
    """-o g/ prints 'cd g' and 'olctc collect g', not 'g/' ('grid//run_local.sh' was printed once). Mutant: the
    trailing slash kept."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    r = cli_here(*GRID, "--time-limit", "5", "-o", "gg/", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "(or cd gg && sbatch submit.slurm)" in r.stdout and "  then:    olctc collect gg\n" in r.stdout, r.stdout


def test_grid_says_where_its_tasks_are(tmp_path: Path) -> None:
    """The summary line ends with the grid folder the tasks are in. Mutant: the folder left out."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    r = cli_here(*GRID, "--time-limit", "5", "-o", "grid1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "grid tiny: 4 train / 2 test points, 2 folds x 1 C combinations = 2 tasks in grid1\n" in r.stdout


def test_grid_of_two_job_arrays_says_how_to_submit_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A grid of more tasks than one job array holds (ARRAY_CHUNK, lowered to 1 so that two tasks make two arrays,
    as test_cluster_grid_mutation_gaps does) says so, with the loop that submits every script. Mutant: the one-array
    line for two arrays."""
    import olctc.cluster.slurm

    monkeypatch.setattr(olctc.cluster.slurm, "ARRAY_CHUNK", 1)
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    r = cli_here(*GRID, "--time-limit", "5", "-o", "g", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ("  submit:  bash g/submit.sh   (2 job arrays of at most 1 tasks: Slurm's default limit; or cd g && "
            'for s in submit*.slurm; do sbatch "$s"; done)\n') in r.stdout, r.stdout


def test_grid_glpk_with_one_thread_gives_no_thread_warning(tmp_path: Path) -> None:
    """glpsol runs on one thread: --threads 1 asks for nothing it leaves idle, so no warning (2 threads do get
    one). Mutant: the warning from one thread up."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    one = cli_here(*GRID, "--time-limit", "5", "--solver", "glpk-cli", "--threads", "1", "-o", "g1", cwd=tmp_path)
    assert one.returncode == 0 and "runs on one thread" not in one.stderr, one.stderr
    two = cli_here(*GRID, "--time-limit", "5", "--solver", "glpk-cli", "--threads", "2", "-o", "g2", cwd=tmp_path)
    assert two.returncode == 0 and "warning: glpsol runs on one thread: the 2 threads" in two.stderr, two.stderr


def test_grid_warns_of_a_limit_too_short_for_collects_final_fit(tmp_path: Path) -> None:
    """--time-limit 2 is enough for each task's solve (1 s) but under the final fit's least (about 2.7 s): a
    warning naming collect's --time-limit; then collect refuses the final fit before decoding, and --emit-final
    (no fit) goes on to the table. Mutants: the warning's bound lowered by a second; collect's check of the
    final fit's limit dropped, or made for --emit-final too."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    r = cli_here(*GRID, "--time-limit", "2", "-o", "g", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ("warning: --time-limit 2 s is enough for each task's solve but not for the final fit of olctc collect"
            in r.stderr), r.stderr
    fit = cli_here("collect", "g", cwd=tmp_path)
    assert (fit.returncode, fit.stdout) == (2, ""), fit.stdout
    assert "--time-limit" in fit.stderr and "no C combination" not in fit.stderr, fit.stderr
    emit = cli_here("collect", "g", "--emit-final", cwd=tmp_path)
    assert emit.returncode == 2 and "tasks: 0 of 2 scored" in emit.stdout, emit.stdout + emit.stderr
    assert emit.stderr.startswith("error: g: no C combination has every fold scored"), emit.stderr


# ---------------------------------------------------------------- collect

def test_emit_final_closing_line_cv_results_and_rerun_advice(solved: Path) -> None:
    """--emit-final (an OLCT grid, no smoothing): the closing line names the commands file and olctc solve with no
    --solver; cv_results.json has no smooth_pure_nodes key. With task 1 unsolved, its problem is recorded (best
    null, exit 2) and the error ends with the sbatch line that solves task 1 alone. Mutants: the commands file
    left out; the key always written; each task's problem dropped; the grid's task count not passed to the
    advice (an empty sbatch line)."""
    r = cli_here("collect", "g", "--emit-final", cwd=solved)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == ("then: solve it (the commands are in model.solvers.txt, or olctc solve "
                                         "g/final/model.mps -o SOLUTION) and olctc decode g/final/model.olctc.json "
                                         "SOLUTION -o tree.json")
    results = json.loads((solved / "g" / "cv_results.json").read_text())
    assert "smooth_pure_nodes" not in results and results["best"] == [1.0]
    (solved / "g" / "tasks" / "0001" / "model.highs.sol").rename(solved / "kept.sol")
    try:
        r = cli_here("collect", "g", "--emit-final", cwd=solved)
        results = json.loads((solved / "g" / "cv_results.json").read_text())
    finally:
        (solved / "kept.sol").rename(solved / "g" / "tasks" / "0001" / "model.highs.sol")
    assert r.returncode == 2 and results["best"] is None
    assert r.stderr.rstrip().endswith("only these: (cd g && sbatch --array=1 submit.slurm), or g/run_local.sh without "
                                      "Slurm"), r.stderr
    problems = [t["problem"] for t in results["tasks"]]
    assert problems[0] is None and isinstance(problems[1], str) and problems[1], problems


def test_emit_final_names_five_earlier_files_then_dots(solved: Path) -> None:
    """A second --emit-final of another instance (the score form, after the grid's paper form) names the files
    left in final/ from before, five at most then ', ...'. Mutants: every file named; the note dropped."""
    assert cli_here("collect", "g", "--emit-final", cwd=solved).returncode == 0
    final = solved / "g" / "final"
    for name in "abcdef":
        (final / f"{name}.sol").write_text("x\n")
    r = cli_here("collect", "g", "--emit-final", "--score-variables", cwd=solved)
    assert r.returncode == 0, r.stderr
    assert (f"note: {final.relative_to(solved)} also holds a.sol, b.sol, c.sol, d.sol, e.sol, ..., written before "
            "this instance") in r.stdout, r.stdout


def test_collect_final_fit_in_the_papers_form_when_asked(solved: Path) -> None:
    """collect --paper-form fits the final model in the paper's form and says so (the default is the score form),
    with the test part's balanced accuracy (the grid held 2 points out), and writes the tree to -o. Mutants: the
    score form whatever was asked; the test score left out; -o ignored."""
    r = cli_here("collect", "g", "--quiet", "--paper-form", "--time-limit", "10", "-o", "p.json", cwd=solved)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^final fit on 4 training points, the paper's form: optimal \(gap 0%\), train balanced accuracy "
                     r"\d\.\d{4}, test balanced accuracy \d\.\d{4}$", r.stdout, re.M), r.stdout
    assert r.stdout.splitlines()[-1] == "tree written to p.json" and (solved / "p.json").is_file()


def test_emit_final_of_a_miqp_grid_says_to_solve_it_with_scip(tmp_path: Path) -> None:
    """A margot-hfs grid (a MIQP: olctc solve's default HiGHS cannot solve it) solved by SCIP: --emit-final's closing
    line gives olctc solve --solver scip. Mutant: the --solver scip left out."""
    tiny_folder(tmp_path, [*GRID, "--time-limit", "5", "--preset", "margot-hfs", "--solver", "scip", "-o", "gm"])
    run_tasks_here(tmp_path / "gm")
    r = cli_here("collect", "gm", "--emit-final", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert " or olctc solve gm/final/model.mps --solver scip -o SOLUTION) and " in r.stdout.splitlines()[-1], r.stdout
