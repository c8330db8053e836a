"""Real-browser test of the Lattice page's marks (Debian Chromium driven by Playwright against `streamlit run
app.py`), drawn by the browser's vega-lite without an error: on an uploaded table with a sensitive column, nodes
coloured by an ℓ-diversity model chosen on the Anonymize page (a legend of "satisfied" and "not satisfied"); on the
teaching table at k = 3 and 20 %, each chosen measure's node labelled and the worst monotonicity edge of dm labelled.
(Both lattices are small: Streamlit draws a chart of more than 2,000 data points on a canvas, whose texts a test
cannot read.)"""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import measures as M
from tests._app import people_config
from tests._browser import NEEDS_CHROMIUM, browser_page
from tests._server import app_server
from workbench import explore
from workbench.config import study_from_dict

pytestmark = NEEDS_CHROMIUM
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
MARK_TEXTS = "els => els.filter(e => !e.closest('.role-legend, .role-axis')).map(e => e.textContent)"
LEGEND_TEXTS = "els => els.filter(e => e.closest('.role-legend')).map(e => e.textContent)"
CONFIG = people_config("""[attributes.diagnosis]
role = "sensitive"
""")


@pytest.fixture(scope="module")
def app_url():
    with app_server() as url:
        yield url


def test_model_colours_measure_choices_and_the_worst_edge_are_drawn(app_url, tmp_path):
    rng = np.random.default_rng(5)
    people, config = tmp_path / "people.csv", tmp_path / "people.toml"
    pd.DataFrame({"age": rng.integers(20, 80, 150).astype(str), "sex": rng.choice(["F", "M"], 150),
                  "diagnosis": rng.choice(["flu", "asthma", "diabetes", "copd"], 150)}).to_csv(people, index=False)
    config.write_text(CONFIG)
    with browser_page(1280, 900) as (page, errors):
        sidebar = page.locator('[data-testid="stSidebar"]')

        def settle() -> None:
            page.wait_for_timeout(300)
            page.locator('[data-test-script-state="notRunning"]').wait_for(timeout=300_000)

        def choose(box: str, option: str) -> None:
            page.get_by_role("combobox", name=box, exact=True).click()
            page.get_by_role("option", name=option, exact=True).first.click()
            settle()

        def go(title: str, ready: str) -> None:
            sidebar.get_by_text(title, exact=True).click()
            page.get_by_text(ready).first.wait_for(timeout=300_000)
            settle()

        def chart_texts(script: str) -> list[str]:
            chart = page.locator('[data-testid="stVegaLiteChart"]').first
            chart.locator("svg.marks").first.wait_for(timeout=60_000)
            return chart.locator("text").evaluate_all(script)

        def uploader(label: str):
            return page.locator('[data-testid="stFileUploader"]').filter(has_text=label).locator('input[type="file"]')

        page.goto(app_url)
        page.get_by_text("Attributes").first.wait_for(timeout=60_000)
        uploader("Upload a table").set_input_files(str(people))
        page.get_by_text("held in this session only").first.wait_for(timeout=60_000)
        settle()
        uploader("Load a config").set_input_files(str(config))
        page.get_by_text(re.compile("Ready: .your data. is chosen")).first.wait_for(timeout=120_000)
        settle()
        go("Anonymize", "Privacy models besides k")
        page.get_by_text("Privacy models besides k").first.click()  # the expander
        page.get_by_role("checkbox", name="ℓ-diversity").check(force=True)
        page.get_by_role("combobox", name="Variant", exact=True).wait_for(timeout=60_000)  # its settings shown
        settle()
        go("Lattice", "nodes;")
        choose("Colour by", "ℓ-diversity (satisfied or not)")
        page.get_by_text("Green: the node satisfies distinct-2-diversity of diagnosis").first.wait_for(timeout=60_000)
        legend = chart_texts(LEGEND_TEXTS)
        assert {"ℓ-diversity", "satisfied", "not satisfied"} <= set(legend), legend

        page.get_by_role("combobox", name="Dataset", exact=True).click()
        page.get_by_role("option", name=re.compile("^teaching")).first.click()
        settle()
        page.get_by_text("nodes;").first.wait_for(timeout=300_000)
        k = page.get_by_label("k", exact=True).first
        k.fill("3")
        k.press("Enter")
        settle()
        page.get_by_role("slider").first.press("End")  # the suppression limit: 20 %
        settle()
        choose("Objective", "Discernibility (DM), lower is better")
        box = page.get_by_role("combobox", name="Mark each measure's choice", exact=True)
        for measure in ("Discernibility (DM), lower is better", "Loss (ARX), lower is better"):  # the picker's names
            chip = page.locator('[data-testid="stMultiSelectTagsContainer"]').filter(has_text=measure.split(",")[0])
            for _ in range(3):  # on a loaded machine a rerun may redraw the list between the two clicks: pick again
                box.click()
                page.get_by_role("option", name=measure, exact=True).first.click()
                settle()
                if chip.count():
                    break
                page.keyboard.press("Escape")
            assert chip.count(), measure
        page.get_by_text("Show the worst monotonicity edge of Discernibility (DM), lower is better").first.click()
        settle()
        worst = explore(study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 3, "max_suppression": 0.2},
                                         "measures": {"compare": list(M.LATTICE_MEASURES)}})).measures["dm"]["worst"]
        page.get_by_text(f"Worst edge of Discernibility (DM), lower is better: {worst['child']} → {worst['parent']}"
                         ).first.wait_for(timeout=120_000)
        expected = {"optimum", "Discernibility (DM)", "Loss (ARX)", "worst edge of Discernibility (DM)"}
        deadline = time.monotonic() + 60  # on a loaded machine the chart is drawn again once each pick's rerun ends
        while not expected <= set(marks := chart_texts(MARK_TEXTS)) and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        assert expected <= set(marks), marks
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.locator('[data-testid="stVegaLiteChart"]').first.screenshot(path=str(ARTIFACTS / "lattice-marks.png"))
    assert not errors, errors
