"""``[geo] lattice = true``: the aggregated geography combined with the lattice engine on the other
quasi-identifiers. The release must equal what ``workbench run`` makes of the same data with the geographic
column replaced by the aggregated region of ``region_map.csv`` (an independent path: the plain lattice engine on
a file), and the suppression limit applies."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests._cli import call
from workbench.samples import province

AGE = {"levels": [{a: f"{int(a.split('-')[0].rstrip('+')) // 20 * 20}s" for a in province.AGE_BANDS}]}  # 20-year
OTHERS = f'''
[attributes.sex]
role = "quasi"
builder = {{ kind = "groupings", levels = [] }}

[attributes.age]
role = "quasi"
builder = {{ kind = "groupings", levels = [{{ {", ".join(f'"{a}" = "{g}"' for a, g in AGE["levels"][0].items())} }}] }}

[attributes.marital_status]
role = "quasi"
builder = {{ kind = "groupings", levels = [] }}

[privacy]
k = 4
max_suppression = {{limit}}

[engine]
kind = "lattice"
algorithm = "exhaustive"
objective = "dm_star"

[measures]
compare = ["dm_star", "loss"]

[release]
seed = 11
'''


def _files(tmp_path: Path, limit: float, geo: str) -> Path:
    frame, points = province.generate(regions=30, seed=5)
    frame[["region", "sex", "age", "marital_status"]].to_csv(tmp_path / "data.csv", index=False)
    points.to_csv(tmp_path / "regions.csv", index=False)
    (tmp_path / "geo.toml").write_text('[data]\npath = "data.csv"\n\n[attributes.region]\nrole = "quasi"\n'
                                       + OTHERS.replace("{limit}", str(limit))
                                       + f'\n[geo]\nattribute = "region"\npoints = "regions.csv"\n{geo}')
    return tmp_path / "geo.toml"


@pytest.mark.parametrize(("limit", "geo"), [(0.02, "sites = 8\nlattice = true\n"),
                                            (0.0, 'method = "geoleader"\ncutoff = 2000\nlattice = true\n')])
def test_equals_the_lattice_engine_on_the_aggregated_file(tmp_path, limit, geo):
    config = _files(tmp_path, limit, geo)
    status, out, err = call("geo", config, "--json", "--out", tmp_path / "geo")
    assert status == 0, err
    summary = json.loads(out)
    assert "warnings" not in summary  # the suppression limit is applied here: nothing to warn about
    # the same data with the region replaced by its aggregated region, through the plain lattice engine
    region_map = pd.read_csv(tmp_path / "geo" / "region_map.csv", dtype=str)
    data = pd.read_csv(tmp_path / "data.csv", dtype=str)
    data["region"] = data["region"].map(dict(region_map.to_numpy()))
    data.to_csv(tmp_path / "aggregated.csv", index=False)
    (tmp_path / "run.toml").write_text(
        '[data]\npath = "aggregated.csv"\n\n[attributes.region]\nrole = "quasi"\n'
        'builder = { kind = "groupings", levels = [] }\n' + OTHERS.replace("{limit}", str(limit)))
    status, out, err = call("run", tmp_path / "run.toml", "--json", "--out", tmp_path / "run")
    assert status == 0, err
    plain = json.loads(out)
    lattice = summary["lattice"]
    assert lattice["transformation"] == plain["transformation"]
    assert lattice["measures"] == pytest.approx(plain["measures"])
    assert summary["suppressed"] == plain["suppressed"] == lattice["suppressed"]
    assert summary["suppressed"] <= limit * summary["records"] and summary["k_anonymous"] is True
    ours = pd.read_csv(tmp_path / "geo" / "release.csv", dtype=str, keep_default_na=False)
    theirs = pd.read_csv(next((tmp_path / "run").glob("release.*")), dtype=str, keep_default_na=False)
    columns = sorted(ours.columns)
    assert columns == sorted(theirs.columns)
    key = ours[columns].value_counts().sort_index()
    assert key.equals(theirs[columns].value_counts().sort_index())
    quasi = ["region", "sex", "age", "marital_status"]
    kept = ours[~(ours[quasi] == "*").all(axis=1)]  # suppressed records carry * in every quasi-identifier
    assert len(ours) - len(kept) >= summary["suppressed"] and (kept.groupby(quasi).size() >= 4).all()
    assert set(ours["region"]) <= set(region_map["aggregated"]) | {"*"}
    assert 0 in lattice["transformation"].values()  # not the top node: the comparison means something


def test_needs_the_lattice_engine(tmp_path):
    config = _files(tmp_path, 0.02, "sites = 8\nlattice = true\n")
    config.write_text(config.read_text().replace('kind = "lattice"\nalgorithm = "exhaustive"\nobjective = "dm_star"',
                                                 'kind = "local"\nalgorithm = "greedy"'))
    status, out, err = call("geo", config)
    assert status == 2 and out == ""
    assert "geo.lattice = true needs engine.kind = 'lattice', got 'local'" in err


def test_lattice_must_be_a_boolean(tmp_path):
    status, _, err = call("geo", _files(tmp_path, 0.02, 'sites = 8\nlattice = "yes"\n'))
    assert status == 2 and "geo.lattice must be true or false, got 'yes'" in err


def test_text_report_names_the_levels(tmp_path):
    status, out, _ = call("geo", _files(tmp_path, 0.02, "sites = 8\nlattice = true\n"))
    assert status == 0
    assert "VBAS + lattice (sites = 8)" in out
    assert "lattice      exhaustive, suppression limit 0.02: levels region " in out
