"""The lattice as the pages and studies see it: every node with every measure (``lattice_table``), what a
search did over it (``lattice_overview``), the optimum over every k-anonymous node, and node labels parsed."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ArgumentError, ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search.result import SearchResult, best_of
from workbench.lattice.space import Node
from workbench.objective import NodeScorer, _lattice_measure, node_cells
from workbench.privacy.base import limit_of
from workbench.study import Progress, evaluator_for, load_dataset, search
from workbench.views.sweep import chunks, packed_sets, suppression


def lattice_table(evaluator: NodeEvaluator, ids: Sequence[str] | None = None,
                  nodes: Iterable[Node] | None = None) -> pd.DataFrame:
    """One row per node (default: every node, by rank): levels, rank, classes (those of the records not
    suppressed, as ``Release.classes``), suppressed, k-anonymity and every measure. The table behind the lattice
    pictures.

    For the whole lattice the frequency sets come from one depth-first roll-up pass (El Emam 2009; Issa 2009
    ch. 5; ``NodeEvaluator.all_frequency_sets``), without filling the evaluator's cache, and the rows are then
    put in ``lattice.nodes()`` order."""
    ids = list(ids or M.LATTICE_MEASURES)
    fast = {i: _lattice_measure(i, "measure").node for i in ids}
    missing = [i for i, f in fast.items() if f is None]
    if missing:
        raise ConfigError(f"measure(s) {', '.join(missing)} have no lattice fast path; lattice measures: "
                          f"{', '.join(M.LATTICE_MEASURES)}")
    scorer = NodeScorer(evaluator)
    names = [c.name for c in evaluator.columns]
    k, rule = evaluator.k, evaluator.admissibility
    levels, classes, suppressed, admissible = [], [], [], []
    values: dict[str, list[float]] = {i: [] for i in ids}
    packed = packed_sets(evaluator) if nodes is None else None
    if packed is not None:  # k alone: packed keys, suppression counted for many nodes at once (lattice_sweep)
        for chunk in chunks(packed):
            for ps, (sizes, known) in zip(chunk, suppression(chunk, k, scorer.domains, evaluator.n), strict=True):
                view = M.NodeClasses(ps.node, sizes, ps.codes, scorer.domains, k, None,
                                     lambda node=ps.node: node_cells(evaluator, node), known=known)
                levels.append(ps.node)
                classes.append(view.kept_classes)
                suppressed.append(known.suppressed)
                admissible.append(rule.within(known.suppressed))
                for i, f in fast.items():
                    values[i].append(f(view))
    else:
        if nodes is None:
            sets = evaluator.all_frequency_sets()
        else:  # given nodes are checked one by one (counted in ``evaluator.checks``), from its cache
            sets = (evaluator.frequency_set(evaluator.evaluate(node).node) for node in nodes)
        for fs in sets:
            outcome = evaluator.outcome(fs)
            view = M.NodeClasses(fs.node, fs.counts, fs.codes, scorer.domains, k,
                                 None if rule.plain else outcome.suppress,
                                 lambda node=fs.node: node_cells(evaluator, node))
            levels.append(fs.node)
            classes.append(view.kept_classes)
            suppressed.append(outcome.suppressed)
            admissible.append(outcome.admissible)
            for i, f in fast.items():
                values[i].append(f(view))
    if nodes is None:  # depth-first order -> by rank, then lexicographically
        position = {node: i for i, node in enumerate(evaluator.lattice.nodes())}
        order = sorted(range(len(levels)), key=lambda r: position[levels[r]])
        levels, classes, suppressed, admissible = ([seq[r] for r in order]
                                                   for seq in (levels, classes, suppressed, admissible))
        values = {i: [v[r] for r in order] for i, v in values.items()}
    level_array = np.array(levels, dtype=np.int64).reshape(len(levels), len(names))
    table = pd.DataFrame({"node": [evaluator.lattice.label(node) for node in levels]})
    for j, name in enumerate(names):
        table[name] = level_array[:, j]
    table["rank"] = level_array.sum(axis=1)
    table["classes"] = np.array(classes, dtype=np.int64)
    table["suppressed"] = np.array(suppressed, dtype=np.int64)
    table["k_anonymous"] = np.array(admissible, dtype=bool)
    for i in ids:
        table[i] = np.array(values[i], dtype=float)
    return table


def parse_node(text: str, names: Sequence[str], heights: Sequence[int]) -> Node:
    """``"sex=1,age=2,..."`` -> level vector in quasi-identifier order (every quasi-identifier needed)."""
    levels: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if "=" not in part:
            raise ArgumentError("node", text, f"{part!r} is not NAME=LEVEL")
        name, value = (s.strip() for s in part.split("=", 1))
        if name not in names:
            raise ArgumentError("node", text, f"{name!r} is not a quasi-identifier; they are {', '.join(names)}")
        if name in levels:
            raise ArgumentError("node", text, f"{name!r} is given twice")
        try:
            level = int(value)
        except ValueError:
            raise ArgumentError("node", text, f"level {value!r} of {name!r} is not an integer") from None
        height = heights[list(names).index(name)]
        if not 0 <= level <= height:
            raise ArgumentError("node", text, f"level {level} of {name!r} is outside 0..{height}")
        levels[name] = level
    missing = [n for n in names if n not in levels]
    if missing:
        raise ArgumentError("node", text, f"no level for {', '.join(missing)}")
    return tuple(levels[n] for n in names)


SEARCH_RESULT = "search result (not the optimum)"  # lattice_overview's status of a search's non-optimal node


def admissible_optimum(table: pd.DataFrame, objective: str, names: Sequence[str]) -> Node | None:
    """The k-anonymous node of a node table (``lattice_table``, with ``k_anonymous`` under the limit) that
    minimizes ``objective`` over EVERY k-anonymous node, ties to the lowest, then lexicographically smallest
    node (the searches' ``tie_key``); None when no node is k-anonymous. For a non-monotone objective this can
    differ from what Flash or OLA return, which only compare the k-minimal nodes."""
    if objective not in table.columns:
        raise ConfigError(f"the node table has no column {objective!r}")
    admissible = table[table["k_anonymous"]]
    values = dict(zip((tuple(int(v) for v in row) for row in admissible[list(names)].to_numpy()),
                      admissible[objective].to_numpy(dtype=float), strict=True))
    return best_of(values)


def lattice_overview(study: Study, dataset: Dataset | None = None,
                     table: pd.DataFrame | None = None) -> tuple[pd.DataFrame, SearchResult]:
    """Every lattice node with its measures (``lattice_table``), plus what the study's search did: a
    ``status`` column, ``checked`` and ``trace`` (the order in which the search evaluated the node, or
    "predicted" / "pruned" / ""). ``status`` is "optimum" for the objective's optimum over every k-anonymous
    node (``admissible_optimum``, whatever the search), ``SEARCH_RESULT`` for the search's node when it is
    not that optimum (e.g. Flash with a non-monotone objective), else k-anonymous / not k-anonymous.

    ``table``: a ``lattice_table`` of the same dataset and k computed before (it depends on neither the
    suppression limit nor the search, so a caller may reuse it across them); ``k_anonymous`` is recomputed
    under this study's suppression limit."""
    dataset = dataset or load_dataset(study)
    result = search(study, dataset)
    if table is None or study.privacy_models:  # the models' suppression is not a function of the limit alone
        given, table = table, lattice_table(evaluator_for(study, dataset))
        extra = [c for c in given.columns if c not in table.columns] if given is not None else []
        if extra:  # columns the caller added to its table (e.g. a drawing's layout) carry over, node by node
            table = table.merge(given[["node", *extra]], on="node", how="left")
    else:
        names = dataset.quasi_identifiers
        expected = {"node", "suppressed", *names}
        if not expected <= set(table.columns) or len(table) != math.prod(h + 1 for h in
                                                                         (c.height for c in dataset.encoded)):
            raise ConfigError("lattice_overview: the given table is not a lattice_table of this dataset "
                              f"(columns {', '.join(sorted(expected))} and one row per node needed)")
        table = table.copy()
        table["k_anonymous"] = table["suppressed"] <= limit_of(study.max_suppression, dataset.n)
    names = dataset.quasi_identifiers
    keys = [tuple(int(v) for v in row) for row in table[names].to_numpy()]
    order: dict[tuple[int, ...], str] = {}
    for e in result.trace.events:
        if e.node not in order:
            order[e.node] = str(e.step) if e.action == "check" else e.action
    table["trace"] = [order.get(k, "") for k in keys]
    table["checked"] = [order.get(k, "").isdigit() for k in keys]
    table["status"] = np.where(table.k_anonymous, "k-anonymous", "not k-anonymous")
    optimum = admissible_optimum(table, study.objective, names)
    if result.optimum is not None and result.optimum != optimum:
        table.loc[[k == result.optimum for k in keys], "status"] = SEARCH_RESULT
    if optimum is not None:
        table.loc[[k == optimum for k in keys], "status"] = "optimum"
    return table, result


def nodes_per_height(heights: Sequence[int]) -> np.ndarray:
    """How many nodes of the lattice of these hierarchy heights lie at each height (Σ levels): the coefficients of
    Π_j (1 + t + ... + t^H_j), without listing a node."""
    counts = np.ones(1, dtype=np.int64)
    for h in heights:
        counts = np.convolve(counts, np.ones(h + 1, dtype=np.int64))
    return counts


def search_region(study: Study, dataset: Dataset,
                  progress: Progress | None = None) -> tuple[pd.DataFrame, SearchResult]:
    """What the study's search did on a lattice too large to evaluate every node (``policy.table_refusal``): per
    height (``rank``), the ``nodes`` there, those it ``checked``, those whose k-anonymity it knew by prediction
    (``predicted``) and those it pruned with their generalizations (``pruned``, by the objective's bound); and
    its result (``study.search``: under the default time budget when the study sets none)."""
    result = search(study, dataset, progress=progress)
    counts = nodes_per_height([c.height for c in dataset.encoded])
    frame = pd.DataFrame({"rank": np.arange(len(counts)), "nodes": counts})
    for action, column in (("check", "checked"), ("predicted", "predicted"), ("pruned", "pruned")):
        ranks = [sum(e.node) for e in result.trace.events if e.action == action]
        frame[column] = np.bincount(np.asarray(ranks, dtype=np.int64), minlength=len(counts))[:len(counts)]
    return frame, result
