"""What ``--smooth-pure-nodes`` does to the probabilities: OLCT trees whose one-class last-layer nodes keep the
solver's (w, b) against the same trees with those nodes given their points' smoothed log-odds (Laplace's rule).

Per data set and seed (olctc's 80/20 stratified split, the authors' fixed C as ``olctc bench models``, depth 2,
one solver thread, time limit T): one fit with ``smooth_pure_nodes=True``; the solver's tree is that tree with
the nodes ``meta.pure_nodes.before`` kept put back, so both trees come from one solve and differ at those nodes
only. Reported on the test part: log loss, Brier score, 10-bin ECE of ``predict_proba``, balanced accuracy, and
how many last-layer nodes were one-class. Run by hand:

    python benchmarks/pure_nodes.py [--seconds T] [--seeds 0,42,314,6,71] [--datasets a,b] [--jobs J]
"""
from __future__ import annotations

import argparse
import copy
import platform
import statistics
from concurrent.futures import ProcessPoolExecutor

import numpy as np

SETS = ["breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf", "tic-tac-toe",
        "wholesale"]


def _scores(tree, X: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    from sklearn.metrics import log_loss

    from olctc.bench.metrics import brier_score, expected_calibration_error
    from olctc.fit import balanced_accuracy

    p = tree.predict_proba(X)[:, 1]
    pred = np.where(tree.decision_function(X) > 0, 1, -1)
    return (float(log_loss(y, np.column_stack([1 - p, p]), labels=[-1, 1])), brier_score(y, p),
            expected_calibration_error(y, p), balanced_accuracy(y, pred))


def run(name: str, seed: int, T: float, solver: str) -> dict:
    from olctc.bench.experiments import EXPERIMENTS, resolve_C
    from olctc.datasets import load
    from olctc.fit import fit
    from olctc.spec import make_spec

    ds = load(name)
    C, _ = resolve_C(EXPERIMENTS["models"].model("OLCT"), name, 2, "anchors")
    res = fit(ds, make_spec(depth=2, C=C, score_variables=True), solver=solver, threads=1, time_limit=T,
              test_size=0.2, seed=seed, verbose=False, echo=lambda _s: None, smooth_pure_nodes=True)
    smooth = res.tree
    solver_tree = copy.copy(smooth)
    solver_tree.W, solver_tree.b = smooth.W.copy(), smooth.b.copy()
    rec = smooth.meta.get("pure_nodes")
    nodes = [] if rec is None else rec["nodes"]
    if nodes:
        solver_tree.W[nodes] = np.asarray(rec["before"]["W"])
        solver_tree.b[nodes] = np.asarray(rec["before"]["b"])
    te = res.test_rows
    X, y = ds.X[te], ds.y[te]
    return {"name": name, "seed": seed, "status": res.summary["status"], "pure": len(nodes),
            "solver": _scores(solver_tree, X, y), "smooth": _scores(smooth, X, y)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="T per fit (default 60)")
    ap.add_argument("--seeds", default="0,42,314,6,71")
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--jobs", type=int, default=1, help="fits at a time, in processes (default 1)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.datasets.split(",")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; T = "
          f"{args.seconds:g} s, {args.solver}, 1 thread, {args.jobs} fit(s) at a time, depth 2, the authors' fixed "
          f"C, seeds {args.seeds}")
    jobs = [(n, s, args.seconds, args.solver) for n in names for s in seeds]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run, *zip(*jobs)))
    print("| data set | one-class nodes (fits with one) | optimal | test log loss: solver / smoothed | "
          "Brier | ECE | balanced accuracy |")
    print("|---|---|---|---|---|---|---|")
    total = {"solver": [], "smooth": []}
    for name in names:
        rows = [r for r in results if r["name"] == name]

        def mean(kind, k, scale=1.0):
            return scale * statistics.fmean(r[kind][k] for r in rows)

        for kind in total:
            total[kind] += [r[kind] for r in rows]
        print(f"| {name} | {sum(r['pure'] for r in rows)} ({sum(r['pure'] > 0 for r in rows)} of {len(rows)}) | "
              f"{sum(r['status'] == 'optimal' for r in rows)} | "
              f"{mean('solver', 0):.3f} / {mean('smooth', 0):.3f} | {mean('solver', 1):.4f} / {mean('smooth', 1):.4f}"
              f" | {mean('solver', 2):.4f} / {mean('smooth', 2):.4f} | {mean('solver', 3, 100):.2f} / "
              f"{mean('smooth', 3, 100):.2f} |", flush=True)
    a, b = np.array(total["solver"]), np.array(total["smooth"])
    print(f"| all ({len(a)} fits) | | | {a[:, 0].mean():.3f} / {b[:, 0].mean():.3f} (median {np.median(a[:, 0]):.3f} / "
          f"{np.median(b[:, 0]):.3f}) | {a[:, 1].mean():.4f} / {b[:, 1].mean():.4f} | {a[:, 2].mean():.4f} / "
          f"{b[:, 2].mean():.4f} | {100 * a[:, 3].mean():.2f} / {100 * b[:, 3].mean():.2f} |")


if __name__ == "__main__":
    main()
