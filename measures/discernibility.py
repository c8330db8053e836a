"""Discernibility: DM (Bayardo & Agrawal 2005) and the suppression-blind DM* (El Emam 2009)."""

from __future__ import annotations

from measures._view import Generalized, NodeClasses


def dm_star(view: Generalized) -> float:
    """Σ_E |E|² over all classes, including those whose records are suppressed (El Emam 2009)."""
    sizes = view.class_sizes().astype(float)
    return float(sizes @ sizes)


def dm(view: Generalized) -> float:
    """Σ_{released E} |E|² + n·S: a suppressed record is charged the whole table (Bayardo 2005)."""
    sizes = view.class_sizes(~view.suppressed).astype(float)
    return float(sizes @ sizes + view.n * float(view.suppressed.sum()))


def dm_star_node(node: NodeClasses) -> float:
    sizes = node.class_sizes.astype(float)
    return float(sizes @ sizes)


def dm_node(node: NodeClasses) -> float:
    kept = node.class_sizes[~node.small].astype(float)
    return float(kept @ kept + node.n * node.suppressed)
