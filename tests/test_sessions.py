"""A closed session's results leave the server's memory (docs/deploy.md#memory).

End to end through the app (AppTest): a session runs the Anonymize page on its own uploaded table and on the
embedded teaching table; then Streamlit disconnects it (``clear_session_resource_cache``, which Streamlit calls when
a tab's websocket closes) and the reconnect window (``server.disconnectedSessionTTL``) passes. Its per-session
results and the shared results only it asked for are dropped; a shared result that a thread outside any session
(the warm-up) asked for is kept. The memo's claims and the worker pool's jobs are checked on their own with two
sessions."""

from __future__ import annotations

import json
import threading
import time

import pytest
from streamlit import config
from streamlit.runtime.caching import clear_session_resource_cache

from tests._app import goto, ready_own_table
from workbench.config import study_from_dict

TEST_SESSION = "test session id"  # the id AppTest runs every session under


@pytest.fixture
def ttl():
    """Sets a short reconnect window, in seconds (the deploy example's is 60 s, Streamlit's default 120 s)."""
    before = config.get_option("server.disconnectedSessionTTL")
    yield lambda seconds: config.set_option("server.disconnectedSessionTTL", seconds)
    config.set_option("server.disconnectedSessionTTL", before)


def _wait_until(condition, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_a_closed_sessions_cache_entries_are_dropped(ttl) -> None:
    from workbench.ui import cached, memo

    memo.clear()  # the shared results other tests' sessions (never closed) asked for are not this session's
    ttl(1)
    at = ready_own_table("diagnosis", ["flu", "asthma", "diabetes", "copd"],
                         '[attributes.diagnosis]\nrole = "sensitive"\n', seed=3, n=120)
    goto(at, "Anonymize").run()
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and any("k-anonymous" in s.value for s in at.success)
    own = dict(at.session_state["session_results"])
    assert any(key[0] == "run_result" for key in own)  # the run on the session's own table, in its memo

    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    session_keys = set(cached.run_result.shared.entries)
    assert session_keys  # the run on the embedded teaching table, shared between sessions
    # a result asked for outside any session (as the background warm-up does): no session's to drop
    seen = next(iter(session_keys))[1][0]  # the run's Study, keyed by its config's canonical JSON
    assert seen[0] == "Study"
    warm = json.loads(seen[1])
    warm["privacy"]["k"] = 3
    warm_study = study_from_dict(warm)
    warm_key = ("run_result", (memo.memo_key(warm_study),))
    assert cached.run_result(warm_study).study.k == 3  # a failed run would raise
    assert warm_key in cached.run_result.shared.entries

    clear_session_resource_cache(TEST_SESSION)  # the tab closed: Streamlit released the session's resources
    assert _wait_until(lambda: not at.session_state["session_results"])
    assert not session_keys & set(cached.run_result.shared.entries)
    assert warm_key in cached.run_result.shared.entries


def test_a_session_that_reconnects_keeps_its_results(ttl) -> None:
    """A disconnect is not an end: a session that runs again within the window keeps everything."""
    ttl(5)  # it ends a second before the window closes: 4 s to run again
    at = ready_own_table("diagnosis", ["flu", "asthma"], '[attributes.diagnosis]\nrole = "sensitive"\n', seed=4,
                         n=80)
    goto(at, "Anonymize").run()
    next(b for b in at.button if b.label == "Run").click().run()
    kept = dict(at.session_state["session_results"])
    assert kept
    clear_session_resource_cache(TEST_SESSION)
    at.run()  # the tab reconnected (AppTest's runtime counts no session as active: the run is what tells)
    time.sleep(4.5)  # past the window
    assert dict(at.session_state["session_results"]).keys() == kept.keys()


def test_the_shared_memo_drops_what_only_an_ended_session_claimed(monkeypatch) -> None:
    from workbench.ui import memo, sessions

    asking = threading.local()
    monkeypatch.setattr(memo, "_session_id", lambda: getattr(asking, "id", "background"))
    shared = memo._SharedMemo(max_entries=8)
    monkeypatch.setattr(memo, "_SHARED", [shared])  # the memos a session's end goes through

    def ask(session: str, key: str) -> None:
        asking.id = session
        shared.get((key,), lambda: {"value": key})

    ask("A", "only A")
    ask("B", "only B")
    ask("A", "both")
    ask("B", "both")
    ask("background", "warm-up")
    sessions.end("A")  # runs every on_end hook, memo.forget_session among them
    assert set(shared.entries) == {("only B",), ("both",), ("warm-up",)}
    asking.id = "A"  # a job of A's finishing after A ended keeps nothing
    shared.put(("late",), {"value": "late"})
    assert ("late",) not in shared.entries
    sessions.end("B")
    assert set(shared.entries) == {("warm-up",)}


def test_the_per_session_memo_is_an_lru_bounded_per_function() -> None:
    from workbench.ui import memo

    held: dict[tuple, object] = {}
    for i in range(5):
        memo._keep_in_session(held, ("export_files", i), i, per_function=2)
    memo._keep_in_session(held, ("run_result", 0), "run", per_function=16)
    assert list(held) == [("export_files", 3), ("export_files", 4), ("run_result", 0)]
    assert memo._session_hit(held, ("export_files", 3)) == 3  # a hit makes it the newest
    memo._keep_in_session(held, ("export_files", 5), 5, per_function=2)
    assert list(held) == [("run_result", 0), ("export_files", 3), ("export_files", 5)]
    for i in range(memo._MEMO_ENTRIES + 3):
        memo._keep_in_session(held, ("lattice_table", i), i, per_function=64)
    assert len(held) == memo._MEMO_ENTRIES and ("lattice_table", memo._MEMO_ENTRIES + 2) in held
