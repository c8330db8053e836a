"""Which privacy models each lattice node satisfies (``model_satisfaction.model_satisfaction``, the Lattice page's
"Colour by" a model): against a brute force on small random tables, node by node, from each rule's own release
(``Release.from_node``) re-verified from the released table, and for ℓ-diversity and t-closeness also against the
per-class reference written from the definitions (tests/test_privacy.py)."""

from __future__ import annotations

import itertools
import math

import pandas as pd
import pytest

from tests.test_delta_presence import _population, _subset_dataset
from tests.test_delta_presence import _study as _delta_study
from tests.test_privacy import REF, _study, _table, ref_violates
from workbench.data import Dataset
from workbench.privacy.base import Admissibility
from workbench.privacy.build import admissibility_for
from workbench.release import Release
from workbench.study import evaluator_for
from workbench.views.lattice import lattice_table
from workbench.views.satisfaction import ALL_MODELS, K_ANONYMITY, model_satisfaction, satisfaction_by_height

MODELS = {
    "distinct": {"l_diversity": {"attribute": "s", "variant": "distinct", "l": 2}},
    "entropy+equal": {"l_diversity": {"attribute": "s", "variant": "entropy", "l": 1.8},
                      "t_closeness": {"attribute": "s", "variant": "equal", "t": 0.35}},
    "recursive+hierarchical": {"l_diversity": {"attribute": "s", "variant": "recursive", "l": 2, "c": 1.5},
                               "t_closeness": {"attribute": "s", "variant": "hierarchical", "t": 0.3}},
    "ordered+risk": {"t_closeness": {"attribute": "s", "variant": "ordered", "t": 0.3},
                     "risk": {"model": "average", "threshold": 0.3}},
    "uniqueness": {"risk": {"model": "sample_uniqueness", "threshold": 0.05}},
}
# the reference's name of each class-level model above (tests/test_privacy.py REF)
CLASS_LEVEL = {("distinct", "l_diversity"): "distinct", ("entropy+equal", "l_diversity"): "entropy",
               ("entropy+equal", "t_closeness"): "equal", ("recursive+hierarchical", "l_diversity"): "recursive",
               ("recursive+hierarchical", "t_closeness"): "hierarchical", ("ordered+risk", "t_closeness"): "ordered"}


def _brute_force(ds: Dataset, study, k: int, sup: float) -> dict[str, dict[tuple[int, ...], bool]]:
    """Per rule and node: does the release of the node under that rule alone (k alone, each model alone with k = 1,
    or the whole rule) pass its verification from the released table?"""
    whole = admissibility_for(study, ds)
    rules = {K_ANONYMITY: (k, Admissibility(k, sup, ds.n))}
    for spec, model in zip(study.privacy_models, whole.models, strict=True):
        rules[spec.kind] = (1, Admissibility(1, sup, ds.n, [model]))
    rules[ALL_MODELS] = (k, whole)
    out: dict[str, dict[tuple[int, ...], bool]] = {rule: {} for rule in rules}
    for node in itertools.product(*(range(c.height + 1) for c in ds.encoded)):
        for rule, (rule_k, admissibility) in rules.items():
            release = Release.from_node(ds, node, rule_k, sup, "exhaustive", admissibility)
            out[rule][node] = release.verify().holds
    return out


def _as_dict(sat, names: list[str], rule: str) -> dict[tuple[int, ...], bool]:
    return {tuple(int(v) for v in row[:-1]): bool(row[-1]) for row in sat.table[[*names, rule]].to_numpy()}


CASES = [(name, seed, k, sup) for name in MODELS for seed, k, sup in [(1, 2, 0.0), (2, 1, 0.1), (3, 3, 0.25),
                                                                              (4, 4, 0.05)]]


@pytest.mark.parametrize(("name", "seed", "k", "sup"), CASES)
def test_each_rule_equals_the_verified_release_of_every_node(name: str, seed: int, k: int, sup: float) -> None:
    ds, paths = _table(seed)
    study = _study(MODELS[name], k, sup)
    sat = model_satisfaction(study, ds)
    names = list(ds.quasi_identifiers)
    assert list(sat.rules) == [K_ANONYMITY, *MODELS[name], ALL_MODELS]
    assert len(sat.table) == math.prod(c.height + 1 for c in ds.encoded)
    expected = _brute_force(ds, study, k, sup)
    for rule in sat.rules:
        assert _as_dict(sat, names, rule) == expected[rule], rule
    # the whole rule is the engine's admissibility (the lattice table's column), in the same node order
    table = lattice_table(evaluator_for(study, ds), ["height"])
    assert table["node"].tolist() == sat.table["node"].tolist()
    assert table["k_anonymous"].tolist() == sat.table[ALL_MODELS].tolist()
    # a class-level model alone from its definition: the records of violating classes within the limit
    limit = math.floor(sup * ds.n + 1e-9)
    qis, s = ds.quasi_identifiers, ds.frame["s"].tolist()
    rows = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    for kind in MODELS[name]:
        ref = CLASS_LEVEL.get((name, kind))
        if ref is None:
            continue
        got = _as_dict(sat, names, kind)
        for node in got:
            classes: dict[tuple[str, ...], list[str]] = {}
            for i in range(ds.n):
                key = tuple(rows[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
                classes.setdefault(key, []).append(s[i])
            bad = sum(len(c) for c in classes.values() if ref_violates(REF[ref], c, s, paths))
            assert got[node] == (bad <= limit), (kind, node)


def test_a_node_can_satisfy_each_rule_alone_and_fail_them_together() -> None:
    """The rules alone each spend the whole suppression budget; together they share it. Somewhere on these random
    tables a node satisfies k-anonymity and ℓ-diversity alone but not both (the reason "all models" is its own
    colour), and never the other way round for class-level models."""
    seen = False
    for seed in range(1, 12):
        ds, _ = _table(seed)
        sat = model_satisfaction(_study(MODELS["distinct"], 3, 0.2), ds).table
        alone = sat[K_ANONYMITY] & sat["l_diversity"]
        assert not (sat[ALL_MODELS] & ~alone).any()
        seen |= bool((alone & ~sat[ALL_MODELS]).any())
    assert seen


@pytest.mark.parametrize(("seed", "k", "sup", "low", "high"), [(1, 1, 0.0, 0.0, 0.5), (2, 2, 0.2, 0.0, 0.6),
                                                               (3, 1, 0.3, 0.25, 0.75)])
def test_delta_presence_equals_the_verified_release(seed: int, k: int, sup: float, low: float, high: float) -> None:
    population, hierarchies, rows = _population(seed)
    ds = _subset_dataset(population, hierarchies, rows)
    study = _delta_study(k, sup, low, high)
    sat = model_satisfaction(study, ds)
    assert list(sat.rules) == [K_ANONYMITY, "delta_presence", ALL_MODELS]
    expected = _brute_force(ds, study, k, sup)
    for rule in sat.rules:
        assert _as_dict(sat, list(ds.quasi_identifiers), rule) == expected[rule], rule


def test_by_height_counts_the_nodes_that_satisfy_each_rule() -> None:
    ds, _ = _table(4)
    sat = model_satisfaction(_study(MODELS["entropy+equal"], 2, 0.1), ds)
    summary = satisfaction_by_height(sat)
    assert summary["nodes"].sum() == len(sat.table)
    for _, row in summary.iterrows():
        at = sat.table[sat.table["rank"] == row["rank"]]
        assert row["nodes"] == len(at)
        for rule in sat.rules:
            assert row[rule] == int(at[rule].sum())


@pytest.mark.parametrize("seed", range(8))
def test_risk_enforcement_suppresses_the_shortest_prefix_in_arx_order(seed: int) -> None:
    """Suppressing classes until a risk threshold holds (``Admissibility._enforce``): average risk and sample
    uniqueness only fall as the smallest classes go, so ARX's binary search finds the shortest prefix of the
    classes by size that holds, whatever the limit; among classes of the last size suppressed, those whose first
    record comes first (ARX's representative). Each step's verdict at once (``fulfilled_prefixes``) equals
    ``fulfilled`` on its classes."""
    import numpy as np

    from workbench.privacy.base import ClassView
    from workbench.privacy.risk_thresholds import RiskThreshold

    rng = np.random.default_rng(seed)
    for _ in range(60):
        sizes = rng.integers(1, 6, size=int(rng.integers(1, 40)))
        n = int(sizes.sum())
        first = rng.permutation(n)[:sizes.size]  # each class's first record
        view = ClassView.from_records(np.arange(sizes.size), sizes.size, (), sizes)
        view.first = lambda classes, first=first: first[classes]
        suppress = rng.random(sizes.size) < 0.2
        models = [RiskThreshold("average", float(rng.uniform(0.2, 0.7))),
                  RiskThreshold("sample_uniqueness", float(rng.uniform(0.0, 0.3)))]
        for m in models:
            rule = Admissibility(1, float(rng.uniform(0, 0.6)), n, [m])
            order = [i for i in sorted(range(sizes.size), key=lambda i: (sizes[i], first[i])) if not suppress[i]]
            expected = suppress.copy()
            for i in order:  # the reference: suppress in ARX's order until the model holds
                if m.fulfilled(sizes[~expected], n):
                    break
                expected[i] = True
            assert np.array_equal(rule._enforce(view, suppress, m), expected)
        order = np.argsort(sizes, kind="stable")
        steps = int(rng.integers(0, sizes.size + 1))
        removable, rest = sizes[order[:steps]], sizes[order[steps:]]
        for m in models:
            expected_steps = [m.fulfilled(np.concatenate([rest, removable[p:]]), n) for p in range(1, steps + 1)]
            assert m.fulfilled_prefixes(rest, removable, n).tolist() == expected_steps


def test_arx_binary_search_traced_by_hand() -> None:
    """ARX's ``suppressWhileNotFulfilledBinary`` on 7 classes where the model holds with 2, not with 3 or 4, and
    with 5 or more: suppress 4 (mid = 3): fails; 6: holds; 5: holds; the loop ends at mid = 3, so 4 suppressed,
    which fails, and one more: 5 (not the shortest, 2). A model that holds from p on gives p; nothing to
    suppress gives 0."""
    from workbench.privacy.base import arx_binary_search

    pattern = {1: False, 2: True, 3: False, 4: False, 5: True, 6: True, 7: True}
    asked: list[int] = []

    def holds(p: int) -> bool:
        asked.append(p)
        return pattern[p]

    assert arx_binary_search(7, holds) == 5 and asked == [4, 6, 5, 4]
    for length in range(1, 12):
        for p in range(1, length + 1):
            assert arx_binary_search(length, lambda q, p=p: q >= p) == p
    assert arx_binary_search(0, lambda q: True) == 0


def test_chosen_rules_only_and_the_refusal_of_step_by_step_estimates() -> None:
    """``rules`` computes the columns asked for, the same as in the whole table; a population-uniqueness threshold,
    whose estimator is solved for every suppression step, is refused beyond the budget of evaluations: at once when
    the lattice has more nodes than the budget, else when the steps exhaust it."""
    from workbench.errors import ConfigError

    ds, _ = _table(4)
    models = {**MODELS["entropy+equal"], "risk": {"model": "population_uniqueness", "threshold": 0.5,
                                                  "estimator": "zayatz", "population": 1000}}
    study = _study(models, 2, 0.1)
    whole = model_satisfaction(study, ds, max_estimates=10**6)
    some = model_satisfaction(study, ds, rules=["t_closeness", K_ANONYMITY])
    assert list(some.rules) == [K_ANONYMITY, "t_closeness"]
    pd.testing.assert_frame_equal(some.table, whole.table.drop(columns=["l_diversity", "risk", ALL_MODELS]))
    with pytest.raises(ConfigError, match="no rule 'delta_presence'"):
        model_satisfaction(study, ds, rules=["delta_presence"])
    nodes = len(whole.table)
    for rule in ("risk", ALL_MODELS):
        with pytest.raises(ConfigError, match=f"at least one evaluation per node.*{nodes:,} nodes"):
            model_satisfaction(study, ds, rules=[rule], max_estimates=nodes - 1)
    with pytest.raises(ConfigError, match=f"more than {nodes:,} evaluations"):  # alone (k = 1): many steps per node
        model_satisfaction(study, ds, rules=["risk"], max_estimates=nodes)
    assert model_satisfaction(study, ds, rules=[K_ANONYMITY, "l_diversity"], max_estimates=0).rules
