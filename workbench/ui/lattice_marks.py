"""What the Lattice page draws on its Hasse diagram besides k-anonymity: nodes coloured by whether they satisfy a
privacy model of the session (``model_satisfaction.model_satisfaction``: each model alone, or all of them together as
the engine decides admissibility), and, over the k-anonymous nodes, the node each measure would choose and the
worst monotonicity edge of the page's objective (``workbench.explore``, the Measures page's exploration).

The chart builders here are pure (DataFrame -> altair, testable with ``chart.to_dict()``); ``hasse`` and
``by_height`` draw the widgets and call the library through the cached calls."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import measures as M
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.ui import format, long_work, state
from workbench.ui.anonymize import chosen_models
from workbench.ui.cached import dataset_for, sensitive_attributes
from workbench.ui.charts import TOOLTIP_NUMBER, hasse_chart, measure_name
from workbench.ui.failure import shown_errors
from workbench.ui.measures_page import exploration
from workbench.ui.memo import dual_cache, user_error
from workbench.ui.source import Source
from workbench.views.satisfaction import ALL_MODELS, K_ANONYMITY, ModelSatisfaction

MODEL = "model:"  # a "Colour by" option naming a rule of model_satisfaction: "model:l_diversity", "model:all_models"


def rule_name(rule: str) -> str:
    """A ``model_satisfaction`` rule for people: k-anonymity, a privacy model's label from the registry, all models."""
    if rule == K_ANONYMITY:
        return "k-anonymity"
    if rule == ALL_MODELS:
        return "all models"
    model = PRIVACY_MODELS.get(rule)
    return model.label if model is not None else rule


CHOICE = "#1f3b99"  # the measures' chosen nodes
WORST = "#9467bd"  # the worst monotonicity edge
CHOICES = state.LAT_CHOICES.key
SHOW_WORST = state.LAT_SHOW_WORST.key
X, AXIS = alt.X("x:Q", axis=None), alt.Axis(tickMinStep=1, format="d")  # the Hasse diagram's own axes


@dataclass(frozen=True)
class Marks:
    """The page's settings the marks depend on: the dataset, k and the limit, the objective, the session's models."""

    source: Source
    k: int
    max_suppression: float
    objective: str
    models: Mapping[str, Mapping[str, Any]]

    def model_config(self) -> Study:
        """The config whose ``model_satisfaction`` colours the nodes: the page's k and limit with the models."""
        return self.source.study(k=self.k, max_suppression=self.max_suppression, compare=[],
                                 privacy_models=self.models)

    def explore_config(self) -> Study:
        """The Measures page's config (so both pages share one exploration): k, the limit, every lattice measure."""
        return self.source.study(k=self.k, max_suppression=self.max_suppression,
                                 compare=list(M.LATTICE_MEASURES))


def session_models(source: Source) -> dict[str, dict[str, object]]:
    """The privacy models chosen on the Anonymize page for this dataset (``anonymize.chosen_models``)."""
    if source.sample is None and source.dataset_key is None:
        return {}
    return chosen_models(state.values(state.model_picker_keys()), sensitive_attributes(source))


def colour_options(models: Mapping[str, object]) -> list[str]:
    """The "Colour by" options of the session's models: each model alone, then all together (none without models)."""
    return [f"{MODEL}{kind}" for kind in models] + [f"{MODEL}{ALL_MODELS}"] if models else []


def rule_of(option: str) -> str | None:
    """The ``model_satisfaction`` column a "Colour by" option names, or None for the status and the measures."""
    return option.removeprefix(MODEL) if option.startswith(MODEL) else None


def colour_label(option: str) -> str:
    if option == "status":
        return "k-anonymity (k-anonymous or not, optimum)"
    rule = rule_of(option)
    if rule == ALL_MODELS:
        return "all models (k and every privacy model together)"
    if rule is not None:
        return f"{rule_name(rule)} (satisfied or not)"
    return format.measure_label(option)


@dataclass(frozen=True)
class Satisfaction:
    """Which nodes satisfy one rule (``satisfaction_cached``): ``model_satisfaction.model_satisfaction``'s result and
    its count per height (``satisfaction_by_height``)."""

    satisfaction: ModelSatisfaction
    by_height: pd.DataFrame


@dual_cache(max_entries=8, heavy=True)
def satisfaction_cached(study: Study, rule: str, dataset_key: str | None) -> Satisfaction:
    """``model_satisfaction.model_satisfaction`` of the study: which nodes satisfy one rule."""
    from workbench.views.satisfaction import model_satisfaction, satisfaction_by_height

    try:
        satisfaction = model_satisfaction(study, dataset_for(study, dataset_key), rules=[rule])
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc
    return Satisfaction(satisfaction, satisfaction_by_height(satisfaction))


# ---------------------------------------------------------------------------------------------- chart builders
def with_rule(nodes: pd.DataFrame, table: pd.DataFrame, rule: str) -> pd.DataFrame:
    """The Hasse layout's nodes with the rule's column of ``model_satisfaction``'s table (True: satisfied)."""
    held = table.set_index("node")[rule]
    return nodes.drop(columns=[rule], errors="ignore").assign(**{rule: nodes["node"].map(held).astype(bool)})


def choice_layers(nodes: pd.DataFrame, optima: Mapping[str, str | None]) -> list[alt.Chart]:
    """Each measure's chosen node among ``nodes`` (laid out by ``hasse_layout``): a ringed square labelled with the
    measures that choose it by name, separated by "; " (below the node; the optimum's label is above)."""
    chosen: dict[str, list[str]] = {}
    for measure, node in optima.items():
        if node is not None:
            chosen.setdefault(node, []).append(measure_name(measure))
    data = nodes.loc[nodes["node"].isin(list(chosen)), ["node", "x", "rank"]]
    if data.empty:
        return []
    data = data.assign(chosen_by=["; ".join(chosen[n]) for n in data["node"]])
    base = alt.Chart(data).encode(x=X, y=alt.Y("rank:Q", title="height (Σ levels)", axis=AXIS),
                                  tooltip=["node", alt.Tooltip("chosen_by:N", title="chosen by")])
    return [base.mark_point(shape="square", size=330, filled=False, stroke=CHOICE, strokeWidth=2.5),
            base.mark_text(dy=19, fontSize=12, fontWeight="bold", color=CHOICE).encode(text="chosen_by:N")]


def worst_edge_layers(nodes: pd.DataFrame, measure: str, worst: Mapping[str, Any]) -> list[alt.Chart]:
    """One measure's worst monotonicity edge (``explore``: the child and its parent one level more general in one
    attribute, where generalizing improves the score most): a thick line between the two nodes, labelled at its
    middle; nothing when either node is not among ``nodes``."""
    at = nodes.set_index("node")
    if worst["child"] not in at.index or worst["parent"] not in at.index:
        return []
    child, parent = at.loc[worst["child"]], at.loc[worst["parent"]]
    edge = pd.DataFrame([{"x": float(child["x"]), "y": float(child["rank"]), "x2": float(parent["x"]),
                          "y2": float(parent["rank"]), "measure": measure_name(measure), "child": worst["child"],
                          "parent": worst["parent"], "delta": float(worst["delta"])}])
    tooltip = ["measure", "child", "parent", alt.Tooltip("delta:Q", format=TOOLTIP_NUMBER, title="parent − child")]
    y = alt.Y("y:Q", title="height (Σ levels)", axis=AXIS)
    line = alt.Chart(edge).mark_rule(color=WORST, strokeWidth=4, opacity=0.85).encode(
        x=X, y=y, x2="x2", y2="y2", tooltip=tooltip)
    middle = edge.assign(x=(edge["x"] + edge["x2"]) / 2, y=(edge["y"] + edge["y2"]) / 2,
                         label=f"worst edge of {measure_name(measure)}")
    text = alt.Chart(middle).mark_text(align="left", dx=8, fontSize=12, fontWeight="bold", color=WORST).encode(
        x=X, y=y, text="label:N", tooltip=tooltip)
    return [line, text]


def satisfaction_levels_chart(summary: pd.DataFrame, rule: str, title: str) -> alt.Chart:
    """Per height (``satisfaction_by_height``): the nodes, and those that satisfy one rule."""
    data = summary.melt(id_vars="rank", value_vars=["nodes", rule], var_name="count", value_name="number")
    data["count"] = data["count"].map({"nodes": "nodes", rule: title})
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("rank:O", title="height (Σ levels)"), y=alt.Y("number:Q", title="nodes", stack=None),
        color=alt.Color("count:N", title=None, scale=alt.Scale(domain=["nodes", title], range=["#bbbbbb", "#2ca02c"]),
                        legend=alt.Legend(labelLimit=0)),
        tooltip=["rank", "count", "number"],
    ).properties(width=760, height=300)


# ---------------------------------------------------------------------------------------------- the page's parts
def _satisfaction(marks: Marks, rule: str) -> Satisfaction | None:
    data = None
    with shown_errors():  # the page goes on without the model's colours
        data = long_work.announced(f"Checking which nodes satisfy {rule_name(rule)}", satisfaction_cached,
                                   marks.model_config(), rule, dataset_key=marks.source.dataset_key)
    if data is None:
        return None
    sat = data.satisfaction
    held = int(sat.table[rule].sum())
    alone = "" if rule == ALL_MODELS else " This model alone, without k: a node may satisfy every rule alone and " \
                                        "still fail them together, which share one suppression limit."
    st.caption(f"Green: the node satisfies {format.md(sat.rules[rule])} ({held:,} of {len(sat.table):,} nodes): the "
               f"classes that break it are suppressed and the suppressed records stay within the limit.{alone} The "
               "models are those chosen on the Anonymize page; the search, the optimum and the drill-down are "
               "k-anonymity's.")
    return data


def by_height(option: str, marks: Marks) -> bool:
    """The per-height view of a model colour (False when ``option`` colours by no model)."""
    rule = rule_of(option)
    if rule is None:
        return False
    data = _satisfaction(marks, rule)
    if data is not None:
        title = f"satisfy {rule_name(rule)}"
        st.altair_chart(satisfaction_levels_chart(data.by_height, rule, title), width="stretch")
        format.show(data.by_height, labels={"rank": "height (Σ levels)", **{r: f"satisfy {rule_name(r)}"
                                                                    for r in data.satisfaction.rules}})
    return True


def hasse(shown: pd.DataFrame, edges: pd.DataFrame | None, option: str, selected: str, marks: Marks
          ) -> alt.LayerChart:
    """The Hasse diagram of ``shown`` coloured by ``option`` (the status, a measure, or a model's satisfaction),
    with the measures' chosen nodes and the objective's worst edge when the analyst asks for them."""
    rule = rule_of(option)
    nodes, colour, title = shown, option, None
    if rule is not None:
        data = _satisfaction(marks, rule)
        if data is None:
            colour = "status"
        else:
            nodes, colour, title = with_rule(shown, data.satisfaction.table, rule), rule, rule_name(rule)
    layers = _measure_layers(shown, marks)
    return hasse_chart(nodes, edges, colour, selected, color_title=title, overlay=layers)


def _measure_layers(shown: pd.DataFrame, marks: Marks) -> list[alt.Chart]:
    measures = list(M.LATTICE_MEASURES)
    left, right = st.columns(2)
    state.keep_valid(CHOICES, measures, multiple=True)
    chosen = left.multiselect("Mark each measure's choice", measures, key=CHOICES, format_func=format.measure_label,
                              help="the node each measure would choose over every k-anonymous node (the Measures "
                                   "page's exploration), a labelled square")
    worst = right.checkbox(f"Show the worst monotonicity edge of {format.measure_label(marks.objective)}",
                           key=SHOW_WORST,
                           help="the edge (a node and its parent, one level more general in one attribute) where "
                                "generalizing improves the objective most: a search that assumes monotonicity can "
                                "miss the optimum there")
    if not chosen and not worst:
        return []
    data = None
    with shown_errors():  # the diagram is drawn without the marks
        data = long_work.announced("Scoring every k-anonymous node under every measure", exploration,
                                   marks.explore_config(), dataset_key=marks.source.dataset_key)
    if data is None:
        return []
    e = data
    if e.sample:
        st.caption(f"The lattice has {e.sample['lattice_nodes']:,} nodes: each measure's choice and worst edge are "
                   f"over {e.sample['drawn']:,} nodes drawn at random and their parents (the Measures page says "
                   "more).")
    optima = {m: e.optima.get(m) for m in chosen}
    layers = choice_layers(shown, optima)
    missing = sorted({n for n in optima.values() if n is not None} - set(shown["node"]))
    if missing:
        st.caption(f"Outside the heights shown: {format.md(', '.join(missing))}.")
    if worst:
        edge = e.measures.get(marks.objective, {}).get("worst")
        if edge is None:
            st.caption(f"No edge between k-anonymous nodes makes {format.measure_label(marks.objective)} better "
                       "when generalizing: it is monotone on this lattice.")
        else:
            drawn = worst_edge_layers(shown, marks.objective, edge)
            layers += drawn
            st.caption(f"Worst edge of {format.measure_label(marks.objective)}: "
                       f"{format.md(edge['child'])} → {format.md(edge['parent'])}, "
                       f"{format.number(edge['delta'])} (parent − child)"
                       + ("" if drawn else "; outside the heights shown") + ".")
    return layers
