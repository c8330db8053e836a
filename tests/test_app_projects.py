"""Saved projects in the app (streamlit.testing AppTest; docs/register.md#saved-projects): the Data page saves the
session's study for the signed-in analyst (``st.user``, seeded through ``AppTest.user``) or under a project key, a new
session (a new AppTest) lists and reopens it, and the Anonymize page then runs exactly the config it ran before the
save; the data file is asked for and checked by its SHA-256 unless the server stores data with projects; another
analyst sees none of it. Every case records into a real SQLite register (tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, goto, people_config
from workbench.register.store import RegisterError, open_register

ANA = {"is_logged_in": True, "email": "ana@example.org", "name": "Ana"}
BOB = {"is_logged_in": True, "email": "bob@example.org", "name": "Bob"}
SENSITIVE = '[attributes.diagnosis]\nrole = "sensitive"\n'


def _people(seed: int = 3, n: int = 120) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "diagnosis": rng.choice(["flu", "asthma", "diabetes", "cancer"], n)})
    return frame.to_csv(index=False).encode()


def _session(user: dict | None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    if user is not None:
        at.user = dict(user)
    return at.run()


def _ready_people(user: dict | None) -> AppTest:
    """People.csv uploaded and made ready by a config (roles and hierarchies), diagnosis sensitive."""
    at = _session(user)
    at.file_uploader(key="data_upload").upload("people.csv", _people(), "text/csv").run()
    at.file_uploader(key="config_upload").upload("people.toml", people_config(SENSITIVE).encode(),
                                                 "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    return at


def _run(at: AppTest) -> dict:
    """Run the Anonymize page as it is set; the config and dataset it ran."""
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and at.success, [e.value for e in at.error]
    last = at.session_state["last_run"]
    return {"config": dict(last.study.raw), "dataset_key": last.dataset_key}


def _save(at: AppTest, name: str, store: bool = False) -> None:
    goto(at, "Data").run()
    at.text_input(key="pj_name").set_value(name)
    if store:
        at.checkbox(key="pj_store").check()
    elif not at.checkbox(key="pj_store").disabled:
        at.checkbox(key="pj_store").uncheck()
    at.button(key="pj_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.success and f"Saved as project {name}" in at.success[0].value


def _choose(at: AppTest, name: str) -> None:
    """Choose the saved project ``name`` in the list and click Reopen."""
    choice = at.selectbox(key="pj_choice")
    labels = list(choice.options)
    [index] = [i for i, label in enumerate(labels) if label.startswith(name + " (")]
    choice.set_value(_ids(at)[index]).run()
    at.button(key="pj_reopen").click().run()
    assert not at.exception


def _ids(at: AppTest) -> list[int]:
    """The project numbers the list shows, in its order (its table's first column)."""
    return [int(i) for i in at.dataframe[0].value["number"]]


def test_an_own_table_reopens_in_a_new_session_once_its_file_matches() -> None:
    first = _ready_people(ANA)
    goto(first, "Anonymize").run()
    first.number_input(key="an_k").set_value(4).run()
    first.checkbox(key="an_ld").check().run()
    first.number_input(key="an_ld_l").set_value(3.0).run()
    before = _run(first)
    assert before["config"]["privacy"]["k"] == 4 and before["config"]["privacy"]["l_diversity"]["l"] == 3
    _save(first, "people k4 l3")
    [saved] = open_register().projects("ana@example.org")
    assert (saved["name"], saved["data_name"], saved["has_data"]) == ("people k4 l3", "people.csv", False)
    assert open_register().projects("bob@example.org") == []

    # a new session of the same analyst: the project is listed; reopening asks for the file
    second = _session(ANA)
    _choose(second, "people k4 l3")
    assert any("upload people.csv" in i.value for i in second.info)
    other = _people(seed=4)  # another table with the same columns: refused by its SHA-256, in one line
    second.file_uploader(key="data_upload").upload("people.csv", other, "text/csv").run()
    [error] = [e.value for e in second.error if "is not the data of the saved project" in e.value]
    assert "\n" not in error and saved["data_sha256"][:12] in error
    second.file_uploader(key="data_upload").upload("people.csv", _people(), "text/csv").run()
    assert not second.exception
    assert any("Reopened project 'people k4 l3'" in s.value for s in second.success)
    assert second.selectbox(key="dataset").value == "uploaded"
    assert _run(second) == before  # the same roles, hierarchies, posets and settings: the same run

    # another analyst lists none of it and cannot open it
    third = _session(BOB)
    assert any("No saved project yet" in c.value for c in third.caption)
    with pytest.raises(KeyError):
        third.selectbox(key="pj_choice")
    with pytest.raises(RegisterError, match="no saved project"):
        open_register().project(saved["id"], "bob@example.org")


def test_the_data_is_stored_only_when_asked_and_allowed(tmp_path, monkeypatch) -> None:
    refused = _ready_people(ANA)  # no server config: store_data is false
    assert refused.checkbox(key="pj_store").disabled
    _save(refused, "not stored")
    server = tmp_path / "server.toml"
    server.write_text("[register]\nstore_data = true\n", encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_CONFIG", str(server))
    first = _ready_people(ANA)
    before = _run(first)  # the Data page left: the upload box forgets its file, the session keeps its bytes
    goto(first, "Data").run()
    assert not first.checkbox(key="pj_store").disabled
    _save(first, "stored", store=True)
    _save(first, "stored too, not asked")
    reg = open_register()
    stored = {p["name"]: p for p in reg.projects("ana@example.org")}
    assert stored["stored"]["has_data"] and not stored["not stored"]["has_data"]
    assert not stored["stored too, not asked"]["has_data"]
    assert bytes(reg.project(stored["stored"]["id"], "ana@example.org")["data"]) == _people()

    second = _session(ANA)  # no upload: the table comes from the register
    _choose(second, "stored")
    assert any("Reopened project 'stored'" in s.value for s in second.success)
    assert second.selectbox(key="dataset").value == "uploaded"
    assert _run(second) == before


def test_a_sample_project_restores_the_settings() -> None:
    first = _session(ANA)
    first.selectbox(key="dataset").select("teaching").run()
    goto(first, "Anonymize").run()
    first.number_input(key="an_k").set_value(3).run()
    first.selectbox(key="an_obj").select("loss").run()
    before = _run(first)
    _save(first, "teaching k3")
    second = _session(ANA)
    assert second.selectbox(key="dataset").value == "registry"
    _choose(second, "teaching k3")
    assert second.selectbox(key="dataset").value == "teaching"
    assert _run(second) == before


def test_an_anonymous_session_keeps_projects_under_a_key() -> None:
    first = _session(None)  # AppTest's default user is not logged in: "anonymous session"
    goto(first, "Data").run()
    with pytest.raises(KeyError):
        first.text_input(key="pj_name")  # no key yet: nothing to save under
    first.text_input(key="pj_key").set_value("short").run()
    assert any("at least 12 characters" in i.value for i in first.info)
    key = "correct horse battery staple"
    first.text_input(key="pj_key").set_value(key).run()
    _save(first, "registry defaults")
    with open_register().engine.connect() as conn:
        owners = [r[0] for r in conn.exec_driver_sql("SELECT owner FROM projects")]
    assert len(owners) == 1 and owners[0].startswith("key ") and key not in owners[0]  # no key in clear

    same = _session(None)
    same.text_input(key="pj_key").set_value(key).run()
    assert list(same.dataframe[0].value["name"]) == ["registry defaults"]
    other = _session(None)
    other.text_input(key="pj_key").set_value("another long project key").run()
    assert any("No saved project yet" in c.value for c in other.caption)
    signed_in = _session(ANA)  # a signed-in analyst's projects are theirs, not the key's
    assert any("No saved project yet" in c.value for c in signed_in.caption)


def test_only_settings_a_widget_can_take_back_are_restored() -> None:
    """``restorable`` keeps each value the Anonymize page's widgets can hold (every picker's default, a sensitive
    attribute or several) and drops what they cannot (a choice no longer offered, a number for a switch, k below 1,
    an attribute that is not sensitive, a key that is no setting), naming it; one attribute saved as a name (when
    a model took one) comes back as a list of it."""
    from workbench.privacy.registry import PRIVACY_MODELS
    from workbench.ui import state
    from workbench.ui.projects import restorable, settings_keys

    defaults = {state.field_key(model, f): f.default for model in PRIVACY_MODELS.values() for f in model.form.fields
                if f.widget in ("number", "choice") and f.default is not None}
    good = {**defaults, "an_k": 5, "an_sup": 2.0, "sup_override": False, "an_engine": "local",
            "an_alg": "flash", "an_obj": "loss", "an_local_alg": "mondrian", "an_local_obj": "vinterbo",
            "an_time": 60, "an_ld": True, "an_ld_attr": ["diagnosis"], "an_bl_attr": ["diagnosis", "ward"]}
    assert set(good) <= set(settings_keys())
    assert restorable(good, ["diagnosis", "ward"]) == (good, [])
    assert restorable({"an_tc_attr": "ward"}, ["diagnosis", "ward"]) == ({"an_tc_attr": ["ward"]}, [])
    bad = {"an_alg": "no-such-search", "an_ld": 1, "an_k": 0, "an_ld_attr": "age", "an_bl_attr": ["diagnosis", "age"],
           "an_dd_attr": [], "an_tc_t": float("nan"),
           "an_sup": 120.0, "lat_node": "1,2", "an_engine": "lattice"}
    kept, dropped = restorable(bad, ["diagnosis"])
    assert kept == {"an_engine": "lattice"} and sorted(dropped) == sorted(set(bad) - {"an_engine"})


def test_a_project_of_another_layout_is_refused_in_one_line() -> None:
    open_register().save_project("ana@example.org", "later", "sample:teaching", None,
                                   {"format": 99, "dataset": "teaching", "settings": {"an_k": 3}})
    at = _session(ANA)
    _choose(at, "later")
    [error] = [e.value for e in at.error]
    assert "saved by another version of the workbench" in error and "\n" not in error
    assert at.selectbox(key="dataset").value == "registry" and "an_k" not in at.session_state
