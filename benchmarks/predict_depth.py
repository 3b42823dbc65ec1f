"""Tree.decision_function by tree depth: time and peak traced memory, in fresh processes.

Usage:
    python benchmarks/predict_depth.py [--depths 2,4,6,8,10] [--rows 200000] [--features 30] [--density 0.5]
                                       [--repeat 3] [--olctc-path DIR]

Each depth's tree has random splits on a ``--density`` share of ``--features`` features (seeded), the rows are
Gaussian.
Each measurement is a fresh process: the median time of ``--repeat`` calls, and the peak memory numpy
allocated during one call (tracemalloc). ``--olctc-path`` runs another checkout of olctc (put first on
PYTHONPATH), for a before/after comparison in one session.
"""
from __future__ import annotations

import argparse
import subprocess
import sys

import checkout  # benchmarks/checkout.py (a script's folder is on sys.path)

ONE = """
import statistics, sys, time, tracemalloc
import numpy as np
from olctc.data import Column, Schema, Scaler
from olctc.tree import Tree
depth, n, p, repeat = map(int, sys.argv[1:5])
density = float(sys.argv[5])
rng = np.random.default_rng(depth)
nodes = 2 ** depth - 1
W = rng.normal(size=(nodes, p)) * (rng.random((nodes, p)) < density)
tree = Tree(W, rng.normal(size=nodes) * 0.2, Scaler.identity(p),
            Schema(tuple(Column(f"c{j}", "numeric") for j in range(p))), (0, 1))
X = rng.normal(size=(n, p))
times = []
for _ in range(repeat):
    t0 = time.perf_counter(); tree.decision_function(X); times.append(time.perf_counter() - t0)
tracemalloc.start(); tree.decision_function(X); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
print(statistics.median(times), peak / 2**20)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", default="2,4,6,8,10")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--features", type=int, default=30)
    ap.add_argument("--density", type=float, default=0.5)
    ap.add_argument("--repeat", type=int, default=3)
    checkout.add_option(ap)
    args = ap.parse_args()
    env = checkout.environment(args.olctc_path)
    print(checkout.header(args.olctc_path, f"; {args.rows} rows x {args.features} features, density {args.density}"))
    for depth in map(int, args.depths.split(",")):
        out = subprocess.run([sys.executable, "-c", ONE, str(depth), str(args.rows), str(args.features),
                              str(args.repeat), str(args.density)], env=env, check=True, capture_output=True,
                             text=True).stdout
        seconds, mb = map(float, out.split())
        print(f"depth {depth}: {seconds:.3f} s, peak {mb:.0f} MB")


if __name__ == "__main__":
    main()
