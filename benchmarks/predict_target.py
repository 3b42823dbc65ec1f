"""``olctc predict --target``: scoring the predictions against a label column, per distinct cell against per row.

Usage:
    python benchmarks/predict_target.py [--copies 2000] [--repeat 5]

heart (297 rows) repeated ``--copies`` times as a CSV, read in olctc's chunks; a depth-2 tree fitted on heart.
The scorer (``cli_tree._Scorer.add``) reads each distinct label cell once and looks the rows up by code; it
used to read every row's cell (strip, missing-marker check, number parse, class lookup). Both are timed on the
same chunks and predictions, in the same process, calls alternating, and must give the same counts. The
whole command (``olctc predict``, with and without ``--target``) is timed too, as the user sees it.
"""
from __future__ import annotations

import argparse
import gzip
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def per_row(scorer, chunk, labels: np.ndarray) -> None:
    """The scorer's loop before 2026-11-27 (one cell read per row), for the comparison."""
    from olctc.data.labels import _label_value, _no_label
    from olctc.tree import class_array

    truth = np.empty(len(chunk.rows), dtype=np.intp)
    for k, row in enumerate(chunk.rows):
        cell = row[scorer.where].strip()
        c = None if _no_label(cell) else scorer.index.get(_label_value(cell))
        if c is None:
            raise AssertionError("a bad label in the benchmark's data")
        truth[k] = c
    pred = (labels == class_array(scorer.tree.classes)[1]).astype(np.intp)
    np.add.at(scorer.counts, (truth, pred), 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    from olctc.cli_tree import _Scorer
    from olctc.data import TableStream
    from olctc.datasets import dataset_path, load
    from olctc.export.json import save
    from olctc.fit import fit
    from olctc.spec import make_spec

    tree = fit(load("heart"), make_spec(depth=2), time_limit=10, verbose=False).tree
    with gzip.open(dataset_path("heart"), "rt") as f:
        head, *rows = f.read().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        data, tree_file = Path(tmp) / "big.csv", Path(tmp) / "tree.json"
        data.write_text(head + "\n" + ("\n".join(rows) + "\n") * args.copies)
        save(tree, tree_file)
        stream = TableStream(data)
        chunks = list(stream.chunks())
        header = stream.header
        names = [c.name for c in tree.schema.columns]
        idx = [header.index(n) for n in names]
        labels = [tree.predict(tree.encode({n: [r[j] for r in ch.rows] for n, j in zip(names, idx)}))
                  for ch in chunks]
        n_rows = sum(len(ch.rows) for ch in chunks)

        def by_code():
            s = _Scorer(tree, str(data), header, "y")
            for ch, lab in zip(chunks, labels):
                s.add(ch, lab)
            return s.counts

        def by_row():
            s = _Scorer(tree, str(data), header, "y")
            for ch, lab in zip(chunks, labels):
                per_row(s, ch, lab)
            return s.counts

        assert np.array_equal(by_code(), by_row())
        times: dict[str, list[float]] = {"per distinct cell": [], "per row (before)": []}
        for _ in range(args.repeat):
            for name, fn in (("per distinct cell", by_code), ("per row (before)", by_row)):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
        cmd = [sys.executable, "-m", "olctc.cli", "predict", str(tree_file), str(data), "-o", str(Path(tmp) / "p.csv")]
        whole: dict[str, list[float]] = {"predict": [], "predict --target y": []}
        for _ in range(args.repeat):
            for name, extra in (("predict", []), ("predict --target y", ["--target", "y"])):
                t0 = time.perf_counter()
                subprocess.run(cmd + extra, check=True, capture_output=True)
                whole[name].append(time.perf_counter() - t0)

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"{n_rows:,} rows in {len(chunks)} chunks; medians of {args.repeat}")
    print("| scorer | seconds |\n|---|---|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.3f} |")
    print("| command | seconds |\n|---|---|")
    for name, ts in whole.items():
        print(f"| olctc {name} | {statistics.median(ts):.2f} |")


if __name__ == "__main__":
    main()
