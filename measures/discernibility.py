"""Discernibility: DM (Bayardo & Agrawal 2005) and the suppression-blind DM* (El Emam 2009).

Squares are summed in 64-bit integers: exact, and unlike a float dot product it never wakes BLAS worker
threads (which cost milliseconds per node on a busy 2-core machine).
"""

from __future__ import annotations

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized


def _squares(sizes: np.ndarray) -> int:
    s = sizes.astype(np.int64)
    return int((s * s).sum())


def dm_star(view: Generalized) -> float:
    """Σ_E |E|² over all classes, including those whose records are suppressed (El Emam 2009)."""
    return float(_squares(view.class_sizes()))


def dm(view: Generalized) -> float:
    """Σ_{released E} |E|² + n·S: a suppressed record is charged the whole table (Bayardo 2005)."""
    return float(_squares(view.class_sizes(~view.suppressed)) + view.n * int(view.suppressed.sum()))


def dm_star_node(node: NodeClasses) -> float:
    return float(node.squares)


def dm_node(node: NodeClasses) -> float:
    return float(node.kept_squares + node.n * node.suppressed)
