"""Solution-space comparison: for one configuration, every candidate solution of both engines scored by every
measure at once, the Pareto front, the rank agreement between measures and which solution each measure
would pick (the workbench's purpose: see what each de-identification costs under *every* measure).

Candidates from the lattice engine: the k-minimal nodes (the minimal k-anonymous nodes; for a monotone
measure the optimum is one of them, El Emam 2009), or every k-anonymous node, or the top N under a measure.
Candidates from the local engine: its releases for the same k. All are scored by the same measure
functions on their Release.

The candidates are a sample of the solution space, not its optimum: with a suppression limit above 0, dm,
loss, aecs, precision_nm, entropy_nm, pmi and nmi are not monotone (a generalization can suppress fewer
records and score better; Kohlmayer, Prasser et al. 2016), so the best k-minimal node is not the best
k-anonymous node. ``lattice_optima`` gives each measure's optimum over every k-anonymous node, and
``optimal_under`` labels each row with the set it is the best of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

import measures as M
from workbench.config import LOCAL_OBJECTIVES, Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import best_of
from workbench.lattice.space import Node
from workbench.lattice_views import lattice_table
from workbench.local import LOCAL_ALGORITHMS
from workbench.local.setup import local_setup
from workbench.objective import NodeScorer, check_measures, local_weigh, target_codes
from workbench.plugins import at
from workbench.release import Release, generalized_column
from workbench.solution_ranking import (  # noqa: F401  (re-exported: workbench.compare is where callers find them)
    OPTIMUM,
    RISK_COLUMNS,
    as_loss,
    global_vs_local,
    measure_directions,
    node_of,
    normalized,
    optimal_under,
    pareto_front,
    rank_agreement,
    risk_utility,
)
from workbench.solution_risk import node_risk, release_risk
from workbench.study import Progress, evaluator_for, local_release

CANDIDATE_SETS = ("k_minimal", "all", "top")
COMPARED_LOCAL_ALGORITHMS = ("greedy", "partition", "mondrian")  # the local releases a comparison lists by default


def _local_study(study: Study, algorithm: str) -> Study:
    """The study run by the local engine: its objective if the local engine takes it, else Vinterbo-1.0;
    no record suppression (local recoding suppresses cell by cell, by generalizing to the top)."""
    objective = study.objective if study.objective in LOCAL_OBJECTIVES else "vinterbo"
    return replace(study, engine="local", algorithm=algorithm, max_suppression=0.0, objective=objective)


def _admissible(evaluator: NodeEvaluator) -> list[Node]:
    """Every k-anonymous node, in lattice order (by rank, then lexicographically), top-down with predictive
    tagging: k-anonymity with suppression is monotone (a class only grows when generalized, so the
    suppressed records shrink), hence a node with a successor that is not k-anonymous is not either and is
    never evaluated. Checks |k-anonymous| + |maximal not k-anonymous| nodes instead of the whole lattice."""
    lattice = evaluator.lattice
    admissible: set[Node] = set()
    for level in reversed(lattice.by_rank):
        for node in level:
            if all(s in admissible for s in lattice.successors(node)) and evaluator.evaluate(node).k_anonymous:
                admissible.add(node)
    return [n for n in lattice.nodes() if n in admissible]


def _candidates(study: Study, dataset: Dataset, candidates: str, top_n: int, by: str | None
                ) -> tuple[list[Node], NodeEvaluator]:
    """The candidate nodes and the evaluator that found them (its frequency sets are reused for scoring)."""
    if candidates not in CANDIDATE_SETS:
        raise ConfigError(f"candidates must be one of {', '.join(CANDIDATE_SETS)}, got {candidates!r}")
    evaluator = evaluator_for(study, dataset)
    nodes = _admissible(evaluator)
    if candidates == "all":
        return nodes, evaluator
    if candidates == "top":
        objective = by or study.objective
        admissible = lattice_table(evaluator, [objective], nodes)
        best = admissible.sort_values([objective, "rank"]).head(top_n)
        return [tuple(int(v) for v in row) for row in best[dataset.quasi_identifiers].to_numpy()], evaluator
    return _k_minimal(evaluator, nodes), evaluator


def _k_minimal(evaluator: NodeEvaluator, admissible: Sequence[Node]) -> list[Node]:
    """The admissible nodes none of whose direct specializations is admissible (in the given order)."""
    admissible_set = set(admissible)
    lattice = evaluator.lattice
    return [n for n in admissible if not any(p in admissible_set for p in lattice.predecessors(n))]


def lattice_candidates(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
                       by: str | None = None) -> list[Node]:
    """The lattice nodes to compare: the k-minimal ones, every k-anonymous one, or the ``top_n`` best under
    ``by`` (default: the study's objective)."""
    return _candidates(study, dataset, candidates, top_n, by)[0]


# Measures whose lattice fast path (from a node's frequency set) equals the cell-level value bit for bit
# (``Measure.exact_node``: sums of squared class sizes stay exact in float below 2**53): taken from the
# frequency set, so a lattice candidate's release never needs its classes recomputed record by record.
EXACT_NODE_MEASURES = tuple(i for i, m in M.MEASURES.items() if m.exact_node)

_COLUMNS = ["k", "engine", "algorithm", "solution"]
SUPPRESSION_COLUMNS = ["suppressed", "suppressed_pct"]  # records suppressed, and their percent of all records


def suppression_of(suppressed: int, records: int) -> dict[str, float]:
    """A solution's suppressed records and their percent of the records (the solutions table's columns)."""
    return {"suppressed": int(suppressed), "suppressed_pct": 100.0 * suppressed / records if records else 0.0}


def _without_degradation(study: Study) -> Study:
    return replace(study, compare=tuple(m for m in study.compare if m != "degradation"))


def _table(rows: list[dict[str, object]], ids: Sequence[str]) -> pd.DataFrame:
    columns = [*ids, *RISK_COLUMNS]
    if not rows:  # typed even when empty (no k-anonymous node), so the parts concatenate like the whole
        return pd.DataFrame({"k": pd.Series(dtype="int64"), **{c: pd.Series(dtype=str) for c in _COLUMNS[1:]},
                             "suppressed": pd.Series(dtype="int64"), "suppressed_pct": pd.Series(dtype="float64"),
                             **{m: pd.Series(dtype="float64") for m in columns}})
    return pd.DataFrame(rows, columns=[*_COLUMNS, *SUPPRESSION_COLUMNS, *columns])


def _options(study: Study) -> dict[str, dict[str, object]]:
    return {"col_mi": {"kind": study.col_mi_weights}}  # as objective.score_release


def _node_view(dataset: Dataset, evaluator: NodeEvaluator, node: Node) -> M.Generalized:
    """``Release.from_node(dataset, node, k, max_suppression).view()``, cell for cell, without the labels and
    with the suppressed records from the evaluator (the same columns: ``release.generalized_column``)."""
    columns = tuple(generalized_column(col, col.code_space[0][v] + col.level_codes[col.codes, v],
                                       np.full(dataset.n, v, dtype=np.int64))
                    for col, v in zip(dataset.encoded, node, strict=True))
    return M.Generalized(columns, evaluator.suppressed_mask(node), evaluator.k)


class _Progress:
    """Reports the fraction of jobs done (``Progress``); jobs are announced as they become known."""

    def __init__(self, report: Progress | None, total: int = 0) -> None:
        self.report, self.total, self.done = report, total, 0

    def add(self, jobs: int) -> None:
        self.total += jobs

    def tick(self) -> None:
        self.done += 1
        if self.report:
            self.report(self.done / max(self.total, 1), f"{self.done:,} of {self.total:,} solutions scored")


def _solution_label(dataset: Dataset, node: Node) -> str:
    return ",".join(f"{q}={v}" for q, v in zip(dataset.quasi_identifiers, node, strict=True))


def _node_values(study: Study, dataset: Dataset, evaluator: NodeEvaluator, nodes: Sequence[Node],
                 ids: Sequence[str], progress: _Progress | None = None) -> list[dict[str, float]]:
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
            view = _node_view(dataset, evaluator, node)
            with at(f"node {_solution_label(dataset, node)}"):  # named in a user measure's error
                values |= {m: s.value for m, s in M.score(view, cell, target, _options(study)).items()}
        out.append(values)
        if progress:
            progress.tick()
    return out


def _lattice_rows(study: Study, dataset: Dataset, candidates: str, top_n: int,
                  progress: _Progress) -> list[dict[str, object]]:
    ids = list(study.compare)
    nodes, evaluator = _candidates(study, dataset, candidates, top_n, None)
    progress.add(len(nodes))
    values = _node_values(study, dataset, evaluator, nodes, ids, progress)
    return [{"k": study.k, "engine": "lattice", "algorithm": candidates, "solution": _solution_label(dataset, node),
             **suppression_of(evaluator.evaluate(node).suppressed, dataset.n), **{m: v[m] for m in ids},
             **node_risk(evaluator, node)} for node, v in zip(nodes, values, strict=True)]


EVERY_NODE = "every k-anonymous node"
K_MINIMAL_NODES = "k-minimal nodes (monotone measure: provably the same optimum)"
OPTIMA_COLUMNS = ["measure", "solution", "value", "searched", "nodes"]


def lattice_optima(study: Study, dataset: Dataset, measure_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each measure's optimum over EVERY k-anonymous node (within the suppression limit), not over a
    candidate set: one row per measure with ``solution`` (the node), ``value`` (as the solutions table
    reports it), ``searched`` (which nodes were compared) and ``nodes`` (how many).

    Measures with a lattice fast path are compared on every k-anonymous node from the frequency sets; the
    others (col_mi, pmi, nmi) cell by cell, on every k-anonymous node, except a monotone one, whose optimum
    is a k-minimal node (every k-anonymous node generalizes a k-minimal one, which scores no worse). Ties go
    to the lowest, then lexicographically smallest node (the searches' ``tie_key``). Empty when no node is
    k-anonymous. ``measure_ids`` may name ``RISK_COLUMNS``, each minimized over every k-anonymous node; by default
    the study's measures, then the risk columns."""
    chosen_ids = measure_ids if measure_ids is not None else [*study.compare, *RISK_COLUMNS]
    risks = [m for m in chosen_ids if m in RISK_COLUMNS]
    ids = [m for m in chosen_ids if m != "degradation" and m not in RISK_COLUMNS]
    check_measures(replace(study, compare=tuple(ids)))
    evaluator = evaluator_for(study, dataset)
    admissible = _admissible(evaluator)
    if not admissible or not (ids or risks):
        return pd.DataFrame({"measure": pd.Series(dtype=str), "solution": pd.Series(dtype=str),
                             "value": pd.Series(dtype="float64"), "searched": pd.Series(dtype=str),
                             "nodes": pd.Series(dtype="int64")})
    minimal = _k_minimal(evaluator, admissible)
    fast = [m for m in ids if M.MEASURES[m].node is not None]
    slow = [m for m in ids if M.MEASURES[m].node is None]
    searched: dict[str, tuple[str, dict[Node, float]]] = {}
    if fast:
        table = lattice_table(evaluator, fast, admissible)
        for m in fast:
            sign = -1.0 if M.MEASURES[m].higher_is_better else 1.0
            searched[m] = (EVERY_NODE, dict(zip(admissible, sign * table[m].to_numpy(dtype=float), strict=True)))
    every = [m for m in slow if not M.MEASURES[m].monotone]
    nodes = admissible if every else minimal if slow else []
    scored = dict(zip(nodes, _node_values(study, dataset, evaluator, nodes, slow), strict=True))
    for m in slow:
        pool = admissible if m in every else minimal
        sign = -1.0 if M.MEASURES[m].higher_is_better else 1.0
        searched[m] = (EVERY_NODE if m in every else K_MINIMAL_NODES, {n: sign * scored[n][m] for n in pool})
    if risks:
        node_risks = {n: node_risk(evaluator, n) for n in admissible}
        for m in risks:
            searched[m] = (EVERY_NODE, {n: r[m] for n, r in node_risks.items()})
    # a user measure that failed on a node scores NaN there (inside plugins.collecting_failures)
    chosen = {m: best_of({n: v for n, v in values.items() if v == v}) for m, (_, values) in searched.items()}
    ids = [m for m in ids if chosen[m] is not None]
    risks = [m for m in risks if chosen[m] is not None]
    distinct = list(dict.fromkeys(chosen[m] for m in [*ids, *risks]))
    reported = dict(zip(distinct, _node_values(study, dataset, evaluator, distinct, ids), strict=True))
    rows = [{"measure": m, "solution": _solution_label(dataset, chosen[m]), "value": reported[chosen[m]][m]
             if m in ids else searched[m][1][chosen[m]], "searched": searched[m][0], "nodes": len(searched[m][1])}
            for m in [*ids, *risks]]
    return pd.DataFrame(rows, columns=OPTIMA_COLUMNS)


def local_releases(study: Study, dataset: Dataset, algorithms: Sequence[str],
                   progress: _Progress | None = None) -> list[tuple[str, Release]]:
    """The local engine's release per algorithm, all from one ``LocalProblem`` (the posets' LUB tables are
    built once, not once per algorithm); the same releases as ``run`` of ``_local_study``."""
    out: list[tuple[str, Release]] = []
    setup = None
    for algorithm in algorithms:
        local = _local_study(study, str(algorithm))
        if setup is None and algorithm in LOCAL_ALGORITHMS and dataset.n >= local.k:
            setup = local_setup(local, dataset, local_weigh(local, dataset))
        out.append((str(algorithm), local_release(local, dataset, setup)[0]))  # raises the run's own errors
        if progress:
            progress.tick()
    return out


def _local_rows(study: Study, dataset: Dataset, algorithms: Sequence[str],
                progress: _Progress) -> list[dict[str, object]]:
    ids = list(study.compare)
    check_measures(study)
    target = target_codes(study, dataset)
    rows = []
    for algorithm, release in local_releases(study, dataset, algorithms, progress):
        with at(f"the {algorithm} release"):  # named in a user measure's error
            scores = M.score(release.view(), ids, target, _options(study))
        rows.append({"k": study.k, "engine": "local", "algorithm": algorithm, "solution": algorithm,
                     **suppression_of(int(release.suppressed.sum()), release.n), **{m: scores[m].value for m in ids},
                     **release_risk(release)})
    return rows


def lattice_solutions(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
                      progress: Progress | None = None) -> pd.DataFrame:
    """The lattice engine's rows of ``solutions`` (same columns): fast, shown before the local releases."""
    study = _without_degradation(study)
    return _table(_lattice_rows(study, dataset, candidates, top_n, _Progress(progress)), study.compare)


def local_solutions(study: Study, dataset: Dataset, algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
                    progress: Progress | None = None) -> pd.DataFrame:
    """The local engine's rows of ``solutions`` (same columns), one per algorithm. They depend on k and the
    measures only: the local engine suppresses no record, so it ignores the suppression limit."""
    study = _without_degradation(study)
    return _table(_local_rows(study, dataset, algorithms, _Progress(progress, len(algorithms))), study.compare)


def solutions(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
              local_algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
              progress: Progress | None = None) -> pd.DataFrame:
    """One row per solution: ``k``, ``engine``, ``algorithm``, ``solution`` (the level vector or the local
    algorithm), ``suppressed`` (records) and ``suppressed_pct`` (their percent of the records; the local engine
    suppresses none), then one column per measure of ``[measures].compare``, then the release's
    re-identification risk after suppression, ``RISK_COLUMNS`` (the ``solutions.csv`` contract).
    ``lattice_solutions`` and ``local_solutions`` give its two parts."""
    study = _without_degradation(study)
    tracker = _Progress(progress, len(local_algorithms))
    rows = _lattice_rows(study, dataset, candidates, top_n, tracker)
    rows += _local_rows(study, dataset, local_algorithms, tracker)
    return _table(rows, study.compare)


def optimum_solutions(study: Study, dataset: Dataset, optima: pd.DataFrame) -> pd.DataFrame:
    """The solutions-table rows (same columns, every measure of ``[measures].compare``) of the distinct nodes
    of a ``lattice_optima`` table, with ``algorithm`` "optimum": the true optima next to the candidates."""
    study = _without_degradation(study)
    ids = list(study.compare)
    labels = list(dict.fromkeys(optima.solution)) if len(optima) else []
    nodes = [node_of(dataset, s) for s in labels]
    evaluator = evaluator_for(study, dataset)
    values = _node_values(study, dataset, evaluator, nodes, ids)
    return _table([{"k": study.k, "engine": "lattice", "algorithm": OPTIMUM, "solution": label,
                    **suppression_of(evaluator.evaluate(node).suppressed, dataset.n), **{m: v[m] for m in ids},
                    **node_risk(evaluator, node)}
                   for label, node, v in zip(labels, nodes, values, strict=True)], ids)


def sweep(study: Study, dataset: Dataset, ks: Sequence[int], candidates: str = "k_minimal",
          local_algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
          progress: Progress | None = None,
          max_suppressions: Sequence[float] | None = None) -> pd.DataFrame:
    """The solutions over a list of k (and of suppression limits): one row per solution × setting (tidy),
    the ``solutions.csv`` table. With several suppression limits a ``max_suppression`` column is appended
    last (the columns before it keep the contract order)."""
    limits = list(max_suppressions) if max_suppressions else [study.max_suppression]
    grid = [(k, sup) for k in ks for sup in limits]
    frames = []
    for i, (k, sup) in enumerate(grid):
        table = solutions(replace(study, k=k, max_suppression=sup), dataset, candidates,
                          local_algorithms=local_algorithms)
        if len(limits) > 1:
            table["max_suppression"] = sup
        frames.append(table)
        if progress:
            progress((i + 1) / len(grid), f"k = {k}, max_suppression = {sup:g} done")
    return pd.concat(frames, ignore_index=True)
