"""The whole-lattice frequency pass behind the Lattice page's node table: every node exactly once, each set equal
to the one computed from the records, rows of ``lattice_table`` in ``lattice.nodes()`` order, and the sets held at
once bounded by the lattice's height rather than its width."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

from tests._random_tables import random_dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.views.lattice import lattice_table


@pytest.mark.parametrize("seed", [1, 7, 23, 40, 2])
def test_every_node_once_and_equal_to_the_direct_set(seed):
    ds = random_dataset(seed, max_rows=80, max_qis=4 if seed != 2 else 6)
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    seen = []
    for fs in ev.all_frequency_sets():
        direct = ev.direct(fs.node)  # from the records, no roll-up
        assert np.array_equal(fs.codes, direct.codes) and np.array_equal(fs.counts, direct.counts), fs.node
        seen.append(fs.node)
    assert sorted(seen) == sorted(ev.lattice.nodes()) and len(seen) == len(set(seen)) == ev.lattice.size
    assert ev.rollups == ev.lattice.size - 1


@pytest.mark.parametrize("seed", [3, 11])
def test_lattice_table_rows_are_by_rank_then_lexicographic(seed):
    ds = random_dataset(seed, max_rows=60, max_qis=4)
    ev = NodeEvaluator(ds.encoded, 2, 0.05)
    table = lattice_table(ev, ["dm_star"])
    nodes = list(ev.lattice.nodes())
    assert list(table["node"]) == [ev.lattice.label(n) for n in nodes]
    ranks = [sum(n) for n in nodes]
    assert ranks == sorted(ranks)
    for row, node in zip(table.itertuples(), nodes, strict=True):  # each row's values belong to its node
        direct = ev.direct(node)
        assert row.classes == int((direct.counts >= 2).sum())  # the classes kept, as Release.classes counts them
        assert row.suppressed == int(direct.counts[direct.counts < 2].sum())


def test_sets_alive_at_once_grow_with_height_not_width():
    ds = random_dataset(0, max_rows=80, max_qis=6)  # 576 nodes, 106 in the widest rank
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    alive: list[weakref.ref] = []
    most = 0
    for fs in ev.all_frequency_sets():
        alive.append(weakref.ref(fs))
        del fs  # no reference cycles: a set nothing holds is freed at once
        most = max(most, sum(r() is not None for r in alive))
    widest = max(len(level) for level in ev.lattice.by_rank)
    assert most <= ev.lattice.max_rank + 1  # the sets on the path from the bottom (pending children's parents)
    assert most < 2 * widest  # a rank-by-rank pass held two whole ranks
