"""Saved projects on the Data page (docs/register.md#saved-projects): the session's study saved in the register under
a name, for its owner, and reopened in a later session.

A project holds the data's name and SHA-256 (or the embedded sample's name), each column's role, each
quasi-identifier's hierarchy (a builder's spec, or an imported ARX file's text) and poset, and the Anonymize page's
settings (engine, algorithm, objective, k, suppression limit, time limit and the privacy models' pickers). Its owner
is the signed-in analyst (``identity.current_user``); a session without one keeps its projects under a project key
the analyst types (``identity.key_owner``). The table's bytes are stored too only when the analyst asks for it and
the server config allows it (``[register] store_data``); otherwise reopening asks for the data file and checks its
SHA-256."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

import measures as M
from workbench.catalog import posets_from_values
from workbench.config import LOCAL_ALGORITHMS, LOCAL_OBJECTIVES
from workbench.config.bundle import BUNDLE_MAX_TOTAL_BYTES
from workbench.errors import WorkbenchError
from workbench.lattice.search import ALGORITHMS
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.readers import read_table_bytes
from workbench.register.store import Register, open_register, server_settings
from workbench.samples import SAMPLES, load_sample
from workbench.ui import state, upload
from workbench.ui import state_upload as S
from workbench.ui.format import md
from workbench.ui.identity import ANONYMOUS, MIN_KEY_CHARS, current_user, key_owner
from workbench.ui.main import UPLOADED
from workbench.ui.source import Source

FORMAT = 1  # the version of a saved study's layout
MAX_STUDY_BYTES = BUNDLE_MAX_TOTAL_BYTES  # a saved study (roles, hierarchies, settings) as JSON: a bundle's bound
MAX_DATA_BYTES = upload.MAX_MB * 2**20  # a table stored with a project: the Data page's upload limit

# the Anonymize page's settings a project keeps: each widget's key and what it may hold (the privacy models' widgets
# read from their registry entries, so a model registered later is kept too)
FIXED_CHOICES: dict[str, tuple[Any, ...]] = {
    state.AN_ENGINE.key: ("lattice", "local"), state.AN_ALG.key: tuple(ALGORITHMS),
    state.AN_OBJ.key: tuple(M.LATTICE_MEASURES), state.AN_LOCAL_ALG.key: tuple(LOCAL_ALGORITHMS),
    state.AN_LOCAL_OBJ.key: tuple(LOCAL_OBJECTIVES)}
FIXED_SETTINGS = (state.AN_ENGINE.key, state.AN_ALG.key, state.AN_OBJ.key, state.AN_LOCAL_ALG.key,
                  state.AN_LOCAL_OBJ.key, state.K.key, state.SUPPRESSION.key, state.OVERRIDE.key, state.AN_TIME.key)


def settings_keys() -> tuple[str, ...]:
    """Every widget key a project keeps: the Anonymize page's own settings and every privacy model's form."""
    return (*FIXED_SETTINGS, *state.model_picker_keys())


def _model_widgets() -> tuple[dict[str, tuple[Any, ...] | None], set[str], set[str]]:
    """The privacy models' widgets by kind: choice fields (their choices; None when they depend on the data),
    attribute fields, and the models' switches."""
    choices: dict[str, tuple[Any, ...] | None] = {}
    attributes: set[str] = set()
    switches: set[str] = set()
    for model in PRIVACY_MODELS.values():
        switches.add(state.model_key(model))
        for field in model.form.fields:
            key = state.field_key(model, field)
            if field.widget == "choice":
                choices[key] = tuple(field.choices) if field.choices and field.choices_of is None else None
            elif field.widget == "attribute":
                attributes.add(key)
    return choices, attributes, switches


# ----------------------------------------------------------------------------------------------- the study, pure
def study_of(dataset: str, ws: Mapping[str, Any] | None, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The study a project saves: the dataset (an embedded sample's name, or ``uploaded`` with the table's name and
    SHA-256), for the session's own table its roles, hierarchy choices and posets, and the Anonymize page's
    ``settings`` (widget key -> value; only ``settings_keys()``)."""
    study: dict[str, Any] = {"format": FORMAT, "dataset": dataset,
                             "settings": {k: settings[k] for k in settings_keys() if k in settings}}
    if dataset == UPLOADED:
        assert ws is not None
        study |= {"data_name": ws["name"], "data_sha256": ws["sha"], "roles": dict(ws["roles"]),
                  "hierarchies": dict(ws["hierarchies"]), "posets": dict(ws["posets"]),
                  "poset_parameters": dict(ws.get("poset_parameters", {}))}
    return study


def encoded(study: Mapping[str, Any]) -> bytes:
    """The study as the register stores it (JSON), refused with one line when it cannot be stored or exceeds
    ``MAX_STUDY_BYTES``."""
    try:
        text = json.dumps(study, sort_keys=True, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise WorkbenchError(f"the project cannot be saved: {exc}") from None
    if len(text) > MAX_STUDY_BYTES:
        raise WorkbenchError(f"the project's roles, hierarchies and settings take {len(text) / 2**20:,.1f} MB, more "
                             f"than {MAX_STUDY_BYTES // 2**20} MB")
    return text


def restorable(settings: Mapping[str, Any], sensitive: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The saved ``settings`` a widget can take back (a choice still offered, a number for a number, a switch for a
    switch, attributes among the ``sensitive`` ones: a list, or one name as a project saved when a model took one,
    restored as a list of it), and the names of those it cannot (left at their default)."""
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    keys = set(settings_keys())
    model_choices, attributes, switches = _model_widgets()
    choices = FIXED_CHOICES | model_choices
    for key, value in settings.items():
        if key not in keys:
            ok = False
        elif key in choices:
            offered = choices[key]
            ok = value in offered if offered is not None else isinstance(value, str)
        elif key in attributes:
            names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            ok = bool(names) and all(isinstance(name, str) and name in sensitive for name in names)
            value = list(dict.fromkeys(names))
        elif key in switches or key == state.OVERRIDE.key:
            ok = isinstance(value, bool)
        elif key == state.K.key:
            ok = type(value) is int and 1 <= value <= state.MAX_WIDGET_INT
        elif key == state.SUPPRESSION.key:
            ok = type(value) in (int, float) and 0 <= value <= 100
        else:  # a number input
            ok = type(value) in (int, float) and math.isfinite(value) and value >= 0
        (kept.__setitem__(key, value) if ok else dropped.append(key))
    return kept, dropped


def workspace_settings(study: Mapping[str, Any], columns: list[str]) -> dict[str, Any]:
    """The roles, hierarchies and posets of a saved study for a table with these ``columns`` (the same bytes, so the
    same columns; a column it does not name is insensitive)."""
    roles = {c: r for c, r in (study.get("roles") or {}).items() if c in columns}
    offered = posets_from_values()
    return {"roles": roles | {c: "insensitive" for c in columns if c not in roles},
            "hierarchies": {c: h for c, h in (study.get("hierarchies") or {}).items() if c in columns},
            "posets": {c: p for c, p in (study.get("posets") or {}).items() if c in columns and p in offered},
            "poset_parameters": {c: dict(v) for c, v in (study.get("poset_parameters") or {}).items() if c in columns}}


def mismatch(name: str, sha: str, project: Mapping[str, Any]) -> str:
    """The one line said when the table uploaded to reopen a project is not the project's."""
    return (f"{name} is not the data of the saved project {project['name']!r}: its SHA-256 is {sha[:12]}…, the "
            f"project's ({project['data_name']}) is {project['data_sha256'][:12]}…; upload that file")


# ----------------------------------------------------------------------------------------------- the page
def _owner(reg: Register) -> str | None:
    """Who owns the projects this session lists and saves: the signed-in analyst, else the project key typed here
    (None until one is typed)."""
    user = current_user()
    if user != ANONYMOUS:
        st.caption(f"Your projects, as {md(user)}: only you see them.")
        return user
    key = st.text_input("Project key", type="password", key=S.PROJECT_KEY,
                        help=f"at least {MIN_KEY_CHARS} characters; type the same key in a later session to reopen "
                             "the projects saved under it")
    st.caption("This session has no signed-in user (no `st.login`, no authenticating proxy), so projects are kept "
               "under a key you choose: a later session that types the same key lists them, and no other does.")
    if len(key) < MIN_KEY_CHARS:
        if key:
            st.info(f"The project key needs at least {MIN_KEY_CHARS} characters.")
        return None
    return key_owner(key, reg.key_salt())


def _settings() -> dict[str, Any]:
    return state.values(settings_keys())


def hold_data_bytes() -> None:
    """Where the server stores data with projects: keep the bytes of the session's table (the upload box forgets its
    file once the analyst leaves the Data page), only those of the current table."""
    ws = upload.workspace()
    held = S.PROJECT_BYTES.get()
    if ws is None or (held is not None and held[0] == ws["sha"]) or server_settings().get("store_data") is not True:
        return
    file = S.UPLOAD.get()
    if file is not None and hasattr(file, "getvalue"):
        content = file.getvalue()
        if hashlib.sha256(content).hexdigest() == ws["sha"]:
            S.PROJECT_BYTES.set((ws["sha"], content))


def _data_bytes(ws: Mapping[str, Any]) -> bytes | None:
    """The bytes of the session's table (``hold_data_bytes``), when they are the workspace's (the same SHA-256)."""
    held = S.PROJECT_BYTES.get()
    return held[1] if held is not None and held[0] == ws["sha"] else None


def _save(reg: Register, owner: str, dataset: str) -> None:
    ws = upload.workspace()
    own = dataset == UPLOADED
    allowed = server_settings().get("store_data") is True
    name = st.text_input("Project name", key=S.PROJECT_NAME, max_chars=256)
    store = st.checkbox("Store the data too", key=S.PROJECT_STORE_DATA, disabled=not (own and allowed),
                        help="keep the table's bytes in the register, so that reopening needs no file"
                             if allowed else "this server does not store data with projects ([register] store_data)")
    if not st.button("Save the project", key="pj_save"):
        return
    if own and ws is None:
        st.error("Upload your table first.")
        return
    data = None
    try:
        study = study_of(dataset, ws, _settings())
        encoded(study)
        if own and store and allowed:
            data = _data_bytes(ws)
            if data is None:
                raise WorkbenchError(f"the bytes of {ws['name']} are no longer held in this session: upload it again "
                                     "to store it with the project")
            if len(data) > MAX_DATA_BYTES:
                raise WorkbenchError(f"{ws['name']} is {len(data) / 2**20:,.1f} MB; a project stores at most "
                                     f"{upload.MAX_MB} MB")
        data_name = ws["name"] if own else f"sample:{dataset}"
        saved = reg.save_project(owner, name, data_name, ws["sha"] if own else None, study, data=data)
    except WorkbenchError as exc:
        st.error(md(str(exc).splitlines()[0]))
        return
    st.success(f"Saved as project {md(name.strip())} (number {saved})"
               + (", with the data." if data is not None else "."))


def _apply(project: Mapping[str, Any], ws: dict[str, Any] | None) -> list[str]:
    """Make the session the project's: its table's roles, hierarchies and posets (``ws``, the table with the project's
    SHA-256) and the Anonymize page's settings; returns what could not be restored."""
    study = project["study"]
    if ws is not None:
        ws.update(workspace_settings(study, list(ws["frame"].columns)))
        upload.set_role_widgets(ws)
        sensitive = [c for c, r in ws["roles"].items() if r == "sensitive"]
        S.PENDING_DATASET.set(UPLOADED)
    else:
        sample = load_sample(study["dataset"])
        sensitive = [c for c, r in sample.roles.items() if r == "sensitive"]
        S.PENDING_DATASET.set(study["dataset"])
    kept, dropped = restorable(study.get("settings") or {}, sensitive)
    state.apply(lambda values: values.update(kept))
    return dropped


def _reopened(project: Mapping[str, Any], dropped: list[str]) -> None:
    S.PROJECT_NOTE.set(f"Reopened project {project['name']!r}: its roles, hierarchies and settings are applied"
                       + (f" (not {', '.join(dropped)}: no longer offered)" if dropped else "") + ".")
    st.rerun()


def _reopen(reg: Register, owner: str, project_id: int) -> None:
    """Reopen a project: a sample's at once; the session's own table from the bytes stored with it, or once the
    analyst uploads the file with its SHA-256."""
    try:
        project = reg.project(project_id, owner)
    except WorkbenchError as exc:
        st.error(md(str(exc)))
        return
    S.PROJECT_PENDING.pop()  # a project reopened before and still waiting for its file: this one instead
    study = project["study"]
    if study.get("format") != FORMAT:
        st.error(md(f"project {project['name']!r} was saved by another version of the workbench (layout "
                    f"{study.get('format')!r}, this one reads {FORMAT})"))
        return
    if study.get("dataset") != UPLOADED:
        if study.get("dataset") not in SAMPLES:
            st.error(md(f"project {project['name']!r} is of {study.get('dataset')!r}, not an embedded sample here"))
            return
        _reopened(project, _apply(project, None))
    ws = upload.workspace()
    if ws is not None and ws["sha"] == project["data_sha256"]:  # the table is already here
        _reopened(project, _apply(project, ws))
    if project["data"] is None:
        S.PROJECT_PENDING.set({k: project[k] for k in ("id", "name", "data_name", "data_sha256")}
                              | {"before": ws["sha"] if ws is not None else None})
        st.rerun()  # the section asks for the file (``_waiting``)
    content = bytes(project["data"])
    file = S.UPLOAD.get()
    if file is not None and hasattr(file, "getvalue"):
        st.error(md(f"The upload box holds {file.name}: remove it (its ×) to reopen {project['name']!r} with the "
                    "data stored in the register"))
        return
    try:
        if hashlib.sha256(content).hexdigest() != project["data_sha256"]:
            raise WorkbenchError(f"the data stored with project {project['name']!r} does not match its SHA-256")
        frame = read_table_bytes(content, project["data_name"])
    except WorkbenchError as exc:
        st.error(md(str(exc).splitlines()[0]))
        return
    S.PROJECT_BYTES.set((project["data_sha256"], content))
    _reopened(project, _apply(project, upload.start_workspace(frame, project["data_name"], project["data_sha256"])))


def _waiting(reg: Register, owner: str) -> None:
    """A project reopened without its data: applied once the table uploaded has its SHA-256; another table is
    named in one line."""
    pending = S.PROJECT_PENDING.get()
    if pending is None:
        return
    ws = upload.workspace()
    if ws is not None and ws["sha"] == pending["data_sha256"]:
        S.PROJECT_PENDING.pop()
        try:
            project = reg.project(pending["id"], owner)
        except WorkbenchError as exc:
            st.error(md(str(exc)))
            return
        _reopened(project, _apply(project, ws))
    if ws is not None and ws["sha"] != pending["before"]:  # uploaded since the reopen, and not the project's
        st.error(md(mismatch(ws["name"], ws["sha"], pending)))
    st.info(md(f"To reopen {pending['name']!r}, upload {pending['data_name']} (SHA-256 "
               f"{pending['data_sha256'][:12]}…) under \"Your own data\" below: its roles, hierarchies and settings "
               "are applied once the file matches."))


def projects_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The analyst's projects as the page lists them, newest first."""
    return pd.DataFrame([{"number": r["id"], "name": r["name"], "data": r["data_name"], "saved": r["created"],
                          "data stored": "yes" if r["has_data"] else "no"} for r in rows])


def section(source: Source, dataset: str) -> None:
    """The Data page's saved projects: save the session's study under a name, list the analyst's projects and reopen
    one."""
    note = S.PROJECT_NOTE.pop()
    if note:
        st.success(md(note))
    pending = S.PROJECT_PENDING.get()
    with st.expander("Saved projects: save this study, or reopen one", expanded=pending is not None):
        try:
            reg = open_register()
        except WorkbenchError as exc:
            st.error(md(str(exc)))
            return
        try:
            hold_data_bytes()
        except WorkbenchError as exc:  # the server config cannot be read
            st.error(md(str(exc)))
            return
        owner = _owner(reg)
        if owner is None:
            return
        _waiting(reg, owner)
        try:
            rows = reg.projects(owner)
        except WorkbenchError as exc:
            st.error(md(str(exc)))
            return
        if rows:
            st.dataframe(projects_table(rows), hide_index=True)
            ids = [r["id"] for r in rows]
            names = {r["id"]: f"{r['name']} ({r['data_name']}, {r['created']})" for r in rows}
            state.keep_valid(S.PROJECT_CHOICE, ids)
            chosen = st.selectbox("Project", ids, format_func=names.get, key=S.PROJECT_CHOICE)
            if st.button("Reopen", key="pj_reopen"):
                _reopen(reg, owner, int(chosen))
        else:
            st.caption("No saved project yet.")
        st.markdown(f"**Save the study on {md(source.label or dataset)}**: the data's name and SHA-256, the roles, "
                    "hierarchies and posets, and the Anonymize page's settings.")
        _save(reg, owner, dataset)
