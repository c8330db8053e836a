"""Each measure's optimum over EVERY k-anonymous node (``compare.lattice_optima``, ``optimal_under``, the
``compare`` command), against a brute force over every node of the lattice. The reference measures below
are written from docs/measures.md on the generalized labels (pandas), independently of ``measures``; loss,
col_mi, pmi and nmi use their cell-level definition on the node's release."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._examples import examples
from tests._reference_measures import INDEPENDENT, node_of, reference_measures, reference_risk
from tests.conftest import ROOT
from workbench import compare
from workbench.compare.optima import lattice_optima
from workbench.compare.ranking import RISK_COLUMNS, optimal_under
from workbench.config import Study, load_study
from workbench.data import Dataset
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.space import Lattice
from workbench.objective import score_release, target_codes
from workbench.release import Release
from workbench.study import evaluator_for, load_dataset, search
from workbench.views.lattice import lattice_table

ALL_IDS = ("height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "loss",
           "vinterbo", "col_mi", "pmi", "nmi")
CELL_LEVEL = tuple(m for m in ALL_IDS if m not in INDEPENDENT)


def _random_study(seed: int, k: int, sup: float) -> tuple[Study, Dataset]:
    """A random small table (random tree hierarchies) with a random binary target, every measure compared."""
    from tests._random_tables import random_dataset

    base = random_dataset(seed, max_rows=40)
    rng = np.random.default_rng(seed)
    frame = base.frame.assign(outcome=rng.choice(["yes", "no"], size=base.n))
    roles = {q: "quasi" for q in base.quasi_identifiers} | {"outcome": "target"}
    dataset = Dataset.create(frame, roles, base.hierarchies, source="random")
    study = Study(source="random", base_dir=Path("."), data_path=None, separator=None, sample=None, rows=None,
                  attributes=(), k=k, max_suppression=sup, compare=ALL_IDS, target="outcome")
    return study, dataset


def _brute_force(study: Study, dataset: Dataset) -> dict[str, tuple[float, list[tuple[int, ...]]]]:
    """Per measure: the best value over every admissible node of the lattice (lowest; nmi: highest) and the
    nodes that attain it (to a relative 1e-9), each node's admissibility decided by its own suppressed count."""
    heights = [dataset.hierarchies[q].height for q in dataset.quasi_identifiers]
    limit = math.floor(study.max_suppression * dataset.n + 1e-9)
    values: dict[tuple[int, ...], dict[str, float]] = {}
    for node in Lattice(tuple(heights)).nodes():
        S, independent = reference_measures(dataset, node, study.k)
        if S > limit:
            continue
        cell = score_release(study, Release.from_node(dataset, node, study.k, study.max_suppression))
        risk = dict(zip(RISK_COLUMNS, reference_risk(dataset, node, study.k), strict=True))
        values[node] = independent | {m: cell[m].value for m in CELL_LEVEL} | risk
    out = {}
    for m in [*ALL_IDS, *RISK_COLUMNS]:
        sign = -1.0 if m in M.MEASURES and M.MEASURES[m].direction == "higher is better" else 1.0
        best = min(sign * v[m] for v in values.values()) if values else math.nan
        ties = [n for n, v in values.items() if math.isclose(sign * v[m], best, rel_tol=1e-9, abs_tol=1e-12)]
        out[m] = (sign * best, ties)
    return out


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), sup=st.sampled_from([0.0, 0.1, 0.25, 0.5]))
def test_optima_equal_a_brute_force_over_every_node(seed, k, sup):
    """For every measure id, ``lattice_optima`` reports the best value over all admissible nodes (not over
    the k-minimal candidates), a node that attains it, and ``optimal_under`` puts that row first, labelled."""
    study, ds = _random_study(seed, k, sup)
    if ds.n < k:
        return
    expected = _brute_force(study, ds)
    optima = lattice_optima(study, ds).set_index("measure")
    if not expected["height"][1]:
        assert optima.empty
        return
    assert list(optima.index) == [*ALL_IDS, *RISK_COLUMNS]
    for m in [*ALL_IDS, *RISK_COLUMNS]:
        value, ties = expected[m]
        row = optima.loc[m]
        assert row.value == pytest.approx(value, rel=1e-9, abs=1e-12), (m, row.solution)
        assert node_of(ds, row.solution) in ties, (m, row.solution)
        if m in ("height", "dm", "dm_star"):  # integers: the tie rule is exact, the lowest then first node
            assert node_of(ds, row.solution) == min(ties, key=lambda n: (sum(n), n)), m
    table = compare.lattice_solutions(study, ds)
    best = optimal_under(table, list(ALL_IDS), optima.reset_index())
    for m in ALL_IDS:
        rows = best[best.measure == m]
        first = rows.iloc[0]
        assert (first.algorithm, first.scope) == ("optimum", optima.loc[m].searched)
        assert first.best_overall
        candidate = rows[rows.algorithm == "k_minimal"].iloc[0]
        assert candidate.scope == "best of the candidates (k_minimal)"
        loss = -1.0 if m == "nmi" else 1.0
        assert loss * candidate.value >= loss * first.value - 1e-9 * max(1.0, abs(first.value))


def test_registry_k5_5pct_dm_optimum_is_474388_not_the_best_k_minimal_node():
    """The registry at k = 5, 5 %: the best k-minimal node under dm scores 1,812,315, the best k-anonymous
    node 474,388 (bnb proves it). Every measure's optimum equals the minimum over the whole node table
    (every node of the lattice; cell level for the measures without a fast path)."""
    study = load_study(ROOT / "sample_configs" / "registry.toml",
                       ["privacy.k=5", "privacy.max_suppression=0.05", f"measures.compare={json.dumps(ALL_IDS)}"])
    ds = load_dataset(study)
    optima = lattice_optima(study, ds).set_index("measure")
    table = lattice_table(evaluator_for(study, ds))
    limit = math.floor(0.05 * ds.n + 1e-9)
    admissible = table[table.suppressed <= limit]
    for m in M.LATTICE_MEASURES:
        assert optima.loc[m].value == pytest.approx(admissible[m].min(), rel=1e-9), m
        assert optima.loc[m].searched == "every node admissible under k = 5, 5 % suppression"
    nodes = [tuple(int(v) for v in row) for row in admissible[ds.quasi_identifiers].to_numpy()]
    slow = [m for m in ALL_IDS if m not in M.LATTICE_MEASURES]  # col_mi, pmi, nmi: cell level, every node
    ev = evaluator_for(study, ds)
    target = target_codes(study, ds)
    # the release's view (tested equal in test_compare)
    scores = [M.score(compare._node_view(ds, ev, n), slow, target) for n in nodes]
    for m in slow:
        values = [s[m].value for s in scores]
        goal = max(values) if M.MEASURES[m].direction == "higher is better" else min(values)
        assert optima.loc[m].value == pytest.approx(goal, rel=1e-9), m
    assert optima.loc["dm"].value == 474_388
    for m in ("dm", "precision_nm"):
        proof = search(replace(study, algorithm="bnb", objective=m), ds)
        assert proof.proven_optimal and proof.value == pytest.approx(optima.loc[m].value, rel=1e-9), m
    best = optimal_under(compare.lattice_solutions(study, ds), ["dm"], optima.reset_index())
    assert best.value.tolist() == [474_388, 1_812_315]
    assert best.scope.tolist() == ["every node admissible under k = 5, 5 % suppression",
                                   "best of the candidates (k_minimal)"]
    assert best.best_overall.tolist() == [True, False]


def test_compare_cli_prints_and_writes_the_true_optimum(tmp_path, capsys):
    from workbench.cli import main

    out = tmp_path / "cmp"
    config = ROOT / "sample_configs" / "registry.toml"
    assert main(["compare", str(config), "--set", "privacy.max_suppression=0.05", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    written = pd.read_csv(out / "optimal_under.csv")
    dm = written[written.measure == "dm"]
    assert dm.value.tolist()[:2] == [474_388, 1_812_315]
    assert dm.scope.tolist()[:2] == ["every node admissible under k = 5, 5 % suppression",
                                     "best of the candidates (k_minimal)"]
    assert "optimal under each measure" in printed and "every node admissible under k = 5" in printed


def test_k_minimal_shortcut_only_for_monotone_measures():
    """col_mi (monotone) is searched over the k-minimal nodes, pmi and nmi over every k-anonymous node."""
    study, ds = _random_study(3, 2, 0.25)
    optima = lattice_optima(study, ds).set_index("measure")
    ev = NodeEvaluator(ds.encoded, 2, 0.25)
    admissible = [n for n in ev.lattice.nodes() if ev.evaluate(n).k_anonymous]
    minimal = [n for n in admissible if not any(Lattice.leq(m, n) and m != n for m in admissible)]
    assert optima.loc["col_mi"].nodes == len(minimal)
    assert optima.loc["col_mi"].searched.startswith("the minimal nodes admissible under k = 2, 25 % suppression")
    for m in ("pmi", "nmi", "dm", "loss"):
        assert optima.loc[m].nodes == len(admissible)
        assert optima.loc[m].searched == "every node admissible under k = 2, 25 % suppression"


# ------------------------------------------------------------------ the Lattice page's optimum
@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), sup=st.sampled_from([0.1, 0.25, 0.5]),
       objective=st.sampled_from(["dm", "loss", "aecs", "precision_nm", "entropy_nm", "entropy"]))
def test_lattice_overview_marks_the_optimum_over_every_node_whatever_the_search(seed, k, sup, objective):
    """OLA run with a non-monotone objective (allowed, not proven optimal): the node marked "optimum" is the
    brute-force minimum over every admissible node (the lowest, then first, of the nodes attaining it), and
    OLA's own node, when it is another one, is marked as the search's result."""
    from workbench.views.lattice import SEARCH_RESULT, lattice_overview

    study, ds = _random_study(seed, k, sup)
    if ds.n < k:
        return
    study = replace(study, algorithm="ola", objective=objective, allow_non_monotone=True, compare=())
    table, result = lattice_overview(study, ds)
    expected = {}
    heights = [ds.hierarchies[q].height for q in ds.quasi_identifiers]
    limit = math.floor(sup * ds.n + 1e-9)
    for node in Lattice(tuple(heights)).nodes():
        S, values = (reference_measures(ds, node, k) if objective in INDEPENDENT else (None, None))
        if S is None:
            S = int(Release.from_node(ds, node, k, sup).suppressed.sum())
        if S <= limit:
            value = values[objective] if values else score_release(
                replace(study, compare=(objective,)), Release.from_node(ds, node, k, sup))[objective].value
            expected[node] = value
    marked = [node_of(ds, ",".join(f"{q}={v}" for q, v in zip(ds.quasi_identifiers, row, strict=True)))
              for row in table.loc[table.status == "optimum", ds.quasi_identifiers].to_numpy()]
    if not expected:
        assert marked == [] and result.optimum is None
        return
    best = min(expected.values())
    ties = [n for n, v in expected.items() if math.isclose(v, best, rel_tol=1e-9, abs_tol=1e-12)]
    assert len(marked) == 1 and marked[0] in ties, (marked, ties)
    flash = table.loc[table.status == SEARCH_RESULT, ds.quasi_identifiers].to_numpy()
    if result.optimum == marked[0]:
        assert len(flash) == 0
    else:
        assert [tuple(int(v) for v in row) for row in flash] == [result.optimum]
        assert not result.proven_optimal


def test_lattice_overview_on_the_registry_ola_and_flash_with_dm():
    """Registry, k = 5, 5 %: OLA with dm returns a node scoring 1,812,315 (its best k-minimal node, not proven
    optimal); the node marked optimum scores 474,388, the minimum of dm over the node table's k-anonymous rows,
    which Flash (with its linear phase) returns, proven optimal."""
    from workbench.views.lattice import SEARCH_RESULT, lattice_overview

    study = load_study(ROOT / "sample_configs" / "registry.toml",
                       ["privacy.k=5", "privacy.max_suppression=0.05", "engine.algorithm=ola",
                        "engine.objective=dm", "engine.allow_non_monotone=true"])
    table, result = lattice_overview(study)
    assert not result.proven_optimal and "bnb" in result.note
    assert table.loc[table.status == "optimum", "dm"].tolist() == [474_388]
    assert table.loc[table.status == SEARCH_RESULT, "dm"].tolist() == [1_812_315] == [result.value]
    assert table.loc[table.k_anonymous, "dm"].min() == 474_388
    table, result = lattice_overview(replace(study, algorithm="flash"), table=table)
    assert result.proven_optimal and result.value == 474_388 and not (table.status == SEARCH_RESULT).any()
