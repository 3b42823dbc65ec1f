"""Tests from a third mutation-testing pass over olctc's in-process solvers (olctc.solve.highs, .cbc, .scip): each
pins a behaviour that a small code change (a mutant) broke without any other test failing. Tiny real models, real
solvers on one thread. (test_solve_inprocess_mutation_gaps.py and ..._gaps2.py hold the earlier passes' tests.)"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from test_solve_external_mutation_gaps import _model
from test_solve_inprocess_mutation_gaps import UNBOUNDED_LP

from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.solve import solve_file
from olctc.solve.options import SolveOptions

DATA = Path(__file__).parent / "data" / "solvers"

#: k must be at least 1 (its lower bound), x + y at least 1: a start naming only x and y is feasible once k is
#: clipped into its bounds (optimum 2)
BOUNDED_START_LP = ("Minimize\n obj: x + y + k\nSubject To\n c1: x + y >= 1\nBounds\n 0 <= x <= 4\n 0 <= y <= 4\n"
                    " 1 <= k <= 3\nGeneral\n x y k\nEnd\n")

#: x + y >= 5 with both at most 1: infeasible, and an LP (no integer column)
INFEASIBLE_PURE_LP = "Minimize\n obj: x + y\nSubject To\n c1: x + y >= 5\nBounds\n x <= 1\n y <= 1\nEnd\n"


# ------------------------------------------------------------------ HiGHS
def test_highs_incumbent_kept_before_its_root_lp_has_no_bound() -> None:
    """The improving-solution callback's first incumbents on model.mps come before HiGHS's root LP, whose dual bound
    is then -inf: a solve left running at that moment reports no bound (None), not -inf and an infinite gap. The
    values kept are the model's columns in its order (the last one is the optimum)."""
    from olctc.solve.calls import _native
    from olctc.solve.highs import _highs_thread_run, _keep_incumbent, highs_model, read_model

    h = highs_model(SolveOptions(threads=1, verbose=False))
    read_model(h, DATA / "model.mps")
    best: dict = {}
    kept: list[tuple] = []

    def keep(event) -> None:
        _keep_incumbent(event, best)
        kept.append(best["x"])

    h.cbMipImprovingSolution.subscribe(keep)
    _native(lambda: _highs_thread_run(h))
    assert kept and kept[0][1] is None, kept
    objective, bound, x = kept[-1]  # the optimum's, in the model's column order
    assert objective == pytest.approx(-21.5) and bound is not None
    assert x.tolist() == pytest.approx([4.0, 3.0, 1.0, 3.0, 2.0, 0.0], abs=1e-9)


def test_highs_clips_the_columns_a_start_by_name_leaves_out_into_their_bounds(tmp_path: Path, capfd) -> None:
    """A start naming only x and y gets k = 1 (0 clipped into k's bounds [1, 3]), which HiGHS finds feasible: k = 0
    made HiGHS's log say the start was "infeasible for bounds" and search for a solution itself."""
    res = solve_file(_model(tmp_path, BOUNDED_START_LP), "highs", threads=1, verbose=True, start={"x": 1.0, "y": 0.0})
    out = capfd.readouterr().out
    assert res.status == "optimal" and res.objective == pytest.approx(2.0)
    assert "tolerances of 1e-09: feasible" in out and "infeasible for bounds" not in out, out


def test_highs_stopped_reading_with_the_callers_deadline_still_ahead_says_the_time_ran_out(tmp_path: Path) -> None:
    """HiGHS's reader stops at the backend's own time limit (0.2 s) while the caller's deadline is up to a second
    ahead: still the time's fault (TimeLimitTooShort), not "cannot read model file" as for a broken file."""
    from olctc.solve.highs import highs_file

    path, n = tmp_path / "big.mps", 200_000  # HiGHS reads it in about a second
    with open(path, "w") as f:
        f.write("NAME big\nROWS\n N obj\n" + "".join(f" L r{i}\n" for i in range(n)) + "COLUMNS\n")
        f.write("".join(f"    x{i} obj 1 r{i} 1\n    x{i} r{(i + 1) % n} 1\n" for i in range(n)))
        f.write("RHS\n" + "".join(f"    rhs r{i} 1\n" for i in range(n)) + "ENDATA\n")
    opts = SolveOptions(time_limit=0.2, threads=1, verbose=False, deadline=time.monotonic() + 1.0)
    with pytest.raises(TimeLimitTooShort, match="HiGHS stopped reading model file .* when the time limit ran out"):
        highs_file(path, opts)


# ------------------------------------------------------------------ every backend
@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_a_backend_stops_at_the_callers_deadline_not_after_its_whole_limit(solver: str) -> None:
    """A backend handed a 10 s limit with the call's deadline 1.5 s away (the rest spent reading) gives its solver
    what is left (about 1.5 s; hard_msplit is not solved in either), not the whole limit again."""
    from olctc.solve import cbc, highs, scip

    backend = {"highs": highs.highs_file, "cbc": cbc.cbc_file, "scip": scip.scip_file}[solver]
    res = backend(DATA / "hard_msplit.mps",
                  SolveOptions(time_limit=10.0, threads=1, verbose=False, deadline=time.monotonic() + 1.5))
    assert res.status == "no_solution" and res.runtime < 5.0, (res.raw_status, res.runtime)


@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_an_infeasible_or_unbounded_lp_has_no_bound_and_no_gap(tmp_path: Path, solver: str) -> None:
    """An LP (no integer column) that is infeasible or unbounded has neither bound nor gap: the "bound = objective,
    gap 0" of a solved LP (python-mip gives an LP no MIP gap) is an optimum's only."""
    for text, status in ((INFEASIBLE_PURE_LP, "infeasible"), (UNBOUNDED_LP, "unbounded")):
        res = solve_file(_model(tmp_path, text), solver, threads=1, verbose=False)
        assert (res.status, res.objective, res.bound, res.gap) == (status, None, None, None), res.raw_status


# ------------------------------------------------------------------ SCIP
def test_scip_answers_in_the_files_column_order_and_names_its_full_version(capfd) -> None:
    """SCIP lists binaries, integers, then continuous columns; the answer keeps the file's order (model.mps: x, y, z,
    v, w, u, with y continuous between integers), which res.x is read in. The version is SCIP's whole "10.0.2", as
    SCIP itself prints it."""
    import pyscipopt

    res = solve_file(DATA / "model.mps", "scip", threads=1, verbose=False)
    assert res.col_names == ["x", "y", "z", "v", "w", "u"]
    assert res.x is not None and res.x.tolist() == pytest.approx([4.0, 3.0, 1.0, 3.0, 2.0, 0.0], abs=1e-9)
    capfd.readouterr()
    pyscipopt.Model().printVersion()
    printed = re.match(r"SCIP version (\S+) ", capfd.readouterr().out)
    assert printed and res.solver_version == f"SCIP {printed.group(1)}"


def test_scip_says_why_threads_are_ignored() -> None:
    """SCIP given threads > 1 warns that its branch and bound runs on one thread and that the setting is ignored: the
    user learns that nothing was done with it."""
    with pytest.warns(UserWarning, match=r"^SCIP's branch and bound runs on one thread; threads is ignored$"):
        solve_file(DATA / "model.mps", "scip", threads=2, verbose=False)



def test_scip_names_the_first_reader_error_in_one_clean_line(tmp_path: Path) -> None:
    """SCIP's reader writes its own error ("Syntax error in line 11") and then the generic one of the failed call
    ("Error <-2> in function call"): the message gives the first, the one that says where, without SCIP's padding."""
    path = tmp_path / "bad.mps"  # XX is no bound type
    path.write_text("NAME X\nROWS\n N obj\n L c1\nCOLUMNS\n    x obj 1 c1 1\nRHS\n    RHS c1 3\nBOUNDS\n UP BND x 4\n"
                    " XX BND x 1\nENDATA\n")
    where = re.escape(str(path))
    with pytest.raises(OlctcError, match=rf"^SCIP cannot read model file {where}: Syntax error in line 11$"):
        solve_file(path, "scip", threads=1, verbose=False)


# ------------------------------------------------------------------ CBC
@pytest.mark.parametrize("solver", ["cbc", "scip"])
def test_a_quiet_mip_solve_prints_nothing(solver: str, capfd) -> None:
    """verbose=False turns CBC's log off (python-mip's verbose 0) as it does SCIP's and HiGHS's: a library call's
    stdout stays clean. (A pure LP is another matter: CBC devel's Clp prints three lines whatever the level.)"""
    capfd.readouterr()
    res = solve_file(DATA / "model.mps", solver, threads=1, verbose=False)
    out, err = capfd.readouterr()
    assert res.status == "optimal" and (out, err) == ("", ""), (out[:500], err[:500])
