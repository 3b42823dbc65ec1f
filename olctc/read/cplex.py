"""CPLEX XML solution files (``write x.sol``, ``Cplex.solution.write``).

``<CPLEXSolution>`` (or ``<CPLEXSolutions>`` holding several: the first one is read) with a
``<header>`` whose ``solutionStatusValue``/``solutionStatusString``/``objectiveValue`` give the
status and objective, and ``<variable name= index= value=/>`` elements. ``writeLevel`` 1 lists
every column and 3 every nonzero one (``omits_zeros``); levels 2 and 4 list discrete columns only,
which cannot give a whole solution and are refused. A MIP start (``.mst``) has no status and is
refused too.

Status mapping by ``solutionStatusValue``: 101, 102 (optimal within tolerance), 129, 130 -> optimal;
103 -> infeasible; 118 -> unbounded; other MIP codes (>= 100: time, node, solution limits, abort
...) -> feasible when ``primalFeasible`` is 1, else no_solution. Codes below 100 belong to an LP
solve, whose answer is not a MIP solution -> no_solution, except 3 (LP infeasible, hence the MIP).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Sequence

import numpy as np

from olctc.read._base import Reader, Source, make_solution, name_values, parse_number, parse_values, register, \
    shown
from olctc.read.solution import Solution

_OPTIMAL = frozenset({101, 102, 129, 130})
_FIXED = {103: "infeasible", 118: "unbounded", 3: "infeasible"}


def _detect(src: Source) -> bool:
    head = src.head(4)
    return bool(head) and head[0].startswith("<") and any("<CPLEXSolution" in h for h in head)


def _status(code: int, primal_feasible: bool) -> str:
    if code in _OPTIMAL:
        return "optimal"
    if code in _FIXED:
        return _FIXED[code]
    return "feasible" if code >= 100 and primal_feasible else "no_solution"


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    try:
        root = ET.fromstring("\n".join(src.lines))
    except ET.ParseError as exc:
        raise src.fail("well-formed CPLEX solution XML", f"'{exc}' (file truncated?)", line=exc.position[0]) from None
    solution = root if root.tag == "CPLEXSolution" else root.find("CPLEXSolution")
    header = solution.find("header") if solution is not None else None
    if solution is None or header is None:
        raise src.fail("a <CPLEXSolution> with a <header>", f"<{root.tag}>")
    code_text = header.get("solutionStatusValue")
    if code_text is None:
        raise src.fail("a header with solutionStatusValue (a solution, not a MIP start)",
                       "a header without a status")
    try:
        code = int(code_text)
    except ValueError:
        raise src.fail("an integer solutionStatusValue", shown(code_text)) from None
    raw = f"{code} {header.get('solutionStatusString', '')}".strip()
    if code < 100 and code not in _FIXED:
        raw += " (an LP solution, not a MIP solution)"
    status = _status(code, header.get("primalFeasible", "1") == "1")
    if status not in ("optimal", "feasible"):
        return make_solution(src, "cplex", status, raw, None, {}, omits_zeros=False)
    level = header.get("writeLevel", "1")
    if level not in ("1", "3"):
        raise src.fail("writeLevel 1 (all values) or 3 (nonzero values)",
                       f"writeLevel {level} (discrete variables only)")
    objective = parse_number(src, header.get("objectiveValue", ""), "a finite objectiveValue", 0) \
        if header.get("objectiveValue") is not None else None
    variables = solution.findall("./variables/variable")
    names = [v.get("name") or _by_index(src, v, col_names) for v in variables]
    # ElementTree keeps no line numbers: point at the variable by name instead.
    values = parse_values(src, [v.get("value", "") for v in variables], names, [0] * len(names))
    return make_solution(src, "cplex", status, raw, objective,
                         name_values(src, names, np.asarray(values), [0] * len(names)),
                         omits_zeros=level == "3")


def _by_index(src: Source, variable: ET.Element, col_names: Sequence[str] | None) -> str:
    """Name of a variable written without one, from its index and ``col_names``."""
    index = variable.get("index")
    if col_names is None or index is None or not index.isdigit() or int(index) >= len(col_names):
        raise src.fail("a <variable> with a name (or an index and col_names)", shown(ET.tostring(variable,
                       encoding="unicode").strip()))
    return str(col_names[int(index)])


READER = register(Reader("cplex", "an XML <CPLEXSolution> document", _detect, _parse, named="a CPLEX"))
