"""Lattice space, node evaluation, roll-up and exhaustive search, against brute force on random tables."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._examples import examples
from tests._random_tables import random_dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.space import Lattice
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer
from workbench.release import Release


def test_lattice_structure_issa_fig4():
    """Issa 2009, Fig. 4: Race (H=1) × Marital status (H=2) has 6 nodes, top [1,2], 4 levels."""
    lat = Lattice((1, 2))
    assert lat.size == 6 and lat.top == (1, 2) and lat.bottom == (0, 0)
    assert [len(level) for level in lat.by_rank] == [1, 2, 2, 1]
    assert sorted(lat.successors((0, 1))) == [(0, 2), (1, 1)]
    assert sorted(lat.predecessors((1, 1))) == [(0, 1), (1, 0)]
    assert lat.successors((1, 2)) == [] and lat.predecessors((0, 0)) == []
    assert Lattice.rank((0, 2, 1)) == 3  # Issa Def. 13


@given(heights=st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_lattice_enumeration_and_neighbours(heights):
    lat = Lattice(tuple(heights))
    nodes = list(lat.nodes())
    assert len(nodes) == len(set(nodes)) == math.prod(h + 1 for h in heights)
    ranks = [sum(n) for n in nodes]
    assert ranks == sorted(ranks)
    for n in nodes:
        for s in lat.successors(n):
            assert lat.contains(s) and sum(s) == sum(n) + 1 and Lattice.leq(n, s)
            assert n in lat.predecessors(s)


def _brute_force_classes(ds, node):
    """Class sizes straight from the hierarchy labels of every record."""
    keys = []
    for _, row in ds.frame.iterrows():
        key = []
        for qi, v in zip(ds.quasi_identifiers, node, strict=True):
            path = next(r for r in ds.hierarchies[qi].rows if r[0] == row[qi])
            key.append(path[v])
        keys.append(tuple(key))
    return Counter(keys)


@settings(max_examples=examples(50), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8), sup=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.3]))
def test_evaluation_matches_brute_force(seed, k, sup):
    ds = random_dataset(seed, max_rows=25)
    ev = NodeEvaluator(ds.encoded, k, sup)
    for node in ev.lattice.nodes():
        sizes = _brute_force_classes(ds, node)
        e = ev.evaluate(node)
        suppressed = sum(c for c in sizes.values() if c < k)
        assert e.classes == len(sizes)
        assert e.suppressed == suppressed
        assert e.k_anonymous == (suppressed <= math.floor(sup * ds.n + 1e-9))


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_rolled_up_frequency_set_equals_direct(seed, k):
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    nodes = list(ev.lattice.nodes())
    rng = np.random.default_rng(seed)
    for node in nodes:
        direct = ev.direct(node)
        below = [m for m in nodes if Lattice.leq(m, node)]
        source = ev.direct(below[rng.integers(len(below))])
        rolled = ev.rollup(source, node)
        cached = ev.frequency_set(node)
        for fs in (rolled, cached):
            np.testing.assert_array_equal(fs.codes, direct.codes)
            np.testing.assert_array_equal(fs.counts, direct.counts)


def test_rollup_refuses_a_source_above():
    ds = random_dataset(3)
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    top = ev.lattice.top
    if top != ev.lattice.bottom:
        with pytest.raises(ValueError, match="not below"):
            ev.rollup(ev.direct(top), ev.lattice.bottom)


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8))
def test_monotonicity_up_the_lattice(seed, k):
    """Suppression never increases going up (Samarati 2001); Prec, DM*, entropy never decrease
    (El Emam 2009). Checked on every lattice edge."""
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    scorer = NodeScorer(ev)
    for node in ev.lattice.nodes():
        here = scorer.view(node)
        for succ in ev.lattice.successors(node):
            there = scorer.view(succ)
            assert there.suppressed <= here.suppressed
            for mid in ("precision", "dm_star", "entropy", "height"):
                f = M.MEASURES[mid].node
                assert f(there) >= f(here) - 1e-9, (mid, node, succ)


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 8), sup=st.sampled_from([0.0, 0.05, 0.1, 0.5]),
       objective=st.sampled_from(sorted(M.LATTICE_MEASURES)))
def test_exhaustive_returns_the_brute_force_optimum(seed, k, sup, objective):
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, sup)
    result = ALGORITHMS["exhaustive"].search(TaggedLattice(ev), NodeScorer(ev).objective(objective))
    # brute force with cell-level measures on releases
    limit = math.floor(sup * ds.n + 1e-9)
    admissible = {}
    for node in itertools.product(*(range(c.height + 1) for c in ds.encoded)):
        rel = Release.from_node(ds, node, k, sup)
        if rel.suppressed.sum() <= limit:
            admissible[node] = M.MEASURES[objective].cell(rel.view())
    assert result.checks == ev.lattice.size == len(result.evaluations)
    if not admissible:
        assert result.optimum is None
        return
    best = min(admissible.values())
    assert result.optimum in admissible and result.proven_optimal
    assert result.value == pytest.approx(best, rel=1e-9, abs=1e-9)
    # ties (equal up to float rounding): lowest height, then lexicographically smallest
    tied = [n for n, v in admissible.items() if v == pytest.approx(best, rel=1e-9, abs=1e-9)]
    assert result.optimum == min(tied, key=lambda n: (sum(n), n))
