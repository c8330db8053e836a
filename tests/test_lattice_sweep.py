"""The packed-key pass behind ``lattice_table`` (``workbench.views.sweep``): every node's classes equal the ones
grouped from the records, the suppression counted for many nodes at once equals what ``NodeClasses`` computes for
one, and the node table equals the one built node by node through the evaluator's cache."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import measures as M
from tests._random_tables import random_dataset
from tests.conftest import ROOT
from tests.test_grouping import _wide_table
from workbench.config import load_study
from workbench.lattice.evaluate import NodeEvaluator
from workbench.objective import NodeScorer
from workbench.study import evaluator_for, load_dataset
from workbench.views.lattice import lattice_table
from workbench.views.sweep import chunks, packed_sets, suppression


@pytest.mark.parametrize("seed", [0, 1, 7, 23, 40])
def test_every_node_once_with_the_classes_grouped_from_the_records(seed):
    ds = random_dataset(seed, max_rows=80, max_qis=5)
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    sets = packed_sets(ev)
    assert sets is not None
    seen = []
    for ps in sets:
        direct = ev.direct(ps.node)  # from the records, no roll-up
        assert np.array_equal(ps.codes(), direct.codes) and np.array_equal(ps.counts, direct.counts), ps.node
        rows = np.arange(0, direct.classes, 2)
        assert np.array_equal(ps.codes(rows), direct.codes[rows]), ps.node
        seen.append(ps.node)
    assert sorted(seen) == sorted(ev.lattice.nodes()) and len(seen) == len(set(seen))


@pytest.mark.parametrize(("seed", "k"), [(2, 2), (3, 3), (11, 2), (19, 4)])
def test_suppression_in_chunks_equals_each_nodes_own(seed, k):
    ds = random_dataset(seed, max_rows=80, max_qis=4)
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    domains = NodeScorer(ev).domains
    sets = packed_sets(ev)
    assert sets is not None
    for chunk in chunks(sets, classes=40):
        for ps, (sizes, known) in zip(chunk, suppression(chunk, k, domains, ev.n), strict=True):
            own = M.NodeClasses(ps.node, ps.counts, ps.codes, domains, k)
            assert np.array_equal(sizes, own.class_sizes) and known.n == own.n == ds.n
            assert np.array_equal(known.small, own.small) and known.suppressed == own.suppressed
            counts, offsets = own.suppressed_flat
            assert np.array_equal(known.counts, counts) and np.array_equal(known.offsets, offsets), ps.node
            assert (known.squares, known.kept_squares, known.kept_classes) == \
                   (own.squares, own.kept_squares, own.kept_classes)


@pytest.mark.parametrize(("seed", "k", "limit"), [(4, 2, 0.0), (5, 3, 0.1), (8, 2, 0.05), (13, 5, 0.2)])
def test_the_node_table_equals_the_one_built_node_by_node(seed, k, limit):
    ds = random_dataset(seed, max_rows=90, max_qis=4)
    packed = lattice_table(NodeEvaluator(ds.encoded, k, limit))
    ev = NodeEvaluator(ds.encoded, k, limit)
    by_node = lattice_table(ev, nodes=list(ev.lattice.nodes()))  # through the evaluator's cache, node by node
    pd.testing.assert_frame_equal(packed, by_node, check_exact=True)


def test_a_key_wider_than_63_bits_falls_back_to_the_evaluators_pass():
    ds, _ = _wide_table(5, rows=800, qis=(7, 7), distinct=(600, 700))  # 7 columns of ~10 bits and a size
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    assert packed_sets(ev) is None
    table = lattice_table(ev, ["dm_star", "entropy_nm"])
    assert len(table) == ev.lattice.size


def test_privacy_models_and_an_empty_table_take_the_evaluators_pass():
    study = load_study(ROOT / "sample_configs" / "adult_privacy.toml")
    ev = evaluator_for(study, load_dataset(study))
    assert not ev.admissibility.plain and packed_sets(ev) is None
    ds = random_dataset(6, max_rows=60, max_qis=3)
    assert packed_sets(NodeEvaluator(ds.encoded, 2, 0.0)) is not None
    assert packed_sets(NodeEvaluator([], 2, 0.0)) is None  # no quasi-identifier: nothing to pack
