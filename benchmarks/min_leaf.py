"""What ``--min-leaf`` does to the trees: OLCT without a minimum against OLCT whose last-layer nodes each hold
no training point or at least N, N a fraction of the training points (default 5%).

Per data set and seed (the paper's 80/20 stratified split; C = 1 at every layer; one solver thread; the same
time limit T for both fits): the test balanced accuracy, the test Brier score of ``predict_proba``, and the
smallest non-empty region of the tree (training points of its least populated last-layer node). Run by hand:

    python benchmarks/min_leaf.py [--seconds T] [--depth D] [--fraction F] [--seeds 0,42,314] [--datasets a,b]
"""
from __future__ import annotations

import argparse
import math
import platform
import statistics

import numpy as np

from olctc.bench.metrics import brier_score
from olctc.datasets import load
from olctc.fit import fit
from olctc.spec import make_spec

SETS = ["breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
        "wholesale"]


def _run(ds, depth: int, min_leaf: int, seed: int, T: float, solver: str) -> tuple[float, float, int]:
    res = fit(ds, make_spec(depth=depth, C=1.0, score_variables=True, min_leaf=min_leaf), solver=solver,
              threads=1, time_limit=T, test_size=0.2, seed=seed, verbose=False, echo=lambda _s: None)
    tree = res.tree
    test, train = res.test_rows, res.train_rows
    p = tree.predict_proba(ds.X[test])[:, 1]
    regions = np.bincount(tree.apply(ds.X[train]))
    smallest = int(regions[regions > 0].min())
    return res.summary["test_balanced_accuracy"], brier_score(ds.y[test], p), smallest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="T per fit (default 20)")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--fraction", type=float, default=0.05, help="N = ceil(F x training points) (default 0.05)")
    ap.add_argument("--seeds", default="0,42,314")
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--datasets", default=",".join(SETS))
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; T = "
          f"{args.seconds:g} s, {args.solver}, 1 thread, depth {args.depth}, N = ceil({args.fraction:g} n_train), "
          f"seeds {args.seeds}")
    print("| data set | N | test BA: none / N | test Brier: none / N | smallest region: none / N | "
          "trees with a region < N (none) |")
    print("|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        ds = load(name)
        n_min = math.ceil(args.fraction * round(0.8 * ds.n))
        free = [_run(ds, args.depth, 0, s, args.seconds, args.solver) for s in seeds]
        ruled = [_run(ds, args.depth, n_min, s, args.seconds, args.solver) for s in seeds]

        def mean(rows, k, scale=1.0):
            return scale * statistics.fmean(r[k] for r in rows)

        small = sum(r[2] < n_min for r in free)
        print(f"| {name} | {n_min} | {mean(free, 0, 100):.2f} / {mean(ruled, 0, 100):.2f} | "
              f"{mean(free, 1):.4f} / {mean(ruled, 1):.4f} | {min(r[2] for r in free)} / {min(r[2] for r in ruled)} | "
              f"{small} of {len(seeds)} |", flush=True)


if __name__ == "__main__":
    main()
