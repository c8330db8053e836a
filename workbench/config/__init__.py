"""Study configuration: TOML (as in ``sample_configs/``) -> validated ``Study``. All parameter validation lives here.

A ``Study`` validates itself when it is made (``Study.__post_init__`` calls ``validate``), so every entry
point, the CLI, the app and the Python API, and every ``dataclasses.replace(study, ...)`` go through the same
checks. ``study_from_dict`` checks what only the config file has (sections, keys, value types, the data
source). Every problem raises ConfigError with one line that names the file, the key and what is wrong.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import measures as M
from workbench.config.checks import check_attribute, check_backend, check_sweep
from workbench.config.plugins import load_installed, load_plugins
from workbench.config.privacy import need as _need
from workbench.config.privacy import privacy_models_of
from workbench.config.text import apply_overrides
from workbench.errors import ConfigError
from workbench.geo.config import parse_geo
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS as _LOCAL_SEARCHES
from workbench.local import PARAMETER_TYPES, POSETS, poset_parameters
from workbench.privacy.kind import PrivacyModelSpec
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.user_measure import lock

# allowed values, read from the registries (``ALGORITHMS``, ``workbench.local``, ``measures.MEASURES``)
ENGINES = ("lattice", "local")
LATTICE_ALGORITHMS = tuple(ALGORITHMS)
LOCAL_ALGORITHMS = tuple(_LOCAL_SEARCHES)
DEGRADATION = "degradation"  # model degradation: a comparison column (workbench.compare), not a Measure
MEASURE_IDS = (*M.MEASURES, DEGRADATION)  # the built-in ids; ``measure_ids()`` adds the registered user measures
SUPPRESSED_POLICIES = ("mark", "drop")
DEFAULT_COMPARE = ("height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm",
                   "loss")

# section -> key -> accepted python types
_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "data": {"path": (str,), "separator": (str,), "sample": (str,), "rows": (int,)},
    "privacy": {"k": (int,), "max_suppression": (int, float)},
    "engine": {"kind": (str,), "algorithm": (str,), "objective": (str,), "time_limit": (int, float),
               "seed": (int,), "allow_non_monotone": (bool,), "backend": (str,), "scheduler": (str,),
               "jobs": (int,), "sweep_backend": (str,)},
    "measures": {"compare": (list,), "target": (str,), "col_mi_weights": (str,), "plugins": (list,)},
    "release": {"seed": (int,), "suppressed": (str,), "format": (str,), "escape_formulas": (bool,)},
    # the release register (docs/register.md): key, a study's; url, user_header, store_data, a server config's
    "register": {"key": (str,), "url": (str,), "user_header": (str,), "store_data": (bool,)},
}
_ATTRIBUTE_KEYS: dict[str, tuple[type, ...]] = {
    "role": (str,), "hierarchy": (str,), "builder": (dict,), "poset": (str,), "weight": (int, float),
}  # and every registered poset kind's parameters (``attribute_keys``)
MAX_K = 2**53 - 1  # beyond it a JSON reader (the provenance, the app's widgets) no longer holds k exactly
POSET_KINDS = tuple(POSETS)


def attribute_keys() -> dict[str, tuple[type, ...]]:
    """The keys an ``[attributes.NAME]`` table may hold -> their accepted types: the config's own and every
    registered poset kind's parameters (``workbench.local.POSETS``), read when a config is read."""
    return {**_ATTRIBUTE_KEYS, **{name: PARAMETER_TYPES[p.type] for name, p in poset_parameters().items()}}
LOCAL_OBJECTIVES = tuple(i for i, m in M.MEASURES.items() if m.guides_local)


def measure_ids() -> tuple[str, ...]:
    """Every measure id a config may name now: the built-in ones, ``degradation`` and the registered user
    measures (decorator, plugin files, installed packages)."""
    load_installed()
    return (*M.MEASURES, DEGRADATION)


@dataclass(frozen=True)
class AttributeSpec:
    """One ``[attributes.NAME]`` table."""

    name: str
    role: str | None = None
    hierarchy: Path | None = None
    builder: Mapping[str, Any] | None = None
    poset: str | None = None
    weight: float = 1.0
    parameters: Mapping[str, Any] = field(default_factory=dict)  # the poset parameters given (PosetKind.parameters)

    def parameter(self, key: str) -> Any:
        """The poset parameter ``key`` as given, else its registered default."""
        return self.parameters[key] if key in self.parameters else poset_parameters()[key].default


@dataclass(frozen=True)
class Study:
    """A validated study configuration. ``raw`` is the config as loaded, after ``--set`` overrides."""

    source: str
    base_dir: Path
    data_path: Path | None
    separator: str | None
    sample: str | None
    rows: int | None
    attributes: tuple[AttributeSpec, ...]
    k: int = 2
    max_suppression: float = 0.0
    engine: str = "lattice"
    algorithm: str = "exhaustive"
    objective: str = "entropy"
    time_limit: float | None = None
    search_seed: int = 0
    allow_non_monotone: bool = False
    backend: str = "pandas"  # the bottom frequency set and the release: in memory, DuckDB or Dask (workbench.scale)
    scheduler: str | None = None  # Dask: a scheduler address (default: a local cluster in this process)
    jobs: int | None = None  # a sweep's settings run this many at a time (None: 1; Dask: the cluster's threads)
    sweep_backend: str = "loky"  # joblib's backend for them: local processes, threads or the Dask cluster
    compare: tuple[str, ...] = DEFAULT_COMPARE
    target: str | None = None
    col_mi_weights: str = "mi"
    seed: int = 0
    suppressed: str = "mark"
    release_format: str = "csv"
    escape_formulas: bool = True  # CSV releases: formula-like text cells get a leading ' (OWASP)
    raw: Mapping[str, Any] = field(default_factory=dict)
    privacy_models: tuple[PrivacyModelSpec, ...] = ()  # [privacy.l_diversity], [privacy.t_closeness], ...
    plugins: tuple[Path, ...] = ()  # [measures] plugins: Python files that register measures (run by load_study)

    def __post_init__(self) -> None:
        validate(self)


def validate(study: Study) -> None:
    """Raise ConfigError (naming ``study.source`` and the key) unless every field of ``study`` holds an allowed
    value: the one validation of a Study, run whenever one is made or replaced."""
    where = study.source
    if study.data_path is not None and study.sample is not None:
        raise ConfigError(f"{where}: [data] needs exactly one of 'path' or 'sample'")
    if study.rows is not None and study.rows < 1:
        raise ConfigError(f"{where}: data.rows must be at least 1, got {study.rows}")
    if study.separator is not None and len(study.separator) == 0:
        raise ConfigError(f"{where}: data.separator must not be empty")
    for spec in study.attributes:
        check_attribute(where, spec)

    k = study.k
    if isinstance(k, bool) or not isinstance(k, int):
        raise ConfigError(f"{where}: privacy.k must be an integer, got {k!r}")
    if k < 1:
        raise ConfigError(f"{where}: privacy.k must be at least 1, got {k}")
    if k > MAX_K:
        raise ConfigError(f"{where}: privacy.k must be at most {MAX_K} (2^53 - 1, the largest integer JSON readers "
                          f"and the app hold exactly), got {k}")
    max_sup = study.max_suppression
    if isinstance(max_sup, bool) or not isinstance(max_sup, int | float):
        raise ConfigError(f"{where}: privacy.max_suppression must be a number, got {max_sup!r}")
    if not 0.0 <= max_sup <= 1.0:
        raise ConfigError(f"{where}: privacy.max_suppression must be a fraction in [0, 1], got {max_sup} "
                          "(e.g. 0.04 for 4 %)")

    kind = study.engine
    if kind not in ENGINES:
        raise ConfigError(f"{where}: engine.kind {kind!r} is not one of {', '.join(ENGINES)}")
    known_algorithms = LATTICE_ALGORITHMS if kind == "lattice" else LOCAL_ALGORITHMS
    if study.algorithm not in known_algorithms:
        raise ConfigError(f"{where}: engine.algorithm {study.algorithm!r} is not a {kind} algorithm; use one of "
                          f"{', '.join(known_algorithms)}")
    objective = study.objective
    if kind == "local" and objective not in LOCAL_OBJECTIVES:
        raise ConfigError(f"{where}: engine.objective {objective!r} cannot guide the local engine; use one of "
                          f"{', '.join(LOCAL_OBJECTIVES)}")
    known = measure_ids()
    unloaded = (" (measures.plugins are run only from a config file given to the workbench command or "
                "load_study, never from an upload)" if study.plugins else "")
    if objective not in known:
        raise ConfigError(f"{where}: engine.objective {objective!r} is not a measure id; use one of "
                          f"{', '.join(known)}{unloaded}")
    if study.time_limit is not None and study.time_limit <= 0:
        raise ConfigError(f"{where}: engine.time_limit must be a positive number of seconds, got "
                          f"{study.time_limit:g}")
    if study.search_seed < 0:
        raise ConfigError(f"{where}: engine.seed must be zero or more, got {study.search_seed}")

    check_backend(study)
    check_sweep(study)
    for m in study.compare:
        if not isinstance(m, str) or m not in known:
            raise ConfigError(f"{where}: measures.compare has {m!r}, not a measure id; use "
                              f"{', '.join(known)}{unloaded}")
    if study.col_mi_weights not in ("mi", "mi_ratio"):
        raise ConfigError(f"{where}: measures.col_mi_weights must be 'mi' (Katirai's definition) or 'mi_ratio' "
                          f"(his example weights), got {study.col_mi_weights!r}")

    if study.suppressed not in SUPPRESSED_POLICIES:
        raise ConfigError(f"{where}: release.suppressed must be 'mark' or 'drop', got {study.suppressed!r}")
    if study.seed < 0:
        raise ConfigError(f"{where}: release.seed must be a non-negative integer, got {study.seed}")
    if study.release_format not in ("csv", "parquet", "xlsx"):
        raise ConfigError(f"{where}: release.format must be csv, parquet or xlsx, got {study.release_format!r}")


def load_study(path: str | Path, overrides: Sequence[str] = ()) -> Study:
    """Read a TOML config file and validate it (with ``--set`` overrides applied first)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {p}: {exc}") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    return study_from_dict(apply_overrides(raw, overrides), base_dir=p.resolve().parent, source=str(p),
                           run_plugins=True)


def study_from_dict(raw: Mapping[str, Any], base_dir: str | Path = ".", source: str = "config",
                    run_plugins: bool = False) -> Study:
    """Validate a config mapping. Relative paths are resolved against ``base_dir``. ``run_plugins``: run the
    Python files of ``[measures] plugins`` (each once per process) so that their measures are registered;
    ``load_study`` does, a mapping from elsewhere (the app's uploads) never runs code."""
    base = Path(base_dir)
    where = source
    for section in raw:
        if section not in _SCHEMA and section not in ("attributes", "geo"):  # [geo]: workbench.geo.config
            raise ConfigError(f"{where}: unknown section [{section}]; known: "
                              f"{', '.join(['data', 'attributes', *[s for s in _SCHEMA if s != 'data']])}")
    sections: dict[str, dict[str, Any]] = {}
    for section, keys in _SCHEMA.items():
        table = raw.get(section, {})
        _need(f"{where}: [{section}]", table, (dict,))
        for key, value in table.items():
            if section == "privacy" and key in PRIVACY_MODELS:
                continue  # a [privacy.MODEL] sub-table, validated by privacy_models_of
            if key not in keys:
                known = [*keys, *PRIVACY_MODELS] if section == "privacy" else list(keys)
                raise ConfigError(f"{where}: unknown key {section}.{key}; known: {', '.join(known)}")
            _need(f"{where}: {section}.{key}", value, keys[key])
        sections[section] = table

    if "geo" in raw:  # the geography engine's table (docs/geography.md), validated by its own module
        parse_geo(raw["geo"], where, base)
    data = sections["data"]
    if ("path" in data) == ("sample" in data):
        raise ConfigError(f"{where}: [data] needs exactly one of 'path' or 'sample'")
    data_path = (base / data["path"]) if "path" in data else None

    attributes_raw = raw.get("attributes", {})
    _need(f"{where}: [attributes]", attributes_raw, (dict,))
    attributes = []
    keys, parameters = attribute_keys(), poset_parameters()
    for name, spec in attributes_raw.items():
        _need(f"{where}: [attributes.{name}]", spec, (dict,))
        for key, value in spec.items():
            if key not in keys:
                raise ConfigError(f"{where}: unknown key attributes.{name}.{key}; known: {', '.join(keys)}")
            _need(f"{where}: attributes.{name}.{key}", value, keys[key])
        attributes.append(AttributeSpec(
            name=name, role=spec.get("role"),
            hierarchy=(base / spec["hierarchy"]) if "hierarchy" in spec else None,
            builder=spec.get("builder"), poset=spec.get("poset"), weight=float(spec.get("weight", 1.0)),
            parameters={key: parameters[key].value(value, base) for key, value in spec.items() if key in parameters},
        ))

    privacy = sections["privacy"]
    k = privacy.get("k", 2)
    max_sup = float(privacy.get("max_suppression", 0.0))

    engine = sections["engine"]
    kind = engine.get("kind", "lattice")
    algorithm = engine.get("algorithm", (LOCAL_ALGORITHMS if kind == "local" else LATTICE_ALGORITHMS)[0])
    objective = engine.get("objective", "vinterbo" if kind == "local" else "entropy")
    time_limit = engine.get("time_limit")

    measures = sections["measures"]
    compare = tuple(measures.get("compare", DEFAULT_COMPARE))
    plugins = []
    for entry in measures.get("plugins", []):
        _need(f"{where}: measures.plugins entry", entry, (str,))
        plugins.append(base / entry)
    if run_plugins:
        load_plugins(plugins, where)
    release = sections["release"]
    suppressed = release.get("suppressed", "mark")
    seed = release.get("seed", 0)
    fmt = release.get("format", "csv")

    privacy_models = privacy_models_of(privacy, where, base)

    return Study(
        source=source, base_dir=base, data_path=data_path, separator=data.get("separator"),
        sample=data.get("sample"), rows=data.get("rows"), attributes=tuple(attributes), k=k, max_suppression=max_sup,
        engine=kind, algorithm=algorithm, objective=objective,
        time_limit=float(time_limit) if time_limit is not None else None, search_seed=engine.get("seed", 0),
        allow_non_monotone=engine.get("allow_non_monotone", False), backend=engine.get("backend", "pandas"),
        scheduler=engine.get("scheduler"), jobs=engine.get("jobs"),
        sweep_backend=engine.get("sweep_backend", "loky"), compare=compare,
        target=measures.get("target"), col_mi_weights=measures.get("col_mi_weights", "mi"), seed=seed,
        suppressed=suppressed,
        release_format=fmt, escape_formulas=release.get("escape_formulas", True), raw=copy.deepcopy(dict(raw)),
        privacy_models=privacy_models, plugins=tuple(plugins),
    )


SERVER_CONFIG = "WORKBENCH_CONFIG"  # the environment variable naming the config the app's server starts with
_server: list[str] | None = None


def load_server_measures() -> list[str]:
    """The measures the app offers (once per process): installed packages' and the plugins of the config named
    by the environment variable ``WORKBENCH_CONFIG``, if set. Returns the problems, one line each (the app
    shows them; nothing is raised, so a bad plugin never stops the app)."""
    global _server
    with lock:
        if _server is None:
            import os

            problems = load_installed()
            path = os.environ.get(SERVER_CONFIG)
            if path:
                try:
                    load_study(path)
                except ConfigError as exc:
                    problems.append(str(exc))
            _server = problems
        return list(_server)
