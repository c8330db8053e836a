"""Compare page: every candidate solution of both engines under every measure, the Pareto front of any two
measures and the rank agreement between measures."""

from __future__ import annotations

import streamlit as st

from workbench.ui.cached import compare_solutions
from workbench.ui.charts import pareto_chart, rank_heatmap
from workbench.ui.source import Source


def page(source: Source) -> None:
    st.header("Compare")
    left, right = st.columns(2)
    k = left.number_input("k", min_value=1, max_value=1000, value=5, step=1, key="cmp_k")
    candidates = right.selectbox("Lattice candidates", ["k_minimal", "top", "all"], key="cmp_cand")
    ids = source.measure_ids
    with st.spinner("Scoring every candidate…"):
        data = compare_solutions(source.config_json(k=int(k)), candidates, dataset_key=source.dataset_key)
    if "error" in data:
        st.error(data["error"])
        return
    table = data["table"]
    st.dataframe(table, hide_index=True, width="stretch")
    x = left.selectbox("x", ids, index=ids.index("loss") if "loss" in ids else 0, key="cmp_x")
    y = right.selectbox("y", ids, index=ids.index("nmi") if "nmi" in ids else 1, key="cmp_y")
    st.altair_chart(pareto_chart(table, x, y, data["pareto"]), width="stretch")
    st.subheader("Which solution each measure would choose")
    st.dataframe(data["optimal"], hide_index=True, width="stretch")
    st.subheader("Do the measures agree? (Kendall τ over the candidates)")
    st.altair_chart(rank_heatmap(data["tau"]), width="content")
