"""The report's provenance: the release's provenance record (``workbench.release.export.provenance_record``), the
input's name and SHA-256, the versions of the packages that computed it, the config, and the commands that reproduce
it."""

from __future__ import annotations

import importlib.metadata
import shlex
from typing import Any

from workbench.config.text import to_toml
from workbench.study import RunResult

PACKAGES = ("numpy", "pandas", "scipy", "scikit-learn", "altair", "vl-convert-python")


def _versions() -> dict[str, str]:
    out = {}
    for name in ("k-anonymity-workbench", *PACKAGES):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def provenance_facts(result: RunResult, command: str) -> dict[str, Any]:
    """The provenance section: the release's provenance record, the input's name and the SHA-256 of its bytes
    (``export.input_record``, as the record gives them: a data file's, or an upload's bytes; no file is opened
    here), versions, the config and the commands that reproduce the report and the release."""
    from workbench.release.export import DATA_FILE, UPLOADED_BYTES, input_record, provenance_record

    study, release = result.study, result.release
    record = {}
    if release is not None:
        assert result.guarantee is not None
        record = provenance_record(release, seed=study.seed, config=dict(study.raw),
                                   measures={i: s.value for i, s in result.scores.items()},
                                   guarantee=result.guarantee, suppressed_policy=study.suppressed)
    given = dict(record.get("input") or input_record(result.dataset))
    label = {UPLOADED_BYTES: "SHA-256 of the uploaded bytes", DATA_FILE: "input file SHA-256"}
    return {"record": record, "file_sha256": given.get("file_sha256"),
            "file_sha256_label": label.get(str(given.get("file_sha256_of")), "input file SHA-256"),
            "source": given["source"], "versions": _versions() | dict(record.get("versions", {})),
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
