"""Roll-up of a frequency set to a more general node in one pass over the source's classes.

A node's frequency set is the sum of the counts of any finer node's classes after mapping their codes to the
node's levels (LeFevre et al. 2005; Issa 2009 ch. 5; Kohlmayer, Prasser et al. 2012 keep such "snapshots").
Each class of the source gets an ``int64`` mixed-radix key of its codes at the node's levels, which orders
classes lexicographically: the columns whose level is kept by a float64 matrix-vector product (exact below 2**53;
in blocks small enough for OpenBLAS to compute on the calling thread, so that no worker thread wakes and spins),
the changed ones by a lookup in a small table (code at the source's level -> code at the node's level × the
column's radix); when more than half the columns change, every column by a lookup. Frequency sets hold their codes
column by column (Fortran order), so each lookup reads one contiguous column. The classes are then counted with a
dense ``bincount`` when the key space is small compared with the source, else by sorting the keys (timsort when
they come in few runs, as they do when few columns change, the source being sorted), and their codes are those
of one source class of each, mapped. Key spaces beyond ``KEY_LIMIT`` are left to ``workbench.grouping`` (the
caller's general path).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from workbench.grouping import KEY_LIMIT
from workbench.lattice.space import Node

_TABLES_KEPT = 20_000  # scaled lookup tables memoized (each at most a column's cardinality of int64)
_BLAS_ONE_THREAD = 9216  # OpenBLAS computes a matrix-vector product of fewer cells on one thread (2304 × 4)
_RUNS = 16  # keys in fewer runs than 1/_RUNS of the classes are sorted by timsort, others by quicksort
_FLOAT_EXACT = 2**53  # key spaces up to this are summed in float64 (every partial sum an integer below 2**53)
_DENSE_FACTOR = 8  # count with a dense bincount when the key space is at most this many times the classes


class RollUp:
    """Rolls frequency sets up. ``up[j][a]`` is column j's ``(H_j + 1, c_{j,a})`` table: a code at level a ->
    its code at each level b ≥ a; the codes of columns beyond ``len(up)`` (a privacy model's extra columns)
    are kept as they are."""

    def __init__(self, up: Sequence[Sequence[np.ndarray]], extra_cards: Sequence[int] = ()) -> None:
        self._extra_cards = list(extra_cards)
        self._up = [[np.asarray(t, dtype=np.int64) for t in tables] for tables in up]
        self._scaled: dict[tuple[int, int, int, int], np.ndarray] = {}
        self._arange = np.arange(1024, dtype=np.intp)

    def _table(self, j: int, source: Node, node: Node, radix: int) -> np.ndarray:
        """Column j's lookup: a code at the source's level -> (its code at node's level) × radix; an extra
        column (j beyond the node) keeps its codes."""
        r = len(node)
        key = (j, source[j] if j < r else -1, node[j] if j < r else -1, radix)
        table = self._scaled.get(key)
        if table is None:
            if len(self._scaled) >= _TABLES_KEPT:
                self._scaled.clear()
            base = self._up[j][source[j]][node[j]] if j < r else np.arange(self._extra_cards[j - r], dtype=np.int64)
            table = self._scaled[key] = base * radix
        return table

    def _float_table(self, j: int, source: Node, node: Node, radix: int) -> np.ndarray:
        """``_table`` in float64 (exact: every key of a space below 2**53 is)."""
        key = (j, source[j], node[j], -radix)
        table = self._scaled.get(key)
        if table is None:
            table = self._scaled[key] = self._table(j, source, node, radix).astype(np.float64)
        return table

    def __call__(self, codes: np.ndarray, counts: np.ndarray, source: Node, node: Node, cards: Sequence[int],
                 firsts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """The distinct rows (in lexicographic order) and summed counts of ``codes`` (classes of ``source``:
        quasi-identifiers, then extras) mapped to ``node``'s levels, and the least of the rows' ``firsts`` (first
        records) in each, when given; ``cards`` bounds the mapped codes. None when the key space exceeds
        ``KEY_LIMIT``."""
        space = math.prod(cards)
        if space > KEY_LIMIT or not cards:
            return None
        width = len(cards)
        radices = [1] * width
        for j in range(width - 2, -1, -1):
            radices[j] = radices[j + 1] * cards[j + 1]
        m = codes.shape[0]
        if m == 0:
            return np.zeros((0, width), dtype=np.int32), np.zeros(0, dtype=np.int64), \
                None if firsts is None else np.zeros(0, dtype=np.int64)
        changed = [j for j, (a, b) in enumerate(zip(source, node, strict=True)) if a != b]
        small = m * width < _BLAS_ONE_THREAD
        if space <= _FLOAT_EXACT and (small or 2 * len(changed) <= width):
            # the kept columns by float64 matrix-vector products of fewer than _BLAS_ONE_THREAD cells each (one
            # BLAS thread: no worker thread woken), the changed ones by lookups; exact, every sum is below 2**53
            kept = np.array([0 if a != b else r for a, b, r in zip(source, node, radices, strict=False)]
                            + radices[len(node):], dtype=np.float64)
            if small:
                fkeys = np.dot(codes, kept)
            else:
                fkeys = np.empty(m)
                step = _BLAS_ONE_THREAD // width - 1
                for i in range(0, m, step):
                    np.dot(codes[i:i + step], kept, out=fkeys[i:i + step])
            for j in changed:
                fkeys += self._float_table(j, source, node, radices[j]).take(codes[:, j])
            keys = fkeys.astype(np.intp)
        else:  # one lookup per column (a kept column's table is its codes × radix), each column contiguous
            keys, part = np.zeros(m, dtype=np.int64), np.empty(m, dtype=np.int64)
            for j in range(width):
                self._table(j, source, node, radices[j]).take(codes[:, j], out=part)
                keys += part
        new_firsts = None
        if space <= _DENSE_FACTOR * m + 1024:
            summed = np.bincount(keys, weights=counts, minlength=space)
            new_keys = summed.nonzero()[0]
            new_counts = summed[new_keys].astype(np.int64)
            where = np.empty(space, dtype=np.intp)
            if self._arange.size < m:
                self._arange = np.arange(2 * m, dtype=np.intp)
            where[keys] = self._arange[:m]
            first = where[new_keys]  # a class of the source in each new class
            if firsts is not None:
                least = np.full(space, np.iinfo(np.int64).max, dtype=np.int64)
                np.minimum.at(least, keys, firsts)
                new_firsts = least[new_keys]
        else:
            # the source's classes are sorted, so its keys come in runs when few columns change: timsort merges them
            few_runs = int(np.count_nonzero(keys[1:] < keys[:-1])) * _RUNS < m
            order = np.argsort(keys, kind="stable" if few_runs else "quicksort")
            ordered = keys[order]
            new = np.empty(m, dtype=bool)
            new[0] = True
            np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
            starts = np.flatnonzero(new)
            first = order[starts]
            new_counts = np.add.reduceat(counts[order], starts).astype(np.int64, copy=False)
            if firsts is not None:
                new_firsts = np.minimum.reduceat(firsts[order], starts)
        r = len(node)
        if small:
            new_codes = codes.T.take(first, axis=1).T  # column by column, as ``codes``
            for j in changed:
                new_codes[:, j] = self._up[j][source[j]][node[j]].take(new_codes[:, j])
            return new_codes, new_counts, new_firsts
        new_codes = np.empty((first.size, width), dtype=np.int32, order="F")  # column by column (``codes`` is too)
        for j in range(width):
            column = codes[:, j].take(first)
            if j < r and source[j] != node[j]:
                column = self._up[j][source[j]][node[j]].take(column)
            new_codes[:, j] = column
        return new_codes, new_counts, new_firsts


class Sources:
    """The nodes whose frequency sets are cached, as rows of one integer matrix with their class counts, so that
    "the cached node below x with the fewest classes" (the cheapest roll-up source) is one vectorized query."""

    def __init__(self, width: int) -> None:
        self._rows = np.zeros((64, width), dtype=np.int32)
        self._classes = np.full(64, np.inf)
        self._nodes: list[Node | None] = []
        self._slot: dict[Node, int] = {}
        self._free: list[int] = []
        self._passes: np.ndarray | None = None  # per number of changed columns: the passes of a roll-up

    def __len__(self) -> int:
        return len(self._slot)

    def add(self, node: Node, classes: int) -> None:
        if node in self._slot:
            return
        if self._free:
            i = self._free.pop()
            self._nodes[i] = node
        else:
            i = len(self._nodes)
            if i == len(self._rows):
                self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
                self._classes = np.concatenate([self._classes, np.full(i, np.inf)])
            self._nodes.append(node)
        self._rows[i] = node
        self._classes[i] = classes
        self._slot[node] = i

    def remove(self, node: Node) -> None:
        i = self._slot.pop(node)
        self._classes[i] = np.inf
        self._nodes[i] = None
        self._free.append(i)

    def cheapest_below(self, node: Node, bottom_classes: int) -> Node | None:
        """The stored node y ≤ node (y ≠ node) from which a roll-up to ``node`` costs least, None when the bottom
        (``bottom_classes`` classes, every column changed) costs no more. A roll-up reads each class of the source
        once per column it looks up: all columns when more than half change, else one product for the kept columns
        and a lookup per changed one (``RollUp.__call__``)."""
        if not self._slot:
            return None
        used = len(self._nodes)
        width = self._rows.shape[1]
        passes = self._passes
        if passes is None:
            passes = self._passes = np.array([1 + c if 2 * c <= width else width for c in range(width + 1)],
                                             dtype=np.float64)
        gap = np.array(node, dtype=np.int32) - self._rows[:used]  # y ≤ node: no negative gap
        cost = self._classes[:used] * passes.take((gap > 0).sum(axis=1))
        cost[gap.min(axis=1) < 0] = np.inf
        i = int(cost.argmin())
        changed = sum(1 for v in node if v)
        return self._nodes[i] if cost[i] < bottom_classes * passes[changed] else None

    def smallest_below(self, node: Node) -> Node | None:
        """The stored node y ≤ node (y ≠ node) with the fewest classes, None if there is none."""
        used = len(self._nodes)
        if not self._slot:
            return None
        below = (self._rows[:used] <= np.asarray(node, dtype=np.int32)).all(axis=1)
        classes = np.where(below, self._classes[:used], np.inf)
        i = int(classes.argmin())
        return self._nodes[i] if classes[i] != np.inf else None
