"""β-likeness, δ-disclosure privacy, (α, k)-anonymity, k-map and models on several sensitive attributes
(workbench/privacy/): each model's admissibility and every search's optimum against a brute force written from its
definition on random tables, the per-class measurement functions against hand-computed examples and the models
themselves, ARX's published optima on Adult (TestAnonymizationBLikeness, TestAnonymizationKMap), and bad input.

References: Cao & Karras 2012 (β-likeness, Defs. 2 and 3), Brickell & Shmatikov 2008 (δ-disclosure, Def. 4, on the
values present in a class and in base 2, as ARX), Wong et al. 2006 ((α, k)-anonymity), Sweeney 2001 and El Emam &
Dankar 2008 (k-map; the Poisson and zero-truncated Poisson estimates as ARX's ``KMap`` loops)."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections import Counter

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
from workbench.privacy.alpha_k import largest_share
from workbench.privacy.base import ClassView, Extra
from workbench.privacy.beta_likeness import BetaLikeness, largest_relative_gain, smallest_enhanced_beta
from workbench.privacy.build import admissibility_for
from workbench.privacy.delta_disclosure import DeltaDisclosure, largest_log_ratio
from workbench.privacy.k_map import derived_k
from workbench.release import Release

ALL = os.environ.get("WORKBENCH_ARX_ALL") == "1"
LONG = [pytest.mark.slow, pytest.mark.skipif(not ALL, reason="seconds each; WORKBENCH_ARX_ALL=1 runs it")]


# ------------------------------------------------------------------------------------------ references
def _poisson_pmf(j: int, lam: float) -> float:
    return math.exp(-lam) * lam ** j / math.factorial(j)


def ref_derived_k(k: int, n: int, population: float, estimator: str, significance: float) -> int:
    """k' of k-map estimated from a population size: λ = n / N · k; Poisson (D3): the first c whose P(X ≤ c) reaches
    1 − significance, k' = c + 2 (ARX's loop counts one past it); zero-truncated (D4): Σ_{j=1..c} P(X = j) / (1 −
    P(X = 0)) reaches it at c, k' = c + 1; either stops once its counter reaches k; then k' ≤ n and k' ≤ k."""
    lam, target = n / population * k, 1 - significance
    if estimator == "poisson":
        c = 0
        while not (sum(_poisson_pmf(j, lam) for j in range(c + 1)) >= target or c + 1 >= k):
            c += 1
        return min(k, n, c + 2)
    total, j = 0.0, 1
    while True:
        total += _poisson_pmf(j, lam) / (1 - _poisson_pmf(0, lam))
        if total >= target or j + 1 >= k:
            return min(k, n, j + 1)
        j += 1


def ref_violates(model: dict, columns: dict[str, list[str]], whole: dict[str, list[str]], size: int) -> bool:
    """Does a class (its sensitive values per attribute, ``size`` records) break ``model``, from the definitions?"""
    kind = model["kind"]
    if kind == "k_map":
        return size < model["derived"]
    broken = False
    for attribute in model["attributes"]:
        counts, table = Counter(columns[attribute]), Counter(whole[attribute])
        n = len(whole[attribute])
        for v, c in counts.items():
            p, q = c / size, table[v] / n
            if kind == "basic" and (p - q) / q > model["beta"]:
                broken = True
            if kind == "enhanced" and (p - q) / q > min(model["beta"], -math.log(q)):
                broken = True
            if kind == "disclosure" and abs(math.log2(p / q)) >= model["delta"]:
                broken = True
            if kind == "alpha" and (v in model.get("values", counts)) and p > model["alpha"]:
                broken = True
        if kind == "alpha" and size < model.get("k", 1):
            broken = True
        if kind == "distinct" and len(counts) < model["l"]:
            broken = True
    return broken


def _table(seed: int, n: int = 36) -> Dataset:
    """Two or three quasi-identifiers and two sensitive attributes: ``s`` (1..5) and ``u`` (x, y, z)."""
    rng = np.random.default_rng(seed)
    frame, hierarchies = random_quasi_columns(rng, n)
    frame["s"] = [str(v) for v in rng.choice(5, size=n, p=rng.dirichlet(np.ones(5))) + 1]
    frame["u"] = [str(v) for v in rng.choice(["x", "y", "z"], size=n, p=[0.5, 0.3, 0.2])]
    roles = {q: "quasi" for q in hierarchies} | {"s": "sensitive", "u": "sensitive"}
    return Dataset.create(pd.DataFrame(frame), roles, hierarchies, source="random")


def _study(models: dict, k: int, sup: float, algorithm: str = "exhaustive", objective: str = "dm"):
    raw = {"data": {"path": "unused.csv"}, "privacy": {"k": k, "max_suppression": sup, **models},
           "engine": {"algorithm": algorithm, "objective": objective}, "measures": {"compare": [objective]}}
    return study_from_dict(raw)


def _reference(ds: Dataset, model: dict, k: int, sup: float) -> dict[tuple[int, ...], tuple[bool, dict]]:
    """Per node from the records: admissible? and its DM (kept Σ|E|² + n per suppressed record) and DM*."""
    out = {}
    limit = math.floor(sup * ds.n + 1e-9)
    qis = ds.quasi_identifiers
    rows = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    whole = {a: ds.frame[a].tolist() for a in ("s", "u")}
    for node in itertools.product(*(range(ds.hierarchies[q].height + 1) for q in qis)):
        classes: dict[tuple[str, ...], list[int]] = {}
        for i in range(ds.n):
            key = tuple(rows[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
            classes.setdefault(key, []).append(i)
        bad = [c for c in classes.values()
               if len(c) < k or ref_violates(model, {a: [whole[a][i] for i in c] for a in whole}, whole, len(c))]
        suppressed = sum(len(c) for c in bad)
        kept = sum(len(c) ** 2 for c in classes.values() if not any(c is b for b in bad))
        out[node] = (suppressed <= limit, {"dm": float(kept + ds.n * suppressed),
                                           "dm_star": float(sum(len(c) ** 2 for c in classes.values()))})
    return out


# name: ([privacy.MODEL] tables, the reference model, (monotone with suppression, with generalization))
MODELS = {
    "basic": ({"beta_likeness": {"attribute": "s", "beta": 1.0}},
              {"kind": "basic", "beta": 1.0, "attributes": ["s"]}, (False, True)),
    "enhanced": ({"beta_likeness": {"attribute": "s", "variant": "enhanced", "beta": 1.5}},
                 {"kind": "enhanced", "beta": 1.5, "attributes": ["s"]}, (False, True)),
    "disclosure": ({"delta_disclosure": {"attribute": "s", "delta": 1.5}},
                   {"kind": "disclosure", "delta": 1.5, "attributes": ["s"]}, (False, False)),
    "alpha": ({"alpha_k": {"attribute": "s", "alpha": 0.6}},
              {"kind": "alpha", "alpha": 0.6, "attributes": ["s"]}, (False, True)),
    "alpha-value": ({"alpha_k": {"attribute": "u", "alpha": 0.5, "k": 3, "values": ["x"]}},
                    {"kind": "alpha", "alpha": 0.5, "k": 3, "values": ["x"], "attributes": ["u"]}, (False, True)),
    "two-betas": ({"beta_likeness": {"attribute": ["s", "u"], "beta": 1.2}},
                  {"kind": "basic", "beta": 1.2, "attributes": ["s", "u"]}, (False, True)),
    "two-distinct": ({"l_diversity": {"attribute": ["s", "u"], "variant": "distinct", "l": 2}},
                     {"kind": "distinct", "l": 2, "attributes": ["s", "u"]}, (True, True)),
    "k-map": ({"k_map": {"k": 4, "population": 1000, "estimator": "poisson", "significance": 0.05}},
              {"kind": "k_map", "k": 4, "population": 1000, "estimator": "poisson", "significance": 0.05},
              (True, True)),
    "k-map-zt": ({"k_map": {"k": 3, "population": 60, "estimator": "zero_truncated_poisson", "significance": 0.2}},
                 {"kind": "k_map", "k": 3, "population": 60, "estimator": "zero_truncated_poisson",
                  "significance": 0.2}, (True, True)),
}
CASES = [(name, seed, k, sup) for name in MODELS for seed, k, sup in [(1, 2, 0.0), (2, 1, 0.1), (3, 3, 0.2)]]


@pytest.mark.parametrize(("name", "seed", "k", "sup"), CASES)
def test_every_search_finds_the_brute_force_optimum(name: str, seed: int, k: int, sup: float) -> None:
    """Every node's admissibility equals the reference's, the rule's monotonicity is what the model's definition
    gives (predictive tagging only where sound), and each search finds the brute-force optimum (Flash and OLA refuse
    a rule that is not monotone at the limit)."""
    ds = _table(seed)
    tables, model, (with_suppression, with_generalization) = MODELS[name]
    if model["kind"] == "k_map":
        model = model | {"derived": ref_derived_k(model["k"], ds.n, model["population"], model["estimator"],
                                                  model["significance"])}
    ref = _reference(ds, model, k, sup)
    rule = admissibility_for(_study(tables, k, sup), ds)
    evaluator = NodeEvaluator(ds.encoded, k, sup, rule)
    assert {node: evaluator.evaluate(node).admissible for node in ref} == {node: ok for node, (ok, _) in ref.items()}
    assert rule.monotone == (with_suppression or (sup * ds.n < 1 and with_generalization))
    assert_searches_find_the_reference(ref, ds, lambda algorithm, objective: _study(tables, k, sup, algorithm,
                                                                                  objective),
                                       rule.monotone, "not monotone")


@pytest.mark.parametrize("name", [n for n in MODELS if not n.startswith("k-map")])
def test_release_suppresses_violating_classes_and_verification_rechecks(name: str) -> None:
    """A node's release suppresses exactly the reference's violating classes, and verification re-checks the model
    (one guarantee entry, also for a model on two attributes) from the released table."""
    ds = _table(7, n=40)
    tables, model, _ = MODELS[name]
    rule = admissibility_for(_study(tables, 2, 1.0), ds)
    whole = {a: ds.frame[a].tolist() for a in ("s", "u")}
    for node in [(0,) * len(ds.quasi_identifiers), (1,) * len(ds.quasi_identifiers)]:
        release = Release.from_node(ds, node, 2, 1.0, "test", rule)
        keys = release.labels[ds.quasi_identifiers].astype(str).agg("|".join, axis=1).tolist()
        groups: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            groups.setdefault(key, []).append(i)
        expected = np.zeros(ds.n, dtype=bool)
        for members in groups.values():
            if len(members) < 2 or ref_violates(model, {a: [whole[a][i] for i in members] for a in whole}, whole,
                                                 len(members)):
                expected[members] = True
        assert np.array_equal(release.suppressed, expected)
        guarantee = release.verify()
        assert guarantee.holds and len(guarantee.models) == 1 and all(guarantee.models.values())


def test_k_map_against_a_population_table_by_brute_force() -> None:
    """k-map with a population table: a subset class holds when the population records of its class at the node
    (subset and outside) are at least k; every search finds the brute-force optimum; the model is monotone with
    suppression (a record suppressed at a node is suppressed at every node below it)."""
    for seed, k, sup in [(1, 3, 0.0), (2, 4, 0.2), (3, 2, 0.1)]:
        rng = np.random.default_rng(seed)
        n = 48
        frame, hierarchies = random_quasi_columns(rng, n)
        population = pd.DataFrame(frame)
        rows = np.sort(rng.choice(n, size=int(rng.integers(n // 4, n // 2)), replace=False))
        ds = Dataset.create(population.iloc[rows].reset_index(drop=True), {q: "quasi" for q in hierarchies},
                            hierarchies, source="subset", population=Population(population, rows))
        qis = list(hierarchies)
        paths = {q: {r[0]: r for r in hierarchies[q].rows} for q in qis}
        m, limit = rows.size, math.floor(sup * rows.size + 1e-9)
        ref, rows_out = {}, {}
        for node in itertools.product(*(range(hierarchies[q].height + 1) for q in qis)):
            keys = [tuple(paths[q][population[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
                    for i in range(n)]
            everyone, inside = Counter(keys), Counter(keys[i] for i in rows)
            bad = [c for c in inside if everyone[c] < k]
            rows_out[node] = {int(i) for i in rows if keys[i] in bad}
            suppressed = sum(inside[c] for c in bad)
            kept = sum(inside[c] ** 2 for c in inside if c not in bad)
            ref[node] = (suppressed <= limit, {"dm": float(kept + m * suppressed),
                                               "dm_star": float(sum(v * v for v in inside.values()))})

        def study_for(algorithm: str, objective: str, k: int = k, sup: float = sup):
            return _study({"k_map": {"k": k, "subset": "unused.csv"}}, 1, sup, algorithm, objective)

        rule = admissibility_for(study_for("exhaustive", "dm"), ds)
        assert rule.monotone and rule.models[0].monotone_with_suppression
        for node in rows_out:  # monotone with suppression, by the brute force: suppressed above means suppressed below
            assert all(rows_out[above] <= rows_out[node] for above in _successors(ds, node))
        evaluator = NodeEvaluator(ds.encoded, 1, sup, rule)
        assert {node: evaluator.evaluate(node).admissible for node in ref} == {nd: ok for nd, (ok, _) in ref.items()}
        assert_searches_find_the_reference(ref, ds, study_for, True, "not monotone")


# ------------------------------------------------------------------------------------------ per-class measurements
def test_measurement_functions_on_a_worked_example() -> None:
    """Three classes over values a, b, c with the table's counts (6, 3, 1) of 10 records:
    class 0 = (2, 1, 1): shares (.5, .25, .25) against (.6, .3, .1): gains (−1/6, −1/6, 1.5), |log2| of the ratios
    (log2 1.2, log2 1.2, log2 2.5), largest share .5; class 1 = (4, 0, 0): gain 2/3, log2(1/.6), share 1;
    class 2 = (0, 2, 0): gain 7/3, log2(1/.3), share 1. Enhanced: −ln q = (0.511, 1.204, 2.303): class 0's gain 1.5
    is within −ln .1, so its smallest β is 1.5; class 1's 2/3 exceeds −ln .6 = 0.511 (no β); class 2's 7/3 exceeds
    −ln .3 (no β)."""
    counts = np.array([[2, 1, 1], [4, 0, 0], [0, 2, 0]])
    table = np.array([6, 3, 1])
    assert largest_relative_gain(counts, table) == pytest.approx([1.5, 2 / 3, 7 / 3])
    assert largest_log_ratio(counts, table) == pytest.approx([math.log2(2.5), math.log2(1 / 0.6), math.log2(1 / 0.3)])
    assert largest_share(counts) == pytest.approx([0.5, 1.0, 1.0])
    assert largest_share(counts, values=[2]) == pytest.approx([0.25, 0.0, 0.0])
    assert smallest_enhanced_beta(counts, table) == pytest.approx([1.5, np.inf, np.inf])


@pytest.mark.parametrize("seed", range(20))
def test_measurement_functions_decide_as_the_models(seed: int) -> None:
    """On random class histograms: a class violates basic β-likeness exactly when its largest relative gain exceeds
    β, enhanced exactly when β is below its smallest enhanced β, δ-disclosure exactly when its largest |log2 ratio|
    reaches δ (the functions an audit calls, and the models the engines enforce, agree)."""
    rng = np.random.default_rng(seed)
    m, classes = int(rng.integers(2, 6)), int(rng.integers(1, 12))
    counts = rng.integers(0, 5, size=(classes, m))
    counts[counts.sum(axis=1) == 0, 0] = 1
    records = np.repeat(np.arange(classes), counts.sum(axis=1))
    values = np.concatenate([np.repeat(np.arange(m), row) for row in counts])
    extra = Extra("sensitive:s", values, m)
    view = ClassView.from_records(records, classes, [extra])
    table = counts.sum(axis=0)
    for beta in (0.3, 1.0, 2.5):
        basic = BetaLikeness(extra, beta).violating(view)
        assert np.array_equal(basic, largest_relative_gain(counts, table) > beta)
        enhanced = BetaLikeness(extra, beta, "enhanced").violating(view)
        assert np.array_equal(enhanced, smallest_enhanced_beta(counts, table) > beta)
    for delta in (0.5, 1.0, 2.0):
        assert np.array_equal(DeltaDisclosure(extra, delta).violating(view), largest_log_ratio(counts, table) >= delta)


@pytest.mark.parametrize(("k", "n", "population", "estimator", "significance"), [
    (3, 30162, 317_238_626, "zero_truncated_poisson", 0.01), (1000, 30162, 317_238_626, "zero_truncated_poisson", 0.01),
    (5, 64, 10_000, "poisson", 0.01), (4, 44, 120, "zero_truncated_poisson", 0.05), (10, 500, 2000, "poisson", 0.05),
    (10, 500, 2000, "zero_truncated_poisson", 0.05), (50, 300, 900, "poisson", 0.001), (1, 20, 100, "poisson", 0.01),
    (7, 5, 6, "poisson", 0.01)])
def test_derived_k_is_the_reference_estimate(k, n, population, estimator, significance) -> None:
    """k-map's k' equals the estimate written from the Poisson probabilities (ARX's loops), within k and n; a type I
    error of 0 when the loop reached k, else below the significance level."""
    derived, error = derived_k(k, n, population, estimator, significance)
    assert derived == ref_derived_k(k, n, population, estimator, significance)
    assert 1 <= derived <= min(k, n) and 0.0 <= error <= significance + 1e-12


# ------------------------------------------------------------------------------------------ ARX's expectations
# TestAnonymizationBLikeness and TestAnonymizationKMap (arx-deidentifier/arx, src/test/org/deidentifier/arx/test/):
# Adult with occupation sensitive and the other eight attributes quasi-identifiers (ARX's order = the embedded
# sample's). ARX's metrics: createLossMetric() = loss, createPrecomputedEntropyMetric(0.1, false) = entropy_nm,
# createPrecomputedEntropyMetric(0.1, true) = entropy, createAECSMetric() = aecs. k-map's population model is
# ARX's Region.USA (317,238,626 people); its population table is Adult with ARX's research subset (3,016 records).
USA = 317_238_626
SUBSET = "research_subset"
ARX_CASES = [
    pytest.param({"beta_likeness": {"attribute": "occupation", "beta": 3}}, 0.5, "loss", (0, 3, 0, 0, 2, 0, 1, 0),
                 0.34883856157237925, id="BLikeness#0 basic-3 50%"),
    pytest.param({"beta_likeness": {"attribute": "occupation", "variant": "enhanced", "beta": 10}}, 1.0, "loss",
                 (0, 3, 0, 0, 3, 1, 2, 0), 0.3419039849540606, id="BLikeness#3 enhanced-10 100%"),
    pytest.param({"beta_likeness": {"attribute": "occupation", "variant": "enhanced", "beta": 2}}, 0.0, "loss",
                 (1, 4, 1, 1, 3, 2, 2, 0), 0.759176305345683, id="BLikeness#1 enhanced-2 0%", marks=LONG),
    pytest.param({"beta_likeness": {"attribute": "occupation", "beta": 1}}, 1.0, "loss", (1, 4, 0, 1, 3, 0, 2, 0),
                 0.6081345989904172, id="BLikeness#2 basic-1 100%", marks=LONG),
    pytest.param({"beta_likeness": {"attribute": "occupation", "beta": 5}}, 0.4, "loss", (0, 2, 0, 0, 2, 0, 1, 0),
                 0.23350465152356303, id="BLikeness#4 basic-5 40%", marks=LONG),
    pytest.param({"k_map": {"k": 1000, "population": USA, "estimator": "zero_truncated_poisson",
                            "significance": 0.01}}, 0.05, "entropy_nm", (0, 0, 1, 1, 1, 2, 1, 0), 151894.1394841501,
                 id="KMap#1 1000-map estimated"),
    pytest.param({"k_map": {"k": 3, "population": USA, "estimator": "zero_truncated_poisson", "significance": 0.01}},
                 0.05, "entropy_nm", (0, 0, 1, 1, 0, 2, 2, 0), 130804.5332092598, id="KMap#0 3-map estimated",
                 marks=LONG),
    pytest.param({"k_map": {"k": 3, "subset": SUBSET}}, 0.0, "entropy", (0, 0, 1, 2, 3, 2, 2, 0), 23387.494246375998,
                 id="KMap#3 3-map table 0%"),
    pytest.param({"k_map": {"k": 7, "subset": SUBSET}}, 0.05, "entropy", (0, 0, 1, 1, 2, 2, 2, 0), 17075.7181747451,
                 id="KMap#6 7-map table 5%"),
    pytest.param({"k_map": {"k": 5, "subset": SUBSET}}, 0.0, "aecs", (1, 0, 1, 2, 3, 2, 2, 1), 45.014925373134325,
                 id="KMap#2 5-map table aecs", marks=LONG),
    pytest.param({"k_map": {"k": 5, "subset": SUBSET}}, 0.0, "entropy_nm", (1, 0, 1, 2, 3, 2, 2, 1), 28551.7222913157,
                 id="KMap#4 5-map table entropy_nm", marks=LONG),
    pytest.param({"k_map": {"k": 20, "subset": SUBSET}}, 0.05, "aecs", (1, 0, 1, 1, 3, 2, 1, 0), 11.424242424242424,
                 id="KMap#5 20-map table aecs 5%", marks=LONG),
    pytest.param({"k_map": {"k": 3, "subset": SUBSET}}, 0.05, "entropy_nm", (0, 0, 1, 1, 1, 2, 1, 0),
                 15121.633326877098, id="KMap#7 3-map table 5%", marks=LONG),
    pytest.param({"k_map": {"k": 2, "subset": SUBSET}}, 0.0, "entropy", (1, 0, 1, 1, 3, 2, 2, 0), 23108.1673304724,
                 id="KMap#9 2-map table", marks=LONG),
    pytest.param({"k_map": {"k": 10, "subset": SUBSET}}, 0.0, "entropy_nm", (0, 1, 1, 2, 3, 2, 2, 0),
                 30238.2081484441, id="KMap#10 10-map table", marks=LONG),
    pytest.param({"k_map": {"k": 10, "subset": SUBSET}}, 0.05, "aecs", (0, 0, 1, 1, 3, 2, 1, 0), 7.215311004784689,
                 id="KMap#11 10-map table aecs 5%", marks=LONG),
    pytest.param({"k_map": {"k": 5, "subset": SUBSET}}, 0.05, "entropy", (0, 0, 1, 0, 2, 2, 2, 1), 17053.8743069776,
                 id="KMap#12 5-map table 5%", marks=LONG),
]


@pytest.mark.parametrize(("models", "sup", "measure", "node", "value"), ARX_CASES)
def test_arx_junit_optimum(models, sup, measure, node, value) -> None:
    """ARX's optimum node and its information loss (relative 1e-9), found by branch-and-bound."""
    raw = {"data": {"sample": "adult"}, "attributes": {"occupation": {"role": "sensitive"}},
           "privacy": {"k": 1, "max_suppression": sup, **models},
           "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}}
    study = study_from_dict(raw)
    result = S.search(study, S.load_dataset(study))
    assert result.optimum == node
    assert result.value == pytest.approx(value, rel=1e-9)


# ------------------------------------------------------------------------------------------ config and bad input
@pytest.mark.parametrize(("privacy", "message"), [
    ({"beta_likeness": {"attribute": "s", "beta": 0}}, "beta must be a positive number"),
    ({"beta_likeness": {"attribute": "s", "beta": 1, "variant": "strong"}}, "'strong' is not one of basic, enhanced"),
    ({"delta_disclosure": {"attribute": "s"}}, "needs 'delta'"),
    ({"alpha_k": {"attribute": "s", "alpha": 1.5}}, "alpha must be in (0, 1]"),
    ({"alpha_k": {"attribute": "s", "alpha": 0.5, "values": []}}, "values must be a non-empty list"),
    ({"l_diversity": {"attribute": ["s", "s"], "l": 2}}, "names a column twice"),
    ({"t_closeness": {"attribute": [], "t": 0.2}}, "non-empty list of column names"),
    ({"k_map": {"k": 3}}, "needs either 'subset'"),
    ({"k_map": {"k": 3, "subset": "a.csv", "population": 100}}, "not both"),
    ({"k_map": {"k": 3, "subset": "a.csv", "estimator": "poisson"}},
     "estimator applies to an estimated population ('population') only"),
    ({"k_map": {"k": 3, "population": 100, "significance": 1.0}}, "significance must be in [0, 1)"),
    ({"k_map": {"k": 0, "population": 100}}, "k must be at least 1"),
    ({"k_map": {"k": 3, "subset": "a.csv"}, "delta_presence": {"subset": "b.csv", "delta_max": 0.5}},
     "name different research subsets"),
])
def test_bad_model_tables_are_one_line_errors(privacy, message) -> None:
    with pytest.raises(ConfigError) as err:
        study_from_dict({"data": {"path": "unused.csv"}, "privacy": {"k": 2, **privacy}})
    assert message in str(err.value) and "\n" not in str(err.value)


def test_models_on_the_data_name_the_problem() -> None:
    """An (α, k) value the attribute never takes, a k-map population smaller than the data, a population table
    without a subset: one-line errors naming the key."""
    ds = _table(1)
    for privacy, message in [
        ({"alpha_k": {"attribute": "u", "alpha": 0.5, "values": ["w"]}}, "privacy.alpha_k.values: 'u' has none of 'w'"),
        ({"k_map": {"k": 3, "population": 10}}, "privacy.k_map.population 10 is smaller than the 36 records"),
        ({"k_map": {"k": 3, "subset": "unused.csv"}}, "privacy.k_map: the data is not a research subset"),
        ({"beta_likeness": {"attribute": ["s", "q0"], "beta": 1}}, "'q0' has role 'quasi'"),
    ]:
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
            admissibility_for(_study(privacy, 1, 0.0), ds)


def test_a_model_on_two_attributes_reaches_the_cli_json_and_describes_both(tmp_path, capsys) -> None:
    """``attribute = ["s", "u"]`` through the CLI: one entry in ``privacy_models`` listing both attributes, whose
    description names both; ``--set`` reaches its β."""
    import json

    from workbench import cli

    ds = _table(3, n=40)
    ds.frame.to_csv(tmp_path / "data.csv", index=False)
    config = ["[data]", 'path = "data.csv"']
    for q in ds.quasi_identifiers:
        (tmp_path / f"{q}.csv").write_text(ds.hierarchies[q].to_arx())
        config += [f"[attributes.{q}]", 'role = "quasi"', f'hierarchy = "{q}.csv"']
    config += ["[attributes.s]", 'role = "sensitive"', "[attributes.u]", 'role = "sensitive"', "[privacy]", "k = 2",
               "max_suppression = 0.2", "[privacy.beta_likeness]", 'attribute = ["s", "u"]', "beta = 1",
               "[engine]", 'algorithm = "bnb"', 'objective = "dm"']
    (tmp_path / "study.toml").write_text("\n".join(config) + "\n")
    code = cli.main(["run", str(tmp_path / "study.toml"), "--set", "privacy.beta_likeness.beta=2.5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    model = out["privacy_models"]["beta_likeness"]
    assert model["attribute"] == ["s", "u"] and model["beta"] == 2.5 and model["holds"] is True
    assert model["description"] == "basic 2.5-likeness of s and basic 2.5-likeness of u"


# ------------------------------------------------------------------------------------------ in plain words
def _said(model: dict, ds: Dataset) -> list[str]:
    """What a reader must find in the model's words: the attributes, and its figures restated from the definition
    (β-likeness: p ≤ (1 + β) q; δ-disclosure: 2^−δ < p / q < 2^δ; (α, k): α as a percentage and k; k-map: k people
    and the k' records that stand for them)."""
    kind = model["kind"]
    if kind == "k_map":
        derived = ref_derived_k(model["k"], ds.n, model["population"], model["estimator"], model["significance"])
        return [f"at least {model['k']} people", f"at least {derived} records", f"{model['population']:,}"]
    out: list[str] = []
    if kind in ("basic", "enhanced"):
        out.append(f"at most {1 + model['beta']:g} times as common")
    if kind == "enhanced":
        out.append("−ln")
    if kind == "disclosure":
        out += [f"less than {2 ** model['delta']:.3g} times", f"more than {2 ** -model['delta']:.3g} times"]
    if kind == "alpha":
        out += [f"more than {100 * model['alpha']:g} %"]
        out += [f"at least {k} records" for k in [model.get("k", 1)] if k > 1]
        out += [f"= {v}" for v in model.get("values", [])]
    if kind == "distinct":
        out.append(f"at least {model['l']} different values")
    return out


@pytest.mark.parametrize("name", list(MODELS))
def test_every_model_is_said_in_plain_words(name) -> None:
    """The report's first page states each model in words for a reader who is not an engineer (``in_words``): not
    the rule's formula, and with the attributes and the figures the definition gives; a model on two attributes
    says each."""
    ds = _table(2)
    tables, model, _ = MODELS[name]
    [built] = admissibility_for(_study(tables, 1, 0.0), ds).models
    words = built.in_words()
    assert words != built.describe() and "group of look-alike rows" in words
    assert all(part in words for part in _said(model, ds)), (words, _said(model, ds))
    assert all(re.search(rf"\b(of {a}\b|{a} = )", words) for a in model.get("attributes", [])), words
    assert words.count("group of look-alike rows") == len(model.get("attributes", [None]))


def test_k_map_against_a_population_table_is_said_in_words() -> None:
    rng = np.random.default_rng(4)
    frame, hierarchies = random_quasi_columns(rng, 30)
    population = pd.DataFrame(frame)
    rows = np.arange(0, 30, 3)
    ds = Dataset.create(population.iloc[rows].reset_index(drop=True), {q: "quasi" for q in hierarchies},
                        hierarchies, source="subset", population=Population(population, rows))
    [built] = admissibility_for(_study({"k_map": {"k": 4, "subset": "unused.csv"}}, 1, 0.0), ds).models
    assert "at least 4 people of the population (30 people, of whom 10 are in the data)" in built.in_words()


def test_the_reports_first_page_says_each_model_in_words(tmp_path) -> None:
    """A run under β-likeness on two attributes and (α, k)-anonymity: the summary's guarantee has one promise per
    model, in the model's words, holding as re-verified from the released table."""
    import workbench as wb
    from workbench.report import build_summary

    ds = _table(3, n=40)
    ds.frame.to_csv(tmp_path / "data.csv", index=False)
    attributes = {q: {"role": "quasi", "hierarchy": f"{q}.csv"} for q in ds.quasi_identifiers}
    for q in ds.quasi_identifiers:
        (tmp_path / f"{q}.csv").write_text(ds.hierarchies[q].to_arx())
    raw = {"data": {"path": "data.csv"},
           "attributes": attributes | {"s": {"role": "sensitive"}, "u": {"role": "sensitive"}},
           "privacy": {"k": 2, "max_suppression": 0.2, "beta_likeness": {"attribute": ["s", "u"], "beta": 2.0},
                       "alpha_k": {"attribute": "u", "alpha": 0.8}},
           "engine": {"algorithm": "bnb", "objective": "loss"}}
    study = study_from_dict(raw, base_dir=tmp_path)
    result = wb.run(study)
    promises = {p.name: p for p in build_summary(study, result).guarantee}
    for spec, model in zip(study.privacy_models, admissibility_for(study, result.dataset).models, strict=True):
        promise = promises[model.describe()]
        assert promise.words == model.in_words() and promise.holds is True, spec.kind
    assert "each value of s is at most 3 times as common" in promises[
        "basic 2-likeness of s and basic 2-likeness of u"].words


# ------------------------------------------------------------------------------------------ monotonicity
def _classes_at(ds: Dataset, node: tuple[int, ...]) -> list[list[int]]:
    qis = ds.quasi_identifiers
    paths = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    classes: dict[tuple[str, ...], list[int]] = {}
    for i in range(ds.n):
        classes.setdefault(tuple(paths[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True)),
                           []).append(i)
    return list(classes.values())


def _successors(ds: Dataset, node: tuple[int, ...]):
    for j, q in enumerate(ds.quasi_identifiers):
        if node[j] < ds.hierarchies[q].height:
            yield node[:j] + (node[j] + 1,) + node[j + 1:]


@pytest.mark.parametrize("name", list(MODELS))
def test_declared_monotonicity_is_the_models_by_brute_force(name) -> None:
    """What the lattice searches are told (``monotone_with_suppression``, ``monotone_with_generalization``) against the
    definition, on every node and each of its direct generalizations of random tables, with k = 1 and 2 (ARX's
    semantics: a class smaller than k or breaking the model is suppressed). Monotone with suppression: a record
    suppressed at a generalization is suppressed below it (so "admissible" goes up the lattice at any limit, with k
    or any other such model beside it); monotone with generalization: a node that suppresses nothing has
    generalizations that suppress nothing. A flag declared False is so for a reason: the brute force finds a
    counterexample on these tables (the searches would otherwise be refused without need)."""
    tables, model, _ = MODELS[name]
    counterexample = {"suppression": False, "generalization": False}
    for seed, n in itertools.product(range(5), (12, 24, 36)):
        ds = _table(seed, n=n)
        if model["kind"] == "k_map":
            model = model | {"derived": ref_derived_k(model["k"], ds.n, model["population"], model["estimator"],
                                                      model["significance"])}
        [built] = admissibility_for(_study(tables, 1, 0.0), ds).models
        whole = {a: ds.frame[a].tolist() for a in ("s", "u")}
        nodes = list(itertools.product(*(range(ds.hierarchies[q].height + 1) for q in ds.quasi_identifiers)))
        classes = {node: _classes_at(ds, node) for node in nodes}
        for k in (1, 2):
            suppressed = {node: {i for c in cs if len(c) < k or ref_violates(
                model, {a: [whole[a][i] for i in c] for a in whole}, whole, len(c)) for i in c}
                for node, cs in classes.items()}
            for node in nodes:
                for above in _successors(ds, node):
                    subset = suppressed[above] <= suppressed[node]
                    kept = bool(suppressed[node]) or not suppressed[above]
                    assert subset or not built.monotone_with_suppression, (seed, n, k, node, above)
                    assert kept or not built.monotone_with_generalization, (seed, n, k, node, above)
                    counterexample["suppression"] |= not subset
                    counterexample["generalization"] |= not kept
    assert counterexample == {"suppression": not built.monotone_with_suppression,
                              "generalization": not built.monotone_with_generalization}
