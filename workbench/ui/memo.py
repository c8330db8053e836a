"""The machinery of the app's cached library calls (``dual_cache``): a process-wide memo for the embedded samples
(shared by every session, never replaying Streamlit calls), a per-session memo for uploaded data, and the glue to
the server's bounded worker pool (``workbench.jobs``) for heavy calls: submitting a job with this session's
Streamlit context, waiting for it while showing its place in the queue, starting it without waiting and
cancelling it (``ui/long_work.py``). ``ui/cached.py`` holds the calls themselves.

Memory: the shared memo records which sessions asked for each result, the per-session memo is an LRU of at most
``_MEMO_ENTRIES`` results (and at most a function's ``session_entries``), and when a session ends
(``ui/sessions.py``) its per-session memo is emptied, its jobs are cancelled and every shared result that only it
asked for is dropped (docs/deploy.md#memory)."""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from workbench import jobs
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.jobs.job import Job, JobCancelledError, current_job, in_worker
from workbench.study import Progress
from workbench.ui import sessions, state

_MEMO_ENTRIES = 24  # results per session, on its own data


class _SharedMemo:
    """A small LRU of results for the embedded samples, shared by every session of this server process.
    Unlike ``st.cache_data`` it never replays Streamlit calls, so a cached call may report progress to a bar
    drawn outside it (``st.cache_data`` raises CacheReplayClosureError on the next hit). A result being
    computed (by another session or the background warm-up) is waited for, not computed twice. ``owners`` holds
    the sessions that asked for each result (a thread outside any session, such as the warm-up, is an owner that
    never ends); ``forget`` drops a session's claims and the results no session claims any more."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self.entries: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self.owners: dict[tuple, set[str]] = {}
        self.pending: dict[tuple, threading.Event] = {}
        self.lock = threading.Lock()

    def _claim(self, key: tuple) -> None:
        """The asking session claims the result ``key`` (with the lock held); one that has ended claims nothing."""
        owner = _session_id()
        if not sessions.ended(owner):
            self.owners.setdefault(key, set()).add(owner)

    def _drop(self, key: tuple) -> None:  # with the lock held
        self.entries.pop(key, None)
        self.owners.pop(key, None)

    def put(self, key: tuple, value: dict[str, Any]) -> dict[str, Any]:
        """Keep ``value`` (a heavy job stores its result itself, whether or not anyone still waits for it), unless
        the session that asked for it has ended and no other claims it."""
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            self._claim(key)
            if not self.owners.get(key):
                self._drop(key)
            while len(self.entries) > self.max_entries:
                self._drop(next(iter(self.entries)))
        return value

    def forget(self, session_id: str) -> None:
        """``session_id`` has ended: drop its claims, and every result no other session claims."""
        with self.lock:
            for key in list(self.entries):
                owners = self.owners.get(key)
                if owners is not None:
                    owners.discard(session_id)
                if not owners:
                    self._drop(key)

    def get(self, key: tuple, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        while True:
            with self.lock:
                if key in self.entries:
                    self.entries.move_to_end(key)
                    self._claim(key)
                    return self.entries[key]
                running = self.pending.get(key)
                if running is None:
                    self.pending[key] = threading.Event()
                    break
            if in_worker():  # a worker never waits for another computation: it may be waiting for this worker
                return self.put(key, compute())
            running.wait()  # computed elsewhere: take its result (or compute if it failed)
        try:
            return self.put(key, compute())  # computed outside the lock: other keys are not held up
        finally:
            with self.lock:
                self.pending.pop(key).set()


_SHARED: list[_SharedMemo] = []


def clear() -> None:
    """Forget every shared result (benchmarks measure first loads with it)."""
    for memo in _SHARED:
        with memo.lock:
            memo.entries.clear()
            memo.owners.clear()


_SESSION_MEMOS: dict[str, dict[tuple, Any]] = {}  # session id -> its per-session memo (state.RESULTS)
_SESSION_MEMOS_LOCK = threading.Lock()


def _session_memo() -> dict[tuple, Any]:
    """This session's memo of results on its own data (in its session state), known here so that it can be
    emptied when the session ends."""
    memo = state.RESULTS.setdefault({})
    with _SESSION_MEMOS_LOCK:
        _SESSION_MEMOS[_session_id()] = memo
    return memo


def _keep_in_session(memo: dict[tuple, Any], key: tuple, value: Any, per_function: int) -> Any:
    """Keep ``value`` as the newest entry of the per-session ``memo`` (an LRU by insertion order): at most
    ``per_function`` entries of its function (``key[0]``) and ``_MEMO_ENTRIES`` in all. (A heavy job keeps its
    result from a worker thread while the session's run reads the memo: both go through the lock.)"""
    with _SESSION_MEMOS_LOCK:
        memo.pop(key, None)
        memo[key] = value
        mine = [k for k in memo if k[0] == key[0]]
        for old in mine[:max(len(mine) - per_function, 0)]:
            del memo[old]
        while len(memo) > _MEMO_ENTRIES:
            del memo[next(iter(memo))]
    return value


def _session_hit(memo: dict[tuple, Any], key: tuple) -> Any:
    """The per-session ``memo``'s entry for ``key`` (None when absent), made the newest."""
    with _SESSION_MEMOS_LOCK:
        if key not in memo:
            return None
        value = memo[key] = memo.pop(key)
    return value


def forget_session(session_id: str) -> None:
    """A session has ended (``sessions.on_end``): empty its per-session memo, drop the shared results only it asked
    for, and cancel the heavy jobs only it waits for."""
    with _SESSION_MEMOS_LOCK:
        memo = _SESSION_MEMOS.pop(session_id, None)
    if memo is not None:
        with _SESSION_MEMOS_LOCK:
            memo.clear()
    for shared in _SHARED:
        shared.forget(session_id)
    jobs.forget_session(session_id)


sessions.on_end(forget_session)


def _session_id() -> str:
    """The Streamlit session running this code (for a thread outside any session, e.g. the warm-up, the
    thread: each has at most one job at a time anyway)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else f"background {threading.current_thread().name}"


def queue_message(ahead: int | None) -> str | None:
    """What a page says while its heavy job waits for a worker (None once it runs)."""
    if ahead is None:
        return None
    if ahead == 0:
        return "Waiting for a worker: next in line (every worker is busy)"
    return f"Waiting for a worker: {ahead} job{'s' if ahead != 1 else ''} ahead"


def _wait_showing_position(job: Job, progress: Progress | None = None) -> Any:
    """Wait for ``job``, showing its place in the queue (and, given ``progress``, telling it what the running job
    reports); every half second the wait sends a small update, so a rerun (the analyst changed a setting) stops
    waiting at once, leaving the job queued for the next run."""
    if job.wait(0.05) or get_script_run_ctx(suppress_warning=True) is None:
        return job.result()
    slot = st.empty()
    try:
        while not job.wait(0.5):
            message = queue_message(job.ahead)
            if message is not None:
                slot.caption(f"⏳ {message} ({jobs.pool().workers} worker(s) for this server).")
                continue
            slot.empty()  # running: the page's own spinner or bar says what
            if progress is not None and job.progress is not None:
                progress(*job.progress)
    finally:
        slot.empty()
    return job.result()


def _submit(work: Callable[[], Any], key: tuple) -> Job:
    """Queue ``work`` in the worker pool under ``key`` for this session, with this session's Streamlit context
    (so it may read the session's dataset); a ``WorkbenchError`` when the pool cannot start."""
    ctx = get_script_run_ctx(suppress_warning=True)

    def job() -> dict[str, Any]:
        thread = threading.current_thread()
        previous = get_script_run_ctx(suppress_warning=True)
        if ctx is not None:
            add_script_run_ctx(thread, ctx)
        try:
            return work()
        finally:
            if ctx is not None:
                add_script_run_ctx(thread, previous)

    try:
        pool = jobs.pool()
    except ValueError as exc:  # WORKBENCH_WORKERS set to something else than a positive whole number
        raise user_error(exc) from exc
    return pool.submit(job, session=_session_id(), key=key)


def _in_pool(work: Callable[[], dict[str, Any]], key: tuple, progress: Progress | None = None) -> dict[str, Any]:
    """Run ``work`` in the worker pool and wait for it, showing the queue position (and its progress)."""
    while True:
        job = _submit(work, key)
        try:
            return _wait_showing_position(job, progress)
        except JobCancelledError:
            raise
        except CancelledError:  # another request replaced it before this run was interrupted: ask again
            continue


def memo_key(value: Any) -> Any:
    """What identifies a cached call's argument in the memo: a ``Study`` by its config's canonical JSON (with the
    source and base directory it was read with, the same for every config the app builds), so that equal studies
    share one result between calls and sessions; any other argument (a name, a number, a tuple) by itself."""
    if isinstance(value, Study):
        return "Study", json.dumps(value.raw, sort_keys=True), value.source, str(value.base_dir)
    return value


def dual_cache(max_entries: int, heavy: bool = False, session_entries: int | None = None) -> Callable:
    """A process-wide memo for embedded samples (at most ``max_entries`` results), a per-session memo for uploaded
    data (at most ``session_entries`` results of this function, default ``max_entries``). The wrapped function
    takes hashable arguments or ``Study`` objects (keyed by ``memo_key``) and the dataset key as its last positional
    argument (and, if it reports progress, a ``_progress``
    keyword, which is not part of the key). Results are shared read-only: callers must not modify them.

    A ``WorkbenchError`` the function raises is kept like a result (as ``Failed``) and raised again at every call
    (``outcome``), so a failed call is not repeated on every rerun; any other exception is a bug and is not kept.

    ``heavy``: computed in the bounded worker pool, the page showing the queue position; a result is kept even
    when the session that asked for it has moved on. Its ``_progress`` is the job's ``report`` (what it does, for
    the page; it raises ``jobs.JobCancelledError`` once the job is cancelled). Besides the blocking call, a heavy
    call has ``start(*args, dataset_key=...)``, which returns the result when it is cached (raising its
    ``WorkbenchError`` when it failed) and otherwise the ``jobs.Job`` computing it, submitting it when none runs
    (pass the job's result through ``outcome``), and ``cancel(*args, dataset_key=...)``, which cancels that job for
    this session (``ui/long_work.py`` draws both)."""

    per_session = session_entries if session_entries is not None else max_entries

    def decorate(user_fn: Callable[..., Any]) -> Callable[..., Any]:
        shared = _SharedMemo(max_entries)
        _SHARED.append(shared)
        reports = "_progress" in inspect.signature(user_fn).parameters
        fn = _failing(user_fn)

        def in_job(args: tuple, dataset_key: str | None, keep: Callable[[dict[str, Any]], dict[str, Any]]
                   ) -> Callable[[], dict[str, Any]]:
            def work() -> dict[str, Any]:  # keeps its result itself, whether or not anyone still waits for it
                job = current_job()
                extra = {"_progress": job.report} if reports and job is not None else {}
                return keep(fn(*args, dataset_key, **extra))

            return work

        def heavy_parts(args: tuple, dataset_key: str | None
                        ) -> tuple[dict[str, Any] | None, Callable[[], dict[str, Any]], tuple]:
            """The cached result (None if there is none), the job that computes it, and the job's pool key."""
            key: tuple = (fn.__qualname__, tuple(map(memo_key, args)))
            if dataset_key is None:
                with shared.lock:
                    hit = shared.entries.get(key)
                return hit, in_job(args, None, lambda value: shared.put(key, value)), ("shared", key)
            memo = _session_memo()
            key = (*key, dataset_key)

            def keep(value: dict[str, Any]) -> dict[str, Any]:
                if sessions.ended(_session_id()):  # finished after its session ended: nothing kept for it
                    return value
                return _keep_in_session(memo, key, value, per_session)

            return _session_hit(memo, key), in_job(args, dataset_key, keep), (_session_id(), key)

        def kept(*args: Any, dataset_key: str | None = None, progress: Progress | None = None) -> Any:
            """The memo's value: the result or its ``Failed``."""
            if heavy:
                hit, work, pool_key = heavy_parts(args, dataset_key)
                if dataset_key is None:
                    return shared.get(pool_key[1], lambda: _in_pool(work, pool_key, progress))
                return hit if hit is not None else _in_pool(work, pool_key, progress)
            extra = {"_progress": progress} if progress is not None else {}
            key = (fn.__qualname__, tuple(map(memo_key, args)))
            if dataset_key is None:
                return shared.get(key, lambda: fn(*args, None, **extra))
            memo = _session_memo()
            key = (*key, dataset_key)
            hit = _session_hit(memo, key)
            if hit is not None:
                return hit
            return _keep_in_session(memo, key, fn(*args, dataset_key, **extra), per_session)

        @functools.wraps(user_fn)
        def call(*args: Any, dataset_key: str | None = None, progress: Progress | None = None) -> Any:
            return outcome(kept(*args, dataset_key=dataset_key, progress=progress))

        def start(*args: Any, dataset_key: str | None = None) -> Any:
            hit, work, pool_key = heavy_parts(args, dataset_key)
            return outcome(hit) if hit is not None else _submit(work, pool_key)

        def cancel(*args: Any, dataset_key: str | None = None) -> bool:
            try:
                job = jobs.pool().find(heavy_parts(args, dataset_key)[2])
            except ValueError:  # no pool (WORKBENCH_WORKERS is not a positive whole number): no job either
                return False
            return job is not None and job.cancel(_session_id())

        call.shared = shared  # type: ignore[attr-defined]  # tests and the warm-up look into it
        if heavy:
            call.start, call.cancel = start, cancel  # type: ignore[attr-defined]
        return call

    return decorate


def user_error(exc: Exception) -> WorkbenchError:
    """A library error as the cached calls raise it: a ``WorkbenchError`` of its first line (the exception itself
    when it is one already and says one line)."""
    text = str(exc)
    line = text.splitlines()[0] if text else type(exc).__name__
    return exc if isinstance(exc, WorkbenchError) and line == text else WorkbenchError(line)


class Failed:
    """A cached call that raised a ``WorkbenchError``, kept in the memo as its message (no traceback, which would hold
    the call's frames) and raised again, as a new ``WorkbenchError`` of the same message, at every hit: a failed run
    is not run again on every rerun of its page, as a result is not."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"Failed({self.message!r})"


def _failing(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` returning a ``Failed`` instead of raising a ``WorkbenchError``, for the memo to keep."""
    @functools.wraps(fn)
    def caught(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except WorkbenchError as exc:
            return Failed(str(user_error(exc)))

    return caught


def outcome(value: Any) -> Any:
    """A memo's value as the caller gets it: the result, or its ``WorkbenchError`` raised."""
    if isinstance(value, Failed):
        raise WorkbenchError(value.message)
    return value
