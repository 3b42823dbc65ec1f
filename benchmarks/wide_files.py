"""Reading wide files: a training CSV of many text columns (`read_csv`) and a tree of many columns (`Tree.load`).

Usage:
    python benchmarks/wide_files.py [--widths 10000,20000,40000] [--repeat 3] [--olctc-path DIR]

The CSV has 12 rows of 'u'/'v' in each of P columns and a 0/1 target; the tree is a depth-1 tree of P numeric
columns. Each timing runs in a fresh process (imports not counted). `--olctc-path` runs another checkout of
olctc (put first on PYTHONPATH), for a before/after comparison in one session. Prints medians.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import checkout  # benchmarks/checkout.py (a script's folder is on sys.path)

READ = """
import sys, time
from olctc.data import read_csv
t0 = time.perf_counter(); ds = read_csv(sys.argv[1], "y"); t = time.perf_counter() - t0
assert ds.p == 2 * int(sys.argv[2]), ds.p
print(t)
"""
LOAD = """
import sys, time
from olctc.tree import Tree
t0 = time.perf_counter(); Tree.load(sys.argv[1]); print(time.perf_counter() - t0)
"""
MAKE_TREE = """
import sys, numpy as np
from olctc.data import Column, Schema, Scaler
from olctc.tree import Tree
P = int(sys.argv[2])
schema = Schema(tuple(Column(f"c{j}", "numeric") for j in range(P)))
Tree(np.full((1, P), 0.1), np.zeros(1), Scaler.identity(P), schema, (0, 1)).save(sys.argv[1])
"""


def timed(code: str, args: list[str], env: dict[str, str], repeat: int) -> float:
    runs = [float(subprocess.run([sys.executable, "-c", code, *args], env=env, check=True, capture_output=True,
                                 text=True).stdout) for _ in range(repeat)]
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--widths", default="10000,20000,40000")
    ap.add_argument("--repeat", type=int, default=3)
    checkout.add_option(ap)
    args = ap.parse_args()
    env = checkout.environment(args.olctc_path)
    print(checkout.header(args.olctc_path, f"; medians of {args.repeat} fresh processes"))
    with tempfile.TemporaryDirectory(prefix="olctc-bench-") as folder:
        for P in map(int, args.widths.split(",")):
            csv = os.path.join(folder, f"text{P}.csv")
            with open(csv, "w") as f:
                f.write(",".join(f"c{j}" for j in range(P)) + ",y\n")
                for i in range(12):
                    f.write(",".join("uv"[(i * 7 + j * 13 + j // 3) % 2] for j in range(P)) + f",{i % 2}\n")
            tree = os.path.join(folder, f"tree{P}.json")
            subprocess.run([sys.executable, "-c", MAKE_TREE, tree, str(P)], env=env, check=True)
            t_read = timed(READ, [csv, str(P)], env, args.repeat)
            t_load = timed(LOAD, [tree], env, args.repeat)
            print(f"P = {P}: read_csv of {P} text columns {t_read:.2f} s; Tree.load of {P} columns {t_load:.2f} s")


if __name__ == "__main__":
    main()
