"""The end of a browser session, for the server's memory (docs/deploy.md#memory).

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds in case the tab reconnects.
Its in-memory session storage then hides the session but forgets it only at its next write (another tab closing),
and never shuts it down; and its runtime loop keeps the last session it sent messages to until it sends to another.
So on a quiet server a closed session's state (its uploads, datasets and results) stays in memory, and nothing tells
the app's own caches that the session is gone. Here:

- every run holds a session-scoped resource (``st.cache_resource(scope="session")``, ``track``), which Streamlit
  releases when the session disconnects (its ``on_release``, called on Streamlit's event loop);
- ``END_MARGIN_S`` before the TTL runs out, unless the session has reconnected, it ends: every hook registered with
  ``on_end`` runs with its id (the memos drop what only it asked for, the worker pool its jobs), its state is
  emptied (``state.empty``), its uploaded and media files are dropped, and Streamlit closes it
  (``Runtime.close_session``) while it can still find it; a garbage collection follows, and glibc's
  ``malloc_trim``.

An ended session is remembered (``ended``), so that a job finishing for it afterwards keeps nothing for it."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from workbench import jobs
from workbench.ui import state

END_MARGIN_S = 1.0  # a disconnected session ends this long before Streamlit's TTL runs out
_ENDED_KEPT = 4096  # how many ended session ids are remembered
COLLECT_AFTER_S = 2.0  # a garbage collection this long after a session ended (one for the sessions ending meanwhile)

log = logging.getLogger(__name__)
_lock = threading.Lock()
_hooks: list[Callable[[str], None]] = []
_held: dict[str, Any] = {}  # session id -> its state as Streamlit holds it (emptied when the session ends)
_disconnected: dict[str, float] = {}  # session id -> when Streamlit released its resource
_ended: set[str] = set()
_ended_order: deque[str] = deque()
_collecting = False


class _Token:
    """The resource a session holds while it is connected."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


def ttl_s() -> float:
    """Streamlit's ``server.disconnectedSessionTTL``: how long a closed tab may reconnect to its session."""
    return float(st.get_option("server.disconnectedSessionTTL"))


def _grace_s() -> float:
    return max(ttl_s() - END_MARGIN_S, 0.0)


def _released(token: _Token) -> None:
    """Streamlit's ``on_release``: the session disconnected (or shut down, or every cache was cleared)."""
    with _lock:
        _disconnected[token.session_id] = time.monotonic()
    try:
        loop = asyncio.get_running_loop()  # Streamlit's event loop, where a session may be closed
    except RuntimeError:
        loop = None
    if loop is not None:
        loop.call_later(_grace_s(), _check, token.session_id, True)
    else:
        timer = threading.Timer(_grace_s(), _check, args=(token.session_id, False))
        timer.daemon = True
        timer.start()


@st.cache_resource(scope="session", on_release=_released, show_spinner=False)
def _token(session_id: str) -> _Token:
    return _Token(session_id)


def track() -> None:
    """Follow this run's session (called at the start of every run); a session that reconnected is live again."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return
    held = state.held_state()
    with _lock:
        _disconnected.pop(ctx.session_id, None)
        if held is not None:
            _held[ctx.session_id] = held
        if ctx.session_id in _ended:  # an id that runs again (AppTest runs every session under one id)
            _ended.discard(ctx.session_id)
            _ended_order.remove(ctx.session_id)
    _token(ctx.session_id)


def on_end(hook: Callable[[str], None]) -> None:
    """Run ``hook(session_id)`` when a session ends."""
    if hook not in _hooks:
        _hooks.append(hook)


def ended(session_id: str) -> bool:
    """Whether ``session_id`` has ended (one of the last ``_ENDED_KEPT`` to end)."""
    with _lock:
        return session_id in _ended


def _active(session_id: str) -> bool:
    return runtime.exists() and runtime.get_instance().is_active_session(session_id) is True


def _check(session_id: str, on_event_loop: bool) -> None:
    """The TTL less the margin after a disconnect: end the session unless it reconnected meanwhile."""
    with _lock:
        since = _disconnected.get(session_id)
    if since is None or _active(session_id) or time.monotonic() - since < _grace_s() - 0.05:
        return  # reconnected (and maybe disconnected again: that disconnect has its own check)
    end(session_id)
    if not runtime.exists():
        return
    try:  # what Streamlit's own shutdown of a session frees first (thread-safe): its uploads, its media files
        server = runtime.get_instance()
        server.uploaded_file_mgr.remove_session_files(session_id)
        server.media_file_mgr.clear_session_refs(session_id)
        server.media_file_mgr.remove_orphaned_files()
        if on_event_loop:  # where Streamlit closes sessions
            server.close_session(session_id)
    except Exception:
        log.exception("closing the ended session %s failed", session_id)


def end(session_id: str) -> None:
    """The session has ended: remember it, run every ``on_end`` hook and empty its state."""
    with _lock:
        _disconnected.pop(session_id, None)
        held = _held.pop(session_id, None)
        if session_id not in _ended:
            _ended.add(session_id)
            _ended_order.append(session_id)
            while len(_ended_order) > _ENDED_KEPT:
                _ended.discard(_ended_order.popleft())
    for hook in list(_hooks):
        try:
            hook(session_id)
        except Exception:  # one cache's failure must not keep the others' entries
            log.exception("ending session %s: %s failed", session_id, getattr(hook, "__qualname__", hook))
    if held is not None:
        state.empty(held)
    _collect_soon()


def _collect_soon() -> None:
    """Once the sessions ending about now have ended: collect their cycles and hand the freed pages back to the
    system (``jobs.release_memory``), in a thread of its own, once for a batch of ends."""
    global _collecting
    with _lock:
        if _collecting:
            return
        _collecting = True
    timer = threading.Timer(COLLECT_AFTER_S, _collect)
    timer.daemon = True
    timer.start()


def _collect() -> None:
    global _collecting
    with _lock:
        _collecting = False
    gc.collect()
    jobs.release_memory()
