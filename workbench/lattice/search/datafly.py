"""Datafly (Sweeney 1997) with the suppression-limit stopping rule of El Emam et al. 2009.

A greedy walk up one generalization strategy: starting at the bottom, while the current node is not
k-anonymous within the suppression limit, raise by one level the quasi-identifier (below its top) with the
most distinct values in the current generalized table; ties are broken at random with a seeded generator
(``Limits.seed``), so a seed fixes the path. No objective is used: the result is a heuristic.
"""

from __future__ import annotations

import time

import numpy as np

from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice


def distinct_values(space: TaggedLattice, node: Node) -> list[int]:
    """Distinct values of each quasi-identifier in the table generalized to ``node`` (from its frequency set)."""
    codes = space.evaluator.frequency_set(node).codes
    return [int(np.unique(codes[:, j]).size) for j in range(codes.shape[1])]


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Walk up from the bottom by Datafly's rule; the first k-anonymous node, or None if the top is not."""
    start = time.perf_counter()
    rng = np.random.default_rng(limits.seed)
    heights = space.lattice.heights
    node = space.lattice.bottom
    while not space.check(node).k_anonymous:
        distinct = distinct_values(space, node)
        raisable = [j for j, v in enumerate(node) if v < heights[j]]
        if not raisable:  # the top is not k-anonymous: no solution
            return conclude(space, "datafly", objective, [], start, proven_optimal=False)
        most = max(distinct[j] for j in raisable)
        tied = [j for j in raisable if distinct[j] == most]
        j = tied[0] if len(tied) == 1 else int(rng.choice(tied))
        node = node[:j] + (node[j] + 1,) + node[j + 1:]
    return conclude(space, "datafly", objective, [node], start, proven_optimal=False)
