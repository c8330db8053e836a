"""Sections of the Risk page beyond the input's and the release's figures (``workbench/ui/risk.py``): risk against
utility over the candidate solutions, and the attacks of Sweeney 2002 and Katirai 2006 on the input and the current
release. Every figure comes from the library through ``workbench/ui/risk_cached.py``."""

from __future__ import annotations

import streamlit as st

from workbench.compare.ranking import RISK_COLUMNS
from workbench.config import Study
from workbench.release.output import dataset_stem
from workbench.risk.attack_checks import attack_table, row_order_finding
from workbench.ui import format, long_work, state
from workbench.ui.download import download  # the session's own records: produced on click, served once
from workbench.ui.failure import shown_errors
from workbench.ui.risk_cached import attack_checks, rare_values, risk_utility_points, unique_combinations
from workbench.ui.risk_utility import risk_utility_chart
from workbench.ui.source import Source, revised


def solutions_config(source: Source, release_config: Study | None, compare: list[str]) -> Study:
    """The config whose solutions the page compares: the last run's (its k, suppression limit and privacy models)
    when there is one, else the session's k and suppression limit; scored under ``compare`` only."""
    if release_config is None:
        privacy = state.privacy()
        return source.study(k=privacy.k, max_suppression=privacy.max_suppression, compare=compare)
    raw = release_config.raw
    return revised(release_config, measures={**raw["measures"], "compare": list(compare)},
                   engine={**raw["engine"], "kind": "lattice", "algorithm": "flash"})  # the lattice candidates


def risk_utility_section(source: Source, release_config: Study | None) -> None:
    """Every k-minimal lattice candidate (and the local releases) as a point of risk against information loss,
    with the Pareto front: the solutions no other beats on both."""
    st.subheader("Risk against utility")
    ids = source.measure_ids
    left, middle, right = st.columns(3)
    state.keep_valid(state.RISK_UTILITY, ids)
    utility = left.selectbox("Utility (information loss)", ids, index=ids.index("loss") if "loss" in ids else 0,
                             key=state.RISK_UTILITY.key, format_func=format.measure_label)
    risk = middle.selectbox("Risk", list(RISK_COLUMNS), index=1, key="risk_ru_risk",
                            format_func=lambda c: c.removeprefix("risk_").replace("_", " "),
                            help="; ".join(f"{c.removeprefix('risk_').replace('_', ' ')}: {text}"
                                           for c, text in RISK_COLUMNS.items()))
    with_local = right.toggle("Local-engine releases", value=False, key="risk_ru_local",
                              help="Greedy and Partition for the same k; about 3 s on 20,000 records")
    config = solutions_config(source, release_config, [utility])
    points = long_work.announced("Scoring the candidate solutions' risk and information loss", risk_utility_points,
                                 config, utility, risk, with_local, dataset_key=source.dataset_key)
    if not len(points):
        st.info("No lattice node is admissible at these settings: no solution to place.")
        return
    st.altair_chart(risk_utility_chart(points, utility, risk), width="stretch")
    st.caption(f"{len(points)} solutions: the k-minimal lattice nodes{' and the local releases' if with_local else ''}"
               f" at k = {config.k}, each release's {risk.replace('_', ' ')} after "
               f"suppression (suppressed records one group of `*`) against its {format.measure_label(utility)}. The "
               "dashed line joins the Pareto front: no other solution has both less risk and less loss.")
    format.show(points, labels={"utility": format.measure_label(utility),
                                "risk": risk.removeprefix("risk_").replace("_", " ")})


def attacks_section(source: Source, release_config: Study | None) -> None:
    """Values rarer than k in the input (with the table without them, to anonymize instead), and the attacks on
    the last run's release."""
    st.subheader("Attacks")
    k = state.privacy().k if release_config is None else release_config.k
    with shown_errors():  # the attacks on the release follow
        rare = long_work.announced(f"Finding the input's values rarer than k = {k}", rare_values,
                                   source.study(k=k, compare=[]), k, dataset_key=source.dataset_key)
        st.markdown(f"**Values rarer than k = {k} in the input** (Sweeney 2002): a record holding one cannot be "
                    f"{k}-anonymous unless that value is generalized or the record suppressed. {rare.records:,} of "
                    f"{rare.n:,} records hold one.")
        if len(rare.table):
            format.show(rare.table, width="content")
            left, right = st.columns(2)
            stem = f"{dataset_stem(source.config(k=k)['data'])}-k{k}"  # the dataset and k: people-k5-without-...
            with left:
                download("Table without these records (CSV)", rare.rows_csv, f"{stem}-without-rare-records.csv",
                         "text/csv", key="risk_rare_rows",
                         help="records dropped until no value is rarer than k; load it on the Data page")
            with right:
                download("Table with these values blanked (CSV)", rare.values_csv,
                         f"{stem}-without-rare-values.csv", "text/csv", key="risk_rare_values",
                         help="each rare value becomes the missing value, which the hierarchies must have")
    if release_config is None:
        st.info("Run an anonymization on the Anonymize page: the attacks on its release are shown here.")
        return
    data = long_work.announced("Attacking the last run's release: a second release joined on the record and row by "
                               "row, and the matching attack", attack_checks, release_config,
                               dataset_key=source.dataset_key)
    st.markdown("**Attacks on the last run's release.** A second release of the same table (the first other "
                "k-minimal node) stands for another recipient's copy.")
    format.show(attack_table(data.checks))
    finding = row_order_finding(data.checks)  # written from the unsorted-matching figures in the table
    if finding is not None:
        st.caption(finding)


def unique_combinations_section(source: Source, release_config: Study | None) -> None:
    """For each combination of quasi-identifiers (all of them when there are at most 6, else up to 3 at a time):
    the records alone on it, in the input and the last run's release."""
    st.subheader("Which quasi-identifier combinations make records unique")
    data = long_work.announced("Finding which quasi-identifier combinations make records unique", unique_combinations,
                               source.study(k=2, compare=[]), release_config, dataset_key=source.dataset_key)
    st.caption("unique records: records alone in their class on these attributes only; only here: unique on the "
               "combination but on none of its parts, so the combination itself singles them out (Sweeney 2000).")
    tabs = st.tabs(["Input", "Release"])
    format.show(data.input_table, tabs[0])
    if data.release_table is None:
        tabs[1].info("Run an anonymization on the Anonymize page: its release's combinations are shown here.")
    else:
        format.show(data.release_table, tabs[1])
