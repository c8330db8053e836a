"""What the pages work on: an embedded sample, or the session's own uploaded table with its roles and
hierarchies. A Source turns page settings into a config (the TOML config as a mapping) and names the session dataset."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import measures as M


@dataclass(frozen=True)
class Source:
    """``sample``: an embedded dataset's name; otherwise ``dataset_key`` names the session's own dataset
    (its results are memoized in the session only) and ``attributes`` is its config ``[attributes]``."""

    label: str
    sample: str | None = None
    dataset_key: str | None = None
    data_path: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    target: str | None = None
    quasi_identifiers: tuple[str, ...] = ()

    @property
    def measure_ids(self) -> list[str]:
        """Every measure this source can be scored with (target measures only when a target is set)."""
        return [m for m, spec in M.MEASURES.items() if self.target is not None or not spec.needs_target]

    def config(self, *, k: int, max_suppression: float = 0.0, engine: str = "lattice", algorithm: str = "flash",
               objective: str = "entropy", compare: list[str] | None = None,
               privacy_models: Mapping[str, Mapping[str, Any]] | None = None, **engine_extra: Any) -> dict[str, Any]:
        """The study config of these settings on this source; ``privacy_models`` are its ``[privacy.MODEL]``
        tables (``workbench.privacy.registry.PRIVACY_MODELS``), e.g. ``{"l_diversity": {"attribute": ..., "l": 3}}``."""
        data = {"sample": self.sample} if self.sample is not None else {"path": self.data_path}
        config: dict[str, Any] = {
            "data": data,
            "privacy": {"k": int(k), "max_suppression": float(max_suppression),
                        **{kind: dict(table) for kind, table in (privacy_models or {}).items()}},
            "engine": {"kind": engine, "algorithm": algorithm, "objective": objective, **engine_extra},
            "measures": {"compare": list(compare if compare is not None else self.measure_ids),
                         **({"target": self.target} if self.target else {})},
        }
        if self.attributes:
            config["attributes"] = json.loads(json.dumps(self.attributes))
        return config

    def config_json(self, **settings: Any) -> str:
        """``config(...)`` as canonical JSON: the cache key of every library call."""
        return json.dumps(self.config(**settings), sort_keys=True)
