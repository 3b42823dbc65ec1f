"""Gaps found by a mutation pass over olctc.emit._format (names, shortest round-trip numbers, byte assembly).

Each test pins behaviour that a hand-written mutant of _format.py broke while tests/test_emit_writers.py,
tests/test_emit_writers_mutation_gaps.py, tests/test_emit_mutation_gaps*.py and tests/test_qa_emit.py still passed.
Number text is compared with the reference rule F.fmt, whole files with the plain-Python reference writer of
test_emit_writers (ref_lp), names with the exact messages. None of them is a bug seen in olctc.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from olctc.emit import _format as F
from olctc.emit.lp import lp_bytes
from test_emit_writers import make, ref_lp
from test_emit_writers_mutation_gaps import _refused, _small

LP_SIGNS = [((b" - ", b" + "), b" "), ((b" <= -", b" <= "), b"\n"), ((b" -", b" "), b" <= ")]


def _expected(x: np.ndarray, signs: tuple[bytes, bytes], suffix: bytes) -> list[bytes]:
    """What number_table must give: the reference rule :func:`fmt` of the absolute value after the sign."""
    return [(signs[0] if v < 0 else signs[1]) + F.fmt(abs(v)).encode() + suffix for v in x.tolist()]


# ------------------------------------------------------------------ number text


@pytest.mark.parametrize("signs, suffix", LP_SIGNS)
def test_more_numbers_than_one_block_keep_their_signs_and_suffix(signs, suffix):
    """Pins m28 and m29: number_table formats more than 65536 values block by block; a block that lost the caller's
    signs or suffix was narrower than the output rows (an LP of a large model with distinct coefficients, written
    without the number cache, failed). One block plus a few values, negative and positive, in every layout."""
    rng = np.random.default_rng(7)
    n = F._BLOCK + 300
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 18, n)
    x[::5] = np.round(x[::5])
    t = F.number_table(x, signs, suffix)
    assert len(t) == n
    got = t.tolist()
    want = _expected(x, signs, suffix)
    assert got[F._BLOCK - 50:] == want[F._BLOCK - 50:]  # the second block, and the seam
    assert got == want


def test_an_lp_with_more_distinct_coefficients_than_one_block_is_written_in_full():
    """Pins m28 and m29 where a user meets them: 72000 distinct coefficients defeat the number cache, so the LP writer
    formats them with number_table in more than one block, with its own signs (' - ', ' + ') and suffix (' ')."""
    rng = np.random.default_rng(3)
    m, n = 2, 36000
    A = sp.csr_matrix(rng.standard_normal((m, n)))
    p = make(np.zeros(n), A, ["L"] * m, [1.0] * m, np.zeros(n), np.ones(n), np.zeros(n, dtype=bool))
    assert lp_bytes(p) == ref_lp(p)


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("kw, match", [
    ({"cols": ["x", "caf\u00e9"]}, r"^column name 'caf\u00e9' is not a valid MPS/LP name: use only \[A-Za-z0-9_\]$"),
    ({"rows": ["\u00fcber"]}, r"^row name '\u00fcber' is not a valid MPS/LP name: use only \[A-Za-z0-9_\]$"),
])
def test_a_non_ascii_name_is_refused_naming_what_it_names(fmt, kw, match, tmp_path):
    """Pins m11: a name that is not ASCII fails the byte conversion before the pattern check, on a branch of its own;
    its message must still say whether a column or a row is at fault, as every other name message does."""
    _refused(fmt, _small(**kw), match, tmp_path)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("kw, match", [
    ({"c": [1.0, 2.0, 3.0], "A": [[1.0, 1.0, 1.0]], "lb": [0.0] * 3, "ub": [5.0] * 3, "integer": [False] * 3,
      "cols": ["dup", "other", "dup"]}, r"^column name 'dup' is used twice; names must be unique$"),
    ({"A": [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]], "sense": ["G"] * 3, "rhs": [1.0] * 3, "rows": ["r", "q", "r"]},
     r"^row name 'r' is used twice; names must be unique$"),
])
def test_a_name_used_twice_far_apart_is_refused(fmt, kw, match, tmp_path):
    """Pins m09: duplicates are found next to each other after sorting; without the sort two equal names with
    another between them went through, and the file then held two columns (or rows) a reader merges or refuses."""
    _refused(fmt, _small(**kw), match, tmp_path)
