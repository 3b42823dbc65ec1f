"""fit's reserve for decoding and refinement: the time a fit spends after its solve, against the reserve
``solver_budget`` kept for it, with today's rule (at least the warm start's time) and the earlier one
(half the build time, at least 0.5 s: the baseline, patched in its process).

Usage:
    python benchmarks/fit_reserve.py [--datasets w5a,a6a,phishing,german.numer,breast] [--limit 20]

Each fit runs in a fresh process (library `olctc.fit.fit`: seed 0, 80/20 split, depth 2, score form, one
HiGHS thread). Reports per fit: build, warm start, the time after the solve (decoding and refinement), the
reserve the rule kept, and the overshoot of the whole fit past --limit (which also holds HiGHS's own
overrun on the large sets, docs/BENCHMARKS.md "HiGHS on the large sets").
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

RUN = r"""
import json, sys
import olctc.fit as f
dataset, limit, rule = sys.argv[1], float(sys.argv[2]), sys.argv[3]
kept = {}
rule_now = f.solver_budget
def budget(time_limit, spent, t_build, t_warm=0.0):
    if rule == "baseline":
        t_warm = 0.0  # the earlier rule: max(0.5, 0.5 * t_build)
    kept["reserve"] = max(0.5, 0.5 * t_build, t_warm)
    return rule_now(time_limit, spent, t_build, t_warm)
f.solver_budget = budget
from olctc.datasets import load
from olctc.spec import make_spec
s = f.fit(load(dataset), make_spec("olct", 2), time_limit=limit, test_size=0.2, seed=0, threads=1,
          verbose=False).summary
after = s["time_total"] - s["time_build"] - s["time_warm_start"] - s["time_solve"]
print(json.dumps({"build": s["time_build"], "warm": s["time_warm_start"], "after": after,
                  "reserve": kept["reserve"], "total": s["time_total"]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="w5a,a6a,phishing,german.numer,breast")
    ap.add_argument("--limit", type=float, default=20.0)
    a = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print("| data set | rule | build | warm start | after the solve | reserve kept | fit total - limit |")
    print("|---|---|---|---|---|---|---|")
    for d in a.datasets.split(","):
        for rule in ("baseline", "now"):
            p = subprocess.run([sys.executable, "-c", RUN, d, str(a.limit), rule], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"| {d} | {rule} | error: {p.stderr.strip().splitlines()[-1]} |||||", flush=True)
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            print(f"| {d} | {rule} | {r['build']:.2f} s | {r['warm']:.2f} s | {r['after']:.2f} s | "
                  f"{r['reserve']:.2f} s | {r['total'] - a.limit:+.2f} s |", flush=True)


if __name__ == "__main__":
    main()
