"""The ``[privacy.MODEL]`` tables of a study config (ℓ-diversity, t-closeness, β-likeness, δ-disclosure privacy,
(α, k)-anonymity, δ-presence, k-map, risk thresholds): their
keys, types, choices and ranges, validated into ``PrivacyModelSpec``s that ``workbench.privacy`` builds models
from; and the type checks every config table uses (``need``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError

TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}


def type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def need(where: str, value: Any, types: tuple[type, ...]) -> None:
    if not type_ok(value, types):
        want = " or ".join(TYPE_NAMES.get(t, t.__name__) for t in types)
        raise ConfigError(f"{where} must be {want}, got {value!r}")


# [privacy.MODEL] sub-tables: key -> accepted types (workbench.privacy builds the models from the specs)
PRIVACY_MODELS: dict[str, dict[str, tuple[type, ...]]] = {
    "l_diversity": {"attribute": (str, list), "variant": (str,), "l": (int, float), "c": (int, float),
                    "estimator": (str,)},
    "t_closeness": {"attribute": (str, list), "variant": (str,), "t": (int, float)},
    "beta_likeness": {"attribute": (str, list), "variant": (str,), "beta": (int, float)},
    "delta_disclosure": {"attribute": (str, list), "delta": (int, float)},
    "alpha_k": {"attribute": (str, list), "alpha": (int, float), "k": (int,), "values": (list,)},
    "delta_presence": {"subset": (str,), "delta_min": (int, float), "delta_max": (int, float)},
    "k_map": {"k": (int,), "subset": (str,), "population": (int, float), "estimator": (str,),
              "significance": (int, float)},
    "risk": {"model": (str,), "threshold": (int, float), "estimator": (str,), "population": (int, float),
             "solver_iterations": (int,)},
}
L_VARIANTS = ("distinct", "entropy", "recursive")
T_VARIANTS = ("equal", "hierarchical", "ordered")
BETA_VARIANTS = ("basic", "enhanced")
K_MAP_ESTIMATORS = ("poisson", "zero_truncated_poisson")
SENSITIVE_MODELS = ("l_diversity", "t_closeness", "beta_likeness", "delta_disclosure", "alpha_k")
"""The models on sensitive attributes: ``attribute`` names one, or a list of them each checked."""
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


def privacy_models_of(privacy: Mapping[str, Any], where: str, base: Path) -> tuple[PrivacyModelSpec, ...]:
    """Validate the ``[privacy.MODEL]`` sub-tables (keys, types, ranges); what needs the data (the attribute's
    role, its hierarchy, the subset's rows) is checked when the models are built (``workbench.privacy``)."""
    specs = []
    for kind, keys in PRIVACY_MODELS.items():
        if kind not in privacy:
            continue
        table = privacy[kind]
        need(f"{where}: [privacy.{kind}]", table, (dict,))
        for key, value in table.items():
            if key not in keys:
                raise ConfigError(f"{where}: unknown key privacy.{kind}.{key}; known: {', '.join(keys)}")
            need(f"{where}: privacy.{kind}.{key}", value, keys[key])
        check = _PRIVACY_CHECKS[kind]
        specs.append(PrivacyModelSpec(kind, check(dict(table), f"{where}: privacy.{kind}", base)))
    subsets = {spec.kind: spec.get("subset") for spec in specs if spec.get("subset") is not None}
    if len(set(map(str, subsets.values()))) > 1:
        raise ConfigError(f"{where}: privacy.delta_presence.subset and privacy.k_map.subset name different research "
                          f"subsets ({', '.join(str(v) for v in subsets.values())}); one release has one subset")
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


def _attribute(table: Mapping[str, Any], where: str) -> str | list[str]:
    """``attribute``: one sensitive attribute, or a non-empty list of distinct ones (each checked)."""
    value = _required(table, "attribute", where)
    if isinstance(value, str):
        return value
    if not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}.attribute must be a column name or a non-empty list of column names, got {value!r}")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where}.attribute names a column twice: {value!r}")
    return list(value) if len(value) > 1 else value[0]


def attributes_of(value: str | Sequence[str]) -> list[str]:
    """The sensitive attributes an ``attribute`` key names (one, or a list)."""
    return [value] if isinstance(value, str) else list(value)


def _check_l_diversity(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    attribute = _attribute(table, where)
    variant = _choice(table, "variant", L_VARIANTS, "distinct", where)
    l_value = _required(table, "l", where)
    if variant != "entropy" and not (isinstance(l_value, int) or float(l_value).is_integer()):
        raise ConfigError(f"{where}.l must be a whole number for {variant} l-diversity, got {l_value}")
    if not l_value >= 1:
        raise ConfigError(f"{where}.l must be at least 1, got {l_value}")
    _only_for(table, "c", variant == "recursive", "variant = 'recursive'", where)
    _only_for(table, "estimator", variant == "entropy", "variant = 'entropy'", where)
    out = {"attribute": attribute, "variant": variant, "l": l_value}
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
    attribute = _attribute(table, where)
    variant = _choice(table, "variant", T_VARIANTS, "equal", where)
    return {"attribute": attribute, "variant": variant, "t": _fraction(table, "t", where)}


def _positive(table: Mapping[str, Any], key: str, where: str) -> float:
    value = float(_required(table, key, where))
    if not value > 0 or value == float("inf"):
        raise ConfigError(f"{where}.{key} must be a positive number, got {value}")
    return value


def _check_beta_likeness(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    attribute = _attribute(table, where)
    variant = _choice(table, "variant", BETA_VARIANTS, "basic", where)
    return {"attribute": attribute, "variant": variant, "beta": _positive(table, "beta", where)}


def _check_delta_disclosure(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    return {"attribute": _attribute(table, where), "delta": _positive(table, "delta", where)}


def _check_alpha_k(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"attribute": _attribute(table, where), "alpha": _fraction(table, "alpha", where)}
    if "k" in table:
        if not table["k"] >= 1:
            raise ConfigError(f"{where}.k must be at least 1, got {table['k']}")
        out["k"] = int(table["k"])
    if "values" in table:
        values = table["values"]
        if not values or not all(isinstance(v, str) for v in values):
            raise ConfigError(f"{where}.values must be a non-empty list of sensitive values (text), got {values!r}")
        out["values"] = list(dict.fromkeys(values))
    return out


def _check_k_map(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    k = _required(table, "k", where)
    if not k >= 1:
        raise ConfigError(f"{where}.k must be at least 1, got {k}")
    out: dict[str, Any] = {"k": int(k)}
    if ("subset" in table) == ("population" in table):
        raise ConfigError(f"{where} needs either 'subset' (a population table: the data file is the population and "
                          "the subset is released) or 'population' (a number of people: the class sizes there are "
                          "estimated), not both")
    estimated = "population" in table
    _only_for(table, "estimator", estimated, "an estimated population ('population')", where)
    _only_for(table, "significance", estimated, "an estimated population ('population')", where)
    if not estimated:
        subset = table["subset"]
        out["subset"] = subset if subset == "research_subset" else base / subset
        return out
    size = table["population"]
    if not size >= 1:
        raise ConfigError(f"{where}.population must be a number of people (at least 1), got {size}")
    out["population"] = float(size)
    out["estimator"] = _choice(table, "estimator", K_MAP_ESTIMATORS, K_MAP_ESTIMATORS[0], where)
    significance = float(table.get("significance", 0.01))
    if not 0.0 <= significance < 1.0:
        raise ConfigError(f"{where}.significance must be in [0, 1), got {significance}")
    out["significance"] = significance
    return out


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
    _only_for(table, "solver_iterations", population, "model = 'population_uniqueness'", where)
    if population:
        out["estimator"] = _choice(table, "estimator", POPULATION_ESTIMATORS, DEFAULT_POPULATION_ESTIMATOR, where)
        size = _required(table, "population", where)
        if not size >= 1:
            raise ConfigError(f"{where}.population must be a number of people (at least 1), got {size}")
        out["population"] = float(size)
        if "solver_iterations" in table:  # ARX's ARXSolverConfiguration.iterationsPerTry (default 1000)
            iterations = table["solver_iterations"]
            if not iterations >= 1:
                raise ConfigError(f"{where}.solver_iterations must be at least 1, got {iterations}")
            out["solver_iterations"] = int(iterations)
    return out


_PRIVACY_CHECKS = {"l_diversity": _check_l_diversity, "t_closeness": _check_t_closeness,
                   "beta_likeness": _check_beta_likeness, "delta_disclosure": _check_delta_disclosure,
                   "alpha_k": _check_alpha_k, "delta_presence": _check_delta_presence, "k_map": _check_k_map,
                   "risk": _check_risk}
