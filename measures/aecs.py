"""Average equivalence class size, AECS (LeFevre 2006) in ARX's convention."""

from __future__ import annotations

from measures._node import NodeClasses
from measures._view import Generalized


def aecs(view: Generalized) -> float:
    """n / (released classes + [S > 0]): all suppressed records together count as one class (ARX)."""
    released = view.class_sizes(~view.suppressed).size
    classes = released + int(bool(view.suppressed.any()))
    return float(view.n / classes) if classes else 0.0


def aecs_node(node: NodeClasses) -> float:
    classes = node.kept_classes + int(node.suppressed > 0)
    return float(node.n / classes) if classes else 0.0


def aecs_bound_node(node: NodeClasses) -> float:
    """n / (all classes): monotone (classes only merge going up) and a lower bound of ``aecs`` at the node and
    every generalization (with S > 0 at least one class is suppressed, so released + 1 ≤ all classes)."""
    return float(node.n / node.class_sizes.size) if node.class_sizes.size else 0.0
