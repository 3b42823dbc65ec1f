"""`olctc predict` on large CSV files: wall time and peak memory (RSS) of the command, by row count.

Usage:
    python benchmarks/predict_memory.py [--rows 300000,1200000] [--datasets heart,tic-tac-toe]
                                        [--code FOLDER,...] [--repeat 3] [--work FOLDER] [--stdout]
                                        [--check-pass]

Each data set's rows are resampled to ``--rows`` rows (heart: Gaussian noise of 1% of each column's
std added, written with 6 significant digits; tic-tac-toe, and data sets of 0/1 columns only such as a6a: their
cells as they are), with an ``id``
column in front and the label column ``y`` kept (a column the tree ignores). The tree is the warm
start's greedy depth-2 tree. Each file is scored ``--repeat`` times by ``olctc predict TREE DATA --proba
--id-column id -o OUT`` (``--stdout``: also without -o, standard output sent to a file), each time in a
fresh process (the wall time reported is the median, the RSS the largest); its peak
RSS is the command's ``ru_maxrss`` (``os.wait4`` in a small parent process: ``MEASURE``). The sha256 of the
output lets two runs be compared byte for byte.

``--code FOLDER,...`` runs the olctc package found in each FOLDER (``installed``: the installed one),
runs alternating so that all see the same machine load; e.g. the code at git HEAD against the working
tree for a before/after comparison:

    mkdir /tmp/head && git archive HEAD | tar -x -C /tmp/head
    python benchmarks/predict_memory.py --code /tmp/head,installed
"""
from __future__ import annotations

import argparse
import hashlib
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def build_csv(name: str, rows: int, path: Path) -> None:
    """``rows`` resampled rows of the vendored data set ``name`` (seed 0), with an id column."""
    import csv
    import gzip

    from olctc.datasets import dataset_path

    raw = list(csv.reader(gzip.decompress(dataset_path(name).read_bytes()).decode().splitlines()))
    header, body = raw[0], raw[1:]
    rng = np.random.default_rng(0)
    pick = rng.integers(0, len(body), rows)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", *header])
        y = header.index("y")
        try:
            X = np.asarray([[float(c) for k, c in enumerate(r) if k != y] for r in body])
        except ValueError:  # text columns: the cells as they are
            X = None
        if X is not None and np.isin(X, (0.0, 1.0)).all():  # binary columns (a6a, w5a) stay binary, unperturbed
            X = None
        for start in range(0, rows, 100_000):
            idx = pick[start:start + 100_000]
            if X is None:
                w.writerows([str(start + k), *body[i]] for k, i in enumerate(idx))
                continue
            Z = X[idx] + rng.normal(scale=0.01, size=(len(idx), X.shape[1])) * X.std(axis=0)
            for k, (i, z) in enumerate(zip(idx, Z)):
                cells = [f"{v:.6g}" for v in z]
                cells.insert(y, body[i][y])
                w.writerow([str(start + k), *cells])


def save_tree(name: str, path: Path) -> None:
    from onnx_speed import greedy_tree

    from olctc.datasets import load
    from olctc.export.json import save

    save(greedy_tree(load(name), 2), path)


#: Runs a command and writes its peak RSS (KB) and exit code to standard error. A child's ru_maxrss starts at
#: its parent's RSS when it was started (Linux keeps the high-water mark across exec), so the command
#: runs as the child of this small process, not of the benchmark (hundreds of MB after building a file).
MEASURE = ("import os, sys; pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ); "
           "_, status, usage = os.wait4(pid, 0); "
           "print('peak', usage.ru_maxrss, os.waitstatus_to_exitcode(status), file=sys.stderr)")


def run(args: list[str], code: str | None, stdout: Path | None) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of ``olctc ARGS`` in a fresh process."""
    env = dict(os.environ)
    if code:
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    with open(stdout or os.devnull, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "olctc.cli", *args], env=env,
                              stdout=out, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t0
    err = proc.stderr.decode(errors="replace").splitlines()
    _, rss, exit_code = err[-1].split()
    if int(exit_code):
        print("\n".join(err[:-1]), file=sys.stderr)
    return wall, int(rss) / 1024, int(exit_code)


def check_pass(tree: Path, data: Path) -> float:
    """Seconds to read DATA and check its cells as predict does, without predicting (in this process)."""
    from olctc.cli import load_tree_file
    from olctc.cli_tree import _CellChecks
    from olctc.data import TableStream

    t0 = time.perf_counter()
    t = load_tree_file(str(tree))
    stream = TableStream(data)
    checks = _CellChecks(t, str(data), stream.header)
    for chunk in stream.chunks():
        checks.cells(chunk)
    assert checks.error is None
    return time.perf_counter() - t0


def sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="300000,1200000")
    ap.add_argument("--datasets", default="heart,tic-tac-toe")
    ap.add_argument("--code", default="installed",
                    help="comma-separated folders holding the olctc package to run, 'installed' for the installed "
                         "one; their runs alternate")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (median wall time)")
    ap.add_argument("--work", default=None, help="folder for the CSV files (kept: reruns reuse them)")
    ap.add_argument("--stdout", action="store_true", help="also time predict to standard output")
    ap.add_argument("--check-pass", action="store_true",
                    help="also time a pass that only reads and checks the file (installed olctc): what validating "
                         "first and predicting in a second pass would add")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="olctc-predict-"))
    work.mkdir(parents=True, exist_ok=True)
    codes = [None if c == "installed" else str(Path(c).resolve()) for c in args.code.split(",")]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; files in {work}; "
          f"median of {args.repeat}")
    print("| data | rows | CSV size | code | output | wall | peak RSS | output sha256 |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.datasets.split(","):
        tree = work / f"{name}.tree.json"
        if not tree.exists():
            save_tree(name, tree)
        for rows in (int(r) for r in args.rows.split(",")):
            data = work / f"{name}-{rows}.csv"
            if not data.exists():
                build_csv(name, rows, data)
            size = f"{data.stat().st_size / 2 ** 20:.0f} MB"
            base = ["predict", str(tree), str(data), "--proba", "--id-column", "id"]
            out = work / "out.csv"
            modes = [("-o", base + ["-o", str(out)], None)] + ([("stdout", base, out)] if args.stdout else [])
            for mode, cmd, stdout in modes:
                results: dict[str | None, list] = {code: [] for code in codes}
                for _ in range(args.repeat):
                    for code in codes:  # alternating: every code sees the same machine load
                        out.unlink(missing_ok=True)
                        wall, rss, status = run(cmd, code, stdout)
                        results[code].append((wall, rss, sha(out) if status == 0 else f"exit {status}"))
                for code, runs in results.items():
                    wall = statistics.median(r[0] for r in runs)
                    digests = sorted({r[2] for r in runs})
                    print(f"| {name} | {rows:,} | {size} | {code or 'installed'} | {mode} | {wall:.1f} s | "
                          f"{max(r[1] for r in runs):.0f} MB | {', '.join(digests)} |", flush=True)
            if args.check_pass:
                wall = statistics.median(check_pass(tree, data) for _ in range(args.repeat))
                print(f"| {name} | {rows:,} | {size} | installed | check pass | {wall:.1f} s | | |", flush=True)


if __name__ == "__main__":
    main()
