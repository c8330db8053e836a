"""The Compare page's cached library calls (``workbench/ui/memo.py``'s ``dual_cache``): the lattice and local rows
of the solutions table (separate, so the lattice rows show at once and the local rows, which depend on k and the
measures only, never rerun for another suppression limit or candidate set), each measure's optimum, the analysis of
the table, the side-by-side view, Pareto fronts, model degradation and the k sweep."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from workbench.compare.optima import lattice_optima
from workbench.compare.ranking import as_loss, global_vs_local, normalized, optimal_under, pareto_front, rank_agreement
from workbench.errors import WorkbenchError
from workbench.study import Progress
from workbench.ui.cached import study_and_dataset
from workbench.ui.memo import dual_cache, error_result


@dual_cache(max_entries=32, heavy=True)
def lattice_rows(config_json: str, candidates: str, dataset_key: str | None,
                 _progress: Progress | None = None) -> dict[str, Any]:
    """The lattice candidates' rows of the solutions table (reporting each candidate scored)."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        return {"table": compare.lattice_solutions(study, dataset, candidates, progress=_progress)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=32, heavy=True)
def local_rows(config_json: str, dataset_key: str | None, _progress: Progress | None = None) -> dict[str, Any]:
    """The local engine's rows (``compare.COMPARED_LOCAL_ALGORITHMS``, reporting each algorithm's progress);
    ``config_json`` without a suppression limit."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        return {"table": compare.local_solutions(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS,
                                                 progress=_progress),
                "left_out": compare.local_refusals(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16, heavy=True)
def optima(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """Each measure's optimum over every k-anonymous node (``compare.lattice_optima``) and those nodes' rows
    of the solutions table (``compare.optimum_solutions``)."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        table = lattice_optima(study, dataset)
        return {"optima": table, "rows": compare.optimum_solutions(study, dataset, table)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16)
def analysis(config_json: str, local_json: str | None, candidates: str, dataset_key: str | None) -> dict[str, Any]:
    """The solutions table (lattice rows, then the local rows when ``local_json`` is given), its normalized
    values, Pareto front, each measure's choice (the optimum over every k-anonymous node, and the best of each
    candidate set) and the Kendall τ between measures."""
    from workbench import compare

    lattice = lattice_rows(config_json, candidates, dataset_key=dataset_key)
    if "error" in lattice:
        return lattice
    best = optima(config_json, dataset_key=dataset_key)
    if "error" in best:
        return best
    parts = [lattice["table"]]
    if local_json is not None:
        local = local_rows(local_json, dataset_key=dataset_key)
        if "error" in local:
            return local
        parts.append(local["table"])
    table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    ids = [c for c in table.columns if c not in ("k", "engine", "algorithm", "solution", *compare.SUPPRESSION_COLUMNS,
                                                 *compare.RULE_COLUMNS)]
    norm = normalized(table, ids)
    pareto = pareto_front(table, ids)
    normalized = norm[["engine", "algorithm", "solution", *compare.SUPPRESSION_COLUMNS, "meets_rule"]].assign(
        **{m: norm[f"{m}_norm"] for m in ids}, pareto=pareto)
    return {"table": table, "ids": ids, "normalized": normalized, "pareto": pareto,
            "optimal": optimal_under(table, ids, best["optima"]) if len(table) else pd.DataFrame(),
            "optimum_rows": best["rows"], "tau": rank_agreement(table, ids)}


@dual_cache(max_entries=32)
def side_by_side(config_json: str, local_json: str | None, candidates: str, objective: str,
                 dataset_key: str | None) -> dict[str, Any]:
    """The best lattice solution under ``objective`` over every k-anonymous node (not only the candidates)
    next to each local release, every measure; normalized over the candidates and the optima."""

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return data
    table = pd.concat([data["optimum_rows"], data["table"]], ignore_index=True)  # optima first: they win ties
    lattice = table[table.engine == "lattice"]
    best = as_loss(lattice, objective).idxmin() if len(lattice) else None
    return {"table": global_vs_local(table, objective, data["ids"]),
            "lattice_solution": str(lattice.solution[best]) if best is not None else None,
            "lattice_suppressed": (int(lattice.suppressed[best]), float(lattice.suppressed_pct[best]))
            if best is not None else None}


@dual_cache(max_entries=64)
def pareto_of(config_json: str, local_json: str | None, candidates: str, x: str, y: str,
              dataset_key: str | None) -> dict[str, Any]:
    """The Pareto front of the solutions under two measures (under every measure when x == y)."""

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return {"front": None}
    return {"front": pareto_front(data["table"], [x, y]) if x != y else data["pareto"]}


@dual_cache(max_entries=8, heavy=True)
def degradation(config_json: str, local_json: str | None, candidates: str, rows_json: str, classifier: str,
                dataset_key: str | None, _progress: Progress | None = None) -> dict[str, Any]:
    """Model degradation (ZeroR and ``classifier``, 5-fold) of the chosen rows of the solutions table, two releases
    at a time in threads, so that the job's progress report (after every classifier × fold) can stop it."""
    from workbench.compare import degradation as model_degradation

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return data
    rows = json.loads(rows_json)
    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        out = model_degradation.add_degradation(data["table"], study, dataset, rows=rows,
                                                classifiers=("zeror", classifier), n_jobs=min(2, len(rows)),
                                                progress=_progress, prefer="threads")
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)
    return {"summary": model_degradation.degradation_summary(out)}


@dual_cache(max_entries=32)
def sweep(config_json: str, local_json: str | None, candidates: str, ks_json: str,
          dataset_key: str | None) -> dict[str, Any]:
    """``compare.sweep``'s table, built from the per-k cached rows (so the page's own k is not recomputed)."""
    frames = []
    for k in json.loads(ks_json):
        config, local = json.loads(config_json), json.loads(local_json) if local_json else None
        config["privacy"]["k"] = k
        if local is not None:
            local["privacy"]["k"] = k
        data = analysis(json.dumps(config, sort_keys=True), json.dumps(local, sort_keys=True) if local else None,
                        candidates, dataset_key=dataset_key)
        if "error" in data:
            return data
        frames.append(data["table"])
    return {"table": pd.concat(frames, ignore_index=True)}
