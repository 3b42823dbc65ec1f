"""The examples run as shipped, in a fresh interpreter, with shorter time limits and smaller fits (a slice of the
data, depth 1 for the Slurm grid): their only edits, each naming the text it replaces."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _edited(tmp_path: Path, name: str, edits: dict[str, str]) -> Path:
    """A copy of examples/NAME in ``tmp_path`` with each ``old -> new`` text replaced; every old text must be
    there once, so an edited example cannot silently run at full length (or not at all)."""
    source = (EXAMPLES / name).read_text()
    for old, new in edits.items():
        assert source.count(old) == 1, f"{name}: expected one {old!r}"
        source = source.replace(old, new)
    script = tmp_path / name
    script.write_text(source)
    return script


def _run_with_limits(tmp_path: Path, name: str, edits: dict[str, str], args: list[str]) -> str:
    """Run examples/NAME, edited by ``edits`` (see _edited), in a fresh interpreter; its standard output."""
    res = subprocess.run([sys.executable, str(_edited(tmp_path, name, edits)), *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


def test_fit_in_process_example(tmp_path):
    folder = tmp_path / "new" / "out"  # a folder the example creates
    # heart's first 40 rows (all 13 features): the depth-2 fit is solved in about a second, where on all of heart
    # it ran to its limit
    edits = {"time_limit=20": "time_limit=5", 'ds = load("heart")': 'ds = load("heart").subset(range(40))'}
    out = _run_with_limits(tmp_path, "fit_in_process.py", edits, [str(folder)])
    assert "(ONNX predictions match)" in out
    tree = json.loads((folder / "heart_tree.json").read_text())
    assert len(tree["feature_names"]) == 13 and (folder / "heart_tree.onnx").stat().st_size > 0


def test_grid_search_example(tmp_path):
    # heart's first 40 rows: 16-point folds and a 32-point refit at depth 2 are solved at once, where each fit on
    # the whole training set stopped at its limit; still 4 C combinations, both classes in every fold
    out = _run_with_limits(tmp_path, "grid_search.py", {
        "time_limit=10": "time_limit=5", "StratifiedKFold(3,": "StratifiedKFold(2,",
        "y = y.astype(int)": "X, y = X[:40], y[:40].astype(int)"}, [])
    assert out.count("mean balanced accuracy") == 4 and "ONNX (skl2onnx) predictions match" in out


def test_slurm_grid_example_runs_locally(tmp_path):
    # no Slurm controller here: the script runs the job array's tasks with run_local.sh, then collects.
    # Depth 1 (its only edit): each task's solve and collect's final fit end at once, where at depth 2 all ran to
    # their limit; 5 s: collect's final fit takes the grid's limit, and 3 s was refused when the warm start took 0.3 s
    script = _edited(tmp_path, "slurm_grid.sh", {"--depth 2 ": "--depth 1 "})
    env = {**os.environ, "TIME_LIMIT": "5", "FOLDS": "2"}  # 4 tasks (2 folds x 2 C values), not 16
    res = subprocess.run(["bash", str(script), "g"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "tree written to g/heart_tree.json" in res.stdout
    results = json.loads((tmp_path / "g" / "cv_results.json").read_text())
    assert results and (tmp_path / "g" / "heart_tree.json").exists()
