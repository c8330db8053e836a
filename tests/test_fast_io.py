"""The fast readers and writers equal the pandas ones they replace: pyarrow's CSV reader (when it takes a file)
against ``pandas.read_csv``, ``csv_bytes`` against ``DataFrame.to_csv``, and the distinct-value conversions."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from workbench.readers import _as_text, _as_text_column, _read_text_arrow, _with_header
from workbench.release.output import _NUMBER, FORMULA_STARTS, csv_bytes, escape_formulas, mark_missing

PIECES = ["\r\n", "a", "b", " ", ",", "\n", "\r", ";", "é", "1", "\t", "'", "", '"', "=", "-3"]


def _pandas(text: str) -> pd.DataFrame | Exception:
    try:
        return _with_header(pd.read_csv(io.StringIO(text), sep=",", header=None, dtype=str, keep_default_na=False,
                                        na_values=[])).astype(str)
    except Exception as exc:  # noqa: BLE001 - the reference may refuse the text
        return exc


@settings(max_examples=examples(400), deadline=None)
@given(st.sampled_from(["h1,h2\n", "h1,h2,h3\r\n", "a\n", "x,\n"]), st.lists(st.sampled_from(PIECES), max_size=60))
def test_arrow_reader_reads_what_pandas_reads(header, pieces):
    text = header + "".join(pieces)
    got = _read_text_arrow(text.encode("utf-8"), text, ",")
    if got is None:
        return  # left to pandas
    ref = _pandas(text)
    assert not isinstance(ref, Exception), text
    assert list(got.columns) == list(ref.columns)
    assert got.to_numpy().tolist() == ref.to_numpy().tolist()


def test_arrow_reader_takes_a_plain_table():
    text = "a,b,c\n1,x y,\n2,é,z\r\n"
    got = _read_text_arrow(text.encode(), text, ",")
    assert got is not None and got.to_numpy().tolist() == [["1", "x y", ""], ["2", "é", "z"]]


cells = st.one_of(st.none(), st.lists(st.sampled_from(PIECES), max_size=4).map("".join))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(cells, cells, cells), min_size=1, max_size=30), st.booleans(), st.integers(1, 7))
def test_csv_bytes_equal_to_csv(rows, categorical, block):
    frame = pd.DataFrame(rows, columns=["a b", "=c", 'd"'], dtype=object)
    if categorical:
        frame["a b"] = frame["a b"].astype("category")
    assert csv_bytes(frame, block=block) == frame.to_csv(index=False).encode("utf-8")


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(cells, min_size=1, max_size=30), st.booleans())
def test_missing_and_formulas_per_distinct_value_equal_cell_by_cell(values, categorical):
    column = pd.Series(values, dtype=object)
    frame = pd.DataFrame({"v": column.astype("category") if categorical else column})
    marked, missing = mark_missing(frame)
    expected = ["(missing)" if v is None or v == "" else v for v in values]
    assert [str(v) for v in marked["v"]] == [str(v) for v in expected]
    assert missing == sum(v is None or v == "" for v in values)
    escaped, changed = escape_formulas(marked)
    reference = ["'" + v if v[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(v) else v for v in map(str, expected)]
    assert [str(v) for v in escaped["v"]] == reference
    assert changed == sum(a != b for a, b in zip(reference, map(str, expected), strict=True))


def test_typed_columns_become_text_per_distinct_value():
    column = pd.Series([39.0, np.nan, 2.5, 39.0, 7.0])
    assert _as_text_column(column).tolist() == [_as_text(v) for v in column] == ["39", "", "2.5", "39", "7"]
    dates = pd.Series(pd.to_datetime(["2020-01-02", None, "2020-01-02 10:00"], format="mixed"))
    assert _as_text_column(dates).tolist() == [_as_text(v) for v in dates]
    text = pd.Series(["a", None, ""], dtype="str")
    assert _as_text_column(text).tolist() == ["a", "", ""]
