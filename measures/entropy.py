"""Non-uniform entropy (Gionis & Tassa 2009; El Emam 2009) and ARX's suppression-charging variant."""

from __future__ import annotations

import numpy as np

from measures._view import Generalized, GeneralizedColumn, NodeClasses


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


def entropy_node(node: NodeClasses) -> float:
    return float(sum(d.entropy_by_level[v] for d, v in zip(node.domains, node.levels, strict=True)))


def entropy_nm_node(node: NodeClasses) -> float:
    S = node.suppressed
    if S == 0:
        return entropy_node(node)
    # Σ_j Σ_y c·log2(S/c) = r·S·log2(S) − Σ_j Σ_y c·log2(c), since Σ_y c_{j,y} = S in every column
    c = np.concatenate(node.suppressed_value_counts)
    c = c[c > 0].astype(float)
    return entropy_node(node) + node.r * S * float(np.log2(S)) - float(c @ np.log2(c))
