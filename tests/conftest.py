"""Shared test helpers: a direct highspy solve of MILP arrays (independent of olctc.solve)."""
from __future__ import annotations

import numpy as np


def solve_highs_arrays(milp, time_limit: float | None = None, tol: float = 1e-9):
    """Optimal objective and x of a MILP object, by highspy at tight tolerances."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_feasibility_tolerance", tol)
    h.setOptionValue("primal_feasibility_tolerance", tol)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    h.setOptionValue("threads", 1)
    if time_limit:
        h.setOptionValue("time_limit", float(time_limit))
    A = milp.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = milp.n_cols, milp.n_rows
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = milp.c, milp.lb, milp.ub
    inf = highspy.kHighsInf
    lp.row_lower_ = np.where(milp.sense == "L", -inf, milp.rhs)
    lp.row_upper_ = np.where(milp.sense == "G", inf, milp.rhs)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                       for i in milp.integer]
    h.passModel(lp)
    h.run()
    return h.getInfo().objective_function_value + milp.obj_constant, np.array(h.getSolution().col_value)
