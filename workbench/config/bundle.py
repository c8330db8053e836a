"""Config bundles: a zip of ``config.toml`` and the files it names (hierarchies), written by the app's Export
page and read back by its Data page, bounded before anything is decompressed."""

from __future__ import annotations

import io
import tomllib
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.config import Study, study_from_dict
from workbench.config.text import to_toml
from workbench.errors import ConfigError
from workbench.release.output import safe_name


def config_bundle(raw: Mapping[str, Any], files: Mapping[str, str]) -> bytes:
    """A zip of ``config.toml`` and the files it names (e.g. ``hierarchies/age.csv``): unpacked next to the
    data file, ``workbench run config.toml`` runs it, and the app's Data page loads it again."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.toml", to_toml(raw))
        for name, text in files.items():
            z.writestr(name, text)
    return buffer.getvalue()


def hierarchy_paths(columns: Iterable[str]) -> dict[str, str]:
    """Each column's hierarchy file in a bundle, ``hierarchies/<name>.csv`` with the column's name made safe
    (``output.safe_name``: an uploaded table's column may hold a path separator or ``..``), distinct even where
    two names clean to one or differ in case only."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for column in columns:
        base = safe_name(column, fallback="column")
        name, i = base, 2
        while name.lower() in taken:  # distinct on a file system that ignores case too
            name, i = f"{base}-{i}", i + 1
        taken.add(name.lower())
        out[column] = f"hierarchies/{name}.csv"
    return out


def bundle_with_hierarchies(raw: Mapping[str, Any], hierarchies: Mapping[str, str]) -> bytes:
    """A ``config_bundle`` holding every hierarchy of ``hierarchies`` (column -> ARX text, as the release used it)
    as a file, its ``config.toml`` naming that file in place of a builder or of the file the analyst imported: the
    bundle alone (with the data) reproduces the release, whatever the builders do in another version."""
    paths = hierarchy_paths(hierarchies)
    attributes = {name: dict(spec) for name, spec in raw.get("attributes", {}).items()}
    for column, path in paths.items():
        spec = attributes.setdefault(column, {"role": "quasi"})
        spec.pop("builder", None)
        spec["hierarchy"] = path
    return config_bundle({**raw, "attributes": attributes}, {paths[c]: text for c, text in hierarchies.items()})


# what a config bundle (zip) may hold; checked from its directory before anything is decompressed
BUNDLE_MAX_MEMBERS = 256
BUNDLE_MAX_MEMBER_BYTES = 16 * 2**20  # a hierarchy file of every postal code of a country is about 2 MB
BUNDLE_MAX_TOTAL_BYTES = 64 * 2**20
MAX_CONFIG_BYTES = 1 * 2**20  # a TOML config


def _check_bundle(z: Any, name: str) -> None:
    """Raise ConfigError when a bundle holds too many members or, uncompressed, too many bytes."""
    infos = z.infolist()
    if len(infos) > BUNDLE_MAX_MEMBERS:
        raise ConfigError(f"{name}: the bundle holds {len(infos):,} files, more than {BUNDLE_MAX_MEMBERS}")
    for info in infos:
        limit = MAX_CONFIG_BYTES if info.filename == "config.toml" else BUNDLE_MAX_MEMBER_BYTES
        if info.file_size > limit:
            raise ConfigError(f"{name}: {info.filename} is {info.file_size:,} bytes uncompressed, more than "
                              f"{limit:,}")
    total = sum(info.file_size for info in infos)
    if total > BUNDLE_MAX_TOTAL_BYTES:
        raise ConfigError(f"{name}: the bundle holds {total:,} bytes uncompressed, more than "
                          f"{BUNDLE_MAX_TOTAL_BYTES:,}")


def _read_member(z: Any, member: str) -> bytes:
    """A member's bytes, never more than its declared size allows (zipfile stops at the declared size)."""
    info = z.getinfo(member)
    with z.open(info) as handle:
        data = handle.read(info.file_size + 1)
    if len(data) > info.file_size:
        raise ConfigError(f"{member}: larger than the bundle declares")
    return data


def read_config_bytes(content: bytes, name: str) -> tuple[Study, dict[str, str]]:
    """A config uploaded as TOML text or as a ``config_bundle`` zip: the validated Study and the bundle's
    other files by path (hierarchy files). A bundle is bounded (``BUNDLE_MAX_*``, checked before reading).
    Raises ConfigError naming the file and what is wrong."""
    import zipfile

    files: dict[str, str] = {}
    if len(content) > MAX_CONFIG_BYTES and not name.lower().endswith(".zip"):
        raise ConfigError(f"{name}: a config of {len(content):,} bytes is larger than {MAX_CONFIG_BYTES:,}")
    if name.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as z:
                names = z.namelist()
                _check_bundle(z, name)  # from the zip's directory, before anything is decompressed
                if "config.toml" not in names:
                    held = ", ".join(names) or "nothing"
                    raise ConfigError(f"{name}: the bundle has no config.toml (it holds {held})")
                text = _read_member(z, "config.toml")
                files = {n: _read_member(z, n).decode("utf-8-sig") for n in names
                         if n != "config.toml" and not n.endswith("/")}
        except zipfile.BadZipFile:
            raise ConfigError(f"{name}: not a zip file") from None
        except (NotImplementedError, RuntimeError, EOFError, OSError, zlib.error) as exc:  # encrypted, unknown method
            raise ConfigError(f"{name}: cannot read the bundle: {exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{name}: a file in the bundle is not UTF-8 text") from None
    else:
        text = content
    try:
        raw = tomllib.loads(text.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    return study_from_dict(raw, ".", name), files
