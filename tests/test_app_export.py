"""The Export page says what becomes of the suppressed records and offers to leave them out (streamlit.testing
AppTest): the bytes the page hands to its download buttons are read back with pandas."""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, goto
from workbench.ui import export as export_page

QIS = ["date", "gender", "age"]  # the teaching table's quasi-identifiers


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """What the Export page hands to each download button, by label (the page runs in this process)."""
    seen: dict[str, bytes] = {}
    original = export_page.download

    def record(label: str, content: bytes, *args: Any, **kwargs: Any) -> None:
        seen[label] = content
        original(label, content, *args, **kwargs)

    monkeypatch.setattr(export_page, "download", record)
    return seen


def _read(content: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False, na_values=[])


def _export_with_suppression() -> AppTest:
    """The teaching table at k = 3 with a 30 % limit: the optimum suppresses 3 of the 10 records."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(3).run()
    at.checkbox(key="sup_override").check().run()
    at.slider(key="an_sup").set_value(30.0).run()
    at.button[0].click().run()
    assert not at.exception and "3 suppressed" in at.success[0].value
    goto(at, "Export").run()
    assert not at.exception
    return at


def test_export_keeps_suppressed_records_marked_and_drops_them_when_asked(downloads: dict[str, bytes]) -> None:
    at = _export_with_suppression()
    said = " ".join(m.value for m in at.markdown)
    assert "**kept** in the file with `*` in every quasi-identifier" in said and "all 10 rows" in said
    marked = _read(downloads["Release"])
    stars = (marked[QIS] == "*").all(axis=1)
    assert len(marked) == 10 and stars.sum() == 3
    assert json.loads(downloads["Provenance (JSON)"])["suppressed_records"] == "mark"

    at.checkbox(key="ex_drop_suppressed").check().run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "**left out**: the file holds 7 rows, not 10" in said
    assert at.success and "re-verification" in at.success[0].value
    dropped = _read(downloads["Release"])
    assert len(dropped) == 7 and not (dropped[QIS] == "*").any(axis=None)
    assert dropped[QIS].value_counts().min() >= 3  # every group of identical quasi-identifier rows holds k
    # the same rows as the marked file without its starred rows (as multisets: both files are shuffled)
    rows = lambda frame: Counter(map(tuple, frame.to_numpy().tolist()))  # noqa: E731
    assert rows(dropped) == rows(marked[~stars])
    provenance = json.loads(downloads["Provenance (JSON)"])
    assert provenance["suppressed_records"] == "drop"
    assert provenance["guarantee"]["holds"] and provenance["guarantee"]["suppressed"] == 3


def test_a_release_without_suppressed_records_offers_no_choice() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(2).run()
    at.slider(key="an_sup").set_value(0.0).run()
    at.button[0].click().run()
    goto(at, "Export").run()
    assert not at.exception
    assert not [c for c in at.checkbox if c.key == "ex_drop_suppressed"]
    assert any("No record is suppressed" in c.value for c in at.caption)
