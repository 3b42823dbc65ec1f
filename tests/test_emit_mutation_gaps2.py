"""Gaps found by a third mutation pass over the emit modules (_format, mps, lp, params, start).

Each test pins behaviour that a hand-written mutant broke while the existing emit, params and start-file tests
still passed. Where the rule is about what a solver sees, HiGHS (highspy) reads the written file; the exact text
or message only where the text is the rule. None of them is a defect seen in olctc.
"""
from __future__ import annotations

from pathlib import Path

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from olctc.emit.mps import write_mps
from olctc.emit.params import MAX_THREADS, MAX_TIME_LIMIT, write_param_files
from olctc.emit.start import start_text
from olctc.errors import OlctcError
from olctc.milp import MILP
from conftest import highs_option
from test_emit_writers import assert_highs_arrays, highs_read, make, ref_mps


def _rows_of_every_width(Q: bool = False) -> MILP:
    """Rows named with 1 to 40 characters, columns with 1 to 12, every row with an entry in every column and a
    nonzero right-hand side: the COLUMNS, RHS and QUADOBJ lines then hold names of every width."""
    rows = ["r" * k for k in range(1, 41)]
    cols = ["c" * k for k in range(1, 13)]
    rng = np.random.default_rng(5)
    A = rng.choice(np.array([-1.5, 1.0, 2.0, 1 / 3, 123456.0, -7e-05]), size=(len(rows), len(cols)))
    rhs = np.arange(1.0, len(rows) + 1.0)
    Qm = None
    if Q:
        B = np.diag(np.arange(1.0, len(cols) + 1.0))
        B[0, -1] = B[-1, 0] = 0.5
        Qm = B
    return make(np.arange(len(cols), dtype=float) - 3.0, A, ["L"] * len(rows), rhs, [0.0] * len(cols),
                [10.0] * len(cols), [False] * len(cols), Q=Qm, cols=cols, rows=rows)


def test_mps_lines_with_names_of_every_width_are_read_back_exactly(tmp_path: Path) -> None:
    """The COLUMNS, RHS and QUADOBJ lines are assembled from fixed-size items that overshoot backwards into the
    line's first field, so the names are binned by width with a span no longer than that field (14 bytes): a
    wider bin lets a row name overwrite the end of the line before it with zero bytes. Names of every width
    between 1 and 40 characters put every bin boundary to the test; HiGHS must read every coefficient."""
    p = _rows_of_every_width(Q=True)
    path = tmp_path / "w.mps"
    write_mps(p, path)
    data = path.read_bytes()
    assert b"\0" not in data
    assert data == ref_mps(p)
    assert_highs_arrays(path, p)
    h = highs_read(path).getModel().hessian_
    n = p.n_cols
    H = sp.csc_matrix((np.array(h.value_), np.array(h.index_), np.array(h.start_)), shape=(n, n)).toarray()
    np.testing.assert_array_equal(H + H.T - np.diag(np.diag(H)), p.Q.toarray())


def test_the_largest_limits_are_written_and_read_by_highs(tmp_path: Path) -> None:
    """A time limit of exactly 1e7 s, 1024 threads and a gap of 0 are the documented extremes, accepted (not
    refused as out of range) and written so that HiGHS reads them back as given."""
    paths = write_param_files(tmp_path, "m", time_limit=MAX_TIME_LIMIT, threads=MAX_THREADS, mip_gap=0.0)
    opt = next(p for p in paths if p.name == "m.highs.opt")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readOptions(str(opt)) == highspy.HighsStatus.kOk
    assert highs_option(h, "time_limit") == MAX_TIME_LIMIT == 1e7
    assert highs_option(h, "threads") == MAX_THREADS == 1024
    assert highs_option(h, "mip_rel_gap") == 0.0
    assert highs_option(h, "mip_feasibility_tolerance") == 1e-9


def test_a_cbc_start_line_of_255_characters_is_written_and_one_of_256_refused(tmp_path: Path) -> None:
    """CBC reads a start with fgets into 256 bytes: a line of 255 characters (newline included) fits, one more is
    cut in two. The boundary is exact: the longest line that fits is written, the next is refused."""
    name = "x" * (255 - len("0  1\n"))
    text = start_text(tmp_path / "a.start.cbc", [name], np.array([1.0]), "cbc")
    assert max(len(line) + 1 for line in text.splitlines()) == 255
    with pytest.raises(OlctcError, match="expected lines of at most 255 characters .*got 256"):
        start_text(tmp_path / "a.start.cbc", [name + "x"], np.array([1.0]), "cbc")
