"""Charts as inline SVG: altair specs (the app's pure builders in ``workbench.ui.charts``) rendered by vl-convert,
so a report or a notebook output shows them without a script, a font or anything else fetched from a network."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pandas as pd

_COUNTER = itertools.count(1)
_ID = re.compile(r'\bid="([^"]+)"')


def svg(chart: Any) -> str:
    """The chart (an altair chart or a Vega-Lite dict) as one ``<svg>`` element. Element ids are made unique per
    call, so several charts inline in one page never point at each other's clip paths or gradients."""
    import vl_convert as vlc

    spec = chart if isinstance(chart, dict) else chart.to_dict()
    text = vlc.vegalite_to_svg(spec)
    text = text[text.index("<svg"):]  # no XML declaration inside an HTML page
    prefix = f"c{next(_COUNTER)}-"
    for name in sorted(set(_ID.findall(text)), key=len, reverse=True):
        text = text.replace(f'id="{name}"', f'id="{prefix}{name}"').replace(f"url(#{name})", f"url(#{prefix}{name})")
        text = text.replace(f'href="#{name}"', f'href="#{prefix}{name}"')
    return text


def risk_histogram(records: pd.DataFrame) -> Any:
    """Record-level prosecutor risk of one or more tables (``workbench.risk.record_risks`` rows with a ``table``
    column): the app's Risk-page chart, sized for a page."""
    from workbench.ui.charts import record_risk_chart

    return record_risk_chart(records).properties(width=480, height=220)


def pareto(table: pd.DataFrame, x: str, y: str, front: Any) -> Any:
    """The alternatives under two measures, the Pareto front marked (the app's Compare-page chart)."""
    from workbench.ui.charts import pareto_chart

    return pareto_chart(table, x, y, front).properties(width=420, height=280)


def hierarchy_tree(nodes: pd.DataFrame, edges: pd.DataFrame) -> Any:
    """A hierarchy drawn as a small tree (``Hierarchy.tree_layout``): the app's Hierarchies-page chart."""
    from workbench.ui.charts import hierarchy_tree_chart

    leaves = int((nodes["level"] == nodes["level"].min()).sum())
    return hierarchy_tree_chart(nodes, edges).properties(width=460, height=max(80, 14 * leaves))
