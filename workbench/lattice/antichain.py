"""Antichain + prefix-tree store for predictive properties (Kohlmayer, Prasser et al. 2016, §"Antichains").

A property that propagates **up** (to generalizations, P↑: "k-anonymous", "objective bound exceeded") is
stored as the antichain of its minimal observed nodes; a node has the property when some stored node lies
below it. A property that propagates **down** (P↓: "not k-anonymous") is stored as the antichain of its
maximal observed nodes. The nodes live in a trie (depth i = level of attribute i) whose inner nodes carry
the minimum (up) or maximum (down) rank below them, which prunes the range queries. Memory depends on the
number of stored nodes, never on the lattice size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from workbench.lattice.space import Node

UP = "up"
DOWN = "down"


@dataclass
class _TrieNode:
    bound: int  # min rank below (up store) or max rank below (down store); may be stale after deletions
    children: dict[int, _TrieNode] = field(default_factory=dict)


class AntichainStore:
    """Nodes with a predictive property, kept as an antichain in a prefix tree.

    ``covers(x)`` is true when x has the property by prediction: for an ``up`` store some stored y ≤ x,
    for a ``down`` store some stored y ≥ x (y = x included).
    """

    def __init__(self, width: int, direction: str) -> None:
        if direction not in (UP, DOWN):
            raise ValueError(f"direction must be {UP!r} or {DOWN!r}")
        self.width = width
        self.direction = direction
        self._root = _TrieNode(bound=0)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _reaches(self, child_level: int, x_level: int) -> bool:
        """Can a stored node with this level at this depth be on the right side of x?"""
        return child_level <= x_level if self.direction == UP else child_level >= x_level

    def _rank_ok(self, bound: int, rank: int) -> bool:
        return bound <= rank if self.direction == UP else bound >= rank

    def covers(self, x: Node) -> bool:
        """Does x have the property by prediction (a stored node at or below/above it)?"""
        if not self._size:
            return False
        rank = sum(x)

        def walk(node: _TrieNode, depth: int) -> bool:
            if depth == self.width:
                return True
            for level, child in node.children.items():
                if self._reaches(level, x[depth]) and self._rank_ok(child.bound, rank) and walk(child, depth + 1):
                    return True
            return False

        return walk(self._root, 0)

    def insert(self, x: Node) -> bool:
        """Record that x has the property. Returns False (and stores nothing) when it was already covered;
        otherwise removes the stored nodes x now subsumes and adds x."""
        x = tuple(x)
        if len(x) != self.width:
            raise ValueError(f"node {x} has {len(x)} levels, the store has width {self.width}")
        if self.covers(x):
            return False
        self._remove_subsumed(x)
        rank = sum(x)
        node = self._root
        better = min if self.direction == UP else max
        for level in x:
            child = node.children.get(level)
            if child is None:
                child = node.children[level] = _TrieNode(bound=rank)
            child.bound = better(child.bound, rank)
            node = child
        self._size += 1
        return True

    def _remove_subsumed(self, x: Node) -> None:
        """Delete stored y that x subsumes: y ≥ x for an up store, y ≤ x for a down store."""

        def walk(node: _TrieNode, depth: int) -> int:
            if depth == self.width:
                return 1
            removed = 0
            for level in list(node.children):
                if self._reaches(x[depth], level):  # y_depth on the subsumed side of x_depth
                    child = node.children[level]
                    removed += walk(child, depth + 1)
                    if depth + 1 == self.width or not child.children:
                        del node.children[level]  # a leaf, or an inner node left without children
            return removed

        if self._size:
            self._size -= walk(self._root, 0)

    def __iter__(self) -> Iterator[Node]:
        def walk(node: _TrieNode, prefix: tuple[int, ...]) -> Iterator[Node]:
            if len(prefix) == self.width:
                yield prefix
                return
            for level in sorted(node.children):
                yield from walk(node.children[level], (*prefix, level))

        return walk(self._root, ())
