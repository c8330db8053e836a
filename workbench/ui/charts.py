"""Chart builders: pure DataFrame -> altair Chart functions (testable with ``chart.to_dict()``)."""

from __future__ import annotations

import altair as alt
import pandas as pd


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
