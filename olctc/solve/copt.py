"""COPT (Cardinal Optimizer) in process through coptpy (MIQPs included): the model file read with the settings
of compile's NAME.copt.par.

Known: importing coptpy 8.0 before highspy in one process makes highspy's ``Highs.readSolution`` read garbage
(olctc never calls it; docs/FORMATS.md)."""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import numpy as np

from olctc.emit.params import PARAM_NAMES, solver_settings
from olctc.solve.calls import _fd_redirected
from olctc.solve.commercial import Outcome, as_array, import_solver, solve_session, solver_errors
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult

#: COPT's status name (``coptpy.COPT``) -> olctc status; the others are limits.
COPT_STATUS: dict[str, str] = {
    "OPTIMAL": "optimal",  # a RelGap given stops with OPTIMAL too
    "INFEASIBLE": "infeasible",
    "INF_OR_UNB": "infeasible",
    "UNBOUNDED": "unbounded",
}
_NAMES = ("OPTIMAL", "INFEASIBLE", "UNBOUNDED", "INF_OR_UNB", "NUMERICAL", "NODELIMIT", "IMPRECISE", "TIMEOUT",
          "UNFINISHED", "INTERRUPTED", "UNSTARTED")


class CoptSession:
    """A coptpy model read from a file, in an environment of its own."""

    def __init__(self, coptpy: Any, path: Path, opts: SolveOptions):
        if opts.verbose:
            self.env = coptpy.Envr()
        else:  # the licence lookup's lines go to file descriptor 1, the banner to sys.stdout, whatever Logging says
            with open(os.devnull, "w") as null, _fd_redirected(1, null), contextlib.redirect_stdout(io.StringIO()):
                self.env = coptpy.Envr()
        try:
            self.model = m = self.env.createModel("olctc")
            if not opts.verbose:
                # Quiet, with Logging 0, solve() held the GIL to its end (a 54 s solve: no interrupt, no other
                # thread ran); a Python log callback lets them run at each line, and drops the lines.
                self.sink = _sink(coptpy)
                with contextlib.redirect_stdout(io.StringIO()):  # "Setting parameter 'LogToConsole' to 0"
                    m.setLogCallback(self.sink)
            with solver_errors("copt", f"read model file {path}", (coptpy.CoptError,)), readable_path(path) as readable:
                m.read(str(readable))
            for name, value in solver_settings("copt", time_limit=opts.time_limit, threads=opts.threads,
                                               mip_gap=opts.mip_gap).items():
                m.setParam(name, value)
            self.vars = m.getVars()
            self.col_names = [v.getName() for v in self.vars]
        except BaseException:
            self.env.close()
            raise
        if not self.col_names:
            self.close()
            raise no_columns(path, "COPT")
        self.is_mip = bool(m.getAttr("IsMIP"))
        self.names = {getattr(coptpy.COPT, k): k for k in _NAMES if hasattr(coptpy.COPT, k)}
        self.version = copt_version()

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return as_array(self.model.getInfo("LB", self.vars)), as_array(self.model.getInfo("UB", self.vars))

    def set_start(self, x: np.ndarray) -> None:
        if self.is_mip:
            self.model.setMipStart(self.vars, x.tolist())
            self.model.loadMipStart()

    def set_time_limit(self, seconds: float) -> None:
        self.model.setParam(PARAM_NAMES["copt"].time_limit, seconds)

    def optimize(self) -> None:
        self.model.solve()

    def stop(self) -> None:
        self.model.interrupt()

    def outcome(self) -> Outcome:
        m = self.model
        raw = self.names.get(m.status, str(m.status))
        has = bool(m.getAttr("HasMipSol" if self.is_mip else "HasLpSol"))
        x = as_array(m.getValues()) if has else None
        objective = float(m.objval) if has else None
        return Outcome(raw, has, x, objective, float(m.getAttr("BestBnd")) if self.is_mip else None)

    def close(self) -> None:
        self.env.close()


def _sink(coptpy: Any) -> Any:
    """A COPT log callback that drops the lines."""
    class Sink(coptpy.LogCallback):  # type: ignore[misc, name-defined]
        def Display(self, msg: str) -> None:  # noqa: N802  (COPT's name)
            pass

    return Sink()


def copt_version() -> str:
    """``COPT major.minor.technical`` of the installed coptpy (no licence lookup)."""
    const = import_solver("copt").COPT
    return f"COPT {const.VERSION_MAJOR}.{const.VERSION_MINOR}.{const.VERSION_TECHNICAL}"


def copt_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with COPT in process."""
    coptpy = import_solver("copt")
    return solve_session("copt", COPT_STATUS, lambda: CoptSession(coptpy, path, opts), path, opts, (coptpy.CoptError,))
