"""k-map (Sweeney, "Computational disclosure control: a primer on data privacy protection", 2001; El Emam & Dankar,
"Protecting privacy using k-anonymity", JAMIA 15(5), 2008), as ARX implements it (``KMap.java``): every released
class matches at least k people of the population, not k records of the sample.

Two ways to know the population, as ARX:

- a population table (``subset``): the data file is the population and the release is a research subset of it (as
  δ-presence, ``workbench.privacy.delta_presence``); a class holds when its population records, counted at the node,
  are at least k (ARX's ``pcount``). It needs the lattice node, so Mondrian cannot check it per partition;
- an estimate (``population``, a number of people): the class sizes in the population are modelled as Poisson
  (Pannekoek 1999, El Emam & Dankar's D3) or zero-truncated Poisson (D4) with mean λ = (n / N) · k, and the model
  becomes k'-anonymity with k' from ``derived_k``: the smallest class size of the sample that, at the significance
  level, rules out a population class below k. It reads only class sizes, so Mondrian enforces it.

Class sizes and population counts only grow when classes merge: monotone with generalization and with suppression
(ARX).
"""

from __future__ import annotations

import numpy as np

from workbench.privacy.base import ClassView, PrivacyModel
from workbench.privacy.delta_presence import PopulationCounts

ESTIMATORS = ("poisson", "zero_truncated_poisson")


def derived_k(k: int, records: int, population: float, estimator: str,
              significance: float) -> tuple[int, float]:
    """ARX's k' for k-map estimated from a population size (``KMap.calculateKPoisson``, ``calculateKZeroPoisson``)
    and the type I error it leaves: λ = (records / population) · k; Poisson: the first c with P(X ≤ c) ≥ 1 −
    significance gives k' = c + 2 (ARX's loop); zero-truncated: the first c with Σ_{j=1..c} P(X = j) / (1 − P(X = 0))
    ≥ 1 − significance gives k' = c + 1; either loop stops, with error 0, once its counter reaches k. Then k' is at
    most the number of records and at most k."""
    from scipy.stats import poisson  # imported here: the estimate is its only user

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    lam = records / float(population) * k
    threshold = 1.0 - significance
    value = 0.0
    if estimator == "poisson":
        counter = 0
        while value < threshold:
            value = float(poisson.cdf(counter, lam))
            counter += 1
            if counter >= k:
                value = 1.0
                break
        result = counter + 1
    else:
        rest = 1.0 - float(poisson.pmf(0, lam))
        counter = 1
        while value < threshold:
            value += float(poisson.pmf(counter, lam)) / rest
            counter += 1
            if counter >= k:
                value = 1.0
                break
        result = counter
    return min(k, min(result, records)), 1.0 - value


class KMap(PrivacyModel):
    """k-map against a population table (``counts``) or a population-size estimate (``population``)."""

    id = "k_map"
    monotone_with_suppression = True
    monotone_with_generalization = True

    def __init__(self, k: int, counts: PopulationCounts | None = None, population: float | None = None,
                 estimator: str = "poisson", significance: float = 0.01, records: int | None = None) -> None:
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if (counts is None) == (population is None):
            raise ValueError("k-map needs either a population table or a population size")
        self.k, self.counts, self.population = int(k), counts, population
        self.estimator, self.significance = estimator, float(significance)
        self.type1_error = 0.0
        if counts is None:
            assert population is not None and records is not None
            self.derived_k, self.type1_error = derived_k(self.k, records, population, estimator, self.significance)
            self.minimal_class_size = self.derived_k if self.derived_k > 1 else None
            self.partition_checkable = True
        else:
            self.derived_k = self.k

    def population_sizes(self, view: ClassView) -> np.ndarray:
        """Per class: the people of the population it matches (the population table's count; with an estimate, the
        class's records, which stand for at least k people when there are k' of them)."""
        return view.sizes if self.counts is None else self.counts.population_sizes(view)

    def violating(self, view: ClassView) -> np.ndarray:
        if self.counts is None:
            return view.sizes < self.derived_k
        return self.counts.population_sizes(view) < self.k

    def describe(self) -> str:
        if self.counts is not None:
            return f"{self.k}-map ({self.counts.subset_size:,} of {self.counts.population_size:,} records)"
        return (f"{self.k}-map estimated as {self.derived_k}-anonymity ({self.estimator.replace('_', '-')}, "
                f"population {self.population:,.0f})")

    def as_dict(self) -> dict[str, object]:
        if self.counts is not None:
            return {"model": self.id, "k": self.k, "subset": self.counts.subset_size,
                    "population": self.counts.population_size}
        return {"model": self.id, "k": self.k, "population": self.population, "estimator": self.estimator,
                "significance": self.significance, "derived_k": self.derived_k, "type1_error": self.type1_error}
