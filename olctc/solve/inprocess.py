"""In-process solves: HiGHS through highspy, CBC through python-mip, SCIP through PySCIPOpt.

Every backend sets the tight tolerances of ``olctc.emit.params`` (the big-M rows need them) and maps
the solver's status with one table (``HIGHS_STATUS``, ``CBC_STATUS``, ``SCIP_STATUS``; anything not
listed counts as a limit: "feasible" with an incumbent, else "no_solution").

The backends are ``olctc.solve.highs``, ``olctc.solve.cbc`` and ``olctc.solve.scip``, the native-call
machinery they share is ``olctc.solve.calls``; this module re-exports their names. A test that patches a
module-level name (``LEAVE_WAIT``, ``CBC_DUMPS``, ``_keep_incumbent``) patches the module that reads it.
"""
from __future__ import annotations

from olctc.solve.calls import LEAVE_WAIT, SolverLeft, _native, repeats_folded
from olctc.solve.cbc import (CBC_DUMPS, CBC_STATUS, CBC_STOP_REASONS, NO_NODE_LIMIT, _cbc_stop_reason, cbc_file,
                             cbc_model)
from olctc.solve.highs import HIGHS_STATUS, _highs_thread_run, highs_file, highs_milp, highs_model, new_highs
from olctc.solve.scip import SCIP_STATUS, SOPLEX_TOLERANCE_NOTICE, scip_file, scip_model

__all__ = ["CBC_DUMPS", "CBC_STATUS", "CBC_STOP_REASONS", "HIGHS_STATUS", "LEAVE_WAIT", "NO_NODE_LIMIT", "SCIP_STATUS",
           "SOPLEX_TOLERANCE_NOTICE", "SolverLeft", "_cbc_stop_reason", "_highs_thread_run", "_native", "cbc_file",
           "cbc_model", "highs_file", "highs_milp", "highs_model", "new_highs", "repeats_folded", "scip_file",
           "scip_model"]
