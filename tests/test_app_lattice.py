"""The Lattice page's node drill-down, comparison and per-height view (streamlit.testing AppTest)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _lattice_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    at.sidebar.radio[0].set_value("Lattice").run()
    assert not at.exception
    return at


def _labels(at: AppTest, key: str) -> list[str]:
    return list(at.selectbox(key=key).options)


def test_node_drill_down_shows_classes_suppressed_records_and_contributions():
    at = _lattice_page()
    node = at.selectbox(key="lat_node")
    assert node.value in _labels(at, "lat_node")
    metrics = {m.label: m.value for m in at.metric}
    assert {"classes", "suppressed records", "k-anonymous"} <= set(metrics)
    # the bottom node of the 10-record teaching table: every record alone, all suppressed at k = 5
    bottom = next(x for x in _labels(at, "lat_node") if all(p.endswith("=0") for p in x.split(",")))
    node.select(bottom).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["suppressed records"] == "10" and metrics["k-anonymous"] == "no"
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
    at.number_input(key="lat_k").set_value(2).run()  # a new k: a new node table
    assert not at.exception
