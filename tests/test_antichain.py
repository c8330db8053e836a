"""The antichain store and minimal_nodes against a brute-force list (Kohlmayer/Prasser 2016)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from workbench.lattice.antichain import DOWN, UP, AntichainStore, minimal_nodes
from workbench.lattice.space import Lattice


def test_worked_example_from_the_paper():
    """Insert (1,1,1), (1,3,0), (3,2,0); the query (1,2,2) is covered through (1,1,1)."""
    store = AntichainStore(3, UP)
    for x in [(1, 1, 1), (1, 3, 0), (3, 2, 0)]:
        assert store.insert(x)
    assert store.covers((1, 2, 2)) and not store.covers((0, 3, 3)) and store.covers((1, 1, 1))
    assert sorted(store) == [(1, 1, 1), (1, 3, 0), (3, 2, 0)]
    assert store.insert((1, 1, 0))  # subsumes all three: (1,1,1), (1,3,0) and (3,2,0)
    assert list(store) == [(1, 1, 0)] and len(store) == 1
    assert not store.insert((2, 2, 2))  # already covered


def test_empty_and_zero_width():
    assert not AntichainStore(2, UP).covers((0, 0))
    store = AntichainStore(0, DOWN)
    assert not store.covers(()) and store.insert(()) and store.covers(()) and len(store) == 1
    with pytest.raises(ValueError):
        AntichainStore(2, "sideways")


@settings(max_examples=examples(200), deadline=None)
@given(heights=st.lists(st.integers(0, 3), min_size=1, max_size=4), direction=st.sampled_from([UP, DOWN]),
       data=st.data())
def test_store_matches_brute_force(heights, direction, data):
    lat = Lattice(tuple(heights))
    nodes = list(lat.nodes())
    store = AntichainStore(len(heights), direction)
    inserted: list[tuple[int, ...]] = []
    below = Lattice.leq if direction == UP else (lambda a, b: Lattice.leq(b, a))
    for x in data.draw(st.lists(st.sampled_from(nodes), max_size=12)):
        covered = any(below(y, x) for y in inserted)
        assert store.insert(x) == (not covered)
        inserted.append(x)
        for q in nodes:
            assert store.covers(q) == any(below(y, q) for y in inserted), (q, inserted)
        stored = list(store)
        assert len(stored) == len(store)
        for a, b in itertools.permutations(stored, 2):
            assert not below(a, b)  # an antichain


@settings(max_examples=examples(100), deadline=None)
@given(heights=st.lists(st.integers(0, 3), min_size=1, max_size=4), data=st.data())
def test_minimal_nodes_match_brute_force(heights, data):
    nodes = list(Lattice(tuple(heights)).nodes())
    chosen = data.draw(st.lists(st.sampled_from(nodes), max_size=20))
    expected = {x for x in chosen if not any(y != x and Lattice.leq(y, x) for y in chosen)}
    got = minimal_nodes(chosen)
    assert set(got) == expected and len(got) == len(expected)
    assert got == sorted(got, key=lambda n: (sum(n), n))
