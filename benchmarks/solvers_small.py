"""The in-process solvers on the same small models: time to a proven optimum, and whether they agree on it.

Usage:
    python benchmarks/solvers_small.py [--datasets heart,haberman] [--n 48] [--seeds 0,1] [--presets olct,oct-h]
        [--solvers highs,cbc,gurobi,cplex,copt,xpress] [--time-limit 30]

For each (data set, seed, preset): ``n`` points drawn at random from the data set (stratified by nothing: a plain
draw), depth 2, the authors' C for the data set (root, last layer), V0, compiled once to MPS with its MIP start;
then every solver solves that file in process (``olctc.solve.solve_file``, one thread, relative gap 1e-4 for all,
the start given), in an order that rotates from model to model. The models stay inside every pip wheel's size
limit (CPLEX Community: 1000 rows and 1000 columns): 48 points at depth 2 make about 500 rows and 300 columns.

Reported per solver: models solved to optimality within the limit, the shifted geometric mean of the solve
times (unsolved ones at the limit; shift 1 s), the median time of the models every solver solved, and how often
its tree's true objective (recomputed from the values with the real routing, as ``olctc decode`` does) is the best
found (within 1e-6 relative). MIQP presets (margot*) run the solvers that take them.
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import tempfile
from pathlib import Path

FIXED_C = {"breast": (1, 1), "haberman": (0.1, 100), "heart": (1, 0.1), "ionosphere": (0.1, 0.1),
           "parkinsons": (10, 10), "sonar": (1, 0.1), "wholesale": (0.01, 1)}
MIQP_SOLVERS = ("scip", "gurobi", "cplex", "copt", "xpress")


def shifted_geomean(times: list[float], shift: float = 1.0) -> float:
    return math.exp(statistics.fmean(math.log(t + shift) for t in times)) - shift


def main() -> None:
    import numpy as np

    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.datasets import load
    from olctc.decode import decode_arrays
    from olctc.errors import OlctcError
    from olctc.pipeline import write_compiled
    from olctc.solve import solve_file
    from olctc.spec import make_spec

    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="heart,haberman")
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--presets", default="olct,oct-h")
    ap.add_argument("--solvers", default="highs,cbc,gurobi,cplex,copt,xpress")
    ap.add_argument("--time-limit", type=float, default=30.0)
    args = ap.parse_args()
    solvers = args.solvers.split(",")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{args.n} points, depth 2, one thread, gap 1e-4, {args.time_limit:g} s")
    rows = []
    k = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.datasets.split(","):
            full = load(name)
            for seed in (int(s) for s in args.seeds.split(",")):
                idx = np.random.default_rng(seed).choice(full.n, args.n, replace=False)
                ds = from_arrays(full.X[idx], full.y[idx], feature_names=list(full.feature_names))
                for preset in args.presets.split(","):
                    spec = make_spec(preset, 2, C=FIXED_C[name])
                    model = Path(tmp) / f"{name}-{seed}-{preset}.mps"
                    comp = compile_problem(ds, spec, name=model.stem)
                    write_compiled(comp, model)
                    names = [str(n) for n in comp.milp.col_names()]
                    start = model.with_name(model.stem + ".start.highs.sol")
                    if not start.exists():
                        start = model.with_name(model.stem + ".start.scip.sol")
                    runnable = [s for s in solvers if not spec.info.quadratic or s in MIQP_SOLVERS]
                    order = runnable[k % len(runnable):] + runnable[:k % len(runnable)]
                    k += 1
                    got = {}
                    for solver in order:
                        try:
                            res = solve_file(model, solver, time_limit=args.time_limit, threads=1, mip_gap=1e-4,
                                             start_path=start, verbose=False)
                        except OlctcError as exc:  # above a wheel's size limit (Xpress Community: MIQPs of 200)
                            print(f"  {solver}: {exc}")
                            continue
                        # the objective of the tree the values make, with its real routing: a solver whose
                        # tolerances route points for free (CBC on OCT-H) does not get the better figure
                        true = None
                        if res.x is not None:
                            values = dict(zip(res.col_names, res.x.tolist()))
                            x = np.array([values[n] for n in names])
                            dec = decode_arrays(comp.milp, spec, comp.X, comp.dataset.y, x, trusted=True)
                            true = dec.report.true_objective
                        got[solver] = (res.status, true, res.runtime)
                    best = min(o for _, o, _ in got.values() if o is not None)
                    rows.append((name, seed, preset, got, best))
                    cells = "  ".join(f"{s} {st[:3]} {'-' if o is None else f'{o:.6g}'} {t:.1f}s"
                                      for s, (st, o, t) in got.items())
                    print(f"{name} seed {seed} {preset}: {cells}", flush=True)
    print()
    print("| solver | optimal | shifted geomean time | median time (all solved) | best objective |")
    print("|---|---|---|---|---|")
    everyone = [r for r in rows if all(st == "optimal" for st, _, _ in r[3].values())]
    for solver in solvers:
        mine = [r for r in rows if solver in r[3]]
        if not mine:  # every model above its wheel's size limit
            print(f"| {solver} | 0/0 | - | - | - |")
            continue
        solved = sum(r[3][solver][0] == "optimal" for r in mine)
        times = [r[3][solver][2] if r[3][solver][0] == "optimal" else args.time_limit for r in mine]
        common = [r[3][solver][2] for r in everyone if solver in r[3]]
        best = sum(r[3][solver][1] is not None and r[3][solver][1] <= r[4] + 1e-6 * max(1.0, abs(r[4]))
                   for r in mine)
        med = f"{statistics.median(common):.2f} s" if common else "-"
        print(f"| {solver} | {solved}/{len(mine)} | {shifted_geomean(times):.2f} s | {med} | {best}/{len(mine)} |")


if __name__ == "__main__":
    main()
