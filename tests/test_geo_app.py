"""The Geography page: both methods side by side on the province sample, their measures and the site sweep."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests._app import goto

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_geography_page_shows_both_methods_and_the_sweep():
    at = AppTest.from_file(APP, default_timeout=180).run()
    goto(at, "Geography").run()
    assert not at.exception
    titles = [s.value for s in at.subheader]
    assert titles[:2] == ["VBAS", "GeoLeader-like"] and titles[2].startswith("VBAS: suppression against")
    assert any("k-anonymous with k = 5" in m.value and "verified" in m.value for m in at.markdown)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 2 and all(w.startswith("The suppression limit of 2 % set on the other pages is not "
                                                   "applied") for w in warnings)  # one per method
    assert any(c.value == "20 aggregated regions of 20 sites asked for" for c in at.caption)
    measures = at.dataframe[0].value
    assert list(measures["measure"])[:1] == ["Compactness"]
    at.slider(key="geo_sites").set_value(10).run()
    assert not at.exception
    assert at.metric[0].value == "10" or int(at.metric[0].value) <= 10  # regions: at most the sites
