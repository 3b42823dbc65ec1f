"""The solver-neutral MILP: sparse arrays plus a block map. The only thing emitters see.

Convention: minimise ``c @ x + 0.5 * x @ Q @ x + obj_constant`` subject to
``A @ x (sense) rhs`` row by row (sense ``L`` is <=, ``G`` is >=, ``E`` is ==),
``lb <= x <= ub`` and ``x[j]`` integer where ``integer[j]``.

Variables and rows come in named blocks (``w_pos`` of shape (nodes, features), ``route_l`` of shape
(nodes, points) ...). The name of one element is the block's prefix followed by its axis labels,
``w_pos_3_17``: blocks make names cheap to generate in bulk and let a solution be decoded back into
arrays without parsing names.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

@dataclass(frozen=True)
class Block:
    """A contiguous range of variables or rows that share a role.

    Parameters
    ----------
    name : name prefix, e.g. ``"w_pos"``; element names are ``name_label0_label1``.
    start : index of the first element in the MILP's column (or row) order.
    shape : the block's array shape; elements are stored in C order.
    axes : what each axis indexes (``"node"``, ``"feature"``, ``"point"``, ``"layer"``, ``"tangent"``).
    labels : for each axis, the integer label written into names (e.g. heap node ids).
    """

    name: str
    start: int
    shape: tuple[int, ...]
    axes: tuple[str, ...]
    labels: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    def names(self) -> np.ndarray:
        """All element names of the block, in storage order, as a numpy unicode array."""
        out = np.array([self.name], dtype=object)
        for labels in self.labels:
            lab = np.array([f"_{v}" for v in labels], dtype=object)
            out = (out[:, None] + lab[None, :]).ravel()
        return out.astype(str)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "start": self.start, "shape": list(self.shape),
                "axes": list(self.axes), "labels": [list(map(int, lab)) for lab in self.labels]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Block":
        return cls(d["name"], int(d["start"]), tuple(d["shape"]), tuple(d["axes"]),
                   tuple(tuple(int(v) for v in lab) for lab in d["labels"]))


@dataclass
class MILP:
    """A mixed-integer (quadratic) program in array form; see the module docstring."""

    name: str
    c: np.ndarray
    A: sp.csr_matrix
    sense: np.ndarray
    rhs: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integer: np.ndarray
    col_blocks: tuple[Block, ...]
    row_blocks: tuple[Block, ...]
    Q: sp.csr_matrix | None = None
    obj_constant: float = 0.0
    # Names by kind, with the block map they were made from: a model copied by dataclasses.replace or given new
    # blocks must not answer with the old names.
    _cache: dict[str, tuple[tuple[Block, ...], np.ndarray]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_cols(self) -> int:
        return int(self.c.shape[0])

    @property
    def n_rows(self) -> int:
        return int(self.rhs.shape[0])

    @property
    def nnz(self) -> int:
        return int(self.A.nnz)

    @property
    def is_quadratic(self) -> bool:
        return self.Q is not None and self.Q.nnz > 0

    @property
    def is_binary(self) -> np.ndarray:
        """Integer columns with bounds [0, 1]."""
        return self.integer & (self.lb == 0.0) & (self.ub == 1.0)

    def col_names(self) -> np.ndarray:
        return self._names_of("cols", self.col_blocks, self.n_cols)

    def row_names(self) -> np.ndarray:
        return self._names_of("rows", self.row_blocks, self.n_rows)

    def _names_of(self, kind: str, blocks: tuple[Block, ...], n: int) -> np.ndarray:
        hit = self._cache.get(kind)
        if hit is None or hit[0] is not blocks:
            hit = (blocks, _names(blocks, n))
            self._cache[kind] = hit
        return hit[1]

    def col_block(self, name: str) -> Block:
        """The block of columns named ``name`` (``w_pos``, ``z``, ...); KeyError if the model has none."""
        return _find(self.col_blocks, name, "variable")

    def row_block(self, name: str) -> Block:
        """The block of rows named ``name``; KeyError if the model has none."""
        return _find(self.row_blocks, name, "row")

    def has_col_block(self, name: str) -> bool:
        return any(b.name == name for b in self.col_blocks)

    def values(self, x: np.ndarray, name: str) -> np.ndarray:
        """The values of variable block ``name`` in ``x``, reshaped to the block's shape."""
        b = self.col_block(name)
        return np.asarray(x[b.slice]).reshape(b.shape)

    def objective(self, x: np.ndarray) -> float:
        """``c @ x + 0.5 x'Qx + obj_constant``."""
        x = np.asarray(x, dtype=float)
        val = float(self.c @ x) + self.obj_constant
        quadratic = self.quadratic_part(x)
        return val if quadratic is None else val + quadratic

    def quadratic_part(self, x: np.ndarray) -> float | None:
        """``0.5 x'Qx``, or None for a linear model: what a MIP start for SCIP must give the helper column
        SCIP reads a quadratic objective into (``olctc.emit.start.write_start``'s ``quadratic``)."""
        if not self.is_quadratic:
            return None
        x = np.asarray(x, dtype=float)
        return 0.5 * float(x @ (self.Q @ x))

    def violation(self, x: np.ndarray) -> dict[str, float]:
        """Largest violation of rows, bounds and integrality by ``x`` (0.0 where none)."""
        x = np.asarray(x, dtype=float)
        ax = self.A @ x
        viol = np.zeros(self.n_rows)
        le, ge, eq = (self.sense == "L"), (self.sense == "G"), (self.sense == "E")
        viol[le] = np.maximum(ax[le] - self.rhs[le], 0.0)
        viol[ge] = np.maximum(self.rhs[ge] - ax[ge], 0.0)
        viol[eq] = np.abs(ax[eq] - self.rhs[eq])
        bnd = np.maximum(np.maximum(self.lb - x, x - self.ub), 0.0)
        frac = np.abs(x[self.integer] - np.round(x[self.integer]))
        return {"rows": float(np.max(viol, initial=0.0)), "bounds": float(np.max(bnd, initial=0.0)),
                "integrality": float(frac.max(initial=0.0))}

    def worst_row(self, x: np.ndarray) -> tuple[str, float]:
        """Name and violation of the most violated row (for error messages)."""
        x = np.asarray(x, dtype=float)
        ax = self.A @ x
        viol = np.where(self.sense == "L", ax - self.rhs,
                        np.where(self.sense == "G", self.rhs - ax, np.abs(ax - self.rhs)))
        k = int(np.argmax(viol)) if viol.size else 0
        return (str(self.row_names()[k]) if viol.size else "", float(viol[k]) if viol.size else 0.0)

    def worst_bound(self, x: np.ndarray) -> tuple[str, float]:
        """Name and violation of the column farthest outside its bounds (for error messages)."""
        x = np.asarray(x, dtype=float)
        off = np.maximum(self.lb - x, x - self.ub)
        j = int(np.argmax(off)) if off.size else 0
        return (str(self.col_names()[j]) if off.size else "", float(off[j]) if off.size else 0.0)

    def block_map(self) -> dict[str, list[dict[str, Any]]]:
        return {"columns": [b.to_json() for b in self.col_blocks],
                "rows": [b.to_json() for b in self.row_blocks]}


def _names(blocks: tuple[Block, ...], n: int) -> np.ndarray:
    parts = [b.names() for b in blocks]
    out = np.concatenate(parts) if parts else np.array([], dtype=str)
    if out.shape[0] != n:
        raise AssertionError(f"block map covers {out.shape[0]} names, model has {n}")
    return out


def _find(blocks: tuple[Block, ...], name: str, what: str) -> Block:
    for b in blocks:
        if b.name == name:
            return b
    raise KeyError(f"no {what} block named {name!r}; have {[b.name for b in blocks]}")


def names_from_block_map(block_map: list[dict[str, Any]]) -> np.ndarray:
    """Element names of a block map read back from a manifest (``MILP.block_map()['columns']``)."""
    blocks = tuple(Block.from_json(d) for d in block_map)
    n = sum(b.size for b in blocks)
    return _names(blocks, n)
