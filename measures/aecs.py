"""Average equivalence class size, AECS (LeFevre 2006) in ARX's convention."""

from __future__ import annotations

import numpy as np

from measures._view import Generalized, NodeClasses


def aecs(view: Generalized) -> float:
    """n / (released classes + [S > 0]): all suppressed records together count as one class (ARX)."""
    released = view.class_sizes(~view.suppressed).size
    classes = released + int(bool(view.suppressed.any()))
    return float(view.n / classes) if classes else 0.0


def aecs_node(node: NodeClasses) -> float:
    classes = int(np.count_nonzero(~node.small)) + int(node.suppressed > 0)
    return float(node.n / classes) if classes else 0.0
