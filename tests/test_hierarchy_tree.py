"""ARX hierarchy format: reading, writing, validation that reports every problem at once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._random_tables import random_hierarchy
from tests.conftest import ADULT, needs_shared
from workbench.errors import HierarchyError
from workbench.hierarchy.tree import Hierarchy


def test_parse_and_levels():
    h = Hierarchy.parse_arx("M;Person\nF;Person\n", name="sex")
    assert h.height == 1 and h.values == ["M", "F"] and h.level_labels(1) == ["Person"]
    assert h.validate(["M", "F"]).ok


def test_empty_value_is_an_ordinary_row():
    h = Hierarchy.parse_arx(";missing;*\na;A;*\n")
    assert h.values == ["", "a"] and h.validate(["", "a"]).ok


@settings(max_examples=50, deadline=None)
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
    h.write_arx(tmp_path / "zip.csv")
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


@needs_shared
def test_adult_hierarchies_are_valid():
    for path in sorted(ADULT.glob("adult_hierarchy_*.csv")):
        report = Hierarchy.read_arx(path).validate()
        assert report.ok, (path.name, report.errors)
        assert Hierarchy.parse_arx(Hierarchy.read_arx(path).to_arx()).rows == Hierarchy.read_arx(path).rows
