"""What the pages work on: an embedded sample, or the session's own uploaded table with its roles and
hierarchies. A Source turns page settings into a ``Study`` (``workbench.config``: the validated config the cached calls
take) and names the session dataset."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import measures as M
from workbench.config import Study, study_from_dict


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
            config["attributes"] = copy.deepcopy(dict(self.attributes))
        return config

    def study(self, **settings: Any) -> Study:
        """``config(...)`` as a validated ``Study``, what every cached library call takes (its memo key is the config's
        canonical JSON, ``memo.memo_key``); a ``ConfigError`` (one line) when the settings make no valid config."""
        return study_from_dict(self.config(**settings))


def revised(study: Study, **sections: Mapping[str, Any] | None) -> Study:
    """``study`` with whole config sections replaced (``release=None`` leaves the section out), as a new validated
    ``Study`` read like the first (same source and base directory)."""
    raw = {key: copy.deepcopy(value) for key, value in study.raw.items() if key not in sections}
    raw |= {key: copy.deepcopy(dict(value)) for key, value in sections.items() if value is not None}
    return study_from_dict(raw, base_dir=study.base_dir, source=study.source)
