"""Risk page: re-identification risk of the input and of the last run's release side by side (prosecutor risk,
records at risk, sample uniques, population uniqueness given a population size) and a histogram of record-level
risk; risk against utility over the candidate solutions (``risk_sections``). Every figure comes from the library
through ``cached.input_risk``, ``cached.release_risk`` and ``risk_cached``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.risk import DEFAULT_THRESHOLD
from workbench.ui import format, long_work, state
from workbench.ui.cached import TableRisk, input_risk, release_risk
from workbench.ui.charts import record_risk_chart
from workbench.ui.context import PageContext
from workbench.ui.failure import show_error, shown_errors
from workbench.ui.format import md
from workbench.ui.risk_sections import attacks_section, risk_utility_section, unique_combinations_section
from workbench.ui.source import Source

INPUT = "input"
RELEASE = "release"
ESTIMATOR_NAMES = {"pitman": "Pitman", "zayatz": "Zayatz", "snb": "SNB (slide negative binomial)",
                   "dankar": "Dankar et al. (2012)"}


def _last_release_config(source: Source) -> tuple[Study | None, str]:
    """The last Anonymize run's config when it ran on this dataset (None otherwise) and how to name it."""
    last = state.LAST_RUN.get()
    if last is None or last.dataset_key != source.dataset_key or last.label != source.label:
        return None, ""
    raw = last.study.raw
    subset = ", δ-presence: the research subset released" if "delta_presence" in raw["privacy"] else ""
    return last.study, (f"{raw['engine']['kind']} / {raw['engine']['algorithm']}, k = {raw['privacy']['k']}, "
                            f"suppression ≤ {raw['privacy'].get('max_suppression', 0.0):.0%}{subset}")


def _research_subset(release_config: Study | None) -> dict[str, Any]:
    """The last run's ``[privacy.delta_presence]`` (it releases a research subset of the data), else nothing."""
    if release_config is None:
        return {}
    table = release_config.raw["privacy"].get("delta_presence")
    return {"delta_presence": table} if table else {}


def _share(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}%}"


def _figures(col: Any, title: str, step: str, call: Callable[..., TableRisk], config: Study, threshold: float,
             population: int | None, dataset_key: str | None) -> TableRisk | None:
    """One table's figures as metrics, assessed by ``call`` (``cached.input_risk`` or ``release_risk``) under a spinner
    naming ``step``; an error as a message in the column (None then)."""
    col.subheader(title)
    try:
        table = long_work.announced(step, call, config, threshold, population, dataset_key=dataset_key)
    except WorkbenchError as exc:
        show_error(exc, col)
        return None
    risk = table.risk
    p = risk["prosecutor"]
    col.metric("records", f"{risk['records']:,}",
               help=f"{risk['suppressed']:,} of them suppressed" if risk["suppressed"] else "none suppressed")
    col.metric("equivalence classes", f"{risk['classes']:,}",
               help="distinct quasi-identifier rows among the records not suppressed")
    col.metric("risk groups", f"{risk['groups']:,}",
               help=(f"the groups the risk figures count: the {risk['classes']:,} classes, and the "
                     f"{risk['suppressed']:,} suppressed records (* in every quasi-identifier) as one more group")
               if risk["suppressed"] else "the groups the risk figures count: the classes (nothing is suppressed)")
    col.metric("highest prosecutor risk", f"{p['highest']:.6g}", help="1 / the size of the smallest group")
    col.metric("average prosecutor risk", f"{p['average']:.6g}",
               help=f"groups / records ({risk['groups']:,} / {risk['records']:,}): the mean of every record's risk "
                    "1 / its group's size")
    col.metric("records at risk", f"{p['records_at_risk_count']:,}",
               help=f"records whose risk 1 / class size exceeds {p['threshold']:g} "
                    f"({_share(p['records_at_risk'])} of the records)")
    col.metric("sample uniques", _share(risk["sample_uniques"]), help="records alone in their class")
    j = risk["journalist"]
    if j is not None:
        col.metric("highest journalist risk", f"{j['highest']:.6g}",
                   help="1 / the number of population records in the smallest class's cell: the attacker matches "
                        "against the population the data was drawn from")
        col.metric("average journalist risk", f"{j['average']:.6g}",
                   help=f"as ARX: the larger of groups / population records in them and the marketer risk; "
                        f"{j['records_at_risk_count']:,} records whose risk 1 / population class size exceeds "
                        f"{j['threshold']:g}")
    pop = risk["population_uniques"]
    if population is not None:
        col.metric("population uniques (Dankar)", _share(pop["dankar"], 4),
                   help=f"estimated share of the {population:,} people who are unique, by Dankar et al.'s (2012) "
                        f"rule (model used: {pop['dankar_model'] or 'none'}; sampling fraction "
                        f"{pop['sampling_fraction']:.4g})")
    return table


def page(ctx: PageContext) -> None:
    source = ctx.source
    st.header("Risk")
    st.caption(f"Dataset: {md(source.label)}")
    st.write("How likely is it that someone is re-identified? A record's prosecutor risk is 1 / the size of its "
             "equivalence class (records sharing its quasi-identifier values): the attacker knows the person is in "
             "the table (El Emam & Dankar 2008). The release's suppressed records (`*` in every quasi-identifier) "
             "are one more group beside its equivalence classes. "
             "Journalist risk (the attacker matches against the population the data was drawn from) is shown when "
             "the study has a population table: a δ-presence study's data file.")
    left, right = st.columns(2)
    threshold = float(left.number_input("Risk threshold (records at risk exceed it)", min_value=0.001,
                                        max_value=1.0, value=DEFAULT_THRESHOLD, step=0.05, format="%.3f",
                                        key="risk_threshold",
                                        help="0.2: classes of fewer than 5 records are at risk"))
    population_input = int(right.number_input(
        "Population size (0: no population estimate)", min_value=0, value=0, step=1000, key="risk_population",
        help="the number of people the table is a sample of; enables the population uniqueness estimates "
             "(Pitman, Zayatz, SNB and Dankar's rule)"))
    population = population_input or None
    release_config, described = _last_release_config(source)
    subset = _research_subset(release_config)  # the last run released a research subset: its input is the subset
    cols = st.columns(2)
    figures = {INPUT: _figures(cols[0], "Input (the research subset)" if subset else "Input",
                               "Assessing the risk of the input", input_risk,
                               source.study(k=2, compare=[], privacy_models=subset), threshold, population,
                               source.dataset_key), RELEASE: None}
    if release_config is None:
        cols[1].subheader("Release")
        cols[1].info("Run an anonymization on the Anonymize page: the risk of its release is shown here.")
    else:
        figures[RELEASE] = _figures(cols[1], "Release", "Assessing the risk of the last run's release", release_risk,
                                    release_config, threshold, population, source.dataset_key)
        cols[1].caption(f"The last run: {described}.")
    tables = {name: table for name, table in figures.items() if table is not None}
    if not tables:
        return
    if population is not None:
        st.subheader("Population uniqueness (estimated share of the population that is unique)")
        format.show(pd.DataFrame([{"table": name, **{m: _share(t.risk["population_uniques"][m], 4)
                                                     for m in ESTIMATOR_NAMES}}
                                  for name, t in tables.items()]), labels=ESTIMATOR_NAMES, width="content")
        st.caption(f"{format.NOT_APPLICABLE}: the estimator gives no estimate for this table (e.g. no class of "
                   "size 1 or 2 to fit it on).")
    st.subheader("Record-level risk")
    records = pd.concat([t.records.assign(table=name) for name, t in tables.items()], ignore_index=True)
    st.altair_chart(record_risk_chart(records), width="stretch")
    st.caption("Each bar: the share of a table's records whose risk is 1 / class size (hover for the counts).")
    for section in (risk_utility_section, unique_combinations_section, attacks_section):
        with shown_errors():  # a section that fails says why; the next one is drawn
            section(source, release_config)
