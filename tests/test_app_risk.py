"""The Risk page (issue 12) shows the input's and the last release's re-identification risk as ``workbench.risk``
computes it, checked here against a class count in plain Python; privacy models chosen on Anonymize."""

from __future__ import annotations

import io
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import workbench as wb
from tests._app import captured_downloads, goto, people_config, ready_own_table
from workbench.compare.ranking import risk_utility
from workbench.samples import load_sample

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _expected(rows: list[tuple[str, ...]], threshold: float = 0.2,
              suppressed: list[bool] | None = None) -> dict[str, str]:
    """The metrics the page shows, from a plain count of identical rows, formatted as the page formats them; the
    equivalence classes are those of the rows not ``suppressed`` (the suppressed rows, all ``*``, are one more group
    in the risk figures)."""
    sizes = Counter(rows)
    n = len(rows)
    per_record = [sizes[r] for r in rows]
    at_risk = sum(1 for f in per_record if 1 / f > threshold)
    classes = len({r for r, s in zip(rows, suppressed or [False] * n, strict=True) if not s})
    return {"records": f"{n:,}", "equivalence classes": f"{classes:,}", "risk groups": f"{len(sizes):,}",
            "highest prosecutor risk": f"{1 / min(sizes.values()):.6g}",
            "average prosecutor risk": f"{len(sizes) / n:.6g}", "records at risk": f"{at_risk:,}",
            "sample uniques": f"{sum(1 for f in per_record if f == 1) / n:.2%}"}


def _shown(at: AppTest) -> tuple[dict[str, str], dict[str, str]]:
    """The input's and the release's metrics (the release's follow the input's, under the same labels)."""
    first: dict[str, str] = {}
    second: dict[str, str] = {}
    for m in at.metric:
        (second if m.label in first else first)[m.label] = m.value
    return first, second


def _risk_page(dataset: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox[0].select(dataset).run()
    goto(at, "Risk").run()
    assert not at.exception
    return at


@pytest.mark.parametrize("dataset", ["registry", "teaching"])
def test_risk_page_shows_the_input_and_the_release_risk_as_counted(dataset: str) -> None:
    at = _risk_page(dataset)
    sample = load_sample(dataset)
    rows = [tuple(str(v) for v in r) for r in sample.frame[list(sample.quasi_identifiers)].itertuples(index=False)]
    shown_input, shown_release = _shown(at)
    assert shown_input == _expected(rows)
    assert not shown_release and any("Run an anonymization" in i.value for i in at.info)
    assert len(at.get("vega_lite_chart")) == 2  # the record-level histogram and risk against utility

    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and at.success
    config = at.session_state["last_run"].study
    goto(at, "Risk").run()
    assert not at.exception
    result = wb.run(wb.study_from_dict(config.raw))  # the same release, computed independently
    table = result.release.table("mark")  # suppressed records: '*' in every quasi-identifier, one group
    released = [tuple(str(v) for v in r) for r in table[list(result.release.quasi_identifiers)].itertuples(index=False)]
    shown_input, shown_release = _shown(at)
    assert shown_input == _expected(rows)
    assert shown_release == _expected(released, suppressed=list(result.release.suppressed))
    assert any("The last run: lattice / flash, k = 5" in c.value for c in at.caption)


def test_risk_page_threshold_and_population() -> None:
    at = _risk_page("teaching")
    sample = load_sample("teaching")
    rows = [tuple(str(v) for v in r) for r in sample.frame[list(sample.quasi_identifiers)].itertuples(index=False)]
    at.number_input(key="risk_threshold").set_value(0.5).run()
    assert _shown(at)[0]["records at risk"] == _expected(rows, 0.5)["records at risk"]
    at.number_input(key="risk_population").set_value(5).run()  # smaller than the table: a message, no traceback
    assert not at.exception and at.error and "smaller than the 10 records" in at.error[0].value
    at.number_input(key="risk_population").set_value(1000).run()
    assert not at.exception
    expected = wb.risk_of_node(wb.load_dataset(wb.load_study(Path(APP).parent / "sample_configs" / "teaching.toml")),
                               population_size=1000).population_uniques
    assert _shown(at)[0]["population uniques (Dankar)"] == (
        "—" if expected.dankar is None else f"{expected.dankar:.4%}")
    assert at.dataframe and set(at.dataframe[0].value.columns) == {"table", "pitman", "zayatz", "snb", "dankar"}


def test_risk_against_utility_shows_the_library_points_and_front() -> None:
    """The risk–utility section places every k-minimal candidate at the session's k and suppression limit (k = 5,
    2 % by default): the library's points (their risk tested against a count in test_compare), front included."""
    from workbench import compare

    at = _risk_page("teaching")
    shown = next(d.value for d in at.dataframe if "pareto" in d.value.columns)
    study = wb.study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 5, "max_suppression": 0.02},
                                "measures": {"compare": ["loss"]}})
    expected = risk_utility(compare.lattice_solutions(study, wb.load_dataset(study)), "loss", "risk_average")
    from workbench.ui.format import table

    assert shown.reset_index(drop=True).equals(table(expected))  # the library's points, booleans as yes and no
    assert set(shown.pareto) <= {"yes", "no"} and set(shown.meets_rule) <= {"yes", "no"}
    at.selectbox(key="risk_ru_risk").select("risk_highest").run()
    at.selectbox(key="risk_ru_utility").select("dm").run()
    assert not at.exception
    shown = next(d.value for d in at.dataframe if "pareto" in d.value.columns)
    assert list(shown.risk) == list(risk_utility(compare.lattice_solutions(
        study, wb.load_dataset(study)), "loss", "risk_highest").risk)


def test_unique_combinations_of_the_input_and_the_release() -> None:
    """The combinations table of the input, then of the last run's release (suppressed records ``*``), as
    ``unique_combinations`` computes them (tested against a row count in test_risk)."""
    from workbench.risk.combinations import unique_combinations

    at = _risk_page("teaching")
    sample = load_sample("teaching")
    shown = [d.value for d in at.dataframe if "combination" in d.value.columns]
    assert len(shown) == 1 and shown[0].equals(unique_combinations(sample.frame, list(sample.quasi_identifiers)))
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    goto(at, "Risk").run()
    assert not at.exception
    release = wb.run(wb.study_from_dict(dict(at.session_state["last_run"].study.raw))).release
    shown = [d.value for d in at.dataframe if "combination" in d.value.columns]
    assert len(shown) == 2 and shown[1].equals(unique_combinations(release.table(), release.quasi_identifiers))


def test_attacks_section_before_and_after_a_run() -> None:
    """Before a run: the input's values rarer than k (the library's report) with the tables without them; after a
    run: the attacks on its release as ``check_attacks`` computes them."""
    from workbench.risk import attacks
    from workbench.risk.attack_checks import check_attacks, shares_row_order

    with captured_downloads() as seen:  # the tables without the rare values: produced on click
        at = _risk_page("teaching")
    sample = load_sample("teaching")
    shown = next(d.value for d in at.dataframe if "attribute" in d.value.columns)
    expected = attacks.rare_values(sample.frame, list(sample.quasi_identifiers), 5).table()
    assert shown.reset_index(drop=True).equals(expected)
    rows, values = (pd.read_csv(io.BytesIO(seen[name]()), dtype=str, keep_default_na=False)
                    for name in ("rare-records.csv", "rare-values.csv"))
    assert len(rows) < len(values) == len(sample.frame) and list(rows.columns) == list(values.columns)
    assert attacks.rare_values(rows, list(sample.quasi_identifiers), 5).table().empty
    assert any("Run an anonymization on the Anonymize page: the attacks" in i.value for i in at.info)
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(3).run()  # at k = 5 the release is the only k-minimal node
    at.button[0].click().run()
    goto(at, "Risk").run()
    assert not at.exception
    config = dict(at.session_state["last_run"].study.raw)
    result = wb.run(wb.study_from_dict(config))
    checks = check_attacks(result.study, result.dataset, result.release).to_dict()
    table = next(d.value for d in at.dataframe if "attack" in d.value.columns)
    comp = checks["complementary_release"]
    assert comp is not None and len(table) == 4
    assert table.result[0].startswith(f"singles out {comp['unique']:,} of {comp['records']:,} people"
                                      if comp["unique"] else "singles out no one")
    assert f"({comp['below_k']:,} in joined groups below {comp['k']})" in table.result[0]
    same = checks["unsorted_matching_same_seed"]  # the report's words: a pairing by chance singles out no one
    assert f"({same['linked']:,} row" in table.result[1]
    assert table.result[1].startswith("singles out no one") == (not shares_row_order(same))
    # the caption under the table says what its figures show, counted here from the writer's own row order
    from workbench.privacy.build import admissibility_for
    from workbench.release import Release
    from workbench.release.export import row_order
    from workbench.risk.attack_checks import second_node

    other = Release.from_node(result.dataset, second_node(result.study, result.dataset, result.release),
                              result.study.k, result.study.max_suppression, "second",
                              admissibility_for(result.study, result.dataset))
    seed = result.study.seed
    orders = [row_order(r.table(categorical=True), seed) for r in (result.release, other)]
    shared = int((orders[0] == orders[1]).sum())
    caption = next(c.value for c in at.caption if "row order" in c.value)
    assert f"same record on {shared:,} of {result.release.n:,} rows" in caption
    assert ("do not share a row order" in caption) == (shared < result.release.n // 2)
    assert "Files written with one seed share one row order" not in caption


# ---------------------------------------------------------------------------------------------- privacy models
def _own_table_with_a_sensitive_column() -> AppTest:
    """A small uploaded table, made ready by a loaded config: age and sex quasi-identifiers, diagnosis sensitive."""
    at = ready_own_table("diagnosis", ["flu", "asthma", "diabetes", "copd"],
                         '[attributes.diagnosis]\nrole = "sensitive"\n', seed=5, n=150)
    goto(at, "Anonymize").run()
    at.selectbox(key="an_alg").select("flash").run()  # the loaded config chose exhaustive
    assert not at.exception
    return at


def test_models_are_offered_only_with_a_sensitive_attribute() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox[0].select("teaching").run()
    goto(at, "Anonymize").run()
    assert not at.exception and not [c for c in at.checkbox if c.key == "an_ld"]


def test_distinct_l_diversity_chosen_on_anonymize_holds_on_the_release() -> None:
    at = _own_table_with_a_sensitive_column()
    at.checkbox(key="an_ld").check().run()
    assert at.multiselect(key="an_ld_attr").value == ["diagnosis"]  # the first sensitive attribute
    at.number_input(key="an_ld_l").set_value(3.0).run()
    assert at.selectbox(key="an_alg").value == "flash"  # distinct ℓ-diversity is monotone: Flash may prune
    assert not at.info
    at.button[0].click().run()
    assert not at.exception and not at.error
    config = dict(at.session_state["last_run"].study.raw)
    assert config["privacy"]["l_diversity"] == {"attribute": "diagnosis", "variant": "distinct", "l": 3}
    assert any(s.value.startswith("Holds: l_diversity") for s in at.success)
    result = wb.run(wb.study_from_dict(config), at.session_state["session_datasets"][
        at.session_state["last_run"].dataset_key])
    assert result.summary()["privacy_models"]["l_diversity"]["holds"] is True
    table = result.release.table("drop")  # every class of kept records holds at least 3 diagnoses
    assert table.groupby(list(result.release.quasi_identifiers))["diagnosis"].nunique().min() >= 3


def test_a_model_on_two_sensitive_attributes_is_chosen_on_anonymize_and_holds_on_each() -> None:
    """β-likeness with both sensitive attributes picked: the run's config lists both (one model, each checked), the
    result says it holds, and every released class meets (p − q) / q ≤ β for every value of each attribute, recounted
    here from the released table (Cao & Karras 2012, Def. 2; q over the whole input)."""
    rng = np.random.default_rng(11)
    n = 160
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n, p=[0.5, 0.3, 0.2]),
                          "ward": rng.choice(["A", "B"], n, p=[0.7, 0.3])})
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("people.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    tail = '[attributes.diagnosis]\nrole = "sensitive"\n[attributes.ward]\nrole = "sensitive"\n'
    at.file_uploader(key="config_upload").upload("people.toml", people_config(tail).encode(), "application/toml").run()
    goto(at, "Anonymize").run()
    at.checkbox(key="an_bl").check().run()
    assert at.multiselect(key="an_bl_attr").value == ["diagnosis"]  # the first sensitive attribute
    at.multiselect(key="an_bl_attr").set_value(["diagnosis", "ward"]).run()
    at.number_input(key="an_bl_beta").set_value(0.8).run()
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    config = at.session_state["last_run"].study.raw
    assert config["privacy"]["beta_likeness"] == {"attribute": ["diagnosis", "ward"], "variant": "basic",
                                                  "beta": 0.8}
    assert any(m.value.startswith("Holds: beta_likeness") and "diagnosis and basic 0.8-likeness of ward" in m.value
               for m in at.success)
    result = wb.run(wb.study_from_dict(config), at.session_state["session_datasets"][
        at.session_state["last_run"].dataset_key])
    table = result.release.table("drop")
    assert len(table) > 0
    for attribute in ("diagnosis", "ward"):
        whole = frame[attribute].value_counts(normalize=True)
        for _, group in table.groupby(list(result.release.quasi_identifiers)):
            shares = group[attribute].value_counts(normalize=True)
            assert all((shares[v] - whole[v]) / whole[v] <= 0.8 + 1e-12 for v in shares.index)


def test_a_model_not_monotone_at_the_limit_steers_flash_to_bnb() -> None:
    at = _own_table_with_a_sensitive_column()
    at.slider(key="an_sup").set_value(5.0).run()  # t-closeness is not monotone with suppression (ARX)
    at.checkbox(key="an_tc").check().run()
    at.number_input(key="an_tc_t").set_value(0.3).run()
    assert not at.exception
    assert at.selectbox(key="an_alg").value == "bnb"
    assert any("Search switched from flash to bnb" in i.value and "not monotone" in i.value for i in at.info)
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert any(s.value.startswith("Holds: t_closeness") for s in at.success)


def test_likeness_disclosure_alpha_and_k_map_chosen_on_anonymize_hold_on_the_release() -> None:
    """The pickers of β-likeness, δ-disclosure privacy, (α, k)-anonymity and estimated k-map write their
    ``[privacy.MODEL]`` tables; β-likeness is not monotone at the limit, so Flash is steered to bnb; each model holds
    on the release, re-verified, and the release's classes meet them, counted here from the released table."""
    at = _own_table_with_a_sensitive_column()
    at.slider(key="an_sup").set_value(10.0).run()
    at.checkbox(key="an_bl").check().run()
    at.number_input(key="an_bl_beta").set_value(3.0).run()
    at.checkbox(key="an_dd").check().run()
    at.number_input(key="an_dd_delta").set_value(3.0).run()
    at.checkbox(key="an_ak").check().run()
    at.number_input(key="an_ak_alpha").set_value(0.8).run()
    at.checkbox(key="an_km").check().run()
    at.number_input(key="an_km_k").set_value(4).run()
    at.number_input(key="an_km_pop").set_value(100_000).run()
    assert not at.exception and at.selectbox(key="an_alg").value == "bnb"
    at.button[0].click().run()
    assert not at.exception and not at.error
    config = dict(at.session_state["last_run"].study.raw)
    assert config["privacy"]["beta_likeness"] == {"attribute": "diagnosis", "variant": "basic", "beta": 3.0}
    assert config["privacy"]["delta_disclosure"] == {"attribute": "diagnosis", "delta": 3.0}
    assert config["privacy"]["alpha_k"] == {"attribute": "diagnosis", "alpha": 0.8}
    assert config["privacy"]["k_map"] == {"k": 4, "population": 100_000, "estimator": "poisson"}
    for kind in ("beta_likeness", "delta_disclosure", "alpha_k", "k_map"):
        assert any(s.value.startswith(f"Holds: {kind}") for s in at.success), kind
    result = wb.run(wb.study_from_dict(config), at.session_state["session_datasets"][
        at.session_state["last_run"].dataset_key])
    table = result.release.table("drop")
    whole = table["diagnosis"].value_counts(normalize=True)
    for _, group in table.groupby(list(result.release.quasi_identifiers)):
        share = group["diagnosis"].value_counts(normalize=True)
        assert share.max() <= 0.8 + 1e-12
        assert all(share[v] / whole[v] - 1 <= 3.0 + 1e-12 for v in share.index)


def test_chosen_models_survive_a_visit_to_another_page() -> None:
    """Streamlit drops the state of widgets a run does not draw; the model pickers are kept like k and the
    suppression limit."""
    at = _own_table_with_a_sensitive_column()
    at.checkbox(key="an_ld").check().run()
    at.number_input(key="an_ld_l").set_value(3.0).run()
    goto(at, "Data").run()
    goto(at, "Anonymize").run()
    assert not at.exception
    assert at.checkbox(key="an_ld").value is True and at.number_input(key="an_ld_l").value == 3.0


# ---------------------------------------------------------------------------------------------- journalist risk
def _journalist_of_release(config: dict) -> tuple[str, str]:
    """The highest and average journalist risk of a δ-presence release on Adult, from a pandas count: each released
    row's population records (the data generalized at the release's levels by the hierarchy rows; every record
    for a suppressed row of '*'), formatted as the page formats them."""
    result = wb.run(wb.study_from_dict(config))
    release, dataset = result.release, result.dataset
    qis = list(release.quasi_identifiers)
    released = release.table("mark")[qis].astype(str)
    people = pd.DataFrame({q: dataset.population.frame[q].astype(str).map(
        {row[0]: row[release.transformation[q]] for row in dataset.hierarchies[q].rows}) for q in qis})
    counts = people.value_counts()
    f = released.value_counts()
    big_f = pd.Series([len(people) if set(key) == {"*"} else counts.get(key, 0) for key in f.index], index=f.index)
    marketer = float((f / big_f).sum() / f.sum())
    average = max(len(f) / float(big_f.sum()), marketer)
    return f"{1 / big_f.min():.6g}", f"{average:.6g}"


def test_delta_presence_on_anonymize_gives_the_risk_page_journalist_risk_against_the_data() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox[0].select("adult").run()
    goto(at, "Anonymize").run()
    at.checkbox(key="an_dp").check().run()
    assert not at.exception
    assert at.selectbox(key="an_alg").value == "bnb"  # δ-presence with δ_min > 0 is not monotone
    at.button[0].click().run()
    deadline = time.monotonic() + 120
    while "last_run" not in at.session_state:
        assert time.monotonic() < deadline, "the run did not finish in 120 s"
        time.sleep(1)
        at.run()
    assert not at.exception and not at.error
    config = dict(at.session_state["last_run"].study.raw)
    assert config["privacy"]["delta_presence"] == {"subset": "research_subset", "delta_min": 0.05, "delta_max": 0.15}
    goto(at, "Risk").run()
    assert not at.exception
    shown_input, shown_release = _shown(at)
    assert shown_input["records"] == "3,016"  # the input is the research subset, as the release
    highest, average = _journalist_of_release(config)
    assert shown_release["highest journalist risk"] == highest
    assert shown_release["average journalist risk"] == average
    assert "highest journalist risk" in shown_input
