"""The ``[privacy.MODEL]`` tables of a study config, validated from the privacy-model registry
(``workbench.privacy.registry.PRIVACY_MODELS``: each model's keys, their types, and its check of ranges and keys
that go together) into ``PrivacyModelSpec``s that ``workbench.privacy.build`` builds models from; and the type
checks every config table uses (``need``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.privacy.kind import PrivacyModelSpec
from workbench.privacy.registry import PRIVACY_MODELS

TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "a table"}


def type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def need(where: str, value: Any, types: tuple[type, ...]) -> None:
    if not type_ok(value, types):
        want = " or ".join(TYPE_NAMES.get(t, t.__name__) for t in types)
        raise ConfigError(f"{where} must be {want}, got {value!r}")


def privacy_models_of(privacy: Mapping[str, Any], where: str, base: Path) -> tuple[PrivacyModelSpec, ...]:
    """Validate the ``[privacy.MODEL]`` sub-tables (keys, types, ranges), in the registry's order; what needs the
    data (the attribute's role, its hierarchy, the subset's rows) is checked when the models are built
    (``workbench.privacy.build``)."""
    specs = []
    for kind, entry in list(PRIVACY_MODELS.items()):
        if kind not in privacy:
            continue
        table = privacy[kind]
        need(f"{where}: [privacy.{kind}]", table, (dict,))
        for key, value in table.items():
            if key not in entry.keys:
                raise ConfigError(f"{where}: unknown key privacy.{kind}.{key}; known: {', '.join(entry.keys)}")
            need(f"{where}: privacy.{kind}.{key}", value, entry.keys[key].types)
        specs.append(PrivacyModelSpec(kind, entry.check(dict(table), f"{where}: privacy.{kind}", base)))
    subsets = {spec.kind: spec.get("subset") for spec in specs if spec.get("subset") is not None}
    if len(set(map(str, subsets.values()))) > 1:
        tables = " and ".join(f"privacy.{kind}.subset" for kind in subsets)
        raise ConfigError(f"{where}: {tables} name different research "
                          f"subsets ({', '.join(str(v) for v in subsets.values())}); one release has one subset")
    return tuple(specs)
