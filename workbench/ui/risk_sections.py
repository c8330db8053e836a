"""Sections of the Risk page beyond the input's and the release's figures (``workbench/ui/risk.py``): risk against
utility over the candidate solutions. Every figure comes from the library through ``workbench/ui/risk_cached.py``."""

from __future__ import annotations

import json

import streamlit as st

from workbench.compare import RISK_COLUMNS
from workbench.ui import state
from workbench.ui.risk_cached import risk_utility_points
from workbench.ui.risk_utility import risk_utility_chart
from workbench.ui.source import Source


def solutions_config(source: Source, release_config: str | None, compare: list[str]) -> str:
    """The config whose solutions the page compares: the last run's (its k, suppression limit and privacy models)
    when there is one, else the session's k and suppression limit; scored under ``compare`` only."""
    if release_config is None:
        privacy = state.privacy()
        return source.config_json(k=privacy.k, max_suppression=privacy.max_suppression, compare=compare)
    raw = json.loads(release_config)
    raw["measures"]["compare"] = list(compare)
    raw["engine"]["kind"], raw["engine"]["algorithm"] = "lattice", "flash"  # the lattice candidates, whatever ran
    return json.dumps(raw, sort_keys=True)


def risk_utility_section(source: Source, release_config: str | None) -> None:
    """Every k-minimal lattice candidate (and the local releases) as a point of risk against information loss,
    with the Pareto front: the solutions no other beats on both."""
    st.subheader("Risk against utility")
    ids = source.measure_ids
    left, middle, right = st.columns(3)
    state.keep_valid("risk_ru_utility", ids)
    utility = left.selectbox("Utility (information loss)", ids, index=ids.index("loss") if "loss" in ids else 0,
                             key="risk_ru_utility")
    risk = middle.selectbox("Risk", list(RISK_COLUMNS), index=1, key="risk_ru_risk",
                            format_func=lambda c: c.removeprefix("risk_").replace("_", " "),
                            help="; ".join(f"{c.removeprefix('risk_').replace('_', ' ')}: {text}"
                                           for c, text in RISK_COLUMNS.items()))
    with_local = right.toggle("Local-engine releases", value=False, key="risk_ru_local",
                              help="Greedy and Partition for the same k; about 3 s on 20,000 records")
    config = solutions_config(source, release_config, [utility])
    with st.spinner("Scoring the candidate solutions…"):
        data = risk_utility_points(config, utility, risk, with_local, dataset_key=source.dataset_key)
    if "error" in data:
        st.error(data["error"])
        return
    points = data["points"]
    if not len(points):
        st.info("No lattice node is admissible at these settings: no solution to place.")
        return
    st.altair_chart(risk_utility_chart(points, utility, risk), width="stretch")
    st.caption(f"{len(points)} solutions: the k-minimal lattice nodes{' and the local releases' if with_local else ''}"
               f" at k = {json.loads(config)['privacy']['k']}, each release's {risk.replace('_', ' ')} after "
               f"suppression (suppressed records one class of `*`) against its {utility}. The dashed line joins the "
               "Pareto front: no other solution has both less risk and less loss.")
    st.dataframe(points, hide_index=True, width="stretch")
