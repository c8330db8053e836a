"""Chart builders: pure DataFrame -> altair Chart functions (testable with ``chart.to_dict()``)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

alt.data_transformers.disable_max_rows()  # lattices of several thousand nodes are drawn in full


def relative_loss_chart(df: pd.DataFrame) -> alt.FacetChart:
    """El Emam 2009's comparison: relative information loss (%) against k, one panel per measure and
    suppression limit, one line per algorithm; the 100 % line is the optimum."""
    data = df.assign(max_suppression=(df.max_suppression * 100).round(1).astype(str) + " %")
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
    data = df.assign(pareto=front if front is not None else False)
    return alt.Chart(data).mark_point(filled=True, size=70).encode(
        x=alt.X(f"{x}:Q", title=x), y=alt.Y(f"{y}:Q", title=y),
        color=alt.Color("engine:N"), shape=alt.Shape("pareto:N", title="Pareto front"),
        tooltip=["engine", "algorithm", "solution", alt.Tooltip(f"{x}:Q", format=".4g"),
                 alt.Tooltip(f"{y}:Q", format=".4g")],
    ).properties(width=420, height=320)


def rank_heatmap(tau: pd.DataFrame) -> alt.Chart:
    """Kendall τ between measures' rankings of the candidates."""
    data = tau.reset_index(names="a").melt(id_vars="a", var_name="b", value_name="tau")
    return alt.Chart(data).mark_rect().encode(
        x=alt.X("a:N", title=None), y=alt.Y("b:N", title=None),
        color=alt.Color("tau:Q", scale=alt.Scale(domain=[-1, 1], scheme="redblue")),
        tooltip=["a", "b", alt.Tooltip("tau:Q", format=".2f")],
    ).properties(width=300, height=300)


def sweep_chart(df: pd.DataFrame, measure_ids: list[str]) -> alt.FacetChart:
    """How each measure degrades as k grows: the best solution per engine/algorithm at each k."""
    best = df.groupby(["k", "engine", "algorithm"], as_index=False)[measure_ids].min()
    data = best.melt(id_vars=["k", "engine", "algorithm"], value_vars=measure_ids, var_name="measure")
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("k:O"), y=alt.Y("value:Q", title=None), color=alt.Color("algorithm:N"),
        tooltip=["algorithm", "k", "measure", alt.Tooltip("value:Q", format=".4g")],
    ).properties(width=200, height=140).facet(facet=alt.Facet("measure:N", title=None), columns=3).resolve_scale(
        y="independent")


def hasse_layout(nodes: pd.DataFrame, quasi_identifiers: list[str]) -> pd.DataFrame:
    """Positions for a Hasse diagram: y = rank (height), x = position within the rank, centred."""
    out = nodes.copy()
    out["x"] = 0.0
    for _, idx in out.groupby("rank").groups.items():
        order = out.loc[idx].sort_values(quasi_identifiers).index
        out.loc[order, "x"] = np.arange(len(order)) - (len(order) - 1) / 2
    return out


def hasse_edges(nodes: pd.DataFrame, quasi_identifiers: list[str]) -> pd.DataFrame:
    """One row per lattice edge (node → direct generalization) with both ends' positions."""
    pos = {tuple(r[quasi_identifiers]): (r.x, r["rank"]) for _, r in nodes.iterrows()}
    rows = []
    for node, (x, y) in pos.items():
        for j in range(len(node)):
            succ = node[:j] + (node[j] + 1,) + node[j + 1:]
            if succ in pos:
                rows.append({"x": x, "y": y, "x2": pos[succ][0], "y2": pos[succ][1]})
    return pd.DataFrame(rows, columns=["x", "y", "x2", "y2"])


def hasse_chart(nodes: pd.DataFrame, edges: pd.DataFrame | None, color: str) -> alt.LayerChart:
    """The generalization lattice (El Emam 2009, Fig. 2): nodes by height, edges to successors, coloured by
    status ("k-anonymous", "not k-anonymous", "optimum") or by a measure; checked nodes of the search trace
    drawn larger, with their order in the tooltip."""
    tooltip = ["node", "rank", "suppressed", "classes", "status", "trace"]
    if color == "status":
        encoding = alt.Color("status:N", scale=alt.Scale(domain=["optimum", "k-anonymous", "not k-anonymous"],
                                                         range=["#d62728", "#2ca02c", "#bbbbbb"]))
    else:
        encoding = alt.Color(f"{color}:Q", scale=alt.Scale(scheme="viridis"))
        tooltip.append(alt.Tooltip(f"{color}:Q", format=".5g"))
    points = alt.Chart(nodes).mark_circle(opacity=0.9).encode(
        x=alt.X("x:Q", axis=None), y=alt.Y("rank:Q", title="height (Σ levels)"), color=encoding,
        size=alt.Size("checked:N", scale=alt.Scale(domain=[False, True], range=[25, 110]), title="checked"),
        tooltip=tooltip,
    )
    layers = [points]
    if edges is not None and len(edges):
        lines = alt.Chart(edges).mark_rule(color="#dddddd", strokeWidth=0.6).encode(x="x:Q", y="y:Q", x2="x2", y2="y2")
        layers = [lines, points]
    return alt.layer(*layers).properties(width=760, height=460).interactive()
