"""Every lattice node's equivalence classes in one pass over packed integer keys (behind ``lattice_table``).

A class is one ``int64``: its code in each quasi-identifier in a fixed bit field (column 0 the most significant, so
the keys sort as the codes do lexicographically, the order of ``FrequencySet``) and its size in the low bits. The
pass walks the lattice's set-enumeration tree as ``NodeEvaluator.all_frequency_sets`` does (LeFevre 2005's
bottom-up roll-up; Issa 2009 ch. 5): a child raises one attribute by one level, so each of its parent's keys gets
that field moved up the hierarchy by one table lookup and one addition (the size bits are untouched); sorting the
keys brings equal classes together and their sizes are summed. That is about ten whole-array passes over the
parent's classes and no per-class Python object, the work ARX's hash groupify does with a hash table. The codes
are decoded only for the classes a measure reads (``NodeClasses.codes_of``).

It applies when the rule is k alone (no privacy model's extra columns) and the fields and sizes fit in 63 bits;
``packed_sets`` returns None otherwise and the caller uses ``all_frequency_sets``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from measures import ColumnDomain, Known
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.space import Node


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each column's code sits in a key: ``shifts[j]`` (counted from bit 0, above the ``size_bits``) and
    ``masks[j]``; ``steps[j][a][c]``: what raising column j from level a to a + 1 adds to a key whose code is c."""

    shifts: tuple[int, ...]
    masks: tuple[int, ...]
    size_bits: int
    steps: tuple[tuple[np.ndarray, ...], ...]
    cards: tuple[np.ndarray, ...]  # per column: its number of codes at each level (``ColumnDomain.leaf_counts``)

    @property
    def size_mask(self) -> int:
        return (1 << self.size_bits) - 1


@dataclass(frozen=True, eq=False)
class PackedSet:
    """One node's classes as sorted packed keys."""

    node: Node
    keys: np.ndarray
    layout: Layout

    @property
    def counts(self) -> np.ndarray:
        """Each class's size (in the order of the classes' codes)."""
        return self.keys & self.layout.size_mask

    def codes(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The codes (classes × columns, int32) of the classes at ``rows`` (all when None)."""
        keys = self.keys if rows is None else self.keys[rows]
        out = np.empty((keys.size, len(self.layout.shifts)), dtype=np.int32)
        for j, (shift, mask) in enumerate(zip(self.layout.shifts, self.layout.masks, strict=True)):
            out[:, j] = (keys >> shift) & mask
        return out


def _layout(evaluator: NodeEvaluator) -> Layout | None:
    widths = [max(c.cardinality(0) - 1, 1).bit_length() for c in evaluator.columns]
    size_bits = max(evaluator.n, 1).bit_length()
    if not widths or sum(widths) + size_bits > 63 or any(c.cardinality(lv) > c.cardinality(0) for c in
                                                         evaluator.columns for lv in range(c.height + 1)):
        return None
    shifts = [size_bits + sum(widths[j + 1:]) for j in range(len(widths))]
    steps = []
    for c, shift in zip(evaluator.columns, shifts, strict=True):
        per_level = []
        for a in range(c.height):
            up = np.zeros(c.cardinality(a), dtype=np.int64)  # code at level a -> code at level a + 1
            up[c.level_codes[:, a]] = c.level_codes[:, a + 1]
            per_level.append((up - np.arange(up.size, dtype=np.int64)) << shift)
        steps.append(tuple(per_level))
    cards = tuple(c.level_codes.max(axis=0).astype(np.int64) + 1 for c in evaluator.columns)  # as leaf_counts' sizes
    return Layout(tuple(shifts), tuple((1 << w) - 1 for w in widths), size_bits, tuple(steps), cards)


def _raise(keys: np.ndarray, j: int, level: int, layout: Layout) -> np.ndarray:
    """The sorted packed classes after raising column j from ``level`` by one (equal classes merged)."""
    field = np.right_shift(keys, layout.shifts[j])
    np.bitwise_and(field, layout.masks[j], out=field)
    child = np.take(layout.steps[j][level], field)
    np.add(child, keys, out=child)
    child.sort(kind="stable")  # sorted runs (the parent was sorted): a merge sort takes them as they are
    new = np.empty(child.size, dtype=bool)
    new[:1] = True
    np.greater(child[1:] ^ child[:-1], layout.size_mask, out=new[1:])  # another class: the code bits differ
    starts = np.flatnonzero(new)
    if starts.size == child.size:
        return child
    merged = np.take(child, starts)
    np.bitwise_and(merged, ~layout.size_mask, out=merged)
    np.bitwise_and(child, layout.size_mask, out=child)
    return merged | np.add.reduceat(child, starts)


def packed_sets(evaluator: NodeEvaluator) -> Iterator[PackedSet] | None:
    """Every node's classes once, depth first (the order of ``NodeEvaluator.all_frequency_sets``); None when the
    evaluator's rule has extra columns (privacy models) or the keys would not fit in 63 bits."""
    if evaluator.extras or not evaluator.admissibility.plain or evaluator.n == 0:
        return None
    layout = _layout(evaluator)
    if layout is None:
        return None
    bottom = evaluator.frequency_set(evaluator.lattice.bottom)
    keys = bottom.counts.astype(np.int64)
    for j, shift in enumerate(layout.shifts):
        keys |= bottom.codes[:, j].astype(np.int64) << shift
    return _walk(PackedSet(bottom.node, keys, layout), evaluator.lattice.heights)


def _walk(root: PackedSet, heights: tuple[int, ...]) -> Iterator[PackedSet]:
    stack: list[tuple[PackedSet | None, Node, int]] = [(None, root.node, 0)]  # (parent, node, attribute raised)
    while stack:
        parent, node, first = stack.pop()
        ps = root if parent is None else PackedSet(node, _raise(parent.keys, first, node[first] - 1, root.layout),
                                                    root.layout)
        yield ps
        for j in range(len(node) - 1, first - 1, -1):  # attribute `first` is popped (and visited) first
            if node[j] < heights[j]:
                stack.append((ps, (*node[:j], node[j] + 1, *node[j + 1:]), j))
        del ps, parent  # the generator's frame must not keep a finished set alive


def chunks(sets: Iterator[PackedSet], classes: int = 16_384, nodes: int = 256) -> Iterator[list[PackedSet]]:
    """The sets in lists of about ``classes`` classes (at most ``nodes`` sets), for ``suppression``: few calls for
    the many small sets, little memory for the large ones."""
    chunk: list[PackedSet] = []
    held = 0
    for ps in sets:
        chunk.append(ps)
        held += ps.keys.size
        if held >= classes or len(chunk) >= nodes:
            yield chunk
            chunk, held = [], 0
    if chunk:
        yield chunk


def suppression(sets: Sequence[PackedSet], k: int, domains: Sequence[ColumnDomain],
                n: int) -> list[tuple[np.ndarray, Known]]:
    """Per node (k alone: a class smaller than k is suppressed): its class sizes and what the measures read of
    its suppression (``measures._node.Known``), for all ``sets`` in a few whole-array passes: the suppressed
    records per released code of every column are one ``bincount`` over every node's suppressed classes, or over
    its kept classes subtracted from the column's counts where those are fewer (as ``NodeClasses.suppressed_flat``)."""
    layout, r = sets[0].layout, len(sets[0].layout.shifts)
    lengths = np.array([ps.keys.size for ps in sets], dtype=np.int64)
    starts = np.zeros(len(sets), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    keys = np.concatenate([ps.keys for ps in sets])
    sizes = keys & layout.size_mask
    small = sizes < k
    node_of = np.repeat(np.arange(len(sets)), lengths)
    n_small = np.add.reduceat(small, starts, dtype=np.int64)
    count_small = 2 * n_small <= lengths
    small_sizes = sizes * small
    suppressed = np.add.reduceat(small_sizes, starts).tolist()
    squares = np.add.reduceat(sizes * sizes, starts)
    kept_squares = (squares - np.add.reduceat(small_sizes * sizes, starts)).tolist()
    squares = squares.tolist()
    kept_classes = (lengths - n_small).tolist()
    levels = np.array([ps.node for ps in sets], dtype=np.int64).reshape(len(sets), r)
    cards = np.stack([layout.cards[j][levels[:, j]] for j in range(r)], axis=1)
    offsets = np.zeros((len(sets), r + 1), dtype=np.int64)
    np.cumsum(cards, axis=1, out=offsets[:, 1:])
    base = np.zeros(len(sets), dtype=np.int64)
    np.cumsum(offsets[:-1, r], out=base[1:])
    rows = np.flatnonzero(small == count_small[node_of])
    row_keys = keys[rows]
    flat = np.empty((rows.size, r), dtype=np.int64)
    for j, (shift, mask) in enumerate(zip(layout.shifts, layout.masks, strict=True)):
        np.bitwise_and(row_keys >> shift, mask, out=flat[:, j])
    flat += (base[:, None] + offsets[:, :r])[node_of[rows]]
    total = int(base[-1] + offsets[-1, r])
    hist = np.bincount(flat.ravel(), weights=np.repeat(sizes[rows], r), minlength=total)
    if not count_small.all():  # those nodes counted their kept classes: suppressed = all records under y - kept
        under = np.concatenate([domains[j].generalized_counts[v] for ps in sets for j, v in enumerate(ps.node)])
        hist = np.where(np.repeat(~count_small, offsets[:, r]), under - hist, hist)
    hist = hist.astype(np.int64)
    out = []
    for i, (a, m, b) in enumerate(zip(starts.tolist(), lengths.tolist(), base.tolist(), strict=True)):
        out.append((sizes[a:a + m], Known(n, small[a:a + m], suppressed[i], hist[b:b + int(offsets[i, r])],
                                          offsets[i], squares[i], kept_squares[i], kept_classes[i])))
    return out
