"""Placeholder while the ola module is being written (issue #3); replaced before the issue is resolved."""

from __future__ import annotations

from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult
from workbench.lattice.tagging import TaggedLattice


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    raise NotImplementedError("ola")
