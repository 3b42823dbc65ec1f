"""CBC solution files (``cbc model.mps -solve -solu out.txt``) and python-mip's ``Model.write('x.sol')``.

CBC writes one status line, ``<status> - objective value <v>``, then ``index name value
reduced_cost`` lines. A column violating its bounds gets a ``** `` prefix. Only nonzero columns are
printed once the model has 50 columns or more, so missing columns are 0. With ``-printingOptions
all`` a block of rows comes first; its indices restart at 0 for the columns, which is how it is
dropped. CBC 2.10 prints values with 8 significant digits (``%15.8g``); the devel version prints 15.
``Solution.digits`` records which, measured from the values.

Status mapping (CBC's words -> ``Solution.status``):

- ``Optimal``, ``Optimal (within gap tolerance)`` -> optimal (CBC itself calls a gap stop optimal);
- ``Infeasible``, ``Integer infeasible`` -> infeasible; ``Unbounded`` -> unbounded;
- ``Stopped on time|iterations|difficulties|ctrl-c|...`` -> feasible, unless a parenthesised
  remark says there is no integer solution: CBC 2.10 and devel write ``(no integer solution -
  continuous used)`` after a stop in branch and bound, and the devel version ``(LP relaxation not
  completed - no integer solution)`` after a stop inside the root LP. The values are then those of
  an LP relaxation, or of an unfinished one -> no_solution;
- ``Status unknown`` -> no_solution.

python-mip's ``.sol`` (``Feasible solution - objective <v>`` then ``i name value cost``, zeros left
out) has no status: it is read as feasible, and its objective as unknown because python-mip always
writes 0.0 there (``Model.write`` does not pass the objective to ``save_mipstart``).
"""
from __future__ import annotations

import re
from typing import Sequence

from olctc.read._base import (Reader, Source, make_solution, name_values, parse_number, parse_values,
                              printed_digits, register, shown)
from olctc.read.solution import Solution

_HEADER = re.compile(r"^(?P<status>.+) - objective value (?P<obj>\S+)$")
_PYTHON_MIP = re.compile(r"^Feasible solution - objective (?P<obj>\S+)$")
# Any parenthesised remark that says so: the wording varies between CBC versions (see the docstring).
_NO_INTEGER = re.compile(r"\(.*\bno integer solution\b.*\)$", re.IGNORECASE)

_STATUS = {
    "Optimal": "optimal",
    "Optimal (within gap tolerance)": "optimal",
    "Infeasible": "infeasible",
    "Integer infeasible": "infeasible",
    "Unbounded": "unbounded",
    "Status unknown": "no_solution",
}
# Every CBC limit stop reads "Stopped on <what>"; the list of <what> grows between versions.
_STOPPED = "Stopped on "
#: CBC 2.10's ``%15.8g``: the fewest digits any CBC version prints.
_CBC_DIGITS = 8


def _detect(src: Source) -> bool:
    _, first = src.first()
    return bool(_HEADER.match(first) or _PYTHON_MIP.match(first))


def _status(src: Source, phrase: str, line: int) -> str:
    if phrase in _STATUS:
        return _STATUS[phrase]
    if phrase.startswith(_STOPPED):
        return "feasible"
    raise src.fail("a CBC status (Optimal, Infeasible, Integer infeasible, Unbounded, Stopped on ...)",
                   shown(phrase), line=line)


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    head, first = src.first()
    header = _HEADER.match(first)
    if header:
        raw = header["status"]
        status = "no_solution" if _NO_INTEGER.search(raw) else _status(src, raw, head + 1)
    else:  # python-mip
        raw, status = "Feasible solution (python-mip .sol: no status)", "feasible"
    if status not in ("optimal", "feasible"):
        return make_solution(src, "cbc", status, raw, None, {}, omits_zeros=True)
    src.require_final_newline()
    objective = parse_number(src, header["obj"], "a finite objective value", head + 1) if header else None

    start = head + 1
    # '** ' flags a value outside its bounds; the line is otherwise a normal one.
    rows = [(line.split("**", 1)[1] if line.lstrip().startswith("**") else line).split()
            for line in src.lines[start:]]
    expected = "'index name value reduced_cost'"
    lines = [start + k + 1 for k, row in enumerate(rows) if row]
    rows = [row for row in rows if row]
    if {len(r) for r in rows} - {4}:
        k = next(k for k, r in enumerate(rows) if len(r) != 4)
        raise src.fail(expected, shown(src.lines[lines[k] - 1].strip()), line=lines[k])
    try:
        index = [int(r[0]) for r in rows]
    except ValueError:
        k = next(k for k, r in enumerate(rows) if not _is_int(r[0]))
        raise src.fail(expected, shown(src.lines[lines[k] - 1].strip()), line=lines[k]) from None
    # Rows, when printed, come first and the column indices restart at 0: keep the last block.
    restart = max((k for k in range(1, len(index)) if index[k] <= index[k - 1]), default=0)
    rows, lines = rows[restart:], lines[restart:]
    names = [r[1] for r in rows]
    values = parse_values(src, [r[2] for r in rows], names, lines)
    # python-mip writes Python's repr: exact.
    digits = printed_digits(values, _CBC_DIGITS) if header else None
    return make_solution(src, "cbc", status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=True, digits=digits)


def _is_int(token: str) -> bool:
    """Whether ``int`` takes ``token``: a digits test is not the same ('--3' and '³' pass one and fail the other)."""
    try:
        int(token)
    except ValueError:
        return False
    return True


READER = register(Reader("cbc", "first line '<status> - objective value <v>'", _detect, _parse, named="a CBC"))
