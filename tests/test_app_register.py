"""The register in the app (streamlit.testing AppTest; docs/register.md): the Export page records a release when its
file is downloaded (the click's deferred bytes), by the session's user; a second release of the same data at another
node warns on the Export page with the earlier release's id and the count the register's check gives; the History
page lists the dataset's releases and records the board's decision."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pandas as pd
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
