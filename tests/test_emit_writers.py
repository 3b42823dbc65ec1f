"""MPS and LP writers: exact text, read back and solved by real solvers, names, determinism, atomicity."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess

import highspy
import mip
import numpy as np
import pyscipopt
import pytest
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp as scipy_milp

from olctc.emit import _format as F
from olctc.emit.lp import lp_bytes, write_lp
from olctc.emit.mps import mps_bytes, write_mps
from olctc.errors import OlctcError
from olctc.milp import MILP, Block

INF = np.inf
SAMPLES = os.path.join(os.path.dirname(__file__), "data", "solvers")  # a copy of the shared sample
HAVE_CBC = shutil.which("cbc") is not None
HAVE_GLPK = shutil.which("glpsol") is not None


# ----------------------------------------------------------------------------------------------
# building models


def make(c, A, sense, rhs, lb, ub, integer, *, Q=None, const=0.0, name="t", cols=None, rows=None) -> MILP:
    """A MILP from dense arrays; names ``x_<j>``/``r_<i>`` or the given lists (one block each)."""
    c = np.asarray(c, dtype=float)
    n = c.size
    A = sp.csr_matrix(np.asarray(A, dtype=float).reshape(len(rhs), n)) if not sp.issparse(A) else A.tocsr()
    m = A.shape[0]
    cb = (Block("x", 0, (n,), ("i",), (tuple(range(n)),)),) if cols is None else \
        tuple(Block(s, j, (), (), ()) for j, s in enumerate(cols))
    rb = ((Block("r", 0, (m,), ("i",), (tuple(range(m)),)),) if m else ()) if rows is None else \
        tuple(Block(s, i, (), (), ()) for i, s in enumerate(rows))
    return MILP(name, c, A, np.asarray(sense, dtype="U1"), np.asarray(rhs, dtype=float),
                np.asarray(lb, dtype=float), np.asarray(ub, dtype=float), np.asarray(integer, dtype=bool),
                cb, rb, Q=None if Q is None else sp.csr_matrix(Q if sp.issparse(Q) else np.asarray(Q, dtype=float)),
                obj_constant=const)


def bounds_model() -> MILP:
    """Every bound type, every sense, an empty row, a column without entries, a constant."""
    #        x0  x1   x2   x3   x4   x5   x6  x7  x8   x9  x10  x11  x12 x13
    lb = [0, -INF, -INF, -2, -INF, 2.5, 0, -3, 0, -INF, 2, 1.5, 0, 3]
    ub = [INF, INF, 3, 5, -1, 2.5, 1, 7, INF, INF, INF, INF, 4, 3]
    it = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1]
    c = [1, 1, -1, 0.5, 1, 2, -3, -1, -1, 1, 1, 1, 0, -0.25]
    A = np.zeros((8, 14))
    A[0, [0, 1]] = [-1, 1]        # x1 - x0 >= -10      (bounds the free x1)
    A[2, [7, 8]] = [1, 1]         # x7 + x8 <= 9.5
    A[3, [4, 3]] = [1, -0.5]      # x4 - 0.5 x3 >= -4.25
    A[4, [9]] = [1]               # x9 >= -7.5          (bounds the free integer)
    A[5, [6, 10, 11]] = [1, 1, 1]  # x6 + x10 + x11 = 4.5
    A[6, [2, 3]] = [1, 1]         # x2 + x3 <= 6
    A[7, [5, 13, 0]] = [1, 1, 1]  # x5 + x13 + x0 >= 3
    sense = ["G", "L", "L", "G", "G", "E", "L", "G"]
    rhs = [-10, 5, 9.5, -4.25, -7.5, 4.5, 6, 3]  # row 1 has no entries: 0 <= 5
    return make(c, A, sense, rhs, lb, ub, it, const=1.75, name="bounds")


def reference_optimum(p: MILP) -> float:
    """Solve the arrays directly (no file) with scipy's MILP."""
    lo = np.where(p.sense == "L", -INF, p.rhs)
    hi = np.where(p.sense == "G", INF, p.rhs)
    res = scipy_milp(p.c, constraints=LinearConstraint(p.A, lo, hi) if p.n_rows else None,
                     integrality=p.integer.astype(int), bounds=Bounds(p.lb, p.ub))
    assert res.status == 0, res.message
    return float(res.fun) + p.obj_constant


# ----------------------------------------------------------------------------------------------
# solvers


def highs_read(path) -> highspy.Highs:
    """A quiet HiGHS that has read the model file ``path`` (and said it read it without a warning or error)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    return h


def solve_highs(path) -> float:
    h = highs_read(path)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value


def solve_scip(path) -> float:
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(path))
    m.optimize()
    assert m.getStatus() == "optimal"
    return m.getObjVal()


def solve_mip(path) -> float:
    m = mip.Model(solver_name="CBC")
    m.verbose = 0
    m.read(str(path))
    assert m.optimize() == mip.OptimizationStatus.OPTIMAL
    return m.objective_value


def solve_cbc(path, tmp_path) -> float:
    out = tmp_path / (os.path.basename(path) + ".cbc.txt")
    subprocess.run(["cbc", str(path), "-solve", "-solu", str(out)], check=True, capture_output=True, timeout=60)
    first = out.read_text().splitlines()[0]
    assert first.startswith("Optimal"), first
    return float(first.rsplit(" ", 1)[1])


def solve_glpk(path, tmp_path) -> float:
    out = tmp_path / (os.path.basename(path) + ".glpk.txt")
    fmt = "--freemps" if str(path).endswith(".mps") else "--lp"
    r = subprocess.run(["glpsol", fmt, str(path), "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    text = out.read_text()
    assert re.search(r"Status:\s+(INTEGER )?OPTIMAL", text), text[:400]
    return float(re.search(r"Objective:\s+\S+ = (\S+)", text).group(1))


def all_optima(path, tmp_path) -> dict[str, float]:
    got = {"highs": solve_highs(path), "scip": solve_scip(path), "mip": solve_mip(path)}
    if HAVE_CBC:
        got["cbc"] = solve_cbc(path, tmp_path)
    if HAVE_GLPK:
        got["glpk"] = solve_glpk(path, tmp_path)
    return got


def assert_close(got: dict[str, float], want: float) -> None:
    for who, v in got.items():
        assert abs(v - want) <= 1e-6 * max(1.0, abs(want)), f"{who}: {v} != {want}"


def highs_lp(path):
    return highs_read(path).getLp()


def assert_highs_arrays(path, p: MILP) -> None:
    """The model HiGHS reads has our bounds, integrality, costs, rows and coefficients exactly."""
    lp = highs_lp(path)
    n = p.n_cols + (p.obj_constant != 0)
    assert lp.num_col_ == n and lp.num_row_ == p.n_rows
    c = np.append(p.c, p.obj_constant) if n > p.n_cols else p.c
    lb = np.append(p.lb, 1.0) if n > p.n_cols else p.lb
    ub = np.append(p.ub, 1.0) if n > p.n_cols else p.ub
    it = np.append(p.integer, False) if n > p.n_cols else p.integer
    np.testing.assert_array_equal(np.array(lp.col_cost_), c)
    np.testing.assert_array_equal(np.array(lp.col_lower_), lb)
    np.testing.assert_array_equal(np.array(lp.col_upper_), ub)
    integ = np.array([v == highspy.HighsVarType.kInteger for v in lp.integrality_]) if len(lp.integrality_) \
        else np.zeros(n, dtype=bool)
    np.testing.assert_array_equal(integ, it)
    rlo = np.where(p.sense == "L", -INF, p.rhs)
    rhi = np.where(p.sense == "G", INF, p.rhs)
    np.testing.assert_array_equal(np.array(lp.row_lower_), rlo)
    np.testing.assert_array_equal(np.array(lp.row_upper_), rhi)
    a = lp.a_matrix_
    mat = (sp.csc_matrix if a.format_ == highspy.MatrixFormat.kColwise else sp.csr_matrix)(
        (np.array(a.value_), np.array(a.index_), np.array(a.start_)), shape=(p.n_rows, n))
    want = sp.hstack([p.A, sp.csr_matrix((p.n_rows, n - p.n_cols))]) if n > p.n_cols else p.A
    np.testing.assert_array_equal(mat.toarray(), want.toarray())


# ----------------------------------------------------------------------------------------------
# a plain-Python reference writer: the vectorised assembly must give the same bytes


def ref_mps(p: MILP) -> bytes:
    f = F.fmt
    cols = [str(s) for s in p.col_names()]
    rows = [str(s) for s in p.row_names()]
    c, lb, ub, it = list(p.c), list(p.lb), list(p.ub), list(p.integer)
    A = p.A.tocsc()
    A.sort_indices()
    ncol = len(cols)
    if p.obj_constant:
        cols.append("OBJCONST"), c.append(p.obj_constant), lb.append(1.0), ub.append(1.0), it.append(False)
    out = [f"NAME {p.name} FREE", "ROWS", " N  OBJ"]
    out += [f" {s}  {r}" for s, r in zip(p.sense, rows)]
    out.append("COLUMNS")
    k = 0
    prev = False
    for j, name in enumerate(cols):
        if bool(it[j]) != prev:
            out.append(f"    MARKER{k:04d}  'MARKER'                 '{'INTORG' if it[j] else 'INTEND'}'")
            k += 1
            prev = bool(it[j])
        sl = slice(A.indptr[j], A.indptr[j + 1]) if j < ncol else slice(0, 0)
        ent = list(zip(A.indices[sl], A.data[sl]))
        if c[j] != 0 or not ent:
            out.append(f"    {name:<8}  {'OBJ':<8}  {f(c[j])}")
        out += [f"    {name:<8}  {rows[i]:<8}  {f(v)}" for i, v in ent]
    if prev:
        out.append(f"    MARKER{k:04d}  'MARKER'                 'INTEND'")
    rhs = [(r, v) for r, v in zip(rows, p.rhs) if v != 0]
    out.append("RHS")
    out += [f"    RHS       {r:<8}  {f(v)}" for r, v in rhs]
    b = []
    for j, name in enumerate(cols):
        lo, up, i = lb[j], ub[j], it[j]
        if lo == up:
            b.append(f" FX BND       {name:<8}  {f(lo)}")
        elif i and lo == 0 and up == 1:
            b.append(f" BV BND       {name}")
        elif not i and lo == -INF and up == INF:
            b.append(f" FR BND       {name}")
        else:
            if lo == -INF:
                b.append(f" MI BND       {name}")
            elif lo != 0:
                b.append(f" LO BND       {name:<8}  {f(lo)}")
            if up != INF:
                b.append(f" UP BND       {name:<8}  {f(up)}")
            elif i:
                b.append(f" PL BND       {name}")
    if b:
        out += ["BOUNDS"] + b
    if p.Q is not None and sp.csr_matrix(p.Q).count_nonzero():
        out.append("QUADOBJ")
        U = sp.triu(sp.csr_matrix(p.Q)).tocsr()
        U.sort_indices()
        for i in range(U.shape[0]):
            for j, v in zip(U.indices[U.indptr[i]:U.indptr[i + 1]], U.data[U.indptr[i]:U.indptr[i + 1]]):
                if v != 0:
                    out.append(f"    {cols[i]:<8}  {cols[j]:<8}  {f(v)}")
    out.append("ENDATA")
    return ("\n".join(out) + "\n").encode()


def _terms(pairs, kmax):
    s = []
    for t, (j, v) in enumerate(pairs):
        sep = "\n" if t and t % kmax == 0 else " "
        s.append(f"{sep}{'-' if v < 0 else '+'} {F.fmt(abs(v))} {j}")
    return "".join(s)


def ref_lp(p: MILP) -> bytes:
    cols = [str(s) for s in p.col_names()]
    rows = [str(s) for s in p.row_names()]
    c, lb, ub, it = list(p.c), list(p.lb), list(p.ub), list(p.integer)
    if p.obj_constant:
        cols.append("OBJCONST"), c.append(p.obj_constant), lb.append(1.0), ub.append(1.0), it.append(False)
    kmax = max(1, (510 - 100) // (28 + max(len(s) for s in cols)))
    obj = " obj:" + _terms(list(zip(cols, c)), kmax)
    if p.Q is not None and sp.csr_matrix(p.Q).count_nonzero():
        U = sp.triu(sp.csr_matrix(p.Q)).tocsr()
        U.sort_indices()
        q = []
        for i in range(U.shape[0]):
            for j, v in zip(U.indices[U.indptr[i]:U.indptr[i + 1]], U.data[U.indptr[i]:U.indptr[i + 1]]):
                if v != 0:
                    q.append((i, j, v if i == j else 2 * v))
        qs = []
        kq = max(1, (510 - 10) // (30 + 2 * max(len(s) for s in cols)))
        for t, (i, j, v) in enumerate(q):
            sep = "\n" if t and t % kq == 0 else " "
            term = f"{cols[i]} ^2" if i == j else f"{cols[i]} * {cols[j]}"
            qs.append(f"{sep}{'-' if v < 0 else '+'} {F.fmt(abs(v))} {term}")
        obj += "\n+ [" + "".join(qs) + " ] / 2"
    out = ["Minimize", obj, "Subject To"]
    A = p.A.tocsr()
    A.sort_indices()
    for i, r in enumerate(rows):
        sl = slice(A.indptr[i], A.indptr[i + 1])
        ent = [(cols[j], v) for j, v in zip(A.indices[sl], A.data[sl])]
        ent = ent or [(cols[0], 0.0)]
        op = {"L": "<=", "G": ">=", "E": "="}[p.sense[i]]
        out.append(f" {r}:{_terms(ent, kmax)} {op} {F.fmt(p.rhs[i])}")
    out.append("Bounds")
    for j, name in enumerate(cols):
        lo, up = lb[j], ub[j]
        if (it[j] and lo == 0 and up == 1) or (lo == 0 and up == INF):
            continue
        if lo == -INF and up == INF:
            out.append(f" {name} free")
        else:
            out.append(f" {'-inf' if lo == -INF else F.fmt(lo)} <= {name} <= {'+inf' if up == INF else F.fmt(up)}")
    gen = [s for j, s in enumerate(cols) if it[j] and not (lb[j] == 0 and ub[j] == 1)]
    bins = [s for j, s in enumerate(cols) if it[j] and lb[j] == 0 and ub[j] == 1]
    if gen:
        out += ["Generals"] + [f" {s}" for s in gen]
    if bins:
        out += ["Binaries"] + [f" {s}" for s in bins]
    out.append("End")
    return ("\n".join(out) + "\n").encode()


def random_model(rng, m, n, density, values="few", quad=False, const=0.0) -> MILP:
    A = sp.random(m, n, density=density, format="csr", random_state=rng)
    if values == "few":
        A.data = rng.choice(np.array([-1.5, -1.0, 0.25, 1.0, 2.0, 1 / 3, -0.7745966692414834, 1e-5, 123456.0]),
                            size=A.nnz)
    else:
        A.data = rng.standard_normal(A.nnz) * 10.0 ** rng.integers(-3, 4, A.nnz)
    lb = rng.choice(np.array([0.0, -INF, -2.0, 1.0]), size=n)
    ub = np.where(rng.random(n) < 0.5, INF, lb + rng.choice(np.array([0.0, 1.0, 7.5]), size=n))
    ub[lb == -INF] = np.where(rng.random((lb == -INF).sum()) < 0.5, INF, -1.0)
    integer = rng.random(n) < 0.4
    lb[integer & (lb == 1.0)] = 0.0
    ub[integer] = np.where(np.isfinite(ub[integer]), np.ceil(ub[integer]), ub[integer])
    c = np.round(rng.standard_normal(n), 3)
    c[rng.random(n) < 0.3] = 0.0
    sense = rng.choice(np.array(["L", "G", "E"]), size=m)
    rhs = np.round(rng.standard_normal(m) * 5, 2)
    rhs[rng.random(m) < 0.3] = 0.0
    Q = None
    if quad:
        B = sp.random(n, n, density=0.05, random_state=rng)
        Q = (B + B.T).tocsr()
    cols = [f"w_pos_{j // 7}_{j}" if j % 3 else f"col{j}_a_longer_name_for_width" for j in range(n)]
    rows = [f"route_l_{i % 5}_{i}" if i % 4 else f"r{i}" for i in range(m)]
    return make(c, A, sense, rhs, lb, ub, integer, Q=Q, const=const, cols=cols, rows=rows)


# ----------------------------------------------------------------------------------------------
# exact text


def tiny() -> MILP:
    return make([1, -2, 0, 3, 0, 1 / 3], [[1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 1.5, 0, -1, 0, 2]],
                ["L", "G", "E"], [4, -1, 0], [0, -INF, -5, 0, -INF, 2], [INF, 3, 5, 1, INF, 2],
                [0, 0, 1, 1, 1, 0], const=2.5, name="tiny")


GOLDEN_MPS = """\
NAME tiny FREE
ROWS
 N  OBJ
 L  r_0
 G  r_1
 E  r_2
COLUMNS
    x_0       OBJ       1
    x_0       r_0       1
    x_1       OBJ       -2
    x_1       r_0       1
    x_1       r_2       1.5
    MARKER0000  'MARKER'                 'INTORG'
    x_2       OBJ       0
    x_3       OBJ       3
    x_3       r_2       -1
    x_4       OBJ       0
    MARKER0001  'MARKER'                 'INTEND'
    x_5       OBJ       0.3333333333333333
    x_5       r_2       2
    OBJCONST  OBJ       2.5
RHS
    RHS       r_0       4
    RHS       r_1       -1
BOUNDS
 MI BND       x_1
 UP BND       x_1       3
 LO BND       x_2       -5
 UP BND       x_2       5
 BV BND       x_3
 MI BND       x_4
 PL BND       x_4
 FX BND       x_5       2
 FX BND       OBJCONST  1
ENDATA
"""

GOLDEN_LP = """\
Minimize
 obj: + 1 x_0 - 2 x_1 + 0 x_2 + 3 x_3 + 0 x_4 + 0.3333333333333333 x_5 + 2.5 OBJCONST
Subject To
 r_0: + 1 x_0 + 1 x_1 <= 4
 r_1: + 0 x_0 >= -1
 r_2: + 1.5 x_1 - 1 x_3 + 2 x_5 = 0
Bounds
 -inf <= x_1 <= 3
 -5 <= x_2 <= 5
 x_4 free
 2 <= x_5 <= 2
 1 <= OBJCONST <= 1
Generals
 x_2
 x_4
Binaries
 x_3
End
"""


def test_golden_text():
    assert mps_bytes(tiny()).decode() == GOLDEN_MPS
    assert lp_bytes(tiny()).decode() == GOLDEN_LP


def test_golden_solves(tmp_path):
    p = tiny()
    want = reference_optimum(p)
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"tiny.{ext}"
        write(p, path)
        assert_close(all_optima(path, tmp_path), want)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("values", ["few", "many"])
def test_matches_reference_writer(seed, values):
    """Random models, across chunk boundaries: byte-identical to the plain-Python writer."""
    rng = np.random.default_rng(seed)
    p = random_model(rng, 700, 90, 0.3 if values == "few" else 0.12, values=values, quad=seed == 1,
                     const=0.0 if seed else -3.5)
    assert p.nnz > 5000
    for chunk in (F.CHUNK_BYTES, 4096):
        assert mps_bytes(p, chunk_bytes=chunk) == ref_mps(p)
        assert lp_bytes(p, chunk_bytes=chunk) == ref_lp(p)


def test_edge_models_all_solvers(tmp_path):
    """No rows; all right-hand sides zero (no RHS entries); all columns integer; zero objective."""
    cases = {
        "norows": make([1, -1], np.zeros((0, 2)), [], [], [0, -3], [2, 4], [1, 0]),
        "zerorhs": make([1, 1], [[1, -1], [1, 1]], ["E", "G"], [0, 0], [-INF, -2], [INF, 3], [0, 1]),
        "allint": make([-1, -2, 0], [[1, 1, 1]], ["L"], [5.5], [0, 0, -2], [3, 1, 2], [1, 1, 1], const=-2.0),
        "zeroobj": make([0, 0], [[1, 1], [0, 0]], ["G", "E"], [1, 0], [0, 0], [1, 1], [0, 0]),
    }
    for name, p in cases.items():
        want = reference_optimum(p)
        for ext, write in (("mps", write_mps), ("lp", write_lp)):
            path = tmp_path / f"{name}.{ext}"
            write(p, path)
            if name == "norows" and ext == "lp":
                # GLPK rejects an empty "Subject To" (documented in olctc.emit.lp).
                got = {"highs": solve_highs(path), "scip": solve_scip(path), "mip": solve_mip(path)}
                if HAVE_CBC:
                    got["cbc"] = solve_cbc(path, tmp_path)
            else:
                got = all_optima(path, tmp_path)
            assert_close(got, want)
            assert_highs_arrays(path, p)


def test_long_rows_wrap(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    A = sp.csr_matrix(rng.standard_normal((3, n)))
    cols = [f"a_rather_long_column_name_number_{j}" for j in range(n)]
    p = make(np.ones(n), A, ["L", "G", "L"], [1, -1, 2], np.zeros(n), np.ones(n), np.zeros(n), cols=cols)
    text = lp_bytes(p)
    assert text == ref_lp(p)
    assert max(len(line) for line in text.split(b"\n")) <= 510  # CPLEX's limit; CBC's reader failed near 2,900
    path = tmp_path / "long.lp"
    write_lp(p, path)
    assert_highs_arrays(path, p)
    assert abs(solve_scip(path) - reference_optimum(p)) < 1e-6


# ----------------------------------------------------------------------------------------------
# solvers read the files back


def test_bounds_model_all_solvers(tmp_path):
    p = bounds_model()
    want = reference_optimum(p)
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"bounds.{ext}"
        digest = write(p, path)
        assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
        assert_highs_arrays(path, p)
        assert_close(all_optima(path, tmp_path), want)


def test_random_model_arrays_read_back(tmp_path):
    p = random_model(np.random.default_rng(3), 60, 25, 0.2, values="many", const=4.0)
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"rand.{ext}"
        write(p, path)
        assert_highs_arrays(path, p)


def qp_model(integer: bool) -> MILP:
    """The model of samples/portable_qp.mps: min -5.5x - 4y + x^2 + xy + y^2, x + y <= 10."""
    return make([-5.5, -4], [[1, 1]], ["L"], [10], [0, 0], [10, 10], [integer, False],
                Q=[[2, 1], [1, 2]], cols=["x", "y_long_name_q"], rows=["c1"], name="QP")


def test_quadratic_continuous(tmp_path):
    # Stationary point x = 7/3, y = 5/6 is feasible, so it is the optimum.
    x, y = 7 / 3, 5 / 6
    want = -5.5 * x - 4 * y + x * x + x * y + y * y
    p = qp_model(False)
    assert abs(solve_scip(f"{SAMPLES}/portable_qp.mps") - want) < 1e-6
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"qp.{ext}"
        write(p, path)
        assert abs(solve_scip(path) - want) < 1e-6
        assert abs(solve_highs(path) - want) < 1e-6
    assert (tmp_path / "qp.mps").read_text().split("QUADOBJ\n")[1] == \
        open(f"{SAMPLES}/portable_qp.mps").read().split("QUADOBJ\n")[1]


def test_quadratic_integer_scip(tmp_path):
    p = qp_model(True)
    # Enumerate x; for fixed x the best y is clip((4 - x) / 2, 0, 10 - x).
    best = min(-5.5 * x - 4 * y + x * x + x * y + y * y
               for x in range(11) for y in [min(max((4 - x) / 2, 0.0), 10 - x)])
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"miqp.{ext}"
        write(p, path)
        assert abs(solve_scip(path) - best) < 1e-6


def test_lp_lines_stay_within_510_characters_at_the_longest_names_and_numbers():
    """64-character names (the longest allowed) and 24-character numbers in every row, the objective and the
    quadratic part: no line beyond 510 characters (CPLEX truncates longer ones; CBC's reader lost names)."""
    n = 200
    big = -1.2345678901234567e-300  # repr: 24 characters
    assert len(repr(big)) == 24
    cols = [f"c{j:03d}_" + "v" * 59 for j in range(n)]
    rows = ["r0_" + "w" * 61, "r1_" + "w" * 61]
    assert {len(s) for s in cols + rows} == {64}
    p = make(np.full(n, big), np.full((2, n), big), ["L", "G"], [big, big], np.full(n, big), np.ones(n),
             np.zeros(n), Q=np.eye(n) + np.diag(np.full(n - 1, 0.5), 1) + np.diag(np.full(n - 1, 0.5), -1),
             cols=cols, rows=rows)
    text = lp_bytes(p)
    assert text == ref_lp(p)
    assert max(len(line) for line in text.split(b"\n")) <= 510
    assert text.count(b"\n") > 4 * 200 // 4  # wrapped, not one line per row


def test_quadratic_random_matches_reference(tmp_path):
    p = random_model(np.random.default_rng(9), 30, 20, 0.2, quad=True, const=1.0)
    assert mps_bytes(p) == ref_mps(p) and lp_bytes(p) == ref_lp(p)
    # A long quadratic part wraps too, and HiGHS reads the same Hessian from both files.
    n = 120
    cols = [f"quadratic_variable_with_a_long_name_{j}" for j in range(n)]
    q = make(np.zeros(n), np.ones((1, n)), ["L"], [1], np.zeros(n), np.ones(n), np.zeros(n),
             Q=np.eye(n) * 2 + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1), cols=cols)
    text = lp_bytes(q)
    assert text == ref_lp(q) and max(len(line) for line in text.split(b"\n")) <= 510
    hessians = []
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        write(q, tmp_path / f"q.{ext}")
        hs = highs_read(tmp_path / f"q.{ext}").getModel().hessian_
        hessians.append(sp.csc_matrix((hs.value_, hs.index_, hs.start_), shape=(n, n)).toarray())
    np.testing.assert_array_equal(hessians[0], hessians[1])
    h = hessians[0]  # one triangle of the (symmetric) Hessian
    np.testing.assert_array_equal(h + h.T - np.diag(np.diag(h)), q.Q.toarray())


# ----------------------------------------------------------------------------------------------
# numbers, names, determinism, atomicity


def test_number_format_matches_repr():
    rng = np.random.default_rng(0)
    n = 40000
    x = np.concatenate([
        rng.standard_normal(n), rng.standard_normal(n) * 10.0 ** rng.integers(-12, 30, n),
        np.round(rng.standard_normal(n) * 1e4) / 10.0 ** rng.integers(0, 8, n),
        rng.integers(-10 ** 6, 10 ** 6, n) / 2.0 ** rng.integers(0, 30, n),
        2.0 ** rng.integers(-40, 70, n), rng.integers(1, 1000, n) / rng.integers(1, 1000, n),
        rng.integers(0, 2 ** 62, n).astype(np.float64),
        rng.integers(0, 2 ** 63, n, dtype=np.uint64).view(np.float64),
        [0.0, -0.0, 1e16, 1e15 + 0.5, 9.999999999999999e15, 0.1, 0.3, 1e-5, 1e-4, 5e-324,
         1.7976931348623157e308, 1e22, 1e23, 0.5, 2.5e-3, 4.35, 0.1 + 0.2, 9.5, 99.99999999999999]])
    x = x[np.isfinite(x)]
    assert F.number_strings(x) == [F.fmt(v) for v in x.tolist()]
    assert F.fmt(-0.0) == "0" and F.fmt(3.0) == "3" and F.fmt(1e16) == "1e+16" and F.fmt(0.5) == "0.5"


def test_number_cache():
    rng = np.random.default_rng(1)
    few = rng.choice(np.array([0.5, -1.0, 3.0, 0.0, -0.0, 1 / 3]), size=200_000)
    cache = F.NumberCache.for_values(few, suffix=b"\n")
    for part in np.array_split(few, 7):
        key = cache.lookup(part)
        got = [bytes(r) for r in F.Table(cache.table.data[key], cache.table.width[key], True).tolist()]
        assert got == [(F.fmt(v) + "\n").encode() for v in part.tolist()]
    assert F.NumberCache.for_values(rng.standard_normal(200_000)) is None
    # More distinct values than estimated: collisions go to the next levels, or the lookup gives up.
    small = F.NumberCache(10)
    vals = np.round(rng.standard_normal(50_000), 3)
    key = small.lookup(vals, max_new=1.0)
    if key is not None:
        t = small.table
        assert [bytes(t.data[k, t.maxw - t.width[k]:]) for k in key[:2000]] == \
            [F.fmt(v).encode() for v in vals[:2000].tolist()]
    assert small.lookup(rng.standard_normal(50_000)) is None


def test_deterministic(tmp_path):
    p = random_model(np.random.default_rng(4), 200, 40, 0.2, values="many", quad=True, const=2.0)
    for write, to_bytes, ext in ((write_mps, mps_bytes, "mps"), (write_lp, lp_bytes, "lp")):
        a = write(p, tmp_path / f"a.{ext}")
        b = write(p, tmp_path / f"b.{ext}")
        assert a == b == hashlib.sha256(to_bytes(p)).hexdigest()
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes() == to_bytes(p)


@pytest.mark.parametrize("bad", ["x" * 65, "has space", "9lives", "dash-ed", "caf\u00e9"])
def test_bad_names(tmp_path, bad):
    p = make([1, 1], [[1, 1]], ["L"], [1], [0, 0], [1, 1], [0, 0], cols=["ok", bad])
    for write in (write_mps, write_lp):
        with pytest.raises(OlctcError, match="name"):
            write(p, tmp_path / "bad.out")
    q = make([1, 1], [[1, 1]], ["L"], [1], [0, 0], [1, 1], [0, 0], rows=[bad])
    with pytest.raises(OlctcError, match="name"):
        mps_bytes(q)
    assert list(tmp_path.iterdir()) == []


def test_name_limits_and_reserved():
    ok = make([1], [[1]], ["L"], [1], [0], [1], [0], cols=["y" * 64])
    assert b"y" * 64 in mps_bytes(ok) and b"y" * 64 in lp_bytes(ok)
    dup = make([1, 1], [[1, 1]], ["L"], [1], [0, 0], [1, 1], [0, 0], cols=["a", "a"])
    with pytest.raises(OlctcError, match="twice"):
        mps_bytes(dup)
    with pytest.raises(OlctcError, match="OBJ"):
        mps_bytes(make([1], [[1]], ["L"], [1], [0], [1], [0], rows=["OBJ"]))
    with pytest.raises(OlctcError, match="keyword"):
        lp_bytes(make([1], [[1]], ["L"], [1], [0], [1], [0], cols=["free"]))
    with pytest.raises(OlctcError, match="OBJCONST"):
        mps_bytes(make([1], [[1]], ["L"], [1], [0], [1], [0], cols=["OBJCONST"], const=1.0))


def test_bad_numbers():
    with pytest.raises(OlctcError, match="nan"):
        mps_bytes(make([np.nan], [[1]], ["L"], [1], [0], [1], [0]))
    with pytest.raises(OlctcError, match="bounds"):
        lp_bytes(make([1], [[1]], ["L"], [1], [2], [1], [0]))
    with pytest.raises(OlctcError, match="sense"):
        mps_bytes(make([1], [[1]], ["X"], [1], [0], [1], [0]))


def test_atomic_on_failure(tmp_path, monkeypatch):
    p = random_model(np.random.default_rng(2), 50, 20, 0.3)
    for ext, write in (("mps", write_mps), ("lp", write_lp)):
        path = tmp_path / f"m.{ext}"
        path.write_bytes(b"old")
        calls = {"n": 0}
        real_write = F.ExactParts.write

        def boom(self, *a, **k):
            # Fail after the first chunk has reached the file.
            calls["n"] += 1
            if calls["n"] > 3:
                raise RuntimeError("disk on fire")
            return real_write(self, *a, **k)

        monkeypatch.setattr(F.ExactParts, "write", boom)
        with pytest.raises(RuntimeError, match="disk on fire"):
            write(p, path)
        monkeypatch.setattr(F.ExactParts, "write", real_write)
        assert path.read_bytes() == b"old"
        assert sorted(x.name for x in tmp_path.iterdir()) == sorted(
            [f"m.{e}" for e in ("mps", "lp") if (tmp_path / f"m.{e}").exists()])


def test_atomic_write_gives_the_mode_open_gives_and_never_touches_a_taken_name(tmp_path, monkeypatch):
    import os
    import secrets

    from olctc import io as oio

    mask = os.umask(0o027)
    try:
        oio.atomic_write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(mask)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640  # 0o666 minus the umask, as open() does
    # A temporary name that exists already (another writer's) is skipped, and left alone on failure.
    taken = tmp_path / ".b.txt.000000000000.tmp"
    taken.write_text("theirs")
    names = iter(["000000000000", "111111111111"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(names))
    with pytest.raises(RuntimeError, match="stop"):
        with oio.atomic_open(tmp_path / "b.txt") as fh:
            fh.write("ours")
            assert (tmp_path / ".b.txt.111111111111.tmp").exists()
            raise RuntimeError("stop")
    assert sorted(p.name for p in tmp_path.iterdir()) == [taken.name, "a.txt"]
    assert taken.read_text() == "theirs"
    # a file rewritten keeps its permissions (a private 0600 file became 0644)
    monkeypatch.undo()
    (tmp_path / "a.txt").chmod(0o600)
    oio.atomic_write_text(tmp_path / "a.txt", "y")
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o600 and (tmp_path / "a.txt").read_text() == "y"


def test_atomic_write_follows_links_writes_through_fifos_and_names_os_errors(tmp_path):
    import os
    import threading

    from olctc import io as oio

    # A symbolic link: its target is replaced, the link stays a link.
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    oio.atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    # A FIFO (like /dev/stdout): written to, not replaced by a regular file.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    oio.atomic_write_text(fifo, "through")
    reader.join(10)
    assert got == [b"through"] and fifo.is_fifo()
    # A folder, named with or without the trailing slash: refused, nothing created.
    before = sorted(p.name for p in tmp_path.iterdir())
    for bad in (f"{tmp_path}/new_folder/", str(tmp_path)):
        with pytest.raises(OlctcError, match="is a folder"):
            oio.atomic_write_text(bad, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    # A 250-character name is legal: the temporary name must fit in 255 bytes too.
    long = tmp_path / ("b" * 245 + ".json")
    oio.atomic_write_text(long, "x")
    assert long.read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + [long.name])
    # OS errors while writing are one-line OlctcErrors naming the path.
    if os.path.exists("/dev/full"):
        with pytest.raises(OlctcError, match="cannot write /dev/full: No space left on device"):
            oio.atomic_write_text("/dev/full", "x" * 100_000)
    if os.path.isdir("/proc/self"):
        with pytest.raises(OlctcError, match="cannot write /proc/olctc.json"):
            oio.atomic_write_text("/proc/olctc.json", "x")


def _chunked(milp: MILP, chunk_bytes: int):
    """``write_mps``'s producer with small chunks: a small model goes out in many pieces."""
    import olctc.emit.mps as M

    prep = M._prepare(milp)
    return lambda alloc: M._produce(prep, alloc, chunk_bytes)


def _heart_model() -> MILP:
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.spec import make_spec

    return compile_problem(load("heart"), make_spec("olct", 2)).milp


def test_chunked_write_is_the_whole_file_and_its_hash(tmp_path):
    # The writing thread and the hashing one see every chunk, in order, however small the chunks are.
    milp = _heart_model()
    whole = mps_bytes(milp)
    for chunk_bytes in (1 << 12, 1 << 16):
        digest = F.write_chunks(tmp_path / "m.mps", _chunked(milp, chunk_bytes))
        assert (tmp_path / "m.mps").read_bytes() == whole and digest == hashlib.sha256(whole).hexdigest()


def test_a_disk_that_fills_in_the_middle_of_the_file_is_a_one_line_error_and_leaves_nothing(tmp_path):
    import threading

    from conftest import tmpfs

    milp = _heart_model()
    size = len(mps_bytes(milp))
    before = threading.active_count()
    with tmpfs(tmp_path / "fs", f"size={size // 2}") as fs:
        (fs / "m.mps").write_bytes(b"old")
        # Several chunks reach the file before the disk is full; the thread writing them meets ENOSPC.
        with pytest.raises(OlctcError, match=rf"^cannot write {re.escape(str(fs / 'm.mps'))}: .*No space left"):
            F.write_chunks(fs / "m.mps", _chunked(milp, 1 << 14))
        assert sorted(p.name for p in fs.iterdir()) == ["m.mps"] and (fs / "m.mps").read_bytes() == b"old"
    assert threading.active_count() == before


def test_a_producer_that_fails_midway_stops_the_threads_and_leaves_nothing(tmp_path):
    import threading

    milp = _heart_model()
    inner = _chunked(milp, 1 << 12)

    def produce(alloc):
        for i, ch in enumerate(inner(alloc)):
            if i == 30:
                raise KeyboardInterrupt  # as an interrupt lands while a chunk is being made
            yield ch

    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        F.write_chunks(tmp_path / "m.mps", produce)
    assert list(tmp_path.iterdir()) == [] and threading.active_count() == before
