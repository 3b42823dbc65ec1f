"""Shared machinery of the MPS and LP writers: name checks, number formatting, byte assembly.

Everything here works on whole arrays. A writer describes its output as *lines made of parts*; a
part is an entry of a :class:`Table` (a 2-D ``uint8`` array holding one byte string per row,
usually right-aligned, plus the lengths), and the assemblers copy the parts into an output buffer
with a few numpy gathers and scatters per part (:func:`spill3`, :class:`ExactParts`). No Python
loop runs per line or per nonzero.

Numbers are written as ``repr(float)`` (shortest round trip) with a trailing ``.0`` removed and
``-0.0`` written as ``0``: see :func:`fmt`. :func:`number_table` produces exactly those bytes with
vectorised float64/int64 arithmetic and falls back to ``repr`` for the rare values it cannot decide;
:class:`NumberCache` formats each distinct coefficient once.

Output goes out in chunks of about :data:`CHUNK_BYTES` through a few reused buffers
(:func:`write_chunks`): fresh memory costs page faults comparable to the work itself. While the next
chunk is built, a second thread writes the last one to the file and a third computes its sha256.
"""
from __future__ import annotations

import hashlib
import queue
import threading
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from olctc.errors import OlctcError
from olctc.io import atomic_open

NAME_MAX = 64

# ----------------------------------------------------------------------------------------------
# names

_OK_FIRST = np.zeros(256, dtype=bool)
_OK_REST = np.zeros(256, dtype=bool)
for _c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_":
    _OK_FIRST[_c] = True
    _OK_REST[_c] = True
for _c in b"0123456789":
    _OK_REST[_c] = True


class Prepared:
    """A MILP's validated arrays and name tables, shared by a writer's sections."""

    n: int  # columns
    m: int  # rows
    c: np.ndarray
    A: sp.csr_matrix
    sense: np.ndarray
    rhs: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integer: np.ndarray
    cols: np.ndarray  # names as fixed-width bytes
    rows: np.ndarray
    Q: sp.csr_matrix | None  # upper triangle
    model: bytes  # MPS only: the NAME line's


def name_bytes(names: np.ndarray, what: str) -> np.ndarray:
    """Validate names and return them as a fixed-width ``S`` array.

    Parameters
    ----------
    names : array of str, the names to check.
    what : what the names are (``"column"``, ``"row"``), for the error message.

    Raises
    ------
    OlctcError
        If a name does not match ``[A-Za-z_][A-Za-z0-9_]*``, is longer than 64 characters, or two
        names are equal.
    """
    names = np.asarray(names)
    if names.size == 0:
        return np.zeros(0, dtype="S1")
    try:
        sb = names.astype(np.bytes_)
    except UnicodeEncodeError:
        bad = next(str(s) for s in names.tolist() if not str(s).isascii())
        raise OlctcError(f"{what} name {bad!r} is not a valid MPS/LP name: use only [A-Za-z0-9_]") from None
    w = sb.dtype.itemsize
    u8 = sb.view(np.uint8).reshape(len(sb), w)
    length = np.count_nonzero(u8, axis=1)
    # A NUL inside a name would hide characters from the byte view: compare with the real length.
    ok = (length > 0) & (length <= NAME_MAX) & (np.char.str_len(names) == length)
    ok &= _OK_FIRST[u8[:, 0]]
    ok &= np.all(_OK_REST[u8] | (u8 == 0), axis=1)
    if not ok.all():
        bad = str(names[int(np.argmin(ok))])
        if len(bad) > NAME_MAX:
            raise OlctcError(f"{what} name {bad!r} has {len(bad)} characters; MPS/LP names must have "
                             f"at most {NAME_MAX}")
        raise OlctcError(f"{what} name {bad!r} is not a valid MPS/LP name: it must match "
                         "[A-Za-z_][A-Za-z0-9_]*")
    srt = np.sort(sb)
    dup = srt[1:] == srt[:-1]
    if dup.any():
        raise OlctcError(f"{what} name {srt[1:][dup][0].decode()!r} is used twice; names must be unique")
    return sb


# ----------------------------------------------------------------------------------------------
# numbers: the reference rule


def fmt(v: float) -> str:
    """The number rule of both formats: ``repr(float)``, without a trailing ``.0``; ``-0.0`` is ``0``."""
    s = repr(float(v) + 0.0)
    return s[:-2] if s.endswith(".0") else s


def check_finite(x: np.ndarray, what: str) -> None:
    """Raise OlctcError if ``x`` holds NaN or an infinity."""
    if x.size and not np.isfinite(x).all():
        bad = float(x[~np.isfinite(x)][0])  # a float: numpy 2's repr would say np.float64(inf)
        raise OlctcError(f"{what} holds {bad!r}; only finite numbers are allowed in a model")


# ----------------------------------------------------------------------------------------------
# tables of byte strings


@dataclass
class Table:
    """Byte strings as a 2-D uint8 array plus their lengths.

    ``right`` tables hold each string at the end of its row (zero bytes before it), left tables at
    the start. The fast assemblers copy whole rows, so a right-aligned row is directly an item that
    ends where the string ends.
    """

    data: np.ndarray
    width: np.ndarray
    right: bool = False

    @property
    def maxw(self) -> int:
        return int(self.data.shape[1])

    def __len__(self) -> int:
        return int(self.data.shape[0])

    @classmethod
    def of(cls, items: list[bytes] | np.ndarray) -> "Table":
        """A left-aligned table from byte strings (or an ``S`` array)."""
        arr = np.asarray(items, dtype=np.bytes_) if len(items) else np.zeros(0, dtype="S1")
        if arr.dtype.itemsize == 0:
            arr = arr.astype("S1")
        w = arr.dtype.itemsize
        data = np.ascontiguousarray(arr.view(np.uint8).reshape(len(arr), w))
        return cls(data, np.count_nonzero(data, axis=1).astype(np.int64), False)

    def cols(self, k: int) -> np.ndarray:
        """The (n, k) block holding entries of width exactly ``k``."""
        return self.data[:, self.maxw - k:] if self.right else self.data[:, :k]

    def to_right(self, width: int | None = None) -> "Table":
        """The same strings right-aligned in rows of ``width`` bytes."""
        width = self.maxw if width is None else width
        if self.right and width == self.maxw:
            return self
        out = np.zeros((len(self), width), dtype=np.uint8)
        for L in np.unique(self.width):
            if L:
                rows = np.flatnonzero(self.width == L)
                out[rows, width - L:] = self.cols(int(L))[rows]
        return Table(out, self.width.copy(), True)

    def tolist(self) -> list[bytes]:
        return [bytes(self.cols(int(w))[k]) for k, w in enumerate(self.width)]


def names_table(sb: np.ndarray, pad: int = 0, suffix: bytes = b"", prefix: bytes = b"") -> Table:
    """``prefix + name.ljust(pad) + suffix`` for each name of an ``S`` array; right-aligned."""
    t = Table.of(sb)
    w = len(prefix) + np.maximum(t.width, pad) + len(suffix)
    W = int(w.max(initial=0)) or 1
    out = np.zeros((len(t), W), dtype=np.uint8)
    for L in np.unique(t.width):
        rows = np.flatnonzero(t.width == L)
        tw = int(max(L, pad))
        start = W - len(suffix) - tw
        out[rows, start:start + L] = t.data[rows, :L]
        if tw > L:
            out[rows, start + L:start + tw] = 32
        if prefix:
            out[rows, start - len(prefix):start] = np.frombuffer(prefix, dtype=np.uint8)
    if suffix:
        out[:, W - len(suffix):] = np.frombuffer(suffix, dtype=np.uint8)
    return Table(out, w.astype(np.int64), True)


def const_table(items: list[bytes]) -> Table:
    """A small right-aligned table of literal byte strings."""
    return Table.of(items).to_right()


# ----------------------------------------------------------------------------------------------
# vectorised shortest round-trip formatting
#
# For x with 1e-6 <= |x| < 1e16 we compute the 17-significant-digit integer M and the exact
# residual r in (-1/2, 1/2] of |x| * 10**s = M + r (s <= 22, so 10**s is an exact double and
# Dekker's two-product gives the rounding error of |x| * 10**s exactly). A p-digit decimal reads
# back as x iff it lies within half the gap between x and its neighbouring doubles (h, in units of
# M's last digit). The shortest such p follows from the trailing decimal zeros of M rounded down
# (or up) to a multiple of 100; candidates exactly on the edge of the interval, exact ties and
# everything out of range are left to repr, which the tests compare against on millions of values.

_POW10_F = np.array([10.0 ** k for k in range(23)])
_POW10_I = np.array([10 ** k for k in range(19)], dtype=np.int64)
_SPLIT = 134217729.0  # 2**27 + 1
_Q4 = np.array([list(f"{i:04d}".encode()) for i in range(10000)], dtype=np.uint8).view(np.uint32).ravel()
_EPS = 1e-7


def _two_prod_err(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The exact rounding error of ``p = fl(a*b)`` (Dekker), i.e. ``a*b - p``."""
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _v10(x: np.ndarray) -> np.ndarray:
    """Number of trailing decimal zeros of positive int64 ``x``."""
    c = np.zeros(x.shape, dtype=np.int64)
    for k in (16, 8, 4, 2, 1):
        d = _POW10_I[k]
        qd = x // d
        m = qd * d == x
        x = np.where(m, qd, x)
        c += m * k
    return c


def _shortest(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Shortest round-trip digits of positive, finite, non-integral doubles.

    Returns ``(D, nd, e, ok)``: ``a`` reads as the ``nd``-digit integer ``D`` times
    ``10**(e - nd + 1)``; where ``ok`` is False the caller must use repr.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        e10 = np.floor(np.log10(a)).astype(np.int64)
    ok = (e10 >= -6) & (e10 <= 16)
    s = np.clip(16 - e10, 0, 22)
    P = _POW10_F[s]
    pr = a * P
    err = _two_prod_err(a, P, pr)
    k = np.rint(err)
    with np.errstate(invalid="ignore"):
        M = pr.astype(np.int64)  # pr >= 2**53 is an integer whenever M lands in range
    M += k.astype(np.int64)
    r = err - k
    # log10 can be off by one next to a power of ten: redo those with the corrected exponent.
    for _ in range(2):
        off = ok & ((M < _POW10_I[16]) | (M >= _POW10_I[17]))
        if not off.any():
            break
        i = np.flatnonzero(off)
        e10[i] += np.where(M[i] >= _POW10_I[17], 1, -1)
        si = 16 - e10[i]
        ok[i[(si < 0) | (si > 22)]] = False
        s[i] = np.clip(si, 0, 22)
        x = a[i]
        Pi = _POW10_F[s[i]]
        pri = x * Pi
        erri = _two_prod_err(x, Pi, pri)
        ki = np.rint(erri)
        M[i] = pri.astype(np.int64) + ki.astype(np.int64)
        r[i] = erri - ki
    ok &= (M >= _POW10_I[16]) & (M < _POW10_I[17])
    mant, ex = np.frexp(a)
    h_hi = np.ldexp(1.0, ex - 54) * _POW10_F[s]
    h_lo = np.where(mant == 0.5, h_hi * 0.5, h_hi)

    M10 = M // 10
    R1 = M - M10 * 10
    R2 = M - (M // 100) * 100
    dl1 = R1 + r
    du1 = 10.0 - dl1
    dl2 = R2 + r
    du2 = 100.0 - dl2
    lo1, up1 = dl1 < h_lo, du1 < h_hi
    lo2, up2 = dl2 < h_lo, du2 < h_hi
    ok &= ~((np.abs(dl1 - h_lo) < _EPS) | (np.abs(du1 - h_hi) < _EPS)
            | (np.abs(dl2 - h_lo) < _EPS) | (np.abs(du2 - h_hi) < _EPS))
    ok &= np.abs(np.abs(r) - 0.5) > _EPS
    jl = lo1.astype(np.int64)
    ju = up1.astype(np.int64)
    i = np.flatnonzero(lo2)
    if i.size:
        jl[i] = _v10(M[i] - R2[i])
    i = np.flatnonzero(up2)
    if i.size:
        ju[i] = _v10(M[i] + 100 - R2[i])
    j = np.maximum(jl, ju)
    both = (jl == j) & (ju == j) & (j > 0)
    ok &= ~(both & (np.abs(np.abs(dl1) - du1) < _EPS))
    use_up = (ju == j) & ~((jl == j) & (~both | (np.abs(dl1) < du1)))
    D = M
    nz = np.flatnonzero(j)
    if nz.size:
        D = M.copy()
        D[nz] = M[nz] // _POW10_I[np.minimum(j[nz], 18)]
    D = D + use_up
    nd = 17 - j
    carry = D == _POW10_I[np.clip(nd, 0, 18)]
    if carry.any():
        D[carry] = 1
        nd = np.where(carry, 1, nd)
        e10 = e10 + carry
    ok &= (nd >= 1) & (D >= _POW10_I[np.clip(nd - 1, 0, 18)])
    return D, nd, e10, ok


def _block24(D: np.ndarray) -> np.ndarray:
    """ASCII digits of int64 ``D`` < 10**24 as an (n, 24) array with leading zeros."""
    n = D.shape[0]
    out = np.empty((n, 6), dtype=np.uint32)
    x = D
    for k in range(5, -1, -1):
        q = x // 10000
        out[:, k] = _Q4[x - q * 10000]
        x = q
    return out.view(np.uint8).reshape(n, 24)


def _ndigits(D: np.ndarray) -> np.ndarray:
    return np.searchsorted(_POW10_I[1:], D, side="right").astype(np.int64) + 1


_BLOCK = 1 << 16


def number_table(x: np.ndarray, signs: tuple[bytes, bytes] = (b"-", b""), suffix: bytes = b"") -> Table:
    """Format numbers with :func:`fmt`, vectorised, as a right-aligned :class:`Table`.

    Parameters
    ----------
    x : float64 array, finite.
    signs : what precedes a negative and a non-negative number, e.g. ``(b" - ", b" + ")`` to write
        the absolute value after an LP sign.
    suffix : bytes appended after each number.
    """
    x = np.asarray(x, dtype=np.float64) + 0.0  # -0.0 -> 0.0
    n = x.shape[0]
    sl = max(len(signs[0]), len(signs[1]))
    W = sl + 25 + len(suffix)
    if n > _BLOCK:
        # Blocks that keep the temporaries in cache: about a third faster than one pass.
        data = np.empty((n, W), dtype=np.uint8)
        width = np.empty(n, dtype=np.int64)
        for lo in range(0, n, _BLOCK):
            t = number_table(x[lo:lo + _BLOCK], signs, suffix)
            data[lo:lo + _BLOCK] = t.data
            width[lo:lo + _BLOCK] = t.width
        return Table(data, width, True)
    if n == 0:
        return Table(np.zeros((0, W), dtype=np.uint8), np.zeros(0, dtype=np.int64), True)
    neg = x < 0
    a = np.abs(x)
    integral = (a == np.floor(a)) & (a < 1e16)
    ok = np.ones(n, dtype=bool)
    nint = np.zeros(n, dtype=np.int64)  # digits before the point ("0" counts as one)
    frac = np.zeros(n, dtype=np.int64)  # digits after the point; 0: no point
    if integral.all():
        D = a.astype(np.int64)
        nint = _ndigits(D)
    else:
        D = np.zeros(n, dtype=np.int64)
        ii = np.flatnonzero(integral)
        D[ii] = a[ii].astype(np.int64)
        nint[ii] = _ndigits(D[ii])
        rest = np.flatnonzero(~integral)
        with np.errstate(all="ignore"):  # out-of-range values are flagged and left to repr
            Dr, p, e, okr = _shortest(a[rest])
        okr &= (e >= -4) & (e <= 15)  # repr's positional range; the rest is left to repr
        D[rest] = np.where(okr, Dr, 0)
        nint[rest] = np.where(okr, np.where(e >= 0, e + 1, 1), 1)
        frac[rest] = np.where(okr, p - e - 1, 0)
        ok[rest] = okr
    blk = _block24(D)
    # Group rows by layout, so that every copy is a plain slice of a contiguous row range.
    key = ((nint * 21 + frac) * 2 + neg).astype(np.int16)
    perm = np.argsort(key, kind="stable")
    ks = key[perm]
    bs = blk[perm]
    cut = np.flatnonzero(ks[1:] != ks[:-1]) + 1
    starts = np.concatenate(([0], cut))
    stops = np.concatenate((cut, [n]))
    out_s = np.zeros((n, W), dtype=np.uint8)
    width_s = np.empty(n, dtype=np.int64)
    tail = W - len(suffix)
    for a0, a1 in zip(starts.tolist(), stops.tolist()):
        kk = int(ks[a0])
        ng, fr, ni = kk & 1, (kk >> 1) % 21, (kk >> 1) // 21
        sign = signs[0] if ng else signs[1]
        tl = ni + (1 + fr if fr else 0)
        c = tail - tl
        o = out_s[a0:a1]
        b = bs[a0:a1]
        # Integer part: the digits just before the fraction; for a value below 1 that is the
        # block's leading zero, which gives the "0" of "0.xxx".
        o[:, c:c + ni] = b[:, 24 - fr - ni:24 - fr]
        if fr:
            o[:, c + ni] = ord(".")
            o[:, c + ni + 1:tail] = b[:, 24 - fr:]
        if sign:
            o[:, c - len(sign):c] = np.frombuffer(sign, dtype=np.uint8)
        width_s[a0:a1] = tl + len(sign) + len(suffix)
    if suffix:
        out_s[:, tail:] = np.frombuffer(suffix, dtype=np.uint8)
    out = np.empty_like(out_s)
    out[perm] = out_s
    width = np.empty_like(width_s)
    width[perm] = width_s
    for k in np.flatnonzero(~ok).tolist():
        v = x[k]
        text = (signs[0] if v < 0 else signs[1]) + fmt(abs(v)).encode() + suffix
        out[k] = 0
        out[k, W - len(text):] = np.frombuffer(text, dtype=np.uint8)
        width[k] = len(text)
    return Table(out, width, True)


def number_strings(x: np.ndarray) -> list[str]:
    """``fmt`` of each value (vectorised); for small arrays and tests."""
    return [b.decode() for b in number_table(x).tolist()]


# ----------------------------------------------------------------------------------------------
# a cache of formatted numbers


_HASH_MULT = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9))
_EMPTY = np.uint64(0x7FF8DEADBEEF0001)  # a NaN pattern: never a coefficient (NaN is rejected)


def text_width(signs: tuple[bytes, bytes], suffix: bytes) -> int:
    """The longest :func:`number_table` entry: sign + 23 characters (``1.2345678901234567e-308``) + suffix."""
    return max(len(signs[0]), len(signs[1])) + 23 + len(suffix)


class NumberCache:
    """Formatted numbers looked up by their float bits, filled as chunks of values arrive.

    Coefficient matrices repeat a few values (a binary feature standardises to two); formatting
    each distinct value once and copying its bytes is much cheaper than formatting every nonzero.
    ``L`` levels of open hash tables of ``2**k`` slots each: a value lives in the first level whose
    slot (under that level's hash) it owns. Row ``level * 2**k + slot`` of :attr:`table` holds its
    text. Small tables stay in cache; the size follows the number of distinct values estimated from
    a sample. The entries' order depends on the values only, so the output does not depend on
    chunking.
    """

    levels = 3

    def __init__(self, est: int, signs: tuple[bytes, bytes] = (b"-", b""), suffix: bytes = b""):
        self.k = int(min(20, max(10, np.ceil(np.log2(8 * max(est, 1))))))
        self.size = 1 << self.k
        self.slots = np.full((self.levels, self.size), _EMPTY, dtype=np.uint64)
        self.signs, self.suffix = signs, suffix
        W = text_width(signs, suffix)
        self.table = Table(np.zeros((self.levels * self.size, W), dtype=np.uint8),
                           np.zeros(self.levels * self.size, dtype=np.int64), True)

    @classmethod
    def for_values(cls, x: np.ndarray, signs=(b"-", b""), suffix=b"", max_share: float = 0.25) -> "NumberCache | None":
        """A cache sized for ``x``, or None when a sample says most values are distinct."""
        sample = np.ascontiguousarray(x[:: max(1, x.shape[0] // 65536)], dtype=np.float64)
        est = np.unique(sample).size
        if sample.size >= 4096 and est > max_share * sample.size:
            return None
        return cls(est, signs, suffix)

    def _hash(self, b: np.ndarray, level: int) -> np.ndarray:
        return ((b * _HASH_MULT[level]) >> np.uint64(64 - self.k)).view(np.int64)

    def lookup(self, x: np.ndarray, max_new: float = 0.25) -> np.ndarray | None:
        """Row of :attr:`table` for each value of ``x`` (adding new values), or None when more than
        ``max_new`` of the values are new to the cache (then format them directly instead)."""
        b = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
        key = np.empty(b.shape[0], dtype=np.intp)
        todo = None
        for lvl in range(self.levels):
            bt = b if todo is None else b[todo]
            if bt.size == 0:
                return key
            tab = self.slots[lvl]
            h = self._hash(bt, lvl)
            occ = tab[h]
            empty = occ == _EMPTY
            if empty.any():
                hn = h[empty]
                mark = np.zeros(self.size, dtype=bool)
                mark[hn] = True
                new = np.flatnonzero(mark)
                if new.size > max_new * b.shape[0] + 1024:
                    return None
                tab[hn] = bt[empty]  # one value wins each free slot
                t = number_table(tab[new].view(np.float64), self.signs, self.suffix)
                rows = lvl * self.size + new
                W = self.table.maxw
                self.table.data[rows] = t.data[:, t.maxw - W:]
                self.table.width[rows] = t.width
                occ = tab[h]
            hit = occ == bt
            if todo is None:
                key[:] = h
                todo = np.flatnonzero(~hit)
            else:
                key[todo[hit]] = lvl * self.size + h[hit]
                todo = todo[~hit]
        return key if todo is not None and todo.size == 0 else None  # todo is set once levels >= 1


# ----------------------------------------------------------------------------------------------
# assembling lines


def stack(*tables: Table) -> Table:
    """Rows of several right-aligned tables, one after the other, in one right-aligned table."""
    W = max(t.maxw for t in tables)
    data = np.zeros((sum(len(t) for t in tables), W), dtype=np.uint8)
    k = 0
    for t in tables:
        t = t.to_right()
        data[k:k + len(t), W - t.maxw:] = t.data
        k += len(t)
    return Table(data, np.concatenate([t.width for t in tables]).astype(np.int64), True)


def trim(t: Table) -> Table:
    """Drop the all-zero leading columns of a right-aligned table (its items get shorter)."""
    w = int(t.width.max(initial=0)) or 1
    return t if w == t.maxw else Table(np.ascontiguousarray(t.data[:, t.maxw - w:]), t.width, True)


def _items(t: Table, w: int) -> np.ndarray:
    """The last ``w`` bytes of each row of a right-aligned table as a ``V{w}`` vector (a view)."""
    d = t.data
    if not d.flags.c_contiguous:
        d = np.ascontiguousarray(d)
    return np.ndarray((d.shape[0],), dtype=f"V{w}", buffer=d, offset=d.shape[1] - w, strides=(d.shape[1],))


def _view(buf: np.ndarray, w: int) -> np.ndarray:
    """``buf`` as overlapping ``w``-byte items, one starting at every byte."""
    return np.ndarray((buf.size - w + 1,), dtype=f"V{w}", buffer=buf, strides=(1,))


class ExactParts:
    """A right-aligned table prepared for exact writes: one item vector per distinct width."""

    def __init__(self, t: Table):
        self.width = t.width
        self.ws = [int(w) for w in np.unique(t.width) if w > 0]
        self.items = {w: _items(t, w) for w in self.ws}
        self.minw = int(t.width.min(initial=0))
        self.maxw = int(t.width.max(initial=0))

    def write(self, buf: np.ndarray, pos: np.ndarray, idx: np.ndarray, w_line: np.ndarray | None = None) -> None:
        """Write entry ``idx[k]`` at ``pos[k]``, exactly its width."""
        if len(self.ws) == 1:
            w = self.ws[0]
            _view(buf, w)[pos] = self.items[w][idx]
            return
        w_line = self.width[idx] if w_line is None else w_line
        order = np.argsort(w_line.astype(np.uint8 if self.maxw < 256 else np.int64), kind="stable")
        ws = w_line[order]
        cuts = np.searchsorted(ws, self.ws + [self.maxw + 1])
        for w, a, b in zip(self.ws, cuts[:-1], cuts[1:]):
            if b > a:
                sel = order[a:b]
                _view(buf, w)[pos[sel]] = self.items[w][idx[sel]]


class SpillParts:
    """A right-aligned table written as items that end at the string's end and may overshoot
    backwards by up to ``span`` bytes (so entries are binned by width, each bin one item size)."""

    def __init__(self, t: Table, span: int, whole: bool = False):
        self.width = t.width
        w = t.width
        if whole:
            # One bin of the table's full row width (the table may still be filling up).
            self.bin_of = None
            self.bins = [(0, t.maxw, _items(t, t.maxw))]
            return
        lo = int(w.min(initial=0))
        self.bin_of = ((w - lo) // (span + 1)).astype(np.int64)
        nb = int(np.max(self.bin_of, initial=0)) + 1
        self.bins = []
        for b in range(nb):
            m = self.bin_of == b
            if m.any():
                wb = int(w[m].max())
                self.bins.append((b, wb, _items(t, wb)))

    def write(self, buf: np.ndarray, end: np.ndarray, idx: np.ndarray) -> None:
        """Write entry ``idx[k]`` so that it ends just before ``end[k]``."""
        if len(self.bins) == 1 or self.bin_of is None:  # bin_of None: one whole bin
            _, wb, items = self.bins[0]
            _view(buf, wb)[end - wb] = items[idx]
            return
        bl = self.bin_of[idx]
        for b, wb, items in self.bins:
            sel = np.flatnonzero(bl == b)
            if sel.size:
                _view(buf, wb)[end[sel] - wb] = items[idx[sel]]


def spill3(buf: np.ndarray, pre: ExactParts, pre_idx: np.ndarray, mid: SpillParts, mid_idx: np.ndarray,
           end: SpillParts, end_idx: np.ndarray, pre_runs: tuple[np.ndarray, np.ndarray] | None = None
           ) -> tuple[int, np.ndarray]:
    """Assemble lines ``pre + mid + end`` into ``buf``; return (bytes used, line start offsets).

    ``end`` and ``mid`` are written as fixed-size items that end where their string ends and
    overshoot backwards; the order makes every overshoot harmless: ``end`` first (its overshoot
    lands in its own line's ``mid`` and ``pre``), then ``mid`` (rewrites its own bytes, overshoots
    into ``pre``), then ``pre`` exactly. The caller guarantees the overshoots are short enough:
    ``end`` bins of span <= ``min(pre) + min(mid)`` and ``mid`` bins of span <= ``min(pre)``.
    ``pre_runs`` = (entries, run lengths) says that ``pre_idx`` is made of runs of one entry (the
    column of the COLUMNS section); each run is then one broadcast copy.
    """
    pw = pre.width[pre_idx]
    mw = mid.width[mid_idx]
    ew = end.width[end_idx]
    L = pw + mw + ew
    stop = np.cumsum(L)
    total = int(stop[-1]) if stop.size else 0
    if total > buf.size:
        raise AssertionError("spill3: buffer too small")
    if total:
        end.write(buf, stop, end_idx)
        stop -= ew
        mid.write(buf, stop, mid_idx)
        stop -= mw
        stop -= pw
        if pre_runs is None or len(pre_runs[0]) * 64 > pre_idx.shape[0]:
            pre.write(buf, stop, pre_idx, pw)
        else:
            a = 0
            for e, r in zip(pre_runs[0].tolist(), pre_runs[1].tolist()):
                w = int(pre.width[e])
                _view(buf, w)[stop[a:a + r]] = pre.items[w][e]
                a += r
    else:
        stop -= L
    return total, stop


def exact_lines(parts: list[tuple[Table, np.ndarray | None]], n: int) -> bytes:
    """Concatenate, line by line, entry ``idx[k]`` of each part's (right-aligned) table.

    For the small sections (ROWS, BOUNDS, lists of names); ``idx`` None means entry 0 everywhere.
    """
    if n == 0:
        return b""
    prepared = []
    widths = []
    for tab, idx in parts:
        i = np.zeros(n, dtype=np.intp) if idx is None else np.asarray(idx, dtype=np.intp)
        ep = ExactParts(tab.to_right())
        prepared.append((ep, i))
        widths.append(ep.width[i])
    L = np.sum(widths, axis=0)
    total = int(L.sum())
    buf = np.zeros(total + 1, dtype=np.uint8)
    col = np.cumsum(L) - L
    for (ep, i), w in zip(prepared, widths):
        nz = np.flatnonzero(w)
        if nz.size:
            ep.write(buf, col[nz], i[nz], w[nz])
        col += w
    return buf[:total].tobytes()


# ----------------------------------------------------------------------------------------------
# output: chunks into a file (sha256 on a second thread) or into memory

CHUNK_BYTES = 1 << 24


class Chunk:
    """Pieces of output; ``buf`` (if any) is a pool buffer the pieces point into."""

    __slots__ = ("pieces", "buf")

    def __init__(self, pieces: list, buf: np.ndarray | None = None):
        self.pieces = pieces
        self.buf = buf


class _Pool:
    """A few reusable byte buffers: fresh memory costs page faults, about as much as the work."""

    def __init__(self, count: int):
        # SimpleQueue (C), not Queue: Queue's put and get take a Condition's lock in Python code, and an
        # interrupt raised right after left it held by nobody; the cleanup's put then hung the command.
        self.free: queue.SimpleQueue = queue.SimpleQueue()
        self.made = 0
        self.count = count

    def alloc(self, nbytes: int) -> np.ndarray:
        if self.made < self.count and self.free.empty():
            self.made += 1
            return np.empty(max(nbytes, CHUNK_BYTES), dtype=np.uint8)
        buf = self.free.get()
        if buf.size < nbytes:
            buf = np.empty(nbytes, dtype=np.uint8)
        return buf

    def release(self, buf: np.ndarray | None) -> None:
        if buf is not None:
            self.free.put(buf)


def write_chunks(path, produce) -> str:
    """Run ``produce(alloc)`` (an iterator of :class:`Chunk`) into ``path`` atomically.

    Returns the sha256 hex of the bytes written. The chunks go down a pipeline of two more threads,
    one writing them to the file and one hashing them (both release the GIL), which overlaps the
    write (0.15-0.8 s of system time for a 557 MB model), the hash (0.5 s) and the production of
    the next chunks.
    """
    pool = _Pool(5)
    h = hashlib.sha256()
    # SimpleQueue, as _Pool's: an interrupt cannot leave a lock held.
    to_write: queue.SimpleQueue = queue.SimpleQueue()
    to_hash: queue.SimpleQueue = queue.SimpleQueue()
    failure: list[BaseException] = []
    stop: list[bool] = []  # set (appended to) once the file is not wanted: drop what is queued

    def stage(inbox: queue.SimpleQueue, work, then) -> None:
        """Apply ``work`` to each piece of each chunk until None comes, then pass the chunk on with ``then``:
        always, even after a failure (a full disk, which the main thread raises), since the producer may be
        waiting for the buffer the end of the pipeline hands back."""
        while True:
            ch = inbox.get()
            try:
                if ch is not None and not (failure or stop):
                    for piece in ch.pieces:
                        work(piece)
            except BaseException as exc:
                failure.append(exc)
            finally:
                then(ch)
            if ch is None:
                return

    def give_back(ch: Chunk | None) -> None:
        if ch is not None:
            pool.release(ch.buf)

    with atomic_open(path, "wb") as fh:
        threads = [threading.Thread(target=stage, args=(to_write, fh.write, to_hash.put), name="olctc-write",
                                    daemon=True),
                   threading.Thread(target=stage, args=(to_hash, h.update, give_back), name="olctc-sha256",
                                    daemon=True)]
        for th in threads:
            th.start()
        try:
            for ch in produce(pool.alloc):
                if failure:
                    break
                to_write.put(ch)
            to_write.put(None)
            for th in threads:
                th.join()
        finally:
            # The threads end before the file is closed (and, on an error, removed).
            if any(th.is_alive() for th in threads):
                stop.append(True)
                to_write.put(None)
                for th in threads:
                    th.join()
        if failure:
            raise failure[0]
    return h.hexdigest()


def collect_chunks(produce) -> bytes:
    """Run ``produce(alloc)`` into memory."""
    out: list[bytes] = []
    for ch in produce(lambda n: np.empty(n, dtype=np.uint8)):
        out.extend(bytes(p) for p in ch.pieces)
    return b"".join(out)
