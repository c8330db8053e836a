"""Privacy models from a study's ``[privacy.*]`` tables and its dataset, with the checks that need the data:
the attribute exists and has role "sensitive", hierarchical t-closeness has a hierarchy covering its values. A
model on several sensitive attributes (``attribute = ["a", "b"]``) is one model per attribute, checked together
(``sensitive.EachAttribute``)."""

from __future__ import annotations

import numpy as np

from workbench.config import Study
from workbench.config.privacy import SENSITIVE_MODELS, PrivacyModelSpec, attributes_of
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.privacy.alpha_k import AlphaK
from workbench.privacy.base import Admissibility, ClassView, Extra, PrivacyModel, TieBreak
from workbench.privacy.beta_likeness import BetaLikeness
from workbench.privacy.delta_disclosure import DeltaDisclosure
from workbench.privacy.delta_presence import DeltaPresence, PopulationCounts
from workbench.privacy.k_map import KMap
from workbench.privacy.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from workbench.privacy.risk_thresholds import RiskThreshold
from workbench.privacy.sensitive import EachAttribute
from workbench.privacy.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalDistanceTCloseness,
    OrderedDistanceTCloseness,
)
from workbench.risk.uniqueness import ITERATIONS_PER_TRY


def sensitive_extra(dataset: Dataset, attribute: str, where: str) -> tuple[Extra, list[str]]:
    """The sensitive attribute's value codes (values in text order) and the values."""
    if attribute not in dataset.frame.columns:
        raise ConfigError(f"{where}.attribute {attribute!r} is not a column of the data; the columns are "
                          f"{', '.join(map(repr, dataset.frame.columns))}")
    role = dataset.roles.get(attribute, "insensitive")
    if role != "sensitive":
        raise ConfigError(f"{where}.attribute {attribute!r} has role {role!r}; a privacy model protects an "
                          f"attribute with role = \"sensitive\" (set [attributes.{attribute}] role = \"sensitive\")")
    values, codes = np.unique(dataset.frame[attribute].to_numpy(dtype=str), return_inverse=True)
    return Extra(f"sensitive:{attribute}", codes.reshape(-1).astype(np.int64), int(values.size)), values.tolist()


def natural_order(values: list[str]) -> np.ndarray:
    """Value codes in their natural order: numerically when every value is a number, else as text (ARX sorts
    by the attribute's data type)."""
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return np.arange(len(values), dtype=np.int64)  # np.unique already sorted them as text
    return np.argsort(np.array(numbers), kind="stable").astype(np.int64)


def hierarchy_parents(dataset: Dataset, attribute: str, values: list[str], where: str) -> list[np.ndarray]:
    """Per level l, the code of each level-l node's parent at level l + 1 (level 0: the value codes)."""
    h = dataset.hierarchies.get(attribute)
    if h is None:
        raise ConfigError(f"{where}: variant 'hierarchical' needs a hierarchy for {attribute!r}: give "
                          f"[attributes.{attribute}] hierarchy = \"FILE.csv\" (or use variant 'equal' or 'ordered')")
    missing = sorted(set(values) - set(h.values))
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ConfigError(f"{where}: the hierarchy of {attribute!r} has no row for {shown}")
    if h.height < 1:
        raise ConfigError(f"{where}: the hierarchy of {attribute!r} has a single level; hierarchical distance needs "
                          "at least two")
    codes, _ = h.level_matrix(values)
    parents = []
    for level in range(h.height):
        parent = np.zeros(int(codes[:, level].max()) + 1, dtype=np.int64)
        parent[codes[:, level]] = codes[:, level + 1]
        if not np.array_equal(parent[codes[:, level]], codes[:, level + 1]):
            raise ConfigError(f"{where}: the hierarchy of {attribute!r} is not a tree at level {level}")
        parents.append(parent)
    return parents


def _sensitive_model(kind: str, spec: PrivacyModelSpec, dataset: Dataset, attribute: str, k: int) -> PrivacyModel:
    """The model of a sensitive-attribute table on one of its attributes."""
    where = f"privacy.{kind}"
    extra, values = sensitive_extra(dataset, attribute, where)
    if kind == "l_diversity":
        variant, level = spec.get("variant"), spec.get("l")
        if variant == "distinct":
            return DistinctLDiversity(extra, int(level))
        if variant == "entropy":
            return EntropyLDiversity(extra, float(level), spec.get("estimator", "shannon"))
        return RecursiveCLDiversity(extra, int(level), float(spec.get("c")))
    if kind == "t_closeness":
        variant, t = spec.get("variant"), float(spec.get("t"))
        if variant == "equal":
            return EqualDistanceTCloseness(extra, t)
        if variant == "ordered":
            return OrderedDistanceTCloseness(extra, t, natural_order(values))
        return HierarchicalDistanceTCloseness(extra, t, hierarchy_parents(dataset, attribute, values, where))
    if kind == "beta_likeness":
        return BetaLikeness(extra, float(spec.get("beta")), spec.get("variant", "basic"))
    if kind == "delta_disclosure":
        return DeltaDisclosure(extra, float(spec.get("delta")))
    chosen = spec.get("values")
    codes = None
    if chosen is not None:
        unknown = [v for v in chosen if v not in values]
        if len(unknown) == len(chosen):
            raise ConfigError(f"{where}.values: {attribute!r} has none of {', '.join(map(repr, chosen))}")
        codes = [values.index(v) for v in chosen if v in values]
    return AlphaK(extra, float(spec.get("alpha")), int(spec.get("k", k)), codes, chosen)


def build_model(spec: PrivacyModelSpec, dataset: Dataset, k: int = 1,
                counts: PopulationCounts | None = None) -> PrivacyModel:
    """One privacy model from its validated spec (``k``: the study's, for (α, k)-anonymity without its own;
    ``counts``: the research subset's population counts, shared by δ-presence and k-map)."""
    where = f"privacy.{spec.kind}"
    if spec.kind in SENSITIVE_MODELS:
        parts = [_sensitive_model(spec.kind, spec, dataset, a, k) for a in attributes_of(spec.get("attribute"))]
        return parts[0] if len(parts) == 1 else EachAttribute(parts)
    if spec.kind == "risk":
        population = spec.get("population")
        if population is not None and population < dataset.n:
            raise ConfigError(f"{where}.population {population:g} is smaller than the {dataset.n:,} records of the "
                              "data (the data is a sample of the population)")
        return RiskThreshold(spec.get("model"), float(spec.get("threshold")), spec.get("estimator"), population,
                             int(spec.get("solver_iterations", ITERATIONS_PER_TRY)))
    if spec.kind == "k_map" and spec.get("population") is not None:
        population = float(spec.get("population"))
        if population < dataset.n:
            raise ConfigError(f"{where}.population {population:g} is smaller than the {dataset.n:,} records of the "
                              "data (the data is a sample of the population)")
        return KMap(int(spec.get("k")), population=population, estimator=spec.get("estimator"),
                    significance=float(spec.get("significance")), records=dataset.n)
    if dataset.population is None:
        raise ConfigError(f"{where}: the data is not a research subset of a population: load the study with "
                          "workbench.study.load_dataset, which releases the subset's rows of the data file")
    counts = counts if counts is not None else PopulationCounts(dataset, spec.kind)
    if spec.kind == "k_map":
        return KMap(int(spec.get("k")), counts=counts)
    return DeltaPresence(dataset, float(spec.get("delta_min")), float(spec.get("delta_max")), counts)


def models_for(study: Study, dataset: Dataset) -> list[PrivacyModel]:
    """Every configured privacy model, built and checked against the data (one population count for δ-presence
    and k-map)."""
    counts = None
    if dataset.population is not None and any(s.kind in ("delta_presence", "k_map") and s.get("subset") is not None
                                              for s in study.privacy_models):
        counts = PopulationCounts(dataset)
    return [build_model(spec, dataset, study.k, counts) for spec in study.privacy_models]


def class_loss(dataset: Dataset) -> TieBreak:
    """ARX's information loss of one class under its Loss metric (``MetricMDNMLoss.getInformationLossInternal(
    transformation, entry)``, aggregated by ``ILMultiDimensionalGeometricMean``): per quasi-identifier j the
    class's records times the domain share of its generalized value, x_j = c · share_j(g_j) (the shares of
    ``measures.loss``), and Π_j (x_j + 1)^(1/r) − 1 over the r quasi-identifiers. ARX suppresses classes of one
    size in ascending order of it when a release-level model needs some of them."""
    domains = [c.column_domain().domain_shares for c in dataset.encoded]
    factors: dict[tuple[int, int, int], np.ndarray] = {}  # (column, level, class size) -> (c·share + 1)^(1/r)

    def factor(j: int, level: int, size: int) -> np.ndarray:
        hit = factors.get((j, level, size))
        if hit is None:
            numerators, domain = domains[j]
            share = np.asarray(numerators[level], dtype=float) / float(domain)
            hit = factors[(j, level, size)] = np.power(size * share + 1.0, 1.0 / len(domains))
        return hit

    def key(view: ClassView, classes: np.ndarray) -> np.ndarray:
        if view.node is None or view.keys is None:
            return np.zeros(classes.size)
        sizes = view.sizes[classes]
        result = np.ones(classes.size)
        for size in np.unique(sizes):  # one size, as Admissibility asks, in one pass
            at = sizes == size
            for j, level in enumerate(view.node):
                result[at] *= factor(j, level, int(size))[np.asarray(view.keys[classes[at], j], dtype=np.int64)]
        return result - 1.0

    return key


TIE_BREAKS = {"loss": class_loss}
"""The objectives with a per-class information loss (ARX's ``Metric.isClassBasedInformationLossAvailable``: its
Loss metric, among the measures here), which orders the classes of one size for suppression."""


def admissibility_for(study: Study, dataset: Dataset) -> Admissibility:
    """The study's admissibility rule on its dataset: k, the suppression limit and every privacy model; with a
    release-level model, ARX's order of suppression among classes of one size for the study's objective."""
    models = models_for(study, dataset)
    make = TIE_BREAKS.get(study.objective)
    tie_break = make(dataset) if make is not None and any(m.release_level for m in models) else None
    return Admissibility(study.k, study.max_suppression, dataset.n, models, tie_break)
