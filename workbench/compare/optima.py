"""Each measure's optimum over every node admissible under the study's whole rule (k, every privacy model, the
suppression limit) (``workbench.compare.lattice_optima``), not over a candidate set: with a suppression limit above 0
several measures are not monotone (Kohlmayer, Prasser et al. 2016), so the best minimal admissible node need not be
the best admissible node; and a non-monotone rule has admissible nodes below inadmissible ones."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

import measures as M
from workbench.compare.nodes import admissible_nodes, k_minimal, node_values, solution_label
from workbench.compare.ranking import RISK_COLUMNS
from workbench.config import Study
from workbench.data import Dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search.result import best_of
from workbench.lattice.space import Node
from workbench.objective import check_measures
from workbench.risk.solutions import node_risk
from workbench.study import evaluator_for
from workbench.views.lattice import lattice_table

EVERY_NODE = "every node admissible under"  # the start of ``every_node``'s scope
K_MINIMAL_NODES = "the minimal nodes admissible under"  # the start of ``minimal_nodes``'s scope


def every_node(evaluator: NodeEvaluator) -> str:
    """The scope of an optimum over every admissible node, naming the rule: "every node admissible under k = 5,
    entropy-3-diversity (shannon) of occupation, 4 % suppression"."""
    return f"{EVERY_NODE} {evaluator.admissibility.rule_text()}"


def minimal_nodes(evaluator: NodeEvaluator) -> str:
    """The scope of a monotone measure's optimum, searched over the minimal admissible nodes only."""
    return (f"{K_MINIMAL_NODES} {evaluator.admissibility.rule_text()} (monotone measure and rule: provably the same "
            "optimum)")
OPTIMA_COLUMNS = ["measure", "solution", "value", "searched", "nodes"]


def lattice_optima(study: Study, dataset: Dataset, measure_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each measure's optimum over EVERY admissible node (k, every privacy model and the suppression limit: the
    study's whole rule, ``Admissibility``), not over a candidate set: one row per measure with ``solution`` (the
    node), ``value`` (as the solutions table reports it), ``searched`` (which nodes were compared, naming the rule)
    and ``nodes`` (how many). It equals exhaustive search's optimum under the same rule.

    Measures with a lattice fast path are compared on every admissible node from the frequency sets; the
    others (col_mi, pmi, nmi) cell by cell, on every admissible node, except a monotone one under a monotone rule,
    whose optimum is a minimal admissible node (every admissible node generalizes one, which scores no worse). Ties
    go to the lowest, then lexicographically smallest node (the searches' ``tie_key``). Empty when no node is
    admissible. ``measure_ids`` may name ``RISK_COLUMNS``, each minimized over every admissible node; by default
    the study's measures, then the risk columns."""
    chosen_ids = measure_ids if measure_ids is not None else [*study.compare, *RISK_COLUMNS]
    risks = [m for m in chosen_ids if m in RISK_COLUMNS]
    ids = [m for m in chosen_ids if m != "degradation" and m not in RISK_COLUMNS]
    check_measures(replace(study, compare=tuple(ids)))
    evaluator = evaluator_for(study, dataset)
    admissible = admissible_nodes(evaluator)
    if not admissible or not (ids or risks):
        return pd.DataFrame({"measure": pd.Series(dtype=str), "solution": pd.Series(dtype=str),
                             "value": pd.Series(dtype="float64"), "searched": pd.Series(dtype=str),
                             "nodes": pd.Series(dtype="int64")})
    minimal = k_minimal(evaluator, admissible)
    everywhere, at_minimal = every_node(evaluator), minimal_nodes(evaluator)
    fast = [m for m in ids if M.MEASURES[m].node is not None]
    slow = [m for m in ids if M.MEASURES[m].node is None]
    searched: dict[str, tuple[str, dict[Node, float]]] = {}
    if fast:
        table = lattice_table(evaluator, fast, admissible)
        for m in fast:
            sign = -1.0 if M.MEASURES[m].higher_is_better else 1.0
            searched[m] = (everywhere, dict(zip(admissible, sign * table[m].to_numpy(dtype=float), strict=True)))
    every = [m for m in slow if not (M.MEASURES[m].monotone and evaluator.admissibility.monotone)]
    nodes = admissible if every else minimal if slow else []
    scored = dict(zip(nodes, node_values(study, dataset, evaluator, nodes, slow), strict=True))
    for m in slow:
        pool = admissible if m in every else minimal
        sign = -1.0 if M.MEASURES[m].higher_is_better else 1.0
        searched[m] = (everywhere if m in every else at_minimal, {n: sign * scored[n][m] for n in pool})
    if risks:
        node_risks = {n: node_risk(evaluator, n) for n in admissible}
        for m in risks:
            searched[m] = (everywhere, {n: r[m] for n, r in node_risks.items()})
    # a user measure that failed on a node scores NaN there (inside plugins.collecting_failures)
    chosen = {m: best_of({n: v for n, v in values.items() if v == v}) for m, (_, values) in searched.items()}
    ids = [m for m in ids if chosen[m] is not None]
    risks = [m for m in risks if chosen[m] is not None]
    distinct = list(dict.fromkeys(chosen[m] for m in [*ids, *risks]))
    reported = dict(zip(distinct, node_values(study, dataset, evaluator, distinct, ids), strict=True))
    rows = [{"measure": m, "solution": solution_label(dataset, chosen[m]), "value": reported[chosen[m]][m]
             if m in ids else searched[m][1][chosen[m]], "searched": searched[m][0], "nodes": len(searched[m][1])}
            for m in [*ids, *risks]]
    return pd.DataFrame(rows, columns=OPTIMA_COLUMNS)
