"""The lattice side of a comparison (``workbench.compare``): the candidate nodes (every k-anonymous node, the
k-minimal ones, the top N under a measure) and each node's value under each measure as the solutions table reports
it, from the node's frequency set where that is exact, else cell by cell on the node's release."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.space import Node
from workbench.objective import NodeScorer, target_codes
from workbench.release import generalized_column
from workbench.study import Progress, evaluator_for
from workbench.user_measure import at
from workbench.views.lattice import lattice_table

CANDIDATE_SETS = ("k_minimal", "all", "top")


def admissible_nodes(evaluator: NodeEvaluator) -> list[Node]:
    """Every node admissible under the evaluator's whole rule (k, every privacy model, the suppression limit), in
    lattice order (by rank, then lexicographically).

    k-anonymity with suppression is monotone, so the k-anonymous nodes are found top-down with predictive tagging:
    a node with a successor that is not k-anonymous is not either and is never evaluated (|k-anonymous| +
    |maximal not k-anonymous| checks). When the whole rule is monotone too (``Admissibility.monotone``) that walk
    asks it directly. A non-monotone rule (entropy ℓ-diversity or t-closeness with suppression, δ-presence) has
    admissible nodes below inadmissible ones, so the walk finds the nodes that are k-anonymous alone and the rule is
    asked of each of them: a model only adds suppressed records or vetoes a node (``Admissibility.outcome``), so a
    node that is not k-anonymous within the limit is not admissible under the whole rule either."""
    rule = evaluator.admissibility
    if rule.monotone:
        return _k_anonymous_nodes(evaluator)
    plain = NodeEvaluator(evaluator.columns, evaluator.k, evaluator.max_suppression, weights=evaluator.weights)
    return [n for n in _k_anonymous_nodes(plain) if evaluator.evaluate(n).k_anonymous]


def _k_anonymous_nodes(evaluator: NodeEvaluator) -> list[Node]:
    """The nodes admissible under a monotone rule, top-down with predictive tagging, in lattice order."""
    lattice = evaluator.lattice
    admissible: set[Node] = set()
    for level in reversed(lattice.by_rank):
        for node in level:
            if all(s in admissible for s in lattice.successors(node)) and evaluator.evaluate(node).k_anonymous:
                admissible.add(node)
    return [n for n in lattice.nodes() if n in admissible]


def node_verdict(evaluator: NodeEvaluator, node: Node) -> dict[str, object]:
    """The ``RULE_COLUMNS`` of a lattice node's release: does it meet the evaluator's whole rule (k, every privacy
    model, the suppression limit; the rule ``Release.from_node`` applies and ``Release.verify`` re-checks), and
    what it fails, in words ("" when it meets it)."""
    outcome = evaluator.outcome(evaluator.frequency_set(node))
    failures = [f"{m} does not hold" for m, ok in outcome.models.items() if not ok]
    if not evaluator.admissibility.within(outcome.suppressed):
        failures.insert(0, f"{outcome.suppressed:,} suppressed records exceed the limit of "
                           f"{evaluator.admissibility.limit:,}")
    return {"meets_rule": outcome.admissible, "rule_failures": "; ".join(failures)}


def candidate_nodes(study: Study, dataset: Dataset, candidates: str, top_n: int, by: str | None
                ) -> tuple[list[Node], NodeEvaluator]:
    """The candidate nodes and the evaluator that found them (its frequency sets are reused for scoring)."""
    if candidates not in CANDIDATE_SETS:
        raise ConfigError(f"candidates must be one of {', '.join(CANDIDATE_SETS)}, got {candidates!r}")
    evaluator = evaluator_for(study, dataset)
    nodes = admissible_nodes(evaluator)
    if candidates == "all":
        return nodes, evaluator
    if candidates == "top":
        objective = by or study.objective
        admissible = lattice_table(evaluator, [objective], nodes)
        best = admissible.sort_values([objective, "rank"]).head(top_n)
        return [tuple(int(v) for v in row) for row in best[dataset.quasi_identifiers].to_numpy()], evaluator
    return k_minimal(evaluator, nodes), evaluator


def k_minimal(evaluator: NodeEvaluator, admissible: Sequence[Node]) -> list[Node]:
    """The admissible nodes none of whose direct specializations is admissible (in the given order)."""
    admissible_set = set(admissible)
    lattice = evaluator.lattice
    return [n for n in admissible if not any(p in admissible_set for p in lattice.predecessors(n))]


def lattice_candidates(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
                       by: str | None = None) -> list[Node]:
    """The lattice nodes to compare: the k-minimal ones, every k-anonymous one, or the ``top_n`` best under
    ``by`` (default: the study's objective)."""
    return candidate_nodes(study, dataset, candidates, top_n, by)[0]


# Measures whose lattice fast path (from a node's frequency set) equals the cell-level value bit for bit
# (``Measure.exact_node``: sums of squared class sizes stay exact in float below 2**53): taken from the
# frequency set, so a lattice candidate's release never needs its classes recomputed record by record.
EXACT_NODE_MEASURES = tuple(i for i, m in M.MEASURES.items() if m.exact_node)

def measure_options(study: Study) -> dict[str, dict[str, object]]:
    return {"col_mi": {"kind": study.col_mi_weights}}  # as objective.score_release


def node_view(dataset: Dataset, evaluator: NodeEvaluator, node: Node) -> M.Generalized:
    """``Release.from_node(dataset, node, k, max_suppression).view()``, cell for cell, without the labels and
    with the suppressed records from the evaluator (the same columns: ``release.generalized_column``)."""
    columns = tuple(generalized_column(col, col.code_space[0][v] + col.level_codes[col.codes, v],
                                       np.full(dataset.n, v, dtype=np.int64))
                    for col, v in zip(dataset.encoded, node, strict=True))
    return M.Generalized(columns, evaluator.suppressed_mask(node), evaluator.k)


class SolutionProgress:
    """Reports the fraction of jobs done (``Progress``); jobs are announced as they become known."""

    def __init__(self, report: Progress | None, total: int = 0) -> None:
        self.report, self.total, self.done = report, total, 0

    def add(self, jobs: int) -> None:
        self.total += jobs

    def tick(self) -> None:
        self.done += 1
        if self.report:
            self.report(self.done / max(self.total, 1), f"{self.done:,} of {self.total:,} solutions scored")


def solution_label(dataset: Dataset, node: Node) -> str:
    return ",".join(f"{q}={v}" for q, v in zip(dataset.quasi_identifiers, node, strict=True))


def node_values(study: Study, dataset: Dataset, evaluator: NodeEvaluator, nodes: Sequence[Node],
                 ids: Sequence[str], progress: SolutionProgress | None = None) -> list[dict[str, float]]:
    """Each node's value under each measure, as the solutions table reports it: the exact frequency-set fast
    paths for ``EXACT_NODE_MEASURES``, the cell-level definition on the node's release for the others."""
    scorer = NodeScorer(evaluator)
    fast = [m for m in ids if m in EXACT_NODE_MEASURES]
    cell = [m for m in ids if m not in EXACT_NODE_MEASURES]
    target = target_codes(study, dataset) if any(M.MEASURES[m].needs_target for m in cell) else None
    out = []
    for node in nodes:
        values = {m: s.value for m, s in M.score_node(scorer.view(node), fast).items()} if fast else {}
        if cell:
            view = node_view(dataset, evaluator, node)
            with at(f"node {solution_label(dataset, node)}"):  # named in a user measure's error
                values |= {m: s.value for m, s in M.score(view, cell, target, measure_options(study)).items()}
        out.append(values)
        if progress:
            progress.tick()
    return out
