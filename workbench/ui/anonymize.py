"""Anonymize page: engine, algorithm, k, suppression limit and objective; run; the result with its
guarantee and every measure (formula on hover)."""

from __future__ import annotations

import streamlit as st

import measures as M
from workbench.config import LOCAL_ALGORITHMS, LOCAL_OBJECTIVES
from workbench.lattice.search import ALGORITHMS
from workbench.ui.cached import run_config
from workbench.ui.source import Source


def page(source: Source) -> None:
    st.header("Anonymize")
    engine = st.radio("Engine", ["lattice", "local"], horizontal=True,
                      help="lattice: full-domain generalization + record suppression; "
                           "local: least-upper-bound recoding of each record (Katirai 2006)")
    left, right = st.columns(2)
    if engine == "lattice":
        algorithm = left.selectbox("Algorithm", list(ALGORITHMS), index=list(ALGORITHMS).index("flash"),
                                   format_func=lambda a: f"{a} ({'optimal' if ALGORITHMS[a].optimal else 'heuristic'})")
        objective = right.selectbox("Objective (minimized)", list(M.LATTICE_MEASURES),
                                    index=list(M.LATTICE_MEASURES).index("entropy"))
        max_suppression = left.slider("Suppression limit (share of records)", 0.0, 0.2, 0.02, 0.01)
    else:
        algorithm = left.selectbox("Algorithm", list(LOCAL_ALGORITHMS))
        objective = right.selectbox("Objective (minimized)", list(LOCAL_OBJECTIVES))
        max_suppression = 0.0
    k = right.number_input("k", min_value=1, max_value=1000, value=5, step=1)
    config_json = source.config_json(k=int(k), max_suppression=float(max_suppression), engine=engine,
                                     algorithm=algorithm, objective=objective)
    if not st.button("Run", type="primary"):
        return
    with st.spinner("Running…"):
        result = run_config(config_json, dataset_key=source.dataset_key)
    st.session_state["last_run"] = {"config": config_json, "dataset_key": source.dataset_key, "label": source.label}
    if "error" in result:
        st.error(result["error"])
        return
    summary = result["summary"]
    (st.success if result["holds"] else st.error)(f"Guarantee: {result['guarantee']}")
    cols = st.columns(4)
    cols[0].metric("suppressed records", summary["suppressed"])
    cols[1].metric("equivalence classes", summary["classes"])
    cols[2].metric("node checks", summary["checks"])
    cols[3].metric("seconds", f"{summary['seconds']:.3f}")
    if summary["transformation"]:
        st.subheader("Transformation (hierarchy level per quasi-identifier)")
        st.dataframe([summary["transformation"]], hide_index=True)
        st.caption("proven optimal" if result["proven_optimal"] else "not proven optimal "
                   + (f"({result['note']})" if result["note"] else ""))
    st.subheader("What it costs, under every measure")
    scores = result["scores"]
    for start in range(0, len(scores), 4):
        row = st.columns(4)
        for col, s in zip(row, scores[start:start + 4], strict=False):
            col.metric(s["name"], f"{s['value']:.6g}", help=f"{s['formula']} ({s['direction']})")
    st.subheader("Released rows (first 25; shuffled on export)")
    st.dataframe(result["preview"], hide_index=True)
