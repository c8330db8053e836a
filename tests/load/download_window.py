"""How long a clicked download's URL answers: start a local `streamlit run app.py`, run the Anonymize page on the
embedded registry sample in Debian's chromium (Playwright), click the Export page's Release download, then fetch
the download's URL again, without cookies, every ``--every`` seconds until it answers 404 (or ``--give-up``
seconds have passed), with the browser left open and idle. Prints the seconds from the click to the first 404
(not part of the default pytest run: this file is not named test_*.py).

    PYTHONPATH=. python tests/load/download_window.py --repeat 3
    PYTHONPATH=. python tests/load/download_window.py --root /path/to/older/checkout
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_load import CHROMIUM, FLAGS, ROOT, start_server  # noqa: E402


def status(url: str) -> int:
    """HTTP status of a plain GET: no cookies, no session."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def one_round(root: Path, every: float, give_up: float) -> dict[str, float | int]:
    from playwright.sync_api import sync_playwright

    proc, url = start_server({"WORKBENCH_PREFETCH": "0"}, root)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            page.goto(url)
            page.get_by_text("Attributes").first.wait_for(timeout=120_000)
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("Anonymize", exact=True).click()
            page.get_by_role("button", name="Run").click()
            page.get_by_text("Guarantee:").first.wait_for(timeout=300_000)
            sidebar.get_by_text("Export", exact=True).click()
            page.get_by_role("button", name="Config (TOML)").wait_for(timeout=120_000)
            page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=120_000)
            with page.expect_download(timeout=120_000) as info:
                clicked = time.monotonic()
                page.get_by_role("button", name="Release", exact=True).click()
            download = info.value
            download.path()  # the download has completed
            done = time.monotonic() - clicked
            answered = 0
            while time.monotonic() - clicked < give_up:
                if status(download.url) == 404:
                    break
                answered += 1
                time.sleep(every)
            gone = time.monotonic() - clicked
            browser.close()
        return {"downloaded s": done, "404 after s": gone, "answers after the download": answered}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="fresh servers in a row (medians are printed)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between the fetches")
    parser.add_argument("--give-up", type=float, default=300.0, help="seconds after the click to stop fetching")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose app.py runs (e.g. an older one)")
    args = parser.parse_args(argv)
    rounds = []
    for r in range(args.repeat):
        out = one_round(args.root, args.every, args.give_up)
        rounds.append(out)
        print(f"round {r + 1}: " + ", ".join(f"{key} {value:.1f}" if isinstance(value, float) else f"{key} {value}"
                                             for key, value in out.items()), flush=True)
    if args.repeat > 1:
        print(f"median of {args.repeat}: " + ", ".join(
            f"{key} {statistics.median(o[key] for o in rounds):.1f}" for key in rounds[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
