"""Loading a config on the Data page (a TOML file, or the bundle the Export page writes): roles, hierarchies and
posets for the uploaded table, and the privacy and engine settings for the Anonymize page. A config whose settings
the widgets cannot hold exactly is refused, never applied approximately."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

import measures as M
from workbench.config import LOCAL_OBJECTIVES, Study
from workbench.config.bundle import read_config_bytes
from workbench.errors import WorkbenchError
from workbench.policy import suppression_share
from workbench.readers import base_name, upload_name
from workbench.ui import state, upload
from workbench.ui import state_upload as S
from workbench.ui.format import md

SUPPRESSION_STEP = suppression_share(state.SUPPRESSION_STEP_PERCENT)  # the suppression slider's step, as a share


def unrepresentable_settings(study: Study) -> list[str]:
    """Privacy settings of a loaded config that the Anonymize page's widgets cannot hold exactly (they would
    clamp or round them): such a config is refused, never applied approximately."""
    out = []
    if not 1 <= study.k <= state.MAX_WIDGET_INT:
        out.append(f"privacy.k = {study.k} cannot be set in the app (1 to {state.MAX_WIDGET_INT:,}); nothing was "
                   "loaded")
    steps = study.max_suppression / SUPPRESSION_STEP
    if study.engine == "lattice" and abs(steps - round(steps)) > 1e-9:
        out.append(f"privacy.max_suppression = {study.max_suppression} is not a multiple of {SUPPRESSION_STEP}, the "
                   "suppression slider's step; nothing was loaded (run it with `workbench run`, or give a multiple)")
    return out


def unapplied_settings(study: Study) -> list[str]:
    """Keys of a loaded config that the app does not apply (it would otherwise drop them without a word)."""
    raw = study.raw
    keys = [f"data.{key}" for key in ("rows", "separator") if key in raw.get("data", {})]
    keys += [f"engine.{key}" for key in ("time_limit", "seed", "backend", "scheduler", "jobs", "sweep_backend")
             if key in raw.get("engine", {})]
    keys += [f"release.{key}" for key in ("seed", "format", "suppressed", "escape_formulas")
             if key in raw.get("release", {})]
    return keys


def load_config(ws: dict[str, Any] | None) -> None:
    """Load a config (TOML, or the bundle the Export page writes): roles, hierarchies and posets for the
    uploaded table, and the privacy and engine settings for the Anonymize page."""
    loaded = st.file_uploader("Load a config (TOML, or the .zip bundle from the Export page)", type=["toml", "zip"],
                              key="config_upload", max_upload_size=upload.MAX_CONFIG_MB)
    if loaded is None:
        return
    if upload.oversized(loaded, upload.MAX_CONFIG_MB):
        st.error(md(upload.oversized(loaded, upload.MAX_CONFIG_MB)))
        return
    try:  # the client's name without any folder: it names the config in messages, never a path
        study, files = read_config_bytes(loaded.getvalue(), upload_name(loaded.name))
    except WorkbenchError as exc:
        st.error(md(str(exc).splitlines()[0]))
        return
    loaded_name = study.source
    marker = hashlib.sha256(loaded.getvalue()).hexdigest()
    if S.CONFIG_LOADED.get() == marker:
        st.caption(f"{md(loaded_name)} is loaded.")
        for note in S.CONFIG_NOTES.get_or([]):  # kept across the reruns a load triggers
            st.warning(note)
        return
    local = study.engine == "local"
    refused = unrepresentable_settings(study)
    if refused:  # nothing of the config is applied: a widget would clamp or round a privacy parameter
        for problem in refused:
            st.error(f"{md(loaded_name)}: {problem}")
        return
    offered = LOCAL_OBJECTIVES if local else M.LATTICE_MEASURES  # the Anonymize page's objective choices
    state.AN_ENGINE.set(study.engine)  # the Anonymize page's settings
    (state.AN_LOCAL_ALG if local else state.AN_ALG).set(study.algorithm)
    state.set_privacy(study.k, study.max_suppression if not local else state.privacy().max_suppression)
    notes = []
    ignored = unapplied_settings(study)
    if ignored:
        notes.append(f"{md(loaded_name)}: {', '.join(ignored)} not applied in the app (it uses every row of the data, "
                     "runs on this server's own workers, and the Export page sets the release options); "
                     "`workbench run` runs the config as written.")
    if study.objective in offered:
        (state.AN_LOCAL_OBJ if local else state.AN_OBJ).set(study.objective)
    else:
        notes.append(f"{md(loaded_name)}: objective {md(repr(study.objective))} is not offered on the Anonymize "
                     f"page (it has no fast path there); choose one of {', '.join(offered)}, or run the config with "
                     "`workbench run`.")
    S.CONFIG_NOTES.set(notes)
    for note in notes:
        st.warning(note)
    if study.sample is not None:
        S.PENDING_DATASET.set(study.sample)  # the Dataset box is already drawn in this run
        S.CONFIG_LOADED.set(marker)
        st.rerun()
    wanted = base_name(str(study.raw["data"]["path"])) if study.data_path is not None else ""
    if ws is None or wanted != ws["name"]:  # the config's data file by its base name; nothing is opened
        wanted = wanted or "the data"
        st.warning(md(f"{loaded_name} is for {wanted}: upload that file first, then load the config again."))
        return
    missing = [c for c in (a.name for a in study.attributes) if c not in ws["roles"]]
    if missing:
        st.error(md(f"{loaded_name}: {', '.join(map(repr, missing))} not a column of {ws['name']}"))
        return
    # the config's attribute order is the quasi-identifier order; columns it does not list are insensitive
    listed = {a.name: a.role or ws["roles"][a.name] for a in study.attributes}
    if study.target is not None and study.target in ws["roles"]:
        listed.setdefault(study.target, "target")
    ws["roles"] = listed | {c: "insensitive" for c in ws["frame"].columns if c not in listed}
    for spec in study.attributes:
        if spec.builder is not None:
            ws["hierarchies"][spec.name] = {"mode": "builder", "spec": dict(spec.builder)}
        elif spec.hierarchy is not None:
            rel = spec.hierarchy.as_posix().removeprefix("./")
            if rel not in files:
                st.warning(md(f"{loaded_name}: hierarchy file {rel} of {spec.name!r} is not in the upload; "
                              "import it on the Hierarchies page"))
                continue
            ws["hierarchies"][spec.name] = {"mode": "arx", "text": files[rel], "file": rel.split("/")[-1]}
        if spec.poset in upload.POSETS:
            ws["posets"][spec.name] = spec.poset
        elif spec.poset:
            notes.append(f"{md(loaded_name)}: poset {md(repr(spec.poset))} of {md(repr(spec.name))} needs a poset "
                         f"file, which the app does not take; {md(repr(spec.name))} uses the tree poset here "
                         "(`workbench run` runs the config as written).")
            st.warning(notes[-1])
    upload.set_role_widgets(ws)
    S.CONFIG_LOADED.set(marker)
    st.success(f"{md(loaded_name)} loaded: roles, hierarchies and settings applied.")
