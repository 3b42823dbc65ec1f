"""Scaling of olctc's non-solver steps: time (and peak traced memory) of each step at three sizes.

Each step runs in this process on synthetic data; the MILP solve itself is not measured (the warm start
is completed into a full solution vector, written as start files and decoded instead).

    python benchmarks/scaling.py                       # every step, sizes small/medium/large, 1 repeat
    python benchmarks/scaling.py --steps tree_objective,refine --repeat 3
    python benchmarks/scaling.py --list
    # before/after of a change, in one checkout: pass a saved copy of the original module
    python benchmarks/scaling.py --steps band_shift,admissible_tree,admissible_l0 --repeat 3 \
        --warmstart-from /tmp/qa_scaling/ws_orig.py
    python benchmarks/scaling.py --steps summary_rows,bench_report --repeat 3 --report-from /tmp/qa_scaling/report_orig.py

Columns: step, size label, median seconds over --repeat runs, peak MB traced by tracemalloc (one extra
run; numpy allocations are traced), and the growth of the time from one size to the next next to the
growth of the size parameter that varies.
"""
from __future__ import annotations

import argparse
import csv
import gc
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

warnings.simplefilter("ignore")

SCRATCH = "/tmp/qa_scaling"


def _scratch() -> str:
    Path(SCRATCH).mkdir(parents=True, exist_ok=True)
    return SCRATCH


def _data(n: int, p: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[: min(p, 5)] = [1.5, -1.0, 0.8, 0.5, -0.3][: min(p, 5)]
    y = np.where(X @ beta + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _tree(depth: int, p: int, nnz: int | None = None, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((2 ** depth - 1, p)) * 0.3
    if nnz is not None:
        for t in range(W.shape[0]):
            W[t, rng.permutation(p)[nnz:]] = 0.0
    b = rng.standard_normal(2 ** depth - 1) * 0.1
    return W, b


# ---------------------------------------------------------------- steps: setup() -> run()

def s_read_csv_rows(n: int, p: int = 20, cats: int = 10) -> Callable[[], Any]:
    return _read_csv_setup(n, p, cats)


def s_read_csv_onehot(cats: int, n: int = 20_000, p: int = 5) -> Callable[[], Any]:
    return _read_csv_setup(n, p, cats)


def _read_csv_setup(n: int, p: int, cats: int) -> Callable[[], Any]:
    from olctc.data import read_csv

    X, y = _data(n, p)
    rng = np.random.default_rng(3)
    path = Path(tempfile.mkdtemp(prefix="olctc_scaling_", dir=_scratch())) / "d.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([f"x{j}" for j in range(p)] + ["cat", "y"])
        cat = rng.integers(0, cats, n)
        for i in range(n):
            w.writerow([f"{v:.6g}" for v in X[i]] + [f"c{cat[i]}", "a" if y[i] > 0 else "b"])
    return lambda: read_csv(path, "y", warn_identifiers=False)


def s_scaler(n: int, p: int) -> Callable[[], Any]:
    from olctc.data import Scaler

    X, _ = _data(n, p)
    return lambda: Scaler.fit(X).transform(X)


def s_greedy_tree(n: int, p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.spec import make_spec
    from olctc.warmstart import greedy_tree

    X, y = _data(n, p)
    spec = make_spec("olct", depth=depth, C=1.0)
    return lambda: greedy_tree(X, y, spec)


def _warm(n: int, p: int, depth: int):
    from olctc.formulation import build_milp
    from olctc.spec import make_spec
    from olctc.warmstart import greedy_tree

    X, y = _data(n, p)
    spec = make_spec("olct", depth=depth, C=1.0)
    milp = build_milp(X, y, spec)
    W, b = greedy_tree(X, y, spec)
    return X, y, spec, milp, W, b


def s_complete_start(n: int, p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.warmstart import complete_start

    X, y, spec, milp, W, b = _warm(n, p, depth)
    return lambda: complete_start(milp, X, y, spec, W, b)


def s_tree_objective(n: int, p: int = 20, depth: int = 4) -> Callable[[], Any]:
    from olctc.objective import tree_objective
    from olctc.spec import make_spec

    X, y = _data(n, p)
    W, b = _tree(depth, p)
    spec = make_spec("olct", depth=depth, C=1.0)
    return lambda: (tree_objective(W, b, X, y, spec), tree_objective(W, b, X, y, spec, loss="exact"))


def s_refine(n: int, p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.refine import refine
    from olctc.spec import make_spec
    from olctc.warmstart import greedy_tree

    X, y = _data(n, p)
    spec = make_spec("olct", depth=depth, C=1.0)
    W, b = greedy_tree(X, y, spec)
    return lambda: refine(W, b, X, y, spec)


def s_decode_arrays(n: int, p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.decode import decode_arrays
    from olctc.warmstart import complete_start

    X, y, spec, milp, W, b = _warm(n, p, depth)
    x = complete_start(milp, X, y, spec, W, b)
    return lambda: decode_arrays(milp, spec, X, y, x)


def _start_file(n: int, p: int, depth: int, solver: str):
    from olctc.emit.start import start_filename, write_start
    from olctc.warmstart import complete_start

    X, y, spec, milp, W, b = _warm(n, p, depth)
    x = complete_start(milp, X, y, spec, W, b)
    names = [str(c) for c in milp.col_names()]
    folder = Path(tempfile.mkdtemp(prefix="olctc_scaling_", dir=_scratch()))
    path = folder / start_filename("m", solver)
    return milp, x, names, path, write_start


def s_write_start(n: int, solver: str = "highs", p: int = 20, depth: int = 2) -> Callable[[], Any]:
    milp, x, names, path, write_start = _start_file(n, p, depth, solver)
    return lambda: write_start(path, names, x, solver, milp.objective(x))


def _solution_text(solver: str, names: list[str], x: np.ndarray, obj: float) -> str:
    """A solver's solution file of x, as CBC, Gurobi and CPLEX write them (olctc's starts are not)."""
    vals = [repr(float(v)) for v in x]
    if solver == "cbc":  # nonzero columns only, 'index name value reduced_cost'
        return f"Optimal - objective value {obj!r}\n" + "".join(
            f"{j:>7} {names[j]:<20} {vals[j]:>15} 0\n" for j in np.flatnonzero(x))
    if solver == "gurobi":
        return f"# Solution for model m\n# Objective value = {obj!r}\n" + "".join(
            f"{a} {v}\n" for a, v in zip(names, vals))
    if solver == "cplex":
        return ('<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>\n<CPLEXSolution version="1.2">\n'
                f' <header problemName="m" solutionStatusValue="101" solutionStatusString="integer optimal '
                f'solution" objectiveValue="{obj!r}" writeLevel="1"/>\n <variables>\n'
                + "".join(f'  <variable name="{a}" index="{j}" value="{v}"/>\n'
                          for j, (a, v) in enumerate(zip(names, vals)))
                + " </variables>\n</CPLEXSolution>\n")
    raise ValueError(solver)


def s_read_solution(n: int, solver: str = "highs", p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.read import read_solution

    milp, x, names, path, write_start = _start_file(n, p, depth, "highs" if solver not in ("highs", "scip") else solver)
    if solver in ("highs", "scip"):  # their MIP starts are in their solution formats
        write_start(path, names, x, solver, milp.objective(x))
    else:
        path = path.with_name(f"m.{solver}.sol")
        path.write_text(_solution_text(solver, names, x, milp.objective(x)))
    return lambda: read_solution(path, col_names=names).to_array(names)


def s_solution_vector(n: int, p: int = 20, depth: int = 2) -> Callable[[], Any]:
    from olctc.decode import solution_vector
    from olctc.read import read_solution

    milp, x, names, path, write_start = _start_file(n, p, depth, "highs")
    write_start(path, names, x, "highs", milp.objective(x))
    sol = read_solution(path, col_names=names)
    return lambda: solution_vector(milp, sol)


def _big_tree(depth: int, p: int, nnz: int | None = None):
    from olctc.tree import Tree

    W, b = _tree(depth, p, nnz)
    return Tree.from_arrays(W, b)


def s_predict(n: int, p: int = 200, depth: int = 4) -> Callable[[], Any]:
    X, _ = _data(n, p)
    tree = _big_tree(depth, p)
    return lambda: (tree.predict(X), tree.predict_proba(X))


def s_fit_stats(n: int, p: int = 200, depth: int = 4) -> Callable[[], Any]:
    X, y = _data(n, p)
    tree = _big_tree(depth, p)
    return lambda: tree.fit_stats(X, y)


def s_explain(p: int, depth: int = 6) -> Callable[[], Any]:
    X, _ = _data(1, p)
    tree = _big_tree(depth, p)
    return lambda: [tree.explain(X[:1]) for _ in range(20)]


def s_encode(n: int, p: int = 20) -> Callable[[], Any]:
    from olctc.data import Column, Schema
    from olctc.data import Scaler
    from olctc.tree import Tree

    X, _ = _data(n, p)
    rng = np.random.default_rng(0)
    cats = tuple(f"c{k}" for k in range(50))
    cols = tuple(Column(f"x{j}", "numeric") for j in range(p)) + (Column("cat", "categorical", cats),)
    schema = Schema(cols)
    W, b = _tree(2, schema.n_features)
    tree = Tree(W, b, Scaler.identity(schema.n_features), schema, (-1, 1))
    table = {f"x{j}": X[:, j].tolist() for j in range(p)}
    table["cat"] = [cats[k] for k in rng.integers(0, 50, n)]
    return lambda: tree.encode(table)


def s_export(fmt: str, depth: int = 5, p: int = 1000) -> Callable[[], Any]:
    from olctc.export import render

    tree = _big_tree(depth, p)
    return lambda: render(tree, fmt)


def s_export_depth(depth: int, fmt: str = "python", p: int = 1000) -> Callable[[], Any]:
    return s_export(fmt, depth, p)


def make_bench_folder(folder: Path, n_datasets: int, n_seeds: int, template: Path, missing_every: int = 7) -> Path:
    """A bench folder of ``n_datasets`` x ``n_seeds`` x (OLCT, CART) records cloned from a real bench's
    runs.jsonl (``template``, made by ``olctc bench models --models OLCT,CART``); every
    ``missing_every``-th run is left out (so the report lists missing runs) and one in 11 failed."""
    folder.mkdir(parents=True, exist_ok=True)
    meta = json.loads((template / "bench.json").read_text())
    recs = [json.loads(line) for line in (template / "runs.jsonl").read_text().splitlines() if line.strip()]
    datasets = [f"ds{k:04d}" for k in range(n_datasets)]
    seeds = list(range(n_seeds))
    meta["options"]["datasets"] = datasets
    meta["options"]["seeds"] = seeds
    (folder / "bench.json").write_text(json.dumps(meta, indent=2))
    rng = np.random.default_rng(0)
    lines, k = [], 0
    for ds in datasets:
        for seed in seeds:
            for r in recs:
                k += 1
                if k % missing_every == 0:
                    continue
                r2 = dict(r, dataset=ds, seed=seed, key=f"{ds}|{seed}|{r['model']}")
                r2["test_balanced_accuracy"] = float(rng.uniform(0.5, 1.0))
                r2["time_solve"] = float(rng.uniform(0.01, 3.0))
                if k % 11 == 0:
                    r2["status"] = "error"
                lines.append(json.dumps(r2))
    (folder / "runs.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def s_bench_report(n_datasets: int, n_seeds: int = 10) -> Callable[[], Any]:
    write_report = _module("bench.report").write_report
    folder = make_bench_folder(Path(tempfile.mkdtemp(prefix="olctc_scaling_", dir=_scratch())) / "b", n_datasets, n_seeds,
                               Path(_TEMPLATE))
    return lambda: write_report(folder, echo=lambda s: None)


def _module(name: str):
    """olctc.<name>, or the file given by --warmstart-from / --report-from (e.g. a saved copy of the code
    before a change), for before/after runs in one checkout."""
    import importlib
    import importlib.util

    path = ORIGINALS.get(name)
    if path is None:
        return importlib.import_module(f"olctc.{name}")
    key = f"scaling_original_{name.replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(key, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[key] = mod
    spec.loader.exec_module(mod)
    return mod


ORIGINALS: dict[str, str] = {}


def s_band_shift(n: int, sd: float = 0.1) -> Callable[[], Any]:
    """Scores of one node packed around 0 (small weights): many points within epsilon of each other."""
    from olctc.spec import make_spec

    ws = _module("warmstart")
    s = np.random.default_rng(0).normal(0.0, sd, n)
    spec = make_spec("olct", depth=2, C=1.0)
    return lambda: ws._band_shift(s, spec)


def s_admissible_l0(n: int, p: int = 1000, depth: int = 4) -> Callable[[], Any]:
    """complete_start's admissibility pass for an L0 preset (olct-univariate), which bounds sum_j |x_ij|."""
    from olctc.spec import make_spec

    ws = _module("warmstart")
    X, _ = _data(n, p)
    W, b = _tree(depth, p, nnz=1)
    spec = make_spec("olct-univariate", depth=depth, C=1.0)
    return lambda: ws.admissible_tree(W, b, X, spec)


def s_admissible_tree(n: int, p: int = 20, depth: int = 3) -> Callable[[], Any]:
    """complete_start's admissibility pass on a tree whose nodes have small weights (weak splits)."""
    from olctc.spec import make_spec

    ws = _module("warmstart")
    X, _ = _data(n, p)
    W, b = _tree(depth, p)
    W *= 0.02  # scores within about +-0.1 of 0: thousands of points per epsilon-wide band
    b *= 0.0
    spec = make_spec("olct", depth=depth, C=1.0)
    return lambda: ws.admissible_tree(W, b, X, spec)


def s_summary_rows(n_datasets: int, n_seeds: int = 10, models: int = 4) -> Callable[[], Any]:
    """report.summary_rows alone (no files) on a half-run bench: every other run missing."""
    summary_rows = _module("bench.report").summary_rows
    rng = np.random.default_rng(0)
    names = ["OLCT", "CART", "MARGOT", "OCT-H"][:models]
    records, missing = [], []
    for k in range(n_datasets):
        for seed in range(n_seeds):
            for j, m in enumerate(names):
                if (k + seed + j) % 2:
                    missing.append((f"ds{k:05d}", seed, m))
                else:
                    records.append({"dataset": f"ds{k:05d}", "seed": seed, "model": m, "status": "optimal",
                                    "test_balanced_accuracy": float(rng.uniform(0.5, 1.0))})
    return lambda: summary_rows("models", records, missing)


STEPS: dict[str, tuple[Callable[..., Callable[[], Any]], str, list[dict[str, Any]]]] = {
    "read_csv_rows": (s_read_csv_rows, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_csv_cols": (lambda p: _read_csv_setup(2_000, p, 10), "p", [dict(p=20), dict(p=200), dict(p=1000)]),
    "read_csv_onehot": (s_read_csv_onehot, "cats", [dict(cats=10), dict(cats=1_000), dict(cats=10_000)]),
    "scaler": (s_scaler, "n", [dict(n=2_000, p=1000), dict(n=20_000, p=1000), dict(n=100_000, p=1000)]),
    "greedy_tree": (s_greedy_tree, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "greedy_tree_p": (s_greedy_tree, "p", [dict(n=2_000, p=20), dict(n=2_000, p=200), dict(n=2_000, p=1000)]),
    "complete_start": (s_complete_start, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "tree_objective": (s_tree_objective, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "refine": (s_refine, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "refine_p": (s_refine, "p", [dict(n=2_000, p=20), dict(n=2_000, p=200), dict(n=2_000, p=1000)]),
    "decode_arrays": (s_decode_arrays, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "write_start": (s_write_start, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_solution_highs": (s_read_solution, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_solution_scip": (lambda n: s_read_solution(n, "scip"), "n",
                           [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_solution_cbc": (lambda n: s_read_solution(n, "cbc"), "n",
                          [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_solution_gurobi": (lambda n: s_read_solution(n, "gurobi"), "n",
                             [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "read_solution_cplex": (lambda n: s_read_solution(n, "cplex"), "n",
                            [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "solution_vector": (s_solution_vector, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "predict": (s_predict, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "fit_stats": (s_fit_stats, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "explain_x20": (s_explain, "p", [dict(p=20), dict(p=200), dict(p=1000)]),
    "encode": (s_encode, "n", [dict(n=2_000), dict(n=20_000), dict(n=100_000)]),
    "export_python": (s_export_depth, "depth", [dict(depth=4), dict(depth=5), dict(depth=6)]),
    "export_onnx": (lambda depth: s_export("onnx", depth), "depth", [dict(depth=4), dict(depth=5), dict(depth=6)]),
    "export_json": (lambda depth: s_export("json", depth), "depth", [dict(depth=4), dict(depth=5), dict(depth=6)]),
    "export_text": (lambda depth: s_export("text", depth), "depth", [dict(depth=4), dict(depth=5), dict(depth=6)]),
    "export_dot": (lambda depth: s_export("dot", depth), "depth", [dict(depth=4), dict(depth=5), dict(depth=6)]),
    "band_shift": (s_band_shift, "n", [dict(n=20_000), dict(n=100_000), dict(n=300_000)]),
    "admissible_tree": (s_admissible_tree, "n", [dict(n=20_000), dict(n=100_000), dict(n=300_000)]),
    "admissible_l0": (s_admissible_l0, "n", [dict(n=5_000), dict(n=20_000), dict(n=50_000)]),
    "summary_rows": (s_summary_rows, "n_datasets", [dict(n_datasets=50), dict(n_datasets=250), dict(n_datasets=1000)]),
    "bench_report": (s_bench_report, "n_datasets", [dict(n_datasets=100), dict(n_datasets=500), dict(n_datasets=2000)]),
}


def _bench_template(folder: Path) -> None:
    """Run the two-run bench that bench_report clones, unless it is there."""
    import subprocess

    global _TEMPLATE
    _TEMPLATE = str(folder)
    if (folder / "runs.jsonl").is_file():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)  # `olctc bench` makes the folder, not its parents
    subprocess.run([sys.executable, "-m", "olctc.cli", "bench", "models", "--datasets", "heart", "--seeds", "0",
                    "--models", "OLCT,CART", "--time-limit", "5", "--threads", "1", "--jobs", "1", "-o", str(folder)],
                   check=True, stdout=subprocess.DEVNULL)


_TEMPLATE = "/tmp/qa_scaling/bench0"


def measure(make: Callable[[], Callable[[], Any]], repeat: int, memory: bool) -> tuple[float, float | None]:
    run = make()
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    peak = None
    if memory:
        gc.collect()
        tracemalloc.start()
        run()
        peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
    return statistics.median(times), peak


def main(argv: list[str] | None = None) -> int:
    global SCRATCH
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", default="", help="comma-separated steps (default: all)")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs per size (median reported)")
    ap.add_argument("--sizes", default="", help="comma-separated size indices to run (0,1,2; default all)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc run")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--json", help="also write the results to this JSON file")
    ap.add_argument("--scratch", default=SCRATCH, help="folder for the files the steps write")
    ap.add_argument("--warmstart-from", help="run band_shift / admissible_tree with this copy of warmstart.py")
    ap.add_argument("--report-from", help="run bench_report with this copy of bench/report.py")
    ap.add_argument("--bench-template", default=f"{SCRATCH}/bench0",
                    help="a bench folder of `olctc bench models --datasets heart --seeds 0 --models OLCT,CART` "
                         "whose records bench_report clones (made on first use)")
    a = ap.parse_args(argv)
    if a.list:
        print("\n".join(STEPS))
        return 0
    SCRATCH = a.scratch
    if a.warmstart_from:
        ORIGINALS["warmstart"] = a.warmstart_from
    if a.report_from:
        ORIGINALS["bench.report"] = a.report_from
    steps = [s for s in a.steps.split(",") if s] or list(STEPS)
    if "bench_report" in steps:
        _bench_template(Path(a.bench_template))
    which = [int(k) for k in a.sizes.split(",") if k] or None
    out = []
    print(f"{'step':<22} {'size':<26} {'median s':>10} {'peak MB':>9} {'x size':>7} {'x time':>7}")
    for name in steps:
        make, var, sizes = STEPS[name]
        prev = None
        for k, kw in enumerate(sizes):
            if which is not None and k not in which:
                continue
            t, mem = measure(lambda: make(**kw), a.repeat, not a.no_memory)
            label = ",".join(f"{k2}={v}" for k2, v in kw.items())
            gs = gt = ""
            if prev is not None:
                gs = f"{kw[var] / prev[0]:.1f}" if isinstance(kw[var], (int, float)) else ""
                gt = f"{t / max(prev[1], 1e-9):.1f}"
            print(f"{name:<22} {label:<26} {t:>10.4f} {'' if mem is None else f'{mem:9.1f}':>9} {gs:>7} {gt:>7}",
                  flush=True)
            out.append({"step": name, "size": kw, "seconds": t, "peak_mb": mem})
            prev = (kw[var], t) if isinstance(kw[var], (int, float)) else None
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
