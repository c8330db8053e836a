"""Re-identification risk (workbench/risk/__init__.py and ``workbench risk``).

References, none taken from the module's own output:
- brute force over records in plain Python on small random tables (every record's class counted pairwise);
- El Emam & Dankar's (2008) definitions of prosecutor, journalist and marketer risk, hand-computed on a small
  sample drawn from a population table;
- ARX's JUnit ``TestRiskMetrics`` (arx-deidentifier/arx, src/test/org/deidentifier/arx/test/TestRiskMetrics.java):
  average risk, sample uniqueness and Dankar's estimates for Adult with all nine attributes as quasi-identifiers;
- the published formulas of Zayatz (hypergeometric probabilities with exact integers), Pitman (Hoshino 2001, in
  ARX's closed polygamma form, solved by a plain Newton-Raphson as ARX's NewtonRaphson2D runs it) and SNB (its
  limit at sampling fraction 1, where the first equation pins the estimate to the sample uniques).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from tests._cli import call
from tests._examples import examples
from tests._random_tables import random_dataset, random_node
from workbench import risk as R
from workbench.data import Dataset
from workbench.release import Release
from workbench.release.verify import SUPPRESSED
from workbench.risk.histogram import Histogram
from workbench.risk.results import RiskResult
from workbench.risk.uniqueness import (
    pitman_equations,
    pitman_start,
    pitman_uniques,
    population_uniques,
    snb_classes,
    snb_equations,
    snb_uniques,
    solve_2d,
    zayatz_uniques,
)
from workbench.samples import load_sample

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"
ADULT9 = ROOT / "sample_configs" / "adult9.toml"
WORKBENCH = Path(sys.executable).with_name("workbench")
TOP_KEYS = {"records", "classes", "suppressed", "groups", "prosecutor", "journalist", "marketer", "sample_uniques",
            "population_uniques"}
PROSECUTOR_KEYS = {"highest", "average", "records_at_risk", "records_at_risk_count", "threshold"}
POPULATION_KEYS = {"pitman", "zayatz", "snb", "dankar", "dankar_model", "population_size", "sampling_fraction"}


# ---------------------------------------------------------------------------------------------- brute force
def brute_force(rows: list[tuple[str, ...]], threshold: float, sample: list[bool] | None = None) -> dict[str, float]:
    """Record by record in plain Python: each record's class size counted by comparing it with every record.
    With ``sample``, the sample is the flagged rows and the population table all rows (El Emam's journalist)."""
    sample = sample or [True] * len(rows)
    chosen = [r for r, s in zip(rows, sample, strict=True) if s]
    n = len(chosen)
    f = [sum(1 for other in chosen if other == r) for r in chosen]  # class size in the sample
    big_f = [sum(1 for other in rows if other == r) for r in chosen]  # class size in the population table
    distinct = []
    for r in chosen:
        if r not in distinct:
            distinct.append(r)
    out = {
        "records": n,
        "groups": len(distinct),  # distinct rows of the table given (its classes when nothing is suppressed)
        "highest": max(1 / x for x in f),
        "average": sum(1 / x for x in f) / n,  # mean record risk = classes / n
        "at_risk": sum(1 for x in f if 1 / x > threshold),
        "uniques": sum(1 for x in f if x == 1) / n,
        "marketer": sum(1 / x for x in big_f) / n,  # (1/n) sum_records 1/F = (1/n) sum_classes f/F
        "j_highest": max(1 / x for x in big_f),
        "j_at_risk": sum(1 for x in big_f if 1 / x > threshold),
    }
    population_of_classes = sum(sum(1 for other in rows if other == d) for d in distinct)
    out["j_average"] = max(len(distinct) / population_of_classes, out["marketer"])
    return out


def frame_rows(frame: pd.DataFrame, columns: list[str]) -> list[tuple[str, ...]]:
    return [tuple(str(frame[c].iloc[i]) for c in columns) for i in range(len(frame))]


def generalized_rows(dataset: Dataset, node: tuple[int, ...]) -> list[tuple[str, ...]]:
    """Each record's labels at ``node``, read from the hierarchy rows (value -> label at the level)."""
    out = []
    paths = {q: {row[0]: row for row in dataset.hierarchies[q].rows} for q in dataset.quasi_identifiers}
    for i in range(dataset.n):
        out.append(tuple(paths[q][str(dataset.frame[q].iloc[i])][lv]
                         for q, lv in zip(dataset.quasi_identifiers, node, strict=True)))
    return out


def random_release(seed: int, offset: int) -> tuple[Dataset, tuple[int, ...], Release]:
    """A random table, a random node of its lattice and the node's release at a random k in 1..3 with every record
    allowed to be suppressed (the node and k drawn with seed ``offset + seed``)."""
    dataset = random_dataset(seed)
    rng = np.random.default_rng(offset + seed)
    node = random_node(dataset, rng)
    return dataset, node, Release.from_node(dataset, node, int(rng.integers(1, 4)), 1.0)


def assert_matches(result: RiskResult, ref: dict[str, float], journalist: bool = False,
                   classes: int | None = None, suppressed: int = 0) -> None:
    """``classes`` and ``suppressed``: the release's, when the rows hold suppressed records (default: the rows'
    groups are its classes, nothing suppressed)."""
    assert result.records == ref["records"] and result.groups == ref["groups"]
    assert result.classes == (ref["groups"] if classes is None else classes) and result.suppressed == suppressed
    p = result.prosecutor
    assert p.highest == pytest.approx(ref["highest"], rel=1e-12)
    assert p.average == pytest.approx(ref["average"], rel=1e-12)
    assert p.records_at_risk_count == ref["at_risk"]
    assert p.records_at_risk == pytest.approx(ref["at_risk"] / ref["records"], rel=1e-12)
    assert result.sample_uniques == pytest.approx(ref["uniques"], rel=1e-12, abs=0)
    if journalist:
        assert result.journalist is not None
        assert result.journalist.highest == pytest.approx(ref["j_highest"], rel=1e-12)
        assert result.journalist.average == pytest.approx(ref["j_average"], rel=1e-12)
        assert result.journalist.records_at_risk_count == ref["j_at_risk"]
        assert result.marketer == pytest.approx(ref["marketer"], rel=1e-12)
    else:
        assert result.journalist is None
        assert result.marketer == pytest.approx(ref["average"], rel=1e-12)  # the sample is the population


@pytest.mark.parametrize("seed", range(25))
def test_input_risk_equals_a_record_by_record_count(seed: int) -> None:
    dataset = random_dataset(seed)
    qis = dataset.quasi_identifiers
    threshold = [0.2, 0.5, 1 / 3, 1.0, 0.05][seed % 5]
    ref = brute_force(frame_rows(dataset.frame, qis), threshold)
    assert_matches(R.risk_of_frame(dataset.frame, qis, threshold), ref)
    assert_matches(R.risk_of_node(dataset, None, threshold), ref)


@pytest.mark.parametrize("seed", range(25))
def test_node_risk_before_suppression_equals_a_record_by_record_count(seed: int) -> None:
    dataset = random_dataset(seed)
    rng = np.random.default_rng(1000 + seed)
    node = random_node(dataset, rng)
    ref = brute_force(generalized_rows(dataset, node), 0.2)
    assert_matches(R.risk_of_node(dataset, node), ref)


@pytest.mark.parametrize("seed", range(20))
def test_journalist_and_marketer_against_a_population_table_equal_a_record_by_record_count(seed: int) -> None:
    dataset = random_dataset(seed, max_rows=40)
    rng = np.random.default_rng(2000 + seed)
    sample = rng.random(dataset.n) < 0.5
    sample[int(rng.integers(0, dataset.n))] = True  # never empty
    node = random_node(dataset, rng)
    rows = generalized_rows(dataset, node)
    ref = brute_force(rows, 0.25, sample.tolist())
    assert_matches(R.risk_of_node(dataset, node, 0.25, sample=sample), ref, journalist=True)


@pytest.mark.parametrize("seed", range(20))
def test_release_risk_counts_the_suppressed_records_as_one_group_of_stars(seed: int) -> None:
    dataset, node, release = random_release(seed, 3000)
    table = release.table("mark")  # what a reader sees: '*' in every quasi-identifier of a suppressed record
    rows = frame_rows(table, dataset.quasi_identifiers)
    assert all(set(r) == {SUPPRESSED} for r, s in zip(rows, release.suppressed, strict=True) if s and r)
    kept = [r for r, s in zip(rows, release.suppressed, strict=True) if not s]
    classes, suppressed = len(set(kept)), int(release.suppressed.sum())  # the equivalence classes of the kept rows
    assert release.classes == classes
    assert_matches(R.risk_of_release(release), brute_force(rows, 0.2), classes=classes, suppressed=suppressed)
    excluded = R.risk_of_release(release, suppressed="exclude")  # ARX: suppressed records are ignored
    if kept:
        assert_matches(excluded, brute_force(kept, 0.2), classes=classes, suppressed=suppressed)
    else:
        assert excluded.records == 0 and excluded.prosecutor.highest == 0.0


# ---------------------------------------------------------------------------------------------- El Emam
def el_emam_example() -> tuple[pd.DataFrame, np.ndarray]:
    """A population table of 25 people in four classes A-D (sizes F = 4, 3, 10, 8) and a research sample of 10
    of them (f = 1, 2, 3, 4 from A, B, C, D), as in El Emam & Dankar's (2008) setting of a sample drawn from an
    identification database."""
    population = {"A": 4, "B": 3, "C": 10, "D": 8}
    sample = {"A": 1, "B": 2, "C": 3, "D": 4}
    rows, mask = [], []
    for cls, size in population.items():
        for i in range(size):
            rows.append({"zip": f"zip-{cls}", "yob": f"yob-{cls}"})
            mask.append(i < sample[cls])
    return pd.DataFrame(rows), np.array(mask)


def test_el_emam_prosecutor_journalist_marketer_worked_example() -> None:
    """Hand computation with El Emam & Dankar's (2008) definitions:

    prosecutor (the attacker knows the person is in the sample; risk 1/f):
      highest = 1/min f = 1/1 = 1; average = classes/n = 4/10 = 0.4;
      at risk for t = 0.2: every class has 1/f > 0.2 -> 10 records; for t = 0.3: f = 1, 2, 3 -> 6 records.
    journalist (the attacker matches against the population; risk 1/F):
      highest = 1/min F = 1/3;
      at risk for t = 0.2: 1/F > 0.2 for A (F = 4) and B (F = 3) -> 1 + 2 = 3 records;
      average = max(classes / sum F, (1/n) sum f/F) = max(4/25, (1/4 + 2/3 + 3/10 + 4/8)/10)
              = max(0.16, 103/600) = 103/600.
    marketer (expected share of records re-identified) = (1/n) sum f/F = 103/600.
    sample uniques: class A alone -> 1/10.
    """
    frame, sample = el_emam_example()
    r = R.risk_of_frame(frame, ["zip", "yob"], 0.2, sample=sample)
    assert (r.records, r.classes) == (10, 4)
    assert r.prosecutor.highest == 1.0
    assert r.prosecutor.average == pytest.approx(0.4)
    assert (r.prosecutor.records_at_risk_count, r.prosecutor.records_at_risk) == (10, 1.0)
    assert R.risk_of_frame(frame, ["zip", "yob"], 0.3, sample=sample).prosecutor.records_at_risk_count == 6
    assert r.journalist is not None
    assert r.journalist.highest == pytest.approx(1 / 3)
    assert r.journalist.records_at_risk_count == 3
    assert r.journalist.average == pytest.approx(103 / 600)
    assert r.marketer == pytest.approx(103 / 600)
    assert r.sample_uniques == pytest.approx(0.1)


def test_teaching_table_of_el_emam_2009_by_hand() -> None:
    """El Emam et al. 2009, Fig. 3 (10 records). At level 0 the classes are (01/01/2008, M, 18) x 3 and seven
    single records: highest 1, average 8/10, at risk (t = 0.2) all 10, uniques 7/10. At date=1 (month),
    gender=1 (Person), age=3 (0-19, 20-39) the classes are ages 13, 18 x 4, 19 (6 records) and 21, 22 x 2, 23 (4):
    highest 1/4, average 2/10, at risk 4 records (1/4 > 0.2), no uniques."""
    sample = load_sample("teaching")
    dataset = Dataset.create(sample.frame, sample.roles, sample.hierarchies)
    r0 = R.risk_of_node(dataset, (0, 0, 0))
    assert (r0.classes, r0.prosecutor.highest, r0.prosecutor.average) == (8, 1.0, 0.8)
    assert (r0.prosecutor.records_at_risk_count, r0.sample_uniques) == (10, 0.7)
    r1 = R.risk_of_node(dataset, (1, 1, 3))
    assert (r1.classes, r1.prosecutor.highest, r1.prosecutor.average) == (2, 0.25, 0.2)
    assert (r1.prosecutor.records_at_risk_count, r1.sample_uniques) == (4, 0.0)


# ---------------------------------------------------------------------------------------------- ARX's values
@pytest.fixture(scope="module")
def adult9() -> Histogram:
    sample = load_sample("adult9")
    qis = [a for a, role in sample.roles.items() if role == "quasi"]
    assert len(qis) == 9 and len(sample.frame) == 30162
    return Histogram.of(sample.frame.groupby(qis).size().to_numpy())


def test_arx_average_risk_and_sample_uniqueness_of_adult(adult9: Histogram) -> None:
    """TestRiskMetrics.testAverageRisk2 / testHighestIndividualRisk2 (before anonymization) and the sample
    uniqueness of testDecisionRule2 (its population uniqueness at sampling fraction 1)."""
    r = R.risk_from_histogram(adult9)
    assert r.prosecutor.average == 0.6465751607983555
    assert r.prosecutor.highest == 1.0
    assert r.sample_uniques == pytest.approx(0.5142895033485844, rel=1e-15)


@pytest.mark.parametrize(("fraction", "expected", "model"), [
    (0.1, 0.27684993883653597, "pitman"),  # ARX accepts Pitman (this value) or Zayatz (0.3207402393466189)
    (0.2, 0.3577099234829125, "zayatz"),
    (0.01, 0.1446083531167384, "pitman"),
    (1.0, 0.5142895033485844, "snb"),  # SNB = Zayatz = sample uniques at fraction 1; ARX takes SNB on a tie
])
def test_arx_dankar_decision_rule_on_adult(adult9: Histogram, fraction: float, expected: float, model: str) -> None:
    """TestRiskMetrics.testDecisionRule2: ARXPopulationModel.create(n, fraction) (population round(n/fraction))
    and getFractionOfUniqueTuplesDankar(). ARX compares four digits; these agree to 1e-9."""
    population = round(adult9.records / fraction)
    pop = population_uniques(adult9, population)
    assert pop.dankar == pytest.approx(expected, rel=1e-9)
    assert pop.dankar_model == model
    assert pop.sampling_fraction == pytest.approx(adult9.records / population)
    if fraction == 0.1:
        assert pop.zayatz == pytest.approx(0.3207402393466189, rel=1e-9)


# ---------------------------------------------------------------------------------------------- Zayatz
def zayatz_exact(hist: dict[int, int], population: int) -> float:
    """Zayatz (1991) with exact hypergeometric probabilities: P(one of a class of size s among n of N drawn)
    = C(s, 1) C(N - s, n - 1) / C(N, n)."""
    n = sum(s * c for s, c in hist.items())
    u = sum(hist.values())

    def p1(s: int) -> Fraction:
        return Fraction(s * math.comb(population - s, n - 1), math.comb(population, n))

    denominator = sum(Fraction(c, u) * p1(s) for s, c in hist.items())
    conditional = Fraction(hist.get(1, 0), u) * p1(1) / denominator
    return float(hist.get(1, 0) * conditional / Fraction(n, population))


@pytest.mark.parametrize(("hist", "population"), [
    ({1: 3, 2: 1}, 20), ({1: 5, 2: 3, 4: 1}, 60), ({1: 10, 3: 2, 7: 1}, 1000), ({1: 1}, 5), ({1: 4, 2: 2}, 8),
])
def test_zayatz_equals_the_formula_with_exact_integers(hist: dict[int, int], population: int) -> None:
    got = zayatz_uniques(Histogram.from_mapping(hist), population)
    assert got == pytest.approx(zayatz_exact(hist, population), rel=1e-10)


# ---------------------------------------------------------------------------------------------- Pitman
def pitman_closed(hist: Histogram) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """ARX ModelPitman.getMasterFunctionClosed: the likelihood equations and their derivatives with digamma and
    trigamma (here exact, from scipy.special) instead of sums."""
    u, n = float(hist.classes), float(hist.records)
    sizes, counts = hist.sizes.astype(float), hist.counts.astype(float)
    big = sizes != 1

    def master(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t, a = x
        psi, tri = special.digamma, lambda z: special.polygamma(1, z)
        v0 = u - 1
        v1, v2 = psi(v0 + t / a + 1), tri((a + t + a * v0) / a)
        v3, v4, v5 = tri(t / a + 1), psi(t / a + 1), a * a
        d1 = (v3 - v2) / v5
        d5 = ((a * v1) + (t * v2) - (a * v4) - (t * v3)) / (v5 * a)
        d3 = ((v5 * v0) - (t * t * v2) + (t * t * v3) - (2 * a * t * v1) + (2 * a * t * v4)) / (v5 * v5)
        o1, o3 = (v1 - v4) / a, ((-t * v1) + (a * v0) + (t * v4)) / (a * a)
        o2, d2 = psi(n + t) - psi(t + 1), tri(t + 1) - tri(n + t)
        d4 = float(np.sum(counts[big] * (tri(1 - a) - tri(sizes[big] - a))))
        o4 = float(np.sum(counts[big] * (psi(sizes[big] - a) - psi(1 - a))))
        return np.array([o1 - o2, o3 - o4]), np.array([[d2 - d1, -d5], [-d5, -d3 - d4]])

    return master


def newton_raphson(master: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], start: tuple[float, float],
                   accuracy: float = 1e-6, per_try: int = 1000) -> np.ndarray | None:
    """NewtonRaphson2D's loop from one start value: stop when both residuals are within the accuracy; give up on
    NaN, theta < 0 (ModelPitman's constraint) or after ``per_try`` iterations."""
    x = np.array(start, dtype=float)
    with np.errstate(all="ignore"):
        for _ in range(per_try):
            g, jac = master(x)
            if np.all(np.abs(g) <= accuracy):
                return x
            x = x - np.linalg.solve(jac, g)
            if np.isnan(x).any() or x[0] < 0:
                return None
    return None


def pitman_estimate(t: float, a: float, population: float) -> float:
    return math.exp(math.lgamma(t + 1) - math.lgamma(t + a)) * population**a


@pytest.mark.parametrize("hist", [
    {1: 100, 2: 40, 3: 20, 4: 10, 6: 5},
    {1: 200, 2: 30, 3: 10, 5: 4, 9: 1},
])
def test_pitman_agrees_with_arx_newton_raphson_on_the_closed_form_equations(hist: dict[int, int]) -> None:
    h = Histogram.from_mapping(hist)
    start = pitman_start(h)
    root = newton_raphson(pitman_closed(h), start)
    assert root is not None
    population = 20 * h.records
    expected = pitman_estimate(root[0], root[1], population)
    assert pitman_uniques(h, population) == pytest.approx(expected, rel=1e-5)


def test_pitman_root_on_adult_solves_the_closed_form_equations(adult9: Histogram) -> None:
    """ARX's Newton-Raphson on the closed forms (transcribed above, with scipy's exact ψ and ψ') from ARX's start
    finds a root that solves the sums too; ``pitman_uniques`` (ARX's approximations of ψ and ψ') finds the same."""
    fun, _ = pitman_equations(adult9)
    root = newton_raphson(pitman_closed(adult9), pitman_start(adult9))
    assert root is not None and root[0] >= 0
    assert np.all(np.abs(fun(root)) <= 1e-6)
    population = 10 * adult9.records
    assert pitman_uniques(adult9, population) == pytest.approx(pitman_estimate(*root, population), rel=1e-9)


# ---------------------------------------------------------------------------------------------- SNB
@pytest.mark.parametrize("hist", [{1: 10, 2: 5, 3: 2, 5: 1}, {1: 40, 2: 9, 3: 3}, {1: 50, 2: 10, 3: 5, 7: 2}])
def test_snb_at_sampling_fraction_one_estimates_the_sample_uniques(hist: dict[int, int]) -> None:
    """With f = 1, d = (1-f)(1-beta) = 0 and the first SNB equation reads K beta^alpha - c1 = 0, so the
    estimate K beta^alpha is c1, the number of sample uniques, whatever K is. K = u at f = 1, and the second
    equation becomes alpha (1 - beta) = c2/c1, so a root exists iff c1/u < exp(-c2/c1), the supremum of
    (1 - c2/(c1 alpha))^alpha: true for these three, false for {1: 7, 2: 1} (7/8 > exp(-1/7)), which has none."""
    h = Histogram.from_mapping(hist)
    assert snb_uniques(h, h.records) == pytest.approx(hist[1], rel=1e-6)
    c1, c2, u = hist[1], hist.get(2, 0), sum(hist.values())
    assert c1 / u < math.exp(-c2 / c1)
    assert math.isnan(snb_uniques(Histogram.from_mapping({1: 7, 2: 1}), 9))


def test_snb_solution_satisfies_the_published_equations() -> None:
    """The SNB root found for a small table solves Chen & Keller-McNulty's equations as ARX writes them,
    evaluated here independently, with Shlosser's K as ARX computes it."""
    hist = {1: 10, 2: 5, 3: 2, 5: 1}
    h = Histogram.from_mapping(hist)
    n, population = h.records, 39  # 31 records, f = 0.79
    f = n / population
    var1 = sum(s * f * f * (1 - f * f) ** (s - 1) * c for s, c in hist.items())
    var2 = sum((1 - f) ** s * c * (1 + f) ** s - 1 for s, c in hist.items())
    var3 = sum((1 - f) ** s * c for s, c in hist.items())
    var4 = sum(s * f * (1 - f) ** (s - 1) * c for s, c in hist.items())
    k = sum(hist.values()) + hist[1] * (var1 / var2) * (var3 / var4) ** 2
    assert snb_classes(h, f) == pytest.approx(k, rel=1e-12)
    fun = snb_equations(k, f, 10.0, 5.0)
    root = solve_2d(fun, (1.0, 1.0))
    assert root is not None
    a, b = root
    d = (1 - f) * (1 - b)
    g1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - 10
    g2 = k * a * b**a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - 5
    assert abs(g1) <= 1e-6 and abs(g2) <= 1e-6
    assert snb_uniques(h, population) == pytest.approx(k * b**a, rel=1e-9)


# ---------------------------------------------------------------------------------------------- Dankar's rule
def test_no_sample_uniques_means_no_population_uniques() -> None:
    pop = population_uniques(Histogram.from_mapping({2: 3, 5: 1}), 1000)
    assert (pop.pitman, pop.zayatz, pop.snb, pop.dankar, pop.dankar_model) == (0.0, 0.0, 0.0, 0.0, "none")


def test_dankar_takes_pitman_at_small_fractions_and_the_smaller_of_zayatz_and_snb_above() -> None:
    h = Histogram.from_mapping({1: 100, 2: 40, 3: 20, 4: 10, 6: 5})
    small = population_uniques(h, 20 * h.records)  # fraction 0.05
    assert small.dankar_model == "pitman" and small.dankar == small.pitman
    large = population_uniques(h, 2 * h.records)  # fraction 0.5: SNB has no root here
    assert large.snb is None and large.dankar_model == "zayatz" and large.dankar == large.zayatz
    both = population_uniques(Histogram.from_mapping({1: 10, 2: 5, 3: 2, 5: 1}), 39)  # SNB solved here
    assert both.snb is not None and both.zayatz is not None
    assert both.dankar == min(both.snb, both.zayatz)
    assert both.dankar_model == ("snb" if both.snb <= both.zayatz else "zayatz")


def test_population_smaller_than_the_sample_is_refused() -> None:
    with pytest.raises(ValueError, match="smaller than"):
        population_uniques(Histogram.from_mapping({1: 3}), 2)


def test_threshold_outside_zero_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        R.prosecutor_risk(Histogram.from_mapping({1: 3}), 0.0)


def test_to_dict_has_the_contract_keys_and_nulls() -> None:
    d = R.risk_of_class_sizes([1, 2, 2]).to_dict()
    assert set(d) == TOP_KEYS
    assert set(d["prosecutor"]) == PROSECUTOR_KEYS and set(d["population_uniques"]) == POPULATION_KEYS
    assert d["journalist"] is None and all(v is None for v in d["population_uniques"].values())
    json.dumps(d)


# ---------------------------------------------------------------------------------------------- CLI


def test_cli_risk_json_of_the_input_and_of_a_node() -> None:
    status, out, err = call("risk", TEACHING, "--json")
    assert (status, err) == (0, "")
    (line,) = out.splitlines()
    d = json.loads(line)
    assert set(d) == TOP_KEYS and set(d["prosecutor"]) == PROSECUTOR_KEYS
    assert (d["records"], d["classes"], d["sample_uniques"]) == (10, 8, 0.7)
    assert d["population_uniques"]["dankar"] is None
    status, out, err = call("risk", TEACHING, "--node", "date=0,gender=0,age=0", "--node", "date=1,gender=1,age=3",
                            "--json", "--population", "200")
    assert (status, err) == (0, "")
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r["classes"] for r in rows] == [8, 2]
    assert rows[1]["prosecutor"]["highest"] == 0.25
    assert rows[0]["population_uniques"]["population_size"] == 200
    assert rows[0]["population_uniques"]["sampling_fraction"] == 0.05
    assert rows[1]["population_uniques"]["dankar_model"] == "none"


def test_cli_risk_text_is_readable() -> None:
    status, out, err = call("risk", ADULT9, "--population", "301620")
    assert (status, err) == (0, "")
    assert "19,502 equivalence classes" in out and "average 64.66 %" in out
    assert "51.43 % of the records are alone" in out
    assert "Pitman 27.68 %" in out and "Dankar's rule 27.68 % (pitman)" in out


@pytest.mark.parametrize(("argv", "needle"), [
    (["--node", "date=0,gender=0"], "no level for age"),
    (["--node", "date=9,gender=0,age=0"], "outside 0..2"),
    (["--node", "size=1"], "not a quasi-identifier"),
    (["--population", "5"], "smaller than the 10 records"),
    (["--population", "many"], "not a whole number"),
    (["--threshold", "1.5"], "(0, 1]"),
    (["--set", "privacy.nope=1"], "unknown key privacy.nope"),
])
def test_cli_risk_bad_input_exits_2_with_one_line(argv: list[str], needle: str) -> None:
    status, out, err = call("risk", TEACHING, *argv)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err, err


def test_console_script_risk(tmp_path: Path) -> None:
    proc = subprocess.run([str(WORKBENCH), "risk", str(TEACHING), "--node", "date=1,gender=1,age=3", "--json"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert json.loads(proc.stdout)["prosecutor"]["average"] == 0.2
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------- record-level risk
def brute_force_record_risks(rows: list[tuple[str, ...]]) -> dict[float, int]:
    """Record by record: each record's risk 1/(records equal to it), and how many records have each risk."""
    out: dict[float, int] = {}
    for r in rows:
        risk = 1 / sum(1 for other in rows if other == r)
        out[risk] = out.get(risk, 0) + 1
    return out


@pytest.mark.parametrize("seed", range(15))
def test_record_risks_of_input_node_and_release_equal_a_record_by_record_count(seed: int) -> None:
    dataset, node, release = random_release(seed, 4000)
    cases = [(R.node_class_sizes(dataset), frame_rows(dataset.frame, dataset.quasi_identifiers)),
             (R.node_class_sizes(dataset, node), generalized_rows(dataset, node)),
             (R.release_class_sizes(release), frame_rows(release.table("mark"), dataset.quasi_identifiers))]
    for sizes, rows in cases:
        table = R.record_risks(sizes)
        assert dict(zip(table["risk"], table["records"], strict=True)) == pytest.approx(brute_force_record_risks(rows))
        assert table["records"].sum() == len(rows) and table["share"].sum() == pytest.approx(1.0)
        assert list(table["class_size"]) == sorted(table["class_size"])


def test_record_risks_of_no_records_is_empty() -> None:
    assert R.record_risks([]).empty


# ---------------------------------------------------------------------------------------------- unique combinations
@pytest.mark.parametrize("seed", range(examples(8)))
def test_unique_combinations_equal_a_brute_force(seed: int) -> None:
    """For every combination of quasi-identifiers: the records alone on it and those unique on it but on none of
    its proper subsets, counted row by row; every combination with few quasi-identifiers, up to 3 with more."""
    from collections import Counter
    from itertools import combinations

    from workbench.risk.combinations import combinations_count, unique_combinations

    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 9))
    n = int(rng.integers(1, 40))
    frame = pd.DataFrame({f"q{j}": rng.integers(0, int(rng.integers(2, 6)), size=n).astype(str) for j in range(r)})
    qis = [f"q{j}" for j in range(r)]
    table = unique_combinations(frame, qis).set_index("combination")
    top = r if r <= 6 else 3
    expected = [c for s in range(1, top + 1) for c in combinations(qis, s)]
    assert len(table) == len(expected) == combinations_count(r)

    def alone(combo: tuple[str, ...]) -> set[int]:
        keys = [tuple(frame[q].iat[i] for q in combo) for i in range(n)]
        counts = Counter(keys)
        return {i for i in range(n) if counts[keys[i]] == 1}

    for combo in expected:
        mine = alone(combo)
        parts = set().union(*(alone(p) for size in range(1, len(combo)) for p in combinations(combo, size)))
        row = table.loc[" + ".join(combo)]
        assert (row["size"], row.unique_records, row.only_here) == (len(combo), len(mine), len(mine - parts)), combo
        assert row.share == pytest.approx(len(mine) / n)


def test_risk_combinations_cli(capsys) -> None:
    """``workbench risk --combinations --json`` prints ``unique_combinations`` of the input."""
    from workbench.cli import main
    from workbench.config import load_study
    from workbench.risk.combinations import unique_combinations
    from workbench.study import load_dataset

    config = str(Path(__file__).resolve().parents[1] / "sample_configs" / "teaching.toml")
    assert main(["risk", config, "--combinations", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["unique_combinations"]
    ds = load_dataset(load_study(config))
    assert shown == unique_combinations(ds.frame, ds.quasi_identifiers).to_dict(orient="records")
