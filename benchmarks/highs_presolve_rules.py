"""What does turning off HiGHS's "Parallel rows and columns" presolve rule cost? (olctc/emit/params.py WORKAROUNDS)

With that rule and the Aggregator both on, HiGHS's presolve cut the optimum off an OCT-H model in score-variable
form and proved a worse tree optimal; olctc turns the rule off (presolve_rule_off bit 13) for every HiGHS run.
This runs `olctc.fit` (score columns, fit's default; its warm start; one thread) with HiGHS's presolve_rule_off
at Sparsify only (olctc's setting before) or at Sparsify + Parallel rows and columns (now), one process per
setting side by side, then compares the fits:

    python benchmarks/highs_presolve_rules.py run --rules-off 16384 --preset olct > rules-16384.jsonl &
    python benchmarks/highs_presolve_rules.py run --rules-off 24576 --preset olct > rules-24576.jsonl &
    wait; python benchmarks/highs_presolve_rules.py compare rules-16384.jsonl rules-24576.jsonl

One JSON line per fit: the true MILP objective (lower is better), status, the solver's bound and time.
"""
from __future__ import annotations

import argparse
import json
import time

from default_solver import FIXED_C

DATASETS = "breast,heart,sonar,tic-tac-toe,parkinsons,haberman,wholesale"


def run(rules_off: int, preset: str, time_limit: float, seeds: list[int], datasets: list[str]) -> None:
    from olctc.datasets import load
    from olctc.emit import params
    from olctc.fit import fit
    from olctc.spec import make_spec

    # every in-process HiGHS solve takes WORKAROUNDS["highs"] on top of olctc's tolerances
    params.WORKAROUNDS["highs"]["presolve_rule_off"] = rules_off
    for name in datasets:
        ds = load(name)
        C = FIXED_C[name] if preset == "olct" else [1.0, 1.0]
        for seed in seeds:
            t0 = time.time()
            s = fit(ds, make_spec(preset, 2, C=C, score_variables=True), solver="highs", time_limit=time_limit,
                    threads=1, test_size=0.2, seed=seed, verbose=False).summary
            print(json.dumps({"rules_off": rules_off, "preset": preset, "ds": name, "seed": seed,
                              "obj": s["objective_milp_true"], "status": s["status"], "bound": s.get("bound"),
                              "solve": round(s["time_solve"], 2), "wall": round(time.time() - t0, 1)}), flush=True)


def compare(base_path: str, other_path: str) -> None:
    def rows(path: str) -> dict:
        return {(r["preset"], r["ds"], r["seed"]): r for r in map(json.loads, open(path)) if r}

    base, other = rows(base_path), rows(other_path)
    for key in sorted(set(base) & set(other)):
        a, b = base[key], other[key]
        print(f"{key[0]:<6} {key[1]:<12} seed {key[2]:>3}: objective {a['obj']:.6g} -> {b['obj']:.6g}, bound "
              f"{a['bound']:.6g} -> {b['bound']:.6g}, {a['status']} in {a['solve']} s -> {b['status']} in "
              f"{b['solve']} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--rules-off", type=int, required=True)
    r.add_argument("--preset", default="olct", choices=["olct", "oct-h"])
    r.add_argument("--time-limit", type=float, default=30)
    r.add_argument("--seeds", default="0,42")
    r.add_argument("--datasets", default=DATASETS)
    c = sub.add_parser("compare")
    c.add_argument("base")
    c.add_argument("other")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.rules_off, a.preset, a.time_limit, [int(s) for s in a.seeds.split(",")], a.datasets.split(","))
    else:
        compare(a.base, a.other)


if __name__ == "__main__":
    main()
