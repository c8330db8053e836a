"""The Geography page: the province's fine regions aggregated by VBAS and by the GeoLeader-like baseline side by
side (Croft et al. 2015), their measures, and VBAS's site-count sweep. The page computes nothing itself: every
number comes from ``workbench.geo`` (the same calls as ``workbench geo``)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from workbench import geography
from workbench.ui import state

SWEEP_SITES = (5, 10, 20, 40, 80, 120, 160, 200)


@st.cache_resource(show_spinner=False)
def _problem(roles: tuple[str, ...]) -> geography.GeoProblem:
    from workbench.data import Dataset
    from workbench.geography import points_from_frame
    from workbench.samples import province

    frame, points = province.generate()
    hierarchies = province.hierarchies(points)
    chosen = {"region": "quasi", **{q: "quasi" for q in roles}}
    dataset = Dataset.create(frame, chosen, {q: hierarchies[q] for q in chosen})
    return geography.prepare(dataset, "region", points_from_frame(points, "province points"))


@st.cache_data(show_spinner=False, max_entries=16)
def _run(roles: tuple[str, ...], method: str, value: float, k: int,
         limit_percent: float) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    problem = _problem(roles)
    if method == "vbas":
        result = geography.anonymize(problem, geography.aggregate(problem, "vbas", sites=int(value)), k)
        xy = problem.points.xy
        pad = 0.02 * float(np.ptp(xy, axis=0).max())
        box = (xy[:, 0].min() - pad, xy[:, 1].min() - pad, xy[:, 0].max() + pad, xy[:, 1].max() + pad)
        cells = geography.cell_polygons(result.aggregation.sites, box)
    else:
        result = geography.anonymize(problem, geography.aggregate(problem, "geoleader", cutoff=float(value)), k)
        cells = pd.DataFrame(columns=["site", "order", "x", "y"])
    setting = f"The suppression limit of {limit_percent:g} % set on the other pages"
    return result.summary(limit_percent / 100, setting), result.region_table(), cells


@st.cache_data(show_spinner=False, max_entries=8)
def _sweep(roles: tuple[str, ...], k: int) -> pd.DataFrame:
    return geography.sweep(_problem(roles), SWEEP_SITES, k)


def _map(regions: pd.DataFrame, cells: pd.DataFrame) -> alt.Chart:
    """Fine regions as points coloured by aggregated region (crosses: regions with suppressed records), over the
    Voronoi cells of VBAS's sites."""
    scale = alt.Scale(zero=False)
    points = alt.Chart(regions.assign(has_suppressed=np.where(regions["suppressed"] > 0, "some suppressed",
                                                              "none suppressed"))).mark_point(filled=True, size=40)
    points = points.encode(
        x=alt.X("x:Q", scale=scale, title="x (m)"), y=alt.Y("y:Q", scale=scale, title="y (m)"),
        color=alt.Color("aggregated:N", legend=None, scale=alt.Scale(scheme="tableau20")),
        shape=alt.Shape("has_suppressed:N", title="records", scale=alt.Scale(range=["circle", "cross"])),
        tooltip=["region", "aggregated", "population", "records", "suppressed"])
    if cells.empty:
        return points.properties(height=320)
    closed = pd.concat([cells, cells.groupby("site").head(1)], ignore_index=True)  # back to the first vertex
    polygons = alt.Chart(closed.assign(order=closed.groupby("site").cumcount())).mark_line(
        color="#666", strokeWidth=0.8).encode(x="x:Q", y="y:Q", detail="site:N", order="order:Q")
    return (polygons + points).properties(height=320)


def _sweep_chart(table: pd.DataFrame) -> alt.Chart:
    long = table.melt(id_vars=["sites"], value_vars=["suppressed", "compactness"], var_name="measure")
    return alt.Chart(long).mark_line(point=True).encode(
        x=alt.X("sites:Q", title="number of sites s"), y=alt.Y("value:Q", title=None),
        color="measure:N", tooltip=["sites", "measure", "value"]).properties(height=200).facet(
        column=alt.Column("measure:N", title=None)).resolve_scale(y="independent")


def page(source: object = None) -> None:
    """The page (it works on the embedded ``province`` sample, whatever dataset is chosen)."""
    st.header("Geography: aggregating fine regions")
    st.caption("Croft et al. 2015: VBAS places Voronoi sites by balanced density and aggregates each fine region "
               "into the cell of its nearest site; the GeoLeader-like baseline merges the least populous region "
               "with the neighbour that keeps the regions most compact until every region exceeds a population "
               "cut-off. Then every equivalence class still below k is suppressed. Data: the synthetic province "
               "sample (200 regions of 400-700 people).")
    options = ["sex", "age", "marital_status", "education", "income", "household_size"]
    roles = tuple(st.multiselect("Quasi-identifiers besides the region", options, default=["sex", "age"],
                                 key="geo_qis"))
    cols = st.columns(3)
    k = int(cols[0].number_input("k", min_value=1, max_value=1000, value=5, key="geo_k"))
    sites = int(cols[1].slider("VBAS: number of sites", 2, 200, 20, key="geo_sites"))
    cutoff = float(cols[2].number_input("GeoLeader-like: population cut-off", min_value=1, max_value=100_000,
                                        value=5000, step=500, key="geo_cutoff"))
    left, right = st.columns(2)
    for column, method, value in ((left, "vbas", sites), (right, "geoleader", cutoff)):
        summary, regions, cells = _run(roles, method, value, k, state.privacy().suppression_percent)
        with column:
            st.subheader(geography.METHOD_LABELS[method])
            st.write(summary["guarantee"])
            metrics = st.columns(3)
            asked = f"of {summary['sites']} sites asked for" if summary["sites"] is not None else None
            metrics[0].metric("regions", summary["regions"], help=asked)
            metrics[1].metric("suppressed", f"{summary['suppressed']:,}")
            metrics[2].metric("seconds", f"{summary['seconds']:.3f}")
            if asked:
                st.caption(f"{summary['regions']} aggregated regions {asked}")
            for warning in summary.get("warnings", []):
                st.warning(warning)
            st.altair_chart(_map(regions, cells), use_container_width=True)
            measures = geography.GEO_MEASURES
            st.dataframe(pd.DataFrame([{"measure": measures[m].name, "value": v, "formula": measures[m].formula,
                                        "source": measures[m].source} for m, v in summary["measures"].items()]),
                         hide_index=True)
    st.subheader("VBAS: suppression against compactness as the number of sites grows")
    table = _sweep(roles, k)
    st.altair_chart(_sweep_chart(table), use_container_width=True)
    st.dataframe(table, hide_index=True)
    st.info("From a shell: `workbench geo sample_configs/province_geo.toml --json` runs the same engine.")
