"""``workbench geo``: the JSON contract, the --out folder (release.csv, region_map.csv, provenance.json written
whole), and one clear line with exit status 2 for each malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests._cli import call
from workbench.config import load_study
from workbench.errors import ConfigError
from workbench.release.verify import SUPPRESSED
from workbench.samples import province

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CONFIG = ROOT / "sample_configs" / "province_geo.toml"


def _study(tmp_path: Path, geo: str, regions: int = 12, points: pd.DataFrame | None = None,
           data: pd.DataFrame | None = None) -> Path:
    """A small study on files: the records of a generated province, its points, and a config."""
    frame, pts = province.generate(regions=regions, seed=3)
    (data if data is not None else frame[["region", "sex", "age"]]).to_csv(tmp_path / "data.csv", index=False)
    (points if points is not None else pts).to_csv(tmp_path / "regions.csv", index=False)
    (tmp_path / "study.toml").write_text(
        '[data]\npath = "data.csv"\n\n[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        '\n[privacy]\nk = 3\n\n[geo]\nattribute = "region"\npoints = "regions.csv"\n' + geo)
    return tmp_path / "study.toml"


def test_json_contract_on_the_sample_config():
    status, out, err = call("geo", SAMPLE_CONFIG, "--json")
    assert status == 0, err
    summary = json.loads(out)
    assert {"method", "k", "regions", "suppressed", "measures", "seconds"} <= set(summary)
    assert set(summary["measures"]) == {"compactness", "dm", "geo_entropy"}
    assert summary["method"] == "vbas" and summary["k"] == 5 and summary["k_anonymous"] is True
    assert summary["regions"] <= 20


def test_out_writes_release_region_map_and_provenance(tmp_path):
    config = _study(tmp_path, 'method = "geoleader"\ncutoff = 1500\n')
    status, out, err = call("geo", config, "--out", tmp_path / "out", "--json")
    assert status == 0, err
    summary = json.loads(out)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["provenance.json", "region_map.csv", "release.csv"]
    region_map = pd.read_csv(tmp_path / "out" / "region_map.csv", dtype=str)
    points = pd.read_csv(tmp_path / "regions.csv", dtype=str)
    assert list(region_map.columns) == ["region", "aggregated"]
    assert sorted(region_map["region"]) == sorted(points["region"]) and region_map["region"].is_unique
    assert region_map["aggregated"].nunique() == summary["regions"]
    release = pd.read_csv(tmp_path / "out" / "release.csv", dtype=str, keep_default_na=False)
    data = pd.read_csv(tmp_path / "data.csv", dtype=str)
    suppressed = release["region"] == SUPPRESSED
    assert int(suppressed.sum()) == summary["suppressed"]
    assert (release.loc[suppressed, ["sex", "region"]] == SUPPRESSED).all().all()
    assert set(release.loc[~suppressed, "region"]) <= set(region_map["aggregated"])
    sizes = release.loc[~suppressed].groupby(["region", "sex"]).size()
    assert (sizes >= 3).all() and len(release) == len(data)
    # the same folder again: refused without --force, replaced whole with it
    status, _, err = call("geo", config, "--out", tmp_path / "out")
    assert status == 2 and "already holds a release" in err
    assert call("geo", config, "--out", tmp_path / "out", "--force")[0] == 0


def test_text_report(tmp_path):
    status, out, _ = call("geo", _study(tmp_path, 'sites = 4\n'))
    assert status == 0
    assert "VBAS (sites = 4)" in out and "compactness" in out and "verified" in out


def _one_line_error(config: Path, *extra: str) -> str:
    status, out, err = call("geo", config, *extra)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, (status, out, err)
    return err


def test_points_missing_for_a_region(tmp_path):
    _, pts = province.generate(regions=12, seed=3)
    err = _one_line_error(_study(tmp_path, "sites = 4\n", points=pts.iloc[1:]))
    assert "no point for region 'DA0001' of data column 'region'" in err


def test_points_region_absent_from_the_data(tmp_path):
    frame, _ = province.generate(regions=12, seed=3)
    err = _one_line_error(_study(tmp_path, "sites = 4\n", data=frame.loc[frame.region != "DA0005",
                                                                           ["region", "sex", "age"]]))
    assert "row 5: region 'DA0005' does not occur in data column 'region'" in err


def test_non_numeric_coordinates(tmp_path):
    _, pts = province.generate(regions=12, seed=3)
    pts = pts.astype(str)
    pts.loc[2, "y"] = "12,5"
    err = _one_line_error(_study(tmp_path, "sites = 4\n", points=pts))
    assert "regions.csv: row 3 (region 'DA0003'): y '12,5' is not a finite number" in err


def test_more_sites_than_regions(tmp_path):
    err = _one_line_error(_study(tmp_path, "sites = 13\n"))
    assert "geo.sites must be from 1 to the 12 regions" in err and "got 13" in err


def test_cutoff_above_the_total_population(tmp_path):
    err = _one_line_error(_study(tmp_path, 'method = "geoleader"\ncutoff = 100000000\n'))
    assert "geo.cutoff must be positive and below the total population" in err


@pytest.mark.parametrize(("geo", "message"), [
    ('method = "kmeans"\nsites = 3\n', "geo.method 'kmeans' is not one of vbas, geoleader"),
    ('method = "geoleader"\n', "needs geo.cutoff"),
    ("sites = 0\n", "geo.sites must be a positive integer"),
    ("sites = 3\nradius = 2\n", "unknown key geo.radius"),
    ('sites = "many"\n', "geo.sites must be an integer"),
])
def test_bad_geo_tables(tmp_path, geo, message):
    config = _study(tmp_path, geo)
    assert message in _one_line_error(config)
    with pytest.raises(ConfigError, match="geo"):
        load_study(config)


def test_config_without_geo_table(tmp_path):
    (tmp_path / "plain.toml").write_text('[data]\nsample = "teaching"\n')
    assert "no [geo] table" in _one_line_error(tmp_path / "plain.toml")


def test_points_required_unless_the_province_sample(tmp_path):
    config = _study(tmp_path, "sites = 4\n")
    config.write_text(config.read_text().replace('points = "regions.csv"\n', ""))
    assert "geo.points is required" in _one_line_error(config)
