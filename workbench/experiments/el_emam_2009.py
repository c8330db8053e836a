"""El Emam et al. 2009 (JAMIA), Figs. 6-8 / Issa 2009 ch. 3: relative information loss of Datafly, Samarati
and OLA against the global optimum, for Prec, DM* and non-uniform entropy, over k and MaxSup.

Relative information loss = 100 · IL(algorithm's node) / IL(optimum) (100 % = optimal). The optimum of each
measure comes from evaluating every node (exhaustive). Datafly breaks ties at random; like the paper (which
averaged 100 runs) we average over ``datafly_runs`` seeds. The paper's finding: Datafly and Samarati are
never below 100 % and are often far above; OLA is always at 100 %.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.study import Progress, evaluator_for, relative_loss, search
from workbench.views.lattice import lattice_table

MEASURES = ("precision", "dm_star", "entropy")
KS = (2, 5, 10, 15)
MAX_SUPPRESSIONS = (0.01, 0.05, 0.10)
ALGORITHMS = ("datafly", "samarati", "ola")


def comparison(study: Study, dataset: Dataset, ks: Sequence[int] = KS,
               max_suppressions: Sequence[float] = MAX_SUPPRESSIONS, measures: Sequence[str] = MEASURES,
               algorithms: Sequence[str] = ALGORITHMS, datafly_runs: int = 10,
               progress: Progress | None = None) -> pd.DataFrame:
    """One row per (k, max_suppression, measure, algorithm): the algorithm's loss, the optimum and the
    relative information loss in percent. The (k, max_suppression) settings run ``engine.jobs`` at a time on
    ``engine.sweep_backend`` (``workbench.jobs.parallel``); the rows are the same, in the same order."""
    from workbench.jobs.parallel import parallel_map

    grid = [(k, s) for k in ks for s in max_suppressions]

    def done(step: int, _: object) -> None:
        if progress:
            k, sup = grid[step]
            progress((step + 1) / len(grid), f"k = {k}, max_suppression = {sup:g} done")

    units = [(replace(study, k=k, max_suppression=sup), dataset, tuple(measures), tuple(algorithms), datafly_runs)
             for k, sup in grid]
    return pd.DataFrame([row for rows in parallel_map(_setting, units, study, done) for row in rows])


def _setting(base: Study, dataset: Dataset, measures: Sequence[str], algorithms: Sequence[str],
             datafly_runs: int) -> list[dict[str, object]]:
    """The rows of one (k, max_suppression) setting: every measure's optimum and each algorithm's loss."""
    rows = []
    table = lattice_table(evaluator_for(base, dataset), list(measures))
    admissible = table[table.k_anonymous]
    for measure in measures:
        cfg = replace(base, objective=measure)
        optimum = float(admissible[measure].min()) if len(admissible) else None
        for algorithm in algorithms:
            seeds = range(datafly_runs) if algorithm == "datafly" else range(1)
            values, checks = [], []
            for seed in seeds:
                r = search(replace(cfg, search_seed=seed), dataset, algorithm)
                if r.optimum is not None:
                    # Datafly and Samarati do not minimize every measure: score their node by this measure
                    values.append(float(table.loc[_row(table, dataset, r.optimum), measure]))
                    checks.append(r.checks)
            value = statistics.fmean(values) if values else None
            rows.append({"k": base.k, "max_suppression": base.max_suppression, "measure": measure,
                         "algorithm": algorithm, "value": value, "optimum": optimum,
                         "relative_loss_pct": relative_loss(value, optimum),
                         "checks": statistics.fmean(checks) if checks else None, "runs": len(values)})
    return rows


def _row(table: pd.DataFrame, dataset: Dataset, node: tuple[int, ...]) -> int:
    mask = pd.Series(True, index=table.index)
    for qi, level in zip(dataset.quasi_identifiers, node, strict=True):
        mask &= table[qi] == level
    return int(mask.idxmax())


def finding_violations(df: pd.DataFrame, tolerance: float = 1e-9) -> pd.DataFrame:
    """Rows contradicting the paper: Datafly or Samarati below 100 %, or OLA not at 100 %."""
    heuristics = df[df.algorithm.isin(["datafly", "samarati"])]
    below = heuristics[heuristics.relative_loss_pct < 100.0 - tolerance]
    ola = df[df.algorithm == "ola"]
    off = ola[(ola.relative_loss_pct - 100.0).abs() > tolerance]
    return pd.concat([below, off])


def el_emam_comparison(study: Study, dataset: Dataset | None = None, ks: Sequence[int] = KS,
                       max_suppressions: Sequence[float] = MAX_SUPPRESSIONS, measures: Sequence[str] = MEASURES,
                       algorithms: Sequence[str] = ALGORITHMS, datafly_runs: int = 10,
                       progress: Progress | None = None) -> pd.DataFrame:
    """``comparison`` on the study's data (loaded when ``dataset`` is not given): the public name
    ``workbench.el_emam_comparison`` a notebook calls."""
    from workbench.study import load_dataset

    return comparison(study, dataset if dataset is not None else load_dataset(study), ks, max_suppressions,
                      measures, algorithms, datafly_runs, progress)
