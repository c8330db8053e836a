"""The finite posets of the local engine (Katirai 2006, Def. 1; the DSG toolkit's posets, §4.3): ``FinitePoset``
covers the ``tree`` (every ARX hierarchy) and ``matrix`` (a DAG given by edges) kinds (Katirai's ``passthrough``
releases a column unchanged, so the config refuses it for a quasi-identifier): the ancestor-or-self closure is
precomputed (the toolkit's "LEQ precomputed for all pairs", which "changed our run times from hours to
minutes"), and so is the table of pairwise LUBs, so a LUB is one lookup. The protocol every kind implements is
in ``workbench.local.poset_base``; the other kinds are in their own modules (``RangePoset`` is importable from
here too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from graphlib import CycleError, TopologicalSorter

import numpy as np

from workbench.errors import HierarchyError
from workbench.hierarchy.tree import Hierarchy
from workbench.local.poset_base import (
    ROOT,
    ColumnCells,
)


@dataclass(frozen=True, eq=False)
class FinitePoset:
    """A finite VG-poset: ``names[v]`` of node v, ``parents`` edges (child -> more general), one top.

    Leaves are the original values (``leaves``: their node ids in order of the values given). Heights are
    longest paths from a leaf (Katirai §2.3: this keeps the measure strictly monotone on multi-parent posets).
    """

    kind: str
    names: tuple[str, ...]
    parents: tuple[tuple[int, ...], ...]
    leaves: tuple[int, ...]
    values: tuple[str, ...]
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    shares: tuple[int, ...] | None = None  # tree kind: ARX's domain share of each node, over ``share_domain``
    share_domain: int | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_tree(cls, hierarchy: Hierarchy, values: Sequence[str]) -> FinitePoset:
        """A tree poset from an ARX hierarchy, restricted to the given data values (its ``tree`` kind)."""
        rows = {r[0]: r for r in hierarchy.rows}
        names: list[str] = []
        index: dict[tuple[int, str], int] = {}
        parents: list[set[int]] = []

        def node(level: int, label: str) -> int:
            key = (level, label)
            if key not in index:
                index[key] = len(names)
                names.append(label)
                parents.append(set())
            return index[key]

        leaves = []
        for v in values:
            path = rows[v]
            ids = [node(level, label) for level, label in enumerate(path)]
            leaves.append(ids[0])
            for child, parent in zip(ids, ids[1:], strict=False):
                parents[child].add(parent)
        roots = [v for v in range(len(names)) if not parents[v]]
        if len(roots) > 1:  # several roots (e.g. a height-0 hierarchy): suppression is still possible locally
            top = node(hierarchy.height + 1, ROOT)
            for r in roots:
                parents[r].add(top)
        # ARX's domain shares (Hierarchy.domain_shares: the hierarchy's rows, or a builder's interval widths)
        labels = [[label for (lv, label) in index if lv == level] for level in range(hierarchy.height + 1)]
        numerators, domain = hierarchy.domain_shares(labels)
        shares = [domain] * len(names)  # the added top, if any, is the whole domain
        for level, (labs, nums) in enumerate(zip(labels, numerators, strict=True)):
            for label, num in zip(labs, nums, strict=True):
                shares[index[(level, label)]] = int(num)
        return cls._finish("tree", names, parents, leaves, values, (tuple(shares), domain))

    @classmethod
    def from_edges(cls, edges: Sequence[tuple[str, str]], values: Sequence[str], kind: str = "matrix") -> FinitePoset:
        """A DAG poset from (child, parent) edges; a single top is required (Katirai: the root ``*`` stands for
        suppression). Values are leaves that must appear in the graph."""
        names: list[str] = []
        index: dict[str, int] = {}
        parents: list[set[int]] = []
        for child, parent in edges:
            for name in (child, parent):
                if name not in index:
                    index[name] = len(names)
                    names.append(name)
                    parents.append(set())
            if child != parent:
                parents[index[child]].add(index[parent])
        missing = [v for v in values if v not in index]
        if missing:
            raise HierarchyError(f"poset has no node for {len(missing)} data value(s): "
                                 f"{', '.join(map(repr, missing[:5]))}")
        return cls._finish(kind, names, parents, [index[v] for v in values], values)

    @classmethod
    def _finish(cls, kind: str, names: list[str], parents: list[set[int]], leaves: list[int],
                values: Sequence[str], shares: tuple[tuple[int, ...], int] | None = None) -> FinitePoset:
        poset = cls(kind, tuple(names), tuple(tuple(sorted(p)) for p in parents), tuple(leaves), tuple(values),
                    shares=shares[0] if shares else None, share_domain=shares[1] if shares else None)
        tops = [v for v in range(len(names)) if not poset.parents[v]]
        if len(tops) != 1:
            raise HierarchyError(f"a poset needs exactly one top (the suppression value); this one has "
                                 f"{len(tops)}: {', '.join(repr(names[t]) for t in tops[:5])}")
        poset.ancestors  # noqa: B018 - validates acyclicity now
        return poset

    # ------------------------------------------------------------------ structure
    @property
    def size(self) -> int:
        return len(self.names)

    @cached_property
    def ancestors(self) -> np.ndarray:
        """``anc[v, a]``: a is an ancestor-or-self of v (transitive closure of the edges)."""
        n = self.size
        anc = np.eye(n, dtype=bool)
        order = self._topological()
        for v in reversed(order):  # parents before children
            for p in self.parents[v]:
                anc[v] |= anc[p]
        return anc

    def _topological(self) -> list[int]:
        """Nodes with every child before its parents; raises on a cycle."""
        try:  # each node after its parents (its predecessors here), then reversed
            parents_first = list(TopologicalSorter({v: self.parents[v] for v in range(self.size)}).static_order())
        except CycleError as exc:
            raise HierarchyError(f"poset has a cycle through {self.names[exc.args[1][0]]!r}") from None
        return parents_first[::-1]  # children first

    @cached_property
    def heights(self) -> np.ndarray:
        """Longest path from a leaf below (0 at leaves)."""
        h = np.zeros(self.size, dtype=np.int64)
        for v in self._topological():
            for p in self.parents[v]:
                h[p] = max(h[p], h[v] + 1)
        return h

    @property
    def max_height(self) -> int:
        return int(self.heights.max()) if self.size else 0

    @cached_property
    def leaf_array(self) -> np.ndarray:
        return np.asarray(self.leaves, dtype=np.int64)

    @cached_property
    def covers(self) -> np.ndarray:
        """``covers[v, i]``: node v generalizes data value i (the leaf set of every node)."""
        return self.ancestors[self.leaf_array].T.copy()

    @cached_property
    def leaf_count(self) -> np.ndarray:
        """Distinct data values under each node."""
        return self.covers.sum(axis=1)

    @cached_property
    def cost_table(self) -> np.ndarray:
        """Vinterbo-1.0 cell measure of every node: h / M (0 when the poset is a single level)."""
        if self.max_height == 0:
            return np.zeros(self.size)
        return self.heights / self.max_height

    def cost(self, states: np.ndarray) -> np.ndarray:
        """Vinterbo-1.0 cell measure of each state (``cost_table`` looked up)."""
        return self.cost_table[np.asarray(states, dtype=np.int64)]

    def lub_table(self, cost: np.ndarray | None = None) -> np.ndarray:
        """``table[v, w]``: the least-cost common ancestor-or-self of v and w (ties: lowest node id), and
        ``table[v, v] = v``.

        Nodes are visited by (cost, id); each claims the still-unassigned pairs of its down-set, so every
        pair gets the first, i.e. least-cost, node above both. Work is Σ_a |down(a)|², about size² × height
        for a tree, instead of size³.

        The LUB of a value with itself is the value (order-theoretic idempotence, as in every closed-form
        poset of the toolkit: Katirai's DateOfBirth LUB of equal dates is the date). Under a monotone cost
        this is what Def. 3 gives anyway; under Value-MI, which is not monotone, Def. 3 read literally could
        pick a cheaper proper ancestor and generalize identical records, which need no generalization."""
        cost = self.cost_table if cost is None else cost
        below = self.ancestors.T  # below[a, v]: v lies under a (or is a)
        table = np.full((self.size, self.size), -1, dtype=np.int32)
        for a in np.lexsort((np.arange(self.size), cost)):  # by cost, then id
            down = np.flatnonzero(below[a])
            block = table[np.ix_(down, down)]
            if (block >= 0).all():
                continue
            block[block < 0] = a
            table[np.ix_(down, down)] = block
        np.fill_diagonal(table, np.arange(self.size))
        return table

    def group_lub(self, nodes: np.ndarray, cost: np.ndarray | None = None) -> int:
        """The exact least-cost common ancestor-or-self of all given nodes (Katirai §1.6, exact mode); a
        group of one value (however many copies) is that value, as in ``lub_table``."""
        cost = self.cost_table if cost is None else cost
        distinct = np.unique(nodes)
        if distinct.size == 1:
            return int(distinct[0])
        common = self.ancestors[distinct].all(axis=0)
        candidates = np.flatnonzero(common)
        return int(candidates[np.lexsort((candidates, cost[candidates]))[0]])

    def group_lubs(self, nodes: np.ndarray, starts: np.ndarray, cost: np.ndarray | None = None,
                   max_cells: int = 4_000_000) -> np.ndarray:
        """``group_lub`` of every group ``nodes[starts[g]:starts[g + 1]]`` at once: the groups' common
        ancestors by one logical-and reduction, then the first in (cost, id) order; a group of one value is
        that value. Chunked so that no step holds more than about ``max_cells`` booleans."""
        cost = self.cost_table if cost is None else cost
        order = np.lexsort((np.arange(self.size), cost))
        ancestors = self.ancestors[:, order]  # columns in (cost, id) order: the first common one wins
        nodes, starts = np.asarray(nodes), np.asarray(starts)
        out = np.empty(len(starts), dtype=np.int64)
        step = max(1, int(max_cells * len(starts) // max(1, len(nodes) * self.size)))
        for g0 in range(0, len(starts), step):
            g1 = min(len(starts), g0 + step)
            lo, hi = starts[g0], starts[g1] if g1 < len(starts) else len(nodes)
            common = np.logical_and.reduceat(ancestors[nodes[lo:hi]], starts[g0:g1] - lo, axis=0)
            out[g0:g1] = order[common.argmax(axis=1)]
        if nodes.size:  # groups of a single value keep it
            same = np.minimum.reduceat(nodes, starts) == np.maximum.reduceat(nodes, starts)
            out[same] = nodes[starts[same]]
        return out

    def label(self, nodes: np.ndarray) -> np.ndarray:
        return np.asarray(self.names, dtype=object)[nodes]

    def describe(self, states: np.ndarray) -> ColumnCells:
        """Codes are node ids; heights the longest-path heights (``cost_table = heights / max_height``)."""
        states = np.asarray(states, dtype=np.int64)
        share = np.asarray(self.shares, dtype=np.int64) if self.shares is not None else None
        return ColumnCells(states, self.heights[states], self.max_height, self.leaf_count, self.covers, share,
                           self.share_domain)

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label generalize the original value beside it? (read from the text alone)"""
        value_index = {v: i for i, v in enumerate(self.values)}
        ids: dict[str, list[int]] = {}
        for node, name in enumerate(self.names):
            ids.setdefault(name, []).append(node)
        return np.array([any(self.covers[n, value_index[v]] for n in ids.get(lab, ())) if v in value_index
                         else False for lab, v in zip(labels, values, strict=True)], dtype=bool)
