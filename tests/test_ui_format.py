"""The app's number formatting (workbench/ui/format.py): figures written for a person to read, and the printf
formats of table columns agreeing with them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.release.output import MISSING_TOKEN
from workbench.ui import format as F


@pytest.mark.parametrize(("value", "text"), [
    (7104830, "7,104,830"), (7104830.0, "7,104,830"), (np.int64(-12345), "-12,345"), (0, "0"),
    (0.000123456, "0.000123"), (0.84375, "0.844"), (12.5, "12.5"), (0.5, "0.5"), (0.0404040404, "0.0404"),
    (324620.5269918695, "324,621"), (1812315.4, "1,812,315"), (99.96, "100"), (-0.25, "-0.25"),
    (True, "yes"), (False, "no"), (np.bool_(True), "yes"), (None, "—"), (float("nan"), "—"),
    (float("inf"), "∞"), (3.2e-9, "3.20e-09"), ("text", "text"),
])
def test_number_is_written_for_reading(value: object, text: str) -> None:
    assert F.number(value) == text


def test_no_figure_is_written_in_exponent_notation_above_a_millionth() -> None:
    rng = np.random.default_rng(7)
    for v in np.concatenate([10.0 ** rng.uniform(-6, 15, 500), -(10.0 ** rng.uniform(-6, 15, 100))]):
        text = F.number(float(v))
        assert "e" not in text, (v, text)
        assert float(text.replace(",", "")) == pytest.approx(v, rel=5e-3, abs=0.5), (v, text)


@pytest.mark.parametrize(("values", "fmt"), [
    ([1, 2, 3], "%,d"), ([55170356.0, 474388.0], "%,d"), ([0.84375, 0.25], "%,.3f"), ([0.0404, 0.9], "%,.4f"),
    ([324620.53, 12000.25], "%,.0f"), ([0.0, 0.5, 12.5], "%,.3f"), ([1e-9, 0.5], "%.2e"), ([], "%,d"),
])
def test_column_format_writes_the_smallest_value_as_number_does(values: list[float], fmt: str) -> None:
    assert F.column_format(values) == fmt
    nonzero = [v for v in values if v]
    if nonzero and fmt.startswith("%,.") and fmt.endswith("f"):
        smallest = min(nonzero, key=abs)
        decimals = int(fmt[3:-1])
        written = f"{smallest:,.{decimals}f}"
        assert (written.rstrip("0").rstrip(".") if "." in written else written) == F.number(smallest)


def test_measure_labels_name_the_measure_and_its_direction() -> None:
    assert F.measure_label("precision") == "Precision (Prec), lower is better"
    assert F.measure_label("nmi") == "Normalized mutual information, higher is better"
    assert F.measure_label("not_a_measure") == "not_a_measure"


def test_table_labels_missing_values_and_writes_booleans_as_words() -> None:
    frame = pd.DataFrame({"age": ["34", "", None], "note": ["a", np.nan, "b"], "pareto": [True, False, True],
                          "records": [1, 2, 3]})
    shown = F.table(frame)
    assert list(shown["age"]) == ["34", MISSING_TOKEN, MISSING_TOKEN] and MISSING_TOKEN == "(missing)"
    assert list(shown["note"]) == ["a", MISSING_TOKEN, "b"]
    assert list(shown["pareto"]) == ["yes", "no", "yes"] and list(shown["records"]) == [1, 2, 3]
    assert frame["age"].iloc[1] == ""  # the input is left as it was


def test_column_config_labels_measures_and_formats_numbers() -> None:
    frame = pd.DataFrame({"solution": ["a=1", "a=2"], "entropy": [324620.5, 1200.25], "loss_norm": [0.0, 1.0],
                          "dm_star_min": [55.0, 28.0], "suppressed": [3, 0]})
    config = F.column_config(frame, labels={"suppressed": "suppressed records"})
    assert config["entropy"]["label"] == "Non-uniform entropy, lower is better"
    assert config["entropy"]["type_config"]["format"] == "%,.0f"
    assert config["loss_norm"]["label"] == "Loss (ARX), lower is better (normalized)"
    assert config["dm_star_min"]["label"].endswith("(minimum)")
    assert config["suppressed"]["label"] == "suppressed records"
    assert config["suppressed"]["type_config"]["format"] == "%,d"
    assert "solution" not in config


def test_a_column_of_different_measures_is_written_cell_by_cell() -> None:
    frame = pd.DataFrame({"measure": ["dm", "nmi"], "lattice": [7104826.0, 0.0635], "lattice (normalized)": [0.0, 1.0]})
    shown = F.table(frame, by_cell=["lattice"])
    assert list(shown["lattice"]) == ["7,104,826", "0.0635"]  # not 7,104,826.0000 and 0.0635 in one format
    assert list(shown["lattice (normalized)"]) == [0.0, 1.0]
    config = F.column_config(shown)
    assert "lattice" not in config and config["lattice (normalized)"]["type_config"]["format"] == "%,d"


def test_rows_of_measures_get_their_full_names_beside_their_ids() -> None:
    frame = pd.DataFrame({"measure": ["dm", "nmi", "other"], "value": [1.0, 0.5, 2.0]})
    shown = F.with_measure_names(frame)
    assert list(shown.columns) == ["measure", "name", "value"]
    assert list(shown["name"]) == ["Discernibility (DM)", "Normalized mutual information", "other"]
    assert list(frame.columns) == ["measure", "value"]  # the input is left as it was
