"""Precision, Prec (Sweeney 2002; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

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


def precision_node(node: NodeClasses) -> float:
    return sum(_share(v, H) for v, H in zip(node.levels, node.max_heights, strict=True)) / node.r


def precision_nm_node(node: NodeClasses) -> float:
    n, S = node.n, node.suppressed
    shares = [_share(v, H) for v, H in zip(node.levels, node.max_heights, strict=True)]
    return sum((p * (n - S) + S) / n for p in shares) / node.r
