"""Solution-space comparison: candidates, Pareto front, rank agreement, optima per measure, the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from tests.conftest import ROOT
from workbench import compare
from workbench.cli import main
from workbench.compare import degradation as model_degradation
from workbench.compare.nodes import lattice_candidates
from workbench.compare.ranking import (
    RISK_COLUMNS,
    global_vs_local,
    measure_directions,
    normalized,
    optimal_under,
    pareto_front,
    rank_agreement,
    risk_utility,
)
from workbench.config import load_study
from workbench.errors import ConfigError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.space import Lattice
from workbench.study import load_dataset

TEACHING = ROOT / "sample_configs" / "teaching.toml"


@settings(max_examples=examples(100), deadline=None)
@given(values=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12))
def test_pareto_front_matches_brute_force(values):
    df = pd.DataFrame(values, columns=["a", "b", "c"])
    front = pareto_front(df, ["a", "b", "c"])
    for i, row in enumerate(values):
        dominated = any(all(o[j] <= row[j] for j in range(3)) and any(o[j] < row[j] for j in range(3))
                        for o in values)
        assert front[i] == (not dominated)


def test_k_minimal_candidates_are_the_minimal_admissible_nodes():
    study = load_study(TEACHING)
    ds = load_dataset(study)
    ev = NodeEvaluator(ds.encoded, study.k, study.max_suppression)
    admissible = {n for n in ev.lattice.nodes() if ev.evaluate(n).k_anonymous}
    minimal = {n for n in admissible if not any(Lattice.leq(m, n) and m != n for m in admissible)}
    assert set(lattice_candidates(study, ds, "k_minimal")) == minimal
    assert set(lattice_candidates(study, ds, "all")) == admissible
    top = lattice_candidates(study, ds, "top", top_n=2)
    assert len(top) == 2 and set(top) <= admissible


def test_solutions_table_contract_and_derived_tables():
    study = load_study(TEACHING)
    ds = load_dataset(study)
    df = compare.solutions(study, ds)
    ids = list(study.compare)
    assert list(df.columns) == ["k", "engine", "algorithm", "solution", "suppressed", "suppressed_pct", *ids,
                                *RISK_COLUMNS, "meets_rule", "rule_failures"]
    assert set(df.engine) == {"lattice", "local"}
    tau = rank_agreement(df, ids)
    assert np.allclose(np.diag(tau), 1) and np.allclose(tau, tau.T, equal_nan=True)
    from scipy.stats import kendalltau

    assert tau.loc["dm", "entropy"] == pytest.approx(kendalltau(df.dm, df.entropy).statistic, nan_ok=True)
    best = optimal_under(df, ids)
    # one row per measure and solution set: k-minimal candidates, and each local release (greedy, partition, mondrian)
    assert len(best) == (1 + len(compare.COMPARED_LOCAL_ALGORITHMS)) * len(ids)
    for _, row in best.iterrows():
        assert row.value == df[(df.engine == row.engine) & (df.algorithm == row.algorithm)][row.measure].min()
        assert row.best_overall == (row.value == df[row.measure].min())
        assert row.scope == ("best of the candidates (k_minimal)" if row.engine == "lattice" else "the release")
    norm = normalized(df, ids)
    for m in ids:
        assert norm[f"{m}_norm"].between(0, 1).all()


def test_compare_cli_writes_the_tables(tmp_path, capsys):
    out = tmp_path / "cmp"
    assert main(["compare", str(TEACHING), "--k", "2,3", "--out", str(out)]) == 0
    table = pd.read_csv(out / "solutions.csv")
    assert sorted(set(table.k)) == [2, 3]
    assert list(table.columns[:4]) == ["k", "engine", "algorithm", "solution"]
    for name in ("normalized.csv", "rank_agreement.csv", "optimal_under.csv", "pareto.html", "sweep.html",
                 "risk_utility.csv", "risk_utility.html"):
        assert (out / name).exists(), name
    assert {*RISK_COLUMNS} <= set(table.columns)
    assert {*RISK_COLUMNS} <= set(pd.read_csv(out / "rank_agreement.csv", index_col=0).columns)
    assert main(["compare", str(TEACHING), "--k", "2,x"]) == 2
    assert "--k" in capsys.readouterr().err


def test_higher_is_better_measures_are_oriented():
    df = pd.DataFrame({"engine": ["lattice", "local"], "algorithm": ["k_minimal", "greedy"],
                       "solution": ["a", "b"], "loss": [0.5, 0.2], "nmi": [0.9, 0.4]})
    assert pareto_front(df, ["loss", "nmi"]).tolist() == [True, True]  # a trade-off
    best = optimal_under(df, ["nmi"])
    assert best[best.best_overall].solution.tolist() == ["a"]  # the higher nmi wins
    assert normalized(df, ["nmi"]).nmi_norm.tolist() == [0.0, 1.0]


def test_degradation_columns_for_the_chosen_solutions(tmp_path):
    """Model degradation runs for the solutions optimal under some measure and adds
    degradation_<classifier>_<metric> columns (the solutions.csv contract)."""
    study = load_study(ROOT / "sample_configs" / "registry.toml",
                       ['measures.compare=["precision","entropy","degradation"]', "data.rows=400"])
    ds = load_dataset(study)
    df = compare.solutions(study, ds)
    assert "degradation" not in df.columns
    out = model_degradation.add_degradation(df, study, ds, classifiers=("zeror", "naive_bayes"), folds=2, n_jobs=1)
    cols = [c for c in out.columns if c.startswith("degradation_")]
    assert "degradation_naive_bayes_auc_drop" in cols and "degradation_zeror_agreement" in cols
    chosen = out.dropna(subset=["degradation_zeror_accuracy_original"])
    assert 1 <= len(chosen) < len(out)
    assert (chosen.degradation_zeror_agreement == 1.0).all() and (chosen.degradation_zeror_auc_drop == 0).all()
    again = model_degradation.add_degradation(df, study, ds, classifiers=("zeror", "naive_bayes"), folds=2, n_jobs=1)
    pd.testing.assert_frame_equal(out, again)  # reproducible with the recorded seed


def test_nmi_is_one_at_the_bottom_and_zero_at_the_root_on_a_real_release():
    import measures as M
    from workbench.objective import target_codes
    from workbench.release import Release

    study = load_study(ROOT / "sample_configs" / "registry.toml", ["data.rows=500"])
    ds = load_dataset(study)
    target = target_codes(study, ds)
    bottom = Release.from_node(ds, tuple(0 for _ in ds.encoded), 1, 0.0)
    top = Release.from_node(ds, tuple(c.height for c in ds.encoded), 1, 0.0)
    assert M.score(bottom.view(), ["nmi"], target)["nmi"].value == pytest.approx(1.0)
    assert M.score(top.view(), ["nmi"], target)["nmi"].value == pytest.approx(0.0)


def test_target_that_is_a_quasi_identifier_is_refused(capsys):
    assert main(["run", str(ROOT / "sample_configs" / "registry.toml"), "--set", 'measures.target="age"']) == 2
    assert "leak" in capsys.readouterr().err


def test_sweep_over_suppression_limits(tmp_path):
    out = tmp_path / "s"
    assert main(["compare", str(TEACHING), "--k", "2", "--max-suppression", "0,0.2", "--out", str(out)]) == 0
    table = pd.read_csv(out / "solutions.csv")
    assert list(table.columns[:4]) == ["k", "engine", "algorithm", "solution"]
    assert table.columns[-1] == "max_suppression"
    assert sorted(set(table.max_suppression)) == [0.0, 0.2]


# ------------------------------------------------------------------ fast paths equal the definitions
def _random_study(seed: int, k: int, sup: float, max_rows: int = 40):
    """A random small table with random tree hierarchies and a random binary target, and its study."""
    from pathlib import Path

    from tests._random_tables import random_dataset
    from workbench.config import Study
    from workbench.data import Dataset

    base = random_dataset(seed, max_rows=max_rows)
    rng = np.random.default_rng(seed)
    frame = base.frame.assign(outcome=rng.choice(["yes", "no"], size=base.n))
    roles = {q: "quasi" for q in base.quasi_identifiers} | {"outcome": "target"}
    dataset = Dataset.create(frame, roles, base.hierarchies, source="random")
    compare_ids = ("height", "precision", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "loss", "vinterbo",
                   "col_mi", "pmi", "nmi")
    study = Study(source="random", base_dir=Path("."), data_path=None, separator=None, sample=None, rows=None,
                  attributes=(), k=k, max_suppression=sup, compare=compare_ids, target="outcome")
    return study, dataset


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), sup=st.sampled_from([0.0, 0.05, 0.2, 0.6]))
def test_candidates_match_every_node_evaluated(seed, k, sup):
    """Top-down tagging finds exactly the k-anonymous nodes a full scan finds (in lattice order); k above the
    number of records is refused (every node would pass a 60 % limit on a tiny table, releasing nothing)."""
    study, ds = _random_study(seed, k, sup)
    if ds.n < k:
        with pytest.raises(ConfigError, match="k exceeds the number of records"):
            lattice_candidates(study, ds, "all")
        return
    ev = NodeEvaluator(ds.encoded, k, sup)
    admissible = [n for n in ev.lattice.nodes() if ev.evaluate(n).k_anonymous]
    minimal = [n for n in admissible if not any(Lattice.leq(m, n) and m != n for m in admissible)]
    assert lattice_candidates(study, ds, "all") == admissible
    assert lattice_candidates(study, ds, "k_minimal") == minimal
    top = lattice_candidates(study, ds, "top", top_n=3)
    from workbench.views.lattice import lattice_table

    table = lattice_table(ev, [study.objective])
    best = table[table.k_anonymous].sort_values([study.objective, "rank"]).head(3)
    assert top == [tuple(int(v) for v in row) for row in best[ds.quasi_identifiers].to_numpy()]


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5), sup=st.sampled_from([0.0, 0.1, 0.5]))
def test_solution_rows_equal_an_independent_reference(seed, k, sup):
    """The lattice rows (every admissible node) hold the measures of docs/measures.md computed independently on the
    generalized labels (``tests._reference_measures``), and exactly the nodes whose own
    suppressed count is within the limit; the local rows equal running each local algorithm alone (the shared
    problem changes nothing); the two parts make the whole."""
    import math

    from tests._reference_measures import INDEPENDENT, node_of, reference_measures, reference_risk
    from workbench.study import run

    study, ds = _random_study(seed, k, sup)
    if ds.n < k:
        return
    df = compare.solutions(study, ds, "all")
    ids = list(study.compare)
    assert list(df.columns) == ["k", "engine", "algorithm", "solution", "suppressed", "suppressed_pct", *ids,
                                *RISK_COLUMNS, "meets_rule", "rule_failures"]
    lattice = df[df.engine == "lattice"]
    heights = [ds.hierarchies[q].height for q in ds.quasi_identifiers]
    limit = math.floor(sup * ds.n + 1e-9)
    expected, suppressed_at = {}, {}
    for node in Lattice(tuple(heights)).nodes():
        suppressed, values = reference_measures(ds, node, k)
        if suppressed <= limit:
            expected[node], suppressed_at[node] = values, suppressed
    assert [node_of(ds, s) for s in lattice.solution] == list(expected)
    for _, row in lattice.iterrows():
        reference = expected[node_of(ds, row.solution)]
        assert row.suppressed == suppressed_at[node_of(ds, row.solution)]  # records in classes smaller than k
        assert row.suppressed_pct == pytest.approx(100 * row.suppressed / ds.n)
        for m in INDEPENDENT:
            if m in ids:
                assert row[m] == pytest.approx(reference[m], rel=1e-9, abs=1e-12), (row.solution, m)
    for _, row in lattice.iterrows():  # risk after suppression, counted from the labels
        assert [row[c] for c in RISK_COLUMNS] == pytest.approx(
            reference_risk(ds, node_of(ds, row.solution), k), rel=1e-12), row.solution
    for _, row in df[df.engine == "local"].iterrows():
        assert row.suppressed == 0 and row.suppressed_pct == 0  # the local engine suppresses no record
        result = run(compare._local_study(study, row.algorithm), ds)
        scores = result.scores
        for m in ids:
            assert row[m] == scores[m].value or (np.isnan(row[m]) and np.isnan(scores[m].value)), (row.solution, m)
        sizes = result.release.table()[ds.quasi_identifiers].astype(str).value_counts().to_numpy()
        assert [row[c] for c in RISK_COLUMNS] == pytest.approx(
            [1 / sizes.min(), sizes.size / ds.n, sizes[sizes < 5].sum() / ds.n], rel=1e-12)
    pd.testing.assert_frame_equal(lattice.reset_index(drop=True), compare.lattice_solutions(study, ds, "all"))
    pd.testing.assert_frame_equal(df[df.engine == "local"].reset_index(drop=True), compare.local_solutions(study, ds))


def test_risk_utility_points_and_front():
    """The risk–utility table: one point per solution, its front the brute-force front of (utility, risk), both
    losses; the CLI writes it beside solutions.csv, and the risk columns rank with the measures."""
    study = load_study(TEACHING)
    df = compare.solutions(study, load_dataset(study))
    points = risk_utility(df, "dm", "risk_highest")
    assert list(points.risk) == list(df.risk_highest) and list(points.utility) == list(df.dm)
    for _, p in points.iterrows():
        dominated = ((points.utility <= p.utility) & (points.risk <= p.risk)
                     & ((points.utility < p.utility) | (points.risk < p.risk))).any()
        assert p.pareto == (not dominated)
    assert measure_directions(["dm", "risk_average"]) == {"dm": "lower is better",
                                                                 "risk_average": "lower is better"}
    tau = rank_agreement(df, ["dm", *RISK_COLUMNS])
    assert tau.shape == (4, 4)
    with pytest.raises(ValueError, match="risk must be one of"):
        risk_utility(df, "dm", "dm")


def test_progress_reaches_one_once_per_job():
    study = load_study(TEACHING)
    ds = load_dataset(study)
    seen: list[float] = []
    df = compare.solutions(study, ds, progress=lambda fraction, text: seen.append(fraction))
    assert len(seen) == len(df) and seen[-1] == 1.0 and seen == sorted(seen)


@settings(max_examples=examples(200), deadline=None)
@given(columns=st.lists(st.lists(st.integers(-3, 40), min_size=0, max_size=30), min_size=2, max_size=4))
def test_joint_codes_equal_the_unique_rows(columns):
    """nmi's tuple codes (a mixed-radix key) are the inverse of the unique rows (the definition)."""
    from measures._view import tuple_codes

    n = min(len(c) for c in columns)
    arrays = [np.asarray(c[:n], dtype=np.int64) for c in columns]
    expected = np.unique(np.stack(arrays, axis=1), axis=0, return_inverse=True)[1].reshape(-1) if n else []
    assert tuple_codes(arrays, n).tolist() == list(expected)
    if n:  # a release's classes are numbered the same way (Generalized.class_of_row)
        import measures as M

        shifted = [a + 3 for a in arrays]
        columns = tuple(M.GeneralizedColumn(f"c{j}", a, a, np.zeros(n, dtype=np.int64), 1,
                                            np.ones(44, dtype=np.int64)) for j, a in enumerate(shifted))
        view = M.Generalized(columns, np.zeros(n, dtype=bool), 2)
        assert view.class_of_row.tolist() == list(expected)


@settings(max_examples=examples(60), deadline=None)
@given(lattice=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=0, max_size=6),
       local=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=2))
def test_global_vs_local_against_a_direct_reading(lattice, local):
    """The best lattice row under the objective next to each local row; 'better' read off by hand."""
    names = ["greedy", "partition"][: len(local)]
    df = pd.DataFrame([{"k": 3, "engine": "lattice", "algorithm": "k_minimal", "solution": f"n{i}", "loss": a,
                        "nmi": b} for i, (a, b) in enumerate(lattice)]
                      + [{"k": 3, "engine": "local", "algorithm": n, "solution": n, "loss": a, "nmi": b}
                         for n, (a, b) in zip(names, local, strict=True)])
    out = global_vs_local(df, "loss", ["loss", "nmi"]).set_index("measure")
    shown = {}
    if lattice:
        best = min(range(len(lattice)), key=lambda i: (lattice[i][0], i))  # lowest loss, first listed
        shown["lattice"] = lattice[best]
    shown |= dict(zip(names, local, strict=True))
    assert [c for c in out.columns if "(" not in c and c not in ("direction", "better")] == list(shown)
    for j, m in enumerate(["loss", "nmi"]):
        values = {name: v[j] for name, v in shown.items()}
        assert {name: out.loc[m, name] for name in shown} == values
        goal = min(values.values()) if m == "loss" else max(values.values())
        winners = [name for name, v in values.items() if v == goal]
        assert out.loc[m, "better"] == ("tie" if len(winners) == len(values) > 1 else ", ".join(winners))
        column = df[m].astype(float) if m == "loss" else -df[m].astype(float)
        span = column.max() - column.min()
        for name, v in values.items():
            expected = ((v if m == "loss" else -v) - column.min()) / span if span else 0.0
            assert out.loc[m, f"{name} (normalized)"] == pytest.approx(expected)
    assert out.loc["nmi", "direction"] == "higher is better"


def test_degradation_summary_reshapes_the_chosen_rows():
    study = load_study(ROOT / "sample_configs" / "registry.toml",
                       ['measures.compare=["precision","entropy"]', "data.rows=300"])
    ds = load_dataset(study)
    df = compare.solutions(study, ds)
    chosen = [0, int(df.index[df.engine == "local"][0])]
    out = model_degradation.add_degradation(df, study, ds, rows=chosen, classifiers=("zeror", "naive_bayes"), folds=2,
                                  n_jobs=1)
    summary = model_degradation.degradation_summary(out)
    assert sorted(set(summary.row)) == chosen and set(summary.classifier) == {"zeror", "naive_bayes"}
    for _, r in summary.iterrows():
        assert r.accuracy_drop == out.loc[r.row, f"degradation_{r.classifier}_accuracy_drop"]
        assert r.auc_drop == pytest.approx(r.auc_original - r.auc_released)
        assert r.solution == df.loc[r.row, "solution"]


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), sup=st.sampled_from([0.0, 0.1, 0.5]))
def test_node_view_is_the_releases_view(seed, k, sup):
    """The lattice rows' view of a node equals Release.from_node(...).view() array for array."""
    from workbench.release import Release

    study, ds = _random_study(seed, k, sup)
    ev = NodeEvaluator(ds.encoded, k, sup)
    for node in ev.lattice.nodes():
        mine = compare._node_view(ds, ev, node)
        reference = Release.from_node(ds, node, k, sup).view()
        assert mine.k == reference.k and (mine.suppressed == reference.suppressed).all()
        for a, b in zip(mine.columns, reference.columns, strict=True):
            assert (a.name, a.max_height) == (b.name, b.max_height)
            for attr in ("original", "released", "height", "leaf_count"):
                assert np.array_equal(getattr(a, attr), getattr(b, attr)), attr
            assert a.covers is None and b.covers is None
