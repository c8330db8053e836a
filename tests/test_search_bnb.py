"""Best-first branch-and-bound (bnb, Kohlmayer, Prasser et al. 2016): optimal for non-monotone objectives,
prunes by the objective's lower bound, and is anytime under a time limit."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests._examples import examples
from tests._random_tables import random_dataset
from tests._reference_measures import reference_measures
from tests.conftest import ROOT
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import NO_LIMITS, Limits, tie_key
from workbench.lattice.space import Lattice
from workbench.lattice.tagging import TaggedLattice
from workbench.lattice.trace import PRUNED
from workbench.objective import NodeScorer

NON_MONOTONE = ["dm", "loss", "aecs", "entropy_nm", "precision_nm"]


def _case(seed: int):
    rng = np.random.default_rng(1000 + seed)
    ds = random_dataset(1000 + seed, max_rows=120, max_qis=5)
    k = int(rng.integers(2, 8))
    sup = float(rng.choice([0.0, 0.02, 0.05, 0.1, 0.2]))
    return ds, k, sup


def _run(algorithm: str, ds, k: int, sup: float, measure: str, limits: Limits = NO_LIMITS):
    ev = NodeEvaluator(ds.encoded, k, sup)
    return ALGORITHMS[algorithm].search(TaggedLattice(ev), NodeScorer(ev).objective(measure), limits)


def _admissible(ds, k: int, sup: float, node) -> bool:
    e = NodeEvaluator(ds.encoded, k, sup).evaluate(node)
    return e.k_anonymous and e.suppressed <= math.floor(sup * ds.n + 1e-9)


def test_registered_as_optimal_for_any_objective():
    spec = ALGORITHMS["bnb"]
    assert spec.optimal and not spec.requires_monotone


def test_matches_exhaustive_on_non_monotone_objectives():
    """Same node as exhaustive search (value, then height, then lexicographic: ``tie_key``), proven."""
    pruned = 0
    for seed in range(40):
        ds, k, sup = _case(seed)
        for measure in NON_MONOTONE:
            reference = _run("exhaustive", ds, k, sup, measure)
            result = _run("bnb", ds, k, sup, measure)
            context = (seed, k, sup, measure, [c.height for c in ds.encoded])
            assert result.optimum == reference.optimum, context
            if reference.optimum is None:
                assert not result.proven_optimal, context
                continue
            assert tie_key(result.optimum, result.value) == tie_key(reference.optimum, reference.value), context
            assert result.proven_optimal and result.note == "", context
            assert _admissible(ds, k, sup, result.optimum), context
            assert result.checks <= reference.checks, context
            pruned += result.trace.count(PRUNED)
    assert pruned > 0  # the bound does prune on these tables


BRUTE_FORCE_MEASURES = ("dm", "aecs", "precision_nm", "entropy_nm")


def test_optimum_equals_a_brute_force_over_every_admissible_node():
    """bnb's node attains the minimum of each measure over EVERY admissible node of the lattice, each node's
    suppressed count and value computed independently on its generalized labels (tests/_reference_measures),
    although the search prunes: a bound that is not a lower bound, or a prune on a tie, fails this. Every node's
    reference is computed once per table and serves the four measures."""
    pruned = dict.fromkeys(BRUTE_FORCE_MEASURES, 0)
    for seed in range(examples(25)):
        ds, k, sup = _case(seed)
        limit = math.floor(sup * ds.n + 1e-9)
        references = {}
        for node in Lattice(tuple(c.height for c in ds.encoded)).nodes():
            suppressed, reference = reference_measures(ds, node, k)
            if suppressed <= limit:
                references[node] = reference
        for measure in BRUTE_FORCE_MEASURES:
            values = {node: reference[measure] for node, reference in references.items()}
            result = _run("bnb", ds, k, sup, measure)
            context = (seed, k, sup, measure)
            if not values:
                assert result.optimum is None and not result.proven_optimal, context
                continue
            best = min(values.values())
            ties = [n for n, v in values.items() if math.isclose(v, best, rel_tol=1e-9, abs_tol=1e-12)]
            assert result.proven_optimal and result.optimum in ties, context
            assert result.value == pytest.approx(best, rel=1e-9, abs=1e-12), context
            if measure == "dm":  # integers: the exact tie rule, lowest then lexicographically smallest
                assert result.optimum == min(ties, key=lambda n: (sum(n), n)), context
            pruned[measure] += result.trace.count(PRUNED)
    assert all(pruned.values()), pruned  # the bound did prune on these tables, for every measure


def test_checks_fewer_nodes_than_exhaustive_on_the_registry():
    """Registry, k = 5, 5 % (3,600 nodes): bnb proves the dm optimum 474,388 (the best k-minimal node scores
    1,812,315) and the precision_nm optimum while checking fewer nodes than the lattice has."""
    from workbench.config import load_study
    from workbench.study import evaluator_for, load_dataset, search
    from workbench.views.lattice import lattice_table

    study = load_study(ROOT / "sample_configs" / "registry.toml", ["privacy.k=5", "privacy.max_suppression=0.05",
                                                                    "engine.algorithm=bnb"])
    dataset = load_dataset(study)
    table = lattice_table(evaluator_for(study, dataset), ["dm", "precision_nm"])
    admissible = table[table.suppressed <= math.floor(0.05 * dataset.n)]
    for measure in ("dm", "precision_nm"):
        result = search(replace(study, objective=measure), dataset)
        assert result.proven_optimal and result.value == admissible[measure].min(), measure
        assert result.checks < len(table) == 3600, (measure, result.checks)
    assert admissible.dm.min() == 474_388


def _size(ds) -> int:
    return math.prod(c.height + 1 for c in ds.encoded)


def test_anytime_stops_at_the_time_limit_and_says_so():
    """A (practically) zero time limit stops right after the bottom: not proven, with a note; the returned
    node is the bottom when it is k-anonymous (k = 1), else there is none."""
    for seed in range(10):
        ds, _, sup = _case(seed)
        if _size(ds) < 2:
            continue
        for k in (1, 5):
            result = _run("bnb", ds, k, sup, "loss", Limits(time_limit=1e-6))
            bottom = (0,) * len(ds.encoded)
            assert not result.proven_optimal and result.checks == 1, (seed, k)
            assert "time limit of 1e-06 s reached" in result.note, (seed, k)
            if NodeEvaluator(ds.encoded, k, sup).evaluate(bottom).k_anonymous:
                assert result.optimum == bottom and "not proven optimal" in result.note, (seed, k)
            else:
                assert result.optimum is None and "no k-anonymous node" in result.note, (seed, k)


def test_anytime_result_is_admissible_and_labelled():
    ds, k, sup = random_dataset(7, max_rows=200, max_qis=5), 3, 0.05
    for limit in (1e-4, 1e-3):
        result = _run("bnb", ds, k, sup, "entropy_nm", Limits(time_limit=limit))
        if result.optimum is not None:
            assert _admissible(ds, k, sup, result.optimum)
        if not result.proven_optimal:
            assert "time limit" in result.note
        else:
            assert result.note == ""


def test_prunes_on_adult(adult_dataset):
    """Adult, 8 quasi-identifiers, k = 5, no suppression: fewer checks than the lattice has nodes."""
    from workbench.config import load_study
    from workbench.study import search

    study = load_study(ROOT / "sample_configs" / "adult.toml", ["engine.algorithm=bnb", "engine.objective=loss"])
    result = search(study, adult_dataset)
    size = math.prod(c.height + 1 for c in adult_dataset.encoded)
    assert result.proven_optimal and result.optimum is not None
    assert result.trace.count(PRUNED) > 0
    assert result.checks < size
    # exhaustive's optimum (0,4,1,2,3,2,0,0): five attributes at their roots (v = 1), three at level 0 with
    # nothing suppressed (v = 0); ARX's geometric mean (2^5 · 1^3)^(1/8) − 1
    assert result.optimum == (0, 4, 1, 2, 3, 2, 0, 0)
    assert result.value == pytest.approx(2 ** (5 / 8) - 1, rel=1e-12)


def test_anytime_on_adult9():
    """Adult, 9 quasi-identifiers, 0.2 s: the greedy dive yields a node early, the best node so far is
    admissible, and the result says whether it is proven optimal."""
    from workbench.config import load_study
    from workbench.study import evaluator_for, load_dataset, search

    study = load_study(ROOT / "sample_configs" / "adult9.toml", ["engine.algorithm=bnb", "engine.time_limit=0.2"])
    dataset = load_dataset(study)
    result = search(study, dataset)
    assert result.seconds < 5.0  # stops after the check in progress at 0.2 s
    if result.proven_optimal:
        assert result.optimum is not None and result.note == ""
    else:
        assert "time limit of 0.2 s reached" in result.note
    assert result.optimum is not None
    assert evaluator_for(study, dataset).evaluate(result.optimum).k_anonymous
