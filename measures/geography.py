"""Measures of a geographic aggregation (Croft, Shi, Sack & Corriveau 2015, §3.4).

An aggregation is a partition of fine regions into aggregated regions: ``groups[r]`` is the aggregated region of
fine region ``r`` (integers, any labels). These measures need what a release's cell view does not hold (each fine
region's point in the plane, the partition itself), so they take arrays rather than ``measures.Generalized``;
``GEO_MEASURES`` is their registry (id, name, formula, source), read by the geography CLI and page.

- ``compactness`` (Eq. 8): Σ over aggregated regions of Σ over its member regions of the Euclidean distance
  between the member's point and the mean point of the members (projected coordinates, e.g. metres).
- ``discernibility`` (Eq. 9): Σ |E|² over the equivalence classes with |E| ≥ k; suppressed classes add nothing
  (unlike Bayardo & Agrawal's DM, which charges n per suppressed record).
- ``geo_entropy`` (Eqs. 10–11): −Σ_i log2 Pr(R_i | R'_i) over the records, Pr(a | b) = #{R = a} / #{R' = b}, on
  the geographic attribute only. Each record is counted at its aggregated region whether or not its class was
  suppressed (the measure rates the aggregation; suppression is counted separately).

This module never imports ``workbench``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _dense(groups: np.ndarray) -> tuple[np.ndarray, int]:
    _, inverse = np.unique(np.asarray(groups), return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    return inverse, int(inverse.max()) + 1 if inverse.size else 0


def group_means(xy: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The mean point of each aggregated region's member points (the "centroid" r_ip of Eq. 8; Eqs. 6–7), in
    the order of the sorted distinct group labels."""
    xy = np.asarray(xy, dtype=float)
    dense, m = _dense(groups)
    count = np.bincount(dense, minlength=m).astype(float)
    return np.stack([np.bincount(dense, xy[:, 0], m) / count, np.bincount(dense, xy[:, 1], m) / count], axis=1)


def compactness_by_group(xy: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Eq. 8's inner sum per aggregated region: Σ_{r' ∈ R_i} ‖r_ip − r'_p‖ (sorted distinct group order)."""
    xy = np.asarray(xy, dtype=float)
    if xy.ndim != 2 or xy.shape[1] != 2 or xy.shape[0] != np.asarray(groups).shape[0]:
        raise ValueError(f"xy must be (n, 2) with one group per point, got {xy.shape} and "
                         f"{np.asarray(groups).shape}")
    dense, m = _dense(groups)
    means = group_means(xy, dense)
    distance = np.hypot(xy[:, 0] - means[dense, 0], xy[:, 1] - means[dense, 1])
    return np.bincount(dense, distance, m)


def compactness(xy: np.ndarray, groups: np.ndarray) -> float:
    """Eq. 8 (Croft 2015): Σ_{R_i ∈ R} Σ_{r' ∈ R_i} ‖r_ip − r'_p‖, lower is more compact; 0 when every
    aggregated region holds one fine region."""
    return float(compactness_by_group(xy, groups).sum())


def discernibility(class_sizes: np.ndarray, k: int) -> float:
    """Eq. 9 (Croft 2015): Σ_{|E_i| ≥ k} |E_i|² over the equivalence classes (all quasi-identifiers, the
    geography aggregated), in exact integer arithmetic."""
    s = np.asarray(class_sizes, dtype=np.int64)
    kept = s[s >= k]
    return float(int((kept * kept).sum()))


def geo_entropy(region_records: np.ndarray, groups: np.ndarray) -> float:
    """Eqs. 10–11 (Croft 2015): −Σ_i log2 Pr(R_i | R'_i) over every record, with ``region_records[r]`` the
    records whose original region is r and ``groups[r]`` its aggregated region. Records of region a aggregated
    into b contribute c_a · log2(C_b / c_a), C_b the records of b: the per-record sum grouped by region."""
    c = np.asarray(region_records, dtype=np.int64)
    dense, m = _dense(groups)
    if c.shape != dense.shape:
        raise ValueError(f"one record count per region: {c.shape} counts for {dense.shape} regions")
    total = np.bincount(dense, c, m)
    present = c > 0
    return float(np.sum(c[present] * np.log2(total[dense[present]] / c[present])))


@dataclass(frozen=True)
class GeoMeasure:
    """One measure of a geographic aggregation: all are losses (lower is better)."""

    id: str
    name: str
    formula: str
    source: str


GEO_MEASURES: dict[str, GeoMeasure] = {m.id: m for m in (
    GeoMeasure("suppressed", "Suppressed records", "#{records in classes with |E| < k}", "Croft 2015 §3.4.1"),
    GeoMeasure("compactness", "Compactness", "Σ_{R_i} Σ_{r' ∈ R_i} ‖mean(R_i) − p(r')‖", "Croft 2015 Eq. 8"),
    GeoMeasure("dm", "Discernibility (kept classes)", "Σ_{|E| ≥ k} |E|²", "Croft 2015 Eq. 9"),
    GeoMeasure("geo_entropy", "Non-uniform entropy of the geography",
               "−Σ_i log2( #{R = R_i} / #{R' = R'_i} )", "Croft 2015 Eqs. 10–11"),
    GeoMeasure("seconds", "Running time", "wall-clock seconds of aggregation, classes and suppression",
               "Croft 2015 §3.4.5"),
)}
"""The measures the geography engine reports, by id (the keys of its JSON ``measures`` object, plus the
top-level ``suppressed`` and ``seconds``)."""
