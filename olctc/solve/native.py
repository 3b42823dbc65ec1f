"""Write a SolveResult in a solver's own solution format (HiGHS, CBC ``-solu``, SCIP ``write solution``; Gurobi,
CPLEX, COPT and Xpress as their ``write`` calls make them).

The files match what the solvers write (see the samples in ``tests/data/solvers``) closely enough that
the solvers read them back as MIP starts (HiGHS ``--read_solution_file``, CBC ``-mips``, SCIP
``read <file>``, Gurobi's and COPT's ``read``, CPLEX's ``MIP_starts.read``, Xpress's ``readSlxSol``) and
``olctc.read.read_solution`` recognises them. Values are written with full precision (shortest round-trip repr)
instead of the solvers' 8 or 15 significant digits. Gurobi's, COPT's and Xpress's files hold no status (the
solvers' own have none): ``olctc solve`` prints it.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from olctc.errors import OlctcError, param_error
from olctc.io import atomic_write_text
from olctc.solve.result import SolveResult, limit_kind

# Status words per format: definite statuses first, then an early stop by limit kind (see
# ``olctc.solve.result.limit_kind``). Taken from the solvers' own writers.
HIGHS_WORDS = {"optimal": "Optimal", "infeasible": "Infeasible", "unbounded": "Unbounded",
               "time": "Time limit reached", "iterations": "Iteration limit reached",
               "nodes": "Solution limit reached", "solutions": "Solution limit reached",
               "gap": "Solution limit reached", "interrupt": "Interrupted by user", "other": "Unknown"}
CBC_WORDS = {"optimal": "Optimal", "infeasible": "Infeasible", "unbounded": "Unbounded",
             "time": "Stopped on time", "interrupt": "Stopped on ctrl-c", "iterations": "Stopped on iterations",
             "nodes": "Stopped on iterations", "solutions": "Stopped on iterations",
             "gap": "Stopped on iterations", "other": "Status unknown"}
SCIP_WORDS = {"optimal": "optimal solution found", "infeasible": "infeasible", "unbounded": "unbounded",
              "time": "time limit reached", "interrupt": "user interrupt", "nodes": "node limit reached",
              "gap": "gap limit reached", "solutions": "solution limit reached", "iterations": "unknown",
              "other": "unknown"}


def _words(table: dict[str, str], result: SolveResult) -> str:
    if result.status in table:
        return table[result.status]
    return table[limit_kind(result.raw_status)]


def _num(value: float) -> str:
    """Shortest round-trip text, integers without '.0' (as HiGHS and SCIP print them)."""
    value = float(value)
    if value == 0.0:
        return "0"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


def _highs_text(result: SolveResult, costs: np.ndarray | None) -> str:
    # HiGHS's own words, but never its "Optimal" for a result olctc did not take as proven (a gap HiGHS should not
    # have left, a bound above the objective): the file would read back as an optimum
    own = result.solver.startswith("highs") and result.raw_status and \
        (result.raw_status != HIGHS_WORDS["optimal"] or result.status == "optimal")
    words = result.raw_status if own else _words(HIGHS_WORDS, result)
    lines = ["Model status", words, "", "# Primal solution values"]
    if result.x is None:
        lines.append("None")
    else:
        lines += ["Feasible", f"Objective {_num(result.objective or 0.0)}"]
        # HiGHS 1.16 writes these at an optimum only; written for every bound known (its reader takes them
        # at any status), decode shows the gap of a solve stopped by its time limit too
        if result.bound is not None and math.isfinite(result.bound):
            lines.append(f"Objective_bound {_num(result.bound)}")
            if result.gap is not None and math.isfinite(result.gap):
                lines.append(f"MIP_rel_gap {_num(result.gap)}")
        lines.append(f"# Columns {len(result.col_names)}")
        lines += [f"{name} {_num(v)}" for name, v in zip(result.col_names, result.x.tolist())]
    lines += ["", "# Dual solution values", "None", "", "# Basis", "HiGHS_basis_file v2", "None"]
    return "\n".join(lines) + "\n"


def _cbc_text(result: SolveResult, costs: np.ndarray | None) -> str:
    words = _words(CBC_WORDS, result)
    objective = result.objective
    if result.x is not None and words == CBC_WORDS["other"]:
        # "Status unknown" reads back as no solution at all; CBC words every early stop but a time
        # limit (and ctrl-c) "Stopped on iterations".
        words = CBC_WORDS["iterations"]
    if result.status == "no_solution" and words != CBC_WORDS["other"]:
        # CBC's words for "stopped before any integer solution", with the LP relaxation's objective
        # (the bound is the nearest olctc has); no values follow.
        words += " (no integer solution - continuous used)"
        objective = result.bound
    lines = [f"{words} - objective value {(objective or 0.0):.8f}"]
    if result.x is not None:
        # Only nonzeros, like CBC: a missing column is 0 (also for -mips).
        for j in np.flatnonzero(result.x).tolist():
            lines.append(f"{j:7d} {result.col_names[j]:<8} {_num(result.x[j]):>15}{'':9}{'0':>15}")
    return "\n".join(lines) + "\n"


def _scip_text(result: SolveResult, costs: np.ndarray | None) -> str:
    lines = [f"solution status: {_words(SCIP_WORDS, result)}"]
    if result.x is None:
        lines.append("no solution available")
    else:
        lines.append(f"objective value:                 {_num(result.objective or 0.0):>20}")
        for j in np.flatnonzero(result.x).tolist():
            line = f"{result.col_names[j]:<32} {_num(result.x[j]):>20}"
            # SCIP prints each column's cost; its reader does not need it.
            if costs is not None:
                line += f" \t(obj:{_num(costs[j])})"
            lines.append(line)
    return "\n".join(lines) + "\n"


#: CPLEX's status code and words (its Cplex.solution.status) per olctc status, then per kind of early stop
#: (``limit_kind``): (with an incumbent, without one).
CPLEX_CODES = {"optimal": ((101, "integer optimal solution"),) * 2,
               "infeasible": ((103, "integer infeasible"),) * 2,
               "unbounded": ((118, "integer unbounded"),) * 2,
               "time": ((107, "time limit exceeded"), (108, "time limit exceeded, no integer solution")),
               "interrupt": ((113, "aborted"), (114, "aborted, no integer solution")),
               "nodes": ((105, "node limit exceeded"), (106, "node limit exceeded, no integer solution")),
               "solutions": ((104, "solution limit exceeded"), (104, "solution limit exceeded"))}
#: any other early stop
CPLEX_OTHER = ((127, "integer feasible"), (114, "aborted, no integer solution"))


def _model_name(path: Path, suffix: str) -> str:
    """The model's name as the solvers' files give it: the file name without olctc's ``.SOLVER.sol``."""
    return path.name.removesuffix(suffix) if path.name.endswith(suffix) and path.name != suffix else path.stem


def _need_values(result: SolveResult, product: str) -> np.ndarray:
    if result.x is None:
        raise OlctcError(f"{product} writes a solution file only when it holds a solution, and this result has none "
                         f"(status {result.status}, {result.raw_status})")
    return result.x


def _gurobi_text(result: SolveResult, costs: np.ndarray | None, path: Path) -> str:
    x = _need_values(result, "Gurobi")
    lines = [f"# Solution for model {_model_name(path, '.gurobi.sol')}",
             f"# Objective value = {_num(result.objective or 0.0)}"]
    if result.status in ("optimal", "feasible"):  # Gurobi's format has no status: a comment, which it skips
        from olctc.read.gurobi import OLCTC_NOTE

        # an infinite bound is none known: left out (olctc's reader takes a finite one only), as in HiGHS's file
        given = result.bound
        bound = f", bound {_num(given)}" if given is not None and math.isfinite(given) else ""
        lines.append(f"{OLCTC_NOTE} {result.status}{bound}")
    lines += [f"{name} {_num(v)}" for name, v in zip(result.col_names, x.tolist())]
    return "\n".join(lines) + "\n"


def _copt_text(result: SolveResult, costs: np.ndarray | None, path: Path) -> str:
    x = _need_values(result, "COPT")
    lines = [f"# Objective value {_num(result.objective or 0.0)}"]
    lines += [f"{name} {_num(v)}" for name, v in zip(result.col_names, x.tolist())]
    return "\n".join(lines) + "\n"


def _xpress_text(result: SolveResult, costs: np.ndarray | None, path: Path) -> str:
    if result.x is None:  # what Xpress writes for an infeasible model
        return "ENDATA\n"
    # one word after NAME; the C lines indented (docs/FORMATS.md)
    suffix = ".xpress.slx" if path.name.endswith(".xpress.slx") else ".xpress.sol"
    name = "".join(_model_name(path, suffix).split()) or "olctc"
    lines = [f"NAME {name}"] + [f"  C {n} {_num(v)}" for n, v in zip(result.col_names, result.x.tolist())]
    return "\n".join(lines + ["ENDATA"]) + "\n"


def _cplex_text(result: SolveResult, costs: np.ndarray | None, path: Path) -> str:
    table = CPLEX_CODES.get(result.status) or CPLEX_CODES.get(limit_kind(result.raw_status), CPLEX_OTHER)
    code, words = table[0 if result.x is not None else 1]
    head = [f"problemName={quoteattr(_model_name(path, '.cplex.sol'))}", 'solutionName="incumbent"',
            f'solutionStatusValue="{code}"', f"solutionStatusString={quoteattr(words)}",
            'solutionMethodString="mip"', f'primalFeasible="{int(result.x is not None)}"', 'writeLevel="1"']
    if result.objective is not None:
        head.insert(2, f'objectiveValue="{_num(result.objective)}"')
    lines = ['<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>', '<CPLEXSolution version="1.2">',
             " <header\n   " + "\n   ".join(head) + "/>"]
    if result.x is not None:
        lines.append(" <variables>")
        lines += [f"  <variable name={quoteattr(n)} index=\"{j}\" value=\"{_num(v)}\"/>"
                  for j, (n, v) in enumerate(zip(result.col_names, result.x.tolist()))]
        lines.append(" </variables>")
    return "\n".join(lines + ["</CPLEXSolution>"]) + "\n"


#: format name -> text renderer. "-cli" solver names map to the same format.
NATIVE_WRITERS: dict[str, Callable[[SolveResult, np.ndarray | None], str]] = {
    "highs": _highs_text,
    "cbc": _cbc_text,
    "scip": _scip_text,
}
#: the formats whose text names the model (taken from the file's name)
NAMED_WRITERS: dict[str, Callable[[SolveResult, np.ndarray | None, Path], str]] = {
    "gurobi": _gurobi_text,
    "cplex": _cplex_text,
    "copt": _copt_text,
    "xpress": _xpress_text,
}


def write_native_solution(result: SolveResult, path: str | os.PathLike[str], solver: str, *,
                          costs: np.ndarray | None = None) -> None:
    """Write ``result`` as solver ``solver``'s own solution file.

    Parameters
    ----------
    result : a SolveResult (any solver's).
    path : the file to write (atomically).
    solver : ``"highs"``, ``"cbc"``, ``"scip"``, ``"gurobi"``, ``"cplex"``, ``"copt"`` or ``"xpress"``
        (``"highs-cli"``/``"cbc-cli"`` also accepted).
    costs : objective coefficients in column order; only SCIP's format shows them (``(obj:c)``).
    """
    key = solver[:-4] if solver.endswith("-cli") else solver
    if key not in NATIVE_WRITERS and key not in NAMED_WRITERS:
        raise param_error("solver", f"one of {sorted([*NATIVE_WRITERS, *NAMED_WRITERS])}", solver)
    if result.x is not None and len(result.x) != len(result.col_names):
        raise OlctcError(f"result has {len(result.x)} values for {len(result.col_names)} columns")
    if costs is not None:
        costs = np.asarray(costs, dtype=float)
        if costs.shape[0] != len(result.col_names):
            raise OlctcError(f"costs have {costs.shape[0]} entries for {len(result.col_names)} columns")
    if key in NAMED_WRITERS:
        text = NAMED_WRITERS[key](result, costs, Path(path))
    else:
        text = NATIVE_WRITERS[key](result, costs)
    atomic_write_text(path, text)
