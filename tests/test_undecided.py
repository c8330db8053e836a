"""The dense grid of undecided nodes against a brute-force closure over every node (Kohlmayer/Prasser 2016)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from workbench.lattice import undecided
from workbench.lattice.space import Lattice
from workbench.lattice.undecided import ANONYMOUS, NOT_ANONYMOUS, UNDECIDED, UndecidedNodes


@settings(max_examples=examples(100), deadline=None)
@given(heights=st.lists(st.integers(0, 3), min_size=1, max_size=4), data=st.data())
def test_grid_matches_the_brute_force_closure(heights, data):
    lattice = Lattice(tuple(heights))
    nodes = list(lattice.nodes())
    # a monotone truth: k-anonymous iff rank >= a threshold along a random weighting
    weights = data.draw(st.lists(st.integers(0, 2), min_size=len(heights), max_size=len(heights)))
    cut = data.draw(st.integers(0, 6))
    truth = {x: sum(w * v for w, v in zip(weights, x, strict=True)) >= cut for x in nodes}
    grid = UndecidedNodes(lattice)
    saved, undecided.BITS_LIMIT = undecided.BITS_LIMIT, 0
    try:
        plain = UndecidedNodes(lattice)  # no bit set: "anything undecided in a box?" from the grid or the rows
    finally:
        undecided.BITS_LIMIT = saved
    checked: list[tuple[int, ...]] = []
    for x in data.draw(st.lists(st.sampled_from(nodes), max_size=40)):
        grid.learn(x, truth[x])
        plain.learn(x, truth[x])
        checked.append(x)
        for q in nodes:
            up = any(truth[y] and Lattice.leq(y, q) for y in checked)
            down = any(not truth[y] and Lattice.leq(q, y) for y in checked)
            expected = ANONYMOUS if up else NOT_ANONYMOUS if down else UNDECIDED
            assert grid.state(q) == expected, (q, checked)
        open_ = [q for q in nodes if grid.state(q) == UNDECIDED]
        assert len(grid) == len(open_)
        for rank in range(lattice.max_rank + 1):
            assert sorted(grid.at_rank(rank)) == sorted(q for q in open_ if sum(q) == rank)
        bottom, top = sorted((data.draw(st.sampled_from(nodes)), data.draw(st.sampled_from(nodes))), key=sum)
        rows = grid.within(bottom, top)
        inside = sorted(q for q in open_ if Lattice.leq(bottom, q) and Lattice.leq(q, top))
        assert grid.any_within(bottom, top) == plain.any_within(bottom, top) == bool(inside), (bottom, top)
        assert (sorted(tuple(int(v) for v in r) for r in rows.coords) if rows is not None else []) == inside
