"""Precision, Prec (Sweeney 2002; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from measures._view import Generalized, NodeClasses


def _share(h: np.ndarray | float, H: int) -> np.ndarray | float:
    return h / H if H > 0 else h * 0.0


def precision(view: Generalized) -> float:
    """(1/(n·r)) Σ cells h/H: suppression is not charged (El Emam 2009, §Metrics)."""
    if view.n == 0 or view.r == 0:
        return 0.0
    return float(np.mean([np.mean(_share(c.height, c.max_height)) for c in view.columns]))


def precision_nm(view: Generalized) -> float:
    """As precision, but a suppressed cell counts as fully generalized (ARX, non-monotonic)."""
    if view.n == 0 or view.r == 0:
        return 0.0
    s = view.suppressed
    return float(np.mean([np.mean(np.where(s, 1.0, _share(c.height, c.max_height))) for c in view.columns]))


def _exact_shares(node: NodeClasses) -> list[Fraction]:
    return [Fraction(v, H) if H > 0 else Fraction(0) for v, H in zip(node.levels, node.max_heights, strict=True)]


def precision_node(node: NodeClasses) -> float:
    """(1/r) Σ_j v_j/H_j as an exact rational, rounded once: nodes with equal precision get equal floats
    whatever the order of their attributes (searches compare values exactly)."""
    if node.r == 0:
        return 0.0
    return float(sum(_exact_shares(node)) / node.r)


def precision_nm_node(node: NodeClasses) -> float:
    """(1/r) Σ_j [(v_j/H_j)(n−S) + S]/n as an exact rational, rounded once (see ``precision_node``)."""
    n, S = node.n, node.suppressed
    if node.r == 0 or n == 0:
        return 0.0
    return float(sum((p * (n - S) + S) / n for p in _exact_shares(node)) / node.r)
