"""The report's provenance: the release's provenance record (``workbench.release.export.provenance_record``), the input
file's SHA-256, the versions of the packages that computed it, the config, and the commands that reproduce it."""

from __future__ import annotations

import hashlib
import importlib.metadata
import shlex
from typing import Any

from workbench.config import Study, to_toml
from workbench.study import RunResult

PACKAGES = ("numpy", "pandas", "scipy", "scikit-learn", "altair", "vl-convert-python")


def _file_hash(study: Study) -> str | None:
    if study.data_path is None:
        return None
    digest = hashlib.sha256()
    with open(study.data_path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    out = {}
    for name in ("k-anonymity-workbench", *PACKAGES):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def provenance_facts(result: RunResult, command: str) -> dict[str, Any]:
    """The provenance section: the release's provenance record, the input file's hash, versions, the config and
    the commands that reproduce the report and the release."""
    from workbench.release.export import provenance_record

    study, release = result.study, result.release
    record = {}
    if release is not None:
        assert result.guarantee is not None
        record = provenance_record(release, seed=study.seed, config=dict(study.raw),
                                   measures={i: s.value for i, s in result.scores.items()},
                                   guarantee=result.guarantee, suppressed_policy=study.suppressed)
    return {"record": record, "file_sha256": _file_hash(study), "data_path": str(study.data_path or ""),
            "source": result.dataset.source, "versions": _versions() | dict(record.get("versions", {})),
            "config_toml": to_toml(study.raw), "seed": study.seed, "search_seed": study.search_seed,
            "command": command, "run_command": run_command(command)}


def run_command(command: str) -> str:
    """The ``workbench run`` that writes the reported release: the report's command with ``run`` for
    ``report``, no ``--pdf``, and ``DIR-release`` for ``--out DIR``."""
    parts = shlex.split(command)
    out = []
    for i, part in enumerate(parts):
        if part == "--pdf":
            continue
        if i == 1 and part == "report":
            part = "run"
        elif i > 0 and parts[i - 1] == "--out":
            part = f"{part.rstrip('/')}-release"
        out.append(part)
    return shlex.join(out)
