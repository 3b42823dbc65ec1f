"""Two bench folders of the same `models` runs, compared run by run (issue 6).

Two folders that differ in one setting (the model's form, the solver, its threads) hold two trees of
every (data set, seed), fitted to the same training part with the same C. This prints

- per data set: each folder's mean test balanced accuracy, that of the tree with the lower true model
  objective of each pair (`objective_milp_true`: the MILP's objective recomputed from the decoded tree,
  what the solve minimises, before refinement; a two-solver portfolio on one core each would keep that
  one, never the better test score), the authors' mean and CART's (from a folder that ran CART);
- the issue's target counts for B and for the lower-objective pick;
- how often B's objective is lower, higher or equal (relative 1e-6) and the geometric mean of B / A.

    python benchmarks/compare_benches.py FOLDER_A FOLDER_B [--model OLCT]

The pairs must be the same problem (checked: the same n_train, C, class weights and split).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from olctc.bench.experiments import anchor_for
from olctc.bench.folder import read_runs

OK = ("optimal", "feasible")


def _runs(folder: str, model: str) -> dict[tuple[str, int], dict]:
    recs, _ = read_runs(folder)
    out = {}
    for r in recs:  # the last record of a run wins (a rerun appends)
        if r.get("model") == model and r.get("status") in OK:
            out[(r["dataset"], int(r["seed"]))] = r
    return out


def _same_problem(a: dict, b: dict) -> bool:
    return (a["n_train"], a["C"], a.get("class_weight"), a.get("split")) == \
        (b["n_train"], b["C"], b.get("class_weight"), b.get("split"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs=2)
    ap.add_argument("--model", default="OLCT")
    args = ap.parse_args(argv)
    A, B = (_runs(f, args.model) for f in args.folders)
    cart: dict[tuple[str, int], float] = {}
    for f in args.folders:
        cart.update({k: r["test_balanced_accuracy"] for k, r in _runs(f, "CART").items()})
    keys = sorted(set(A) & set(B))
    if not keys:
        print("no (data set, seed) finished in both folders", file=sys.stderr)
        return 2
    for k in keys:
        if not _same_problem(A[k], B[k]):
            print(f"{k}: the folders' runs are not the same problem (n_train, C, class weights or split "
                  "differ)", file=sys.stderr)
            return 2
    names = [Path(f).name for f in args.folders]
    print(f"| data set | {names[0]} | {names[1]} | portfolio | picked from {names[0]} / {names[1]} | authors "
          "| CART |")
    print("|---|---|---|---|---|---|---|")
    counts: dict[str, dict[str, list[str]]] = {w: {"within": [], "not_below": [], "above_cart": []}
                                               for w in ("B", "pick")}
    for d in sorted({k[0] for k in keys}):
        seeds = [s for (dd, s) in keys if dd == d]
        a = [100 * A[(d, s)]["test_balanced_accuracy"] for s in seeds]
        b = [100 * B[(d, s)]["test_balanced_accuracy"] for s in seeds]
        pick_a = [A[(d, s)]["objective_milp_true"] <= B[(d, s)]["objective_milp_true"] for s in seeds]
        p = [x if pa else y for x, y, pa in zip(a, b, pick_a)]
        anchor = [anchor_for("models", args.model, d, s) for s in seeds]
        auth = float(np.mean(anchor)) if None not in anchor else None
        c = [100 * cart[(d, s)] for s in seeds if (d, s) in cart]
        cm = float(np.mean(c)) if len(c) == len(seeds) else None
        pm = float(np.mean(p))
        for who, m in (("B", float(np.mean(b))), ("pick", pm)):
            if auth is not None:
                if abs(m - auth) <= 1:
                    counts[who]["within"].append(d)
                if m >= auth - 1:
                    counts[who]["not_below"].append(d)
            if cm is not None and m > cm:
                counts[who]["above_cart"].append(d)
        fmt = lambda v: "" if v is None else f"{v:.2f}"  # noqa: E731
        print(f"| {d} ({len(seeds)} seeds) | {np.mean(a):.2f} | {np.mean(b):.2f} | **{pm:.2f}** | "
              f"{sum(pick_a)} / {len(seeds) - sum(pick_a)} | {fmt(auth)} | {fmt(cm)} |")
    print()
    for who, label in (("B", names[1]), ("pick", "lower objective")):
        print(f"{label}: " + "; ".join(f"{k} {len(v)} ({', '.join(v)})" for k, v in counts[who].items()))
    oa = np.array([A[k]["objective_milp_true"] for k in keys])
    ob = np.array([B[k]["objective_milp_true"] for k in keys])
    tie = np.abs(oa - ob) <= 1e-6 * np.maximum(1.0, np.abs(oa))
    print(f"objective of {names[1]} against {names[0]}, {len(keys)} pairs: lower {int(np.sum(~tie & (ob < oa)))}, "
          f"higher {int(np.sum(~tie & (ob > oa)))}, equal {int(tie.sum())}; geometric mean ratio "
          f"{float(np.exp(np.mean(np.log(ob / oa)))):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
