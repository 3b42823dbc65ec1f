"""Gurobi in process through gurobipy (MIQPs included): the model file read into an environment of its own,
with the settings of compile's NAME.gurobi.prm."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from olctc.emit.params import PARAM_NAMES, solver_settings
from olctc.read.solution import is_helper_column
from olctc.solve.commercial import Outcome, as_array, import_solver, solve_session, solver_errors
from olctc.solve.modelfile import no_columns, readable_path
from olctc.solve.options import SolveOptions
from olctc.solve.result import SolveResult

#: Gurobi's status name (``GRB.Status``) -> olctc status; the others are limits.
GUROBI_STATUS: dict[str, str] = {
    "OPTIMAL": "optimal",  # a MIPGap given stops with OPTIMAL too, as HiGHS and CBC do
    "INFEASIBLE": "infeasible",
    "INF_OR_UNBD": "infeasible",
    "UNBOUNDED": "unbounded",
}


class GurobiSession:
    """A gurobipy model read from a file."""

    def __init__(self, gp: Any, path: Path, opts: SolveOptions):
        self.gp = gp
        self.env = gp.Env(empty=True)
        try:
            self.env.setParam("OutputFlag", 1 if opts.verbose else 0)
            self.env.start()
            with solver_errors("gurobi", f"read model file {path}", (gp.GurobiError,)), readable_path(path) as readable:
                self.model = gp.read(str(readable), self.env)
            for name, value in solver_settings("gurobi", time_limit=opts.time_limit, threads=opts.threads,
                                               mip_gap=opts.mip_gap).items():
                self.model.setParam(name, value)
        except BaseException:
            self.env.dispose()
            raise
        every = self.model.getVars()
        if not every:
            self.close()
            raise no_columns(path, "Gurobi")
        # Gurobi models a ranged row of an MPS file with a slack column of its own (MPS_Rg<row>): not the file's
        names = self.model.getAttr("VarName", every)
        keep = [j for j, name in enumerate(names) if not is_helper_column("gurobi", name)]
        self.vars = [every[j] for j in keep]
        self.col_names = [names[j] for j in keep]
        self.version = gurobi_version()
        self.names = {getattr(gp.GRB.Status, k): k for k in dir(gp.GRB.Status) if k.isupper()}

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return as_array(self.model.getAttr("LB", self.vars)), as_array(self.model.getAttr("UB", self.vars))

    def set_start(self, x: np.ndarray) -> None:
        self.model.setAttr("Start", self.vars, x.tolist())

    def set_time_limit(self, seconds: float) -> None:
        self.model.setParam(PARAM_NAMES["gurobi"].time_limit, seconds)

    def optimize(self) -> None:
        self.model.optimize()

    def stop(self) -> None:
        self.model.terminate()

    def outcome(self) -> Outcome:
        m = self.model
        raw = self.names.get(m.Status, str(m.Status))
        has = m.SolCount > 0
        x = as_array(m.getAttr("X", self.vars)) if has else None
        objective = float(m.ObjVal) if has else None
        return Outcome(raw, has, x, objective, float(m.ObjBound) if m.IsMIP else None)

    def close(self) -> None:
        if getattr(self, "model", None) is not None:
            self.model.dispose()
        self.env.dispose()


def gurobi_version() -> str:
    """``Gurobi major.minor.technical`` of the installed gurobipy (no licence needed)."""
    return "Gurobi " + ".".join(map(str, import_solver("gurobi").gurobi.version()))


def gurobi_file(path: Path, opts: SolveOptions, *, quadratic: bool = False) -> SolveResult:
    """Solve a model file with Gurobi in process."""
    gp = import_solver("gurobi")
    return solve_session("gurobi", GUROBI_STATUS, lambda: GurobiSession(gp, path, opts), path, opts, (gp.GurobiError,))
