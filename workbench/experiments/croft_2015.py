"""Croft, Shi, Sack & Corriveau (2015) §4–5 reproduced on the synthetic province: VBAS against the GeoLeader-like
baseline over scenarios that differ in their quasi-identifiers, VBAS given the number of regions GeoLeader-like
made (§3.1), reporting suppression, discernibility (Eq. 9), non-uniform entropy (Eqs. 10–11), compactness
(Eq. 8) and running time per scenario, and the average ratios the paper reports (compactness 85.4 %, time 8.5 %
of GeoLeader's).

GeoLeader computes a dynamic population cut-off from the quasi-identifiers, by a formula the paper does not give.
The stand-in here (``dynamic_cutoff``): the smallest population c at which a region of c people, drawn from the
data's joint distribution of the scenario's other quasi-identifiers, expects at most ``share`` of its records in
equivalence classes smaller than k (each class size binomial). ``studies/croft_2015.py`` writes the table;
docs/geography.md says where this differs from the paper's setting.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy.stats import binom

from workbench.data import Dataset
from workbench.geo import engine
from workbench.geo import scored as geography
from workbench.geo.points import RegionPoints

COLUMNS = ["scenario", "quasi_identifiers", "cutoff", "method", "sites", "regions", "suppressed", "dm",
           "geo_entropy", "compactness", "seconds", "aggregation_seconds"]


def dynamic_cutoff(frame: pd.DataFrame, columns: Sequence[str], k: int, share: float = 0.01) -> int:
    """The smallest population c such that Σ_q q · P(Binomial(c − 1, q) ≤ k − 2) ≤ ``share``, q over the joint
    frequencies of ``columns`` in ``frame``: the expected share of a c-person region's records whose class (same
    values of ``columns``) is smaller than k."""
    q = frame.groupby(list(columns)).size().to_numpy(dtype=float) / len(frame)

    def at_risk(c: int) -> float:
        return float((q * binom.cdf(k - 2, c - 1, q)).sum())

    low, high = max(k, 1), max(k, 1)
    while at_risk(high) > share:
        high *= 2
    while low < high:
        mid = (low + high) // 2
        if at_risk(mid) <= share:
            high = mid
        else:
            low = mid + 1
    return low


def scenarios(frame: pd.DataFrame, candidates: Sequence[str], k: int, count: int = 18,
              cutoff_range: tuple[float, float] = (1000, 35000), sizes: Sequence[int] = (2, 3, 4),
              share: float = 0.01) -> list[tuple[tuple[str, ...], int]]:
    """``count`` scenarios (sets of the non-geographic quasi-identifiers, with their dynamic cut-off): every set of
    ``sizes`` columns whose cut-off lies in ``cutoff_range``, sorted by cut-off, then ``count`` of them evenly
    spaced (all when fewer)."""
    pool = []
    for size in sizes:
        for columns in itertools.combinations(candidates, size):
            cutoff = dynamic_cutoff(frame, columns, k, share)
            if cutoff_range[0] <= cutoff <= cutoff_range[1]:
                pool.append((columns, cutoff))
    pool.sort(key=lambda item: (item[1], item[0]))
    if len(pool) <= count:
        return pool
    return [pool[int(i)] for i in np.linspace(0, len(pool) - 1, count).round().astype(int)]


def comparison(dataset: Dataset, attribute: str, points: RegionPoints,
               chosen: Sequence[tuple[tuple[str, ...], int]], k: int) -> pd.DataFrame:
    """Per scenario, GeoLeader-like at the scenario's cut-off, then VBAS matched to its number of regions
    (``engine.compare_methods``); one row per scenario and method (``COLUMNS``)."""
    rows = []
    for i, (columns, cutoff) in enumerate(chosen, start=1):
        roles = {attribute: "quasi", **{c: "quasi" for c in columns}}
        roles |= {c: "insensitive" for c in dataset.frame.columns if c not in roles}
        scenario = replace(dataset, roles=roles)
        problem = engine.prepare(scenario, attribute, points)
        for result in geography.compare_methods(problem, float(cutoff), k):
            assert result.guarantee.holds
            rows.append({"scenario": i, "quasi_identifiers": "+".join(columns), "cutoff": cutoff,
                         "method": result.method, "sites": result.aggregation.parameters.get("sites"),
                         "regions": result.aggregation.regions, "suppressed": result.suppressed,
                         **result.measures, "seconds": result.seconds,
                         "aggregation_seconds": result.aggregation.seconds})
    return pd.DataFrame(rows, columns=COLUMNS)


def ratios(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario, VBAS's value as a share of GeoLeader-like's (the paper's "VBAS had a compactness measurement
    at 85.4 % of that of GeoLeader"), for every measure; the last row is the mean over the scenarios."""
    measures = ["regions", "suppressed", "dm", "geo_entropy", "compactness", "seconds", "aggregation_seconds"]
    wide = table.pivot(index="scenario", columns="method", values=measures)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = pd.DataFrame({m: wide[(m, "vbas")] / wide[(m, "geoleader")] for m in measures})
    out.index.name = "scenario"
    out = out.reset_index()
    mean = out[measures].replace([np.inf, -np.inf], np.nan).mean().to_frame().T.assign(scenario="mean")
    return pd.concat([out, mean], ignore_index=True)
