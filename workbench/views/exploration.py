"""Properties of the measures on the user's own lattice (``workbench explore``; docs/measures.md, "Exploring the
measures"). Over the admissible (k-anonymous) nodes of a study's lattice, for every measure of
``[measures].compare``: how often generalizing one attribute by one level makes the score *better* (a
monotonicity violation; with suppression dm, loss and the other suppression-charging measures can do so,
Kohlmayer, Prasser et al. 2016), the worst such edge, whether the optimum is a k-minimal node (so a k-minimal
search such as Flash or OLA can find it), the range, and the rank agreement (Kendall τ-b) between every pair of
measures over all admissible nodes.

The built-in measures are read from each node's frequency set in one roll-up pass (``lattice_table``); a measure
without a fast path (a user measure, or one that needs the target) is computed cell by cell on the admissible
nodes only. Above ``MAX_NODES`` lattice nodes the nodes are sampled (``Exploration.sample`` says so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search.result import best_of
from workbench.lattice.space import Node
from workbench.objective import check_measures, node_cells, target_codes
from workbench.study import Progress, evaluator_for, load_dataset
from workbench.user_measure import at
from workbench.views.lattice import lattice_table

MAX_NODES = 50_000  # above it (lattice nodes) the nodes are sampled: every node costs about 1 ms
SAMPLE = 2_000  # nodes drawn when sampling; each with its parents (one level up in one attribute)
RTOL = 1e-9  # a non-integer measure "improves" along an edge only by more than this, relative (float noise)
TIE_DIGITS = 12  # Kendall τ: values equal to this many significant digits are tied


def tie_rounded(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to ``TIE_DIGITS`` significant digits (NaN and infinities kept)."""
    return np.array([float(f"{v:.{TIE_DIGITS}g}") for v in np.asarray(values, dtype=float)], dtype=float)


@dataclass(frozen=True)
class Exploration:
    """What ``explore`` found. ``table``: one row per admissible node scored (``node``, the levels, ``rank``,
    ``k_minimal``, ``drawn``, one column per measure); ``edge_rows``: the child and parent row of every edge
    counted; ``measures``: per measure the figures of the JSON; ``optima``: the node each measure would choose;
    ``kendall_tau``: measure × measure; ``sample``: None, or how the nodes were sampled (then ``drawn`` marks
    the sampled nodes, the others are their parents, and ``k_minimal`` is unknown)."""

    nodes: int
    edges: int
    measures: dict[str, dict[str, object]]
    kendall_tau: pd.DataFrame
    optima: dict[str, str | None]
    table: pd.DataFrame = field(repr=False)
    edge_rows: np.ndarray = field(repr=False)
    sample: dict[str, int] | None = None

    def as_dict(self) -> dict[str, object]:
        """The JSON object of ``workbench explore --json`` (a contract); ``sample`` only when sampled."""
        tau = {a: {b: _number(self.kendall_tau.loc[a, b]) for b in self.kendall_tau.columns}
               for a in self.kendall_tau.index}
        out: dict[str, object] = {"nodes": self.nodes, "edges": self.edges, "measures": self.measures,
                                  "kendall_tau": tau}
        return out | ({"sample": self.sample} if self.sample else {})

    def pareto(self, x: str, y: str) -> np.ndarray:
        """Mask of the table's nodes on the Pareto front of measures ``x`` and ``y`` (``pareto_2d``)."""
        return pareto_2d(self.table, x, y)

    def flagged(self) -> list[str]:
        """The measures declared monotone that break monotonicity on this lattice."""
        return [m for m, f in self.measures.items() if f["declared_monotone"] is True and int(f["violations"]) > 0]


def _number(x: object) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def explore(study: Study, dataset: Dataset | None = None, max_nodes: int = MAX_NODES, sample: int = SAMPLE,
            progress: Progress | None = None) -> Exploration:
    """Explore every measure of ``[measures].compare`` (``degradation`` left out) over the admissible nodes of the
    study's lattice; above ``max_nodes`` lattice nodes, over ``sample`` nodes drawn at random (seed
    ``engine.seed``), counting the edges from the admissible ones to their parents."""
    report = progress or (lambda fraction, text: None)
    ids = [m for m in study.compare if m != "degradation"]
    if not ids:
        raise ConfigError("explore: [measures].compare names no measure")
    study = replace(study, compare=tuple(ids))
    check_measures(study)
    dataset = dataset or load_dataset(study)
    evaluator = evaluator_for(study, dataset)
    names = list(dataset.quasi_identifiers)
    fast = [m for m in ids if M.MEASURES[m].node is not None and not M.MEASURES[m].user]
    report(0.05, "scoring the lattice from its frequency sets")
    sampled = None
    if evaluator.lattice.size <= max_nodes:
        table = lattice_table(evaluator, fast or ["height"])  # one roll-up pass over the whole lattice
        table = table[table.k_anonymous].reset_index(drop=True)
        drawn = np.ones(len(table), dtype=bool)
    else:
        nodes, count = _sampled(evaluator, sample, study.search_seed)
        table = lattice_table(evaluator, fast or ["height"], nodes).reset_index(drop=True)
        drawn = np.arange(len(table)) < count
        sampled = {"drawn": min(sample, int(evaluator.lattice.size)), "admissible": count,
                   "lattice_nodes": int(evaluator.lattice.size)}
    report(0.4, f"scoring {len(table):,} admissible nodes cell by cell")
    table = _cell_scores(study, dataset, evaluator, table, [m for m in ids if m not in fast])[
        ["node", *names, "rank", *ids]]
    edges = _edges(table[names].to_numpy(dtype=np.int64), evaluator.lattice.heights)
    if sampled is None:
        table.insert(len(names) + 2, "k_minimal", ~np.isin(np.arange(len(table)), edges[:, 1]))
    else:  # only the edges from the drawn nodes; their predecessors were not evaluated
        edges = edges[drawn[edges[:, 0]]]
        table.insert(len(names) + 2, "k_minimal", pd.array([pd.NA] * len(table), dtype="boolean"))
    table.insert(len(names) + 3, "drawn", drawn)
    report(0.8, "counting the edges and ranking")
    figures, optima = {}, {}
    for m in ids:
        figures[m], optima[m] = _figures(table, edges, m, drawn, complete=sampled is None)
    tau = _kendall(table[drawn], ids)
    report(1.0, "done")
    return Exploration(int(drawn.sum()), len(edges), figures, tau, optima, table, edges, sampled)


def _sampled(evaluator: NodeEvaluator, size: int, seed: int) -> tuple[list[Node], int]:
    """``size`` distinct nodes drawn uniformly: the admissible ones, then their admissible parents (under a monotone
    rule every parent is: a class only grows when generalized, so the suppressed records shrink; under a
    non-monotone one each parent is checked); and how many were drawn admissible."""
    rng = np.random.default_rng(seed)
    heights = list(evaluator.lattice.heights)
    total = int(evaluator.lattice.size)
    keys = rng.choice(total, size=min(size, total), replace=False) if total < 2**62 else \
        np.unique(rng.integers(0, total, size=size))
    drawn = [_unrank(int(key), heights) for key in np.sort(keys)]
    children = [node for node in drawn if evaluator.evaluate(node).k_anonymous]
    seen = set(children)
    parents: list[Node] = []
    for node in children:
        for j, h in enumerate(heights):
            if node[j] < h:
                parent = node[:j] + (node[j] + 1,) + node[j + 1:]
                if parent not in seen:
                    seen.add(parent)
                    parents.append(parent)
    if not evaluator.admissibility.monotone:
        parents = [p for p in parents if evaluator.evaluate(p).k_anonymous]
    return children + parents, len(children)


def _unrank(key: int, heights: Sequence[int]) -> Node:
    levels = []
    for h in reversed(heights):
        key, level = divmod(key, h + 1)
        levels.append(level)
    return tuple(reversed(levels))


def _cell_scores(study: Study, dataset: Dataset, evaluator: NodeEvaluator, table: pd.DataFrame,
                 slow: Sequence[str]) -> pd.DataFrame:
    """The measures without a built-in fast path (user measures, target measures) on the table's nodes, cell by
    cell, added as columns."""
    names = list(dataset.quasi_identifiers)
    nodes = [tuple(int(v) for v in row) for row in table[names].to_numpy()]
    if slow:
        target = target_codes(study, dataset) if any(M.MEASURES[m].needs_target for m in slow) else None
        options = {"col_mi": {"kind": study.col_mi_weights}}
        cells: dict[str, list[float]] = {m: [] for m in slow}
        for label, node in zip(table.node, nodes, strict=True):
            with at(f"node {label}"):
                scores = M.score(node_cells(evaluator, node), slow, target, options)
            for m in slow:
                cells[m].append(scores[m].value)
        for m in slow:
            table[m] = np.array(cells[m], dtype=float)
    return table


def _edges(levels: np.ndarray, heights: Sequence[int]) -> np.ndarray:
    """Every (child row, parent row) of ``levels`` where the parent is one level more general in one attribute."""
    if not len(levels):
        return np.zeros((0, 2), dtype=np.int64)
    radix = np.cumprod([1, *[h + 1 for h in heights[::-1]]])[:-1][::-1].astype(np.int64)
    keys = levels @ radix
    order = np.argsort(keys)
    ordered = keys[order]
    out = []
    for j, h in enumerate(heights):
        rows = np.flatnonzero(levels[:, j] < h)
        wanted = keys[rows] + radix[j]
        pos = np.minimum(np.searchsorted(ordered, wanted), len(ordered) - 1)
        found = ordered[pos] == wanted
        out.append(np.column_stack([rows[found], order[pos[found]]]))
    return np.concatenate(out).astype(np.int64)


def _figures(table: pd.DataFrame, edges: np.ndarray, m: str, drawn: np.ndarray, complete: bool
             ) -> tuple[dict[str, object], str | None]:
    """One measure's entry of the JSON, and its optimum over the drawn nodes."""
    measure = M.MEASURES[m]
    raw = table[m].to_numpy(dtype=float)
    loss = -raw if measure.higher_is_better else raw
    child, parent = edges[:, 0], edges[:, 1]
    delta = loss[parent] - loss[child]  # < 0: the more general node scores better
    tol = 0.0 if measure.integer else RTOL * np.maximum(np.abs(loss[parent]), np.abs(loss[child]))
    violating = np.flatnonzero(delta < -tol)
    worst = None
    if violating.size:
        w = violating[np.argmin(delta[violating])]
        worst = {"child": str(table.node[child[w]]), "parent": str(table.node[parent[w]]),
                 "delta": float(raw[parent[w]] - raw[child[w]])}
    levels = [tuple(int(v) for v in row) for row in table.iloc[:, 1:table.columns.get_loc("rank")].to_numpy()]
    rows = np.flatnonzero(drawn & np.isfinite(loss))
    optimum = best_of({levels[i]: float(loss[i]) for i in rows})
    label = str(table.node[levels.index(optimum)]) if optimum is not None else None
    is_k_minimal = None
    if complete and rows.size:
        best = float(loss[rows].min())
        minimal = rows[table.k_minimal.to_numpy(dtype=bool)[rows]]
        slack = 0.0 if measure.integer else RTOL * abs(best)
        is_k_minimal = bool(minimal.size and loss[minimal].min() <= best + slack)
    values = raw[rows]
    return {"declared_monotone": measure.declared_monotone, "violations": int(violating.size),
            "share": float(violating.size / len(edges)) if len(edges) else 0.0, "worst": worst,
            "optimum_is_k_minimal": is_k_minimal,
            "min": float(values.min()) if values.size else None,
            "max": float(values.max()) if values.size else None}, label


def _kendall(table: pd.DataFrame, ids: Sequence[str]) -> pd.DataFrame:
    """Kendall τ-b between every pair of measures over the nodes (each oriented as a loss: 1 = the same order);
    NaN where a measure is constant (it ranks nothing). Values equal to ``TIE_DIGITS`` significant digits are
    ties, so that float noise between two mathematically equal values never breaks a tie."""
    from scipy.stats import kendalltau  # 0.7 s to import: only here

    tau = pd.DataFrame(np.eye(len(ids)), index=list(ids), columns=list(ids))
    losses = {m: tie_rounded((-1.0 if M.MEASURES[m].higher_is_better else 1.0) * table[m].to_numpy(dtype=float))
              for m in ids}
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            x, y = losses[ids[a]], losses[ids[b]]
            ok = np.isfinite(x) & np.isfinite(y)
            value = kendalltau(x[ok], y[ok], variant="b").statistic if ok.sum() > 1 else np.nan
            tau.iloc[a, b] = tau.iloc[b, a] = value
    for m in ids:
        finite = losses[m][np.isfinite(losses[m])]
        if finite.size < 2 or finite.min() == finite.max():
            tau.loc[m, m] = np.nan
    return tau


def pareto_2d(table: pd.DataFrame, x: str, y: str) -> np.ndarray:
    """Mask of the rows no other row dominates under two measures (each oriented as a loss: at least as good
    under both, better under one), by one sort and a sweep: O(n log n) over every admissible node."""
    sx = -1.0 if M.MEASURES[x].higher_is_better else 1.0
    sy = -1.0 if M.MEASURES[y].higher_is_better else 1.0
    a, b = sx * table[x].to_numpy(dtype=float), sy * table[y].to_numpy(dtype=float)
    keep = np.zeros(len(table), dtype=bool)
    best = np.inf
    order = np.lexsort((b, a))  # by x, then y
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and a[order[j + 1]] == a[order[i]]:
            j += 1
        group_best = b[order[i]]  # the lowest y among the rows of this x
        if group_best < best:
            for r in order[i:j + 1]:
                keep[r] = b[r] == group_best
            best = group_best
        i = j + 1
    return keep
