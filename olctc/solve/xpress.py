"""FICO Xpress in process through its ``xpress`` package (MIQPs included): the model file read with the controls
NAME.solvers.txt gives Xpress (tight tolerances, feastol first, and ``mipaddcutoff``)."""
from __future__ import annotations

import importlib.metadata
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from olctc.emit.params import PARAM_NAMES, xpress_settings
from olctc.solve.commercial import Outcome, as_array, import_solver, solve_session, solver_errors
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult

#: Xpress's status words (its SolStatus, and the StopType when it stopped early) -> olctc status; the others
#: are limits.
XPRESS_STATUS: dict[str, str] = {
    "OPTIMAL": "optimal",
    "OPTIMAL, stopped on mipgap": "optimal",  # the relative gap asked for (miprelstop)
    "INFEASIBLE": "infeasible",
    "UNBOUNDED": "unbounded",
}


class XpressSession:
    """An Xpress problem read from a file."""

    def __init__(self, xp: Any, path: Path, opts: SolveOptions):
        self.xp = xp
        with warnings.catch_warnings():  # "Using the Community license in this session": the log says so
            warnings.simplefilter("ignore", xp.LicenseWarning)
            self.p = p = xp.problem()
        p.setControl("outputlog", 1 if opts.verbose else 0)
        with solver_errors("xpress", f"read model file {path}", xpress_errors(xp)), readable_path(path) as readable:
            p.readProb(str(readable))
        p.setControl(xpress_settings(time_limit=opts.time_limit, threads=opts.threads, mip_gap=opts.mip_gap))
        n = p.attributes.cols
        if n == 0:
            raise no_columns(path, "Xpress")
        self.n = n
        self.col_names = list(p.getNameList(2, 0, n - 1))
        self.is_mip = p.attributes.mipents > 0
        self.version = xpress_version()

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return as_array(self.p.getLB(0, self.n - 1)), as_array(self.p.getUB(0, self.n - 1))

    def set_start(self, x: np.ndarray) -> None:
        if self.is_mip:
            self.p.addMipSol(x.tolist(), list(range(self.n)), "olctc")

    def set_time_limit(self, seconds: float) -> None:
        self.p.setControl(PARAM_NAMES["xpress"].time_limit, seconds)

    def optimize(self) -> None:
        self.result = self.p.optimize()

    def stop(self) -> None:
        self.p.interrupt(self.xp.StopType.USER)

    def outcome(self) -> Outcome:
        xp, attrs = self.xp, self.p.attributes
        solve_status, sol_status = self.result
        raw = sol_status.name
        if solve_status != xp.SolveStatus.COMPLETED:
            raw += f", stopped on {xp.StopType(attrs.stopstatus).name.lower()}"
        has = sol_status in (xp.SolStatus.OPTIMAL, xp.SolStatus.FEASIBLE)
        x = as_array(self.p.getSolution()) if has else None
        objective = float(attrs.mipobjval if self.is_mip else attrs.lpobjval) if has else None
        return Outcome(raw, has, x, objective, float(attrs.bestbound) if self.is_mip else None)

    def close(self) -> None:
        self.p = None  # the problem's memory goes with the object


def xpress_errors(xp: Any) -> tuple[type[BaseException], ...]:
    """The exceptions the xpress package raises for a model or a solve."""
    return (xp.SolverError, xp.ModelError, xp.InterfaceError)


def xpress_version() -> str:
    """``Xpress 9.9.1 (optimizer 47.01.02)``: the package's release and its library's version."""
    xp = import_solver("xpress")  # first: its message says what to install (the metadata's named no one; QA)
    return f"Xpress {importlib.metadata.version('xpress')} (optimizer {xp.getVersion()})"


def xpress_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with Xpress in process."""
    xp = import_solver("xpress")
    return solve_session("xpress", XPRESS_STATUS, lambda: XpressSession(xp, path, opts), path, opts, xpress_errors(xp))
