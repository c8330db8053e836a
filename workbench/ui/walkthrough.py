"""Walkthrough page: the 10-record teaching table, step by step, for demonstrations."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import measures as M
from workbench.walkthrough import MEASURE_EXPLANATIONS, steps


def _highlight(row: pd.Series, k: int) -> list[str]:
    if row["suppressed"]:
        return ["background-color: #f8d7da"] * len(row)
    if row["class size"] >= k:
        return ["background-color: #d4edda"] * len(row)
    return [""] * len(row)


def page() -> None:
    st.header("Walkthrough: what k-anonymity does, on ten patients")
    k = st.slider("k", 2, 5, 3, key="walk_k")
    st.caption("Green rows: in a class of at least k patients. Red rows: in a class smaller than k, so they "
               "would be suppressed. Data: El Emam et al. 2009, Fig. 3.")
    for s in steps(k):
        st.subheader(s.title)
        st.write(s.text)
        st.dataframe(s.table.style.apply(_highlight, axis=1, k=k), hide_index=True)
        cols = st.columns(len(s.measures))
        for col, (mid, value) in zip(cols, s.measures.items(), strict=True):
            col.metric(M.MEASURES[mid].name, f"{value:.4g}", help=MEASURE_EXPLANATIONS[mid])
