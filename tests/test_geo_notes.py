"""What ``workbench geo`` tells beside the release: a ``privacy.max_suppression`` it does not apply (the geography
engine suppresses without limit), and VBAS making fewer aggregated regions than the sites asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import call
from workbench.samples import province


def _study(tmp_path: Path, privacy: str = "", geo: str = "sites = 6\n") -> Path:
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
