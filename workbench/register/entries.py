"""What the register keeps of a release: the row of ``schema.releases`` built from a run (``release_entry``: who,
when, the input's name and SHA-256, the config and its hash, the rule, the node, the risk, the measures, where it
went) and its ``Footprint``, what the attacks on two releases need to join this one with a later one.

The footprint holds the release's distinct released quasi-identifier rows and, per input record (in input order),
the row it was released as; with a key column named (``[register] key``), a salted digest of each record's key so
that a later table holding the same people under that key can be joined. It holds no value of the data but the
released, generalized ones, and no key in clear."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from workbench.errors import ConfigError
from workbench.grouping import group_rows

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.release import Release
    from workbench.study import RunResult

CHANNELS = ("cli", "app", "report", "python")
KEY_DIGEST_BYTES = 16


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the text a config's hash is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def config_sha256(config: Mapping[str, Any]) -> str:
    """The SHA-256 of a config (its canonical JSON): equal for equal configs, whatever their key order."""
    return hashlib.sha256(canonical_json(dict(config)).encode("utf-8")).hexdigest()


def data_identity(dataset: Dataset) -> dict[str, Any]:
    """The input as the register names it: ``data_name`` (``Dataset.source``), ``file_sha256`` (the SHA-256 of the
    bytes it was read from, None for an embedded sample), ``content_sha256`` (``export.content_sha256``, of the
    table's values) and ``data_sha256``, the first of the two digests there is: what ``workbench history --data``
    and the check against earlier releases match."""
    from workbench.release.export import content_sha256

    content = content_sha256(dataset.frame)
    return {"data_name": dataset.source, "file_sha256": dataset.input_sha256, "content_sha256": content,
            "data_sha256": dataset.input_sha256 or content}


def key_column(config: Mapping[str, Any], dataset: Dataset | None = None) -> str | None:
    """The config's ``[register] key``: a column that names the same person in every table of this data (e.g. a
    patient id), checked against the dataset's columns."""
    key = (config.get("register") or {}).get("key")
    if key is None:
        return None
    if dataset is not None and key not in dataset.frame.columns:
        raise ConfigError(f"register.key: no column {key!r} in {dataset.source}; the columns are "
                          f"{', '.join(map(repr, dataset.frame.columns))}")
    return str(key)


def key_digests(values: pd.Series, salt: str, where: str = "") -> np.ndarray:
    """Each value's salted SHA-256, cut to ``KEY_DIGEST_BYTES`` (a pseudonym for joining, not a secret: the salt
    lives in the register). Raises ConfigError when a value repeats (a key names one record)."""
    text = values.astype(str)
    repeated = text[text.duplicated(keep=False)]
    if len(repeated):
        first = repeated.iloc[0]
        raise ConfigError(f"register.key: column {values.name!r}{where} is not a key: {first!r} is held by "
                          f"{int((text == first).sum())} records")
    prefix = salt.encode("utf-8") + b"\x00"
    return np.array([hashlib.sha256(prefix + v.encode("utf-8")).digest()[:KEY_DIGEST_BYTES] for v in text],
                    dtype=f"S{KEY_DIGEST_BYTES}")


@dataclass(frozen=True, eq=False)
class Footprint:
    """A release as the attacks on two releases read it: ``rows``, its distinct released quasi-identifier rows
    (text; suppressed records ``*`` in every one), ``codes[i]`` the row input record i was released as, and
    ``keys[i]`` its key digest (None without a key column)."""

    quasi_identifiers: tuple[str, ...]
    rows: np.ndarray
    codes: np.ndarray
    keys: np.ndarray | None = None

    @property
    def records(self) -> int:
        return int(self.codes.size)

    @classmethod
    def of(cls, release: Release, keys: np.ndarray | None = None) -> Footprint:
        """The footprint of ``release`` (suppressed records marked ``*``, whatever the file does with them)."""
        qis = release.quasi_identifiers
        table = release.table()[qis].astype(str)
        if qis:
            codes = np.stack([pd.factorize(table[q])[0] for q in qis], axis=1)
            groups = group_rows(codes, with_inverse=True)
            assert groups.inverse is not None
            rows = table.to_numpy()[groups.first].astype(str)
            inverse = groups.inverse.astype(np.int32)
        else:
            rows, inverse = np.zeros((1, 0), dtype=str), np.zeros(len(table), dtype=np.int32)
        return cls(tuple(qis), rows, inverse, keys)

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        arrays = {"quasi_identifiers": np.array(self.quasi_identifiers, dtype=str), "rows": self.rows.astype(str),
                  "codes": self.codes.astype(np.int32)}
        if self.keys is not None:
            arrays["keys"] = self.keys
        np.savez_compressed(buffer, **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Footprint:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            keys = z["keys"] if "keys" in z.files else None
            return cls(tuple(str(q) for q in z["quasi_identifiers"]), z["rows"], z["codes"], keys)


MAX_FOOTPRINT_RECORDS = 20_000_000  # above it the register keeps the release without its footprint


def release_entry(result: RunResult, *, output: str, channel: str, user: str,
                  config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The register's row for the release of ``result`` written (or downloaded) to ``output`` by ``user`` through
    ``channel`` (``CHANNELS``); ``config`` is the config as written with the release (default the study's).
    Without its ``warnings`` and ``footprint``, which ``record_release`` adds."""
    from workbench.release.export import software_version

    if channel not in CHANNELS:
        raise ValueError(f"channel must be one of {CHANNELS}, got {channel!r}")
    release, study = result.release, result.study
    if release is None:
        raise ValueError("no release to record")
    config = dict(config if config is not None else study.raw)
    risk = result.risk() or {}
    prosecutor = risk.get("prosecutor") or {}
    models = [f"k-anonymity (k = {study.k})"] + [m["description"] for m in result.privacy_models().values()]
    return {
        **data_identity(result.dataset),
        "records": release.n,
        "config": config,
        "config_sha256": config_sha256(config),
        "engine": study.engine,
        "algorithm": result.search.algorithm if result.search else release.algorithm,
        "k": study.k,
        "models": models,
        "max_suppression": float(study.max_suppression),
        "node": dict(release.transformation) if release.transformation is not None else None,
        "quasi_identifiers": list(release.quasi_identifiers),
        "suppressed": int(release.suppressed.sum()),
        "classes": int(release.classes),
        "risk_highest": _number(prosecutor.get("highest")),
        "risk_average": _number(prosecutor.get("average")),
        "records_at_risk": int(prosecutor["records_at_risk_count"]) if prosecutor.get("records_at_risk_count")
        is not None else None,
        "measures": {i: _number(s.value) for i, s in result.scores.items()},
        "output": output,
        "software_version": software_version(),
        "key_column": key_column(config, result.dataset),
        "channel": channel,
        "user_name": user,
    }


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


def node_text(node: Mapping[str, int] | None) -> str:
    """A lattice node as ``age=2,sex=1`` (the CLI's --node form); ``local recoding`` without one."""
    return ",".join(f"{q}={v}" for q, v in node.items()) if node else "local recoding"
