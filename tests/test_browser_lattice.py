"""Real-browser test of the Lattice page's Hasse diagram (Debian Chromium driven by Playwright against
`streamlit run app.py`): a click on a node opens it, the optimum is a labelled diamond, and the page's scroll wheel
scrolls the page instead of zooming the diagram."""

from __future__ import annotations

import time

import pytest

from tests._browser import NEEDS_CHROMIUM, browser_page, expect
from tests._server import app_server

pytestmark = NEEDS_CHROMIUM

SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


@pytest.fixture(scope="module")
def app_url():
    with app_server() as url:
        yield url


def test_a_click_opens_a_node_and_the_wheel_scrolls_the_page(app_url):
    with browser_page(1280, 800) as (page, errors):
        page.goto(app_url)
        page.get_by_text("Attributes").first.wait_for(timeout=60_000)
        page.get_by_role("combobox", name="Dataset", exact=True).click()
        page.get_by_role("option", name="teaching").first.click()
        page.locator('[data-testid="stSidebar"]').get_by_text("Lattice", exact=True).click()
        page.get_by_text("nodes;").first.wait_for(timeout=60_000)
        chart = page.locator('[data-testid="stVegaLiteChart"]').first
        chart.locator("svg.marks").first.wait_for(timeout=60_000)
        node_box = page.get_by_role("combobox", name="Node", exact=True)  # the select box of the open node
        # the teaching table at k = 5 and 2 %: the entropy optimum is date=1,gender=1,age=4, drawn as a labelled
        # diamond on top of its point
        optimum = 'path[aria-label*="node: date=1,gender=1,age=4;"]'
        chart.locator(optimum).first.wait_for(timeout=60_000)
        assert chart.locator(optimum).count() == 3  # its point, its diamond and the ring of the node opened
        labels = chart.locator("g.mark-text text").evaluate_all(  # the marks' texts, not the legend's
            "els => els.filter(e => !e.closest('.role-legend, .role-axis')).map(e => e.textContent)")
        assert labels == ["optimum"]
        expect(node_box).to_have_value("date=1,gender=1,age=4")  # opened first

        target = chart.locator('path[aria-label*="node: date=0,gender=0,age=2;"]').first
        target.scroll_into_view_if_needed()
        target.click(force=True)  # the node is 5 px wide
        expect(node_box).to_have_value("date=0,gender=0,age=2", timeout=60_000)
        page.get_by_text("5 (50.0 %)").first.wait_for(timeout=60_000)  # its drill-down: 5 of 10 suppressed
        assert chart.locator(optimum).count() == 2  # the ring moved to the node opened
        chart.locator(optimum).last.click(force=True)  # the diamond opens the optimum
        expect(node_box).to_have_value("date=1,gender=1,age=4", timeout=60_000)

        chart.scroll_into_view_if_needed()
        time.sleep(0.5)
        before = page.evaluate(SCROLLED)
        box = chart.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, 300)
        page.wait_for_function(f"() => ({SCROLLED})() > {before}", timeout=10_000)  # the page scrolled
    assert not errors, errors
