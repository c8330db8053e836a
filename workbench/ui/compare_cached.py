"""The Compare page's cached library calls (``workbench/ui/memo.py``'s ``dual_cache``): the lattice and local rows
of the solutions table (separate, so the lattice rows show at once and the local rows, which depend on k and the
measures only, never rerun for another suppression limit or candidate set), each measure's optimum, the analysis of
the table, the side-by-side view, Pareto fronts, model degradation and the k sweep."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.compare.optima import lattice_optima
from workbench.compare.ranking import as_loss, global_vs_local, normalized, optimal_under, pareto_front, rank_agreement
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.study import Progress
from workbench.ui.cached import dataset_for
from workbench.ui.memo import dual_cache, user_error
from workbench.ui.source import revised


@dual_cache(max_entries=32, heavy=True)
def lattice_rows(study: Study, candidates: str, dataset_key: str | None,
                 _progress: Progress | None = None) -> pd.DataFrame:
    """The lattice candidates' rows of the solutions table (reporting each candidate scored)."""
    from workbench import compare

    try:
        dataset = dataset_for(study, dataset_key)
        return compare.lattice_solutions(study, dataset, candidates, progress=_progress)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class LocalRows:
    """The local engine's rows of the solutions table (``local_rows``) and, per algorithm left out, why."""

    table: pd.DataFrame
    left_out: Mapping[str, str]


@dual_cache(max_entries=32, heavy=True)
def local_rows(study: Study, dataset_key: str | None, _progress: Progress | None = None) -> LocalRows:
    """The local engine's rows (``compare.COMPARED_LOCAL_ALGORITHMS``, reporting each algorithm's progress);
    ``study`` without a suppression limit."""
    from workbench import compare

    try:
        dataset = dataset_for(study, dataset_key)
        return LocalRows(compare.local_solutions(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS, progress=_progress),
                         compare.local_refusals(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS))
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class Optima:
    """Each measure's optimum over every admissible node (``optima``: ``compare.lattice_optima``) and those nodes'
    rows of the solutions table (``rows``)."""

    optima: pd.DataFrame
    rows: pd.DataFrame


@dual_cache(max_entries=16, heavy=True)
def optima(study: Study, dataset_key: str | None) -> Optima:
    """Each measure's optimum over every k-anonymous node (``compare.lattice_optima``) and those nodes' rows
    of the solutions table (``compare.optimum_solutions``)."""
    from workbench import compare

    try:
        dataset = dataset_for(study, dataset_key)
        table = lattice_optima(study, dataset)
        return Optima(table, compare.optimum_solutions(study, dataset, table))
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class Analysis:
    """The Compare page's reading of the solutions table: ``table`` (lattice rows, then local rows), the measure
    columns ``ids``, the ``normalized`` view (with each row's ``pareto`` flag), each measure's choice (``optimal``:
    the optimum over every admissible node and the best of the candidates), the optima's own rows
    (``optimum_rows``) and the Kendall τ between measures (``tau``)."""

    table: pd.DataFrame
    ids: list[str]
    normalized: pd.DataFrame
    pareto: Any
    optimal: pd.DataFrame
    optimum_rows: pd.DataFrame
    tau: pd.DataFrame


@dual_cache(max_entries=16)
def analysis(study: Study, local: Study | None, candidates: str, dataset_key: str | None) -> Analysis:
    """The solutions table (lattice rows, then the local rows when ``local`` is given), its normalized
    values, Pareto front, each measure's choice (the optimum over every k-anonymous node, and the best of each
    candidate set) and the Kendall τ between measures."""
    from workbench import compare

    lattice = lattice_rows(study, candidates, dataset_key=dataset_key)
    best = optima(study, dataset_key=dataset_key)
    parts = [lattice]
    if local is not None:
        parts.append(local_rows(local, dataset_key=dataset_key).table)
    table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    ids = [c for c in table.columns if c not in ("k", "engine", "algorithm", "solution", *compare.SUPPRESSION_COLUMNS,
                                                 *compare.RULE_COLUMNS)]
    norm = normalized(table, ids)
    pareto = pareto_front(table, ids)
    shown = norm[["engine", "algorithm", "solution", *compare.SUPPRESSION_COLUMNS, "meets_rule"]].assign(
        **{m: norm[f"{m}_norm"] for m in ids}, pareto=pareto)
    return Analysis(table=table, ids=ids, normalized=shown, pareto=pareto,
                    optimal=optimal_under(table, ids, best.optima) if len(table) else pd.DataFrame(),
                    optimum_rows=best.rows, tau=rank_agreement(table, ids))


@dataclass(frozen=True)
class SideBySide:
    """The side-by-side view (``side_by_side``): every measure's row of the best lattice solution and each local
    release (``compare.global_vs_local``), the lattice solution's node and its suppressed records (count, percent;
    both None without a lattice solution)."""

    table: pd.DataFrame
    lattice_solution: str | None
    lattice_suppressed: tuple[int, float] | None


@dual_cache(max_entries=32)
def side_by_side(study: Study, local: Study | None, candidates: str, objective: str,
                 dataset_key: str | None) -> SideBySide:
    """The best lattice solution under ``objective`` over every k-anonymous node (not only the candidates)
    next to each local release, every measure; normalized over the candidates and the optima."""

    data = analysis(study, local, candidates, dataset_key=dataset_key)
    table = pd.concat([data.optimum_rows, data.table], ignore_index=True)  # optima first: they win ties
    lattice = table[table.engine == "lattice"]
    best = as_loss(lattice, objective).idxmin() if len(lattice) else None
    return SideBySide(table=global_vs_local(table, objective, data.ids),
                      lattice_solution=str(lattice.solution[best]) if best is not None else None,
                      lattice_suppressed=(int(lattice.suppressed[best]), float(lattice.suppressed_pct[best]))
                      if best is not None else None)


@dataclass(frozen=True)
class ParetoFront:
    """``pareto_of``'s front: each solution's flag, or None when the solutions table cannot be built."""

    front: np.ndarray | None


@dual_cache(max_entries=64)
def pareto_of(study: Study, local: Study | None, candidates: str, x: str, y: str,
              dataset_key: str | None) -> ParetoFront:
    """The Pareto front of the solutions under two measures (under every measure when x == y); no front when the
    solutions table cannot be built (the page shows that error where it asks for the table)."""
    try:
        data = analysis(study, local, candidates, dataset_key=dataset_key)
    except WorkbenchError:
        return ParetoFront(None)
    return ParetoFront(pareto_front(data.table, [x, y]) if x != y else data.pareto)


@dual_cache(max_entries=8, heavy=True)
def degradation(study: Study, local: Study | None, candidates: str, rows: tuple[int, ...], classifier: str,
                dataset_key: str | None, _progress: Progress | None = None) -> pd.DataFrame:
    """Model degradation (ZeroR and ``classifier``, 5-fold) of the chosen rows of the solutions table, two releases
    at a time in threads, so that the job's progress report (after every classifier × fold) can stop it."""
    from workbench.compare import degradation as model_degradation

    data = analysis(study, local, candidates, dataset_key=dataset_key)
    try:
        dataset = dataset_for(study, dataset_key)
        out = model_degradation.add_degradation(data.table, study, dataset, rows=list(rows),
                                                classifiers=("zeror", classifier), n_jobs=min(2, len(rows)),
                                                progress=_progress, prefer="threads")
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc
    return model_degradation.degradation_summary(out)


@dual_cache(max_entries=32)
def sweep(study: Study, local: Study | None, candidates: str, ks: tuple[int, ...],
          dataset_key: str | None) -> pd.DataFrame:
    """``compare.sweep``'s table, built from the per-k cached rows (so the page's own k is not recomputed)."""
    frames = []
    for k in ks:
        at_k = revised(study, privacy={**study.raw["privacy"], "k": k})
        local_at_k = revised(local, privacy={**local.raw["privacy"], "k": k}) if local is not None else None
        data = analysis(at_k, local_at_k, candidates, dataset_key=dataset_key)
        frames.append(data.table)
    return pd.concat(frames, ignore_index=True)
