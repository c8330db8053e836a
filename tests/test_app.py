"""The Streamlit app opens on the embedded sample without an exception (streamlit.testing AppTest)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

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
