"""Does more HiGHS heuristic effort give better OLCT trees at a fixed time limit? (issue 6)

On haberman, wholesale and climate HiGHS's bound stays near 0 (gaps 0.9-1.0 at 60 s): the search is a
heuristic one, so spending more of it on primal heuristics (`mip_heuristic_effort`, HiGHS's default 0.05)
might find better trees. Run one process per setting side by side (one thread each, so both see the same
machine), then compare:

    python benchmarks/highs_heuristic_effort.py run --effort 0.05 > effort-0.05.jsonl &
    python benchmarks/highs_heuristic_effort.py run --effort 0.3 > effort-0.3.jsonl &
    wait; python benchmarks/highs_heuristic_effort.py compare effort-0.05.jsonl effort-0.3.jsonl

Each fit: `olctc.fit` with the authors' fixed C, depth 2, V0, olctc's split (test_size 0.2) per seed; one
JSON line per fit with the true MILP objective (lower is better), status, gap and test balanced accuracy.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from default_solver import FIXED_C

HIGHS_DEFAULT_EFFORT = 0.05


def run(effort: float, time_limit: float, seeds: list[int], datasets: list[str]) -> None:
    from olctc.datasets import load
    from olctc.emit import params
    from olctc.fit import fit
    from olctc.spec import make_spec

    if effort != HIGHS_DEFAULT_EFFORT:
        # every in-process HiGHS solve takes WORKAROUNDS["highs"] on top of olctc's tolerances
        params.WORKAROUNDS.setdefault("highs", {})["mip_heuristic_effort"] = effort
    for name in datasets:
        ds = load(name)
        for seed in seeds:
            t0 = time.time()
            s = fit(ds, make_spec("olct", 2, C=FIXED_C[name]), solver="highs", time_limit=time_limit, threads=1,
                    test_size=0.2, seed=seed, verbose=False).summary
            print(json.dumps({"effort": effort, "ds": name, "seed": seed, "obj": s["objective_milp_true"],
                              "status": s["status"], "gap": s.get("gap"), "bacc": s["test_balanced_accuracy"],
                              "wall": round(time.time() - t0, 1)}), flush=True)


def compare(base_path: str, other_path: str) -> None:
    def rows(path: str) -> dict:
        return {(r["ds"], r["seed"]): r for r in map(json.loads, open(path)) if r}

    base, other = rows(base_path), rows(other_path)
    worse = better = same = 0
    for key in sorted(set(base) & set(other)):
        ratio = other[key]["obj"] / base[key]["obj"]
        verdict = "worse" if ratio > 1 + 1e-6 else "better" if ratio < 1 - 1e-6 else "same"
        worse, better, same = worse + (verdict == "worse"), better + (verdict == "better"), same + (verdict == "same")
        print(f"{key[0]:<12} seed {key[1]:>3}: objective {base[key]['obj']:.6g} -> {other[key]['obj']:.6g} "
              f"({ratio:.4f}, {verdict}); test bacc {base[key]['bacc']:.4f} -> {other[key]['bacc']:.4f}")
    print(f"second setting: better on {better}, worse on {worse}, same on {same} of {better + worse + same} fits")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--effort", type=float, required=True)
    r.add_argument("--time-limit", type=float, default=60.0)
    r.add_argument("--seeds", default="0,42")
    r.add_argument("--datasets", default=",".join(FIXED_C))
    c = sub.add_parser("compare")
    c.add_argument("base")
    c.add_argument("other")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args.effort, args.time_limit, [int(s) for s in args.seeds.split(",")], args.datasets.split(","))
    else:
        compare(args.base, args.other)


if __name__ == "__main__":
    sys.exit(main())
