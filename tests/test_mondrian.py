"""Mondrian (LeFevre, DeWitt & Ramakrishnan 2006), strict multidimensional partitioning: a hand-worked example,
the property that every final partition holds k records and has no allowable cut left (the paper's minimal
partitioning) on random tables, the independent release verifier, and Adult at k = 10 against the best
full-domain node."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._engine_checks import assert_generalizes
from tests._examples import examples
from tests._random_tables import random_dataset
from workbench import compare
from workbench.config import load_study, study_from_dict
from workbench.data import Dataset
from workbench.local import LOCAL_ALGORITHMS, mondrian
from workbench.local.lub import LocalColumn, LocalProblem
from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset
from workbench.release import Release
from workbench.study import load_dataset, run, search

ROOT = Path(__file__).resolve().parents[1]


def _columns(ds: Dataset, numeric: np.ndarray | None):
    """Tree posets from the random hierarchies, plus a numeric column with a range poset."""
    columns, states = [], []
    for c in ds.encoded:
        values = list(c.labels[0])
        poset = FinitePoset.from_tree(ds.hierarchies[c.name], values)
        columns.append(LocalColumn(c.name, poset))
        states.append(np.asarray(poset.leaves)[c.codes])
    if numeric is not None:
        texts = [str(int(v)) for v in numeric]
        values = sorted(set(texts), key=int)
        poset = RangePoset.from_values(values)
        columns.append(LocalColumn("x", poset))
        states.append(np.asarray(poset.leaves)[[values.index(t) for t in texts]])
    return columns, np.stack(states, axis=1)


def _lca(poset: FinitePoset, leaves: np.ndarray) -> int:
    """The deepest node above every leaf, walking up from the first leaf (an independent reading of the tree)."""
    node, path = int(leaves[0]), []
    while True:
        path.append(node)
        if not poset.parents[node]:
            break
        node = poset.parents[node][0]
    covered = [p for p in path if all(poset.ancestors[int(v), p] for v in np.unique(leaves))]
    return covered[0]


def _allowable_cut_exists(problem: LocalProblem, part: np.ndarray, k: int) -> bool:
    """Any allowable cut of the partition in any attribute, by brute force: every threshold of a numeric
    attribute; the children of the least common ancestor of a categorical one."""
    counts = problem.counts[part]
    for j, col in enumerate(problem.columns):
        states = problem.rows[part, j]
        if isinstance(col.poset, RangePoset):
            points = states // col.poset.m
            for t in np.unique(points)[:-1]:
                if counts[points <= t].sum() >= k and counts[points > t].sum() >= k:
                    return True
        else:
            poset = col.poset
            region = _lca(poset, states)
            children = [v for v in range(poset.size) if region in poset.parents[v]]
            if not children:
                continue
            sizes = [int(counts[poset.ancestors[states, c]].sum()) for c in children]
            if sum(1 for s in sizes if s) >= 2 and all(s >= k for s in sizes if s):
                return True
    return False


@settings(max_examples=examples(80), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6), with_numeric=st.booleans())
def test_every_partition_holds_k_records_and_no_allowable_cut_is_left(seed, k, with_numeric):
    ds = random_dataset(seed, max_rows=60, max_qis=3)
    if ds.n < k:
        return
    rng = np.random.default_rng(seed)
    numeric = rng.integers(0, 12, size=ds.n) if with_numeric else None
    columns, leaf_states = _columns(ds, numeric)
    problem = LocalProblem.build(columns, leaf_states)
    parts = mondrian.partitions(problem, k)
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(problem.rows)))  # each distinct row once
    for part in parts:
        assert problem.counts[part].sum() >= k
        assert not _allowable_cut_exists(problem, part, k)  # minimal (LeFevre 2006, §4)
    result = mondrian.search(problem, k)
    _, sizes = np.unique(result.released, axis=0, return_counts=True)
    assert result.guarantee == "k-anonymity" and sizes.min() >= k
    assert_generalizes(columns, leaf_states, result.released)  # each record's released cell generalizes its own
    if not with_numeric:
        assert Release.from_local(ds, columns, result, k).verify().holds  # the independent verifier


def test_a_numeric_column_is_cut_at_the_median():
    """Eight ages 1..8, k = 2: cut at 4, then at 2 and 6: four ranges of two (worked by hand)."""
    frame = pd.DataFrame({"age": [str(v) for v in [5, 1, 8, 3, 2, 7, 4, 6]]})
    poset = RangePoset.from_values(sorted(frame.age, key=int))
    states = np.asarray(poset.leaves)[[sorted(frame.age, key=int).index(v) for v in frame.age]]
    problem = LocalProblem.build([LocalColumn("age", poset)], states[:, None])
    result = mondrian.search(problem, 2)
    labels = poset.label(result.released[:, 0])
    assert labels.tolist() == ["[5, 6]", "[1, 2]", "[7, 8]", "[3, 4]", "[1, 2]", "[7, 8]", "[3, 4]", "[5, 6]"]


def test_a_categorical_column_is_specialised_one_level_at_a_time():
    """A tree * -> {A, B}, A -> {a1, a2}, B -> {b1, b2}; 3 × a1, 3 × a2, 1 × b1, 1 × b2 at k = 2: the root splits
    into A (6) and B (2); A splits into a1 and a2 (3 each); B cannot (1 and 1)."""
    from workbench.hierarchy.tree import Hierarchy

    tree = Hierarchy.from_rows([["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]], name="c")
    values = ["a1", "a1", "a1", "a2", "a2", "a2", "b1", "b2"]
    poset = FinitePoset.from_tree(tree, ["a1", "a2", "b1", "b2"])
    states = np.asarray(poset.leaves)[[["a1", "a2", "b1", "b2"].index(v) for v in values]]
    problem = LocalProblem.build([LocalColumn("c", poset)], states[:, None])
    labels = poset.label(mondrian.search(problem, 2).released[:, 0]).tolist()
    assert labels == ["a1", "a1", "a1", "a2", "a2", "a2", "B", "B"]


def test_on_adult_at_k10_mondrian_beats_the_best_full_domain_node_on_loss_within_seconds():
    overrides = ["privacy.k=10", "privacy.max_suppression=0"]
    lattice = load_study(ROOT / "sample_configs" / "adult.toml", [*overrides, 'engine.objective="loss"'])
    dataset = load_dataset(lattice)
    best = search(lattice, dataset, "exhaustive")  # no suppression: loss is monotone, the optimum is exact
    engine = ['engine.kind="local"', 'engine.algorithm="mondrian"', 'engine.objective="vinterbo"']
    local = load_study(ROOT / "sample_configs" / "adult.toml", [*overrides, *engine])
    start = time.perf_counter()
    result = run(local, dataset)
    seconds = time.perf_counter() - start
    assert result.guarantee.holds and result.release.smallest_class() >= 10
    assert result.scores["loss"].value < best.value
    assert seconds < 5.0


def test_mondrian_is_offered_by_the_config_run_and_compare():
    assert "mondrian" in LOCAL_ALGORITHMS and "mondrian" in compare.COMPARED_LOCAL_ALGORITHMS
    study = load_study(ROOT / "sample_configs" / "registry.toml",
                       ['engine.kind="local"', 'engine.algorithm="mondrian"', 'engine.objective="vinterbo"',
                        'attributes.age.poset="range"'])
    result = run(study)
    assert result.release.algorithm == "mondrian" and result.guarantee.holds
    table = compare.local_solutions(load_study(ROOT / "sample_configs" / "teaching.toml"),
                                    load_dataset(study_from_dict({"data": {"sample": "teaching"},
                                                                  "attributes": {"age": {"role": "quasi"}}})),
                                    ["mondrian"])
    assert table.algorithm.tolist() == ["mondrian"]
