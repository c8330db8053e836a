"""Measures of your own (docs/measures.md#measures-of-your-own), loaded: the plugin files a config names in
``[measures] plugins``, the measures of installed packages (entry-point group ``workbench.measures``) and the
server config's, all registered in the one registry, ``measures.MEASURES``, through ``workbench.user_measure``
(the ``measure`` decorator; its names are importable from here too).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

import measures as M
from workbench.errors import ConfigError, MeasureError
from workbench.user_measure import (
    loaded,
    lock,
    registered_via,
    registering,
    registering_via,
    unregister_measure,
)

ENTRY_POINT_GROUP = "workbench.measures"
_installed: list[str] | None = None  # entry-point errors, once the installed measures were loaded


def load_plugins(paths: Sequence[Path], where: str) -> list[str]:
    """Run each plugin file once (a file already loaded is not run again) and return the ids it registered. A
    missing file, an import failure, a file that registers no measure or an id already taken raise one
    ConfigError naming ``where`` (the config) and the file; a failing file registers nothing."""
    ids: list[str] = []
    for path in paths:
        resolved = Path(path).resolve()
        with lock:
            if resolved in loaded:
                ids += loaded[resolved]
                continue
            if not resolved.is_file():
                raise ConfigError(f"{where}: measures.plugins: {path} does not exist")
            ids += _load_file(resolved, path, where)
    return ids


def _load_file(resolved: Path, path: Path, where: str) -> list[str]:
    name = "workbench_plugin_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{where}: measures.plugins: {path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    added: list[str] = []
    token, via = registering.set((*registering.get(), added)), registering_via.set(f"plugin {resolved}")
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        for i in added:
            unregister_measure(i)
        sys.modules.pop(name, None)
        if isinstance(exc, MeasureError):
            raise ConfigError(f"{where}: measures.plugins: {path}: {exc}") from None
        raise ConfigError(f"{where}: measures.plugins: {path} failed to import: {type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")) from None
    finally:
        registering.reset(token)
        registering_via.reset(via)
    if not added:
        sys.modules.pop(name, None)
        raise ConfigError(f"{where}: measures.plugins: {path} registers no measure (decorate a function with "
                          "workbench.measure)")
    loaded[resolved] = tuple(added)
    return added


def load_installed() -> list[str]:
    """Register the measures of installed packages (entry-point group ``workbench.measures``), once per
    process. An entry point names a module (importing it registers its measures) or a ``measures.Measure``.
    Returns the entry points that failed, one line each (they are skipped: a broken package never stops the
    workbench)."""
    global _installed
    with lock:
        if _installed is not None:
            return list(_installed)
        errors: list[str] = []
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            added: list[str] = []
            token = registering.set((*registering.get(), added))
            via = registering_via.set(f"entry point {ep.name} = {ep.value}")
            try:
                obj = ep.load()
                if isinstance(obj, M.Measure):
                    if obj.id in M.MEASURES and M.MEASURES[obj.id] is not obj:
                        raise MeasureError(f"measure id {obj.id!r} is already registered")
                    M.register(obj)
                    registered_via[obj.id] = registering_via.get()
                    for pending in registering.get():
                        pending.append(obj.id)
            except (Exception, SystemExit) as exc:
                for i in added:
                    unregister_measure(i)
                errors.append(f"entry point {ep.name} = {ep.value} ({ENTRY_POINT_GROUP}): {type(exc).__name__}: "
                              f"{exc}")
            finally:
                registering.reset(token)
                registering_via.reset(via)
        _installed = errors
        return list(errors)
