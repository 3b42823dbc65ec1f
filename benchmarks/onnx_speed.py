"""ONNX batch inference: an olctc tree against a scikit-learn DecisionTreeClassifier (via skl2onnx).

Usage:
    python benchmarks/onnx_speed.py [--rows 1000000] [--depths 2,3] [--repeat 5] [--threads 0]

Both models are trained on the ``breast`` data set (569 x 30) at the same depth: the olctc tree greedily
(an L1 logistic regression per node, as the warm start does; the speed does not depend on how the
weights were found), the scikit-learn tree with its defaults. The rows are ``--rows`` resamples of the
breast rows with Gaussian noise. Both run in onnxruntime with the same SessionOptions on the same rows;
the time is the median of ``--repeat`` calls to ``session.run`` after one warm-up call, the two models'
calls alternating so that both see the same machine load. Each model gets
its natural input type: olctc takes float64 (its outputs match Tree.predict_proba within 1e-12), the
skl2onnx tree float32 (TreeEnsembleClassifier with double input converts but onnxruntime rejects it).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def greedy_tree(ds, depth: int):
    """The warm start's greedy tree (an L1 logistic regression per node) as an olctc Tree."""
    from olctc.data import Scaler
    from olctc.spec import make_spec
    from olctc.tree import Tree
    from olctc.warmstart import greedy_tree as greedy_weights

    scaler = Scaler.fit(ds.X)
    W, b = greedy_weights(scaler.transform(ds.X), ds.y, make_spec("olct", depth))
    tree = Tree(W, b, scaler, ds.schema, ds.classes)
    tree.fit_stats(ds.X, ds.y)
    return tree


def timed_pair(a, feeds_a: dict, b, feeds_b: dict, repeat: int) -> tuple[float, float]:
    """Median seconds of ``repeat`` calls of each session, alternating a and b so that both see the
    same machine load (other processes on a small machine make back-to-back blocks unfair)."""
    a.run(None, feeds_a)  # warm-up: allocations, thread pool start
    b.run(None, feeds_b)
    ta, tb = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        a.run(None, feeds_a)
        t1 = time.perf_counter()
        b.run(None, feeds_b)
        t2 = time.perf_counter()
        ta.append(t1 - t0)
        tb.append(t2 - t1)
    return statistics.median(ta), statistics.median(tb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: onnxruntime's default)")
    args = ap.parse_args()

    import onnxruntime as ort
    import skl2onnx
    from sklearn.tree import DecisionTreeClassifier

    from olctc.datasets import load
    from olctc.export.onnx import to_onnx

    ds = load("breast")
    rng = np.random.default_rng(0)
    rows = rng.integers(0, ds.n, size=args.rows)
    X64 = ds.X[rows] + rng.normal(size=(args.rows, ds.p)) * (0.05 * ds.X.std(axis=0))
    X32 = X64.astype(np.float32)
    y_lab = ds.labels(ds.y).astype(np.int64)

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL

    def session(model):
        return ort.InferenceSession(model.SerializeToString(), sess_options=opts,
                                    providers=["CPUExecutionProvider"])

    print(f"onnxruntime {ort.__version__}, skl2onnx {skl2onnx.__version__}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, intra-op threads {args.threads or 'default'}")
    print(f"{args.rows:,} rows x {ds.p} features (breast resampled), median of {args.repeat} runs")
    for depth in [int(d) for d in args.depths.split(",")]:
        tree = greedy_tree(ds, depth)
        ours = session(to_onnx(tree))
        label, proba = ours.run(None, {"input": X64[:100_000]})
        assert (label == tree.predict(X64[:100_000])).all()
        assert np.abs(proba - tree.predict_proba(X64[:100_000])).max() <= 1e-9
        clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(ds.X, y_lab)
        model = skl2onnx.to_onnx(clf, X32[:1], options={"zipmap": False}, target_opset={"": 19, "ai.onnx.ml": 3})
        theirs = session(model)
        t_ours, t_skl = timed_pair(ours, {"input": X64}, theirs, {model.graph.input[0].name: X32}, args.repeat)
        print(f"depth {depth}: olctc {1000 * t_ours:7.1f} ms   sklearn DecisionTreeClassifier {1000 * t_skl:7.1f} ms   "
              f"ratio olctc/sklearn {t_ours / t_skl:.2f}")

if __name__ == "__main__":
    main()
