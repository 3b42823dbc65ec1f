"""`olctc grid` / `olctc collect`: grid folders, job scripts, run locally with real solvers, bad input."""
from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from olctc.cli import _register_optional, cli
from olctc.cluster import C_grid, collect, make_folds, parse_C_values, pick_best
from olctc.datasets import dataset_path
from olctc.errors import OlctcError

_register_optional()


def small_heart_csv(path: Path, per_class: int = 30) -> Path:
    """The first ``per_class`` rows of each class of the vendored heart data, as a CSV file."""
    text = gzip.decompress(dataset_path("heart").read_bytes()).decode()
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    yi = header.index("y")
    pos = [r for r in body if r[yi] == "1"][:per_class]
    neg = [r for r in body if r[yi] == "0"][:per_class]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(pos + neg)
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def solved_grid(tmp_path_factory):
    """A 2-fold x 2x2 C grid on 60 heart rows, solved by CBC through run_local.sh."""
    root = tmp_path_factory.mktemp("grid")
    data = small_heart_csv(root / "heart60.csv")
    out = root / "g"
    res = CliRunner().invoke(cli, [
        "grid", str(data), "--target", "y", "--depth", "2", "--C-values", "0.01,10", "--folds", "2",
        "--test-size", "0.2", "--seed", "1", "--solver", "cbc-cli", "--time-limit", "30",
        "--partition", "short", "--account", "proj1", "--mem", "1G",
        "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o", str(out)])
    assert res.exit_code == 0, res.output + repr(res.exception)
    run = subprocess.run(["bash", str(out / "run_local.sh")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return out, data, res.output


def test_helpers():
    assert parse_C_values("0.1, 1,10") == [0.1, 1.0, 10.0]
    with pytest.raises(OlctcError, match="The 'C_values' parameter must be finite and > 0"):
        parse_C_values("1,-1")
    with pytest.raises(OlctcError, match="distinct"):
        parse_C_values("1,1")
    assert C_grid([1, 10], 2) == [(1.0, 1.0), (1.0, 10.0), (10.0, 1.0), (10.0, 10.0)]
    y = np.array([1, -1] * 10)
    folds = make_folds(y, np.arange(20), 4, 0)
    assert sorted(r for f in folds for r in f["val"]) == list(range(20))
    with pytest.raises(OlctcError, match="stratified folds"):
        make_folds(np.array([1, 1, 1, -1]), np.arange(4), 2, 0)
    # ties go to the smaller sum of C, then the smaller tuple
    table = [{"C": [10.0, 1.0], "folds_scored": 2, "folds": 2, "mean": 0.8},
             {"C": [1.0, 10.0], "folds_scored": 2, "folds": 2, "mean": 0.8},
             {"C": [1.0, 1.0], "folds_scored": 1, "folds": 2, "mean": 0.9}]
    assert pick_best(table) == (1.0, 10.0)


def test_grid_folder_contents(solved_grid):
    out, data, output = solved_grid
    assert "8 tasks" in output
    info = json.loads((out / "grid.json").read_text())
    assert info["format"] == "olctc-grid" and info["data"]["source"] == str(data.resolve())
    assert len(info["train_rows"]) == 48 and len(info["test_rows"]) == 12
    assert not set(info["train_rows"]) & set(info["test_rows"])
    assert len(info["folds"]) == 2 and info["C_grid"] == [[0.01, 0.01], [0.01, 10.0], [10.0, 0.01], [10.0, 10.0]]
    for f in info["folds"]:
        assert sorted(f["train"] + f["val"]) == sorted(info["train_rows"])
    lines = (out / "jobs.tsv").read_text().splitlines()
    assert lines[0].split("\t") == ["task", "fold", "C", "model", "solution", "command", "gurobi_command"]
    assert len(lines) == 9
    cells = lines[2].split("\t")
    assert cells[:5] == ["1", "0", "0.01,10", "tasks/0001/model.mps", "tasks/0001/model.cbc.sol"]
    assert "solve tasks/0001/model.mps --solver cbc-cli --time-limit 30" in cells[5]
    assert cells[6].startswith("gurobi_cl ParamFile=tasks/0001/model.gurobi.prm TimeLimit=30 ResultFile=")
    assert "InputFile=tasks/0001/model.start.gurobi.mst tasks/0001/model.mps" in cells[6]
    man = json.loads((out / "tasks/0001/model.olctc.json").read_text())
    assert man["spec"]["C"] == [0.01, 10.0] and man["data"]["rows"] == info["folds"][0]["train"]
    slurm = (out / "submit.slurm").read_text()
    for line in ("#SBATCH --array=0-7", "#SBATCH --time=00:05:30", "#SBATCH --mem=1G",
                 "#SBATCH --partition=short", "#SBATCH --account=proj1", "#SBATCH --cpus-per-task=1"):
        assert line in slurm
    for k in range(8):
        assert (out / f"tasks/{k:04d}/model.cbc.sol").exists()
    # safe to run again: every task is skipped
    again = subprocess.run(["bash", str(out / "run_local.sh")], capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout.count("exists, skipped") == 8


def test_collect_fits_final_tree(solved_grid, tmp_path):
    out, _, _ = solved_grid
    tree_path = tmp_path / "tree.json"
    res = run_cli("collect", str(out), "-o", str(tree_path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert "tasks: 8 of 8 scored" in res.stdout
    assert "<- best" in res.stdout and "best C:" in res.stdout
    assert "test balanced accuracy" in res.stdout
    table = json.loads((out / "cv_results.json").read_text())
    best = table["best"]
    rows = {tuple(r["C"]): r for r in table["table"]}
    assert all(r["folds_scored"] == 2 for r in rows.values())
    top = max(r["mean"] for r in rows.values())
    assert rows[tuple(best)]["mean"] == pytest.approx(top)
    tree = json.loads(tree_path.read_text())
    assert tree  # a JSON tree
    from olctc.export.json import load

    t = load(tree_path)
    assert t.depth == 2 and t.meta["grid"]["C"] == best
    assert t.meta["fit"]["solver"] == "cbc"  # the grid ran cbc-cli: its in-process twin fits the final tree


def test_collect_with_bad_solutions(solved_grid, tmp_path):
    out, _, _ = solved_grid
    g = tmp_path / "g"
    shutil.copytree(out, g)
    (g / "tasks/0001/model.cbc.sol").unlink()
    (g / "tasks/0001/solve.log").write_text("Killed: time limit of the job reached\n")
    (g / "tasks/0002/model.cbc.sol").write_text("garbage\n")
    shutil.copy(g / "tasks/0004/model.cbc.sol", g / "tasks/0003/model.cbc.sol")  # another fold's solution
    (g / "tasks/0005/model.cbc.sol").write_text("Infeasible - objective value 0.00000000\n")
    col = collect(g)
    problems = {r.task: r.problem for r in col.results if r.problem}
    assert set(problems) == {1, 2, 3, 5}
    assert problems[1].startswith("missing solution") and "Killed" in problems[1]
    assert "unusable solution" in problems[2] and "garbage" in problems[2]
    assert "another model" in problems[3]
    assert "cbc reports infeasible" in problems[5]
    # only complete combinations are candidates: C (0.01,0.01) is the only one with both folds
    assert col.best == (0.01, 0.01)
    res = run_cli("collect", str(g), "--emit-final")
    assert res.returncode == 0, res.stderr
    assert "tasks: 4 of 8 scored" in res.stdout and "are not candidates" in res.stdout
    assert (g / "final/model.mps").exists() and (g / "final/model.olctc.json").exists()
    man = json.loads((g / "final/model.olctc.json").read_text())
    assert man["spec"]["C"] == [0.01, 0.01] and len(man["data"]["rows"]) == 48
    # too little left: no combination complete
    (g / "tasks/0000/model.cbc.sol").unlink()
    res = run_cli("collect", str(g))
    assert res.returncode == 2 and "too little is left" in res.stderr


def test_collect_bad_folders(solved_grid, tmp_path):
    out, data, _ = solved_grid
    res = run_cli("collect", str(tmp_path))
    assert res.returncode == 2 and "is not an olctc grid folder" in res.stderr
    g = tmp_path / "g"
    shutil.copytree(out, g)
    jobs = g / "jobs.tsv"
    lines = jobs.read_text().splitlines()
    lines[3] = lines[3].replace("\t10,0.01\t", "\t10,1\t")
    jobs.write_text("\n".join(lines) + "\n")
    res = run_cli("collect", str(g))
    assert res.returncode == 2
    assert "jobs.tsv line 4: task 2 has C '10,1', grid.json says 10,0.01" in res.stderr
    lines = (out / "jobs.tsv").read_text().splitlines()
    jobs.write_text("\n".join(lines[:-1]) + "\n")
    res = run_cli("collect", str(g))
    assert res.returncode == 2 and "task(s) [7] of grid.json are not listed" in res.stderr
    jobs.write_text("\n".join(lines + [lines[1]]) + "\n")
    res = run_cli("collect", str(g))
    assert res.returncode == 2 and "line 10: task 0 is listed twice" in res.stderr
    # the data changed since `olctc grid`
    shutil.copy(out / "jobs.tsv", jobs)
    changed = tmp_path / "changed.csv"
    text = data.read_text().splitlines()
    changed.write_text("\n".join(text[:-1]) + "\n")
    res = run_cli("collect", str(g), "--data", str(changed))
    assert res.returncode == 2 and "the data changed since `olctc grid`" in res.stderr
    # -o onto a file of the grid, or onto the data, would destroy what collect reads
    before = (g / "grid.json").read_bytes()
    res = run_cli("collect", str(g), "-o", str(g / "grid.json"))
    assert res.returncode == 2 and res.stderr == f"error: -o {g / 'grid.json'} is also the input grid file; " \
        "write to another file\n", res.stderr
    assert (g / "grid.json").read_bytes() == before
    res = run_cli("collect", str(g), "--data", str(data), "-o", str(data))
    assert res.returncode == 2 and "is also the input data" in res.stderr


def test_grid_bad_input(tmp_path):
    data = small_heart_csv(tmp_path / "h.csv", 10)
    res = run_cli("grid", str(data), "--target", "y", "--C-values", "1,x", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "C_values" in res.stderr
    res = run_cli("grid", str(data), "--target", "y", "--solver", "nope", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "The 'solver' parameter" in res.stderr
    res = run_cli("grid", str(data), "--target", "y", "--preset", "margot", "--solver", "cbc-cli",
                  "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "MIQP" in res.stderr
    res = run_cli("grid", str(data), "--target", "y", "--folds", "9", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "stratified folds" in res.stderr
    # the tasks would only fail on the cluster, one by one
    res = run_cli("grid", str(data), "--target", "y", "--time-limit", "1e10", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "The 'time_limit' parameter (--time-limit) must be" in res.stderr
    res = run_cli("grid", str(data), "--target", "y", "--threads", "0", "-o", str(tmp_path / "a"))
    assert res.returncode == 2 and "The 'threads' parameter (--threads) must be" in res.stderr
    assert not (tmp_path / "a").exists()
    ok = run_cli("grid", "--dataset", "heart", "--depth", "1", "--C-values", "1", "--folds", "2",
                 "--solver", "olctc", "--time-limit", "5", "--test-size", "0", "-o", str(tmp_path / "b"))
    assert ok.returncode == 0, ok.stderr
    info = json.loads((tmp_path / "b/grid.json").read_text())
    assert info["test_rows"] == [] and len(info["train_rows"]) == 297 and info["data"]["source"] == "dataset:heart"
    if shutil.which("sbatch") is None:
        assert "sbatch is not on PATH" in ok.stdout
    assert "--solver highs" in (tmp_path / "b/jobs.tsv").read_text()
    again = run_cli("grid", "--dataset", "heart", "-o", str(tmp_path / "b"))
    assert again.returncode == 2 and "already holds a grid" in again.stderr
