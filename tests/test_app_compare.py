"""The Compare page (streamlit.testing AppTest): raw and normalized tables, Pareto scatter, global vs local
side by side, each measure's choice, the k sweep and model degradation, on the teaching table."""

from __future__ import annotations

import contextlib
import inspect
import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from workbench.compare.optima import lattice_optima
from workbench.ui.format import number

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _compare(dataset: str = "teaching") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select(dataset).run()
    goto(at, "Compare").run()
    assert not at.exception
    return at


def _frame(at: AppTest, column: str):
    """The first dataframe on the page holding ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_raw_and_normalized_tables():
    at = _compare()
    raw = at.dataframe[0].value
    assert {"lattice", "local"} <= set(raw["engine"]) and "entropy" in raw.columns
    normalized = _frame(at, "pareto")
    assert len(normalized) == len(raw) and list(normalized.solution) == list(raw.solution)
    for m in ("entropy", "dm_star", "loss"):
        values = normalized[m]
        assert values.between(0, 1).all() and values.min() == 0
        # 0 at the raw minimum, 1 at the raw maximum (these are losses)
        assert set(raw[m][values == 0]) == {raw[m].min()}
        if raw[m].max() > raw[m].min():
            assert set(raw[m][values == 1]) == {raw[m].max()}
    assert len(at.get("vega_lite_chart")) == 2  # Pareto scatter and the rank-agreement heat map


def test_suppression_limit_and_candidates_change_the_lattice_rows_only():
    at = _compare()
    before = at.dataframe[0].value
    at.checkbox(key="sup_override").check().run()  # 30 % is above the default range
    at.slider(key="an_sup").set_value(30.0).run()
    at.selectbox(key="cmp_cand").select("all").run()
    assert not at.exception
    after = at.dataframe[0].value
    assert (after.engine == "lattice").sum() > (before.engine == "lattice").sum()
    local = ["engine", "algorithm", "solution", "entropy", "dm_star"]
    assert after[after.engine == "local"][local].reset_index(drop=True).equals(
        before[before.engine == "local"][local].reset_index(drop=True))


def test_global_vs_local_side_by_side():
    at = _compare()
    raw = at.dataframe[0].value
    pair = _frame(at, "better").set_index("measure")
    assert {"lattice", "greedy", "partition", "lattice (normalized)"} <= set(pair.columns)
    lattice = raw[raw.engine == "lattice"]
    # each row is another measure: every cell written as format.number writes it
    assert pair.loc["entropy", "lattice"] == number(lattice.entropy.min())  # the best lattice solution under entropy
    for name in ("greedy", "partition"):
        assert pair.loc["dm_star", name] == number(raw[raw.algorithm == name].dm_star.iloc[0])
    values = pair.loc["dm_star", ["lattice", "greedy", "partition"]].str.replace(",", "").astype(float)
    assert set(pair.loc["dm_star", "better"].split(", ")) == set(values[values == values.min()].index) or \
        pair.loc["dm_star", "better"] == "tie"
    at.selectbox(key="cmp_objective").select("dm_star").run()
    assert not at.exception
    assert _frame(at, "better").set_index("measure").loc["dm_star", "lattice"] == number(lattice.dm_star.min())


def test_sweep_lines_for_chosen_k():
    at = _compare()
    at.multiselect(key="cmp_sweep_ks").set_value([2, 3]).run()
    at.toggle(key="cmp_sweep_on").set_value(True).run()
    assert not at.exception and not at.error
    charts = at.get("vega_lite_chart")
    assert len(charts) == 3  # the sweep joins the scatter and the heat map


def test_degradation_without_a_target_says_why():
    at = _compare()
    assert any("no target" in i.value for i in at.info)
    assert not at.button  # nothing to run


@pytest.mark.slow
def test_degradation_on_the_registry_runs_for_the_chosen_solutions():
    at = _compare("registry")
    chosen = at.multiselect(key="cmp_deg_rows").value
    assert chosen  # by default the best lattice solution and the first local release
    at.selectbox(key="cmp_deg_clf").select("naive_bayes").run()
    at.button(key="cmp_deg_run").click().run()
    deadline = time.monotonic() + 600
    while at.get("progress") and time.monotonic() < deadline:  # longer than the page waits: its panel refreshes
        assert "Model degradation of" in at.get("progress")[-1].text
        time.sleep(1)
        at.run()
    assert not at.exception and not at.error
    summary = _frame(at, "auc_drop")
    assert set(summary.classifier) == {"zeror", "naive_bayes"} and len(set(summary.row)) == len(chosen)
    assert (summary[summary.classifier == "zeror"].agreement == 1.0).all()


def test_sweep_chart_takes_the_best_in_each_measures_direction():
    import pandas as pd

    from workbench.ui.charts import sweep_chart

    df = pd.DataFrame({"k": [2, 2, 5, 5], "engine": "lattice", "algorithm": "k_minimal", "solution": list("abcd"),
                       "loss": [0.4, 0.2, 0.6, 0.9], "nmi": [0.3, 0.8, 0.1, 0.5]})
    spec = sweep_chart(df, ["loss", "nmi"]).to_dict()
    values = {(r["k"], r["measure"]): r["value"] for r in next(iter(spec["datasets"].values()))}
    loss, nmi = "Loss (ARX)", "Normalized mutual information"  # each panel named as the pickers name the measure
    assert values == {(2, loss): 0.2, (5, loss): 0.6, (2, nmi): 0.8, (5, nmi): 0.5}


def test_degradation_chart_has_one_bar_per_solution_classifier_and_metric():
    import pandas as pd

    from workbench.ui.charts import degradation_chart

    summary = pd.DataFrame({"row": [0, 0, 3, 3], "k": 5, "engine": ["lattice", "lattice", "local", "local"],
                            "algorithm": ["k_minimal", "k_minimal", "greedy", "greedy"],
                            "solution": ["a=1", "a=1", "greedy", "greedy"], "classifier": ["zeror", "naive_bayes"] * 2,
                            "accuracy_drop": [0.0, 0.02, 0.0, 0.01], "auc_drop": [0.0, 0.05, 0.0, 0.03]})
    spec = degradation_chart(summary).to_dict()
    bars = next(iter(spec["datasets"].values()))
    assert len(bars) == 8 and {b["metric"] for b in bars} == {"accuracy drop", "auc drop"}
    assert {b["label"] for b in bars} == {"a=1", "local · greedy"}
    assert {(b["label"], b["classifier"], b["metric"]): b["drop"] for b in bars}[("local · greedy", "naive_bayes",
                                                                                   "auc drop")] == 0.03


def test_each_measures_choice_is_the_optimum_over_every_node_and_says_which_rows_are_candidates():
    """With a 30 % suppression limit, k-minimal candidates: the "optimum" row of each measure equals the best
    of every k-anonymous node (the raw table with candidates "all"); the candidate rows are labelled so."""
    at = _compare()
    at.checkbox(key="sup_override").check().run()  # 30 % is above the default range
    at.slider(key="an_sup").set_value(30.0).run()
    chosen = _frame(at, "scope")
    at.selectbox(key="cmp_cand").select("all").run()
    every = at.dataframe[0].value
    every = every[every.engine == "lattice"]
    assert not at.exception
    for measure, rows in chosen.groupby("measure"):
        optimum = rows[rows.algorithm == "optimum"].iloc[0]
        assert optimum.scope == "every node admissible under k = 5, 30 % suppression"
        assert optimum.value == number(every[measure].min()), measure
        candidates = rows[rows.algorithm == "k_minimal"].iloc[0]
        assert candidates.scope == "best of the candidates (k_minimal)"
    assert any("restricted to the candidate set" in c.value for c in at.caption)


def test_every_solution_shows_its_suppressed_records_and_their_share():
    """The raw and normalized tables carry each solution's suppressed records and their percent of the records,
    labelled for reading; the lattice rows' counts are those of a brute-force count of the records in classes
    smaller than k (teaching table, k = 3, 30 % limit, every k-anonymous node), the local rows' are 0."""
    from tests._reference_measures import node_of, reference_measures
    from workbench.config import load_study
    from workbench.study import load_dataset

    at = _compare()
    at.number_input(key="an_k").set_value(3).run()
    at.checkbox(key="sup_override").check().run()
    at.slider(key="an_sup").set_value(30.0).run()
    at.selectbox(key="cmp_cand").select("all").run()
    assert not at.exception
    raw = at.dataframe[0].value
    dataset = load_dataset(load_study(Path(APP).parent / "sample_configs" / "teaching.toml"))
    lattice = raw[raw.engine == "lattice"]
    expected = [reference_measures(dataset, node_of(dataset, s), 3)[0] for s in lattice.solution]
    assert list(lattice.suppressed) == expected and max(expected) > 0
    assert list(lattice.suppressed_pct) == pytest.approx([100 * s / 10 for s in expected])
    assert (raw[raw.engine == "local"].suppressed == 0).all()
    normalized = _frame(at, "pareto")
    assert list(normalized.suppressed) == list(raw.suppressed) and set(normalized.pareto) <= {"yes", "no"}
    config = json.loads(at.dataframe[0].proto.columns)
    assert config["suppressed"]["label"] == "suppressed records"
    assert config["suppressed_pct"]["type_config"]["format"] == "%.1f %%"
    assert config["entropy"]["label"] == "Non-uniform entropy, lower is better"


def test_chart_axes_and_tooltips_name_measures_in_full_without_exponents():
    import pandas as pd

    from workbench.ui.charts import TOOLTIP_NUMBER, pareto_chart

    df = pd.DataFrame({"engine": ["lattice", "local"], "algorithm": ["k_minimal", "greedy"], "solution": ["a=1", "g"],
                       "loss": [0.4, 0.2], "dm": [7104826.0, 385888.0]})
    spec = pareto_chart(df, "loss", "dm").to_dict()
    assert spec["encoding"]["x"]["title"] == ["Loss (ARX)", "(lower is better)"]
    assert spec["encoding"]["y"]["title"] == ["Discernibility (DM)", "(lower is better)"]
    assert {r["pareto"] for r in next(iter(spec["datasets"].values()))} == {"no"}  # a word, not false
    assert [t.get("format") for t in spec["encoding"]["tooltip"][3:]] == [TOOLTIP_NUMBER] * 2
    assert TOOLTIP_NUMBER.endswith("r")  # d3's decimal notation: never an exponent


def test_the_anonymize_pages_models_hold_on_the_lattice_and_compare_pages():
    """ℓ-diversity chosen on the Anonymize page is part of the rule the Lattice page's optimum and the Compare page's
    rows and optima are computed under: the optimum is the library's over every node admissible under k, ℓ and the
    limit, and its scope names the model."""
    from tests._app import ready_own_table
    from workbench.config import study_from_dict

    at = ready_own_table("diagnosis", ["flu", "asthma", "diabetes", "copd"],
                         '[attributes.diagnosis]\nrole = "sensitive"\n', seed=5, n=150)
    goto(at, "Anonymize").run()
    at.checkbox(key="an_ld").check().run()
    at.number_input(key="an_ld_l").set_value(3.0).run()
    dataset = next(iter(at.session_state["session_datasets"].values()))
    k, limit = int(at.session_state["an_k"]), float(at.session_state["an_sup"]) / 100
    study = study_from_dict({"data": {"path": "unused.csv"}, "privacy": {
        "k": k, "max_suppression": limit, "l_diversity": {"attribute": "diagnosis", "variant": "distinct", "l": 3}},
        "measures": {"compare": ["entropy"]}})
    optimum = lattice_optima(study, dataset, ["entropy"]).set_index("measure").loc["entropy"]
    assert "distinct-3-diversity of diagnosis" in optimum.searched

    goto(at, "Lattice").run()
    assert not at.exception
    note = next(c.value for c in [*at.caption, *at.warning] if "over every node that meets the rule" in c.value)
    assert f"**{optimum.solution}**" in note

    goto(at, "Compare").run()
    assert not at.exception
    assert any("apply here too (ℓ-diversity)" in c.value for c in at.caption)
    left_out = [c.value for c in at.caption if c.value.startswith("Left out of the comparison")]
    assert any("'greedy' (local engine) cannot enforce distinct-3-diversity of diagnosis" in c for c in left_out)
    chosen = _frame(at, "scope")
    row = chosen[(chosen.measure == "entropy") & (chosen.algorithm == "optimum")].iloc[0]
    assert row.scope == optimum.searched and row.solution == optimum.solution
    raw = _frame(at, "meets_rule")
    assert raw.meets_rule.all() and set(raw[raw.engine == "local"].algorithm) <= {"mondrian"}


COMPARE_CALLS = ("lattice_rows", "local_rows", "optima", "analysis", "pareto_of", "side_by_side", "sweep")
REPORTING = {"lattice_rows", "local_rows"}  # their library calls report each solution scored: a bar too


def test_every_wait_of_the_compare_page_names_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cached library call the Compare page waits for runs inside a spinner that names its step (not
    Streamlit's default "In progress..."), and the calls whose library reports progress are given a callback for
    the bar. A spinner is gone from the page once its run ends, so AppTest cannot read it afterwards: the test
    records the spinners Streamlit opens and the page's calls as they happen (the page runs in this process)."""
    import streamlit

    from workbench.ui import compare_page

    open_steps: list[str] = []
    calls: list[tuple[str, list[str], bool]] = []
    original = streamlit.spinner

    @contextlib.contextmanager
    def spinner(text: str = "In progress...", **kwargs):
        open_steps.append(text)
        try:
            with original(text, **kwargs):
                yield
        finally:
            open_steps.pop()

    def recorded(name: str, call):
        def wrapper(*args, **kwargs):
            calls.append((name, list(open_steps), "progress" in kwargs))
            return call(*args, **kwargs)

        wrapper.__signature__ = inspect.signature(call)  # whether it reports progress, as the page asks
        return wrapper

    monkeypatch.setattr(streamlit, "spinner", spinner)
    for name in COMPARE_CALLS:
        monkeypatch.setattr(compare_page, name, recorded(name, getattr(compare_page, name)))
    at = _compare()
    at.toggle(key="cmp_sweep_on").set_value(True).run()
    assert not at.exception
    assert {name for name, _, _ in calls} == set(COMPARE_CALLS)
    for name, steps, progress in calls:
        assert steps and steps[-1] != "In progress..." and steps[-1].endswith("…"), (name, steps)
        assert progress == (name in REPORTING), name
    named = {name: steps[-1] for name, steps, _ in calls}
    assert named["optima"].startswith("Finding each measure's optimum")
    assert named["lattice_rows"].startswith("Scoring the lattice candidates (k_minimal)")
