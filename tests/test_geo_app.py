"""The Geography page in Streamlit's AppTest: both methods side by side, their measures and warnings, and the site
sweep, on the province and registry samples (their own points) and on the analyst's own table with an uploaded
points table (the page's figures equal to `workbench geo` on the same files; each bad points table one clear
error)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from tests._cli import call
from workbench.samples import province
from workbench.ui import geography_data

APP = str(Path(__file__).resolve().parents[1] / "app.py")
LIMIT_NOTE = "The suppression limit of 2 % set on the other pages is not applied"


def _geography(dataset: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    if dataset is not None:
        at.selectbox(key="dataset").set_value(dataset).run()
    goto(at, "Geography").run()
    assert not at.exception
    return at


def _metrics(at: AppTest) -> list[str]:
    return [m.value for m in at.metric]


def test_province_both_methods_and_the_sweep():
    at = _geography("province")
    titles = [s.value for s in at.subheader]
    assert titles[:2] == ["VBAS", "GeoLeader-like"] and titles[2].startswith("VBAS: suppression against")
    assert any("k-anonymous with k = 5" in m.value and "verified" in m.value for m in at.markdown)
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 2 and all(w.startswith(LIMIT_NOTE) for w in warnings)  # one per method
    assert any(c.value == "20 aggregated regions of 20 sites asked for" for c in at.caption)
    assert list(at.dataframe[0].value["measure"])[:1] == ["Compactness"]
    at.slider(key="geo_sites:province:region:own").set_value(10).run()
    assert not at.exception and int(_metrics(at)[0]) <= 10
    swept = at.dataframe[-1].value["sites"].tolist()  # 2 up to the 200 regions, increasing, about 8 values
    assert swept[0] == 2 and swept[-1] == 200 and swept == sorted(set(swept)) and 5 <= len(swept) <= 8


def test_registry_reports_a_site_without_region():
    """The registry's 216 postal units with 20 sites make 19 regions (sample_configs/registry_geo.toml says so
    too): the page says it beside the map."""
    at = _geography()  # the Dataset box starts on the registry
    assert at.selectbox(key="geo_column:registry:registry").value == "postal_code"
    assert _metrics(at)[0] == "19"
    assert any(c.value == "19 aggregated regions of 20 sites asked for" for c in at.caption)
    assert any(w.value.startswith("VBAS made 19 aggregated region(s) from the 20 sites asked for: 1 site's")
               for w in at.warning)
    _, out, _ = call("geo", Path(APP).parent / "sample_configs" / "registry_geo.toml", "--json")
    assert json.loads(out)["regions"] == 19


def test_a_sample_without_points_asks_for_a_points_table():
    at = _geography("teaching")
    assert any("Upload a points table" in i.value for i in at.info)
    assert not at.subheader


# ------------------------------------------------------------------------------------------- the analyst's data
def _own_data(tmp_path: Path) -> tuple[AppTest, pd.DataFrame, pd.DataFrame]:
    """A generated province of 12 regions uploaded as people.csv on the Data page (not made ready: the Geography
    page needs no hierarchy), then the Geography page."""
    frame, points = province.generate(regions=12, seed=3)
    data = frame[["region", "sex", "age", "income"]]
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("people.csv", data.to_csv(index=False).encode(), "text/csv").run()
    assert at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Geography").run()
    assert not at.exception
    return at, data, points


def _upload_points(at: AppTest, points: pd.DataFrame, name: str = "regions.csv") -> AppTest:
    return at.file_uploader(key=geography_data.POINTS_UPLOAD).upload(
        name, points.to_csv(index=False).encode(), "text/csv").run()


def test_own_table_with_uploaded_points_matches_the_cli(tmp_path):
    at, data, points = _own_data(tmp_path)
    assert any("Upload a points table with one row per value of 'region'" in i.value for i in at.info)
    _upload_points(at, points)
    assert not at.exception and not at.error
    [column] = [s for s in at.selectbox if s.key.startswith("geo_column:")]
    assert column.value == "region"
    qis = next(m for m in at.multiselect if m.key.startswith("geo_qis:"))
    qis.set_value(["sex", "age"]).run()
    sites = next(s for s in at.slider if s.key.startswith("geo_sites:"))
    sites.set_value(4).run()
    cutoff = next(n for n in at.number_input if n.key.startswith("geo_cutoff:"))
    cutoff.set_value(1500).run()
    assert not at.exception
    data.to_csv(tmp_path / "data.csv", index=False)
    points.to_csv(tmp_path / "regions.csv", index=False)
    (tmp_path / "study.toml").write_text(
        '[data]\npath = "data.csv"\n[attributes.sex]\nrole = "quasi"\n[attributes.age]\nrole = "quasi"\n'
        '[attributes.income]\nrole = "insensitive"\n[privacy]\nk = 5\n[geo]\nattribute = "region"\n'
        'points = "regions.csv"\nsites = 4\ncutoff = 1500\n')
    shown = _metrics(at)
    for i, method in enumerate(("vbas", "geoleader")):
        status, out, err = call("geo", tmp_path / "study.toml", "--json", "--set", f'geo.method="{method}"')
        assert status == 0, err
        expected = json.loads(out)
        assert shown[3 * i: 3 * i + 2] == [str(expected["regions"]), f"{expected['suppressed']:,}"]
        table = at.dataframe[i].value
        assert table["value"].tolist() == pytest.approx(list(expected["measures"].values()))


@pytest.mark.parametrize(("edit", "message"), [
    (lambda p: p.assign(x=p["x"].astype(str).where(p.index != 2, "abc")),
     "regions.csv: row 3 (region 'DA0003'): x 'abc' is not a finite number"),
    (lambda p: p.iloc[1:], "regions.csv: no point for region 'DA0001' of data column 'region'"),
    (lambda p: pd.concat([p, p.iloc[[0]].assign(region="DA9999")]),
     "regions.csv: row 13: region 'DA9999' does not occur in data column 'region'"),
    (lambda p: p.drop(columns="y"), "regions.csv: missing column(s) 'y'"),
])
def test_bad_points_tables_are_one_clear_error(tmp_path, edit, message):
    at, _, points = _own_data(tmp_path)
    _upload_points(at, edit(points))
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith(message), [e.value for e in at.error]
    assert not at.subheader  # nothing computed on bad points


def test_points_upload_is_bounded(tmp_path, monkeypatch):
    at, _, points = _own_data(tmp_path)
    monkeypatch.setattr(geography_data, "MAX_POINTS_MB", 1)
    at.run()  # the uploader drawn with the smaller limit
    big = pd.concat([points] * 20_000, ignore_index=True)
    _upload_points(at, big, "big.csv")
    assert not at.exception
    assert [e.value for e in at.error] == [f"big.csv is {len(big.to_csv(index=False).encode()) / 2**20:,.1f} MB; "
                                           "this upload takes at most 1 MB"]
