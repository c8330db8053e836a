"""Cached library calls for the app: a ``Study`` and plain, hashable values in, typed results out (a frozen
dataclass or the library's own object; the UI never computes); a call that cannot be made raises a one-line
``WorkbenchError`` (``memo.user_error``), which the memo keeps and raises again, and the page shows (``failure.py``).

Every call takes a ``Study`` (``Source.study``: the memo keys it by its config's canonical JSON, ``memo.memo_key``)
and a ``dataset_key``. For an embedded sample (``dataset_key`` None) results are kept in the server process's
memory and shared between sessions. For the session's own uploaded data the dataset lives in the session state and
results are memoized there too, so nothing of it outlives the session or reaches another one, and nothing is
written to disk.

Heavy calls (``dual_cache(..., heavy=True)``: a run, the Compare page's lattice and local rows, the Lattice page's
node table, model degradation) run in the server's bounded worker pool (``workbench.jobs``): at most
``WORKBENCH_WORKERS`` of them at once, first come first served, one queued job per session; the page shows its
place in the queue while it waits, and ``ui/long_work.py`` follows one with a progress bar and a Cancel button.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

import measures as M
from workbench import policy
from workbench.config import Study, study_from_dict
from workbench.data import Dataset
from workbench.errors import DataError, WorkbenchError
from workbench.hierarchy.tree import Hierarchy
from workbench.risk.dependencies import dependency_warnings as find_dependency_warnings
from workbench.study import Progress, RunResult, run
from workbench.ui import state_upload as S
from workbench.ui.memo import dual_cache, memo_key, user_error
from workbench.ui.source import Source, revised

if TYPE_CHECKING:  # the report is loaded with the Export page, not with the app
    from workbench.report.summary import Summary


def register_dataset(key: str, dataset: Dataset) -> None:
    """Keep the session's own dataset (only the latest one: an upload replaces the previous)."""
    S.DATASETS.set({key: dataset})


@st.cache_resource(show_spinner=False, max_entries=4)
def _sample_dataset(key: tuple, _study: Study) -> Dataset:
    """An embedded sample's Dataset (of ``_study``, whose ``memo_key`` is ``key``), loaded once per server
    (read-only: shared without copying)."""
    from workbench.study import load_dataset

    return load_dataset(_study)


def dataset_for(study: Study, dataset_key: str | None) -> Dataset:
    """The dataset a config runs on: the session's own (``dataset_key``) or the embedded sample, loaded once
    for every config that reads the same data (data, attributes, target and engine kind; the engine kind
    decides which attributes need a hierarchy)."""
    if dataset_key is not None:
        return session_dataset(dataset_key)
    raw = study.raw
    if "sample" not in raw.get("data", {}):  # a [data] path: the app never opens a file a client named
        raise DataError("the app reads an embedded sample or the table uploaded in this session, never a data path")
    data_only = {key: raw[key] for key in ("data", "attributes") if key in raw}
    data_only["engine"] = {"kind": raw.get("engine", {}).get("kind", "lattice")}
    data_only["measures"] = {"compare": [], **({"target": raw["measures"]["target"]}
                                               if "target" in raw.get("measures", {}) else {})}
    subset = {kind: table for kind, table in raw.get("privacy", {}).items()  # a model on a population table (a
              if isinstance(table, dict) and "subset" in table}  # research subset): δ-presence, k-map
    if subset:  # table release the research subset: another table
        data_only["privacy"] = subset
    data_study = study_from_dict(data_only, base_dir=study.base_dir, source=study.source)
    return _sample_dataset(memo_key(data_study), data_study)


def lattice_size(source: Source) -> int:
    """Nodes of the source's generalization lattice (``policy.lattice_size``)."""
    return policy.lattice_size(dataset_for(source.study(k=2, compare=[]), source.dataset_key))


def local_engine_hint(source: Source) -> str:
    """The local engine's expected time on the source's table (``policy.local_engine_hint``), memoized per session."""
    memo = S.HINTS.setdefault({})
    try:
        study = source.study(k=2, compare=[])
    except WorkbenchError:  # the page's own call reports a config problem
        return "time unknown"
    key = (memo_key(study), source.dataset_key)
    if key not in memo:
        try:
            memo[key] = policy.local_engine_hint(dataset_for(study, source.dataset_key))
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
def dependency_warnings(study: Study, dataset_key: str | None) -> tuple[str, ...]:
    """One warning per released column (or combination) that determines a quasi-identifier or its generalization
    (``workbench.risk.dependencies``); a ``WorkbenchError`` when they cannot be found."""
    try:
        return tuple(find_dependency_warnings(dataset_for(study, dataset_key)))
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc


def released_dependencies(source: Source) -> list[str]:
    """The warnings of ``dependency_warnings`` for the source's table (none when its data cannot be read: the page's
    own calls report that)."""
    try:
        return list(dependency_warnings(source.study(k=2, compare=[]), dataset_key=source.dataset_key))
    except WorkbenchError:
        return []


@dual_cache(max_entries=16, heavy=True)
def run_result(study: Study, dataset_key: str | None, _progress: Progress | None = None) -> RunResult:
    """``study.run`` of a study: its ``RunResult``, kept so that the Anonymize
    and Export pages share one run (the config's [release] section does not change a run: leave it out). Run in the
    worker pool like the other heavy calls; its progress is reported after each step of the run."""
    try:
        return run(study, dataset_for(study, dataset_key), _progress)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class Score:
    """One measure's score of a release, as the Anonymize page shows it."""

    measure: str
    name: str
    value: float
    formula: str
    direction: Any


@dataclass(frozen=True)
class RunView:
    """What the Anonymize page shows of a run (``run_config``): ``RunResult.summary()``, the guarantee (in words, its
    kind, whether it holds), the records released, whether the search proved its node optimal (None for the local
    engine) and its note, every measure's score, the first released rows and the local engine's cluster sizes."""

    summary: dict[str, Any]
    guarantee: str
    guarantee_kind: str
    records: int
    holds: bool
    proven_optimal: bool | None
    note: str
    scores: list[Score]
    preview: pd.DataFrame
    clusters: pd.DataFrame | None


@dual_cache(max_entries=32)
def run_config(study: Study, dataset_key: str | None, _progress: Progress | None = None) -> RunView:
    """Run a study; returns the summary, the scores with their formula
    and direction, the guarantee, and the first released rows. Errors are raised (``WorkbenchError``)."""
    result = run_result(study, dataset_key=dataset_key, progress=_progress)
    study = result.study
    if result.release is None:
        raise WorkbenchError(f"no solution is k-anonymous for k = {study.k} within the suppression limit")
    release = result.release
    try:
        guarantee = result.guarantee  # re-verified from the released table
    except WorkbenchError as exc:  # a release that fails its own verification is an error to show, not a crash
        raise user_error(exc) from exc
    search = result.search
    return RunView(
        summary=result.summary(),
        guarantee=guarantee.describe(),
        guarantee_kind=guarantee.kind,
        records=release.n,
        holds=guarantee.holds,
        proven_optimal=bool(search.proven_optimal) if search else None,
        note=search.note if search else "",
        scores=[Score(s.id, M.MEASURES[s.id].name, s.value, s.formula, s.direction) for s in result.scores.values()],
        preview=release.table(study.suppressed).head(25),
        clusters=release.cluster_sizes(),
    )


@dataclass(frozen=True)
class ExportFiles:
    """What the Export page offers for one release (``export_files``): the release file, ``provenance.json`` and the
    value mappings (CSV) as the library writes them, the config as TOML, the zip bundle of the config with its
    hierarchies (the session's own data only, else None), the shuffle seed and the guarantee the release was
    re-verified as (``Release.guarantee_kind``, as the provenance names it)."""

    release: bytes
    provenance: bytes
    mappings: bytes
    config: bytes
    bundle: bytes | None
    seed: int
    guarantee_kind: str


@dual_cache(max_entries=8, session_entries=2)  # each holds the whole release file: two formats, not eight
def export_files(study: Study, fmt: str, dataset_key: str | None) -> ExportFiles:
    """The files an analyst downloads: the release (shuffled with the recorded seed, re-verified before it
    is produced), the provenance JSON, the value mappings, the config as TOML and, for the session's own data,
    a zip bundle of the config with every quasi-identifier's hierarchy as a file (``bundle_with_hierarchies``)."""
    from workbench.config.bundle import bundle_with_hierarchies
    from workbench.config.text import in_attribute_order, to_toml

    result = run_result(revised(study, release=None), dataset_key=dataset_key)
    raw = in_attribute_order(study.raw, result.dataset.quasi_identifiers)
    try:
        study = study_from_dict(raw)
        if result.release is None:
            raise WorkbenchError(f"no solution is k-anonymous for k = {study.k}")
        files = result.release.export_bytes(seed=study.seed, fmt=fmt, config=raw,
                                            measures={i: s.value for i, s in result.scores.items()},
                                            suppressed_policy=study.suppressed)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc
    hierarchies = {q: result.dataset.hierarchies[q].to_arx() for q in result.dataset.quasi_identifiers}
    bundle = bundle_with_hierarchies(raw, hierarchies) if dataset_key is not None else None
    return ExportFiles(release=files["release"], provenance=files["provenance"], mappings=files["mappings"],
                       config=to_toml(raw).encode("utf-8"), bundle=bundle, seed=study.seed,
                       guarantee_kind=result.release.guarantee_kind)


@dual_cache(max_entries=8)
def decision_summary(study: Study, register_version: int, dataset_key: str | None) -> Summary:
    """The report's first page for the release of a study with its [release] section (the Export page's): its
    ``workbench.report.Summary`` (``report.build_summary``, the same figures the report shows); a
    ``WorkbenchError`` when it cannot be built. The run itself is ``run_result``'s, shared with the Anonymize page.
    ``register_version`` (the register's newest release id) is part of the key only: a release recorded since is
    checked against."""
    from workbench.config.text import in_attribute_order
    from workbench.report import build_summary

    result = run_result(revised(study, release=None), dataset_key=dataset_key)
    try:
        study = study_from_dict(in_attribute_order(study.raw, result.dataset.quasi_identifiers))
        return build_summary(study, result)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class TableRisk:
    """Re-identification risk of one table: ``risk``, its ``RiskResult.to_dict()``; ``records``, the distribution of
    record-level risk (``risk.record_risks``)."""

    risk: dict[str, Any]
    records: pd.DataFrame


def _assessed(sizes: Callable[[], Any], result: Callable[[], Any]) -> TableRisk:
    from workbench import risk

    try:
        return TableRisk(result().to_dict(), risk.record_risks(sizes()))
    except ValueError as exc:  # e.g. a population smaller than the table
        raise user_error(exc) from exc


@dual_cache(max_entries=16)
def input_risk(study: Study, threshold: float, population: int | None, dataset_key: str | None) -> TableRisk:
    """Re-identification risk of the input (every quasi-identifier at level 0: ``risk.risk_of_node``); a
    ``WorkbenchError`` when it cannot be assessed."""
    from workbench import risk

    try:
        dataset = dataset_for(study, dataset_key)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc
    return _assessed(lambda: risk.node_class_sizes(dataset),
                     lambda: risk.risk_of_node(dataset, None, threshold, population))


@dual_cache(max_entries=16)
def release_risk(release_study: Study, threshold: float, population: int | None,
                 dataset_key: str | None) -> TableRisk:
    """Re-identification risk of the release of the last run's config, after suppression (``risk.risk_of_release``);
    a ``WorkbenchError`` when it cannot be assessed."""
    from workbench import risk

    release = run_result(release_study, dataset_key=dataset_key).release
    if release is None:
        raise WorkbenchError("the last run found no release")
    return _assessed(lambda: risk.release_class_sizes(release),
                     lambda: risk.risk_of_release(release, threshold, population))


@dataclass(frozen=True)
class PrivacyCheck:
    """For the Anonymize page's privacy models (``privacy_check``): the attributes with role "sensitive" a model can
    protect, and why the library refuses the study's engine and algorithm with its models (``policy.privacy_refusal``;
    None when it does not)."""

    sensitive: tuple[str, ...]
    refusal: str | None


@dual_cache(max_entries=16)
def privacy_check(study: Study, dataset_key: str | None) -> PrivacyCheck:
    """The ``PrivacyCheck`` of a study; a ``WorkbenchError`` when the models cannot be built on the data."""
    try:
        dataset = dataset_for(study, dataset_key)
        sensitive = [a for a, role in dataset.roles.items() if role == "sensitive"]
        refusal = policy.privacy_refusal(study, dataset, study.algorithm)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc
    return PrivacyCheck(tuple(sensitive), refusal)


def sensitive_attributes(source: Source) -> list[str]:
    """The source's attributes a privacy model can protect (``privacy_check``; none when the models cannot be built
    on its data: the run reports why)."""
    try:
        return list(privacy_check(source.study(k=2, compare=[]), dataset_key=source.dataset_key).sensitive)
    except WorkbenchError:
        return []


def privacy_refusal(study: Study, dataset_key: str | None) -> str | None:
    """``policy.privacy_refusal`` of a study (``privacy_check``; None when the models cannot be built on the data:
    the run reports why)."""
    try:
        return privacy_check(study, dataset_key=dataset_key).refusal
    except WorkbenchError:
        return None


def register_digests(source: Source) -> list[str]:
    """The digests the register knows the source's data by (``register.data_identity``: its bytes' SHA-256 and its
    values'), for the History page's list of its releases."""
    from workbench.register.entries import data_identity

    identity = data_identity(dataset_for(source.study(k=2, compare=[]), source.dataset_key))
    return list(dict.fromkeys([identity["data_sha256"], identity["content_sha256"]]))
