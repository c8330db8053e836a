"""Samarati (2001): binary search on the height of the generalization lattice.

k-anonymity with suppression is monotone, so if no node of height h is k-anonymous, none below h is
(El Emam et al. 2009, "Samarati's binary search"). The search finds the lowest height with a k-anonymous
node, scanning each probed level lexicographically and stopping at its first k-anonymous node (predictive
tagging answers many later probes), then evaluates that whole level and returns its k-anonymous node
minimizing the objective. Lowest height is not lowest loss: the result is a heuristic.
"""

from __future__ import annotations

import time

from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude
from workbench.lattice.tagging import TaggedLattice


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """The objective's best k-anonymous node on the lowest level that has one (None if the top is not)."""
    start = time.perf_counter()
    lattice = space.lattice
    if not space.status(lattice.top):
        return conclude(space, "samarati", objective, [], start, proven_optimal=False)
    lo, hi = 0, lattice.max_rank  # invariant: level hi has a k-anonymous node, no level below lo has
    while lo < hi:
        h = (lo + hi) // 2
        if any(space.status(node) for node in lattice.by_rank[h]):  # any() stops at the first hit
            hi = h
        else:
            lo = h + 1
    level = [node for node in lattice.by_rank[lo] if space.status(node)]
    return conclude(space, "samarati", objective, level, start, proven_optimal=False,
                    note=f"lowest k-anonymous height: {lo}")
