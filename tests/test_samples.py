"""Embedded samples: the El Emam et al. (2009) teaching table and the synthetic registry (Katirai 2006:
fields must depend on each other)."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ConfigError
from workbench.hierarchy.tree import Hierarchy
from workbench.samples import SAMPLES, Sample, load_sample
from workbench.samples import adult as adult_module
from workbench.samples import registry as registry_module

ROLES = {"quasi", "sensitive", "insensitive", "identifying", "target"}


@pytest.fixture(scope="module")
def registry() -> Sample:
    return load_sample("registry")


def dm_star(sample: Sample, node: tuple[int, ...]) -> int:
    """DM* = sum of squared equivalence-class sizes at a lattice node (El Emam 2009), from the hierarchies."""
    qis = [c for c, r in sample.roles.items() if r == "quasi"]
    generalized = pd.DataFrame(
        {
            col: sample.frame[col].map({row[0]: row[level] for row in sample.hierarchies[col].rows})
            for col, level in zip(qis, node, strict=True)
        }
    )
    sizes = generalized.value_counts().to_numpy()
    return int((sizes**2).sum())


# ---------------------------------------------------------------------------------------------- api
def test_samples_are_listed_with_descriptions():
    assert set(SAMPLES) == {"teaching", "registry", "adult", "adult9", "province", "survey"}
    assert all(isinstance(d, str) and d and "\n" not in d for d in SAMPLES.values())


def test_unknown_sample_lists_known_ones():
    with pytest.raises(ConfigError,
                       match=r"unknown sample 'nosuch' \(known: teaching, registry, adult, adult9, province, survey\)"):
        load_sample("nosuch")


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("teaching", {"n": 5}, "takes no parameters"),
        ("adult", {"n": 5}, "takes no parameters"),
        ("registry", {"rows": 5}, r"unknown parameter 'rows' \(known: n, seed\)"),
        ("registry", {"n": 0}, "n must be an integer"),
        ("registry", {"n": 2.5}, "n must be an integer"),
        ("registry", {"n": True}, "n must be an integer"),
        ("registry", {"seed": -1}, "seed must be a non-negative integer"),
        ("registry", {"seed": "1"}, "seed must be a non-negative integer"),
    ],
)
def test_bad_parameters(name, params, match):
    with pytest.raises(ConfigError, match=match):
        load_sample(name, **params)


def test_caller_cannot_corrupt_the_cache():
    first = load_sample("teaching")
    first.frame.loc[0, "age"] = "99"
    first.roles["age"] = "sensitive"
    second = load_sample("teaching")
    assert second.frame.loc[0, "age"] == "18" and second.roles["age"] == "quasi"


@pytest.mark.parametrize("name", ["teaching", "registry", "adult", "adult9", "province", "survey"])
def test_sample_contract(name):
    s = load_sample(name)
    assert list(s.roles) == list(s.frame.columns)
    assert set(s.roles.values()) <= ROLES
    assert all(pd.api.types.is_string_dtype(s.frame[c]) for c in s.frame.columns)
    assert all(isinstance(v, str) for v in s.frame.to_numpy().ravel())
    assert not s.frame.isna().any().any()
    qis = s.quasi_identifiers
    assert qis and all(q in s.hierarchies for q in qis)
    for col, h in s.hierarchies.items():
        assert isinstance(h, Hierarchy)
        h.check(s.frame[col].unique())
        assert Hierarchy.parse_arx(h.to_arx()).rows == h.rows


# ---------------------------------------------------------------------------------------------- adult
def test_adult_sample_as_arx_uses_it():
    """ARX's Adult: 30,162 records; the 8 quasi-identifiers of ARX's conformance runs in ARX's order (adult9
    adds occupation in column order); each hierarchy file has one row per value of the data or more (age: 100 rows for
    the 72 ages in the data, the domain ARX's loss divides by)."""
    eight, nine = load_sample("adult"), load_sample("adult9")
    order = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
    assert eight.frame.shape == (30162, 9) and eight.quasi_identifiers == order
    assert nine.quasi_identifiers == [*order[:7], "occupation", "salary-class"]
    assert eight.roles["occupation"] == "insensitive"
    assert eight.frame.equals(nine.frame)
    assert len(eight.hierarchies["age"].rows) == 100 and eight.frame["age"].nunique() == 72
    assert len(eight.hierarchies["workclass"].rows) == 8 and eight.frame["workclass"].nunique() == 7
    assert len(adult_module.research_subset()) == 3016


# ---------------------------------------------------------------------------------------------- teaching
def test_teaching_table_rows():
    s = load_sample("teaching")
    expected = (
        [("01/01/2008", "M", "18")] * 3
        + [("01/01/2008", "M", "13"), ("01/01/2008", "M", "19")]
        + [("02/01/2008", "F", a) for a in ("18", "22", "23", "21")]
        + [("01/01/2008", "M", "22")]
    )
    assert list(s.frame.columns) == ["date", "gender", "age"]
    assert [tuple(r) for r in s.frame.itertuples(index=False)] == expected
    assert s.roles == {"date": "quasi", "gender": "quasi", "age": "quasi"}


def test_teaching_hierarchies():
    h = load_sample("teaching").hierarchies
    assert [h[c].height for c in ("date", "gender", "age")] == [2, 1, 4]
    assert h["date"].rows == (("01/01/2008", "01/2008", "*"), ("02/01/2008", "01/2008", "*"))
    assert h["gender"].rows == (("F", "Person"), ("M", "Person"))
    rows = {r[0]: r[1:] for r in h["age"].rows}
    assert rows["13"] == ("10-14", "10-19", "0-19", "*")
    assert rows["18"] == ("15-19", "10-19", "0-19", "*")
    assert rows["22"] == ("20-24", "20-29", "20-39", "*")


@pytest.mark.parametrize(("node", "expected"), [((0, 0, 0), 16), ((0, 0, 1), 28), ((0, 1, 0), 16)])
def test_teaching_dm_star_matches_el_emam_2009(node, expected):
    assert dm_star(load_sample("teaching"), node) == expected


# ---------------------------------------------------------------------------------------------- registry
def test_registry_size_columns_and_roles(registry):
    f = registry.frame
    assert len(f) == 20000
    by_role: dict[str, set[str]] = {}
    for column, role in registry.roles.items():
        by_role.setdefault(role, set()).add(column)
    assert by_role == {"identifying": {"patient_id", "district_lat", "district_lon"}, "sensitive":
                       {"length_of_stay", "total_charge"}, "target": {"high_cost"},
                       "quasi": {"age", "sex", "ethnicity", "postal_code", "admission_date", "diagnosis"}}
    assert registry.quasi_identifiers == [
        "age",
        "sex",
        "ethnicity",
        "postal_code",
        "admission_date",
        "diagnosis",
    ]
    assert f["patient_id"].is_unique


def test_registry_value_domains(registry):
    f = registry.frame
    age = f["age"].astype(int)
    assert age.between(0, 99).all() and age.median() >= 55  # inpatients skew old
    assert set(f["sex"]) == {"F", "M"}
    assert 4 <= f["ethnicity"].replace("", np.nan).nunique() <= 6
    assert f["postal_code"].str.fullmatch(r"[0-9]{5}").all()
    assert 8 <= f["postal_code"].str[:2].nunique() <= 12
    days = pd.to_datetime(f["admission_date"], format="%Y-%m-%d")
    assert 2.5 <= (days.max() - days.min()).days / 365 <= 3.2
    assert f["diagnosis"].str.fullmatch(r"[A-Z][0-9]{2}\.[0-9]").all()
    assert 40 <= f["diagnosis"].nunique() <= 80
    assert 7 <= f["diagnosis"].str[0].nunique()
    assert (f["length_of_stay"].astype(int) >= 1).all() and (f["total_charge"].astype(int) > 0).all()
    assert set(f["high_cost"]) == {"yes", "no"}


def test_registry_district_coordinates_are_per_district(registry):
    f = registry.frame
    per_district = f.groupby(f["postal_code"].str[:2])[["district_lat", "district_lon"]].nunique()
    assert (per_district == 1).all().all()
    assert f["district_lat"].astype(float).between(-90, 90).all()


def test_registry_is_deterministic_in_the_seed():
    a = registry_module.generate(2000, 7)
    b = registry_module.generate(2000, 7)
    c = registry_module.generate(2000, 8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    pd.testing.assert_frame_equal(load_sample("registry", n=2000, seed=7).frame, a)
    assert len(load_sample("registry", n=123).frame) == 123


def test_registry_generation_is_fast():
    start = time.perf_counter()
    registry_module.build(20000, 12345)
    assert time.perf_counter() - start < 2.0


def test_registry_lattice_size(registry):
    heights = {q: registry.hierarchies[q].height for q in registry.quasi_identifiers}
    assert heights == {
        "age": 4,
        "sex": 1,
        "ethnicity": 2,
        "postal_code": 5,
        "admission_date": 3,
        "diagnosis": 4,
    }
    size = math.prod(h + 1 for h in heights.values())
    assert 1000 <= size <= 6000


def test_registry_diagnosis_hierarchy_is_icd10(registry):
    rows = {r[0]: r for r in registry.hierarchies["diagnosis"].rows}
    assert rows["I21.4"] == ("I21.4", "I21", "I20-I25", "IX Circulatory", "*")
    assert rows["J18.9"] == ("J18.9", "J18", "J09-J18", "X Respiratory", "*")
    for code, category, block, _chapter, _root in rows.values():
        assert code[:3] == category
        lo, hi = block.split("-")
        assert lo <= category <= hi  # the category lies in its block
    ages = {r[0]: r for r in registry.hierarchies["age"].rows}
    assert ages["92"][1:4] == ("90+",) * 3 and ages["85"][1:] == ("85-89", "80-89", "80-89", "*")


def test_registry_diagnosis_depends_on_age_and_sex(registry):
    f = registry.frame
    age = f["age"].astype(int)
    letter = f["diagnosis"].str[0]
    pregnancy = letter == "O"
    assert not pregnancy[f["sex"] == "M"].any()
    assert age[pregnancy].between(15, 49).all()
    assert pregnancy[(f["sex"] == "F") & age.between(20, 39)].mean() > 0.3
    assert (letter == "P").sum() > 0 and (age[letter == "P"] == 0).all()
    circulatory = letter == "I"
    assert circulatory[age >= 70].mean() > 3 * circulatory[age < 40].mean()
    assert not f.loc[f["sex"] == "M", "diagnosis"].str.startswith(("C50", "D25", "N81", "N83")).any()
    assert not f.loc[f["sex"] == "F", "diagnosis"].str.startswith("N41").any()
    hip = f["diagnosis"].str.startswith("S72")
    assert age[hip].median() >= 70


def test_registry_respiratory_admissions_peak_in_winter(registry):
    f = registry.frame
    month = f["admission_date"].str[5:7].astype(int)
    respiratory = f["diagnosis"].str[0] == "J"
    assert respiratory[month.isin([12, 1, 2])].mean() > 1.5 * respiratory[month.isin([6, 7, 8])].mean()


def test_registry_stay_and_charge_depend_on_diagnosis_and_age(registry):
    f = registry.frame
    los = f["length_of_stay"].astype(int)
    charge = f["total_charge"].astype(int)
    age = f["age"].astype(int)
    assert (
        los[f["diagnosis"].str.startswith("S72")].mean()
        > 2 * los[f["diagnosis"].str.startswith("O80")].mean()
    )
    assert los[age >= 75].mean() > los[age.between(20, 49)].mean()
    assert np.corrcoef(los, charge)[0, 1] > 0.5


def test_registry_high_cost_is_the_top_fifth_of_charges(registry):
    f = registry.frame
    high = f["high_cost"] == "yes"
    charge = f["total_charge"].astype(int)
    assert 0.18 <= high.mean() <= 0.22
    assert charge[high].min() > charge[~high].max()
