"""`olctc fit --cv K --jobs J`: wall time of the cross-validation with J fold fits at a time against one at a
time (the baseline), in the same session, alternating so that the machine's noise falls on both.

Usage:
    python benchmarks/cv_jobs.py [--dataset heart] [--depth 2] [--C-values 0.1,10] [--folds 2]
                                 [--limit 8] [--jobs 2] [--repeat 3]

Library `olctc.cv.cross_validate` (seed 0, 80/20 split, score form, one HiGHS thread per fit), each run in a
fresh process so that every one pays its own imports and, with J > 1, starts its own fork server. Prints
each run's CV time and the table's C, then the medians and their ratio; the chosen C must agree.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

RUN = r"""
import json, sys, time
t0 = time.perf_counter()
from olctc.cv import cross_validate
from olctc.datasets import load
from olctc.spec import make_spec
ds, depth, values, folds, limit, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), \
    float(sys.argv[5]), int(sys.argv[6])
cv = cross_validate(load(ds), make_spec(depth=depth, score_variables=True), folds=folds, C_values=values,
                    time_limit=limit, threads=1, jobs=jobs)
print(json.dumps({"cv": cv.seconds, "wall": time.perf_counter() - t0, "best": list(cv.best),
                  "optimal": sum(r.status == "optimal" for r in cv.fits), "fits": len(cv.fits)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="heart")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--C-values", dest="C_values", default="0.1,10")
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--limit", type=float, default=8.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}; "
          f"{a.dataset} depth {a.depth}, C values {a.C_values}, {a.folds} folds, {a.limit:g} s per fit")
    times: dict[int, list[float]] = {1: [], a.jobs: []}
    best = set()
    for rep in range(a.repeat):
        for jobs in (1, a.jobs):
            out = subprocess.run([sys.executable, "-c", RUN, a.dataset, str(a.depth), a.C_values, str(a.folds),
                                  str(a.limit), str(jobs)], capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            times[jobs].append(r["cv"])
            best.add(tuple(r["best"]))
            print(f"run {rep} jobs {jobs}: cross-validation {r['cv']:.1f} s (process {r['wall']:.1f} s), "
                  f"{r['optimal']}/{r['fits']} fits optimal, best C {r['best']}, load {os.getloadavg()[0]:.2f}")
            time.sleep(1)
    m1, mj = statistics.median(times[1]), statistics.median(times[a.jobs])
    print(f"median cross-validation: jobs 1 {m1:.1f} s, jobs {a.jobs} {mj:.1f} s; ratio {m1 / mj:.2f}x; "
          f"best C {'agrees' if len(best) == 1 else 'DIFFERS: ' + str(sorted(best))}")


if __name__ == "__main__":
    main()
