"""Does every solver olctc writes files for reach the optimum from those files? Random small models, every preset.

Usage:
    python benchmarks/solver_crosscheck.py [--solvers copt,xpress,gurobi,cplex] [--seeds 1,2] [--instances 48]

Instances: per seed, ``--instances`` random data sets (8-14 points, 2-3 features, labels from a random hyperplane
with noise), the presets in turn, depth 1 and 2 in turn, MPS and LP in turn, C drawn from 0.1, 1, 10. Each is
compiled by olctc and solved to optimality in process (the reference: HiGHS, or SCIP for the MIQP presets). Each
solver then solves the model from the files olctc wrote beside it, in a fresh interpreter, one thread, relative
gap 0: COPT and Xpress by the commands of NAME.solvers.txt (the start line included), Gurobi and CPLEX by reading
their .prm and MIP start. An optimum more than 1e-6 (relative) from the reference is printed as a mismatch.
Xpress Community skips MIQPs above 200 rows and columns. The solvers are the size-limited pip wheels (coptpy,
xpress, gurobipy, cplex); one that is not installed is left out.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

PRESETS = ("olct", "olct-univariate", "oct-h", "margot", "margot-sfs", "margot-hfs")
MIQP = PRESETS[3:]
MODULES = {"copt": "coptpy", "xpress": "xpress", "gurobi": "gurobipy", "cplex": "cplex"}
REL = 1e-6


def olctc(*args) -> None:
    """``olctc ARGS`` in process, its report kept from this script's output."""
    from olctc.cli import main

    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said):
            main([str(a) for a in args])
    except SystemExit as exc:
        if exc.code != 0:
            raise RuntimeError(f"olctc {' '.join(map(str, args))} exited {exc.code}: "
                               f"{said.getvalue()[-500:]}") from None


def script(model: Path, solver: str) -> str:
    """The Python that solves ``model`` with ``solver`` from olctc's files and prints 'RESULT objective status'."""
    stem = model.stem
    if solver in ("copt", "xpress"):
        label, solve = {"copt": ("COPT:", "m.solve()"), "xpress": ("Xpress:", "p.optimize()")}[solver]
        text = model.with_name(stem + ".solvers.txt").read_text()
        lines = [line.split(label, 1)[1].strip() for line in text.splitlines() if line.strip().startswith(label)]
        command, start = lines[0], lines[1].split("   (")[0]
        limits = ("m.setParam('RelGap', 0); m.setParam('Threads', 1); " if solver == "copt"
                  else "p.setControl({'miprelstop': 0, 'threads': 1}); ")
        result = ("print('RESULT', repr(m.objval), m.status)" if solver == "copt"
                  else "print('RESULT', repr(p.attributes.mipobjval), p.attributes.solstatus)")
        return f"import {MODULES[solver]}\n" + command.replace(solve, limits + start + "; " + solve) + "\n" + result
    if solver == "gurobi":
        return (f"import gurobipy as gp\nenv = gp.Env(params={{'OutputFlag': 0}})\nm = gp.read({str(model)!r}, env)\n"
                f"m.read({str(model.with_name(stem + '.gurobi.prm'))!r})\n"
                f"m.read({str(model.with_name(stem + '.start.gurobi.mst'))!r})\n"
                "m.Params.MIPGap = 0\nm.Params.Threads = 1\nm.optimize()\nprint('RESULT', repr(m.ObjVal), m.Status)\n")
    return (f"import cplex\nc = cplex.Cplex({str(model)!r})\n"
            "for s in (c.set_results_stream, c.set_log_stream, c.set_warning_stream): s(None)\n"
            f"c.parameters.read_file({str(model.with_name(stem + '.cplex.prm'))!r})\n"
            f"c.MIP_starts.read({str(model.with_name(stem + '.start.cplex.mst'))!r})\n"
            "c.parameters.mip.tolerances.mipgap.set(0)\nc.parameters.threads.set(1)\nc.solve()\n"
            "print('RESULT', repr(c.solution.get_objective_value()), c.solution.get_status())\n")


def solve(model: Path, solver: str) -> tuple[float | None, str]:
    """(objective, the solver's status) in a process of its own (coptpy disturbs highspy in its process)."""
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script(model, solver)], cwd=model.parent,
                          capture_output=True, text=True, timeout=600)
    found = re.search(r"^RESULT (\S+) (\S+)$", done.stdout, re.M)
    if not found:
        return None, " | ".join((done.stdout + done.stderr).strip().splitlines()[-2:])
    return float(found.group(1)), found.group(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solvers", default="copt,xpress,gurobi,cplex")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--instances", type=int, default=48, help="random data sets per seed")
    args = ap.parse_args()
    from olctc.read import read_solution

    solvers = [s for s in args.solvers.split(",") if importlib.util.find_spec(MODULES[s]) is not None]
    left_out = sorted(set(args.solvers.split(",")) - set(solvers))
    if left_out:
        print(f"not installed, left out: {', '.join(left_out)}")
    counts = {s: [0, 0] for s in solvers}  # solves, mismatches
    made = 0
    with tempfile.TemporaryDirectory(prefix="olctc-crosscheck-") as tmp:
        root = Path(tmp)
        for seed in (int(s) for s in args.seeds.split(",")):
            rng = np.random.default_rng(seed)
            for k in range(args.instances):
                n, p = int(rng.integers(8, 15)), int(rng.integers(2, 4))
                X = rng.normal(size=(n, p))
                y = np.where(X @ rng.normal(size=p) + 0.5 * rng.normal(size=n) > 0, 1, -1)
                C = float(rng.choice([0.1, 1, 10]))
                if len(set(y.tolist())) < 2:
                    continue
                preset, depth, fmt = PRESETS[k % 6], 1 + (k // 6) % 2, ("mps", "lp")[(k // 12) % 2]
                data = root / f"d{seed}-{k}.csv"
                data.write_text(",".join([f"f{j}" for j in range(p)] + ["y"]) + "\n" + "".join(
                    ",".join(map(repr, X[i].tolist())) + f",{y[i]}\n" for i in range(n)))
                model = root / f"m{seed}-{k}.{fmt}"
                olctc("compile", data, "--target", "y", "--depth", depth, "--preset", preset, "--C", C, "-o", model)
                olctc("solve", model, "--solver", "scip" if preset in MIQP else "highs", "--quiet",
                      "-o", root / f"m{seed}-{k}.ref.sol")
                ref = read_solution(root / f"m{seed}-{k}.ref.sol")
                if ref.status != "optimal" or ref.objective is None:
                    raise RuntimeError(f"the reference solve of {model.name} is {ref.status}")
                best = float(ref.objective)
                size = json.loads(model.with_name(model.stem + ".olctc.json").read_text())["model"]
                made += 1
                for solver in solvers:
                    if solver == "xpress" and preset in MIQP and size["n_rows"] + size["n_cols"] > 200:
                        continue  # Xpress Community's limit for a MIQP
                    objective, status = solve(model, solver)
                    counts[solver][0] += 1
                    if objective is None or abs(objective - best) > REL * max(1.0, abs(best)):
                        counts[solver][1] += 1
                        print(f"mismatch: seed {seed}, instance {k} ({preset}, depth {depth}, {fmt}, C {C:g}, "
                              f"{n} points): {solver} {objective} (status {status}), reference {best!r}",
                              flush=True)
    print(f"{made} instances; solves and mismatches: "
          + ", ".join(f"{s} {c[0]} / {c[1]}" for s, c in counts.items()))


if __name__ == "__main__":
    main()
