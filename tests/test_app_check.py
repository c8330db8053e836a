"""The Check page: a table uploaded there (or the Data page's) measured by ``workbench.audit`` and shown with what
each figure says, its downloads the CLI's JSON and page; bad uploads and settings answered with a message."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests._app import APP, captured_downloads, goto
from workbench.audit import check_table


def _release(n: int = 80, seed: int = 3) -> pd.DataFrame:
    """A table as a contractor might deliver it: generalized ages, masked ZIP codes, suppressed rows."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.choice(["20-39", "40-59", "60-79"], n), "zip": rng.choice(["021**", "024**"], n),
                          "diagnosis": rng.choice(["flu", "asthma", "diabetes", ""], n),
                          "stay": rng.integers(1, 9, n).astype(str)})
    frame.loc[rng.random(n) < 0.1, ["age", "zip"]] = "*"
    return frame


def _on_check_page(content: bytes, name: str = "delivered.csv") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    goto(at, "Check").run()
    assert not at.exception
    at.file_uploader(key="check_upload").upload(name, content, "text/csv").run()
    assert not at.exception
    return at


def _widget(at: AppTest, kind: str, name: str):
    return next(w for w in getattr(at, kind) if w.key and w.key.startswith(f"check_{name}:"))


def test_the_page_shows_the_library_figures_and_offers_them():
    frame = _release()
    at = _on_check_page(frame.to_csv(index=False).encode())
    assert _widget(at, "multiselect", "quasi").value == ["age", "zip"]  # suggested by their names
    _widget(at, "multiselect", "sensitive").set_value(["diagnosis", "stay"]).run()
    _widget(at, "number_input", "ell").set_value(2).run()
    assert not at.exception, [e.value for e in at.exception]
    want = check_table(frame, ["age", "zip"], ["diagnosis", "stay"], ell=2, source="delivered.csv")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["k"] == f"{want.k:,}" and metrics["records measured"] == f"{want.kept:,}"
    shown = at.dataframe[0].value
    assert list(shown["value"]) == list(want.figures()["value"])
    assert any("left out of every figure" in c.value for c in at.caption)
    with captured_downloads() as seen:
        at.run()
    assert json.loads(seen["check.json"]()) == json.loads(json.dumps(want.to_dict()))
    page = seen["check.html"]().decode("utf-8")
    assert "Anonymity check: delivered.csv" in page and "Disclosure of stay" in page


def test_bad_uploads_and_tables_are_messages():
    at = _on_check_page(b"\x00\x01binary", "broken.csv")
    assert at.error and "broken.csv" in at.error[0].value and "not a text table" in at.error[0].value
    everything_suppressed = pd.DataFrame({"age": ["*", "*"], "sex": ["*", "*"], "s": ["a", "b"]})
    at = _on_check_page(everything_suppressed.to_csv(index=False).encode(), "empty.csv")
    assert at.error and "every one of its 2 rows is suppressed" in at.error[0].value
    assert not at.exception


def test_the_data_pages_table_is_checked_with_its_roles():
    frame = _release(seed=5)
    content = frame.to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="data_upload").upload("mine.csv", content, "text/csv").run()
    goto(at, "Check").run()
    assert not at.exception and at.radio(key="check_which").value == "The table uploaded on the Data page"
    assert _widget(at, "multiselect", "quasi").value == ["age", "zip"]
    want = check_table(frame, ["age", "zip"], source="mine.csv")
    assert {m.label: m.value for m in at.metric}["k"] == f"{want.k:,}"
