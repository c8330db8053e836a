"""The release register (docs/register.md): a database of every written release, the board's decision on it and
the analysts' saved projects, and the check of each new release against the earlier ones of the same data.

- ``store``: where the register is (``WORKBENCH_REGISTER``, the server config's ``[register] url``, else a SQLite
  file in the user's data directory), ``open_register`` and ``Register`` (SQLAlchemy Core, Alembic migrations).
- ``entries``: the record of a release built from a run (``release_entry``) and the footprint the attacks need.
- ``earlier``: the complementary-release and intersection attacks of a new release against every earlier release of
  the same data, with the remedy.

The front ends call the functions below: ``check_release`` before a release is written, ``record_release`` once it
is, ``history`` and ``decide``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.register.earlier import EarlierCheck, check_earlier
from workbench.register.entries import (
    MAX_FOOTPRINT_RECORDS,
    Footprint,
    data_identity,
    key_column,
    key_digests,
    node_text,
    release_entry,
)
from workbench.register.schema import DECISIONS
from workbench.register.store import (
    ENV,
    Register,
    RegisterError,
    default_url,
    open_register,
    os_user,
    register_url,
    server_settings,
    shown_url,
)

if TYPE_CHECKING:
    from workbench.study import RunResult

__all__ = ["DECISIONS", "ENV", "Checked", "EarlierCheck", "Recorded", "Register", "RegisterError", "check_release",
           "data_identity", "decide", "default_url", "history", "node_text", "open_register", "os_user",
           "record_release", "register_url", "server_settings", "shown_url"]


@dataclass(frozen=True)
class Checked:
    """A release checked against the register before it is written: the checks against each earlier release of the
    same data (``EarlierCheck``) and the footprint to record with it."""

    checks: tuple[EarlierCheck, ...]
    footprint: Footprint

    @property
    def warnings(self) -> list[str]:
        return [c.warning() for c in self.checks if c.matters]


@dataclass(frozen=True)
class Recorded:
    """A release as recorded: its ``id`` in the register at ``url`` and the checks recorded with it."""

    id: int
    url: str
    checks: tuple[EarlierCheck, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "url": shown_url(self.url),
                "earlier_releases": [c.to_dict() for c in self.checks]}


def check_release(result: RunResult, config: Mapping[str, Any] | None = None,
                  register: Register | None = None) -> Checked:
    """Check the release of ``result`` against every earlier release of the same data (``earlier.check_earlier``)
    before it is written; ``config``: the config it is written with (its ``[register] key``)."""
    reg = register or open_register()
    assert result.release is not None
    config = config if config is not None else result.study.raw
    key = key_column(config, result.dataset)
    keys = key_digests(result.dataset.frame[key], reg.key_salt(), f" of {result.dataset.source}") if key else None
    footprint = Footprint.of(result.release, keys)
    return Checked(tuple(check_earlier(reg, result, config, footprint)), footprint)


def record_release(result: RunResult, *, output: str, channel: str, user: str | None = None,
                   config: Mapping[str, Any] | None = None, register: Register | None = None,
                   checked: Checked | None = None) -> Recorded:
    """Record the release of ``result``, written to ``output`` (a folder, or a file name the app downloaded), by
    ``user`` (default: the operating-system user) through ``channel`` (cli, app, report, python); ``checked``: its
    check against the earlier releases (``check_release``; done here when not given)."""
    reg = register or open_register()
    checked = checked or check_release(result, config, reg)
    entry = release_entry(result, output=output, channel=channel, user=user or os_user(), config=config)
    footprint = checked.footprint.to_bytes() if checked.footprint.records <= MAX_FOOTPRINT_RECORDS else None
    entry |= {"created": _now(), "warnings": [c.to_dict() for c in checked.checks], "footprint": footprint}
    return Recorded(reg.record(entry), reg.url, checked.checks)


def record_scaled(run: Any, *, output: str, user: str | None = None,
                  register: Register | None = None) -> tuple[Recorded, list[str]]:
    """Record a release of the out-of-core engine (``workbench.scale.ScaledRun``), identified by its data file's
    SHA-256. It keeps no per-record footprint, so it is not joined with the earlier releases of that file: each
    earlier release at another node is named in a warning (returned) instead."""
    from workbench.release.export import software_version

    reg = register or open_register()
    study = run.study
    digest = hashlib.sha256()
    with Path(study.data_path).open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    sha = digest.hexdigest()
    summary = run.summary()
    node = summary["transformation"]
    warnings = [f"release {r['id']} of the same data file ({r['created']}, by {r['user_name']}, {node_text(r['node'])}"
                f") is in the register; the out-of-core engine does not join two releases: check this one against it "
                f"with engine.backend = \"pandas\" before releasing both"
                for r in reg.releases([sha]) if r["node"] != node]
    prosecutor = (summary.get("risk") or {}).get("prosecutor") or {}
    config = dict(study.raw)
    from workbench.register.entries import config_sha256

    entry = {"created": _now(), "user_name": user or os_user(), "channel": "cli", "data_name": str(study.data_path),
             "data_sha256": sha, "file_sha256": sha, "content_sha256": sha, "records": run.n, "config": config,
             "config_sha256": config_sha256(config), "engine": f"lattice ({study.backend})",
             "algorithm": study.algorithm, "k": study.k, "models": [f"k-anonymity (k = {study.k})"],
             "max_suppression": float(study.max_suppression), "node": node,
             "quasi_identifiers": list(run.quasi_identifiers), "suppressed": int(summary["suppressed"]),
             "classes": int(summary["classes"]), "risk_highest": prosecutor.get("highest"),
             "risk_average": prosecutor.get("average"), "records_at_risk": prosecutor.get("records_at_risk_count"),
             "measures": summary["measures"], "output": output, "software_version": software_version(),
             "key_column": None, "warnings": [{"warning": w} for w in warnings], "footprint": None}
    return Recorded(reg.record(entry), reg.url), warnings


def _now() -> str:
    from workbench.register.store import now

    return now()


HISTORY_FIELDS = ("id", "time", "user", "channel", "data_name", "data_sha256", "engine", "algorithm", "k", "models",
                  "max_suppression", "node", "suppressed", "classes", "risk", "measures", "output",
                  "software_version", "config_sha256", "decision", "warnings")


def history_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A register row as ``workbench history --json`` and the History page give it."""
    d = row.get("decision")
    warnings = [w["warning"] for w in row.get("warnings") or [] if w.get("warning")]
    return {"id": row["id"], "time": row["created"], "user": row["user_name"], "channel": row["channel"],
            "data_name": row["data_name"], "data_sha256": row["data_sha256"], "file_sha256": row["file_sha256"],
            "content_sha256": row["content_sha256"], "records": row["records"], "engine": row["engine"],
            "algorithm": row["algorithm"], "k": row["k"], "models": row["models"],
            "max_suppression": row["max_suppression"], "node": row["node"], "node_text": node_text(row["node"]),
            "suppressed": row["suppressed"], "classes": row["classes"],
            "risk": {"highest": row["risk_highest"], "average": row["risk_average"],
                     "records_at_risk": row["records_at_risk"]},
            "measures": row["measures"], "output": row["output"], "software_version": row["software_version"],
            "config_sha256": row["config_sha256"], "key_column": row["key_column"],
            "decision": None if d is None else {"decision": d["decision"], "by": d["decided_by"], "note": d["note"],
                                                "time": d["created"], "recorded_by": d["recorded_by"]},
            "warnings": warnings}


_HEX = re.compile(r"[0-9a-fA-F]{64}")


def data_digests(data: str | Path) -> tuple[list[str], str | None]:
    """What ``history --data`` matches: a file's SHA-256 (it exists), a SHA-256 given as 64 hex digits, or else a
    data name as recorded (``sample:registry``, an upload's name); returns (digests, name)."""
    text = str(data)
    path = Path(text)
    if path.is_file():
        digest = hashlib.sha256()
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return [digest.hexdigest()], None
    if _HEX.fullmatch(text):
        return [text.lower()], None
    return [], text


def history(data: str | Path | None = None, register: Register | None = None,
            digests: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The releases in the register, oldest first (``history_row``); ``data``: only those of that data (a file, a
    SHA-256 or a data name; ``data_digests``); ``digests``: only those of these SHA-256 digests."""
    reg = register or open_register()
    name = None
    wanted = list(digests)
    if data is not None:
        found, name = data_digests(data)
        wanted += found
    if data is None and not digests:
        return [history_row(r) for r in reg.releases()]
    if name is not None and not wanted:
        return [history_row(r) for r in reg.releases() if r["data_name"] == name]
    return [history_row(r) for r in reg.releases(wanted)]


def decide(release_id: int, decision: str, by: str, note: str = "", recorded_by: str | None = None,
           register: Register | None = None) -> dict[str, Any]:
    """Record the board's ``decision`` (approved, rejected, conditions) on a release; ``recorded_by``: who entered
    it (default: the operating-system user)."""
    reg = register or open_register()
    return reg.decide(release_id, decision, by, note, recorded_by or os_user())
