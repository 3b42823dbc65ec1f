"""Growing a depth-3 tree from a depth-2 one (``fit --start-tree``) against a depth-3 fit from the greedy
warm start, for the same total time.

Per data set (the paper's depth-3 sets; seed 0's 80/20 split; C = 1 at every layer; one solver thread):

- greedy: depth 3 from the greedy warm start, 2T seconds;
- grown: depth 2 for T seconds, then depth 3 for T seconds started from that tree (deepened: its last layer
  copied below, the same predictions, or the new layer fit greedily below it, whichever has the lower
  objective; the column says which).

Both depth-3 fits solve the same model; the table gives its true objective (``objective_milp_true``: the
MILP's objective recomputed from the decoded tree, before refinement; lower is better), the start's, and
the test balanced accuracy. Run by hand:

    python benchmarks/start_tree.py [--seconds T] [--solver highs] [--datasets a,b]
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
    args = ap.parse_args()
    T = args.seconds
    kw = dict(solver=args.solver, threads=1, test_size=0.2, seed=0, verbose=False)
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}; T = {T:g} s, "
          f"{args.solver}, 1 thread")
    print("| data set | greedy 2T: start -> objective | test BA | grown T+T: start -> objective | test BA | "
          "deepened by | objective grown / greedy |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for name in args.datasets.split(","):
        ds = load(name)
        spec3 = make_spec(depth=3, C=1.0, score_variables=True)
        t0 = time.perf_counter()
        greedy = fit(ds, spec3, time_limit=2 * T, **kw).summary
        t1 = time.perf_counter()
        two = fit(ds, make_spec(depth=2, C=1.0, score_variables=True), time_limit=T, **kw)
        grown = fit(ds, spec3, time_limit=T, start_tree=two.tree, **kw).summary
        t2 = time.perf_counter()
        ratio = grown["objective_milp_true"] / greedy["objective_milp_true"]
        ratios.append(ratio)
        print(f"| {name} | {greedy['objective_warm_start']:.4g} -> {greedy['objective_milp_true']:.4g} "
              f"({t1 - t0:.0f} s) | {100 * greedy['test_balanced_accuracy']:.2f} | "
              f"{grown['objective_warm_start']:.4g} -> {grown['objective_milp_true']:.4g} ({t2 - t1:.0f} s) | "
              f"{100 * grown['test_balanced_accuracy']:.2f} | {grown.get('warm_start_deepened', '-')} | "
              f"{ratio:.3f} |", flush=True)
    lower = sum(r < 1 - 1e-6 for r in ratios)
    higher = sum(r > 1 + 1e-6 for r in ratios)
    print(f"\ngrown lower in {lower}, higher in {higher}, equal in {len(ratios) - lower - higher} of {len(ratios)}")


if __name__ == "__main__":
    main()
