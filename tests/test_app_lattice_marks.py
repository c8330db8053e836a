"""The Lattice page's marks (workbench/ui/lattice_marks.py): nodes coloured by a privacy model's satisfaction, each
measure's chosen node and the objective's worst monotonicity edge on the Hasse diagram. The chart's data is read
back from what the page sends the browser and compared with the library (``model_satisfaction``, ``explore``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import measures as M
import workbench as wb
from tests._app import APP, goto, ready_own_table
from workbench.config import study_from_dict
from workbench.views.satisfaction import ALL_MODELS, K_ANONYMITY, model_satisfaction, satisfaction_by_height


def _chart(at: AppTest) -> tuple[dict, dict[str, pd.DataFrame]]:
    """The Hasse diagram's spec and its datasets by name (Streamlit sends the data apart, as Arrow)."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    chart = next(c for c in at.get("vega_lite_chart") if "node_pick" in c.proto.spec)
    return json.loads(chart.proto.spec), {d.name: convert_arrow_bytes_to_pandas_df(d.data.data)
                                          for d in chart.proto.datasets}


def _layer_data(spec: dict, data: dict[str, pd.DataFrame], test) -> list[pd.DataFrame]:
    """The data of the layers whose mark passes ``test``."""
    return [data[layer["data"]["name"]] for layer in spec["layer"] if test(layer["mark"])]


def _square(mark: dict) -> bool:  # a measure's chosen node
    return mark.get("shape") == "square"


def _worst(mark: dict) -> bool:  # the worst monotonicity edge
    return mark["type"] == "rule" and mark.get("strokeWidth") == 4


# ---------------------------------------------------------------------------------------------- colour by a model
def _own_table_with_l_diversity() -> AppTest:
    at = ready_own_table("diagnosis", ["flu", "asthma", "diabetes", "copd"],
                         '[attributes.diagnosis]\nrole = "sensitive"\n', seed=5, n=150)
    goto(at, "Anonymize").run()
    at.checkbox(key="an_ld").check().run()
    at.number_input(key="an_ld_l").set_value(3.0).run()
    goto(at, "Lattice").run()
    assert not at.exception
    return at


def _library(at: AppTest) -> tuple:
    """``model_satisfaction`` of the session's table with the page's k, limit and the chosen ℓ-diversity."""
    datasets = at.session_state["session_datasets"]
    assert len(datasets) == 1
    dataset = next(iter(datasets.values()))
    study = study_from_dict({"data": {"path": "unused.csv"}, "privacy": {
        "k": int(at.session_state["an_k"]), "max_suppression": float(at.session_state["an_sup"]) / 100,
        "l_diversity": {"attribute": "diagnosis", "variant": "distinct", "l": 3}}})
    return model_satisfaction(study, dataset), dataset


def test_colour_by_a_chosen_model_draws_the_librarys_satisfaction() -> None:
    at = _own_table_with_l_diversity()
    colour = at.selectbox(key="lat_color")
    assert colour.value == "status"  # k-anonymity stays the default
    options = list(colour.options)
    assert options[:3] == ["k-anonymity (k-anonymous or not, optimum)", "ℓ-diversity (satisfied or not)",
                           "all models (k and every privacy model together)"]
    satisfaction, _ = _library(at)
    assert list(satisfaction.rules) == [K_ANONYMITY, "l_diversity", ALL_MODELS]
    for option, rule in [("model:l_diversity", "l_diversity"), ("model:all_models", ALL_MODELS)]:
        at.selectbox(key="lat_color").select(option).run()
        assert not at.exception and not at.error
        spec, data = _chart(at)
        points = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "circle")
        assert points["encoding"]["color"]["field"] == rule
        drawn = data[points["data"]["name"]]
        expected = satisfaction.table.set_index("node")[rule]
        assert len(drawn) == len(expected)
        assert dict(zip(drawn["node"], drawn[rule].astype(bool), strict=True)) == expected.to_dict()
        held = int(expected.sum())
        assert 0 < held < len(expected)  # the colour tells nodes apart on this table
        assert any(f"({held:,} of {len(expected):,} nodes)" in c.value for c in at.caption)
    # ℓ-diversity alone and the whole rule differ here: the models' colours are not k-anonymity's
    assert not satisfaction.table[K_ANONYMITY].equals(satisfaction.table["l_diversity"])

    at.radio(key="lat_view").set_value("Per height").run()
    assert not at.exception
    shown = next(df.value for df in at.dataframe if ALL_MODELS in df.value.columns)  # the rule chosen last
    expected = satisfaction_by_height(satisfaction)[["rank", "nodes", ALL_MODELS]]
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected, check_dtype=False)


def test_without_a_model_the_colours_are_k_anonymity_and_the_measures() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Lattice").run()
    assert not at.exception
    assert len(at.selectbox(key="lat_color").options) == 1 + len(M.LATTICE_MEASURES)


def test_chosen_models_reads_the_anonymize_pickers() -> None:
    from workbench.ui.anonymize import chosen_models

    session = {"an_ld": True, "an_ld_attr": "d", "an_ld_var": "recursive", "an_ld_l": 3.0, "an_ld_c": 2.5,
               "an_tc": True, "an_tc_attr": "gone", "an_risk": True, "an_risk_model": "population_uniqueness",
               "an_risk_t": 0.1, "an_risk_est": "pitman", "an_risk_pop": 5000}
    assert chosen_models(session, ["d", "e"]) == {
        "l_diversity": {"attribute": "d", "variant": "recursive", "l": 3, "c": 2.5},
        "t_closeness": {"attribute": "d", "variant": "equal", "t": 0.2},  # an attribute no longer offered: the first
        "risk": {"model": "population_uniqueness", "threshold": 0.1, "estimator": "pitman", "population": 5000}}
    # a browser sends only the widgets the analyst touched: the others are absent on another page, and read as the
    # Anonymize page draws them
    assert chosen_models({"an_ld": True, "an_risk": True}, ["e", "d"]) == {
        "l_diversity": {"attribute": "e", "variant": "distinct", "l": 2},
        "risk": {"model": "average", "threshold": 0.2}}
    assert chosen_models(session, []) == {}  # no sensitive attribute: the pickers are not offered
    # δ-presence needs no sensitive attribute but a research subset (the embedded Adult's)
    assert chosen_models({"an_dp": True}, []) == {}
    assert chosen_models({"an_dp": True, "an_dp_max": 0.2}, [], "research_subset") == {
        "delta_presence": {"subset": "research_subset", "delta_min": 0.05, "delta_max": 0.2}}
    assert chosen_models(session | {"an_dp": False}, ["d"], "research_subset").keys() == {
        "l_diversity", "t_closeness", "risk"}
    assert chosen_models({"an_ld": True, "an_ld_attr": "d", "an_ld_var": "entropy", "an_ld_l": 2.5}, ["d"]) == {
        "l_diversity": {"attribute": "d", "variant": "entropy", "l": 2.5, "estimator": "shannon"}}


def test_the_hasse_chart_colours_a_boolean_rule_green_or_grey() -> None:
    from workbench.ui.charts import STATUS_COLOURS, hasse_chart, hasse_layout

    ds, study = _random_study(3)
    table, _ = _overview(study, ds)
    nodes = hasse_layout(table, ds.quasi_identifiers).assign(rule=lambda f: f["rank"] % 2 == 0)
    spec = hasse_chart(nodes, None, "rule", color_title="ℓ-diversity").to_dict()
    points = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "circle")
    colour = points["encoding"]["color"]
    assert colour["field"] == "rule" and colour["type"] == "nominal" and colour["title"] == "ℓ-diversity"
    assert colour["scale"] == {"domain": [True, False], "range": [STATUS_COLOURS["k-anonymous"],
                                                                  STATUS_COLOURS["not k-anonymous"]]}


# ---------------------------------------------------------------------------------------------- measures' marks
def _overview(study, ds):
    from workbench.views.lattice import lattice_overview

    return lattice_overview(study, ds)


def _random_study(seed: int, k: int = 2, sup: float = 0.2):
    from tests._random_tables import random_dataset

    ds = random_dataset(seed, max_rows=40, max_qis=3)
    study = study_from_dict({"data": {"path": "unused.csv"}, "privacy": {"k": k, "max_suppression": sup},
                             "measures": {"compare": list(M.LATTICE_MEASURES)}})
    return ds, study


@pytest.mark.parametrize("seed", [2, 7, 13, 18, 33])  # 7: no measure breaks monotonicity
def test_choice_and_worst_edge_layers_mark_explores_nodes(seed: int) -> None:
    from workbench.ui.charts import hasse_chart, hasse_edges, hasse_layout
    from workbench.ui.lattice_marks import choice_layers, worst_edge_layers

    ds, study = _random_study(seed)
    e = wb.explore(study, ds)
    table, _ = _overview(study, ds)
    nodes = hasse_layout(table, ds.quasi_identifiers)
    at = nodes.set_index("node")
    edges = hasse_edges(nodes, ds.quasi_identifiers)
    spec = hasse_chart(nodes, edges, "status", overlay=choice_layers(nodes, e.optima)).to_dict()
    data = {name: pd.DataFrame(rows) for name, rows in spec["datasets"].items()}
    (squares,) = _layer_data(spec, data, _square)
    assert set(squares["node"]) == {node for node in e.optima.values() if node is not None}
    for r in squares.to_dict("records"):  # labelled with exactly the measures that choose it, at the node's place
        assert sorted(r["chosen_by"].split("; ")) == sorted(M.MEASURES[m].name for m, n in e.optima.items()
                                                            if n == r["node"])
        assert (r["x"], r["rank"]) == (at.loc[r["node"], "x"], at.loc[r["node"], "rank"])
    assert not _layer_data(spec, data, _worst)
    broken = {m: f["worst"] for m, f in e.measures.items() if f["worst"]}
    assert bool(broken) == (seed != 7)
    for measure, worst in broken.items():
        spec = hasse_chart(nodes, edges, measure, overlay=worst_edge_layers(nodes, measure, worst)).to_dict()
        data = {name: pd.DataFrame(rows) for name, rows in spec["datasets"].items()}
        (rule,) = _layer_data(spec, data, _worst)
        (row,) = rule.to_dict("records")
        assert (row["measure"], row["child"], row["parent"], row["delta"]) == (
            M.MEASURES[measure].name, worst["child"], worst["parent"], worst["delta"])
        assert (row["x"], row["y"]) == (at.loc[worst["child"], "x"], at.loc[worst["child"], "rank"])
        assert (row["x2"], row["y2"]) == (at.loc[worst["parent"], "x"], at.loc[worst["parent"], "rank"])
        assert row["y2"] == row["y"] + 1  # the parent is one level more general in one attribute
        child, parent = table.set_index("node").loc[[worst["child"], worst["parent"]], measure]
        assert row["delta"] == pytest.approx(parent - child, rel=1e-12)
        assert np.sign(row["delta"]) == (1 if M.MEASURES[measure].higher_is_better else -1)  # parent is better


def test_marks_outside_the_nodes_shown_are_left_out() -> None:
    from workbench.ui.charts import hasse_layout
    from workbench.ui.lattice_marks import choice_layers, worst_edge_layers

    ds, study = _random_study(21)
    table, _ = _overview(study, ds)
    nodes = hasse_layout(table, ds.quasi_identifiers)
    top = nodes.loc[nodes["rank"].idxmax(), "node"]
    assert choice_layers(nodes[nodes["node"] != top], {"dm": top}) == []
    child = nodes.loc[nodes["rank"].idxmin(), "node"]
    assert worst_edge_layers(nodes[nodes["node"] != top], "dm", {"child": child, "parent": top, "delta": -1.0}) == []


def test_the_page_marks_each_measures_choice_and_the_worst_edge_of_its_objective() -> None:
    """Teaching table, k = 3, 20 %: dm and loss break monotonicity (their worst edges), and dm chooses another node
    than loss and precision."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Lattice").run()
    at.number_input(key="an_k").set_value(3).run()
    at.slider(key="an_sup").set_value(20.0).run()
    at.selectbox(key="lat_obj").select("dm").run()
    assert not at.exception
    spec, _ = _chart(at)
    assert not any(_square(layer["mark"]) for layer in spec["layer"])  # nothing asked: no marks
    measures = ["dm", "loss", "precision"]
    at.multiselect(key="lat_choices").set_value(measures).run()
    at.checkbox(key="lat_worst").check().run()
    assert not at.exception and not at.error
    dm = "Discernibility (DM), lower is better"  # as the pickers name it
    assert at.checkbox(key="lat_worst").label == f"Show the worst monotonicity edge of {dm}"
    study = study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 3, "max_suppression": 0.2},
                             "measures": {"compare": list(M.LATTICE_MEASURES)}})
    e = wb.explore(study)
    spec, data = _chart(at)
    (squares,) = _layer_data(spec, data, _square)
    expected = {m: e.optima[m] for m in measures}
    assert len(set(expected.values())) == 2
    assert {node: set(by.split("; ")) for node, by in zip(squares["node"], squares["chosen_by"], strict=True)} == {
        node: {M.MEASURES[m].name for m in measures if expected[m] == node} for node in expected.values()}
    (edge,) = _layer_data(spec, data, _worst)
    worst = e.measures["dm"]["worst"]
    assert worst is not None
    assert edge[["child", "parent"]].iloc[0].tolist() == [worst["child"], worst["parent"]]
    assert any(f"Worst edge of {dm}: {worst['child']} → {worst['parent']}" in c.value
               for c in at.caption)
    at.selectbox(key="lat_obj").select("precision").run()  # monotone: no edge, and the page says so
    assert not at.exception
    spec, data = _chart(at)
    assert not _layer_data(spec, data, _worst)
    assert any("makes Precision (Prec), lower is better better when generalizing" in c.value for c in at.caption)
    # the Measures page (the same k and limit) finds the exploration the Lattice page asked for: no new entry
    from workbench.ui.measures_page import exploration

    before = set(exploration.shared.entries)
    goto(at, "Measures").run()
    assert not at.exception and set(exploration.shared.entries) == before
