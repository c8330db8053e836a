"""Lattice search algorithms, one module each, registered with their properties and citation.

Every algorithm is ``search(space: TaggedLattice, objective: Objective, limits: Limits) -> SearchResult``;
predictive tagging and the trace live in ``space`` (workbench.lattice.tagging).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from workbench.lattice.search import bnb, datafly, exhaustive, flash, incognito, lightning, ola, samarati
from workbench.lattice.search.result import (
    NO_LIMITS,
    Limits,
    Objective,
    Progress,
    SearchResult,
    best_of,
    conclude,
    tie_key,
)
from workbench.lattice.tagging import TaggedLattice

__all__ = ["ALGORITHMS", "NO_LIMITS", "AlgorithmSpec", "Limits", "Objective", "Progress", "SearchResult", "best_of",
           "conclude", "tie_key"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered search: ``optimal`` (returns a proven optimum) or heuristic, whether that proof needs a
    monotone objective, and whether it is ``anytime`` (stops at ``Limits.time_limit`` with its best so far);
    ``default_time_limit``: the budget an anytime search uses when no time limit is given (None: it runs to its
    end)."""

    id: str
    search: Callable[[TaggedLattice, Objective, Limits], SearchResult]
    optimal: bool
    requires_monotone: bool
    citation: str
    anytime: bool = False
    default_time_limit: float | None = None


ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.id: spec
    for spec in [
        AlgorithmSpec("exhaustive", exhaustive.search, True, False,
                      "El Emam et al. 2009 (brute force, the gold standard)"),
        AlgorithmSpec("datafly", datafly.search, False, False,
                      "Sweeney 1997; MaxSup stopping rule of El Emam et al. 2009"),
        AlgorithmSpec("samarati", samarati.search, False, False, "Samarati 2001 (binary search on height)"),
        AlgorithmSpec("incognito", incognito.search, True, False, "LeFevre, DeWitt & Ramakrishnan 2005"),
        AlgorithmSpec("ola", ola.search, True, True, "El Emam et al. 2009; Issa 2009 (corrected GetOSC)",
                      anytime=True),
        AlgorithmSpec("flash", flash.search, True, False,
                      "Kohlmayer et al. 2012; with antichain stores, Kohlmayer, Prasser et al. 2016; ARX's linear "
                      "phase for objectives that are not monotone", anytime=True),
        AlgorithmSpec("bnb", bnb.search, True, False,
                      "Kohlmayer, Prasser et al. 2016 (best-first branch-and-bound)", anytime=True),
        AlgorithmSpec("lightning", lightning.search, False, False,
                      "Prasser, Bild, Eicher, Spengler, Kohlmayer & Kuhn 2016 (LIGHTNING: best-first with greedy "
                      "dives; then hill climbing)", anytime=True, default_time_limit=lightning.DEFAULT_BUDGET),
    ]
}
