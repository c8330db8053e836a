"""The Data page: the chosen embedded sample (its attributes, size and first rows) and the upload of your own
table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.hierarchy.missing import count_missing
from workbench.samples import load_sample
from workbench.ui import cached, config_load, format, upload
from workbench.ui.source import Source


@st.cache_data(show_spinner=False)
def _sample_summary(name: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    sample = load_sample(name)
    rows = []
    for column in sample.frame.columns:
        h = sample.hierarchies.get(column)
        rows.append({
            "attribute": column,
            "role": sample.roles.get(column, "insensitive"),
            "distinct values": int(sample.frame[column].nunique()),
            "missing values": count_missing(sample.frame[column], h),
            "hierarchy height": h.height if h is not None else None,
        })
    return sample.frame.head(20), pd.DataFrame(rows), sample.description



def page(source: Source, name: str) -> None:
    """Draw the page for the dataset ``name`` (an embedded sample) or, for your own table, the upload section."""
    if source.sample is None:
        upload.section(config_load.load_config)
        return
    preview, attributes, description = _sample_summary(name)
    st.write(description)
    quasi = attributes[attributes["role"] == "quasi"]
    nodes = cached.lattice_size(source)  # policy.lattice_size, as the Anonymize page shows it
    cols = st.columns(3)
    cols[0].metric("records", f"{len(load_sample(name).frame):,}")
    cols[1].metric("quasi-identifiers", len(quasi))
    cols[2].metric("lattice nodes", f"{nodes:,}")
    st.subheader("Attributes")
    format.show(attributes, width="content")
    if attributes["hierarchy height"].isna().any():
        st.caption(f"hierarchy height {format.NOT_APPLICABLE}: an attribute with no hierarchy (not a "
                   "quasi-identifier).")
    upload.dependency_warnings(source)
    st.subheader("First rows")
    format.show(preview)
    st.info("From a shell: `workbench run sample_configs/registry.toml` finds the optimal k-anonymous "
            "generalization of this registry.")
    upload.section(config_load.load_config)
