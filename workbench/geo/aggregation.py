"""Aggregating fine regions: VBAS (Croft, Shi, Sack & Corriveau 2015) and a GeoLeader-like baseline.

Both return an ``Aggregation``: a partition of the fine regions, ``groups[r]`` the aggregated region (0..m−1) of
fine region r. Neither looks at the records: the release (``workbench.geo.engine``) then suppresses every
equivalence class still below k.

- **VBAS** (§3.2–3.3): sites by balanced density (``placement.balanced_density``), then each fine region joins the
  Voronoi cell containing its point, that is its nearest site (a k-d tree query; the Voronoi diagram itself is
  only drawn, ``workbench.geo.voronoi``). A point equidistant from two sites (within 1e-12 relative) joins the
  lower-numbered site. Sites whose Voronoi cell holds no point give no aggregated region, so there can be fewer
  than s regions.
- **GeoLeader-like** (the paper compares against El Emam & Arbuckle's GeoLeader, whose criteria it does not give):
  while some aggregated region's population does not exceed the cut-off, the least populous such region (ties:
  the lower id) is merged with the adjacent region whose merge increases the total compactness (Eq. 8) least
  (ties: the less populous neighbour, then the lower id). Adjacency is the Delaunay triangulation of the points
  (a point Qhull leaves out, such as a duplicate, is joined to its nearest vertex; collinear points are chained
  in order). It stops exactly when every region's population exceeds the cut-off.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import Delaunay, QhullError, cKDTree

from workbench.geo.placement import Placement, balanced_density

TIE_TOLERANCE = 1e-12


@dataclass(frozen=True, eq=False)
class Aggregation:
    """A partition of the fine regions into aggregated regions.

    ``groups[r]``: aggregated region (0..regions−1) of fine region r, numbered in site order (VBAS) or by their
    first member (GeoLeader-like). ``sites``: VBAS's Voronoi sites (s × 2), None otherwise; ``placement``: how
    they were placed. ``merges``: GeoLeader-like's merges in order, (region below the cut-off, neighbour), as
    fine-region indices naming each region's first member. ``seconds``: wall-clock time of the aggregation."""

    method: str
    groups: np.ndarray
    seconds: float
    parameters: dict[str, float | int] = field(default_factory=dict)
    sites: np.ndarray | None = None
    placement: Placement | None = None
    merges: tuple[tuple[int, int], ...] = ()

    @property
    def regions(self) -> int:
        return int(self.groups.max()) + 1 if self.groups.size else 0

    def populations(self, population: np.ndarray) -> np.ndarray:
        """Population of each aggregated region."""
        return np.bincount(self.groups, np.asarray(population, dtype=float), self.regions)


def _renumber(labels: np.ndarray) -> np.ndarray:
    """Labels as 0..m−1 in order of their smallest label (empty labels dropped)."""
    _, inverse = np.unique(labels, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def nearest_site(xy: np.ndarray, sites: np.ndarray) -> np.ndarray:
    """The Voronoi cell of each point: the index of its nearest site, ties to the lower index."""
    xy, sites = np.asarray(xy, dtype=float), np.asarray(sites, dtype=float)
    kk = min(len(sites), 4)
    dist, idx = cKDTree(sites).query(xy, k=kk)
    if kk == 1:
        return np.asarray(idx, dtype=np.int64).reshape(-1)
    tied = dist <= dist[:, :1] * (1 + TIE_TOLERANCE) + TIE_TOLERANCE
    return np.where(tied, idx, np.iinfo(np.int64).max).min(axis=1).astype(np.int64)


def vbas(xy: np.ndarray, population: np.ndarray, sites: int) -> Aggregation:
    """VBAS (Croft 2015 §3.2–3.3): ``sites`` Voronoi sites by balanced density, each region to its nearest site."""
    start = time.perf_counter()
    placement = balanced_density(xy, population, sites)
    groups = _renumber(nearest_site(xy, placement.sites))
    return Aggregation("vbas", groups, time.perf_counter() - start, {"sites": int(sites)},
                       sites=placement.sites, placement=placement)


def adjacency(xy: np.ndarray) -> list[set[int]]:
    """Neighbours of each point in the Delaunay triangulation (the GeoLeader-like baseline's adjacency)."""
    xy = np.asarray(xy, dtype=float)
    n = len(xy)
    out: list[set[int]] = [set() for _ in range(n)]

    def link(a: int, b: int) -> None:
        if a != b:
            out[a].add(b)
            out[b].add(a)

    try:
        if n < 3:
            raise QhullError("fewer than three points")
        tri = Delaunay(xy)
    except QhullError:  # fewer than three points, or all on one line: a chain in (x, y) order
        order = np.lexsort((np.arange(n), xy[:, 1], xy[:, 0]))
        for a, b in zip(order[:-1], order[1:], strict=True):
            link(int(a), int(b))
        return out
    for simplex in tri.simplices:
        a, b, c = (int(v) for v in simplex)
        link(a, b)
        link(b, c)
        link(a, c)
    for point, _, vertex in tri.coplanar:  # points Qhull left out (duplicates): joined to their nearest vertex
        link(int(point), int(vertex))
    return out


def _spread(xy: np.ndarray, members: list[int]) -> float:
    """Eq. 8's term of one region: Σ of its members' distances to their mean point."""
    pts = xy[members]
    return float(np.hypot(*(pts - pts.mean(axis=0)).T).sum())


def geoleader_like(xy: np.ndarray, population: np.ndarray, cutoff: float) -> Aggregation:
    """GeoLeader-like merging (module docstring) until every region's population exceeds ``cutoff``. Raises
    ValueError when that is impossible (the cut-off is not below the total population)."""
    start = time.perf_counter()
    xy = np.asarray(xy, dtype=float)
    pop = np.asarray(population, dtype=float)
    n = len(xy)
    if cutoff >= pop.sum():
        raise ValueError(f"the cut-off {cutoff:g} is not below the total population {pop.sum():g}: no region "
                         "can exceed it")
    neighbours = dict(enumerate(adjacency(xy)))
    members: dict[int, list[int]] = {r: [r] for r in range(n)}
    region_pop = {r: float(pop[r]) for r in range(n)}
    spread = {r: 0.0 for r in range(n)}
    heap = [(region_pop[r], r) for r in range(n) if region_pop[r] <= cutoff]
    heapq.heapify(heap)
    merges: list[tuple[int, int]] = []
    while heap:
        p, r = heapq.heappop(heap)
        if r not in members or region_pop[r] != p:  # merged away, or a stale entry
            continue
        best = None
        for nb in neighbours[r]:
            merged = members[r] + members[nb]
            cost = _spread(xy, merged) - spread[r] - spread[nb]
            key = (cost, region_pop[nb], nb)
            if best is None or key < best[0]:
                best = (key, nb)
        assert best is not None, "the Delaunay graph is connected"
        nb = best[1]
        keep, gone = min(r, nb), max(r, nb)
        merges.append((r, nb))
        members[keep] = sorted(members[keep] + members.pop(gone))
        region_pop[keep] += region_pop.pop(gone)
        spread[keep] = _spread(xy, members[keep])
        spread.pop(gone)
        for other in neighbours.pop(gone):
            neighbours[other].discard(gone)
            if other != keep:
                neighbours[other].add(keep)
                neighbours[keep].add(other)
        neighbours[keep].discard(keep)
        if region_pop[keep] <= cutoff:
            heapq.heappush(heap, (region_pop[keep], keep))
    labels = np.empty(n, dtype=np.int64)
    for first, group in members.items():
        labels[group] = first
    return Aggregation("geoleader", _renumber(labels), time.perf_counter() - start, {"cutoff": float(cutoff)},
                       merges=tuple(merges))
