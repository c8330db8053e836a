"""Risk thresholds on the released classes, as ARX's risk-based models (``AverageReidentificationRisk.java``,
``SampleUniqueness.java``, ``PopulationUniqueness.java``; El Emam, "Guide to the De-Identification of
Personal Health Information", 2013; Dankar, El Emam, Neisa & Roffey, "Estimating the re-identification risk
of clinical data sets", BMC Med Inform Decis Mak 12:66, 2012).

They judge the kept classes as a whole (release-level): when they fail, more classes are suppressed, in ARX's
order and number (``Admissibility._enforce``: smallest first, ARX's binary search of ``RiskBasedCriterion.
enforce``); the suppression limit then decides admissibility. Each judges the kept class sizes only:

- average: average prosecutor risk, 1 / (kept records / kept classes) (ARX's operations) <= threshold;
- sample_uniqueness: share of kept records alone in their class <= threshold;
- population_uniqueness: estimated share of the population that is unique (Pitman, Zayatz, SNB or Dankar's
  decision rule, ``workbench.risk.uniqueness``; sampling fraction = kept records / population) <= threshold,
  for a population of ``population`` people; an estimate of 0 is accepted only when no kept record is unique,
  and Dankar's rule falls back on no other model when Pitman has no estimate (ARX ``PopulationUniqueness``).

Average risk and sample uniqueness only fall when classes merge, so they are monotone with generalization;
population-uniqueness estimates are not monotone (ARX), and none is declared monotone with suppression.
"""

from __future__ import annotations

import numpy as np

from workbench.privacy.base import PrivacyModel
from workbench.risk.histogram import Histogram
from workbench.risk.uniqueness import ITERATIONS_PER_TRY, estimated_uniques

MODELS = ("average", "sample_uniqueness", "population_uniqueness")


class RiskThreshold(PrivacyModel):
    """One risk figure of the kept classes at most ``threshold``."""

    id = "risk"
    release_level = True

    def __init__(self, model: str, threshold: float, estimator: str | None = None,
                 population: float | None = None, solver_iterations: int = ITERATIONS_PER_TRY) -> None:
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {model!r}")
        self.model, self.threshold, self.estimator, self.population = model, threshold, estimator, population
        self.solver_iterations = solver_iterations
        self.monotone_with_generalization = model != "population_uniqueness"

    def value(self, kept_sizes: np.ndarray) -> float:
        """The risk figure of the kept classes (0 when every record is suppressed)."""
        sizes = np.asarray(kept_sizes, dtype=np.int64)
        records = int(sizes.sum())
        if records == 0:
            return 0.0
        if self.model == "average":
            return 1.0 / (records / sizes.size)  # ARX: 1 / average class size, in this order of operations
        if self.model == "sample_uniqueness":
            return int((sizes == 1).sum()) / records
        assert self.population is not None and self.estimator is not None
        uniques, _ = estimated_uniques(Histogram.of(sizes), self.population, self.estimator, zayatz_fallback=False,
                                       iterations_per_try=self.solver_iterations)
        return float("inf") if uniques is None else uniques / float(self.population)

    def fulfilled(self, kept_sizes: np.ndarray, n: int) -> bool:
        sizes = np.asarray(kept_sizes, dtype=np.int64)
        value = self.value(sizes)
        if self.model == "population_uniqueness" and value == 0.0:
            return not bool((sizes == 1).any())
        return value <= self.threshold

    def fulfilled_prefixes(self, rest: np.ndarray, removable: np.ndarray, n: int) -> np.ndarray | None:
        """Average risk and sample uniqueness of every step of the enforcement at once, from suffix sums (the same
        divisions as ``value``); None for population uniqueness, whose estimators are solved one histogram at a
        time."""
        if self.model == "population_uniqueness":
            return None
        rest, removable = np.asarray(rest, dtype=np.int64), np.asarray(removable, dtype=np.int64)

        def kept_after_each_step(x: np.ndarray) -> np.ndarray:  # Σ x[p:] for p = 1..len(x)
            return np.append(np.cumsum(x[::-1])[::-1][1:], 0) if x.size else x

        records = int(rest.sum()) + kept_after_each_step(removable)
        if self.model == "average":
            count = rest.size + kept_after_each_step(np.ones_like(removable))
        else:
            count = int((rest == 1).sum()) + kept_after_each_step((removable == 1).astype(np.int64))
        with np.errstate(divide="ignore", invalid="ignore"):
            value = 1.0 / (records / count) if self.model == "average" else count / records
        return np.where(records > 0, value, 0.0) <= self.threshold

    def describe(self) -> str:
        what = {"average": "average re-identification risk", "sample_uniqueness": "sample uniqueness",
                "population_uniqueness": f"population uniqueness ({self.estimator})"}[self.model]
        return f"{what} <= {self.threshold:g}"

    def in_words(self) -> str:
        share = f"{100 * self.threshold:g} %"
        if self.model == "average":
            return f"the chance of picking out a person's row, averaged over the records, is at most {share}"
        if self.model == "sample_uniqueness":
            return f"at most {share} of the records are alone in their group of look-alike rows"
        return (f"at most {share} of the population ({self.population:,.0f} people) is estimated to be alone on the "
                f"quasi-identifiers ({self.estimator} estimate)")

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"model": self.id, "risk": self.model, "threshold": self.threshold}
        if self.model == "population_uniqueness":
            out |= {"estimator": self.estimator, "population": self.population,
                    "solver_iterations": self.solver_iterations}
        return out
