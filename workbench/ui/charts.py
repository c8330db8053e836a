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
