"""Chart builders: pure DataFrame -> altair Chart functions (testable with ``chart.to_dict()``)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from workbench.policy import suppression_percent
from workbench.views.lattice import SEARCH_RESULT

alt.data_transformers.disable_max_rows()  # lattices of several thousand nodes are drawn in full
TOOLTIP_NUMBER = ",.6~r"  # d3-format: thousands separators, six significant digits, never an exponent


def relative_loss_chart(df: pd.DataFrame) -> alt.FacetChart:
    """El Emam 2009's comparison: relative information loss (%) against k, one panel per measure and
    suppression limit, one line per algorithm; the 100 % line is the optimum."""
    data = df.assign(max_suppression=df.max_suppression.map(lambda s: f"{suppression_percent(s):g} %"))
    lines = alt.Chart().mark_line(point=True).encode(
        x=alt.X("k:O", title="k"),
        y=alt.Y("relative_loss_pct:Q", title="relative information loss (%)", scale=alt.Scale(zero=False)),
        color=alt.Color("algorithm:N"),
        tooltip=["algorithm", "k", "max_suppression", "measure", alt.Tooltip("relative_loss_pct:Q", format=".1f")],
    )
    optimum = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(100))
    return alt.layer(lines, optimum, data=data).properties(width=180, height=140).facet(
        row=alt.Row("measure:N", title=None), column=alt.Column("max_suppression:N", title="MaxSup")
    )


def pareto_chart(df: pd.DataFrame, x: str, y: str, front: object = None) -> alt.Chart:
    """Solutions under two measures (both losses: lower-left is better), the Pareto front highlighted."""
    on_front = np.asarray(front, dtype=bool) if front is not None else np.zeros(len(df), dtype=bool)
    data = df.assign(pareto=np.where(on_front, "yes", "no"))
    return alt.Chart(data).mark_point(filled=True, size=70).encode(
        x=alt.X(f"{x}:Q", title=_measure_title(x)), y=alt.Y(f"{y}:Q", title=_measure_title(y)),
        color=alt.Color("engine:N"),
        shape=alt.Shape("pareto:N", title="Pareto front", scale=alt.Scale(domain=["yes", "no"])),
        tooltip=["engine", "algorithm", "solution",
                 alt.Tooltip(f"{x}:Q", title=measure_name(x), format=TOOLTIP_NUMBER),
                 alt.Tooltip(f"{y}:Q", title=measure_name(y), format=TOOLTIP_NUMBER)],
    ).properties(width=420, height=320)


def _measure_title(measure_id: str) -> list[str] | str:
    """An axis title on two lines, so it is not cut: the measure's full name, then its direction."""
    import measures as M

    m = M.MEASURES.get(measure_id)
    return [m.name, f"({m.direction.value})"] if m is not None else measure_id


measure_title = _measure_title  # the builders of the other pages' charts use it too


def measure_name(measure_id: str) -> str:
    """A measure's full name as the pickers show it (``Discernibility (DM)``); an unknown id as it is."""
    import measures as M

    m = M.MEASURES.get(measure_id)
    return m.name if m is not None else str(measure_id)


def words(yes: str, no: str) -> str:
    """A legend's label expression for a boolean field: ``yes`` for true, ``no`` for false (never "true")."""
    return f"datum.value ? {yes!r} : {no!r}"


def rank_heatmap(tau: pd.DataFrame) -> alt.Chart:
    """Kendall τ between measures' rankings of the candidates, each measure by its full name."""
    data = tau.reset_index(names="a").melt(id_vars="a", var_name="b", value_name="tau")
    data["a"], data["b"] = data["a"].map(measure_name), data["b"].map(measure_name)
    order = [measure_name(m) for m in tau.index]
    labels = alt.Axis(labelLimit=320)
    return alt.Chart(data).mark_rect().encode(
        x=alt.X("a:N", title=None, sort=order, axis=labels), y=alt.Y("b:N", title=None, sort=order, axis=labels),
        color=alt.Color("tau:Q", scale=alt.Scale(domain=[-1, 1], scheme="redblue")),
        tooltip=["a", "b", alt.Tooltip("tau:Q", format=".2f")],
    ).properties(width=300, height=300)


def sweep_chart(df: pd.DataFrame, measure_ids: list[str]) -> alt.FacetChart:
    """How each measure degrades as k grows: the best solution per engine/algorithm at each k (the highest
    value for a higher-is-better measure such as nmi, else the lowest)."""
    import measures as M

    groups = df.groupby(["k", "engine", "algorithm"], as_index=False)
    higher = [m for m in measure_ids if m in M.MEASURES and M.MEASURES[m].higher_is_better]
    best = groups[measure_ids].min()
    if higher:
        best[higher] = groups[higher].max()[higher]
    data = best.melt(id_vars=["k", "engine", "algorithm"], value_vars=measure_ids, var_name="measure")
    data["measure"] = data["measure"].map(measure_name)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("k:O"), y=alt.Y("value:Q", title=None), color=alt.Color("algorithm:N"),
        tooltip=["algorithm", "k", "measure", alt.Tooltip("value:Q", format=TOOLTIP_NUMBER)],
    ).properties(width=200, height=140).facet(facet=alt.Facet("measure:N", title=None), columns=3).resolve_scale(
        y="independent")


def hasse_layout(nodes: pd.DataFrame, quasi_identifiers: list[str]) -> pd.DataFrame:
    """Positions for a Hasse diagram: y = rank (height), x = position within the rank (nodes of a rank
    ordered by their levels), centred."""
    out = nodes.copy()
    if not len(out):
        out["x"] = pd.Series(dtype=float)
        return out
    rank = out["rank"].to_numpy()
    keys = [out[q].to_numpy() for q in reversed(quasi_identifiers)]
    order = np.lexsort([*keys, rank])  # by rank, then by the levels in quasi-identifier order
    sorted_rank = rank[order]
    starts = np.flatnonzero(np.r_[True, sorted_rank[1:] != sorted_rank[:-1]])
    sizes = np.diff(np.r_[starts, len(order)])
    first = np.repeat(starts, sizes)
    x = np.empty(len(order), dtype=float)
    x[order] = (np.arange(len(order)) - first) - (np.repeat(sizes, sizes) - 1) / 2
    out["x"] = x
    return out


def hasse_edges(nodes: pd.DataFrame, quasi_identifiers: list[str]) -> pd.DataFrame:
    """One row per lattice edge (node → direct generalization, both in ``nodes``) with both ends' positions;
    nodes in table order, then successors in quasi-identifier order."""
    columns = ["x", "y", "x2", "y2"]
    if not len(nodes) or not quasi_identifiers:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in columns})
    levels = nodes[quasi_identifiers].to_numpy(dtype=np.int64)
    radix = levels.max(axis=0) + 2  # one spare digit: a successor past the largest level shown is absent
    strides = np.concatenate([np.cumprod(radix[::-1])[::-1][1:], [1]])
    index = levels @ strides
    where = np.full(int(index.max()) + int(strides[0]) + 1, -1, dtype=np.int64)
    where[index] = np.arange(len(nodes))
    successor = where[index[:, None] + strides[None, :]]  # (nodes, r): row of node + e_j, or -1
    src, j = np.nonzero(successor >= 0)  # row-major: node by node, then j, as the drawing order
    dst = successor[src, j]
    x, y = nodes["x"].to_numpy(dtype=float), nodes["rank"].to_numpy()
    return pd.DataFrame({"x": x[src], "y": y[src], "x2": x[dst], "y2": y[dst]})


NODE_PICK = "node_pick"  # the Hasse diagram's click selection (Streamlit returns it under this name)
MARKED = {"optimum": "optimum", SEARCH_RESULT: "search result"}  # statuses drawn as a labelled diamond
STATUS_COLOURS = {"optimum": "#d62728", SEARCH_RESULT: "#ff7f0e", "k-anonymous": "#2ca02c",
                  "not k-anonymous": "#bbbbbb"}


def hasse_chart(nodes: pd.DataFrame, edges: pd.DataFrame | None, color: str, selected: str | None = None,
                color_title: str | None = None, overlay: Sequence[alt.Chart] = ()) -> alt.LayerChart:
    """The generalization lattice (El Emam 2009, Fig. 2): nodes by height, edges to successors, coloured by
    status ("optimum", the search's non-optimal result, "k-anonymous", "not k-anonymous"), by a measure, or by a
    boolean column (a rule the node satisfies or not, green or grey; ``color_title`` names it in the legend);
    checked nodes of the search trace drawn larger, with their order in the tooltip.

    A click on a node selects it (the point selection ``NODE_PICK`` on the field ``node``, which the page reads
    with ``st.altair_chart(..., on_select=...)``). The chart neither zooms nor pans, so the page's scroll wheel
    scrolls the page. The optimum (and a search's other result) is a large labelled diamond with a black
    outline, whatever the colouring; the ``selected`` node is ringed. ``overlay``: more layers drawn on top, on
    the same axes (x ``x:Q`` without an axis, y the height)."""
    tooltip = ["node", "rank", alt.Tooltip("suppressed:Q", format=","), alt.Tooltip("classes:Q", format=","),
               "status", "trace"]
    if color == "status":
        encoding = alt.Color("status:N", scale=alt.Scale(domain=list(STATUS_COLOURS),
                                                         range=list(STATUS_COLOURS.values())),
                             legend=alt.Legend(labelLimit=0))  # never cut a status
    elif color in nodes.columns and nodes[color].dtype == bool:
        encoding = alt.Color(f"{color}:N", title=color_title or color, legend=alt.Legend(
            labelExpr="datum.value ? 'satisfied' : 'not satisfied'", labelLimit=0),
            scale=alt.Scale(domain=[True, False],
                            range=[STATUS_COLOURS["k-anonymous"], STATUS_COLOURS["not k-anonymous"]]))
        tooltip.append(alt.Tooltip(f"{color}:N", title=color_title or color))
    else:
        encoding = alt.Color(f"{color}:Q", scale=alt.Scale(scheme="viridis"),
                             legend=alt.Legend(format=TOOLTIP_NUMBER, labelLimit=0))
        tooltip.append(alt.Tooltip(f"{color}:Q", format=TOOLTIP_NUMBER))
    shown = ["node", "x", "rank", "suppressed", "classes", "status", "trace", "checked",
             *([color] if color != "status" else [])]
    missing = [c for c in shown if c not in nodes.columns]
    if missing:
        raise ValueError(f"hasse_chart: the nodes table has no column(s) {', '.join(missing)}")
    nodes = nodes[shown]  # only what is drawn: the chart's JSON carries every column it is given
    axis = alt.Axis(tickMinStep=1, format="d")  # heights are whole numbers
    x, y = alt.X("x:Q", axis=None), alt.Y("rank:Q", title="height (Σ levels)", axis=axis)
    pick = alt.selection_point(name=NODE_PICK, fields=["node"], on="click", toggle=False, clear=False)
    points = alt.Chart(nodes).mark_circle(opacity=0.9, cursor="pointer").encode(
        x=x, y=y, color=encoding,
        size=alt.Size("checked:N", scale=alt.Scale(domain=[False, True], range=[25, 110]), title="search trace",
                      legend=alt.Legend(labelExpr=words("checked by the search", "not checked"), labelLimit=0)),
        tooltip=tooltip,
    ).add_params(pick)
    layers: list[alt.Chart] = []
    if edges is not None and len(edges):
        # the same axes as the points: a layer whose x has an axis next to one with axis=None makes the browser's
        # vega-lite fail ("Cannot read properties of undefined (reading 'forEach')") and draw nothing
        layers.append(alt.Chart(edges).mark_rule(color="#dddddd", strokeWidth=0.6).encode(
            x=alt.X("x:Q", axis=None), y=alt.Y("y:Q", title="height (Σ levels)", axis=axis), x2="x2", y2="y2"))
    layers.append(points)
    for status, label in MARKED.items():  # fixed colours: the points' colour scale may be a measure's
        marked = nodes[nodes["status"] == status].assign(mark=label)
        if len(marked):
            base = alt.Chart(marked).encode(x=x, y=y, tooltip=tooltip)
            layers.append(base.mark_point(shape="diamond", size=420, filled=True, opacity=1, stroke="black",
                                          strokeWidth=1.5, cursor="pointer", fill=STATUS_COLOURS[status]))
            layers.append(base.mark_text(dy=-17, fontSize=13, fontWeight="bold", color="black").encode(text="mark:N"))
    ring = nodes[nodes["node"] == selected]
    if len(ring):
        layers.append(alt.Chart(ring).mark_point(shape="circle", size=520, filled=False, stroke="black",
                                                 strokeWidth=2, strokeDash=[3, 2]).encode(x=x, y=y, tooltip=tooltip))
    return alt.layer(*layers, *overlay).properties(width=760, height=460)


def hierarchy_tree_chart(nodes: pd.DataFrame, edges: pd.DataFrame) -> alt.LayerChart:
    """A hierarchy drawn as a tree (``Hierarchy.tree_layout``): levels left to right, the root at the right,
    each node labelled, with its records and merged values in the tooltip."""
    x = alt.X("level:Q", title="level (0 = the original value)", axis=alt.Axis(tickMinStep=1, format="d"),
              scale=alt.Scale(domain=[float(nodes["level"].min()) - 0.9, float(nodes["level"].max()) + 0.3]))
    y = alt.Y("y:Q", axis=None, scale=alt.Scale(reverse=True))
    lines = alt.Chart(edges.rename(columns={"x": "level"})).mark_rule(color="#bbbbbb").encode(
        x=x, y=y, x2="x2", y2="y2")  # the same x field as the nodes: one shared scale
    base = alt.Chart(nodes).encode(x=x, y=y, tooltip=["label", "level", "records", "original values"])
    points = base.mark_circle(size=60, color="#4c78a8", opacity=1)
    labels = base.mark_text(align="right", dx=-7, fontSize=11).encode(text="label")
    leaves = int((nodes["level"] == nodes["level"].min()).sum())
    return alt.layer(lines, points, labels).properties(width=700, height=max(120, 18 * leaves))


# ---------------------------------------------------------------------------------------------- compare page
def degradation_chart(summary: pd.DataFrame) -> alt.FacetChart:
    """Model degradation of chosen solutions (``model_degradation.degradation_summary``): accuracy and AUC drops per
    solution, one bar per classifier (0 = the release predicts as well as the original)."""
    drops = [c for c in summary.columns if c.endswith("_drop")]
    data = summary.assign(label=[f"local · {a}" if e == "local" else str(s) for e, a, s in
                                 zip(summary.engine, summary.algorithm, summary.solution, strict=True)])
    data = data.melt(id_vars=["label", "classifier"], value_vars=drops, var_name="metric", value_name="drop")
    data["metric"] = data.metric.str.removesuffix("_drop") + " drop"
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y("label:N", title=None), x=alt.X("drop:Q", title="drop (original − release)"),
        color=alt.Color("classifier:N"), yOffset="classifier:N",
        tooltip=["label", "classifier", "metric", alt.Tooltip("drop:Q", format=".4f")],
    ).properties(width=320, height=alt.Step(14)).facet(column=alt.Column("metric:N", title=None))


def record_risk_chart(records: pd.DataFrame) -> alt.Chart:
    """A histogram of record-level prosecutor risk (1 / class size) of one or more tables, one bar per risk
    value and table (``records`` as ``workbench.risk.record_risks`` gives it, with a ``table`` column), the
    share of the table's records on the y axis."""
    data = records.assign(risk_label=records["risk"].map(lambda r: f"{r:.3g}"))
    order = list(data.sort_values("risk")["risk_label"].drop_duplicates())
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("risk_label:O", sort=order, title="record risk (1 / class size)"),
        xOffset=alt.XOffset("table:N"),
        y=alt.Y("share:Q", title="share of records", axis=alt.Axis(format="%")),
        color=alt.Color("table:N", title=None),
        tooltip=["table", alt.Tooltip("risk:Q", format=".4g"), "class_size", "records", "groups",
                 alt.Tooltip("share:Q", format=".2%")],
    ).properties(height=280)
