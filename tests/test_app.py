"""The Streamlit app opens on the embedded sample without an exception (streamlit.testing AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests._app import goto

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_app_opens_on_the_registry():
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "k-anonymity workbench"
    assert at.selectbox[0].value == "registry"
    attributes = at.dataframe[0].value
    assert {"age", "sex", "diagnosis"} <= set(attributes["attribute"])
    assert at.metric[0].value == "20,000"


def test_app_switches_to_the_teaching_table():
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.selectbox[0].select("teaching").run()
    assert not at.exception
    assert at.metric[0].value == "10" and at.metric[2].value == "30"


def test_app_offers_the_embedded_adult_data():
    """ARX's Adult ships with the app: 30,162 records, 8 quasi-identifiers (4,320 nodes) or 9 (12,960)."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.selectbox[0].select("adult").run()
    assert not at.exception
    assert [m.value for m in at.metric] == ["30,162", "8", "4,320"]
    at.selectbox[0].select("adult9").run()
    assert not at.exception
    assert [m.value for m in at.metric] == ["30,162", "9", "12,960"]
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous with k = 5" in at.success[0].value


def _anonymize(dataset: str = "registry") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox[0].select(dataset).run()
    goto(at, "Anonymize").run()
    assert not at.exception
    return at


def test_anonymize_lattice_default_flow():
    at = _anonymize()
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous with k = 5" in at.success[0].value
    names = [m.label for m in at.metric]
    assert {"suppressed records", "node checks", "Non-uniform entropy", "Normalized mutual information"} <= set(names)
    assert all(m.help for m in at.metric if m.label == "Non-uniform entropy")  # the formula on hover


def test_anonymize_local_engine():
    at = _anonymize("teaching")
    at.radio[0].set_value("local").run()
    at.number_input[0].set_value(3).run()
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous with k = 3" in at.success[0].value
    assert any(s.value.startswith("Clustering: ") for s in at.subheader)  # the clustering, not a transformation


def test_anonymize_without_a_solution_shows_a_message():
    at = _anonymize("teaching")
    at.number_input[0].set_value(50).run()
    at.button[0].click().run()
    assert not at.exception
    assert at.error and "10 records cannot be made 50-anonymous" in at.error[0].value


def test_lattice_page_draws_the_lattice_and_the_trace():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox[0].select("teaching").run()
    goto(at, "Lattice").run()
    assert not at.exception
    chart = at.get("vega_lite_chart")[0]
    spec = chart.proto.spec
    assert "status" in spec and "rank" in spec  # nodes by height, coloured by status
    caption = at.caption[1].value
    assert "30 nodes" in caption and "checked" in caption
    at.selectbox(key="lat_color").select("dm_star").run()
    assert not at.exception


def test_compare_page_tables_and_charts():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox[0].select("teaching").run()
    goto(at, "Compare").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert {"lattice", "local"} <= set(table["engine"]) and "entropy" in table.columns
    assert len(at.get("vega_lite_chart")) == 2  # Pareto scatter and the rank-agreement heat map


def test_export_page_after_a_run():
    at = _anonymize("teaching")
    at.number_input[0].set_value(3).run()
    at.button[0].click().run()
    goto(at, "Export").run()
    assert not at.exception
    assert any("re-verification" in s.value for s in at.success)  # below the decision summary
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Release", "Provenance (JSON)", "Value mappings (CSV)", "Config (TOML)"]  # no bundle: a sample


def test_export_page_before_any_run_says_what_to_do():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Export").run()
    assert not at.exception and at.info and "Anonymize" in at.info[0].value


def test_the_same_run_twice_is_served_again_with_its_progress_bar():
    """A cached run that drew a progress bar made outside it must not fail when it is served again."""
    at = _anonymize("teaching")
    at.number_input(key="an_k").set_value(3).run()
    for _ in range(2):
        at.button[0].click().run()
        assert not at.exception
        assert "k-anonymous with k = 3" in at.success[0].value


def test_walkthrough_page_steps_through_the_teaching_table():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Walkthrough").run()
    assert not at.exception
    titles = [s.value for s in at.subheader]
    assert titles[0].startswith("1. The original records") and len(titles) >= 4
    assert len(at.dataframe) == len(titles)  # one highlighted table per step
    at.slider(key="walk_k").set_value(2).run()
    assert not at.exception


def test_hierarchies_page_shows_an_embedded_dataset_read_only():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Hierarchies").run()
    assert not at.exception
    assert at.success and "Valid: height 4" in at.success[0].value  # the registry's age hierarchy
    tree = json.loads(at.get("vega_lite_chart")[0].proto.spec)  # the hierarchy drawn as a tree
    assert [layer["mark"]["type"] for layer in tree["layer"]] == ["rule", "circle", "text"]
    assert any("from level 1 up" in c.value for c in at.caption)  # 100 ages are over the 60-node cut
    at.slider(key="level:age").set_value(3).run()
    counts = at.dataframe[1].value
    assert list(counts.columns) == ["level 3 value", "records", "original values"] and counts.records.sum() == 20000
    at.selectbox(key="h_sample_column").select("postal_code").run()
    assert not at.exception and at.get("download_button")


def test_default_flow_on_the_registry_in_one_session():
    """The issue's default flow, server side: embedded registry -> lattice engine -> lattice picture ->
    compare -> export, with no exception, and the export re-verified."""
    at = AppTest.from_file(APP, default_timeout=240).run()
    assert at.selectbox(key="dataset").value == "registry"
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and "k-anonymous with k = 5" in at.success[0].value
    goto(at, "Lattice").run()
    assert not at.exception
    assert "3,600 nodes" in " ".join(c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) >= 2  # the Hasse diagram and the selected node's class sizes
    goto(at, "Compare").run()
    assert not at.exception
    assert {"lattice", "local"} <= set(at.dataframe[0].value["engine"])
    goto(at, "Export").run()
    assert not at.exception and any("re-verification" in s.value for s in at.success)


def test_anonymize_with_lightning_from_the_registry_picker():
    """The algorithm picker reads the registry: LIGHTNING runs with the page's time limit and, on the teaching
    table's small lattice, exhausts its queue and proves its node."""
    at = _anonymize("teaching")
    picker = next(s for s in at.selectbox if s.label == "Algorithm")
    assert "lightning" in picker.options[-1] or any("lightning" in o for o in picker.options)
    picker.select("lightning").run()
    assert not at.exception
    assert any(n.label == "Time limit (s)" for n in at.number_input)
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous" in at.success[0].value
    assert any(c.value.startswith("proven optimal") for c in at.caption)
