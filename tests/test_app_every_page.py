"""Every page of the app (``main.PAGES``), on the embedded registry and the teaching sample, with its main action
run where it is cheap (streamlit.testing AppTest), is written for a person to read and says what it waits for:

- no table cell reads ``None``, ``nan`` or ``NaN`` (an empty numeric cell reads the table's placeholder, which
  Streamlit draws in place of None);
- no table header and no chart field title is a raw measure id (``dm_star``), a column of measure ids has their
  names beside it, and no chart axis, legend or facet lists measure ids;
- a legend of booleans says what in words, never "true"/"false";
- every heavy cached call a page waits for (``dual_cache(heavy=True)``) runs under a spinner that names its step.

A spinner is gone from the page once its run ends, so the spinners Streamlit opens and the pages' cached calls are
recorded as they happen (the app runs in this process)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import pkgutil
import threading
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from streamlit import dataframe_util
from streamlit.testing.v1 import AppTest

import measures as M
from tests._app import APP, goto
from workbench.ui.main import PAGES

IDS = set(M.MEASURES)
UNREADABLE = {"None", "nan", "NaN", "<NA>", "NaT"}
SCRIPT_THREAD = "ScriptRunner.scriptThread"  # the thread AppTest runs the page in (pool workers are others)
DEFAULT_SPINNER = "In progress..."
CHANNELS = ("x", "y", "color", "fill", "shape", "size", "row", "column", "facet", "xOffset", "yOffset",
            "strokeDash", "opacity")  # what draws an axis, a legend or a facet header


def _shown(frame: pd.DataFrame, column: Any, placeholder: str) -> pd.Series:
    """A column's cells as the table draws them: an empty cell as the placeholder (Streamlit: "None" without one)."""
    values = frame[column]
    text = values.astype(str)
    return text.where(~values.isna(), placeholder or "None")


def table_problems(at: AppTest) -> list[str]:
    out = []
    for d in at.dataframe:
        frame = d.value
        config = json.loads(d.proto.columns) if d.proto.columns else {}
        headers = {c: (config.get(str(c)) or {}).get("label") or str(c) for c in frame.columns}
        where = f"table {list(headers.values())[:4]}"
        out += [f"{where}: header {h!r} is a measure id" for h in headers.values() if h in IDS]
        for column in frame.columns:
            bad = set(_shown(frame, column, d.proto.placeholder)) & UNREADABLE
            if bad:
                out.append(f"{where}: column {headers[column]!r} shows {sorted(bad)}")
            values = frame[column].dropna().astype(str)
            if values.isin(IDS).any() and "name" not in frame.columns:
                out.append(f"{where}: column {headers[column]!r} lists measure ids without their names")
    return out


def _encodings(spec: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (channel, field definition) of a vega-lite spec, its layers and facets."""
    if isinstance(spec, dict):
        for channel, definition in (spec.get("encoding") or {}).items():
            for d in definition if isinstance(definition, list) else [definition]:
                if isinstance(d, dict):
                    yield channel, d
        facet = spec.get("facet")
        if isinstance(facet, dict):
            yield from (("facet", facet),) if "field" in facet else facet.items()
        for key, value in spec.items():
            if key not in ("encoding", "facet"):
                yield from _encodings(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _encodings(value)


def chart_problems(at: AppTest) -> list[str]:
    out = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        values: dict[str, set[str]] = {}
        for data in chart.proto.datasets:
            frame = dataframe_util.convert_arrow_bytes_to_pandas_df(data.data.data)
            for column in frame.columns:
                values.setdefault(str(column), set()).update(map(str, frame[column].dropna()))
        for channel, d in _encodings(spec):
            field = d.get("field")
            if not isinstance(field, str):
                continue
            title = d["title"] if "title" in d else field
            titles = title if isinstance(title, list) else [title]
            if any(t in IDS for t in titles if isinstance(t, str)):
                out.append(f"chart: {channel} {field!r} titled by a measure id ({title!r})")
            if channel not in CHANNELS:
                continue
            held = values.get(field, set())
            if held & IDS:
                out.append(f"chart: {channel} {field!r} lists measure ids {sorted(held & IDS)[:3]}")
            legend = d.get("legend") or {}
            if held and held <= {"True", "False"} and "labelExpr" not in legend and d.get("legend", {}) is not None:
                out.append(f"chart: {channel} {field!r} has a true/false legend")
    return out


class Recorder:
    """The spinners open on the page's thread, and each heavy cached call made there (or any call of a page
    module that took more than ``SLOW`` seconds) with the spinner texts open at the time."""

    SLOW = 3.0

    def __init__(self) -> None:
        self.open: list[str] = []
        self.calls: list[tuple[str, list[str]]] = []

    def spinner(self, original: Any) -> Any:
        @contextlib.contextmanager
        def spinner(text: str = DEFAULT_SPINNER, **kwargs: Any) -> Iterator[None]:
            self.open.append(text)
            try:
                with original(text, **kwargs):
                    yield
            finally:
                self.open.pop()

        return spinner

    def wrap(self, name: str, call: Any) -> Any:
        import time

        heavy = hasattr(call, "start")

        @functools.wraps(call)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name != SCRIPT_THREAD:
                return call(*args, **kwargs)
            steps = list(self.open)
            started = time.monotonic()
            try:
                return call(*args, **kwargs)
            finally:
                if heavy or time.monotonic() - started > self.SLOW:
                    self.calls.append((name, steps))

        for attr in ("shared", "start", "cancel"):
            if hasattr(call, attr):
                setattr(recorded, attr, getattr(call, attr))
        return recorded

    def unannounced(self) -> list[str]:
        return [f"{name} waited for without a named spinner" for name, steps in self.calls
                if not steps or steps[-1] == DEFAULT_SPINNER]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    import streamlit

    import workbench.ui as ui

    seen = Recorder()
    monkeypatch.setattr(streamlit, "spinner", seen.spinner(streamlit.spinner))
    for info in pkgutil.iter_modules(ui.__path__):
        module = importlib.import_module(f"workbench.ui.{info.name}")
        for name, value in list(vars(module).items()):
            if callable(value) and hasattr(value, "shared"):  # a dual_cache call
                monkeypatch.setattr(module, name, seen.wrap(f"{info.name}.{name}", value))
    return seen


def _main_action(at: AppTest, page: str, dataset: str) -> None:
    """What an analyst does first on the page, where it is cheap."""
    if page == "Anonymize":
        at.button[0].click().run()  # k = 5, 2 %: the release the Risk and Export pages read
    elif page == "Lattice":
        at.selectbox(key="lat_compare").select(at.selectbox(key="lat_node").options[0]).run()
        at.radio(key="lat_view").set_value("Per height").run()
    elif page == "Compare" and dataset == "teaching":
        at.multiselect(key="cmp_sweep_ks").set_value([2, 3, 5]).run()  # the ten patients: k up to 10
        at.toggle(key="cmp_sweep_on").set_value(True).run()
        assert len(at.get("vega_lite_chart")) == 3  # the Pareto scatter, the Kendall τ map and the sweep
    elif page == "Risk":
        at.number_input(key="risk_population").set_value(100_000).run()
    elif page == "Walkthrough":
        at.slider(key="walk_k").set_value(2).run()  # three patients suppressed: classes they are not in


@pytest.mark.parametrize("dataset", ["teaching", "registry"])
def test_every_page_reads_in_words_and_names_its_waits(dataset: str, recorder: Recorder) -> None:
    at = AppTest.from_file(APP, default_timeout=600).run()
    at.selectbox(key="dataset").select(dataset).run()
    problems: dict[str, list[str]] = {}
    for page in PAGES:
        goto(at, page).run()
        if page == "Compare" and dataset == "registry":
            at.toggle(key="cmp_local").set_value(False).run()  # the local engine's 5 s: the teaching table has it
        assert not at.exception, (page, [e.value for e in at.exception])
        _main_action(at, page, dataset)
        assert not at.exception, (page, [e.value for e in at.exception])
        found = table_problems(at) + chart_problems(at) + recorder.unannounced()
        recorder.calls.clear()
        if found:
            problems[page] = found
    assert not problems, json.dumps(problems, indent=1)
