"""Grouping rows of codes for any key space (workbench.grouping), and everything that groups with it: the
lattice evaluator's frequency sets and per-record class sizes, Incognito's subset frequency sets and
releases. Wide tables (7-12 quasi-identifiers, hundreds of values each) have a mixed-radix key space above
2^63, where int64 keys overflow; every result is compared with a pure-Python dict count."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from measures._view import tuple_codes
from tests._examples import examples
from workbench.data import Dataset
from workbench.grouping import class_sizes, distinct_rows, group_rows, row_keys
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer
from workbench.release import Release


# ------------------------------------------------------------------------------------- the primitive
def _random_codes(rng: np.random.Generator) -> tuple[np.ndarray, list[int]]:
    """A codes matrix with repeated rows and, usually, a radix product far beyond int64."""
    r = int(rng.integers(1, 13))
    cards = [int(rng.choice([1, 2, 7, 300, 10**6, 10**12, 2**62 + 5, 2**63 - 1])) for _ in range(r)]
    base = int(rng.integers(1, 40))
    rows = np.stack([rng.integers(0, c, size=base, dtype=np.int64) for c in cards], axis=1)
    n = int(rng.integers(0, 120))
    return rows[rng.integers(0, base, size=n)], cards


@settings(max_examples=examples(300), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), give_cards=st.booleans(), weighted=st.booleans())
def test_grouping_matches_a_dict_count_for_any_key_space(seed, give_cards, weighted):
    rng = np.random.default_rng(seed)
    codes, cards = _random_codes(rng)
    tuples = [tuple(int(x) for x in row) for row in codes]
    weights = rng.integers(1, 5, size=len(tuples)) if weighted else None
    expected: Counter = Counter()
    for i, t in enumerate(tuples):
        expected[t] += 1 if weights is None else int(weights[i])

    keys, space = row_keys(codes, cards if give_cards else None)
    assert keys.dtype == np.int64 and (keys.size == 0 or (keys.min() >= 0 and keys.max() < space))
    by_key = {}
    for key, t in zip(keys.tolist(), tuples, strict=True):
        assert by_key.setdefault(key, t) == t  # one row per key
    assert len(by_key) == len(expected)  # and one key per row
    assert [by_key[k] for k in sorted(by_key)] == sorted(expected)  # keys order rows lexicographically

    groups = group_rows(codes, cards if give_cards else None, weights, with_inverse=True)
    assert [tuples[i] for i in groups.first] == sorted(expected)
    assert groups.counts.tolist() == [expected[t] for t in sorted(expected)]
    assert [tuples[groups.first[g]] for g in groups.inverse] == tuples
    uniq, counts = distinct_rows(codes, cards if give_cards else None, weights)
    assert [tuple(r) for r in uniq.tolist()] == sorted(expected) and counts.tolist() == groups.counts.tolist()
    sizes = Counter(tuples)
    assert class_sizes(codes, cards if give_cards else None).tolist() == [sizes[t] for t in tuples]


def test_no_columns_is_one_class():
    assert class_sizes(np.zeros((5, 0), dtype=np.int64)).tolist() == [5] * 5
    assert group_rows(np.zeros((5, 0), dtype=np.int64)).counts.tolist() == [5]


# --------------------------------------------------------------------------------- wide random tables
def _wide_table(seed: int, rows: int = 400, qis: tuple[int, int] = (9, 12),
                distinct: tuple[int, int] = (200, 300)) -> tuple[Dataset, dict[str, dict[str, list[str]]]]:
    """``qis`` quasi-identifiers with ``distinct`` values each (radix product > 2^63), rows drawn with
    repeats from that many distinct records; each hierarchy: value -> group of (value mod g) -> '*' (or only
    value -> '*'). Returns the dataset and each column's hierarchy as a dict of paths."""
    rng = np.random.default_rng(seed)
    r = int(rng.integers(qis[0], qis[1] + 1))
    m = int(rng.integers(distinct[0], distinct[1] + 1))
    base = {f"q{j}": [f"q{j}v{int(v)}" for v in rng.choice(5000, size=m, replace=False)] for j in range(r)}
    pick = np.concatenate([np.arange(m), rng.integers(0, m, size=rows - m)])  # every distinct record, repeats
    frame = pd.DataFrame({name: [values[i] for i in pick] for name, values in base.items()})
    paths: dict[str, dict[str, list[str]]] = {}
    for j, name in enumerate(base):
        groups = int(rng.integers(2, 5))
        if j % 3 == 2:  # some columns without a middle level
            paths[name] = {v: [v, "*"] for v in sorted(set(frame[name]))}
        else:
            paths[name] = {v: [v, f"g{int(v.split('v')[1]) % groups}", "*"] for v in sorted(set(frame[name]))}
    hierarchies = {name: Hierarchy.from_rows(list(p.values()), name=name) for name, p in paths.items()}
    ds = Dataset.create(frame, {name: "quasi" for name in base}, hierarchies, source="wide")
    bottom_space = math.prod(c.cardinality(0) for c in ds.encoded)
    assert bottom_space > 2**63, bottom_space  # wider than int64
    return ds, paths


def _truth(ds: Dataset, paths: dict[str, dict[str, list[str]]]) -> Callable[[tuple[int, ...]], list[tuple]]:
    """node -> each record's generalized tuple at ``node``, from the hierarchy paths (no codes)."""
    cache: dict[tuple[str, int], list[str]] = {}

    def rows(node: tuple[int, ...]) -> list[tuple]:
        columns = []
        for a, level in zip(ds.quasi_identifiers, node, strict=True):
            if (a, level) not in cache:
                cache[a, level] = [paths[a][v][level] for v in ds.frame[a]]
            columns.append(cache[a, level])
        return list(zip(*columns, strict=True))

    return rows


def _small_lattice(ev: NodeEvaluator, limit: int = 60) -> list[tuple[int, ...]]:
    """The bottom, the top, and nodes spread over the ranks (every node when the lattice is small)."""
    nodes = list(ev.lattice.nodes())
    if len(nodes) <= limit:
        return nodes
    step = len(nodes) / limit
    return sorted({nodes[0], nodes[-1], *(nodes[int(i * step)] for i in range(limit))})


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4))
def test_evaluator_groups_wide_tables_like_a_dict_count(seed, k):
    ds, paths = _wide_table(seed)
    ev, truth = NodeEvaluator(ds.encoded, k, 0.1), _truth(ds, paths)
    for node in _small_lattice(ev):
        rows = truth(node)
        expected = Counter(rows)
        for fs in (ev.frequency_set(node), ev.direct(node)):
            labels = [tuple(c.labels[v][code] for c, v, code in zip(ds.encoded, node, row, strict=True))
                      for row in fs.codes.tolist()]
            assert dict(zip(labels, fs.counts.tolist(), strict=True)) == dict(expected), node
            assert fs.codes.tolist() == sorted(fs.codes.tolist()), node  # classes in lexicographic order
        evaluation = ev.evaluate(node)
        suppressed = sum(c for c in expected.values() if c < k)
        assert (evaluation.classes, evaluation.suppressed) == (len(expected), suppressed), node
        assert evaluation.k_anonymous == (suppressed <= math.floor(0.1 * ds.n)), node
        assert ev.record_class_sizes(node).tolist() == [expected[t] for t in rows], node
        assert ev.suppressed_mask(node).tolist() == [expected[t] < k for t in rows], node
        release = Release.from_node(ds, node, k, 0.1)
        assert release.suppressed.tolist() == [expected[t] < k for t in rows], node
        kept = Counter(t for t in rows if expected[t] >= k)
        assert release.classes == len(kept), node
        assert release.smallest_class() == (min(kept.values()) if kept else 0), node


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_all_frequency_sets_of_a_wide_table(seed):
    ds, paths = _wide_table(seed, rows=800, qis=(7, 7), distinct=(600, 700))  # at most 3^7 nodes, all visited
    ev, truth = NodeEvaluator(ds.encoded, 2, 0.0), _truth(ds, paths)
    for fs in ev.all_frequency_sets():
        expected = Counter(truth(fs.node))
        assert sorted(fs.counts.tolist()) == sorted(expected.values()), fs.node


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6))
def test_incognito_on_wide_tables_finds_the_dict_count_k_anonymous_nodes(seed, k):
    ds, paths = _wide_table(seed, rows=800, qis=(7, 7), distinct=(600, 700))
    ev = NodeEvaluator(ds.encoded, k, 0.05)
    space = TaggedLattice(ev)
    ALGORITHMS["incognito"].search(space, NodeScorer(ev).objective("dm_star"))
    limit, truth = math.floor(0.05 * ds.n), _truth(ds, paths)
    for node in ev.lattice.nodes():
        counts = Counter(truth(node)).values()
        assert space.known(node) == (sum(c for c in counts if c < k) <= limit), node


def test_seven_quasi_identifiers_on_1200_rows():
    """The reported case: 7 quasi-identifiers, 1,200 records, ~1,000 values each (radix product ~10^21);
    record_class_sizes raised IndexError (int64 keys wrapped around)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"q{j}": [f"v{j}_{i}" for i in rng.integers(0, 1000, 1200)] for j in range(7)})
    frame.iloc[900:] = frame.iloc[rng.integers(0, 100, 300)].to_numpy()  # classes of 1 to ~8 records
    hierarchies = {q: Hierarchy.from_rows([[v, "*"] for v in sorted(set(frame[q]))], name=q) for q in frame}
    ds = Dataset.create(frame, {q: "quasi" for q in frame}, hierarchies)
    assert math.prod(c.cardinality(0) for c in ds.encoded) > 2**63
    ev = NodeEvaluator(ds.encoded, 2, 0.0)
    rows = [tuple(r) for r in frame.itertuples(index=False)]
    expected = Counter(rows)
    assert ev.record_class_sizes((0,) * 7).tolist() == [expected[t] for t in rows]
    evaluation = ev.evaluate((0,) * 7)
    assert (evaluation.classes, evaluation.suppressed) == (len(expected), sum(c for c in expected.values() if c < 2))
    assert ev.record_class_sizes((1,) * 7).tolist() == [1200] * 1200


# ------------------------------------------------------------------ measures keep their own grouping
@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_measures_group_wide_views_like_a_dict_count(seed):
    """measures/ may not import workbench: its own grouping (Generalized.class_of_row, the tuple labels of
    the information measures) must be exact for wide key spaces too."""
    rng = np.random.default_rng(seed)
    r, n = int(rng.integers(7, 13)), int(rng.integers(1, 150))
    base = rng.integers(0, 1000, size=(int(rng.integers(1, 60)), r))
    base[0] = 999  # radix 1000 per column: 1000^7 > 2^62
    codes = base[rng.integers(0, len(base), size=n)]
    tuples = [tuple(row) for row in codes.tolist()]
    expected = Counter(tuples)
    columns = tuple(M.GeneralizedColumn(f"c{j}", codes[:, j], codes[:, j], np.zeros(n, dtype=np.int64), 1,
                                        np.ones(1000, dtype=np.int64)) for j in range(r))
    view = M.Generalized(columns, np.zeros(n, dtype=bool), 2)
    classes = view.class_of_row.tolist()
    labels = tuple_codes([codes[:, j] for j in range(r)], n).tolist()
    for a in range(n):
        for b in range(n):
            assert (classes[a] == classes[b]) == (tuples[a] == tuples[b])
            assert (labels[a] == labels[b]) == (tuples[a] == tuples[b])
    assert sorted(view.class_sizes().tolist()) == sorted(expected.values())
