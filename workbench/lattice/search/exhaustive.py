"""Exhaustive search: evaluate every node of the lattice (the gold standard of El Emam 2009, §Methods).

Nodes are visited by rank so that every frequency set is rolled up from a predecessor's. Returns the
admissible (k-anonymous) node minimizing the objective, for any objective, monotone or not.
"""

from __future__ import annotations

import time

from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude
from workbench.lattice.tagging import TaggedLattice


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Check all nodes; the optimum over the k-anonymous ones (None when there is none)."""
    start = time.perf_counter()
    admissible = [node for node in space.lattice.nodes() if space.check(node).k_anonymous]
    return conclude(space, "exhaustive", objective, admissible, start, proven_optimal=True)
