"""δ-presence (Nergiz et al. 2007; workbench/privacy/delta_presence.py): the data is the population, the release
its research subset. Each search's optimum against a brute force written from the definition on random tables
(pruning searches only where the rule is monotone), the release and its verification, ARX's published optima on
Adult (TestAnonymizationDPresence), and the research subset's bad input."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from tests._engine_checks import assert_searches_find_the_reference
from tests._random_tables import random_quasi_columns
from workbench import study as S
from workbench.config import study_from_dict
from workbench.data import Dataset, Population
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.privacy.build import admissibility_for
from workbench.privacy.delta_presence import match_subset
from workbench.release import Release


def _population(seed: int, n: int = 48) -> tuple[pd.DataFrame, dict, np.ndarray]:
    """A population of two or three quasi-identifiers, and a random research subset of its rows."""
    rng = np.random.default_rng(seed)
    frame, hierarchies = random_quasi_columns(rng, n)
    frame["id"] = [str(i) for i in range(n)]
    rows = np.sort(rng.choice(n, size=int(rng.integers(n // 4, n // 2)), replace=False))
    return pd.DataFrame(frame), hierarchies, rows


def _subset_dataset(population: pd.DataFrame, hierarchies: dict, rows: np.ndarray) -> Dataset:
    roles = {q: "quasi" for q in hierarchies}
    return Dataset.create(population.iloc[rows].reset_index(drop=True), roles, hierarchies, source="subset",
                          population=Population(population, rows))


def _study(k: int, sup: float, low: float, high: float, algorithm: str = "exhaustive", objective: str = "dm"):
    return study_from_dict({
        "data": {"path": "unused.csv"},
        "privacy": {"k": k, "max_suppression": sup,
                    "delta_presence": {"subset": "unused.csv", "delta_min": low, "delta_max": high}},
        "engine": {"algorithm": algorithm, "objective": objective}, "measures": {"compare": [objective]}})


def _reference(population: pd.DataFrame, hierarchies: dict, rows: np.ndarray, k: int, sup: float, low: float,
               high: float) -> dict[tuple[int, ...], tuple[bool, dict[str, float]]]:
    """Per node, from the definition: the population's classes; a class with subset records is suppressed when it
    has fewer than k of them or δ = subset / population is outside [low, high]; without k (k = 1), a class without
    subset records and δ = 0 < low fails the node (with k it fails the class size first, at no cost: ARX's
    HashGroupify); admissible when the suppressed subset records are within floor(sup · m). DM and DM* over the
    subset's records."""
    qis = list(hierarchies)
    paths = {q: {r[0]: r for r in hierarchies[q].rows} for q in qis}
    member = np.zeros(len(population), dtype=bool)
    member[rows] = True
    m = int(member.sum())
    out = {}
    for node in itertools.product(*(range(hierarchies[q].height + 1) for q in qis)):
        inside, everyone = Counter(), Counter()
        for i in range(len(population)):
            key = tuple(paths[q][population[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
            everyone[key] += 1
            inside[key] += int(member[i])
        veto = k == 1 and any(inside[c] == 0 and low > 0 for c in everyone)
        bad = [c for c in everyone if inside[c] and (inside[c] < k or not low <= inside[c] / everyone[c] <= high)]
        suppressed = sum(inside[c] for c in bad)
        kept = sum(inside[c] ** 2 for c in everyone if inside[c] and c not in bad)
        ok = not veto and suppressed <= math.floor(sup * m + 1e-9)
        out[node] = (ok, {"dm": float(kept + m * suppressed),
                          "dm_star": float(sum(v * v for v in inside.values()))})
    return out


CASES = [(seed, k, sup, low, high) for seed, (k, sup, low, high) in itertools.product(
    [1, 2, 3], [(1, 0.0, 0.0, 0.5), (2, 0.2, 0.0, 0.6), (1, 0.0, 0.2, 0.8), (1, 0.3, 0.25, 0.75),
                (2, 0.3, 0.25, 0.75)])]


@pytest.mark.parametrize(("seed", "k", "sup", "low", "high"), CASES)
def test_every_search_finds_the_brute_force_optimum(seed: int, k: int, sup: float, low: float, high: float) -> None:
    """Admissibility of every node equals the reference's, and each search's optimum is the brute force's (DM for
    exhaustive, bnb and Incognito; DM* for Flash and OLA, which run only where the rule is monotone: δ_min = 0
    and no suppression; elsewhere they refuse, naming δ-presence)."""
    population, hierarchies, rows = _population(seed)
    ds = _subset_dataset(population, hierarchies, rows)
    ref = _reference(population, hierarchies, rows, k, sup, low, high)
    rule = admissibility_for(_study(k, sup, low, high), ds)
    evaluator = NodeEvaluator(ds.encoded, k, sup, rule)
    assert {node: evaluator.evaluate(node).admissible for node in ref} == {node: ok for node, (ok, _) in ref.items()}
    assert rule.monotone == (low == 0.0 and sup * ds.n < 1)
    assert_searches_find_the_reference(ref, ds, lambda algorithm, objective: _study(k, sup, low, high, algorithm,
                                                                                  objective),
                                       rule.monotone, "δ-presence")


def test_release_is_the_subset_and_verification_rechecks_delta() -> None:
    """The release holds the subset's records only; its suppressed records are the reference's violating
    classes; verification re-checks δ from the released classes against the population, and catches a tampered
    release that keeps a violating class."""
    population, hierarchies, rows = _population(5, n=60)
    ds = _subset_dataset(population, hierarchies, rows)
    study = _study(1, 1.0, 0.0, 0.3)
    rule = admissibility_for(study, ds)
    node = (1,) * len(hierarchies)
    release = Release.from_node(ds, node, 1, 1.0, "test", rule)
    assert release.n == rows.size and release.table()["id"].tolist() == population["id"].iloc[rows].tolist()
    qis = list(hierarchies)
    paths = {q: {r[0]: r for r in hierarchies[q].rows} for q in qis}
    keys = [tuple(paths[q][population[q].iat[i]][1] for q in qis) for i in range(len(population))]
    everyone, inside = Counter(keys), Counter(keys[i] for i in rows)
    expected = np.array([inside[keys[i]] / everyone[keys[i]] > 0.3 for i in rows])
    assert expected.any() and np.array_equal(release.suppressed, expected)
    guarantee = release.verify()
    assert guarantee.holds and list(guarantee.models.values()) == [True]
    tampered = replace(release, suppressed=np.zeros(release.n, dtype=bool))
    assert not tampered.verify().holds


def test_delta_min_fails_a_node_with_a_population_class_outside_the_subset() -> None:
    """A population class with no subset record has δ = 0: below δ_min no suppression mends it (ARX)."""
    population = pd.DataFrame({"q": ["a", "a", "b", "b", "c", "c"]})
    from workbench.hierarchy.tree import Hierarchy

    h = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="q")
    ds = _subset_dataset(population, {"q": h}, np.array([0, 2]))  # no subset record has c
    rule = admissibility_for(_study(1, 1.0, 0.1, 1.0), ds)
    evaluator = NodeEvaluator(ds.encoded, 1, 1.0, rule)
    assert [evaluator.evaluate((v,)).admissible for v in range(3)] == [False, False, True]
    rule0 = admissibility_for(_study(1, 0.0, 0.0, 0.5), ds)
    assert [NodeEvaluator(ds.encoded, 1, 0.0, rule0).evaluate((v,)).admissible for v in range(3)] == [True, True, True]
    # with k (a minimal class size), the empty class fails k at no cost, and δ-presence never sees it (ARX)
    rule_k = admissibility_for(_study(2, 1.0, 0.1, 1.0), ds)
    assert [NodeEvaluator(ds.encoded, 2, 1.0, rule_k).evaluate((v,)).admissible for v in range(3)] == [True, True, True]
    # so does ℓ-diversity, whose minimal class size is ⌈ℓ⌉ (ARX's LDiversity.getMinimalClassSize)
    population["s"] = ["x", "y", "x", "y", "x", "y"]
    ds_s = Dataset.create(population.iloc[[0, 2]].reset_index(drop=True), {"q": "quasi", "s": "sensitive"},
                          {"q": h}, source="subset", population=Population(population, np.array([0, 2])))
    diverse = study_from_dict({"data": {"path": "unused.csv"}, "attributes": {"s": {"role": "sensitive"}},
                               "privacy": {"k": 1, "max_suppression": 1.0,
                                           "l_diversity": {"attribute": "s", "variant": "distinct", "l": 1},
                                           "delta_presence": {"subset": "unused.csv", "delta_min": 0.1,
                                                              "delta_max": 1.0}}})
    rule_l = admissibility_for(diverse, ds_s)
    assert rule_l.minimal_class_size == 1
    assert [NodeEvaluator(ds_s.encoded, 1, 1.0, rule_l).evaluate((v,)).admissible for v in range(3)] == [True] * 3


# ------------------------------------------------------------------------------------------ ARX's expectations
# TestAnonymizationDPresence (arx-deidentifier/arx, src/test/org/deidentifier/arx/test/), cases 0, 5, 6 and 10:
# Adult's eight quasi-identifiers, ARX's research subset (3,016 records), no k. ARX's metrics: createAECSMetric =
# aecs, createEntropyMetric(true) = entropy, createEntropyMetric(false) = entropy_nm.
ARX_CASES = [
    pytest.param(0.0, 0.2, 0.0, "aecs", (1, 4, 1, 1, 0, 2, 2, 0), 52.0, id="DPresence#0 (0,0.2) 0% aecs"),
    pytest.param(0.0, 0.2, 0.05, "entropy_nm", (1, 0, 1, 1, 2, 2, 2, 0), 20747.362350403302,
                 id="DPresence#5 (0,0.2) 5% entropy_nm"),
    pytest.param(0.05, 0.15, 0.0, "aecs", (0, 4, 0, 1, 3, 2, 2, 1), 150.8, id="DPresence#6 (0.05,0.15) 0% aecs"),
    pytest.param(0.05, 0.15, 0.05, "entropy", (1, 4, 1, 1, 0, 2, 2, 1), 33649.9118226187,
                 id="DPresence#10 (0.05,0.15) 5% entropy"),
]


def _adult(low: float, high: float, sup: float, measure: str):
    return study_from_dict({"data": {"sample": "adult"},
                            "privacy": {"k": 1, "max_suppression": sup,
                                        "delta_presence": {"subset": "research_subset", "delta_min": low,
                                                           "delta_max": high}},
                            "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}})


@pytest.fixture(scope="module")
def adult_subset() -> Dataset:
    return S.load_dataset(_adult(0.0, 0.2, 0.0, "aecs"))


@pytest.mark.parametrize(("low", "high", "sup", "measure", "node", "value"), ARX_CASES)
def test_arx_junit_optimum(adult_subset, low, high, sup, measure, node, value) -> None:
    """ARX's optimum node and its score (relative 1e-9), found by branch-and-bound (optimal for any rule)."""
    assert adult_subset.n == 3016 and adult_subset.population is not None and adult_subset.population.n == 30162
    result = S.search(_adult(low, high, sup, measure), adult_subset)
    assert result.optimum == node
    assert result.value == pytest.approx(value, rel=1e-9)


# ------------------------------------------------------------------------------------------ the subset file
def test_match_subset_is_arx_matching_and_names_a_bad_row() -> None:
    """Each subset row takes an identical population row, each used once; a row that is not in the data, or one
    more copies of a row than the data has, is one ConfigError naming the row."""
    population = pd.DataFrame({"a": ["x", "y", "x", "z"], "b": ["1", "2", "1", "3"]})
    rows = match_subset(population, pd.DataFrame({"b": ["1", "3", "1"], "a": ["x", "z", "x"]}), "s.csv")
    assert sorted(rows.tolist()) == [0, 2, 3] and population.iloc[rows]["a"].tolist() == ["x", "z", "x"]
    with pytest.raises(ConfigError, match=r"s\.csv: 1 of its 2 rows are not rows of the data; row 2 \(a='q', "
                                          r"b='1'\) is not a row of the data"):
        match_subset(population, pd.DataFrame({"a": ["x", "q"], "b": ["1", "1"]}), "s.csv")
    with pytest.raises(ConfigError, match=r"row 3 \(a='y', b='2'\) occurs more often than in the data"):
        match_subset(population, pd.DataFrame({"a": ["x", "y", "y"], "b": ["1", "2", "2"]}), "s.csv")
    with pytest.raises(ConfigError, match="lacks the data's column"):
        match_subset(population, pd.DataFrame({"a": ["x"]}), "s.csv")


def test_config_cli_and_bad_subset_file(tmp_path, capsys) -> None:
    """A config with a subset file releases the subset (the CLI's JSON reports the model and its parameters);
    a subset file with a row not in the data is one line on stderr, exit code 2."""
    from workbench import cli

    population, hierarchies, rows = _population(4, n=60)
    population.to_csv(tmp_path / "data.csv", index=False)
    population.iloc[rows].to_csv(tmp_path / "subset.csv", index=False)
    config = ["[data]", 'path = "data.csv"']
    for q, h in hierarchies.items():
        (tmp_path / f"{q}.csv").write_text(h.to_arx())
        config += [f"[attributes.{q}]", 'role = "quasi"', f'hierarchy = "{q}.csv"']
    config += ["[privacy]", "k = 1", "max_suppression = 0.5", "[privacy.delta_presence]", 'subset = "subset.csv"',
               "delta_min = 0.0", "delta_max = 0.6", "[engine]", 'algorithm = "bnb"', 'objective = "dm"']
    (tmp_path / "study.toml").write_text("\n".join(config) + "\n")
    assert cli.main(["run", str(tmp_path / "study.toml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    model = out["privacy_models"]["delta_presence"]
    assert model["holds"] is True and model["subset"] == rows.size and model["population"] == 60
    assert out["risk"]["records"] == rows.size
    ref = _reference(population, hierarchies, rows, 1, 0.5, 0.0, 0.6)
    admissible = {node: values["dm"] for node, (ok, values) in ref.items() if ok}
    best = min(admissible, key=lambda node: (admissible[node], sum(node), node))
    assert tuple(out["transformation"][q] for q in hierarchies) == best
    bad = population.iloc[rows].copy()
    bad.iloc[3, 0] = "nowhere"
    bad.to_csv(tmp_path / "subset.csv", index=False)
    assert cli.main(["run", str(tmp_path / "study.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "row 4 (" in err[0] and "is not a row of the data" in err[0]


def test_research_subset_keyword_needs_adult() -> None:
    study = study_from_dict({"data": {"sample": "teaching"}, "privacy": {
        "delta_presence": {"subset": "research_subset", "delta_max": 0.5}}})
    with pytest.raises(ConfigError, match="embedded Adult's research subset; sample 'teaching' has none"):
        S.load_dataset(study)
