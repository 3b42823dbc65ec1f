"""Wall time of `olctc fit --time-limit T` against T, for chosen (data set, depth, preset, solver, T) runs.

Usage:
    python benchmarks/fit_overrun.py [--runs w5a:3:margot:scip:10,w5a:3:olct:cbc:10] [--repeat 2]
                                     [--olctc-path DIR]

Each fit runs in a fresh process (`python -m olctc.cli fit ...`), timed from the outside (Python's start-up
and imports included, which the limit does not count). `--olctc-path` runs another checkout of olctc (put
first on PYTHONPATH), for a before/after comparison in one session. Prints, per run, the wall time, the
overrun (wall - T), where the tree came from and fit's own time breakdown.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import checkout  # benchmarks/checkout.py (a script's folder is on sys.path)

DEFAULT_RUNS = "w5a:3:margot:scip:10,w5a:3:olct:cbc:10,phishing:3:olct:highs:10"


def one_fit(spec: str, folder: str, env: dict[str, str]) -> tuple[float, str, str]:
    dataset, depth, preset, solver, limit = spec.split(":")
    cmd = [sys.executable, "-m", "olctc.cli", "fit", "--dataset", dataset, "--depth", depth, "--preset", preset,
           "--solver", solver, "--time-limit", limit, "-o", os.path.join(folder, "tree.json")]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    lines = p.stdout.splitlines()
    where = next((ln for ln in lines if ln.startswith("solver ")), f"exit {p.returncode}: {p.stderr.strip()[-200:]}")
    times = next((ln for ln in lines if ln.startswith("time: ")), "")
    return wall, where, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default=DEFAULT_RUNS, help="DATASET:DEPTH:PRESET:SOLVER:LIMIT, comma-separated")
    ap.add_argument("--repeat", type=int, default=2)
    checkout.add_option(ap)
    args = ap.parse_args()
    env = checkout.environment(args.olctc_path)
    print(checkout.header(args.olctc_path))
    for spec in args.runs.split(","):
        limit = float(spec.split(":")[-1])
        walls = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="olctc-bench-") as folder:
                wall, where, times = one_fit(spec, folder, env)
            walls.append(wall)
            print(f"{spec}: wall {wall:.1f} s (overrun {wall - limit:+.1f} s); {where}; {times}")
        mid = statistics.median(walls)
        print(f"{spec}: median wall {mid:.1f} s, overrun {mid - limit:+.1f} s")


if __name__ == "__main__":
    main()
