"""Study configuration: TOML (as in ``sample_configs/``) -> validated ``Study``. All parameter validation lives here.

A ``Study`` validates itself when it is made (``Study.__post_init__`` calls ``validate``), so every entry
point, the CLI, the app and the Python API, and every ``dataclasses.replace(study, ...)`` go through the same
checks. ``study_from_dict`` checks what only the config file has (sections, keys, value types, the data
source). Every problem raises ConfigError with one line that names the file, the key and what is wrong.
"""

from __future__ import annotations

import copy
import io
import tomllib
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import measures as M
from workbench.data import ROLES
from workbench.errors import ConfigError
from workbench.geo.config import parse_geo
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS as _LOCAL_SEARCHES
from workbench.local import POSETS

# allowed values, read from the registries (``ALGORITHMS``, ``workbench.local``, ``measures.MEASURES``)
ENGINES = ("lattice", "local")
LATTICE_ALGORITHMS = tuple(ALGORITHMS)
LOCAL_ALGORITHMS = tuple(_LOCAL_SEARCHES)
DEGRADATION = "degradation"  # model degradation: a comparison column (workbench.compare), not a Measure
MEASURE_IDS = (*M.MEASURES, DEGRADATION)
SUPPRESSED_POLICIES = ("mark", "drop")
DEFAULT_COMPARE = ("height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm",
                   "loss")

# section -> key -> accepted python types
_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "data": {"path": (str,), "separator": (str,), "sample": (str,), "rows": (int,)},
    "privacy": {"k": (int,), "max_suppression": (int, float)},
    "engine": {"kind": (str,), "algorithm": (str,), "objective": (str,), "time_limit": (int, float),
               "seed": (int,), "allow_non_monotone": (bool,)},
    "measures": {"compare": (list,), "target": (str,), "col_mi_weights": (str,)},
    "release": {"seed": (int,), "suppressed": (str,), "format": (str,), "escape_formulas": (bool,)},
}
_ATTRIBUTE_KEYS: dict[str, tuple[type, ...]] = {
    "role": (str,), "hierarchy": (str,), "builder": (dict,), "poset": (str,), "poset_file": (str,),
    "max_diff": (int, float), "weight": (int, float), "power_mode": (str,), "base_date": (str,),
    "age_bands": (list,), "value_separator": (str,),
}
MAX_K = 2**53 - 1  # beyond it a JSON reader (the provenance, the app's widgets) no longer holds k exactly
POSET_KINDS = tuple(POSETS)
LOCAL_OBJECTIVES = tuple(i for i, m in M.MEASURES.items() if m.guides_local)
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}


@dataclass(frozen=True)
class AttributeSpec:
    """One ``[attributes.NAME]`` table."""

    name: str
    role: str | None = None
    hierarchy: Path | None = None
    builder: Mapping[str, Any] | None = None
    poset: str | None = None
    poset_file: Path | None = None
    max_diff: float | None = None
    weight: float = 1.0
    power_mode: str = "per_bit"
    base_date: str = "2006-01-01"
    age_bands: tuple[int, ...] = (5, 30, 50, 70, 90)
    value_separator: str = ";"


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
    compare: tuple[str, ...] = DEFAULT_COMPARE
    target: str | None = None
    col_mi_weights: str = "mi"
    seed: int = 0
    suppressed: str = "mark"
    release_format: str = "csv"
    escape_formulas: bool = True  # CSV releases: formula-like text cells get a leading ' (OWASP)
    raw: Mapping[str, Any] = field(default_factory=dict)
    privacy_models: tuple[PrivacyModelSpec, ...] = ()  # [privacy.l_diversity], [privacy.t_closeness], ...

    def __post_init__(self) -> None:
        validate(self)


def _check_attribute(where: str, spec: AttributeSpec) -> None:
    name = spec.name
    if spec.role is not None and spec.role not in ROLES:
        raise ConfigError(f"{where}: attributes.{name}.role {spec.role!r} is not one of {', '.join(ROLES)}")
    if spec.poset is not None and spec.poset not in POSET_KINDS:
        raise ConfigError(f"{where}: attributes.{name}.poset {spec.poset!r} is not one of {', '.join(POSET_KINDS)}")
    if spec.poset == "passthrough":
        raise ConfigError(f"{where}: attributes.{name}.poset = 'passthrough' releases the column unchanged "
                          f"(Katirai's PassThroughPoset), so it cannot be a quasi-identifier of a k-anonymous "
                          f"release; give {name!r} the role 'insensitive' to release it as is, or choose "
                          f"another poset")
    if spec.poset is not None and POSETS[spec.poset].needs_file and spec.poset_file is None:
        raise ConfigError(f"{where}: attributes.{name}.poset = {spec.poset!r} needs a poset_file (TOML or JSON)")
    if spec.power_mode not in ("per_bit", "and"):
        raise ConfigError(f"{where}: attributes.{name}.power_mode must be 'per_bit' or 'and'")
    bands = spec.age_bands
    if not bands or not all(isinstance(b, int) and b > 0 for b in bands) or list(bands) != sorted(set(bands)):
        raise ConfigError(f"{where}: attributes.{name}.age_bands must be increasing positive integers")
    if spec.max_diff is not None and spec.max_diff <= 0:
        raise ConfigError(f"{where}: attributes.{name}.max_diff must be positive, got {spec.max_diff:g}")
    if spec.weight < 0:
        raise ConfigError(f"{where}: attributes.{name}.weight must be zero or more, got {spec.weight:g}")
    if spec.hierarchy is not None and spec.builder is not None:
        raise ConfigError(f"{where}: attributes.{name} has both 'hierarchy' and 'builder'; give one")


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
        _check_attribute(where, spec)

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
    if objective not in MEASURE_IDS:
        raise ConfigError(f"{where}: engine.objective {objective!r} is not a measure id; use one of "
                          f"{', '.join(MEASURE_IDS)}")
    if study.time_limit is not None and study.time_limit <= 0:
        raise ConfigError(f"{where}: engine.time_limit must be a positive number of seconds, got "
                          f"{study.time_limit:g}")
    if study.search_seed < 0:
        raise ConfigError(f"{where}: engine.seed must be zero or more, got {study.search_seed}")

    for m in study.compare:
        if not isinstance(m, str) or m not in MEASURE_IDS:
            raise ConfigError(f"{where}: measures.compare has {m!r}, not a measure id; use "
                              f"{', '.join(MEASURE_IDS)}")
    if study.col_mi_weights not in ("mi", "mi_ratio"):
        raise ConfigError(f"{where}: measures.col_mi_weights must be 'mi' (Katirai's definition) or 'mi_ratio' "
                          f"(his example weights), got {study.col_mi_weights!r}")

    if study.suppressed not in SUPPRESSED_POLICIES:
        raise ConfigError(f"{where}: release.suppressed must be 'mark' or 'drop', got {study.suppressed!r}")
    if study.seed < 0:
        raise ConfigError(f"{where}: release.seed must be a non-negative integer, got {study.seed}")
    if study.release_format not in ("csv", "parquet", "xlsx"):
        raise ConfigError(f"{where}: release.format must be csv, parquet or xlsx, got {study.release_format!r}")


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _need(where: str, value: Any, types: tuple[type, ...]) -> None:
    if not _type_ok(value, types):
        want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)
        raise ConfigError(f"{where} must be {want}, got {value!r}")


def to_toml(raw: Mapping[str, Any]) -> str:
    """A config mapping as TOML text, loadable again by ``load_study`` (paths stay as written)."""
    import tomli_w

    return tomli_w.dumps(dict(raw))


def config_bundle(raw: Mapping[str, Any], files: Mapping[str, str]) -> bytes:
    """A zip of ``config.toml`` and the files it names (e.g. ``hierarchies/age.csv``): unpacked next to the
    data file, ``workbench run config.toml`` runs it, and the app's Data page loads it again."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.toml", to_toml(raw))
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


# what a config bundle (zip) may hold; checked from its directory before anything is decompressed
BUNDLE_MAX_MEMBERS = 256
BUNDLE_MAX_MEMBER_BYTES = 16 * 2**20  # a hierarchy file of every postal code of a country is about 2 MB
BUNDLE_MAX_TOTAL_BYTES = 64 * 2**20
MAX_CONFIG_BYTES = 1 * 2**20  # a TOML config


def _check_bundle(z: Any, name: str) -> None:
    """Raise ConfigError when a bundle holds too many members or, uncompressed, too many bytes."""
    infos = z.infolist()
    if len(infos) > BUNDLE_MAX_MEMBERS:
        raise ConfigError(f"{name}: the bundle holds {len(infos):,} files, more than {BUNDLE_MAX_MEMBERS}")
    for info in infos:
        limit = MAX_CONFIG_BYTES if info.filename == "config.toml" else BUNDLE_MAX_MEMBER_BYTES
        if info.file_size > limit:
            raise ConfigError(f"{name}: {info.filename} is {info.file_size:,} bytes uncompressed, more than "
                              f"{limit:,}")
    total = sum(info.file_size for info in infos)
    if total > BUNDLE_MAX_TOTAL_BYTES:
        raise ConfigError(f"{name}: the bundle holds {total:,} bytes uncompressed, more than "
                          f"{BUNDLE_MAX_TOTAL_BYTES:,}")


def _read_member(z: Any, member: str) -> bytes:
    """A member's bytes, never more than its declared size allows (zipfile stops at the declared size)."""
    info = z.getinfo(member)
    with z.open(info) as handle:
        data = handle.read(info.file_size + 1)
    if len(data) > info.file_size:
        raise ConfigError(f"{member}: larger than the bundle declares")
    return data


def read_config_bytes(content: bytes, name: str) -> tuple[Study, dict[str, str]]:
    """A config uploaded as TOML text or as a ``config_bundle`` zip: the validated Study and the bundle's
    other files by path (hierarchy files). A bundle is bounded (``BUNDLE_MAX_*``, checked before reading).
    Raises ConfigError naming the file and what is wrong."""
    import zipfile

    files: dict[str, str] = {}
    if len(content) > MAX_CONFIG_BYTES and not name.lower().endswith(".zip"):
        raise ConfigError(f"{name}: a config of {len(content):,} bytes is larger than {MAX_CONFIG_BYTES:,}")
    if name.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as z:
                names = z.namelist()
                _check_bundle(z, name)  # from the zip's directory, before anything is decompressed
                if "config.toml" not in names:
                    held = ", ".join(names) or "nothing"
                    raise ConfigError(f"{name}: the bundle has no config.toml (it holds {held})")
                text = _read_member(z, "config.toml")
                files = {n: _read_member(z, n).decode("utf-8-sig") for n in names
                         if n != "config.toml" and not n.endswith("/")}
        except zipfile.BadZipFile:
            raise ConfigError(f"{name}: not a zip file") from None
        except (NotImplementedError, RuntimeError, EOFError, OSError, zlib.error) as exc:  # encrypted, unknown method
            raise ConfigError(f"{name}: cannot read the bundle: {exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{name}: a file in the bundle is not UTF-8 text") from None
    else:
        text = content
    try:
        raw = tomllib.loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    return study_from_dict(raw, ".", name), files


def parse_override(text: str) -> tuple[list[str], Any]:
    """``SECTION.KEY=VALUE`` -> (path, value); VALUE is read as a TOML value, else taken as a string."""
    if "=" not in text:
        raise ConfigError(f"--set {text!r}: expected SECTION.KEY=VALUE")
    key, value_text = text.split("=", 1)
    path = [p.strip() for p in key.strip().split(".")]
    if len(path) < 2 or any(not p for p in path):
        raise ConfigError(f"--set {text!r}: expected SECTION.KEY=VALUE")
    try:
        value = tomllib.loads(f"v = {value_text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = value_text.strip()
    return path, value


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of ``raw`` with every ``--set SECTION.KEY=VALUE`` applied (keys are validated later)."""
    out = copy.deepcopy(raw)
    for text in overrides:
        path, value = parse_override(text)
        if path[0] == "attributes" and len(path) != 3:
            raise ConfigError(f"--set {text!r}: attribute overrides are attributes.NAME.KEY=VALUE")
        model_key = len(path) == 3 and path[0] == "privacy" and path[1] in PRIVACY_MODELS
        if path[0] != "attributes" and len(path) != 2 and not model_key:
            raise ConfigError(f"--set {text!r}: expected SECTION.KEY=VALUE (or privacy.MODEL.KEY=VALUE)")
        node = out
        for p in path[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"--set {text!r}: {p!r} is not a table")
        node[path[-1]] = value
    return out


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
    return study_from_dict(apply_overrides(raw, overrides), base_dir=p.resolve().parent, source=str(p))


def study_from_dict(raw: Mapping[str, Any], base_dir: str | Path = ".", source: str = "config") -> Study:
    """Validate a config mapping. Relative paths are resolved against ``base_dir``."""
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
                continue  # a [privacy.MODEL] sub-table, validated by _privacy_models
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
    for name, spec in attributes_raw.items():
        _need(f"{where}: [attributes.{name}]", spec, (dict,))
        for key, value in spec.items():
            if key not in _ATTRIBUTE_KEYS:
                raise ConfigError(f"{where}: unknown key attributes.{name}.{key}; known: "
                                  f"{', '.join(_ATTRIBUTE_KEYS)}")
            _need(f"{where}: attributes.{name}.{key}", value, _ATTRIBUTE_KEYS[key])
        attributes.append(AttributeSpec(
            name=name, role=spec.get("role"),
            hierarchy=(base / spec["hierarchy"]) if "hierarchy" in spec else None,
            builder=spec.get("builder"), poset=spec.get("poset"),
            poset_file=(base / spec["poset_file"]) if "poset_file" in spec else None,
            max_diff=float(spec["max_diff"]) if "max_diff" in spec else None, weight=float(spec.get("weight", 1.0)),
            power_mode=spec.get("power_mode", "per_bit"), base_date=spec.get("base_date", "2006-01-01"),
            age_bands=tuple(spec.get("age_bands", (5, 30, 50, 70, 90))),
            value_separator=spec.get("value_separator", ";"),
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
    release = sections["release"]
    suppressed = release.get("suppressed", "mark")
    seed = release.get("seed", 0)
    fmt = release.get("format", "csv")

    privacy_models = _privacy_models(privacy, where, base)

    return Study(
        source=source, base_dir=base, data_path=data_path, separator=data.get("separator"),
        sample=data.get("sample"), rows=data.get("rows"), attributes=tuple(attributes), k=k, max_suppression=max_sup,
        engine=kind, algorithm=algorithm, objective=objective,
        time_limit=float(time_limit) if time_limit is not None else None, search_seed=engine.get("seed", 0),
        allow_non_monotone=engine.get("allow_non_monotone", False), compare=compare,
        target=measures.get("target"), col_mi_weights=measures.get("col_mi_weights", "mi"), seed=seed,
        suppressed=suppressed,
        release_format=fmt, escape_formulas=release.get("escape_formulas", True), raw=copy.deepcopy(dict(raw)),
        privacy_models=privacy_models,
    )


# ---------------------------------------------------------------------------------------------- privacy models
# [privacy.MODEL] sub-tables: key -> accepted types (workbench.privacy builds the models from the specs)
PRIVACY_MODELS: dict[str, dict[str, tuple[type, ...]]] = {
    "l_diversity": {"attribute": (str,), "variant": (str,), "l": (int, float), "c": (int, float),
                    "estimator": (str,)},
    "t_closeness": {"attribute": (str,), "variant": (str,), "t": (int, float)},
    "delta_presence": {"subset": (str,), "delta_min": (int, float), "delta_max": (int, float)},
    "risk": {"model": (str,), "threshold": (int, float), "estimator": (str,), "population": (int, float)},
}
L_VARIANTS = ("distinct", "entropy", "recursive")
T_VARIANTS = ("equal", "hierarchical", "ordered")
ENTROPY_ESTIMATORS = ("shannon", "grassberger")
RISK_MODELS = ("average", "sample_uniqueness", "population_uniqueness")
POPULATION_ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")
DEFAULT_POPULATION_ESTIMATOR = "dankar"  # Dankar et al. 2012's decision rule, as ARX


@dataclass(frozen=True)
class PrivacyModelSpec:
    """One validated ``[privacy.MODEL]`` table: ``kind`` is the table's name, ``params`` its keys with defaults
    filled in (``subset`` resolved against the config's folder, or ``"research_subset"`` for an embedded
    sample's own research subset)."""

    kind: str
    params: Mapping[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


def _privacy_models(privacy: Mapping[str, Any], where: str, base: Path) -> tuple[PrivacyModelSpec, ...]:
    """Validate the ``[privacy.MODEL]`` sub-tables (keys, types, ranges); what needs the data (the attribute's
    role, its hierarchy, the subset's rows) is checked when the models are built (``workbench.privacy``)."""
    specs = []
    for kind, keys in PRIVACY_MODELS.items():
        if kind not in privacy:
            continue
        table = privacy[kind]
        _need(f"{where}: [privacy.{kind}]", table, (dict,))
        for key, value in table.items():
            if key not in keys:
                raise ConfigError(f"{where}: unknown key privacy.{kind}.{key}; known: {', '.join(keys)}")
            _need(f"{where}: privacy.{kind}.{key}", value, keys[key])
        check = _PRIVACY_CHECKS[kind]
        specs.append(PrivacyModelSpec(kind, check(dict(table), f"{where}: privacy.{kind}", base)))
    return tuple(specs)


def _required(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise ConfigError(f"{where} needs '{key}'")
    return table[key]


def _choice(table: Mapping[str, Any], key: str, options: Sequence[str], default: str | None, where: str) -> str:
    value = table.get(key, default) if default is not None else _required(table, key, where)
    if value not in options:
        raise ConfigError(f"{where}.{key} {value!r} is not one of {', '.join(options)}")
    return value


def _only_for(table: Mapping[str, Any], key: str, allowed: bool, what: str, where: str) -> None:
    if key in table and not allowed:
        raise ConfigError(f"{where}.{key} applies to {what} only")


def _check_l_diversity(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    _required(table, "attribute", where)
    variant = _choice(table, "variant", L_VARIANTS, "distinct", where)
    l_value = _required(table, "l", where)
    if variant != "entropy" and not (isinstance(l_value, int) or float(l_value).is_integer()):
        raise ConfigError(f"{where}.l must be a whole number for {variant} l-diversity, got {l_value}")
    if not l_value >= 1:
        raise ConfigError(f"{where}.l must be at least 1, got {l_value}")
    _only_for(table, "c", variant == "recursive", "variant = 'recursive'", where)
    _only_for(table, "estimator", variant == "entropy", "variant = 'entropy'", where)
    out = {"attribute": table["attribute"], "variant": variant, "l": l_value}
    if variant == "recursive":
        c = _required(table, "c", where)
        if not c > 0:
            raise ConfigError(f"{where}.c must be positive, got {c}")
        out["c"] = float(c)
    if variant == "entropy":
        out["estimator"] = _choice(table, "estimator", ENTROPY_ESTIMATORS, "shannon", where)
    return out


def _fraction(table: Mapping[str, Any], key: str, where: str) -> float:
    value = float(_required(table, key, where))
    if not 0.0 < value <= 1.0:
        raise ConfigError(f"{where}.{key} must be in (0, 1], got {value}")
    return value


def _check_t_closeness(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    _required(table, "attribute", where)
    variant = _choice(table, "variant", T_VARIANTS, "equal", where)
    return {"attribute": table["attribute"], "variant": variant, "t": _fraction(table, "t", where)}


def _check_delta_presence(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    subset = _required(table, "subset", where)
    low, high = float(table.get("delta_min", 0.0)), float(_required(table, "delta_max", where))
    if not 0.0 <= low <= high <= 1.0:
        raise ConfigError(f"{where}: need 0 <= delta_min <= delta_max <= 1, got delta_min = {low}, "
                          f"delta_max = {high}")
    if high == 0.0:
        raise ConfigError(f"{where}.delta_max must be in (0, 1], got {high}")
    path: str | Path = subset if subset == "research_subset" else base / subset
    return {"subset": path, "delta_min": low, "delta_max": high}


def _check_risk(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    model = _choice(table, "model", RISK_MODELS, None, where)
    out: dict[str, Any] = {"model": model, "threshold": _fraction(table, "threshold", where)}
    population = model == "population_uniqueness"
    _only_for(table, "estimator", population, "model = 'population_uniqueness'", where)
    _only_for(table, "population", population, "model = 'population_uniqueness'", where)
    if population:
        out["estimator"] = _choice(table, "estimator", POPULATION_ESTIMATORS, DEFAULT_POPULATION_ESTIMATOR, where)
        size = _required(table, "population", where)
        if not size >= 1:
            raise ConfigError(f"{where}.population must be a number of people (at least 1), got {size}")
        out["population"] = float(size)
    return out


_PRIVACY_CHECKS = {"l_diversity": _check_l_diversity, "t_closeness": _check_t_closeness,
                   "delta_presence": _check_delta_presence, "risk": _check_risk}
