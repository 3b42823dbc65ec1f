"""HiGHS solution files (``--solution_file``, ``Highs.writeSolution(path, style)``).

Styles, each recognised from its first lines:

- 0 (default, "raw"): ``Model status`` / status / blank / ``# Primal solution values`` / ``Feasible``
  (or ``Infeasible``, ``None``) / ``Objective v`` / ``# Columns n`` / n ``name value`` lines /
  ``# Rows m`` ... Values have up to 16 significant digits. HiGHS 1.16 adds ``Objective_bound b``
  and ``MIP_rel_gap g`` after ``Objective v`` (seen for a MIP whose status is Optimal; not for an
  LP, nor for a MIP stopped by a limit); ``b`` becomes ``Solution.bound``.
- 4 (sparse): the same with ``# Columns -k`` (1.16: ``# Columns -k sparse``; ``# Columns 0 sparse`` when no
  column is nonzero) and k
  ``name value index`` lines for the nonzero columns only (``omits_zeros``); there is no
  ``# Rows`` section.
- 1 (pretty): a ``Columns`` table with fixed-width fields (values with 6 significant digits,
  ``%12g``, recorded in ``Solution.digits``), then ``Rows``, then ``Model status: ...`` and
  ``Objective value: ...`` (1.16, a MIP solved to optimality: then ``Objective bound: ...`` and
  ``MIP rel gap: ...%``).
- -1 (old raw): ``N M : Number of columns and rows ...`` then ``T Primal solution`` and one value per
  line by position; no status, so ``col_names`` is required and the status is "feasible".
- 2 and 3 are GLPK's ``-w`` and ``-o`` formats, read by ``olctc.read.glpk`` (detected as ``glpk``
  unless ``format="highs"`` is given).

Status mapping: ``Optimal`` -> optimal, ``Infeasible`` -> infeasible, ``Unbounded`` -> unbounded,
``Primal infeasible or unbounded`` -> no_solution; any other status (``Time limit reached``,
``Solution limit reached``, ``Interrupted by user`` ...) -> feasible when the primal values are
``Feasible``, else no_solution. HiGHS writes an empty file in style -1 when it has no solution.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

from olctc.errors import OlctcError
from olctc.read import glpk
from olctc.read._base import (Reader, Source, make_solution, name_values, parse_number, parse_values,
                              printed_digits, register, shown, split_lines)
from olctc.read.solution import Solution

_FIXED = {"Optimal": "optimal", "Infeasible": "infeasible", "Unbounded": "unbounded",
          "Primal infeasible or unbounded": "no_solution"}
_OLD_RAW = re.compile(r"^-?\d+ -?\d+ : Number of columns and rows")
#: Lines HiGHS 1.16 writes between ``Objective v`` and ``# Columns`` in styles 0 and 4.
_RAW_EXTRAS = ("Objective_bound", "MIP_rel_gap")
#: Style 1 prints values with ``%12g``. Styles 0, 4 and -1 keep 13 to 15 digits (measured): exact here.
_PRETTY_DIGITS = 6


def _status(raw: str, feasible_values: bool) -> str:
    if raw in _FIXED:
        status = _FIXED[raw]
        return status if status != "optimal" or feasible_values else "no_solution"
    return "feasible" if feasible_values else "no_solution"


def _line(src: Source, k: int, expected: str) -> str:
    """Line k (0-based), stripped; running out of lines means the file was cut."""
    if k >= len(src.lines):
        raise src.fail(expected, "end of file (file truncated?)", line=k + 1)
    return src.lines[k].strip()


def _hash_count(src: Source, k: int, keyword: str) -> tuple[int, bool]:
    """The n of a '# <keyword> n' line, and whether the line says 'sparse': HiGHS 1.16 writes a sparse count as
    '# Columns -k sparse'."""
    text = _line(src, k, f"'# {keyword} <n>'")
    parts = text.split()
    sparse_word = len(parts) == 4 and parts[3] == "sparse"
    if len(parts) != 3 + sparse_word or parts[:2] != ["#", keyword]:
        raise src.fail(f"'# {keyword} <n>'", shown(text), line=k + 1)
    try:
        n = int(parts[2])
    except ValueError:
        raise src.fail(f"'# {keyword} <n>'", shown(text), line=k + 1) from None
    if sparse_word and n > 0:  # no nonzero column: HiGHS 1.16 writes '# Columns 0 sparse'
        raise src.fail(f"'# {keyword} -<k> sparse' (a negative count, or 0)", shown(text), line=k + 1)
    return n, sparse_word


def _bound_number(src: Source, token: str, expected: str, line: int) -> float | None:
    """A bound or gap value: None when infinite (no bound known), else a finite number."""
    if token.lower().lstrip("+-") in ("inf", "infinity"):
        return None
    return parse_number(src, token, expected, line)


def _raw_extras(src: Source, start: int) -> tuple[dict[str, float | None], int]:
    """HiGHS 1.16's 'keyword value' lines from ``start`` up to '# Columns' (none in older files),
    and the index of the line after them."""
    found: dict[str, float | None] = {}
    k = start
    while k < len(src.lines) and not src.lines[k].startswith("#"):
        text = src.lines[k].strip()
        parts = text.split()
        if len(parts) != 2 or parts[0] not in _RAW_EXTRAS or parts[0] in found:
            raise src.fail("'# Columns <n>', 'Objective_bound <v>' or 'MIP_rel_gap <v>'", shown(text), line=k + 1)
        found[parts[0]] = _bound_number(src, parts[1], f"a number after '{parts[0]}'", k + 1)
        k += 1
    return found, k


def _block(src: Source, start: int, count: int, width: int, header: str, expected: str) -> list[list[str]]:
    """``count`` lines of ``width`` tokens from ``start``; fewer (or a section header) means a cut file."""
    stop = start + count
    short = next((k for k in range(start, min(stop, len(src.lines))) if src.lines[k].startswith("#")),
                 min(stop, len(src.lines)))
    if short < stop:
        raise src.fail(f"{count} lines after '{header}' (line {start})",
                       f"{short - start} (file truncated?)", line=min(short + 1, len(src.lines)))
    return split_lines(src, start, stop, (width,), expected)


def _parse_default(src: Source, col_names: Sequence[str] | None) -> Solution:
    top, _ = src.first()  # the 'Model status' line
    raw = _line(src, top + 1, "the model status after 'Model status'")
    k = top + 2
    while k < len(src.lines) and src.lines[k].strip() != "# Primal solution values":
        k += 1
    keyword = _line(src, k + 1, "'# Primal solution values' then Feasible, Infeasible or None")
    feasible = keyword == "Feasible"
    status = _status(raw, feasible)
    if status not in ("optimal", "feasible"):
        return make_solution(src, "highs", status, raw, None, {}, omits_zeros=False)
    obj_text = _line(src, k + 2, "'Objective <v>'")
    if not obj_text.startswith("Objective"):
        raise src.fail("'Objective <v>'", shown(obj_text), line=k + 3)
    objective = parse_number(src, obj_text[len("Objective"):].strip(), "a finite objective value", k + 3)
    extras, k = _raw_extras(src, k + 3)
    n, sparse_word = _hash_count(src, k, "Columns")
    header = src.lines[k].strip()
    start = k + 1
    sparse = n < 0 or sparse_word
    count = -n if sparse else n
    width = 3 if sparse else 2
    rows = _block(src, start, count, width, header, "'name value index'" if sparse else "'name value'")
    lines = range(start + 1, start + count + 1)
    names = [r[0] for r in rows]
    values = parse_values(src, [r[1] for r in rows], names, lines)
    if sparse:
        bad = next((j for j, r in enumerate(rows) if not r[2].isdigit()), None)
        if bad is not None:
            raise src.fail("'name value index'", shown(src.lines[start + bad].strip()), line=start + bad + 1)
    after = start + count
    if after == len(src.lines):
        # Dense files go on with '# Rows'; ending on the last column, the file may be cut inside its value.
        src.require_final_newline()
    if after < len(src.lines) and src.lines[after].startswith("# Rows"):
        m, _ = _hash_count(src, after, "Rows")
        _block(src, after + 1, m, 2, src.lines[after].strip(), "'name value'")
    # The dual values and the basis follow; another 'Model status' is another solution (two files joined, an old
    # one and a new): the first was read silently, where the other formats refuse a doubled file.
    again = next((j for j in range(after, len(src.lines)) if src.lines[j].strip() == "Model status"), None)
    if again is not None:
        raise src.fail("one solution (the file holds a second 'Model status': two files joined?)", "'Model status'",
                       line=again + 1)
    return make_solution(src, "highs", status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=sparse, bound=extras.get("Objective_bound"))


def _parse_pretty(src: Source, col_names: Sequence[str] | None) -> Solution:
    top = src.first()[0] + 1  # the table header, under 'Columns'
    header = src.lines[top]
    if "Primal" not in header or "Name" not in header:
        raise src.fail("a 'Columns' table header with Primal and Name fields", shown(header.strip()), line=top + 1)
    ends = [header.index(f) + len(f) for f in ("Index", "Status", "Lower", "Upper", "Primal", "Dual") if f in header]
    name_at = header.index("Name")
    stop = next((k for k in range(top + 1, len(src.lines)) if src.lines[k].strip() == "Rows"), -1)
    tail = {line.partition(":")[0]: (k + 1, line.partition(":")[2].strip())
            for k, line in enumerate(src.lines)
            if line.startswith(("Model status:", "Objective value:", "Objective bound:"))}
    if stop < 0 or "Model status" not in tail:
        raise src.fail("a 'Rows' table and a 'Model status:' line after the columns", "end of file (file truncated?)",
                       line=len(src.lines))
    cut = [_pretty_fields(src.lines[k], ends, name_at) for k in range(top + 1, stop)]
    fields = [c[0] for c in cut]
    names = [c[1] for c in cut]
    # HiGHS leaves every Primal field blank when it has no solution; a blank among values is a damaged
    # (hand-edited, re-spaced) line, which would otherwise read as "no solution" from an Optimal file.
    if any(fields) and not all(fields):
        k = fields.index("")
        raise src.fail("a value under 'Primal' (HiGHS style 1 fixed-width table)",
                       shown(src.lines[top + 1 + k].strip()), line=top + 2 + k)
    raw = tail["Model status"][1]
    status = _status(raw, bool(fields) and all(fields))
    if status not in ("optimal", "feasible"):
        return make_solution(src, "highs", status, raw, None, {}, omits_zeros=False)
    if "Objective value" not in tail:
        raise src.fail("an 'Objective value:' line", "end of file (file truncated?)", line=len(src.lines))
    obj_line, obj_text = tail["Objective value"]
    objective = parse_number(src, obj_text, "a finite objective value", obj_line)
    bound = None
    if "Objective bound" in tail:  # HiGHS 1.16, a MIP solved to optimality
        bound_line, bound_text = tail["Objective bound"]
        bound = _bound_number(src, bound_text, "a number after 'Objective bound:'", bound_line)
    lines = range(top + 2, stop + 1)
    values = parse_values(src, fields, names, lines)
    return make_solution(src, "highs", status, raw, objective, name_values(src, names, values, lines),
                         omits_zeros=False, bound=bound, digits=printed_digits(values, _PRETTY_DIGITS))


def _pretty_fields(line: str, ends: list[int], name_at: int) -> tuple[str, str]:
    """(Primal, Name) of a style 1 table line. The numbers are right-aligned in fields of 12 that end under
    their header words (``%12g``); a wider value (-1.23457e-200, 13 characters) pushes the rest of the
    line right by its excess, so each field ends at its header's end plus the excess so far, or later if
    a character is still there."""
    shift, start, values = 0, 0, []
    for end in ends:
        stop = end + shift
        while stop < len(line) and not line[stop].isspace():
            stop += 1
        values.append(line[start:stop].strip())
        shift, start = stop - end, stop
    primal = values[4] if len(values) > 4 else ""
    return primal, line[name_at + shift:].strip()


def _parse_old_raw(src: Source, col_names: Sequence[str] | None) -> Solution:
    n = int(src.lines[0].split()[0])
    primal = _line(src, 1, "'T Primal solution' or 'F Primal solution'")
    raw = f"{primal} (style -1 has no model status)"
    if not primal.startswith("T"):
        return make_solution(src, "highs", "no_solution", raw, None, {}, omits_zeros=False)
    if col_names is None:
        raise src.fail("col_names (the MPS column order) to map the values of a HiGHS style -1 file", "none")
    names = [str(n) for n in col_names]
    if len(names) != n:
        raise OlctcError(f"{src.where}:1: the file holds {n} columns (its line 1) and the model {len(names)}: "
                         "the solution belongs to another model")
    top = next((k for k, line in enumerate(src.lines) if line.strip() == "Columns"), -1)
    if top < 0:
        raise src.fail("a 'Columns' line", "none (file truncated?)")
    start = top + 1
    if start + n > len(src.lines) or any(src.lines[k].strip() == "Rows" for k in range(start, start + n)):
        raise src.fail(f"{n} values after 'Columns' (line {top + 1})", "fewer (file truncated?)",
                       line=min(start + n, len(src.lines)))
    if start + n == len(src.lines):  # 'Rows' follows the values: ending on the last one, it may be cut
        src.require_final_newline()
    elif src.lines[start + n].strip() != "Rows":
        # a line more (duplicated, added) shifts every value onto the next column's name: say so here, not
        # later as "z_1_0 must be integral"
        raise src.fail(f"'Rows' after the {n} values of line 1's count", shown(src.lines[start + n].strip()) +
                       " (a value line too many?)", line=start + n + 1)
    rows = split_lines(src, start, start + n, (1, 2, 3), "'value [dual] [basis status]'")
    lines = range(start + 1, start + n + 1)
    values = parse_values(src, [r[0] for r in rows], names, lines)
    return make_solution(src, "highs", "feasible", raw, None, name_values(src, names, values, lines),
                         omits_zeros=False)


def _glpsol_raw(src: Source, col_names: Sequence[str] | None) -> Solution:
    return glpk.parse_raw(src, col_names, solver="highs")


def _glpsol_printable(src: Source, col_names: Sequence[str] | None) -> Solution:
    return glpk.parse_printable(src, col_names, solver="highs")


def _first_is(text: str) -> Callable[[Source], bool]:
    return lambda src: src.first()[1] == text


def _is_pretty(src: Source) -> bool:
    head = src.head(2)
    return head[:1] == ["Columns"] and len(head) == 2 and head[1].startswith("Index Status")


_STYLES: dict[str, tuple[Callable[[Source], bool], Callable[[Source, Sequence[str] | None], Solution]]] = {
    "default/sparse": (_first_is("Model status"), _parse_default),
    "pretty (1)": (_is_pretty, _parse_pretty),
    "old raw (-1)": (lambda src: bool(_OLD_RAW.match(src.first()[1])), _parse_old_raw),
    "glpsol raw (2)": (glpk.detect_raw, _glpsol_raw),
    "glpsol printable (3)": (glpk.detect_printable, _glpsol_printable),
}


def _style(src: Source) -> str | None:
    return next((name for name, (detect, _) in _STYLES.items() if detect(src)), None)


def _detect(src: Source) -> bool:
    return _style(src) is not None


def _parse(src: Source, col_names: Sequence[str] | None = None) -> Solution:
    style = _style(src)
    if style is None:
        raise src.fail("a HiGHS solution file", shown(src.first()[1]))
    return _STYLES[style][1](src, col_names)


READER = register(Reader("highs", "first line 'Model status' (or a HiGHS style 1/-1/2/3 layout)",
                         _detect, _parse, named="a HiGHS"))
