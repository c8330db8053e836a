"""The background warm-up of the Lattice and Compare pages, and the shared memo it fills: a result being
computed is waited for, never computed twice, and a failure is not cached."""

from __future__ import annotations

import threading
import time

import pytest

from workbench.ui import lattice, prefetch
from workbench.ui.compare_cached import analysis, local_rows
from workbench.ui.main import _sample_source
from workbench.ui.memo import _SharedMemo, clear, memo_key


def test_concurrent_requests_compute_once():
    memo, calls = _SharedMemo(4), []

    def compute():
        calls.append(1)
        time.sleep(0.2)
        return {"value": len(calls)}

    results = []
    threads = [threading.Thread(target=lambda: results.append(memo.get(("k",), compute))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and results == [{"value": 1}] * 4


def test_a_failed_computation_is_not_cached_and_the_waiter_retries():
    memo, calls = _SharedMemo(4), []

    def failing():
        calls.append("fail")
        time.sleep(0.1)
        raise RuntimeError("boom")

    def fine():
        calls.append("fine")
        return {"ok": True}

    first = threading.Thread(target=lambda: pytest.raises(RuntimeError, memo.get, ("k",), failing))
    first.start()
    time.sleep(0.02)
    assert memo.get(("k",), fine) == {"ok": True}
    first.join()
    assert calls == ["fail", "fine"]


def test_lru_keeps_the_newest_entries():
    memo = _SharedMemo(2)
    for i in range(3):
        memo.get((i,), lambda i=i: {"i": i})
    assert list(memo.entries) == [(1,), (2,)]


def test_warm_up_fills_the_default_views_once(monkeypatch):
    monkeypatch.setenv("WORKBENCH_PREFETCH", "1")
    clear()
    source = _sample_source("teaching")
    prefetch._started.discard("teaching")
    thread = prefetch.start(source)
    assert thread is not None
    thread.join(timeout=120)
    assert prefetch.start(source) is None  # once per process
    assert len(lattice.lattice_overview_cached.shared.entries) == 1
    assert len(analysis.shared.entries) == 1
    assert len(local_rows.shared.entries) == 1
    # the page's own first call is now served from the memo
    config = source.study(compare=[], **lattice.DEFAULTS)
    table_config = source.study(k=lattice.DEFAULTS["k"], compare=[])
    key = ("lattice_overview_cached", (memo_key(config), memo_key(table_config)))
    assert key in lattice.lattice_overview_cached.shared.entries


def test_no_warm_up_for_uploaded_data_or_when_turned_off(monkeypatch):
    from workbench.ui.source import Source

    monkeypatch.setenv("WORKBENCH_PREFETCH", "1")
    assert prefetch.start(Source(label="own", dataset_key="abc", data_path="x.csv")) is None
    monkeypatch.setenv("WORKBENCH_PREFETCH", "0")
    prefetch._started.discard("teaching")
    assert prefetch.start(_sample_source("teaching")) is None
