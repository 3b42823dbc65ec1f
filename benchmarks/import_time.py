"""Start-up cost: wall time of fresh processes that import olctc or run a quick command.

Usage:
    python benchmarks/import_time.py [--repeat 7] [--olctc-path CHECKOUT] [--cases NAME,...]

Each case runs in a fresh interpreter ``--repeat`` times, alternating with the other cases (in a temporary
folder, where compile writes its model); prints the median, least and largest wall time per case. The predict
and export cases read a depth-2 tree of heart (and heart's rows) that the installed olctc writes there first.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import add_option, environment, header

CASES = {
    "import olctc": ["-c", "import olctc"],
    "from olctc import OLCTClassifier": ["-c", "from olctc import OLCTClassifier"],
    "olctc --help": ["-m", "olctc.cli", "--help"],
    "olctc datasets": ["-m", "olctc.cli", "datasets"],
    "olctc compile heart --no-start": ["-m", "olctc.cli", "compile", "--dataset", "heart", "--depth", "2",
                                       "--no-start", "--no-params", "-o", "heart.mps"],
    "olctc predict heart": ["-m", "olctc.cli", "predict", "tree.json", "heart.csv", "-o", "pred.csv"],
    "olctc export tree.json tree.py": ["-m", "olctc.cli", "export", "tree.json", "-o", "tree.py"],
}
#: the cases that read the tree and the rows ``_tree_files`` writes
NEEDS_TREE = ("olctc predict heart", "olctc export tree.json tree.py")


def _tree_files(cwd: str) -> None:
    """tree.json (a depth-2 OLCT of heart) and heart.csv (its rows, as vendored) in ``cwd``, by the installed
    olctc."""
    import gzip
    from importlib import resources

    with gzip.open(resources.files("olctc.datasets").joinpath("heart.csv.gz").open("rb")) as f:
        Path(cwd, "heart.csv").write_bytes(f.read())
    # 3 s, not the solve to optimality (heart's depth 2 runs out 30 s): predict and export time a tree's shape
    # and its nonzero weights, which the warm start already has
    subprocess.run([sys.executable, "-m", "olctc.cli", "fit", "--dataset", "heart", "--depth", "2", "--time-limit",
                    "3", "--threads", "1", "--quiet", "-o", "tree.json"], cwd=cwd, capture_output=True, check=True)


def run(args: list[str], env: dict[str, str], cwd: str) -> float:
    """Wall seconds of one fresh process (which must succeed)."""
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, capture_output=True, timeout=300, cwd=cwd, check=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    add_option(ap)
    args = ap.parse_args()
    env = environment(args.olctc_path)
    cases = args.cases.split(",")
    times: dict[str, list[float]] = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as tmp:
        if any(c in NEEDS_TREE for c in cases):
            _tree_files(tmp)
        for _ in range(args.repeat):
            for c in cases:
                times[c].append(run(CASES[c], env, tmp))
    print(header(args.olctc_path))
    for c in cases:
        print(f"{c:40s} median {statistics.median(times[c]):.2f} s  (min {min(times[c]):.2f}, max {max(times[c]):.2f})")


if __name__ == "__main__":
    main()
