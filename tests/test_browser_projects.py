"""Saved projects and the proxy's user in a real browser (Debian's chromium, Playwright; docs/register.md): the app
served with a server config naming ``[register] user_header``, behind a stand-in for an authenticating proxy per user
(``tests/_proxy.py``: it sets the header on every request, the websocket's handshake included), and three browser
contexts (three sessions). Ana's first session uploads a table, anonymizes it, builds the report
(which records the release by her) and saves the project; her second session reopens it, is asked for the data file,
and gets her roles, hierarchies and k back; Bob's session lists none of her projects."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._browser import NEEDS_CHROMIUM, playwright
from tests._proxy import user_proxy
from tests._server import CHROMIUM, FLAGS, app_server
from workbench import register as R
from workbench.register.store import open_register

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts" / "projects"
HEADER = "X-Forwarded-User"

pytestmark = [NEEDS_CHROMIUM, pytest.mark.slow]


def _table(n: int = 200, seed: int = 5) -> bytes:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
                         "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n)}).to_csv(index=False).encode()


class Session:
    """One browser context (its own cookies and Streamlit session) on ``url`` (a user's proxy); it sends ``forged`` as
    the header itself, which the proxy replaces."""

    def __init__(self, browser: object, url: str, forged: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900},  # type: ignore[attr-defined]
                                           extra_http_headers={HEADER: forged})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(url)
        self.page.get_by_text("Attributes").first.wait_for(timeout=60_000)
        self.settle()

    def settle(self) -> None:
        self.page.wait_for_timeout(300)
        self.page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=180_000)

    def go(self, title: str, ready: str) -> None:
        self.page.locator('[data-testid="stSidebar"]').get_by_text(title, exact=True).click()
        self.page.get_by_text(ready).first.wait_for(timeout=180_000)
        self.settle()

    def wait(self, text: str) -> None:
        self.page.get_by_text(text).first.wait_for(timeout=180_000)
        self.settle()

    def projects(self) -> None:
        """Open the Data page's saved projects."""
        self.page.get_by_text("Saved projects: save this study, or reopen one").click()
        self.settle()

    def upload(self, content: bytes) -> None:
        self.page.locator('input[type="file"]').first.set_input_files(
            files=[{"name": "people.csv", "mimeType": "text/csv", "buffer": content}])
        self.wait("held in this session only")


def test_projects_and_releases_belong_to_the_proxys_user(tmp_path):
    server = tmp_path / "server.toml"
    server.write_text(f'[register]\nuser_header = "{HEADER}"\n', encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    content = _table()
    timings = {}
    with app_server(env={"PYTHONPATH": str(ROOT), "WORKBENCH_CONFIG": str(server)}) as url, \
            user_proxy(url, HEADER, "ana") as as_ana, user_proxy(url, HEADER, "bob") as as_bob, \
            playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            start = time.perf_counter()
            ana = Session(browser, as_ana, "mallory")
            ana.upload(content)
            ana.page.locator("button", has_text="Accept the suggested hierarchies").click()
            ana.wait("Ready:")
            ana.go("Anonymize", "Suppression limit")
            ana.page.get_by_label("k", exact=True).fill("4")
            ana.page.keyboard.press("Enter")
            ana.settle()
            ana.page.get_by_role("button", name="Run").click()
            ana.wait("Guarantee: k-anonymous")
            timings["run"] = time.perf_counter() - start
            ana.go("Export", "re-verification")
            ana.page.get_by_role("button", name="Build the report").click()
            timings["export"] = time.perf_counter() - start
            ana.wait("recorded as release 1")
            timings["report"] = time.perf_counter() - start
            ana.go("Data", "held in this session only")
            ana.projects()
            assert ana.page.get_by_text("Your projects, as ana: only you see them.").count() == 1
            ana.page.get_by_label("Project name").fill("people k4")
            ana.page.get_by_role("button", name="Save the project").click()
            ana.wait("Saved as project people k4")
            timings["first session"] = time.perf_counter() - start

            start = time.perf_counter()
            again = Session(browser, as_ana, "ana")  # a new session of the same analyst
            again.projects()
            again.page.get_by_role("button", name="Reopen").click()
            again.wait("upload people.csv")
            again.upload(content)
            again.wait("Reopened project 'people k4'")
            again.go("Anonymize", "Suppression limit")
            k = again.page.get_by_label("k", exact=True).input_value()
            again.page.screenshot(path=str(ARTIFACTS / "reopened.png"), full_page=True)
            timings["second session"] = time.perf_counter() - start

            bob = Session(browser, as_bob, "ana")  # a forged header: the proxy sets its own
            bob.projects()
            bob_sees = bob.page.locator("body").inner_text()
        finally:
            browser.close()
    print(f"timings: {', '.join(f'{k} {v:.1f} s' for k, v in timings.items())}")
    assert not ana.errors and not again.errors and not bob.errors, (ana.errors, again.errors, bob.errors)
    assert k == "4"
    assert "Your projects, as bob" in bob_sees and "No saved project yet" in bob_sees and "people k4" not in bob_sees
    [release] = R.history()
    assert (release["user"], release["channel"], release["k"]) == ("ana", "report", 4)
    reg = open_register()
    assert [p["name"] for p in reg.projects("ana")] == ["people k4"] and reg.projects("bob") == []
