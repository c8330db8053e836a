"""Hierarchy measures of Katirai 2006 (§2.3): Vinterbo-1.0, a row's cost Σ_j h_ij / M_j, summed over rows.

Each cell costs its generalization height over the greatest height of its column's hierarchy or poset
(0 at an original value, 1 at the top), so the measure ranges over [0, n·r]. It applies cell by cell to any
release, lattice or local.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized


def vinterbo(view: Generalized) -> float:
    """Σ_i Σ_j h_ij / M_j (Vinterbo-1.0; a column of height 0 costs 0)."""
    return float(sum(np.sum(c.height) / c.max_height for c in view.columns if c.max_height > 0))


def vinterbo_node(node: NodeClasses) -> float:
    """n · Σ_j v_j / H_j, summed as an exact rational: the value does not depend on the attributes' order."""
    return float(node.n * sum(Fraction(v, H) for v, H in zip(node.levels, node.max_heights, strict=True) if H > 0))
