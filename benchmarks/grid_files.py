"""``olctc grid`` as a user types it: its time, and the files and bytes its task folders hold, here and in
another source tree (``--baseline``, a ``git worktree`` of an earlier commit), runs shuffled. Run by hand:

    python benchmarks/grid_files.py [--dataset heart] [--depth 2] [--C-values 0.01,0.1,1,10,100] [--folds 4]
                                    [--solver olctc] [--repeat 5] [--pause 3] [--baseline TREE]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = str(Path(__file__).resolve().parents[1])


def run_grid(tree: str, args: argparse.Namespace) -> tuple[float, int, int]:
    """Seconds of one ``python -m olctc.cli grid`` from ``tree``; files and bytes under its tasks/."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, "-m", "olctc.cli", "grid", "--dataset", args.dataset, "--depth", str(args.depth),
               "--C-values", args.C_values, "--folds", str(args.folds), "--solver", args.solver, "-o", "g"]
        env = dict(os.environ, PYTHONPATH=tree)
        started = time.perf_counter()
        subprocess.run(cmd, cwd=d, env=env, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        files = [p for p in (Path(d) / "g" / "tasks").rglob("*") if p.is_file()]
        return seconds, len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default="heart")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--C-values", default="0.01,0.1,1,10,100")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--solver", default="olctc")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pause", type=float, default=3.0, help="seconds between runs (default 3)")
    ap.add_argument("--baseline", default=None, help="another olctc source tree, timed interleaved with this one")
    args = ap.parse_args()
    trees = {"here": HERE}
    if args.baseline:
        trees[f"baseline {Path(args.baseline).resolve()}"] = str(Path(args.baseline).resolve())
    order = [label for label in trees for _ in range(args.repeat)]
    random.Random(0).shuffle(order)
    runs: dict[str, list[tuple[float, int, int]]] = {label: [] for label in trees}
    for label in order:
        runs[label].append(run_grid(trees[label], args))
        time.sleep(args.pause)
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; olctc grid "
          f"--dataset {args.dataset} --depth {args.depth} --C-values {args.C_values} --folds {args.folds} "
          f"--solver {args.solver}; medians of {args.repeat}, shuffled, {args.pause:g} s apart")
    for label, got in runs.items():
        secs = [r[0] for r in got]
        print(f"  {label}: {statistics.median(secs):.2f} s ({min(secs):.2f}-{max(secs):.2f}), "
              f"{got[0][1]:,} files, {got[0][2] / 1e6:.1f} MB in tasks/")


if __name__ == "__main__":
    main()
