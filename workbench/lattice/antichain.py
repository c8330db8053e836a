"""Antichain store for predictive properties (Kohlmayer, Prasser et al. 2016, §"Antichains").

A property that propagates **up** (to generalizations, P↑: "k-anonymous", "objective bound exceeded") is
stored as the antichain of its minimal observed nodes; a node has the property when some stored node lies
below it. A property that propagates **down** (P↓: "not k-anonymous") is stored as the antichain of its
maximal observed nodes. ARX keeps the antichain in a prefix tree; here it is one integer matrix (a row per
stored node), and a query compares the node with every row at once in numpy, which for the antichains a search
builds (at most a few thousand nodes) costs a few microseconds instead of a tree walk in Python. Memory
depends on the number of stored nodes, never on the lattice size.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from workbench.lattice.space import Node

UP = "up"
DOWN = "down"
_FIRST_CAPACITY = 64


class AntichainStore:
    """Nodes with a predictive property, kept as an antichain (one row per stored node).

    ``covers(x)`` is true when x has the property by prediction: for an ``up`` store some stored y ≤ x,
    for a ``down`` store some stored y ≥ x (y = x included).
    """

    def __init__(self, width: int, direction: str) -> None:
        if direction not in (UP, DOWN):
            raise ValueError(f"direction must be {UP!r} or {DOWN!r}")
        self.width = width
        self.direction = direction
        self._rows = np.zeros((_FIRST_CAPACITY, width), dtype=np.int32)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    @property
    def nbytes(self) -> int:
        """Bytes of the row matrix (its capacity, grown by doubling)."""
        return int(self._rows.nbytes)

    def _below(self, x: np.ndarray) -> np.ndarray:
        """Per stored row: does it lie on the covering side of x (≤ x for up, ≥ x for down)?"""
        rows = self._rows[: self._size]
        return (rows <= x).all(axis=1) if self.direction == UP else (rows >= x).all(axis=1)

    def covers(self, x: Node) -> bool:
        """Does x have the property by prediction (a stored node at or below/above it)?"""
        if not self._size:
            return False
        return bool(self._below(np.asarray(x, dtype=np.int32)).any())

    def insert(self, x: Node) -> bool:
        """Record that x has the property. Returns False (and stores nothing) when it was already covered;
        otherwise removes the stored nodes x now subsumes and adds x."""
        x = tuple(x)
        if len(x) != self.width:
            raise ValueError(f"node {x} has {len(x)} levels, the store has width {self.width}")
        row = np.asarray(x, dtype=np.int32)
        if self._size:
            if self._below(row).any():
                return False
            rows = self._rows[: self._size]
            subsumed = (rows >= row).all(axis=1) if self.direction == UP else (rows <= row).all(axis=1)
            if subsumed.any():
                kept = rows[~subsumed]
                self._size = len(kept)
                self._rows[: self._size] = kept
        if self._size == len(self._rows):
            grown = np.zeros((2 * len(self._rows), self.width), dtype=np.int32)
            grown[: self._size] = self._rows[: self._size]
            self._rows = grown
        self._rows[self._size] = row
        self._size += 1
        return True

    def __iter__(self) -> Iterator[Node]:
        return iter(sorted(tuple(int(v) for v in r) for r in self._rows[: self._size]))


def minimal_nodes(nodes: list[Node]) -> list[Node]:
    """The minimal nodes of a set (none lies above another of the set), in (rank, node) order."""
    if not nodes:
        return []
    store = AntichainStore(len(nodes[0]), UP)
    # in rank order a later node never lies below an earlier one, so nothing inserted is removed again
    return [n for n in sorted(set(nodes), key=lambda n: (sum(n), n)) if store.insert(n)]
