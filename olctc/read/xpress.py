"""FICO Xpress ASCII solution files (``.slx``): ``problem.writeSlxSol`` in Python, the library's XPRSwriteslxsol,
which the Optimizer console's ``WRITESLXSOL`` calls (the wheel has no console, so that was not run); the format
``readSlxSol`` loads back as a MIP start.

``NAME <problem>``, then one ``C <column> <value>`` line per column, zeros included, then ``ENDATA``.
Values are printed to 16 significant digits (within an ulp or two of the double), or exactly as the bits of the
double in hexadecimal (``0x4010000000000000`` is 4.0; flag ``x``). Flag ``s`` adds ``S <row> <slack>`` lines;
an LP's ``d`` and ``r`` add ``D <row> <dual>`` and ``R <column> <reduced cost>``: rows' and duals' values,
skipped here. Measured on Xpress 9.9.1 (``pip install xpress``, its size-limited community licence;
tests/data/solvers/samples/EXTRA.txt).

The file carries no status and no objective: Xpress writes one whenever it holds a solution, optimal or
not, so it is read as "feasible" (decode recomputes the objective from the values). On an infeasible model
the file holds ``ENDATA`` alone: no_solution (a solve stopped with no incumbent makes the Python call raise
instead, and no file is written). Flag ``l`` writes the LP relaxation of a MIP in the same form: decode refuses
it by its fractional binary columns.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from olctc.read._base import (Reader, Source, make_solution, name_values, parse_values, register, shown,
                              split_lines, statusless)
from olctc.read.solution import Solution

NO_STATUS = statusless("an Xpress .slx file", "Xpress's log or its SOLSTATUS attribute")
_END = "ENDATA"
#: The kinds of line an .slx file may hold besides columns' values (slacks, duals, reduced costs).
_OTHER_KINDS = frozenset("SDR")


def _detect(src: Source) -> bool:
    head = src.head(2)
    if head == [_END]:
        return True
    return len(head) == 2 and head[0].split()[:1] == ["NAME"] and (head[1] == _END or head[1].startswith("C "))


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    numbered = [(k, line.strip()) for k, line in enumerate(src.lines) if line.strip()]
    if numbered[-1][1] != _END:
        raise src.fail(f"'{_END}' as the last line", f"{shown(numbered[-1][1])} (file truncated?)",
                       line=numbered[-1][0] + 1)
    if len(numbered) == 1:
        return make_solution(src, "xpress", "no_solution", "no solution (ENDATA alone)", None, {},
                             omits_zeros=False)
    body = numbered[1:-1]
    for k, text in body:
        if text == _END or text.split()[:1] == ["NAME"]:
            raise src.fail("one solution per file ('C name value' lines)", shown(text), line=k + 1)
    rows = split_lines(src, numbered[1][0], numbered[-1][0], (0, 3), "'C name value'")
    lines, names, tokens = [], [], []
    for k, row in enumerate(rows, numbered[1][0] + 1):
        if not row:
            continue
        if row[0] == "C":
            lines.append(k)
            names.append(row[1])
            tokens.append(row[2])
        elif row[0] not in _OTHER_KINDS:
            raise src.fail("'C name value' (or S, D, R lines)", shown(src.lines[k - 1].strip()), line=k)
    values = _values(src, tokens, names, lines)
    return make_solution(src, "xpress", "feasible", NO_STATUS, None, name_values(src, names, values, lines),
                         omits_zeros=False)


def _values(src: Source, tokens: list[str], names: list[str], lines: list[int]) -> np.ndarray:
    """Decimal values, or the hexadecimal bits of each double (flag ``x``)."""
    if not tokens or not tokens[0].lower().startswith("0x"):
        return parse_values(src, tokens, names, lines)
    values = [_hex_double(token) for token in tokens]
    for value, token, name, line in zip(values, tokens, names, lines):
        if value is None:
            raise src.fail(f"a finite double as 16 hexadecimal digits (0x...) as the value of column {name!r}",
                           shown(token), line=line)
    return np.array(values, dtype=np.float64)


def _hex_double(token: str) -> float | None:
    """The finite double whose 64 bits ``token`` writes as ``0x`` and 16 hexadecimal digits, else None."""
    if len(token) != 18 or token[:2].lower() != "0x":
        return None
    try:
        raw = bytes.fromhex(token[2:])  # hexadecimal digits only: no sign, no underscore
    except ValueError:
        return None
    value = float(np.frombuffer(raw, dtype=">f8")[0])
    return value if np.isfinite(value) else None


READER = register(Reader("xpress", "first line 'NAME ...', then 'C name value' lines and 'ENDATA'", _detect,
                         _parse, named="an Xpress"))
