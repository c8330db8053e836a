"""``ui.cached.validation``: a hierarchy is validated against a column's values once per content (the pages ask on
every rerun), again when the hierarchy, its source lines or the data change, and it says what ``validate`` says."""

from __future__ import annotations

import pandas as pd

from workbench.hierarchy.tree import Hierarchy
from workbench.ui import cached


def test_a_hierarchy_is_validated_once_per_content(monkeypatch):
    monkeypatch.setattr(cached, "st", type("St", (), {"session_state": {}}))
    calls: list[str] = []
    original = Hierarchy.validate

    def counted(self, data_values=None):
        calls.append(self.name)
        return original(self, data_values)

    monkeypatch.setattr(Hierarchy, "validate", counted)
    ages = pd.Series(["20", "25", "31", "20", "47"])
    h = Hierarchy.from_rows([["20", "20-29", "*"], ["25", "20-29", "*"], ["31", "30-39", "*"]], name="age")
    first = cached.validation(h, ages, "sha:age")
    assert first == original(h, ages.unique().tolist()) and not first.ok  # 47 has no row
    for _ in range(5):  # reruns
        assert cached.validation(h, ages, "sha:age") is first
    assert calls == ["age"]
    same = Hierarchy.from_rows([["20", "20-29", "*"], ["25", "20-29", "*"], ["31", "30-39", "*"]], name="age")
    assert same is not h and cached.validation(same, ages, "sha:age") is first and calls == ["age"]  # equal content
    fixed = Hierarchy.from_rows([*h.rows, ("47", "40-49", "*")], name="age")
    assert cached.validation(fixed, ages, "sha:age").ok and len(calls) == 2  # a change: validated again
    other = pd.Series(["20", "99"])
    assert not cached.validation(fixed, other, "sha2:age").ok and len(calls) == 3  # other data: again
    parsed = Hierarchy.parse_arx("20;20-29;*\n\n25;20-29;*\n", name="age")  # a blank line: an error of its own
    assert cached.validation(parsed, pd.Series(["20", "25"]), "sha:age").errors == original(parsed, ["20", "25"]).errors
