"""compile / solve / decode / fit / datasets / solvers / bench behaviour a mutation pass over cli.py, cli_process.py
and cli_bench.py (QA 2026-12-06) could change without any other test noticing. Every case runs the real CLI
(``olctc.cli.main``) on tiny.csv or a vendored data set; where an option must reach the library, a spy wraps the
library call (and still runs it) to see the value it was given."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import cli_here, tiny_folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """tiny.csv and its model m.mps compiled with every default (depth 2, HiGHS files among the others)."""
    return tiny_folder(tmp_path_factory.mktemp("core_tiny"), ["compile", "tiny.csv", "--target", "y", "-o", "m.mps"])


def _spy(monkeypatch, module, name: str) -> dict:
    """Wrap ``module.name`` so that each call's arguments land in the dict returned, the positional ones under
    "args" (the call still runs)."""
    seen: dict = {}
    real = getattr(module, name)

    def spy(*args, **kwargs):
        seen.update(kwargs, args=args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


# ---------------------------------------------------------------- reading the data: options and one-line errors

# mutant: _fail printing the message without translate(_LINE_ENDS)
def test_a_line_break_in_a_file_name_stays_on_the_error_line(tmp_path):
    """A file name holding a line break is written with the escape: the error stays one line."""
    r = cli_here("solve", "no\nsuch.mps", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: ") and "no\\nsuch.mps" in r.stderr and r.stderr.count("\n") == 1, r.stderr


# mutant: _load_data's `if not target` as `if target is None`
def test_an_empty_target_is_refused_by_name(tiny):
    """--target '' is no column: the error asks for one, as a missing --target does."""
    r = cli_here("compile", "tiny.csv", "--target", "", "-o", "e.mps", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: tiny.csv: say which column holds the class with --target COLUMN\n"


# mutant: load(dataset, None, ...): --positive-class dropped for --dataset
def test_positive_class_reaches_a_vendored_data_set(tmp_path):
    """--positive-class with --dataset: haberman's class 1 (the first in sorted order) is made +1."""
    tiny_folder(tmp_path, ["compile", "--dataset", "haberman", "--positive-class", "1", "--depth", "1",
                           "--solvers", "highs", "-o", "h.mps"])
    assert json.loads((tmp_path / "h.olctc.json").read_text())["classes"] == [2, 1]


# mutant: read_csv(max_one_hot=DEFAULT_MAX_NONZEROS): --max-nonzeros not passed to the reader
def test_max_nonzeros_bounds_the_one_hot_encoding_as_the_csv_is_read(tmp_path):
    """--max-nonzeros reaches the CSV reader: an identifier column whose one-hot encoding alone is past it is
    refused by name before it is encoded (not later, by the model's size)."""
    rows = "".join(f"id{i},{i % 7},{i % 2}\n" for i in range(3200))
    (tmp_path / "ids.csv").write_text("name,x,y\n" + rows)
    r = cli_here("compile", "ids.csv", "--target", "y", "--max-nonzeros", "1000000", "-o", "m.mps", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: ids.csv: one-hot encoding its text columns gives 3,200 features on 3,200 "
                               "rows"), r.stderr
    assert "--drop name" in r.stderr and not list(tmp_path.glob("m.*"))


# mutant: _named_option naming the longest option, not the one typed
def test_bench_names_the_C_option_typed(tmp_path):
    """A bad C grid names the option as typed: --C-values, or its other name --C-grid."""
    for option in ("--C-values", "--C-grid"):
        r = cli_here("bench", "models", option, "abc", "-o", "b", cwd=tmp_path)
        assert (r.returncode, r.stdout) == (2, "")
        assert r.stderr.startswith(f"error: The 'C_grid' parameter ({option}) must be positive numbers"), r.stderr
        assert not (tmp_path / "b").exists()


# ---------------------------------------------------------------- compile: defaults and options reaching the model

# mutant: --C default '2'; --epsilon default 1e-4 (also --tangents, --big-m)
def test_compile_defaults_are_the_papers_model(tmp_path):
    """Without options: olct, depth 2, C 1 per layer, tangents V0, big-M 100, epsilon 1e-5, the paper's form."""
    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "-o", "m.mps"])
    spec = json.loads((tmp_path / "m.olctc.json").read_text())["spec"]
    assert (spec["preset"], spec["depth"], spec["C"], spec["tangent_set"]) == ("olct", 2, [1.0, 1.0], "V0")
    assert (spec["big_m"], spec["epsilon"]) == (100.0, 1e-05)
    assert spec.get("score_variables", False) is False


# mutant: `n == ds.n` flipped in compile's points text (also killed by test_sample_weight, slower)
def test_compile_says_points_form_and_sizes(tmp_path):
    """The summary line: all 6 points, 4 features, the spec described, the paper's form."""
    tiny_folder(tmp_path)
    r = cli_here("compile", "tiny.csv", "--target", "y", "--solvers", "highs", "-o", "m.mps", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("compiled tiny (6 points, 4 features) as olct depth 2 (C 1,1, "
                                               "tangents V0), the paper's form: ")


# mutant: write_compiled(start=True); write_compiled(solvers=None) (also killed by test_params, test_solver_choice)
def test_compile_no_start_and_solvers_pick_the_files(tmp_path):
    """--no-start writes no MIP start; --solvers highs writes HiGHS's files only."""
    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "--no-start", "-o", "a.mps"],
                ["compile", "tiny.csv", "--target", "y", "--solvers", "highs", "-o", "b.mps"])
    assert not list(tmp_path.glob("a.start.*"))
    assert sorted(p.name for p in tmp_path.glob("b.*")) == ["b.highs.opt", "b.mps", "b.olctc.json",
                                                           "b.solvers.txt", "b.start.highs.sol"]


# mutant: SCORE_HINT_NNZ = 1_000
def test_no_score_variables_hint_below_a_million_nonzeros(tmp_path):
    """sonar (60 features) at depth 2 in the paper's form: score variables would halve it, but at well under a
    million nonzeros the hint would be noise: none is printed."""
    r = cli_here("compile", "--dataset", "sonar", "--no-start", "--no-params", "-o", "s.mps", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    nnz = int(re.search(r"([\d,]+) nonzeros", r.stdout)[1].replace(",", ""))
    assert 10_000 < nnz < 1_000_000 and "hint" not in r.stdout + r.stderr, r.stdout


# ---------------------------------------------------------------- solve: options reaching the solver, result line

# mutant: solve_compiled_file(time_limit=None / threads=None / verbose=True)
def test_solve_options_reach_the_solver(tiny, monkeypatch):
    """--time-limit, --threads, --no-start and --quiet are handed to the solve as given."""
    import olctc.pipeline

    seen = _spy(monkeypatch, olctc.pipeline, "solve_compiled_file")
    r = cli_here("solve", "m.mps", "--time-limit", "20", "--threads", "1", "--no-start", "--quiet", "-o", "q.sol",
                 cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert (seen["time_limit"], seen["threads"], seen["use_start"], seen["verbose"]) == (20.0, 1, False, False)


# mutant: '-' for None as '0'; gap_text(gap, 2); the bound printed as the objective
def test_solve_result_line(tiny, monkeypatch):
    """The result line: status, solver and its own status, objective, bound ('-' when unknown), the gap in 4
    significant digits, the seconds."""
    from dataclasses import replace

    import olctc.pipeline

    real = olctc.pipeline.solve_compiled_file

    def unknown_bound(*args, **kwargs):
        res, path = real(*args, **kwargs)
        return replace(res, bound=None, gap=0.0123456), path

    r = cli_here("solve", "m.mps", "--threads", "1", "--quiet", "-o", "a.sol", cwd=tiny)
    assert r.returncode == 0, r.stderr
    line = r.stdout.splitlines()[0]
    found = re.fullmatch(r"status optimal \(highs: Optimal\), objective (\S+), bound (\S+), gap 0%, \d+\.\d\d s", line)
    assert found and found[1] == found[2], line
    monkeypatch.setattr(olctc.pipeline, "solve_compiled_file", unknown_bound)
    r = cli_here("solve", "m.mps", "--threads", "1", "--quiet", "-o", "b.sol", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"status optimal \(highs: Optimal\), objective \S+, bound -, gap 1\.235%, \d+\.\d\d s",
                        r.stdout.splitlines()[0]), r.stdout


# ---------------------------------------------------------------- decode

# mutant: decode's check_not_input(output, *inputs) dropped
def test_decode_refuses_to_write_the_tree_over_its_manifest(tiny):
    """-o naming the manifest decode reads is refused, the manifest untouched."""
    assert cli_here("solve", "m.mps", "--threads", "1", "--quiet", "-o", "d.sol", cwd=tiny).returncode == 0
    before = (tiny / "m.olctc.json").read_bytes()
    r = cli_here("decode", "m.olctc.json", "d.sol", "-o", "m.olctc.json", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "") and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("error: ") and "m.olctc.json" in r.stderr
    assert (tiny / "m.olctc.json").read_bytes() == before


# ---------------------------------------------------------------- fit: options reaching the fit

# mutant: fit(threads=None / test_size=0.2 / seed=0 / verbose=True / keep_incumbent=False);
#   spec_options(score_variables=False) on fit
def test_fit_options_reach_the_fit(tiny, monkeypatch):
    """--threads, --time-limit, --test-size, --seed, --quiet and --keep-incumbent are handed to the fit as given;
    fit's default form is the score-variable one."""
    import olctc.fit

    seen = _spy(monkeypatch, olctc.fit, "fit")
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--time-limit", "30",
                 "--test-size", "0", "--seed", "3", "--quiet", "--keep-incumbent", "-o", "f.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert (seen["threads"], seen["time_limit"], seen["test_size"], seen["seed"]) == (1, 30.0, 0.0, 3)
    assert (seen["verbose"], seen["keep_incumbent"]) == (False, True)
    assert seen["args"][1].score_variables is True
    assert seen["max_nonzeros"] is None and r.stdout.splitlines()[-1] == "tree written to f.json"


# mutant: _cross_validate(jobs=1) whatever --jobs
def test_fit_cv_jobs_reach_the_cross_validation(tiny, monkeypatch):
    """--jobs J is the cross-validation's process count."""
    import olctc.cv

    seen = _spy(monkeypatch, olctc.cv, "cross_validate")
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--cv", "2", "--C-values", "1",
                 "--jobs", "2", "--test-size", "0", "--quiet", "-o", "cv.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert seen["jobs"] == 2


# mutant: _check_cv_options without check_jobs / check_scoring
@pytest.mark.parametrize("option,value", [("--jobs", "0"), ("--scoring", "nope")])
def test_fit_cv_options_are_checked_before_the_data_is_read(tmp_path, option, value):
    """A bad --jobs or --scoring is the error even when the data file does not exist: checked first."""
    r = cli_here("fit", "missing.csv", "--target", "y", "--cv", "2", option, value, "-o", "t.json", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: The ") and f"({option})" in r.stderr and "missing.csv" not in r.stderr, \
        r.stderr


# ---------------------------------------------------------------- datasets, solvers, the program's own exits

# mutant: datasets printing the two classes' labels swapped
def test_datasets_lists_each_class_with_its_count():
    """Each line: name, rows, features, then the first class with its count, the second (+1) with its count."""
    r = cli_here("datasets")
    assert r.returncode == 0, r.stderr
    lines = {line.split()[0]: line for line in r.stdout.splitlines()[1:]}
    assert lines["heart"].split() == ["heart", "297", "13", "0:", "160,", "1:", "137"]
    assert lines["haberman"].split() == ["haberman", "306", "3", "1:", "225,", "2:", "81"]


# mutant: solvers --json writing the first solver only
def test_solvers_json_lists_every_solver_of_the_table():
    """--json: one object per solver the table lists, in the same order."""
    table, js = cli_here("solvers"), cli_here("solvers", "--json")
    assert table.returncode == js.returncode == 0
    names = [line.split()[0] for line in table.stdout.splitlines()[1:] if not line.split()[0].endswith(":")]
    assert [d["name"] for d in json.loads(js.stdout)] == names


# mutant: bare `olctc` exiting 0 after the help
def test_bare_olctc_prints_the_help_and_exits_2():
    """`olctc` alone: the help text (not an error line), exit 2."""
    r = cli_here()
    assert r.returncode == 2
    assert "Usage: olctc" in r.stdout + r.stderr and "error:" not in r.stderr


# mutant: the usage error's " (see 'olctc COMMAND --help')" dropped
def test_a_usage_error_names_the_commands_help():
    """A click usage error is one line naming `olctc COMMAND --help`."""
    r = cli_here("compile", "--depth", "x")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.endswith(" (see 'olctc compile --help')\n") and r.stderr.count("\n") == 1, r.stderr


# mutant: MemoryError's exit code 1 as 2
def test_out_of_memory_is_one_line_exit_1(monkeypatch):
    """A MemoryError is one line that says what could not be allocated, exit 1, no traceback."""
    import olctc.datasets

    def no_memory():
        raise MemoryError("Unable to allocate 8.00 GiB for an array")

    monkeypatch.setattr(olctc.datasets, "dataset_names", no_memory)
    r = cli_here("datasets")
    assert r.returncode == 1
    assert r.stderr.startswith("error: out of memory (Unable to allocate 8.00 GiB for an array); ")
    assert r.stderr.count("\n") == 1


# ---------------------------------------------------------------- bench

# mutant: bench --time-limit default 60; fixed_C default '1'; --threads default 2
def test_bench_defaults_are_recorded(tmp_path):
    """bench's defaults reach its options (bench.json): 300 s per fit, the authors' C anchors, one thread."""
    r = cli_here("bench", "models", "--datasets", "haberman", "--models", "CART", "--seeds", "0", "-o", "b",
                 cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    options = json.loads((tmp_path / "b" / "bench.json").read_text())["options"]
    assert (options["time_limit"], options["fixed_C"], options.get("threads", 1)) == (300.0, "anchors", 1)
