"""SCIP's symmetry detection (nauty, in presolve), which checks no clock: the wall time of a SCIP solve against its
time limit on a MIQP of repeated points, and what turning it off costs in bound on the UCI sets.

Usage:
    python benchmarks/scip_symmetry.py limit [--points 3000] [--rows 20] [--limit 2] [--kill-after 300]
    python benchmarks/scip_symmetry.py bounds [--runs margot:haberman,...] [--limit 60]

Each solve runs in a fresh process, under one of three SCIP settings: `on` (olctc's settings without
misc/usesymmetry = 0: SCIP's symmetry handling as it ships, the baseline), `off` (olctc's settings) and
`nautymaxlevel` (symmetry on, nauty's search depth limited to 100; SCIP 10 only).
- `limit`: MARGOT, depth 2, C = 0.5, on --points points that are --rows distinct random rows of 5 features (10% of
  the labels flipped; seed 0), solved by `olctc.solve.solve_milp` with SCIP, one thread, --limit seconds: wall
  time and status.
- `bounds`: `fit` through the estimators on the whole data set (MARGOTClassifier C = 0.5 or OLCTClassifier C = 1,
  depth 2, SCIP, --limit seconds): the status, the bound, the gap and the solve time.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

SETTINGS = {"on": None, "off": {}, "nautymaxlevel": {"propagating/symmetry/nautymaxlevel": 100}}

RUN = r"""
import json, sys, time
import numpy as np
from olctc.emit import params
part, setting, extra, limit = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4])
scip = dict(params.WORKAROUNDS["scip"])
if setting == "on":
    scip.pop("misc/usesymmetry")
params.WORKAROUNDS["scip"] = {**scip, **extra}
if part == "limit":
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.solve import solve_milp
    from olctc.spec import make_spec
    n, k = int(sys.argv[5]), int(sys.argv[6])
    rng = np.random.default_rng(0)
    rows, labels = rng.normal(size=(k, 5)), rng.integers(0, 2, size=k) * 2 - 1
    idx = rng.integers(0, k, size=n)
    y = np.where(rng.random(n) < 0.1, -labels[idx], labels[idx])
    milp = compile_problem(from_arrays(rows[idx], y, name="repeated"), make_spec("margot", 2, 0.5)).milp
    t = time.perf_counter()
    r = solve_milp(milp, "scip", time_limit=limit, threads=1, verbose=False)
    print(json.dumps({"status": r.status, "solve": time.perf_counter() - t}))
else:
    import warnings
    from olctc import MARGOTClassifier, OLCTClassifier, load_dataset
    model, dataset = sys.argv[5], sys.argv[6]
    X, y, _ = load_dataset(dataset)
    est = (MARGOTClassifier(depth=2, C=0.5, solver="scip", time_limit=limit) if model == "margot"
           else OLCTClassifier(depth=2, C=1.0, solver="scip", time_limit=limit))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    s = est.summary_
    print(json.dumps({k: s.get(k) for k in ("status", "bound", "gap", "time_solve")}))
"""


def run(part: str, setting: str, limit: float, args: list[str], kill_after: float) -> dict:
    extra = SETTINGS[setting] or {}
    t = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", RUN, part, setting, json.dumps(extra), str(limit), *args],
                           capture_output=True, text=True, timeout=kill_after)
    except subprocess.TimeoutExpired:
        return {"wall": time.perf_counter() - t, "status": f"killed after {kill_after:.0f} s"}
    if p.returncode != 0:
        return {"wall": time.perf_counter() - t, "status": "error: " + (p.stderr.strip().splitlines() or ["?"])[-1]}
    return {"wall": time.perf_counter() - t, **json.loads(p.stdout.strip().splitlines()[-1])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=["limit", "bounds"])
    ap.add_argument("--points", type=int, default=3000)
    ap.add_argument("--rows", type=int, default=20)
    ap.add_argument("--runs", default="margot:haberman,margot:heart,margot:wholesale,margot:parkinsons,"
                                      "margot:breast,olct:haberman,olct:heart")
    ap.add_argument("--settings", default="on,off,nautymaxlevel")
    ap.add_argument("--limit", type=float, default=None, help="seconds (default: 2 for limit, 60 for bounds)")
    ap.add_argument("--kill-after", type=float, default=300.0)
    a = ap.parse_args()
    settings = a.settings.split(",")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if a.part == "limit":
        limit = 2.0 if a.limit is None else a.limit
        print(f"# MARGOT depth 2 on {a.points} points of {a.rows} distinct rows, SCIP, --limit {limit:g} s")
        print("| symmetry | wall of the solve | whole process | status |")
        print("|---|---|---|---|")
        for setting in settings:
            r = run("limit", setting, limit, [str(a.points), str(a.rows)], a.kill_after)
            solve = f"{r['solve']:.1f} s" if "solve" in r else "-"
            print(f"| {setting} | {solve} | {r['wall']:.1f} s | {r['status']} |", flush=True)
        return
    limit = 60.0 if a.limit is None else a.limit
    print(f"# fit on the whole data set, depth 2, SCIP, --limit {limit:g} s")
    print("| data set | model | symmetry | status | bound | gap | solve time |")
    print("|---|---|---|---|---|---|---|")
    for item in a.runs.split(","):
        model, dataset = item.split(":")
        for setting in settings:
            r = run("bounds", setting, limit, [model, dataset], a.kill_after)
            bound = "-" if r.get("bound") is None else f"{r['bound']:.3f}"
            gap = "-" if r.get("gap") is None else f"{100 * r['gap']:.1f}%"
            solve = "-" if r.get("time_solve") is None else f"{r['time_solve']:.1f} s"
            print(f"| {dataset} | {model} | {setting} | {r['status']} | {bound} | {gap} | {solve} |", flush=True)


if __name__ == "__main__":
    main()
