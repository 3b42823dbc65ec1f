"""Gaps found by a second mutation pass over the MPS/LP writers (olctc.emit.mps, olctc.emit.lp, olctc.emit._format).

Each test pins behaviour that a hand-written mutant broke while tests/test_emit_writers.py (golden text, a reference
writer, five solvers), tests/test_emit_mutation_gaps.py and tests/test_qa_emit.py still passed. Files are read back
by HiGHS (highspy), SCIP (pyscipopt), CBC and GLPK where the rule is about what a reader sees; the exact text where
the rule is about the format. None of them is a bug seen in olctc.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from olctc.emit.lp import lp_bytes, write_lp
from olctc.emit.mps import mps_bytes, write_mps
from olctc.errors import OlctcError
from olctc.milp import MILP
from test_emit_writers import highs_lp, make, solve_highs, solve_scip

INF = np.inf
CBC = "/usr/bin/cbc"
GLPSOL = "/usr/bin/glpsol"
WRITERS = {"mps": write_mps, "lp": write_lp}
BYTES = {"mps": mps_bytes, "lp": lp_bytes}


def _small(**kw) -> MILP:
    """min x0 + 2 x1 s.t. x0 + x1 >= 1, both in [0, 5]: the optimum is 1."""
    args: dict[str, Any] = dict(c=[1.0, 2.0], A=[[1.0, 1.0]], sense=["G"], rhs=[1.0], lb=[0.0, 0.0],
                                ub=[5.0, 5.0], integer=[False, False])
    return make(**{**args, **kw})


def _refused(fmt: str, milp: MILP, match: str, tmp_path) -> None:
    """The writer raises OlctcError matching ``match`` and leaves no file behind."""
    path = tmp_path / f"bad.{fmt}"
    with pytest.raises(OlctcError, match=match):
        WRITERS[fmt](milp, path)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ numbers that cannot be written


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("what, kw, match", [
    ("c", {"c": [INF, 1.0]}, r"^c holds inf; only finite numbers are allowed in a model$"),
    ("A", {"A": [[1.0, -INF]]}, r"^A holds -inf; only finite"),
    ("rhs", {"rhs": [INF]}, r"^rhs holds inf; only finite"),
    ("rhs-nan", {"rhs": [np.nan]}, r"^rhs holds nan; only finite"),
    ("const", {"const": INF}, r"^obj_constant holds inf; only finite"),
    ("Q", {"Q": [[INF, 0.0], [0.0, 1.0]]}, r"^Q holds inf; only finite"),
    ("ub-nan", {"ub": [5.0, np.nan]}, r"^a variable bound is NaN$"),
    ("lb-plus-inf", {"lb": [INF, 0.0], "ub": [INF, 5.0]}, r"^variable x_0 has bounds \[inf, inf\]: lower must be"),
    ("ub-minus-inf", {"lb": [0.0, -INF], "ub": [5.0, -INF]}, r"^variable x_1 has bounds \[-inf, -inf\]"),
])
def test_non_finite_numbers_are_refused_by_name(fmt, what, kw, match, tmp_path):
    """Pins mutants that checked only NaN (not infinities) in check_finite, dropped the rhs/A/Q/obj_constant checks,
    checked only lb for NaN, or kept only lb > ub as a wrong bound pair: each wrote 'inf'/'nan' text (or a fixed
    column at +inf) that readers take for a name or reject with an unrelated message."""
    _refused(fmt, _small(**kw), match, tmp_path)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("kw, match", [
    ({"c": np.zeros(0), "A": np.zeros((1, 0)), "lb": [], "ub": [], "integer": []},
     r"^the model has no variables; there is nothing to write$"),
    ({"integer": [False]}, r"^integer has 1 entries, expected 2$"),
    ({"sense": ["l"]}, r"^row sense 'l' is not one of 'L', 'G', 'E'$"),
    ({"sense": ["N"]}, r"^row sense 'N' is not one of 'L', 'G', 'E'$"),
])
def test_malformed_arrays_are_refused_by_name(fmt, kw, match, tmp_path):
    """Pins mutants that dropped the no-variable check (an empty file of no use), the integer-length check (a short
    integer array silently broadcast), made the sense check case-blind (the sense letters are upper case) or let
    MPS's 'N' (a free row) through, which the writers then wrote as an equality row."""
    _refused(fmt, _small(**kw), match, tmp_path)


def test_shapes_that_disagree_are_refused_by_name():
    """Pins mutants that compared only A's row count with rhs, only the sense length one way (>), and only Q's row
    count with the columns: a mismatch then raised a scipy/numpy error or wrote a wrong model."""
    p = _small()
    bad_a = MILP(p.name, p.c, sp.csr_matrix(np.ones((1, 3))), p.sense, p.rhs, p.lb, p.ub, p.integer, p.col_blocks,
                 p.row_blocks)
    with pytest.raises(OlctcError, match=r"^A has shape \(1, 3\), expected \(1, 2\) from rhs and c$"):
        mps_bytes(bad_a)
    two = make([1.0, 2.0], [[1.0, 1.0], [1.0, 0.0]], ["G", "L"], [1.0, 4.0], [0, 0], [5, 5], [0, 0])
    short = MILP(two.name, two.c, two.A, two.sense[:1], two.rhs, two.lb, two.ub, two.integer, two.col_blocks,
                 two.row_blocks)
    with pytest.raises(OlctcError, match=r"^sense has 1 entries, expected 2$"):
        lp_bytes(short)
    wide = MILP(p.name, p.c, p.A, p.sense, p.rhs, p.lb, p.ub, p.integer, p.col_blocks, p.row_blocks,
                Q=sp.csr_matrix(np.ones((2, 3))))
    for to_bytes in (mps_bytes, lp_bytes):
        with pytest.raises(OlctcError, match=r"^Q has shape \(2, 3\), expected \(2, 2\)$"):
            to_bytes(wide)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_an_asymmetric_q_is_refused_not_read_as_its_upper_triangle(fmt, tmp_path):
    """Pins a mutant that dropped the symmetry check: Q = [[2, 1], [0, 2]] was then written as its upper triangle,
    i.e. as the symmetric [[2, 1], [1, 2]] - a different objective than the one the caller gave."""
    _refused(fmt, _small(Q=[[2.0, 1.0], [0.0, 2.0]]), r"^Q must be symmetric", tmp_path)


# ------------------------------------------------------------------ non-canonical sparse input


def _messy_a() -> sp.csr_matrix:
    """[[1, 2.5, 0], [0, 0, 1]] stored with an unsorted row and a duplicate entry (2 + 0.5 at (0, 1))."""
    A = sp.csr_matrix((np.array([2.0, 1.0, 0.5, 1.0]), np.array([1, 0, 1, 2]), np.array([0, 3, 4])), shape=(2, 3))
    assert not A.has_canonical_format
    return A


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_non_canonical_constraint_matrix_is_written_summed_and_sorted(fmt, tmp_path):
    """Pins a mutant that skipped sum_duplicates on a non-canonical A: the file then held two entries for one
    coefficient (MPS: two 'x_1 r_0' lines) in input order, not the canonical file, and was not byte-identical to the
    file of the same matrix stored canonically. HiGHS must read the summed coefficient 2.5."""
    args = ([1, 1, 1], None, ["L", "G"], [4, 1], [0, 0, 0], [5, 5, 5], [0, 0, 0])
    messy = make(args[0], _messy_a(), *args[2:])
    clean = make(args[0], _messy_a().toarray(), *args[2:])
    assert BYTES[fmt](messy) == BYTES[fmt](clean)
    path = tmp_path / f"m.{fmt}"
    WRITERS[fmt](messy, path)
    a = highs_lp(path).a_matrix_
    assert a.format_ == highspy.MatrixFormat.kColwise
    got = sp.csc_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)), shape=(2, 3)).toarray()
    np.testing.assert_array_equal(got, [[1.0, 2.5, 0.0], [0.0, 0.0, 1.0]])


def test_a_dense_constraint_matrix_keeps_every_digit(tmp_path):
    """Pins a mutant that converted a dense (numpy) A through float32: 0.1 was written 0.10000000149011612. The
    MILP docs allow a dense A; HiGHS must read 0.1 and 1/3 exactly."""
    p = _small()
    dense = MILP(p.name, p.c, np.array([[0.1, 1 / 3]]), p.sense, p.rhs, p.lb, p.ub, p.integer, p.col_blocks,
                 p.row_blocks)
    assert "    x_0       r_0       0.1\n" in mps_bytes(dense).decode()
    assert " r_0: + 0.1 x_0 + 0.3333333333333333 x_1 >= 1\n" in lp_bytes(dense).decode()
    write_mps(dense, tmp_path / "d.mps")
    assert list(highs_lp(tmp_path / "d.mps").a_matrix_.value_) == [0.1, 1 / 3]


# ------------------------------------------------------------------ quadratic objectives


def test_a_q_of_stored_zeros_writes_a_linear_model():
    """Pins mutants that dropped eliminate_zeros or the 'no nonzero left' return in check_q: a Q of stored zeros
    then gave a QUADOBJ section of '0' lines or an empty one (MPS), and '+ [ ] / 2' (LP), which GLPK and CBC
    cannot read, for a model that has no quadratic part."""
    zeros = sp.csr_matrix((np.zeros(2), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    assert zeros.nnz == 2
    assert mps_bytes(_small(Q=zeros)) == mps_bytes(_small())
    assert lp_bytes(_small(Q=zeros)) == lp_bytes(_small())
    assert b"QUADOBJ" not in mps_bytes(_small(Q=zeros)) and b"[" not in lp_bytes(_small(Q=zeros))
    # (0, 0) stored as 1 and -1, plus a stored zero: nothing left once summed (a mutant without sum_duplicates
    # wrote 'x_0 x_0 0').
    cancel = sp.csr_matrix((np.array([1.0, 0.0, -1.0]), np.array([0, 1, 0]), np.array([0, 3, 3])), shape=(2, 2))
    assert mps_bytes(_small(Q=cancel)) == mps_bytes(_small())
    assert lp_bytes(_small(Q=cancel)) == lp_bytes(_small())


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_writing_leaves_the_callers_q_and_a_arrays_as_they_were(fmt):
    """A DEFECT this pass fixed: check_q summed duplicates and dropped zeros of the caller's own Q in place (the
    CSR conversion shared its arrays), so writing a file rewrote the arrays of the model the caller still holds
    (and of any matrix sharing them). A is already copied before it is made canonical; now Q is too."""
    data, indices, indptr = np.array([1.0, 1.0, 0.5, 0.0, 0.5, 1.0]), np.array([0, 0, 1, 1, 0, 1]), np.array([0, 4, 6])
    Q = sp.csr_matrix((data, indices, indptr), shape=(2, 2))
    before = [a.copy() for a in (data, indices, indptr)]
    A = sp.csr_matrix((np.array([2.0, 1.0, 0.5, 1.0]), np.array([1, 0, 1, 1]), np.array([0, 3, 4])), shape=(2, 2))
    assert not A.has_canonical_format
    p = MILP("t", np.array([1.0, 2.0]), A, np.array(["G", "L"]), np.array([1.0, 9.0]),
             np.zeros(2), np.full(2, 5.0), np.zeros(2, dtype=bool), _small().col_blocks,
             make([1], [[1], [1]], ["G", "L"], [1, 9], [0], [1], [0]).row_blocks, Q=Q)
    a_before = [x.copy() for x in (p.A.data, p.A.indices, p.A.indptr)]
    BYTES[fmt](p)
    for got, want in zip((p.Q.data, p.Q.indices, p.Q.indptr), before):
        np.testing.assert_array_equal(got, want)
    for got, want in zip((p.A.data, p.A.indices, p.A.indptr), a_before):
        np.testing.assert_array_equal(got, want)
    assert not p.Q.has_canonical_format


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_q_with_duplicate_entries_is_summed(fmt, tmp_path):
    """Pins a mutant that skipped Q.sum_duplicates: Q = [[2, .5], [.5, 1]] given with (0, 0) stored as 1 + 1 was
    written with two x_0 x_0 terms. The file must be the canonical one, and SCIP and HiGHS must find the optimum
    of x0 + 2 x1 + x0^2 + 0.5 x0 x1 + 0.5 x1^2 with x0 + x1 >= 1, x in [0, 5]: x0 = 0.75, i.e. 1.9375."""
    Q = sp.csr_matrix((np.array([1.0, 1.0, 0.5, 0.5, 1.0]), np.array([0, 0, 1, 0, 1]), np.array([0, 3, 5])),
                      shape=(2, 2))
    assert not Q.has_canonical_format
    p = _small(Q=Q)
    assert BYTES[fmt](p) == BYTES[fmt](_small(Q=[[2.0, 0.5], [0.5, 1.0]]))
    path = tmp_path / f"q.{fmt}"
    WRITERS[fmt](p, path)
    assert abs(solve_scip(path) - 1.9375) < 1e-6
    assert abs(solve_highs(path) - 1.9375) < 1e-6


# ------------------------------------------------------------------ names


def test_a_model_without_a_name_is_named_olctc_and_a_bad_model_name_is_refused():
    """Pins mutants of the NAME line: another default than OLCTC for a model with no name, and a model name that
    skipped the name rules ('my model' then wrote 'NAME my model FREE', which free-MPS readers split)."""
    assert mps_bytes(_small(name="")).startswith(b"NAME OLCTC FREE\nROWS\n N  OBJ\n G  r_0\n")
    with pytest.raises(OlctcError, match=r"^model name 'my model' is not a valid MPS/LP name"):
        mps_bytes(_small(name="my model"))


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_name_with_a_nul_inside_is_refused(fmt, tmp_path):
    """Pins a mutant that dropped the str_len comparison of name_bytes: 'a\\0b' passed the byte checks (a NUL reads
    as padding) and a NUL went into the file."""
    _refused(fmt, _small(cols=["a\x00b", "y"]), r"^column name 'a\\x00b' is not a valid MPS/LP name", tmp_path)


def test_the_name_length_message_is_for_long_names_only():
    """Pins mutants of the message choice (>= instead of >, a wrong limit in the text): a 64-character name with a
    bad character must be told it is not a valid name, a 65-character one that it is too long."""
    with pytest.raises(OlctcError, match=r"^column name '" + "x" * 63 + r"-' is not a valid MPS/LP name: it must "
                                         r"match \[A-Za-z_\]\[A-Za-z0-9_\]\*$"):
        mps_bytes(_small(cols=["x" * 63 + "-", "y"]))
    with pytest.raises(OlctcError, match=r"^column name '" + "x" * 65 + r"' has 65 characters; MPS/LP names must "
                                         r"have at most 64$"):
        lp_bytes(_small(cols=["x" * 65, "y"]))


_KEYWORDS = ["minimize", "maximize", "minimum", "maximum", "min", "max", "subject", "such", "st", "bounds", "bound",
             "general", "generals", "gen", "integer", "integers", "binary", "binaries", "bin", "semi", "semis", "sos",
             "end", "free", "inf", "infinity"]


def test_every_lp_keyword_is_refused_as_a_name_in_any_case():
    """Pins mutants that dropped one word from the LP keyword set ('st', 'infinity', 'semis', 'bound') or compared
    case-sensitively ('FREE', 'Bounds' passed): an LP reader takes such a name standing alone in a Bounds or
    Generals line for a section or bound keyword. MPS has no keywords: the same names are written there."""
    for word in _KEYWORDS:
        for name in (word, word.upper(), word.capitalize()):
            with pytest.raises(OlctcError, match=rf"^column name '{name}' is an LP keyword; rename it$"):
                lp_bytes(_small(cols=["x", name]))
            assert f"    {name:<8}  OBJ       2\n".encode() in mps_bytes(_small(cols=["x", name]))
    for ok in ("st_1", "free_x", "ends", "Infinite"):
        assert f" + 2 {ok}\n".encode() in lp_bytes(_small(cols=["x", ok]))


@pytest.mark.parametrize("name, match", [
    ("e0", "reads as part of a number"),
    ("e1", "reads as part of a number"),
    ("free", "is an LP keyword"),
    ("obj", r"^row name 'obj' is reserved for the objective$"),
])
def test_lp_row_names_follow_the_lp_name_rules_even_alone(name, match):
    """Pins mutants that checked LP row names with the MPS rules only, skipped the LP rules for a single name, let
    'e0' pass the exponent rule (digit range from 1), and dropped the reserved 'obj' row: the row label ' obj:'
    then named a second objective-like row, and 'e1:' read as a number in CPLEX."""
    with pytest.raises(OlctcError, match=match):
        lp_bytes(_small(rows=[name]))
    assert f" G  {name}\n".encode() in mps_bytes(_small(rows=[name]))  # MPS: just a name


def test_the_lp_objective_constant_column_name_is_reserved():
    """Pins a mutant that dropped the LP writer's OBJCONST check: a column of that name and the constant's column
    then both appeared as OBJCONST, which readers merge into one column (the constant is lost or added twice)."""
    with pytest.raises(OlctcError, match=r"^column name 'OBJCONST' is reserved for the objective constant$"):
        lp_bytes(_small(cols=["x", "OBJCONST"], const=1.5))
    assert b" + 2 OBJCONST\n" in lp_bytes(_small(cols=["x", "OBJCONST"]))  # no constant: an ordinary name


# ------------------------------------------------------------------ LP sections that are always there


def test_lp_writes_subject_to_without_rows_and_bounds_without_bound_lines(tmp_path):
    """Pins mutants that left out 'Subject To' for a model without rows and 'Bounds' when no column needs a line:
    the documented layout has every section header. SCIP and HiGHS must read min -x + y, x binary, y integer
    in [0, inf) (no line needed for either) and SCIP find -1."""
    p = make([-1.0, 1.0], np.zeros((0, 2)), [], [], [0.0, 0.0], [1.0, INF], [True, True], cols=["x", "y"])
    assert lp_bytes(p) == (b"Minimize\n obj: - 1 x + 1 y\nSubject To\nBounds\nGenerals\n y\nBinaries\n x\nEnd\n")
    path = tmp_path / "m.lp"
    write_lp(p, path)
    assert abs(solve_scip(path) + 1.0) < 1e-9
    lp = highs_lp(path)
    assert list(lp.col_lower_) == [0.0, 0.0] and list(lp.col_upper_) == [1.0, INF]
    assert [v == highspy.HighsVarType.kInteger for v in lp.integrality_] == [True, True]


@pytest.mark.skipif(not (os.path.exists(CBC) and os.path.exists(GLPSOL)), reason="no cbc or glpsol")
def test_a_one_row_model_with_one_nonzero_rhs_is_read_alike_by_cbc_and_glpk(tmp_path):
    """Pins mutants of the RHS section for a single nonzero right-hand side (written only when more than one) and
    of the integer [0, inf) column in LP (a bound line '0 <= y <= +inf' for it): CBC and GLPK must both find
    min x + y, x + y >= 3.5, y integer in [0, inf), x in [0, 1]: y = 3, x = 0.5, objective 3.5."""
    p = make([1.0, 1.0], [[1.0, 1.0]], ["G"], [3.5], [0.0, 0.0], [1.0, INF], [False, True], cols=["x", "y"])
    assert b"RHS\n    RHS       r_0       3.5\nBOUNDS\n UP BND       x         1\n PL BND       y\nENDATA\n" \
        in mps_bytes(p)
    assert lp_bytes(p).endswith(b"Bounds\n 0 <= x <= 1\nGenerals\n y\nEnd\n")
    for fmt in ("mps", "lp"):
        path = tmp_path / f"m.{fmt}"
        WRITERS[fmt](p, path)
        out = tmp_path / f"m.{fmt}.cbc"
        subprocess.run([CBC, str(path), "-solve", "-solu", str(out)], check=True, capture_output=True, timeout=60)
        assert float(out.read_text().split("\n")[0].split()[-1]) == 3.5
        gout = tmp_path / f"m.{fmt}.glpk"
        r = subprocess.run([GLPSOL, "--freemps" if fmt == "mps" else "--lp", str(path), "-o", str(gout)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "= 3.5 (MINimum)\n" in gout.read_text(), r.stdout


def test_a_reused_output_buffer_grows_to_the_size_asked_for():
    """Pins a mutant of the buffer pool that handed back a released buffer however large the request: an LP chunk
    of long names can need more than CHUNK_BYTES (its terms are wider than the 64 bytes a chunk is sized by), and
    writing it into a too-small buffer fails (an IndexError) in the middle of a file. No fresh buffers are left
    here (count 1), so the request must be met by growing."""
    from olctc.emit import _format as F

    pool = F._Pool(1)
    first = pool.alloc(10)
    assert first.size == F.CHUNK_BYTES
    pool.release(first)
    again = pool.alloc(100)
    assert again is first
    pool.release(again)
    big = pool.alloc(F.CHUNK_BYTES + 1)
    assert big.size == F.CHUNK_BYTES + 1


_FSIZE_SCRIPT = """
import os, resource, sys
import numpy as np, scipy.sparse as sp
from test_emit_writers import make
from olctc.emit.{fmt} import write_{fmt}
from olctc.errors import OlctcError
rng = np.random.default_rng(0)
A = sp.random(400, 400, density=0.4, format="csr", random_state=rng)
A.data = rng.standard_normal(A.nnz)
p = make(np.ones(400), A, ["L"] * 400, np.ones(400), np.zeros(400), np.ones(400), np.zeros(400))
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))  # Python ignores SIGXFSZ
try:
    write_{fmt}(p, sys.argv[1])
    print("written", os.path.getsize(sys.argv[1]))
except OlctcError as e:
    print("error:", e)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_write_the_file_size_limit_cuts_short_is_an_error_and_leaves_no_file(fmt, tmp_path):
    """Pins a mutant of write_chunks that no longer raised the writer thread's error: with a 1 MiB file size limit
    (ulimit -f) the write of a 1.7-2.8 MB model fails with EFBIG on a large piece, nothing is left buffered, the close
    succeeds, and the truncated first MiB was renamed into place as the model file."""
    out = tmp_path / f"m.{fmt}"
    tests = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")]),
           "OMP_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", _FSIZE_SCRIPT.format(fmt=fmt), str(out)], capture_output=True,
                       text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"error: cannot write {out}: File too large\n"
    assert list(tmp_path.iterdir()) == []
