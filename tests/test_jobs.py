"""The bounded worker pool for heavy calls (``workbench.jobs``), without a browser: FIFO order, queue positions,
at most one queued job per session, shared jobs by key, exceptions, cancellation, nesting, the worker bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError

import pytest

from workbench.jobs import JobPool, default_workers
from workbench.jobs.job import CANCELLED, DONE, Job, JobCancelledError, current_job, in_worker


@pytest.fixture
def pool():
    pools: list[JobPool] = []

    def make(workers: int) -> JobPool:
        pools.append(JobPool(workers))
        return pools[-1]

    yield make
    for p in pools:
        p.shutdown()


def _blocker(pool: JobPool, session: str = "blocker") -> tuple[threading.Event, threading.Event]:
    """Occupy one worker until ``release`` is set; ``started`` is set once it runs."""
    started, release = threading.Event(), threading.Event()

    def block() -> str:
        started.set()
        release.wait(10)
        return "blocked"

    pool.submit(block, session=session)
    assert started.wait(5)
    return started, release


def test_jobs_run_first_come_first_served_and_report_their_place(pool):
    p = pool(1)
    _, release = _blocker(p)
    order: list[int] = []
    queued = [p.submit(lambda i=i: order.append(i) or i, session=f"s{i}") for i in range(4)]
    assert [j.ahead for j in queued] == [0, 1, 2, 3]
    assert p.status() == {"workers": 1, "running": 1, "queued": 4}
    release.set()
    assert [j.result(5) for j in queued] == [0, 1, 2, 3]
    assert order == [0, 1, 2, 3]
    assert all(j.ahead is None for j in queued)  # done: no place in the queue


def test_places_move_up_as_jobs_start(pool):
    p = pool(1)
    _, release = _blocker(p)
    gate = threading.Event()
    first = p.submit(lambda: gate.wait(10), session="a")
    second = p.submit(lambda: "b", session="b")
    assert (first.ahead, second.ahead) == (0, 1)
    release.set()
    deadline = time.monotonic() + 5
    while first.ahead is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.ahead is None and first.state == "running" and second.ahead == 0
    gate.set()
    assert second.result(5) == "b"


def test_a_session_has_at_most_one_queued_job_and_the_newest_replaces_it(pool):
    p = pool(1)
    _, release = _blocker(p)
    other = p.submit(lambda: "other", session="b")
    old = p.submit(lambda: "old", session="a")
    new = p.submit(lambda: "new", session="a")
    assert old.state == CANCELLED and old.done()
    with pytest.raises(CancelledError):
        old.result(1)
    assert (other.ahead, new.ahead) == (0, 1)  # the replacement goes to the back of the queue
    assert p.status()["queued"] == 2
    release.set()
    assert (other.result(5), new.result(5)) == ("other", "new")


def test_a_backlog_from_one_session_never_fills_the_queue(pool):
    p = pool(2)
    _, release_a = _blocker(p, "x")
    _, release_b = _blocker(p, "y")
    jobs = [p.submit(lambda i=i: i, session="busy") for i in range(20)]
    late = p.submit(lambda: "late", session="late")
    assert sum(not j.done() for j in jobs) == 1 and late.ahead == 1  # one queued job of "busy", then "late"
    release_a.set()
    release_b.set()
    assert jobs[-1].result(5) == 19 and late.result(5) == "late"


def test_the_same_key_is_one_job_and_a_rerun_keeps_its_place(pool):
    p = pool(1)
    _, release = _blocker(p)
    calls: list[str] = []
    a = p.submit(lambda: calls.append("x") or "x", session="a", key="shared")
    p.submit(lambda: "y", session="b")
    again = p.submit(lambda: calls.append("x2") or "x2", session="a", key="shared")  # a's rerun
    from_b = p.submit(lambda: calls.append("x3") or "x3", session="c", key="shared")
    assert again is a and from_b is a and a.ahead == 0
    release.set()
    assert a.result(5) == "x" and calls == ["x"]


def test_a_job_shared_with_another_session_is_not_cancelled_by_a_replacement(pool):
    p = pool(1)
    _, release = _blocker(p)
    shared = p.submit(lambda: "shared", session="a", key="k")
    p.submit(lambda: "shared", session="b", key="k")
    mine = p.submit(lambda: "a's new request", session="a")
    assert not shared.done() and shared.sessions == {"b"}
    release.set()
    assert shared.result(5) == "shared" and mine.result(5) == "a's new request"


def test_exceptions_reach_the_waiter_and_the_worker_survives(pool):
    p = pool(1)

    def fail() -> None:
        raise ZeroDivisionError("boom")

    failed = p.submit(fail, session="a")
    with pytest.raises(ZeroDivisionError, match="boom"):
        failed.result(5)
    assert failed.done() and p.submit(lambda: 42, session="a").result(5) == 42


def test_cancel_takes_a_queued_job_out_and_it_never_starts(pool):
    p = pool(1)
    started, release = threading.Event(), threading.Event()
    running = p.submit(lambda: started.set() or release.wait(10) and "ran", session="a")
    assert started.wait(5)
    calls: list[str] = []
    queued = p.submit(lambda: calls.append("started") or "never", session="b", key="q")
    behind = p.submit(lambda: "behind", session="c")
    assert queued.cancel()
    assert queued.state == CANCELLED and queued.done() and behind.ahead == 0 and p.find("q") is None
    with pytest.raises(JobCancelledError):
        queued.result(1)
    release.set()
    assert running.result(5) == "ran" and behind.result(5) == "behind"
    assert calls == []  # it never ran
    assert not behind.cancel() and not queued.cancel()  # finished: nothing to cancel


def _reporting(steps: list[int], gate: threading.Event, total: int = 1000):
    """A job that reports its progress after every step (waiting at step 3 for ``gate``)."""

    def work() -> str:
        job = current_job()
        for i in range(total):
            job.report(i / total, f"step {i}")
            steps.append(i)
            if i == 3:
                gate.wait(10)
        return "finished"

    return work


def _at_step_three(submit: Callable[[Callable[[], str]], Job]) -> tuple[Job, list[int], threading.Event]:
    """``submit`` a ``_reporting`` job and wait until it waits at step 3 (its steps, and the gate that goes on)."""
    steps: list[int] = []
    gate = threading.Event()
    job = submit(_reporting(steps, gate))
    deadline = time.monotonic() + 5
    while len(steps) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert steps == [0, 1, 2, 3]
    return job, steps, gate


def test_a_running_job_that_is_cancelled_stops_at_its_next_progress_report(pool):
    p = pool(1)
    job, steps, gate = _at_step_three(lambda work: p.submit(work, session="a", key="long"))
    assert job.state == "running" and job.progress == (3 / 1000, "step 3")  # what it is doing, for the page
    assert job.cancel() and job.cancelled
    gate.set()
    with pytest.raises(JobCancelledError):
        job.result(5)
    assert job.state == CANCELLED and steps == [0, 1, 2, 3]  # no step after the report that saw the cancel
    assert p.submit(lambda: "next", session="b").result(5) == "next"  # the worker is free again
    assert p.find("long") is None


def test_an_ended_session_waits_for_nothing(pool):
    """``forget``: the ended session's running job stops at its next report, its queued job leaves the queue, and a
    job another session waits for too goes on for that one."""
    p = pool(1)
    running, steps, gate = _at_step_three(lambda work: p.submit(work, session="gone", key="long"))
    queued = p.submit(lambda: "never", session="gone", key="mine")
    shared = p.submit(lambda: "for both", session="other", key="theirs")
    p.submit(lambda: "for both", session="also gone", key="theirs")  # the same job: both wait for it
    assert shared.sessions == {"other", "also gone"} and queued.state == "queued"
    p.forget("gone")
    p.forget("also gone")
    assert queued.state == CANCELLED and p.status()["queued"] == 1
    gate.set()
    with pytest.raises(JobCancelledError):
        running.result(5)
    assert steps == [0, 1, 2, 3]
    assert shared.result(5) == "for both" and shared.sessions == {"other"}
    assert running.fn is None and shared.fn is None  # finished jobs hold no closure (a session's context)


def test_a_job_without_progress_reports_runs_to_its_end_even_when_cancelled(pool):
    p = pool(1)
    started, release = threading.Event(), threading.Event()
    job = p.submit(lambda: started.set() or release.wait(10) and "ran", session="a")
    assert started.wait(5)
    assert job.cancel()  # asked to stop, but it never reports
    release.set()
    assert job.result(5) == "ran" and job.state == DONE


def test_a_cancelled_job_is_not_handed_to_a_new_request_for_its_key(pool):
    p = pool(1)
    doomed, _, gate = _at_step_three(lambda work: p.submit(work, session="a", key="k"))
    doomed.cancel()
    fresh = p.submit(lambda: "fresh", session="a", key="k")  # asked again before the old one reached a report
    assert fresh is not doomed and p.find("k") is fresh
    gate.set()
    assert fresh.result(5) == "fresh"
    with pytest.raises(JobCancelledError):
        doomed.result(5)


def test_a_session_that_cancels_a_shared_job_only_stops_waiting_for_it(pool):
    p = pool(1)
    _, release = _blocker(p)
    shared = p.submit(lambda: "shared", session="a", key="k")
    p.submit(lambda: "shared", session="b", key="k")
    assert shared.cancel(session="a")  # b still waits for it: it stays queued
    assert not shared.cancelled and shared.sessions == {"b"} and shared.ahead == 0
    release.set()
    assert shared.result(5) == "shared"


def test_a_nested_job_shares_the_outer_jobs_cancellation(pool):
    p = pool(1)
    job, steps, gate = _at_step_three(  # the reporting job runs inside another job
        lambda work: p.submit(lambda: p.submit(work, session="a").result(), session="a"))
    job.cancel()
    gate.set()
    with pytest.raises(JobCancelledError):
        job.result(5)
    assert steps == [0, 1, 2, 3]


def test_report_outside_a_job_is_not_available():
    assert current_job() is None


def test_result_times_out_while_waiting(pool):
    p = pool(1)
    _, release = _blocker(p)
    job = p.submit(lambda: 1, session="a")
    with pytest.raises(TimeoutError):
        job.result(0.05)
    assert not job.wait(0.01)
    release.set()
    assert job.result(5) == 1


def test_no_more_than_the_workers_run_at_once(pool):
    p = pool(2)
    lock, now, most = threading.Lock(), [0], [0]

    def work() -> None:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.05)
        with lock:
            now[0] -= 1

    jobs = [p.submit(work, session=f"s{i}") for i in range(8)]
    for j in jobs:
        j.result(10)
    assert most[0] == 2


def test_a_job_submitted_inside_a_worker_runs_there_at_once(pool):
    p = pool(1)  # waiting for a second job would deadlock with one worker

    def outer() -> tuple[bool, int]:
        inner = p.submit(lambda: 5, session="a")
        return in_worker(), inner.result(1) * 2

    assert p.submit(outer, session="a").result(5) == (True, 10)
    assert not in_worker()


def test_workers_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("WORKBENCH_WORKERS", "3")
    assert default_workers() == 3
    monkeypatch.setenv("WORKBENCH_WORKERS", "0")
    with pytest.raises(ValueError, match="at least 1"):
        default_workers()
    monkeypatch.setenv("WORKBENCH_WORKERS", "many")
    with pytest.raises(ValueError, match="whole number"):
        default_workers()
    monkeypatch.delenv("WORKBENCH_WORKERS")
    assert default_workers() >= 1


def test_a_shut_down_pool_refuses_work(pool):
    p = JobPool(1)
    _, release = _blocker(p)
    queued = p.submit(lambda: 1, session="a")
    release.set()
    p.shutdown()
    assert queued.state in (CANCELLED, "done")
    with pytest.raises(RuntimeError, match="shut down"):
        p.submit(lambda: 1)


def test_the_page_shows_its_place_while_it_waits(monkeypatch):
    """``memo._wait_showing_position`` writes the queue position into a placeholder while the job waits, clears
    it while the job runs and when it is done (the Streamlit calls recorded by a stand-in)."""
    from workbench.ui import memo

    shown: list[str | None] = []

    class Slot:
        def caption(self, text: str) -> None:
            shown.append(text)

        def empty(self) -> None:
            shown.append(None)

    class FakeStreamlit:
        @staticmethod
        def empty() -> Slot:
            return Slot()

    p = JobPool(1)
    monkeypatch.setattr(memo, "st", FakeStreamlit)
    monkeypatch.setattr(memo, "get_script_run_ctx", lambda suppress_warning=False: object())
    monkeypatch.setattr(memo.jobs, "pool", lambda: p)
    try:
        _, release = _blocker(p)
        ahead = p.submit(lambda: time.sleep(0.6), session="b")
        mine = p.submit(lambda: "result", session="a")
        threading.Timer(1.2, release.set).start()
        assert memo._wait_showing_position(mine) == "result"
    finally:
        p.shutdown()
    texts = [t for t in shown if t is not None]
    assert texts and texts[0].startswith("⏳ Waiting for a worker: 1 job ahead (1 worker(s)")
    assert shown[-1] is None and ahead.done()
    assert memo.queue_message(2) == "Waiting for a worker: 2 jobs ahead" and memo.queue_message(None) is None
