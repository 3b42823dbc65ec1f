"""A fuzz of every command's options against the bad-input rule: one line naming the option, what was
expected and what came, exit code 2, no traceback, nothing written and no existing file changed.

Every case runs in process (``olctc.cli.main``) and is refused before any solve, so the whole table is
cheap. A module fixture compiles, solves and decodes a 6-point CSV at depth 1 and makes a 2-task grid (not
solved: collect's refusals come before it decodes anything). ``tests/test_bad_inputs.py`` holds the
earlier table; the cases here are the ones it lacked: the first group failed before the fixes of this pass
(the comment of each says how), the second guards behaviour the fuzz found right.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli_main as run_main
from conftest import tiny_folder
from test_bad_inputs import snapshot

SENTINEL = "sentinel: must survive a refused command\n"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    d = tiny_folder(tmp_path_factory.mktemp("qa_fuzz"),
                    ["compile", "tiny.csv", "--target", "y", "--depth", "1", "-o", "m.mps"],
                    ["solve", "m.mps", "--solver", "highs", "--threads", "1", "--quiet"],
                    ["decode", "m.olctc.json", "m.highs.sol", "-o", "tree.json"],
                    ["grid", "tiny.csv", "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                     "--time-limit", "5", "-o", "g"])
    assert (d / "m.highs.sol").is_file() and (d / "g" / "grid.json").is_file()
    for name in ("t.json", "x.json", "p.csv"):  # outputs a refused command must leave as they are
        (d / name).write_text(SENTINEL)
    return d


HELP = "(see 'olctc {} --help')"
EMIT = ("{} applies to the final fit in process, which --emit-final does not run (it writes g/final/model.mps to "
        "solve anywhere): leave out {} or --emit-final")
FOLDER = "cannot write {}: it is a folder; give a file name"

CASES = [
    # ---- fixed in this pass
    # "-o NAME/" names a folder: Path() dropped the slash and compile wrote x.mps (exit 0), collect wrote its
    # tree into a file t.json after the final fit, solve a file s.sol, and predict failed only after reading
    # all its data, with a note line before the error.
    ("compile-output-trailing-slash", "compile tiny.csv --target y --depth 1 -o x.mps/", FOLDER.format("x.mps/")),
    ("solve-output-trailing-slash", "solve m.mps --threads 1 --quiet -o s.sol/", FOLDER.format("s.sol/")),
    ("collect-output-trailing-slash", "collect g --time-limit 5 -o t.json/", FOLDER.format("t.json/")),
    ("predict-output-trailing-slash", "predict tree.json tiny.csv -o p.csv/", FOLDER.format("p.csv/")),
    # solve -o '' (an unset $OUT) solved into m.highs.sol beside the model and replaced it (exit 0)
    ("solve-output-empty", ["solve", "m.mps", "--threads", "1", "--quiet", "-o", ""],
     "cannot write '': give a file name"),
    # solve wrote a solution under the name of another format (x.json: over a tree file)
    ("solve-output-json", "solve m.mps --threads 1 --quiet -o x.json",
     "-o x.json: solve writes a solution file, not JSON (.json is what `olctc export TREE -o x.json` writes); "
     "name it x.sol"),
    ("solve-output-mps", "solve m.mps --threads 1 --quiet -o s.mps",
     "-o s.mps: solve writes a solution file, not an MPS model (.mps is what `olctc compile DATA.csv --target "
     "COLUMN -o s.mps` writes); name it s.sol"),
    ("solve-output-csv-gz", "solve m.mps --threads 1 --quiet -o s.csv.gz",
     "-o s.csv.gz: solve writes a solution file, uncompressed, not gzip (.gz); name it s.sol"),
    # '' was taken for the current folder: "solver program /the/cwd does not exist or is not executable"
    ("solve-solver-path-empty", ["solve", "m.mps", "--solver", "cbc-cli", "--solver-path", "", "-o", "s.sol"],
     "--solver-path '' names no program: give the solver program's path"),
    # an empty input name: a traceback (solve, decode), ".: is a folder" (compile, fit, predict, export,
    # explain), or the name silently ignored (decode --data '', collect --data '')
    ("solve-model-empty", ["solve", "", "--threads", "1", "-o", "s.sol"],
     "Invalid value for 'MODEL': '' names no file. " + HELP.format("solve")),
    ("decode-manifest-empty", ["decode", "", "m.highs.sol", "-o", "o.json"],
     "Invalid value for 'MANIFEST': '' names no file. " + HELP.format("decode")),
    ("decode-solution-empty", ["decode", "m.olctc.json", "", "-o", "o.json"],
     "Invalid value for 'SOLUTION': '' names no file. " + HELP.format("decode")),
    ("decode-data-empty", ["decode", "m.olctc.json", "m.highs.sol", "--data", "", "-o", "o.json"],
     "Invalid value for '--data': '' names no file. " + HELP.format("decode")),
    ("compile-data-empty", ["compile", "", "--target", "y", "-o", "x.mps"],
     "Invalid value for '[DATA]': '' names no file. " + HELP.format("compile")),
    ("fit-data-empty", ["fit", "", "--target", "y", "-o", "o.json"],
     "Invalid value for '[DATA]': '' names no file. " + HELP.format("fit")),
    ("grid-data-empty", ["grid", "", "--target", "y", "-o", "g2"],
     "Invalid value for '[DATA]': '' names no file. " + HELP.format("grid")),
    ("predict-tree-empty", ["predict", "", "tiny.csv"], "Invalid value for 'TREE': '' names no file. "
     + HELP.format("predict")),
    ("predict-data-empty", ["predict", "tree.json", ""], "Invalid value for 'DATA': '' names no file. "
     + HELP.format("predict")),
    ("export-tree-empty", ["export", "", "--format", "text"], "Invalid value for 'TREE': '' names no file. "
     + HELP.format("export")),
    ("explain-tree-empty", ["explain", "", "--data", "tiny.csv", "--row", "0"],
     "Invalid value for 'TREE': '' names no file. " + HELP.format("explain")),
    ("explain-data-empty", ["explain", "tree.json", "--data", "", "--row", "0"],
     "Invalid value for '--data': '' names no file. " + HELP.format("explain")),
    ("collect-folder-empty", ["collect", "", "-o", "o.json"],
     "Invalid value for 'FOLDER': '' names no folder. " + HELP.format("collect")),
    ("collect-data-empty", ["collect", "g", "--data", "", "-o", "o.json"],
     "Invalid value for '--data': '' names no file. " + HELP.format("collect")),
    ("bench-report-empty", ["bench", "report", ""],
     "Invalid value for 'FOLDER': '' names no file. " + HELP.format("bench report")),
    # --emit-final fits nothing: -o was ignored (no tree written there, exit 0), and so were the final fit's
    # solver, time limit and threads
    ("collect-emit-final-with-output", "collect g --emit-final -o t.json", EMIT.format("-o", "-o")),
    ("collect-emit-final-with-solver", "collect g --emit-final --solver cbc", EMIT.format("--solver", "--solver")),
    ("collect-emit-final-with-time-limit", "collect g --emit-final --time-limit 5",
     EMIT.format("--time-limit", "--time-limit")),
    ("collect-emit-final-with-threads", "collect g --emit-final --threads 1", EMIT.format("--threads", "--threads")),
    # on a first collect (no cv_results.json yet) the tree was written over the table of scores just written
    ("collect-output-is-its-score-table", "collect g --time-limit 5 -o g/cv_results.json",
     "-o g/cv_results.json is the table of scores collect writes (g/cv_results.json); write the tree elsewhere"),

    # ---- right already: guards found by the fuzz, not in test_bad_inputs.py
    ("depth-huge", "compile tiny.csv --target y --depth 1000000000000000000000000000000 -o x.mps",
     "The 'depth' parameter (--depth) must be <= 12 (depth 1000000000000000000000000000000 has "
     "2^1000000000000000000000000000000 - 1 branch nodes and 2^999999999999999999999999999999 routing variables "
     "per point). Got 1000000000000000000000000000000 instead."),
    ("big-m-nan", "compile tiny.csv --target y --big-m nan -o x.mps",
     "The 'big_m' parameter (--big-m) must be a finite number > 0. Got nan instead."),
    ("big-m-huge", "compile tiny.csv --target y --big-m 1e308 -o x.mps",
     "The 'big_m' parameter (--big-m) must be <= 1e9: solvers do not read larger coefficients reliably (HiGHS "
     "refuses a file with a value >= 1e15). Got 1e+308 instead."),
    ("epsilon-inf", "compile tiny.csv --target y --epsilon inf -o x.mps",
     "The 'epsilon' parameter (--epsilon) must be a finite number > 0. Got inf instead."),
    ("tangents-only-plus-inf", "compile tiny.csv --target y --tangents inf -o x.mps",
     "The 'tangents' parameter (--tangents) must be a list with at least one point other than +inf. "
     "Got 'inf' instead."),
    ("tangents-nan", "compile tiny.csv --target y --tangents -inf,nan -o x.mps",
     "The 'tangents' parameter (--tangents) must be numbers or +-inf, not NaN. Got '-inf,nan' instead."),
    ("C-nan", "compile tiny.csv --target y --C nan -o x.mps",
     "The 'C' parameter (--C) must be finite and > 0 for every layer. Got 'nan' instead."),
    ("class-weight-twice", "compile tiny.csv --target y --class-weight 1=1,1=2 -o x.mps",
     "The 'class_weight' parameter (--class-weight) must be one weight per class (class 1 has two). "
     "Got '1=1,1=2' instead."),
    ("class-weight-unknown-class", "compile tiny.csv --target y --class-weight 9=1 -o x.mps",
     "The 'class_weight' parameter (--class-weight) must be weights of the classes [-1, 1] ('9' is not one). "
     "Got '9=1' instead."),
    ("weight-column-is-dropped", "compile tiny.csv --target y --weight-column a --drop a -o x.mps",
     "tiny.csv: weight column 'a' is also a column to drop; name it once"),
    ("fit-test-size-nan", "fit tiny.csv --target y --test-size nan -o o.json",
     "The 'test_size' parameter (--test-size) must be in [0, 1). Got nan instead."),
    ("fit-seed-2-to-the-32", "fit tiny.csv --target y --seed 4294967296 -o o.json",
     "The 'seed' parameter (--seed) must be an integer in [0, 4294967295]. Got 4294967296 instead."),
    ("fit-time-limit-inf", "fit tiny.csv --target y --time-limit inf -o o.json",
     "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
     "leave the option out for no limit). Got inf instead."),
    ("decode-output-trailing-slash", "decode m.olctc.json m.highs.sol -o t.json/", FOLDER.format("t.json/")),
    ("explain-row-negative", "explain tree.json --data tiny.csv --row -1",
     "--row -1 is out of range: tiny.csv has 6 data row(s) (0 to 5)"),
    ("export-output-trailing-slash", "export tree.json --format text -o x.txt/", FOLDER.format("x.txt/")),
    ("grid-mem-shell", ["grid", "tiny.csv", "--target", "y", "--mem", "4G;rm -rf /", "-o", "g2"],
     "The 'mem' parameter (--mem) must be a Slurm memory size such as '4G', '500M' or '4000' (megabytes). "
     "Got '4G;rm -rf /' instead."),
    ("grid-partition-space", ["grid", "tiny.csv", "--target", "y", "--partition", "a b", "-o", "g2"],
     "The 'partition' parameter (--partition) must be a Slurm partition name (letters, digits, '_', '-', '.'), "
     "or several with commas between them. Got 'a b' instead."),
    ("grid-olctc-cmd-unbalanced", ["grid", "tiny.csv", "--target", "y", "--olctc-cmd", "a'b", "-o", "g2"],
     "The 'olctc_cmd' parameter (--olctc-cmd) must be a command on one line, such as 'olctc' or 'python -m "
     "olctc.cli', its quotes balanced. Got \"a'b\" instead."),
    ("grid-cpus-huge", "grid tiny.csv --target y --cpus-per-task 2000 -o g2",
     "The 'cpus_per_task' parameter (--cpus-per-task) must be at most 1024 (each task's solver threads) unless "
     "--threads is given. Got 2000 instead."),
    ("grid-output-empty", ["grid", "tiny.csv", "--target", "y", "-o", ""],
     "The 'output' parameter (--output) must be a folder path (-o DIR). Got '' instead."),
    ("collect-solver-program", "collect g --solver cbc-cli -o o.json",
     "The 'solver' parameter (--solver) must be one of highs, cbc, scip, gurobi, cplex, copt, xpress for an "
     "in-process fit. "
     "Got 'cbc-cli' instead."),
    ("bench-seeds-twice", "bench models --datasets haberman --models CART --seeds 0,0 -o b",
     "The 'seeds' parameter (--seeds) must be distinct integers. Got '0,0' instead."),
    ("bench-cv-and-fixed-C", "bench models --datasets haberman --models CART --seeds 0 --cv 2 --fixed-C 1 -o b",
     "give either --cv K or --fixed-C, not both"),
    ("bench-run-timeout-nan", "bench models --datasets haberman --models CART --seeds 0 --run-timeout nan -o b",
     "The 'run_timeout' parameter (--run-timeout) must be > 0 seconds. Got nan instead."),
    ("bench-C-grid-repeat", "bench models --datasets haberman --models CART --seeds 0 --C-grid 1,1 -o b",
     "The 'C_grid' parameter (--C-grid) must be distinct numbers separated by commas. Got '1,1' instead."),
    ("bench-output-file", "bench models --datasets haberman --models CART --seeds 0 -o tiny.csv",
     "bench folder tiny.csv is a file, not a folder"),
]


def test_case_ids_are_unique():
    assert len({c[0] for c in CASES}) == len(CASES) >= 50


@pytest.mark.parametrize("args,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_in_one_line_and_nothing_touched(args, message, base, monkeypatch, capsys):
    monkeypatch.chdir(base)
    args = args.split() if isinstance(args, str) else args
    before = snapshot(base)
    code, out, err = run_main(args, capsys)
    assert "Traceback" not in err, err
    assert (code, err) == (2, f"error: {message}\n"), (code, out, err)
    # the sentinels t.json, x.json and p.csv included (not read here: a case that failed before the fixes
    # changed them for the cases after it)
    assert snapshot(base) == before, "the refused command wrote, removed or changed files"


def test_solve_still_writes_a_solution_under_a_name_of_its_own(base, tmp_path, monkeypatch, capsys):
    """The suffix check lets through what solve writes (.sol, GLPK's .txt) and names it does not know (the
    grid's `-o X.part`)."""
    monkeypatch.chdir(base)
    for name in ("s.sol", "s.txt", "s.sol.part"):
        code, out, err = run_main(["solve", "m.mps", "--threads", "1", "--quiet", "-o", tmp_path / name], capsys)
        assert code == 0, err
        assert (tmp_path / name).read_text() == (base / "m.highs.sol").read_text()


# ---------------------------------------------------------------- found, to be fixed outside the CLI files

def test_solve_of_a_device_does_not_say_it_is_missing(base, monkeypatch, capsys):
    # it said "model file /dev/null does not exist"
    monkeypatch.chdir(base)
    code, out, err = run_main(["solve", "/dev/null", "--threads", "1", "-o", "s.sol"], capsys)
    assert code == 2 and err == "error: model file /dev/null is not a regular file\n", err


def test_a_silent_solver_program_is_not_followed_by_an_empty_last_output(base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(base)
    code, out, err = run_main(["solve", "m.mps", "--solver", "cbc-cli", "--solver-path", "/bin/false",
                               "-o", tmp_path / "s.sol"], capsys)
    assert code == 2 and err.count("\n") == 1 and not err.rstrip().endswith("last output:"), err
    assert err.rstrip().endswith("wrote no solution file (exit code 1); it printed nothing"), err


def test_grid_refuses_an_empty_C_value(base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(base)
    code, out, err = run_main(["grid", "tiny.csv", "--target", "y", "--depth", "1", "--C-values", "1,,2",
                               "--folds", "2", "-o", tmp_path / "g"], capsys)
    assert code == 2 and "C_values" in err and not (tmp_path / "g").exists(), (code, err)


def test_bench_refuses_more_cv_folds_than_points(tmp_path, monkeypatch, capsys):
    # every run was recorded as scikit-learn's "Cannot have number of splits n_splits=1000000 ...", exit 0
    monkeypatch.chdir(tmp_path)
    # heart: 137 and 160 points per class, 109 of the smaller in training; haberman: 81 and 225, 65 in training
    # (the bound was the whole data set's: --cv 66 to 81 passed, and each run failed; fit says 65 too)
    for cv, least, name in (("1000000", 109, "heart"), ("66", 65, "haberman")):
        code, out, err = run_main(["bench", "models", "--datasets", "heart,haberman", "--seeds", "0", "--models",
                                   "OLCT", "--time-limit", "3", "--cv", cv, "-o", "b"], capsys)
        assert code == 2 and err == (f"error: The 'cv' parameter (--cv) must be at most {least} folds for {name} "
                                     f"(the points of the smaller class in its training part). Got "
                                     f"{cv} instead.\n") and not (tmp_path / "b").exists(), (code, err)
    code, out, err = run_main(["fit", "--dataset", "haberman", "--depth", "1", "--cv", "66", "--C-values", "1",
                               "-o", "t.json"], capsys)
    assert code == 2 and "use 65 folds or fewer (--cv 65)" in err, err


@pytest.mark.parametrize("points", ["-inf", "-inf,inf", "inf,-inf"])
def test_tangent_lists_without_a_finite_point_are_refused(points, tmp_path, monkeypatch, capsys):
    # -inf alone was accepted: the loss max(0, -y s) is 0 for the tree of zero weights, a model that says nothing
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(["compile", "--dataset", "haberman", "--depth", "1", "--tangents", points,
                               "-o", "m.mps"], capsys)
    assert code == 2 and "at least one finite point" in err and list(tmp_path.iterdir()) == [], (code, err)
