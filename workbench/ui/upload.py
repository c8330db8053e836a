"""The session's own data: an uploaded CSV/TSV/Excel/Parquet table, each column's role, and (from the
Hierarchies page) each quasi-identifier's hierarchy and poset. Everything lives in the session state (``state_upload``):
nothing is written to disk unless the user exports, and nothing reaches another session."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from workbench.config.bundle import hierarchy_paths
from workbench.data import Dataset, profile, suggest_roles
from workbench.errors import WorkbenchError
from workbench.hierarchy.builders import build_hierarchy
from workbench.hierarchy.suggest import suggest_spec
from workbench.hierarchy.tree import Hierarchy
from workbench.readers import base_name, encoding_note, read_table_bytes, row_names_note, upload_name
from workbench.ui import cached, format
from workbench.ui import state_upload as S
from workbench.ui.cached import register_dataset
from workbench.ui.format import md
from workbench.ui.source import Source
from workbench.ui.suggestions import accept_suggested

MAX_MB = 200  # a data table; .streamlit/config.toml's server.maxUploadSize bounds every upload request as well
MAX_CONFIG_MB = 64  # a config or a config bundle (its contents are bounded by workbench.config.bundle's BUNDLE_MAX_*)
MAX_HIERARCHY_MB = 16  # an ARX hierarchy file


def oversized(file: Any, limit_mb: int) -> str | None:
    """The message for an upload larger than ``limit_mb`` (checked here too: the widget's own limit is enforced
    by the browser, which a client need not be), None when it fits."""
    if file.size > limit_mb * 2**20:
        name = base_name(file.name) or "the file"
        return f"{name} is {file.size / 2**20:,.1f} MB; this upload takes at most {limit_mb} MB"
    return None
POSETS = {"tree": "the hierarchy as a tree (default)", "range": "numeric ranges [a, b] (Katirai)",
          "power": "sets of bits (Katirai's power poset)", "date_of_birth": "dates of birth: granularity + age band"}


def workspace() -> dict[str, Any] | None:
    """The session's uploaded table with its roles, hierarchy choices and posets (None before an upload)."""
    return S.WORKSPACE.get()


def _read(content: bytes, name: str, sha: str) -> pd.DataFrame | str:
    """Parse an upload whose SHA-256 is ``sha`` (kept in the session, never in the server-wide cache)."""
    memo = S.READS.setdefault({})
    key = (sha, name)
    if key not in memo:
        memo.clear()  # only the latest upload is kept
        try:
            memo[key] = read_table_bytes(content, name)
        except WorkbenchError as exc:
            memo[key] = str(exc).splitlines()[0]
    return memo[key]


MAX_TABLES = 16  # tables whose settings a session keeps (only the current table's rows are held)
SETTINGS = ("name", "roles", "hierarchies", "posets")


def _keep(ws: dict[str, Any]) -> None:
    """Keep the settings of the table ``ws`` for this session (the latest ``MAX_TABLES`` tables)."""
    kept = S.TABLES.setdefault({})
    kept.pop(ws["sha"], None)
    kept[ws["sha"]] = {key: ws[key] for key in SETTINGS}
    while len(kept) > MAX_TABLES:
        kept.pop(next(iter(kept)))


def _start(frame: pd.DataFrame, name: str, sha: str) -> dict[str, Any]:
    """Make an uploaded table the workspace: with the settings it had when last uploaded in this session (roles,
    hierarchies, posets), or fresh ones (roles from ``suggest_roles``); the previous table's settings are kept."""
    previous = workspace()
    if previous is not None:
        _keep(previous)
    before = S.TABLES.get_or({}).get(sha)
    if before is not None:
        ws = {"sha": sha, "frame": frame, **before, "name": name}
        S.RESTORED.set(name)
    else:
        ws = {"name": name, "sha": sha, "frame": frame, "roles": suggest_roles(frame), "hierarchies": {},
              "posets": {}}
        S.RESTORED.pop()
    S.WORKSPACE.set(ws)
    return ws


def hierarchy_of(ws: dict[str, Any], column: str,
                 choice: dict[str, Any] | None = None) -> tuple[Hierarchy | None, str | None]:
    """The hierarchy chosen for ``column`` (built or imported; or the given ``choice``) and the error that prevents
    it, if any."""
    choice = choice if choice is not None else ws["hierarchies"].get(column)
    if choice is None:
        return None, f"{column!r} has no hierarchy yet"
    if "error" in choice:  # an import that failed (e.g. not UTF-8): the column has no usable hierarchy
        return None, f"{column!r}: {choice['error']}"
    memo = S.HIERARCHIES.setdefault({})
    key = (ws["sha"], column, json.dumps(choice, sort_keys=True, default=str))
    if key not in memo:
        try:
            if choice["mode"] == "arx":
                h = Hierarchy.parse_arx(choice["text"], name=choice["file"])
            else:
                values = ws["frame"][column].tolist()  # every record: the builder counts values it cannot place
                h = build_hierarchy(choice["spec"], values, name=f"{column} {choice['spec'].get('kind')}")
            memo[key] = (h, None)
        except WorkbenchError as exc:
            memo[key] = (None, str(exc).splitlines()[0])
    return memo[key]


def profile_hierarchies(ws: dict[str, Any]) -> dict[str, Hierarchy]:
    """The hierarchy that decides each quasi-identifier's missing values for the profile: the chosen one, or
    for a column without one the suggested hierarchy (what accepting the suggestion gives it)."""
    out = {}
    for column in (c for c, r in ws["roles"].items() if r == "quasi"):
        choice = ws["hierarchies"].get(column) or {"mode": "builder",
                                                   "spec": suggest_spec(ws["frame"][column].tolist())}
        h, _ = hierarchy_of(ws, column, choice)
        if h is not None:
            out[column] = h
    return out


def column_problems(ws: dict[str, Any], column: str) -> list[str]:
    """What keeps one quasi-identifier's hierarchy from being used (empty when it is valid and covers the data)."""
    h, error = hierarchy_of(ws, column)
    if h is None:
        return [error or f"{column!r} has no hierarchy"]
    return list(cached.validation(h, ws["frame"][column], f"{ws['sha']}:{column}").errors)


def problems(ws: dict[str, Any]) -> list[str]:
    """What keeps the session's data from being anonymized (empty when it is ready)."""
    quasi = [c for c, r in ws["roles"].items() if r == "quasi"]
    if not quasi:
        return ["no column is marked quasi: choose the quasi-identifiers in the role table"]
    out = [p for column in quasi for p in column_problems(ws, column)]
    targets = [c for c, r in ws["roles"].items() if r == "target"]
    if len(targets) > 1:
        out.append(f"{len(targets)} columns are marked target ({', '.join(targets)}); mark at most one")
    return out


def attributes_config(ws: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The config ``[attributes]`` of the session's data: roles, builders or ARX files, posets."""
    out: dict[str, dict[str, Any]] = {}
    files = hierarchy_paths(c for c, r in ws["roles"].items() if r == "quasi")  # safe names, as the bundle's
    for column, role in ws["roles"].items():
        if role == "insensitive":
            continue
        spec: dict[str, Any] = {"role": role}
        choice = ws["hierarchies"].get(column) if role == "quasi" else None
        if choice is not None:
            spec |= {"builder": choice["spec"]} if choice["mode"] == "builder" else {
                "hierarchy": files[column]}
        poset = ws["posets"].get(column, "tree")
        if role == "quasi" and poset != "tree":
            spec["poset"] = poset
        out[column] = spec
    quasi_first = sorted(out, key=lambda c: out[c]["role"] != "quasi")  # quasi-identifier order = table order
    return {c: out[c] for c in quasi_first}


def session_source() -> Source | None:
    """The session's own dataset as a Source, once it is ready (roles set, every quasi-identifier with a
    valid hierarchy covering its values); None before."""
    ws = workspace()
    if ws is None or problems(ws):
        return None
    quasi = [c for c, r in ws["roles"].items() if r == "quasi"]
    hierarchies = {c: hierarchy_of(ws, c)[0] for c in quasi}
    attributes = attributes_config(ws)
    digest = hashlib.sha256(json.dumps([ws["sha"], ws["roles"], attributes, ws["posets"],
                                        {c: h.to_arx() for c, h in hierarchies.items()}],
                                       sort_keys=True).encode()).hexdigest()
    if digest not in S.DATASETS.get_or({}):
        roles = {c: ws["roles"][c] for c in attributes}
        try:
            dataset = Dataset.create(ws["frame"], roles, hierarchies, source=ws["name"], input_sha256=ws["sha"],
                                     uploaded=True)  # the provenance names the upload by its bytes, never a path
        except WorkbenchError as exc:
            S.PROBLEM.set(str(exc).splitlines()[0])
            return None
        register_dataset(digest, dataset)
    target = next((c for c, r in ws["roles"].items() if r == "target"), None)
    return Source(label=f"your data: {ws['name']} ({len(ws['frame']):,} rows)", dataset_key=digest,
                  data_path=ws["name"], attributes=attributes, target=target, quasi_identifiers=tuple(quasi))


def dependency_warnings(source: Source) -> None:
    """Warn about every released column that determines a quasi-identifier or its generalization."""
    outcome = cached.dependency_warnings(source.config_json(k=2, compare=[]), dataset_key=source.dataset_key)
    for w in outcome.get("warnings", []):
        st.warning(md(w))


def select_when_ready(was_ready: bool) -> None:
    """When the session's data has just become ready (the Dataset box above was drawn without it), select it
    and draw the page again."""
    if not was_ready and session_source() is not None:
        S.PENDING_DATASET.set("uploaded")
        st.rerun()


ROLE_LISTS = {"quasi": "Quasi-identifiers, in the order of the transformation (each needs a hierarchy)",
              "identifying": "Identifying (dropped from every release)", "sensitive": "Sensitive (released as is)"}


def set_role_widgets(ws: dict[str, Any]) -> None:
    """Make the role widgets show ``ws["roles"]`` (after an upload or a loaded config)."""
    for role in ROLE_LISTS:
        S.role_widget(role, ws["sha"]).set([c for c, r in ws["roles"].items() if r == role])
    S.role_widget("target", ws["sha"]).set(next((c for c, r in ws["roles"].items() if r == "target"), "(none)"))


def _roles(ws: dict[str, Any]) -> dict[str, str] | None:
    """Each column's role from one list per role; a column in two lists is an error. Unlisted: insensitive."""
    columns = list(ws["frame"].columns)
    if not S.role_widget("quasi", ws["sha"]).present():
        set_role_widgets(ws)
    chosen = {role: st.multiselect(text, columns, key=S.role_widget(role, ws["sha"]).key)
              for role, text in ROLE_LISTS.items()}
    target = st.selectbox("Target (for mutual information and model degradation; optional)", ["(none)", *columns],
                          key=S.role_widget("target", ws["sha"]).key)
    chosen["target"] = [] if target == "(none)" else [target]
    roles: dict[str, str] = {}
    for role, picked in chosen.items():
        for column in picked:
            if column in roles:
                st.error(md(f"column {column!r} is both {roles[column]} and {role}: give it one role"))
                return None
            roles[column] = role
    return roles | {c: "insensitive" for c in columns if c not in roles}


def take_upload() -> str | None:
    """Make the table in the upload widget the session's workspace (a new table starts a new workspace); called
    before the Dataset box is drawn, so the box names the table just uploaded. Returns the upload's error, if any.
    The table is named by the base name of the name the browser sent (``data.upload_name``) and identified by the
    SHA-256 of its bytes: nothing the client sent ever becomes a path on the server."""
    upload = S.UPLOAD.get()
    if upload is None or not hasattr(upload, "getvalue"):
        return None
    if oversized(upload, MAX_MB):
        return oversized(upload, MAX_MB)
    try:
        name = upload_name(upload.name)  # the client's name, without any folder: a label, never a path
    except WorkbenchError as exc:
        return str(exc)
    content = upload.getvalue()
    sha = hashlib.sha256(content).hexdigest()
    frame = _read(content, name, sha)
    if isinstance(frame, str):
        return frame
    ws = workspace()
    if ws is None or ws["sha"] != sha:
        _start(frame, name, sha)
        S.PENDING_DATASET.set("uploaded")  # the analyst works on the table just uploaded
    return None


def not_ready_message(ws: dict[str, Any]) -> str:
    """Why the session's uploaded table cannot be anonymized yet, and what to do."""
    todo = problems(ws) or [S.PROBLEM.get_or("the table cannot be used")]
    return (f"Your uploaded table {ws['name']} is chosen in the Dataset box but is not ready yet: "
            + "; ".join(todo[:4]) + (f"; and {len(todo) - 4} more" if len(todo) > 4 else "")
            + ". Mark the quasi-identifiers on the Data page and give each a hierarchy on the Hierarchies page, "
              "or choose an embedded sample in the Dataset box.")


def section(load_config: Callable[[dict[str, Any] | None], None]) -> None:
    """The Data page for the session's own data: upload, roles, profile and warnings, and ``load_config``
    (``config_load.load_config``, which reads this module's workspace and role widgets) for loading a config."""
    st.subheader("Your own data")
    st.file_uploader(f"Upload a table (CSV, TSV, TXT, Excel or Parquet; up to {MAX_MB} MB). It stays "
                     "in this browser session; nothing is written to disk unless you export.",
                     type=["csv", "tsv", "txt", "xlsx", "parquet"], key=S.UPLOAD.key, max_upload_size=MAX_MB)
    error = take_upload()
    if error is not None:
        st.error(md(error))
        return
    ws = workspace()
    if ws is None:
        load_config(None)
        return
    frame = ws["frame"]
    st.caption(f"{md(ws['name'])}: {len(frame):,} rows, {len(frame.columns)} columns (held in this session only)")
    if S.RESTORED.get() == ws["name"]:
        st.info(f"{md(ws['name'])} was uploaded before in this session: its roles, hierarchies and posets are as you "
                "left them.")
    for note in (encoding_note(frame, ws["name"]), row_names_note(frame, ws["name"])):
        if note:
            st.info(md(note))
    load_config(ws)
    if S.RESTORED.get() != ws["name"]:
        st.caption("Roles suggested for a new table: a column with a different value in every record is "
                   "identifying; columns named like common quasi-identifiers (age, sex, gender, date of birth, ZIP "
                   "or postal code, ethnicity, race) are quasi-identifiers. Check and change them here.")
    roles = _roles(ws)
    if roles is None:
        return
    ws["roles"] = roles
    accept_suggested(ws, [c for c, r in roles.items() if r == "quasi"], key="data_accept_all")
    k = st.number_input("k for the warnings", min_value=1, value=5, step=1, key="upload_k")
    table, warnings = profile(frame, ws["roles"], int(k), profile_hierarchies(ws))
    format.show(table, width="content")
    st.caption("Missing values: empty cells, (missing), and text such as NA that a quasi-identifier's hierarchy (until "
               "you choose one, its suggested hierarchy) places in the group (missing); they are one value, released "
               "as (missing).")
    for w in warnings:
        st.warning(md(w))
    own = session_source()
    if own is not None:  # every quasi-identifier has its hierarchy: released columns that give one back
        dependency_warnings(own)
    format.show(frame.head(20))
    select_when_ready(S.OWN_READY.get_or(False))
    todo = problems(ws)
    if todo:
        st.info("Before this table can be anonymized: " + "; ".join(map(md, todo[:4]))
                + (f"; and {len(todo) - 4} more" if len(todo) > 4 else "")
                + ". Give each quasi-identifier a hierarchy on the Hierarchies page.")
    elif session_source() is not None:
        st.success("Ready: \"your data\" is chosen in the Dataset box above; the other pages work on it.")
    else:
        st.error(md(S.PROBLEM.get_or("the table cannot be used")))
