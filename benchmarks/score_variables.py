"""Does the score-variable form (--score-variables) solve as well as the paper's form?

Usage:
    python benchmarks/score_variables.py [--solvers cbc,highs] [--time-limit 30] [--datasets ...]

For each data set (seed 0 split, the authors' fixed C, OLCT depth 2, V0) and solver, the two forms are
fitted at the same time in two processes (one thread each, so both see the same machine load), with the
same warm start. Reports the MILP's true objective (the decoded tree's), the bound, the gap, and the
test balanced accuracy, side by side.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

DATASETS = "breast,heart,parkinsons,sonar,ionosphere,wholesale,climate,spectf"


def child(dataset: str, solver: str, time_limit: float, scores: bool) -> dict:
    from olctc.bench.experiments import fixed_C_table
    from olctc.datasets import load
    from olctc.fit import fit
    from olctc.spec import make_spec

    ds = load(dataset)
    spec = make_spec("olct", 2, C=fixed_C_table().get(dataset, (1.0, 1.0)), score_variables=scores)
    res = fit(ds, spec, solver=solver, time_limit=time_limit, threads=1, test_size=0.2, seed=0, verbose=False)
    s = res.summary
    return {k: s[k] for k in ("status", "gap", "bound", "objective_warm_start", "objective_milp_true",
                              "exact_objective_after_refine", "test_balanced_accuracy", "time_total")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DATASETS)
    ap.add_argument("--solvers", default="cbc,highs")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        dataset, solver, form = args.one
        print(json.dumps(child(dataset, solver, args.time_limit, form == "scores")))
        return
    print("| data set | solver | true objective inline | scores | bound inline | scores | test bacc inline | scores |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for solver in args.solvers.split(","):
        for dataset in args.datasets.split(","):
            procs = {form: subprocess.Popen([sys.executable, __file__, "--time-limit", str(args.time_limit),
                                             "--one", dataset, solver, form], stdout=subprocess.PIPE, text=True)
                     for form in ("inline", "scores")}
            texts = {f: p.communicate()[0] for f, p in procs.items()}
            for f, p in procs.items():
                if p.returncode != 0:  # its traceback went to stderr, above; its stdout is empty
                    sys.exit(f"error: the {f} fit of {dataset} with {solver} failed (exit {p.returncode})")
            out = {f: json.loads(texts[f].strip().splitlines()[-1]) for f in procs}
            a, b = out["inline"], out["scores"]

            def f(v, fmt=".4g"):
                return "-" if v is None else format(v, fmt)

            ratios.append(b["objective_milp_true"] / a["objective_milp_true"])
            print(f"| {dataset} | {solver} | {f(a['objective_milp_true'])} | {f(b['objective_milp_true'])} | "
                  f"{f(a['bound'])} | {f(b['bound'])} | {f(a['test_balanced_accuracy'], '.4f')} | "
                  f"{f(b['test_balanced_accuracy'], '.4f')} |", flush=True)
    print(f"\nmedian ratio of true objectives (scores / inline): {statistics.median(ratios):.3f}; "
          f"scores better in {sum(r < 1 - 1e-9 for r in ratios)} of {len(ratios)}, worse in "
          f"{sum(r > 1 + 1e-9 for r in ratios)}")


if __name__ == "__main__":
    main()
