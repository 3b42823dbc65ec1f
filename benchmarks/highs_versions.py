"""Does the HiGHS release matter? The same HiGHS fits under two highspy versions, compared.

Usage (one run per environment, then the comparison):
    python benchmarks/highs_versions.py run --out highs-1.16.jsonl [--datasets ...] [--seeds 0,42] [--time-limit 20]
    /path/to/other/venv/bin/python benchmarks/highs_versions.py run --out highs-1.15.jsonl
    python benchmarks/highs_versions.py compare highs-1.15.jsonl highs-1.16.jsonl

Each run fits OLCT at depth 2 (V0, the authors' fixed C, 80/20 split per seed, one thread, HiGHS in process)
with `olctc.fit` and records the true MILP objective, the status, the bound and the test balanced accuracy. The
second environment needs olctc installed (``pip install --no-deps -e .``) beside its own highspy.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics

# the authors' C per data set (root, last layer), as olctc/bench/fixed_C.csv (from their anchors' README)
FIXED_C = {"breast": (1, 1), "climate": (0.1, 1), "haberman": (0.1, 100), "heart": (1, 0.1),
           "ionosphere": (0.1, 0.1), "parkinsons": (10, 10), "sonar": (1, 0.1), "spectf": (100, 10),
           "tic-tac-toe": (1, 0.01), "wholesale": (0.01, 1)}


def run(args: argparse.Namespace) -> None:
    import highspy

    from olctc.datasets import load
    from olctc.fit import fit
    from olctc.spec import make_spec

    version = highspy.Highs().version()
    print(f"HiGHS {version}; {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with open(args.out, "w") as out:
        for name in args.datasets.split(","):
            ds = load(name)
            spec = make_spec("olct", 2, C=FIXED_C[name])
            for seed in (int(s) for s in args.seeds.split(",")):
                s = fit(ds, spec, solver="highs", time_limit=args.time_limit, threads=1, test_size=0.2, seed=seed,
                        verbose=False).summary
                row = {"highs": version, "data": name, "seed": seed, "objective": s["objective_milp_true"],
                       "status": s["status"], "bound": s["bound"], "test_bacc": s["test_balanced_accuracy"],
                       "time": s["time_total"]}
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(f"{name:<12} seed {seed:>3}: objective {row['objective']:.6g} ({row['status']}), test bacc "
                      f"{row['test_bacc']:.4f}", flush=True)


def compare(args: argparse.Namespace) -> None:
    runs = []
    for path in args.files:
        with open(path) as f:
            runs.append({(r["data"], r["seed"]): r for r in map(json.loads, f)})
    a, b = runs
    keys = [k for k in a if k in b]
    va, vb = a[keys[0]]["highs"], b[keys[0]]["highs"]
    print(f"| data set | seed | objective HiGHS {va} | HiGHS {vb} | test bal. acc. {va} | {vb} |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        ra, rb = a[k], b[k]

        def obj(r, other):
            text = f"{r['objective']:.6g}" + (" (optimal)" if r["status"] == "optimal" else "")
            return f"**{text}**" if r["objective"] < other["objective"] * (1 - 1e-6) else text

        print(f"| {k[0]} | {k[1]} | {obj(ra, rb)} | {obj(rb, ra)} | {ra['test_bacc']:.4f} | {rb['test_bacc']:.4f} |")
    better = sum(a[k]["objective"] < b[k]["objective"] * (1 - 1e-6) for k in keys)
    worse = sum(b[k]["objective"] < a[k]["objective"] * (1 - 1e-6) for k in keys)
    ratio = statistics.median(b[k]["objective"] / a[k]["objective"] for k in keys)
    print(f"\n{len(keys)} fits: HiGHS {va} lower objective in {better}, HiGHS {vb} in {worse}; median ratio of "
          f"{vb}'s objective to {va}'s {ratio:.4f}; mean test balanced accuracy {va} "
          f"{statistics.mean(a[k]['test_bacc'] for k in keys):.4f}, {vb} "
          f"{statistics.mean(b[k]['test_bacc'] for k in keys):.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--datasets", default=",".join(FIXED_C))
    r.add_argument("--seeds", default="0,42")
    r.add_argument("--time-limit", type=float, default=20.0)
    c = sub.add_parser("compare")
    c.add_argument("files", nargs=2)
    args = ap.parse_args()
    run(args) if args.cmd == "run" else compare(args)


if __name__ == "__main__":
    main()
