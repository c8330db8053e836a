"""Lattice search algorithms, one module each, registered with their properties and citation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import exhaustive
from workbench.lattice.search.result import Objective, SearchResult, best_of, tie_key

__all__ = ["ALGORITHMS", "PLANNED", "AlgorithmSpec", "Objective", "SearchResult", "best_of", "tie_key"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered search: ``optimal`` (proven optimum) or heuristic, and whether the optimum is only
    guaranteed for a monotone objective."""

    id: str
    search: Callable[[NodeEvaluator, Objective], SearchResult]
    optimal: bool
    requires_monotone: bool
    citation: str


ALGORITHMS: dict[str, AlgorithmSpec] = {
    "exhaustive": AlgorithmSpec("exhaustive", exhaustive.search, True, False,
                                "El Emam et al. 2009 (brute force as the gold standard)"),
}

PLANNED = ("datafly", "samarati", "incognito", "ola", "flash", "bnb")
"""Lattice algorithm ids of the config contract (DESIGN.md §3) not yet available."""
