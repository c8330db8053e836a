"""What the Anonymize, Lattice and Compare pages show is written for a person to read (streamlit.testing
AppTest): thousands separators and no exponent, measures by their full name with their direction, booleans as
words, and a missing value as the labelled value "(missing)", never a blank cell, NaN or None."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

import measures as M
from tests._app import APP, goto
from workbench.release.output import MISSING_TOKEN

READABLE = re.compile(r"^-?\d{1,3}(,\d{3})*(\.\d+)?$")  # 7,104,826 or 0.789: no exponent, separators


def test_anonymize_writes_every_figure_for_reading():
    at = AppTest.from_file(APP, default_timeout=180).run()
    goto(at, "Anonymize").run()
    at.button[0].click().run()  # the registry, k = 5, 2 %
    assert not at.exception
    names = {m.name: m for m in M.MEASURES.values()}
    shown = {m.label: m for m in at.metric}
    measures = [m for label, m in shown.items() if label in names]
    assert len(measures) >= 9
    for metric in measures:
        assert READABLE.match(metric.value), (metric.label, metric.value)
        assert metric.proto.delta == str(names[metric.label].direction)  # "lower is better" under the value
    dm = shown["Discernibility (DM)"]
    exact = float(dm.help.rsplit("exactly ", 1)[1])
    assert exact > 1e6 and dm.value == f"{round(exact):,}"  # not 7.10483e+06
    assert READABLE.match(shown["equivalence classes released"].value)
    assert re.match(r"^\d[\d,]* \(\d+\.\d %\)$", shown["suppressed records"].value)
    objective = at.selectbox(key="an_obj")
    assert objective.format_func(objective.value) == "Non-uniform entropy, lower is better"


def _with_missing_values() -> AppTest:
    """60 people with an empty age in every fifth row and an empty note in every third, uploaded and made ready
    by a config (age in intervals: the intervals builder gives the empty age its own branch "(missing)")."""
    n = 60
    rng = np.random.default_rng(3)
    ages = [("" if i % 5 == 0 else str(a)) for i, a in enumerate(rng.integers(20, 80, n))]
    frame = pd.DataFrame({"age": ages, "sex": rng.choice(["F", "M"], n),
                          "note": [("" if i % 3 == 0 else "seen") for i in range(n)]})
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("people.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    toml = """[data]
path = "people.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10, 20, 40] }
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }
[attributes.note]
role = "insensitive"
"""
    at.file_uploader(key="config_upload").upload("people.toml", toml.encode(), "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    return at


def _no_blank(frame: pd.DataFrame) -> None:
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object:
            assert not values.isna().any() and not (values.astype(str).str.strip() == "").any(), column
            assert not values.astype(str).isin(["nan", "None", "NaN"]).any(), column


def test_missing_values_read_missing_on_anonymize_and_lattice():
    at = _with_missing_values()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(1).run()  # every quasi-identifier stays at level 0
    at.slider(key="an_sup").set_value(0.0).run()
    at.button[0].click().run()
    assert not at.exception
    released = next(d.value for d in at.dataframe if "note" in d.value.columns)
    _no_blank(released)
    assert (released["age"] == MISSING_TOKEN).sum() == (released.index % 5 == 0).sum() > 0  # the first 25 rows
    assert (released["note"] == MISSING_TOKEN).any()

    goto(at, "Lattice").run()
    at.number_input(key="an_k").set_value(5).run()
    bottom = next(x for x in at.selectbox(key="lat_node").options if all(p.endswith("=0") for p in x.split(",")))
    at.selectbox(key="lat_node").select(bottom).run()
    assert not at.exception
    sample = next(d.value for d in at.dataframe if {"age", "sex"} <= set(d.value.columns))
    _no_blank(sample)
    assert (sample["age"] == MISSING_TOKEN).any()  # a suppressed record with an empty age
    sizes = next(d.value for d in at.dataframe if "size" in d.value.columns)
    assert set(sizes["suppressed"]) <= {"yes", "no"}  # booleans as words
