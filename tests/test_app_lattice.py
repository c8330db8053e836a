"""The Lattice page's node drill-down, comparison and per-height view (streamlit.testing AppTest)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests._app import goto

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _lattice_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Lattice").run()
    assert not at.exception
    return at


def _labels(at: AppTest, key: str) -> list[str]:
    return list(at.selectbox(key=key).options)


def test_node_drill_down_shows_classes_suppressed_records_and_contributions():
    at = _lattice_page()
    node = at.selectbox(key="lat_node")
    assert node.value in _labels(at, "lat_node")
    metrics = {m.label: m.value for m in at.metric}
    assert {"equivalence classes released", "suppressed records", "k-anonymous"} <= set(metrics)
    # the bottom node of the 10-record teaching table: every record alone, all suppressed at k = 5
    bottom = next(x for x in _labels(at, "lat_node") if all(p.endswith("=0") for p in x.split(",")))
    node.select(bottom).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["suppressed records"] == "10 (100.0 %)" and metrics["k-anonymous"] == "no"
    assert metrics["equivalence classes released"] == "0"  # every record suppressed: no class is released
    specs = [c.proto.spec for c in at.get("vega_lite_chart")]
    assert any("class size" in s for s in specs) and any("contribution to" in s for s in specs)
    shown = [df.value for df in at.dataframe]
    assert any("size" in df.columns and df["records"].sum() == 10 for df in shown)
    assert any(len(df) == 10 and "age" in df.columns for df in shown)  # the suppressed records' original values
    at.selectbox(key="lat_contrib").select("entropy").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "dm_star" in captions and "jointly" in captions  # DM* does not decompose: said so


def test_compare_with_another_node():
    at = _lattice_page()
    labels = _labels(at, "lat_node")
    a, b = labels[0], labels[-1]
    at.selectbox(key="lat_node").select(a).run()
    at.selectbox(key="lat_compare").select(b).run()
    assert not at.exception
    tables = [df.value for df in at.dataframe]
    levels = next(df for df in tables if list(df.columns) == ["attribute", "a", "b", "difference"])
    assert (levels["difference"] > 0).all()  # bottom against top: every attribute generalized
    changed = next(df for df in tables if "records_changed" in df.columns)
    assert (changed["records_changed"] <= 10).all() and changed["records_changed"].sum() > 0


def test_per_height_view_and_colour_by_measure():
    at = _lattice_page()
    at.radio(key="lat_view").set_value("Per height").run()
    assert not at.exception
    summary = next(df.value for df in at.dataframe if "nodes" in df.value.columns)
    assert summary["nodes"].sum() == 30
    at.selectbox(key="lat_color").select("loss").run()
    assert not at.exception
    summary = next(df.value for df in at.dataframe if "nodes" in df.value.columns)
    assert {"loss_min", "loss_median"} <= set(summary.columns)
    at.radio(key="lat_view").set_value("Hasse diagram").run()
    at.number_input(key="an_k").set_value(2).run()  # a new k: a new node table
    assert not at.exception


def test_the_view_stays_as_the_analyst_left_it(monkeypatch):
    """On a large lattice (more than ``LARGE`` nodes: here 10, the teaching lattice has 30) the page opens per height;
    the Hasse diagram chosen there is still chosen after a visit to another page, and so is the per-height view on a
    small lattice."""
    from workbench.ui import lattice

    monkeypatch.setattr(lattice, "LARGE", 10)
    at = _lattice_page()
    assert at.radio(key="lat_view").value == "Per height"  # large: one row per height first
    at.radio(key="lat_view").set_value("Hasse diagram").run()
    for page in ("Data", "Compare", "Lattice"):
        goto(at, page).run()
        assert not at.exception
    assert at.radio(key="lat_view").value == "Hasse diagram"
    assert not any("nodes" in df.value.columns for df in at.dataframe)  # no per-height table: the diagram
    monkeypatch.setattr(lattice, "LARGE", 5000)
    at.radio(key="lat_view").set_value("Per height").run()
    goto(at, "Risk").run()
    goto(at, "Lattice").run()
    assert at.radio(key="lat_view").value == "Per height"
    assert any("nodes" in df.value.columns for df in at.dataframe)


def test_a_large_lattice_says_where_the_optimum_is_and_what_is_not_drawn(monkeypatch):
    """Above ``LARGE`` nodes (here 10; the teaching lattice has 30, heights 0-7): the per-height view speaks of bars
    and the optimum's height (no diamond there), counts the nodes the search checked, and the Hasse diagram opens on
    a band of heights around the optimum, saying how many nodes it leaves out."""
    import re

    from workbench.ui import lattice

    monkeypatch.setattr(lattice, "LARGE", 10)
    at = _lattice_page()
    note = next(c.value for c in at.caption if c.value.startswith("Optimum under"))
    height = int(re.search(r"at height (\d+)", note).group(1))
    assert "dashed line" in note and "diamond" not in note
    assert any("orange bars count them per height" in c.value for c in at.caption)
    assert any(f"The optimum is at height {height}." in c.value for c in at.caption)
    summary = next(df.value for df in at.dataframe if "nodes" in df.value.columns)
    checked = next(c.value for c in at.caption if "checked" in c.value and "of them" in c.value)
    assert summary["checked"].sum() == int(re.search(r"checked ([\d,]+) of them", checked).group(1))
    at.radio(key="lat_view").set_value("Hasse diagram").run()
    low, high = at.slider(key="lat_band").value
    assert low <= height <= high and (low, high) == lattice.band_around(height, 7)
    drawn = next(c.value for c in at.caption if c.value.startswith(f"Heights {low}–{high} of 0–7 drawn"))
    assert "are not drawn" in drawn and "red diamond" in next(c.value for c in at.caption
                                                             if c.value.startswith("Optimum under"))
    at.slider(key="lat_band").set_value((0, 1)).run()  # the optimum left out: said so
    assert any("the optimum" in c.value and "outside the band" in c.value for c in at.caption) or height <= 1
    assert lattice.band_around(None, 7) == (0, 6) and lattice.band_around(9, 12) == (6, 12)
    assert lattice.band_around(1, 20) == (0, 6) and lattice.band_around(3, 4) == (0, 4)


def test_a_lattice_too_large_for_the_node_table_shows_the_search_region(monkeypatch):
    """Above ``policy.MAX_LATTICE_NODES`` (here 10) the page no longer refuses: it shows what the search checked,
    predicted and pruned per height, its node and height, and says what is not shown."""
    from workbench import policy

    monkeypatch.setattr(policy, "MAX_LATTICE_NODES", 10)
    at = _lattice_page()
    assert not at.error
    assert any("too many to evaluate each one" in c.value and "not shown" in c.value for c in at.caption)
    region = next(df.value for df in at.dataframe if "pruned" in df.value.columns)
    assert region["nodes"].sum() == 30 and region["checked"].sum() > 0
    assert any("flash returned" in c.value and "proven optimal" in c.value for c in at.caption)


# ---------------------------------------------------------------------------------------------- chart builders
def _registry_like():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _random_tables import random_dataset

    from workbench.config import Study
    from workbench.views.node_details import node_details

    ds = random_dataset(21, max_rows=40, max_qis=3)
    study = Study(source="t", base_dir=Path("."), data_path=None, separator=None, sample=None, rows=None,
                  attributes=(), k=3, max_suppression=0.1)
    return ds, study, node_details(study, ds, tuple(0 for _ in ds.quasi_identifiers))


def test_class_size_histogram_spec():
    from workbench.ui.node_charts import class_size_histogram

    _, _, d = _registry_like()
    spec = class_size_histogram(d.class_sizes, d.k).to_dict()
    bars, rule = spec["layer"]
    assert bars["mark"]["type"] == "bar" and bars["encoding"]["x"]["field"] == "size"
    assert bars["encoding"]["y"]["field"] == "records" and bars["encoding"]["color"]["field"] == "suppressed"
    assert rule["mark"]["type"] == "rule"
    rows = spec["datasets"][bars["data"]["name"]]
    assert sum(r["records"] for r in rows) == d.n  # every record is in exactly one class
    assert {r["size"] for r in rows if r["suppressed"]} == {s for s in d.class_sizes["size"] if s < d.k}


def test_contribution_chart_spec_and_bad_input():
    import pytest

    from workbench.ui.node_charts import contribution_chart

    ds, _, d = _registry_like()
    spec = contribution_chart(d.contributions, "entropy").to_dict()
    assert spec["mark"]["type"] == "bar" and spec["encoding"]["x"]["field"] == "contribution"
    rows = spec["datasets"][spec["data"]["name"]]
    assert [r["attribute"] for r in rows] == ds.quasi_identifiers
    assert abs(sum(r["contribution"] for r in rows) - d.measures["entropy"]) <= 1e-9 * max(1, d.measures["entropy"])
    with pytest.raises(ValueError, match="dm_star"):
        contribution_chart(d.contributions, "dm_star")  # DM* does not decompose: no bars to draw


def test_per_height_summary_and_chart():
    from workbench.study import evaluator_for
    from workbench.ui.node_charts import lattice_levels_chart, neighbour_edges
    from workbench.views.lattice import lattice_table
    from workbench.views.node_details import lattice_by_height

    ds, study, _ = _registry_like()
    table = lattice_table(evaluator_for(study, ds))
    summary = lattice_by_height(table, ["loss"])
    for _, row in summary.iterrows():
        at = table[table["rank"] == row["rank"]]
        assert row["nodes"] == len(at) and row["k_anonymous"] == at["k_anonymous"].sum()
        assert row["loss_min"] == at["loss"].min() and row["loss_median"] == at["loss"].median()
    spec = lattice_levels_chart(summary, "loss").to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["x"]["field"] == "rank"
    bars = lattice_levels_chart(summary).to_dict()
    assert sum(r["number"] for r in bars["datasets"][bars["data"]["name"]] if r["count"] == "nodes") == len(table)
    # the selected node's edges: one per direct specialization and generalization
    from workbench.ui.charts import hasse_layout

    nodes = hasse_layout(table, ds.quasi_identifiers)
    row = nodes.iloc[len(nodes) // 2]
    edges = neighbour_edges(nodes, ds.quasi_identifiers, row["node"])
    levels = [int(row[q]) for q in ds.quasi_identifiers]
    heights = [c.height for c in ds.encoded]
    assert len(edges) == sum(v > 0 for v in levels) + sum(v < h for v, h in zip(levels, heights, strict=True))


def test_the_optimum_is_over_every_node_and_olas_other_node_is_shown_apart():
    """Registry, k = 5, 5 %, OLA with dm (not monotone): the page names the optimum over every k-anonymous
    node (the library's brute-force node table minimum, 474,388) and OLA's different node, not proven
    optimal."""
    from workbench.config import load_study
    from workbench.study import evaluator_for, load_dataset
    from workbench.ui.format import md
    from workbench.views.lattice import lattice_table

    at = AppTest.from_file(APP, default_timeout=300).run()
    at.selectbox(key="dataset").select("registry").run()
    goto(at, "Lattice").run()
    at.selectbox(key="lat_alg").select("ola").run()
    at.selectbox(key="lat_obj").select("dm").run()
    at.slider(key="an_sup").set_value(5.0).run()
    assert not at.exception
    study = load_study(Path(APP).parent / "sample_configs" / "registry.toml", ["privacy.max_suppression=0.05"])
    table = lattice_table(evaluator_for(study, load_dataset(study)))
    admissible = table[table.suppressed <= 1000]
    best = admissible.loc[admissible.dm == admissible.dm.min(), "node"].tolist()
    text = next(w.value for w in at.warning if "Optimum under Discernibility (DM) " in w.value)
    assert f"**{md(best[0])}**" in text and "ola returned" in text and "not proven optimal" in text  # names escaped


# ---------------------------------------------------------------------------------------------- opening a node by click
def _walk(spec: object):
    """Every dict inside a chart spec."""
    if isinstance(spec, dict):
        yield spec
        for value in spec.values():
            yield from _walk(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _walk(value)


def _hasse_spec(color: str = "status", selected: str | None = None) -> tuple[dict, object]:
    from workbench.ui.charts import hasse_chart, hasse_edges, hasse_layout
    from workbench.views.lattice import lattice_overview

    ds, study, _ = _registry_like()
    table, _ = lattice_overview(study, ds)
    nodes = hasse_layout(table, ds.quasi_identifiers)
    return hasse_chart(nodes, hasse_edges(nodes, ds.quasi_identifiers), color, selected).to_dict(), nodes


def test_the_hasse_diagram_selects_a_node_on_click_and_never_binds_the_wheel():
    from workbench.ui.charts import NODE_PICK

    for color in ("status", "loss"):
        spec, _ = _hasse_spec(color)
        params = [p for d in _walk(spec) for p in d.get("params", []) if isinstance(p, dict)]
        assert [p["name"] for p in params] == [NODE_PICK]  # one selection, nothing else
        select = params[0]["select"]
        assert select["type"] == "point" and select["fields"] == ["node"] and select["on"] == "click"
        assert not any(p.get("bind") for p in params)  # no scale binding: no zoom or pan on the scroll wheel
        assert "wheel" not in str(spec)


def test_the_optimum_is_a_labelled_diamond_and_the_open_node_is_ringed():
    spec, nodes = _hasse_spec("loss", selected=None)
    optimum = nodes.loc[nodes.status == "optimum", "node"].tolist()
    assert len(optimum) == 1
    rows = {layer["data"]["name"]: spec["datasets"][layer["data"]["name"]] for layer in spec["layer"]}
    points = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "circle")
    point_size = max(points["encoding"]["size"]["scale"]["range"])
    diamonds = [layer for layer in spec["layer"] if layer["mark"].get("shape") == "diamond"]
    assert len(diamonds) == 1 and [r["node"] for r in rows[diamonds[0]["data"]["name"]]] == optimum
    mark = diamonds[0]["mark"]
    assert mark["size"] >= 3 * point_size and mark["stroke"] == "black" and mark["fill"] == "#d62728"
    labels = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert [r["mark"] for layer in labels for r in rows[layer["data"]["name"]]] == ["optimum"]
    assert not any(layer["mark"].get("shape") == "circle" for layer in spec["layer"])  # nothing open: no ring
    other = nodes["node"].iloc[0]
    spec, _ = _hasse_spec("status", selected=other)
    rings = [layer for layer in spec["layer"] if layer["mark"].get("shape") == "circle"]
    assert len(rings) == 1 and [r["node"] for r in spec["datasets"][rings[0]["data"]["name"]]] == [other]


def test_a_click_event_opens_the_node_it_names():
    from workbench.ui.charts import NODE_PICK
    from workbench.ui.lattice import CHART, NODE, clicked_node, open_clicked_node

    labels = {"a=0,b=1", "a=1,b=1"}
    assert clicked_node({"selection": {NODE_PICK: [{"node": "a=1,b=1"}]}}, labels) == "a=1,b=1"
    for event in (None, {}, {"selection": {}}, {"selection": {NODE_PICK: []}},  # a cleared selection
                  {"selection": {NODE_PICK: [{}]}},  # a click on an edge: no node
                  {"selection": {NODE_PICK: [{"node": None}]}},
                  {"selection": {NODE_PICK: [{"node": "a=9,b=9"}]}},  # not a node shown
                  {"selection": {"other": [{"node": "a=1,b=1"}]}}):
        assert clicked_node(event, labels) is None, event
    session = {NODE: "a=0,b=1", CHART: {"selection": {NODE_PICK: [{"node": "a=1,b=1"}]}}}
    open_clicked_node(session, labels)
    assert session[NODE] == "a=1,b=1"
    session = {NODE: "a=0,b=1", CHART: {"selection": {NODE_PICK: []}}}
    open_clicked_node(session, labels)
    assert session[NODE] == "a=0,b=1"  # nothing clicked: the open node stays


def test_the_lattice_page_draws_a_clickable_diagram_and_keeps_the_select_box():
    at = _lattice_page()
    chart = at.get("vega_lite_chart")[0]
    assert "node_pick" in chart.proto.spec and list(chart.proto.selection_mode) == ["node_pick"]
    assert "optimum" in chart.proto.spec
    node = at.selectbox(key="lat_node")
    other = next(x for x in _labels(at, "lat_node") if x != node.value)
    node.select(other).run()  # the keyboard's way: the list
    assert not at.exception and at.selectbox(key="lat_node").value == other
    assert any("Click a node to open it" in c.value for c in at.caption)
