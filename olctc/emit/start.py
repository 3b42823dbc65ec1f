"""MIP-start files: hand a known solution (e.g. a greedy tree) to a solver as its first incumbent.

Every writer writes a complete start, one value per column in column order: CBC fixes integer
columns missing from a start to 0 and SCIP sets every missing column to 0, so a partial start is
silently a different point. Numbers are integers (``4``) when the float is integral, else
``repr(float)`` (shortest round trip, lowercase ``e``): CBC's start reader accepts only digits,
``.``, ``-``, ``+`` and ``e`` (``2E0``, ``inf`` and ``nan`` are skipped with a warning), and every
other solver reads both forms. Files are written atomically and byte-for-byte deterministically.

Formats, as measured with the solvers (see ``tests/test_start_files.py``):

- gurobi (``.gurobi.mst``): ``# MIP start`` then ``name value``.
- cplex (``.cplex.mst``): ``<CPLEXSolutions>`` XML with ``<variable name= value=/>``.
- cbc (``.cbc.start``, for ``cbc model.mps -mips f``): CBC's solution layout ``index name value``
  under a header line that CBC skips (python-mip's ``Model.read('f.sol')`` skips the first line
  unconditionally, so the header must be there). Lines stay under CBC's 255-character buffer.
- highs (``.highs.sol``, for ``--read_solution_file`` or ``Highs.readSolution``): HiGHS's own
  solution layout up to the ``# Columns n`` section, which HiGHS reads positionally (the lines
  before it are skipped unread, ``# Rows`` may be left out).
- copt (``.copt.mst``, for ``Model.readMst``): Gurobi's layout, which COPT reads as it is.
- xpress (``.xpress.slx``, for ``problem.readSlxSol``): ``NAME``, then indented ``C name value`` lines, then
  ``ENDATA``, the layout of Xpress's own ``writeSlxSol``.
- scip (``.scip.sol``, for ``read f`` / ``Model.readSol``): ``solution status:`` and
  ``objective value:`` lines (skipped by SCIP's reader) then ``name value``. For a model with a
  quadratic objective (MARGOT), also the value of the helper column SCIP adds for it, under both names
  it uses (see ``SCIP_QUADRATIC_HELPERS``).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from olctc.errors import OlctcError, param_error
from olctc.io import atomic_write_text

#: CBC reads a start with fgets into a 256-byte buffer: a longer line is cut in two.
_CBC_MAX_LINE = 255
_WHITESPACE = re.compile(r"\s")
# Integral floats are printed as integers up to 2**53, where every integer is still exact.
_EXACT_INT = float(2 ** 53)
#: SCIP keeps objectives linear: it reads a quadratic objective as a helper column of cost 1 and a
#: constraint ``0.5 x'Qx - helper <= 0``, named ``qmatrixvar`` by its MPS reader and ``quadobjvar`` by its
#: LP reader (SCIP 10, both measured); its solution files list it. A start without the helper sets it to
#: 0, which violates that constraint by the quadratic part, and SCIP discards the start ("all 1 solutions
#: given by solution candidate storage are infeasible"). The start file serves the model whichever format
#: it has, so it names both; SCIP says "unknown variable" once for the one its reader did not make and
#: ignores that line.
SCIP_QUADRATIC_HELPERS = ("qmatrixvar", "quadobjvar")


def format_values(x: np.ndarray) -> list[str]:
    """Each value as the shortest text that reads back to the same float; integral ones as ``4``."""
    out = np.empty(x.shape[0], dtype=object)
    integral = (x == np.trunc(x)) & (np.abs(x) < _EXACT_INT)
    out[integral] = list(map(str, x[integral].astype(np.int64).tolist()))
    rest = ~integral
    out[rest] = list(map(repr, x[rest].tolist()))
    return out.tolist()


def _gurobi(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    head = "# MIP start\n" + (f"# Objective value = {objective!r}\n" if objective is not None else "")
    return head + "".join([f"{n} {v}\n" for n, v in zip(names, values)])


def _cplex(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    name = path.name.removesuffix(".cplex.mst") if path.name.endswith(".cplex.mst") else path.stem
    # quoteattr escapes &, <, > and picks quotes; only names that need it pay for it.
    joined = "".join(names)
    quoted = [quoteattr(n) for n in names] if any(c in joined for c in "&<>\"'") else [f'"{n}"' for n in names]
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<CPLEXSolutions version="1.2">\n'
            ' <CPLEXSolution version="1.2">\n'
            f'  <header problemName={quoteattr(name)} solutionName="start0" MIPStartEffortLevel="0"'
            ' writeLevel="1"/>\n'
            '  <variables>\n'
            + "".join([f'   <variable name={q} value="{v}"/>\n' for q, v in zip(quoted, values)])
            + '  </variables>\n'
            ' </CPLEXSolution>\n'
            '</CPLEXSolutions>\n')


def _cbc(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    lines = [f"{i} {n} {v}\n" for i, (n, v) in enumerate(zip(names, values))]
    longest = max(lines, key=len, default="")
    if len(longest) > _CBC_MAX_LINE:
        raise OlctcError(f"cannot write CBC start {path}: expected lines of at most {_CBC_MAX_LINE} characters "
                         f"(CBC cuts longer ones), got {len(longest)} for column {longest.split()[1][:40]!r}")
    # 'Status unknown' is CBC's own word for a solution of unknown status; CBC skips the line.
    head = f"Status unknown - objective value {objective!r}\n" if objective is not None else "Status unknown\n"
    return head + "".join(lines)


def _highs(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    # HiGHS skips the status and objective lines unread; 'Feasible' must be there (not 'None').
    obj = repr(objective) if objective is not None else "unknown"
    return (f"Model status\nUnknown\n\n# Primal solution values\nFeasible\nObjective {obj}\n"
            f"# Columns {len(names)}\n" + "".join([f"{n} {v}\n" for n, v in zip(names, values)]))


def _scip(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    head = "solution status: unknown\n" + (f"objective value: {objective!r}\n" if objective is not None else "")
    return head + "".join([f"{n} {v}\n" for n, v in zip(names, values)])


def _xpress(names: Sequence[str], values: list[str], objective: float | None, path: Path) -> str:
    # Xpress's own .slx has no objective line; the word after NAME is a label (one word: the stem may have spaces).
    # As in MPS, a line that starts in column 1 opens a section: the C lines must be indented (measured, 9.9.1:
    # "Wrong section in the solution file" otherwise).
    return "NAME olctc_start\n" + "".join([f"  C {n} {v}\n" for n, v in zip(names, values)]) + "ENDATA\n"


_Writer = Callable[[Sequence[str], list[str], "float | None", Path], str]
_WRITERS: dict[str, tuple[str, _Writer]] = {
    "gurobi": (".gurobi.mst", _gurobi),
    "cplex": (".cplex.mst", _cplex),
    "cbc": (".cbc.start", _cbc),
    "highs": (".highs.sol", _highs),
    "scip": (".scip.sol", _scip),
    "copt": (".copt.mst", _gurobi),
    "xpress": (".xpress.slx", _xpress),
}

#: Solvers a MIP start can be written for (GLPK's glpsol reads none).
START_FORMATS: tuple[str, ...] = tuple(_WRITERS)


def _check_solver(solver: str) -> None:
    if solver not in _WRITERS:
        raise param_error("solver", f"one of {', '.join(START_FORMATS)}", solver)


def start_filename(stem: str, solver: str) -> str:
    """File name of ``solver``'s start for ``stem``: ``stem + ".start.gurobi.mst"``, ``".start.cbc"`` ...

    The ``.start`` infix keeps starts apart from solution files (``stem.highs.sol`` is what
    ``olctc solve`` writes by default).

    Raises
    ------
    OlctcError
        for a solver not in ``START_FORMATS``.
    """
    _check_solver(solver)
    return stem + ".start" + _WRITERS[solver][0].replace(".cbc.start", ".cbc")


def _check_names(names: Sequence[str], path: Path) -> None:
    joined = "".join(names)
    if _WHITESPACE.search(joined) or any(not n for n in names):
        bad = next(n for n in names if not n or _WHITESPACE.search(n))
        raise OlctcError(f"cannot write MIP start {path}: expected column names without whitespace, got {bad!r}")
    if len(set(names)) != len(names):
        seen: set[str] = set()
        for dup in names:  # the first name seen twice
            if dup in seen:
                break
            seen.add(dup)
        raise OlctcError(f"cannot write MIP start {path}: expected distinct column names, got {dup!r} twice")


def write_start(path: str | os.PathLike[str], col_names: Sequence[str], x: np.ndarray, solver: str,
                objective: float | None = None, *, quadratic: float | None = None) -> None:
    """Write a complete MIP start for ``solver``, atomically: ``start_text``'s parameters and errors, and an
    OlctcError for a folder that does not exist."""
    atomic_write_text(path, start_text(path, col_names, x, solver, objective, quadratic=quadratic))


def start_text(path: str | os.PathLike[str], col_names: Sequence[str], x: np.ndarray, solver: str,
               objective: float | None = None, *, quadratic: float | None = None) -> str:
    """The text of a complete MIP start for ``solver``, to be written to ``path``.

    Parameters
    ----------
    path : the file it is for (see ``start_filename``): CPLEX's start names the problem after it.
    col_names : every column name, in the model's column order.
    x : one finite value per column.
    solver : one of ``START_FORMATS``.
    objective : objective value of ``x``, written where the format has a place for it.
    quadratic : for a model with a quadratic objective (a MIQP), ``0.5 x'Qx`` of ``x``: the SCIP start
        then gives SCIP's helper column that value (``SCIP_QUADRATIC_HELPERS``), without which SCIP
        discards the start as infeasible. The other formats do not need it.

    Raises
    ------
    OlctcError
        for an unknown solver, a length mismatch, a non-finite value, names with whitespace or
        duplicates, or a column named like SCIP's helper in a MIQP.
    """
    return start_texts([path], col_names, x, [solver], objective, quadratic=quadratic)[0]


def start_texts(paths: Sequence[str | os.PathLike[str]], col_names: Sequence[str], x: np.ndarray,
                solvers: Sequence[str], objective: float | None = None, *,
                quadratic: float | None = None) -> list[str]:
    """``start_text`` of one start for several solvers (``paths[k]`` for ``solvers[k]``): the names and values
    are checked and formatted once, and solvers that read one layout (COPT reads Gurobi's) share its text.
    Errors name the first path."""
    if len(paths) != len(solvers) or not paths:
        raise OlctcError(f"start_texts: expected one path per solver, got {len(paths)} paths for "
                         f"{len(solvers)} solvers")
    for solver in solvers:
        _check_solver(solver)
    path = Path(paths[0])
    names = [str(n) for n in col_names]
    values = np.asarray(x, dtype=np.float64)
    if values.ndim != 1 or values.shape[0] != len(names):
        raise OlctcError(f"cannot write MIP start {path}: expected {len(names)} values (one per column), "
                         f"got an array of shape {values.shape}")
    finite = np.isfinite(values)
    if not finite.all():
        i = int(np.argmin(finite))
        raise OlctcError(f"cannot write MIP start {path}: expected finite values, "
                         f"got {float(values[i])!r} for column {names[i]!r}")
    if objective is not None and not np.isfinite(objective):
        raise OlctcError(f"cannot write MIP start {path}: expected a finite objective, got {objective!r}")
    if quadratic is not None and not np.isfinite(quadratic):
        raise OlctcError(f"cannot write MIP start {path}: expected a finite quadratic part, got {quadratic!r}")
    _check_names(names, path)
    text_values = format_values(values)
    obj = None if objective is None else float(objective)
    if quadratic is not None and "scip" in solvers:
        taken = set(SCIP_QUADRATIC_HELPERS).intersection(names)
        if taken:
            raise OlctcError(f"cannot write MIP start {path}: column {sorted(taken)[0]!r} has the name SCIP gives "
                             "the helper column of a quadratic objective; rename it")
    texts: list[str] = []
    shared: dict[_Writer, str] = {}
    for solver, where in zip(solvers, paths):
        writer = _WRITERS[solver][1]
        if writer in shared:
            texts.append(shared[writer])
        elif quadratic is not None and solver == "scip":
            helper = format_values(np.full(len(SCIP_QUADRATIC_HELPERS), float(quadratic)))
            texts.append(writer(names + list(SCIP_QUADRATIC_HELPERS), text_values + helper, obj, Path(where)))
        else:
            texts.append(writer(names, text_values, obj, Path(where)))
            if writer is _gurobi:  # the one layout two solvers read, and its text does not depend on the path
                shared[writer] = texts[-1]
    return texts
