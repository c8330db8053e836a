"""OLA and Flash: the El Emam 2009 walkthrough, k-minimal sets against brute force, complete tagging, Adult."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests._random_tables import random_dataset
from tests.conftest import ROOT
from workbench.lattice import undecided
from workbench.lattice.evaluate import NodeEvaluation, NodeEvaluator
from workbench.lattice.search import ALGORITHMS, flash, ola
from workbench.lattice.search.result import NO_LIMITS, Limits, Objective
from workbench.lattice.space import Lattice, Node, nodes_between
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer
from workbench.privacy.base import Admissibility

SEARCHES = {"ola": ola.search, "flash": flash.search}


class _OneValueColumn:
    """A column with one distinct value at every level (Flash's distinct-share criterion is then 1)."""

    def cardinality(self, level: int) -> int:
        return 1


class PredicateEvaluator:
    """Stands in for NodeEvaluator: k-anonymity from a monotone predicate on the nodes."""

    def __init__(self, heights: tuple[int, ...], k_anonymous) -> None:
        self.lattice = Lattice(heights)
        self.columns = [_OneValueColumn() for _ in heights]
        self.k_anonymous = k_anonymous
        self.rollups = 0
        self.checks = 0
        self.admissibility = Admissibility(1, 0.0, 0)  # k only: admissibility is monotone

    def evaluate(self, node: Node) -> NodeEvaluation:
        self.checks += 1
        ok = bool(self.k_anonymous(node))
        return NodeEvaluation(tuple(node), 0, 0 if ok else 1, ok)


HEIGHT = Objective("height", lambda n: float(sum(n)), lambda n: float(sum(n)), True)


def up_closure(generators: list[Node]):
    """The monotone predicate "above some generator"."""
    return lambda node: any(Lattice.leq(g, node) for g in generators)


def brute_k_minimal(lattice: Lattice, k_anonymous) -> set[Node]:
    ok = {n: bool(k_anonymous(n)) for n in lattice.nodes()}
    return {n for n, a in ok.items() if a and not any(ok[p] for p in lattice.predecessors(n))}


def test_el_emam_fig2_walkthrough():
    # Fig. 2 lattice <d, g, a> with heights (2, 1, 4), MaxSup 5 %: k-anonymous when a >= 3 and (g = 1 or d = 2),
    # which agrees with every suppression percentage the paper gives (digest §4.5.6)
    space = TaggedLattice(PredicateEvaluator((2, 1, 4), lambda n: n[2] >= 3 and (n[1] == 1 or n[0] == 2)))
    result = ola.search(space, HEIGHT)
    first = [(e.node, e.k_anonymous) for e in result.trace.events if e.action == "check"][:5]
    assert first == [((0, 0, 3), False), ((0, 1, 4), True), ((0, 0, 4), False), ((0, 1, 3), True),
                     ((1, 0, 4), False)]
    assert set(result.k_minimal) == {(0, 1, 3), (2, 0, 3)}
    assert result.optimum == (0, 1, 3) and result.proven_optimal


@pytest.mark.parametrize(("bottom", "top", "d"), [((0, 0, 0), (2, 1, 4), 3), ((0, 0, 3), (2, 1, 4), 2),
                                                  ((1, 0, 1, 0), (3, 2, 1, 4), 4), ((0,), (5,), 2), ((), (), 0)])
def test_mid_level_is_the_lexicographic_rank_slice(bottom, top, d):
    box = itertools.product(*(range(b, t + 1) for b, t in zip(bottom, top, strict=True)))
    expected = sorted(v for v in box if sum(v) == sum(bottom) + d)
    assert list(nodes_between(bottom, top, d)) == expected


def _random_predicates(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    shapes = [(2, 1, 4), (1, 6, 1, 2), (4, 5, 3, 2), (3, 2, 2, 2, 2, 1, 1, 3), (5, 4, 2, 3), (0, 3, 0, 2)]
    for i in range(count):
        heights = shapes[i % len(shapes)]
        generators = [tuple(int(rng.integers(0, h + 1)) for h in heights) for _ in range(int(rng.integers(0, 6)))]
        yield heights, up_closure(generators)


@pytest.mark.parametrize("algorithm", list(SEARCHES))
@pytest.mark.parametrize("dense", [True, False])
def test_k_minimal_on_random_monotone_predicates(algorithm, dense, monkeypatch):
    if not dense:  # the sparse path, used for lattices too large for dense bookkeeping
        monkeypatch.setattr(undecided, "DENSE_LIMIT", 0)
    for heights, predicate in _random_predicates(24 if dense else 12):
        evaluator = PredicateEvaluator(heights, predicate)
        space = TaggedLattice(evaluator)
        result = SEARCHES[algorithm](space, HEIGHT)
        expected = brute_k_minimal(space.lattice, predicate)
        assert set(result.k_minimal) == expected, (heights, algorithm)
        assert len(result.k_minimal) == len(expected)
        assert all(space.known(n) is not None for n in space.lattice.nodes()), (heights, algorithm)
        assert evaluator.checks == result.checks == len(set(result.trace.checked))
        assert (result.optimum is None) == (not expected)


def _table_case(seed: int):
    rng = np.random.default_rng(1000 + seed)
    ds = random_dataset(1000 + seed, max_rows=60, max_qis=4)
    return ds, int(rng.integers(2, 8)), float(rng.choice([0.0, 0.02, 0.1]))


@pytest.mark.parametrize("algorithm", list(SEARCHES))
def test_k_minimal_and_complete_tagging_on_random_tables(algorithm):
    for seed in range(60):
        ds, k, sup = _table_case(seed)
        reference = NodeEvaluator(ds.encoded, k, sup)
        truth = {n: reference.evaluate(n).k_anonymous for n in reference.lattice.nodes()}
        evaluator = NodeEvaluator(ds.encoded, k, sup)
        space = TaggedLattice(evaluator)
        result = SEARCHES[algorithm](space, NodeScorer(evaluator).objective("entropy"))
        assert set(result.k_minimal) == brute_k_minimal(space.lattice, truth.__getitem__), (algorithm, seed)
        for node in space.lattice.nodes():  # every node decided, and decided right (digest §4.5.5)
            assert space.known(node) == truth[node], (algorithm, seed, node)
        assert result.checks == evaluator.checks <= space.lattice.size


@pytest.mark.parametrize("algorithm", list(SEARCHES))
def test_time_limit_returns_unproven(algorithm):
    space = TaggedLattice(PredicateEvaluator((3, 2, 2, 2, 2, 1, 1, 3), up_closure([(1, 1, 1, 1, 1, 0, 0, 1)])))
    result = SEARCHES[algorithm](space, HEIGHT, Limits(time_limit=0.0))
    assert not result.proven_optimal and "time limit" in result.note and result.k_minimal == ()
    complete = SEARCHES[algorithm](TaggedLattice(space.evaluator), HEIGHT, NO_LIMITS)
    assert complete.proven_optimal and complete.k_minimal == ((1, 1, 1, 1, 1, 0, 0, 1),)


def test_adult_matches_exhaustive_within_150_checks(adult_dataset):
    from workbench.config import load_study
    from workbench.study import search

    study = load_study(ROOT / "sample_configs" / "adult.toml")
    reference = search(study, adult_dataset, "exhaustive")
    for algorithm in SEARCHES:
        result = search(study, adult_dataset, algorithm)
        assert ALGORITHMS[algorithm].search is SEARCHES[algorithm]
        assert result.proven_optimal and result.checks <= 150, (algorithm, result.checks)
        assert result.value == pytest.approx(reference.value, rel=1e-12), algorithm
        assert result.optimum == reference.optimum, algorithm
