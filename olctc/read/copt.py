"""COPT (Cardinal Optimizer) solution files: ``model.write('x.sol')`` in Python (copt_cmd's ``write x.sol`` is
the same library call; the wheel has no copt_cmd, so that was not run).

``# Objective value <v>``, then one ``name value`` line per column, zeros included, values to 17 significant
digits. Measured on COPT 8.0.7 (``pip install coptpy``, its size-limited mode without a licence;
tests/data/solvers/samples/EXTRA.txt). COPT writes its MIP starts (``.mst``) in the same form, and reads
Gurobi's ``.mst`` as one (olctc's ``NAME.start.gurobi.mst``: ``model.readMst``).

The file carries no status: COPT writes one whenever it holds a solution, optimal or stopped by a limit
(without one the write fails and no file is made), so it is read as "feasible".
"""
from __future__ import annotations

from typing import Sequence

from olctc.read._base import (Reader, Source, make_solution, name_values, parse_number, parse_values, register,
                              shown, split_lines, statusless)
from olctc.read.solution import Solution

NO_STATUS = statusless("a COPT .sol file", "COPT's log or its Status attribute")
_FIRST = "# Objective value"


def _detect(src: Source) -> bool:
    first = src.first()[1]
    # Gurobi's second line reads '# Objective value = v'; COPT's first has no '='
    return first.startswith(_FIRST) and not first[len(_FIRST):].lstrip().startswith("=")


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    src.require_final_newline()
    k, first = src.first()
    objective = parse_number(src, first[len(_FIRST):].strip(), "a finite objective value", k + 1)
    rows = split_lines(src, k + 1, len(src.lines), (0, 2), "'name value'")
    lines = [j for j, row in enumerate(rows, k + 2) if row]
    rows = [row for row in rows if row]
    for row, line in zip(rows, lines):
        if row[0].startswith("#"):
            raise src.fail("'name value' lines after the objective", shown(src.lines[line - 1].strip()), line=line)
    names = [r[0] for r in rows]
    values = parse_values(src, [r[1] for r in rows], names, lines)
    return make_solution(src, "copt", "feasible", NO_STATUS, objective, name_values(src, names, values, lines),
                         omits_zeros=False)


READER = register(Reader("copt", "first line '# Objective value v'", _detect, _parse, named="a COPT"))
