"""The alternatives to a release as one object: every candidate solution of both engines under every measure
(``compare.solutions``), each measure's optimum over every k-anonymous node (``compare.lattice_optima``), the
Pareto front, the rank agreement, and which row is the release a run chose. The report's "alternatives"
section and a notebook's rich display read it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from workbench import compare
from workbench.compare.optima import lattice_optima
from workbench.compare.ranking import normalized, optimal_under, pareto_front, rank_agreement
from workbench.config import Study
from workbench.data import Dataset
from workbench.study import Progress, RunResult, load_dataset


@dataclass(frozen=True, eq=False)
class Comparison:
    """Candidate solutions under every measure. ``table`` has the ``solutions.csv`` columns; ``chosen`` is the
    index of the row of the run's release (None without a run, or when it has no release)."""

    study: Study
    table: pd.DataFrame
    measures: tuple[str, ...]
    optima: pd.DataFrame
    chosen: int | None = None

    @cached_property
    def front(self) -> np.ndarray:
        """Mask of the rows no other row dominates (``compare.pareto_front``)."""
        return pareto_front(self.table, self.measures)

    def normalized(self) -> pd.DataFrame:
        """Every measure rescaled to [0, 1] over the rows, 0 = the best (``compare.normalized``)."""
        return normalized(self.table, self.measures)

    def rank_agreement(self) -> pd.DataFrame:
        """Kendall τ between the measures' rankings of the rows (``compare.rank_agreement``)."""
        return rank_agreement(self.table, self.measures)

    def optimal_under(self) -> pd.DataFrame:
        """Per measure the solution it would choose: over every k-anonymous node, among the lattice candidates,
        and each local release (``compare.optimal_under``)."""
        return optimal_under(self.table, self.measures, self.optima)

    def marked(self) -> pd.DataFrame:
        """The table with a ``chosen`` and a ``pareto`` column."""
        chosen = np.zeros(len(self.table), dtype=bool)
        if self.chosen is not None:
            chosen[self.table.index.get_loc(self.chosen)] = True
        return self.table.assign(chosen=chosen, pareto=self.front)


def _chosen_row(table: pd.DataFrame, result: RunResult, ids: list[str]) -> tuple[pd.DataFrame, int | None]:
    """The row of the run's release in ``table``, appended (from the run's own scores) when it is not a
    candidate, e.g. a non-monotone objective's optimum that is not k-minimal."""
    release = result.release
    if release is None:
        return table, None
    if release.engine == "lattice" and release.transformation is not None:
        label = ",".join(f"{q}={v}" for q, v in release.transformation.items())
        hit = table.index[(table.engine == "lattice") & (table.solution == label)]
    else:
        label = release.algorithm
        hit = table.index[(table.engine == "local") & (table.algorithm == release.algorithm)]
    if len(hit):
        return table, int(hit[0])
    if any(m not in result.scores for m in ids):
        from workbench.objective import score_release

        scores = score_release(replace(result.study, compare=tuple(ids)), release)
    else:
        scores = result.scores
    from workbench.privacy.build import admissibility_for
    from workbench.risk.solutions import release_risk

    row = {"k": result.study.k, "engine": release.engine, "algorithm": f"chosen ({release.algorithm})",
           "solution": label, **compare.suppression_of(int(release.suppressed.sum()), release.n),
           **{m: scores[m].value for m in ids}, **release_risk(release),
           **compare.release_verdict(release, admissibility_for(result.study, result.dataset))}
    out = pd.concat([table, pd.DataFrame([row], columns=table.columns)], ignore_index=True)
    return out, len(out) - 1


def comparison(study: Study, dataset: Dataset | None = None, result: RunResult | None = None,
               candidates: str = "k_minimal", progress: Progress | None = None) -> Comparison:
    """Every candidate of both engines under every measure of ``[measures].compare`` (model degradation left
    out), with each measure's optimum; given the ``result`` of a run, its release is marked (and added when it
    is not a candidate)."""
    dataset = dataset or (result.dataset if result is not None else load_dataset(study))
    ids = [m for m in study.compare if m != "degradation"]
    table = compare.solutions(study, dataset, candidates, progress=progress)
    optima = lattice_optima(study, dataset, ids)
    chosen = None
    if result is not None:
        table, chosen = _chosen_row(table, result, ids)
    return Comparison(study, table, tuple(ids), optima, chosen)
