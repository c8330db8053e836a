"""The geography engine scored: ``workbench.geo`` aggregates and releases, ``measures.geography`` measures
(Croft, Shi, Sack & Corriveau 2015, §3.4), as ``workbench.objective`` joins the other engines to the measure
registry. The CLI (``workbench geo``), the reproduction and the Geography page call these functions; the page
reads everything it needs from here (the engine's ``problem_from_frame``, ``embedded_points``, ``prepare`` and
``aggregate``, ``points_from_frame``, ``cell_polygons``, ``METHOD_LABELS``, ``GEO_MEASURES``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from measures.geography import compactness, discernibility, geo_entropy
from workbench.geo import engine
from workbench.geo.aggregation import Aggregation
from workbench.geo.config import METHOD_LABELS, GeoSpec
from workbench.geo.engine import GeoProblem, GeoRelease
from workbench.geo.voronoi import cell_polygons


@dataclass(frozen=True, eq=False)
class GeoResult(GeoRelease):
    """A geographic release with its measures: ``compactness`` (Eq. 8), ``dm`` (Eq. 9), ``geo_entropy``
    (Eqs. 10–11); ``suppressed`` and ``seconds`` are attributes of the release."""

    measures: dict[str, float] = field(default_factory=dict)

    def summary(self, max_suppression: float | None = None, setting: str | None = None) -> dict[str, object]:
        """The ``workbench geo --json`` object. ``sites``: VBAS's sites asked for, ``empty_sites``: those whose
        Voronoi cell holds no region point (both None for GeoLeader-like). ``warnings`` (only when there are
        any): ``warnings(self, max_suppression, setting)``."""
        guarantee = self.guarantee
        populations = self.aggregation.populations(self.problem.population)
        sites, empty = site_counts(self.aggregation)
        out = {"method": self.method, "label": METHOD_LABELS[self.method], "k": self.k,
               "regions": self.aggregation.regions, "sites": sites, "empty_sites": empty,
               "fine_regions": self.problem.regions, "records": self.problem.dataset.n,
               "suppressed": self.suppressed, "measures": dict(self.measures), "seconds": self.seconds,
               "parameters": dict(self.aggregation.parameters),
               "smallest_region_population": float(populations.min()),
               "k_anonymous": guarantee.holds, "guarantee": guarantee.describe()}
        notes = warnings(self, max_suppression, setting)
        return out | ({"warnings": notes} if notes else {})


def site_counts(aggregation: Aggregation) -> tuple[int | None, int | None]:
    """VBAS: the sites asked for and how many of them made no aggregated region (a site whose Voronoi cell holds
    no region point: balanced density puts a site at the mean of its cell's points, and each of those points can
    be nearer another site). (None, None) for GeoLeader-like."""
    if aggregation.method != "vbas" or aggregation.sites is None:
        return None, None
    return int(aggregation.parameters["sites"]), len(aggregation.sites) - aggregation.regions


def empty_sites_warning(regions: int, sites: int) -> str:
    """VBAS made ``regions`` aggregated regions from ``sites`` sites (fewer: some Voronoi cells hold no point)."""
    empty = sites - regions
    cells = "site's Voronoi cell holds" if empty == 1 else "sites' Voronoi cells hold"
    return (f"VBAS made {regions} aggregated region(s) from the {sites} sites asked for: {empty} {cells} no region "
            "point (each site is the mean of its cell's points, and another site can be nearer every one of them)")


def suppression_limit_warning(result: GeoRelease, max_suppression: float, setting: str | None = None) -> str:
    """Why a suppression limit (``max_suppression``, a share of records; ``setting`` names it, by default
    ``privacy.max_suppression = VALUE``) does not apply to a geographic release: Croft 2015 suppresses every class
    still below k, without limit; that step is what guarantees k-anonymity. Says whether this release stays
    within the limit."""
    n = result.problem.dataset.n
    share = result.suppressed / n if n else 0.0
    within = "within" if share <= max_suppression else "above"
    setting = setting or f"privacy.max_suppression = {max_suppression:.10g}"
    return (f"{setting} is not applied: the geography engine suppresses every record of a "
            f"class smaller than k, without limit (that is what guarantees k-anonymity); this release suppresses "
            f"{result.suppressed:,} of {n:,} records ({100 * share:.3g} %), {within} that limit")


def warnings(result: GeoRelease, max_suppression: float | None = None, setting: str | None = None) -> list[str]:
    """What the user of a geographic release should be told: VBAS sites that made no region; a suppression limit
    that is not applied (when one was set)."""
    out = []
    sites, empty = site_counts(result.aggregation)
    if sites is not None and empty:
        out.append(empty_sites_warning(result.aggregation.regions, sites))
    if max_suppression is not None:
        out.append(suppression_limit_warning(result, max_suppression, setting))
    return out


def score(released: GeoRelease) -> dict[str, float]:
    """The measures of Croft 2015 §3.4 of a geographic release."""
    p, groups = released.problem, released.aggregation.groups
    return {"compactness": compactness(p.points.xy, groups),
            "dm": discernibility(released.kept_class_sizes(), released.k),
            "geo_entropy": geo_entropy(p.records, groups)}


def anonymize(problem: GeoProblem, aggregation: Aggregation, k: int) -> GeoResult:
    """The release of ``aggregation`` at ``k`` (``workbench.geo.engine.release``) and its measures."""
    released = engine.release(problem, aggregation, k)
    values = {f.name: getattr(released, f.name) for f in fields(GeoRelease)}
    return GeoResult(**values, measures=score(released))


def run(problem: GeoProblem, spec: GeoSpec, k: int) -> GeoResult:
    """Aggregate as ``spec`` says and anonymize at ``k``."""
    return anonymize(problem, engine.aggregate(problem, spec.method, sites=spec.sites, cutoff=spec.cutoff), k)


def sweep(problem: GeoProblem, sites: Iterable[int], k: int) -> pd.DataFrame:
    """VBAS for each number of sites: suppression against compactness (Croft 2015 §3.1's trade-off). Columns:
    sites, regions, suppressed, compactness, dm, geo_entropy, seconds."""
    rows = []
    for s in sites:
        result = anonymize(problem, engine.aggregate(problem, "vbas", sites=int(s)), k)
        rows.append({"sites": int(s), "regions": result.aggregation.regions, "suppressed": result.suppressed,
                     **result.measures, "seconds": result.seconds})
    return pd.DataFrame(rows, columns=["sites", "regions", "suppressed", "compactness", "dm", "geo_entropy",
                                       "seconds"])


def sweep_sites(regions: int, most: int = 200, count: int = 8) -> list[int]:
    """The site counts of the page's sweep: about ``count`` from 2 to ``min(regions, most)``, evenly spaced on a
    log scale (an empty list below 2 regions)."""
    top = min(regions, most)
    if top < 2:
        return []
    return sorted({int(v) for v in np.rint(np.geomspace(2, top, count))})


def voronoi_cells(result: GeoRelease, pad: float = 0.02) -> pd.DataFrame:
    """VBAS's Voronoi cells clipped to the points' bounding box widened by ``pad`` of its longer side (columns
    site, order, x, y; ``workbench.geo.voronoi.cell_polygons``); empty for GeoLeader-like."""
    sites = result.aggregation.sites
    if sites is None:
        return pd.DataFrame(columns=["site", "order", "x", "y"])
    xy = result.problem.points.xy
    margin = pad * max(float(np.ptp(xy, axis=0).max()), 1.0)
    box = (xy[:, 0].min() - margin, xy[:, 1].min() - margin, xy[:, 0].max() + margin, xy[:, 1].max() + margin)
    return cell_polygons(sites, box)


def compare_methods(problem: GeoProblem, cutoff: float, k: int) -> tuple[GeoResult, GeoResult]:
    """The paper's comparison (§3.1): GeoLeader-like at ``cutoff``, then VBAS matched to the number of regions
    GeoLeader-like made (``engine.matched_vbas``). Returns (GeoLeader-like, VBAS)."""
    leader = anonymize(problem, engine.aggregate(problem, "geoleader", cutoff=cutoff), k)
    return leader, anonymize(problem, engine.matched_vbas(problem, leader.aggregation.regions), k)
