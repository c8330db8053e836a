"""One job of the worker pool (``workbench.jobs``): its states, its cancellation token, and the thread-local that
tells a worker's code which job it runs (``current_job``). Cancellation is cooperative: a job's ``report`` raises
``JobCancelledError`` once ``cancel`` was called."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.jobs import JobPool

QUEUED, RUNNING, DONE, CANCELLED = "queued", "running", "done", "cancelled"


class JobCancelledError(CancelledError):
    """Raised by a job's ``report`` once the job was cancelled (and by ``Job.result`` of a job cancelled by
    ``cancel``); a subclass of ``concurrent.futures.CancelledError``, which a job replaced by another raises."""

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


class CancelToken:
    """A flag a job's progress reports check: set by ``cancel``, read by any thread."""

    def __init__(self) -> None:
        self._set = threading.Event()

    def cancel(self) -> None:
        self._set.set()

    @property
    def cancelled(self) -> bool:
        return self._set.is_set()

    def check(self) -> None:
        """Raise ``JobCancelledError`` once cancelled."""
        if self._set.is_set():
            raise JobCancelledError()


class Job:
    """One submitted call: its state, its place in the queue, what it last reported doing, and its result or
    exception."""

    def __init__(self, pool: JobPool, fn: Callable[[], Any], key: Hashable | None, session: Hashable | None,
                 token: CancelToken | None = None) -> None:
        self._pool = pool
        self.fn: Callable[[], Any] | None = fn  # None once finished: its closure (a session's context) is let go
        self.key = key
        self.sessions: set[Hashable] = {session} if session is not None else set()
        self.state = QUEUED
        self.token = token or CancelToken()
        self.progress: tuple[float, str] | None = None  # the last report: fraction done, what it is doing
        self.started: float | None = None  # time.monotonic() when it started running
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    @property
    def ahead(self) -> int | None:
        """Queued jobs before this one (0: next to run); None once it runs, is done or cancelled."""
        return self._pool.ahead(self)

    def done(self) -> bool:
        """Finished, failed or cancelled."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until done (at most ``timeout`` seconds); whether it is."""
        return self._done.wait(timeout)

    def result(self, timeout: float | None = None) -> Any:
        """The call's return value; re-raises its exception; ``JobCancelledError`` if cancelled
        (``CancelledError`` if another job of its session replaced it in the queue); ``TimeoutError`` if not done
        within ``timeout``."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"job not done within {timeout} s")
        if self._error is not None:
            raise self._error
        if self.state == CANCELLED:
            raise CancelledError()
        return self._value

    def report(self, fraction: float, text: str) -> None:
        """What the running job is doing (a ``workbench.study.Progress``; any thread of the job may call it);
        raises ``JobCancelledError`` once the job was cancelled, which ends it."""
        self.progress = (float(fraction), str(text))
        self.token.check()

    @property
    def cancelled(self) -> bool:
        """Cancelled (a running job may not have reached its next report yet)."""
        return self.token.cancelled or self.state == CANCELLED

    def cancel(self, session: Hashable | None = None) -> bool:
        """Cancel the job for ``session`` (None: for everyone). A job another session waits for too goes on for
        that one (this session just stops waiting); otherwise a queued job leaves the queue and never starts, and
        a running one ends at its next ``report``. False when the job was already finished."""
        return self._pool.cancel(self, session)

    def _finish(self, state: str, value: Any = None, error: BaseException | None = None) -> None:
        self.state, self._value, self._error, self.fn = state, value, error, None
        self._done.set()


worker = threading.local()  # active: a pool's worker thread; job: the job it runs


def in_worker() -> bool:
    """Whether this thread is a worker of a job pool (code there must not wait for other jobs)."""
    return getattr(worker, "active", False)


def current_job() -> Job | None:
    """The job this worker thread runs (None outside a job): its ``report`` is the job's progress callback."""
    return getattr(worker, "job", None)
