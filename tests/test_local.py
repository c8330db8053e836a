"""Local engine (Katirai 2006): posets, LUBs, Greedy, overlapping Greedy and Partition."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._random_tables import random_dataset
from tests.conftest import ROOT
from workbench.cli import main
from workbench.errors import HierarchyError
from workbench.local import greedy, greedy_overlapping, partition
from workbench.local.lub import LocalColumn, LocalProblem
from workbench.local.posets import FinitePoset, RangePoset
from workbench.release import Release

ZIP_EDGES = [("021", "*"), ("0213", "021"), ("0214", "021"), ("02138", "0213"), ("02139", "0213"),
             ("02140", "0214"), ("02141", "0214")]
ALGORITHMS = {"greedy": greedy.search, "greedy_overlapping": greedy_overlapping.search,
              "partition": partition.search}


def test_katirai_zip_matrix_poset():
    """Katirai Example 3: LUB("0213", "0214") = {"021"}; heights 0..3 (the toolkit's 1-based levels − 1)."""
    p = FinitePoset.from_edges(ZIP_EDGES, ["02138", "02139", "02140", "02141"])
    node = {name: i for i, name in enumerate(p.names)}
    table = p.lub_table()
    assert p.names[table[node["0213"], node["0214"]]] == "021"
    assert p.names[table[node["02138"], node["02139"]]] == "0213"
    assert p.names[table[node["02139"], node["02139"]]] == "02139"  # ancestor-or-self
    assert p.names[table[node["02139"], node["021"]]] == "021"
    assert p.heights[node["*"]] == 3 and p.max_height == 3 and p.heights[node["02139"]] == 0
    assert p.leaf_count[node["021"]] == 4 and p.leaf_count[node["0214"]] == 2
    assert p.names[p.group_lub(np.array([node["02138"], node["02139"], node["02140"]]))] == "021"


def test_katirai_range_poset_example():
    """Katirai Example 1: [10, 30] LUB [20, 35] = [10, 35] (an upper bound, not always least)."""
    p = RangePoset.from_values(["10", "20", "30", "35"])
    a = p.pack(np.array(0), np.array(2))
    b = p.pack(np.array(1), np.array(3))
    lub = p.lub(a, b)
    assert p.label(np.array([lub]))[0] == "[10, 35]"
    assert p.cost(np.array([lub]))[0] == pytest.approx(1.0)  # the whole 10..35 span
    assert RangePoset.from_values(["10", "35"], max_diff=25).cost(np.array([1]))[0] == pytest.approx(1.0)
    labels = np.array(["[10, 35]", "30", "[10, 20]"], dtype=object)
    assert p.label_covers(labels, np.array(["30", "30", "30"])).tolist() == [True, True, False]


def test_multi_parent_lub_takes_the_cheapest_common_ancestor():
    """A value with two parents (Katirai Def. 1): LUB is the least-measure common ancestor (Def. 3)."""
    edges = [("a", "ab"), ("b", "ab"), ("a", "ac"), ("c", "ac"), ("ab", "abc"), ("ac", "abc"), ("abc", "*"),
             ("b", "*"), ("c", "*")]
    p = FinitePoset.from_edges(edges, ["a", "b", "c"])
    node = {name: i for i, name in enumerate(p.names)}
    t = p.lub_table()
    assert p.names[t[node["a"], node["b"]]] == "ab" and p.names[t[node["a"], node["c"]]] == "ac"
    assert p.names[t[node["b"], node["c"]]] == "abc"
    assert p.names[t[node["ab"], node["c"]]] == "abc"


def test_poset_errors():
    with pytest.raises(HierarchyError, match="exactly one top"):
        FinitePoset.from_edges([("a", "x"), ("b", "y")], ["a", "b"])
    with pytest.raises(HierarchyError, match="cycle"):
        FinitePoset.from_edges([("a", "b"), ("b", "a"), ("b", "*")], ["a"])
    with pytest.raises(HierarchyError, match="no node"):
        FinitePoset.from_edges([("a", "*")], ["a", "zz"])
    with pytest.raises(HierarchyError, match="numbers"):
        RangePoset.from_values(["1", "x"])


def _problem(ds, range_first: bool = False):
    columns, states = [], []
    for j, c in enumerate(ds.encoded):
        values = list(c.labels[0])
        if range_first and j == 0:
            values_num = [str(i) for i in range(len(values))]  # numeric stand-ins, same order
            poset = RangePoset.from_values(values_num)
        else:
            poset = FinitePoset.from_tree(ds.hierarchies[c.name], values)
        columns.append(LocalColumn(c.name, poset))
        states.append(np.asarray(poset.leaves)[c.codes])
    return columns, np.stack(states, axis=1)


def _covered_counts(problem: LocalProblem, columns, released_rows: np.ndarray, leaf_states: np.ndarray):
    """For each released row: how many original records it generalizes (brute force over records)."""
    counts = []
    for row in released_rows:
        ok = np.ones(len(leaf_states), dtype=bool)
        for j, col in enumerate(columns):
            p = col.poset
            if isinstance(p, FinitePoset):
                ok &= p.ancestors[leaf_states[:, j], row[j]]
            else:
                lo, hi = p.ends(np.array(row[j]))
                leaf_lo, _ = p.ends(leaf_states[:, j])
                ok &= (lo <= leaf_lo) & (leaf_lo <= hi)
        counts.append(int(ok.sum()))
    return np.array(counts)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6), algorithm=st.sampled_from(sorted(ALGORITHMS)),
       use_range=st.booleans())
def test_local_releases_keep_their_guarantee(seed, k, algorithm, use_range):
    ds = random_dataset(seed, max_rows=50, max_qis=3)
    if ds.n < k:
        return
    columns, leaf_states = _problem(ds, use_range)
    problem = LocalProblem.build(columns, leaf_states)
    result = ALGORITHMS[algorithm](problem, k)
    # every released row is an upper bound of its original row
    for j, col in enumerate(columns):
        p = col.poset
        if isinstance(p, FinitePoset):
            assert p.ancestors[leaf_states[:, j], result.released[:, j]].all()
        else:
            lo, hi = p.ends(result.released[:, j])
            v, _ = p.ends(leaf_states[:, j])
            assert ((lo <= v) & (v <= hi)).all()
    distinct, sizes = np.unique(result.released, axis=0, return_counts=True)
    if algorithm == "greedy_overlapping":
        assert result.guarantee == "k-ambiguity"
        assert (_covered_counts(problem, columns, distinct, leaf_states) >= k).all()
    else:
        assert result.guarantee == "k-anonymity" and sizes.min() >= k
        assert (np.bincount(result.cluster) >= k).all()
    if not use_range:
        release = Release.from_local(ds, columns, result, k)
        assert release.verify().holds
        view = release.view()
        for c in view.columns:  # f̄(g) counts the records whose original value is under g
            assert (c.f_bar[c.released] >= np.bincount(c.original)[c.original]).all()
        for mid, score in M.score(view).items():
            assert score.value >= -1e-9, (mid, score.value)


def test_greedy_takes_identical_rows_first_and_prefers_cheap_merges():
    frame = pd.DataFrame({"zip": ["02138", "02139", "02140", "02141", "02138", "02139"]})
    p = FinitePoset.from_edges(ZIP_EDGES, ["02138", "02139", "02140", "02141"])
    col = LocalColumn("zip", p)
    values = frame["zip"].tolist()
    states = np.array([[p.leaves[["02138", "02139", "02140", "02141"].index(v)]] for v in values])
    r = greedy.search(LocalProblem.build([col], states), 2)
    labels = p.label(r.released[:, 0]).tolist()
    assert labels == ["02138", "02139", "0214", "0214", "02138", "02139"]


def test_run_local_through_the_cli(tmp_path, capsys):
    cfg = str(ROOT / "sample_configs" / "teaching.toml")
    for algorithm in ALGORITHMS:
        out = tmp_path / algorithm
        code = main(["run", cfg, "--set", "engine.kind=local", "--set", f"engine.algorithm={algorithm}",
                     "--set", "engine.objective=vinterbo", "--set", "privacy.k=3", "--json", "--out", str(out)])
        s = json.loads(capsys.readouterr().out)
        assert code == 0 and s["engine"] == "local" and s["transformation"] is None
        table = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False)
        prov = json.loads((out / "provenance.json").read_text())
        assert prov["guarantee"]["holds"]
        if algorithm == "greedy_overlapping":
            assert prov["guarantee"]["kind"] == "k-ambiguity"
        else:
            assert table.groupby(["date", "gender", "age"]).size().min() >= 3 and s["k_anonymous"]


def test_range_poset_from_config(capsys):
    cfg = str(ROOT / "sample_configs" / "registry.toml")
    code = main(["run", cfg, "--set", "engine.kind=local", "--set", "engine.algorithm=partition", "--set",
                 "engine.objective=vinterbo", "--set", "attributes.age.poset=range", "--set",
                 "attributes.age.max_diff=25", "--json"])
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["k_anonymous"] and s["suppressed"] == 0


def test_passthrough_poset_is_refused_with_the_role_to_use(capsys):
    """Katirai's PassThroughPoset releases a column unchanged: as a quasi-identifier it would break the
    guarantee (it used to end in a failed re-verification), so the config says what to do instead."""
    cfg = str(ROOT / "sample_configs" / "registry.toml")
    assert main(["run", cfg, "--set", "engine.kind=local", "--set", "engine.algorithm=greedy", "--set",
                 "engine.objective=vinterbo", "--set", "attributes.sex.poset=passthrough"]) == 2
    err = capsys.readouterr().err
    assert "attributes.sex.poset = 'passthrough'" in err and "role 'insensitive'" in err


def test_overlapping_greedy_release_has_no_clustering_table():
    """Overlapping Greedy's groups overlap (k-ambiguity): no record has a cluster, so there are no cluster
    sizes to show (the Anonymize page used to fail on them)."""
    from workbench.config import study_from_dict
    from workbench.study import run

    result = run(study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 2},
                                  "engine": {"kind": "local", "algorithm": "greedy_overlapping",
                                             "objective": "vinterbo"}}))
    assert result.guarantee.kind == "k-ambiguity" and result.guarantee.holds
    assert result.release.cluster_sizes() is None
    greedy_run = run(study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 2},
                                      "engine": {"kind": "local", "algorithm": "greedy", "objective": "vinterbo"}}))
    sizes = greedy_run.release.cluster_sizes()
    assert sizes.records.sum() == 10 and sizes["size"].min() >= 2


def test_local_rejects_lattice_objectives(capsys):
    cfg = str(ROOT / "sample_configs" / "teaching.toml")
    assert main(["run", cfg, "--set", "engine.kind=local", "--set", "engine.algorithm=greedy"]) == 2
    assert "cannot guide the local engine" in capsys.readouterr().err


def test_power_dob_and_multivalue_posets_through_the_cli(tmp_path, capsys):
    """A table with a date of birth, flag bits and a set of diagnosis codes (Katirai §4.3.3-4.3.7), each
    generalized by its own poset, run through `workbench run` with `--out`."""
    rng = np.random.default_rng(3)
    n = 60
    dob = [f"19{rng.integers(50, 99)}-{rng.integers(1, 13):02d}-{rng.integers(1, 28):02d}" for _ in range(n)]
    flags = ["".join(rng.choice(["0", "1"], size=3)) for _ in range(n)]
    codes = ["I21", "I25", "J18", "J45"]
    dx = [";".join(sorted(set(rng.choice(codes, size=int(rng.integers(0, 3)))))) for _ in range(n)]
    pd.DataFrame({"dob": dob, "flags": flags, "dx": dx}).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "icd.toml").write_text(
        'edges = [["I21", "I20-I25"], ["I25", "I20-I25"], ["J18", "J09-J18"], ["J45", "J40-J47"],\n'
        '         ["I20-I25", "*"], ["J09-J18", "J"], ["J40-J47", "J"], ["J", "*"]]\n')
    (tmp_path / "c.toml").write_text(
        '[data]\npath = "d.csv"\n'
        '[attributes.dob]\nrole = "quasi"\nposet = "date_of_birth"\nbase_date = "2006-01-01"\n'
        'age_bands = [20, 40, 60, 80]\n'
        '[attributes.flags]\nrole = "quasi"\nposet = "power"\n'
        '[attributes.dx]\nrole = "quasi"\nposet = "multivalue"\nposet_file = "icd.toml"\n'
        '[privacy]\nk = 4\n[engine]\nkind = "local"\nalgorithm = "partition"\nobjective = "vinterbo"\n'
        '[measures]\ncompare = ["vinterbo", "loss", "entropy"]\n')
    for algorithm in ("partition", "greedy"):
        out = tmp_path / algorithm
        code = main(["run", str(tmp_path / "c.toml"), "--set", f"engine.algorithm={algorithm}", "--json",
                     "--out", str(out)])
        s = json.loads(capsys.readouterr().out)
        assert code == 0 and s["k_anonymous"], s
        table = pd.read_csv(out / "release.csv", dtype=str, keep_default_na=False)
        assert table.groupby(["dob", "flags", "dx"]).size().min() >= 4
        assert all(v >= 0 for v in s["measures"].values())


def test_col_mi_weights_option_reaches_measure_and_engine(capsys):
    cfg = str(ROOT / "sample_configs" / "registry.toml")
    values = {}
    for kind in ("mi", "mi_ratio"):
        assert main(["run", cfg, "--set", "engine.kind=local", "--set", "engine.algorithm=partition", "--set",
                     "engine.objective=col_mi", "--set", f'measures.col_mi_weights="{kind}"', "--set",
                     'measures.compare=["col_mi"]', "--json"]) == 0
        values[kind] = json.loads(capsys.readouterr().out)["measures"]["col_mi"]
    assert values["mi"] > 0 and values["mi_ratio"] > values["mi"]  # ratios are far larger than MI in bits
    assert main(["run", cfg, "--set", 'measures.col_mi_weights="magic"']) == 2
    assert "col_mi_weights" in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_lub_table_is_the_least_cost_common_ancestor_by_brute_force(seed, monotone):
    """On random DAG posets with one top, under the Vinterbo cost or arbitrary (PMI-like) node costs: each
    entry is the (cost, id)-least node above both, checked pair by pair from the ancestor relation, and a
    value's LUB with itself is the value (a cheaper ancestor under a non-monotone cost does not count)."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(3, 14))
    edges = [(f"n{i}", "top") for i in range(size)]
    for child in range(size):  # extra parents among higher-numbered nodes keep the graph acyclic
        for parent in range(child + 1, size):
            if rng.random() < 0.25:
                edges.append((f"n{child}", f"n{parent}"))
    leaves = [f"n{i}" for i in range(size) if not any(p == f"n{i}" for _, p in edges)]
    poset = FinitePoset.from_edges(edges, leaves)
    cost = None if monotone else rng.normal(size=poset.size).round(1)  # rounding makes ties
    table = poset.lub_table(cost)
    c = poset.cost_table if cost is None else cost
    anc = poset.ancestors
    for v in range(poset.size):
        for w in range(poset.size):
            common = [a for a in range(poset.size) if anc[v, a] and anc[w, a]]
            assert table[v, w] == (v if v == w else min(common, key=lambda a: (c[a], a)))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), max_cells=st.sampled_from([1, 50, 4_000_000]))
def test_group_lubs_are_each_groups_lub(seed, max_cells):
    """All groups at once (chunked down to one group per step with a tiny ``max_cells``) equal one
    ``group_lub`` per group, on random DAG posets under random node costs and on range posets."""
    rng = np.random.default_rng(seed)
    size = int(rng.integers(3, 14))
    edges = [(f"n{i}", "top") for i in range(size)]
    edges += [(f"n{c}", f"n{p}") for c in range(size) for p in range(c + 1, size) if rng.random() < 0.25]
    poset = FinitePoset.from_edges(edges, [f"n{i}" for i in range(size) if not any(p == f"n{i}" for _, p in edges)])
    cost = rng.normal(size=poset.size).round(1)
    sizes = rng.integers(1, 6, size=int(rng.integers(1, 12)))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    nodes = rng.integers(0, poset.size, size=int(sizes.sum()))
    ends = [*starts[1:], len(nodes)]
    expected = [poset.group_lub(nodes[a:b], cost) for a, b in zip(starts, ends, strict=True)]
    assert poset.group_lubs(nodes, starts, cost, max_cells=max_cells).tolist() == expected
    ranges = RangePoset.from_values([str(v) for v in rng.integers(0, 20, size=8)])
    states = ranges.lub(rng.choice(ranges.leaves, size=len(nodes)), rng.choice(ranges.leaves, size=len(nodes)))
    expected = [ranges.group_lub(states[a:b]) for a, b in zip(starts, ends, strict=True)]
    assert ranges.group_lubs(states, starts).tolist() == expected


def _greedy_by_the_letter(problem: LocalProblem, k: int) -> list[list[int]]:
    """Katirai Fig. 11 made disjoint, written plainly (no bookkeeping): the clusters' distinct rows."""
    remaining, clusters = problem.counts.copy(), []
    for d in np.flatnonzero(remaining >= k):
        clusters.append([int(d)])
        remaining[d] = 0
    for seed in range(len(problem.rows)):
        if remaining[seed] == 0:
            continue
        group, state, need = [seed], problem.rows[seed].copy(), k - int(remaining[seed])
        remaining[seed] = 0
        while need > 0 and remaining.any():
            candidates = np.flatnonzero(remaining)
            best = int(candidates[np.argmin(problem.cost_of_lub(state, problem.rows[candidates]))])
            take = min(need, int(remaining[best]))
            group.append(best)
            remaining[best] -= take
            need -= take
            state = problem.lub_rows(state, problem.rows[best][None, :])[0]
        if need == 0:
            clusters.append(group)
    return clusters


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), use_range=st.booleans(),
       min_batch=st.sampled_from([256, 1]))
def test_greedy_picks_what_the_plain_algorithm_picks(seed, k, use_range, min_batch):
    """``min_batch=1`` drops removed rows from Greedy's pool almost at once, exercising the compaction."""
    ds = random_dataset(seed, max_rows=60, max_qis=3)
    if ds.n < k:
        return
    problem = LocalProblem.build(*_problem(ds, use_range))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(greedy._Pool, "min_batch", min_batch)
        result = greedy.search(problem, k)
    expected = _greedy_by_the_letter(problem, k)
    got = [{int(problem.row_of[i]) for i in np.flatnonzero(result.cluster == c)}
           for c in range(int(result.cluster.max()) + 1)]
    assert len(got) == len(expected)  # leftover rows (fewer than k at the end) only join existing clusters
    assert all(set(e) <= g for e, g in zip(expected, got, strict=True))


def test_range_labels_keep_the_datas_own_text():
    """ZIP codes keep their leading zero in a released value or interval; a number written two ways (1.5 and
    1.50) is shown as a number. The labels still read back as covering their values."""
    zips = RangePoset.from_values(["02139", "02138", "02141", "02139"])
    leaves = np.asarray(zips.leaves)
    assert zips.label(leaves).tolist() == ["02139", "02138", "02141", "02139"]
    merged = zips.lub(leaves[1], leaves[2])
    assert zips.label(np.array([merged])).tolist() == ["[02138, 02141]"]
    assert zips.label_covers(np.array(["[02138, 02141]"] * 3), np.array(["02138", "02139", "02141"])).all()
    mixed = RangePoset.from_values(["1.5", "1.50", "2"])
    assert mixed.label(np.asarray(mixed.leaves)).tolist() == ["1.5", "1.5", "2"]
