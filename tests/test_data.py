"""Reading tables (CSV/TSV sniffed, Parquet, Excel), roles, explicit missing values, integer encoding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.data import Dataset
from workbench.errors import DataError, HierarchyError
from workbench.hierarchy.tree import Hierarchy
from workbench.readers import read_table

FRAME = pd.DataFrame({"id": ["1", "2", "3", "4"], "age": ["34", "", "51", "34"], "sex": ["F", "M", "F", "F"]})
AGE = Hierarchy.parse_arx("34;30-39;*\n51;50-59;*\n;missing;*\n", name="age.csv")
SEX = Hierarchy.parse_arx("M;*\nF;*\n", name="sex.csv")


@pytest.mark.parametrize(("name", "sep", "given"), [("d.csv", ";", None), ("d.csv", ",", None),
                                                    ("d.tsv", "\t", None), ("d.txt", "|", None),
                                                    ("d.csv", ";", ";")])
def test_text_tables_sniffed_or_given(tmp_path, name, sep, given):
    path = tmp_path / name
    FRAME.to_csv(path, sep=sep, index=False)
    got = read_table(path, given)
    pd.testing.assert_frame_equal(got, FRAME, check_dtype=False)


def test_parquet_and_excel_cells_become_text(tmp_path):
    typed = pd.DataFrame({"age": [34, 51, None], "sex": ["F", None, "M"], "w": [1.5, 2.0, 3.25]})
    typed.to_parquet(tmp_path / "d.parquet")
    typed.to_excel(tmp_path / "d.xlsx", index=False)
    for path in (tmp_path / "d.parquet", tmp_path / "d.xlsx"):
        got = read_table(path)
        assert got["age"].tolist() == ["34", "51", ""], path
        assert got["sex"].tolist() == ["F", "", "M"], path
        assert got["w"].tolist() == ["1.5", "2", "3.25"], path


def test_excel_and_parquet_dates_become_iso_dates(tmp_path):
    """Excel date cells arrive as datetime.datetime, Parquet's as timestamps: both read as 2020-04-03 (not
    "2020-04-03 00:00:00"), so the dates builder fits them; a time of day is kept."""
    import datetime

    typed = pd.DataFrame({"admitted": [datetime.datetime(2020, 4, 3), datetime.datetime(2021, 12, 31, 8, 30)]})
    typed.to_parquet(tmp_path / "d.parquet")
    typed.to_excel(tmp_path / "d.xlsx", index=False)
    for path in (tmp_path / "d.parquet", tmp_path / "d.xlsx"):
        assert read_table(path)["admitted"].tolist() == ["2020-04-03", "2021-12-31T08:30:00"], path


def test_missing_value_is_a_value_the_hierarchy_covers():
    ds = Dataset.create(FRAME, {"age": "quasi", "sex": "quasi", "id": "identifying"}, {"age": AGE, "sex": SEX})
    age = ds.encoded[0]
    assert ds.quasi_identifiers == ["age", "sex"]
    assert age.labels[0] == ("34", "51", "") and age.labels[1] == ("30-39", "50-59", "missing")
    np.testing.assert_array_equal(age.codes, [0, 2, 1, 0])
    np.testing.assert_array_equal(age.counts, [2, 1, 1])
    assert ds.roles == {"age": "quasi", "sex": "quasi", "id": "identifying"}


def test_uncovered_missing_value_names_column_and_rows():
    partial = Hierarchy.parse_arx("34;30-39;*\n51;50-59;*\n", name="age.csv")
    with pytest.raises(HierarchyError, match=r"column 'age': hierarchy 'age.csv' has no row for an empty cell "
                                             r"\(missing value\) in data row 2"):
        Dataset.create(FRAME, {"age": "quasi"}, {"age": partial})


def test_quasi_identifier_order_follows_roles_and_encoding_is_read_only():
    ds = Dataset.create(FRAME, {"sex": "quasi", "age": "quasi"}, {"age": AGE, "sex": SEX})
    assert ds.quasi_identifiers == ["sex", "age"]
    with pytest.raises(ValueError):
        ds.encoded[0].codes[0] = 5


def test_callers_frame_is_never_changed():
    frame = FRAME.copy()
    ds = Dataset.create(frame, {"age": "quasi"}, {"age": AGE})
    ds.frame.iloc[0, 0] = "changed"
    pd.testing.assert_frame_equal(frame, FRAME)


def test_read_table_bytes_and_profile():
    from workbench.data import profile
    from workbench.readers import read_table_bytes

    content = b"id;age;sex\n1;34;F\n2;;M\n3;51;F\n4;34;F\n"
    frame = read_table_bytes(content, "upload.csv")
    assert frame.columns.tolist() == ["id", "age", "sex"] and frame["age"].tolist() == ["34", "", "51", "34"]
    table, warnings = profile(frame, {"id": "insensitive", "age": "quasi", "sex": "quasi"}, 2)
    row = table.set_index("column").loc["age"]
    assert row["distinct values"] == 3 and row["missing values"] == 1 and row["values seen < 2 times"] == 2
    assert any("'id' is unique for every record" in w for w in warnings)
    assert any("'age': 2 value(s) occur fewer than 2 times" in w for w in warnings)
    with pytest.raises(DataError, match="upload.json: unsupported file type"):
        read_table_bytes(b"{}", "upload.json")
    with pytest.raises(DataError, match="upload.csv: the file is empty"):
        read_table_bytes(b"", "upload.csv")
