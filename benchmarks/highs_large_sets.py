"""HiGHS on the large LIBSVM sets: wall time of a whole `fit` against its --time-limit, both model forms,
as the console program (`olctc fit`, which leaves a HiGHS run still busy past the limit) and as the
library's `olctc.fit.fit` (which waits for HiGHS: the baseline); with olctc's HiGHS settings and, with
--baseline, HiGHS's sparsify presolve step back on.

Usage:
    python benchmarks/highs_large_sets.py [--datasets a6a,w5a,phishing] [--limit 60] [--modes cli,library]
                                          [--kill-after 300] [--baseline a6a:15]

Each fit runs in a fresh process (seed 0, 80/20 split, depth 2, HiGHS with its default threads), timed from
the outside and killed after --kill-after seconds: HiGHS 1.16's sparsify step checks no time limit and
did not return in 15 minutes on a6a's score-variable form. The baseline runs (`--baseline DATA:LIMIT`,
score form, library) switch sparsify on again (presolve_rule_off = 0) in that process only.
Reports per run: wall time, the solver's status, and whether the tree improved on the MIP start.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

RUN = r"""
import json, sys
from olctc.emit import params
dataset, form, limit, sparsify, mode, out = sys.argv[1:7]
if sparsify == "on":  # the baseline: HiGHS's sparsify step as HiGHS ships it
    params.WORKAROUNDS["highs"] = {"presolve_rule_off": 0}
keys = ("raw_status", "objective_warm_start", "objective_milp_true", "n_train", "warm_start_kept")
if mode == "cli":
    from olctc.cli import main
    sys.argv = ["olctc", "fit", "--dataset", dataset, "--depth", "2", "--time-limit", limit, "--quiet", "-o", out,
                "--score-variables" if form == "score" else "--paper-form"]
    main()  # the parent reads the tree file: main may leave by os._exit
from olctc.datasets import load
from olctc.fit import fit
from olctc.spec import make_spec
spec = make_spec("olct", 2, score_variables=form == "score")
s = fit(load(dataset), spec, time_limit=float(limit), test_size=0.2, seed=0, verbose=False).summary
print(json.dumps({k: s.get(k) for k in keys}))
"""


def run(dataset: str, form: str, limit: float, sparsify: str, mode: str, kill_after: float) -> dict:
    t = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "tree.json")
            p = subprocess.run([sys.executable, "-c", RUN, dataset, form, str(limit), sparsify, mode, out],
                               capture_output=True, text=True, timeout=kill_after)
            if p.returncode == 0 and mode == "cli":
                s = json.load(open(out))["meta"]["fit"]
    except subprocess.TimeoutExpired:
        return {"wall": time.perf_counter() - t, "result": f"killed after {kill_after:.0f} s"}
    wall = time.perf_counter() - t
    if p.returncode != 0:
        return {"wall": wall, "result": "error: " + p.stderr.strip().splitlines()[-1]}
    if mode != "cli":
        s = json.loads(p.stdout.strip().splitlines()[-1])
    if s.get("warm_start_kept"):
        what = f"kept the warm start: {s['warm_start_kept']}"
    else:
        better = s["objective_milp_true"] < s["objective_warm_start"] * (1 - 1e-9)
        what = f"{s['raw_status']}; {'improved on' if better else 'kept'} the MIP start"
    return {"wall": wall, "result": f"{what} ({s['n_train']} training points)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="a6a,w5a,phishing")
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--modes", default="cli,library", help="cli: `olctc fit`; library: olctc.fit.fit")
    ap.add_argument("--kill-after", type=float, default=300.0)
    ap.add_argument("--baseline", default="", help="DATA:LIMIT runs with sparsify on, library ('' for none)")
    a = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print("| data set | form | --time-limit | run as | HiGHS sparsify | wall | result |")
    print("|---|---|---|---|---|---|---|")
    runs = [(d, f, a.limit, "off", m) for d in a.datasets.split(",") for f in ("score", "paper")
            for m in a.modes.split(",")]
    for item in filter(None, a.baseline.split(",")):
        d, limit = item.split(":")
        runs += [(d, "score", float(limit), "off", "library"), (d, "score", float(limit), "on", "library")]
    for d, f, limit, sparsify, mode in runs:
        r = run(d, f, limit, sparsify, mode, a.kill_after)
        print(f"| {d} | {f} | {limit:g} s | {mode} | {sparsify} | {r['wall']:.1f} s | {r['result']} |", flush=True)


if __name__ == "__main__":
    main()
