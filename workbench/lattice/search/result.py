"""Typed results shared by the lattice search algorithms."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from workbench.lattice.evaluate import NodeEvaluation
from workbench.lattice.space import Node

Objective = Callable[[Node], float]
"""A loss to minimize over nodes; built by the study runner from the measure registry."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the optimum (None if no node is k-anonymous), its objective value, whether
    it is proven optimal, the number of node checks, wall time and the nodes it evaluated, in order."""

    algorithm: str
    optimum: Node | None
    value: float | None
    proven_optimal: bool
    checks: int
    seconds: float
    evaluations: tuple[NodeEvaluation, ...] = ()


def tie_key(node: Node, value: float) -> tuple[float, int, Node]:
    """Order of preference: lowest objective, then lowest height, then lexicographically smallest.

    Values equal to 12 significant digits tie: sums of logarithms in different orders differ in the
    last bits, and such noise must not decide between nodes.
    """
    return (float(f"{value:.12g}"), sum(node), node)


def best_of(values: Mapping[Node, float]) -> Node | None:
    """The preferred node of ``{node: objective value}`` under ``tie_key``."""
    if not values:
        return None
    return min(values, key=lambda node: tie_key(node, values[node]))
