"""Data page, upload part: read a CSV/TSV/Excel/Parquet file held in the session only (nothing is written to
disk unless the user exports), choose each column's role, and see its profile and warnings."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.data import ROLES, profile, read_table_bytes
from workbench.errors import WorkbenchError
from workbench.ui.source import Source

MAX_MB = 200  # Streamlit's server.maxUploadSize default


@st.cache_data(show_spinner=False, max_entries=4)
def _read(content: bytes, name: str) -> pd.DataFrame | str:
    try:
        return read_table_bytes(content, name)
    except WorkbenchError as exc:
        return str(exc).splitlines()[0]


def section() -> None:
    st.subheader("Your own data")
    upload = st.file_uploader(f"Upload a table (CSV, TSV, TXT, Excel or Parquet; up to {MAX_MB} MB). It stays "
                              "in this browser session; nothing is written to disk unless you export.",
                              type=["csv", "tsv", "txt", "xlsx", "parquet"])
    if upload is None:
        return
    frame = _read(upload.getvalue(), upload.name)
    if isinstance(frame, str):
        st.error(frame)
        return
    st.caption(f"{upload.name}: {len(frame):,} rows, {len(frame.columns)} columns")
    roles_key = f"roles:{upload.name}:{len(frame)}"
    current = st.session_state.get(roles_key, {c: "insensitive" for c in frame.columns})
    editor = st.data_editor(
        pd.DataFrame({"column": list(frame.columns), "role": [current.get(c, "insensitive") for c in frame.columns]}),
        column_config={"role": st.column_config.SelectboxColumn("role", options=list(ROLES), required=True),
                       "column": st.column_config.TextColumn(disabled=True)},
        hide_index=True, key=f"editor:{roles_key}")
    roles = dict(zip(editor["column"], editor["role"], strict=True))
    st.session_state[roles_key] = roles
    k = st.number_input("k for the warnings", min_value=1, value=5, step=1, key="upload_k")
    table, warnings = profile(frame, roles, int(k))
    st.dataframe(table, hide_index=True)
    for w in warnings:
        st.warning(w)
    st.dataframe(frame.head(20), hide_index=True)
    st.info("Anonymizing your own data needs a hierarchy for each quasi-identifier (the Hierarchies page is "
            "still to come); meanwhile `workbench run` takes a config with ARX hierarchy files or builders.")


def session_source() -> Source | None:
    """The session's own dataset as a Source, once it is ready (roles set, every quasi-identifier with a
    valid hierarchy); None before."""
    return None
