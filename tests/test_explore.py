"""``workbench explore`` (workbench.views.exploration): monotonicity counts, worst edges, k-minimal optima, ranges and
Kendall τ-b against a brute force over every pair of nodes of small random tables, each node scored cell by cell
on its release; the registry sample's figures; the JSON contract and the CLI."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from _cli import call
from _random_tables import random_dataset
from scipy.stats import kendalltau

import measures as M
import workbench as wb
from workbench.compare.ranking import pareto_front
from workbench.config import load_study, study_from_dict
from workbench.release import Release

ROOT = Path(__file__).resolve().parents[1]
IDS = ["height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "loss"]
RTOL = 1e-9


def _study(k: int, suppression: float, ids=IDS):
    return study_from_dict({"data": {"sample": "teaching"}, "attributes": {"age": {"role": "quasi"}},
                            "privacy": {"k": k, "max_suppression": suppression},
                            "measures": {"compare": list(ids)}})


def _brute(dataset, k: int, suppression: float, ids):
    """Every node: admissible (from its class sizes), and every measure cell by cell on its release."""
    heights = [c.height for c in dataset.encoded]
    limit = math.floor(suppression * dataset.n + 1e-9)
    nodes, values = [], {}
    for node in itertools.product(*(range(h + 1) for h in heights)):
        codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(dataset.encoded, node, strict=True)], axis=1)
        _, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
        if counts[counts < k].sum() > limit:
            continue
        nodes.append(node)
        view = Release.from_node(dataset, node, k, suppression, "brute").view()
        values[node] = {m: s.value for m, s in M.score(view, ids).items()}
    return nodes, values


def _loss(m, v):
    return -v if M.MEASURES[m].higher_is_better else v


def _check_against_brute(e, dataset, k, suppression, ids, children=None):
    nodes, values = _brute(dataset, k, suppression, ids)
    admissible = set(nodes)
    chosen = set(children) if children is not None else admissible
    edges = [(a, b) for a in chosen for b in admissible
             if all(x <= y for x, y in zip(a, b, strict=True)) and sum(b) - sum(a) == 1]
    assert e.edges == len(edges)
    assert e.nodes == len(chosen)
    minimal = {a for a in admissible if not any(all(x <= y for x, y in zip(c, a, strict=True)) and sum(a) - sum(c) == 1
                                                for c in admissible)}
    label = {node: ",".join(f"{q}={v}" for q, v in zip(dataset.quasi_identifiers, node, strict=True))
             for node in admissible}
    for m in ids:
        f = e.measures[m]
        deltas = [(_loss(m, values[b][m]) - _loss(m, values[a][m]), a, b) for a, b in edges]
        violations = [(d, a, b) for d, a, b in deltas
                      if d < -(0 if M.MEASURES[m].integer else RTOL * max(abs(values[a][m]), abs(values[b][m])))]
        assert f["violations"] == len(violations), m
        assert f["share"] == pytest.approx(len(violations) / len(edges) if edges else 0.0)
        if violations:
            d, a, b = min(violations)
            assert f["worst"]["delta"] == pytest.approx(values[b][m] - values[a][m], rel=1e-9)
            assert -f["worst"]["delta"] * (-1 if M.MEASURES[m].higher_is_better else 1) == pytest.approx(-d, rel=1e-9)
        else:
            assert f["worst"] is None
        shown = [values[a][m] for a in chosen]
        if shown:
            assert f["min"] == pytest.approx(min(shown), rel=1e-9) and f["max"] == pytest.approx(max(shown), rel=1e-9)
        if children is None and shown:
            best = min(_loss(m, values[a][m]) for a in admissible)
            best_minimal = min(_loss(m, values[a][m]) for a in minimal)
            assert f["optimum_is_k_minimal"] == (best_minimal <= best + RTOL * abs(best)), m
            assert values[next(a for a in admissible if label[a] == e.optima[m])][m] == pytest.approx(
                min(values[a][m] for a in admissible), rel=1e-9)
    ordered = sorted(chosen)
    for a, b in itertools.combinations(ids, 2):
        x = [float(f"{_loss(a, values[n][a]):.12g}") for n in ordered]  # equal to 12 digits: a tie
        y = [float(f"{_loss(b, values[n][b]):.12g}") for n in ordered]
        expected = kendalltau(x, y).statistic if len(ordered) > 1 else float("nan")
        got = e.kendall_tau.loc[a, b]
        assert (math.isnan(expected) and math.isnan(got)) or got == pytest.approx(expected, abs=1e-6), (a, b)


@pytest.mark.parametrize("seed", range(40))
def test_every_figure_matches_a_brute_force_over_every_pair_of_nodes(seed):
    dataset = random_dataset(seed, max_rows=40, max_qis=3)
    k, suppression = 2 + seed % 3, [0.0, 0.1, 0.3][seed % 3]
    if dataset.n < k:
        return
    e = wb.explore(_study(k, suppression), dataset)
    _check_against_brute(e, dataset, k, suppression, IDS)


@pytest.mark.parametrize("seed", range(8))
def test_a_sample_counts_the_edges_from_its_drawn_nodes(seed):
    dataset = random_dataset(100 + seed, max_rows=40, max_qis=3)
    if dataset.n < 2:
        return
    e = wb.explore(_study(2, 0.2), dataset, max_nodes=0, sample=5)
    assert e.sample is not None and e.sample["drawn"] <= 5 and e.as_dict()["sample"] == e.sample
    drawn = [tuple(int(v) for v in row) for row in e.table.loc[e.table.drawn, dataset.quasi_identifiers].to_numpy()]
    assert e.nodes == len(drawn) == e.sample["admissible"]
    assert all(f["optimum_is_k_minimal"] is None for f in e.measures.values())
    _check_against_brute(e, dataset, 2, 0.2, IDS, children=drawn)


def test_on_the_registry_at_k5_with_5_percent_dm_and_loss_break_monotonicity_and_monotone_ones_do_not():
    study = load_study(ROOT / "sample_configs" / "registry.toml", ["privacy.max_suppression=0.05"])
    e = wb.explore(study)
    assert e.sample is None and e.nodes > 100
    assert e.measures["dm"]["violations"] > 0 and e.measures["loss"]["violations"] > 0
    for m, f in e.measures.items():
        if M.MEASURES[m].monotone:
            assert f["violations"] == 0, m
    assert not e.flagged()
    assert e.measures["dm"]["optimum_is_k_minimal"] is False  # the k-minimal search misses dm's optimum here


def test_a_user_measure_declared_monotone_that_is_not_is_flagged(tmp_path):
    with wb.registered_within():
        @wb.measure(id="dm_claimed_monotone", monotone=True)
        def dm_again(view) -> float:
            kept = view.class_sizes(~view.suppressed)
            return float((kept.astype(np.int64) ** 2).sum() + view.n * int(view.suppressed.sum()))

        config = ROOT / "sample_configs" / "registry.toml"
        overrides = ["privacy.max_suppression=0.05", 'measures.compare=["dm","dm_claimed_monotone","height"]']
        e = wb.explore(load_study(config, overrides))
        assert e.flagged() == ["dm_claimed_monotone"]
        assert e.measures["dm_claimed_monotone"] | {"declared_monotone": False} == e.measures["dm"]
        assert e.kendall_tau.loc["dm", "dm_claimed_monotone"] == pytest.approx(1.0)
        status, out, err = call("explore", config, "--json", *(a for o in overrides for a in ("--set", o)))
        assert status == 0 and "WARNING" in err and "dm_claimed_monotone" in err
        data = json.loads(out)
        assert set(data) == {"nodes", "edges", "measures", "kendall_tau"}
        assert set(data["measures"]["dm"]) == {"declared_monotone", "violations", "share", "worst",
                                               "optimum_is_k_minimal", "min", "max"}
        assert set(data["measures"]["dm"]["worst"]) == {"child", "parent", "delta"}
        assert data["kendall_tau"]["dm"]["height"] == data["kendall_tau"]["height"]["dm"]


def test_the_text_output_and_degradation_left_out():
    status, out, err = call("explore", ROOT / "sample_configs" / "teaching.toml")
    assert status == 0, err
    assert "admissible nodes" in out and "Kendall tau-b" in out and "dm_star" in out
    status, out, err = call("explore", ROOT / "sample_configs" / "teaching.toml", "--json", "--set",
                            'measures.compare=["dm","precision","degradation"]')
    assert status == 0, err
    assert set(json.loads(out)["measures"]) == {"dm", "precision"}


def test_a_failing_user_measure_is_one_line_naming_it():
    with wb.registered_within():
        @wb.measure(id="always_nan")
        def always_nan(view) -> float:
            return float("nan")

        status, out, err = call("explore", ROOT / "sample_configs" / "teaching.toml", "--set",
                                'measures.compare=["dm","always_nan"]')
        assert status == 2 and out == "" and "always_nan" in err and "returned nan on node" in err
        assert len(err.strip().splitlines()) == 1


def test_the_two_measure_pareto_front_is_the_general_one():
    import pandas as pd

    from workbench.views.exploration import pareto_2d

    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 30))
        df = pd.DataFrame({"dm": rng.integers(0, 6, n).astype(float), "nmi": rng.integers(0, 6, n).astype(float)})
        assert (pareto_2d(df, "dm", "nmi") == pareto_front(df, ["dm", "nmi"])).all()
