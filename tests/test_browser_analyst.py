"""A new analyst's path on a public table nobody on this project prepared (carData's TitanicSurvival, as R's
write.csv writes it: tests/fixtures/public/), in a real browser (Debian's chromium, Playwright): upload, pick the
quasi-identifiers, accept the suggested hierarchies, anonymize, visit Lattice and Compare (the same k and
suppression limit shown), export, and check the exported release with pandas. At most 10 clicks after the upload,
counted here.

Screenshots of each page go to tests/artifacts/analyst/."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from tests._browser import NEEDS_CHROMIUM, browser_page, download_by_click
from tests._server import app_server
from workbench.config import load_study

ROOT = Path(__file__).resolve().parents[1]
TITANIC = ROOT / "tests" / "fixtures" / "public" / "titanic_survival.csv"
ARTIFACTS = ROOT / "tests" / "artifacts" / "analyst"
QUASI = ["sex", "age", "passengerClass"]  # sex and age suggested from their names; the class picked
MAX_CLICKS = 10

pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def app_url():
    with app_server(env={"PYTHONPATH": str(ROOT)}) as url:
        yield url


def test_a_new_analyst_exports_a_k_anonymous_release_in_ten_clicks(app_url, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    clicks: list[str] = []
    with browser_page(1280, 800, accept_downloads=True) as (page, errors):

        def click(what: str, locator) -> None:
            """One click of the analyst's, counted; the pointer moves over the element first, as a hand's does
            (the multiselect's list opens on a press that follows a hover)."""
            clicks.append(what)
            locator.hover()
            page.wait_for_timeout(200)
            locator.click()

        sidebar = page.locator('[data-testid="stSidebar"]')

        def go(title: str, ready: str, timeout: int = 180_000) -> None:
            click(title, sidebar.get_by_text(title, exact=True))
            page.get_by_text(ready).first.wait_for(timeout=timeout)
            settle()

        def settle() -> None:
            """Wait until the app's script has finished its run (a run redraws the page, closing an open list)."""
            page.wait_for_timeout(300)
            page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=180_000)

        def settings() -> tuple[str, str]:
            """The k and the suppression limit the page shows."""
            k = page.get_by_label("k", exact=True).first.input_value()
            limit = page.locator('[data-testid="stSliderThumbValue"]').first.inner_text()
            return k, limit

        page.goto(app_url)
        page.get_by_text("Attributes").first.wait_for(timeout=60_000)
        page.locator('input[type="file"]').first.set_input_files(str(TITANIC))  # the upload (not counted)
        page.get_by_text("held in this session only").first.wait_for(timeout=60_000)
        page.get_by_text("the first column has no header").first.wait_for(timeout=30_000)
        settle()
        page.screenshot(path=str(ARTIFACTS / "data.png"))

        # the quasi-identifiers: sex and age are suggested; the analyst adds the passenger class
        quasi = page.get_by_label(re.compile("Quasi-identifiers, in the order"))
        click("open the quasi-identifier list", quasi)
        click("pick passengerClass",
              page.locator('[role="option"]').filter(has_text=re.compile(r"^passengerClass$")).first)
        settle()
        # the list is still open (it hides the rest of the page from the accessibility tree); one click on the
        # button closes it and presses the button
        accept = page.locator("button", has_text="Accept the suggested hierarchies (3 column(s) without one)")
        click("accept the suggested hierarchies", accept)
        page.get_by_text("Ready:").first.wait_for(timeout=120_000)
        page.screenshot(path=str(ARTIFACTS / "data-ready.png"))

        go("Anonymize", "Suppression limit")
        shown = {"Anonymize": settings()}
        click("Run", page.get_by_role("button", name="Run"))
        page.get_by_text("Guarantee: k-anonymous").first.wait_for(timeout=180_000)
        page.screenshot(path=str(ARTIFACTS / "anonymize.png"))
        go("Lattice", "nodes;")
        shown["Lattice"] = settings()
        page.screenshot(path=str(ARTIFACTS / "lattice.png"))
        go("Compare", "Which solution each measure would choose", 300_000)
        shown["Compare"] = settings()
        page.screenshot(path=str(ARTIFACTS / "compare.png"))
        go("Export", "re-verification")
        page.get_by_role("button", name="Config (TOML)").wait_for(timeout=60_000)
        files = {}
        for name, label in (("release.csv", "Release"), ("config.toml", "Config (TOML)")):
            button = page.get_by_role("button", name=label, exact=True)
            download = download_by_click(page, lambda button=button, name=name: click(f"download {name}", button))
            files[name] = tmp_path / name
            download.save_as(files[name])
        page.screenshot(path=str(ARTIFACTS / "export.png"))

    print(f"\n{len(clicks)} clicks after the upload: " + "; ".join(clicks))
    assert not errors, errors
    assert len(clicks) <= MAX_CLICKS, clicks
    assert shown["Anonymize"] == shown["Lattice"] == shown["Compare"] == ("5", "2 %"), shown  # one set of settings
    release = pd.read_csv(io.BytesIO(files["release.csv"].read_bytes()), dtype=str, keep_default_na=False)
    source = pd.read_csv(TITANIC, dtype=str, keep_default_na=False)
    assert len(release) == len(source) == 1309
    assert "row names" not in release.columns and not set(source.iloc[:, 0]) & set(release.to_numpy().ravel())
    suppressed = (release[QUASI] == "*").all(axis=1)
    assert release[~suppressed].groupby(QUASI).size().min() >= 5  # every group of identical rows >= k, or '*'
    assert suppressed.sum() <= 0.02 * len(release)  # within the suppression limit shown
    study = load_study(files["config.toml"])
    assert [a.name for a in study.attributes if a.role == "quasi"] == QUASI  # the analyst's order
