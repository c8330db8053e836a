"""Iyengar's loss metric, LM (Iyengar 2002), averaged over all n·r cells."""

from __future__ import annotations

import math

import numpy as np

from measures._view import Generalized, NodeClasses


def loss(view: Generalized) -> float:
    """Cell loss (leaves(g) − 1)/(|domain_j| − 1); a suppressed record's cells cost 1.

    ``leaves(g)`` counts the distinct original values of the column that lie under g, and
    ``|domain_j|`` the distinct original values of column j, so the root costs exactly 1.
    """
    if view.n == 0 or view.r == 0:
        return 0.0
    total = 0.0
    for c in view.columns:
        m = c.domain_size
        cell = (c.leaf_count[c.released] - 1) / (m - 1) if m > 1 else np.zeros(view.n)
        total += float(np.sum(np.where(view.suppressed, 1.0, cell)))
    return total / (view.n * view.r)


def loss_node(node: NodeClasses) -> float:
    n, r, S = node.n, node.r, node.suppressed
    if n == 0 or r == 0:
        return 0.0
    terms = []  # one per column, summed exactly rounded: the value does not depend on the attributes' order
    for d, v, c in zip(node.domains, node.levels, node.suppressed_value_counts, strict=True):
        charged_to_suppressed = float(d.loss_by_code[v] @ c) if S else 0.0
        terms.append(float(d.loss_by_level[v]) - charged_to_suppressed + S)
    return math.fsum(terms) / (n * r)


def loss_bound_node(node: NodeClasses) -> float:
    """Loss of the generalization alone (suppression not charged): a monotone lower bound of ``loss`` at the
    node and at every generalization of it (a suppressed cell costs 1 ≥ its generalized cost)."""
    if node.n == 0 or node.r == 0:
        return 0.0
    total = math.fsum(float(d.loss_by_level[v]) for d, v in zip(node.domains, node.levels, strict=True))
    return total / (node.n * node.r)
