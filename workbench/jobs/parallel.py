"""Sweeps in parallel: the independent settings of a sweep (``compare.sweep``'s k × suppression grid, the
experiments' grids) run through joblib, ``engine.jobs`` at a time, on the backend ``engine.sweep_backend``
names: ``loky`` (local worker processes), ``threading`` (threads of this process) or ``dask`` (the Dask cluster
at ``engine.scheduler``, the current Dask client, or a local cluster started for the sweep). The results come
back in the order of the settings, whatever the backend, and equal the sequential run's: every setting is
computed by the same code on the same data, only elsewhere (docs/performance.md#parallel-sweeps).

A worker process does not have the parent's user measures (``workbench.measure``, ``measures.plugins``): they
are shipped with each task (pickled by value) and registered there. A failing user measure
inside ``plugins.collecting_failures()`` scores NaN in the worker too, and its error is handed back to the
parent's list in the order of the settings.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import measures as M
from workbench.config.checks import local_cpus
from workbench.errors import ConfigError
from workbench.user_measure import collected_failures, collecting_failures

if TYPE_CHECKING:
    from workbench.config import Study

T = TypeVar("T")
SCHEDULER_TIMEOUT = "10s"  # connecting to engine.scheduler gives up after this


def workers(study: Study) -> int:
    """How many settings run at a time: ``engine.jobs`` (unset: 1 on a local backend; -1, every thread of the
    cluster, on Dask), on a local backend at most one per CPU this process may use (a config written for a larger
    machine runs here with what this one has)."""
    if study.sweep_backend == "dask":
        return study.jobs if study.jobs is not None else -1
    return min(study.jobs, local_cpus()) if study.jobs is not None else 1


@dataclass(frozen=True)
class _Context:
    """What a worker needs besides its setting: the parent's process id (a thread of the parent needs nothing
    shipped), whether the parent collects user-measure failures, and the user measures, pickled."""

    pid: int
    collecting: bool
    measures: bytes | None


def _user_measures() -> bytes | None:
    """The registered user measures (a unit may score any of them, not only the study's), pickled by value with
    cloudpickle (a plugin file's module cannot be imported in another process, nor a notebook's ``__main__``)."""
    import cloudpickle

    wanted = [m for m in M.MEASURES.values() if m.user]
    if not wanted:
        return None
    modules = set()
    for m in wanted:
        for cell in getattr(m.cell, "__closure__", None) or ():
            module = getattr(cell.cell_contents, "__module__", None)
            if callable(cell.cell_contents) and module in sys.modules and module != "__main__" \
                    and module.split(".")[0] not in ("workbench", "measures"):
                modules.add(sys.modules[module])
    modules = {m for m in modules if m.__name__ not in cloudpickle.list_registry_pickle_by_value()}
    for module in modules:
        cloudpickle.register_pickle_by_value(module)
    try:
        return cloudpickle.dumps(wanted)
    except Exception as exc:  # a user measure holding something that cannot leave the process
        raise ConfigError(f"a user measure cannot be sent to the sweep's worker processes ({type(exc).__name__}: "
                          f"{exc}); use engine.sweep_backend = 'threading' or engine.jobs = 1") from None
    finally:
        for module in modules:
            cloudpickle.unregister_pickle_by_value(module)


def _call(fn: Callable[..., T], unit: tuple[Any, ...], context: _Context) -> tuple[T, list[str]]:
    """Run one setting in a worker: register the shipped user measures (in another process), then ``fn(*unit)``,
    collecting the user measures' failures when the parent does."""
    if context.measures is not None and os.getpid() != context.pid:
        import cloudpickle

        for measure in cloudpickle.loads(context.measures):
            M.register(measure)  # replaces a stale one a reused worker holds from an earlier sweep
    if not context.collecting:
        return fn(*unit), []
    with collecting_failures() as failures:
        result = fn(*unit)
    return result, list(failures)


@contextmanager
def _dask_client(study: Study) -> Iterator[Any]:
    """The client of ``engine.scheduler``, else the current Dask client, else a local cluster for the sweep."""
    try:
        from distributed import Client, LocalCluster, default_client
    except ImportError:
        raise ConfigError(f"{study.source}: engine.sweep_backend 'dask' needs dask and distributed: pip install "
                          "'k-anonymity-workbench[scale]'") from None
    if study.scheduler:
        try:
            client = Client(study.scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(f"{study.source}: engine.scheduler {study.scheduler!r}: cannot connect "
                              f"({type(exc).__name__}: {exc})") from None
        with client:
            yield client
        return
    try:
        current = default_client()
    except ValueError:  # no client in this process
        current = None
    if current is not None:
        yield current
        return
    size = min(study.jobs, local_cpus()) if study.jobs is not None else local_cpus()  # a cluster on this machine
    with LocalCluster(n_workers=size, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client


@contextmanager
def _backend(study: Study, units: int) -> Iterator[dict[str, Any]]:
    """joblib's ``parallel_config`` arguments for the study's sweep backend."""
    jobs = workers(study)
    if study.sweep_backend != "dask":
        yield {"backend": study.sweep_backend, "n_jobs": min(jobs, units)}
        return
    with _dask_client(study) as client:
        yield {"backend": "dask", "n_jobs": jobs if jobs == -1 else min(jobs, units), "client": client}


def parallel_map(fn: Callable[..., T], units: Sequence[tuple[Any, ...]], study: Study,
                 done: Callable[[int, T], None] | None = None) -> list[T]:
    """``[fn(*unit) for unit in units]``, run as ``study``'s ``engine.jobs`` and ``engine.sweep_backend`` say;
    ``done(i, result)`` is called in order as each result arrives (progress; raising there stops the sweep).
    ``fn`` must be a module-level function (worker processes import it) and its arguments picklable."""
    units = list(units)
    if workers(study) == 1 or len(units) <= 1:
        out = []
        for i, unit in enumerate(units):
            out.append(fn(*unit))
            if done:
                done(i, out[-1])
        return out
    from joblib import Parallel, delayed, parallel_config

    collected = collected_failures()
    context = _Context(os.getpid(), collected is not None,
                       None if study.sweep_backend == "threading" else _user_measures())
    results: list[T] = []
    with _backend(study, len(units)) as config, parallel_config(**config):
        for i, (result, failures) in enumerate(Parallel(return_as="generator")(
                delayed(_call)(fn, unit, context) for unit in units)):
            if collected is not None:
                collected.extend(f for f in failures if f not in collected)
            results.append(result)
            if done:
                done(i, result)
    return results
