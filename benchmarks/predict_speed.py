"""Tree.predict_proba: olctc's feature-ordered scores against the one matrix product they replaced.

Usage:
    python benchmarks/predict_speed.py [--rows 1000000] [--depths 2,3] [--repeat 5]

``Tree.scores`` adds each node's terms one feature at a time, in feature order, as the generated Python
does: bit-identical to it, and a row's result does not depend on its batch (a BLAS product's summation
order does). This measures what that costs against ``X @ W_raw.T + b_raw`` on the same rows, in the same
process, calls alternating: breast (569 x 30) resampled with noise to ``--rows`` rows, and a6a
(11220 x 123 one-hot features) as it is. Trees are the warm start's greedy trees (dense splits: the
worst case for the loop, which skips zero weights).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def medians(tree, X: np.ndarray, repeat: int) -> tuple[float, float]:
    def product():
        return X @ tree.W_raw.T + tree.b_raw

    def ordered():
        return tree.scores(X)

    assert np.allclose(product(), ordered(), rtol=1e-12, atol=1e-9)
    a, b = [], []
    for _ in range(repeat):
        for fn, out in ((ordered, a), (product, b)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(a), statistics.median(b)


def main() -> None:
    from onnx_speed import greedy_tree

    from olctc.datasets import load

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; numpy {np.__version__}")
    rng = np.random.default_rng(0)
    breast, a6a = load("breast"), load("a6a")
    Xb = breast.X[rng.integers(0, breast.n, args.rows)]
    Xb = Xb + rng.normal(scale=0.01, size=Xb.shape) * Xb.std(axis=0)
    print("| data | rows x features | depth | nonzero weights | ordered scores | matrix product | ratio |")
    print("|---|---|---|---|---|---|---|")
    for depth in (int(d) for d in args.depths.split(",")):
        for name, ds, X in (("breast", breast, Xb), ("a6a", a6a, a6a.X)):
            tree = greedy_tree(ds, depth)
            t_ord, t_prod = medians(tree, X, args.repeat)
            nnz = int((tree.W_raw != 0).sum())
            print(f"| {name} | {X.shape[0]:,} x {X.shape[1]} | {depth} | {nnz} | {1e3 * t_ord:.1f} ms | "
                  f"{1e3 * t_prod:.1f} ms | {t_ord / t_prod:.2f} |", flush=True)


if __name__ == "__main__":
    main()
