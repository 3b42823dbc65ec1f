"""Write a :class:`~olctc.milp.MILP` as free MPS in the portable dialect (docs/FORMATS.md section 1).

Layout, exactly as Gurobi/CPLEX/HiGHS align it (which keeps CBC and SCIP out of their fixed-format
heuristics)::

    NAME <name> FREE
    ROWS
     N  OBJ
     L  <row>
    COLUMNS
        MARKER0000  'MARKER'                 'INTORG'
        <col:<8>  <row:<8>  <value>
        MARKER0001  'MARKER'                 'INTEND'
    RHS
        RHS       <row:<8>  <value>
    BOUNDS
     UP BND       <col:<8>  <value>
    QUADOBJ
        <col:<8>  <col:<8>  <value>
    ENDATA

Always a minimisation with the objective row ``OBJ``; a nonzero objective constant becomes a column
``OBJCONST`` with that cost, fixed to 1. Every column appears in COLUMNS (``OBJ 0`` if it has no
entry); the RHS section is always present, even when empty. Integer columns sit in MARKER
blocks and always carry an upper bound (``UP``, or ``PL``).
Numbers follow :func:`olctc.emit._format.fmt`.

The COLUMNS section (all the nonzeros) is assembled with numpy, a chunk of lines at a time, into
reused buffers: see :func:`olctc.emit._format.spill3`.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator

import numpy as np
import scipy.sparse as sp

from olctc.emit import _format as F
from olctc.errors import OlctcError
from olctc.milp import MILP

__all__ = ["write_mps", "mps_bytes"]

_OBJ = b"OBJ"
_OBJCONST = b"OBJCONST"
_MARKER = "    MARKER{:04d}  'MARKER'                 '{}'\n"
_BOUND_TYPES = [b" UP BND       ", b" LO BND       ", b" MI BND       ", b" PL BND       ",
                b" BV BND       ", b" FR BND       ", b" FX BND       "]
UP, LO, MI, PL, BV, FR, FX = range(7)


def write_mps(milp: MILP, path: str | os.PathLike[str]) -> str:
    """Write ``milp`` as a portable free-MPS file.

    Parameters
    ----------
    milp : the model; see :mod:`olctc.milp`.
    path : the file to write; it appears whole or not at all.

    Returns
    -------
    str
        The sha256 hex digest of the bytes written.

    Raises
    ------
    OlctcError
        If a name is not a portable MPS name, a number is not finite, or the arrays disagree.
    """
    prep = _prepare(milp)
    return F.write_chunks(path, lambda alloc: _produce(prep, alloc))


def mps_bytes(milp: MILP, *, chunk_bytes: int = F.CHUNK_BYTES) -> bytes:
    """The bytes :func:`write_mps` would write (``chunk_bytes``: work size, for tests)."""
    prep = _prepare(milp)
    return F.collect_chunks(lambda alloc: _produce(prep, alloc, chunk_bytes))


# ----------------------------------------------------------------------------------------------


def _prepare(milp: MILP) -> F.Prepared:
    p = F.Prepared()
    c, A, sense, rhs, lb, ub, integer = check_milp(milp)
    n, m = c.shape[0], rhs.shape[0]
    cols = F.name_bytes(milp.col_names(), "column")
    rows = F.name_bytes(milp.row_names(), "row")
    model = F.name_bytes(np.array([milp.name or "OLCTC"]), "model")[0]
    if m and np.any(rows == _OBJ):
        raise OlctcError("row name 'OBJ' is reserved for the objective row")
    const = float(milp.obj_constant) + 0.0
    if const != 0.0:
        if np.any(cols == _OBJCONST):
            raise OlctcError("column name 'OBJCONST' is reserved for the objective constant")
        cols = np.append(cols, _OBJCONST)
        c = np.append(c, const)
        lb = np.append(lb, 1.0)
        ub = np.append(ub, 1.0)
        integer = np.append(integer, False)
        A = sp.csr_matrix((A.data, A.indices, A.indptr), shape=(m, n + 1))
        n += 1
    p.n, p.m, p.c, p.A, p.sense, p.rhs, p.lb, p.ub, p.integer = n, m, c, A, sense, rhs, lb, ub, integer
    p.cols, p.rows, p.model = cols, rows, model
    p.Q = check_q(milp.Q, n - (const != 0.0))
    return p


def check_milp(milp: MILP):
    """Validate the arrays of ``milp`` and its objective constant; return the arrays normalised (float64, bool,
    canonical CSR). The writers and the in-process HiGHS solve (which gets the arrays, not a file) call it."""
    c = np.asarray(milp.c, dtype=np.float64).ravel()
    n = c.shape[0]
    if n == 0:
        raise OlctcError("the model has no variables; there is nothing to write")
    A = milp.A
    if not sp.issparse(A):
        A = sp.csr_matrix(np.asarray(A, dtype=np.float64))
    A = A.tocsr()
    rhs = np.asarray(milp.rhs, dtype=np.float64).ravel()
    m = rhs.shape[0]
    if A.shape != (m, n):
        raise OlctcError(f"A has shape {A.shape}, expected ({m}, {n}) from rhs and c")
    if A.dtype != np.float64:
        A = A.astype(np.float64)
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    sense = np.asarray(milp.sense).astype("U1").ravel()
    if sense.shape[0] != m:
        raise OlctcError(f"sense has {sense.shape[0]} entries, expected {m}")
    bad = ~np.isin(sense, ["L", "G", "E"])
    if bad.any():
        raise OlctcError(f"row sense {str(sense[bad][0])!r} is not one of 'L', 'G', 'E'")
    lb = np.asarray(milp.lb, dtype=np.float64).ravel()
    ub = np.asarray(milp.ub, dtype=np.float64).ravel()
    integer = np.asarray(milp.integer, dtype=bool).ravel()
    for name, arr in (("lb", lb), ("ub", ub), ("integer", integer)):
        if arr.shape[0] != n:
            raise OlctcError(f"{name} has {arr.shape[0]} entries, expected {n}")
    F.check_finite(np.array([float(milp.obj_constant)]), "obj_constant")
    F.check_finite(c, "c")
    F.check_finite(A.data, "A")
    F.check_finite(rhs, "rhs")
    if np.isnan(lb).any() or np.isnan(ub).any():
        raise OlctcError("a variable bound is NaN")
    wrong = (lb == np.inf) | (ub == -np.inf) | (lb > ub)
    if wrong.any():
        j = int(np.argmax(wrong))
        name = milp.col_names()[j]
        raise OlctcError(f"variable {name} has bounds [{lb[j]}, {ub[j]}]: lower must be <= upper, "
                         "lower < +inf and upper > -inf")
    return c, A, sense, rhs, lb, ub, integer


def check_q(Q, n: int):
    """Validate the quadratic objective: square, finite, symmetric. Returns its upper triangle (CSR)."""
    if Q is None:
        return None
    Q = sp.csr_matrix(Q, dtype=np.float64, copy=True)  # sum_duplicates and eliminate_zeros work in place
    if Q.shape != (n, n):
        raise OlctcError(f"Q has shape {Q.shape}, expected ({n}, {n})")
    Q.sum_duplicates()
    Q.eliminate_zeros()
    if Q.nnz == 0:
        return None
    F.check_finite(Q.data, "Q")
    if (Q - Q.T).count_nonzero():
        raise OlctcError("Q must be symmetric (the full matrix of the objective 0.5 x'Qx)")
    U = sp.triu(Q, format="csr")
    U.sort_indices()
    return U


def _bound_lines(p: F.Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(column, bound type, value) of every BOUNDS line, in file order."""
    lb, ub, integer = p.lb, p.ub, p.integer
    fixed = lb == ub
    binary = integer & (lb == 0.0) & (ub == 1.0) & ~fixed
    free = (lb == -np.inf) & (ub == np.inf)
    rest = ~fixed & ~binary
    cols, kinds, vals, order = [], [], [], []

    def add(mask, kind, val, rank):
        j = np.flatnonzero(mask)
        cols.append(j)
        kinds.append(np.full(j.size, kind))
        vals.append(val[j] if isinstance(val, np.ndarray) else np.full(j.size, np.nan))
        order.append(np.full(j.size, rank))

    add(fixed, FX, lb, 0)
    add(binary, BV, None, 0)
    add(rest & free & ~integer, FR, None, 0)
    lower = rest & ~(free & ~integer)
    add(lower & (lb == -np.inf), MI, None, 0)
    add(lower & np.isfinite(lb) & (lb != 0.0), LO, lb, 0)
    # An upper bound line: always for integers (an integer without one defaults to [0, 1] in
    # several readers), and for finite upper bounds.
    add(lower & np.isfinite(ub), UP, ub, 1)
    add(lower & integer & (ub == np.inf), PL, None, 1)
    j = np.concatenate(cols)
    k = np.concatenate(kinds)
    v = np.concatenate(vals)
    o = np.concatenate(order)
    srt = np.lexsort((o, j))
    return j[srt], k[srt], v[srt]


def _produce(p: F.Prepared, alloc: Callable[[int], np.ndarray], chunk_bytes: int = F.CHUNK_BYTES
             ) -> Iterator[F.Chunk]:
    n, m = p.n, p.m
    head = [b"NAME " + bytes(p.model) + b" FREE\nROWS\n N  OBJ\n"]
    sense_tab = F.const_table([b" L  ", b" G  ", b" E  "])
    sidx = np.where(p.sense == "L", 0, np.where(p.sense == "G", 1, 2))
    rows_nl = F.names_table(p.rows, suffix=b"\n")
    head.append(F.exact_lines([(sense_tab, sidx), (rows_nl, np.arange(m))], m))
    head.append(b"COLUMNS\n")
    yield F.Chunk(head)

    # Name tables: rows for the second field (OBJ first), columns for the first.
    row_names = np.concatenate([np.array([_OBJ], dtype="S3"), p.rows]) if m else np.array([_OBJ])
    rtab = F.names_table(row_names, pad=8, suffix=b"  ")
    pre = F.ExactParts(F.names_table(p.cols, pad=8, suffix=b"  ", prefix=b"    "))
    minpre = 14  # "    " + 8 + "  "
    mid = F.SpillParts(rtab, span=minpre)

    # Objective entries (OBJ row, index 0) for nonzero costs and for columns with no entry at all.
    A = p.A
    count = np.bincount(A.indices, minlength=n) if A.nnz else np.zeros(n, dtype=np.int64)
    obj_cols = np.flatnonzero((p.c != 0.0) | (count == 0))
    vals = np.concatenate([p.c[obj_cols], A.data])
    cache = F.NumberCache.for_values(vals, suffix=b"\n")
    indptr = np.concatenate([[0], obj_cols.size + A.indptr]).astype(np.int64)
    indices = np.concatenate([obj_cols, A.indices]).astype(np.int32)
    aug = sp.csr_matrix((vals, indices, indptr), shape=(m + 1, n))
    csc = aug.tocsc()  # rows sorted within each column; values carried along
    colptr = csc.indptr.astype(np.int64)
    arow = csc.indices
    aval = csc.data
    nnz = int(colptr[-1])
    del aug, csc, vals

    # Integer markers: before the first column of an integer run, and after its last.
    integ = np.concatenate([[False], p.integer, [False]])
    change = np.flatnonzero(integ[1:] != integ[:-1])  # marker before column j (j may be n)
    # The line before which each marker goes (n: after the last line).
    mark_line = colptr[change]
    nmark = 0

    vw = F.text_width((b"-", b""), b"\n")
    wmax = pre.maxw + max(b[1] for b in mid.bins) + vw
    lines_per = max(1, chunk_bytes // wmax)
    cached = F.SpillParts(cache.table, 0, whole=True) if cache is not None else None
    k0 = 0
    while k0 < nnz:
        k1 = min(nnz, k0 + lines_per)
        ja = int(np.searchsorted(colptr, k0, side="right") - 1)
        jb = int(np.searchsorted(colptr, k1 - 1, side="right") - 1)
        lo = np.maximum(colptr[ja:jb + 1], k0)
        hi = np.minimum(colptr[ja + 1:jb + 2], k1)
        col = np.repeat(np.arange(ja, jb + 1), hi - lo)
        rows_k = arow[k0:k1].astype(np.intp)
        v = aval[k0:k1]
        vidx = cache.lookup(v) if cache is not None else None
        if vidx is None or cached is None:  # cached is None only when cache is, and then so is vidx
            end = F.SpillParts(F.trim(F.number_table(v, suffix=b"\n")), span=minpre + 10)
            vidx = np.arange(k1 - k0)
        else:
            end = cached
        buf = alloc(wmax * (k1 - k0) + 64)
        total, start = F.spill3(buf, pre, col, mid, rows_k, end, vidx,
                                pre_runs=(np.arange(ja, jb + 1), hi - lo))
        # Split the buffer where integer runs start or stop, to put the marker lines in.
        pieces: list[memoryview | bytes] = []
        cut = 0
        last = k1 == nnz
        a, b = np.searchsorted(mark_line, [k0, k1], side="left")
        if last:
            b = mark_line.size
        for i in range(a, b):
            first = int(mark_line[i])
            marker = "INTORG" if integ[change[i] + 1] else "INTEND"
            pos = total if first >= k1 else int(start[first - k0])
            if pos > cut:
                pieces.append(buf.data[cut:pos])  # buf.data: memoryview(buf), which numpy types on 3.12+ only
            pieces.append(_MARKER.format(nmark, marker).encode())
            nmark += 1
            cut = pos
        if total > cut:
            pieces.append(buf.data[cut:total])
        yield F.Chunk(pieces, buf)
        k0 = k1

    # RHS: nonzero right-hand sides only, but the section header always (SCIP and CBC reject a
    # file that goes from COLUMNS straight to BOUNDS).
    tail = [b"RHS\n"]
    nzr = np.flatnonzero(p.rhs != 0.0)
    if nzr.size:
        tail.append(_spill_section(b"    RHS       ", rtab, nzr + 1, p.rhs[nzr], minpre))
    j, kind, v = _bound_lines(p)
    if j.size:
        tail.append(b"BOUNDS\n")
        valued = ~np.isnan(v)
        names_pad = F.names_table(p.cols, pad=8, suffix=b"  ")
        names_bare = F.names_table(p.cols, suffix=b"\n")
        vt = F.number_table(np.where(valued, v, 0.0), suffix=b"\n")
        vt = F.stack(vt, F.const_table([b""]))
        tail.append(F.exact_lines([
            (F.const_table(_BOUND_TYPES), kind),
            (F.stack(names_pad, names_bare), np.where(valued, j, j + n)),
            (vt, np.where(valued, np.arange(j.size), j.size)),
        ], j.size))
    if p.Q is not None:
        U = p.Q
        tail.append(b"QUADOBJ\n")
        qi = np.repeat(np.arange(U.shape[0]), np.diff(U.indptr))
        ctab = F.names_table(p.cols, pad=8, suffix=b"  ")
        tail.append(_spill_section(None, ctab, U.indices.astype(np.intp), U.data, minpre,
                                   pre=pre, pre_idx=qi))
    tail.append(b"ENDATA\n")
    yield F.Chunk(tail)


def _spill_section(prefix: bytes | None, mid_tab: F.Table, mid_idx: np.ndarray, values: np.ndarray,
                   minpre: int, pre: F.ExactParts | None = None, pre_idx: np.ndarray | None = None) -> bytes:
    """Lines ``prefix + mid_tab[mid_idx] + fmt(value)``, for RHS and QUADOBJ."""
    k = values.shape[0]
    if pre is None:
        assert prefix is not None, "a prefix, or pre and pre_idx"  # the RHS call gives the one, QUADOBJ the other
        pre = F.ExactParts(F.const_table([prefix]))
        pre_idx = np.zeros(k, dtype=np.intp)
    assert pre_idx is not None, "pre comes with pre_idx"
    vt = F.trim(F.number_table(values, suffix=b"\n"))
    mid = F.SpillParts(mid_tab, span=minpre)
    end = F.SpillParts(vt, span=minpre + 10)
    buf = np.empty((pre.maxw + mid_tab.maxw + vt.maxw) * k + 64, dtype=np.uint8)
    total, _ = F.spill3(buf, pre, pre_idx, mid, mid_idx, end, np.arange(k))
    return buf[:total].tobytes()
