"""A bounded worker pool for heavy calls, shared by every session of a server process (no Streamlit here).

A fixed number of worker threads (``WORKBENCH_WORKERS``, default: the number of cores) take jobs from one FIFO
queue; a job's ``ahead`` is the number of queued jobs before it, so a page can say "waiting: 2 jobs ahead".

Fairness: a session (any hashable id) has at most one *queued* job. A new job from a session that already has
one queued replaces it (the old job is cancelled unless another session waits for it too), so an analyst who
changes a setting five times while waiting queues one job, not five, and cannot fill every worker with a backlog.
A job submitted with the ``key`` of a job that is queued or running is that job: two sessions asking for the
same shared result wait for one computation, and a session that asks again (a rerun) keeps its place.

Threads, not processes: the heavy calls are numpy group-bys with Python loops between them, so threads overlap
only partly, but a worker process would hold its own copy of the libraries and the data (about 200 MB each on
the registry sample), and the results (DataFrames) would be pickled back. A thread cannot be stopped from outside,
so cancellation is cooperative: a job reports its progress through ``report`` (``current_job().report``, the
signature of ``workbench.study.Progress``), which records what it is doing for the page that waits and raises
``JobCancelledError`` once ``cancel`` was called; the job then ends at its next report. A queued job that is
cancelled is taken out of the queue and never starts. A job submitted from inside a worker runs at once in that
worker (nested heavy calls would otherwise wait for a worker they occupy) and shares the outer job's cancellation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from workbench.jobs.job import CANCELLED, DONE, QUEUED, RUNNING, Job, JobCancelledError, current_job, worker


def default_workers() -> int:
    """``WORKBENCH_WORKERS`` if set (at least 1), else the number of cores."""
    value = os.environ.get("WORKBENCH_WORKERS", "").strip()
    if value:
        try:
            workers = int(value)
        except ValueError:
            raise ValueError(f"WORKBENCH_WORKERS must be a whole number of worker threads, got {value!r}") from None
        if workers < 1:
            raise ValueError(f"WORKBENCH_WORKERS must be at least 1, got {workers}")
        return workers
    return os.cpu_count() or 1


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None elsewhere)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Hand the heap's free pages back to the system (glibc keeps what a finished job freed: the numpy arrays of
    a frequency pass are below its mmap threshold; about 40 MB after the registry's Compare page)."""
    if _TRIM is not None:
        _TRIM(0)


class JobPool:
    """``workers`` threads over one FIFO queue, at most one queued job per session (see the module doc)."""

    def __init__(self, workers: int | None = None, name: str = "workbench-job") -> None:
        self.workers = workers if workers is not None else default_workers()
        if self.workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {self.workers}")
        self._queue: deque[Job] = deque()
        self._running: set[Job] = set()
        self._by_key: dict[Hashable, Job] = {}
        self._lock = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
                         for i in range(self.workers)]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[[], Any], *, session: Hashable | None = None, key: Hashable | None = None) -> Job:
        """Queue ``fn()``; returns its Job (an existing one for a ``key`` queued or running). The session's
        previously queued job, if it is another one, is replaced."""
        outer = current_job()
        if outer is not None:  # nested: run here, a worker is already ours; the outer job's cancel stops it too
            job = Job(self, fn, key, session, token=outer.token)
            self._run(job)
            return job
        with self._lock:
            if self._closed:
                raise RuntimeError("the job pool is shut down")
            existing = self._by_key.get(key) if key is not None else None
            if existing is not None and existing.token.cancelled:  # ending: a new request computes afresh
                existing = None
            for queued in list(self._queue):  # the session's other queued job gives way
                if session is not None and session in queued.sessions and queued is not existing:
                    queued.sessions.discard(session)
                    if not queued.sessions:
                        self._drop(queued)
            if existing is not None:
                if session is not None:
                    existing.sessions.add(session)
                return existing
            job = Job(self, fn, key, session)
            self._queue.append(job)
            if key is not None:
                self._by_key[key] = job
            self._lock.notify()
            return job

    def ahead(self, job: Job) -> int | None:
        with self._lock:
            if job.state != QUEUED:
                return None
            return self._queue.index(job) if job in self._queue else None

    def find(self, key: Hashable) -> Job | None:
        """The queued or running job submitted with ``key`` (None when there is none)."""
        with self._lock:
            return self._by_key.get(key)

    def cancel(self, job: Job, session: Hashable | None = None) -> bool:
        with self._lock:
            if job.done():
                return False
            if session is not None and job.sessions - {session}:  # others wait for it: they keep it
                job.sessions.discard(session)
                return True
            job.token.cancel()
            if job.state == QUEUED and job in self._queue:
                self._drop(job, JobCancelledError())
            return True

    def forget(self, session: Hashable) -> None:
        """``session`` has ended: it waits for nothing any more. Its queued jobs that no other session waits for
        are taken out of the queue; its running ones are cancelled (they stop at their next progress report)."""
        with self._lock:
            for job in [*self._queue, *self._running]:
                if session not in job.sessions:
                    continue
                job.sessions.discard(session)
                if job.sessions:
                    continue
                job.token.cancel()
                if job.state == QUEUED and job in self._queue:
                    self._drop(job, JobCancelledError())

    def status(self) -> dict[str, int]:
        """How many jobs run and wait now."""
        with self._lock:
            return {"workers": self.workers, "running": len(self._running), "queued": len(self._queue)}

    def shutdown(self, cancel_queued: bool = True) -> None:
        """Stop the workers once the running jobs finish (queued jobs are cancelled, or run first)."""
        with self._lock:
            self._closed = True
            if cancel_queued:
                for job in list(self._queue):
                    self._drop(job)
            self._lock.notify_all()
        for thread in self._threads:
            thread.join()

    def _drop(self, job: Job, error: BaseException | None = None) -> None:  # with the lock held
        self._queue.remove(job)
        if job.key is not None and self._by_key.get(job.key) is job:
            del self._by_key[job.key]
        job._finish(CANCELLED, error=error)

    def _work(self) -> None:
        worker.active = True
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._lock.wait()
                if not self._queue:  # closed and drained
                    return
                job = self._queue.popleft()
                job.state = RUNNING
                self._running.add(job)
            try:
                self._run(job)
            finally:
                with self._lock:
                    self._running.discard(job)
                    if job.key is not None and self._by_key.get(job.key) is job:
                        del self._by_key[job.key]
                del job  # a waiting worker holds no finished job: its result, its session's context
                release_memory()

    @staticmethod
    def _run(job: Job) -> None:
        job.state, job.started = RUNNING, time.monotonic()
        outer, worker.job = current_job(), job
        try:
            job.token.check()  # cancelled between leaving the queue and starting
            if job.fn is None:  # finished before it started
                return
            value = job.fn()
        except JobCancelledError as exc:
            job._finish(CANCELLED, error=exc)
        except BaseException as exc:  # noqa: BLE001  # handed to whoever waits for the job
            job._finish(DONE, error=exc)
        else:
            job._finish(DONE, value=value)
        finally:
            worker.job = outer


_pool: JobPool | None = None
_pool_lock = threading.Lock()


def forget_session(session: Hashable) -> None:
    """``JobPool.forget`` on the process's pool, if it has started."""
    with _pool_lock:
        started = _pool
    if started is not None:
        started.forget(session)


def pool() -> JobPool:
    """The process's heavy-work pool, started on first use with ``default_workers()`` threads."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = JobPool()
        return _pool
