"""Cached library calls for the app: plain, hashable inputs in, plain data out (the UI never computes).

Every call takes a JSON config and a ``dataset_key``. For an embedded sample (``dataset_key`` None) results
are kept in the server process's memory and shared between sessions. For the session's own
uploaded data the dataset lives in ``st.session_state`` and results are memoized there too, so nothing of
it outlives the session or reaches another one, and nothing is written to disk.

Heavy calls (``dual_cache(..., heavy=True)``: a run, the Compare page's lattice and local rows, the Lattice page's
node table, model degradation) run in the server's bounded worker pool (``workbench.jobs``): at most
``WORKBENCH_WORKERS`` of them at once, first come first served, one queued job per session; the page shows its
place in the queue while it waits, and ``ui/long_work.py`` follows one with a progress bar and a Cancel button.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

import measures as M
from workbench import jobs, policy
from workbench.config import Study, study_from_dict
from workbench.data import Dataset
from workbench.dependencies import dependency_warnings as find_dependency_warnings
from workbench.errors import WorkbenchError
from workbench.hierarchy import Hierarchy
from workbench.study import Progress, run
from workbench.ui.source import Source

DATASETS = "session_datasets"  # st.session_state key: dataset_key -> Dataset
_MEMO = "session_results"
_MEMO_ENTRIES = 24


def register_dataset(key: str, dataset: Dataset) -> None:
    """Keep the session's own dataset (only the latest one: an upload replaces the previous)."""
    st.session_state[DATASETS] = {key: dataset}


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
    data_only = {key: raw[key] for key in ("data", "attributes") if key in raw}
    data_only["engine"] = {"kind": raw.get("engine", {}).get("kind", "lattice")}
    data_only["measures"] = {"compare": [], **({"target": raw["measures"]["target"]}
                                               if "target" in raw.get("measures", {}) else {})}
    return _sample_dataset(json.dumps(data_only, sort_keys=True))


def study_and_dataset(config_json: str, dataset_key: str | None) -> tuple[Study, Dataset]:
    """The study of a JSON config and the dataset it runs on (``dataset_for``)."""
    return study_from_dict(json.loads(config_json)), dataset_for(config_json, dataset_key)


def lattice_size(source: Source) -> int:
    """Nodes of the source's generalization lattice (``policy.lattice_size``)."""
    return policy.lattice_size(dataset_for(source.config_json(k=2, compare=[]), source.dataset_key))


def too_large_for_tables(source: Source) -> str | None:
    """Why the pages that evaluate every lattice node refuse this source (None when they need not)."""
    try:
        size = lattice_size(source)
    except (WorkbenchError, KeyError):  # the page's own call reports a config or data problem
        return None
    return policy.table_refusal(size)


_VALIDATED = "validation_memo"  # st.session_state key: (data key, hierarchy content) -> its validation report
_VALIDATED_ENTRIES = 64


def validation(hierarchy: Hierarchy, values: pd.Series, data_key: str) -> Any:
    """``hierarchy.validate`` (its ``ValidationReport``) against the distinct ``values`` of a column, once per
    content: memoized in the session on ``data_key`` (what identifies the column's data, e.g. the upload's digest
    and the column's name) and on the hierarchy's name, rows and source lines (what its messages quote), so the
    pages that ask on every rerun (the Dataset box, the Data and Hierarchies pages' status) validate only after a
    change."""
    memo: OrderedDict = st.session_state.setdefault(_VALIDATED, OrderedDict())
    key = (data_key, hierarchy.name, hierarchy.rows, hierarchy.lines, hierarchy.blank_lines)
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    memo[key] = report = hierarchy.validate(values.unique().tolist())
    while len(memo) > _VALIDATED_ENTRIES:
        memo.popitem(last=False)
    return report


def session_dataset(key: str | None) -> Dataset | None:
    """The session dataset named ``key`` (None for an embedded sample)."""
    if key is None:
        return None
    datasets = st.session_state.get(DATASETS, {})
    if key not in datasets:
        raise KeyError(f"the uploaded dataset of this session is gone ({key[:8]}); upload it again on the Data page")
    return datasets[key]


class _SharedMemo:
    """A small LRU of results for the embedded samples, shared by every session of this server process.
    Unlike ``st.cache_data`` it never replays Streamlit calls, so a cached call may report progress to a bar
    drawn outside it (``st.cache_data`` raises CacheReplayClosureError on the next hit). A result being
    computed (by another session or the background warm-up) is waited for, not computed twice."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.entries: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self.pending: dict[tuple, threading.Event] = {}
        self.lock = threading.Lock()

    def put(self, key: tuple, value: dict[str, Any]) -> dict[str, Any]:
        """Keep ``value`` (a heavy job stores its result itself, whether or not anyone still waits for it)."""
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)
        return value

    def get(self, key: tuple, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        while True:
            with self.lock:
                if key in self.entries:
                    self.entries.move_to_end(key)
                    return self.entries[key]
                running = self.pending.get(key)
                if running is None:
                    self.pending[key] = threading.Event()
                    break
            if jobs.in_worker():  # a worker never waits for another computation: it may be waiting for this worker
                return self.put(key, compute())
            running.wait()  # computed elsewhere: take its result (or compute if it failed)
        try:
            return self.put(key, compute())  # computed outside the lock: other keys are not held up
        finally:
            with self.lock:
                self.pending.pop(key).set()


_SHARED: list[_SharedMemo] = []


def clear() -> None:
    """Forget every shared result (benchmarks measure first loads with it)."""
    for memo in _SHARED:
        with memo.lock:
            memo.entries.clear()


def _session_id() -> str:
    """The Streamlit session running this code (for a thread outside any session, e.g. the warm-up, the
    thread: each has at most one job at a time anyway)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else f"background {threading.current_thread().name}"


def queue_message(ahead: int | None) -> str | None:
    """What a page says while its heavy job waits for a worker (None once it runs)."""
    if ahead is None:
        return None
    if ahead == 0:
        return "Waiting for a worker: next in line (every worker is busy)"
    return f"Waiting for a worker: {ahead} job{'s' if ahead != 1 else ''} ahead"


def _wait_showing_position(job: jobs.Job, progress: Progress | None = None) -> Any:
    """Wait for ``job``, showing its place in the queue (and, given ``progress``, telling it what the running job
    reports); every half second the wait sends a small update, so a rerun (the analyst changed a setting) stops
    waiting at once, leaving the job queued for the next run."""
    if job.wait(0.05) or get_script_run_ctx(suppress_warning=True) is None:
        return job.result()
    slot = st.empty()
    try:
        while not job.wait(0.5):
            message = queue_message(job.ahead)
            if message is not None:
                slot.caption(f"⏳ {message} ({jobs.pool().workers} worker(s) for this server).")
                continue
            slot.empty()  # running: the page's own spinner or bar says what
            if progress is not None and job.progress is not None:
                progress(*job.progress)
    finally:
        slot.empty()
    return job.result()


def _submit(work: Callable[[], dict[str, Any]], key: tuple) -> jobs.Job | dict[str, Any]:
    """Queue ``work`` in the worker pool under ``key`` for this session, with this session's Streamlit context
    (so it may read the session's dataset); an error result when the pool cannot start."""
    ctx = get_script_run_ctx(suppress_warning=True)

    def job() -> dict[str, Any]:
        thread = threading.current_thread()
        previous = get_script_run_ctx(suppress_warning=True)
        if ctx is not None:
            add_script_run_ctx(thread, ctx)
        try:
            return work()
        finally:
            if ctx is not None:
                add_script_run_ctx(thread, previous)

    try:
        pool = jobs.pool()
    except ValueError as exc:  # WORKBENCH_WORKERS set to something else than a positive whole number
        return error_result(exc)
    return pool.submit(job, session=_session_id(), key=key)


def _in_pool(work: Callable[[], dict[str, Any]], key: tuple, progress: Progress | None = None) -> dict[str, Any]:
    """Run ``work`` in the worker pool and wait for it, showing the queue position (and its progress)."""
    while True:
        job = _submit(work, key)
        if isinstance(job, dict):
            return job
        try:
            return _wait_showing_position(job, progress)
        except jobs.JobCancelledError:
            raise
        except CancelledError:  # another request replaced it before this run was interrupted: ask again
            continue


def dual_cache(max_entries: int, heavy: bool = False) -> Callable:
    """A process-wide memo for embedded samples, a per-session memo for uploaded data. The wrapped function
    takes the dataset key as its last positional argument (and, if it reports progress, a ``_progress``
    keyword, which is not part of the key). Results are shared read-only: callers must not modify them.

    ``heavy``: computed in the bounded worker pool, the page showing the queue position; a result is kept even
    when the session that asked for it has moved on. Its ``_progress`` is the job's ``report`` (what it does, for
    the page; it raises ``jobs.JobCancelledError`` once the job is cancelled). Besides the blocking call, a heavy
    call has ``start(*args, dataset_key=...)``, which returns the result when it is cached and otherwise the
    ``jobs.Job`` computing it (submitting it when none runs), and ``cancel(*args, dataset_key=...)``, which
    cancels that job for this session (``ui/long_work.py`` draws both)."""

    def decorate(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
        shared = _SharedMemo(max_entries)
        _SHARED.append(shared)
        reports = "_progress" in inspect.signature(fn).parameters

        def in_job(args: tuple, dataset_key: str | None, keep: Callable[[dict[str, Any]], dict[str, Any]]
                   ) -> Callable[[], dict[str, Any]]:
            def work() -> dict[str, Any]:  # keeps its result itself, whether or not anyone still waits for it
                job = jobs.current_job()
                extra = {"_progress": job.report} if reports and job is not None else {}
                return keep(fn(*args, dataset_key, **extra))

            return work

        def heavy_parts(args: tuple, dataset_key: str | None
                        ) -> tuple[dict[str, Any] | None, Callable[[], dict[str, Any]], tuple]:
            """The cached result (None if there is none), the job that computes it, and the job's pool key."""
            key: tuple = (fn.__qualname__, args)
            if dataset_key is None:
                with shared.lock:
                    hit = shared.entries.get(key)
                return hit, in_job(args, None, lambda value: shared.put(key, value)), ("shared", key)
            memo = st.session_state.setdefault(_MEMO, {})
            key = (*key, dataset_key)

            def keep(value: dict[str, Any]) -> dict[str, Any]:
                if key not in memo and len(memo) >= _MEMO_ENTRIES:
                    memo.pop(next(iter(memo)))
                memo[key] = value
                return value

            return memo.get(key), in_job(args, dataset_key, keep), (_session_id(), key)

        @functools.wraps(fn)
        def call(*args: Any, dataset_key: str | None = None, progress: Progress | None = None) -> dict[str, Any]:
            if heavy:
                hit, work, pool_key = heavy_parts(args, dataset_key)
                if dataset_key is None:
                    return shared.get(pool_key[1], lambda: _in_pool(work, pool_key, progress))
                return hit if hit is not None else _in_pool(work, pool_key, progress)
            extra = {"_progress": progress} if progress is not None else {}
            key = (fn.__qualname__, args)
            if dataset_key is None:
                return shared.get(key, lambda: fn(*args, None, **extra))
            memo = st.session_state.setdefault(_MEMO, {})
            key = (*key, dataset_key)
            if key not in memo:
                if len(memo) >= _MEMO_ENTRIES:
                    memo.pop(next(iter(memo)))
                memo[key] = fn(*args, dataset_key, **extra)
            return memo[key]

        def start(*args: Any, dataset_key: str | None = None) -> dict[str, Any] | jobs.Job:
            hit, work, pool_key = heavy_parts(args, dataset_key)
            return hit if hit is not None else _submit(work, pool_key)

        def cancel(*args: Any, dataset_key: str | None = None) -> bool:
            job = jobs.pool().find(heavy_parts(args, dataset_key)[2])
            return job is not None and job.cancel(_session_id())

        call.shared = shared  # type: ignore[attr-defined]  # tests and the warm-up look into it
        if heavy:
            call.start, call.cancel = start, cancel  # type: ignore[attr-defined]
        return call

    return decorate


def error_result(exc: Exception) -> dict[str, Any]:
    """A library error as the cached calls return it: ``{"error": its first line}``."""
    return {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}


@dual_cache(max_entries=8)
def dependency_warnings(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """``{"warnings": [...]}``: the released columns that determine a quasi-identifier or its generalization
    (``workbench.dependencies``), or ``{"error": message}``."""
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


@dual_cache(max_entries=8)
def export_files(config_json: str, fmt: str, dataset_key: str | None) -> dict[str, Any]:
    """The files an analyst downloads: the release (shuffled with the recorded seed, re-verified before it
    is produced), the provenance JSON, the value mappings, the config as TOML and, for the session's own data,
    a zip bundle of the config with the hierarchy files it names."""
    from workbench.config import to_toml
    from workbench.config_bundle import config_bundle

    raw = json.loads(config_json)
    outcome = run_result(json.dumps({key: v for key, v in raw.items() if key != "release"}, sort_keys=True),
                         dataset_key=dataset_key)
    if "error" in outcome:
        return outcome
    result = outcome["result"]
    try:
        study = study_from_dict(raw)
        if result.release is None:
            return {"error": f"no solution is k-anonymous for k = {study.k}"}
        files = result.release.export_bytes(seed=study.seed, fmt=fmt, config=raw,
                                            measures={i: s.value for i, s in result.scores.items()},
                                            suppressed_policy=study.suppressed)
    except (WorkbenchError, KeyError) as exc:
        return error_result(exc)
    hierarchy_files = {spec["hierarchy"]: result.dataset.hierarchies[name].to_arx()
                       for name, spec in raw.get("attributes", {}).items() if "hierarchy" in spec}
    bundle = config_bundle(raw, hierarchy_files) if dataset_key is not None else None
    return {**files, "config": to_toml(raw).encode("utf-8"), "bundle": bundle, "seed": study.seed}


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
    with role "sensitive" a model can protect, and ``policy.privacy_refusal`` for the config's algorithm), or
    ``{"error": message}`` when the models cannot be built on the data."""
    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        sensitive = [a for a, role in dataset.roles.items() if role == "sensitive"]
        refusal = policy.privacy_refusal(study, dataset, study.algorithm) if study.engine == "lattice" else None
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)
    return {"sensitive": sensitive, "refusal": refusal}
