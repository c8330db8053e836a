"""Antichain + prefix-tree store for predictive properties (Kohlmayer, Prasser et al. 2016, §"Antichains").

A property that propagates **up** (to generalizations, P↑: "k-anonymous", "objective bound exceeded") is
stored as the antichain of its minimal observed nodes; a node has the property when some stored node lies
below it. A property that propagates **down** (P↓: "not k-anonymous") is stored as the antichain of its
maximal observed nodes. The nodes live in a trie (depth i = level of attribute i) whose inner nodes carry
the minimum and maximum rank below them, which prune the range queries: a query for stored nodes below x
skips subtrees whose minimum rank exceeds rank(x), a query for stored nodes above x those whose maximum rank
is below it. Memory depends on the
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
    lo: int  # minimum rank of the stored nodes below (a lower bound: not raised after deletions)
    hi: int  # maximum rank of the stored nodes below (an upper bound: not lowered after deletions)
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
        self._root = _TrieNode(lo=0, hi=0)
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def _reaches(self, child_level: int, x_level: int) -> bool:
        """Can a stored node with this level at this depth be on the right side of x?"""
        return child_level <= x_level if self.direction == UP else child_level >= x_level

    def _may_cover(self, child: _TrieNode, rank: int) -> bool:
        """May the subtree hold a node on the covering side of a node of this rank?"""
        return child.lo <= rank if self.direction == UP else child.hi >= rank

    def _may_be_subsumed(self, child: _TrieNode, rank: int) -> bool:
        """May the subtree hold a node that a new node of this rank subsumes?"""
        return child.hi >= rank if self.direction == UP else child.lo <= rank

    def covers(self, x: Node) -> bool:
        """Does x have the property by prediction (a stored node at or below/above it)?"""
        if not self._size:
            return False
        rank = sum(x)

        def walk(node: _TrieNode, depth: int) -> bool:
            if depth == self.width:
                return True
            for level, child in node.children.items():
                if self._reaches(level, x[depth]) and self._may_cover(child, rank) and walk(child, depth + 1):
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
        for level in x:
            child = node.children.get(level)
            if child is None:
                child = node.children[level] = _TrieNode(lo=rank, hi=rank)
            child.lo, child.hi = min(child.lo, rank), max(child.hi, rank)
            node = child
        self._size += 1
        return True

    def _remove_subsumed(self, x: Node) -> None:
        """Delete stored y that x subsumes: y ≥ x for an up store, y ≤ x for a down store."""

        rank = sum(x)

        def walk(node: _TrieNode, depth: int) -> int:
            if depth == self.width:
                return 1
            removed = 0
            for level in list(node.children):
                child = node.children[level]
                # y_depth on the subsumed side of x_depth, and a rank the subsumed nodes can have
                if self._reaches(x[depth], level) and self._may_be_subsumed(child, rank):
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
