"""Gurobi ``.sol`` files (``model.write('x.sol')``, ``gurobi_cl ResultFile=x.sol``).

``# Solution for model <name>``, ``# Objective value = <v>``, then ``name value`` for every column,
plus one ``MPS_Rg<row>`` column per ranged row of an MPS file (Gurobi models a range as an equality
with a bounded slack column; ``Solution.to_array`` skips them). Values are written with full
precision.

A ``.sol`` file carries no status: Gurobi writes one only when an incumbent exists, optimal or
not. It is therefore read as "feasible" (an incumbent of unproven optimality); the run's log or
``Status`` attribute tells whether it is optimal. ``olctc solve --solver gurobi`` writes the status it was told
(and the bound) in a comment line, ``# olctc: status optimal, bound 12.5``, which this reader takes.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from olctc.read._base import Reader, Source, make_solution, name_values, parse_number, parse_values, register, \
    shown, split_lines, statusless
from olctc.read.solution import Solution

_FIRST = "# Solution for model"
_OBJECTIVE = "# Objective value ="
#: The comment olctc solve adds: "# olctc: status optimal, bound 12.5" (Gurobi skips comment lines)
OLCTC_NOTE = "# olctc: status"
_NOTE = re.compile(r"^# olctc: status (optimal|feasible)(?:, bound (\S+))?$")
#: The raw status of every Gurobi .sol file: it holds values and the objective, never a status.
NO_STATUS = statusless("a Gurobi .sol file", "Gurobi's log")


def _detect(src: Source) -> bool:
    return src.first()[1].startswith(_FIRST)


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    src.require_final_newline()
    objective = bound = None
    status, raw = "feasible", NO_STATUS
    data: list[int] = []
    for k, line in enumerate(src.lines):
        text = line.strip()
        if text.startswith(_OBJECTIVE):
            objective = parse_number(src, text[len(_OBJECTIVE):].strip(), "a finite objective value", k + 1)
        elif text.startswith(OLCTC_NOTE):
            note = _NOTE.match(text)
            if note is None:
                raise src.fail(f"'{OLCTC_NOTE} optimal|feasible[, bound B]'", shown(text), line=k + 1)
            status, raw = note[1], f"{note[1]} (olctc solve's note in the file)"
            if note[2] is not None:
                bound = parse_number(src, note[2], "a finite bound", k + 1)
        elif text and not text.startswith("#"):
            data.append(k)
    # Data lines are contiguous after the comments; split them in one go.
    start = data[0] if data else len(src.lines)
    if data and data[-1] - start + 1 != len(data):
        k = next(k for j, k in enumerate(data) if k != start + j)
        raise src.fail("'name value' lines after the comments", shown(src.lines[k - 1].strip()), line=k)
    rows = split_lines(src, start, start + len(data), (2,), "'name value'")
    lines = range(start + 1, start + len(data) + 1)
    names = [r[0] for r in rows]
    values = parse_values(src, [r[1] for r in rows], names, lines)
    return make_solution(src, "gurobi", status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=False, bound=bound)


READER = register(Reader("gurobi", "first line '# Solution for model ...'", _detect, _parse, named="a Gurobi"))


#: Gurobi's closing line before "Best objective ..., best bound ..., gap ...%": its status. A limit (time,
#: solution, node, iteration, work, memory) or an interrupt ends with a solution not proven optimal.
_GUROBI_END = re.compile(r"^(Optimal solution found|\w+ limit reached|Interrupt request received|Solve interrupted)")


def log_status(path: str | os.PathLike[str]) -> str:
    """The status of the solve Gurobi's log ``path`` (a grid task's solve.log, by gurobi_cl) ends with:
    "optimal", "feasible" (stopped by a limit, with a solution), or "unknown" (no such log: the .sol file,
    ``NO_STATUS``, says nothing). Gurobi's warnings between its status line and "Best objective" are passed
    over: a solve whose solution violates a row beyond FeasibilityTol once unscaled still ended optimal."""
    try:
        lines = [ln.strip() for ln in Path(path).read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "unknown"
    for k in range(len(lines) - 1, 0, -1):
        if lines[k].startswith("Best objective ") and ", best bound " in lines[k]:
            j = k - 1
            while j > 0 and lines[j].startswith("Warning: "):  # "max constraint violation ... exceeds tolerance"
                j -= 1
            m = _GUROBI_END.match(lines[j])
            if m is None:
                return "unknown"
            return "optimal" if m.group(1) == "Optimal solution found" else "feasible"
    return "unknown"
