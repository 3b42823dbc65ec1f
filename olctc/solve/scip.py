"""SCIP in process through PySCIPOpt (MIQPs included): a model file read with its reader errors captured,
solved with SoPlex's tolerance notices folded."""
from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from olctc import sigactions
from olctc.emit.params import PARAM_NAMES, solver_settings
from olctc.errors import OlctcError, warn
from olctc.process_state import interrupt_handled
from olctc.read.solution import is_helper_column
from olctc.solve.calls import _fd_redirected, _map, _native, repeats_folded, _start_values, _timed
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult, finite_or_none, relative_gap


#: SCIP ``getStatus()`` -> olctc status.
SCIP_STATUS: dict[str, str] = {
    "optimal": "optimal",
    # Stopping at a user gap (limits/gap) is what HiGHS and CBC report as optimal too.
    "gaplimit": "optimal",
    "infeasible": "infeasible",
    "inforunbd": "infeasible",
    "unbounded": "unbounded",
}


#: SoPlex (without GMP) on SCIP tightening its LP tolerance below 1e-10: harmless, hidden by --quiet.
SOPLEX_TOLERANCE_NOTICE = b"Cannot set feasibility tolerance to small value"


@contextlib.contextmanager
def _stderr_captured() -> Any:
    """Send file descriptor 2 to a temporary file for the block; yields a function returning its text.

    SCIP prints reader errors to the C stderr whatever ``hideOutput`` says; captured, they become
    part of one error line.
    """
    with tempfile.TemporaryFile() as tmp, _fd_redirected(2, tmp):
        def read() -> str:
            tmp.seek(0)
            return tmp.read().decode("utf-8", "replace")

        yield read


def scip_version(m: Any) -> str:
    """``SCIP major.minor.tech`` of a pyscipopt Model."""
    return f"SCIP {m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()}"


def scip_model(path: Path, opts: SolveOptions) -> Any:
    """A PySCIPOpt model read from ``path`` with olctc's settings."""
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput(not opts.verbose)
    with _stderr_captured() as captured:
        try:
            with readable_path(path) as readable:
                m.readProblem(str(readable))
        except OSError as exc:  # PySCIPOpt's word for every reader error ("SCIP: read error!")
            # SCIP's own lines say where: "[reader_mps.c:402] ERROR: Syntax error in line 6".
            why = [line.split("ERROR:", 1)[1].strip() for line in captured().splitlines() if "ERROR:" in line]
            raise OlctcError(f"SCIP cannot read model file {path}: {why[0] if why else exc}") from None
        said = captured()
    if said:  # warnings of a file SCIP did read: the user's to see
        sys.stderr.write(said)
    if m.getNVars() == 0:
        raise no_columns(path, "SCIP")
    for name, value in solver_settings("scip", time_limit=opts.time_limit, threads=opts.threads,
                                       mip_gap=opts.mip_gap).items():
        m.setParam(name, float(value))
    if opts.threads is not None and opts.threads > 1:
        warn("SCIP's branch and bound runs on one thread; threads is ignored")
    return m


def _helper_value(m: Any, helper: Any, values: dict[str, float]) -> float | None:
    """The least value of SCIP's helper column of a quadratic objective (its MPS reader's ``qmatrixvar``, bounded
    by the quadratic part in the row ``qmatrix``: quad(x) - qmatrixvar <= 0) at the start's ``values``; None
    when the model has no such row."""
    rows = [c for c in m.getConss() if c.getConshdlrName() == "nonlinear"]
    if len(rows) != 1:
        return None
    try:
        bilinear, squares, linear = m.getTermsQuadratic(rows[0])
    except Exception:  # PySCIPOpt raises a bare Exception for a row that is not quadratic
        return None
    own = [c for v, c in linear if v.name == helper.name]
    rhs = m.getRhs(rows[0])
    if len(own) != 1 or own[0] >= 0 or not np.isfinite(rhs) or abs(rhs) >= m.infinity():
        return None
    try:
        rest = sum(c * values[x.name] * values[y.name] for x, y, c in bilinear)
        rest += sum(a * values[x.name] ** 2 + b * values[x.name] for x, a, b in squares)
        rest += sum(c * values[v.name] for v, c in linear if v.name != helper.name)
    except KeyError:  # a column the start does not state (another helper of SCIP's)
        return None
    least = (rest - rhs) / -own[0]
    return least + 1e-9 * max(1.0, abs(least))  # above round-off: the row must hold at SCIP's 1e-9 tolerance


def _add_start(m: Any, variables: list[Any], x0: np.ndarray, quadratic: bool, helper: Any | None) -> None:
    """Give SCIP the MIP start ``x0`` (values of ``variables``), complete with the value of the helper column of a
    quadratic objective. A partial solution (SCIP computes the helper itself) is the fallback: SCIP completes it
    with its ``completesol`` heuristic, a sub-SCIP that corrupted SCIP 10.0.2's heap on `large`'s MARGOT, phishing
    (glibc's "malloc(): invalid next size"; then optimize() hung), and lost the start when it did not finish."""
    value = None
    if helper is not None:
        value = _helper_value(m, helper, {v.name: float(x) for v, x in zip(variables, x0.tolist())})
    sol = m.createPartialSol() if quadratic and value is None else m.createSol()
    for v, val in zip(variables, x0.tolist()):
        m.setSolVal(sol, v, val)
    if value is not None:
        m.setSolVal(sol, helper, value)
    m.addSol(sol, free=True)


def scip_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with SCIP through PySCIPOpt (MIQPs included)."""
    m = scip_model(path, opts)
    # getVars() lists binaries, integers, then continuous; the creation index is the file order.
    variables = sorted(m.getVars(), key=lambda v: v.getIndex())
    # The helper column SCIP's readers add for a quadratic objective comes after the file's own.
    helper = None
    if quadratic and variables and is_helper_column("scip", variables[-1].name):
        helper, variables = variables[-1], variables[:-1]
    col_names = [v.name for v in variables]
    x0 = _start_values(opts, col_names, lambda: (np.array([v.getLbOriginal() for v in variables]),
                                                 np.array([v.getUbOriginal() for v in variables])))
    if x0 is not None:
        _add_start(m, variables, x0, quadratic, helper)
    left = opts.remaining()
    if left is not None:
        m.setParam(PARAM_NAMES["scip"].time_limit, float(left))
    # Quiet: the notice hidden, every other line of the process's stderr (the caller's threads' too) passed on
    # as written; verbose: SCIP's repeated lines folded (once each, then a count), the notice among them.
    with repeats_folded(2, hide=() if opts.verbose else (SOPLEX_TOLERANCE_NOTICE,), once=bool(opts.verbose)), \
            sigactions.kept():  # SCIP sets its own SIGINT handler while it solves: two at once left one in place
        runtime = _timed(lambda: _native(m.optimizeNogil, stop=m.interruptSolve))
    raw = m.getStatus()
    if raw == "userinterrupt":
        interrupt_handled()  # as for HiGHS: the caller stops, or keeps the incumbent
    has_solution = m.getNSols() > 0
    status = _map(SCIP_STATUS, raw, has_solution)
    x = objective = None
    if status in ("optimal", "feasible"):
        best = m.getBestSol()
        x = np.array([m.getSolVal(best, v) for v in variables], dtype=float)
        objective = float(m.getSolObjVal(best))
    bound = finite_or_none(m.getDualbound()) if status in ("optimal", "feasible", "no_solution") else None
    # SCIP's getGap() divides by min(|primal|, |dual|): 94% where HiGHS would say under 50%; bench compares
    # models solved by both.
    gap = relative_gap(objective, bound)
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap, x=x, col_names=col_names,
                       solver="scip", solver_version=scip_version(m), runtime=runtime, raw_status=raw)
