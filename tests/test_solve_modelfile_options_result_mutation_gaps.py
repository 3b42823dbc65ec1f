"""Tests from a mutation pass over olctc.solve.modelfile, olctc.solve.options and olctc.solve.result: each pins a
behaviour that a small code change (a mutant, named mNN after /tmp/qa184/mut/LIST) broke without any other test
failing. Real files, real HiGHS/SCIP solves of tiny models."""
from __future__ import annotations

import gzip
import time
from pathlib import Path

import numpy as np
import pytest

from test_solve_edges import LP, SAMPLES
from test_solve_mutation_gaps import INF_OR_UNBD

from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.solve import solve_file
from olctc.solve.modelfile import (check_complete, file_columns, handed_over, is_quadratic_file, names_lost,
                                   readable_path)
from olctc.solve.options import SolveOptions, overrun_grace, start_vector
from olctc.solve.result import false_infeasible, gap_text, limit_kind, relative_gap

MPS = (SAMPLES / "model.mps").read_text()


def _write(path: Path, text: str | bytes) -> Path:
    """``path`` holding ``text`` (bytes as they are)."""
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def _refusal(path: Path) -> str:
    """check_complete's message for ``path``, without the path."""
    with pytest.raises(OlctcError) as exc:
        check_complete(path)
    return str(exc.value).removeprefix(f"{path}: ")


def test_only_a_last_line_that_is_exactly_the_closing_word_ends_a_model(tmp_path: Path) -> None:
    # m25: a last line that only starts with the word ("ENDATAX", "Ending") passed as the end
    assert "ends before its 'ENDATA' line" in _refusal(_write(tmp_path / "a.mps", MPS + "ENDATAX\n"))
    assert "ends before its 'End' line" in _refusal(_write(tmp_path / "a.lp", LP + "Ending\n"))


def test_a_cut_lp_opening_with_min_is_called_truncated(tmp_path: Path) -> None:
    # m33: an LP file opening with "min" (as some writers write it) cut short was called "not an LP file"
    assert _refusal(_write(tmp_path / "min.lp", "min\n obj: x\nst\n")) == (
        "the file ends before its 'End' line (truncated?); write it again")


def test_a_closing_line_with_blanks_and_windows_line_ends_passes(tmp_path: Path) -> None:
    # m27: the last line was compared unstripped, so "  End  " (CR LF) was taken for a cut file
    path = _write(tmp_path / "a.lp", (LP.replace("End\n", "  End  \n")).replace("\n", "\r\n").encode())
    assert solve_file(path, "highs", threads=1, verbose=False).objective == pytest.approx(2.0)


def test_a_gz_model_whose_last_chunk_is_short_still_shows_its_end(tmp_path: Path) -> None:
    # m36: the tail of a .gz file was its last 16 MB chunk alone: a chunk of two bytes after ENDATA hid it
    body = MPS.encode()
    fill = ((b"*" * 99 + b"\n") * (1 << 18))[: (1 << 24) - len(body) - 1] + b"\n"  # comment lines up to 16 MB
    text = body[: body.index(b"ENDATA")] + fill + b"ENDATA\n*\n"
    assert len(text) == (1 << 24) + 2
    check_complete(_write(tmp_path / "big.mps.gz", gzip.compress(text, compresslevel=1)))


# ------------------------------------------------------------------ modelfile: quadratic LP files, lost names, bounds
#: min -x - y + x^2 + y^2 over integers in [0, 4] with x + y <= 4: optimum 0; its linear part alone reaches -4
WRAPPED_QP = "Minimize\n obj: - x - y + [\n 2 x ^2 + 2 y ^2 ] / 2\nSubject To\n c1: x + y <= 4\n" \
             "Bounds\n 0 <= x <= 4\n 0 <= y <= 4\nGeneral\n x y\nEnd\n"


def test_a_quadratic_bracket_opening_at_a_line_end_or_a_product_without_blanks_is_seen(tmp_path: Path) -> None:
    # defect (fixed): only the rest of the line after "[" was searched for "^" or " * ", so "+ [" ending a line (a
    # writer's wrapping) or "x*y" hid the quadratic objective: CBC solved the linear part alone and said "optimal"
    # at -4 (the MIQP's optimum is 0, SCIP's), HiGHS said "no solution" instead of refusing a MIQP
    path = _write(tmp_path / "w.lp", WRAPPED_QP)
    assert is_quadratic_file(path)
    assert is_quadratic_file(_write(tmp_path / "p.lp", WRAPPED_QP.replace("[\n 2 x ^2 + 2 y ^2", "[ 2 x*y")))
    with pytest.raises(OlctcError, match="is a MIQP .* which cbc cannot solve"):
        solve_file(path, "cbc", threads=1, verbose=False)
    res = solve_file(path, "scip", threads=1, verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(0.0, abs=1e-9)


def test_a_reader_that_gave_no_names_lost_none(tmp_path: Path) -> None:
    # m41: an empty name list counted as CBC's stand-in names x0, x1, ... (any(...) of nothing is False)
    assert not names_lost(_write(tmp_path / "w.lp", LP), [])


def test_file_columns_gives_lower_then_upper_bounds(tmp_path: Path) -> None:
    # m44: the lower and upper bounds came back swapped (external solvers' starts are clipped into them)
    path = _write(tmp_path / "b.lp", "Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\n"
                                     "Bounds\n 0 <= x <= 1\n 2 <= y <= 5\nEnd\n")
    names, lb, ub = file_columns(path)
    assert names == ["x", "y"] and lb.tolist() == [0.0, 2.0] and ub.tolist() == [1.0, 5.0]


# ------------------------------------------------------------------ modelfile: names handed to solvers
def test_a_long_file_name_is_handed_over_as_model_and_its_suffix(tmp_path: Path) -> None:
    # m08: a name of 200 bytes went to the solver under its own name, which with a long $TMPDIR makes the long
    # path CBC cuts; the limit on a name is half that on a path
    path = _write(tmp_path / ("n" * 200 + ".lp"), LP)
    with readable_path(path) as given:
        assert given.name == "model.lp" and given.read_text() == LP


def test_a_model_that_cannot_be_handed_over_is_one_error_naming_it(tmp_path: Path) -> None:
    # m14: when neither a link nor a copy could be made, the OSError of the copy came out as it was
    path = _write(tmp_path / "m.lp", LP)
    with pytest.raises(OlctcError, match=r"^cannot hand .*m\.lp to the solver as .*missing/model\.lp: "):
        with handed_over(path, tmp_path / "missing", "model.lp"):
            pass


# ------------------------------------------------------------------ options
def test_remaining_is_what_is_left_and_refuses_under_half_a_second() -> None:
    # m47, m48, m49, m51: under 0.5 s (or only at 0 s) was accepted; the time reading took and the time left
    # (never negative) were misreported
    left = SolveOptions(time_limit=10.0, deadline=time.monotonic() + 2.0).remaining()
    assert left is not None and 1.0 < left <= 2.0
    too_short = (r"^no time is left to solve: reading the model took 9\.[89] s, leaving 0\.[12]\d s of the time limit "
                 r"\(a solver needs at least 0\.5 s\)$")
    with pytest.raises(TimeLimitTooShort, match=too_short):
        SolveOptions(time_limit=10.0, deadline=time.monotonic() + 0.2).remaining()
    with pytest.raises(TimeLimitTooShort, match=r"took 1[01]\.\d s, leaving 0\.00 s"):
        SolveOptions(time_limit=10.0, deadline=time.monotonic() - 0.5).remaining()


def test_remaining_without_a_limit_or_deadline_is_the_limit() -> None:
    # m46: a deadline without a time limit crashed (None - left)
    assert SolveOptions(time_limit=None, deadline=time.monotonic() + 5.0).remaining() is None
    assert SolveOptions(time_limit=5.0).remaining() == 5.0


def test_overrun_grace_is_three_seconds_and_five_percent() -> None:
    # m53: the grace lost its 3 s, so a short solve was left running at once past its limit
    assert overrun_grace(0.0) == 3.0 and overrun_grace(100.0) == pytest.approx(8.0)


def test_a_start_array_needs_one_finite_value_per_column() -> None:
    # m58, m59, m60, m61: a longer array was taken; the counts were swapped in the message; inf passed; a column
    # vector stayed two-dimensional
    with pytest.raises(OlctcError, match=r"^the MIP start has 3 values but the model has 2 columns$"):
        start_vector(np.zeros(3), ["a", "b"])
    with pytest.raises(OlctcError, match="NaN or infinite"):
        start_vector([np.inf, 0.0], ["a", "b"])
    x = start_vector(np.ones((2, 1)), ["a", "b"])
    assert x is not None and x.shape == (2,)


# ------------------------------------------------------------------ result
def test_a_result_without_a_solution_has_no_values_and_one_with_has_plain_floats(tmp_path: Path) -> None:
    # m68, m69: values() of an infeasible solve crashed; a solution's values were numpy scalars, printed as
    # np.float64(...)
    res = solve_file(_write(tmp_path / "iu.lp", INF_OR_UNBD), "highs", threads=1, verbose=False)
    assert res.status == "infeasible" and res.values() == {}
    values = solve_file(_write(tmp_path / "m.lp", LP), "scip", threads=1, verbose=False).values()
    assert sorted(values) == ["x", "y"] and all(type(v) is float for v in values.values()), repr(values)


def test_relative_gap_without_a_bound_is_unknown() -> None:
    # m74: a missing bound crashed the gap (None - float)
    assert relative_gap(5.0, None) is None and relative_gap(None, 5.0) is None


def test_gap_text_is_a_percentage_of_three_digits_with_its_sign() -> None:
    # m77, m78, m79, m80, m81: unknown printed as "", a negative gap as 0%, 5e-7 as 0%, a fraction not a
    # percentage, two digits not three
    assert gap_text(None) == "-" and gap_text(8e-16) == "0%"
    assert gap_text(0.012345) == "1.23%" and gap_text(-0.0125) == "-1.25%" and gap_text(5e-7) == "5e-05%"


def test_a_false_infeasible_gives_the_known_objective_to_six_digits() -> None:
    # m85: the objective was cut to two digits, too few to tell it from the solution's
    text = false_infeasible("infeasible", 12.34567, "scip")
    assert text == (", which is false: the warm start compile wrote is a feasible point of the model (objective "
                    "12.3457), so the solver's numerics failed; solve with highs")
    assert false_infeasible("optimal", 12.0, "scip") == ""


def test_cplexs_no_integer_solution_is_no_solution_limit() -> None:
    # m87: "no integer solution" (CPLEX's words after a limit's name) was read as a solution limit
    assert limit_kind("tree memory limit exceeded, no integer solution") == "other"
