"""The examples run as shipped, in a fresh interpreter, with shorter time limits (their only edit)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _run_with_limits(tmp_path: Path, name: str, limits: dict[str, str], args: list[str]) -> str:
    """Run examples/NAME with each ``old -> new`` time-limit text replaced; every old text must be there,
    so an edited example cannot silently run at full length (or not at all)."""
    source = (EXAMPLES / name).read_text()
    for old, new in limits.items():
        assert source.count(old) == 1, f"{name}: expected one {old!r}"
        source = source.replace(old, new)
    script = tmp_path / name
    script.write_text(source)
    res = subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout


def test_fit_in_process_example(tmp_path):
    folder = tmp_path / "new" / "out"  # a folder the example creates
    out = _run_with_limits(tmp_path, "fit_in_process.py", {"time_limit=20": "time_limit=6"}, [str(folder)])
    assert "(ONNX predictions match)" in out
    tree = json.loads((folder / "heart_tree.json").read_text())
    assert len(tree["feature_names"]) == 13 and (folder / "heart_tree.onnx").stat().st_size > 0


def test_grid_search_example(tmp_path):
    out = _run_with_limits(tmp_path, "grid_search.py", {"time_limit=10": "time_limit=5", "StratifiedKFold(3,": "StratifiedKFold(2,"}, [])
    assert out.count("mean balanced accuracy") == 4 and "ONNX (skl2onnx) predictions match" in out


def test_slurm_grid_example_runs_locally(tmp_path):
    # no Slurm controller here: the script runs the job array's tasks with run_local.sh, then collects
    # 4 s: collect's final fit takes the grid's limit, and 3 s was refused when the warm start took 0.3 s
    env = {**os.environ, "TIME_LIMIT": "4", "FOLDS": "2"}  # 8 tasks of 4 s, not 16
    res = subprocess.run(["bash", str(EXAMPLES / "slurm_grid.sh"), "g"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "tree written to g/heart_tree.json" in res.stdout
    results = json.loads((tmp_path / "g" / "cv_results.json").read_text())
    assert results and (tmp_path / "g" / "heart_tree.json").exists()
