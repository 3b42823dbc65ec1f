"""A fit in two parts, the second started from the first's tree (``fit --start-tree``), against one fit
from the greedy warm start, for the same total time.

Per data set (seed 0's 80/20 split; C = 1 at every layer; one solver thread):

- greedy: depth D from the greedy warm start, 2T seconds;
- two parts: depth F (--from-depth) for T seconds, then depth D for T seconds started from that tree. With
  F < D the tree is deepened (its last layer copied below, the same predictions, or the new layers fit
  greedily below it, whichever has the lower objective; the column says which); with F = D the second
  part goes on from where the first stopped (a resumed solve: the incumbent is kept, the bound is not).

Both depth-D fits solve the same model; the table gives its true objective (``objective_milp_true``: the
MILP's objective recomputed from the decoded tree, before refinement; lower is better), the start's, and
the test balanced accuracy. Run by hand:

    python benchmarks/start_tree.py [--seconds T] [--depth D] [--from-depth F] [--solver highs] [--datasets a,b]
"""
from __future__ import annotations

import argparse
import platform
import time

from olctc.datasets import load
from olctc.fit import fit
from olctc.spec import make_spec

SETS = ["parkinsons", "wholesale", "haberman", "ionosphere", "spectf"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="T (default 30)")
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--datasets", default=",".join(SETS))
    ap.add_argument("--depth", type=int, default=3, help="D (default 3)")
    ap.add_argument("--from-depth", type=int, default=2, help="F, the first part's depth (default 2)")
    args = ap.parse_args()
    T = args.seconds
    kw = dict(solver=args.solver, threads=1, test_size=0.2, seed=0, verbose=False)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; T = {T:g} s, "
          f"{args.solver}, 1 thread; depth {args.from_depth} then {args.depth}")
    print("| data set | greedy 2T: start -> objective | test BA | two parts T+T: start -> objective | test BA | "
          "deepened by | objective two parts / greedy |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for name in args.datasets.split(","):
        ds = load(name)
        spec = make_spec(depth=args.depth, C=1.0, score_variables=True)
        t0 = time.perf_counter()
        greedy = fit(ds, spec, time_limit=2 * T, **kw).summary
        t1 = time.perf_counter()
        first = fit(ds, make_spec(depth=args.from_depth, C=1.0, score_variables=True), time_limit=T, **kw)
        second = fit(ds, spec, time_limit=T, start_tree=first.tree, **kw).summary
        t2 = time.perf_counter()
        ratio = second["objective_milp_true"] / greedy["objective_milp_true"]
        ratios.append(ratio)
        print(f"| {name} | {greedy['objective_warm_start']:.4g} -> {greedy['objective_milp_true']:.4g} "
              f"({t1 - t0:.0f} s) | {100 * greedy['test_balanced_accuracy']:.2f} | "
              f"{second['objective_warm_start']:.4g} -> {second['objective_milp_true']:.4g} ({t2 - t1:.0f} s) | "
              f"{100 * second['test_balanced_accuracy']:.2f} | {second.get('warm_start_deepened', '-')} | "
              f"{ratio:.3f} |", flush=True)
    lower = sum(r < 1 - 1e-6 for r in ratios)
    higher = sum(r > 1 + 1e-6 for r in ratios)
    print(f"\ntwo parts lower in {lower}, higher in {higher}, equal in {len(ratios) - lower - higher} of {len(ratios)}")


if __name__ == "__main__":
    main()
