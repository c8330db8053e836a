"""The risk–utility scatter: every solution's re-identification risk against its information loss, the Pareto front
of the two joined by a line (the trade-off an ethics board and an analyst negotiate; El Emam 2013 ch. 7; ARX's
risk–utility view). A pure altair builder (no streamlit): the Compare and Risk pages, the CLI's ``compare --out``
and the report draw it from ``workbench.compare.risk_utility``'s table."""

from __future__ import annotations

import altair as alt
import pandas as pd

from workbench.ui.charts import measure_name, measure_title, words


def risk_utility_chart(points: pd.DataFrame, utility: str, risk: str = "risk_average") -> alt.LayerChart:
    """``points``: a ``compare.risk_utility`` table (``risk``, ``utility``, ``pareto``, ``engine``, ...);
    ``utility`` (a measure id) and ``risk`` (a ``compare.RISK_COLUMNS`` name) name the axes, in words. Lower-left is
    better when the utility measure is a loss."""
    base = alt.Chart(points)
    said = risk.removeprefix("risk_").replace("_", " ")
    dots = base.mark_point(filled=True, size=70).encode(
        x=alt.X("utility:Q", title=measure_title(utility)),
        y=alt.Y("risk:Q", title=said, scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("engine:N"),
        shape=alt.Shape("pareto:N", title="Pareto front",
                        legend=alt.Legend(labelExpr=words("on the Pareto front", "not on it"), labelLimit=0)),
        tooltip=["engine", "algorithm", "solution", "k",
                 alt.Tooltip("utility:Q", title=measure_name(utility), format=".4g"),
                 alt.Tooltip("risk:Q", title=said, format=".4g")],
    )
    front = base.transform_filter(alt.datum.pareto).mark_line(color="gray", strokeDash=[4, 3]).encode(
        x="utility:Q", y="risk:Q", order="utility:Q")
    return alt.layer(front, dots).properties(width=420, height=320)
