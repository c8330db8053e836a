"""What ``workbench geo`` tells beside the release: a ``privacy.max_suppression`` it does not apply (the geography
engine suppresses without limit), and VBAS making fewer aggregated regions than the sites asked for."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._cli import call
from workbench.data import Dataset
from workbench.geo import scored as geography
from workbench.geo.engine import aggregate, prepare
from workbench.geo.points import points_from_frame
from workbench.hierarchy.builders import groupings
from workbench.samples import province


def _study(tmp_path: Path, privacy: str = "", geo: str = "sites = 4\n") -> Path:
    frame, pts = province.generate(regions=12, seed=3)
    frame[["region", "sex", "age", "income"]].to_csv(tmp_path / "data.csv", index=False)
    pts.to_csv(tmp_path / "regions.csv", index=False)
    (tmp_path / "study.toml").write_text(
        '[data]\npath = "data.csv"\n\n[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        '\n[attributes.age]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        '\n[attributes.income]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        f'\n[privacy]\nk = 3\n{privacy}\n[geo]\nattribute = "region"\npoints = "regions.csv"\n{geo}')
    return tmp_path / "study.toml"


# ------------------------------------------------------------------------------------------- max_suppression
def test_no_limit_set_no_warning(tmp_path):
    status, out, err = call("geo", _study(tmp_path), "--json")
    assert status == 0 and err == ""
    assert "warnings" not in json.loads(out)


@pytest.mark.parametrize("limit", ["0", "0.001", "0.5"])
def test_a_limit_set_is_named_in_a_warning(tmp_path, limit):
    config = _study(tmp_path, privacy=f"max_suppression = {limit}\n")
    status, out, err = call("geo", config, "--json", "--out", tmp_path / "out")
    assert status == 0
    summary = json.loads(out)
    [warning] = summary["warnings"]
    share = summary["suppressed"] / summary["records"]
    assert summary["suppressed"] > 0  # the case is one where suppression happens
    assert warning.startswith(f"privacy.max_suppression = {float(limit):g} is not applied")
    assert "without limit" in warning and "guarantees k-anonymity" in warning
    assert f"suppresses {summary['suppressed']:,} of {summary['records']:,} records" in warning
    assert warning.endswith("within that limit" if share <= float(limit) else "above that limit")
    assert err.strip().splitlines() == [f"workbench: warning: {warning}"]
    provenance = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert provenance["warnings"] == [warning] and provenance["guarantee"]["holds"] is True


def test_a_limit_given_with_set_warns_in_the_text_report_too(tmp_path):
    status, out, err = call("geo", _study(tmp_path), "--set", "privacy.max_suppression=0.02")
    assert status == 0 and "privacy.max_suppression" not in out
    assert err.startswith("workbench: warning: privacy.max_suppression = 0.02 is not applied")


# ------------------------------------------------------------------------------------------- empty VBAS sites
def _hand_case(tmp_path: Path, sites: int) -> Path:
    """Four regions: A (0, 9) and B (20, 9) of 100 people, C (0, 10) and D (20, 10) of 50; one record per 10
    people, all of the same sex."""
    points = pd.DataFrame({"region": list("ABCD"), "x": [0, 20, 0, 20], "y": [9, 9, 10, 10],
                           "population": [100, 100, 50, 50]})
    points.to_csv(tmp_path / "regions.csv", index=False)
    data = pd.DataFrame({"region": np.repeat(list("ABCD"), [10, 10, 5, 5]), "sex": "F"})
    data.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "study.toml").write_text(
        '[data]\npath = "data.csv"\n\n[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        f'\n[privacy]\nk = 1\n\n[geo]\nattribute = "region"\npoints = "regions.csv"\nsites = {sites}\n')
    return tmp_path / "study.toml"


def test_a_site_whose_cell_holds_no_point_is_reported(tmp_path):
    """s = 3 by hand (Eqs. 1–7): r = R(√3) = 2 rows, p' = R(300 / 2) = 150. Walking by y, A then B reach 200;
    Eq. 3: 200 − 150 = 50 ≤ 150 − 100 = 50, so B stays: rows {A, B} (200 people) and {C, D} (100).
    Cells per row R(3 · 200 / 300) = 2 and R(3 · 100 / 300) = 1: sites A = (0, 9), B = (20, 9) and the mean of
    C and D, (10, 10). C is 1 from A but 10 from (10, 10), D likewise 1 from B: the third site's Voronoi cell
    holds no point, so VBAS makes 2 regions from 3 sites."""
    status, out, err = call("geo", _hand_case(tmp_path, 3), "--json", "--out", tmp_path / "out")
    assert status == 0, err
    summary = json.loads(out)
    assert (summary["regions"], summary["sites"], summary["empty_sites"]) == (2, 3, 1)
    assert summary["warnings"] == [
        "VBAS made 2 aggregated region(s) from the 3 sites asked for: 1 site's Voronoi cell holds no region point "
        "(each site is the mean of its cell's points, and another site can be nearer every one of them)"]
    assert err.strip() == f"workbench: warning: {summary['warnings'][0]}"
    region_map = pd.read_csv(tmp_path / "out" / "region_map.csv")
    assert dict(region_map.to_numpy()) == {"A": "V01", "B": "V02", "C": "V01", "D": "V02"}
    status, out, _ = call("geo", tmp_path / "study.toml")
    assert "regions      2 aggregated from 4 fine regions (3 sites asked for)" in out


def test_every_site_making_a_region_is_not_a_warning(tmp_path):
    status, out, err = call("geo", _hand_case(tmp_path, 2), "--json")
    summary = json.loads(out)
    assert (summary["regions"], summary["sites"], summary["empty_sites"]) == (2, 2, 0)
    assert "warnings" not in summary and err == ""


def test_geoleader_like_has_no_sites(tmp_path):
    status, out, _ = call("geo", _study(tmp_path, geo='method = "geoleader"\ncutoff = 1500\n'), "--json")
    summary = json.loads(out)
    assert summary["sites"] is None and summary["empty_sites"] is None and "warnings" not in summary


@pytest.mark.parametrize("seed", range(3))
def test_empty_sites_against_a_brute_force_nearest_site(seed):
    """On random clustered points: the empty sites are the sites that no point has as its nearest (argmin over
    every site's distance), whatever the count."""
    rng = np.random.default_rng(seed)
    n = 60
    xy = np.concatenate([rng.normal(0, 1, (n // 2, 2)), rng.normal(0, 1, (n // 2, 2)) * [30, 0.2] + [5, 5]])
    frame = pd.DataFrame({"region": [f"r{i}" for i in range(n)], "x": xy[:, 0], "y": xy[:, 1],
                          "population": rng.integers(1, 1000, n)})
    data = pd.DataFrame({"region": frame["region"], "sex": "F"})
    dataset = Dataset.create(data, {"region": "quasi", "sex": "quasi"},
                             {"region": groupings(data["region"], [], name="region"),
                              "sex": groupings(["F"], [], name="sex")})
    problem = prepare(dataset, "region", points_from_frame(frame.astype(str)))
    found = 0
    for sites in range(2, 40, 2):
        summary = geography.anonymize(problem, aggregate(problem, "vbas", sites=sites), 1).summary()
        placed = aggregate(problem, "vbas", sites=sites).sites
        nearest = np.argmin(((xy[:, None, :] - placed[None, :, :]) ** 2).sum(axis=2), axis=1)
        empty = sites - len(np.unique(nearest))
        assert (summary["sites"], summary["empty_sites"], summary["regions"]) == (sites, empty, sites - empty)
        assert ("warnings" in summary) == (empty > 0)
        found += empty > 0
    assert found  # the random cases include some with empty sites
