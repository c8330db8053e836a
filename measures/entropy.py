"""Non-uniform entropy (Gionis & Tassa 2009; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

import math

import numpy as np

from measures._view import Generalized, GeneralizedColumn, NodeClasses


def _column_entropy(c: GeneralizedColumn) -> float:
    f = np.bincount(c.original)  # f_j(o): records with original value o
    return float(np.sum(np.log2(c.f_bar[c.released] / f[c.original])))  # f̄_j(g): records under g


def _suppression_charge(counts: np.ndarray, S: int) -> float:
    c = counts[counts > 0].astype(float)
    return float(np.sum(c * np.log2(S / c))) if S else 0.0


def entropy(view: Generalized) -> float:
    """Σ_j Σ_i log2(f̄_j(g_i)/f_j(o_i)) over all n records; suppression is not charged."""
    return float(sum(_column_entropy(c) for c in view.columns))


def entropy_nm(view: Generalized) -> float:
    """entropy + Σ_j Σ_y c_{j,y}·log2(S/c_{j,y}), c_{j,y} = suppressed records released as y (ARX)."""
    S = int(view.suppressed.sum())
    extra = sum(_suppression_charge(np.bincount(c.released[view.suppressed]), S) for c in view.columns)
    return entropy(view) + float(extra)


def _column_terms(node: NodeClasses) -> list[float]:
    return [float(d.entropy_by_level[v]) for d, v in zip(node.domains, node.levels, strict=True)]


def entropy_node(node: NodeClasses) -> float:
    """Σ_j of each column's entropy at its level, summed exactly rounded (``math.fsum``): the value depends on
    the multiset of column terms only, so nodes that are equal up to the attributes' order tie exactly."""
    return math.fsum(_column_terms(node))


def _charges(node: NodeClasses) -> list[float]:
    """Per column Σ_y c·log2(S/c) over its suppressed records per released value (every term ≥ 0): the terms of
    all columns in one pass, each column's summed on its own as ``np.sum`` would."""
    S = node.suppressed
    counts, offsets = node.suppressed_flat
    positive = counts > 0
    c = counts[positive].astype(float)
    terms = c * np.log2(S / c)
    ends = np.cumsum(positive)[offsets[1:] - 1].tolist() if counts.size else [0] * node.r
    starts = [0, *ends[:-1]]
    return [float(terms[a:b].sum()) for a, b in zip(starts, ends, strict=True)]


def entropy_nm_node(node: NodeClasses) -> float:
    """entropy + Σ_j Σ_y c_{j,y}·log2(S/c_{j,y}), one term per column, summed exactly rounded: never below
    ``entropy_node`` (bnb's bound) and independent of the attributes' order."""
    if node.suppressed == 0:
        return entropy_node(node)
    return math.fsum(_column_terms(node) + _charges(node))
