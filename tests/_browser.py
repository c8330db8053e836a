"""Playwright on Debian's chromium for the browser tests: importing this module skips the test module when
Playwright or chromium is missing (``NEEDS_CHROMIUM`` is its ``pytestmark``), and ``browser_page`` opens a page
that records the page's script errors."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._server import CHROMIUM, FLAGS

playwright = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
expect = playwright.expect
NEEDS_CHROMIUM = pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                                    reason="Debian's chromium is not installed (.ci/run installs it)")


@contextlib.contextmanager
def browser_page(width: int, height: int, accept_downloads: bool = False) -> Iterator[tuple[Any, list[str]]]:
    """A page of a headless chromium of its own (``width`` × ``height``), and the list its script errors go to (a
    chart that fails to draw raises one: a test asserts the list is empty); the browser closes at the end."""
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=accept_downloads)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            yield page, errors
        finally:
            browser.close()


def download_by_click(page: Any, click: Callable[[], None], timeout_ms: int = 120_000) -> Any:
    """The download a click on one of the app's download buttons starts, clicked once the page's script has
    finished its run. Returns Playwright's Download. (The buttons do not rerun the page: a rerun on the click
    held the deferred download, the button stayed disabled and no download came.)"""
    page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=180_000)
    with page.expect_download(timeout=timeout_ms) as info:
        click()
    return info.value
