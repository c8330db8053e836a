"""Charts as inline SVG: altair specs (the app's pure builders in ``workbench.ui.charts``) rendered by vl-convert,
so a report or a notebook output shows them without a script, a font or anything else fetched from a network."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pandas as pd

_COUNTER = itertools.count(1)
FONT = "DejaVu Sans"
"""The charts' font, the page's first: vl-convert sizes a chart by its text measured in this font, so a legend or
label drawn in it fits the chart (measured in a narrower font, "Pareto front" was cut to "Pareto fron")."""
CHAR_WIDTH = 6.6  # px of one character of an 11 px label in DejaVu Sans, on average (for sizing a tree's levels)
RISK_BANDS = ((1, 1), (2, 2), (3, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, 999), (1000, None))
"""Group sizes the risk histogram counts records in: a record in a group of s identical rows has risk 1 / s."""
_ID = re.compile(r'\bid="([^"]+)"')


def svg(chart: Any) -> str:
    """The chart (an altair chart or a Vega-Lite dict) as one ``<svg>`` element. Element ids are made unique per
    call, so several charts inline in one page never point at each other's clip paths or gradients."""
    import vl_convert as vlc

    spec = dict(chart if isinstance(chart, dict) else chart.to_dict())
    spec["config"] = {**spec.get("config", {}), "font": FONT}  # measured in the font the page draws it in
    text = vlc.vegalite_to_svg(spec)
    text = text[text.index("<svg"):]  # no XML declaration inside an HTML page
    prefix = f"c{next(_COUNTER)}-"
    for name in sorted(set(_ID.findall(text)), key=len, reverse=True):
        text = text.replace(f'id="{name}"', f'id="{prefix}{name}"').replace(f"url(#{name})", f"url(#{prefix}{name})")
        text = text.replace(f'href="#{name}"', f'href="#{prefix}{name}"')
    return text


def risk_bands(records: pd.DataFrame) -> pd.DataFrame:
    """Record-level prosecutor risk (``workbench.risk.record_risks`` rows with a ``table`` column) summed into the
    bands of group size of ``RISK_BANDS``: one row per table and band, with the band's ``label``, its ``order``,
    the ``records`` in it and their ``share`` of the table's records (every band, empty ones as 0)."""
    rows = []
    for table, part in records.groupby("table", sort=False):
        for order, (low, high) in enumerate(RISK_BANDS):
            inside = (part["class_size"] >= low) & ((part["class_size"] <= high) if high is not None else True)
            label = (f"{low:,}" if low == high else f"{low:,}–{high:,}" if high is not None else f"{low:,}+")
            rows.append({"table": table, "band": label, "order": order,
                         "records": int(part.loc[inside, "records"].sum()),
                         "share": float(part.loc[inside, "share"].sum())})
    return pd.DataFrame(rows)


def risk_histogram(records: pd.DataFrame) -> Any:
    """Record-level prosecutor risk of the input and the chosen release (``workbench.risk.record_risks`` rows with a
    ``table`` column, "input" and "release"): the share of each table's records by the size of their group, in the
    bands of ``RISK_BANDS`` (a few horizontal axis labels that never overlap, however many group sizes occur)."""
    import altair as alt

    bands = risk_bands(records.assign(table=records["table"].replace({"release": "the chosen release"})))
    order = list(bands.sort_values("order")["band"].drop_duplicates())
    return alt.Chart(bands).mark_bar().encode(
        x=alt.X("band:O", sort=order, title=["records whose group of identical quasi-identifier rows has this size",
                                              "(a record's risk is 1 / the size)"],
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("table:N", sort=["input", "the chosen release"]),
        y=alt.Y("share:Q", title="share of records", axis=alt.Axis(format="%", tickCount=5)),
        color=alt.Color("table:N", title=None, sort=["input", "the chosen release"],
                        legend=alt.Legend(orient="top", labelLimit=0)),
    ).properties(width=520, height=200)


def pareto(table: pd.DataFrame, x: str, y: str, front: Any, chosen: Any = None) -> Any:
    """The alternatives under two measures, the Pareto front marked (the app's Compare-page chart), and the chosen
    release (the row labelled ``chosen`` of ``table``) ringed in red, the ring named "the chosen release" in the
    legend (a label beside the point would lie on the points around it)."""
    import altair as alt

    from workbench.ui.charts import measure_title, pareto_chart

    base = pareto_chart(table, x, y, front).properties(width=440, height=280)
    layers = [base]
    if chosen is not None and chosen in table.index:
        point = table.loc[[chosen], [x, y]].assign(release="the chosen release")
        layers.append(alt.Chart(point).mark_point(shape="circle", size=340, filled=False, strokeWidth=2.5).encode(
            x=alt.X(f"{x}:Q", title=measure_title(x)), y=alt.Y(f"{y}:Q", title=measure_title(y)),
            stroke=alt.Stroke("release:N", title=None, scale=alt.Scale(range=["#b42318"]))))
    return alt.layer(*layers).configure_legend(orient="bottom", direction="horizontal", labelLimit=0, titleLimit=0)


def hierarchy_tree(nodes: pd.DataFrame, edges: pd.DataFrame) -> Any:
    """A hierarchy drawn as a small tree (``Hierarchy.tree_layout``): the app's Hierarchies-page chart, each level
    as far from the next as its longest label needs (a label is drawn left of its node, so it never runs into the
    level below), scaled down to the page's width when that is wider."""
    from workbench.ui.charts import hierarchy_tree_chart

    low = int(nodes["level"].min())
    longest = nodes.assign(chars=nodes["label"].astype(str).str.len()).groupby("level")["chars"].max()
    step = max([90.0, (longest.get(low, 1) * CHAR_WIDTH + 12) / 0.9]  # the leaves' labels left of the first level
               + [longest[lv] * CHAR_WIDTH + 24 for lv in longest.index if lv > low])
    span = float(nodes["level"].max()) - low + 1.2  # the x domain of hierarchy_tree_chart
    leaves = int((nodes["level"] == low).sum())
    return hierarchy_tree_chart(nodes, edges).properties(width=round(step * span), height=max(80, 14 * leaves))
