"""ARX hierarchy format: reading, writing, validation that reports every problem at once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from tests._random_tables import random_hierarchy
from tests.conftest import ADULT
from workbench.errors import HierarchyError
from workbench.hierarchy.tree import Hierarchy


def test_parse_and_levels():
    h = Hierarchy.parse_arx("M;Person\nF;Person\n", name="sex")
    assert h.height == 1 and h.values == ["M", "F"] and h.level_labels(1) == ["Person"]
    assert h.validate(["M", "F"]).ok


def test_empty_value_is_an_ordinary_row():
    h = Hierarchy.parse_arx(";missing;*\na;A;*\n")
    assert h.values == ["", "a"] and h.validate(["", "a"]).ok


@settings(max_examples=examples(50), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), leaves=st.integers(1, 8), height=st.integers(0, 4))
def test_arx_round_trip(seed, leaves, height):
    import numpy as np

    h = random_hierarchy(np.random.default_rng(seed), "x", leaves, height)
    again = Hierarchy.parse_arx(h.to_arx(), name="x")
    assert again.rows == h.rows and again.validate(h.values).ok


def test_values_with_separator_or_quotes_round_trip():
    h = Hierarchy.from_rows([["a;b", "g\"1", "*"], ["c", "g\"1", "*"]], name="q")
    assert Hierarchy.parse_arx(h.to_arx()).rows == h.rows


def test_file_round_trip(tmp_path):
    h = Hierarchy.from_mapping({"02139": ["0213*", "*"], "02138": ["0213*", "*"]}, name="zip")
    (tmp_path / "zip.csv").write_text(h.to_arx(), encoding="utf-8")
    assert Hierarchy.read_arx(tmp_path / "zip.csv").rows == h.rows


def test_every_problem_reported_at_once():
    text = "a;A;*\nb;A;*\nb;B;*\nc;A;*\nc;C;*\nA;X;*\n\nd;D;*\n"
    report = Hierarchy.parse_arx(text, name="bad").validate(["a", "b", "c", "zzz", "yyy"])
    errors = " | ".join(report.errors)
    assert "line 7 is empty" in errors
    assert "'b' has more than one row (line 2 and line 3)" in errors
    assert "level 0 value 'b' has two parents at level 1: 'A' (line 2) and 'B' (line 3)" in errors
    assert "level 0 value 'c' has two parents" in errors
    assert "no row for 2 data value(s): 'yyy', 'zzz'" in errors
    assert len(report.errors) >= 5
    with pytest.raises(HierarchyError) as info:
        Hierarchy.parse_arx(text, name="bad").check(["a"])
    assert len(info.value.problems) == len(Hierarchy.parse_arx(text).validate(["a"]).errors)


def test_two_parents_at_an_upper_level():
    report = Hierarchy.parse_arx("a;A;X;*\nb;A;Y;*\n").validate()
    assert report.errors == ("hierarchy 'hierarchy': level 1 value 'A' has two parents at level 2: 'X' (line 1) "
                             "and 'Y' (line 2)",)


def test_unequal_rows_and_empty():
    report = Hierarchy.parse_arx("a;A;*\nb;*\nc;*\n", name="u").validate()
    assert not report.ok and "line 1 has 3 columns, most rows have 2" in report.errors[0]
    assert Hierarchy.parse_arx("", name="e").validate().errors == ("hierarchy 'e' is empty: it has no rows",)


def test_more_than_one_root_is_a_warning():
    report = Hierarchy.parse_arx("a;A\nb;B\n").validate(["a", "b"])
    assert report.ok and "2 roots" in report.warnings[0]


def test_adult_hierarchies_are_valid():
    paths = sorted(ADULT.glob("adult_hierarchy_*.csv"))
    assert len(paths) == 9  # one per attribute of the embedded Adult sample
    for path in paths:
        report = Hierarchy.read_arx(path).validate()
        assert report.ok, (path.name, report.errors)
        assert Hierarchy.parse_arx(Hierarchy.read_arx(path).to_arx()).rows == Hierarchy.read_arx(path).rows


@settings(max_examples=examples(50), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), leaves=st.integers(1, 30), height=st.integers(0, 4),
       max_leaves=st.integers(1, 12))
def test_tree_layout_draws_each_node_once_under_its_parent(seed, leaves, height, max_leaves):
    """Against the level table: every (level, label) of the drawn levels is one node, joined to the parent its
    rows name; a parent sits within its children's span; children of one parent are adjacent; the records
    and merged values add up per level; the cut is the lowest level with at most ``max_leaves`` labels."""
    import numpy as np

    rng = np.random.default_rng(seed)
    h = random_hierarchy(rng, "q", leaves, height)
    data = list(rng.choice(h.values, size=50))
    nodes, edges, lowest = h.tree_layout(data, max_leaves=max_leaves)
    table = h.level_table()
    distinct = [table[f"level {lv}"].nunique() for lv in range(h.height + 1)]
    assert lowest == next((lv for lv, d in enumerate(distinct) if d <= max_leaves), h.height)
    expected = {(lv, label) for lv in range(lowest, h.height + 1) for label in table[f"level {lv}"]}
    assert set(zip(nodes.level, nodes.label, strict=True)) == expected and len(nodes) == len(expected)
    y = {(lv, label): v for lv, label, v in zip(nodes.level, nodes.label, nodes.y, strict=True)}
    parents = {(lv, r[lv]): (lv + 1, r[lv + 1]) for r in h.rows for lv in range(lowest, h.height)}
    assert len(edges) == len(parents)
    for child, up in parents.items():
        assert ((edges.x == child[0]) & (edges.y == y[child]) & (edges.x2 == up[0]) & (edges.y2 == y[up])).any()
    for up in set(parents.values()):
        ys = sorted(y[c] for c, p in parents.items() if p == up)
        assert ys[0] <= y[up] <= ys[-1]
        if up[0] == lowest + 1:  # drawn leaves of one parent are consecutive positions
            assert ys == [float(v) for v in range(int(ys[0]), int(ys[0]) + len(ys))]
    for lv in range(lowest, h.height + 1):
        at = nodes[nodes.level == lv]
        assert at.records.sum() == len(data) and at["original values"].sum() == len(h.rows)


def test_tree_layout_refuses_a_hierarchy_that_is_not_a_tree():
    h = Hierarchy.parse_arx("a;A;*\nb;A;*\nc;A;top\n", name="x")  # A has two parents and two roots
    with pytest.raises(HierarchyError, match="two parents"):
        h.tree_layout()


def test_tree_chart_carries_the_layout():
    from workbench.samples import load_sample
    from workbench.ui.charts import hierarchy_tree_chart

    sample = load_sample("registry")
    nodes, edges, lowest = sample.hierarchies["age"].tree_layout(sample.frame["age"])
    spec = hierarchy_tree_chart(nodes, edges).to_dict()
    lines, points, labels = spec["layer"]
    drawn = spec["datasets"][points["data"]["name"]]
    assert lowest == 1 and {"0-4", "0-9", "0-19", "*"} <= {r["label"] for r in drawn}  # 100 ages: cut at 1
    assert sum(r["records"] for r in drawn if r["level"] == 4) == 20000
    assert len(spec["datasets"][lines["data"]["name"]]) == len(drawn) - 1  # a tree: one edge per non-root
    assert lines["encoding"]["x"]["field"] == points["encoding"]["x"]["field"] == "level"  # one shared x
    assert labels["mark"]["type"] == "text" and labels["encoding"]["text"]["field"] == "label"


def test_a_separator_ending_every_line_is_not_a_level_and_a_comma_file_gets_a_hint():
    h = Hierarchy.parse_arx("F;*;\nM;*;\n", name="sex")
    assert h.rows == (("F", "*"), ("M", "*")) and h.height == 1 and h.validate(["F", "M"]).ok
    assert Hierarchy.parse_arx("F;*;\nM;*;*\n").height == 2  # an empty label not on every line stays
    report = Hierarchy.parse_arx("F,*\nM,*\n", name="sex").validate(["F", "M"])
    assert not report.ok and any("';'-separated" in w for w in report.warnings)
