"""Cached library calls for the app: plain, hashable inputs in, plain data out (the UI never computes)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

import measures as M
from workbench.config import study_from_dict
from workbench.errors import WorkbenchError
from workbench.study import run


@st.cache_data(show_spinner=False, max_entries=32)
def run_config(config_json: str) -> dict[str, Any]:
    """Run a study given as a JSON config (DESIGN.md §3); returns the summary, the scores with their formula
    and direction, the guarantee, and the first released rows. Errors come back as ``{"error": message}``."""
    try:
        study = study_from_dict(json.loads(config_json))
        result = run(study)
    except WorkbenchError as exc:
        return {"error": str(exc).splitlines()[0]}
    if result.release is None:
        return {"error": f"no solution is k-anonymous for k = {study.k} within the suppression limit"}
    release = result.release
    guarantee = result.guarantee
    search = result.search
    return {
        "summary": result.summary(),
        "guarantee": guarantee.describe(),
        "holds": guarantee.holds,
        "proven_optimal": bool(search.proven_optimal) if search else None,
        "note": search.note if search else "",
        "scores": [{"measure": s.id, "name": M.MEASURES[s.id].name, "value": s.value, "formula": s.formula,
                    "direction": s.direction} for s in result.scores.values()],
        "preview": release.table(study.suppressed).head(25),
    }


@st.cache_data(show_spinner=False, max_entries=8)
def lattice_nodes(config_json: str) -> dict[str, Any]:
    """The lattice of a study with every node's measures, status and search trace, and the Hasse layout."""
    from workbench.study import lattice_overview
    from workbench.ui.charts import hasse_edges, hasse_layout

    try:
        study = study_from_dict(json.loads(config_json))
        table, result = lattice_overview(study)
    except WorkbenchError as exc:
        return {"error": str(exc).splitlines()[0]}
    names = [c for c in table.columns if c not in ("node", "rank", "classes", "suppressed", "k_anonymous",
                                                    "trace", "checked", "status", *M.LATTICE_MEASURES)]
    nodes = hasse_layout(table, names)
    return {"nodes": nodes, "edges": hasse_edges(nodes, names) if len(nodes) <= 1500 else None,
            "names": names, "checks": result.checks, "algorithm": result.algorithm, "optimum": result.optimum}


@st.cache_data(show_spinner=False, max_entries=8)
def compare_solutions(config_json: str, candidates: str) -> dict[str, Any]:
    """The solution table of a study (both engines, every measure), its Pareto front, optima and Kendall τ."""
    from workbench import compare
    from workbench.study import load_dataset

    try:
        study = study_from_dict(json.loads(config_json))
        dataset = load_dataset(study)
        table = compare.solutions(study, dataset, candidates)
    except WorkbenchError as exc:
        return {"error": str(exc).splitlines()[0]}
    ids = list(study.compare)
    return {"table": table, "pareto": compare.pareto_front(table, ids), "optimal": compare.optimal_under(table, ids),
            "tau": compare.rank_agreement(table, ids)}


@st.cache_data(show_spinner=False, max_entries=8)
def export_files(config_json: str, fmt: str) -> dict[str, Any]:
    """The files an analyst downloads: the release (shuffled with the recorded seed, re-verified before it
    is produced), the provenance JSON and the config as TOML."""
    from workbench.config import to_toml

    try:
        raw = json.loads(config_json)
        study = study_from_dict(raw)
        result = run(study)
        if result.release is None:
            return {"error": f"no solution is k-anonymous for k = {study.k}"}
        files = result.release.export_bytes(seed=study.seed, fmt=fmt, config=raw,
                                            measures={i: s.value for i, s in result.scores.items()},
                                            suppressed_policy=study.suppressed)
    except WorkbenchError as exc:
        return {"error": str(exc).splitlines()[0]}
    return {**files, "config": to_toml(raw).encode("utf-8"), "seed": study.seed}
