"""Solution-space comparison: for one configuration, every candidate solution of both engines scored by every
measure at once, the Pareto front, the rank agreement between measures and which solution each measure
would pick (the workbench's purpose: see what each de-identification costs under *every* measure).

Candidates from the lattice engine: the k-minimal nodes (the minimal k-anonymous nodes; for a monotone
measure the optimum is one of them, El Emam 2009), or every k-anonymous node, or the top N under a measure.
Candidates from the local engine: its releases for the same k. All are scored by the same measure
functions on their Release (DESIGN.md §1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

import measures as M
from workbench.config import LOCAL_OBJECTIVES, Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.space import Lattice, Node
from workbench.release import Release
from workbench.study import evaluator_for, lattice_table, run, score_release

CANDIDATE_SETS = ("k_minimal", "all", "top")


def _local_study(study: Study, algorithm: str) -> Study:
    """The study run by the local engine: its objective if the local engine takes it, else Vinterbo-1.0;
    no record suppression (local recoding suppresses cell by cell, by generalizing to the top)."""
    objective = study.objective if study.objective in LOCAL_OBJECTIVES else "vinterbo"
    return replace(study, engine="local", algorithm=algorithm, max_suppression=0.0, objective=objective)


def lattice_candidates(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
                       by: str | None = None) -> list[Node]:
    """The lattice nodes to compare: the k-minimal ones, every k-anonymous one, or the ``top_n`` best under
    ``by`` (default: the study's objective)."""
    if candidates not in CANDIDATE_SETS:
        raise ConfigError(f"candidates must be one of {', '.join(CANDIDATE_SETS)}, got {candidates!r}")
    table = lattice_table(evaluator_for(study, dataset), [by or study.objective])
    names = dataset.quasi_identifiers
    admissible = table[table.k_anonymous]
    nodes = [tuple(int(v) for v in row) for row in admissible[names].to_numpy()]
    if candidates == "all":
        return nodes
    if candidates == "top":
        best = admissible.sort_values([by or study.objective, "rank"]).head(top_n)
        return [tuple(int(v) for v in row) for row in best[names].to_numpy()]
    admissible_set = set(nodes)
    lattice = Lattice(tuple(c.height for c in dataset.encoded))
    return [n for n in nodes if not any(p in admissible_set for p in lattice.predecessors(n))]


def solutions(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
              local_algorithms: Sequence[str] = ("greedy", "partition"),
              progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """One row per solution: ``k``, ``engine``, ``algorithm``, ``solution`` (the level vector or the local
    algorithm), then one column per measure of ``[measures].compare`` (the ``solutions.csv`` contract)."""
    study = replace(study, compare=tuple(m for m in study.compare if m != "degradation"))
    ids = list(study.compare)
    names = dataset.quasi_identifiers
    nodes = lattice_candidates(study, dataset, candidates, top_n)
    jobs: list[tuple[str, object]] = [("lattice", n) for n in nodes] + [("local", a) for a in local_algorithms]
    rows = []
    for i, (engine, item) in enumerate(jobs):
        if engine == "lattice":
            node = item
            release = Release.from_node(dataset, node, study.k, study.max_suppression, candidates)
            scores = score_release(study, release)
            label = ",".join(f"{q}={v}" for q, v in zip(names, node, strict=True))
            algorithm = candidates
        else:
            result = run(_local_study(study, str(item)), dataset)
            scores, label, algorithm = result.scores, str(item), str(item)
        rows.append({"k": study.k, "engine": engine, "algorithm": algorithm, "solution": label,
                     **{m: scores[m].value for m in ids}})
        if progress:
            progress((i + 1) / len(jobs))
    return pd.DataFrame(rows, columns=["k", "engine", "algorithm", "solution", *ids])


def as_loss(df: pd.DataFrame, measure_id: str) -> pd.Series:
    """The measure's values oriented as a loss (negated when higher is better, e.g. ``nmi``)."""
    values = df[measure_id].astype(float)
    higher = M.MEASURES[measure_id].direction == "higher is better" if measure_id in M.MEASURES else False
    return -values if higher else values


def normalized(df: pd.DataFrame, measure_ids: Sequence[str]) -> pd.DataFrame:
    """Each measure rescaled to [0, 1] over the candidates (0 = the best candidate, 1 = the worst)."""
    out = df.copy()
    for m in measure_ids:
        col = as_loss(df, m)
        span = col.max() - col.min()
        out[f"{m}_norm"] = (col - col.min()) / span if span > 0 else 0.0
    return out


def pareto_front(df: pd.DataFrame, measure_ids: Sequence[str]) -> np.ndarray:
    """Mask of the solutions no other solution dominates (at least as good under every measure, better
    under one; each measure in its own direction)."""
    values = np.column_stack([as_loss(df, m).to_numpy() for m in measure_ids]) if len(df) else np.zeros((0, 0))
    keep = np.ones(len(values), dtype=bool)
    for i in range(len(values)):
        no_worse = (values <= values[i]).all(axis=1)
        better = (values < values[i]).any(axis=1)
        keep[i] = not (no_worse & better).any()
    return keep


def rank_agreement(df: pd.DataFrame, measure_ids: Sequence[str]) -> pd.DataFrame:
    """Kendall τ between the rankings of the candidates under each pair of measures (1: same order)."""
    ids = list(measure_ids)
    tau = pd.DataFrame(np.eye(len(ids)), index=ids, columns=ids)
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            value = kendalltau(as_loss(df, ids[a]), as_loss(df, ids[b])).statistic if len(df) > 1 else np.nan
            tau.iloc[a, b] = tau.iloc[b, a] = value
    return tau


def optimal_under(df: pd.DataFrame, measure_ids: Sequence[str]) -> pd.DataFrame:
    """For each measure and each engine, the solution it would choose (the best value in the measure's
    direction; ties: the first listed), and whether that is the best over both engines."""
    rows = []
    for m in measure_ids:
        loss = as_loss(df, m)
        for engine, part in df.groupby("engine", sort=True):
            best = loss[part.index].idxmin()
            rows.append({"measure": m, "engine": engine, "algorithm": df.algorithm[best], "solution": df.solution[best],
                         "value": df[m][best], "best_overall": bool(loss[best] == loss.min())})
    return pd.DataFrame(rows)


def sweep(study: Study, dataset: Dataset, ks: Sequence[int], candidates: str = "k_minimal",
          local_algorithms: Sequence[str] = ("greedy", "partition"),
          progress: Callable[[float], None] | None = None,
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
            progress((i + 1) / len(grid))
    return pd.concat(frames, ignore_index=True)


def measure_directions(measure_ids: Sequence[str]) -> dict[str, str]:
    return {m: M.MEASURES[m].direction for m in measure_ids if m in M.MEASURES}


def _release_of(study: Study, dataset: Dataset, row: pd.Series) -> Release:
    """Rebuild the release behind one row of the solutions table."""
    case = replace(study, k=int(row.k))
    if row.engine == "lattice":
        levels = dict(part.split("=", 1) for part in str(row.solution).split(","))
        node = tuple(int(levels[q]) for q in dataset.quasi_identifiers)
        return Release.from_node(dataset, node, case.k, case.max_suppression, str(row.algorithm))
    release = run(_local_study(case, str(row.algorithm)), dataset).release
    assert release is not None
    return release


def add_degradation(df: pd.DataFrame, study: Study, dataset: Dataset, rows: Sequence[int] | None = None,
                    classifiers: Sequence[str] = ("zeror", "random_forest", "bayes_net"), folds: int = 5,
                    n_jobs: int = 2, progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Model degradation (Katirai 2006's "most defensible" measure) for a chosen subset of solutions
    (``rows``: index labels; default: the lattice node each measure would choose and every local release),
    in parallel processes.
    Adds ``degradation_<classifier>_<metric>`` columns (empty for the solutions not chosen)."""
    from joblib import Parallel, delayed

    from measures.degradation import degradation

    study = replace(study, compare=tuple(m for m in study.compare if m != "degradation"))
    if study.target is None:
        raise ConfigError("model degradation needs [measures].target")
    ids = [m for m in study.compare if m != "degradation"]
    if rows is None:  # the lattice node each measure would choose, and every local release
        chosen = df.index[df.engine == "local"].tolist()
        for _, part in df.groupby("k"):
            best = optimal_under(part, ids)
            for _, b in best.iterrows():
                chosen.extend(part.index[(part.solution == b.solution) & (part.engine == b.engine)].tolist())
        rows = sorted(set(chosen))
    target = np.unique(dataset.frame[study.target].to_numpy(dtype=str), return_inverse=True)[1].reshape(-1)
    qis = dataset.quasi_identifiers
    original = dataset.frame[qis]
    releases = [_release_of(study, dataset, df.loc[i]) for i in rows]
    jobs = [delayed(degradation)(original, r.labels[qis], target, r.suppressed, classifiers=tuple(classifiers),
                                 folds=folds, random_state=study.seed) for r in releases]
    results = []
    for i, result in enumerate(Parallel(n_jobs=n_jobs, return_as="generator")(jobs)):
        results.append(result)
        if progress:
            progress((i + 1) / len(jobs))
    out = df.copy()
    for index, table in zip(rows, results, strict=True):
        for _, r in table.iterrows():
            for column in table.columns:
                if column != "classifier":
                    out.loc[index, f"degradation_{r.classifier}_{column}"] = r[column]
    return out
