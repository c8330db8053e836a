"""The Streamlit workbench: the embedded sample's data page and the Anonymize page.

The remaining pages (hierarchies, lattice, compare, export, walkthrough) arrive with issue #6.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.samples import SAMPLES, load_sample
from workbench.ui import anonymize, compare_page, export, lattice, upload, walkthrough


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
            "missing values": int((sample.frame[column] == "").sum()),
            "hierarchy height": h.height if h is not None else None,
        })
    return sample.frame.head(20), pd.DataFrame(rows), sample.description


def main() -> None:
    st.set_page_config(page_title="k-anonymity workbench", layout="wide")
    st.title("k-anonymity workbench")
    st.caption("De-identify tabular health data and see what each de-identification costs.")
    names = list(SAMPLES)
    default = names.index("registry") if "registry" in names else 0
    name = st.selectbox("Embedded dataset", names, index=default, format_func=lambda n: f"{n}: {SAMPLES[n]}")
    page = st.sidebar.radio("Page", ["Data", "Anonymize", "Lattice", "Compare", "Export", "Walkthrough"])
    roles = load_sample(name).roles
    target = next((a for a, r in roles.items() if r == "target"), None)
    if page == "Anonymize":
        anonymize.page(name, target)
        return
    if page == "Lattice":
        lattice.page(name)
        return
    if page == "Compare":
        compare_page.page(name, target)
        return
    if page == "Export":
        export.page()
        return
    if page == "Walkthrough":
        walkthrough.page()
        return
    preview, attributes, description = _sample_summary(name)
    st.write(description)
    quasi = attributes[attributes["role"] == "quasi"]
    lattice_size = int(pd.Series(quasi["hierarchy height"]).add(1).prod()) if len(quasi) else 0
    cols = st.columns(3)
    cols[0].metric("records", f"{len(load_sample(name).frame):,}")
    cols[1].metric("quasi-identifiers", len(quasi))
    cols[2].metric("lattice nodes", f"{lattice_size:,}")
    st.subheader("Attributes")
    st.dataframe(attributes, hide_index=True)
    st.subheader("First rows")
    st.dataframe(preview, hide_index=True)
    st.info("From a shell: `workbench run sample_configs/registry.toml` finds the optimal k-anonymous "
            "generalization of this registry.")
    upload.section()
