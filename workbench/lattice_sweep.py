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

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

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
    return Layout(tuple(shifts), tuple((1 << w) - 1 for w in widths), size_bits, tuple(steps))


def _raise(keys: np.ndarray, j: int, level: int, layout: Layout) -> np.ndarray:
    """The sorted packed classes after raising column j from ``level`` by one (equal classes merged)."""
    child = keys + layout.steps[j][level][(keys >> layout.shifts[j]) & layout.masks[j]]
    child.sort(kind="stable")  # sorted runs (the parent was sorted): a merge sort takes them as they are
    codes = child >> layout.size_bits
    new = np.empty(child.size, dtype=bool)
    new[:1] = True
    np.not_equal(codes[1:], codes[:-1], out=new[1:])
    if new.all():
        return child
    starts = np.flatnonzero(new)
    return (codes[starts] << layout.size_bits) | np.add.reduceat(child & layout.size_mask, starts)


def packed_sets(evaluator: NodeEvaluator) -> Iterator[PackedSet] | None:
    """Every node's classes once, depth first (the order of ``NodeEvaluator.all_frequency_sets``); None when the
    evaluator's rule has extra columns (privacy models) or the keys would not fit in 63 bits."""
    if evaluator.extras or not evaluator.admissibility.plain:
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
