"""ARX's loss (``Metric.createLossMetric()``: ``MetricMDNMLoss``, gs-factor 0.5, geometric-mean aggregate).

Iyengar's (2002) loss as ARX computes it (arx-deidentifier/arx, ``metric/v2/MetricMDNMLoss.java``). Per
quasi-identifier j with domain shares ``share_j(g) = num_j(g) / D_j`` (``DomainShareMaterialized``: the
hierarchy's rows under g over its rows; ``DomainShareInterval``: an interval's width over the domain's):

    a_j = Σ over kept records of share_j(g) + S            (a suppressed record's cell counts 1)
    v_j = floor10( max(0, (a_j − n/D_j) / (n − n/D_j)) )    (``normalizeGeneralized``; 0 when D_j ≤ 1)
    loss = Π_j (1 + v_j)^(1/r) − 1                          (``ILMultiDimensionalGeometricMean``)

``floor10`` is ARX's ``Metric.round``: ``floor(x · 10^10) / 10^10``. With gs-factor 0.5 ARX's generalization
and suppression factors are both 1. Multiplying through by D_j, ``v_j = (A_j − n) / (n (D_j − 1))`` with
``A_j = Σ_kept num_j(g) + S·D_j``; with integer numerators (hierarchy rows, integer widths) this is computed
exactly in integers, as ARX's reliable (BigFraction) variant does, before the floor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized

_DIGITS = 10
_FACTOR = 10**_DIGITS


def _is_integral(num: np.ndarray, domain: float) -> bool:
    return np.issubdtype(num.dtype, np.integer) and float(domain).is_integer()


def normalized_attribute_loss(total: float, n: int, domain: float, exact: bool) -> float:
    """ARX's ``normalizeGeneralized`` of one attribute, multiplied through by D: ``total`` = A_j (shares
    numerators of the kept cells plus S·D), floored to 10 decimals as ARX's ``Metric.round``."""
    if n == 0 or domain <= 1:
        return 0.0  # ARX: 0/0 is NaN, which its "result >= 0 ? result : 0" turns into 0
    if exact:
        excess = int(total) - n
        if excess <= 0:
            return 0.0
        return ((excess * _FACTOR) // (n * (int(domain) - 1))) / _FACTOR
    x = max((float(total) - n) / (n * (float(domain) - 1.0)), 0.0)
    return math.floor(x * _FACTOR) / _FACTOR


def geometric_aggregate(values: Sequence[float]) -> float:
    """ARX's geometric-mean aggregate ``Π (1 + v_j)^(1/r) − 1`` (unit weights), multiplied as ARX does, in
    ascending order of the values: nodes equal up to the order of their attributes get identical values."""
    if not len(values):
        return 0.0
    result = 1.0
    for v in sorted(values):
        result *= math.pow(float(v) + 1.0, 1.0 / len(values))
    return result - 1.0


def _attribute_loss(kept_shares: float, S: int, n: int, domain: float, exact: bool) -> float:
    """One attribute's ``v_j`` from the share numerators of its kept cells and S suppressed cells (share 1)."""
    total = (int(kept_shares) + S * int(domain)) if exact else float(kept_shares) + S * float(domain)
    return normalized_attribute_loss(total, n, domain, exact)


def loss_by_attribute(view: Generalized) -> list[float]:
    """Per quasi-identifier: ARX's normalized loss ``v_j`` (the values ARX prints per attribute)."""
    out = []
    kept = ~view.suppressed
    S = view.n - int(kept.sum())
    for c in view.columns:
        num, domain = c.domain_shares
        out.append(_attribute_loss(num[c.released[kept]].sum(), S, view.n, domain, _is_integral(num, domain)))
    return out


def loss(view: Generalized) -> float:
    """ARX's loss: the geometric-mean aggregate of ``loss_by_attribute``."""
    if view.n == 0 or view.r == 0:
        return 0.0
    return geometric_aggregate(loss_by_attribute(view))


def loss_by_attribute_node(node: NodeClasses, charge_suppression: bool = True) -> list[float]:
    """``loss_by_attribute`` of a lattice node from its frequency set; ``charge_suppression=False`` gives
    ARX's lower bound (every record at its generalized share, ``getLowerBoundInternal``). With integer shares,
    the kept cells' numerators are all cells' (``ColumnDomain.share_totals``) less the suppressed ones'."""
    n, levels = node.n, node.levels
    S = node.suppressed if charge_suppression else 0
    exact = [d.exact_loss for d in node.domains]
    if all(e is not None for e in exact):  # integers throughout: ARX's exact (BigFraction) arithmetic
        charged = [0] * len(levels)  # per column Σ_y num_j(y)·c_{j,y}: the suppressed cells' share numerators
        if S:
            counts, offsets = node.suppressed_flat
            nums = np.concatenate([e[0][v] for e, v in zip(exact, levels, strict=True) if e is not None])
            charged = np.add.reduceat(nums * counts, offsets[:-1]).tolist()
        return [_exact_loss(e[1][v] - c + S * e[2], n, e[2]) for e, v, c in zip(exact, levels, charged, strict=True)
                if e is not None]
    by_column = node.suppressed_value_counts if S else None
    out = []
    for j, (d, v) in enumerate(zip(node.domains, levels, strict=True)):
        nums, domain = d.domain_shares
        ints, totals = d.integral_shares, d.share_totals
        if ints is not None and totals is not None:
            charge = int(ints[v] @ by_column[j]) if by_column is not None else 0
            out.append(normalized_attribute_loss(totals[v] - charge + S * int(domain), n, domain, True))
        else:
            under = d.generalized_counts[v]
            out.append(_attribute_loss(nums[v] @ (under - by_column[j] if by_column is not None else under), S, n,
                                       domain, False))
    return out


def _exact_loss(total: int, n: int, domain: int) -> float:
    """``normalized_attribute_loss`` with integers (A_j, n, D_j)."""
    if n == 0 or domain <= 1:
        return 0.0
    excess = total - n
    return ((excess * _FACTOR) // (n * (domain - 1))) / _FACTOR if excess > 0 else 0.0


def loss_node(node: NodeClasses) -> float:
    if node.n == 0 or node.r == 0:
        return 0.0
    return geometric_aggregate(loss_by_attribute_node(node))


def loss_bound_node(node: NodeClasses) -> float:
    """Loss of the generalization alone (suppression not charged; ARX's lower bound): a monotone lower bound
    of ``loss`` at the node and at every generalization of it, as a suppressed cell's share 1 is at least its
    generalized share, shares grow up the hierarchy, and the floor and the aggregate are monotone."""
    if node.n == 0 or node.r == 0:
        return 0.0
    return geometric_aggregate(loss_by_attribute_node(node, charge_suppression=False))
