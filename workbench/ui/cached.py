"""Cached library calls for the app: plain, hashable inputs in, plain data out (the UI never computes).

Every call takes a JSON config and a ``dataset_key``. For an embedded sample (``dataset_key`` None) results
are kept in the server process's memory and shared between sessions. For the session's own
uploaded data the dataset lives in the session state and results are memoized there too, so nothing of
it outlives the session or reaches another one, and nothing is written to disk.

Heavy calls (``dual_cache(..., heavy=True)``: a run, the Compare page's lattice and local rows, the Lattice page's
node table, model degradation) run in the server's bounded worker pool (``workbench.jobs``): at most
``WORKBENCH_WORKERS`` of them at once, first come first served, one queued job per session; the page shows its
place in the queue while it waits, and ``ui/long_work.py`` follows one with a progress bar and a Cancel button.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

import measures as M
from workbench import policy
from workbench.config import Study, study_from_dict
from workbench.data import Dataset
from workbench.errors import DataError, WorkbenchError
from workbench.hierarchy.tree import Hierarchy
from workbench.risk.dependencies import dependency_warnings as find_dependency_warnings
from workbench.study import Progress, run
from workbench.ui import state_upload as S
from workbench.ui.memo import clear, dual_cache, error_result  # noqa: F401  (the pages' helpers too)
from workbench.ui.source import Source


def register_dataset(key: str, dataset: Dataset) -> None:
    """Keep the session's own dataset (only the latest one: an upload replaces the previous)."""
    S.DATASETS.set({key: dataset})


@st.cache_resource(show_spinner=False, max_entries=4)
def _sample_dataset(data_json: str) -> Dataset:
    """An embedded sample's Dataset, loaded once per server (read-only: shared without copying)."""
    from workbench.study import load_dataset

    return load_dataset(study_from_dict(json.loads(data_json)))


def dataset_for(config_json: str, dataset_key: str | None) -> Dataset:
    """The dataset a config runs on: the session's own (``dataset_key``) or the embedded sample, loaded once
    for every config that reads the same data (data, attributes, target and engine kind; the engine kind
    decides which attributes need a hierarchy)."""
    if dataset_key is not None:
        return session_dataset(dataset_key)
    raw = json.loads(config_json)
    if "sample" not in raw.get("data", {}):  # a [data] path: the app never opens a file a client named
        raise DataError("the app reads an embedded sample or the table uploaded in this session, never a data path")
    data_only = {key: raw[key] for key in ("data", "attributes") if key in raw}
    data_only["engine"] = {"kind": raw.get("engine", {}).get("kind", "lattice")}
    data_only["measures"] = {"compare": [], **({"target": raw["measures"]["target"]}
                                               if "target" in raw.get("measures", {}) else {})}
    subset = {kind: table for kind, table in raw.get("privacy", {}).items()  # δ-presence and k-map with a population
              if kind in ("delta_presence", "k_map") and isinstance(table, dict) and "subset" in table}
    if subset:  # table release the research subset: another table
        data_only["privacy"] = subset
    return _sample_dataset(json.dumps(data_only, sort_keys=True))


def study_and_dataset(config_json: str, dataset_key: str | None) -> tuple[Study, Dataset]:
    """The study of a JSON config and the dataset it runs on (``dataset_for``)."""
    return study_from_dict(json.loads(config_json)), dataset_for(config_json, dataset_key)


def lattice_size(source: Source) -> int:
    """Nodes of the source's generalization lattice (``policy.lattice_size``)."""
    return policy.lattice_size(dataset_for(source.config_json(k=2, compare=[]), source.dataset_key))


def local_engine_hint(source: Source) -> str:
    """The local engine's expected time on the source's table (``policy.local_engine_hint``), memoized per session."""
    config_json = source.config_json(k=2, compare=[])
    memo = S.HINTS.setdefault({})
    key = (config_json, source.dataset_key)
    if key not in memo:
        try:
            memo[key] = policy.local_engine_hint(dataset_for(config_json, source.dataset_key))
        except (WorkbenchError, KeyError):  # the page's own call reports a config or data problem
            return "time unknown"
    return memo[key]


def too_large_for_tables(source: Source) -> str | None:
    """Why the pages that evaluate every lattice node refuse this source (None when they need not)."""
    try:
        size = lattice_size(source)
    except (WorkbenchError, KeyError):  # the page's own call reports a config or data problem
        return None
    return policy.table_refusal(size)


_VALIDATED_ENTRIES = 64


def validation(hierarchy: Hierarchy, values: pd.Series, data_key: str) -> Any:
    """``hierarchy.validate`` (its ``ValidationReport``) against the distinct ``values`` of a column, once per
    content: memoized in the session on ``data_key`` (what identifies the column's data, e.g. the upload's digest
    and the column's name) and on the hierarchy's name, rows and source lines (what its messages quote), so the
    pages that ask on every rerun (the Dataset box, the Data and Hierarchies pages' status) validate only after a
    change. The same hierarchy object asked again is found without hashing its rows."""
    memo: OrderedDict = S.VALIDATED.setdefault(OrderedDict())
    same = (data_key, id(hierarchy))
    if same in memo and memo[same][0] is hierarchy:  # the object is kept with its report: its id is not reused
        memo.move_to_end(same)
        return memo[same][1]
    content = (data_key, hierarchy.name, hierarchy.rows, hierarchy.lines, hierarchy.blank_lines)
    if content in memo:
        report = memo[content][1]
    else:
        report = hierarchy.validate(values.unique().tolist())
        memo[content] = (None, report)
    memo[same] = (hierarchy, report)
    while len(memo) > _VALIDATED_ENTRIES:
        memo.popitem(last=False)
    return report


def session_dataset(key: str | None) -> Dataset | None:
    """The session dataset named ``key`` (None for an embedded sample)."""
    if key is None:
        return None
    datasets = S.DATASETS.get_or({})
    if key not in datasets:
        raise KeyError(f"the uploaded dataset of this session is gone ({key[:8]}); upload it again on the Data page")
    return datasets[key]


@dual_cache(max_entries=8)
def dependency_warnings(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """``{"warnings": [...]}``: the released columns that determine a quasi-identifier or its generalization
    (``workbench.risk.dependencies``), or ``{"error": message}``."""
    try:
        return {"warnings": find_dependency_warnings(dataset_for(config_json, dataset_key))}
    except (WorkbenchError, KeyError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16, heavy=True)
def run_result(config_json: str, dataset_key: str | None, _progress: Progress | None = None) -> dict[str, Any]:
    """``study.run`` of a JSON config (the TOML config as JSON) as ``{"result": RunResult}``, kept so that the Anonymize
    and Export pages share one run (the config's [release] section does not change a run: leave it out). Run in the
    worker pool like the other heavy calls; its progress is reported after each step of the run."""
    try:
        return {"result": run(*study_and_dataset(config_json, dataset_key), _progress)}
    except (WorkbenchError, KeyError) as exc:
        return error_result(exc)


@dual_cache(max_entries=32)
def run_config(config_json: str, dataset_key: str | None, _progress: Progress | None = None) -> dict[str, Any]:
    """Run a study given as a JSON config; returns the summary, the scores with their formula
    and direction, the guarantee, and the first released rows. Errors come back as ``{"error": message}``."""
    outcome = run_result(config_json, dataset_key=dataset_key, progress=_progress)
    if "error" in outcome:
        return outcome
    result = outcome["result"]
    study = result.study
    if result.release is None:
        return {"error": f"no solution is k-anonymous for k = {study.k} within the suppression limit"}
    release = result.release
    try:
        guarantee = result.guarantee  # re-verified from the released table
    except WorkbenchError as exc:  # a release that fails its own verification is an error to show, not a crash
        return error_result(exc)
    search = result.search
    return {
        "summary": result.summary(),
        "guarantee": guarantee.describe(),
        "guarantee_kind": guarantee.kind,
        "records": release.n,
        "holds": guarantee.holds,
        "proven_optimal": bool(search.proven_optimal) if search else None,
        "note": search.note if search else "",
        "scores": [{"measure": s.id, "name": M.MEASURES[s.id].name, "value": s.value, "formula": s.formula,
                    "direction": s.direction} for s in result.scores.values()],
        "preview": release.table(study.suppressed).head(25),
        "clusters": release.cluster_sizes(),
    }


@dual_cache(max_entries=8, session_entries=2)  # each holds the whole release file: two formats, not eight
def export_files(config_json: str, fmt: str, dataset_key: str | None) -> dict[str, Any]:
    """The files an analyst downloads: the release (shuffled with the recorded seed, re-verified before it
    is produced), the provenance JSON, the value mappings, the config as TOML and, for the session's own data,
    a zip bundle of the config with every quasi-identifier's hierarchy as a file (``bundle_with_hierarchies``)."""
    from workbench.config.bundle import bundle_with_hierarchies
    from workbench.config.text import in_attribute_order, to_toml

    raw = json.loads(config_json)
    outcome = run_result(json.dumps({key: v for key, v in raw.items() if key != "release"}, sort_keys=True),
                         dataset_key=dataset_key)
    if "error" in outcome:
        return outcome
    result = outcome["result"]
    raw = in_attribute_order(raw, result.dataset.quasi_identifiers)  # the JSON key sorted them alphabetically
    try:
        study = study_from_dict(raw)
        if result.release is None:
            return {"error": f"no solution is k-anonymous for k = {study.k}"}
        files = result.release.export_bytes(seed=study.seed, fmt=fmt, config=raw,
                                            measures={i: s.value for i, s in result.scores.items()},
                                            suppressed_policy=study.suppressed)
    except (WorkbenchError, KeyError) as exc:
        return error_result(exc)
    hierarchies = {q: result.dataset.hierarchies[q].to_arx() for q in result.dataset.quasi_identifiers}
    bundle = bundle_with_hierarchies(raw, hierarchies) if dataset_key is not None else None
    return {**files, "config": to_toml(raw).encode("utf-8"), "bundle": bundle, "seed": study.seed}


@dual_cache(max_entries=8)
def decision_summary(config_json: str, register_version: int, dataset_key: str | None) -> dict[str, Any]:
    """The report's first page for the release of a config with its [release] section (the Export page's):
    ``{"summary": workbench.report.Summary}`` (``report.build_summary``, the same figures the report shows), or
    ``{"error": message}``. The run itself is ``run_result``'s, shared with the Anonymize page. ``register_version``
    (the register's newest release id) is part of the key only: a release recorded since is checked against."""
    from workbench.config.text import in_attribute_order
    from workbench.report import build_summary

    raw = json.loads(config_json)
    outcome = run_result(json.dumps({key: v for key, v in raw.items() if key != "release"}, sort_keys=True),
                         dataset_key=dataset_key)
    if "error" in outcome:
        return outcome
    result = outcome["result"]
    try:
        study = study_from_dict(in_attribute_order(raw, result.dataset.quasi_identifiers))
        return {"summary": build_summary(study, result)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16)
def risk_figures(config_json: str, release_config_json: str | None, threshold: float, population: int | None,
                 dataset_key: str | None) -> dict[str, Any]:
    """Re-identification risk of the input (every quasi-identifier at level 0: ``risk.risk_of_node``) and, given
    the last run's config, of its release after suppression (``risk.risk_of_release``): per table its
    ``RiskResult.to_dict()`` and the distribution of record-level risk (``risk.record_risks``). A table that cannot
    be assessed carries ``{"error": message}``; the release is None without a release config."""
    from workbench import risk

    def assess(sizes: Any, result: Callable[[], Any]) -> dict[str, Any]:
        try:
            return {"risk": result().to_dict(), "records": risk.record_risks(sizes())}
        except ValueError as exc:  # e.g. a population smaller than the table
            return error_result(exc)

    try:
        dataset = dataset_for(config_json, dataset_key)
    except (WorkbenchError, KeyError) as exc:
        return {"input": error_result(exc), "release": None}
    out: dict[str, Any] = {"input": assess(lambda: risk.node_class_sizes(dataset),
                                           lambda: risk.risk_of_node(dataset, None, threshold, population)),
                           "release": None}
    if release_config_json is not None:
        outcome = run_result(release_config_json, dataset_key=dataset_key)
        if "error" in outcome:
            out["release"] = outcome
        elif outcome["result"].release is None:
            out["release"] = {"error": "the last run found no release"}
        else:
            release = outcome["result"].release
            out["release"] = assess(lambda: risk.release_class_sizes(release),
                                    lambda: risk.risk_of_release(release, threshold, population))
    return out


@dual_cache(max_entries=16)
def privacy_check(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """For the Anonymize page's privacy models: ``{"sensitive": [...], "refusal": message or None}`` (the attributes
    with role "sensitive" a model can protect, and ``policy.privacy_refusal`` for the config's engine and algorithm), or
    ``{"error": message}`` when the models cannot be built on the data."""
    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        sensitive = [a for a, role in dataset.roles.items() if role == "sensitive"]
        refusal = policy.privacy_refusal(study, dataset, study.algorithm)
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)
    return {"sensitive": sensitive, "refusal": refusal}


def register_digests(source: Source) -> list[str]:
    """The digests the register knows the source's data by (``register.data_identity``: its bytes' SHA-256 and its
    values'), for the History page's list of its releases."""
    from workbench.register.entries import data_identity

    identity = data_identity(dataset_for(source.config_json(k=2, compare=[]), source.dataset_key))
    return list(dict.fromkeys([identity["data_sha256"], identity["content_sha256"]]))
