"""Exhaustive search: evaluate every node of the lattice (the gold standard of El Emam 2009, §Methods).

Nodes are visited by rank so that every frequency set is rolled up from a predecessor's. Returns the
admissible (k-anonymous) node minimizing the objective; ties go to the lowest height, then to the
lexicographically smallest level vector.
"""

from __future__ import annotations

import time

from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search.result import Objective, SearchResult, best_of


def search(evaluator: NodeEvaluator, objective: Objective) -> SearchResult:
    """Evaluate all nodes; the optimum over the k-anonymous ones (None when there is none)."""
    start = time.perf_counter()
    checks0 = evaluator.checks
    evaluations = [evaluator.evaluate(node) for node in evaluator.lattice.nodes()]
    values = {e.node: objective(e.node) for e in evaluations if e.k_anonymous}
    optimum = best_of(values)
    return SearchResult(
        algorithm="exhaustive",
        optimum=optimum,
        value=values[optimum] if optimum is not None else None,
        proven_optimal=True,
        checks=evaluator.checks - checks0,
        seconds=time.perf_counter() - start,
        evaluations=tuple(evaluations),
    )
