"""Every lattice search against exhaustive search on 200 random small tables.

Optimal algorithms return an admissible node with the optimal objective value for every monotone measure
(``incognito`` and ``bnb`` for every measure); heuristics return admissible nodes, and claim a proof only when
it holds (LIGHTNING, when it exhausts its queue: tests/test_search_lightning.py).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import measures as M
from tests._examples import examples
from tests._random_tables import random_dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import NO_LIMITS, Limits
from workbench.lattice.tagging import TaggedLattice
from workbench.lattice.trace import CHECK, PREDICTED
from workbench.objective import NodeScorer

MONOTONE = [i for i, m in M.LATTICE_MEASURES.items() if m.monotone]
NON_MONOTONE = [i for i, m in M.LATTICE_MEASURES.items() if not m.monotone]
CASES = examples(200)


def _case(seed: int):
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, max_rows=60, max_qis=4)
    k = int(rng.integers(2, 11))
    sup = float(rng.choice([0.0, 0.01, 0.05, 0.1]))
    return ds, k, sup


def _run(algorithm: str, ds, k: int, sup: float, measure: str, limits: Limits = NO_LIMITS):
    ev = NodeEvaluator(ds.encoded, k, sup)
    space = TaggedLattice(ev)
    objective = NodeScorer(ev).objective(measure)
    return ALGORITHMS[algorithm].search(space, objective, limits), ev


@functools.cache
def _exhaustive(seed: int, measure: str):
    """Exhaustive search's result on case ``seed``: computed once per worker, shared by every algorithm's test."""
    ds, k, sup = _case(seed)
    return _run("exhaustive", ds, k, sup, measure)[0]


def _assert_admissible(result, ds, k, sup):
    ev = NodeEvaluator(ds.encoded, k, sup)
    e = ev.evaluate(result.optimum)
    assert e.k_anonymous and e.suppressed <= math.floor(sup * ds.n + 1e-9)


def _same_value(a: float, b: float) -> bool:
    return a == pytest.approx(b, rel=1e-9, abs=1e-9)


OPTIMAL = [a for a, s in ALGORITHMS.items() if s.optimal and a != "exhaustive"]
HEURISTIC = [a for a, s in ALGORITHMS.items() if not s.optimal]


@pytest.mark.parametrize("algorithm", OPTIMAL)
def test_optimal_algorithms_match_exhaustive(algorithm):
    spec = ALGORITHMS[algorithm]
    objectives = MONOTONE if spec.requires_monotone else MONOTONE + NON_MONOTONE
    for seed in range(CASES):
        ds, k, sup = _case(seed)
        for measure in objectives:
            reference = _exhaustive(seed, measure)
            result, _ = _run(algorithm, ds, k, sup, measure)
            context = (algorithm, seed, k, sup, measure, ds.encoded and [c.height for c in ds.encoded])
            if reference.optimum is None:
                assert result.optimum is None, context
                continue
            assert result.optimum is not None, context
            _assert_admissible(result, ds, k, sup)
            assert _same_value(result.value, reference.value), (context, result.optimum, reference.optimum)
            # the tie_key-best admissible node (lowest value, then height, then lexicographic) is k-minimal
            # for a monotone objective, so every optimal algorithm finds exactly exhaustive's node
            assert result.optimum == reference.optimum, (context, result.optimum, reference.optimum)
            assert result.proven_optimal, context


@pytest.mark.parametrize("algorithm", HEURISTIC)
def test_heuristics_return_admissible_nodes(algorithm):
    for seed in range(CASES):
        ds, k, sup = _case(seed)
        result, _ = _run(algorithm, ds, k, sup, MONOTONE[seed % len(MONOTONE)], Limits(seed=seed))
        top_ok = NodeEvaluator(ds.encoded, k, sup).evaluate(tuple(c.height for c in ds.encoded)).k_anonymous
        if not top_ok:
            assert result.optimum is None
            continue
        assert result.optimum is not None, (algorithm, seed)
        _assert_admissible(result, ds, k, sup)
        reference = _exhaustive(seed, MONOTONE[seed % len(MONOTONE)])
        assert result.value >= reference.value - 1e-9
        if result.proven_optimal:  # only an anytime heuristic that searched its whole space (LIGHTNING) proves
            assert ALGORITHMS[algorithm].anytime and result.optimum == reference.optimum, (algorithm, seed)


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_trace_is_consistent(algorithm):
    for seed in range(20):
        ds, k, sup = _case(seed)
        result, ev = _run(algorithm, ds, k, sup, "entropy", Limits(seed=seed))
        trace = result.trace
        checked = trace.checked
        assert len(checked) == len(set(checked)) == result.lattice_checks == trace.lattice_checks
        assert ev.checks == result.lattice_checks  # every full-lattice evaluation goes through the tagged lattice
        assert result.checks == trace.checks == result.lattice_checks + result.subset_checks
        assert result.subset_checks == 0 or algorithm == "incognito"
        for e in trace.events:
            if e.action == CHECK:
                assert e.k_anonymous == ev.evaluate(e.node).k_anonymous
            if e.action == PREDICTED:  # a predicted status is the true status
                assert e.k_anonymous == NodeEvaluator(ds.encoded, k, sup).evaluate(e.node).k_anonymous
        steps = [e.step for e in trace.events]
        assert steps == list(range(len(steps)))
        assert trace.as_dict()["checks"] == result.checks


def test_non_monotone_refusal_names_the_alternatives():
    from workbench.config import study_from_dict
    from workbench.errors import ConfigError
    from workbench.study import run

    raw = {"data": {"sample": "teaching"}, "engine": {"algorithm": "ola", "objective": "loss"},
           "privacy": {"k": 3}}
    with pytest.raises(ConfigError, match="'exhaustive', 'incognito', 'flash' or 'bnb'"):
        run(study_from_dict(raw))
    raw["engine"]["allow_non_monotone"] = True
    result = run(study_from_dict(raw))
    assert result.search is not None and not result.search.proven_optimal
    assert "monotone" in result.search.note
    raw["engine"] = {"algorithm": "flash", "objective": "loss"}  # Flash's linear phase: optimal for any objective
    flash = run(study_from_dict(raw)).search
    exhaustive = run(study_from_dict(raw | {"engine": {"algorithm": "exhaustive", "objective": "loss"}})).search
    assert flash is not None and exhaustive is not None and flash.proven_optimal
    assert flash.optimum == exhaustive.optimum and flash.value == exhaustive.value
