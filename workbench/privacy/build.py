"""Privacy models from a study's ``[privacy.*]`` tables and its dataset, each by its registry entry's builder
(``workbench.privacy.registry``), with the checks that need the data: the attribute exists and has role
"sensitive", hierarchical t-closeness has a hierarchy covering its values. A model on several sensitive attributes
(``attribute = ["a", "b"]``) is one model per attribute, checked together (``sensitive.EachAttribute``); and the
study's admissibility rule."""

from __future__ import annotations

import numpy as np

from workbench.config import Study
from workbench.data import Dataset
from workbench.privacy.base import Admissibility, ClassView, PrivacyModel, TieBreak
from workbench.privacy.delta_presence import PopulationCounts
from workbench.privacy.kind import BuildContext, PrivacyModelSpec
from workbench.privacy.registry import PRIVACY_MODELS


def build_model(spec: PrivacyModelSpec, dataset: Dataset, k: int = 1,
                counts: PopulationCounts | None = None) -> PrivacyModel:
    """One privacy model from its validated spec, by its registry entry's builder (``k``: the study's, for a model
    with a k of its own that defaults to it; ``counts``: the research subset's population counts, shared by the
    models on a population table)."""
    return PRIVACY_MODELS[spec.kind].build(spec, BuildContext(dataset, k, counts))


def models_for(study: Study, dataset: Dataset) -> list[PrivacyModel]:
    """Every configured privacy model, built and checked against the data (one population count for the models
    on the research subset's population: δ-presence and k-map)."""
    counts = None
    if dataset.population is not None and any(s.get("subset") is not None for s in study.privacy_models):
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
