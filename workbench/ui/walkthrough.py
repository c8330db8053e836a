"""Walkthrough page: the 10-record teaching table, step by step, for an ethics board (``workbench.walkthrough``
writes every sentence from the table's counts)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import measures as M
from workbench.walkthrough import MEASURE_EXPLANATIONS, SMALL, steps

RED, GREEN = "background-color: #f8d7da", "background-color: #d4edda"


def _highlight(row: pd.Series) -> list[str]:
    """Red: suppressed, or in a class smaller than k; green: in a class of at least k (unmarked: no classes yet)."""
    if bool(row.get("suppressed", False)) or bool(row.get(SMALL, False)):
        return [RED] * len(row)
    if SMALL in row.index or "suppressed" in row.index:
        return [GREEN] * len(row)
    return [""] * len(row)


def page() -> None:
    st.header("Walkthrough: what k-anonymity does, on ten patients")
    k = st.slider("k", 1, 10, 3, key="walk_k")
    st.caption("Green rows: in a class of at least k patients. Red rows: in a class smaller than k, or suppressed "
               "(released with * in every quasi-identifier). Data: El Emam et al. 2009, Fig. 3.")
    for s in steps(k):
        st.subheader(s.title)
        st.markdown(s.text.replace("*", "\\*"))
        st.dataframe(s.table.style.apply(_highlight, axis=1), hide_index=True)
        if s.measures:
            cols = st.columns(len(s.measures))
            for col, (mid, value) in zip(cols, s.measures.items(), strict=True):
                col.metric(M.MEASURES[mid].name, f"{value:.4g}", help=MEASURE_EXPLANATIONS[mid])
