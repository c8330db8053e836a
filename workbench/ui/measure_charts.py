"""Pure altair builders of the Measures page (``workbench/ui/measures_page.py``): two measures against each other
over every admissible node, and the admissible nodes by height with the node each measure would choose."""

from __future__ import annotations

import altair as alt
import pandas as pd

from workbench.ui.charts import measure_name, measure_title


def measure_scatter(table: pd.DataFrame, x: str, y: str, front: object, optima: dict[str, str]) -> alt.LayerChart:
    """Every admissible node under two measures, the Pareto front (the nodes no other beats under both) and each
    measure's optimum marked; hover for the node."""
    chosen = {node: " and ".join(measure_name(m) for m, n in optima.items() if n == node)
              for node in set(optima.values())}
    data = table[["node", x, y]].assign(
        pareto=front, role=[("optimum of " + chosen[n]) if n in chosen else ("Pareto front" if p else "admissible")
                            for n, p in zip(table.node, front, strict=True)])
    order = ["admissible", "Pareto front", *sorted({r for r in data.role if r.startswith("optimum")})]
    base = alt.Chart(data).encode(
        x=alt.X(f"{x}:Q", title=measure_title(x), scale=alt.Scale(zero=False)),
        y=alt.Y(f"{y}:Q", title=measure_title(y), scale=alt.Scale(zero=False)),
        tooltip=["node", alt.Tooltip(f"{x}:Q", title=measure_name(x), format=".6g"),
                 alt.Tooltip(f"{y}:Q", title=measure_name(y), format=".6g"), "role"])
    palette = ["#b0b0b0", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"][:len(order)]
    points = base.mark_point(filled=True, opacity=0.85).encode(
        color=alt.Color("role:N", sort=order, title=None, scale=alt.Scale(domain=order, range=palette),
                        legend=alt.Legend(labelLimit=0)),
        size=alt.condition("datum.role == 'admissible'", alt.value(30), alt.value(120)))
    front_line = base.transform_filter("datum.pareto").mark_line(color="#888", strokeDash=[4, 3])
    return alt.layer(front_line, points).properties(width=460, height=340)


def optima_on_the_lattice(table: pd.DataFrame, optima: dict[str, str], worst: dict[str, str] | None) -> alt.LayerChart:
    """The admissible nodes by height (the Hasse picture's levels: a node's rank is the sum of its levels), the
    node each measure would choose labelled, and one measure's worst edge drawn from child to parent."""
    ranked = table[["node", "rank"]].copy()
    ranked["position"] = ranked.groupby("rank").cumcount()
    ranked["position"] = ranked["position"] - ranked.groupby("rank")["position"].transform("max") / 2
    labels = {node: ", ".join(measure_name(m) for m, n in optima.items() if n == node) for node in set(optima.values())}
    ranked["chosen by"] = [labels.get(n, "") for n in ranked.node]
    base = alt.Chart(ranked).encode(x=alt.X("position:Q", axis=None), y=alt.Y("rank:O", sort="descending",
                                                                             title="height (sum of levels)"))
    layers = [base.mark_circle(size=25, color="#bbb").encode(tooltip=["node", "rank"]),
              base.transform_filter("datum['chosen by'] != ''").mark_circle(size=140, color="#d62728").encode(
                  tooltip=["node", "chosen by"]),
              base.transform_filter("datum['chosen by'] != ''").mark_text(align="left", dx=8, fontSize=11).encode(
                  text="chosen by:N")]
    if worst:
        at = ranked.set_index("node")
        edge = pd.DataFrame([{"end": end, "position": at.loc[worst[end], "position"],
                              "rank": at.loc[worst[end], "rank"]} for end in ("child", "parent")])
        layers.append(alt.Chart(edge).mark_line(color="#ff7f0e", strokeWidth=3).encode(
            x="position:Q", y=alt.Y("rank:O", sort="descending"), tooltip=["end"]))
    return alt.layer(*layers).properties(width=620, height=360)
