"""SCIP solution files: the shell's ``write solution`` and PySCIPOpt's ``writeBestSol``.

``solution status: <status>`` (the shell only; PySCIPOpt's ``writeBestSol`` starts at the next
line), then ``objective value: <v>`` or ``no solution available``, then ``name value (obj:c)`` lines
in SCIP's internal order. Zero values are left out unless asked for, so ``omits_zeros`` is True;
values have 15 significant digits. SCIP may list helper columns of its own (``quadobjvar`` for a
quadratic objective read from an LP file, ``qmatrixvar`` from MPS), which ``Solution.to_array`` skips.

Status mapping: ``optimal solution found`` -> optimal, ``infeasible`` -> infeasible, ``unbounded``
-> unbounded, ``infeasible or unbounded`` -> no_solution; any other status is a limit or an
interruption (``time limit reached``, ``gap limit reached``, ``user interrupt`` ...) -> feasible when
a solution is listed, else no_solution. Without a status line: feasible when a solution is listed.
"""
from __future__ import annotations

from typing import Sequence

from olctc.read._base import Reader, Source, make_solution, name_values, parse_number, parse_values, register, \
    shown, split_lines
from olctc.read.solution import Solution

_STATUS_LINE = "solution status:"
_OBJECTIVE_LINE = "objective value:"
_NONE_LINE = "no solution available"
_FIXED = {"optimal solution found": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
          "infeasible or unbounded": "no_solution"}


def _detect(src: Source) -> bool:
    first = src.first()[1]
    return first.startswith((_STATUS_LINE, _OBJECTIVE_LINE)) or first == _NONE_LINE


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    k, first = src.first()
    raw = "no status line (PySCIPOpt writeBestSol)"
    if first.startswith(_STATUS_LINE):
        raw = first[len(_STATUS_LINE):].strip()
        k += 1
        while k < len(src.lines) and not src.lines[k].strip():
            k += 1
    second = src.lines[k].strip() if k < len(src.lines) else ""
    has_values = second.startswith(_OBJECTIVE_LINE)
    if not has_values and second != _NONE_LINE:
        raise src.fail(f"'{_OBJECTIVE_LINE} <v>' or '{_NONE_LINE}'", shown(second) if second else
                       "end of file (file truncated?)", line=k + 1)
    status = _FIXED.get(raw, "feasible" if has_values else "no_solution")
    if status not in ("optimal", "feasible"):
        return make_solution(src, "scip", status, raw, None, {}, omits_zeros=True)
    src.require_final_newline()
    objective = parse_number(src, second[len(_OBJECTIVE_LINE):].strip(), "a finite objective value", k + 1)
    start = k + 1
    numbered = [(j, line) for j, line in enumerate(src.lines[start:], start + 1) if line.strip()]
    rows = split_lines(src, start, len(src.lines), (0, 2, 3), "'name value (obj:c)'")
    rows = [r for r in rows if r]
    lines = [j for j, _ in numbered]
    names = [r[0] for r in rows]
    values = parse_values(src, [r[1] for r in rows], names, lines)
    return make_solution(src, "scip", status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=True)


READER = register(Reader("scip", "first line 'solution status: ...' or 'objective value: ...'", _detect, _parse,
                         named="a SCIP"))
