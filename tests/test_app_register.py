"""The register in the app (streamlit.testing AppTest; docs/register.md): the Export page records a release when its
file is downloaded (the click's deferred bytes), by the session's user; a second release of the same data at another
node warns on the Export page with the earlier release's id and the count the register's check gives; the History
page lists the dataset's releases and records the board's decision."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import workbench as wb
from tests._app import APP, captured_downloads, goto
from workbench import register as R

TEACHING = Path(APP).parent / "sample_configs" / "teaching.toml"


def _anonymize_teaching(at: AppTest, k: int, suppression: float | None = None) -> None:
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(k).run()
    if suppression is not None:
        at.checkbox(key="sup_override").check().run()
        at.slider(key="an_sup").set_value(suppression).run()
    at.button[0].click().run()
    assert not at.exception


def _alone(first: wb.RunResult, second: wb.RunResult) -> int:
    """The people a join of the two releases on the record leaves alone, written from the definition."""
    qis = first.dataset.quasi_identifiers
    joined = pd.concat([first.release.table()[qis].add_prefix("a_"), second.release.table()[qis].add_prefix("b_")],
                       axis=1)
    return int((joined.groupby(list(joined.columns))[joined.columns[0]].transform("size") == 1).sum())


def _download_release(at: AppTest) -> None:
    with captured_downloads() as seen:
        goto(at, "Export").run()
        assert not at.exception
        content = seen["release.csv"]()  # the click: the bytes are produced, and the release recorded
    assert pd.read_csv(io.BytesIO(content), dtype=str).shape[0] == 10


def test_export_records_on_download_and_warns_of_the_earlier_release_and_history_decides() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    _anonymize_teaching(at, 2)
    goto(at, "Export").run()
    assert R.history() == []  # drawing the page records nothing: only the download does
    _download_release(at)
    [first] = R.history()
    assert (first["channel"], first["user"], first["data_name"], first["k"]) == ("app", "anonymous session",
                                                                                 "sample:teaching", 2)
    assert first["output"].startswith("teaching-k2") and first["output"].endswith(".csv")
    # a second release at k = 3 with up to 30 % suppressed (another node): the Export page warns with release 1 and
    # as many people singled out as a join of the two releases by hand
    _anonymize_teaching(at, 3, 30.0)
    goto(at, "Export").run()
    assert not at.exception
    study = wb.load_study(TEACHING)
    app = {"objective": "entropy", "algorithm": "flash"}  # the Anonymize page's defaults
    one = wb.run(dataclasses.replace(study, k=2, **app))
    two = wb.run(dataclasses.replace(study, k=3, max_suppression=0.3, **app))
    alone = _alone(one, two)
    assert alone > 0 and one.release.transformation != two.release.transformation
    shown = " ".join(w.value for w in at.warning)
    assert f"Release 1 of the same data is in the register: joined with this one it singles out {alone:,} of 10" \
        in shown, shown
    # the History page lists both (once the second is downloaded) and records a decision
    _download_release(at)
    goto(at, "History").run()
    assert not at.exception
    caption = " ".join(c.value for c in at.caption)  # the register named without a path on the server
    assert "The release register (the SQLite file " in caption and "/" not in caption.split("(")[1].split(")")[0]
    table = at.dataframe[0].value
    assert list(table["id"]) == [1, 2] and list(table["k"]) == [2, 3]
    assert R.history()[1]["warnings"][0].startswith("release 1 of the same data")
    at.text_input(key="hi_by").set_value("Ethics board")
    at.radio(key="hi_decision_choice").set_value("conditions")
    at.text_area(key="hi_note").set_value("cardiology only")
    at.selectbox(key="hi_release").set_value(1)
    at.button[0].click().run()
    assert not at.exception and "recorded" in at.success[0].value
    d = R.history()[0]["decision"]
    assert (d["decision"], d["by"], d["note"], d["recorded_by"]) == ("conditions", "Ethics board", "cardiology only",
                                                                     "anonymous session")
    assert at.dataframe[0].value["decision"][0] == "conditions by Ethics board: cardiology only"


def test_history_refuses_a_decision_with_conditions_but_no_note() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    _anonymize_teaching(at, 2)
    _download_release(at)
    goto(at, "History").run()
    at.text_input(key="hi_by").set_value("Board")
    at.radio(key="hi_decision_choice").set_value("conditions")
    at.button[0].click().run()
    assert not at.exception and "needs the conditions" in at.error[0].value
    assert R.history()[0]["decision"] is None


ANA = {"is_logged_in": True, "email": "ana@example.org", "name": "Ana"}
SAME_RELEASE = ("data_name", "data_sha256", "content_sha256", "records", "engine", "algorithm", "k", "models",
                "max_suppression", "node", "suppressed", "classes", "risk", "measures", "config_sha256", "channel")


def _build_report(at: AppTest) -> str:
    next(b for b in at.button if b.label == "Build the report").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at.session_state["report_html"][1].decode("utf-8")


def test_a_report_built_in_the_app_records_its_release_as_workbench_report_does(tmp_path) -> None:
    """The app's "Build the report" records the release once per report built, by the signed-in analyst, with what
    ``workbench report`` records for the same config (the Export page's Config download); its release history names
    the release's id and the earlier release with the board's decision, as the CLI's report does."""
    from tests._cli import call

    at = AppTest.from_file(APP, default_timeout=180)
    at.user = dict(ANA)
    at.run()
    at.selectbox(key="dataset").select("teaching").run()
    _anonymize_teaching(at, 3)
    with captured_downloads() as seen:
        goto(at, "Export").run()
        config = seen["config.toml"]()
    (tmp_path / "config.toml").write_bytes(config)
    status, _, err = call("report", tmp_path / "config.toml", "--out", tmp_path / "cli")
    assert status == 0, err
    [cli] = R.history()
    assert cli["channel"] == "report" and cli["output"] == str((tmp_path / "cli").resolve())
    R.decide(cli["id"], "approved", "Ethics board")
    assert "This release is release <strong>1</strong>" in (tmp_path / "cli" / "report.html").read_text()

    html = _build_report(at)
    assert len(R.history()) == 2  # one record per report built
    app = R.history()[1]
    assert {f: app[f] for f in SAME_RELEASE} == {f: cli[f] for f in SAME_RELEASE}
    assert app["user"] == "ana@example.org" and app["output"].endswith("-report.html")
    assert any(f"recorded as release {app['id']}" in s.value for s in at.success)
    assert f"This release is release <strong>{app['id']}</strong>" in html
    assert "Other releases of this data in the register (1)" in html and "approved by Ethics board" in html
    assert "Release 1: the same release (the same classes), nothing more to join." in html
    goto(at, "History").run()  # the page again, and again: no report built, nothing recorded
    goto(at, "Export").run()
    assert not at.exception and len(R.history()) == 2
    assert [b.proto.label for b in at.get("download_button")][-1] == "Report (HTML)"  # the report built is kept
    _build_report(at)
    assert [r["id"] for r in R.history()] == [1, 2, 3]


def _whoami() -> None:
    import streamlit as st

    from workbench.ui.identity import current_user

    st.text(current_user())


@pytest.mark.parametrize("user, expected", [
    ({"is_logged_in": True, "email": "ana@example.org", "name": "Ana", "sub": "1"}, "ana@example.org"),
    ({"is_logged_in": True, "name": "Ana", "sub": "1"}, "Ana"),
    ({"is_logged_in": True, "sub": "google-oauth2|1234"}, "google-oauth2|1234"),
    ({"is_logged_in": True, "email": "a" * 300}, "a" * 256),
    ({"is_logged_in": False, "email": "ana@example.org"}, "anonymous session"),
    ({"email": "test@example.com"}, "anonymous session"),  # AppTest's default: no login configured
])
def test_the_signed_in_user_is_st_users_email_name_or_sub(user, expected) -> None:
    """``st.user`` as st.login fills it (OIDC claims, ``is_logged_in``), seeded through ``AppTest.user``: Streamlit
    offers no identity provider to tests, so this is the documented shape, not a real login."""
    at = AppTest.from_function(_whoami)
    at.user = user
    at.run()
    assert not at.exception and at.text[0].value == expected


def test_a_release_downloaded_and_a_decision_are_the_signed_in_users() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.user = dict(ANA)
    at.run()
    at.selectbox(key="dataset").select("teaching").run()
    _anonymize_teaching(at, 2)
    _download_release(at)
    goto(at, "History").run()
    at.text_input(key="hi_by").set_value("Ethics board")
    at.button[0].click().run()
    [row] = R.history()
    assert row["user"] == "ana@example.org" and row["channel"] == "app"
    assert (row["decision"]["by"], row["decision"]["recorded_by"]) == ("Ethics board", "ana@example.org")
