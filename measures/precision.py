"""Precision, Prec (Sweeney 2002; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

import functools
import math

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized


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


@functools.lru_cache(maxsize=256)
def _weights(heights: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """L, the least common multiple of the heights > 0, and each column's L / H_j (0 when H_j = 0)."""
    L = math.lcm(*(H for H in heights if H > 0))
    return tuple(L // H if H > 0 else 0 for H in heights), L


def _shares(node: NodeClasses) -> tuple[int, int]:
    """``(num, L)`` with Σ_j v_j/H_j = num / L exactly."""
    return _level_shares(node.levels, node.max_heights)


@functools.lru_cache(maxsize=16)  # precision and precision_nm of one node ask in turn
def _level_shares(levels: tuple[int, ...], heights: tuple[int, ...]) -> tuple[int, int]:
    weights, L = _weights(heights)
    return sum(v * w for v, w in zip(levels, weights, strict=True)), L


def precision_node(node: NodeClasses) -> float:
    """(1/r) Σ_j v_j/H_j as an exact rational, rounded once (a Python integer division rounds correctly): nodes
    with equal precision get equal floats whatever the order of their attributes (searches compare exactly)."""
    if node.r == 0:
        return 0.0
    num, L = _shares(node)
    return num / (L * node.r)


def precision_nm_node(node: NodeClasses) -> float:
    """(1/r) Σ_j [(v_j/H_j)(n−S) + S]/n = [(n−S)·num + r·S·L] / (L·n·r), exact, rounded once (see
    ``precision_node``)."""
    n, S, r = node.n, node.suppressed, node.r
    if r == 0 or n == 0:
        return 0.0
    num, L = _shares(node)
    return ((n - S) * num + r * S * L) / (L * n * r)
