"""The greedy warm start and the refinement on large data sets, with liblinear's sparse path and without it.

Nodes of at least 200,000 cells whose columns are mostly one value (binary and one-hot columns, standardised)
are handed to liblinear as the sparse X - median (``olctc.refine._shifted_sparse``). This times, in one
process and interleaved, ``warm_start`` (the greedy tree completed into a MIP start: what `olctc compile`
writes and `olctc fit` starts from) and ``refine`` of that tree, with the sparse path and with it switched off
(the dense fit of before), and prints the medians, their ratio and the objectives each reaches. Run by hand:

    python benchmarks/warm_start_speed.py [--datasets a6a,w5a,phishing] [--depths 2,3] [--repeat 3]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from importlib import import_module

import numpy as np

import olctc.refine as refine_module
from olctc.compile import compile_problem
from olctc.datasets import load
from olctc.objective import tree_objective
from olctc.refine import refine
from olctc.spec import TreeSpec
from olctc.warmstart import warm_start

SPARSE_MIN_CELLS = refine_module._SPARSE_MIN_CELLS  # the path's own limit, restored for the sparse runs


def _once(comp, sparse: bool) -> tuple[float, float, float, float]:
    """(warm-start seconds, its MILP objective, refinement seconds, exact objective after refinement)."""
    refine_module._SPARSE_MIN_CELLS = SPARSE_MIN_CELLS if sparse else sys.maxsize
    X, y, spec = comp.X, comp.dataset.y, comp.spec
    t = time.perf_counter()
    x, info = warm_start(comp.milp, X, y, spec)
    t_start = time.perf_counter() - t
    W, b = info["W"], info["b"]
    t = time.perf_counter()
    W2, b2, _ = refine(W, b, X, y, spec)
    t_refine = time.perf_counter() - t
    exact = tree_objective(W2, b2, X, y, spec, loss="exact").total
    return t_start, float(comp.milp.objective(x)), t_refine, float(exact)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="a6a,w5a,phishing")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import_module("sklearn.linear_model")  # here, not inside the first timed fit
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"medians of {args.repeat} interleaved runs, C = 1 at every layer")
    print("| data set | depth | nonzero after the shift | warm start: sparse / dense | ratio | start objective: "
          "sparse / dense | refinement: sparse / dense | exact objective after: sparse / dense |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        ds = load(name)
        for depth in (int(d) for d in args.depths.split(",")):
            comp = compile_problem(ds, TreeSpec(depth=depth, C=1.0), name)
            share = np.count_nonzero(comp.X - np.median(comp.X, axis=0)) / comp.X.size
            runs: dict[bool, list[tuple[float, float, float, float]]] = {True: [], False: []}
            for _ in range(args.repeat):
                for sparse in (True, False):
                    runs[sparse].append(_once(comp, sparse))
            med = {k: [statistics.median(r[i] for r in v) for i in range(4)] for k, v in runs.items()}
            s, d = med[True], med[False]
            print(f"| {name} | {depth} | {share:.1%} | {s[0]:.2f} / {d[0]:.2f} s | {d[0] / s[0]:.1f}x | "
                  f"{s[1]:.2f} / {d[1]:.2f} | {s[2]:.2f} / {d[2]:.2f} s | {s[3]:.4f} / {d[3]:.4f} |", flush=True)


if __name__ == "__main__":
    main()
