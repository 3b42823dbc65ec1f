"""Write a :class:`~olctc.milp.MILP` in the portable subset of the CPLEX LP format (docs/FORMATS.md §2).

::

    Minimize
     obj: + 3 x - 2 y + 0 z + 2.5 OBJCONST
    + [ + 2 x ^2 + 2 x * y ] / 2
    Subject To
     r1: + 1 x + 1 y <= 8
    Bounds
     -5 <= y <= 5
     -inf <= u <= 4
     1 <= v <= +inf
     w free
     1 <= OBJCONST <= 1
    Generals
     x
    Binaries
     z
    End

The objective lists every column (zero costs included) so that readers, which number columns in
order of first appearance, keep the model's column order. A nonzero objective constant is the
column ``OBJCONST`` fixed to 1. A row without terms is written ``+ 0 <first column>``. Long rows
are wrapped every K terms so that no line exceeds ``MAX_LINE`` (510) characters. Quadratic objective
(``c'x + 1/2 x'Qx``): inside ``[ ... ] / 2``, ``Q_ii x ^2`` and ``2 Q_ij x * y`` for i < j.

A model without constraints gets an empty ``Subject To`` section: GLPK cannot read that (write MPS
for it); a dummy ``+ 0 x`` row instead crashes the CBC that python-mip ships.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator

import numpy as np
import scipy.sparse as sp

from olctc.emit import _format as F
from olctc.emit.mps import check_milp, check_q
from olctc.errors import OlctcError
from olctc.milp import MILP

__all__ = ["write_lp", "lp_bytes"]

#: The longest line written. CPLEX truncates lines beyond 510 characters (its file format allows 560); Xpress's
#: LINELENGTH was 512; CBC's LP reader (CoinLpIO) reads 1023 bytes at a time, and the CBC that python-mip ships
#: lost every column name on lines of about 2,900 (4000 was the limit here): it named them x0, x1, ..., dropped
#: the MIP start and wrote a solution of those names (QA 2026-12-05, 20 points x 441 features, depth 1).
MAX_LINE = 510
# Words an LP reader may take for a section keyword or a bound keyword when they stand alone.
_KEYWORDS = {"minimize", "maximize", "minimum", "maximum", "min", "max", "subject", "such", "st",
             "bounds", "bound", "general", "generals", "gen", "integer", "integers", "binary",
             "binaries", "bin", "semi", "semis", "sos", "end", "free", "inf", "infinity"}


def write_lp(milp: MILP, path: str | os.PathLike[str]) -> str:
    """Write ``milp`` as a portable CPLEX-LP file.

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
        If a name is not a portable LP name, a number is not finite, or the arrays disagree.
    """
    prep = _prepare(milp)
    return F.write_chunks(path, lambda alloc: _produce(prep, alloc))


def lp_bytes(milp: MILP, *, chunk_bytes: int = F.CHUNK_BYTES) -> bytes:
    """The bytes :func:`write_lp` would write (``chunk_bytes``: work size, for tests)."""
    prep = _prepare(milp)
    return F.collect_chunks(lambda alloc: _produce(prep, alloc, chunk_bytes))


# ----------------------------------------------------------------------------------------------


def _lp_names(names: np.ndarray, what: str) -> np.ndarray:
    sb = F.name_bytes(names, what)
    if sb.size:
        # CPLEX reads "e" or "E" alone or followed by a digit or another e as part of a number: "+ 1 e1" is
        # 1e1 to it ("Couldn't convert '+1e1+2' to a number"), and "+ 2 e" silently drops the column e
        # (CPLEX 22.1, measured), while HiGHS, SCIP, CBC and GLPK read a column. Its LP format reserves them.
        u8 = sb.view(np.uint8).reshape(sb.shape[0], sb.dtype.itemsize)
        first_e = (u8[:, 0] | 0x20) == ord("e")
        second = u8[:, 1] if u8.shape[1] > 1 else np.zeros(sb.shape[0], dtype=np.uint8)
        exp = first_e & ((second == 0) | ((second >= ord("0")) & (second <= ord("9")))
                         | ((second | 0x20) == ord("e")))
        if exp.any():
            raise OlctcError(f"{what} name {sb[exp][0].decode()!r} reads as part of a number in CPLEX's LP format "
                             "(e or E alone or followed by a digit or another e is an exponent); rename it, or "
                             "write MPS")
        low = np.char.lower(sb)
        bad = np.isin(low, np.array(sorted(_KEYWORDS), dtype="S"))
        if bad.any():
            raise OlctcError(f"{what} name {sb[bad][0].decode()!r} is an LP keyword; rename it")
    return sb


def _prepare(milp: MILP) -> F.Prepared:
    p = F.Prepared()
    c, A, sense, rhs, lb, ub, integer = check_milp(milp)
    n, m = c.shape[0], rhs.shape[0]
    cols = _lp_names(milp.col_names(), "column")
    rows = _lp_names(milp.row_names(), "row")
    if m and np.any(rows == b"obj"):
        raise OlctcError("row name 'obj' is reserved for the objective")
    const = float(milp.obj_constant) + 0.0
    p.Q = check_q(milp.Q, n)
    if const != 0.0:
        if np.any(cols == b"OBJCONST"):
            raise OlctcError("column name 'OBJCONST' is reserved for the objective constant")
        cols = np.append(cols, b"OBJCONST")
        c = np.append(c, const)
        lb = np.append(lb, 1.0)
        ub = np.append(ub, 1.0)
        integer = np.append(integer, False)
        A = sp.csr_matrix((A.data, A.indices, A.indptr), shape=(m, n + 1))
        n += 1
    p.n, p.m, p.c, p.A, p.sense, p.rhs, p.lb, p.ub, p.integer = n, m, c, A, sense, rhs, lb, ub, integer
    p.cols, p.rows = cols, rows
    return p


def _rows(alloc: Callable[[int], np.ndarray], indptr: np.ndarray, indices: np.ndarray,
          values: np.ndarray, tsource, head: F.Table, tail: F.Table, names: F.Table,
          kmax: int, chunk_bytes: int) -> Iterator[F.Chunk]:
    """Lines ``head[i] + (T + name)* + tail[i]`` for the rows of a CSR structure, in chunks.

    ``tsource(values) -> (table, idx)`` gives the coefficient parts (`` + 1.5 ``) of a chunk's terms.
    Every row must have at least one term. A line break replaces the space in front of every
    ``kmax``-th term of a row.
    """
    hp = F.ExactParts(head)
    sp_ = F.ExactParts(tail)
    cp = F.ExactParts(names)
    nrows = indptr.shape[0] - 1
    per = max(1, chunk_bytes // 64)
    r0 = 0
    while r0 < nrows:
        # About `per` terms per chunk, whole rows only.
        r1 = int(np.searchsorted(indptr, indptr[r0] + per, side="right")) - 1
        r1 = min(nrows, max(r1, r0 + 1))
        k0, k1 = int(indptr[r0]), int(indptr[r1])
        cnt = np.diff(indptr[r0:r1 + 1])
        rr = np.repeat(np.arange(r1 - r0), cnt)
        j = indices[k0:k1].astype(np.intp)
        ttab, tidx = tsource(values[k0:k1])
        tp = F.ExactParts(ttab)
        tw = ttab.width[tidx]
        cw = cp.width[j]
        w = tw + cw
        firsts = (indptr[r0:r1] - k0).astype(np.intp)
        rowsum = np.add.reduceat(w, firsts) if w.size else np.zeros(0, dtype=np.int64)
        ridx = np.arange(r0, r1)
        hw = hp.width[ridx]
        sw = sp_.width[ridx]
        row_len = hw + rowsum + sw
        row_end = np.cumsum(row_len)
        total = int(row_end[-1])
        row_start = row_end - row_len
        cs = np.cumsum(w) - w
        term_start = cs + (row_start + hw - cs[firsts])[rr]
        buf = alloc(total + 64)
        hp.write(buf, row_start, ridx, hw)
        sp_.write(buf, row_end - sw, ridx, sw)
        tp.write(buf, term_start, tidx, tw)
        cp.write(buf, term_start + tw, j, cw)
        rank = np.arange(k1 - k0) - firsts[rr]
        brk = (rank > 0) & (rank % kmax == 0)
        if brk.any():
            buf[term_start[brk]] = ord("\n")
        yield F.Chunk([buf.data[:total]], buf)  # buf.data: memoryview(buf), which numpy types on 3.12+ only
        r0 = r1


def _quad_text(p: F.Prepared, U: sp.csr_matrix, kmax: int) -> bytes:
    """``+ [ ... ] / 2`` for the objective ``p.Q`` (``U``), on lines of its own, wrapped every ``kmax`` terms."""
    i = np.repeat(np.arange(U.shape[0]), np.diff(U.indptr))
    j = U.indices
    v = np.where(i == j, U.data, 2.0 * U.data)
    coef = F.number_table(v, signs=(b" - ", b" + "), suffix=b" ").tolist()
    names = [s.decode() for s in p.cols.tolist()]
    parts = []
    for k, (a, b, cb) in enumerate(zip(i.tolist(), j.tolist(), coef)):
        lead = "\n" if k and k % kmax == 0 else ""
        cf = cb.decode()
        if lead:
            cf = lead + cf[1:]
        parts.append(f"{cf}{names[a]} ^2" if a == b else f"{cf}{names[a]} * {names[b]}")
    return ("\n+ [" + "".join(parts) + " ] / 2").encode()


def _produce(p: F.Prepared, alloc: Callable[[int], np.ndarray], chunk_bytes: int = F.CHUNK_BYTES
             ) -> Iterator[F.Chunk]:
    n, m = p.n, p.m
    names = F.names_table(p.cols)
    cmax = int(names.width.max())
    # Longest possible term: " - " + number (at most 24 characters) + " " + name.
    kmax = max(1, (MAX_LINE - 100) // (28 + cmax))

    yield F.Chunk([b"Minimize\n"])
    ctab = F.number_table(p.c, signs=(b" - ", b" + "), suffix=b" ")
    # A quadratic term: " - " + number + " " + name + " * " + name.
    quad = _quad_text(p, p.Q, max(1, (MAX_LINE - 10) // (30 + 2 * cmax))) if p.Q is not None else b""
    yield from _rows(alloc, np.array([0, n]), np.arange(n), np.arange(n), lambda k: (ctab, k),
                     F.const_table([b" obj:"]), F.const_table([quad + b"\n"]), names, kmax, chunk_bytes)

    yield F.Chunk([b"Subject To\n"])
    if m:
        A = p.A
        indptr = A.indptr.astype(np.int64)
        indices = A.indices
        data = A.data
        empty = np.flatnonzero(np.diff(indptr) == 0)
        if empty.size:
            # A row without terms: "+ 0 <first column>" (all readers accept it).
            ins = indptr[empty]
            indices = np.insert(indices, ins, 0)
            data = np.insert(data, ins, 0.0)
            add = np.zeros(m + 1, dtype=np.int64)
            add[empty + 1] = 1
            indptr = indptr + np.cumsum(add)
        signs = (b" - ", b" + ")
        cache = F.NumberCache.for_values(data, signs, b" ")

        def tsource(v):
            key = cache.lookup(v) if cache is not None else None
            if key is None:
                return F.number_table(v, signs, b" "), np.arange(v.size)
            return cache.table, key

        head = F.names_table(p.rows, prefix=b" ", suffix=b":")
        tail = F.stack(*[F.number_table(p.rhs, signs=(s + b"-", s), suffix=b"\n")
                         for s in (b" <= ", b" >= ", b" = ")])
        sidx = np.where(p.sense == "L", 0, np.where(p.sense == "G", 1, 2)) * m + np.arange(m)
        tail = F.Table(tail.data[sidx], tail.width[sidx], True)
        yield from _rows(alloc, indptr, indices, data, tsource, head, tail, names, kmax, chunk_bytes)

    yield F.Chunk([_bounds(p), _lists(p), b"End\n"])


def _bounds(p: F.Prepared) -> bytes:
    lb, ub, integer = p.lb, p.ub, p.integer
    binary = integer & (lb == 0.0) & (ub == 1.0)
    free = (lb == -np.inf) & (ub == np.inf)
    default = (lb == 0.0) & (ub == np.inf)
    j = np.flatnonzero(~binary & ~default)
    if j.size == 0:
        return b"Bounds\n"
    fr = free[j]
    # " lb <= " name " <= ub\n", or " " name " free\n"
    lo_tab = F.stack(F.number_table(np.where(np.isfinite(lb[j]), lb[j], 0.0), signs=(b" -", b" "), suffix=b" <= "),
                     F.const_table([b" -inf <= ", b" "]))
    k = j.size
    lo_idx = np.where(fr, k + 1, np.where(lb[j] == -np.inf, k, np.arange(k)))
    up_tab = F.stack(F.number_table(np.where(np.isfinite(ub[j]), ub[j], 0.0), signs=(b" <= -", b" <= "), suffix=b"\n"),
                     F.const_table([b" <= +inf\n", b" free\n"]))
    up_idx = np.where(fr, k + 1, np.where(ub[j] == np.inf, k, np.arange(k)))
    body = F.exact_lines([(lo_tab, lo_idx), (F.names_table(p.cols), j), (up_tab, up_idx)], k)
    return b"Bounds\n" + body


def _lists(p: F.Prepared) -> bytes:
    binary = p.integer & (p.lb == 0.0) & (p.ub == 1.0)
    out = []
    for title, mask in ((b"Generals\n", p.integer & ~binary), (b"Binaries\n", binary)):
        j = np.flatnonzero(mask)
        if j.size:
            out.append(title)
            out.append(F.exact_lines([(F.names_table(p.cols, prefix=b" ", suffix=b"\n"), j)], j.size))
    return b"".join(out)
