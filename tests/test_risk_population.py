"""Journalist risk against a population table (workbench/risk/population.py, ``workbench risk --population-table``,
``"risk"`` of ``workbench run --json`` on a research subset).

References, none taken from the module's own output: tests/test_risk.py's record-by-record count in plain Python
(El Emam & Dankar's 2008 definitions: a sample record's journalist risk is 1 / the number of population records
with its generalized values), with the generalized values read from the hierarchy rows; and a pandas group-by
over ARX's research subset of Adult and its population.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests._cli import call
from tests._random_tables import random_dataset, random_node
from tests.test_risk import ROOT, assert_matches, brute_force, generalized_rows
from workbench import risk as R
from workbench.config import load_study
from workbench.data import Dataset
from workbench.errors import DataError
from workbench.release import Release
from workbench.release.verify import SUPPRESSED
from workbench.study import run

DELTA = ROOT / "sample_configs" / "adult_delta_presence.toml"


def drawn(seed: int, share: float) -> tuple[Dataset, np.random.Generator, np.ndarray]:
    """A random population table, the generator that goes on drawing, and about ``share`` of its records flagged
    as the sample (never none)."""
    population = random_dataset(seed, max_rows=40)
    rng = np.random.default_rng(4000 + seed + int(1000 * share))
    mask = rng.random(population.n) < share
    mask[int(rng.integers(0, population.n))] = True
    return population, rng, mask


def sample_of(population: Dataset, mask: np.ndarray) -> Dataset:
    """The flagged records of ``population`` as a dataset of their own (same roles and hierarchies)."""
    frame = population.frame.loc[mask].reset_index(drop=True)
    return Dataset.create(frame, dict(population.roles), dict(population.hierarchies), source="sample")


@pytest.mark.parametrize("seed", range(25))
def test_journalist_risk_of_a_sample_against_its_population_table_equals_a_record_by_record_count(seed: int) -> None:
    population, rng, mask = drawn(seed, 0.5)
    node = random_node(population, rng)
    ref = brute_force(generalized_rows(population, node), 0.25, mask.tolist())
    sample = sample_of(population, mask)
    assert_matches(R.risk_of_node(sample, node, 0.25, population_table=population.frame), ref, journalist=True)


@pytest.mark.parametrize("seed", range(20))
def test_journalist_risk_of_a_release_counts_the_suppressed_class_against_the_whole_population(seed: int) -> None:
    population, rng, mask = drawn(seed, 0.6)
    sample = sample_of(population, mask)
    node = random_node(sample, rng)
    release = Release.from_node(sample, node, int(rng.integers(1, 4)), 1.0)
    released = [tuple(str(v) for v in row) for row in release.table("mark")[sample.quasi_identifiers].to_numpy()]
    people = generalized_rows(population, node)
    threshold = 0.25
    f = [released.count(r) for r in released]
    big_f = [population.n if set(r) == {SUPPRESSED} else people.count(r) for r in released]
    distinct = list(dict.fromkeys(released))
    big_f_of = dict(zip(released, big_f, strict=True))
    marketer = sum(1 / x for x in big_f) / len(released)
    result = R.risk_of_release(release, threshold, population_table=population.frame)
    assert result.journalist is not None and result.records == len(released)
    assert result.journalist.highest == pytest.approx(max(1 / x for x in big_f), rel=1e-12)
    assert result.journalist.records_at_risk_count == sum(1 for x in big_f if 1 / x > threshold)
    assert result.journalist.average == pytest.approx(
        max(len(distinct) / sum(big_f_of[d] for d in distinct), marketer), rel=1e-12)
    assert result.marketer == pytest.approx(marketer, rel=1e-12)
    assert result.prosecutor.highest == pytest.approx(max(1 / x for x in f), rel=1e-12)


def adult_research_subset_reference(node: dict[str, int]) -> tuple[float, float, int]:
    """Highest journalist risk, marketer risk and sample classes of Adult's research subset at ``node`` (before
    suppression), by a pandas group-by of the subset and of the population at the node's labels."""
    result = run(load_study(DELTA))
    dataset = result.dataset
    population = dataset.population
    assert population is not None

    def labelled(frame: pd.DataFrame) -> pd.DataFrame:
        out = {}
        for q, level in node.items():
            path = {row[0]: row[level] for row in dataset.hierarchies[q].rows}
            out[q] = frame[q].astype(str).map(path)
        return pd.DataFrame(out)

    sample = labelled(dataset.frame).value_counts()
    people = labelled(population.frame).value_counts()
    big_f = people.reindex(sample.index)
    assert not big_f.isna().any()
    return float((1 / big_f).max()), float((sample / big_f).sum() / sample.sum()), int(sample.size)


def test_workbench_risk_of_a_research_subset_measures_journalist_risk_against_its_population() -> None:
    study = load_study(DELTA)
    result = run(study)
    node = result.release.transformation
    highest, marketer, classes = adult_research_subset_reference(node)
    text = ",".join(f"{q}={v}" for q, v in node.items())
    status, stdout, stderr = call("risk", str(DELTA), "--node", text, "--json")
    assert status == 0, stderr
    figures = json.loads(stdout)
    assert figures["classes"] == classes
    assert figures["journalist"]["highest"] == pytest.approx(highest, rel=1e-12)
    assert figures["marketer"] == pytest.approx(marketer, rel=1e-12)
    # the run's release: the same population, after suppression
    released = result.risk()
    assert released is not None and released["journalist"] is not None
    assert released["journalist"]["highest"] <= 1.0


def test_population_table_file_through_the_cli(tmp_path) -> None:
    config = ROOT / "sample_configs" / "teaching.toml"
    study = load_study(config)
    frame = run(study).dataset.frame
    people = pd.concat([frame, frame], ignore_index=True)  # every record twice: F = 2 f at level 0
    path = tmp_path / "people.csv"
    people.to_csv(path, index=False)
    status, stdout, stderr = call("risk", str(config), "--population-table", str(path), "--json")
    assert status == 0, stderr
    figures = json.loads(stdout)
    sizes = frame[run(study).dataset.quasi_identifiers].astype(str).value_counts()
    assert figures["journalist"]["highest"] == pytest.approx(1 / (2 * sizes.min()))
    assert figures["marketer"] == pytest.approx(sizes.size / (2 * len(frame)))  # (1/n) sum_j f_j / (2 f_j)


def test_population_table_errors_name_the_file_column_and_value(tmp_path) -> None:
    config = ROOT / "sample_configs" / "teaching.toml"
    dataset = run(load_study(config)).dataset
    q = dataset.quasi_identifiers[0]
    missing = tmp_path / "missing.csv"
    dataset.frame.drop(columns=[q]).to_csv(missing, index=False)
    status, _, stderr = call("risk", str(config), "--population-table", str(missing))
    assert status != 0 and str(missing) in stderr and repr(q) in stderr
    assert "Traceback" not in stderr
    strange = dataset.frame.copy()
    strange.loc[len(strange)] = strange.iloc[0]
    strange[q] = strange[q].astype(str)
    strange.loc[len(strange) - 1, q] = "no such value"
    path = tmp_path / "strange.csv"
    strange.to_csv(path, index=False)
    status, _, stderr = call("risk", str(config), "--population-table", str(path))
    assert status != 0 and "'no such value'" in stderr and f"row {len(strange)}" in stderr
    small = dataset.frame.iloc[1:]  # one record fewer than the data: not a population of it
    with pytest.raises(DataError, match="population must contain every record"):
        R.risk_of_node(dataset, None, population_table=pd.concat([small, small.iloc[:0]]))
