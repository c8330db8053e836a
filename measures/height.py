"""Generalization height (Samarati 2001): Σ_j v_j; per record Σ_j h_ij averaged for local releases."""

from __future__ import annotations

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized


def height(view: Generalized) -> float:
    """Mean over records of the summed cell heights (= Σ_j v_j for a lattice node)."""
    if view.n == 0:
        return 0.0
    return float(sum(np.sum(c.height) for c in view.columns) / view.n)


def height_node(node: NodeClasses) -> float:
    return float(sum(node.levels))
