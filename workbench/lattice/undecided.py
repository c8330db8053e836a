"""The nodes whose k-anonymity is still undecided, as dense arrays (for OLA's sub-lattice skipping and
Flash's outer loop; Kohlmayer, Prasser et al. 2012/2016 keep the same knowledge in ARX's lattice).

A k-anonymous check decides its up-set, a not-k-anonymous one its down-set: the same closure that the
antichain stores of ``workbench.lattice.tagging`` answer point queries about, here kept so that range
queries ("what is undecided in [B, T]?", "which nodes of rank r?") are vectorized.
"""

from __future__ import annotations

import math
from functools import reduce
from operator import add, and_, getitem, mul
from typing import NamedTuple

import numpy as np

from workbench.lattice.space import Lattice, Node

DENSE_LIMIT = 1 << 22  # lattices up to this many nodes keep a dense array of undecided nodes
BITS_LIMIT = 1 << 18  # lattices up to this many nodes also keep the undecided nodes as one bit set
_BOX_SCAN = 8192  # beyond BITS_LIMIT, boxes up to this many nodes are read from the status grid


class Rows(NamedTuple):
    """Some nodes as rows (coordinates, dense ids, ranks), sorted by rank."""

    coords: np.ndarray
    ids: np.ndarray
    ranks: np.ndarray

    def rank_range(self, low: int, high: int) -> slice:
        return slice(int(self.ranks.searchsorted(low, "left")), int(self.ranks.searchsorted(high, "right")))


UNDECIDED, ANONYMOUS, NOT_ANONYMOUS = 0, 1, 2
_COMPACT_EVERY = 32  # learned checks between two compactions of the rows


class UndecidedNodes:
    """The nodes whose k-anonymity is still unknown, learned from check results alone: a k-anonymous check
    decides its up-set, a not-k-anonymous one its down-set (the closure ``space`` keeps in antichain stores).

    Kept as a dense status grid (one byte per node: undecided, k-anonymous, not k-anonymous), in which the up-
    or down-set of a node is a box that one slice assignment decides, plus the rows of the nodes sorted by rank
    (compacted from time to time), so that "what is undecided in [B, T]?" and "which nodes of rank r are
    undecided?" are vectorized queries on a slice. Lattices up to ``BITS_LIMIT`` nodes also keep the undecided
    nodes as the bits of one integer, and per attribute j and level range [lo, hi] the bits of the nodes with
    lo ≤ x_j ≤ hi: "is anything undecided in [B, T]?" (OLA's question at every Kmin call) is then an AND of
    one integer per attribute, and a check's up- or down-set is cleared the same way.
    """

    def __init__(self, lattice: Lattice) -> None:
        shape = tuple(h + 1 for h in lattice.heights)
        width = len(shape)
        self.strides = tuple(math.prod(shape[j + 1:]) for j in range(width))  # C order, as np.indices
        # the narrowest types that hold a level, a rank and a dense id: about r + 7 bytes per node in all
        level = np.int8 if max(shape, default=1) <= 127 else np.int16
        coords = np.indices(shape, dtype=level).reshape(width, -1).T if width else np.zeros((1, 0), level)
        self.status = np.zeros(len(coords), dtype=np.int8)
        self._grid = self.status.reshape(shape) if width else self.status
        ranks = coords.sum(axis=1, dtype=np.int16 if lattice.max_rank < 1 << 15 else np.int32)
        order = np.argsort(ranks, kind="stable").astype(np.int32 if len(coords) < 1 << 31 else np.int64)
        self.rows = Rows(coords[order], order, ranks[order])  # a superset of the undecided nodes
        self._since_compaction = 0
        self._bits: int | None = None
        self._ranges: list[list[int]] = []  # [j][lo * (H_j + 1) + hi]: bits of the nodes with lo <= x_j <= hi
        self._sizes = list(shape)
        self._tops = list(lattice.heights)
        self._zeros = [0] * width
        if lattice.size <= BITS_LIMIT:
            self._bits = (1 << len(coords)) - 1
            for j, h in enumerate(lattice.heights):
                column = coords[:, j]
                self._ranges.append([_bits((column >= lo) & (column <= hi)) if lo <= hi else 0
                                     for lo in range(h + 1) for hi in range(h + 1)])

    @staticmethod
    def fits(lattice: Lattice) -> bool:
        """Is the lattice small enough for dense arrays?"""
        return lattice.size <= DENSE_LIMIT

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (the status grid and the rows) and of the bit sets."""
        rows = self.rows
        bits = sum((len(r) * 8 + sum(b.bit_length() for b in r) // 8) for r in self._ranges)
        return int(self.status.nbytes + rows.coords.nbytes + rows.ids.nbytes + rows.ranks.nbytes
                   + (self._bits.bit_length() // 8 if self._bits is not None else 0) + bits)

    @property
    def flags(self) -> np.ndarray:
        """Per node (dense id): is it undecided?"""
        return self.status == UNDECIDED

    def __len__(self) -> int:
        return int(np.count_nonzero(self.status == UNDECIDED))

    def index(self, node: Node) -> int:
        """The node's dense id (C order of the grid)."""
        return sum(map(mul, node, self.strides))

    def state(self, node: Node) -> int:
        """UNDECIDED, ANONYMOUS or NOT_ANONYMOUS."""
        return int(self.status[sum(map(mul, node, self.strides))])

    def __contains__(self, node: Node) -> bool:
        return self.state(node) == UNDECIDED

    def learn(self, node: Node, k_anonymous: bool) -> None:
        """A check found node k-anonymous (its generalizations are decided) or not (its specializations)."""
        if not node:
            self.status[:] = ANONYMOUS if k_anonymous else NOT_ANONYMOUS
            self._bits = 0 if self._bits is not None else None
            return
        if self._bits is not None:
            self._bits &= ~(self._box(node, self._tops) if k_anonymous else self._box(self._zeros, node))
        if k_anonymous:  # by monotonicity nothing above a k-anonymous node is known not to be, nor below the reverse
            self._grid[tuple(slice(v, None) for v in node)] = ANONYMOUS
        else:
            self._grid[tuple(slice(0, v + 1) for v in node)] = NOT_ANONYMOUS
        self._since_compaction += 1
        if self._since_compaction >= _COMPACT_EVERY:
            self._compact()

    def _compact(self) -> None:
        rows = self.rows
        keep = self.status[rows.ids] == UNDECIDED
        self.rows = Rows(rows.coords[keep], rows.ids[keep], rows.ranks[keep])
        self._since_compaction = 0

    def _box(self, bottom: Node | list[int], top: Node | list[int]) -> int:
        """The bits of the nodes V with bottom ≤ V ≤ top."""
        return reduce(and_, map(getitem, self._ranges, map(add, map(mul, bottom, self._sizes), top)))

    def any_within(self, bottom: Node, top: Node) -> bool:
        """Is some node V with bottom ≤ V ≤ top undecided?"""
        if self._bits is not None:
            return bool(self._bits & self._box(bottom, top)) if bottom else bool(self._bits)
        if math.prod(t - b + 1 for b, t in zip(bottom, top, strict=True)) <= _BOX_SCAN and bottom:
            return not self._grid[tuple(map(slice, bottom, [t + 1 for t in top]))].all()  # UNDECIDED is 0
        return self.within(bottom, top) is not None

    def within(self, bottom: Node, top: Node, rows: Rows | None = None) -> Rows | None:
        """The undecided nodes V with bottom ≤ V ≤ top (None if there are none), taken from ``rows``, a
        superset of them (for example those of an enclosing sub-lattice), else from all undecided nodes."""
        rows = self.rows if rows is None or len(rows.ids) > len(self.rows.ids) else rows
        part = rows.rank_range(sum(bottom), sum(top))
        if part.start == part.stop:
            return None
        c, ids = rows.coords[part], rows.ids[part]
        low, high = np.asarray(bottom, dtype=c.dtype), np.asarray(top, dtype=c.dtype)  # compared in the rows' type
        hit = (self.status[ids] == UNDECIDED) & ((c >= low) & (c <= high)).all(axis=1)
        return Rows(c[hit], ids[hit], rows.ranks[part][hit]) if hit.any() else None

    def at_rank(self, rank: int) -> list[Node]:
        """The undecided nodes of one rank."""
        part = self.rows.rank_range(rank, rank)
        open_ = self.status[self.rows.ids[part]] == UNDECIDED
        return [tuple(row) for row in self.rows.coords[part][open_].tolist()]


def _bits(flags: np.ndarray) -> int:
    """The integer whose bit i is ``flags[i]``."""
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")
