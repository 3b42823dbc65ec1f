"""GLPK solution files: ``glpsol -w`` (raw) and ``glpsol -o`` (printable).

HiGHS writes the same two formats as its solution styles 2 and 3; such files are detected as
``glpk`` (nothing in them tells the writers apart) but ``read_solution(..., format="highs")`` reads
them as HiGHS's, which only changes ``solver`` and the meaning of status letter ``u``.

Raw (``-w``): ``c`` comment lines, one ``s`` line, ``i row ...`` lines, ``j col ...`` lines and a last
line ``e o f``. Columns are numbered 1..n in MPS column order, never named, so ``col_names`` is
required. Values have 15 significant digits. Status mapping:

- ``s mip M N o OBJ`` -> optimal; ``f`` -> feasible (a limit stopped the search with an incumbent,
  e.g. ``--tmlim``); ``n`` -> infeasible (no integer feasible solution exists); ``u`` -> no_solution
  (undefined: stopped before any incumbent, e.g. ``--tmlim`` on a hard model; GLPK also says ``u``
  for an unbounded MIP). HiGHS style 2 writes ``u`` too when it has no solution (measured, 1.15 and 1.16:
  a time limit before any incumbent, an unbounded or infeasible MIP, with ``c Status: UNDEFINED``; older
  versions meant unbounded by it), and ``?`` for other statuses: both -> no_solution.
- ``s bas M N P D OBJ`` is a basic LP solution (glpsol solves a model with no integer column, or a
  MIP with ``--nomip``, this way) and ``s ipt M N S OBJ`` an interior-point one: for a MIP neither is a
  solution, so both give no_solution, except that a primal status ``n`` (no primal feasible point,
  LP relaxation infeasible, hence the MIP too) gives infeasible. ``raw_status`` says which.

Printable (``-o``; HiGHS style 3): the ``Status:`` line (``INTEGER OPTIMAL``, ``INTEGER NON-OPTIMAL``,
``INTEGER EMPTY``, ``INTEGER UNDEFINED``; LP statuses otherwise) maps as the letters above; the
column table gives names and activities with only 6 significant digits (``%13.6g``), which
``Solution.digits`` records (measured: a writer printing more would show it). HiGHS style 3 of a MIP it found
unbounded says ``UNBOUNDED`` (1.16) over a MIP's column table (no 'Marginal' field): unbounded, as its other styles.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from olctc.errors import OlctcError
from olctc.read._base import (Reader, Source, make_solution, name_values, parse_number, parse_values,
                              printed_digits, register, shown, split_lines)
from olctc.read.solution import Solution

_MIP_STATUS = {"o": "optimal", "f": "feasible", "n": "infeasible", "u": "no_solution"}
# HiGHS's glpsol writer reuses the letters and adds ?. Its u is GLPK's "undefined" (no solution): HiGHS 1.15 and
# 1.16 write it after a time limit with no incumbent (measured), so it cannot be read as "unbounded".
_HIGHS_MIP_STATUS = {"o": "optimal", "f": "feasible", "n": "infeasible", "u": "no_solution", "?": "no_solution"}
_LETTER = {"o": "optimal", "f": "feasible", "n": "no feasible solution", "u": "undefined",
           "i": "infeasible", "?": "unknown"}

#: glpsol's ``%13.6g`` for activities (HiGHS style 3 copies it).
PRINTABLE_DIGITS = 6

_PRINTABLE_STATUS = {
    "INTEGER OPTIMAL": "optimal",
    "INTEGER NON-OPTIMAL": "feasible",
    "INTEGER EMPTY": "infeasible",
    "INTEGER INFEASIBLE": "infeasible",  # HiGHS's wording
    "INTEGER UNDEFINED": "no_solution",
    "INTEGER UNBOUNDED": "unbounded",  # HiGHS's wording
    "INFEASIBLE (FINAL)": "infeasible",  # LP relaxation infeasible: so is the MIP
    "EMPTY": "infeasible",
}


def _raw_s_line(src: Source) -> int:
    """0-based index of the ``s`` line: the first line that is not a ``c`` comment (-1: none)."""
    for i, line in enumerate(src.lines):
        if line.strip() and not (line.startswith("c ") or line.rstrip() == "c"):
            return i
    return -1


def detect_raw(src: Source) -> bool:
    head = src.head(40)
    s_lines = [line for line in head if line.startswith("s ")]
    return bool(head) and head[0].startswith("c") and bool(s_lines) \
        and s_lines[0].split()[1:2] in (["mip"], ["bas"], ["ipt"])


def detect_printable(src: Source) -> bool:
    head = src.head(8)
    return bool(head) and head[0].startswith("Problem:") and any(h.startswith("Status:") for h in head)


def _detect(src: Source) -> bool:
    return detect_raw(src) or detect_printable(src)


def parse_raw(src: Source, col_names: Sequence[str] | None, solver: str = "glpk") -> Solution:
    """Parse a ``glpsol -w`` file (or HiGHS style 2 when ``solver == 'highs'``)."""
    s_at = _raw_s_line(src)
    if s_at < 0:
        raise src.fail("an 's mip', 's bas' or 's ipt' line after the 'c' lines", "none")
    if not src.lines[s_at].startswith("s "):  # the stray line itself, where it is: 'got none' hid it
        raise src.fail("an 's mip', 's bas' or 's ipt' line after the 'c' lines", shown(src.lines[s_at]),
                       line=s_at + 1)
    s_tokens = src.lines[s_at].split()
    kind = s_tokens[1] if len(s_tokens) > 1 else ""
    widths = {"mip": 6, "bas": 7, "ipt": 6}
    if len(s_tokens) != widths.get(kind):
        raise src.fail("'s mip ROWS COLS STATUS OBJ' (or 's bas'/'s ipt')", shown(src.lines[s_at]), line=s_at + 1)
    try:
        n_cols = int(s_tokens[3])
    except ValueError:
        raise src.fail("the number of columns in the 's' line", shown(s_tokens[3]), line=s_at + 1) from None
    if kind == "mip":
        letter = s_tokens[4]
        table = _HIGHS_MIP_STATUS if solver == "highs" else _MIP_STATUS
        if letter not in table:
            raise src.fail(f"a status letter among {', '.join(table)}", shown(letter), line=s_at + 1)
        status = table[letter]
        raw = f"s mip {letter}: {_LETTER.get(letter, letter)}"
    else:
        # An LP solution: for a MIP the relaxation's answer, never a MIP solution.
        primal = s_tokens[4]
        status = "infeasible" if primal == "n" else "no_solution"
        method = "basic" if kind == "bas" else "interior-point"
        raw = (f"s {kind} {' '.join(s_tokens[4:-1])}: LP {method} solution, primal "
               f"{_LETTER.get(primal, primal)} (not a MIP solution)")

    body = [k for k in range(s_at + 1, len(src.lines)) if src.lines[k].strip()]
    has_eof = bool(body) and src.lines[body[-1]].strip() == "e o f"
    if not has_eof:
        # HiGHS style 2 stops after the 's' line when it has no solution; only values need the rest.
        if status in ("optimal", "feasible") or body:
            last = body[-1] + 1 if body else s_at + 1
            raise src.fail("'e o f' as the last line", f"end of file after line {last} (file truncated?)",
                           line=last)
    if status not in ("optimal", "feasible"):
        return make_solution(src, solver, status, raw, None, {}, omits_zeros=False)
    if col_names is None:
        raise src.fail("col_names (the MPS column order) to map the column numbers of a GLPK -w file",
                       "none")
    names = [str(n) for n in col_names]
    if len(names) != n_cols:
        raise OlctcError(f"{src.where}:{s_at + 1}: the file holds {n_cols} columns (its 's' line) and the model "
                         f"{len(names)}: the solution belongs to another model")
    objective = parse_number(src, s_tokens[5], "a finite objective value", s_at + 1)

    first_j = next((k for k in body if src.lines[k].startswith("j")), body[-1])
    last = body[-1]  # the 'e o f' line
    rows = split_lines(src, first_j, last, (3,), "'j COL VALUE'")
    if len(rows) != n_cols:
        raise src.fail(f"{n_cols} 'j' lines, as the 's' line says", f"{len(rows)} (file truncated?)",
                       line=last + 1)
    lines = range(first_j + 1, last + 1)
    try:
        index = np.array([int(r[1]) for r in rows]) if all(r[0] == "j" for r in rows) else None
    except ValueError:
        index = None
    if index is None or not np.array_equal(index, np.arange(1, n_cols + 1)):
        k = next((k for k, r in enumerate(rows) if r[0] != "j" or r[1] != str(k + 1)), 0)
        raise src.fail(f"'j {k + 1} VALUE'", shown(src.lines[first_j + k].strip()), line=first_j + k + 1)
    values = parse_values(src, [r[2] for r in rows], names, lines)
    return make_solution(src, solver, status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=False)


def parse_printable(src: Source, col_names: Sequence[str] | None = None, solver: str = "glpk") -> Solution:
    """Parse a ``glpsol -o`` file (or HiGHS style 3)."""
    fields: dict[str, tuple[int, str]] = {}
    for k, line in enumerate(src.lines[:12]):
        key, sep, value = line.partition(":")
        if sep and key in ("Columns", "Status", "Objective"):
            fields[key] = (k + 1, value.strip())
    for key in ("Columns", "Status", "Objective"):
        if key not in fields:
            article = "an" if key == "Objective" else "a"
            raise src.fail(f"{article} '{key}:' line in the header of a GLPK printable file", "none")
    line_no, raw = fields["Status"]
    status = _PRINTABLE_STATUS.get(raw, "no_solution")
    if raw == "UNBOUNDED" and _is_mip_print(src):
        # HiGHS style 3 of a MIP HiGHS found unbounded (measured, 1.16): unbounded, as its styles 0 and 1 say;
        # it read as "no_solution (an LP solution, not a MIP solution)"
        status = "unbounded"
    elif not raw.startswith("INTEGER") and status == "no_solution" and raw != "UNDEFINED":
        # HiGHS style 3 says UNDEFINED for a MIP stopped before any incumbent: no solution of any kind
        raw = f"{raw} (an LP solution, not a MIP solution)"
    if status not in ("optimal", "feasible"):
        return make_solution(src, solver, status, raw, None, {}, omits_zeros=False)
    obj_line, obj_text = fields["Objective"]
    # 'Objective:  obj = -21.5 (MINimum)', or without 'obj = ' when the objective has no name.
    obj_words = obj_text.split("=")[-1].split()
    obj_token = obj_words[0] if obj_words else ""
    objective = parse_number(src, obj_token, "a finite objective value", obj_line)
    cols_line, cols_text = fields["Columns"]
    try:
        n_cols = int(cols_text.split()[0])
    except (ValueError, IndexError):
        raise src.fail("the number of columns", shown(cols_text), line=cols_line) from None

    top = next((k for k, line in enumerate(src.lines) if line.split()[:3] == ["No.", "Column", "name"]), -1)
    if top < 0:
        raise src.fail("a column table ('No. Column name ...')", "none (file truncated?)")
    names: list[str] = []
    tokens: list[str] = []
    lines: list[int] = []
    k = top + 2  # past the dashes
    while k < len(src.lines) and src.lines[k].strip() and len(names) < n_cols:
        parts = src.lines[k].split()
        if len(parts) == 2:  # a name over 12 characters: the numbers follow on the next line
            if k + 1 >= len(src.lines):
                raise src.fail("the activity of column " + repr(parts[1]) + " on the next line",
                               "end of file (file truncated?)", line=k + 1)
            k += 1
            parts += src.lines[k].split()
        rest = parts[2:]
        # An integer marker '*' or a basis status (B, NL, ...) may stand before the activity.
        if rest and not _is_number(rest[0]):
            rest = rest[1:]
        if len(parts) < 3 or not rest:
            raise src.fail("'No. name [*] activity ...'", shown(src.lines[k].strip()), line=k + 1)
        names.append(parts[1])
        tokens.append(rest[0])
        lines.append(k + 1)
        k += 1
    if len(names) != n_cols:
        raise src.fail(f"{n_cols} columns in the column table, as 'Columns:' says",
                       f"{len(names)} (file truncated?)", line=k + 1)
    if k == len(src.lines):  # the conditions and 'End of output' follow: the file may be cut in the last value
        src.require_final_newline()
    values = parse_values(src, tokens, names, lines)
    return make_solution(src, solver, status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=False, digits=printed_digits(values, PRINTABLE_DIGITS))


def _is_mip_print(src: Source) -> bool:
    """Whether a printable file holds a MIP solution: its column table lacks the 'St' and 'Marginal' fields of an LP
    solution (glpsol --nomip, HiGHS solve_relaxation), whatever its Status line says."""
    header = next((line.split() for line in src.lines if line.split()[:3] == ["No.", "Column", "name"]), None)
    return header is not None and "Marginal" not in header


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    return parse_raw(src, col_names) if detect_raw(src) else parse_printable(src, col_names)


READER = register(Reader("glpk", "'c' lines then 's mip|bas|ipt ...' (glpsol -w), or 'Problem:' (glpsol -o)",
                         _detect, _parse, named="a GLPK"))
