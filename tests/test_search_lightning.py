"""LIGHTNING (Prasser et al. 2016), the anytime search for large lattices: exact when it exhausts its queue
(against exhaustive search on random tables and Adult), a valid lower bound when stopped early (checked against the
exhaustive optimum under a deterministic clock), its time budget honoured, and memory sized by the nodes it touched
on a lattice of 5·10^11 nodes."""

from __future__ import annotations

import itertools
import time
import tracemalloc
import types

import numpy as np
import pytest

import measures as M
from tests._random_tables import random_dataset
from tests._wide_tables import lattice_nodes, wide_dataset
from tests.conftest import ROOT
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS, lightning
from workbench.lattice.search.result import NO_LIMITS, Limits
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer

MEASURES = list(M.LATTICE_MEASURES)


def _case(seed: int):
    rng = np.random.default_rng(5000 + seed)
    ds = random_dataset(5000 + seed, max_rows=80, max_qis=5)
    return ds, int(rng.integers(2, 8)), float(rng.choice([0.0, 0.02, 0.05, 0.1, 0.2]))


def _run(algorithm: str, ds, k: int, sup: float, measure: str, limits: Limits = NO_LIMITS):
    ev = NodeEvaluator(ds.encoded, k, sup)
    return ALGORITHMS[algorithm].search(TaggedLattice(ev), NodeScorer(ev).objective(measure), limits)


def test_registered_as_an_anytime_heuristic_with_a_default_budget():
    spec = ALGORITHMS["lightning"]
    assert spec.anytime and not spec.optimal and not spec.requires_monotone
    assert spec.default_time_limit == lightning.DEFAULT_BUDGET == 30.0


def test_exhausted_queue_gives_exhaustives_node_for_every_measure():
    """Given time, the queue empties and the node is exhaustive search's (value, then height, then lexicographic),
    proven, with a zero gap: monotone and non-monotone measures alike."""
    for seed in range(25):
        ds, k, sup = _case(seed)
        for measure in MEASURES:
            reference = _run("exhaustive", ds, k, sup, measure)
            result = _run("lightning", ds, k, sup, measure)
            context = (seed, k, sup, measure, [c.height for c in ds.encoded])
            assert result.optimum == reference.optimum, context
            if reference.optimum is None:
                assert not result.proven_optimal and result.lower_bound is None, context
                continue
            assert result.proven_optimal and result.gap == 0, context
            assert "exhausted" in result.note and "the default" in result.note, context


class _Clock:
    """A clock that advances ``tick`` seconds at every reading: a time limit becomes a number of steps."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now


@pytest.mark.parametrize("measure", ["entropy", "loss", "dm", "precision_nm"])
def test_stopped_early_the_bound_brackets_the_optimum(monkeypatch, measure):
    """Stopped after a few steps (a deterministic clock), the node is admissible and not proven optimal, and
    lower_bound ≤ exhaustive optimum ≤ the node's value: the frontier bound is a true lower bound."""
    stopped = 0
    for seed in range(50):
        ds, k, sup = _case(seed)
        reference = _run("exhaustive", ds, k, sup, measure)
        monkeypatch.setattr(lightning, "time", types.SimpleNamespace(perf_counter=_Clock(1.0).perf_counter))
        result = _run("lightning", ds, k, sup, measure, Limits(time_limit=float(2 + seed % 10)))
        monkeypatch.setattr(lightning, "time", time)
        context = (seed, k, sup, measure)
        if result.optimum is None:
            assert not result.proven_optimal, context
            continue
        assert NodeEvaluator(ds.encoded, k, sup).evaluate(result.optimum).k_anonymous, context
        assert reference.value is not None and result.value >= reference.value - 1e-9, context
        if result.proven_optimal:
            assert result.optimum == reference.optimum, context
            continue
        stopped += 1
        assert "not proven optimal" in result.note and "lower bound" in result.note, context
        assert result.lower_bound <= reference.value + 1e-9 * max(1.0, abs(reference.value)), context
        assert result.gap >= 0, context
    assert stopped >= 10  # the clock did stop searches before they ended


def test_neighbours_are_the_specializations_then_every_swap():
    ds, k, sup = _case(3)
    ev = NodeEvaluator(ds.encoded, k, sup)
    run = lightning._Lightning(TaggedLattice(ev), NodeScorer(ev).objective("loss"), NO_LIMITS, 0.0, 1.0)
    lattice = ev.lattice
    for node in lattice.nodes():
        got = run.neighbours(node)
        down = lattice.predecessors(node)
        assert got[:len(down)] == down
        swaps = {tuple(b) for i, j in itertools.permutations(range(len(node)), 2)
                 if node[i] > 0 and node[j] < lattice.heights[j]
                 for b in [list(node)] if not b.__setitem__(i, node[i] - 1) and not b.__setitem__(j, node[j] + 1)}
        assert sorted(got[len(down):]) == sorted(swaps) and len(got) == len(down) + len(swaps)


def test_adult_reaches_the_optimum_of_exhaustive_search():
    """Adult, 8 quasi-identifiers (4,320 nodes), k = 5, 4 % suppression, ARX's loss: the same node as bnb's
    proven optimum."""
    from workbench.config import load_study
    from workbench.study import load_dataset, search

    study = load_study(ROOT / "sample_configs" / "adult.toml",
                       ["privacy.k=5", "privacy.max_suppression=0.04", "engine.objective=loss"])
    dataset = load_dataset(study)
    reference = search(study, dataset, "bnb")
    result = search(study, dataset, "lightning")
    assert result.proven_optimal and result.optimum == reference.optimum
    assert result.value == pytest.approx(reference.value, rel=1e-12)


def test_honours_its_time_budget_on_a_wide_table():
    """16 quasi-identifiers (37 million nodes): stops within the budget (the checks are ~10 ms each), with an
    incumbent and a bound, not proven optimal."""
    ds = wide_dataset(0, n=5_000, qis=16)
    ev = NodeEvaluator(ds.encoded, 5, 0.05)
    objective = NodeScorer(ev).objective("loss")
    start = time.perf_counter()
    result = ALGORITHMS["lightning"].search(TaggedLattice(ev), objective, Limits(time_limit=2.0))
    elapsed = time.perf_counter() - start
    assert ev.lattice.size == lattice_nodes(16) > 10**7
    assert 1.8 <= elapsed <= 2.0 * 1.05 + 0.05, elapsed
    assert result.optimum is not None and not result.proven_optimal
    assert result.time_budget == 2.0 and result.lower_bound is not None and 0 <= result.lower_bound <= result.value


def test_memory_is_sized_by_the_nodes_touched_on_a_huge_lattice():
    """25 quasi-identifiers (5·10^11 nodes): no structure sized by the lattice (no dense grid); the search's own
    structures take a few KB per checked node, and the peak of Python allocations during the search stays within
    the frequency sets of the nodes it checked."""
    ds = wide_dataset(1, n=1_000, qis=25)
    ev = NodeEvaluator(ds.encoded, 3, 0.05)
    objective = NodeScorer(ev).objective("entropy")
    space = TaggedLattice(ev)
    tracemalloc.start()
    try:
        result = ALGORITHMS["lightning"].search(space, objective, Limits(time_limit=1.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ev.lattice.size > 10**11
    assert space.undecided is None and not any("dense" in name for name in result.structures)
    assert result.checks > 50
    # the search's own structures (values, queue, sets, checked nodes, trace, antichains): a few KB per checked node
    assert sum(result.structures.values()) < 4096 * result.checks, result.structures
    # the peak: at most one frequency set per check (n classes of r int32 codes and an int64 count) and bookkeeping
    assert peak < result.checks * (ds.n * (4 * len(ds.encoded) + 8) + 4096) + 20 * 2**20, (peak, result.checks)


def test_runs_from_a_config_and_states_its_default_budget(tmp_path):
    from workbench.config import study_from_dict
    from workbench.policy import search_refusal
    from workbench.study import run

    raw = {"data": {"sample": "teaching"}, "engine": {"algorithm": "lightning", "objective": "loss"},
           "privacy": {"k": 3}}
    result = run(study_from_dict(raw))
    assert result.release is not None and result.search is not None
    assert result.search.proven_optimal and "30 s (the default" in result.search.note
    summary = result.summary()
    assert summary["algorithm"] == "lightning" and summary["lower_bound"] == result.search.value
    assert search_refusal("lightning", None, 10**9) is None  # it always has a budget
    assert search_refusal("exhaustive", None, 10**9) is not None  # a search with no time limit is refused
    assert summary["time_budget"] == 30.0
