"""Node drill-down (workbench.views.node_details) against independent references: the cell-level measures of the
node's Release (measures.score, as score_release does) and brute force with pandas on small random tables."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _random_tables import random_dataset
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._examples import examples
from workbench.config import Study
from workbench.errors import ConfigError
from workbench.lattice.space import Lattice
from workbench.release import Release
from workbench.study import evaluator_for
from workbench.views.lattice import lattice_table
from workbench.views.node_details import DECOMPOSITION, NOT_DECOMPOSABLE, node_details, node_diff


def _study(k: int, max_suppression: float = 0.0) -> Study:
    return Study(source="test", base_dir=Path("."), data_path=None, separator=None, sample=None, rows=None,
                 attributes=(), k=k, max_suppression=max_suppression)


def _random_node(ds, rng) -> tuple[int, ...]:
    return tuple(int(rng.integers(0, c.height + 1)) for c in ds.encoded)


def _brute_classes(ds, node) -> dict[tuple[str, ...], int]:
    """Equivalence classes by the released labels of every quasi-identifier (all n records)."""
    labels = [[c.labels[v][c.level_codes[code, v]] for code in c.codes] for c, v in zip(ds.encoded, node, strict=True)]
    out: dict[tuple[str, ...], int] = {}
    for row in zip(*labels, strict=True):
        out[row] = out.get(row, 0) + 1
    return out


def _brute_column(ds, j: int, node, k: int) -> dict[str, float]:
    """Per-attribute measures of column j from their definitions in docs/measures.md, with pandas."""
    c, v = ds.encoded[j], node[j]
    H, n, r = c.height, ds.n, len(ds.encoded)
    original = pd.Series(ds.frame[c.name].to_numpy())
    released = pd.Series([c.labels[v][c.level_codes[code, v]] for code in c.codes])
    classes = _brute_classes(ds, node)
    keys = list(zip(*[[cc.labels[vv][cc.level_codes[code, vv]] for code in cc.codes]
                      for cc, vv in zip(ds.encoded, node, strict=True)], strict=True))
    suppressed = np.array([classes[key] < k for key in keys])
    S = int(suppressed.sum())
    f = original.map(original.value_counts())
    f_bar = released.map(released.value_counts())
    entropy = float(np.log2(f_bar / f).sum())
    c_y = released[suppressed].value_counts()
    charge = float((c_y * np.log2(S / c_y)).sum()) if S else 0.0
    rows = ds.hierarchies[c.name].rows  # ARX's loss: shares of the hierarchy's rows (docs/measures.md)
    D = len(rows)
    rows_under: dict[str, int] = {}
    for row in rows:
        rows_under[row[v]] = rows_under.get(row[v], 0) + 1
    a = sum(rows_under[g] / D for g, gone in zip(released, suppressed, strict=True) if not gone) + S
    loss = max(0.0, (a - n / D) / (n - n / D)) if D > 1 else 0.0
    share = v / H if H else 0.0
    return {
        "height": float(v),
        "precision": share / r,
        "precision_nm": ((share * (n - S) + S) / n) / r,
        "entropy": entropy,
        "entropy_nm": entropy + charge,
        "loss": math.floor(loss * 1e10 + 1e-6) / 1e10,  # ARX floors to 10 decimals; 1e-6 absorbs float error
        "vinterbo": n * share,
    }


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_contributions_sum_to_the_cell_level_measure(seed, k):
    ds = random_dataset(seed)
    node = _random_node(ds, np.random.default_rng(seed))
    details = node_details(_study(k), ds, node)
    reference = M.score(Release.from_node(ds, node, k, 0.0).view(), list(M.LATTICE_MEASURES))
    for i in DECOMPOSITION:
        parts = details.contributions[details.contributions.measure == i]
        assert list(parts.attribute) == ds.quasi_identifiers
        assert math.isclose(parts.contribution.sum(), reference[i].value, rel_tol=1e-9, abs_tol=1e-9), i
        assert math.isclose(details.measures[i], reference[i].value, rel_tol=1e-12, abs_tol=1e-12), i
    for i in NOT_DECOMPOSABLE:  # DM, DM*, AECS: said so, and no number invented
        assert i in details.not_decomposable and i not in set(details.contributions.measure)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_each_attribute_contribution_matches_brute_force(seed, k):
    ds = random_dataset(seed, max_rows=30)
    node = _random_node(ds, np.random.default_rng(seed + 1))
    details = node_details(_study(k), ds, node)
    table = details.contributions.set_index(["measure", "attribute"])
    expected = {name: _brute_column(ds, j, node, k) for j, name in enumerate(ds.quasi_identifiers)}
    logs = {name: math.log1p(e["loss"]) for name, e in expected.items()}
    whole = math.prod(1 + e["loss"] for e in expected.values()) ** (1 / len(expected)) - 1
    for name, e in expected.items():
        for i, value in e.items():
            if i == "loss":  # ARX's v_j; its part of the geometric mean in proportion to ln(1 + v_j)
                assert math.isclose(table.loc[(i, name), "value"], value, rel_tol=1e-9, abs_tol=1e-9), name
                part = whole * logs[name] / sum(logs.values()) if sum(logs.values()) else 0.0
                assert math.isclose(table.loc[(i, name), "contribution"], part, rel_tol=1e-9, abs_tol=1e-9), name
            else:
                assert math.isclose(table.loc[(i, name), "contribution"], value, rel_tol=1e-9, abs_tol=1e-9), (i, name)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), sup=st.sampled_from([0.0, 0.1, 0.5]))
def test_class_sizes_and_suppressed_records_match_brute_force(seed, k, sup):
    ds = random_dataset(seed)
    node = _random_node(ds, np.random.default_rng(seed + 2))
    details = node_details(_study(k, sup), ds, node, sample=5)
    sizes = pd.Series(list(_brute_classes(ds, node).values()))
    expected = sizes.value_counts().sort_index()
    assert list(details.class_sizes["size"]) == list(expected.index)
    assert list(details.class_sizes["classes"]) == list(expected.values)
    assert details.class_sizes["records"].sum() == ds.n
    assert list(details.class_sizes["suppressed"]) == [s < k for s in expected.index]
    S = int(sizes[sizes < k].sum())
    assert details.suppressed == S and details.classes_before_suppression == len(sizes)
    assert details.classes == int((sizes >= k).sum())  # the classes of the records not suppressed
    assert details.k_anonymous == (S <= math.floor(sup * ds.n + 1e-9))
    # the sample: suppressed records' original values, rows of the input table
    assert len(details.suppressed_sample) == min(5, S)
    classes = _brute_classes(ds, node)
    for row in details.suppressed_sample.index:
        key = tuple(c.labels[v][c.level_codes[c.codes[row], v]] for c, v in zip(ds.encoded, node, strict=True))
        assert classes[key] < k
    pd.testing.assert_frame_equal(details.suppressed_sample, ds.frame.loc[details.suppressed_sample.index,
                                                                           ds.quasi_identifiers])


def test_details_agree_with_the_lattice_table():
    ds = random_dataset(11, max_rows=40, max_qis=3)
    study = _study(2, 0.1)
    table = lattice_table(evaluator_for(study, ds)).set_index("node")
    for node in Lattice(tuple(c.height for c in ds.encoded), tuple(ds.quasi_identifiers)).nodes():
        d = node_details(study, ds, node)
        row = table.loc[d.label]
        assert (d.classes, d.suppressed, d.k_anonymous) == (row.classes, row.suppressed, row.k_anonymous)
        for i in M.LATTICE_MEASURES:
            assert math.isclose(d.measures[i], row[i], rel_tol=1e-9, abs_tol=1e-9), i


@settings(max_examples=examples(30), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5))
def test_diff_against_brute_force(seed, k):
    ds = random_dataset(seed)
    rng = np.random.default_rng(seed + 3)
    a, b = _random_node(ds, rng), _random_node(ds, rng)
    diff = node_diff(_study(k), ds, a, b)
    assert list(diff.levels["a"]) == list(a) and list(diff.levels["b"]) == list(b)
    assert list(diff.levels["difference"]) == [y - x for x, y in zip(a, b, strict=True)]
    summary = diff.summary.set_index("quantity")
    ra, rb = Release.from_node(ds, a, k, 0.0), Release.from_node(ds, b, k, 0.0)
    sa, sb = M.score(ra.view(), list(M.LATTICE_MEASURES)), M.score(rb.view(), list(M.LATTICE_MEASURES))
    for i in M.LATTICE_MEASURES:
        assert summary.loc[i, "a"] == sa[i].value and summary.loc[i, "b"] == sb[i].value
        assert summary.loc[i, "difference"] == sb[i].value - sa[i].value
    ca, cb = _brute_classes(ds, a), _brute_classes(ds, b)
    kept_a, kept_b = (sum(1 for size in c.values() if size >= k) for c in (ca, cb))  # classes not suppressed
    assert summary.loc["classes", "a"] == kept_a and summary.loc["classes", "b"] == kept_b
    assert summary.loc["suppressed", "b"] - summary.loc["suppressed", "a"] == summary.loc["suppressed", "difference"]
    # records released with a different value per attribute (a suppressed record reads "*")
    for j, (c, name) in enumerate(zip(ds.encoded, ds.quasi_identifiers, strict=True)):
        def shown(node, classes, c=c, j=j):
            out = []
            for row in range(ds.n):
                key = tuple(cc.labels[v][cc.level_codes[cc.codes[row], v]] for cc, v in zip(ds.encoded, node,
                                                                                           strict=True))
                out.append("*" if classes[key] < k else key[j])
            return out
        changed = sum(x != y for x, y in zip(shown(a, ca), shown(b, cb), strict=True))
        assert diff.changed.set_index("attribute").loc[name, "records_changed"] == changed


def test_diff_of_a_node_with_itself_is_zero():
    ds = random_dataset(5)
    node = tuple(c.height for c in ds.encoded)
    diff = node_diff(_study(2), ds, node, node)
    assert (diff.summary["difference"] == 0).all() and (diff.changed["records_changed"] == 0).all()


def test_nodes_given_as_text_and_bad_nodes_are_named():
    ds = random_dataset(7, max_qis=3)
    names = ds.quasi_identifiers
    node = tuple(c.height for c in ds.encoded)
    text = ",".join(f"{q}={v}" for q, v in zip(names, node, strict=True))
    assert node_details(_study(2), ds, text).node == node
    with pytest.raises(ConfigError, match="level"):
        node_details(_study(2), ds, node[:-1] + (node[-1] + 1,))
    with pytest.raises(ConfigError, match="quasi-identifier"):
        node_details(_study(2), ds, node + (0,))
    with pytest.raises(ConfigError, match="nosuch"):
        node_diff(_study(2), ds, node, f"nosuch=0,{text}")
    with pytest.raises(ConfigError, match="unknown measure"):
        node_details(_study(2), ds, node, ids=["precision", "nope"])
    with pytest.raises(ConfigError, match="sample"):
        node_details(_study(2), ds, node, sample=-1)


def test_registry_node_details_and_diff():
    """The embedded registry: per-attribute contributions sum to the lattice table's values at a mid node."""
    from workbench.samples import load_sample

    sample = load_sample("registry")
    from workbench.data import Dataset

    ds = Dataset.create(sample.frame, dict(sample.roles), dict(sample.hierarchies), source="registry")
    study = _study(5, 0.02)
    node = tuple(min(2, c.height) for c in ds.encoded)
    d = node_details(study, ds, node)
    row = lattice_table(evaluator_for(study, ds), nodes=[node]).iloc[0]
    assert d.suppressed == row.suppressed and d.classes == row.classes
    for i in DECOMPOSITION:
        total = d.contributions[d.contributions.measure == i].contribution.sum()
        assert math.isclose(total, row[i], rel_tol=1e-9), i
    top = tuple(c.height for c in ds.encoded)
    diff = node_diff(study, ds, node, top)
    moved = diff.changed.set_index("attribute")["records_changed"]
    for name, a, b in zip(ds.quasi_identifiers, node, top, strict=True):
        assert (moved[name] > 0) if a != b else (moved[name] <= d.suppressed), name  # same level: only "*" moves
