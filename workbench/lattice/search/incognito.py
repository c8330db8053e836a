"""Incognito (LeFevre, DeWitt & Ramakrishnan 2005), Super-Root variant, as described by El Emam et al. 2009.

Quasi-identifier subsets are processed by size, 1 to r. Within each subset's candidate lattice, nodes are
visited breadth-first bottom-up; a node above a k-anonymous one is k-anonymous without evaluation
(generalization property), and each evaluated frequency set is rolled up from an evaluated predecessor's,
or from the subset's super-root (the meet of its candidates, projected once from the bottom frequency
set). Candidates of size i + 1 are joined apriori-style from the k-anonymous nodes of size i and pruned
when any size-i sub-generalization is not k-anonymous (subset property; it holds with suppression because
classes over a larger set refine those over a smaller one). The full quasi-identifier set is searched
through the tagged lattice: those are the counted checks, and pruned full nodes are tagged not k-anonymous.
All k-anonymous full nodes are found, so the minimum is optimal for any objective, monotone or not.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from workbench.grouping import distinct_rows
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice

Attrs = tuple[int, ...]


class _SubsetFrequencies:
    """Frequency sets over quasi-identifier subsets, projected from the bottom frequency set and rolled up."""

    def __init__(self, evaluator: NodeEvaluator, bottom: Node) -> None:
        self.columns = evaluator.columns
        base = evaluator.frequency_set(bottom)  # codes at level 0 = original value codes
        self.codes, self.counts = base.codes, base.counts
        self.k = evaluator.k
        self.admissibility = evaluator.admissibility
        self._maps: dict[tuple[int, int, int], np.ndarray] = {}

    def _map(self, j: int, a: int, b: int) -> np.ndarray:
        """Code at level a -> code at level b of column j."""
        key = (j, a, b)
        table = self._maps.get(key)
        if table is None:
            level_codes = self.columns[j].level_codes
            table = np.zeros(self.columns[j].cardinality(a), dtype=np.int32)
            table[level_codes[:, a]] = level_codes[:, b]
            self._maps[key] = table
        return table

    def project(self, attrs: Attrs, levels: Node) -> tuple[np.ndarray, np.ndarray]:
        """Frequency set over ``attrs`` at ``levels``, from the bottom frequency set."""
        codes = np.stack([self.columns[j].level_codes[self.codes[:, j], v] for j, v in zip(attrs, levels,
                                                                                           strict=True)], axis=1)
        return distinct_rows(codes, self._cards(attrs, levels), self.counts)

    def rollup(self, attrs: Attrs, source: Node, fs: tuple[np.ndarray, np.ndarray],
               levels: Node) -> tuple[np.ndarray, np.ndarray]:
        """Frequency set over ``attrs`` at ``levels`` from that at ``source ≤ levels``."""
        codes, counts = fs
        mapped = codes.copy()
        for i, (j, a, b) in enumerate(zip(attrs, source, levels, strict=True)):
            if a != b:
                mapped[:, i] = self._map(j, a, b)[codes[:, i]]
        return distinct_rows(mapped, self._cards(attrs, levels), counts)

    def _cards(self, attrs: Attrs, levels: Node) -> list[int]:
        return [self.columns[j].cardinality(v) for j, v in zip(attrs, levels, strict=True)]

    def k_anonymous(self, counts: np.ndarray) -> bool:
        """k-anonymity within the limit over a subset. Privacy models are not checked here: a node over all
        quasi-identifiers that is admissible is k-anonymous within the limit, so pruning on k alone is sound
        for every model, monotone or not; the full nodes are checked with every model."""
        return self.admissibility.within(int(counts[counts < self.k].sum()))


def _candidates(attrs: Attrs, heights: tuple[int, ...], anonymous: dict[Attrs, set[Node]]) -> list[Node]:
    """Nodes over ``attrs`` all of whose sub-generalizations one attribute smaller are k-anonymous, joined
    from the prefix subset's k-anonymous nodes; sorted by rank, then lexicographically."""
    if len(attrs) == 1:
        return [(v,) for v in range(heights[attrs[0]] + 1)]
    drops = [(d, anonymous[attrs[:d] + attrs[d + 1:]]) for d in range(len(attrs) - 1)]
    out = []
    for prefix in anonymous[attrs[:-1]]:
        for v in range(heights[attrs[-1]] + 1):
            node = prefix + (v,)
            if all(node[:d] + node[d + 1:] in sub for d, sub in drops):
                out.append(node)
    out.sort(key=lambda node: (sum(node), node))
    return out


def _subset_search(frequencies: _SubsetFrequencies, attrs: Attrs, candidates: list[Node]) -> tuple[set[Node], int]:
    """Breadth-first bottom-up over one subset's candidates: its k-anonymous nodes and the evaluations made."""
    anonymous: set[Node] = set()
    if not candidates:
        return anonymous, 0
    root = tuple(min(levels) for levels in zip(*candidates, strict=True))
    root_fs = frequencies.project(attrs, root)
    stored: dict[Node, tuple[np.ndarray, np.ndarray]] = {}  # evaluated, not k-anonymous, current & previous rank
    evaluations, rank = 0, sum(candidates[0])
    for node in candidates:
        if sum(node) > rank:
            rank = sum(node)
            stored = {n: fs for n, fs in stored.items() if sum(n) >= rank - 1}
        below = [node[:i] + (v - 1,) + node[i + 1:] for i, v in enumerate(node) if v > 0]
        if any(p in anonymous for p in below):
            anonymous.add(node)
            continue
        sources = [(p, stored[p]) for p in below if p in stored]
        source, fs = min(sources, key=lambda s: s[1][1].size) if sources else (root, root_fs)
        fs = fs if source == node else frequencies.rollup(attrs, source, fs, node)
        evaluations += 1
        if frequencies.k_anonymous(fs[1]):
            anonymous.add(node)
        else:
            stored[node] = fs
    return anonymous, evaluations


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """All k-anonymous nodes by Incognito; the objective's minimum among them (optimal for any objective)."""
    start = time.perf_counter()
    lattice = space.lattice
    heights = lattice.heights
    r = len(heights)
    frequencies = _SubsetFrequencies(space.evaluator, lattice.bottom)
    anonymous: dict[Attrs, set[Node]] = {}
    subset_checks = 0
    for size in range(1, r):
        for attrs in itertools.combinations(range(r), size):
            found, evaluations = _subset_search(frequencies, attrs, _candidates(attrs, heights, anonymous))
            anonymous[attrs] = found
            subset_checks += evaluations
        for attrs in [a for a in anonymous if len(a) < size]:
            del anonymous[attrs]
    full = tuple(range(r))
    candidates = _candidates(full, heights, anonymous) if r > 0 else [lattice.bottom]
    kept = set(candidates)
    for node in lattice.nodes():  # the maximal pruned nodes imply all the others
        if node not in kept and all(s in kept for s in lattice.successors(node)):
            space.tag(node, False)
    admissible = [node for node in candidates if space.status(node)]
    k_minimal = [node for node in admissible if node in space.evaluated]
    return conclude(space, "incognito", objective, admissible, start, proven_optimal=True, k_minimal=k_minimal,
                    subset_checks=subset_checks)
