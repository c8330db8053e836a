"""The registry sample partitioned geographically: its postal units' points (workbench/samples/registry_geo.py)
and sample_configs/registry_geo.toml run through VBAS and GeoLeader-like, each release re-verified k-anonymous
and recomputed with pandas from its region map."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.config import load_study
from workbench.errors import ConfigError
from workbench.geo import scored as geography
from workbench.geo.config import geo_spec
from workbench.geo.engine import aggregate, load_problem
from workbench.release.verify import SUPPRESSED
from workbench.samples import load_sample, region_points, registry_geo
from workbench.samples import registry as registry_module
from workbench.samples.registry_tables import DISTRICTS

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "sample_configs" / "registry_geo.toml"


def test_every_postal_unit_has_one_point_and_a_population():
    points = registry_geo.unit_points()
    codes, district, share = registry_module._postal_units()
    assert points["region"].tolist() == codes.tolist() and points["region"].is_unique
    assert set(points["region"]) == set(load_sample("registry").frame["postal_code"])  # the default data: all 216
    assert np.isfinite(points[["x", "y"]].to_numpy()).all() and not points[["x", "y"]].duplicated().any()
    total = sum(d[2] for d in DISTRICTS) * 1000
    assert (points["population"] == np.maximum(np.rint(share * total), 1)).all()
    assert points.equals(registry_geo.unit_points())  # deterministic
    assert region_points("registry")[0] == "postal_code" and region_points("teaching") is None


def test_units_lie_around_their_district():
    """Each district's units: their mean within the district's radius of its projected centroid, and the
    projection's distances within 2 % of the great-circle distance."""
    points = registry_geo.unit_points()
    _, district, _ = registry_module._postal_units()
    for i, (_prefix, _name, pop, rural, lat, lon) in enumerate(DISTRICTS):
        centre = registry_geo.project(np.array([lat]), np.array([lon]))[0]
        mean = points.loc[district == i, ["x", "y"]].to_numpy().mean(axis=0)
        assert math.dist(mean, centre) < registry_geo.district_radius(pop, rural)
    (la1, lo1), (la2, lo2) = [(d[4], d[5]) for d in (DISTRICTS[0], DISTRICTS[-1])]
    a, b = registry_geo.project(np.array([la1, la2]), np.array([lo1, lo2]))
    p1, p2, dl = map(math.radians, (la1, la2, lo2 - lo1))
    haversine = 2 * 6_371_000 * math.asin(math.sqrt(math.sin((p2 - p1) / 2) ** 2
                                                    + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2))
    assert math.dist(a, b) == pytest.approx(haversine, rel=0.02)


@pytest.fixture(scope="module")
def study():
    return load_study(CONFIG)


@pytest.fixture(scope="module")
def problem(study):
    return load_problem(study, geo_spec(study.raw, study.source, study.base_dir))


def _check_release(problem, result, k: int) -> None:
    """Verified k-anonymous; the region map a partition of the postal units; the release equal to a pandas
    recomputation from the region map (classes of the aggregated unit, sex and ethnicity; those below k starred)."""
    assert result.guarantee.holds and result.k == k
    region_map = result.region_map()
    assert sorted(region_map["region"]) == sorted(problem.dataset.frame["postal_code"].unique())
    assert region_map["region"].is_unique and region_map["aggregated"].nunique() == result.aggregation.regions
    frame = problem.dataset.frame
    qis = problem.dataset.quasi_identifiers
    assert qis == ["postal_code", "sex", "ethnicity"]
    mapped = frame[qis].assign(postal_code=frame["postal_code"].map(dict(region_map.to_numpy())))
    size = mapped.groupby(qis)["sex"].transform("size").to_numpy()
    assert result.release.suppressed.tolist() == (size < k).tolist()
    table = result.release.table()
    kept = ~result.release.suppressed
    assert (table.loc[kept, qis].to_numpy() == mapped.loc[kept, qis].to_numpy()).all()
    assert (table.loc[~kept, qis] == SUPPRESSED).all().all()
    assert not {"age", "admission_date", "diagnosis"} & set(table.columns)  # withheld by the config


def test_vbas_on_the_registry(study, problem):
    result = geography.run(problem, geo_spec(study.raw, study.source, study.base_dir), study.k)
    assert result.method == "vbas" and 1 <= result.aggregation.regions <= 20
    _check_release(problem, result, study.k)


def test_geoleader_like_on_the_registry(study, problem):
    spec = replace(geo_spec(study.raw, study.source, study.base_dir), method="geoleader")
    result = geography.run(problem, spec, study.k)
    _check_release(problem, result, study.k)
    population = pd.Series(problem.population).groupby(result.aggregation.groups).sum()
    assert (population > spec.cutoff).all()


def test_rows_cut_short_keep_only_their_units(study):
    """data.rows leaves some postal units without a record: the embedded points follow the data."""
    short = replace(study, rows=150)
    problem = load_problem(short, geo_spec(study.raw, study.source, study.base_dir))
    units = set(load_sample("registry").frame["postal_code"].iloc[:150])
    assert set(problem.points.names) == units and len(units) < 216
    result = geography.anonymize(problem, aggregate(problem, "vbas", sites=5), 2)
    assert result.guarantee.holds


def test_the_embedded_points_are_for_the_postal_code_only(study):
    spec = replace(geo_spec(study.raw, study.source, study.base_dir), attribute="sex")
    with pytest.raises(ConfigError, match="'registry' sample's points are for its column 'postal_code', not "
                                          "geo.attribute 'sex'"):
        load_problem(study, spec)
