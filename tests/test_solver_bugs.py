"""Workarounds for solvers' own bugs (olctc/emit/params.py WORKAROUNDS), each checked on the instance
that found it. These run in a child process: without the workaround the bug kills or hangs it."""
from __future__ import annotations

import subprocess
import sys

from olctc.emit.params import solver_settings

# The bench run that found it: tic-tac-toe, the authors' split of seed 0, SFS-MARGOT (an MIQP for SCIP)
# with the warm start. Without the workaround SCIP's MPEC heuristic corrupts the heap after about 7 s of
# solving: "malloc(): invalid size (unsorted)", then a hang in optimize() (or a glibc abort).
SFS_RUN = """
from olctc.bench import runner
opts = runner.make_options("models", datasets="tic-tac-toe", seeds="0", models="SFS-MARGOT", time_limit=25,
                           authors_split=True)
(task,) = runner.make_tasks(opts)
(rec,) = runner.execute_task(task)
print(rec["status"], rec.get("error"), rec.get("test_balanced_accuracy"))
"""


def test_scip_mpec_heuristic_is_off_for_every_scip_solve() -> None:
    assert solver_settings("scip")["heuristics/mpec/freq"] == -1


def test_sfs_margot_that_corrupted_scips_heap_now_solves() -> None:
    p = subprocess.run([sys.executable, "-c", SFS_RUN], capture_output=True, text=True, timeout=150)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "malloc" not in p.stderr and "corruption" not in p.stderr
    status, error, bacc = p.stdout.split()
    assert status in ("optimal", "feasible"), (status, error)
    assert 0.5 < float(bacc) <= 1.0
