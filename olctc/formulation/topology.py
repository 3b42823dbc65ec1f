"""Tree topology in heap order: root 0, children of t are 2t+1 (left) and 2t+2 (right)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Topology:
    """Index arrays describing the branch nodes of a tree of depth ``depth``.

    Branch nodes are 0 .. 2^depth - 2; layer h (1-based) holds 2^(h-1) - 1 .. 2^h - 2; the last layer
    (each node a classifier) is ``last``. ``under[t]`` is the slice of ``last`` (positions, not ids)
    below t; its first half is under t's left child, its second half under the right child.
    """

    depth: int

    @property
    def n_nodes(self) -> int:
        return 2 ** self.depth - 1

    @property
    def nodes(self) -> np.ndarray:
        return np.arange(self.n_nodes)

    @property
    def last(self) -> np.ndarray:
        return np.arange(2 ** (self.depth - 1) - 1, 2 ** self.depth - 1)

    @property
    def inner(self) -> np.ndarray:
        """Branch nodes that route (all but the last layer)."""
        return np.arange(0, 2 ** (self.depth - 1) - 1)

    def layer(self, t: int | np.ndarray) -> np.ndarray:
        """1-based layer of node(s) t."""
        return np.floor(np.log2(np.asarray(t) + 1)).astype(int) + 1

    def layer_nodes(self, h: int) -> np.ndarray:
        return np.arange(2 ** (h - 1) - 1, 2 ** h - 1)

    def under(self, t: int) -> tuple[int, int]:
        """[start, stop) positions in ``last`` of the last-layer nodes under t."""
        h = int(self.layer(t))
        width = 2 ** (self.depth - h)
        first = (t + 1) * width - 1 - (2 ** (self.depth - 1) - 1)
        return first, first + width

    def left_right(self, t: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The ``under`` ranges of inner node t's left and right subtrees (a last-layer node has none: its
        children are leaves, and its halves were an empty range and itself)."""
        if not 0 <= t < 2 ** (self.depth - 1) - 1:
            raise ValueError(f"left_right: node {t} is not an inner node of a depth-{self.depth} tree "
                             f"(inner nodes: 0..{2 ** (self.depth - 1) - 2})")
        a, b = self.under(t)
        mid = (a + b) // 2
        return (a, mid), (mid, b)

    def route(self, scores: np.ndarray, threshold: float = 0.0) -> np.ndarray:
        """Last-layer node id reached by each row, given scores (n, n_nodes): left iff score <= threshold."""
        n = scores.shape[0]
        t = np.zeros(n, dtype=np.int64)
        for _ in range(self.depth - 1):
            right = scores[np.arange(n), t] > threshold
            t = 2 * t + 1 + right
        return t

    def path_mask(self, reached_last: np.ndarray) -> np.ndarray:
        """(n, n_nodes) bool: node t lies on the path of each row, given its last-layer node."""
        n = reached_last.shape[0]
        mask = np.zeros((n, self.n_nodes), dtype=bool)
        t = np.asarray(reached_last, dtype=np.int64).copy()
        for _ in range(self.depth):
            mask[np.arange(n), t] = True
            t = (t - 1) // 2
        return mask
