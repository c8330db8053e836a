"""Checks of single parts of a Study that ``workbench.config.validate`` runs: one attribute's spec, the engine's
backend (``engine.backend``: pandas in memory, DuckDB or Dask out of core) and how sweeps run (``engine.jobs``,
``engine.sweep_backend``: joblib's local processes, threads or a Dask cluster)."""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

from workbench.data import ROLES
from workbench.errors import ConfigError
from workbench.local import POSETS, poset_parameters

if TYPE_CHECKING:
    from workbench.config import AttributeSpec, Study


def check_attribute(where: str, spec: AttributeSpec) -> None:
    """One ``[attributes.NAME]`` table's values: its role, poset and the poset's parameters, its weight, and not
    both a hierarchy file and a builder."""
    name = spec.name
    if spec.role is not None and spec.role not in ROLES:
        raise ConfigError(f"{where}: attributes.{name}.role {spec.role!r} is not one of {', '.join(ROLES)}")
    if spec.poset is not None and spec.poset not in POSETS:
        raise ConfigError(f"{where}: attributes.{name}.poset {spec.poset!r} is not one of {', '.join(POSETS)}")
    kind = POSETS[spec.poset] if spec.poset is not None else None
    if kind is not None and kind.build is None:
        raise ConfigError(f"{where}: attributes.{name}.poset = {kind.id!r} releases {kind.label}, so it cannot be a "
                          f"quasi-identifier of a k-anonymous release; give {name!r} the role 'insensitive' to release "
                          "it as is, or choose another poset")
    if kind is not None and kind.needs_file and not any(p.type == "file" and p.name in spec.parameters
                                                        for p in kind.parameters):
        raise ConfigError(f"{where}: attributes.{name}.poset = {kind.id!r} needs a poset_file (TOML or JSON)")
    known = poset_parameters()
    for key, value in spec.parameters.items():  # each given poset parameter, within its registered range
        if key not in known:
            raise ConfigError(f"{where}: unknown key attributes.{name}.{key}; no poset kind reads it")
        problem = known[key].problem(value)
        if problem:
            raise ConfigError(f"{where}: attributes.{name}.{key} {problem}")
    if spec.weight < 0:
        raise ConfigError(f"{where}: attributes.{name}.weight must be zero or more, got {spec.weight:g}")
    if spec.hierarchy is not None and spec.builder is not None:
        raise ConfigError(f"{where}: attributes.{name} has both 'hierarchy' and 'builder'; give one")


BACKENDS = ("pandas", "duckdb", "dask")


def check_backend(study: Study) -> None:
    """engine.backend: "pandas" holds the table in memory; "duckdb" and "dask" read a CSV or Parquet file out of
    core for the lattice engine's k-anonymity (docs/scale.md)."""
    where, backend = study.source, study.backend
    if backend not in BACKENDS:
        raise ConfigError(f"{where}: engine.backend {backend!r} is not one of {', '.join(BACKENDS)}")
    if study.scheduler is not None and backend != "dask" and study.sweep_backend != "dask":
        raise ConfigError(f"{where}: engine.scheduler is a Dask scheduler's address; it needs engine.backend = "
                          "'dask' or engine.sweep_backend = 'dask'")
    if backend == "pandas":
        return
    reasons = []
    if study.engine != "lattice":
        reasons.append("engine.kind = 'lattice'")
    if study.data_path is None or study.data_path.suffix.lower() not in (".csv", ".tsv", ".txt", ".parquet"):
        reasons.append("a CSV or Parquet [data] path")
    if study.rows is not None:
        reasons.append("no data.rows")
    if study.privacy_models:
        tables = " and ".join(f"[privacy.{spec.kind}]" for spec in study.privacy_models)
        reasons.append(f"k-anonymity alone (it cannot enforce {tables})")
    if study.target is not None:
        reasons.append("no measures.target")
    if study.release_format not in ("csv", "parquet"):
        reasons.append("release.format 'csv' or 'parquet'")
    if reasons:
        raise ConfigError(f"{where}: engine.backend {backend!r} needs " + ", ".join(reasons))


SWEEP_BACKENDS = ("loky", "threading", "dask")  # joblib's: local processes, threads of this process, a Dask cluster
MAX_JOBS = 1024  # settings in flight at most (a local backend also runs at most one per CPU: parallel.workers)


def local_cpus() -> int:
    """The CPUs this process may use (its affinity where the system tells it, else ``os.cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_sweep(study: Study) -> None:
    """engine.jobs and engine.sweep_backend (docs/performance.md#parallel-sweeps): how many settings of a sweep
    run at a time (unset: one, or with Dask as many as the cluster has threads), and where; Dask needs the ``scale``
    extra (checked without importing it). A local backend runs at most one job per CPU of the machine it runs on
    (``parallel.workers``), so a config written on a larger machine still runs here."""
    where, jobs, backend = study.source, study.jobs, study.sweep_backend
    if backend not in SWEEP_BACKENDS:
        raise ConfigError(f"{where}: engine.sweep_backend {backend!r} is not one of {', '.join(SWEEP_BACKENDS)}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS):
        raise ConfigError(f"{where}: engine.jobs must be a whole number from 1 to {MAX_JOBS:,}, got {jobs!r}")
    if backend == "dask" and jobs != 1 and (importlib.util.find_spec("dask") is None
                                           or importlib.util.find_spec("distributed") is None):
        raise ConfigError(f"{where}: engine.sweep_backend 'dask' needs dask and distributed: pip install "
                          "'k-anonymity-workbench[scale]'")
