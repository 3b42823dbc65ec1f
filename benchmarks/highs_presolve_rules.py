"""What does turning off a HiGHS presolve rule cost? (olctc/emit/params.py WORKAROUNDS)

With its Aggregator and Parallel rows and columns rules both on, HiGHS's presolve cut the optimum off OCT-H
models and proved worse trees optimal; olctc turns both off (presolve_rule_off bits 12 and 13) for every HiGHS
run. This runs `olctc.fit` (score columns, fit's default; its warm start; one thread) with HiGHS's
presolve_rule_off at Sparsify only (16384, olctc's setting before) or at Sparsify + Aggregator + Parallel rows
and columns (28672, now), one process per setting side by side, then compares the fits:

    python benchmarks/highs_presolve_rules.py run --rules-off 16384 --preset olct > rules-16384.jsonl &
    python benchmarks/highs_presolve_rules.py run --rules-off 28672 --preset olct > rules-28672.jsonl &
    wait; python benchmarks/highs_presolve_rules.py compare rules-16384.jsonl rules-28672.jsonl

One JSON line per fit: the true MILP objective (lower is better), status, the solver's bound and time.

`scan` is the measurement that chose the rules: random depth-1 models of 5-11 points (the formulation fuzz's
data: tests/test_fuzz_formulation.py), each solved by HiGHS with the given presolve_rule_off and by HiGHS without
presolve; it prints the models where the two optima differ:

    python benchmarks/highs_presolve_rules.py scan --rules-off 16384 --preset oct-h --form score --seeds 0-499
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from default_solver import FIXED_C

DATASETS = "breast,heart,sonar,tic-tac-toe,parkinsons,haberman,wholesale"


def run(rules_off: int, preset: str, time_limit: float, seeds: list[int], datasets: list[str]) -> None:
    from olctc.datasets import load
    from olctc.emit import params
    from olctc.fit import fit
    from olctc.spec import make_spec

    # every in-process HiGHS solve takes WORKAROUNDS["highs"] on top of olctc's tolerances
    params.WORKAROUNDS["highs"]["presolve_rule_off"] = rules_off
    for name in datasets:
        ds = load(name)
        C = FIXED_C[name] if preset == "olct" else [1.0, 1.0]
        for seed in seeds:
            t0 = time.time()
            s = fit(ds, make_spec(preset, 2, C=C, score_variables=True), solver="highs", time_limit=time_limit,
                    threads=1, test_size=0.2, seed=seed, verbose=False).summary
            print(json.dumps({"rules_off": rules_off, "preset": preset, "ds": name, "seed": seed,
                              "obj": s["objective_milp_true"], "status": s["status"], "bound": s.get("bound"),
                              "solve": round(s["time_solve"], 2), "wall": round(time.time() - t0, 1)}), flush=True)


def scan(rules_off: int, preset: str, form: str, seeds: range) -> None:
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.test_fuzz_formulation import _data  # the fuzz's points: duplicates, equal columns, collinear ones

    from olctc.emit.mps import write_mps
    from olctc.emit.params import solver_settings
    from olctc.formulation import build_milp
    from olctc.solve.highs import new_highs
    from olctc.spec import make_spec

    def optimum(path: Path, **extra: float | int | str) -> float:
        h = new_highs(False)  # quiet from the first one on (HiGHS prints its banner on stdout)
        settings = {**solver_settings("highs", mip_gap=1e-9), "presolve_rule_off": rules_off, **extra}
        for k, v in settings.items():
            h.setOptionValue(k, int(v) if k == "presolve_rule_off" else v)
        h.readModel(str(path))
        h.run()
        return h.getInfo().objective_function_value

    wrong = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.mps"
        for seed in seeds:
            rng = np.random.default_rng(seed)
            n, p = int(rng.integers(5, 12)), int(rng.integers(1, 4))
            X, y = _data(rng, n, p)
            kw = {"C": [float(rng.choice([1, 10, 1000]))], "score_variables": form == "score"}
            alpha = float(rng.choice([0.0, 0.01, 0.5]))
            if preset == "oct-h":
                kw["alpha"] = alpha
            write_mps(build_milp(X, y, make_spec(preset, 1, **kw)), path)
            a, b = optimum(path), optimum(path, presolve="off")
            if abs(a - b) > 1e-6 * max(1.0, abs(b)):
                wrong += 1
                print(f"seed {seed}: {n} points, {p} features, {kw}: {a:.10g} with presolve, {b:.10g} without",
                      flush=True)
    print(f"{wrong} of {len(seeds)} {preset} models ({form} form) differ with presolve_rule_off = {rules_off}")


def compare(base_path: str, other_path: str) -> None:
    def rows(path: str) -> dict:
        return {(r["preset"], r["ds"], r["seed"]): r for r in map(json.loads, open(path)) if r}

    base, other = rows(base_path), rows(other_path)
    for key in sorted(set(base) & set(other)):
        a, b = base[key], other[key]
        print(f"{key[0]:<6} {key[1]:<12} seed {key[2]:>3}: objective {a['obj']:.6g} -> {b['obj']:.6g}, bound "
              f"{a['bound']:.6g} -> {b['bound']:.6g}, {a['status']} in {a['solve']} s -> {b['status']} in "
              f"{b['solve']} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--rules-off", type=int, required=True)
    r.add_argument("--preset", default="olct", choices=["olct", "oct-h"])
    r.add_argument("--time-limit", type=float, default=30)
    r.add_argument("--seeds", default="0,42")
    r.add_argument("--datasets", default=DATASETS)
    s = sub.add_parser("scan")
    s.add_argument("--rules-off", type=int, required=True)
    s.add_argument("--preset", default="oct-h", choices=["olct", "oct-h"])
    s.add_argument("--form", default="score", choices=["score", "paper"])
    s.add_argument("--seeds", default="0-499", help="FIRST-LAST")
    c = sub.add_parser("compare")
    c.add_argument("base")
    c.add_argument("other")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a.rules_off, a.preset, a.time_limit, [int(s) for s in a.seeds.split(",")], a.datasets.split(","))
    elif a.cmd == "scan":
        first, last = (int(v) for v in a.seeds.split("-"))
        scan(a.rules_off, a.preset, a.form, range(first, last + 1))
    else:
        compare(a.base, a.other)


if __name__ == "__main__":
    main()
