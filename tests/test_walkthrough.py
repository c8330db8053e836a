"""The teaching walkthrough reproduces El Emam et al. 2009, Fig. 3 step by step (k = 3)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests._app import goto
from tests.test_app import APP
from workbench.walkthrough import steps


def test_steps_follow_the_paper():
    s = steps(3)
    assert [x.title[:2] for x in s] == ["1.", "2.", "3.", "4.", "5."]
    original, _, banded, gender, suppressed = s
    assert original.measures["dm"] == 79 and original.measures["dm_star"] == 16
    assert banded.measures["dm"] == 55 and banded.measures["dm_star"] == 28
    assert gender.measures["dm_star"] == 16 and gender.measures["precision"] == 1 / 3
    assert int(original.table.suppressed.sum()) == 7 and int(banded.table.suppressed.sum()) == 3
    assert sorted(banded.table["class size"].unique().tolist()) == [1, 3, 4]


def test_walkthrough_page_renders():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Walkthrough").run()
    assert not at.exception
    assert len(at.subheader) == 5 and len(at.dataframe) == 5
    at.slider(key="walk_k").set_value(2).run()
    assert not at.exception
