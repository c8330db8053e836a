"""Privacy models beyond k (workbench.privacy): each model against an independent per-class reference on random
tables, the optimum of every lattice search against a brute force over all nodes (pruning only where the
rule is monotone), the re-verified release, and ARX's published optima on Adult (its JUnit expectations)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy.special import digamma

from tests._engine_checks import assert_searches_find_the_reference
from tests._random_tables import random_quasi_columns
from workbench import study as S
from workbench.config import study_from_dict
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.privacy.build import admissibility_for
from workbench.release import Release

# ------------------------------------------------------------------------------------------ reference models


def ref_entropy(values: list[str], estimator: str) -> float:
    """Entropy of a class's values in bits, written from the definitions (Shannon; Grassberger 2003 eq. 35 with
    G for the logarithm of N too, as ARX's ``EntropyLDiversity``)."""
    counts = list(Counter(values).values())
    n = sum(counts)
    if estimator == "shannon":
        return -sum(c / n * math.log2(c / n) for c in counts)
    def g(c: int) -> float:  # Grassberger's G, ARX's ψ: H = G(N) − (1/N) Σ n_i G(n_i)
        return digamma(c) + 0.5 * (-1) ** c * (digamma((c + 1) / 2) - digamma(c / 2))

    return (g(n) - sum(c * g(c) for c in counts) / n) / math.log(2)


def ref_emd_hierarchical(cls: list[str], table: list[str], paths: dict[str, tuple[str, ...]]) -> float:
    """Li et al. 2007 §5: recursive over the hierarchy tree, cost(N) = height(N)/H · min(pos, neg)."""
    height = len(next(iter(paths.values()))) - 1
    p, q = Counter(table), Counter(cls)
    extra_leaf = {v: p[v] / len(table) - q[v] / len(cls) for v in paths}
    cost = 0.0

    def extra(level: int, label: str) -> float:
        nonlocal cost
        if level == 0:
            return extra_leaf[label]
        children = {path[level - 1] for path in paths.values() if path[level] == label}
        parts = [extra(level - 1, c) for c in sorted(children)]
        pos, neg = sum(x for x in parts if x > 0), -sum(x for x in parts if x < 0)
        cost += level / height * min(pos, neg)
        return pos - neg

    extra(height, next(iter(paths.values()))[height])
    return cost


def ref_violates(model: dict, cls: list[str], table: list[str], paths: dict[str, tuple[str, ...]]) -> bool:
    kind = model["kind"]
    counts = sorted(Counter(cls).values(), reverse=True)
    if kind == "distinct":
        return len(counts) < model["l"]
    if kind == "entropy":
        return len(counts) < math.ceil(model["l"]) or ref_entropy(cls, model["estimator"]) < math.log2(model["l"]) \
            - 1e-12
    if kind == "recursive":
        return len(counts) < model["l"] or not counts[0] < model["c"] * sum(counts[model["l"] - 1:])
    p, q = Counter(table), Counter(cls)
    values = sorted(set(table))
    if kind == "equal":
        return 0.5 * sum(abs(p[v] / len(table) - q[v] / len(cls)) for v in values) > model["t"] + 1e-12
    if kind == "ordered":
        running, total = 0.0, 0.0
        for v in values:
            running += q[v] / len(cls) - p[v] / len(table)
            total += abs(running)
        return total / (len(values) - 1) > model["t"] + 1e-12 if len(values) > 1 else False
    return ref_emd_hierarchical(cls, table, paths) > model["t"] + 1e-12


CONFIG = {
    "distinct": {"l_diversity": {"attribute": "s", "variant": "distinct", "l": 2}},
    "entropy": {"l_diversity": {"attribute": "s", "variant": "entropy", "l": 1.8}},
    "grassberger": {"l_diversity": {"attribute": "s", "variant": "entropy", "l": 2.0, "estimator": "grassberger"}},
    "recursive": {"l_diversity": {"attribute": "s", "variant": "recursive", "l": 2, "c": 1.5}},
    "equal": {"t_closeness": {"attribute": "s", "variant": "equal", "t": 0.35}},
    "ordered": {"t_closeness": {"attribute": "s", "variant": "ordered", "t": 0.3}},
    "hierarchical": {"t_closeness": {"attribute": "s", "variant": "hierarchical", "t": 0.3}},
}
REF = {
    "distinct": {"kind": "distinct", "l": 2}, "entropy": {"kind": "entropy", "l": 1.8, "estimator": "shannon"},
    "grassberger": {"kind": "entropy", "l": 2.0, "estimator": "grassberger"},
    "recursive": {"kind": "recursive", "l": 2, "c": 1.5}, "equal": {"kind": "equal", "t": 0.35},
    "ordered": {"kind": "ordered", "t": 0.3}, "hierarchical": {"kind": "hierarchical", "t": 0.3},
}


def _table(seed: int, n: int = 36) -> tuple[Dataset, dict[str, tuple[str, ...]]]:
    """Two or three quasi-identifiers and a sensitive attribute ``s`` (numbers 1..5, with a hierarchy)."""
    rng = np.random.default_rng(seed)
    frame, hierarchies = random_quasi_columns(rng, n)
    s_values = [str(v) for v in range(1, 6)]
    frame["s"] = [s_values[i] for i in rng.choice(5, size=n, p=rng.dirichlet(np.ones(5)))]
    s_rows = [[v, "low" if int(v) <= 2 else "high", "*"] for v in s_values]
    from workbench.hierarchy.tree import Hierarchy

    hierarchies["s"] = Hierarchy.from_rows(s_rows, name="s")
    roles = {q: "quasi" for q in frame if q != "s"} | {"s": "sensitive"}
    ds = Dataset.create(pd.DataFrame(frame), roles, hierarchies, source="random")
    return ds, {r[0]: tuple(r) for r in s_rows}


def _study(models: dict, k: int, sup: float, algorithm: str = "exhaustive", objective: str = "dm"):
    raw = {"data": {"path": "unused.csv"}, "privacy": {"k": k, "max_suppression": sup, **models},
           "engine": {"algorithm": algorithm, "objective": objective}, "measures": {"compare": [objective]}}
    return study_from_dict(raw)


def _reference(ds: Dataset, paths, model: dict, k: int, sup: float) -> dict[tuple[int, ...], tuple[bool, dict]]:
    """Per node: admissible? and its DM (kept classes Σ|E|² + n per suppressed record) and DM* (Σ|E|² over all
    classes), from the records."""
    out = {}
    limit = math.floor(sup * ds.n + 1e-9)
    qis = ds.quasi_identifiers
    rows = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    table = ds.frame["s"].tolist()
    for node in itertools.product(*(range(ds.hierarchies[q].height + 1) for q in qis)):
        classes: dict[tuple[str, ...], list[str]] = {}
        for i in range(ds.n):
            key = tuple(rows[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
            classes.setdefault(key, []).append(table[i])
        suppressed = sum(len(c) for c in classes.values() if len(c) < k or ref_violates(model, c, table, paths))
        kept = sum(len(c) ** 2 for c in classes.values() if not (len(c) < k or ref_violates(model, c, table, paths)))
        out[node] = (suppressed <= limit, {"dm": float(kept + ds.n * suppressed),
                                           "dm_star": float(sum(len(c) ** 2 for c in classes.values()))})
    return out


CASES = [(name, seed, k, sup) for name in CONFIG for seed, k, sup in [(1, 2, 0.0), (2, 1, 0.1), (3, 3, 0.2)]]


@pytest.mark.parametrize(("name", "seed", "k", "sup"), CASES)
def test_every_search_finds_the_brute_force_optimum(name: str, seed: int, k: int, sup: float) -> None:
    """The optimum over every node that satisfies k, the model and the limit, computed from the records with the
    reference model, equals each search's (DM, non-monotone, for exhaustive, bnb and Incognito; DM* for Flash
    and OLA, which need a monotone objective); searches that need monotone admissibility run only when the model
    is monotone at this limit, and refuse (naming the model) otherwise."""
    ds, paths = _table(seed)
    ref = _reference(ds, paths, REF[name], k, sup)
    rule = admissibility_for(_study(CONFIG[name], k, sup), ds)
    evaluator = NodeEvaluator(ds.encoded, k, sup, rule)
    assert {node: evaluator.evaluate(node).admissible for node in ref} == {node: ok for node, (ok, _) in ref.items()}
    monotone = rule.monotone
    assert monotone == (name == "distinct" or (sup * ds.n < 1 and name != "grassberger"))
    assert_searches_find_the_reference(ref, ds, lambda algorithm, objective: _study(CONFIG[name], k, sup, algorithm,
                                                                                  objective),
                                       monotone, "not monotone")


@pytest.mark.parametrize("name", list(CONFIG))
def test_release_suppresses_violating_classes_and_verification_rechecks(name: str) -> None:
    """The release of a node suppresses exactly the reference's violating classes; verification re-checks every
    model from the released table and says which hold."""
    ds, paths = _table(7, n=40)
    study = _study(CONFIG[name], 2, 1.0)
    rule = admissibility_for(study, ds)
    table = ds.frame["s"].tolist()
    for node in [(0,) * len(ds.quasi_identifiers), (1,) * len(ds.quasi_identifiers)]:
        release = Release.from_node(ds, node, 2, 1.0, "test", rule)
        labels = release.labels[ds.quasi_identifiers].astype(str).agg("|".join, axis=1).tolist()
        groups: dict[str, list[int]] = {}
        for i, key in enumerate(labels):
            groups.setdefault(key, []).append(i)
        expected = np.zeros(ds.n, dtype=bool)
        for members in groups.values():
            values = [table[i] for i in members]
            if len(members) < 2 or ref_violates(REF[name], values, table, paths):
                expected[members] = True
        assert np.array_equal(release.suppressed, expected)
        guarantee = release.verify()
        assert guarantee.holds and all(guarantee.models.values()) and len(guarantee.models) == 1


def test_verification_catches_a_class_that_violates_the_model() -> None:
    """A release whose suppressed mask was tampered with (a violating class kept) fails verification."""
    ds, _ = _table(11, n=40)
    rule = admissibility_for(_study({"l_diversity": {"attribute": "s", "variant": "distinct", "l": 5}}, 1, 1.0), ds)
    release = Release.from_node(ds, (0,) * len(ds.quasi_identifiers), 1, 1.0, "test", rule)
    assert release.suppressed.any()
    from dataclasses import replace

    tampered = replace(release, suppressed=np.zeros(ds.n, dtype=bool))
    guarantee = tampered.verify()
    assert not guarantee.holds and guarantee.models == {"distinct-5-diversity of s": False}


def test_risk_threshold_suppresses_smallest_classes_within_the_limit() -> None:
    """Sample uniqueness <= 0: every class of one record is suppressed, smallest first, when the limit allows."""
    ds, _ = _table(5, n=36)
    risk = {"risk": {"model": "sample_uniqueness", "threshold": 0.0001}}
    node = (0,) * len(ds.quasi_identifiers)
    sizes = NodeEvaluator(ds.encoded, 1, 0.0).direct(node).counts
    uniques = int((sizes == 1).sum())
    assert uniques > 0
    for sup, ok in [(uniques / ds.n, True), ((uniques - 1) / ds.n, False)]:
        rule = admissibility_for(_study(risk, 1, sup), ds)
        e = NodeEvaluator(ds.encoded, 1, sup, rule).evaluate(node)
        assert e.admissible is ok
        if ok:
            assert e.suppressed == uniques


# ------------------------------------------------------------------------------------------ ARX's expectations
# TestAnonymizationLDiversity, -EntropyLDiversity, -TCloseness, -OrderedDistanceTCloseness and -Combinations
# (arx-deidentifier/arx, src/test/org/deidentifier/arx/test/): Adult with occupation sensitive and the other eight
# attributes quasi-identifiers (ARX's order = the embedded sample's). ARX's metrics map to measure ids:
# createNMEntropyMetric / createPrecomputedEntropyMetric(0.1, false) = entropy_nm, createEntropyMetric(true) =
# entropy, createDiscernabilityMetric(true) = dm_star. Each row: models, k, suppression, measure, node, value.
LD5 = {"attribute": "occupation", "variant": "entropy", "l": 5}
HIER = {"t_closeness": {"attribute": "occupation", "variant": "hierarchical", "t": 0.2}}
ARX_CASES = [
    pytest.param({"l_diversity": LD5}, 1, 0.04, "entropy_nm", (1, 0, 1, 1, 2, 2, 2, 1), 228878.2039109519,
                 id="LDiversity#0 entropy-5 4%"),
    pytest.param({"l_diversity": LD5}, 1, 0.0, "entropy_nm", (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918695,
                 id="LDiversity#2 entropy-5 0%"),
    pytest.param({"l_diversity": LD5 | {"l": 100}}, 1, 0.04, "entropy_nm", None, None,
                 id="LDiversity#1 entropy-100 none"),
    pytest.param({"l_diversity": LD5 | {"estimator": "grassberger"}}, 1, 0.0, "entropy_nm", (1, 1, 1, 1, 3, 2, 2, 1),
                 324620.5269918692, id="EntropyLDiversity#2 grassberger-5 0%"),
    pytest.param({"l_diversity": {"attribute": "occupation", "variant": "recursive", "l": 5, "c": 4.0}}, 1, 0.0,
                 "entropy", (1, 1, 1, 1, 3, 2, 2, 1), 324620.5269918695, id="Combinations#8 recursive-(4,5)"),
    pytest.param({"t_closeness": {"attribute": "occupation", "variant": "equal", "t": 0.2}}, 5, 0.04, "dm_star",
                 (1, 4, 1, 0, 3, 2, 2, 1), 3.11880088E8, id="TCloseness#0 equal 4%"),
    pytest.param({"t_closeness": {"attribute": "occupation", "variant": "equal", "t": 0.2}}, 5, 0.0, "dm_star",
                 (1, 4, 1, 1, 3, 2, 2, 1), 4.56853172E8, id="TCloseness#4 equal 0%"),
    pytest.param(HIER, 5, 0.04, "entropy", (1, 4, 0, 0, 3, 2, 2, 1), 377622.78458729305,
                 id="TCloseness#2 hierarchical 4%"),
    pytest.param(HIER, 5, 0.0, "entropy", (0, 4, 1, 1, 3, 2, 2, 1), 398400.0741806447,
                 id="TCloseness#6 hierarchical 0%"),
    pytest.param(HIER, 1, 0.0, "entropy", (0, 4, 1, 1, 3, 2, 2, 1), 398400.07418064494,
                 id="Combinations#6 hierarchical, no k"),
    pytest.param({"t_closeness": {"attribute": "occupation", "variant": "ordered", "t": 0.2}}, 5, 0.04, "dm_star",
                 (0, 0, 1, 1, 2, 2, 2, 0), 2712340.0, id="OrderedDistanceTCloseness#0"),
    pytest.param({"t_closeness": {"attribute": "occupation", "variant": "ordered", "t": 0.1}}, 5, 0.0, "dm_star",
                 (1, 1, 1, 2, 3, 2, 2, 1), 9.786802E7, id="OrderedDistanceTCloseness#2"),
    pytest.param({"t_closeness": {"attribute": "occupation", "variant": "ordered", "t": 0.2}}, 100, 0.0, "dm_star",
                 (1, 4, 1, 1, 1, 2, 2, 1), 1.6231213E8, id="OrderedDistanceTCloseness#3"),
]


@pytest.fixture(scope="module")
def adult_sensitive():
    study = study_from_dict({"data": {"sample": "adult"}, "attributes": {"occupation": {"role": "sensitive"}}})
    return S.load_dataset(study)


@pytest.mark.parametrize(("models", "k", "sup", "measure", "node", "value"), ARX_CASES)
def test_arx_junit_optimum(adult_sensitive, models, k, sup, measure, node, value) -> None:
    """ARX's optimum node and its score (relative 1e-9), found by branch-and-bound (optimal for every rule)."""
    raw = {"data": {"sample": "adult"}, "attributes": {"occupation": {"role": "sensitive"}},
           "privacy": {"k": k, "max_suppression": sup, **models},
           "engine": {"algorithm": "bnb", "objective": measure}, "measures": {"compare": [measure]}}
    result = S.search(study_from_dict(raw), adult_sensitive)
    assert result.optimum == node
    if node is not None:
        assert result.value == pytest.approx(value, rel=1e-9)


# ------------------------------------------------------------------------------------------ config, CLI, JSON
def test_set_overrides_a_model_scalar_and_the_cli_reports_models_and_risk(tmp_path, capsys) -> None:
    """``--set privacy.l_diversity.l=...`` reaches the model; ``run --json`` says which models hold and gives the
    release's risk after suppression (the suppressed records one group of ``*``), checked by a direct count."""
    import json

    from workbench import cli

    ds, _ = _table(3, n=40)
    ds.frame.to_csv(tmp_path / "data.csv", index=False)
    config = ["[data]", 'path = "data.csv"']
    for q in ds.quasi_identifiers:
        (tmp_path / f"{q}.csv").write_text(ds.hierarchies[q].to_arx())
        config += [f"[attributes.{q}]", 'role = "quasi"', f'hierarchy = "{q}.csv"']
    config += ["[attributes.s]", 'role = "sensitive"', "[privacy]", "k = 2", "max_suppression = 0.2",
               "[privacy.l_diversity]", 'attribute = "s"', 'variant = "distinct"', "l = 2",
               "[engine]", 'algorithm = "flash"', 'objective = "dm_star"', "[measures]", 'compare = ["dm_star"]']
    (tmp_path / "study.toml").write_text("\n".join(config) + "\n")
    code = cli.main(["run", str(tmp_path / "study.toml"), "--set", "privacy.l_diversity.l=3", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    model = out["privacy_models"]["l_diversity"]
    assert model["l"] == 3 and model["holds"] is True and model["description"] == "distinct-3-diversity of s"
    # the release, rebuilt by hand: classes of the node, suppressed when < 2 records or < 3 distinct values
    node = tuple(out["transformation"][q] for q in ds.quasi_identifiers)
    rows = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in ds.quasi_identifiers}
    keys = [tuple(rows[q][ds.frame[q].iat[i]][v] for q, v in zip(ds.quasi_identifiers, node, strict=True))
            for i in range(ds.n)]
    members: dict[tuple, list[int]] = {}
    for i, key in enumerate(keys):
        members.setdefault(key, []).append(i)
    kept = [len(m) for m in members.values() if len(m) >= 2 and len({ds.frame["s"].iat[i] for i in m}) >= 3]
    suppressed = ds.n - sum(kept)
    assert out["suppressed"] == suppressed
    sizes = kept + ([suppressed] if suppressed else [])
    assert out["risk"]["records"] == ds.n and out["risk"]["groups"] == len(sizes)  # the suppressed: one group
    assert out["risk"]["classes"] == out["classes"] == len(kept) and out["risk"]["suppressed"] == suppressed
    assert out["risk"]["prosecutor"]["highest"] == pytest.approx(1 / min(sizes))
    assert out["risk"]["prosecutor"]["average"] == pytest.approx(len(sizes) / ds.n)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_average_risk_threshold_without_suppression_by_brute_force(seed: int) -> None:
    """Average risk <= 0.2 with no suppression: admissible iff every class has k records and classes/records <= 0.2
    (a rule monotone with generalization, so Flash and OLA may prune); every search finds the brute-force DM*
    optimum."""
    ds, _ = _table(seed)
    qis = ds.quasi_identifiers
    rows = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    values = {}
    for node in itertools.product(*(range(ds.hierarchies[q].height + 1) for q in qis)):
        sizes = Counter(tuple(rows[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
                        for i in range(ds.n)).values()
        if min(sizes) >= 2 and len(sizes) / ds.n <= 0.2:
            values[node] = float(sum(c * c for c in sizes))
    best = min(values, key=lambda node: (values[node], sum(node), node)) if values else None
    risk = {"risk": {"model": "average", "threshold": 0.2}}
    for algorithm in ["exhaustive", "bnb", "incognito", "flash", "ola"]:
        result = S.search(_study(risk, 2, 0.0, algorithm, "dm_star"), ds, algorithm)
        assert result.optimum == best, algorithm


def test_config_hierarchy_on_a_sensitive_attribute_drives_hierarchical_t_closeness(tmp_path) -> None:
    """``hierarchy = ...`` on an attribute with role "sensitive" is accepted, keeps the role, and is the ground
    distance of hierarchical t-closeness: the run's release is the one the reference EMD predicts."""
    from workbench.config import load_study

    ds, paths = _table(4, n=40)
    ds.frame.to_csv(tmp_path / "data.csv", index=False)
    config = ["[data]", 'path = "data.csv"']
    for q in [*ds.quasi_identifiers, "s"]:
        (tmp_path / f"{q}.csv").write_text(ds.hierarchies[q].to_arx())
        config += [f"[attributes.{q}]", f'role = "{"sensitive" if q == "s" else "quasi"}"', f'hierarchy = "{q}.csv"']
    config += ["[privacy]", "k = 1", "max_suppression = 0.3", "[privacy.t_closeness]", 'attribute = "s"',
               'variant = "hierarchical"', "t = 0.3", "[engine]", 'algorithm = "bnb"', 'objective = "dm"']
    (tmp_path / "study.toml").write_text("\n".join(config) + "\n")
    study = load_study(tmp_path / "study.toml")
    loaded = S.load_dataset(study)
    assert loaded.roles["s"] == "sensitive" and "s" not in loaded.quasi_identifiers
    result = S.run(study, loaded)
    ref = _reference(ds, paths, REF["hierarchical"], 1, 0.3)
    admissible = {node: values["dm"] for node, (ok, values) in ref.items() if ok}
    best = min(admissible, key=lambda node: (admissible[node], sum(node), node))
    assert result.search is not None and result.search.optimum == best
    assert result.guarantee is not None and result.guarantee.holds


@pytest.mark.parametrize(("name", "sup"), [(name, sup) for name in CONFIG for sup in (0.0, 0.2)])
def test_policy_privacy_refusal_is_the_refusal_the_search_raises(name: str, sup: float) -> None:
    """The app asks ``policy.privacy_refusal`` before a run: it names the same refusal the search raises, for
    every algorithm, and none where the search runs."""
    from workbench.policy import privacy_refusal

    ds, _ = _table(1)
    for algorithm in ["exhaustive", "bnb", "incognito", "flash", "ola", "samarati"]:
        objective = "dm_star" if algorithm in ("flash", "ola", "samarati") else "dm"
        study = _study(CONFIG[name], 2, sup, algorithm, objective)
        refusal = privacy_refusal(study, ds, algorithm)
        try:
            S.search(study, ds, algorithm)
        except ConfigError as exc:
            assert refusal == str(exc), algorithm
        else:
            assert refusal is None, algorithm


def test_grassberger_g_is_arx_table_and_expansion() -> None:
    """G(n) equals ARX's precomputed G_1, G_2, G_10, G_100 (``EntropyLDiversity.G_PRECOMPUTED``), G(2m+1) = G(2m),
    and above 100 ARX's expansion, within 1e-12 of the digamma form."""
    from workbench.privacy.l_diversity import grassberger_g

    arx = {1: -1.2703628454614782, 2: 0.7296371545385218, 10: 2.3042403291416966, 100: 4.605186851488337}
    assert grassberger_g(np.array(list(arx))) == pytest.approx(list(arx.values()), rel=1e-14)
    n = np.arange(1, 400)
    g = grassberger_g(n)
    assert g[n % 2 == 1][1:] == pytest.approx(g[n % 2 == 0][: (n % 2 == 1).sum() - 1], rel=1e-14)  # G(2m+1) = G(2m)
    exact = digamma(n) + 0.5 * np.where(n % 2 == 0, 1, -1) * (digamma((n + 1) / 2) - digamma(n / 2))
    assert g == pytest.approx(exact, abs=1e-12)


GRASSBERGER_DIFFERENCE = [
    pytest.param(0.04, 5, (1, 0, 1, 0, 3, 2, 2, 0), 216092.124036387, id="EntropyLDiversity#0"),
    pytest.param(0.05, 3, (0, 0, 1, 1, 2, 2, 2, 0), 180347.4325366015, id="EntropyLDiversity#3"),
]


@pytest.mark.parametrize(("sup", "ell", "node", "value"), GRASSBERGER_DIFFERENCE)
def test_grassberger_differs_from_arx_only_by_its_early_exit(adult_sensitive, sup, ell, node, value) -> None:
    """ARX's check stops as soon as the running Σ n_i G(n_i) exceeds N (G(N) − ln ℓ), in its hash table's order;
    G(1) < 0, so a later value seen once can bring the sum back under the bound: ARX then rejects a class whose
    estimate is ≥ ln ℓ. Emulating that exit (values in code order) gives ARX's optimum node; the scores then depend
    on ARX's table order, so only the node is compared. The workbench checks the whole sum: every class ARX
    accepts, and more, so its optimum is at least as good as ARX's."""
    from workbench.privacy import l_diversity as LD

    def early_exit(self, view):
        cls, _, cnt = view.pairs(self.key)
        terms = cnt * LD.grassberger_g(cnt)
        starts = np.searchsorted(cls, np.arange(view.classes))
        running = np.cumsum(terms) - np.concatenate([[0.0], np.cumsum(terms)])[starts][cls]
        worst = np.full(view.classes, -np.inf)
        np.maximum.at(worst, cls, running)
        bound = view.sizes * (LD.grassberger_g(view.sizes) - np.log(self.l))
        return (self.distinct(view) < self.min_size) | (worst > bound)

    raw = {"data": {"sample": "adult"}, "attributes": {"occupation": {"role": "sensitive"}},
           "privacy": {"k": 1, "max_suppression": sup,
                       "l_diversity": {"attribute": "occupation", "variant": "entropy", "l": ell,
                                       "estimator": "grassberger"}},
           "engine": {"algorithm": "bnb", "objective": "entropy_nm"}, "measures": {"compare": ["entropy_nm"]}}
    ours = S.search(study_from_dict(raw), adult_sensitive)
    assert ours.optimum != node and ours.value < value
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LD.EntropyLDiversity, "violating", early_exit)
        arx_like = S.search(study_from_dict(raw), adult_sensitive)
    assert arx_like.optimum == node and arx_like.value == pytest.approx(value, rel=5e-3)
