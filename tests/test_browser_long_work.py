"""Real-browser test of long work (Debian Chromium driven by Playwright against `streamlit run app.py`): model
degradation with a random forest on the registry shows a progress bar saying what it does, refreshes it by itself
once the page stops waiting in its own run, and Cancel stops it, both while the page waits and from the panel."""

from __future__ import annotations

import time

import pytest

from tests._browser import NEEDS_CHROMIUM, browser_page, expect, playwright
from tests._server import app_server

pytestmark = [pytest.mark.slow, NEEDS_CHROMIUM]


@pytest.fixture(scope="module")
def app_url():
    with app_server() as url:
        yield url


def _pick_classifier(page, name: str) -> None:
    """Choose the classifier once the page has finished running (a rerun detaches an open list), hovering before
    the click that opens the list."""
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=300_000)
    box = page.get_by_role("combobox", name="Classifier (ZeroR always runs as the baseline)")
    for _ in range(3):
        box.hover()
        box.click()
        try:
            page.get_by_role("option", name=name).first.click(timeout=10_000)
            return
        except playwright.Error:
            page.keyboard.press("Escape")
    raise AssertionError(f"could not choose the classifier {name!r}")


def _bar_text(page) -> str:
    bars = page.locator('[data-testid="stProgress"]')
    return bars.last.inner_text() if bars.count() else ""


def test_model_degradation_shows_its_progress_and_cancels(app_url):
    with browser_page(1400, 1000) as (page, errors):
        page.goto(f"{app_url}/compare")
        page.get_by_text("Which solution each measure would choose").first.wait_for(timeout=300_000)
        page.get_by_text("Classifier (ZeroR always runs as the baseline)").first.wait_for(timeout=60_000)
        _pick_classifier(page, "random_forest")
        run = page.get_by_role("button", name="Run model degradation")

        # Cancel while the page still waits in its own run
        run.click()
        page.get_by_text("Model degradation of").first.wait_for(timeout=60_000)
        page.get_by_role("button", name="Cancel").click()
        page.get_by_text("Model degradation cancelled").wait_for(timeout=60_000)

        # Cancel from the self-refreshing panel, once the page has stopped waiting
        run.click()
        page.get_by_text("Model degradation of").first.wait_for(timeout=60_000)
        texts = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any("fold" in t for t in texts):
            texts.add(_bar_text(page))
            time.sleep(0.5)
        assert any("random_forest" in t or "zeror: fold" in t for t in texts), texts  # says what it is doing
        time.sleep(4)  # past the page's own wait: the panel refreshes the bar by itself (its time runs on)
        before = _bar_text(page)
        time.sleep(3)
        assert _bar_text(page) != before and "Model degradation of" in before
        page.get_by_role("button", name="Cancel").click()
        page.get_by_text("Model degradation cancelled").wait_for(timeout=60_000)
        # the bar goes with the run that shows the message, or the one after it on a loaded machine
        expect(page.locator('[data-testid="stProgress"]')).to_have_count(0, timeout=15_000)
    assert not errors, errors


def _settled_count(locator, quiet: float = 3.0, timeout: float = 120.0) -> int:
    """The number of elements ``locator`` matches once it has not changed for ``quiet`` seconds."""
    deadline, last, since = time.monotonic() + timeout, -1, time.monotonic()
    while time.monotonic() < deadline:
        now = locator.count()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
        time.sleep(0.25)
    return last


def test_work_longer_than_the_page_waits_shows_its_result_when_it_ends():
    """Logistic regression on two registry releases (ten seconds or more) on a server whose pages wait 2 s
    (``WORKBENCH_PAGE_WAIT``): the page stops waiting, its panel refreshes the bar by itself, and the result replaces
    the panel when the job ends."""
    with app_server(env={"WORKBENCH_PAGE_WAIT": "2"}) as app_url, browser_page(1400, 1000) as (page, errors):
        page.goto(f"{app_url}/compare")
        page.get_by_text("Which solution each measure would choose").first.wait_for(timeout=300_000)
        _pick_classifier(page, "logistic")
        charts = page.locator('[data-testid="stVegaLiteChart"]')
        before = _settled_count(charts)  # the page's charts appear one after another: count them once all are drawn
        start = time.monotonic()
        page.get_by_role("button", name="Run model degradation").click()
        page.get_by_text("Model degradation of").first.wait_for(timeout=60_000)
        time.sleep(4)  # past the page's own wait: the panel
        assert page.get_by_role("button", name="Cancel").count() == 1 and "logistic" in _bar_text(page)
        page.locator('[data-testid="stProgress"]').wait_for(state="detached", timeout=600_000)
        took = time.monotonic() - start
        assert _settled_count(charts) > before  # the degradation chart
        assert took > 4 and page.get_by_text("Model degradation cancelled").count() == 0
    assert not errors, errors
