"""Compile speed: olctc (data -> MPS) against building and writing the same model with python-mip.

Usage:
    python benchmarks/compile_speed.py [--dataset a6a] [--depths 2,3] [--repeat 3] [--mip-depth 2]
                                       [--forms inline,scores] [--mip-styles LinExpr,xsum,model]
                                       [--baseline TREE] [--pause S] [--command]

Each measurement runs in a fresh subprocess (peak RSS is per process); medians over --repeat runs.
olctc is timed end to end: read the gzip CSV, encode, standardise, build the MILP, write the MPS.
python-mip is given the data already standardised, and then either (``--mip-styles``)
- ``model``: builds OLCT from the data as a python-mip user writes it, a loop over nodes and points
  with one ``xsum`` per split score (``benchmarks/mip_olct.py``; tested equal to olctc's model entry for
  entry), default form only; or
- ``xsum`` / ``LinExpr``: is handed olctc's own sparse rows (so it does the least possible work: no
  formulation logic) and builds every row with ``xsum`` or ``LinExpr``;
then writes MPS with its HiGHS backend (its CBC backend can only write ``x.mps.mps.gz``).
``--baseline TREE`` also times the olctc of another source tree (a ``git worktree`` of an earlier commit),
its runs interleaved with the current ones in a shuffled order (seeded), so that both meet the same
machine. ``--pause S`` sleeps S seconds before every fresh process: on a virtual machine whose memory
goes back to the host, back-to-back runs reuse what the previous one freed, while a run after a pause
pays for fresh memory, as a user's single compile does.
``--command`` also times ``olctc compile`` as a user types it (``python -m olctc compile --dataset D --depth
H -o DIR/model.mps``), a fresh interpreter timed from outside: the whole command, with its manifest, solver
parameter files and, unless ``--no-start``, the greedy warm start and its MIP-start files; with and without
``--no-start``, against ``--baseline`` too (the manifests' sha256 of model and start files compared).
Forms: ``inline`` is the paper's model (the default of ``olctc compile``); ``scores`` is the same model
with score variables (``olctc compile --score-variables``). python-mip builds the same form as olctc
(``model`` builds the paper's form only).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable


def run_olctc(dataset: str, depth: int, out: str, scores: bool = False) -> dict:
    t0 = time.perf_counter()
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.emit.mps import write_mps
    from olctc.spec import make_spec

    ds = load(dataset)
    t_read = time.perf_counter() - t0
    comp = compile_problem(ds, make_spec("olct", depth, score_variables=scores))
    t_build = time.perf_counter() - t0 - t_read
    digest = write_mps(comp.milp, out)
    total = time.perf_counter() - t0
    return {"sha256": digest, "read": t_read, "build": t_build, "write": total - t_read - t_build, "total": total,
            "rows": comp.milp.n_rows, "cols": comp.milp.n_cols, "nnz": comp.milp.nnz,
            "bytes": os.path.getsize(out)}


def run_mip(dataset: str, depth: int, out: str, style: str, scores: bool = False) -> dict:
    import mip
    import numpy as np

    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.spec import make_spec

    comp = compile_problem(load(dataset), make_spec("olct", depth, score_variables=scores))
    if style == "model":
        return run_mip_model(comp, depth, out)
    milp = comp.milp
    names = milp.col_names()
    rnames = milp.row_names()
    A = milp.A
    t0 = time.perf_counter()
    m = mip.Model(solver_name="HIGHS")
    x = [m.add_var(name=str(names[j]), lb=float(milp.lb[j]), ub=float(milp.ub[j]),
                   var_type=mip.INTEGER if milp.integer[j] else mip.CONTINUOUS, obj=float(milp.c[j]))
         for j in range(milp.n_cols)]
    for i in range(milp.n_rows):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        idx, val = A.indices[lo:hi], A.data[lo:hi]
        if style == "xsum":
            expr = mip.xsum(float(v) * x[j] for j, v in zip(idx, val))
        else:
            expr = mip.LinExpr(variables=[x[j] for j in idx], coeffs=val.tolist())
        s, r = milp.sense[i], float(milp.rhs[i])
        m.add_constr(expr <= r if s == "L" else expr >= r if s == "G" else expr == r, name=str(rnames[i]))
    t_build = time.perf_counter() - t0
    m.write(out)
    total = time.perf_counter() - t0
    del np
    return {"build": t_build, "write": total - t_build, "total": total, "bytes": os.path.getsize(out)}


def run_mip_model(comp, depth: int, out: str) -> dict:
    """python-mip building OLCT from the standardised data, as its users write it (benchmarks/mip_olct.py)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mip_olct import build_olct

    spec = comp.spec
    t0 = time.perf_counter()
    m = build_olct(comp.X, comp.dataset.y, depth, spec.C, spec.tangents, spec.big_m, spec.epsilon)
    t_build = time.perf_counter() - t0
    m.write(out)
    total = time.perf_counter() - t0
    return {"build": t_build, "write": total - t_build, "total": total, "bytes": os.path.getsize(out),
            "rows": m.num_rows, "cols": m.num_cols, "nnz": m.num_nz}


def child(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "model.mps")
        res = run_olctc(args.dataset, args.depth, out, args.scores) if args.one == "olctc" else \
            run_mip(args.dataset, args.depth, out, args.one, args.scores)
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(res))


def _before_child(pause: float, tree: str | None) -> dict[str, str] | None:
    """Sleep ``pause`` seconds; the environment of a child that imports the olctc of ``tree`` (None: this one)."""
    time.sleep(pause)
    return dict(os.environ, PYTHONPATH=tree) if tree else None


def interleaved(keys: list, repeat: int, seed: int, run: Callable[[Any], dict]) -> dict[Any, list[dict]]:
    """``run(key)`` ``repeat`` times for each key, in a seeded shuffled order, so that all meet the same machine."""
    order = [key for key in keys for _ in range(repeat)]
    random.Random(seed).shuffle(order)
    runs: dict[Any, list[dict]] = {key: [] for key in keys}
    for key in order:
        runs[key].append(run(key))
    return runs


def one_run(kind: str, dataset: str, depth: int, scores: bool, pause: float, tree: str | None = None) -> dict:
    """One measurement in a fresh process; ``tree``: the olctc source tree to import instead of this one."""
    env = _before_child(pause, tree)
    out = subprocess.run([sys.executable, __file__, "--one", kind, "--dataset", dataset, "--depth", str(depth),
                          *(["--scores"] if scores else [])],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def one_command(dataset: str, depth: int, start: bool, pause: float, tree: str | None = None) -> dict:
    """``olctc compile`` in a fresh interpreter, timed from outside; peak RSS from the child's own rusage.
    It runs in a temporary folder: ``python -m`` puts the working folder first on the module path."""
    env = _before_child(pause, tree)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "model.mps")
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "olctc", "compile", "--dataset", dataset, "--depth",
                                 str(depth), *([] if start else ["--no-start"]), "-o", out],
                                env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        total = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"olctc compile failed ({proc.returncode}): {err.decode(errors='replace')}")
        with open(os.path.join(tmp, "model.olctc.json")) as fh:
            man = json.load(fh)
    hashes = {"model": man["model"]["sha256"],
              **{k: v["sha256"] for k, v in man["files"].get("start", {}).items()}}
    return {"total": total, "peak_rss_mb": usage.ru_maxrss / 1024, "sha256": json.dumps(hashes, sort_keys=True)}


def measure_commands(dataset: str, depth: int, repeat: int, pause: float, baseline: str | None) -> None:
    """Print the medians of ``olctc compile`` with and without its starts, here and in ``baseline``."""
    trees = [None] + ([baseline] if baseline else [])
    runs = interleaved([(tree, start) for tree in trees for start in (True, False)], repeat, depth + 1,
                       lambda key: one_command(dataset, depth, key[1], pause, key[0]))
    for start in (True, False):
        here = medians(runs[None, start])
        line = (f"  command    olctc compile{'' if start else ' --no-start'}: {here['total']:.2f} s, peak "
                f"{here['peak_rss_mb']:.0f} MB  runs {here['runs']}")
        if baseline:
            base = medians(runs[baseline, start])
            same = "the same files" if base["sha256"] == here["sha256"] else "OTHER FILES"
            line += (f"; baseline {base['total']:.2f} s, peak {base['peak_rss_mb']:.0f} MB  runs {base['runs']}  "
                     f"-> {base['total'] / here['total']:.2f}x ({same})")
        print(line, flush=True)


TIMED = ("read", "build", "write", "total", "peak_rss_mb")


def medians(runs: list[dict]) -> dict:
    # Sizes are the same in every run (an even count's median of them would print as a float).
    med = {k: statistics.median(r[k] for r in runs) if k in TIMED else v for k, v in runs[0].items()}
    med["sha256"] = {r.get("sha256") for r in runs}
    med["runs"] = [round(r["total"], 3) for r in runs]
    return med


def measure(kind: str, dataset: str, depth: int, repeat: int, scores: bool, pause: float = 0.0) -> dict:
    return medians([one_run(kind, dataset, depth, scores, pause) for _ in range(repeat)])


def measure_against(baseline: str, dataset: str, depth: int, repeat: int, scores: bool, pause: float
                    ) -> tuple[dict, dict]:
    """olctc here and in ``baseline``, ``repeat`` runs each, in a shuffled order."""
    runs = interleaved([None, baseline], repeat, depth,
                       lambda tree: one_run("olctc", dataset, depth, scores, pause, tree))
    return medians(runs[None]), medians(runs[baseline])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="a6a")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--mip-depth", default="2", help="depths also built with python-mip ('' for none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--depth", type=int, default=2, help=argparse.SUPPRESS)
    ap.add_argument("--scores", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--forms", default="inline,scores", help="inline (the paper's model), scores (--score-variables)")
    ap.add_argument("--mip-styles", default="LinExpr,xsum,model")
    ap.add_argument("--baseline", default=None, help="another olctc source tree, timed interleaved with this one")
    ap.add_argument("--pause", type=float, default=0.0, help="seconds to sleep before each fresh process")
    ap.add_argument("--command", action="store_true",
                    help="also time `olctc compile` as typed, with and without its MIP starts")
    args = ap.parse_args()
    if args.one:
        child(args)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.platform()}")
    mip_depths = {int(d) for d in args.mip_depth.split(",") if d}
    for depth, form in ((int(d), f) for d in args.depths.split(",") for f in args.forms.split(",")):
        scores = form == "scores"
        if args.baseline:
            o, b = measure_against(args.baseline, args.dataset, depth, args.repeat, scores, args.pause)
        else:
            o, b = measure("olctc", args.dataset, depth, args.repeat, scores, args.pause), None
        print(f"{args.dataset} depth {depth}, {form}: {o['rows']:,} rows, {o['cols']:,} cols, {o['nnz']:,} "
              f"nonzeros, MPS {o['bytes'] / 1e6:.0f} MB", flush=True)
        print(f"  olctc      total {o['total']:.2f} s (read {o['read']:.2f}, build {o['build']:.2f}, "
              f"write {o['write']:.2f}) peak {o['peak_rss_mb']:.0f} MB  runs {o['runs']}", flush=True)
        if b is not None:
            same = "the same bytes" if b["sha256"] == o["sha256"] else "OTHER BYTES"
            print(f"  baseline   total {b['total']:.2f} s (read {b['read']:.2f}, build {b['build']:.2f}, "
                  f"write {b['write']:.2f}) peak {b['peak_rss_mb']:.0f} MB  runs {b['runs']}  -> olctc here is "
                  f"{b['total'] / o['total']:.2f}x faster ({same}: {args.baseline})", flush=True)
        if args.command and form == "inline":
            measure_commands(args.dataset, depth, args.repeat, args.pause, args.baseline)
        if depth in mip_depths:
            for style in (s for s in args.mip_styles.split(",") if s and not (s == "model" and scores)):
                m = measure(style, args.dataset, depth, 1 if style in ("xsum", "model") else args.repeat, scores,
                            args.pause)
                same = "" if style != "model" else \
                    f" [{m['rows']:,} rows, {m['cols']:,} cols, {m['nnz']:,} nonzeros]"
                print(f"  python-mip {style:<7} total {m['total']:.2f} s (build {m['build']:.2f}, write "
                      f"{m['write']:.2f}) peak {m['peak_rss_mb']:.0f} MB  -> olctc is {m['total'] / o['total']:.1f}x "
                      f"faster{same}", flush=True)


if __name__ == "__main__":
    main()
