"""Numbers, booleans, measure names and missing values as the app writes them for a person to read: thousands
separators instead of ``7.10483e+06``, three significant digits for a fraction, booleans as "yes"/"no", a
measure by its full name with its direction ("lower is better"), a missing value of the data as the labelled value
``(missing)`` that the hierarchy builders and the exported files use (``workbench.release.output.MISSING_TOKEN``), and a
figure that does not apply (a suppressed record's class size, an edge that does not exist) as ``NOT_APPLICABLE``,
an em dash, which the page's caption explains; never ``None`` or ``nan``.

``number`` formats one figure (metrics, captions); ``table`` prepares a DataFrame for ``st.dataframe`` and
``column_config`` gives each numeric column a printf format chosen from its values by the same rule, so the
numbers stay numbers (sortable) and read the same as elsewhere; ``show`` draws it, an empty numeric cell reading
``NOT_APPLICABLE``, every column headed by words (``COLUMN_LABELS``, measures by ``measure_label``) and a column of
long texts widened with a tooltip on its header.

``md`` escapes user text (a column name, a value, a file name, a message that quotes them) for the Markdown that
Streamlit renders in captions, alerts, labels, tooltips and metrics: the one escaping function of the app."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

import measures as M
from workbench.release.output import MISSING_TOKEN, mark_missing

SIGNIFICANT = 3  # digits of a figure below 100
TINY = 1e-6  # below this a fraction is written in scientific notation rather than as 0.000000
PERCENT_FORMAT = "%.1f %%"  # a column of percentages, as ``percent`` writes one
SUFFIXES = {"min": "minimum", "median": "median", "norm": "normalized"}  # per-measure columns of the pages' tables
NOT_APPLICABLE = "—"  # a figure that does not apply; the page's caption says why
LONG_TEXT = 60  # characters: a text column holding a longer cell is drawn wide, with a tooltip on its header
# the library's column names that are not words, as every table heads them (a page's ``labels`` come first)
COLUMN_LABELS = {"meets_rule": "meets the rule", "rule_failures": "what it fails", "pareto": "on the Pareto front",
                 "best_overall": "best overall", "suppressed_pct": "suppressed (% of records)",
                 "unique_records": "unique records", "only_here": "unique only on the whole combination",
                 "k_anonymous": "k-anonymous", "records_changed": "records changed", "class_size": "class size"}


# CommonMark lets a backslash escape any ASCII punctuation; these are the characters that open Markdown (a link or an
# image needs "[", so "(" and ")" can stay; raw HTML and autolinks "<"; emphasis * _ ~; code `; headings #; quotes >;
# tables |; math $), an HTML entity (&), the backslash itself, and a colon before a letter (Streamlit's directives,
# :red[...] or :name, which would swallow the text)
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]<>#|~$&!]|:(?=[A-Za-z]))")


def md(text: object) -> str:
    """``text`` as it reads, inside a Markdown string the app renders (``st.markdown``, ``st.caption``, an alert,
    a widget's label or ``help``, a metric, an expander or tab label): every Markdown special and HTML's ``<``,
    ``>`` and ``&`` behind a backslash. User text enters Markdown only through it, so a column named
    ``![m](http://host/x.png)`` shows as typed instead of making the browser fetch an address the file's author
    chose."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))


def _decimals(smallest: float) -> int:
    """Decimals that give ``smallest`` (> 0) SIGNIFICANT significant digits (none from 100 up)."""
    return 0 if smallest >= 100 else SIGNIFICANT - 1 - math.floor(math.log10(smallest))


def number(value: Any) -> str:
    """One figure for reading: integers with thousands separators (``7,104,830``), other numbers from 100 up
    rounded to an integer (``324,621``), below 100 to three significant digits (``0.844``, ``0.000123``);
    booleans as "yes"/"no"; None and NaN as ``NOT_APPLICABLE``; anything else as its text."""
    if value is None:
        return NOT_APPLICABLE
    if isinstance(value, bool | np.bool_):
        return yes_no(bool(value))
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if not isinstance(value, float | np.floating):
        return str(value)
    v = float(value)
    if math.isnan(v):
        return NOT_APPLICABLE
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    if abs(v) < TINY:
        return f"{v:.{SIGNIFICANT - 1}e}"
    text = f"{v:,.{_decimals(abs(v))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def yes_no(value: bool) -> str:
    return "yes" if value else "no"


def percent(share: float) -> str:
    """A share of records (0.0123) as a percentage with one decimal (``1.2 %``)."""
    return f"{100 * share:.1f} %"


def count_share(count: int, total: int) -> str:
    """A count with its share of ``total``, short enough for a metric: ``"372 (1.9 %)"``."""
    return f"{count:,} ({percent(count / total if total else 0.0)})"


def measure_label(measure_id: str) -> str:
    """A measure's full name and direction, ``"Precision (Prec), lower is better"``; an unknown id as it is."""
    m = M.MEASURES.get(measure_id)
    return f"{m.name}, {m.direction.value}" if m is not None else measure_id


def with_measure_names(frame: pd.DataFrame) -> pd.DataFrame:
    """A table whose rows are measures (a ``measure`` column of ids) with each measure's full name beside its id."""
    if "measure" not in frame.columns or "name" in frame.columns:
        return frame
    names = [M.MEASURES[m].name if m in M.MEASURES else str(m) for m in frame["measure"]]
    out = frame.copy()
    out.insert(int(out.columns.get_loc("measure")) + 1, "name", names)
    return out


def column_format(values: Iterable[Any]) -> str:
    """The printf format (Streamlit's NumberColumn) that writes a column as ``number`` writes its smallest
    non-zero value: ``%,d`` for whole numbers, else a fixed number of decimals with thousands separators."""
    finite = np.array([float(v) for v in values if v is not None], dtype=float)
    finite = finite[np.isfinite(finite)]
    if not finite.size or (np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e15):
        return "%,d"
    nonzero = np.abs(finite[finite != 0])
    smallest = float(nonzero.min())
    if smallest < TINY:
        return f"%.{SIGNIFICANT - 1}e"
    return f"%,.{_decimals(smallest)}f"


def table(frame: pd.DataFrame, by_cell: Iterable[str] = ()) -> pd.DataFrame:
    """A copy for display: missing text cells (``""``, None, NaN) as ``(missing)``, booleans as "yes"/"no", and
    the ``by_cell`` columns (a column whose rows are different measures, of different magnitudes) as ``number``
    writes each cell."""
    out, _ = mark_missing(frame)
    for column in out.columns:
        if pd.api.types.is_bool_dtype(out[column]):
            out[column] = out[column].map(yes_no)
    for column in by_cell:
        out[column] = [number(v) for v in frame[column]]
    return out


def header(name: str, labels: dict[str, str] | None = None) -> str:
    """A column's header in words: ``labels`` first, then a measure id (or ``<id>_min``/``_median``/``_norm``) by
    ``measure_label``, then ``COLUMN_LABELS``; any other name as it is."""
    base, _, suffix = name.rpartition("_") if name not in M.MEASURES else (name, "", "")
    if labels and name in labels:
        return labels[name]
    if name in M.MEASURES:
        return measure_label(name)
    if base in M.MEASURES and suffix in SUFFIXES:
        return f"{measure_label(base)} ({SUFFIXES[suffix]})"
    return COLUMN_LABELS.get(name, name)


def column_config(frame: pd.DataFrame, labels: dict[str, str] | None = None,
                  helps: dict[str, str] | None = None) -> dict[str, Any]:
    """Per numeric column a NumberColumn with its ``column_format`` (a ``<name>_pct`` column: one decimal and a %
    sign); every column headed by ``header``; a text column with a cell longer than ``LONG_TEXT`` characters drawn
    wide with a tooltip on its header (``helps`` gives a column's tooltip)."""
    config: dict[str, Any] = {}
    for column in frame.columns:
        name = str(column)
        label = header(name, labels)
        helped = (helps or {}).get(name)
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            fmt = PERCENT_FORMAT if name.endswith("_pct") else column_format(series.dropna().tolist())
            config[name] = st.column_config.NumberColumn(label, format=fmt, help=helped)
        elif len(series) and series.astype(str).str.len().max() > LONG_TEXT:
            config[name] = st.column_config.TextColumn(
                label, width="large", help=helped or f"{label}: long texts; drag the column's edge to widen it and "
                                                     "read them whole")
        elif label != name or helped:
            config[name] = st.column_config.Column(label, help=helped)
    return config


def show(frame: pd.DataFrame, container: Any = None, labels: dict[str, str] | None = None, by_cell: Iterable[str] = (),
         helps: dict[str, str] | None = None, **kwargs: Any) -> None:
    """``st.dataframe`` of ``frame`` written for reading (``table``, ``column_config``), without its index, an empty
    numeric cell reading ``NOT_APPLICABLE``."""
    target = container if container is not None else st
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    kwargs.setdefault("placeholder", NOT_APPLICABLE)
    shown = table(frame, by_cell)
    target.dataframe(shown, column_config=column_config(shown, labels, helps), **kwargs)


__all__ = ["COLUMN_LABELS", "MISSING_TOKEN", "NOT_APPLICABLE", "column_config", "column_format", "count_share",
           "header", "md", "measure_label", "number", "percent", "show", "table", "with_measure_names", "yes_no"]
