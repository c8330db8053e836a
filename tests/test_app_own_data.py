"""The app on the user's own data: upload -> roles -> hierarchies (built and imported, with the
validation report) -> anonymize -> export, and bad uploads answered with a message, never a traceback."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from workbench.config.bundle import config_bundle, read_config_bytes

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _table(n: int = 300, seed: int = 4) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "patient": [f"P{i:04d}" for i in range(n)],
        "age": rng.integers(20, 80, n).astype(str),
        "zip": rng.choice(["02139", "02138", "02141", "02142", "02445", "02446"], n),
        "sex": rng.choice(["F", "M"], n),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n),
    })
    return frame.to_csv(index=False).encode()


def _uploaded(content: bytes, name: str = "patients.csv") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="data_upload").upload(name, content, "text/csv").run()
    assert not at.exception
    return at


def _with_roles(at: AppTest, content: bytes) -> AppTest:
    sha = hashlib.sha256(content).hexdigest()
    at.multiselect(key=f"role:quasi:{sha}").set_value(["age", "zip", "sex"]).run()
    at.multiselect(key=f"role:identifying:{sha}").set_value(["patient"]).run()
    at.selectbox(key=f"role:target:{sha}").select("diagnosis").run()
    assert not at.exception
    return at


def _hierarchies(at: AppTest) -> AppTest:
    """Build age (intervals, the suggested builder for numbers) and zip (masking); import sex as ARX."""
    goto(at, "Hierarchies").run()
    for column, kind in (("age", "intervals"), ("zip", "masking")):
        at.selectbox(key="h_column").select(column).run()
        assert at.selectbox(key=f"kind:{column}").value == kind
        assert not at.exception and any("Valid: height" in s.value for s in at.success)
    at.selectbox(key="h_column").select("sex").run()
    at.radio(key="mode:sex").set_value("Import an ARX file").run()
    at.file_uploader(key="arxfile:sex").upload("sex.csv", b"F;*\nM;*\n", "text/csv").run()
    assert not at.exception
    return at


def _with_config(rest: str) -> tuple[AppTest, bytes]:
    """The table uploaded, then a config loaded: ``patients.csv`` with sex (groupings) as the first
    quasi-identifier, followed by ``rest`` (more sex keys, other attributes, sections)."""
    content = _table()
    at = _uploaded(content)
    toml = ('[data]\npath = "patients.csv"\n[attributes.sex]\nrole = "quasi"\n'
            'builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }\n' + rest).encode()
    at.file_uploader(key="config_upload").upload("study.toml", toml, "application/toml").run()
    return at, content


def test_own_data_from_upload_to_export():
    content = _table()
    at = _hierarchies(_with_roles(_uploaded(content), content))
    assert any("Every quasi-identifier has a valid hierarchy" in s.value for s in at.success)
    at.selectbox(key="dataset").select("uploaded").run()
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous with k = 5" in at.success[0].value
    names = {m.label for m in at.metric}
    assert "Normalized mutual information" in names  # the target chosen on the Data page is used
    goto(at, "Export").run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Config with hierarchy files (zip)" in labels and "Value mappings (CSV)" in labels
    goto(at, "Lattice").run()
    assert not at.exception and at.get("vega_lite_chart")
    goto(at, "Compare").run()
    assert not at.exception
    assert {"lattice", "local"} <= set(at.dataframe[0].value["engine"])  # both engines on the uploaded table


def test_local_engine_on_own_data_with_a_range_poset():
    content = _table(120)
    at = _hierarchies(_with_roles(_uploaded(content), content))
    at.selectbox(key="h_column").select("age").run()
    at.selectbox(key="poset:age").select("range").run()
    at.selectbox(key="dataset").select("uploaded").run()
    goto(at, "Anonymize").run()
    at.radio(key="an_engine").set_value("local").run()
    at.selectbox(key="an_local_alg").select("partition").run()
    at.button[0].click().run()
    assert not at.exception
    assert at.success and "k-anonymous with k = 5" in at.success[0].value


def test_a_hierarchy_that_misses_values_is_reported_and_blocks_the_run():
    content = _table()
    at = _with_roles(_uploaded(content), content)
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("zip").run()
    at.radio(key="mode:zip").set_value("Import an ARX file").run()
    at.file_uploader(key="arxfile:zip").upload("zip.csv", b"02139;0213*;*\n02138;0213*;*\n", "text/csv").run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "has no row for 4 data value(s)" in errors and "'02141'" in errors
    goto(at, "Anonymize").run()  # chosen but not ready: the page says why, runs nothing
    assert not at.exception and "not ready yet" in at.warning[0].value and not at.button


def test_a_builder_that_does_not_fit_says_why():
    content = _table()
    at = _with_roles(_uploaded(content), content)
    goto(at, "Hierarchies").run()
    at.text_input(key="widths:age").set_value("5, 7").run()
    assert not at.exception
    assert at.error and "multiple" in at.error[0].value
    at.text_input(key="widths:age").set_value("5, x").run()
    assert not at.exception and "numbers separated by commas" in at.error[0].value


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.csv", b"", "the file is empty"),
    ("picture.csv", bytes(range(256)) * 8, "not a text table"),
    ("header.csv", b"a,b,c\n", "no data rows"),
    ("sheet.xlsx", b"this is not a spreadsheet", "cannot read as xlsx"),
    ("table.parquet", b"PAR1 nope", "cannot read as parquet"),
])
def test_bad_uploads_show_a_message_not_a_traceback(name, content, message):
    at = _uploaded(content, name)
    assert at.error and message in at.error[0].value and name in at.error[0].value


def test_a_config_bundle_loads_again_on_the_data_page():
    content = _table()
    at = _hierarchies(_with_roles(_uploaded(content), content))
    at.selectbox(key="dataset").select("uploaded").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(7).run()
    at.button[0].click().run()
    source_config = at.session_state["last_run"].study
    raw = dict(source_config.raw)  # the bundle the Export page offers, rebuilt from the same library call
    bundle = config_bundle(raw, {"hierarchies/sex.csv": "F;*\nM;*\n"})
    fresh = _uploaded(content)
    fresh.file_uploader(key="config_upload").upload("config-bundle.zip", bundle, "application/zip").run()
    assert not fresh.exception
    assert any(c.value == "config-bundle.zip is loaded." for c in fresh.caption)
    assert fresh.session_state["an_k"] == 7
    assert fresh.selectbox(key="dataset").value == "uploaded"  # ready: roles and all three hierarchies came back
    goto(fresh, "Anonymize").run()
    fresh.button[0].click().run()
    assert not fresh.exception and "k-anonymous with k = 7" in fresh.success[0].value


def test_bundle_round_trip_and_bad_configs():
    bundle = io.BytesIO()
    with zipfile.ZipFile(bundle, "w") as z:
        z.writestr("notes.txt", "x")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.file_uploader(key="config_upload").upload("b.zip", bundle.getvalue(), "application/zip").run()
    assert not at.exception and "has no config.toml" in at.error[0].value
    at.file_uploader(key="config_upload").set_value(("c.toml", b"[privacy\nk = 3", "application/toml")).run()
    assert not at.exception and "not valid TOML" in at.error[0].value
    with pytest.raises(Exception, match="not a zip file"):
        read_config_bytes(b"nope", "x.zip")


def test_a_loaded_config_sets_the_quasi_identifier_order_and_the_target():
    at, content = _with_config("""[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10, 20] }
[attributes.patient]
role = "identifying"
[measures]
target = "diagnosis"
""")
    assert not at.exception
    sha = hashlib.sha256(content).hexdigest()
    assert at.multiselect(key=f"role:quasi:{sha}").value == ["sex", "age"]  # the config's order
    assert at.selectbox(key=f"role:target:{sha}").value == "diagnosis"
    assert at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception
    transformation = at.dataframe[0].value
    assert list(transformation.columns) == ["sex", "age"]


def test_a_loaded_config_keeps_a_large_k_the_suppression_limit_and_says_what_it_cannot_carry():
    """A config's k above any widget bound and a suppression limit over 20 % arrive unchanged (k = 1001 was
    once run as k = 1); an objective the page does not offer is named in a warning, not silently replaced."""
    at, _ = _with_config("""[privacy]
k = 1001
max_suppression = 0.5
[engine]
objective = "nmi"
[measures]
target = "diagnosis"
""")
    assert not at.exception
    assert any("objective 'nmi' is not offered" in w.value for w in at.warning)
    goto(at, "Anonymize").run()
    assert at.number_input(key="an_k").value == 1001 and at.slider(key="an_sup").value == 50.0
    at.button[0].click().run()
    assert not at.exception and at.error and "1001" in at.error[0].value  # 300 records: a clear refusal


def test_anonymize_settings_survive_the_engine_switch_and_other_pages():
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.selectbox(key="an_alg").select("bnb").run()
    at.selectbox(key="an_obj").select("loss").run()
    at.slider(key="an_sup").set_value(15.0).run()
    at.number_input(key="an_k").set_value(3).run()
    at.radio(key="an_engine").set_value("local").run()
    at.selectbox(key="an_local_alg").select("partition").run()
    at.radio(key="an_engine").set_value("lattice").run()
    goto(at, "Walkthrough").run()
    goto(at, "Anonymize").run()
    assert not at.exception
    assert (at.selectbox(key="an_alg").value, at.selectbox(key="an_obj").value, at.slider(key="an_sup").value,
            at.number_input(key="an_k").value) == ("bnb", "loss", 15.0, 3)
    at.radio(key="an_engine").set_value("local").run()
    assert at.selectbox(key="an_local_alg").value == "partition"


def test_anonymize_runs_overlapping_greedy_and_ola_with_a_non_monotone_objective():
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.selectbox(key="an_obj").select("loss").run()  # Flash (the default) is optimal for it: no switch
    assert at.selectbox(key="an_alg").value == "flash" and not at.warning and not at.info
    at.selectbox(key="an_alg").select("ola").run()
    at.selectbox(key="an_obj").select("entropy").run()
    at.selectbox(key="an_obj").select("loss").run()  # OLA assumes a monotone objective
    assert at.selectbox(key="an_alg").value == "bnb" and not at.warning  # steered to an optimal search
    assert any("switched from ola to bnb" in i.value and "not monotone" in i.value for i in at.info)
    at.selectbox(key="an_alg").select("ola").run()  # the analyst insists
    assert any("not proven optimal" in w.value for w in at.warning) and not at.info
    at.button[0].click().run()
    assert not at.exception and not at.error and "k-anonymous" in at.success[0].value
    assert any(c.value.startswith("not proven optimal") and "bnb" in c.value for c in at.caption)
    at.radio(key="an_engine").set_value("local").run()
    at.selectbox(key="an_local_alg").select("greedy_overlapping").run()
    at.number_input(key="an_k").set_value(2).run()
    at.button[0].click().run()
    assert not at.exception and any("k-ambiguous with k = 2" in w.value for w in at.warning)  # not the green
    assert not any(s.value.startswith("Clustering") for s in at.subheader)  # overlapping groups: no clusters


def test_a_config_with_a_poset_file_says_the_app_uses_the_tree_poset():
    at, _ = _with_config('poset = "matrix"\nposet_file = "sex-poset.toml"\n')
    assert not at.exception and any("poset 'matrix' of 'sex'" in w.value for w in at.warning)
    goto(at, "Hierarchies").run()
    assert not at.exception  # the poset choice used to fail on a kind it does not list
    assert at.selectbox(key="poset:sex").value == "tree"


def _wide(quasi: int) -> tuple[AppTest, bytes]:
    """200 rows, ``quasi`` quasi-identifiers of 3 values under a 2-level hierarchy: 3**quasi lattice nodes."""
    rng = np.random.default_rng(15)
    content = pd.DataFrame({f"c{i}": rng.choice(["a", "b", "c"], 200) for i in range(quasi)}).to_csv(
        index=False).encode()
    at = _uploaded(content, "wide.csv")
    at.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").set_value(
        [f"c{i}" for i in range(quasi)]).run()
    goto(at, "Hierarchies").run()
    for i in range(quasi):
        at.selectbox(key="h_column").select(f"c{i}").run()
        at.radio(key=f"mode:c{i}").set_value("Import an ARX file").run()
        at.file_uploader(key=f"arxfile:c{i}").upload(f"c{i}.csv", b"a;ab;*\nb;ab;*\nc;c;*\n", "text/csv").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    return at, content


def test_a_huge_lattice_is_refused_by_the_whole_lattice_pages_and_searched_within_a_time_limit():
    """12 quasi-identifiers: 531,441 nodes. The Compare page (which evaluates every node) says so instead of
    running for minutes; the Lattice page shows what the search searched instead of every node, and says so;
    Anonymize names the size, refuses exhaustive (no time limit) and runs Flash within its time limit."""
    at, _ = _wide(12)
    goto(at, "Compare").run()
    assert not at.exception and at.error and "531,441 nodes" in at.error[0].value
    goto(at, "Lattice").run()
    assert not at.exception and not at.error
    assert any("531,441 nodes, too many to evaluate each one" in c.value for c in at.caption)
    goto(at, "Anonymize").run()
    assert any("531,441 nodes" in c.value for c in at.caption)
    at.selectbox(key="an_alg").select("exhaustive").run()
    assert at.error and "no time limit" in at.error[0].value and not at.button
    at.selectbox(key="an_alg").select("flash").run()
    at.number_input(key="an_time").set_value(5).run()
    at.button[0].click().run()
    assert not at.exception and "k-anonymous" in at.success[0].value


def test_pages_say_when_the_chosen_upload_is_not_ready():
    at = _uploaded(_table())  # no roles, no hierarchies yet: chosen in the Dataset box, not usable yet
    goto(at, "Anonymize").run()
    assert not at.exception and "not ready yet" in at.warning[0].value and "Data page" in at.warning[0].value
    assert not any(c.value.startswith("Dataset: registry") for c in at.caption)


def test_the_dataset_box_names_the_table_just_uploaded_and_pages_say_when_it_is_not_ready():
    """Issue 18, item 5: after a second upload the Dataset box shows that table (not the first one's label),
    and a page that cannot use it yet says why and what to do instead of working on a sample."""
    first = _table()
    at = _hierarchies(_with_roles(_uploaded(first, "first.csv"), first))
    assert at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Data").run()
    second = _table(200, seed=9)
    at.file_uploader(key="data_upload").upload("second.csv", second, "text/csv").run()
    assert not at.exception
    box = at.selectbox(key="dataset")
    assert box.value == "uploaded" and "second.csv" in box.options[box.index]
    assert not any("first.csv" in label for label in box.options)
    for page in ("Anonymize", "Lattice", "Compare"):
        goto(at, page).run()
        assert not at.exception
        assert at.warning and "second.csv" in at.warning[0].value and "Hierarchies page" in at.warning[0].value
        assert not any(c.value.startswith("Dataset: registry") for c in at.caption)
    at.selectbox(key="dataset").select("registry").run()
    assert not at.exception and not any("not ready" in w.value for w in at.warning)


def test_accept_all_suggested_hierarchies_in_one_click_and_two_value_columns_go_straight_to_the_root():
    """Issue 18, item 8: one click gives every quasi-identifier its suggested hierarchy (no column opened first),
    and sex and smoker (two values each) generalize to '*' directly: age 6 levels x 2 x 2 = 24 nodes, not 54."""
    rng = np.random.default_rng(8)
    content = pd.DataFrame({"age": rng.integers(18, 91, 400).astype(str), "sex": rng.choice(["F", "M"], 400),
                            "smoker": rng.choice(["yes", "no"], 400),
                            "outcome": rng.choice(["a", "b"], 400)}).to_csv(index=False).encode()
    at = _uploaded(content, "people.csv")
    at.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").set_value(["age", "sex", "smoker"]).run()
    goto(at, "Hierarchies").run()
    assert not at.exception
    at.button(key="h_accept_all").click().run()
    assert not at.exception
    assert any("Every quasi-identifier has a valid hierarchy" in s.value for s in at.success)
    at.selectbox(key="h_column").select("sex").run()
    assert at.selectbox(key="kind:sex").value == "groupings" and at.number_input(key="depth:sex").value == 0
    assert any("Valid: height 1" in s.value for s in at.success)
    goto(at, "Anonymize").run()
    assert not at.exception and any("has 24 nodes" in c.value for c in at.caption)
    at.button[0].click().run()
    assert not at.exception and "k-anonymous with k = 5" in at.success[0].value


def test_missing_values_are_labelled_and_placed_on_the_hierarchies_page():
    """Issue 18, item 10: empty ages are "(missing)" in the level table and the counts, and the page says where the
    builder puts them (their own group) and how exports write them."""
    rng = np.random.default_rng(10)
    ages = rng.integers(18, 91, 300).astype(str)
    ages[:40] = ""
    content = pd.DataFrame({"age": ages, "sex": rng.choice(["F", "M"], 300)}).to_csv(index=False).encode()
    at = _uploaded(content, "gaps.csv")
    at.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").set_value(["age", "sex"]).run()
    goto(at, "Hierarchies").run()
    assert not at.exception
    assert any("40 record(s) with a missing value" in c.value and "own group '(missing)'" in c.value
               for c in at.caption)
    levels, counts = at.dataframe[0].value, at.dataframe[1].value
    assert "(missing)" in set(levels.iloc[:, 0]) and "" not in set(levels.iloc[:, 0])
    assert "(missing)" in set(levels.iloc[:, 1]) and "" not in set(levels.iloc[:, 1])
    assert counts.set_index(counts.columns[0]).loc["(missing)"].iloc[0] == 40


def test_anonymize_local_engine_refuses_a_model_it_cannot_enforce_and_mondrian_enforces_it():
    """The privacy-model pickers are offered with the local engine too: Greedy with ℓ-diversity shows the library's
    one-line refusal instead of a Run button; Mondrian runs and the model holds on its release."""
    from tests._app import ready_own_table

    at = ready_own_table("diagnosis", ["flu", "asthma", "diabetes", "copd"],
                         '[attributes.diagnosis]\nrole = "sensitive"\n', seed=5, n=150)
    goto(at, "Anonymize").run()
    at.radio(key="an_engine").set_value("local").run()
    at.checkbox(key="an_ld").check().run()
    at.number_input(key="an_ld_l").set_value(3.0).run()
    assert not at.exception
    assert [e.value for e in at.error] == ["engine.algorithm 'greedy' (local engine) cannot enforce "
                                           "distinct-3-diversity of diagnosis; use 'mondrian' or the lattice engine "
                                           "(engine.kind = 'lattice')"]
    assert "Run" not in [b.label for b in at.button]
    at.selectbox(key="an_local_alg").select("mondrian").run()
    assert not at.error
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and not at.error
    texts = [s.value for s in at.success]
    assert any("k-anonymous" in t and "1 privacy model(s) hold" in t for t in texts)
    assert "Holds: l_diversity: distinct-3-diversity of diagnosis" in texts
