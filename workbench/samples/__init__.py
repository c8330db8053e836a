"""Embedded datasets: the El Emam et al. (2009) teaching table, a synthetic inpatient registry, UCI Adult with
ARX's hierarchies (8 or 9 quasi-identifiers), a province table with points and a synthetic 16-column survey.

``load_sample(name, **params)`` returns a :class:`Sample` (text cells, ``""`` for missing, attribute
roles in quasi-identifier order, one hierarchy per quasi-identifier). Generation is deterministic, so
results are cached; each call returns its own copy of the table, which callers may modify.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral
from typing import Any

import pandas as pd

from workbench.errors import ConfigError
from workbench.hierarchy.tree import Hierarchy
from workbench.samples import adult, province, registry, registry_geo, survey, teaching

SAMPLES: dict[str, str] = {
    "teaching": teaching.DESCRIPTION,
    "registry": registry.DESCRIPTION,
    "adult": adult.DESCRIPTION,
    "adult9": adult.DESCRIPTION_9,
    "province": province.DESCRIPTION,
    "survey": survey.DESCRIPTION,
}
RESEARCH_SUBSETS = ("adult", "adult9")  # samples with a research subset (δ-presence: subset = "research_subset")


@dataclass(frozen=True)
class Sample:
    """An embedded dataset ready for a study."""

    frame: pd.DataFrame
    roles: dict[str, str]
    hierarchies: dict[str, Hierarchy]
    description: str

    @property
    def quasi_identifiers(self) -> list[str]:
        return [c for c, r in self.roles.items() if r == "quasi"]


def _is_int(x: object) -> bool:
    return isinstance(x, Integral) and not isinstance(x, bool)


def _no_params(name: str) -> Callable[[dict[str, Any]], tuple]:
    def check(params: dict[str, Any]) -> tuple:
        if params:
            raise ConfigError(f"sample {name!r} takes no parameters, got {', '.join(map(repr, params))}")
        return ()
    return check


def _registry_params(params: dict[str, Any]) -> tuple:
    unknown = [p for p in params if p not in registry.DEFAULTS]
    if unknown:
        raise ConfigError(
            f"sample 'registry': unknown parameter {unknown[0]!r} (known: {', '.join(registry.DEFAULTS)})"
        )
    merged = {**registry.DEFAULTS, **params}
    n, seed = merged["n"], merged["seed"]
    if not _is_int(n) or not 1 <= n <= registry.MAX_N:
        raise ConfigError(f"sample 'registry': n must be an integer from 1 to {registry.MAX_N}, got {n!r}")
    if not _is_int(seed) or seed < 0:
        raise ConfigError(f"sample 'registry': seed must be a non-negative integer, got {seed!r}")
    return (int(n), int(seed))


def _survey_params(params: dict[str, Any]) -> tuple:
    unknown = [p for p in params if p != "qis"]
    if unknown:
        raise ConfigError(f"sample 'survey': unknown parameter {unknown[0]!r} (known: qis)")
    qis = params.get("qis", len(survey.COLUMNS))
    if not _is_int(qis) or not 1 <= qis <= len(survey.COLUMNS):
        raise ConfigError(f"sample 'survey': qis must be an integer from 1 to {len(survey.COLUMNS)}, got {qis!r}")
    return (int(qis),)


# samples whose fine geographic quasi-identifier has points (workbench.geo): name -> (column, points table)
GEO_POINTS: dict[str, tuple[str, Callable[[], pd.DataFrame]]] = {
    "province": ("region", province.region_points),
    "registry": (registry_geo.ATTRIBUTE, registry_geo.unit_points),
}


def region_points(name: str) -> tuple[str, pd.DataFrame] | None:
    """An embedded sample's geographic column and its regions' points table (``region, x, y, population``), None
    when the sample has none."""
    if name not in GEO_POINTS:
        return None
    column, points = GEO_POINTS[name]
    return column, points()


_LOADERS: dict[str, tuple[Callable[[dict[str, Any]], tuple], Callable[..., tuple]]] = {
    "teaching": (_no_params("teaching"), teaching.build),
    "registry": (_registry_params, registry.build),
    "adult": (_no_params("adult"), lambda: adult.build(8)),
    "adult9": (_no_params("adult9"), lambda: adult.build(9)),
    "province": (_no_params("province"), province.build),
    "survey": (_survey_params, survey.build),
}


@lru_cache(maxsize=8)
def _load(name: str, args: tuple) -> Sample:
    frame, roles, hierarchies, description = _LOADERS[name][1](*args)
    return Sample(frame=frame, roles=roles, hierarchies=hierarchies, description=description)


def load_sample(name: str, **params: Any) -> Sample:
    """Load an embedded dataset by name (see ``SAMPLES``); ``registry`` takes ``n`` and ``seed``, ``survey`` takes
    ``qis`` (its first so many columns are quasi-identifiers, the rest insensitive).

    Raises ConfigError for an unknown name or parameter.
    """
    if name not in _LOADERS:
        raise ConfigError(f"unknown sample {name!r} (known: {', '.join(SAMPLES)})")
    check, _ = _LOADERS[name]
    cached = _load(name, check(params))
    return Sample(
        frame=cached.frame.copy(),
        roles=dict(cached.roles),
        hierarchies=dict(cached.hierarchies),
        description=cached.description,
    )


__all__ = ["GEO_POINTS", "RESEARCH_SUBSETS", "SAMPLES", "Sample", "load_sample", "region_points"]
