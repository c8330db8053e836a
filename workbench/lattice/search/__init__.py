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

__all__ = ["ALGORITHMS", "ANY_OBJECTIVE", "MONOTONE_OBJECTIVE", "NO_LIMITS", "AlgorithmSpec", "Limits", "Objective",
           "Progress", "SearchResult", "best_of", "conclude", "tie_key"]


ANY_OBJECTIVE, MONOTONE_OBJECTIVE = "any", "monotone"
"""``AlgorithmSpec.optimal_for``: the objectives a search proves its node optimal for (None: a heuristic)."""


@dataclass(frozen=True)
class AlgorithmSpec:
    """A registered search: ``optimal_for`` the objectives it proves its node optimal for (``ANY_OBJECTIVE``,
    ``MONOTONE_OBJECTIVE``, or None for a heuristic); ``prunes``: it prunes the lattice assuming admissibility is
    monotone (predictive tagging), so a privacy model that is not monotone at the suppression limit refuses it
    (``workbench.policy.admissibility_refusal``); whether it is ``anytime`` (stops at ``Limits.time_limit`` with
    its best so far); ``default_time_limit``: the budget an anytime search uses when no time limit is given (None:
    it runs to its end)."""

    id: str
    search: Callable[[TaggedLattice, Objective, Limits], SearchResult]
    optimal_for: str | None
    citation: str
    prunes: bool = False
    anytime: bool = False
    default_time_limit: float | None = None

    @property
    def optimal(self) -> bool:
        """It returns a proven optimum (for a monotone objective at least)."""
        return self.optimal_for is not None

    @property
    def requires_monotone(self) -> bool:
        """Its optimality proof needs a monotone objective."""
        return self.optimal_for == MONOTONE_OBJECTIVE

    @property
    def optimal_for_any_rule(self) -> bool:
        """Optimal for any objective under any privacy rule: it neither assumes a monotone objective nor prunes."""
        return self.optimal_for == ANY_OBJECTIVE and not self.prunes


ALGORITHMS: dict[str, AlgorithmSpec] = {
    spec.id: spec
    for spec in [
        AlgorithmSpec("exhaustive", exhaustive.search, ANY_OBJECTIVE,
                      "El Emam et al. 2009 (brute force, the gold standard)"),
        AlgorithmSpec("datafly", datafly.search, None, "Sweeney 1997; MaxSup stopping rule of El Emam et al. 2009"),
        AlgorithmSpec("samarati", samarati.search, None, "Samarati 2001 (binary search on height)", prunes=True),
        AlgorithmSpec("incognito", incognito.search, ANY_OBJECTIVE, "LeFevre, DeWitt & Ramakrishnan 2005"),
        AlgorithmSpec("ola", ola.search, MONOTONE_OBJECTIVE, "El Emam et al. 2009; Issa 2009 (corrected GetOSC)",
                      prunes=True, anytime=True),
        AlgorithmSpec("flash", flash.search, ANY_OBJECTIVE,
                      "Kohlmayer et al. 2012; with antichain stores, Kohlmayer, Prasser et al. 2016; ARX's linear "
                      "phase for objectives that are not monotone", prunes=True, anytime=True),
        AlgorithmSpec("bnb", bnb.search, ANY_OBJECTIVE, "Kohlmayer, Prasser et al. 2016 (best-first branch-and-bound)",
                      anytime=True),
        AlgorithmSpec("lightning", lightning.search, None,
                      "Prasser, Bild, Eicher, Spengler, Kohlmayer & Kuhn 2016 (LIGHTNING: best-first with greedy "
                      "dives; then hill climbing)", anytime=True, default_time_limit=lightning.DEFAULT_BUDGET),
    ]
}
"""The lattice searches, in the order the config and the front ends list them (the first is the config's
default). A new search is one module and one entry here (docs/architecture.md)."""
