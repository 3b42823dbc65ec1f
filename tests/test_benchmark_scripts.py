"""The hand-run scripts of benchmarks/ still run against the package, each at its smallest size.

Nothing else runs them (docs/BENCHMARKS.md quotes their output), so a renamed function or option would
only show the next time someone measures. Each test runs one script as docs/BENCHMARKS.md does, in a
fresh interpreter, with its own options turned down (a small vendored data set, one repeat, depth 1 or
2, time limits of 5 s), and checks a line the script prints. The numbers themselves are not checked.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("benchmark_scripts")

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _run(cwd: Path, name: str, *args: str, timeout: float = 300) -> str:
    """benchmarks/NAME ARGS in a fresh interpreter, run in ``cwd``; its standard output."""
    res = subprocess.run([sys.executable, str(BENCHMARKS / name), *args], cwd=cwd, capture_output=True, text=True,
                         timeout=timeout)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    return res.stdout


def _table_rows(out: str, first: str) -> list[list[str]]:
    """The cells of the markdown rows whose first cell is ``first``."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in out.splitlines()
            if line.startswith("|")]
    return [r for r in rows if r[0] == first]


# ---- no solver -------------------------------------------------------------------------------------------

def test_onnx_speed(tmp_path):
    out = _run(tmp_path, "onnx_speed.py", "--rows", "1000", "--depths", "1,2", "--repeat", "1")
    assert len(re.findall(r"^depth [12]: olctc .* ratio olctc/sklearn \d+\.\d\d$", out, re.M)) == 2, out


def test_predict_speed(tmp_path):
    out = _run(tmp_path, "predict_speed.py", "--rows", "1000", "--depths", "1", "--repeat", "1")
    assert re.search(r"^\| breast \| 1,000 x 30 \| 1 \| \d+ \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+ \|$", out, re.M), out
    assert re.search(r"^\| a6a \| 11,220 x 123 \| 1 \|", out, re.M), out


def test_predict_depth(tmp_path):
    out = _run(tmp_path, "predict_depth.py", "--depths", "2,6", "--rows", "100", "--features", "5", "--repeat", "1")
    assert out.startswith("# ") and "olctc from the installed package; 100 rows x 5 features, density 0.5" in out
    assert len(re.findall(r"^depth [26]: \d+\.\d{3} s, peak \d+ MB$", out, re.M)) == 2, out


def test_wide_files(tmp_path):
    out = _run(tmp_path, "wide_files.py", "--widths", "50", "--repeat", "1")
    assert re.search(r"^P = 50: read_csv of 50 text columns \d+\.\d\d s; Tree.load of 50 columns \d+\.\d\d s$",
                     out, re.M), out


def test_emit_speed(tmp_path):
    out = _run(tmp_path, "emit_speed.py", "--points", "100", "--features", "10", "--repeat", "1", "--breakdown",
               "--dir", str(tmp_path))
    for values in ("few", "many"):
        for writer in ("mps", "lp"):
            assert re.search(rf"^\[{values}\] write_{writer}: [\d.]+ s median of 1 .* MB/s", out, re.M), out
            assert f"[{values}]   {writer} breakdown (CPU s): assemble bytes" in out


def test_csv_memory(tmp_path):
    out = _run(tmp_path, "csv_memory.py", "--sizes", "200x5", "--text", "100", "--repeat", "1",
               "--workdir", str(tmp_path / "files"))
    assert out.startswith("module: installed; baseline (interpreter and imports):")
    assert re.search(r"^numeric +200x5 .* [0-9a-f]{12}$", out, re.M), out
    assert re.search(r"^text +100x14 .* [0-9a-f]{12}$", out, re.M), out


def test_predict_memory_with_check_pass(tmp_path):
    out = _run(tmp_path, "predict_memory.py", "--rows", "500", "--datasets", "heart,tic-tac-toe", "--repeat", "1",
               "--work", str(tmp_path / "work"), "--stdout", "--check-pass")
    for name in ("heart", "tic-tac-toe"):
        rows = {r[4]: r for r in _table_rows(out, name)}
        assert set(rows) == {"-o", "stdout", "check pass"}, out
        # the same predictions whether written with -o or to standard output
        assert re.fullmatch(r"[0-9a-f]{12}", rows["-o"][7]) and rows["-o"][7] == rows["stdout"][7], out


def test_warm_start_speed(tmp_path):
    out = _run(tmp_path, "warm_start_speed.py", "--datasets", "a6a", "--depths", "1", "--repeat", "1")
    assert re.search(r"^\| a6a \| 1 \| 8\.0% \| [\d.]+ / [\d.]+ s \| [\d.]+x \| [\d.]+ / [\d.]+ \|", out, re.M), out


def test_compile_speed_with_python_mip(tmp_path):
    # the three python-mip styles; `model` is benchmarks/mip_olct.py, which must build olctc's model
    out = _run(tmp_path, "compile_speed.py", "--dataset", "heart", "--depths", "1", "--mip-depth", "1",
               "--repeat", "1")
    first = re.search(r"^heart depth 1, inline: ([\d,]+) rows, ([\d,]+) cols, ([\d,]+) nonzeros", out, re.M)
    assert first and "heart depth 1, scores:" in out, out
    for style in ("LinExpr", "xsum", "model"):
        assert re.search(rf"^  python-mip {style} +total [\d.]+ s .* -> olctc is [\d.]+x faster", out, re.M), out
    assert f"[{first[1]} rows, {first[2]} cols, {first[3]} nonzeros]" in out  # python-mip's model: olctc's size


def test_compile_speed_against_a_baseline_tree(tmp_path):
    root = str(BENCHMARKS.parent)
    out = _run(tmp_path, "compile_speed.py", "--dataset", "heart", "--depths", "1", "--mip-depth", "",
               "--repeat", "1", "--forms", "inline", "--baseline", root, "--pause", "0", "--command")
    assert f"(the same bytes: {root})" in out, out
    for command in ("olctc compile", "olctc compile --no-start"):  # the command as typed, its files compared
        assert re.search(rf"^  command +{command}: [\d.]+ s, .* -> [\d.]+x \(the same files\)$", out, re.M), out


# ---- scaling.py's steps; a bench folder, and the scripts that read one -------------------------------------

@pytest.fixture(scope="module")
def scaling(tmp_path_factory):
    """scaling.py's steps (--list), then every one at its smallest size in one run (one interpreter for all).
    Its bench_report step first makes its template: `olctc bench models` on heart, seed 0, OLCT and CART, 5 s;
    made in a folder that does not exist yet. The steps, the run's output, its JSON results and the bench folder."""
    root = tmp_path_factory.mktemp("bench")
    steps = _run(root, "scaling.py", "--list").split()
    folder = root / "new" / "bench0"
    out = _run(root, "scaling.py", "--steps", ",".join(steps), "--sizes", "0", "--no-memory",
               "--scratch", str(root / "scratch"), "--json", str(root / "s.json"), "--bench-template", str(folder))
    return steps, out, json.loads((root / "s.json").read_text()), folder


@pytest.fixture(scope="module")
def bench(scaling):
    """scaling.py's output, and the bench folder its bench_report step made."""
    return scaling[1], scaling[3]


def test_scaling_steps(scaling):
    steps, out, results, _ = scaling
    assert "read_solution_highs" in steps and "admissible_l0" in steps and "bench_report" in steps
    assert [r["step"] for r in results] == steps
    assert re.search(r"^refine +n=2000 +\d+\.\d{4}", out, re.M), out


def test_scaling_bench_report_makes_its_template(bench):
    out, folder = bench
    assert re.search(r"^bench_report +n_datasets=100 +\d+\.\d{4}", out, re.M), out
    assert (folder / "runs.jsonl").is_file()


def test_compare_benches(bench, tmp_path):
    folder = bench[1]
    shutil.copytree(folder, tmp_path / "other")
    out = _run(tmp_path, "compare_benches.py", str(folder), str(tmp_path / "other"))
    assert re.search(r"^\| heart \(1 seeds\) \| [\d.]+ \| [\d.]+ \| \*\*[\d.]+\*\* \| 1 / 0 \|", out, re.M), out
    assert "objective of other against bench0, 1 pairs: lower 0, higher 0, equal 1; geometric mean ratio 1.000" in out


def test_peers_odtlearn_table(bench, tmp_path):
    # --table: the bench's tables only, no FlowOCT run (that needs ODTlearn's own venv: run it by hand)
    out = _run(tmp_path, "peers_odtlearn.py", str(bench[1]), "--odtlearn-python", sys.executable, "--table")
    assert re.search(r"^\| heart \| OLCT \| 1 \| [\d.]+ \|", out, re.M), out


# ---- fits (5 s time limits, or depth 1, which HiGHS solves at once) -----------------------------------------

def test_fit_overrun(tmp_path):
    out = _run(tmp_path, "fit_overrun.py", "--runs", "heart:1:olct:highs:5", "--repeat", "1")
    assert re.search(r"^heart:1:olct:highs:5: wall [\d.]+ s \(overrun [+-][\d.]+ s\); solver highs", out, re.M), out
    assert re.search(r"^heart:1:olct:highs:5: median wall [\d.]+ s, overrun [+-][\d.]+ s$", out, re.M), out


def test_highs_heuristic_effort_run_and_compare(tmp_path):
    out = _run(tmp_path, "highs_heuristic_effort.py", "run", "--effort", "0.3", "--time-limit", "5", "--seeds", "0",
               "--datasets", "heart")
    rec = json.loads(out)
    assert rec["effort"] == 0.3 and rec["ds"] == "heart" and rec["status"] in ("optimal", "feasible"), rec
    (tmp_path / "a.jsonl").write_text(out)
    out = _run(tmp_path, "highs_heuristic_effort.py", "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "a.jsonl"))
    assert "second setting: better on 0, worse on 0, same on 1 of 1 fits" in out, out


def test_highs_presolve_rules_run_and_compare(tmp_path):
    out = _run(tmp_path, "highs_presolve_rules.py", "run", "--rules-off", "16384", "--preset", "oct-h", "--time-limit",
               "6", "--seeds", "0", "--datasets", "heart")  # 3 s: refused on a loaded machine (building took 0.3 s)
    rec = json.loads(out)
    assert (rec["rules_off"], rec["preset"], rec["ds"]) == (16384, "oct-h", "heart") and rec["obj"] >= rec["bound"]
    (tmp_path / "a.jsonl").write_text(out)
    out = _run(tmp_path, "highs_presolve_rules.py", "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "a.jsonl"))
    assert out.startswith(f"oct-h  heart        seed   0: objective {rec['obj']:.6g} -> {rec['obj']:.6g}"), out


def test_highs_presolve_rules_scan_finds_the_model_it_reported(tmp_path):
    out = _run(tmp_path, "highs_presolve_rules.py", "scan", "--rules-off", "16384", "--seeds", "43-44")
    assert out.splitlines() == ["seed 44: 9 points, 1 features, {'C': [1.0], 'score_variables': True, 'alpha': 0.5}: "
                                "3.5 with presolve, 2.5 without",
                                "1 of 2 oct-h models (score form) differ with presolve_rule_off = 16384"], out
    out = _run(tmp_path, "highs_presolve_rules.py", "scan", "--rules-off", "28672", "--seeds", "44-44")
    assert out.endswith("0 of 1 oct-h models (score form) differ with presolve_rule_off = 28672\n"), out


def test_grid_files(tmp_path):
    root = str(BENCHMARKS.parent)
    out = _run(tmp_path, "grid_files.py", "--dataset", "haberman", "--depth", "1", "--C-values", "1,10", "--folds", "2",
               "--repeat", "1", "--pause", "0", "--baseline", root)
    # 4 tasks of 7 files (olctc's, HiGHS's and Gurobi's), whichever tree: the baseline is this one
    assert re.search(r"^  here: [\d.]+ s \([\d.]+-[\d.]+\), 28 files, [\d.]+ MB in tasks/$", out, re.M), out
    assert re.search(rf"^  baseline {re.escape(root)}: [\d.]+ s .*, 28 files,", out, re.M), out


def test_min_leaf(tmp_path):
    out = _run(tmp_path, "min_leaf.py", "--seconds", "5", "--depth", "1", "--seeds", "0", "--datasets", "heart")
    assert re.search(r"^\| heart \| 12 \| [\d.]+ / [\d.]+ \| 0\.\d{4} / 0\.\d{4} \| \d+ / \d+ \| \d of 1 \|$", out,
                     re.M), out


def test_pure_nodes(tmp_path):
    out = _run(tmp_path, "pure_nodes.py", "--seconds", "5", "--seeds", "0", "--datasets", "tic-tac-toe")
    (row,) = _table_rows(out, "tic-tac-toe")
    assert re.fullmatch(r"\d+ \([01] of 1\)", row[1]) and row[2] in ("0", "1"), row
    for cell in row[3:]:
        assert re.fullmatch(r"[\d.]+ / [\d.]+", cell), row


def test_start_tree(tmp_path):
    out = _run(tmp_path, "start_tree.py", "--seconds", "5", "--depth", "1", "--from-depth", "1", "--datasets", "heart")
    assert re.search(r"^\| heart \| [\d.]+ -> [\d.]+ \(\d+ s\) \| [\d.]+ \|", out, re.M), out
    assert re.search(r"^two parts lower in \d, higher in \d, equal in \d of 1$", out, re.M), out


def test_cv_jobs(tmp_path):
    out = _run(tmp_path, "cv_jobs.py", "--dataset", "heart", "--depth", "1", "--C-values", "0.1,10", "--limit", "5",
               "--repeat", "1")
    assert len(re.findall(r"^run 0 jobs [12]: cross-validation [\d.]+ s .* 4/4 fits optimal", out, re.M)) == 2, out
    assert "best C agrees" in out, out


def test_fit_reserve(tmp_path):
    out = _run(tmp_path, "fit_reserve.py", "--datasets", "breast", "--limit", "5")
    for rule in ("baseline", "now"):
        assert re.search(rf"^\| breast \| {rule} \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \| [-+][\d.]+ s \|$",
                         out, re.M), out


def test_score_variables(tmp_path):
    out = _run(tmp_path, "score_variables.py", "--datasets", "heart", "--solvers", "highs", "--time-limit", "5")
    assert re.search(r"^\| heart \| highs \| [\d.]+ \| [\d.]+ \|", out, re.M), out
    assert re.search(r"^median ratio of true objectives \(scores / inline\): [\d.]+;", out, re.M), out


def test_cbc_false_optima(tmp_path):
    # 3 instances of svmguide1 (30 and 60 rows at depth 2, 24 at depth 3), each solved to a gap of 0; with its 4
    # features and seed 1 (rows the script draws) the three solvers take seconds, wholesale's (7, seed 3) three times
    # as long
    out = _run(tmp_path, "cbc_false_optima.py", "--datasets", "svmguide1", "--seeds", "1")
    counts = r"worse \d+, below \d+, infeasible \d+"
    assert re.search(rf"^3 olct instances; false claims against HiGHS's optimum: cbc {counts}; cbc-defaults "
                     rf"{counts}$", out, re.M), out
    # OCT-H's shapes (--preset, --shapes): one depth-1 instance of 12 rows
    out = _run(tmp_path, "cbc_false_optima.py", "--datasets", "svmguide1", "--seeds", "1", "--preset", "oct-h",
               "--shapes", "1:12")
    assert re.search(rf"^1 oct-h instances; false claims against HiGHS's optimum: cbc {counts}; ", out, re.M), out


def test_left_solver(tmp_path):
    # one process: 6,000 rows of a6a read into HiGHS, 4 s of solving, then leave_running
    out = _run(tmp_path, "left_solver.py", "--repeat", "1")
    assert re.search(r"^200 products of 9,000 x 123, medians of 1 processes: alone \d+ ms, after leave_running "
                     r"with HiGHS still solving \d+ ms \([\d.]+x\)$", out, re.M), out


def test_import_time(tmp_path):
    out = _run(tmp_path, "import_time.py", "--repeat", "1", "--cases",
               "import olctc,olctc compile heart --no-start,olctc predict heart")
    assert re.search(r"^import olctc +median [\d.]+ s", out, re.M), out
    assert re.search(r"^olctc compile heart --no-start +median [\d.]+ s", out, re.M), out
    assert re.search(r"^olctc predict heart +median [\d.]+ s", out, re.M), out


def test_read_time(tmp_path):
    # heart at depth 1: a model of a few kB, written and read back by SCIP and CBC
    out = _run(tmp_path, "read_time.py", "--cases", "heart:1,heart:2s")
    rows = [line.split() for line in out.splitlines() if line.startswith("heart:")]
    assert [r[0] for r in rows] == ["heart:1", "heart:2s"] and all(len(r) == 7 for r in rows), out
    assert all(float(v) >= 0 for r in rows for v in r[1:]), out


def test_solver_crosscheck(tmp_path):
    # 2 instances (OLCT and OLCT-univariate at depth 1), COPT and Gurobi: the others run the same code
    out = _run(tmp_path, "solver_crosscheck.py", "--solvers", "copt,gurobi", "--seeds", "1", "--instances", "2")
    assert re.search(r"^2 instances; solves and mismatches: copt 2 / 0, gurobi 2 / 0$", out, re.M), out


def test_solvers_small(tmp_path):
    # one 16-point OLCT model at depth 2, HiGHS and CPLEX in process: each solves it, to the same optimum
    out = _run(tmp_path, "solvers_small.py", "--datasets", "heart", "--n", "16", "--seeds", "0", "--presets", "olct",
               "--solvers", "highs,cplex", "--time-limit", "20")
    assert [r[1] for r in _table_rows(out, "highs") + _table_rows(out, "cplex")] == ["1/1", "1/1"], out
    assert [r[4] for r in _table_rows(out, "highs") + _table_rows(out, "cplex")] == ["1/1", "1/1"], out


def test_sql_scoring(tmp_path):
    # 10 rows, not 100: loading the rows (DuckDB's executemany most) took about 40% of the script's time; the
    # script still checks each database's answer against the tree's own
    res = subprocess.run([sys.executable, str(BENCHMARKS / "sql_scoring.py"), "--rows", "10", "--repeat", "1"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    if res.returncode != 0 and "Skipped: " in res.stderr:  # tests/test_export_sql.py's Postgres: no server here
        pytest.skip(res.stderr.strip().splitlines()[-1])
    assert res.returncode == 0, res.stderr[-3000:]
    for depth, p in ((2, 300), (3, 300), (4, 100)):
        assert re.search(rf"^ +{depth} +{p}( +\d+\.\d\d){{4}}$", res.stdout, re.M), res.stdout
