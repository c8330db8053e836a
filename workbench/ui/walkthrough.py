"""Walkthrough page: the 10-record teaching table, step by step, for an ethics board (``workbench.walkthrough``
writes every sentence from the table's counts)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import measures as M
from workbench.ui import format
from workbench.walkthrough import MEASURE_EXPLANATIONS, SMALL, steps
from workbench.walkthrough.diversity import SHARED

RED, GREEN = "background-color: #f8d7da", "background-color: #d4edda"


def _highlight(row: pd.Series) -> list[str]:
    """Red: suppressed, in a class smaller than k, or in a class that shares one admission date (the ℓ-diversity
    steps); green: marked otherwise (unmarked: no classes yet)."""
    flags = (SMALL, "suppressed", SHARED)
    if any(bool(row.get(flag, False)) for flag in flags):
        return [RED] * len(row)
    if any(flag in row.index for flag in flags):
        return [GREEN] * len(row)
    return [""] * len(row)


def page() -> None:
    st.header("Walkthrough: what k-anonymity does, on ten patients")
    k = st.slider("k", 1, 10, 3, key="walk_k")
    st.caption("Green rows: in a class of at least k patients. Red rows: in a class smaller than k, or suppressed "
               "(released with * in every quasi-identifier); in steps 6 and 7, in a class whose patients all share "
               f"one admission date. A class size of {format.NOT_APPLICABLE}: a suppressed patient, in no class. Data: "
               "El Emam et al. 2009, Fig. 3.")
    for s in steps(k):
        st.subheader(s.title)
        st.markdown(s.text.replace("*", "\\*"))
        shown = format.table(s.table)  # booleans as yes/no; the colours read the table's own booleans
        st.dataframe(shown.style.apply(lambda row, table=s.table: _highlight(table.loc[row.name]), axis=1),
                     hide_index=True, column_config=format.column_config(shown), placeholder=format.NOT_APPLICABLE)
        if s.measures:
            cols = st.columns(len(s.measures))
            for col, (mid, value) in zip(cols, s.measures.items(), strict=True):
                col.metric(M.MEASURES[mid].name, f"{value:.4g}", help=MEASURE_EXPLANATIONS[mid])
