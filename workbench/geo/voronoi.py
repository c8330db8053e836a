"""The Voronoi cells of VBAS's sites as polygons clipped to a bounding box, for drawing (the aggregation itself is
a nearest-site query, ``workbench.geo.aggregation.nearest_site``).

A site's cell is the set of points nearer to it than to any other site: the intersection of the half-planes
bounded by the perpendicular bisectors with its Voronoi neighbours (``scipy.spatial.Voronoi``'s ridges), here
intersected with the box by Sutherland–Hodgman clipping, so unbounded cells become finite polygons.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial import QhullError, Voronoi


def _clip(polygon: list[tuple[float, float]], normal: np.ndarray, offset: float) -> list[tuple[float, float]]:
    """The part of ``polygon`` where normal · p ≤ offset."""
    out: list[tuple[float, float]] = []
    for i, current in enumerate(polygon):
        previous = polygon[i - 1]
        c_in = float(normal @ current) <= offset
        p_in = float(normal @ previous) <= offset
        if c_in != p_in:
            a, b = np.asarray(previous), np.asarray(current)
            t = (offset - normal @ a) / (normal @ (b - a))
            out.append(tuple(a + t * (b - a)))
        if c_in:
            out.append(current)
    return out


def _neighbours(sites: np.ndarray) -> list[set[int]]:
    n = len(sites)
    try:
        if n < 4:
            raise QhullError("too few sites")
        ridges = Voronoi(sites).ridge_points
    except QhullError:  # too few sites, or all on one line: every other site is a candidate neighbour
        return [set(range(n)) - {i} for i in range(n)]
    out: list[set[int]] = [set() for _ in range(n)]
    for a, b in ridges:
        out[int(a)].add(int(b))
        out[int(b)].add(int(a))
    return out


def cell_polygons(sites: np.ndarray, box: tuple[float, float, float, float]) -> pd.DataFrame:
    """Each site's Voronoi cell within ``box`` = (xmin, ymin, xmax, ymax): rows ``site, order, x, y`` (the
    polygon's vertices in order; a site whose cell misses the box has no rows)."""
    sites = np.asarray(sites, dtype=float)
    xmin, ymin, xmax, ymax = box
    rows = []
    for i, others in enumerate(_neighbours(sites)):
        polygon = [(xmin, ymin), (xmax, ymin), (xmax, ymax), (xmin, ymax)]
        for j in sorted(others):
            normal = sites[j] - sites[i]
            if not normal.any():
                continue  # a duplicate site: no bisector
            polygon = _clip(polygon, normal, float(normal @ (sites[i] + sites[j]) / 2))
            if not polygon:
                break
        rows += [{"site": i, "order": k, "x": x, "y": y} for k, (x, y) in enumerate(polygon)]
    return pd.DataFrame(rows, columns=["site", "order", "x", "y"])
