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

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.errors import ConfigError
from workbench.privacy import kind
from workbench.privacy.base import ClassView, PrivacyModel
from workbench.privacy.delta_presence import PopulationCounts, population_counts

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

    def in_words(self) -> str:
        if self.counts is not None:
            return (f"every released group of look-alike rows matches at least {self.k:,} people of the population "
                    f"({self.counts.population_size:,} people, of whom {self.counts.subset_size:,} are in the data), "
                    "so someone who knows a person's quasi-identifiers cannot narrow them down to fewer than "
                    f"{self.k:,} people")
        return (f"every released group of look-alike rows is estimated to match at least {self.k:,} people of a "
                f"population of {self.population:,.0f}: each holds at least {self.derived_k:,} records, which a "
                f"{'Poisson' if self.estimator == 'poisson' else 'zero-truncated Poisson'} model of the population "
                f"says stand for {self.k:,} people or more, "
                f"with at most a {100 * self.significance:g} % chance of being wrong")

    def as_dict(self) -> dict[str, object]:
        if self.counts is not None:
            return {"model": self.id, "k": self.k, "subset": self.counts.subset_size,
                    "population": self.counts.population_size}
        return {"model": self.id, "k": self.k, "population": self.population, "estimator": self.estimator,
                "significance": self.significance, "derived_k": self.derived_k, "type1_error": self.type1_error}


# ------------------------------------------------------------------------------------------ the registry entry
def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.k_map]``: k at least 1, and either a population table (``subset``) or a population size with its
    estimator and significance in [0, 1)."""
    out: dict[str, Any] = {"k": kind.at_least_one(table, "k", where)}
    if ("subset" in table) == ("population" in table):
        raise ConfigError(f"{where} needs either 'subset' (a population table: the data file is the population and "
                          "the subset is released) or 'population' (a number of people: the class sizes there are "
                          "estimated), not both")
    estimated = "population" in table
    kind.only_for(table, "estimator", estimated, "an estimated population ('population')", where)
    kind.only_for(table, "significance", estimated, "an estimated population ('population')", where)
    if not estimated:
        out["subset"] = kind.research_subset(table["subset"], base)
        return out
    out["population"] = kind.people(table, "population", where)
    out["estimator"] = kind.choice(table, "estimator", ESTIMATORS, ESTIMATORS[0], where)
    significance = float(table.get("significance", 0.01))
    if not 0.0 <= significance < 1.0:
        raise ConfigError(f"{where}.significance must be in [0, 1), got {significance}")
    out["significance"] = significance
    return out


def build(spec: kind.PrivacyModelSpec, context: kind.BuildContext) -> PrivacyModel:
    dataset = context.dataset
    if spec.get("population") is None:
        return KMap(int(spec.get("k")), counts=population_counts(spec, context))
    population = float(spec.get("population"))
    if population < dataset.n:
        raise ConfigError(f"privacy.{spec.kind}.population {population:g} is smaller than the {dataset.n:,} records "
                          "of the data (the data is a sample of the population)")
    return KMap(int(spec.get("k")), population=population, estimator=spec.get("estimator"),
                significance=float(spec.get("significance")), records=dataset.n)


def _short(table: Mapping[str, Any]) -> str:
    return f"kmap{kind.figure(table.get('k', ''))}"


DESCRIPTION = ("every released class matches at least k people of the population, not k records of the data "
               "(Sweeney 2001; ARX's k-map): against the data file with its research subset released, or estimated "
               "from the population's size")
ESTIMATE, TABLE = "estimated from its size", "the data file (research subset released)"
"""The form's two ways to know the population (the second only on a sample with a research subset)."""



def _sources(context: kind.FormContext) -> tuple[str, ...]:
    return (ESTIMATE, TABLE) if context.subset is not None else (ESTIMATE,)


KIND = kind.PrivacyModelKind(
    id="k_map", label="k-map", description=DESCRIPTION,
    keys={"k": kind.ConfigKey((int,), doc="people per class, at least 1"),
          "subset": kind.ConfigKey((str,), doc="a population table: the research subset released"),
          "population": kind.ConfigKey((int, float), doc="a population size: the people estimated, at least 1"),
          "estimator": kind.ConfigKey((str,), ESTIMATORS, ESTIMATORS[0], "the population model (estimate only)"),
          "significance": kind.ConfigKey((int, float), default=0.01, doc="in [0, 1) (estimate only)")},
    check=check, build=build, short=_short,
    citation="Sweeney 2001; El Emam & Dankar, JAMIA 15(5), 2008",
    form=kind.ModelForm(
        key="km", label="k-map", help=DESCRIPTION,
        offered=lambda context: bool(context.sensitive) or context.subset is not None,
        fields=(kind.FormField("k", "k (people)", "number", key="k", default=5, min_value=1, step=1,
                               cast=lambda v, form: int(v)),
                kind.FormField("source", "Population", "choice", default=ESTIMATE, choices_of=_sources),
                kind.FormField("subset", "Research subset", "subset", key="subset",
                               when=lambda form: form["source"] == TABLE),
                kind.FormField("pop", "Population size", "number", key="population", default=1_000_000, min_value=1,
                               step=1000, when=lambda form: form["source"] == ESTIMATE, cast=lambda v, form: int(v)),
                kind.FormField("est", "Estimator", "choice", key="estimator", choices=ESTIMATORS,
                               default=ESTIMATORS[0], when=lambda form: form["source"] == ESTIMATE))))
