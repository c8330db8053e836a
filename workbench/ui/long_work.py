"""Long work on a page: a heavy cached call (``memo.dual_cache(..., heavy=True)``, run in the server's worker
pool, ``workbench.jobs``) followed while it runs, with a progress bar saying what is being done and a Cancel button.

The page first waits up to ``grace_seconds()`` (10 s unless ``WORKBENCH_PAGE_WAIT`` says) in its own run, so short
work shows its result at once. Longer work gets a panel that refreshes itself (``st.fragment(run_every=...)``) while
the rest of the page stays usable, and runs the whole page again when the job ends, which then finds the result in
the cache. Leaving the page or changing a setting does not stop the job; Cancel does: a queued job leaves the queue,
a running one ends at its next progress report (a job another session waits for too goes on for that session).

Shorter work the page waits for in its own run goes through ``announced``: a spinner naming the step with the time
it has taken and, when the call reports its progress, a bar of how far it is."""

from __future__ import annotations

import inspect
import math
import os
import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from workbench import jobs
from workbench.errors import WorkbenchError
from workbench.jobs.job import Job, JobCancelledError
from workbench.ui import state
from workbench.ui.memo import outcome, queue_message

GRACE_SECONDS = 10.0  # waited in the page's own run before the self-refreshing panel takes over (WORKBENCH_PAGE_WAIT)
REFRESH_SECONDS = 1.0  # the panel's refresh
CANCELLED: dict[str, Any] = {"cancelled": True}  # what ``follow`` returns for cancelled work (tested by identity)


def status_text(job: Job, doing: str) -> tuple[float, str]:
    """The bar of ``job``: its place in the queue while it waits, else the fraction done, what it is doing and for
    how long it has run."""
    waiting = queue_message(job.ahead)
    if waiting is not None:
        return 0.0, f"⏳ {waiting} ({jobs.pool().workers} worker(s) for this server)"
    fraction, text = job.progress or (0.0, "starting")
    took = f" ({time.monotonic() - job.started:,.0f} s)" if job.started is not None else ""
    return min(max(fraction, 0.0), 1.0), f"{doing}: {text}{took}"


def follow(call: Callable[..., Any], *args: Any, dataset_key: str | None, name: str, doing: str) -> Any:
    """The result of the heavy cached ``call(*args)``, once it is ready; ``CANCELLED`` when the analyst cancelled it
    (the page then forgets its request, or the next run would start it again); None while it runs, with the panel
    drawn in its place; the call's ``WorkbenchError`` raised. ``name``: the page's name for this work (widget keys);
    ``doing``: what the bar says."""
    followed: dict[str, Job] = state.FOLLOWED.setdefault({})
    cancelled: set[str] = state.CANCELLED.setdefault(set())
    if state.cancel_button(name).get() or name in cancelled:  # a Cancel of the last run
        cancelled.discard(name)
        call.cancel(*args, dataset_key=dataset_key)  # type: ignore[attr-defined]
        followed.pop(name, None)
        return CANCELLED
    try:
        started = call.start(*args, dataset_key=dataset_key)  # type: ignore[attr-defined]
    except WorkbenchError:  # kept from an earlier run: nothing to follow
        followed.pop(name, None)
        raise
    if not isinstance(started, Job):
        followed.pop(name, None)
        return started
    job: Job = started
    if followed.get(name) is not job:  # just started: wait here a little, short work shows at once
        followed[name] = job
        _wait_here(job, name, doing)
    if job.done():
        followed.pop(name, None)
        try:
            return outcome(job.result())
        except JobCancelledError:
            return CANCELLED
    _panel(call, args, dataset_key, job, name, doing)
    return None


def grace_seconds() -> float:
    """How long a page waits for long work in its own run before the panel takes over: ``WORKBENCH_PAGE_WAIT``
    seconds when the server's environment sets it, else ``GRACE_SECONDS``."""
    text = os.environ.get("WORKBENCH_PAGE_WAIT")
    if text is None:
        return GRACE_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or seconds < 0:
        raise WorkbenchError(f"WORKBENCH_PAGE_WAIT must be a number of seconds, 0 or more, not {text!r}")
    return seconds


def _wait_here(job: Job, name: str, doing: str) -> None:
    slot = st.empty()
    with slot.container():
        bar = st.progress(0.0, text=status_text(job, doing)[1])
        st.button("Cancel", key=state.cancel_button(name).key, help="stop the job (at its next step)")
    deadline = time.monotonic() + grace_seconds()
    while not job.wait(0.5) and time.monotonic() < deadline:  # an update every half second: a rerun (a click on
        fraction, text = status_text(job, doing)             # Cancel, a changed setting) stops the wait at once
        bar.progress(fraction, text=text)
    slot.empty()


def _panel(call: Callable[..., dict[str, Any]], args: tuple, dataset_key: str | None, job: Job, name: str,
           doing: str) -> None:
    @st.fragment(run_every=REFRESH_SECONDS)
    def panel() -> None:
        if job.done():
            st.rerun()  # the whole page, which now finds the result
        fraction, text = status_text(job, doing)
        st.progress(fraction, text=text)
        if st.button("Cancel", key=f"{name}_cancel_panel", help="stop the job (at its next step)"):
            call.cancel(*args, dataset_key=dataset_key)  # type: ignore[attr-defined]
            state.CANCELLED.setdefault(set()).add(name)
            st.rerun()

    panel()


def reports_progress(call: Callable[..., Any]) -> bool:
    """Whether a cached call reports its progress (its function takes ``_progress``, ``memo.dual_cache``)."""
    return "_progress" in inspect.signature(call).parameters


def announced(step: str, call: Callable[..., dict[str, Any]], *args: Any, dataset_key: str | None) -> dict[str, Any]:
    """``call(*args)`` (a cached library call) waited for in this run under a spinner that names ``step`` and counts
    the seconds; a call that reports its progress also draws a bar saying how far it is, removed when it is done
    (Streamlit shows a spinner only when the wait lasts, so a cache hit shows nothing)."""
    with st.spinner(f"{step}…", show_time=True):
        if not reports_progress(call):
            return call(*args, dataset_key=dataset_key)
        slot = st.empty()

        def show(fraction: float, text: str) -> None:
            slot.progress(min(max(float(fraction), 0.0), 1.0), text=f"{step}: {text}")

        try:
            return call(*args, dataset_key=dataset_key, progress=show)
        finally:
            slot.empty()
