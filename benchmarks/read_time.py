"""How long do the in-process solvers that read a model file (SCIP, python-mip's CBC) take to read what olctc
writes, against the time olctc takes to write it? ``fit`` hands them a file, and keeps back time to read it.

Usage:
    python benchmarks/read_time.py [--cases phishing:2,a6a:2,a6a:3s,w5a:2] [--solvers scip,cbc]

Each case is DATASET:DEPTH (OLCT, V0), ``s`` after the depth for the score-variable form. For each: the MILP is
built once, written to MPS by olctc (timed), then read by each solver in this process (timed). Prints the file
size, the times and the ratio read / write. Memory: a6a at depth 3 takes about 10 GB with SCIP.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from checkout import header


def _read(solver: str, path: Path) -> float:
    t = time.monotonic()
    if solver == "scip":
        import pyscipopt

        m = pyscipopt.Model()
        m.hideOutput()
        m.readProblem(str(path))
    else:
        import mip

        m = mip.Model(solver_name="CBC")
        m.verbose = 0
        m.read(str(path))
    took = time.monotonic() - t
    del m
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="phishing:2,a6a:2,a6a:3s,w5a:2")
    ap.add_argument("--solvers", default="scip,cbc")
    args = ap.parse_args()
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.emit.mps import write_mps
    from olctc.spec import make_spec

    print(header(None))
    print("case            size MB   write s  " + "  ".join(f"{s} read s  ratio" for s in args.solvers.split(",")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.mps"
        for case in args.cases.split(","):
            name, depth = case.split(":")
            comp = compile_problem(load(name), make_spec("olct", int(depth.rstrip("s")),
                                                         score_variables=depth.endswith("s")))
            t = time.monotonic()
            write_mps(comp.milp, path)
            wrote = time.monotonic() - t
            cells = [f"{case:<14}", f"{os.path.getsize(path) / 1e6:8.0f}", f"{wrote:8.2f}"]
            for solver in args.solvers.split(","):
                took = _read(solver, path)
                cells += [f"{took:10.2f}", f"{took / wrote:5.1f}"]
            print("  ".join(cells), flush=True)
            del comp


if __name__ == "__main__":
    main()
