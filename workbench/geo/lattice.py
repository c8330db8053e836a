"""An aggregated geography combined with the lattice engine on the other quasi-identifiers (``[geo] lattice =
true``; docs/geography.md).

VBAS or GeoLeader-like aggregates the fine regions as ``workbench.geo`` does. The geographic column is then
replaced by the aggregated region's id, a quasi-identifier with the hierarchy aggregated region → ``*``, and the
study's lattice search (``engine.algorithm`` and ``engine.objective``, ``privacy.k``, and ``privacy.max_suppression``,
which applies here) chooses the level of every quasi-identifier through its hierarchy, the geography included
(it may be generalized to ``*`` if that scores best). Croft et al. (2015) release the other attributes unchanged
and suppress without limit; this combination is the workbench's extension, not the paper's method.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from measures.geography import compactness, discernibility, geo_entropy
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.geo.aggregation import Aggregation
from workbench.geo.config import METHOD_LABELS
from workbench.geo.engine import AggregatedRelease, GeoProblem, region_labels
from workbench.geo.scored import site_counts
from workbench.grouping import group_rows
from workbench.hierarchy.tree import Hierarchy
from workbench.release import Release
from workbench.release.verify import Guarantee
from workbench.study import RunResult
from workbench.study import run as run_study


def aggregated_dataset(problem: GeoProblem, aggregation: Aggregation) -> Dataset:
    """The problem's data with the geographic column as the aggregated region's id (``V01``... or ``G01``...),
    its hierarchy aggregated region → ``*``; every other column, role and hierarchy as they are."""
    labels = np.asarray(region_labels(aggregation), dtype=object)
    ds = problem.dataset
    frame = ds.frame.assign(**{problem.attribute: labels[aggregation.groups[problem.region_of]]})
    geography = Hierarchy.from_mapping({str(label): ["*"] for label in labels},
                                       name=f"{problem.attribute} aggregated")
    return Dataset.create(frame, ds.roles, {**ds.hierarchies, problem.attribute: geography}, source=ds.source,
                          input_sha256=ds.input_sha256, uploaded=ds.uploaded)


@dataclass(frozen=True, eq=False)
class GeoLatticeResult(AggregatedRelease):
    """The aggregation and the lattice run over it. ``seconds``: aggregation, search and release."""

    problem: GeoProblem
    aggregation: Aggregation
    run: RunResult
    seconds: float

    @property
    def release(self) -> Release:
        if self.run.release is None:  # run() refuses this case
            raise ConfigError("no lattice node is k-anonymous within privacy.max_suppression")
        return self.run.release

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return tuple(region_labels(self.aggregation))

    @cached_property
    def guarantee(self) -> Guarantee:
        assert self.run.guarantee is not None
        return self.run.guarantee

    @property
    def geography_level(self) -> int:
        """The level the search chose for the aggregated geography: 0 the aggregated region, 1 ``*``."""
        assert self.release.transformation is not None
        return self.release.transformation[self.problem.attribute]

    @cached_property
    def measures(self) -> dict[str, float]:
        """Croft 2015 §3.4 on the final release: compactness of the aggregation (Eq. 8), DM over the classes
        kept (Eq. 9), non-uniform entropy of the geography as released (Eqs. 10–11: every region in one group
        when the search generalized the geography to ``*``)."""
        kept = self.release.codes[~self.release.suppressed]
        sizes = group_rows(kept).counts if kept.size else np.zeros(0, dtype=np.int64)
        groups = self.aggregation.groups if self.geography_level == 0 else np.zeros_like(self.aggregation.groups)
        return {"compactness": compactness(self.problem.points.xy, self.aggregation.groups),
                "dm": discernibility(sizes, self.release.k),
                "geo_entropy": geo_entropy(self.problem.records, groups)}

    def summary(self) -> dict[str, object]:
        """The ``workbench geo --json`` object of this mode: the keys of the plain one, and ``lattice``, the
        lattice run's own summary (``workbench run --json``'s object)."""
        sites, empty = site_counts(self.aggregation)
        populations = self.aggregation.populations(self.problem.population)
        return {"method": self.method, "label": f"{METHOD_LABELS[self.method]} + lattice", "k": self.release.k,
                "regions": self.aggregation.regions, "sites": sites, "empty_sites": empty,
                "fine_regions": self.problem.regions, "records": self.problem.dataset.n,
                "suppressed": self.suppressed, "measures": dict(self.measures), "seconds": self.seconds,
                "parameters": dict(self.aggregation.parameters),
                "smallest_region_population": float(populations.min()),
                "k_anonymous": self.guarantee.holds, "guarantee": self.guarantee.describe(),
                "lattice": self.run.summary()}


def run(study: Study, problem: GeoProblem, aggregation: Aggregation) -> GeoLatticeResult:
    """The study's lattice search over the aggregated geography and the other quasi-identifiers. ConfigError
    when the study's engine is not the lattice, or no node is k-anonymous within the suppression limit."""
    if study.engine != "lattice":
        raise ConfigError(f"{study.source}: geo.lattice = true needs engine.kind = 'lattice', got {study.engine!r}")
    start = time.perf_counter()
    dataset = aggregated_dataset(problem, aggregation)
    result = run_study(study, dataset)
    if result.release is None:
        raise ConfigError(f"{study.source}: no transformation of the aggregated geography and the other "
                          f"quasi-identifiers is {study.k}-anonymous with at most {study.max_suppression:.10g} of the "
                          "records suppressed; raise privacy.max_suppression or give coarser hierarchies")
    return GeoLatticeResult(problem, aggregation, result, aggregation.seconds + time.perf_counter() - start)
