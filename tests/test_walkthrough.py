"""The teaching walkthrough: El Emam et al. 2009, Fig. 3, step by step, its every sentence checked against counts
made here by hand from the ten records (pandas group-bys, not the library) for every k from 1 to 10."""

from __future__ import annotations

import itertools
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from tests.test_app import APP
from workbench.samples import load_sample
from workbench.walkthrough import (
    MEASURE_EXPLANATIONS,
    SMALL,
    ClassCounts,
    ask_text,
    generalization_text,
    steps,
    suppression_text,
)

QUASI = ["date", "gender", "age"]
N = 10


def _frame() -> pd.DataFrame:
    return load_sample("teaching").frame[QUASI].copy()


def _band(age: str) -> str:
    low = int(age) // 5 * 5
    return f"{low}-{low + 4}"


def _sizes(frame: pd.DataFrame) -> pd.Series:
    """Per record, the size of its class (identical rows), by a pandas group-by."""
    return frame.groupby(QUASI)[QUASI[0]].transform("size")


def _reference(k: int) -> dict[str, tuple[int, int]]:
    """(classes, records in classes smaller than k) of the original, age-banded and gender-hidden tables."""
    original = _frame()
    banded = original.assign(age=original["age"].map(_band))
    person = original.assign(gender="Person")
    out = {}
    for name, table in (("original", original), ("banded", banded), ("person", person)):
        sizes = _sizes(table)
        out[name] = (table.drop_duplicates().shape[0], int((sizes < k).sum()))
    return out


def _numbers(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"(?<![\w.-])\d+(?![\w.-])", text)]


@pytest.mark.parametrize("k", range(1, N + 1))
def test_every_sentence_follows_the_counts(k):
    s = steps(k)
    ref = _reference(k)
    assert [x.title[:2] for x in s] == ["1.", "2.", "3.", "4.", "5.", "6.", "7.", "8."]
    original, classes, banded, person, suppressed, _, _, final = s  # 6 and 7: tests/test_walkthrough_diversity.py

    # steps 1 and 2 show different tables: the records, then one row per class with its size
    assert original.table.values.tolist() == _frame().values.tolist()
    assert len(classes.table) == ref["original"][0] and classes.table["patients"].sum() == N
    assert not original.table.equals(classes.table)
    at_risk = ref["original"][1]
    assert int(classes.table.loc[classes.table[SMALL], "patients"].sum()) == at_risk
    if at_risk == 0:
        assert "k-anonymous as it is" in classes.text
    elif at_risk == N:
        assert "Every one of the 10 patients" in classes.text and "of the 10 patients are" not in classes.text
    else:
        assert f"{at_risk} of the 10 patients" in classes.text

    for step, name in ((banded, "banded"), (person, "person")):
        before, after = ref["original"][1], ref[name][1]
        assert int(step.table[SMALL].sum()) == after
        merged = ref[name][0] < ref["original"][0]
        assert ("Classes merge" in step.text) == merged and ("merges nothing" in step.text) == (not merged)
        assert ("Fewer patients" in step.text) == (0 < after < before and after < N)
        assert ("Still every patient" in step.text) == (after == N and before > 0)
        if after < before:
            assert "As many patients" not in step.text

    # step 5: the banded table's small classes suppressed, shown as '*' in every quasi-identifier
    banded_table = _frame().assign(age=_frame()["age"].map(_band))
    gone = (_sizes(banded_table) < k).to_numpy()
    table = suppressed.table
    assert table["suppressed"].tolist() == gone.tolist()
    assert (table.loc[gone, QUASI] == "*").all().all()
    assert table.loc[~gone, QUASI].values.tolist() == banded_table.loc[~gone, QUASI].values.tolist()
    kept_classes = banded_table[~gone].drop_duplicates().shape[0]
    if gone.all():
        assert "Nothing is left" in suppressed.text and "k-anonymous" not in suppressed.text
    elif not gone.any():
        assert "nothing is suppressed" in suppressed.text
    else:
        assert f"The {int(gone.sum())} patient" in suppressed.text
        assert f"The other {N - int(gone.sum())}, in {kept_classes} class" in suppressed.text

    # step 8: the released table (k-anonymous, as released), its risk and cost, and where its report comes from
    released = final.table
    assert list(released.columns) == QUASI and len(released) == N
    kept = released[~(released[QUASI] == "*").all(axis=1)]
    smallest = int(kept.groupby(QUASI).size().min())
    assert smallest >= k
    assert f"at least {smallest} patient" in final.text and f"at most 1 in {smallest} " in final.text
    assert f"{kept.drop_duplicates().shape[0] / len(kept):.0%} on average" in final.text
    assert f"--set privacy.k={k}" in final.text and "Build the report" in final.text
    assert "board decides on this release" in final.text
    assert f"Precision (Prec) {final.measures['precision']:.3g}" in final.text


def test_steps_follow_the_paper():
    """El Emam 2009, Fig. 3 at k = 3: DM 79 and DM* 16 at <0,0,0>, DM 55 and DM* 28 at <0,0,1>, DM* 16 at
    <0,1,0>; 7 records in classes smaller than 3 at <0,0,0> and 3 at <0,0,1>."""
    _, classes, banded, person, suppressed, *_ = steps(3)
    assert classes.measures["dm"] == 79 and classes.measures["dm_star"] == 16
    assert banded.measures["dm"] == 55 and banded.measures["dm_star"] == 28
    assert person.measures["dm_star"] == 16 and person.measures["precision"] == 1 / 3
    assert int(banded.table[SMALL].sum()) == 3 and int(suppressed.table["suppressed"].sum()) == 3
    assert sorted(banded.table["class size"].unique().tolist()) == [1, 3, 4]


def test_precision_does_not_charge_suppression_and_says_so():
    """Step 5's release (ages banded, small classes suppressed) scores the Precision of the same generalization
    with nothing suppressed (k = 1), whatever k is; DM does charge it."""
    unsuppressed = steps(1)[4]
    for k in range(2, N + 1):
        step = steps(k)[4]
        assert step.measures["precision"] == unsuppressed.measures["precision"]
        assert step.table["suppressed"].sum() == 0 or step.measures["dm"] > unsuppressed.measures["dm"]
    assert "Suppression is not charged" in MEASURE_EXPLANATIONS["precision"]


def test_the_text_functions_agree_with_every_combination_of_counts():
    """All counts a 10-record table can have: no sentence contradicts them."""
    for k, classes, after_classes in itertools.product((1, 3, 5), range(1, N + 1), range(1, N + 1)):
        for before_risk, after_risk in itertools.product(range(N + 1), repeat=2):
            if after_classes > classes or after_risk > before_risk:
                continue  # a generalization merges classes and never makes one smaller
            before = ClassCounts(k, N, classes, min(before_risk, classes), before_risk)
            after = ClassCounts(k, N, after_classes, min(after_risk, after_classes), after_risk)
            text = generalization_text("Ages are banded", before, after)
            assert ("Fewer" in text) == (0 < after_risk < before_risk)
            assert ("Still every patient" in text) == (after_risk == N and before_risk > 0)
            assert ("no patient is in a class smaller" in text.lower()) == (after_risk == 0 < before_risk)
            if 0 < after_risk < N:  # the count is said
                assert after_risk in _numbers(text)
        ask = ask_text(ClassCounts(k, N, classes, 0, 0))
        assert "k-anonymous as it is" in ask
    for suppressed in range(N + 1):
        text = suppression_text(3, N, suppressed, 2 if suppressed < N else 0)
        assert ("Nothing is left" in text) == (suppressed == N)
        assert ("are k-anonymous" in text) == (0 < suppressed < N)


def test_walkthrough_page_renders_every_k():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Walkthrough").run()
    assert not at.exception
    titles = [x.value for x in at.subheader]
    assert titles[0] == "1. The original records" and titles[-1] == "8. The release the board decides on"
    assert len(at.dataframe) == 8
    assert at.dataframe[0].value.shape != at.dataframe[1].value.shape  # steps 1 and 2: different tables
    for k in (1, 5, 10):
        at.slider(key="walk_k").set_value(k).run()
        assert not at.exception
        text = " ".join(m.value for m in at.markdown)
        if k >= 5:  # every row is at risk and nothing is left after suppression
            assert "Fewer patients" not in text and "are k-anonymous" not in text
            assert (at.dataframe[4].value[QUASI] == "*").all().all()
        assert "Build the report" in text and f"privacy.k={k}" in text
