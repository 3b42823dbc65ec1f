"""Accumulate named variable and row blocks as arrays, then freeze them into a MILP."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from olctc.milp import MILP, Block


class Builder:
    """Columns first (their order fixes the column indices), then rows.

    Rows are given as parts: 2-D ``cols`` (r, k) and ``vals`` (r, k) arrays whose
    concatenation along axis 1 lists each row's entries; parts must come in increasing column order so
    the CSR indices come out sorted without a sort.
    """

    def __init__(self, name: str):
        self.name = name
        self._col_blocks: list[Block] = []
        self._col_arrays: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self._row_blocks: list[Block] = []
        self._row_mats: list[sp.csr_matrix] = []
        self._senses: list[np.ndarray] = []
        self._rhs: list[np.ndarray] = []
        self._n_cols = 0
        self._n_rows = 0
        self.Q: sp.csr_matrix | None = None
        self.obj_constant = 0.0

    @property
    def n_cols(self) -> int:
        return self._n_cols

    def add_cols(self, name: str, axes: Sequence[tuple[str, Sequence[int] | np.ndarray]], *, lb: float | np.ndarray,
                 ub: float | np.ndarray, integer: bool = False, cost: float | np.ndarray = 0.0) -> Block:
        """Add a variable block whose axes are (axis name, labels); returns the Block."""
        if self._row_blocks:
            raise AssertionError("add every column block before the first row block")
        shape = tuple(len(lab) for _, lab in axes)
        block = Block(name, self._n_cols, shape, tuple(a for a, _ in axes),
                      tuple(tuple(int(v) for v in lab) for _, lab in axes))
        size = block.size
        self._col_blocks.append(block)
        self._col_arrays.append((np.broadcast_to(np.asarray(cost, float).ravel() if np.ndim(cost) else cost, (size,)),
                                 np.broadcast_to(np.asarray(lb, float).ravel() if np.ndim(lb) else lb, (size,)),
                                 np.broadcast_to(np.asarray(ub, float).ravel() if np.ndim(ub) else ub, (size,)),
                                 np.full(size, integer)))
        self._n_cols += size
        return block

    def add_rows(self, name: str, axes: Sequence[tuple[str, Sequence[int] | np.ndarray]],
                 segments: Sequence[Sequence[tuple[np.ndarray, np.ndarray]]], sense: str,
                 rhs: float | np.ndarray) -> Block:
        """Add a row block, one row per element in C order.

        ``segments`` split the block's rows into consecutive runs whose rows all have the same number of
        entries; each segment is a list of parts as in the class docstring, whose arrays have the
        segment's row count as first dimension.
        """
        shape = tuple(len(lab) for _, lab in axes)
        block = Block(name, self._n_rows, shape, tuple(a for a, _ in axes),
                      tuple(tuple(int(v) for v in lab) for _, lab in axes))
        mats = [self._segment(parts) for parts in segments]
        if sum(m.shape[0] for m in mats) != block.size:
            raise AssertionError(f"row block {name}: segments hold {sum(m.shape[0] for m in mats)} rows, "
                                 f"shape {shape} needs {block.size}")
        self._row_blocks.append(block)
        self._row_mats.extend(mats)
        r = block.size
        self._senses.append(np.full(r, sense, dtype="<U1"))
        self._rhs.append(np.broadcast_to(np.asarray(rhs, float).ravel() if np.ndim(rhs) else rhs, (r,)).astype(float))
        self._n_rows += r
        return block

    def _segment(self, parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> sp.csr_matrix:
        cols = np.hstack([c for c, _ in parts]).astype(np.int64, copy=False)
        vals = np.hstack([v for _, v in parts]).astype(np.float64, copy=False)
        r, k = cols.shape
        if vals.shape != (r, k):
            raise AssertionError(f"row parts disagree: cols {cols.shape}, vals {vals.shape}")
        return sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(r + 1, dtype=np.int64) * k),
                             shape=(r, self._n_cols))

    def finish(self) -> MILP:
        cost, lb, ub, integer = (np.concatenate([a[k] for a in self._col_arrays]).astype(t)
                                 for k, t in ((0, float), (1, float), (2, float), (3, bool)))
        if self._row_mats:
            A = sp.vstack(self._row_mats, format="csr")
        else:
            A = sp.csr_matrix((0, self._n_cols))
        A.eliminate_zeros()
        # Parts come in increasing column order, except a score variable's, which leads its rows (score_variables):
        # sorted here, so that the flag scipy's routines trust is true (it was set True for every model, QA qa177)
        A.sort_indices()
        sense = np.concatenate(self._senses) if self._senses else np.array([], dtype="<U1")
        rhs = np.concatenate(self._rhs) if self._rhs else np.array([], dtype=float)
        return MILP(self.name, cost, A, sense, rhs, lb, ub, integer, tuple(self._col_blocks),
                    tuple(self._row_blocks), self.Q, self.obj_constant)
