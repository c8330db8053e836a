"""ARX's optima for privacy models combined (``TestAnonymizationCombinations``, arx-deidentifier/arx,
src/test/org/deidentifier/arx/test/TestAnonymizationCombinations.java): every case of that file on Adult whose
models the workbench has (k-anonymity, δ-presence on ARX's research subset, recursive (c, ℓ)-diversity and
hierarchical t-closeness of occupation), with ARX's expected transformation and information loss transcribed
from the file, found by branch-and-bound (optimal for every rule).

ARX's metrics map to measure ids: ``createEntropyMetric()`` = entropy (monotone non-uniform entropy),
``createNMEntropyMetric()`` = entropy_nm. Each case is named by its index in ARX's list of parameters (JUnit's
``{index}``). Occupation is the sensitive attribute, the other eight the quasi-identifiers in ARX's column order.

Four cases (52, 77, 102, 117) use ARX's test copy of the native-country hierarchy, which maps England to
"Europa" (a typo: every other European country maps to "Europe"), so England is a class of its own at level 1;
with the embedded hierarchy the same node is found and scores 329.2 more in entropy. The test writes that copy.

Most cases take several seconds each; a representative set runs by default and the rest with
``WORKBENCH_ARX_ALL=1`` (they are marked ``slow``)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import ADULT
from workbench import study as S
from workbench.config import study_from_dict

ALL = os.environ.get("WORKBENCH_ARX_ALL") == "1"
LONG = [pytest.mark.slow, pytest.mark.skipif(not ALL, reason="several seconds; WORKBENCH_ARX_ALL=1 runs it")]

ARX_ORDER = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")
DP = {"delta_presence": {"subset": "research_subset", "delta_min": 0.05, "delta_max": 0.15}}
HDTC = {"t_closeness": {"attribute": "occupation", "variant": "hierarchical", "t": 0.2}}
RCL = {"l_diversity": {"attribute": "occupation", "variant": "recursive", "l": 5, "c": 4.0}}
DEFAULT = {3, 4, 75, 77}  # the cases of the default run


def _case(index: int, models: dict, k: int, sup: float, measure: str, node: tuple[int, ...], value: float,
          hierarchy: str = "embedded") -> object:
    names = " + ".join([f"k={k}"] * (k > 1) + [{"delta_presence": "δ-presence", "t_closeness": "t-closeness",
                                                  "l_diversity": "recursive-(4,5)"}[m] for m in models])
    return pytest.param(models, k, sup, measure, node, value, hierarchy,
                        id=f"Combinations#{index} {names or 'k'} {sup:.0%} {measure}",
                        marks=() if index in DEFAULT else LONG)


# index, models, k, suppression, metric, ARX's node (ARX_ORDER), ARX's value
CASES = [
    _case(0, DP, 1, 0.0, "entropy", (1, 4, 1, 1, 1, 2, 2, 1), 37223.24912482863),
    _case(1, DP, 5, 0.0, "entropy", (0, 2, 1, 2, 3, 2, 2, 1), 35461.30001724414),
    _case(2, HDTC | DP, 5, 0.0, "entropy", (1, 4, 1, 1, 3, 2, 2, 1), 42481.61974603207),
    _case(3, HDTC, 5, 0.0, "entropy", (0, 4, 1, 1, 3, 2, 2, 1), 398400.07418064494),
    _case(4, {}, 5, 0.0, "entropy", (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918695),
    _case(5, HDTC | DP, 1, 0.0, "entropy", (1, 4, 1, 1, 3, 2, 2, 1), 42481.61974603207),
    _case(6, HDTC, 1, 0.0, "entropy", (0, 4, 1, 1, 3, 2, 2, 1), 398400.07418064494),
    _case(7, RCL | DP, 1, 0.0, "entropy", (1, 4, 1, 1, 2, 2, 2, 1), 39177.741183062324),
    _case(8, RCL, 1, 0.0, "entropy", (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918695),
    _case(45, {}, 5, 0.05, "entropy_nm", (0, 0, 1, 1, 2, 2, 2, 0), 180132.40848244727),
    _case(50, DP, 5, 0.05, "entropy", (1, 0, 1, 2, 2, 2, 2, 1), 25247.843728346343),
    _case(51, HDTC | DP, 5, 0.05, "entropy", (1, 4, 0, 1, 3, 2, 2, 1), 40089.94234267562),
    _case(52, HDTC, 5, 0.05, "entropy", (1, 4, 0, 0, 3, 1, 2, 1), 367061.36913384416, "junit"),
    _case(53, RCL | DP, 1, 0.05, "entropy", (1, 0, 1, 2, 3, 2, 2, 1), 28551.722291316088),
    _case(54, RCL, 1, 0.05, "entropy", (1, 0, 1, 1, 2, 2, 2, 0), 198181.40423329698),
    _case(75, DP, 5, 0.05, "entropy_nm", (1, 0, 1, 2, 2, 2, 2, 1), 25949.006866557105),
    _case(76, HDTC | DP, 5, 0.05, "entropy_nm", (1, 4, 0, 1, 3, 2, 2, 1), 40282.237793276065),
    _case(77, HDTC, 5, 0.05, "entropy_nm", (1, 4, 0, 0, 3, 1, 2, 1), 375361.4165541178, "junit"),
    _case(78, RCL | DP, 1, 0.05, "entropy_nm", (1, 0, 1, 2, 3, 2, 2, 1), 28759.66997058891),
    _case(79, RCL, 1, 0.05, "entropy_nm", (1, 0, 1, 1, 2, 2, 2, 0), 209764.96161974446),
    _case(100, DP, 1, 0.05, "entropy", (1, 4, 1, 1, 0, 2, 2, 1), 33649.91182261913),
    _case(101, HDTC | DP, 1, 0.05, "entropy", (1, 4, 0, 1, 3, 2, 2, 1), 40089.94234267562),
    _case(102, HDTC, 1, 0.05, "entropy", (1, 4, 0, 0, 3, 1, 2, 1), 367061.36913384416, "junit"),
    _case(115, DP, 1, 0.05, "entropy_nm", (1, 4, 1, 1, 0, 2, 2, 1), 33660.30632776507),
    _case(116, HDTC | DP, 1, 0.05, "entropy_nm", (1, 4, 0, 1, 3, 2, 2, 1), 40282.237793276065),
    _case(117, HDTC, 1, 0.05, "entropy_nm", (1, 4, 0, 0, 3, 1, 2, 1), 375361.4165541178, "junit"),
]


@pytest.fixture(scope="module")
def junit_native_country(tmp_path_factory) -> str:
    """ARX's test copy of the native-country hierarchy (arx-data/data-junit): the embedded one with England
    under "Europa"."""
    embedded = (ADULT / "adult_hierarchy_native-country.csv").read_text()
    assert "England;Europe;*" in embedded
    path = tmp_path_factory.mktemp("junit") / "adult_hierarchy_native-country.csv"
    path.write_text(embedded.replace("England;Europe;*", "England;Europa;*"))
    return str(path)


_DATASETS: dict[tuple[bool, str], object] = {}


def _raw(models: dict, k: int, sup: float, measure: str, hierarchy: str | None) -> dict:
    attributes = {q: {"role": "quasi"} for q in ARX_ORDER} | {"occupation": {"role": "sensitive"}}
    if hierarchy is not None:
        attributes["native-country"]["hierarchy"] = hierarchy
    return {"data": {"sample": "adult"}, "attributes": attributes,
            "privacy": {"k": k, "max_suppression": sup, **models},
            "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}}


@pytest.mark.parametrize(("models", "k", "sup", "measure", "node", "value", "hierarchy"), CASES)
def test_arx_combination_optimum(request, models, k, sup, measure, node, value, hierarchy) -> None:
    """ARX's optimum node and its information loss (relative 1e-9)."""
    path = request.getfixturevalue("junit_native_country") if hierarchy == "junit" else None
    study = study_from_dict(_raw(models, k, sup, measure, path))
    key = ("delta_presence" in models, hierarchy)
    if key not in _DATASETS:  # one dataset per population/subset and hierarchy, shared by the cases
        _DATASETS[key] = S.load_dataset(study)
    dataset = _DATASETS[key]
    assert tuple(dataset.quasi_identifiers) == ARX_ORDER
    result = S.search(study, dataset)
    assert result.optimum == node
    assert result.value == pytest.approx(value, rel=1e-9)
