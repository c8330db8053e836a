"""The report of an uploaded table in a real browser (Debian's chromium, Playwright): a CSV uploaded through the Data
page's file uploader under a name that is a path, made ready, anonymized, exported; the report built on the Export
page names the upload by its base name and the SHA-256 of the uploaded bytes, and neither the page nor the report
shows a traceback or a path."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._browser import NEEDS_CHROMIUM, browser_page, download_by_click
from tests._server import app_server

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts" / "upload-report"

pytestmark = [NEEDS_CHROMIUM, pytest.mark.slow]


def _table(n: int = 300, seed: int = 11) -> bytes:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
                         "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n)}).to_csv(index=False).encode()


@pytest.fixture(scope="module")
def app_url():
    with app_server(env={"PYTHONPATH": str(ROOT)}) as url:
        yield url


def test_the_report_of_an_upload_names_its_base_name_and_the_bytes_sha256(app_url, tmp_path):
    """The browser sends the name as given (``..\\..\\srv\\data\\patients.csv`` reaches the server whole); a name
    with ``/`` is the AppTest's (tests/test_upload_provenance.py)."""
    client_name = "..\\..\\srv\\data\\patients.csv"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    content = _table()
    digest = hashlib.sha256(content).hexdigest()
    with browser_page(1280, 900, accept_downloads=True) as (page, errors):

        def settle() -> None:
            page.wait_for_timeout(300)
            page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=180_000)

        def go(title: str, ready: str) -> None:
            page.locator('[data-testid="stSidebar"]').get_by_text(title, exact=True).click()
            page.get_by_text(ready).first.wait_for(timeout=180_000)
            settle()

        page.goto(app_url)
        page.get_by_text("Attributes").first.wait_for(timeout=60_000)
        page.locator('input[type="file"]').first.set_input_files(
            files=[{"name": client_name, "mimeType": "text/csv", "buffer": content}])
        page.get_by_text("held in this session only").first.wait_for(timeout=60_000)
        settle()
        assert page.get_by_text(re.compile(r"^patients\.csv: 300 rows")).count() == 1  # the base name names it
        # age, sex and zip are suggested as quasi-identifiers from their names; one click gives each a hierarchy
        page.locator("button", has_text="Accept the suggested hierarchies").click()
        page.get_by_text("Ready:").first.wait_for(timeout=120_000)
        settle()
        go("Anonymize", "Suppression limit")
        page.get_by_role("button", name="Run").click()
        page.get_by_text("Guarantee: k-anonymous").first.wait_for(timeout=180_000)
        go("Export", "re-verification")
        page.get_by_role("button", name="Build the report").click()
        button = page.get_by_role("button", name="Report (HTML)", exact=True)
        button.wait_for(timeout=180_000)
        download = download_by_click(page, button.click)
        saved = tmp_path / "report.html"
        download.save_as(saved)
        shown = page.locator("body").inner_text()
        page.screenshot(path=str(ARTIFACTS / "export.png"), full_page=True)
        page.goto(saved.as_uri())  # the downloaded report, as a reviewer opens it
        provenance = page.locator("section#provenance").inner_text()
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)

    assert not errors, errors
    for text in (shown, provenance):
        assert "Traceback" not in text and "FileNotFoundError" not in text and "Errno" not in text
        assert "srv" not in text and "\\" not in text
        assert str(ROOT) not in text and "site-packages" not in text
    assert re.search(r"input\s+patients\.csv\n", provenance), provenance
    assert re.search(rf"SHA-256 of the uploaded bytes\s+{digest}\b", provenance), provenance
    html = saved.read_text(encoding="utf-8")
    assert digest in html and "srv" not in html and str(ROOT) not in html
