"""Peak memory and wall time of ``olctc.data.read_csv`` on synthetic CSV files.

Each measurement runs in a fresh child process, started by this small parent (which never imports numpy:
a child's ``ru_maxrss`` starts at its parent's RSS). The child imports the reader, reads the file once,
and reports its own peak RSS (``ru_maxrss``, imports included), the wall time of ``read_csv`` alone, the
shape and size of X and a hash of the Dataset (X, y, classes, schema), so that runs of two versions can be
checked to give the same result. A ``baseline`` row is the interpreter and imports alone.

    python benchmarks/csv_memory.py                                    # the installed olctc.data
    python benchmarks/csv_memory.py --module /tmp/qa_csv/data_orig.py  # another copy of data.py
    python benchmarks/csv_memory.py --sizes 10000x1000,20000x1000 --text 200000 --repeat 3

Files are generated once into ``--workdir`` (numeric: ``--sizes`` ROWSxCOLS, values of 6 significant
digits, a 0/1 label last; text: ``--text`` rows of 10 numeric and 3 text columns and a yes/no label).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import hashlib, importlib.util, json, resource, sys, time
path, target, module = sys.argv[1], sys.argv[2], sys.argv[3]
if module == "installed":
    import olctc.data as data
else:
    spec = importlib.util.spec_from_file_location("olctc_data_under_test", module)
    data = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = data
    spec.loader.exec_module(data)
out = {}
if path != "-":
    t = time.perf_counter()
    ds = data.read_csv(path, target)
    out["wall"] = time.perf_counter() - t
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before hashing
    h = hashlib.sha256()
    for a in (ds.X, ds.y):  # the buffers themselves: tobytes() would copy X
        h.update(memoryview(a if a.flags.c_contiguous else a.copy()).cast("B"))
    h.update(repr((ds.classes, ds.schema, ds.sha256)).encode())
    out.update(shape=list(ds.X.shape), x_mb=ds.X.nbytes / 2**20, digest=h.hexdigest()[:12])
else:
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

GENERATE = r"""
import random, sys
import numpy as np
kind, path, n, p = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
with open(path, "w") as fh:
    if kind == "numeric":
        fh.write(",".join([f"x{j}" for j in range(p)] + ["y"]) + "\n")
        for a in range(0, n, 1000):
            X = rng.normal(size=(min(1000, n - a), p)) * 100
            y = rng.integers(0, 2, size=X.shape[0])
            fh.write("".join(",".join(f"{v:.6g}" for v in row) + f",{c}\n" for row, c in zip(X, y)))
    else:
        colours, towns = ["red", "green", "blue", "black"], [f"town {k}" for k in range(30)]
        fh.write(",".join([f"x{j}" for j in range(10)] + ["colour", "town", "note", "y"]) + "\n")
        for a in range(0, n, 1000):
            m = min(1000, n - a)
            X = rng.normal(size=(m, 10))
            for row in range(m):
                text = [colours[rng.integers(4)], towns[rng.integers(30)], '"a, b"' if rng.random() < .5 else "c"]
                fh.write(",".join(f"{v:.6g}" for v in X[row]) + "," + ",".join(text) + ","
                         + ("yes" if rng.random() < .4 else "no") + "\n")
"""


def generate(workdir: str, kind: str, n: int, p: int) -> str:
    path = os.path.join(workdir, f"{kind}_{n}x{p}.csv")
    if not os.path.exists(path):
        subprocess.run([sys.executable, "-c", GENERATE, kind, path + ".part", str(n), str(p)], check=True)
        os.replace(path + ".part", path)
    return path


def measure(path: str, module: str, timeout: float) -> dict:
    run = subprocess.run([sys.executable, "-c", CHILD, path, "y", module], capture_output=True, text=True,
                         timeout=timeout)
    if run.returncode:
        raise SystemExit(f"child failed on {path}:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", default="installed",
                    help="a data.py file to load instead of the installed olctc.data (the code before)")
    ap.add_argument("--sizes", default="10000x1000,20000x1000,200000x20",
                    help="numeric files, ROWSxCOLS, comma-separated")
    ap.add_argument("--text", default="200000", help="rows of the file with text columns (0: none)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per file (peak RSS: max, time: median)")
    ap.add_argument("--workdir", default="/tmp/olctc_csv_memory", help="where the generated files are kept")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per child run")
    ap.add_argument("--json", action="store_true", help="print one JSON record per file, not a table")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    files = []
    for size in filter(None, args.sizes.split(",")):
        n, p = (int(v) for v in size.lower().split("x"))
        files.append(("numeric", f"{n}x{p}", generate(args.workdir, "numeric", n, p)))
    if int(args.text):
        files.append(("text", f"{int(args.text)}x14", generate(args.workdir, "text", int(args.text), 14)))
    base = measure("-", args.module, args.timeout)
    print(f"module: {args.module}; baseline (interpreter and imports): {base['rss_mb']:.0f} MB")
    if not args.json:
        print(f"{'file':10s} {'size':>12s} {'CSV MB':>7s} {'X MB':>7s} {'peak RSS MB':>11s} {'RSS/X':>6s} "
              f"{'wall s':>7s} {'digest':>12s}")
    for kind, size, path in files:
        runs = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            runs.append(measure(path, args.module, args.timeout))
            runs[-1]["child"] = time.perf_counter() - t
        rec = {"file": kind, "size": size, "csv_mb": os.path.getsize(path) / 2**20, "x_mb": runs[0]["x_mb"],
               "rss_mb": max(r["rss_mb"] for r in runs), "wall": statistics.median(r["wall"] for r in runs),
               "walls": [round(r["wall"], 3) for r in runs], "digest": runs[0]["digest"],
               "same": len({r["digest"] for r in runs}) == 1}
        if args.json:
            print(json.dumps(rec))
        else:
            print(f"{kind:10s} {size:>12s} {rec['csv_mb']:7.0f} {rec['x_mb']:7.0f} {rec['rss_mb']:11.0f} "
                  f"{rec['rss_mb'] / rec['x_mb']:6.1f} {rec['wall']:7.2f} {rec['digest']:>12s}")


if __name__ == "__main__":
    main()
