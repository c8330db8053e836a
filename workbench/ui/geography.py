"""The Geography page: the fine regions of the current dataset aggregated by VBAS and by the GeoLeader-like baseline
side by side (Croft et al. 2015), their measures, and VBAS's site-count sweep. The data (a sample with its own
points, or any dataset with an uploaded points table) comes from ``workbench.ui.geography_data``. The page computes
nothing itself: every number comes from ``workbench.geo.scored`` (the same calls as ``workbench geo``)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from measures.geography import GEO_MEASURES
from workbench.errors import WorkbenchError
from workbench.geo.config import METHOD_LABELS
from workbench.ui import format, geography_data, state
from workbench.ui.format import md

MAP_WIDTH, MAP_HEIGHT = 400, 340  # pixels of a map's plot (the legend below it)
SWEEP_WIDTH = 330  # pixels of each of the sweep's two charts


def _equal_aspect(regions: pd.DataFrame, pad: float = 0.06) -> tuple[alt.Scale, alt.Scale]:
    """x and y scales with as many metres per pixel on both axes, so the map is not stretched."""
    lo, hi = regions[["x", "y"]].min().to_numpy(float), regions[["x", "y"]].max().to_numpy(float)
    centre, span = (lo + hi) / 2, np.maximum(hi - lo, 1.0) * (1 + 2 * pad)
    per_pixel = max(span[0] / MAP_WIDTH, span[1] / MAP_HEIGHT)
    half = per_pixel * np.array([MAP_WIDTH, MAP_HEIGHT]) / 2
    return (alt.Scale(domain=[float(centre[0] - half[0]), float(centre[0] + half[0])], nice=False),
            alt.Scale(domain=[float(centre[1] - half[1]), float(centre[1] + half[1])], nice=False))


def _map(regions: pd.DataFrame, cells: pd.DataFrame) -> alt.Chart:
    """Fine regions as points coloured by aggregated region (crosses: regions with suppressed records), over the
    Voronoi cells of VBAS's sites; equal scales on both axes."""
    x_scale, y_scale = _equal_aspect(regions)
    points = alt.Chart(regions.assign(has_suppressed=np.where(regions["suppressed"] > 0, "some suppressed",
                                                              "none suppressed"))).mark_point(filled=True, size=40,
                                                                                              clip=True)
    points = points.encode(
        x=alt.X("x:Q", scale=x_scale, title="x (m)"), y=alt.Y("y:Q", scale=y_scale, title="y (m)"),
        color=alt.Color("aggregated:N", legend=None, scale=alt.Scale(scheme="tableau20")),
        shape=alt.Shape("has_suppressed:N", title="records", scale=alt.Scale(range=["circle", "cross"]),
                        legend=alt.Legend(orient="bottom")),
        tooltip=["region", "aggregated", "population", "records", "suppressed"])
    size = {"width": MAP_WIDTH, "height": MAP_HEIGHT}
    if cells.empty:
        return points.properties(**size)
    closed = pd.concat([cells, cells.groupby("site").head(1)], ignore_index=True)  # back to the first vertex
    polygons = alt.Chart(closed.assign(order=closed.groupby("site").cumcount())).mark_line(
        color="#666", strokeWidth=0.8, clip=True).encode(x=alt.X("x:Q", scale=x_scale), y=alt.Y("y:Q", scale=y_scale),
                                                         detail="site:N", order="order:Q")
    return (polygons + points).properties(**size)


def _sweep_chart(table: pd.DataFrame) -> alt.Chart:
    long = table.melt(id_vars=["sites"], value_vars=["suppressed", "compactness"], var_name="measure")
    return alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("sites:Q", title="number of sites s"), y=alt.Y("value:Q", title=None),
        color=alt.Color("measure:N", legend=None), tooltip=["sites", "measure", "value"]).properties(
        width=SWEEP_WIDTH, height=200).facet(column=alt.Column("measure:N", title=None)).resolve_scale(y="independent")


def _default_cutoff(total: float) -> int:
    """A twentieth of the total population, to two significant digits (the cut-off widget's first value)."""
    twentieth = max(total / 20, 1.0)
    step = 10 ** max(int(np.floor(np.log10(twentieth))) - 1, 0)
    return int(max(round(twentieth / step) * step, 1))


def page(source: object = None) -> None:
    """The page: the current dataset's fine regions (a sample's own points, or an uploaded points table)."""
    st.header("Geography: aggregating fine regions")
    st.caption("Croft et al. 2015: VBAS places Voronoi sites by balanced density and aggregates each fine region "
               "into the cell of its nearest site; the GeoLeader-like baseline merges the least populous region "
               "with the neighbour that keeps the regions most compact until every region exceeds a population "
               "cut-off. Then every equivalence class still below k is suppressed, without limit. The province "
               "and registry samples carry their regions' points; for any other data, upload a points table.")
    data = geography_data.choose()
    if data is None:
        return
    problem = data.problem
    total = float(problem.population.sum())
    st.caption(f"{md(data.label)}: {problem.regions:,} fine regions, {problem.dataset.n:,} records, population "
               f"{total:,.0f}")
    if problem.regions < 2:
        st.warning("There is a single region: nothing to aggregate.")
        return
    cols = st.columns(3)
    k = state.k_input(cols[0])
    sites = int(cols[1].slider("VBAS: number of sites", 1, problem.regions, min(20, problem.regions),
                               key=f"geo_sites:{data.tag}"))
    top = max(int(np.ceil(total)) - 1, 1)  # the cut-off must be below the total population
    cutoff = float(cols[2].number_input("GeoLeader-like: population cut-off", min_value=1, max_value=top,
                                        value=min(_default_cutoff(total), top), key=f"geo_cutoff:{data.tag}",
                                        help="a region passes when its population exceeds this"))
    left, right = st.columns(2)
    for column, method, value in ((left, "vbas", sites), (right, "geoleader", cutoff)):
        try:
            summary, regions, cells = geography_data.run(data, method, value, k)
        except WorkbenchError as exc:
            column.error(md(str(exc).splitlines()[0]))
            continue
        with column:
            st.subheader(METHOD_LABELS[method])
            st.write(md(summary["guarantee"]))
            metrics = st.columns(3)
            asked = f"of {summary['sites']} sites asked for" if summary["sites"] is not None else None
            metrics[0].metric("regions", summary["regions"], help=asked)
            metrics[1].metric("suppressed", f"{summary['suppressed']:,}")
            metrics[2].metric("seconds", f"{summary['seconds']:.3f}")
            if asked:
                st.caption(f"{summary['regions']} aggregated regions {asked}")
            for warning in summary.get("warnings", []):
                st.warning(md(warning))
            st.altair_chart(_map(regions, cells), width="content")
            measures = GEO_MEASURES
            format.show(pd.DataFrame([{"measure": measures[m].name, "value": v, "formula": measures[m].formula,
                                       "source": measures[m].source} for m, v in summary["measures"].items()]))
    st.subheader("VBAS: suppression against compactness as the number of sites grows")
    table = geography_data.sweep(data, k)
    st.altair_chart(_sweep_chart(table), width="content")
    format.show(table, labels={m: g.name for m, g in GEO_MEASURES.items()})
    st.info("From a shell: `workbench geo CONFIG --json` runs the same engine (sample_configs/province_geo.toml, "
            "sample_configs/registry_geo.toml; for your data, a `[geo]` table with `points`).")
