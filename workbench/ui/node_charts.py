"""Chart builders for one lattice node (the Lattice page's drill-down): pure DataFrame -> altair Chart
functions, testable with ``chart.to_dict()``; altair only, never streamlit."""

from __future__ import annotations

import altair as alt
import pandas as pd

from workbench.ui.charts import TOOLTIP_NUMBER, measure_name, measure_title, words

SUPPRESSED_COLORS = alt.Scale(domain=[False, True], range=["#2ca02c", "#d62728"])


def class_size_histogram(sizes: pd.DataFrame, k: int, weight: str = "records") -> alt.LayerChart:
    """Equivalence classes of a node by size (``node_details.class_size_distribution``): one bar per class
    size, its height the ``records`` (or ``classes``) of that size; sizes below k, whose records are
    suppressed, in red, with a rule at k."""
    if weight not in ("records", "classes"):
        raise ValueError(f"class_size_histogram: weight must be 'records' or 'classes', got {weight!r}")
    missing = {"size", "classes", "records", "suppressed"} - set(sizes.columns)
    if missing:
        raise ValueError(f"class_size_histogram: no column(s) {', '.join(sorted(missing))}")
    bars = alt.Chart(sizes).mark_bar().encode(
        x=alt.X("size:Q", title="class size (records)", scale=alt.Scale(type="log")),
        y=alt.Y(f"{weight}:Q", title=f"{weight} in classes of that size"),
        color=alt.Color("suppressed:N", scale=SUPPRESSED_COLORS, title=f"classes of size < k = {k}",
                        legend=alt.Legend(labelExpr=words("suppressed", "released"), labelLimit=0)),
        tooltip=[alt.Tooltip("size", title="class size"), "classes", "records",
                 alt.Tooltip("suppressed", title=f"suppressed (size < {k})")],
    )
    rule = alt.Chart(pd.DataFrame({"k": [k]})).mark_rule(strokeDash=[4, 4], color="gray").encode(x="k:Q")
    return alt.layer(bars, rule).properties(width=380, height=220)


def contribution_chart(contributions: pd.DataFrame, measure: str) -> alt.Chart:
    """Each quasi-identifier's contribution to one measure at a node (``node_details``' contributions): a
    horizontal bar per attribute, with its share of the total in the tooltip."""
    missing = {"measure", "attribute", "contribution", "share"} - set(contributions.columns)
    if missing:
        raise ValueError(f"contribution_chart: no column(s) {', '.join(sorted(missing))}")
    data = contributions[contributions["measure"] == measure]
    if data.empty:
        known = sorted(set(contributions["measure"]))
        raise ValueError(f"contribution_chart: no contributions for {measure!r}; there are {', '.join(known)}")
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("contribution:Q", title=f"contribution to {measure_name(measure)}"),
        y=alt.Y("attribute:N", sort=list(data["attribute"]), title=None),
        tooltip=["attribute", alt.Tooltip("contribution:Q", format=TOOLTIP_NUMBER),
                 alt.Tooltip("share:Q", format=".1%")],
    ).properties(width=380, height=max(60, 24 * len(data)))


def lattice_levels_chart(summary: pd.DataFrame, measure: str | None = None,
                         optimum_rank: int | None = None) -> alt.Chart | alt.LayerChart:
    """An aggregated picture of a large lattice: per height, the number of nodes, of k-anonymous nodes and of nodes
    the search checked (bars side by side, with a dashed rule at ``optimum_rank``, the optimum's height), or the
    minimum and median of a measure (lines) — the whole lattice at a glance when drawing every node would be
    unreadable (El Emam 2009's lattice is read by height)."""
    needed = {"rank", "nodes", "k_anonymous"} | ({f"{measure}_min", f"{measure}_median"} if measure else set())
    missing = needed - set(summary.columns)
    if missing:
        raise ValueError(f"lattice_levels_chart: no column(s) {', '.join(sorted(missing))}")
    if measure is None:
        counts = {"nodes": "nodes", "k_anonymous": "k-anonymous nodes", "checked": "checked by the search"}
        shown = [c for c in counts if c in summary.columns]
        data = summary.melt(id_vars="rank", value_vars=shown, var_name="count", value_name="number")
        data["count"] = data["count"].map(counts)
        colours = {"nodes": "#bbbbbb", "k-anonymous nodes": "#2ca02c", "checked by the search": "#ff7f0e"}
        bars = alt.Chart(data).mark_bar().encode(
            x=alt.X("rank:O", title="height (Σ levels)"), y=alt.Y("number:Q", title="nodes", stack=None),
            xOffset=alt.XOffset("count:N", sort=[counts[c] for c in shown]),
            color=alt.Color("count:N", title=None, scale=alt.Scale(domain=[counts[c] for c in shown],
                                                                   range=[colours[counts[c]] for c in shown])),
            tooltip=["rank", "count", "number"],
        ).properties(width=760, height=300)
        if optimum_rank is None:
            return bars
        rule = alt.Chart(pd.DataFrame({"rank": [optimum_rank], "what": ["optimum's height"]})).mark_rule(
            color="#d62728", strokeDash=[4, 3], size=2).encode(x="rank:O", tooltip=["what", "rank"])
        return bars + rule
    data = summary.melt(id_vars="rank", value_vars=[f"{measure}_min", f"{measure}_median"], var_name="statistic",
                        value_name=measure)
    data["statistic"] = data["statistic"].map({f"{measure}_min": "minimum", f"{measure}_median": "median"})
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("rank:O", title="height (Σ levels)"), y=alt.Y(f"{measure}:Q", title=measure_title(measure)),
        color=alt.Color("statistic:N", title="over the nodes of a height"),
        tooltip=["rank", "statistic", alt.Tooltip(f"{measure}:Q", title=measure_name(measure),
                                                  format=TOOLTIP_NUMBER)],
    ).properties(width=760, height=300)


def search_region_chart(region: pd.DataFrame, rank: int | None = None) -> alt.Chart | alt.LayerChart:
    """A search's region on a lattice too large to draw (``lattice_views.search_region``): per height, the nodes, and
    those checked, predicted and pruned (bars side by side, a log scale: thousands of nodes beside a few checks),
    with a dashed rule at ``rank``, the height of the node the search returned."""
    counts = {"nodes": "nodes", "checked": "checked", "predicted": "k-anonymity predicted", "pruned": "pruned"}
    data = region.melt(id_vars="rank", value_vars=list(counts), var_name="count", value_name="number")
    data["count"] = data["count"].map(counts)
    data = data[data["number"] > 0]
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X("rank:O", title="height (Σ levels)"),
        y=alt.Y("number:Q", title="nodes (log scale)", scale=alt.Scale(type="log")),
        xOffset=alt.XOffset("count:N", sort=list(counts.values())),
        color=alt.Color("count:N", title=None, sort=list(counts.values()),
                        scale=alt.Scale(domain=list(counts.values()),
                                        range=["#bbbbbb", "#ff7f0e", "#1f77b4", "#9467bd"])),
        tooltip=["rank", "count", "number"],
    ).properties(width=760, height=300)
    if rank is None:
        return bars
    rule = alt.Chart(pd.DataFrame({"rank": [rank], "what": ["the search's node"]})).mark_rule(
        color="#d62728", strokeDash=[4, 3], size=2).encode(x="rank:O", tooltip=["what", "rank"])
    return bars + rule


def neighbour_edges(nodes: pd.DataFrame, quasi_identifiers: list[str], label: str) -> pd.DataFrame | None:
    """The Hasse-diagram edges (``charts.hasse_edges``) of one node only: to its direct specializations and
    generalizations among ``nodes``; None when the node is not among them."""
    from workbench.ui.charts import hasse_edges

    chosen = nodes[nodes["node"] == label]
    if chosen.empty:
        return None
    levels = nodes[quasi_identifiers].to_numpy()
    distance = abs(levels - chosen[quasi_identifiers].to_numpy()[0]).sum(axis=1)
    near = nodes[distance <= 1]
    edges = hasse_edges(near, quasi_identifiers)
    x, rank = float(chosen["x"].iloc[0]), chosen["rank"].iloc[0]
    touches = ((edges["x"] == x) & (edges["y"] == rank)) | ((edges["x2"] == x) & (edges["y2"] == rank))
    return edges[touches].reset_index(drop=True)
