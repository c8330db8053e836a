"""A public table nobody on this project prepared (carData's TitanicSurvival as R's write.csv writes it, in
tests/fixtures/public/): read with its row names, given suggested roles and hierarchies, and made ready on the
Data page in one click after the quasi-identifiers are picked."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, captured_downloads, goto
from workbench.data import suggest_roles
from workbench.errors import DataError
from workbench.hierarchy.builders import build_hierarchy
from workbench.hierarchy.missing import MISSING
from workbench.hierarchy.suggest import suggest_spec
from workbench.readers import ROW_NAMES, read_table_bytes, row_names_note

TITANIC = Path(__file__).resolve().parent / "fixtures" / "public" / "titanic_survival.csv"
QUASI = ["sex", "age", "passengerClass"]


def _reference() -> pd.DataFrame:
    """The file as pandas reads it on its own (R's NA kept as text, the row names as the index)."""
    return pd.read_csv(TITANIC, dtype=str, keep_default_na=False, index_col=0)


def test_r_row_names_are_read_as_a_named_column():
    frame = read_table_bytes(TITANIC.read_bytes(), TITANIC.name)
    ref = _reference()
    assert list(frame.columns) == [ROW_NAMES, *ref.columns] and len(frame) == len(ref) == 1309
    assert frame[ROW_NAMES].tolist() == ref.index.tolist()
    assert frame.drop(columns=ROW_NAMES).values.tolist() == ref.values.tolist()
    assert "row names" in row_names_note(frame, TITANIC.name)
    plain = read_table_bytes(b"a,b\n1,2\n", "t.csv")
    assert row_names_note(plain, "t.csv") is None
    with pytest.raises(DataError, match="column 2"):  # a missing header elsewhere is still an error
        read_table_bytes(b"a,,c\n1,2,3\n", "t.csv")


def test_suggested_roles_and_hierarchies():
    frame = read_table_bytes(TITANIC.read_bytes(), TITANIC.name)
    roles = suggest_roles(frame)
    assert roles == {ROW_NAMES: "identifying", "survived": "insensitive", "sex": "quasi", "age": "quasi",
                     "passengerClass": "insensitive"}  # names are unique per passenger; sex and age by name
    assert suggest_roles(pd.DataFrame({"Gender": ["F", "M", "F"], "date_of_birth": ["1", "2", "2"],
                                       "town": ["a", "a", "b"]})) == {
        "Gender": "quasi", "date_of_birth": "quasi", "town": "insensitive"}
    ages = frame["age"].tolist()
    spec = suggest_spec(ages)
    assert spec["kind"] == "intervals" and spec["non_numeric"] == "missing"  # R's NA, 263 times
    assert suggest_spec([*ages, "n/a"])["non_numeric"] == "error"  # other text: the analyst places it
    h = build_hierarchy(spec, ages, name="age")
    assert h.validate(frame["age"].unique().tolist()).ok
    table = h.level_table()
    assert table[table.iloc[:, 0] == "NA"].iloc[0, 1:-1].tolist() == [MISSING] * (h.height - 1)
    assert (_reference()["age"] == "NA").sum() == 263


def test_a_new_table_is_ready_from_the_data_page_in_one_click(tmp_path):
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload(TITANIC.name, TITANIC.read_bytes(), "text/csv").run()
    assert not at.exception
    quasi = next(m for m in at.multiselect if m.key.startswith("role:quasi:"))
    assert quasi.value == ["sex", "age"]
    quasi.set_value(QUASI).run()
    assert any("'NA' (263) as missing" in c.value for c in at.caption)
    at.button(key="data_accept_all").click().run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and "k-anonymous with k = 5" in at.success[0].value
    with captured_downloads() as files:
        goto(at, "Export").run()
        release = pd.read_csv(io.BytesIO(files["release.csv"]()), dtype=str, keep_default_na=False)
    assert ROW_NAMES not in release.columns and len(release) == 1309  # the passengers' names are not released
    kept = release[~(release[QUASI] == "*").all(axis=1)]
    assert kept.groupby(QUASI).size().min() >= 5
    assert not (release["age"] == "").any()  # no age lost as an empty cell
