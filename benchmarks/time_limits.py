"""Time-limit overshoot: wall time of whole olctc commands run with --time-limit, against that limit.

Usage:
    python benchmarks/time_limits.py [--limit 20] [--repeat 3] [--big phishing] [--small german.numer]

Every command runs in a fresh process, timed from the outside (Python's start-up and imports included),
on instances that no solver finishes within the limit:
  - `olctc solve` in process (highs, cbc, scip) and through the solver programs (cbc-cli, highs-cli),
    on a small model (reading is instant) and on a large one (reading the file takes seconds);
  - `olctc fit` (split, model, warm start, solve, decode, refine) with highs and cbc;
  - one task of `olctc grid`, run with the exact shell line of its jobs.tsv (as Slurm would).
Reports the median wall time and the overshoot (wall - limit) per command.
"""
from __future__ import annotations

import argparse
import csv
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

OLCTC = [sys.executable, "-m", "olctc.cli"]


def wall(cmd: list[str] | str, cwd: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       shell=isinstance(cmd, str))
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        print(f"  (exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''})")
    return dt, p.returncode


def compile_model(dataset: str, folder: str) -> str:
    out = os.path.join(folder, f"{dataset}.mps")
    subprocess.run([*OLCTC, "compile", "--dataset", dataset, "--depth", "2", "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--small", default="german.numer")
    ap.add_argument("--big", default="phishing")
    ap.add_argument("--csv", default=None, help="Also write the rows to this CSV file.")
    args = ap.parse_args()
    lim = f"{args.limit:g}"
    work = tempfile.mkdtemp(prefix="olctc-tl-")
    try:
        small = compile_model(args.small, work)
        big = compile_model(args.big, work)
        print(f"python {platform.python_version()}, {os.cpu_count()} cores, limit {lim} s, "
              f"{args.small}: {os.path.getsize(small) / 1e6:.1f} MB, {args.big}: {os.path.getsize(big) / 1e6:.0f} MB")
        cases: list[tuple[str, list[str] | str]] = []
        for model, tag in ((small, args.small), (big, args.big)):
            for solver in ("highs", "cbc", "scip", "cbc-cli", "highs-cli"):
                sol = os.path.join(work, f"{tag}.{solver}.sol")
                cases.append((f"solve {tag} --solver {solver}",
                              [*OLCTC, "solve", model, "--solver", solver, "--time-limit", lim, "--quiet",
                               "-o", sol]))
        for solver in ("highs", "cbc"):
            cases.append((f"fit {args.small} --solver {solver}",
                          [*OLCTC, "fit", "--dataset", args.small, "--solver", solver, "--time-limit", lim,
                           "--quiet", "-o", os.path.join(work, f"fit.{solver}.json")]))
        grid = os.path.join(work, "grid")
        subprocess.run([*OLCTC, "grid", "--dataset", args.small, "--C-values", "1", "--folds", "2",
                        "--solver", "cbc-cli", "--time-limit", lim, "--olctc-cmd", " ".join(OLCTC),
                        "-o", grid], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(grid, "jobs.tsv"), encoding="utf-8") as f:
            line = next(r for r in csv.reader(f, delimiter="\t") if r and r[0].isdigit())
        task_cmd = line[5]  # the "command" column (the last one is the Gurobi line)
        cases.append((f"grid task ({args.small}, cbc-cli)", task_cmd))
        rows = []
        for label, cmd in cases:
            times = []
            for _ in range(args.repeat):
                if isinstance(cmd, str):  # a grid task: clear its solution so it runs again
                    for root, _dirs, files in os.walk(os.path.join(grid, "tasks")):
                        for name in files:
                            if name.endswith(".sol"):
                                os.unlink(os.path.join(root, name))
                dt, _code = wall(cmd, grid if isinstance(cmd, str) else work)
                times.append(dt)
            med = statistics.median(times)
            rows.append({"command": label, "limit_s": args.limit, "median_wall_s": round(med, 2),
                         "max_wall_s": round(max(times), 2), "overshoot_s": round(med - args.limit, 2),
                         "overshoot_pct": round(100 * (med - args.limit) / args.limit, 1)})
            r = rows[-1]
            print(f"{label:<40} median {r['median_wall_s']:>7.2f} s  max {r['max_wall_s']:>7.2f} s  "
                  f"overshoot {r['overshoot_s']:+.2f} s ({r['overshoot_pct']:+.1f}%)", flush=True)
        if args.csv:
            with open(args.csv, "w", newline="", encoding="utf-8") as f:
                w = csv.DictWriter(f, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
