"""Lattice page: the generalization lattice as a Hasse diagram, coloured by k-anonymity or any measure,
with the chosen search's trace overlaid; select a node to see its measures."""

from __future__ import annotations

import streamlit as st

import measures as M
from workbench.lattice.search import ALGORITHMS
from workbench.ui.cached import lattice_nodes
from workbench.ui.charts import hasse_chart
from workbench.ui.source import Source

LARGE = 5000


def page(source: Source) -> None:
    st.header("Lattice")
    left, mid, right = st.columns(3)
    algorithm = left.selectbox("Search", list(ALGORITHMS), index=list(ALGORITHMS).index("flash"), key="lat_alg")
    objective = mid.selectbox("Objective", list(M.LATTICE_MEASURES), index=list(M.LATTICE_MEASURES).index("entropy"),
                              key="lat_obj")
    k = right.number_input("k", min_value=1, max_value=1000, value=5, step=1, key="lat_k")
    max_suppression = left.slider("Suppression limit", 0.0, 0.2, 0.02, 0.01, key="lat_sup")
    color = mid.selectbox("Colour by", ["status", *M.LATTICE_MEASURES], key="lat_color")
    extra = {}
    if ALGORITHMS[algorithm].requires_monotone and not M.MEASURES[objective].monotone:
        extra["allow_non_monotone"] = True
        st.warning(f"{algorithm} assumes a monotone objective and {objective} is not: the result is not proven "
                   "optimal; exhaustive and bnb are optimal for any objective.")
    with st.spinner("Evaluating the lattice…"):
        data = lattice_nodes(source.config_json(k=int(k), max_suppression=float(max_suppression), algorithm=algorithm,
                                                      objective=objective, compare=[], **extra),
                             dataset_key=source.dataset_key)
    if "error" in data:
        st.error(data["error"])
        return
    nodes = data["nodes"]
    st.caption(f"{len(nodes):,} nodes; {algorithm} checked {data['checks']} of them (large points; the tooltip "
               f"gives the order); optimum: {data['optimum']}")
    shown = nodes
    if len(nodes) > LARGE:  # an unreadable picture otherwise: show a band of heights
        low, high = st.slider("Heights shown", 0, int(nodes["rank"].max()), (0, min(6, int(nodes["rank"].max()))))
        shown = nodes[nodes["rank"].between(low, high)]
    st.altair_chart(hasse_chart(shown, data["edges"] if len(shown) == len(nodes) else None, color),
                    width="stretch")
    label = st.selectbox("Node", list(nodes["node"]), index=int((nodes.status == "optimum").to_numpy().argmax())
                         if (nodes.status == "optimum").any() else 0, key="lat_node")
    row = nodes[nodes["node"] == label].iloc[0]
    st.dataframe(row.drop(labels=["x"]).to_frame("value").astype(str), width="stretch")
