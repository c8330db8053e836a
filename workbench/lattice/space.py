"""The generalization lattice: all level vectors ``0 <= v_j <= H_j`` (Samarati 2001; Issa 2009, Def. 10-15).

``V ≤ W`` when ``v_j ≤ w_j`` for every j; successors raise one coordinate by one, predecessors lower one.
The rank (height) of a node is ``Σ_j v_j``; the lattice has ``Π_j (H_j + 1)`` nodes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import prod
from operator import add, sub

Node = tuple[int, ...]


def nodes_between(bottom: Node, top: Node, d: int) -> Iterator[Node]:
    """Nodes V with bottom ≤ V ≤ top and rank(V) = rank(bottom) + d, in ascending lexicographic order: the
    compositions of d bounded by top − bottom (``compositions``), added to bottom."""
    for e in compositions(tuple(map(sub, top, bottom)), d):
        yield tuple(map(add, bottom, e))


_COMPOSITIONS: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], ...]] = {}
KEPT_NODES = 1 << 17  # lattices up to this many nodes keep their nodes by rank once listed (``Lattice.by_rank``)
_SMALL_BOX = 4096  # compositions are memoized for boxes of at most this many nodes (a search asks for the same)


def compositions(caps: tuple[int, ...], d: int) -> Iterator[tuple[int, ...]]:
    """The compositions of d with parts 0 ≤ e_j ≤ caps[j], in ascending lexicographic order: memoized for small
    boxes, else generated lazily (a large sub-lattice is never materialized)."""
    if prod(c + 1 for c in caps) > _SMALL_BOX:
        return _compositions(caps, d)
    key = (caps, d)
    known = _COMPOSITIONS.get(key)
    if known is None:
        if len(_COMPOSITIONS) >= 1 << 16:
            _COMPOSITIONS.clear()
        known = _COMPOSITIONS[key] = tuple(_compositions(caps, d))
    return iter(known)


def _compositions(caps: tuple[int, ...], d: int) -> Iterator[tuple[int, ...]]:
    """``compositions``, computed."""
    n = len(caps)
    room = [0] * (n + 1)  # room[i]: how much coordinates i.. can absorb
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + caps[i]
    if not 0 <= d <= room[0]:
        return
    e, left = [0] * n, d  # the increments over bottom; the first composition puts as much as possible last
    for j in range(n):
        e[j] = max(0, left - room[j + 1])
        left -= e[j]
    while True:
        yield tuple(e)
        suffix = 0  # next: raise the rightmost coordinate that can take one from the suffix, refill the suffix
        for i in range(n - 1, -1, -1):
            if suffix and e[i] < caps[i]:
                e[i] += 1
                left = suffix - 1
                for j in range(i + 1, n):
                    e[j] = max(0, left - room[j + 1])
                    left -= e[j]
                break
            suffix += e[i]
        else:
            return


@dataclass(frozen=True)
class Lattice:
    """The full-domain generalization lattice of hierarchies with heights ``heights``."""

    heights: tuple[int, ...]
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if any(h < 0 for h in self.heights):
            raise ValueError(f"hierarchy heights must be >= 0, got {self.heights}")
        if self.names and len(self.names) != len(self.heights):
            raise ValueError("one name per hierarchy height")

    @property
    def size(self) -> int:
        return prod(h + 1 for h in self.heights)

    @property
    def bottom(self) -> Node:
        return (0,) * len(self.heights)

    @property
    def top(self) -> Node:
        return tuple(self.heights)

    @property
    def max_rank(self) -> int:
        return sum(self.heights)

    @staticmethod
    def rank(node: Node) -> int:
        """Height of a node, ``Σ_j v_j`` (Issa 2009, Def. 13)."""
        return sum(node)

    def contains(self, node: Sequence[int]) -> bool:
        return len(node) == len(self.heights) and all(
            0 <= v <= h for v, h in zip(node, self.heights, strict=True)
        )

    def successors(self, node: Node) -> list[Node]:
        """Direct generalizations: one coordinate raised by one."""
        return [node[:j] + (v + 1,) + node[j + 1:] for j, v in enumerate(node) if v < self.heights[j]]

    def predecessors(self, node: Node) -> list[Node]:
        """Direct specializations: one coordinate lowered by one."""
        return [node[:j] + (v - 1,) + node[j + 1:] for j, v in enumerate(node) if v > 0]

    @staticmethod
    def leq(a: Node, b: Node) -> bool:
        """``a ≤ b`` in the lattice order (b generalizes a, or equals it)."""
        return all(x <= y for x, y in zip(a, b, strict=True))

    def nodes(self) -> Iterator[Node]:
        """All nodes, by rank, then lexicographically: from ``by_rank`` (built once) on lattices of at most
        ``KEPT_NODES`` nodes, else generated rank by rank (``nodes_between``), so that iterating a large lattice never
        holds it."""
        levels = self.__dict__.get("by_rank")
        if levels is None and self.size <= KEPT_NODES:
            levels = self.by_rank
        if levels is not None:
            for level in levels:
                yield from level
            return
        for rank in range(self.max_rank + 1):
            yield from nodes_between(self.bottom, self.top, rank)

    @cached_property
    def by_rank(self) -> tuple[tuple[Node, ...], ...]:
        """Nodes grouped by rank (lattice levels), each level sorted lexicographically: the whole lattice, kept
        (for the searches of small lattices that revisit levels, Samarati's; ``nodes`` never builds it)."""
        levels: list[list[Node]] = [[] for _ in range(self.max_rank + 1)]
        for node in itertools.product(*(range(h + 1) for h in self.heights)):
            levels[sum(node)].append(node)
        return tuple(tuple(sorted(level)) for level in levels)

    def label(self, node: Node) -> str:
        """``"sex=1,age=2"`` when names are known, else ``"1,2"``."""
        if self.names:
            return ",".join(f"{n}={v}" for n, v in zip(self.names, node, strict=True))
        return ",".join(map(str, node))
