"""Node evaluation: frequency sets, roll-up, suppression and k-anonymity of a lattice node.

A node's equivalence classes are formed over **all** n records; records in classes smaller than k, or that
violate a configured privacy model, are suppressed, and the node is admissible ("k-anonymous") when
``suppressed <= floor(max_suppression * n)`` (El Emam 2009; docs/measures.md). That rule lives in one place,
``workbench.privacy.Admissibility``; with privacy models the frequency sets also carry, per class, the
records of each sensitive value (the models' "extra" columns, never generalized).

Frequency sets (class codes + counts, LeFevre 2005; Issa 2009 ch. 5) are computed from
integer codes with a mixed-radix key (``workbench.grouping``, exact for any key space) and can be rolled up
from any node below, which is much smaller than the data.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import getitem

import numpy as np

from workbench.data import EncodedColumn
from workbench.grouping import class_sizes, distinct_rows, group_rows
from workbench.lattice.rollup import RollUp, Sources
from workbench.lattice.space import Lattice, Node
from workbench.privacy.base import Admissibility, ClassView, Outcome

_SCAN_LIMIT = 512  # beyond this many cached sets, a cached predecessor is taken without scanning for a smaller one
_CACHE_CLASSES = 4_000_000  # classes kept in the frequency-set cache (about 150 MB with 8 columns)


@dataclass(frozen=True, eq=False)
class FrequencySet:
    """The equivalence classes of a node: ``codes[e, j]`` = class e's code in column j at level
    ``node[j]`` (held column by column, Fortran order); ``counts[e]`` = its size. Classes are in lexicographic order
    of their codes."""

    node: Node
    codes: np.ndarray
    counts: np.ndarray
    # with extra columns: (rows over quasi-identifiers + extras, their counts, each row's class); else None
    detail: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # per row (``detail``'s rows, else the classes): its first record, when a release-level model may ask
    firsts: np.ndarray | None = None

    @property
    def classes(self) -> int:
        return int(self.counts.size)

    def class_firsts(self) -> np.ndarray | None:
        """Per class: the row of its first record (ARX's tie-break in the order of suppression), when kept."""
        if self.firsts is None or self.detail is None:
            return self.firsts
        row_class = self.detail[2]
        starts = np.flatnonzero(np.r_[True, row_class[1:] != row_class[:-1]]) if row_class.size else row_class
        return np.minimum.reduceat(self.firsts, starts) if starts.size else self.firsts[:0]

    def suppressed(self, k: int) -> int:
        return int(self.counts[self.counts < k].sum())


@dataclass(frozen=True)
class NodeEvaluation:
    """Outcome of checking one node."""

    node: Node
    classes: int
    suppressed: int
    k_anonymous: bool  # admissible: k, every privacy model and the suppression limit (Admissibility)

    @property
    def admissible(self) -> bool:
        return self.k_anonymous


class NodeEvaluator:
    """Evaluates lattice nodes of one dataset under (k, max_suppression), caching frequency sets.

    ``checks`` counts node evaluations (k-anonymity checks); ``rollups`` counts frequency sets computed
    from a predecessor's frequency set rather than from the data.
    """

    def __init__(self, columns: Sequence[EncodedColumn], k: int, max_suppression: float,
                 admissibility: Admissibility | None = None, weights: np.ndarray | None = None) -> None:
        """``weights``: the columns' rows are a frequency set's (distinct records, e.g. from an out-of-core
        group-by, ``workbench.scale``) and each stands for this many records; per-record views (``direct``,
        ``suppressed_mask``, ``record_class_sizes``) are then per row."""
        self.columns = tuple(columns)
        self.lattice = Lattice(tuple(c.height for c in columns), tuple(c.name for c in columns))
        rows = int(columns[0].codes.size) if columns else 0
        self.weights = np.ones(rows, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
        self.n = int(self.weights.sum())
        self.admissibility = admissibility or Admissibility(k, max_suppression, self.n)
        if (self.admissibility.k, self.admissibility.max_suppression) != (k, max_suppression):
            raise ValueError("the admissibility rule was built for another k or suppression limit")
        self.k = k
        self.max_suppression = max_suppression
        self.max_suppressed = self.admissibility.limit
        self.extras = self.admissibility.extras
        self._outcomes: OrderedDict[Node, Outcome] = OrderedDict()
        # each class's first record is carried through the frequency sets when a release-level model may need
        # ARX's order of suppression (``Admissibility._enforce``)
        self._firsts = any(m.release_level for m in self.admissibility.models)
        # up[j][a] is a (H_j+1, c_{j,a}) table: code at level a -> code at each level b >= a
        self._up = [self._level_maps(c) for c in self.columns]
        self._cards = [[int(c.cardinality(v)) for v in range(c.height + 1)] for c in self.columns]
        self._extra_cards = [int(e.cardinality) for e in self.extras]
        self._rollup = RollUp(self._up, [e.cardinality for e in self.extras])
        self.checks = 0
        self.rollups = 0
        self.seconds = 0.0
        self._cache: OrderedDict[Node, FrequencySet] = OrderedDict()
        self._cached_classes = 0
        self._sources = Sources(len(self.columns))
        self._floors: set[Node] = set()  # meets with the level-1 cube met once (see _snapshot)
        bottom = self.lattice.bottom
        self._bottom = self._build(bottom, self._with_extras([c.codes for c in self.columns]), self.weights,
                                   self._record_rows())

    @staticmethod
    def _level_maps(c: EncodedColumn) -> list[np.ndarray]:
        maps = []
        for a in range(c.height + 1):
            table = np.zeros((c.height + 1, c.cardinality(a)), dtype=np.int32)
            for b in range(a, c.height + 1):
                table[b, c.level_codes[:, a]] = c.level_codes[:, b]
            maps.append(table)
        return maps

    def cardinalities(self, node: Node) -> list[int]:
        return list(map(getitem, self._cards, node))

    def _with_extras(self, qi_codes: list[np.ndarray]) -> np.ndarray:
        """Record codes: the quasi-identifiers' (at some levels), then the extra columns."""
        parts = [*qi_codes, *[e.codes for e in self.extras]]
        return np.stack(parts, axis=1) if parts else np.zeros((self.weights.size, 0), dtype=np.int64)

    def _record_rows(self) -> np.ndarray | None:
        """Each record's row, the first records of the classes built from the records (when kept)."""
        return np.arange(self.weights.size, dtype=np.int64) if self._firsts else None

    def _build(self, node: Node, codes: np.ndarray, counts: np.ndarray,
               firsts: np.ndarray | None = None) -> FrequencySet:
        """The frequency set of rows ``codes`` (quasi-identifiers, then extras) weighted by ``counts`` (each row's
        first record ``firsts``, when kept)."""
        cards = [*self.cardinalities(node), *[e.cardinality for e in self.extras]]
        if firsts is None:
            return self._classes(node, *distinct_rows(codes, cards, counts))
        groups = group_rows(codes, cards, counts, with_inverse=True)
        assert groups.inverse is not None
        new_firsts = np.full(groups.size, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(new_firsts, groups.inverse, firsts)
        return self._classes(node, np.asarray(codes)[groups.first], groups.counts, new_firsts)

    def _classes(self, node: Node, new_codes: np.ndarray, new_counts: np.ndarray,
                 firsts: np.ndarray | None = None) -> FrequencySet:
        """The frequency set of distinct rows in lexicographic order (quasi-identifiers, then extras) and their
        counts (and first records); with extras the rows of one class are contiguous."""
        new_codes = np.asfortranarray(new_codes, dtype=np.int32)  # column by column: what roll-ups and measures read
        detail = None
        if self.extras:
            r = len(self.columns)
            qi = new_codes[:, :r]
            change = np.ones(qi.shape[0], dtype=bool)
            if qi.shape[0] > 1:
                change[1:] = (qi[1:] != qi[:-1]).any(axis=1)
            starts = np.flatnonzero(change)
            row_class = np.cumsum(change) - 1
            detail = (new_codes, new_counts, row_class)
            for a in detail:
                a.setflags(write=False)
            new_codes = np.asfortranarray(qi[starts])
            new_counts = np.add.reduceat(new_counts, starts) if starts.size else new_counts[:0]
        new_codes.setflags(write=False)
        new_counts.setflags(write=False)
        if firsts is not None:
            firsts.setflags(write=False)
        return FrequencySet(node, new_codes, new_counts, detail, firsts)

    def rollup(self, source: FrequencySet, node: Node) -> FrequencySet:
        """The frequency set of ``node`` from that of any ``source ≤ node`` (sum of counts)."""
        if not Lattice.leq(source.node, node):
            raise ValueError(f"cannot roll up from {source.node} to {node}: not below it")
        codes, counts = (source.detail[0], source.detail[1]) if source.detail is not None else \
            (source.codes, source.counts)
        cards = [*map(getitem, self._cards, node), *self._extra_cards]
        rolled = self._rollup(codes, counts, source.node, node, cards, source.firsts)
        if rolled is not None:
            return self._classes(node, *rolled)
        mapped = codes.copy()  # a key space beyond int64: codes at node's levels, then the general grouping
        for j, (a, b) in enumerate(zip(source.node, node, strict=True)):
            if a != b:
                mapped[:, j] = self._up[j][a][b][codes[:, j]]
        return self._build(node, mapped, counts, source.firsts)

    def direct(self, node: Node) -> FrequencySet:
        """The frequency set of ``node`` computed from the records (no cache, no roll-up)."""
        codes = self._with_extras([c.level_codes[c.codes, v] for c, v in zip(self.columns, node, strict=True)])
        return self._build(node, codes, self.weights, self._record_rows())

    def frequency_set(self, node: Node) -> FrequencySet:
        """Cached frequency set, rolled up from the cached node below with the fewest classes (once the cache is
        large, from the smallest cached predecessor when there is one), else from the bottom."""
        node = tuple(node)
        if node == self._bottom.node:
            return self._bottom
        hit = self._cache.get(node)
        if hit is not None:
            self._cache.move_to_end(node)
            return hit
        sources = []
        if len(self._cache) > _SCAN_LIMIT:  # a dense search (bnb) has a predecessor at hand
            sources = [self._cache[p] for p in self.lattice.predecessors(node) if p in self._cache]
        if sources:
            source = min(sources, key=lambda fs: fs.classes)
        else:  # sparse searches (OLA, Flash): the cached node below with the fewest classes, one numpy query
            below = self._sources.cheapest_below(node, self._bottom.classes)
            source = self._cache[below] if below is not None else self._snapshot(node)
        fs = self.rollup(source, node)
        self.rollups += 1
        self._remember(fs)
        return fs

    def _snapshot(self, node: Node) -> FrequencySet:
        """The source for a node with no cached node below it that costs less than the bottom: the bottom the
        first time, and from the second node on with the same meet with the level-1 cube (``u_j = min(x_j, 1)``),
        that meet, rolled up once (from the cheapest cached source) and cached (at most 2^r of them), so that the
        nodes above it start from a set that lost the finest level's detail rather than from the bottom."""
        floor = tuple(min(v, 1) for v in node)
        if floor in (node, self._bottom.node):
            return self._bottom
        fs = self._cache.get(floor)
        if fs is None:
            if floor not in self._floors:
                self._floors.add(floor)
                return self._bottom
            below = self._sources.cheapest_below(floor, self._bottom.classes)
            fs = self.rollup(self._cache[below] if below is not None else self._bottom, floor)
            self.rollups += 1
            self._remember(fs)
        return fs

    def all_frequency_sets(self) -> Iterator[FrequencySet]:
        """Every node's frequency set once, depth first over the lattice's set-enumeration tree (a node's
        children raise one attribute j at or after the last attribute raised on the way to it, so each node has
        one parent, one level below), each rolled up from its parent (Incognito's bottom-up roll-up, LeFevre
        2005; Issa 2009 ch. 5). Only the sets on the current path and their pending children's parents are
        held, so memory grows with the lattice's height, not its width (a rank-by-rank pass held two whole
        ranks: about 430 MB on the registry sample's 3,600 nodes), and the cache is left alone. The order is
        not ``lattice.nodes()``'s: a caller that needs it sorts."""
        heights = self.lattice.heights
        stack: list[tuple[FrequencySet | None, Node, int]] = [(None, self._bottom.node, 0)]
        while stack:
            parent, node, first = stack.pop()
            if parent is None:
                fs = self._bottom
            else:
                fs = self.rollup(parent, node)
                self.rollups += 1
            yield fs
            for j in range(len(node) - 1, first - 1, -1):  # attribute `first` is popped (and visited) first
                if node[j] < heights[j]:
                    stack.append((fs, (*node[:j], node[j] + 1, *node[j + 1:]), j))
            del fs, parent  # the generator's frame must not keep a finished set alive

    def _remember(self, fs: FrequencySet) -> None:
        self._cache[fs.node] = fs
        self._sources.add(fs.node, fs.classes)
        self._cached_classes += fs.classes
        while self._cached_classes > _CACHE_CLASSES and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._sources.remove(old.node)
            self._cached_classes -= old.classes

    def class_view(self, fs: FrequencySet) -> ClassView:
        """The privacy models' view of a frequency set's classes (each class's first record computed from the
        records when a model asks: ARX's tie-break in the order of suppression)."""
        if fs.detail is None:
            view = ClassView.from_records(np.arange(fs.classes), fs.classes, (), fs.counts, fs.node, fs.codes)
        else:
            codes, counts, row_class = fs.detail
            r = len(self.columns)
            view = ClassView(fs.counts, row_class, codes[:, r:], counts,
                             {e.name: j for j, e in enumerate(self.extras)},
                             {e.name: e.cardinality for e in self.extras}, tuple(fs.node), fs.codes)
        view.first = lambda classes: self.first_records(fs, classes)
        return view

    def first_records(self, fs: FrequencySet, classes: np.ndarray) -> np.ndarray:
        """For some classes of a frequency set (indices): the row of each one's first record (carried through the
        frequency sets, else grouped from the records)."""
        classes = np.asarray(classes, dtype=np.int64)
        firsts = fs.class_firsts()
        if firsts is None:
            codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(self.columns, fs.node, strict=True)],
                             axis=1) if self.columns else np.zeros((self.weights.size, 0), dtype=np.int64)
            groups = group_rows(codes, self.cardinalities(fs.node), with_inverse=True)
            assert groups.inverse is not None
            firsts = np.unique(groups.inverse, return_index=True)[1]
        return firsts[classes]

    def outcome(self, fs: FrequencySet) -> Outcome:
        """Which classes of a frequency set are suppressed and whether its node is admissible (memoized for the
        last few nodes: a search scores the node it has just checked)."""
        rule = self.admissibility
        if rule.plain:
            suppress = fs.counts < self.k
            suppressed = int(fs.counts[suppress].sum())
            return Outcome(suppress, suppressed, rule.within(suppressed), {})
        hit = self._outcomes.get(fs.node)
        if hit is None:
            hit = self._outcomes[fs.node] = rule.outcome(self.class_view(fs))
            while len(self._outcomes) > 64:
                self._outcomes.popitem(last=False)
        return hit

    def evaluate(self, node: Node) -> NodeEvaluation:
        """Check one node: classes, suppressed records, admissibility (k, the privacy models, the limit)."""
        start = time.perf_counter()
        fs = self.frequency_set(node)
        outcome = self.outcome(fs)
        self.checks += 1
        self.seconds += time.perf_counter() - start
        return NodeEvaluation(tuple(node), fs.classes, outcome.suppressed, outcome.admissible)

    def suppressed_mask(self, node: Node) -> np.ndarray:
        """Per record: is it suppressed at ``node`` (in a class smaller than k or violating a privacy model)?"""
        codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(self.columns, node, strict=True)], axis=1) \
            if self.columns else np.zeros((self.n, 0), dtype=np.int64)
        return self.admissibility.suppressed_records(codes, self.cardinalities(node), node)

    def record_class_sizes(self, node: Node) -> np.ndarray:
        """Per record: the size of its equivalence class at ``node``."""
        codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(self.columns, node, strict=True)], axis=1) \
            if self.columns else np.zeros((self.n, 0), dtype=np.int64)
        return class_sizes(codes, self.cardinalities(node))
