"""Coordinates for the registry sample's postal units, so the registry can be partitioned geographically
(``workbench.geo``; Croft, Shi, Sack & Corriveau 2015 need each fine region as a point in the plane).

Every postal unit of ``registry._postal_units`` (216 units, the same for every data seed) gets a point in metres
and a resident population. The registry's records themselves are untouched: this module only reads the fixed
geography and draws the points from its own seeded generator.

- **Projection.** The district centroids of ``registry.DISTRICTS`` (latitude, longitude) are projected
  equirectangularly about 45° N, 76° W: ``x = R·cos 45°·Δλ``, ``y = R·Δφ`` (R = 6,371 km, angles in radians).
  Over the registry's 200 km this is within about 2 % of true distances; the points are fictional anyway.
- **Districts.** Each district is a disc around its centroid whose area is its population over a density of
  3,000 people/km² (urban) or 30 people/km² (rural): Harbour City Centre is about 5 km across in radius,
  Highland Forest about 10 km.
- **Sectors and units.** Each sector (the postal code's third digit) gets a centre drawn uniformly in the inner
  60 % of the district's radius; each unit a point drawn around its sector's centre (normal, standard deviation
  a quarter of the district's radius), rounded to the metre.
- **Population.** A unit's residents: its share of the registry's population (``registry._postal_units``, the
  share the records are drawn with) times the districts' total of 960,000, rounded, at least 1.

``unit_points()`` returns ``region, x, y, population`` in the registry's unit order; deterministic.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from workbench.samples import registry
from workbench.samples.registry_tables import DISTRICTS

ATTRIBUTE = "postal_code"  # the registry's fine geographic quasi-identifier
EARTH_RADIUS = 6_371_000.0  # metres
ORIGIN = (45.0, -76.0)  # latitude, longitude of the projection's origin
DENSITY = {False: 3_000.0, True: 30.0}  # people per km², urban and rural
_POINTS_SEED = (1957, 2)  # the points' own generator: the registry's records never see it


def project(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
    """Equirectangular projection about ``ORIGIN``: (x, y) in metres."""
    lat0, lon0 = np.radians(ORIGIN[0]), np.radians(ORIGIN[1])
    x = EARTH_RADIUS * np.cos(lat0) * (np.radians(lon) - lon0)
    y = EARTH_RADIUS * (np.radians(lat) - lat0)
    return np.column_stack([x, y])


def district_radius(population_thousands: float, rural: bool) -> float:
    """Radius in metres of a disc holding the district's population at its density."""
    area_km2 = population_thousands * 1000 / DENSITY[rural]
    return float(np.sqrt(area_km2 / np.pi) * 1000)


@lru_cache(maxsize=1)
def _points() -> pd.DataFrame:
    codes, district, share = registry._postal_units()
    rng = np.random.default_rng(list(_POINTS_SEED))
    centroids = project(np.array([d[4] for d in DISTRICTS]), np.array([d[5] for d in DISTRICTS]))
    xy = np.empty((len(codes), 2))
    for i, (prefix, _name, pop, rural, *_rest) in enumerate(DISTRICTS):
        radius = district_radius(pop, rural)
        here = np.flatnonzero(district == i)
        sectors = np.array([c[len(prefix)] for c in codes[here]])
        for sector in np.unique(sectors):
            angle, r = rng.uniform(0, 2 * np.pi), 0.6 * radius * np.sqrt(rng.uniform())
            centre = centroids[i] + r * np.array([np.cos(angle), np.sin(angle)])
            units = here[sectors == sector]
            xy[units] = rng.normal(centre, 0.25 * radius, size=(len(units), 2))
    total = sum(d[2] for d in DISTRICTS) * 1000
    population = np.maximum(np.rint(share * total), 1).astype(np.int64)
    return pd.DataFrame({"region": codes.astype(str), "x": xy[:, 0].round(0), "y": xy[:, 1].round(0),
                         "population": population})


def unit_points() -> pd.DataFrame:
    """Every postal unit of the registry: ``region`` (the postal code), ``x``, ``y`` (metres), ``population``."""
    return _points().copy()
