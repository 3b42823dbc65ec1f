"""Which in-process solver gives better trees: HiGHS or CBC (python-mip), same fits, same session.

Usage:
    python benchmarks/default_solver.py [--datasets heart,haberman,...] [--seeds 0,42] [--time-limit 20]

For each (data set, seed) both solvers run `olctc.fit` with the authors' fixed C (anchors README),
depth 2, V0, the same warm start and the same time limit, one after the other (alternating which goes
first). Reported per solver: how often its true MILP objective is the better one (lower; ties within
1e-6 relative count for both), the median ratio of its objective to HiGHS's, and mean test balanced
accuracy.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics

# the authors' C per data set (root, last layer), as olctc/bench/fixed_C.csv (from their anchors' README)
FIXED_C = {"breast": (1, 1), "climate": (0.1, 1), "haberman": (0.1, 100), "heart": (1, 0.1),
           "ionosphere": (0.1, 0.1), "parkinsons": (10, 10), "sonar": (1, 0.1), "spectf": (100, 10),
           "tic-tac-toe": (1, 0.01), "wholesale": (0.01, 1)}


def main() -> None:
    from olctc.datasets import load
    from olctc.fit import fit
    from olctc.spec import make_spec

    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="heart,haberman,wholesale,parkinsons,sonar")
    ap.add_argument("--seeds", default="0,42")
    ap.add_argument("--time-limit", type=float, default=20.0)
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    rows = []
    for k, name in enumerate(args.datasets.split(",")):
        ds = load(name)
        spec = make_spec("olct", 2, C=FIXED_C[name])
        for seed in (int(s) for s in args.seeds.split(",")):
            order = ("highs", "cbc") if (k + seed) % 2 == 0 else ("cbc", "highs")
            res = {}
            for solver in order:
                r = fit(ds, spec, solver=solver, time_limit=args.time_limit, threads=1, test_size=0.2, seed=seed,
                        verbose=False)
                res[solver] = r.summary
            h, c = res["highs"], res["cbc"]
            rows.append((name, seed, h, c))
            print(f"{name:<12} seed {seed:>3}: true objective highs {h['objective_milp_true']:.6g} "
                  f"({h['status']}), cbc {c['objective_milp_true']:.6g} ({c['status']}); test bacc "
                  f"highs {h['test_balanced_accuracy']:.4f}, cbc {c['test_balanced_accuracy']:.4f}", flush=True)
    for solver in ("highs", "cbc"):
        other = "cbc" if solver == "highs" else "highs"
        idx = 2 if solver == "highs" else 3
        oth = 3 if solver == "highs" else 2
        wins = sum(r[idx]["objective_milp_true"] <= r[oth]["objective_milp_true"] * (1 + 1e-6) for r in rows)
        ratio = statistics.median(r[idx]["objective_milp_true"] / r[2]["objective_milp_true"] for r in rows)
        bacc = statistics.mean(r[idx]["test_balanced_accuracy"] for r in rows)
        print(f"{solver}: objective at least as good as {other} in {wins}/{len(rows)} fits; median objective "
              f"ratio to highs {ratio:.4f}; mean test balanced accuracy {bacc:.4f}")


if __name__ == "__main__":
    main()
