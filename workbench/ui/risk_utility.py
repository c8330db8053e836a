"""The risk–utility scatter: every solution's re-identification risk against its information loss, the Pareto front
of the two joined by a line (the trade-off an ethics board and an analyst negotiate; El Emam 2013 ch. 7; ARX's
risk–utility view). A pure altair builder (no streamlit): the Compare and Risk pages, the CLI's ``compare --out``
and the report draw it from ``workbench.compare.risk_utility``'s table."""

from __future__ import annotations

import altair as alt
import pandas as pd


def risk_utility_chart(points: pd.DataFrame, utility: str, risk: str = "risk_average") -> alt.LayerChart:
    """``points``: a ``compare.risk_utility`` table (``risk``, ``utility``, ``pareto``, ``engine``, ...);
    ``utility`` and ``risk`` name the axes. Lower-left is better when the utility measure is a loss."""
    base = alt.Chart(points)
    dots = base.mark_point(filled=True, size=70).encode(
        x=alt.X("utility:Q", title=f"{utility} (information loss)"),
        y=alt.Y("risk:Q", title=risk.replace("_", " "), scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("engine:N"), shape=alt.Shape("pareto:N", title="Pareto front"),
        tooltip=["engine", "algorithm", "solution", "k", alt.Tooltip("utility:Q", title=utility, format=".4g"),
                 alt.Tooltip("risk:Q", title=risk, format=".4g")],
    )
    front = base.transform_filter(alt.datum.pareto).mark_line(color="gray", strokeDash=[4, 3]).encode(
        x="utility:Q", y="risk:Q", order="utility:Q")
    return alt.layer(front, dots).properties(width=420, height=320)
