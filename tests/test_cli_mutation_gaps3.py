"""compile / solve / decode / fit / grid behaviour of cli.py that a third mutation pass over it (qa195, QA 2026-12-07)
found no test pinning: which words and numbers an error line holds, which option it names, which lines a command
says and where. Every case runs the real CLI in process (``olctc.cli.main`` through conftest's cli_here) on tiny.csv
with real HiGHS solves; the mutant each test kills is named in its docstring (ids as in the pass's commit message)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_here
from test_bad_inputs import snapshot
from test_cli_mutation_gaps2 import WEIGHTED_CSV, _refused, tiny  # noqa: F401  (tiny: a module fixture, by name)


def _duplicate_column_tree(tiny: Path) -> str:
    """t1.json with its second column renamed to the first's ('a'), as a hand edit would: the name of the copy."""
    tree = json.loads((tiny / "t1.json").read_text())
    tree["columns"][1]["name"] = tree["feature_names"][1] = "a"
    (tiny / "dup.json").write_text(json.dumps(tree))
    return "dup.json"


# ---------------------------------------------------------------- one-line errors: their words

def test_an_empty_folder_argument_is_called_no_folder(tiny: Path) -> None:  # noqa: F811
    """`collect ''` names no folder, `solve ''` no file: the word follows what the argument takes. Mutant m02: the
    words swapped."""
    _refused(cli_here("collect", "", cwd=tiny), "Invalid value for 'FOLDER': '' names no folder.")
    _refused(cli_here("solve", "", cwd=tiny), "Invalid value for 'MODEL': '' names no file.")


def test_a_carriage_return_in_a_file_name_is_escaped(tiny: Path) -> None:  # noqa: F811
    """A carriage return in a file name is written as \\r: a terminal would otherwise overwrite the start of the
    error line with the rest. Mutant m03: 0x0D left out of the line ends."""
    _refused(cli_here("solve", "no\rsuch.mps", cwd=tiny), "no\\rsuch.mps: no such model file")


def test_a_parameter_error_names_the_long_option_when_the_short_one_was_typed(tiny: Path) -> None:  # noqa: F811
    """grid -o ' ' is refused naming --output, not -o: the longest name when no long one was typed. Mutant m07:
    the shortest name."""
    _refused(cli_here("grid", "tiny.csv", "--target", "y", "--C-values", "1,10", "-o", " ", cwd=tiny),
             "The 'output' parameter (--output) must be a folder path (-o DIR). Got ' ' instead.")


def test_drop_repeated_names_the_repeated_column(tiny: Path) -> None:  # noqa: F811
    """--drop a --drop b --drop b names b, the column given twice, not the first one given. Mutant m12."""
    _refused(cli_here("compile", "tiny.csv", "--target", "y", "--drop", "a", "--drop", "b", "--drop", "b", "-o",
                      "dr.mps", cwd=tiny),
             "--drop names column 'b' twice: give each column once")


def test_a_tree_with_two_columns_of_one_name_warns_naming_both(tiny: Path) -> None:  # noqa: F811
    """A --start-tree whose columns 0 and 1 are both named 'a' is used, with a warning naming them in order.
    Mutant m15: the two column numbers swapped."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "--start-tree",
                 _duplicate_column_tree(tiny), "-o", "dup.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert "warning: dup.json: columns 0 and 1 are both named 'a': both read that one input column" in r.stderr


# ---------------------------------------------------------------- compile

def test_compile_takes_a_start_tree_when_glpk_is_one_of_the_solvers(tiny: Path) -> None:  # noqa: F811
    """--solvers glpk,highs with --start-tree is taken: HiGHS reads the MIP start glpsol cannot. Mutant m20: refused
    whenever glpk is among the solvers."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "glpk,highs", "--start-tree",
                 "t1.json", "-o", "gh.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert (tiny / "gh.glpk.args").is_file() and (tiny / "gh.start.highs.sol").is_file()


def test_compile_says_how_it_made_the_start_tree_a_mip_start(tiny: Path) -> None:  # noqa: F811
    """A start tree whose root scores beyond big-M is scaled, and compile says so, one line per change. Mutant m27:
    the adjustment lines dropped."""
    from olctc import Tree

    names = json.loads((tiny / "t1.json").read_text())["feature_names"]
    W = [[1e4] + [0.0] * (len(names) - 1)] + [[0.0] * len(names)] * 2
    Tree.from_arrays(W, [-5e3, 0.0, 0.0], feature_names=names, classes=(-1, 1)).save(tiny / "huge.json")
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "2", "--solvers", "highs", "--start-tree",
                 "huge.json", "-o", "hg.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    made = [line for line in r.stdout.splitlines() if line.startswith("  made a MIP start: ")]
    assert len(made) == 1 and made[0].startswith("  made a MIP start: node 0: (w, b) scaled by "), r.stdout
    assert made[0].endswith("(big-M 100)")


def test_compile_over_a_broken_manifest_replaces_it_quietly(tiny: Path) -> None:  # noqa: F811
    """An unreadable manifest (not JSON) or one whose model file is not a name is replaced without a traceback or
    a note about another model. Mutants m30 (ValueError escaping) and m31 (a non-name taken for a model)."""
    (tiny / "bj.olctc.json").write_text("{not json")
    (tiny / "bn.olctc.json").write_text(json.dumps({"model": {"file": 5}}))
    for stem in ("bj", "bn"):
        r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o",
                     f"{stem}.mps", cwd=tiny)
        assert (r.returncode, r.stderr) == (0, ""), r.stderr
        assert json.loads((tiny / f"{stem}.olctc.json").read_text())["model"]["file"] == f"{stem}.mps"


def test_compile_says_its_sizes_and_lists_the_files_in_one_column(tiny: Path) -> None:  # noqa: F811
    """The summary counts the integer columns (tiny's depth-1 model: 6 z of 25 columns), then each file written is
    said as its role padded to the longest role, then its path: the paths line up. Mutants m25 (every column
    counted as integer) and m32 (no padding)."""
    import highspy

    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "highs", "-o", "col.mps",
                 cwd=tiny)
    assert r.returncode == 0, r.stderr
    h = highspy.Highs()
    h.silent()
    h.readModel(str(tiny / "col.mps"))
    integer = sum(t == highspy.HighsVarType.kInteger for t in h.getLp().integrality_)
    assert integer == 6 and r.stdout.splitlines()[0].endswith(": 22 rows, 25 columns (6 integer), 90 nonzeros")
    assert r.stdout.splitlines()[1:6] == ["  model           col.mps", "  params:highs    col.highs.opt",
                                          "  params:solvers  col.solvers.txt", "  start:highs     col.start.highs.sol",
                                          "  manifest        col.olctc.json"]


def test_compile_writes_min_leaf_into_the_model(tiny: Path) -> None:  # noqa: F811
    """--min-leaf reaches the spec compiled: the summary and the manifest say min leaf 2. Mutant m95: min_leaf
    left at 0."""
    r = cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--min-leaf", "2", "--solvers", "highs",
                 "-o", "ml.mps", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert "(C 1, tangents V0, min leaf 2)" in r.stdout.splitlines()[0]
    assert json.loads((tiny / "ml.olctc.json").read_text())["spec"]["min_leaf"] == 2


def test_score_variables_hint_from_a_million_nonzeros_on() -> None:
    """A model of exactly SCORE_HINT_NNZ nonzeros gets the hint, one fewer does not: the threshold is the first
    size hinted at. Mutant m33: `<` as `<=`."""
    from olctc.cli import SCORE_HINT_NNZ, _score_variables_hint, _spec

    spec = _spec("olct", 2, "1", "V0", 100.0, 1e-5, 1.0, None)  # 2000 x 40 in the score form: 296,360 nonzeros
    assert _score_variables_hint(2000, 40, spec, SCORE_HINT_NNZ - 1) is None
    assert _score_variables_hint(2000, 40, spec, SCORE_HINT_NNZ) == (
        "hint: --score-variables would write about 296,360 instead of 1,000,000 nonzeros (same optimum, a 3.4x "
        "smaller file)")


# ---------------------------------------------------------------- solve

def test_solve_refuses_a_solver_path_of_spaces(tiny: Path) -> None:  # noqa: F811
    """--solver-path '  ' (a variable holding blanks) names no program and is refused as such, before any solve.
    Mutant m38: only '' refused."""
    _refused(cli_here("solve", "m.mps", "--solver", "cbc-cli", "--solver-path", "  ", "-o", "sp.sol", cwd=tiny),
             "--solver-path '  ' names no program: give the solver program's path")
    assert not (tiny / "sp.sol").exists()


def test_solve_says_the_result_and_the_default_solution_path_only(tiny: Path) -> None:  # noqa: F811
    """A finished solve without -o says two lines: the result, its objective in 10 significant digits (HiGHS's
    solution file holds 16), then the solution file it named beside the model (no 'was left' line: the solver was
    not left running). Mutants m43 (the left-running test flipped), m44 (the -o value, None, said as the path)
    and m82 (6 digits)."""
    r = cli_here("solve", "m.mps", "--threads", "1", "--quiet", cwd=tiny)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    lines = r.stdout.splitlines()
    objective = float(re.search(r"^Objective (\S+)$", (tiny / "m.highs.sol").read_text(), re.M)[1])
    assert len(lines) == 2 and lines[0].startswith(f"status optimal (highs: Optimal), objective {objective:.10g}, "
                                                   f"bound "), lines
    assert lines[1] == "solution written to m.highs.sol"


def test_solve_refuses_an_empty_output_name(tiny: Path) -> None:  # noqa: F811
    """-o '' (an unset variable) is refused before the solve, not taken for the default NAME.SOLVER.sol. Mutant
    m37: the file name check dropped."""
    before = snapshot(tiny)
    _refused(cli_here("solve", "m.mps", "--quiet", "-o", "", cwd=tiny), "cannot write '': give a file name")
    assert snapshot(tiny) == before


def test_solve_of_an_infeasible_model_exits_1(tmp_path: Path) -> None:
    """A model with no solution: one error line and exit 1 (NoSolution's code), not the bad-input 2. Mutant m88:
    every OlctcError exits 2."""
    (tmp_path / "inf.lp").write_text("Minimize\n obj: x\nSubject To\n c1: x >= 2\nBounds\n 0 <= x <= 1\n"
                                     "Generals\n x\nEnd\n")
    r = cli_here("solve", "inf.lp", "--quiet", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "error: highs found no solution (Infeasible); nothing written\n"


def test_solve_by_the_cbc_program_warns_of_its_optimum(tiny: Path) -> None:  # noqa: F811
    """cbc-cli's "optimal" gets the CBC caveat on standard error, as the in-process cbc's does. Mutant m79: only
    --solver cbc warned."""
    assert cli_here("compile", "tiny.csv", "--target", "y", "--depth", "1", "--solvers", "cbc", "-o", "cb.mps",
                    cwd=tiny).returncode == 0
    r = cli_here("solve", "cb.mps", "--solver", "cbc-cli", "--quiet", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("status optimal (cbc-cli: Optimal)")
    assert r.stderr.startswith("note: CBC proves false optima on these models") and r.stderr.count("\n") == 1


def test_solve_by_cbc_stopped_on_time_says_no_caveat(tmp_path: Path) -> None:
    """CBC stopped by its 3 s limit on heart at depth 2 (a 70% gap after 1 s; with a 1 s limit it had at times not
    yet taken up the MIP start, and found nothing) reports 'feasible': the caveat about its 'optimal' is not said.
    Mutant m80: the caveat after any CBC status."""
    assert cli_here("compile", "--dataset", "heart", "--depth", "2", "--solvers", "highs", "-o", "h.mps",
                    cwd=tmp_path).returncode == 0
    r = cli_here("solve", "h.mps", "--solver", "cbc", "--time-limit", "3", "--threads", "1", "--quiet",
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("status feasible (cbc: FEASIBLE, stopped on time)"), r.stdout
    assert "CBC proves false optima" not in r.stdout + r.stderr


# ---------------------------------------------------------------- decode

def test_decode_checks_the_format_before_reading_the_manifest(tiny: Path) -> None:  # noqa: F811
    """A bad --format is named even when the manifest is missing too: options first, files after. Mutant m49: the
    format check left to the decode, after the manifest."""
    _refused(cli_here("decode", "nosuch.olctc.json", "m.sol", "--format", "nope", "-o", "nf.json", cwd=tiny),
             "The 'format' parameter (--format) must be one of ")


# ---------------------------------------------------------------- fit

def test_fit_refuses_to_write_over_a_vendored_data_set(tiny: Path) -> None:  # noqa: F811
    """fit --dataset heart -o naming heart's own file is refused as the input, before its suffix is looked at.
    Mutant m58: the vendored file not among the inputs."""
    from olctc.datasets import dataset_path

    heart = dataset_path("heart")
    before = heart.read_bytes()
    _refused(cli_here("fit", "--dataset", "heart", "-o", heart, cwd=tiny), f"-o {heart} is also the input data")
    assert heart.read_bytes() == before


def test_fit_takes_a_start_tree_but_not_with_cv(tiny: Path) -> None:  # noqa: F811
    """fit --start-tree is taken and says the tree started it; with --cv it is refused before any fit. Mutant m61:
    the --cv test flipped (every --start-tree refused, and taken with --cv)."""
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--start-tree", "t1.json", "--threads", "1",
                 "--quiet", "-o", "st.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert "objective: warm start (start tree) " in r.stdout
    _refused(cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--start-tree", "t1.json", "--cv", "2",
                      "-o", "sc.json", cwd=tiny),
             "--start-tree does not apply with --cv: a tree fitted on these points would start the fold fits")
    assert not (tiny / "sc.json").exists()


def test_fit_with_too_short_a_time_limit_is_one_line(tiny: Path) -> None:  # noqa: F811
    """fit --time-limit 1e-6 (no --cv) is refused as leaving no time, in the fit's own words, one line. Mutant m63:
    the --cv rewording applied without --cv (an AttributeError on the missing choice)."""
    _refused(cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--time-limit", "1e-6", "--quiet", "-o",
                      "tl.json", cwd=tiny),
             "a time limit of 1e-06 s leaves no time to solve: decoding, refinement and the solver's overrun need "
             "a reserve: give at least 3 s")


def test_fit_without_cv_names_the_first_cv_option_given(tiny: Path) -> None:  # noqa: F811
    """--C-values and --scoring without --cv: the error names --C-values, the first in the options' order, and
    offers --C. Mutant m67: the last one named."""
    _refused(cli_here("fit", "tiny.csv", "--target", "y", "--C-values", "1,10", "--scoring", "accuracy", "-o",
                      "x.json", cwd=tiny),
             "--C-values 1,10 applies to cross-validation only: add --cv K (such as --cv 4) to choose C among "
             "--C-values, or give one C with --C")


def test_fit_cv_checks_the_C_values_before_reading_the_data(tiny: Path) -> None:  # noqa: F811
    """fit --cv --C-values nope names the C values even when the data file is missing. Mutant m71: the C values
    checked only by the cross-validation, after the data."""
    _refused(cli_here("fit", "nosuch.csv", "--target", "y", "--cv", "2", "--C-values", "nope", "-o", "x.json",
                      cwd=tiny),
             "The 'C_values' parameter (--C-values) must be numbers separated by commas")


# ---------------------------------------------------------------- fit --cv

def _cv_fit(folder: Path, solver: str) -> tuple[list[str], str, dict]:
    """fit --cv 2 over C 1 and 10 of w.csv (WEIGHTED_CSV, weights in column w) by ``solver``, no test part: the
    lines said, standard error, and the cross-validation the tree records."""
    (folder / "w.csv").write_text(WEIGHTED_CSV)
    r = cli_here("fit", "w.csv", "--target", "y", "--weight-column", "w", "--depth", "1", "--cv", "2", "--C-values",
                 "1,10", "--test-size", "0", "--solver", solver, "--quiet", "--threads", "1", "-o", f"{solver}.json",
                 cwd=folder)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines(), r.stderr, json.loads((folder / f"{solver}.json").read_text())["meta"]["cv"]


def test_fit_cv_by_cbc_says_the_choice_and_warns_of_cbc_after_the_final_fit(tmp_path: Path) -> None:
    """fit --cv by CBC: the best-C line names the default score (balanced accuracy), the folds and the weight column;
    the fold fits' CBC caveat is said on standard output and the final fit's on standard error; the tree records
    the cross-validation. Mutants m64 (cv left out of the tree), m65 (fit's CBC note dropped), m72 (accuracy as
    the default score), m76 (weight column left out), m77 (folds + 1)."""
    lines, err, cv = _cv_fit(tmp_path, "cbc")
    best = [line for line in lines if line.startswith("best C: ")]
    assert len(best) == 1 and best[0].startswith("best C: 1 (mean validation balanced accuracy 0.5833 over 2 folds, "
                                                 "points weighted by column 'w'; cross-validation took "), best
    assert lines.index(best[0]) == lines.index(
        "note: the fold fits CBC called optimal may not be (CBC proves false optima on these models): their scores "
        "are those of feasible trees; HiGHS (the default) proves its optima") + 1
    assert err.startswith("note: CBC proves false optima on these models") and err.count("\n") == 1, err
    assert (cv["folds"], cv["scoring"], cv["C"], cv["C_values"]) == (2, "balanced_accuracy", [1.0], [1.0, 10.0])


def test_fit_cv_by_highs_says_nothing_of_cbc(tmp_path: Path) -> None:
    """fit --cv by HiGHS, every fold fit optimal: no CBC caveat, on either stream. Mutant m75: the caveat's `and`
    as `or`."""
    lines, err, _ = _cv_fit(tmp_path, "highs")
    assert err == "" and not [line for line in lines if "CBC" in line], lines



def test_decode_refuses_another_formats_suffix_before_reading_the_manifest(tiny: Path) -> None:  # noqa: F811
    """-o t.csv is refused for its suffix even when the manifest is missing: the output's name is checked before
    any input is read. Mutants m51 (an unreadable manifest's error raised at once) and m53 (the suffix check
    dropped)."""
    _refused(cli_here("decode", "nosuch.olctc.json", "m.sol", "-o", "t.csv", cwd=tiny),
             "-o t.csv: decode writes a tree file (JSON), not CSV")


def test_decode_of_a_glpsol_solution_that_routes_a_point_for_free_exits_3(tmp_path: Path) -> None:
    """glpsol (integrality tolerance 1e-5, no flag to tighten it) routes a point of this 5-point model for free:
    decode writes the tree, warns, and exits 3, neither 0 nor the bad-input 2 (test_decode_edges' instance, here
    through compile, solve --solver glpk-cli and decode). Mutants m55 (exit 2), m56 (exit 0), m57 (EXIT_TOLERANCE
    1)."""
    (tmp_path / "g.csv").write_text("a,b,y\n0.5,-1.25,1\n1.5,0.75,-1\n-0.25,2.0,1\n-1.0,-0.5,-1\n2.0,1.0,-1\n")
    for args in (["compile", "g.csv", "--target", "y", "--C", "1,0.5", "--tangents", "V1", "--solvers", "glpk",
                  "-o", "g.mps"], ["solve", "g.mps", "--solver", "glpk-cli", "--quiet", "-o", "g.txt"]):
        r = cli_here(*args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = cli_here("decode", "g.olctc.json", "g.txt", "-o", "g.json", cwd=tmp_path)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "WARNING: the solver's objective is not the tree's true objective" in r.stdout
    assert r.stdout.endswith("tree written to g.json\n") and (tmp_path / "g.json").is_file()



# ---------------------------------------------------------------- the process's own streams

@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_standard_output_is_one_line_naming_the_cause(tmp_path: Path) -> None:
    """`olctc datasets > /dev/full`: one error line giving the system's words for the failure, not Python's
    '[Errno 28] ...' form, and exit 2. Mutant m87: the exception printed instead of its strerror."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "olctc.cli", "datasets"], stdout=full, stderr=subprocess.PIPE,
                           text=True, cwd=tmp_path, timeout=120)
    assert (p.returncode, p.stderr) == (2, "error: cannot write standard output: No space left on device\n")



def test_out_of_memory_folds_a_multi_line_detail_into_the_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A MemoryError whose text spans lines (as numpy's can, with the shape on a line of its own) is said with its
    whitespace runs made single spaces, exit 1 (test_cli_core_mutation_gaps' spy, a multi-line text here).
    Mutant m89: the text kept as it is (an escaped line break and a double space in the error line)."""
    import olctc.datasets

    def no_memory() -> list[str]:
        raise MemoryError("Unable to allocate 8.00 GiB\n  for an array with shape (1000000, 1000)")

    monkeypatch.setattr(olctc.datasets, "dataset_names", no_memory)
    r = cli_here("datasets")
    assert r.returncode == 1
    assert r.stderr.startswith("error: out of memory (Unable to allocate 8.00 GiB for an array with shape "
                               "(1000000, 1000)); free memory or make the job smaller"), r.stderr


def test_a_usage_error_keeps_the_spaces_of_the_name_it_quotes(tmp_path: Path) -> None:
    """A folder named 'a  b.mps' given as the model: the error quotes that name, both spaces kept, and a line break
    in a name is escaped, the error still one line. Defect fixed in this pass: every run of whitespace in click's
    message was made one space ('a b.mps', a name that is not there; a line break shown as a space). Also mutant
    m91's ground (the collapse)."""
    (tmp_path / "a  b.mps").mkdir()
    (tmp_path / "x\ny.mps").mkdir()
    _refused(cli_here("solve", "a  b.mps", cwd=tmp_path),
             "Invalid value for 'MODEL': File 'a  b.mps' is a directory. (see 'olctc solve --help')")
    _refused(cli_here("solve", "x\ny.mps", cwd=tmp_path),
             "Invalid value for 'MODEL': File 'x\\ny.mps' is a directory. (see 'olctc solve --help')")
