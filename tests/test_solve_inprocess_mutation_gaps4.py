"""Tests from a fourth mutation-testing pass over olctc's in-process solvers (olctc.solve.highs, .cbc, .scip), which
ran the mutants the third pass wrote but had no time to run: each pins a behaviour that a small code change (a
mutant) broke without any other test of the solve files failing. Tiny real models, real solvers on one thread.
(test_solve_inprocess_mutation_gaps.py, ..._gaps2.py and ..._gaps3.py hold the earlier passes' tests.)"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from olctc import OLCTClassifier
from olctc.solve import solve_file
from olctc.solve.options import SolveOptions

DATA = Path(__file__).parent / "data" / "solvers"

#: a linear model whose own last column is named like SCIP's helper column of a quadratic objective (optimum 1)
QMATRIXVAR_LP = ("Minimize\n obj: x + qmatrixvar\nSubject To\n c1: x + qmatrixvar >= 1\nBounds\n x <= 1\n"
                 " 0.5 <= qmatrixvar <= 2\nEnd\n")


# ------------------------------------------------------------------ CBC
def test_a_quiet_cbc_fit_hides_clps_debugging_lines(capfd: pytest.CaptureFixture[str]) -> None:
    """Clp prints "Free in 22 compat n dj 1.8e+30" (printf, at any log level) while CBC solves these 15 points: a quiet
    solve hides the lines, which came back on stdout when the quiet/verbose test was turned round. The same fit as
    test_solver_bugs.py's subprocess test, in process (half a second)."""
    rng = np.random.RandomState(0)
    X, y = rng.rand(15, 30), rng.randint(0, 2, 15)
    capfd.readouterr()
    est = OLCTClassifier(depth=1, time_limit=5, solver="cbc", verbose=False).fit(X, y)
    out = capfd.readouterr().out
    assert est.summary_["status"] == "optimal"
    assert "Free in" not in out, out[:500]


# ------------------------------------------------------------------ SCIP
def test_scip_keeps_a_linear_models_own_column_named_like_its_quadratic_helper(tmp_path: Path) -> None:
    """Only a quadratic objective gives SCIP a helper column (qmatrixvar) to drop from the answer: a linear model's
    own column of that name is one of its columns, with its value."""
    (tmp_path / "q.lp").write_text(QMATRIXVAR_LP)
    res = solve_file(tmp_path / "q.lp", "scip", threads=1, verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(1.0)
    assert res.col_names == ["x", "qmatrixvar"] and res.x.tolist() == pytest.approx([0.0, 1.0])


@pytest.mark.parametrize(("x", "y", "least"), [(0.0, 0.0, 0.0), (2.0, 1.0, 7.0), (2000.0, 0.0, 4e6)])
def test_scips_quadratic_helper_starts_just_above_its_least_value(x: float, y: float, least: float) -> None:
    """The helper column of portable_qp's objective (qmatrixvar >= x^2 + xy + y^2) starts at its least value plus
    1e-9 relative (absolute below 1): exactly the least value may miss SCIP's 1e-9 tolerance by round-off, which
    rejects the whole start."""
    from olctc.solve.scip import _helper_value, scip_model

    m = scip_model(DATA / "portable_qp.mps", SolveOptions(threads=1, verbose=False))
    helper = sorted(m.getVars(), key=lambda v: v.getIndex())[-1]
    assert helper.name == "qmatrixvar"
    value = _helper_value(m, helper, {"x": x, "y_long_name_q": y})
    assert value - least == pytest.approx(1e-9 * max(1.0, least), rel=1e-3)
