"""How often does a solver call a tree "optimal" that is not? Small instances solved to a gap of 0.

Usage:
    python benchmarks/cbc_false_optima.py [--datasets ...] [--seeds 3,4,5] [--debian /usr/bin/cbc] [--preset oct-h]
                                          [--shapes 2:30,2:60,3:24]

Instances: for each data set and seed, 30 and 60 random rows at depth 2 and 24 rows at depth 3 (--shapes,
depth:rows; OLCT, V0, C = 1, or --preset's defaults), standardised on those rows. Each is solved, one thread,
mip_gap 0, tolerances 1e-9, by HiGHS (the reference), by python-mip's CBC with olctc's settings (CBC_PARAMETERS:
preprocessing off, increment 1e-9), by the same CBC with only the tight tolerances (its own preprocessing), and,
with --debian, by Debian's CBC 2.10 program with olctc's flags. Wherever a solver's optimum differs from HiGHS's by
more than 1e-6 relative, or calls the model infeasible (every instance has a feasible point: w = 0 with any
routing), SCIP solves the instance too and settles it. Prints one line per disputed instance and the counts:
"worse" (an "optimal" above the optimum), "below" (an "optimal" below it: rows missed by more than the tolerances)
and "infeasible".
"""
from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

DATASETS = "heart,breast,sonar,haberman,wholesale,parkinsons,ionosphere,spectf,climate,tic-tac-toe"
SHAPES = "2:30,2:60,3:24"  # depth:rows


def instances(datasets: list[str], seeds: list[int], preset: str = "olct", shapes: str = SHAPES):
    """(name, MILP) of every small instance."""
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.datasets import load
    from olctc.spec import make_spec

    for name in datasets:
        ds = load(name)
        for depth, n in (map(int, s.split(":")) for s in shapes.split(",")):
            for seed in seeds:
                rows = np.random.default_rng(seed).choice(ds.n, n, replace=False)
                part = from_arrays(ds.X[rows], ds.y[rows], name=f"{name}-{depth}-{n}-{seed}")
                if len(np.unique(part.y)) < 2:
                    continue
                yield part.name, compile_problem(part, make_spec(preset, depth)).milp


def cbc_defaults(path: Path) -> tuple[str, float | None]:
    """python-mip's CBC at 1e-9 tolerances and its own preprocessing (olctc before 2026-11-25)."""
    import mip

    m = mip.Model(solver_name=mip.CBC)
    m.verbose = 0
    m.read(str(path))
    m.integer_tol, m.infeas_tol, m.threads, m.max_mip_gap = 1e-9, 1e-9, 1, 0.0
    status = m.optimize(max_seconds=120)
    optimal = status == mip.OptimizationStatus.OPTIMAL
    return ("optimal" if optimal else status.name.lower()), (m.objective_value if optimal else None)


def debian(program: str, path: Path) -> tuple[str, float | None]:
    from olctc.emit.params import cbc_args

    sol = path.with_suffix(".deb.sol")
    subprocess.run([program, str(path), *cbc_args(time_limit=120), "-solve", "-solu", str(sol)],
                   capture_output=True, text=True, timeout=300)
    first = sol.read_text().splitlines()[0] if sol.exists() else ""
    found = re.match(r"Optimal - objective value (\S+)", first)
    return ("optimal", float(found.group(1))) if found else (first[:40] or "no file", None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DATASETS)
    ap.add_argument("--seeds", default="3,4,5")
    ap.add_argument("--debian", default=None, help="Path of Debian's cbc program (coinor-cbc), if wanted.")
    ap.add_argument("--preset", default="olct", help="A MILP preset: olct, olct-univariate or oct-h.")
    ap.add_argument("--shapes", default=SHAPES, help="depth:rows of the instances (default %(default)s).")
    args = ap.parse_args()
    from olctc.emit.mps import write_mps
    from olctc.solve import solve_file, solve_milp

    kinds = ("worse", "below", "infeasible")
    wrong = {k: dict.fromkeys(kinds, 0) for k in ("cbc", "cbc-defaults", "debian")}
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, milp in instances(args.datasets.split(","), [int(s) for s in args.seeds.split(",")], args.preset,
                                    args.shapes):
            path = Path(tmp) / "model.mps"
            write_mps(milp, path)
            ref = solve_milp(milp, "highs", threads=1, mip_gap=0.0, time_limit=120, verbose=False)
            if ref.status != "optimal":
                print(f"{name}: HiGHS not optimal in 120 s, skipped", flush=True)
                continue
            total += 1
            got = {"cbc": solve_file(path, "cbc", threads=1, mip_gap=0.0, time_limit=120, verbose=False),
                   "cbc-defaults": cbc_defaults(path)}
            got["cbc"] = (got["cbc"].status, got["cbc"].objective)
            if args.debian:
                got["debian"] = debian(args.debian, path)
            tol = 1e-6 * max(1.0, abs(ref.objective))
            false = {k: ("worse" if obj > ref.objective + tol else "below" if obj < ref.objective - tol else None)
                     if status == "optimal" else "infeasible" if "infeasible" in status.lower()
                     else None for k, (status, obj) in got.items()}
            worse = [f"{k} ({kind})" for k, kind in false.items() if kind]
            for k, kind in false.items():
                if kind:
                    wrong[k][kind] += 1
            if worse:
                scip = solve_file(path, "scip", mip_gap=0.0, time_limit=300, verbose=False)
                shown = ", ".join(f"{k} {obj:.6g}" for k, (_, obj) in got.items() if obj is not None)
                settled = "-" if scip.objective is None else f"{scip.objective:.6g}"
                print(f"{name}: HiGHS {ref.objective:.6g}, SCIP {settled} ({scip.status}); {shown}; "
                      f"false: {', '.join(worse)}", flush=True)
    print(f"{total} {args.preset} instances; false claims against HiGHS's optimum: "
          + "; ".join(f"{k} " + ", ".join(f"{kind} {n}" for kind, n in counts.items())
                      for k, counts in wrong.items() if k != "debian" or args.debian))


if __name__ == "__main__":
    main()
