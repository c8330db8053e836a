"""Non-uniform entropy (Gionis & Tassa 2009; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

import math

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized, GeneralizedColumn


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
    return [d.entropy_terms[v] for d, v in zip(node.domains, node.levels, strict=True)]


def entropy_node(node: NodeClasses) -> float:
    """Σ_j of each column's entropy at its level, summed exactly rounded (``math.fsum``): the value depends on
    the multiset of column terms only, so nodes that are equal up to the attributes' order tie exactly."""
    return math.fsum(_column_terms(node))


def _charges(node: NodeClasses) -> list[float]:
    """Every term c·log2(S/c) > 0 of every column: suppressed records per released value, all columns in one pass."""
    counts, _ = node.suppressed_flat
    c = counts[counts > 0]  # int64, exact in a float (as the products below convert it)
    return (c * np.log2(node.suppressed / c)).tolist()


def entropy_nm_node(node: NodeClasses) -> float:
    """entropy + Σ_j Σ_y c_{j,y}·log2(S/c_{j,y}): the columns' entropy terms and every charge term summed exactly
    rounded (``math.fsum``), so never below ``entropy_node`` (bnb's bound) and independent of the attributes'
    order."""
    if node.suppressed == 0:
        return entropy_node(node)
    return math.fsum(_column_terms(node) + _charges(node))
