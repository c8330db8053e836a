"""Worked examples for the classic searches: Datafly's greedy path and seeded tie-break, Samarati's lowest
feasible height, and Incognito's subset pruning (its k-anonymous set is the brute-force one)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests._examples import examples
from tests._random_tables import random_dataset
from tests.conftest import ROOT
from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import Limits, Objective
from workbench.lattice.tagging import TaggedLattice
from workbench.objective import NodeScorer

MEASURES = ["entropy", "dm_star", "precision", "dm", "loss"]


def _table(rows: list[tuple[str, ...]], hierarchies: dict[str, list[list[str]]]) -> Dataset:
    names = list(hierarchies)
    frame = pd.DataFrame(rows, columns=names)
    return Dataset.create(frame, {n: "quasi" for n in names},
                          {n: Hierarchy.from_rows(h, name=n) for n, h in hierarchies.items()}, source="hand-made")


def _space(ds: Dataset, k: int, sup: float = 0.0) -> tuple[TaggedLattice, NodeEvaluator]:
    ev = NodeEvaluator(ds.encoded, k, sup)
    return TaggedLattice(ev), ev


def _run(algorithm: str, ds: Dataset, k: int, sup: float = 0.0, measure: str = "entropy", seed: int = 0):
    space, ev = _space(ds, k, sup)
    return ALGORITHMS[algorithm].search(space, NodeScorer(ev).objective(measure), Limits(seed=seed)), space


def _brute_force(ds: Dataset, k: int, sup: float) -> dict[tuple[int, ...], bool]:
    ev = NodeEvaluator(ds.encoded, k, sup)
    return {node: ev.evaluate(node).k_anonymous for node in ev.lattice.nodes()}


def _case(seed: int) -> tuple[Dataset, int, float]:
    rng = np.random.default_rng(1000 + seed)
    ds = random_dataset(1000 + seed, max_rows=60, max_qis=4)
    return ds, int(rng.integers(2, 8)), float(rng.choice([0.0, 0.02, 0.1]))


# ---------------------------------------------------------------------------------------------- Datafly
GREEDY = _table(
    [("a1", "b1", "M"), ("a2", "b2", "M"), ("a3", "b3", "F"), ("a4", "b4", "F"),
     ("a5", "b1", "F"), ("a6", "b3", "M"), ("a5", "b2", "F"), ("a4", "b4", "M")],
    {"A": [["a1", "x1", "*"], ["a2", "x1", "*"], ["a3", "x2", "*"], ["a4", "x2", "*"], ["a5", "x3", "*"],
           ["a6", "x3", "*"]],
     "B": [["b1", "y1", "*"], ["b2", "y1", "*"], ["b3", "y2", "*"], ["b4", "y2", "*"]],
     "C": [["M", "*"], ["F", "*"]]},
)


def test_datafly_raises_the_column_with_most_distinct_values():
    # distinct (A, B, C): (6, 4, 2) -> raise A; (3, 4, 2) -> B; (3, 2, 2) -> A; (2, 1, 0) is 2-anonymous
    assert GREEDY.encoded[0].name == "A" and [c.height for c in GREEDY.encoded] == [2, 2, 1]
    result, space = _run("datafly", GREEDY, k=2)
    assert result.trace.checked == [(0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)]
    assert result.optimum == (2, 1, 0) and not result.proven_optimal
    assert [space.known(n) for n in result.trace.checked] == [False, False, False, True]


def test_datafly_with_suppression_stops_earlier():
    # at (1, 1, 0) two records are in singleton classes; a 25 % limit (2 of 8) accepts it
    result, _ = _run("datafly", GREEDY, k=2, sup=0.25)
    assert result.trace.checked == [(0, 0, 0), (1, 0, 0), (1, 1, 0)]


def test_datafly_no_solution_when_the_top_fails():
    result, _ = _run("datafly", GREEDY, k=9)  # 8 records
    assert result.optimum is None and result.value is None
    assert result.trace.checked[-1] == (2, 2, 1)


TIED = _table([("p1", "q1"), ("p2", "q2")],
              {"P": [["p1", "*"], ["p2", "*"]], "Q": [["q1", "*"], ["q2", "*"]]})


def test_datafly_seeded_tie_break_is_reproducible():
    seen = set()
    for seed in range(20):
        paths = {tuple(_run("datafly", TIED, k=2, seed=seed)[0].trace.checked) for _ in range(3)}
        assert len(paths) == 1  # same seed, same path
        path = paths.pop()
        first = int(np.random.default_rng(seed).choice([0, 1]))  # both columns have 2 distinct values
        assert path == ((0, 0), (1, 0) if first == 0 else (0, 1), (1, 1))
        seen.add(path[1])
    assert seen == {(1, 0), (0, 1)}  # the tie is really broken at random


# ---------------------------------------------------------------------------------------------- Samarati
def test_samarati_returns_the_best_node_of_the_lowest_feasible_height():
    for seed in range(examples(100)):
        ds, k, sup = _case(seed)
        truth = _brute_force(ds, k, sup)
        measure = MEASURES[seed % len(MEASURES)]
        result, space = _run("samarati", ds, k, sup, measure)
        feasible = [n for n, ok in truth.items() if ok]
        if not feasible:
            assert result.optimum is None, seed
            continue
        lowest = min(sum(n) for n in feasible)
        assert sum(result.optimum) == lowest, seed
        objective = NodeScorer(NodeEvaluator(ds.encoded, k, sup)).objective(measure)
        best = min(objective(n) for n in feasible if sum(n) == lowest)
        assert result.value == pytest.approx(best, rel=1e-9, abs=1e-9), seed
        assert not result.proven_optimal
        assert all(space.known(n) == truth[n] for n in space.lattice.by_rank[lowest])


# ---------------------------------------------------------------------------------------------- Incognito
def _recording(objective: Objective, seen: list) -> Objective:
    def value(node):
        seen.append(tuple(node))
        return objective(node)

    return Objective(objective.id, value, objective.lower_bound, objective.monotone)


def test_incognito_finds_exactly_the_k_anonymous_nodes():
    pruned_somewhere = False
    for seed in range(examples(100)):
        ds, k, sup = _case(seed)
        truth = _brute_force(ds, k, sup)
        space, ev = _space(ds, k, sup)
        seen: list = []
        objective = _recording(NodeScorer(ev).objective(MEASURES[seed % len(MEASURES)]), seen)
        result = ALGORITHMS["incognito"].search(space, objective)
        admissible = {n for n, ok in truth.items() if ok}
        assert set(seen) == admissible, seed  # the candidates handed to conclude
        assert all(space.known(n) == ok for n, ok in truth.items()), seed  # pruned nodes are tagged
        minimal = {n for n in admissible if not any(p in admissible for p in space.lattice.predecessors(n))}
        assert set(result.k_minimal) == minimal, seed
        assert result.lattice_checks <= len(truth) and result.checks == result.lattice_checks + result.subset_checks
        assert result.subset_checks > 0 or len(space.lattice.heights) == 1, seed
        pruned_somewhere |= len(space.lattice.heights) > 1 and result.lattice_checks < len(truth)
    assert pruned_somewhere


def test_incognito_on_adult_within_arx_budget(adult_dataset):
    from workbench.config import load_study
    from workbench.study import search

    study = load_study(ROOT / "sample_configs" / "adult.toml")
    result = search(study, adult_dataset, "incognito")
    reference = search(study, adult_dataset, "exhaustive")
    # ARX 2.3 reported 1,302 checks for Incognito here, counting the subset lattices' checks too
    assert result.checks <= 1500 and result.lattice_checks < result.subset_checks
    assert result.optimum is not None and result.proven_optimal
    assert result.value == pytest.approx(reference.value, rel=1e-9)


def test_incognito_checks_count_every_evaluation(monkeypatch):
    """``checks`` is every k-anonymity evaluation, counted independently here by wrapping the two places
    that evaluate: the full lattice's evaluator and the subset lattices' frequency-set test. (It used to
    leave out the subset lattices, so Incognito looked cheaper than Flash or exhaustive search.)"""
    from workbench.lattice.search import incognito

    subset_calls = []
    original = incognito._SubsetFrequencies.k_anonymous
    monkeypatch.setattr(incognito._SubsetFrequencies, "k_anonymous",
                        lambda self, counts: subset_calls.append(1) or original(self, counts))
    for seed in range(30):
        ds, k, sup = _case(seed)
        subset_calls.clear()
        space, ev = _space(ds, k, sup)
        result = ALGORITHMS["incognito"].search(space, NodeScorer(ev).objective("dm_star"))
        assert result.checks == ev.checks + len(subset_calls), seed
        assert (result.lattice_checks, result.subset_checks) == (ev.checks, len(subset_calls)), seed
        assert result.trace.as_dict()["checks"] == result.checks
        assert result.trace.as_dict()["subset_checks"] == len(subset_calls)


def test_run_json_checks_include_incognitos_subset_lattices(monkeypatch):
    """``workbench run --json`` reports the same total: on the teaching table, Incognito evaluates subset
    lattices too, and its checks are their evaluations plus the full lattice's."""
    import io
    import json
    from contextlib import redirect_stdout

    from workbench.cli import main
    from workbench.lattice import evaluate
    from workbench.lattice.search import incognito

    calls = {"subset": 0, "full": 0}
    subset, full = incognito._SubsetFrequencies.k_anonymous, evaluate.NodeEvaluator.evaluate

    def count_subset(self, counts):
        calls["subset"] += 1
        return subset(self, counts)

    def count_full(self, node):
        calls["full"] += 1
        return full(self, node)

    monkeypatch.setattr(incognito._SubsetFrequencies, "k_anonymous", count_subset)
    monkeypatch.setattr(evaluate.NodeEvaluator, "evaluate", count_full)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", str(ROOT / "sample_configs" / "teaching.toml"), "--json", "--set",
                     "engine.algorithm=incognito"]) == 0
    assert calls["subset"] > 0
    assert json.loads(out.getvalue())["checks"] == calls["subset"] + calls["full"]
