"""The Geography page's data: the current dataset (an embedded sample or the analyst's own table), its geographic
column, the other quasi-identifiers and the fine regions' points (a sample's own, or a points table the analyst
uploads). Everything is computed by ``workbench.geo.scored``.

An embedded sample with its own points is public: its problem and results are cached for every session of the
server. The analyst's own table, or any uploaded points table, stays in this session's state (the latest upload
only, a bounded memo of results): nothing of it reaches another session, nothing is written to disk.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from workbench.errors import WorkbenchError
from workbench.geo import scored as geography
from workbench.geo.engine import GeoProblem, aggregate, embedded_points, problem_from_frame
from workbench.geo.points import points_from_frame
from workbench.policy import suppression_share
from workbench.readers import base_name, read_table_bytes, upload_name
from workbench.samples import GEO_POINTS, load_sample
from workbench.ui import state, upload
from workbench.ui.format import md
from workbench.ui.upload import oversized

MAX_POINTS_MB = 16  # a points table: one row per fine region
MAX_REGIONS = 10_000  # regions the page draws and merges; beyond, `workbench geo` runs the same engine
POINTS_UPLOAD = "geo_points_upload"
MEMO_ENTRIES = 24
OWN_POINTS, UPLOADED_POINTS = "the sample's own points", "a points table you upload"
GEO_WORDS = ("region", "postal", "zip", "area", "district", "county", "tract", "municipal", "geo")  # a first guess
DEFAULT_OTHERS = {"province": ["sex", "age"], "registry": ["sex", "ethnicity"]}
Result = tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]


@dataclass(frozen=True, eq=False)
class GeoData:
    """The data the page works on. ``key``: what its results are cached under; ``shared``: an embedded sample with
    its own points (cached for every session); ``tag``: widget keys of settings whose range depends on the data."""

    problem: GeoProblem
    label: str
    key: tuple
    shared: bool
    tag: str


@st.cache_resource(show_spinner=False, max_entries=4)
def _sample_frame(name: str) -> pd.DataFrame:
    return load_sample(name).frame


@st.cache_resource(show_spinner=False, max_entries=8)
def _shared_problem(name: str, column: str, others: tuple[str, ...]) -> GeoProblem:
    points = embedded_points(name, column)
    return problem_from_frame(_sample_frame(name), column, others, points, source=f"sample:{name}",
                                        partial_points=True)


def _compute(problem: GeoProblem, method: str, value: float, k: int, limit_percent: float) -> Result:
    """One method's summary (with its warnings), region table and (VBAS) Voronoi cells."""
    aggregation = aggregate(problem, method, **({"sites": int(value)} if method == "vbas"
                                                          else {"cutoff": float(value)}))
    result = geography.anonymize(problem, aggregation, k)
    setting = f"The suppression limit of {limit_percent:g} % set on the other pages"
    return (result.summary(suppression_share(limit_percent), setting), result.region_table(),
            geography.voronoi_cells(result))


@st.cache_data(show_spinner=False, max_entries=32)
def _shared_run(key: tuple, method: str, value: float, k: int, limit_percent: float) -> Result:
    return _compute(_shared_problem(*key), method, value, k, limit_percent)


@st.cache_data(show_spinner=False, max_entries=16)
def _shared_sweep(key: tuple, k: int) -> pd.DataFrame:
    problem = _shared_problem(*key)
    return geography.sweep(problem, geography.sweep_sites(problem.regions), k)


def _session_memo(key: tuple, compute: Callable[[], Any]) -> Any:
    memo: OrderedDict = state.GEO_MEMO.setdefault(OrderedDict())
    if key not in memo:
        memo[key] = compute()
        while len(memo) > MEMO_ENTRIES:
            memo.popitem(last=False)
    memo.move_to_end(key)
    return memo[key]


def run(data: GeoData, method: str, value: float, k: int) -> Result:
    """A method on the page's data at ``k``, with the session's suppression limit named in its warnings."""
    limit = state.privacy().suppression_percent
    if data.shared:
        return _shared_run(data.key, method, value, k, limit)
    return _session_memo((data.key, "run", method, value, k, limit),
                         lambda: _compute(data.problem, method, value, k, limit))


def sweep(data: GeoData, k: int) -> pd.DataFrame:
    """VBAS over ``geography.sweep_sites``: suppression against compactness."""
    if data.shared:
        return _shared_sweep(data.key, k)
    return _session_memo((data.key, "sweep", k), lambda: geography.sweep(
        data.problem, geography.sweep_sites(data.problem.regions), k))


def _table() -> tuple[str, pd.DataFrame, dict[str, str], str] | None:
    """The current dataset: its name in the Dataset box, its table, each column's role and its identity."""
    name = state.current_dataset()
    if name == "uploaded":
        ws = upload.workspace()
        if ws is None:
            return None
        return ws["name"], ws["frame"], dict(ws["roles"]), ws["sha"]
    sample = load_sample(name)
    return name, _sample_frame(name), dict(sample.roles), name


def _uploaded_points() -> tuple[str, str, Any] | None:
    """The points table uploaded in this session: (file name, SHA-256, RegionPoints or the error's one line)."""
    file = st.file_uploader(f"Points table: region, x, y (projected, e.g. metres), optional population; CSV, TSV, "
                            f"Excel or Parquet, up to {MAX_POINTS_MB} MB. It stays in this browser session.",
                            type=["csv", "tsv", "txt", "xlsx", "parquet"], key=POINTS_UPLOAD,
                            max_upload_size=MAX_POINTS_MB)
    if file is not None:
        name = base_name(file.name)  # the client's name without any folder: a label, never a path
        too_big = oversized(file, MAX_POINTS_MB)
        if too_big:
            state.GEO_POINTS.pop()
            return name, "", too_big
        content = file.getvalue()
        sha = hashlib.sha256(content).hexdigest()
        stored = state.GEO_POINTS.get()
        if stored is None or stored[1] != sha or stored[0] != name:
            try:
                parsed: Any = points_from_frame(read_table_bytes(content, upload_name(file.name)), name)
            except WorkbenchError as exc:
                parsed = str(exc).splitlines()[0]
            state.GEO_POINTS.set((name, sha, parsed))
    return state.GEO_POINTS.get()


def choose() -> GeoData | None:
    """Draw the data choices; the data, or None after saying what is missing."""
    table = _table()
    if table is None:
        st.info("Upload a table on the Data page, or choose an embedded sample in the Dataset box.")
        return None
    name, frame, roles, identity = table
    dataset = state.current_dataset()
    embedded = GEO_POINTS[dataset][0] if dataset in GEO_POINTS else None
    columns = list(frame.columns)
    quasi = [c for c in columns if roles.get(c) == "quasi"]
    named = [c for c in columns if any(word in str(c).lower() for word in GEO_WORDS)]
    first = embedded or next(iter([c for c in named if c in quasi] + named + quasi), columns[0])
    cols = st.columns(2)
    column = cols[0].selectbox("Geographic column (the fine regions)", columns, index=columns.index(first),
                               key=f"geo_column:{dataset}:{identity[:12]}")
    choices = [OWN_POINTS, UPLOADED_POINTS] if column == embedded else [UPLOADED_POINTS]
    where = cols[1].radio("Points of the regions", choices, key=f"geo_points_from:{dataset}:{column}",
                          horizontal=True)
    others_options = [c for c in columns if c != column]
    default = DEFAULT_OTHERS.get(dataset) or [c for c in quasi if c != column][:2]
    others = tuple(st.multiselect("Quasi-identifiers besides the geography (released as they are)", others_options,
                                  default=[c for c in default if c in others_options],
                                  key=f"geo_qis:{dataset}:{identity[:12]}:{column}"))
    if where == OWN_POINTS:
        key = (dataset, column, others)
        try:
            problem = _shared_problem(*key)
        except WorkbenchError as exc:
            st.error(md(str(exc).splitlines()[0]))
            return None
        return GeoData(problem, f"{dataset} sample, its own points", key, True, f"{dataset}:{column}:own")
    points = _uploaded_points()
    if points is None:
        st.info(f"Upload a points table with one row per value of {md(repr(column))}: region, x, y and optionally "
                "population (without it, a region's population is its records).")
        return None
    file_name, sha, parsed = points
    if isinstance(parsed, str):
        st.error(md(parsed))
        return None
    if len(parsed) > MAX_REGIONS:
        st.error(f"{md(file_name)}: {len(parsed):,} regions; this page takes at most {MAX_REGIONS:,} "
                 "(`workbench geo` runs the same engine on any number)")
        return None
    key = (identity, column, others, sha)
    stored = state.GEO_PROBLEM.get()
    if stored is None or stored[0] != key:
        try:
            made: Any = problem_from_frame(frame, column, others, parsed, source=name)
        except WorkbenchError as exc:
            made = str(exc).splitlines()[0]
        stored = (key, made)
        state.GEO_PROBLEM.set(stored)
    if isinstance(stored[1], str):
        st.error(md(stored[1]))
        return None
    problem = stored[1]
    st.caption(f"Points: {md(file_name)} ({len(parsed):,} regions)")
    return GeoData(problem, f"{name}, points from {file_name}", key, False, f"{identity[:12]}:{column}:{sha[:12]}")
