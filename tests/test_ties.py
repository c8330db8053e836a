"""Ties between lattice nodes: values are compared exactly (``tie_key``), equal values are bit-for-bit equal
(each fast path sums its per-attribute terms exactly rounded), and bnb's pruning tolerates float noise
between a bound and the incumbent only for non-integer objectives."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._examples import examples
from tests._random_tables import random_dataset, random_hierarchy
from workbench.data import Dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.bnb import PRUNE_RTOL, prunable
from workbench.lattice.search.result import Objective, best_of
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import INTEGER_MEASURES, NodeScorer


def test_integers_that_differ_at_ten_to_the_twelve_are_not_a_tie():
    assert best_of({(0, 1): 1e12 + 1, (1, 0): 1e12}) == (1, 0)
    assert best_of({(0, 1): 2.0**52 + 1, (1, 0): 2.0**52}) == (1, 0)
    assert best_of({(0, 1): 1e12, (1, 0): 1e12}) == (0, 1)  # a real tie: the lexicographically smaller


nodes = st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))


@settings(max_examples=examples(300), deadline=None)
@given(items=st.dictionaries(nodes, st.integers(0, 2**53), min_size=1, max_size=20),
       offset=st.integers(0, 2**53 - 2**40))
def test_best_of_is_the_exact_minimum_then_height_then_lexicographic(items, offset):
    """Against Python integers (exact at any size): DM-like values near 2**53 differ by 1 and must not tie."""
    values = {node: (offset + v) % 2**53 for node, v in items.items()}
    expected = min(values, key=lambda node: (values[node], sum(node), node))
    assert best_of({node: float(v) for node, v in values.items()}) == expected


def _duplicated(seed: int) -> Dataset:
    """Three copies of one column under one hierarchy of height 3 or 4: permuting a node's levels gives the
    same partition of the records, so every measure takes the same value."""
    rng = np.random.default_rng(seed)
    leaves = int(rng.integers(3, 9))
    hierarchy = random_hierarchy(rng, "q", leaves, int(rng.integers(3, 5)))
    values = [hierarchy.values[i] for i in rng.integers(0, leaves, int(rng.integers(5, 80)))]
    names = [f"c{j}" for j in range(3)]
    return Dataset.create(pd.DataFrame({c: values for c in names}), {c: "quasi" for c in names},
                          {c: hierarchy for c in names}, source="duplicated")


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 4), sup=st.sampled_from([0.0, 0.1, 0.3]))
def test_nodes_equal_up_to_the_attribute_order_tie_exactly(seed, k, sup):
    """Every fast path gives bit-identical values to the permutations of a node (they summed the attributes'
    terms in order, and entropy, loss, precision and Vinterbo differed in the last bits), so the optimum of
    exhaustive search is the lexicographically smallest permutation: its levels are non-decreasing."""
    ds = _duplicated(seed)
    ev = NodeEvaluator(ds.encoded, k, sup)
    scorer = NodeScorer(ev)
    for measure_id, measure in M.LATTICE_MEASURES.items():
        for node in ev.lattice.nodes():
            value = measure.node(scorer.view(node))
            for permuted in set(itertools.permutations(node)):
                assert measure.node(scorer.view(permuted)) == value, (measure_id, node, permuted)
        result = ALGORITHMS["exhaustive"].search(TaggedLattice(NodeEvaluator(ds.encoded, k, sup)),
                                                 scorer.objective(measure_id))
        if result.optimum is not None:
            assert list(result.optimum) == sorted(result.optimum), (measure_id, result.optimum)


def test_the_rule_for_pruning():
    """Integer objectives: exact. Others: a bound within PRUNE_RTOL (relative) of the incumbent is noise."""
    assert prunable(1e12 + 1, 1e12, integer=True) and not prunable(1e12, 1e12, integer=True)
    assert not prunable(1.0 + 2**-52, 1.0, integer=False)  # one ulp above: a tie, not prunable
    assert not prunable(1.0 + PRUNE_RTOL / 2, 1.0, integer=False)
    assert prunable(1.0 + 2 * PRUNE_RTOL, 1.0, integer=False)
    assert not prunable(0.0, 0.0, integer=False) and prunable(1e-300, 0.0, integer=False)
    assert set(INTEGER_MEASURES) == {"height", "dm", "dm_star"}


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), sup=st.sampled_from([0.0, 0.1, 0.3]))
def test_bnb_keeps_ties_when_the_bound_carries_rounding_noise(seed, k, sup):
    """Every node ties (value 1.0) and the bound is one ulp above the value (as a bound computed by another
    formula can be): exhaustive's optimum is the lowest, then lexicographically smallest admissible node, and
    bnb must find the same one instead of pruning the nodes below its first incumbent."""
    ds = random_dataset(seed, max_rows=60, max_qis=4)
    if ds.n < k:
        return
    objective = Objective("flat", lambda node: 1.0, lambda node: 1.0 + 2**-52, monotone=False)
    ev = NodeEvaluator(ds.encoded, k, sup)
    admissible = [n for n in ev.lattice.nodes() if ev.evaluate(n).k_anonymous]
    expected = min(admissible, key=lambda n: (sum(n), n)) if admissible else None
    for algorithm in ("exhaustive", "bnb"):
        result = ALGORITHMS[algorithm].search(TaggedLattice(NodeEvaluator(ds.encoded, k, sup)), objective)
        assert result.optimum == expected, (algorithm, seed, k, sup)
