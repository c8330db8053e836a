"""A config as text: TOML written back (``to_toml``, keeping the analyst's order of attributes with
``in_attribute_order``), and the ``SECTION.KEY=VALUE`` overrides (the CLI's ``--set``) that the CLI, the app and
``load_study`` apply to a config mapping before it is validated (``workbench.config``). A malformed one raises
``ArgumentError`` naming it as an override; the CLI names its ``--set``."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.errors import ArgumentError
from workbench.privacy.registry import PRIVACY_MODELS


def to_toml(raw: Mapping[str, Any]) -> str:
    """A config mapping as TOML text, loadable again by ``load_study`` (paths stay as written)."""
    import tomli_w

    return tomli_w.dumps(dict(raw))


def in_attribute_order(raw: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """A copy of a config mapping whose ``[attributes]`` lists ``names`` first, in that order, then the other
    attributes as they were. The order of the quasi-identifiers is the order of the transformation vector; a
    mapping that went through JSON with sorted keys (a cache key) has lost it, and a config written from it would
    give the analyst's quasi-identifiers back in alphabetical order."""
    out = copy.deepcopy(dict(raw))
    attributes = out.get("attributes")
    if isinstance(attributes, dict):
        first = [n for n in names if n in attributes]
        out["attributes"] = {n: attributes[n] for n in [*first, *(a for a in attributes if a not in first)]}
    return out


def parse_override(text: str) -> tuple[list[str], Any]:
    """``SECTION.KEY=VALUE`` -> (path, value); VALUE is read as a TOML value, else taken as a string."""
    if "=" not in text:
        raise ArgumentError("override", text, "expected SECTION.KEY=VALUE")
    key, value_text = text.split("=", 1)
    path = [p.strip() for p in key.strip().split(".")]
    if len(path) < 2 or any(not p for p in path):
        raise ArgumentError("override", text, "expected SECTION.KEY=VALUE")
    try:
        value = tomllib.loads(f"v = {value_text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = value_text.strip()
    return path, value


def apply_overrides(raw: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of ``raw`` with every override ``SECTION.KEY=VALUE`` applied (keys are validated later)."""
    out = copy.deepcopy(raw)
    for text in overrides:
        path, value = parse_override(text)
        if path[0] == "attributes" and len(path) != 3:
            raise ArgumentError("override", text, "attribute overrides are attributes.NAME.KEY=VALUE")
        model_key = len(path) == 3 and path[0] == "privacy" and path[1] in PRIVACY_MODELS
        if path[0] != "attributes" and len(path) != 2 and not model_key:
            raise ArgumentError("override", text, "expected SECTION.KEY=VALUE (or privacy.MODEL.KEY=VALUE)")
        node = out
        for p in path[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ArgumentError("override", text, f"{p!r} is not a table")
        node[path[-1]] = value
    return out
