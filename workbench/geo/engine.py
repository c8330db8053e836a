"""The geography engine: aggregate fine regions, then suppress every class still below k (Croft 2015 §3.3).

``prepare`` joins a dataset to its region points once (``GeoProblem``); ``release`` turns an ``Aggregation``
(``workbench.geo.aggregation``: VBAS or GeoLeader-like) into a ``GeoRelease``: a ``Release`` like the other
engines' (the geographic column released as the aggregated region's id, every other quasi-identifier unchanged,
the records of every equivalence class smaller than k suppressed, with no limit) and the region map. Like the
other engines it never imports ``measures``: ``workbench.geo.scored`` scores it (Croft 2015 §3.4).

The release is re-verified from the released table like any other (``Release.verify``): its dataset carries the
aggregation as the geographic attribute's hierarchy (fine region → aggregated region → ``*``), so the verifier
checks every released region id against the region map.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.data import Dataset
from workbench.errors import ConfigError, DataError
from workbench.geo.aggregation import Aggregation, geoleader_like, vbas
from workbench.geo.config import GeoSpec
from workbench.geo.points import RegionPoints, match_regions, points_from_frame, read_points, restrict
from workbench.grouping import group_rows
from workbench.hierarchy.builders import groupings
from workbench.hierarchy.tree import Hierarchy
from workbench.release import Release
from workbench.release.verify import Guarantee

if TYPE_CHECKING:
    from workbench.config import AttributeSpec, Study

ALGORITHM_NAMES = {"vbas": "VBAS (Croft 2015)", "geoleader": "GeoLeader-like"}


@dataclass(frozen=True, eq=False)
class GeoProblem:
    """A dataset joined to its fine regions' points.

    ``region_of[i]``: index into ``points`` of record i's region; ``records[r]``: records in region r;
    ``population[r]``: the points file's population, else ``records[r]`` (balanced density and the cut-off use
    it). ``dataset``: the data with the geographic attribute first among the quasi-identifiers."""

    dataset: Dataset
    attribute: str
    points: RegionPoints
    region_of: np.ndarray
    records: np.ndarray
    population: np.ndarray

    @property
    def regions(self) -> int:
        return len(self.points)

    @property
    def others(self) -> list[str]:
        """The quasi-identifiers besides the geography (released unchanged)."""
        return [q for q in self.dataset.quasi_identifiers if q != self.attribute]

    @cached_property
    def other_codes(self) -> np.ndarray:
        """Per record, the codes of the other quasi-identifiers (level 0)."""
        cols = [self.dataset.encoded_column(q).codes for q in self.others]
        return np.stack(cols, axis=1) if cols else np.zeros((self.dataset.n, 0), dtype=np.int64)


def prepare(dataset: Dataset, attribute: str, points: RegionPoints) -> GeoProblem:
    """Join ``dataset`` to ``points`` on the geographic quasi-identifier ``attribute``. Raises DataError when the
    attribute is not a quasi-identifier of the data or the regions of the data and of the points differ."""
    if attribute not in dataset.frame.columns:
        raise DataError(f"geo.attribute {attribute!r} is not a column of {dataset.source}; the columns are "
                        f"{', '.join(map(repr, dataset.frame.columns))}")
    if dataset.roles.get(attribute) != "quasi":
        raise DataError(f"geo.attribute {attribute!r} must be a quasi-identifier (its role is "
                        f"{dataset.roles.get(attribute)!r})")
    region_of = match_regions(points, dataset.frame[attribute].to_numpy(dtype=str), attribute)
    records = np.bincount(region_of, minlength=len(points))
    population = points.population if points.population is not None else records.astype(float)
    roles = {attribute: "quasi"} | {a: r for a, r in dataset.roles.items() if a != attribute}
    ordered = replace(dataset, roles=roles) if list(roles) != list(dataset.roles) else dataset
    return GeoProblem(ordered, attribute, points, region_of, records, np.asarray(population, dtype=float))


def embedded_points(sample: str, attribute: str, where: str = "geo") -> RegionPoints:
    """An embedded sample's own region points (``workbench.samples.region_points``: ``province``, ``registry``).
    ConfigError when the sample has none, or has them for another column than ``attribute``."""
    from workbench.samples import GEO_POINTS, region_points

    found = region_points(sample)
    if found is None:
        raise ConfigError(f"{where}: geo.points is required (a table region, x, y) unless the data is an embedded "
                          f"sample with points ({', '.join(map(repr, GEO_POINTS))})")
    if found[0] != attribute:
        raise ConfigError(f"{where}: the {sample!r} sample's points are for its column {found[0]!r}, not "
                          f"geo.attribute {attribute!r}; give geo.points for it")
    return points_from_frame(found[1], f"sample:{sample} points")


def _released_as_is(spec: AttributeSpec, sample: str | None) -> AttributeSpec:
    """A quasi-identifier of a data file that the config gives no hierarchy: a flat one (value → ``*``), since
    the geography engine releases it at level 0. An embedded sample's own hierarchies are kept."""
    if (sample is not None or spec.role != "quasi" or spec.hierarchy is not None or spec.builder is not None
            or spec.poset is not None):
        return spec
    return replace(spec, builder={"kind": "groupings", "levels": []})


def load_problem(study: Study, spec: GeoSpec) -> GeoProblem:
    """A study's data (``workbench.study.load_dataset``) joined to the ``[geo]`` table's points. When ``points`` is
    left out, an embedded sample's own points are used (``embedded_points``), restricted to the regions its data
    holds (``data.rows`` may leave some out). The geographic attribute is made a quasi-identifier; it needs no
    hierarchy (a flat one stands in until the aggregation replaces it), nor do the other quasi-identifiers, which
    are released as they are (a quasi-identifier declared without a hierarchy gets a flat one)."""
    from workbench.config import AttributeSpec
    from workbench.study import load_dataset

    flat = AttributeSpec(name=spec.attribute, role="quasi", builder={"kind": "groupings", "levels": []})
    declared = [a.name for a in study.attributes]
    attributes = tuple(flat if a.name == spec.attribute else _released_as_is(a, study.sample)
                       for a in study.attributes)
    if spec.attribute not in declared:
        attributes = (flat, *attributes)
    embedded = None
    if spec.points is None:
        embedded = embedded_points(study.sample or "", spec.attribute, study.source)
    dataset = load_dataset(replace(study, attributes=attributes))
    if embedded is not None:
        points = restrict(embedded, dataset.frame[spec.attribute].to_numpy(dtype=str))
    else:
        assert spec.points is not None
        points = read_points(spec.points)
    return prepare(dataset, spec.attribute, points)


def problem_from_frame(frame: pd.DataFrame, attribute: str, others: Sequence[str], points: RegionPoints,
                       source: str = "data", partial_points: bool = False) -> GeoProblem:
    """A table's geographic column ``attribute`` and its other quasi-identifiers ``others`` joined to ``points``
    (the Geography page's data: a sample or the analyst's own table). Only these columns are kept; the others are
    released at their finest level, so each gets a flat hierarchy. ``partial_points``: ``points`` may hold
    regions the table lacks (an embedded sample's); they are left out. DataError when a column is missing or the
    regions of the table and the points differ."""
    columns = [attribute, *dict.fromkeys(o for o in others if o != attribute)]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{source}: no column {missing[0]!r}; the columns are {', '.join(map(repr, frame.columns))}")
    text = Dataset.create(frame[columns], {}, {}, source=source).frame  # the text every engine sees
    hierarchies = {c: groupings(text[c].unique().tolist(), [], name=c) for c in columns}
    dataset = Dataset.create(text, {c: "quasi" for c in columns}, hierarchies, source=source)
    if partial_points:
        points = restrict(points, text[attribute].to_numpy(dtype=str))
    return prepare(dataset, attribute, points)


def check_sites(problem: GeoProblem, sites: int) -> None:
    if isinstance(sites, bool) or not isinstance(sites, int | np.integer) or not 1 <= sites <= problem.regions:
        raise ConfigError(f"geo.sites must be from 1 to the {problem.regions} regions of "
                          f"{problem.points.source}, got {sites!r}")


def check_cutoff(problem: GeoProblem, cutoff: float) -> None:
    total = float(problem.population.sum())
    if not cutoff > 0 or not cutoff < total:
        raise ConfigError(f"geo.cutoff must be positive and below the total population {total:,.0f} (no region "
                          f"could exceed it), got {cutoff:,.10g}")


def aggregate(problem: GeoProblem, method: str, *, sites: int | None = None,
              cutoff: float | None = None) -> Aggregation:
    """Aggregate the fine regions by ``method`` (``vbas`` with ``sites``, ``geoleader`` with ``cutoff``)."""
    if method == "vbas":
        if sites is None:
            raise ConfigError("geo.method = 'vbas' needs geo.sites")
        check_sites(problem, sites)
        return vbas(problem.points.xy, problem.population, int(sites))
    if method == "geoleader":
        if cutoff is None:
            raise ConfigError("geo.method = 'geoleader' needs geo.cutoff")
        check_cutoff(problem, cutoff)
        return geoleader_like(problem.points.xy, problem.population, float(cutoff))
    raise ConfigError(f"geo.method {method!r} is not one of vbas, geoleader")


def region_labels(aggregation: Aggregation) -> list[str]:
    """The released id of each aggregated region: ``V01``... (VBAS) or ``G01``... (GeoLeader-like)."""
    m = aggregation.regions
    prefix = "V" if aggregation.method == "vbas" else "G"
    return [f"{prefix}{i + 1:0{max(2, len(str(m)))}d}" for i in range(m)]


def _release(problem: GeoProblem, aggregation: Aggregation, labels: Sequence[str], k: int) -> Release:
    mapping = {name: [labels[g], "*"] for name, g in zip(problem.points.names, aggregation.groups, strict=True)}
    hierarchy = Hierarchy.from_mapping(mapping, name=f"{problem.attribute} aggregation")
    dataset = replace(problem.dataset, hierarchies={**problem.dataset.hierarchies, problem.attribute: hierarchy})
    node = (1,) + (0,) * len(problem.others)  # the geography aggregated, every other quasi-identifier as is
    release = Release.from_node(dataset, node, k, 1.0, aggregation.method)
    return replace(release, engine="geo", algorithm=ALGORITHM_NAMES[aggregation.method])


class AggregatedRelease:
    """What an anonymized aggregation offers, whichever engine released it (``GeoRelease`` here, the lattice's
    ``workbench.geo.lattice.GeoLatticeResult``): its method, its suppressed records and its region map."""

    problem: GeoProblem
    aggregation: Aggregation
    labels: tuple[str, ...]  # each aggregated region's label (``region_labels``)
    release: Release

    @property
    def method(self) -> str:
        return self.aggregation.method

    @property
    def suppressed(self) -> int:
        return int(self.release.suppressed.sum())

    def region_map(self) -> pd.DataFrame:
        """``region, aggregated``: every fine region once, in the points file's order."""
        return pd.DataFrame({"region": list(self.problem.points.names),
                             "aggregated": [self.labels[g] for g in self.aggregation.groups]})


@dataclass(frozen=True, eq=False)
class GeoRelease(AggregatedRelease):
    """An anonymized aggregation: the release and the region map (``workbench.geo.scored.GeoResult`` adds the
    measures)."""

    problem: GeoProblem
    aggregation: Aggregation
    labels: tuple[str, ...]
    release: Release
    k: int
    seconds: float

    @cached_property
    def guarantee(self) -> Guarantee:
        return self.release.verify()

    def kept_class_sizes(self) -> np.ndarray:
        """Sizes of the equivalence classes of the records that are not suppressed (each at least k)."""
        kept = self.release.codes[~self.release.suppressed]
        return group_rows(kept).counts if kept.size else np.zeros(0, dtype=np.int64)

    def region_table(self) -> pd.DataFrame:
        """Per fine region: name, x, y, population, records, aggregated region, suppressed records."""
        p = self.problem
        suppressed = np.bincount(p.region_of[self.release.suppressed], minlength=p.regions)
        return self.region_map().assign(x=p.points.xy[:, 0], y=p.points.xy[:, 1], population=p.population,
                                        records=p.records, suppressed=suppressed)


def release(problem: GeoProblem, aggregation: Aggregation, k: int) -> GeoRelease:
    """The release of ``aggregation`` at ``k``. ``seconds``: the aggregation's time plus the release's (equivalence
    classes, suppression); loading the data and the points is not counted."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ConfigError(f"privacy.k must be a positive integer, got {k!r}")
    start = time.perf_counter()
    labels = region_labels(aggregation)
    out = _release(problem, aggregation, labels, int(k))
    return GeoRelease(problem, aggregation, tuple(labels), out, int(k),
                      aggregation.seconds + time.perf_counter() - start)


def matched_vbas(problem: GeoProblem, regions: int) -> Aggregation:
    """VBAS with the fewest sites (from ``regions`` up) that make at least ``regions`` aggregated regions (a site
    whose Voronoi cell holds no region point gives no region): the paper's comparison matches the number of
    regions GeoLeader made (§3.1)."""
    sites = regions
    aggregation = aggregate(problem, "vbas", sites=sites)
    while aggregation.regions < regions and sites < problem.regions:
        sites += 1
        aggregation = aggregate(problem, "vbas", sites=sites)
    return aggregation
