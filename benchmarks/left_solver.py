"""After a solver is left running (``olctc solve``/``fit`` past a time limit), how slow is numpy's work?

Usage:
    python benchmarks/left_solver.py [--repeat 3] [--olctc-path CHECKOUT]

A fresh process per repeat: it reads a hard model (OLCT, depth 2, V0 on 6,000 rows of a6a) into highspy, times
200 matrix-vector products of a 9,000 x 123 array (what decode, refinement and objectives do) with nothing
else running, starts the solve in a thread, lets it run 4 s, calls ``olctc.solve.calls.leave_running`` (as the
console program does when it leaves a solver past its limit), and times the products again. Prints the
median over repeats of each figure. Nothing is interrupted: the process leaves by ``os._exit``. The model is
written by the olctc this script runs under; ``--olctc-path`` gives the processes' ``leave_running``.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from checkout import add_option, environment, header

CHILD = r"""
import os, sys, threading, time
import numpy as np
import highspy
from olctc.solve.calls import leave_running

A = np.random.default_rng(0).standard_normal((9000, 123))

def work():
    t = time.perf_counter()
    for k in range(200):
        (A @ A[k % 100]).sum()
    return time.perf_counter() - t

def median(f, n=5):
    return sorted(f() for _ in range(n))[n // 2]

alone = median(work)
h = highspy.Highs()
h.setOptionValue("output_flag", False)
h.readModel(sys.argv[1])
h.setOptionValue("time_limit", 120.0)
threading.Thread(target=h.run, daemon=True).start()
time.sleep(4)
leave_running()
left = median(work)
print(f"{alone:.6f} {left:.6f}", flush=True)
os._exit(0)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    add_option(ap)
    args = ap.parse_args()
    import numpy as np

    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.datasets import load
    from olctc.emit.mps import write_mps
    from olctc.spec import make_spec

    print(header(args.olctc_path))
    ds = load("a6a")
    rows = np.random.default_rng(0).choice(ds.n, 6000, replace=False)
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "a6a.mps"
        write_mps(compile_problem(from_arrays(ds.X[rows], ds.y[rows], name="a6a6k"), make_spec("olct", 2)).milp,
                  model)
        alone, left = [], []
        for _ in range(args.repeat):
            out = subprocess.run([sys.executable, "-c", CHILD, str(model)], capture_output=True, text=True,
                                 env=environment(args.olctc_path), timeout=600, check=True).stdout.split()[-2:]
            alone.append(float(out[0]))
            left.append(float(out[1]))
    a, b = statistics.median(alone), statistics.median(left)
    print(f"200 products of 9,000 x 123, medians of {args.repeat} processes: alone {1000 * a:.0f} ms, after "
          f"leave_running with HiGHS still solving {1000 * b:.0f} ms ({b / a:.1f}x)")


if __name__ == "__main__":
    main()
