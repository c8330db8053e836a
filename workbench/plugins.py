"""Measures of your own (docs/measures.md#measures-of-your-own): the ``measure`` decorator, the plugin files a
config names in ``[measures] plugins`` and the measures of installed packages (entry-point group
``workbench.measures``), all registered in the one registry, ``measures.MEASURES``.

A user measure is a function of the cell-level view of a release (``measures.Generalized``: ``n``, ``k``,
``suppressed`` and ``columns``, each with ``name``, ``height`` and ``max_height``) returning a float. On a
lattice node it reads the node's release, built from the node's records (``NodeClasses.cell_view``), so it is
a possible objective of every search; Flash and OLA take it only when it is declared monotone.

A user measure that raises, or returns NaN or an infinity, raises ``MeasureError`` naming the measure, its file
and the node or release; inside ``collecting_failures()`` it scores NaN instead and the error is collected,
so that a comparison keeps everything else.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import inspect
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import measures as M
from workbench.errors import ConfigError, MeasureError

ENTRY_POINT_GROUP = "workbench.measures"
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
# names the solutions and node tables already use for their own columns
RESERVED_IDS = frozenset({"degradation", "k", "engine", "algorithm", "solution", "max_suppression", "node",
                          "rank", "classes", "suppressed", "k_anonymous", "trace", "checked", "status", "pareto"})

_label: ContextVar[str | None] = ContextVar("measure_label", default=None)
_failures: ContextVar[list[str] | None] = ContextVar("measure_failures", default=None)
_registering: ContextVar[tuple[list[str], ...]] = ContextVar("measure_registering", default=())
_via: ContextVar[str] = ContextVar("measure_via", default="the measure decorator")
_lock = threading.RLock()
_loaded: dict[Path, tuple[str, ...]] = {}  # plugin file -> the ids it registered (each file runs once)
_registered_via: dict[str, str] = {}  # user measure id -> how it was registered
_installed: list[str] | None = None  # entry-point errors, once the installed measures were loaded


@contextmanager
def at(label: str) -> Iterator[None]:
    """Name what the user measures are scoring now (``"node age=1,sex=0"``, ``"the greedy release"``) in
    their errors."""
    token = _label.set(label)
    try:
        yield
    finally:
        _label.reset(token)


@contextmanager
def collecting_failures() -> Iterator[list[str]]:
    """Within it a failing user measure scores NaN and its one-line error is appended to the yielded list
    (each distinct error once), instead of raising ``MeasureError``."""
    errors: list[str] = []
    token = _failures.set(errors)
    try:
        yield errors
    finally:
        _failures.reset(token)


def collected_failures() -> list[str] | None:
    """The list the innermost ``collecting_failures()`` appends to, or None outside one (``workbench.parallel`` hands
    a worker's failures back to it)."""
    return _failures.get()


def _fail(measure_id: str, origin: str, reason: str) -> float:
    where = _label.get()
    message = f"measure {measure_id!r} ({origin}) {reason}" + (f" on {where}" if where else "")
    collected = _failures.get()
    if collected is None:
        raise MeasureError(message)
    if message not in collected:
        collected.append(message)
    return math.nan


def _checked(measure_id: str, origin: str, fn: Callable[[M.Generalized], Any]) -> Callable[[M.Generalized], float]:
    def cell(view: M.Generalized) -> float:
        try:
            value = fn(view)
        except MeasureError:
            raise
        except Exception as exc:  # the user's code: any exception is the measure's failure
            return _fail(measure_id, origin, f"raised {type(exc).__name__}: {exc}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            return _fail(measure_id, origin, f"returned {value!r}, not a number")
        if not math.isfinite(number):
            return _fail(measure_id, origin, f"returned {number}")
        return number

    return cell


def _origin(fn: Callable[..., Any]) -> str:
    try:
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (TypeError, OSError):
        return f"<{getattr(fn, '__module__', 'unknown')}>"
    return str(Path(file).resolve()) if Path(file).is_file() else file


def register_measure(fn: Callable[[M.Generalized], Any], id: str, name: str | None = None, meaning: str = "",
                     *, direction: str = "lower", monotone: bool | None = None, formula: str = "",
                     source: str = "user-defined", replace: bool = False) -> M.Measure:
    """Register ``fn`` (cell-level view -> float) as measure ``id``; see ``measure``."""
    if not isinstance(id, str) or not ID_PATTERN.match(id):
        raise MeasureError(f"measure id {id!r}: use lower-case letters, digits and '_', starting with a letter "
                           "(at most 48 characters)")
    if id in RESERVED_IDS:
        raise MeasureError(f"measure id {id!r} is a column name of the workbench's tables; choose another")
    if direction not in ("lower", "higher", M.Direction.LOWER, M.Direction.HIGHER):
        raise MeasureError(f"measure {id!r}: direction must be 'lower' or 'higher', got {direction!r}")
    if monotone not in (True, False, None):
        raise MeasureError(f"measure {id!r}: monotone must be True, False or None (unknown), got {monotone!r}")
    if not callable(fn):
        raise MeasureError(f"measure {id!r}: {fn!r} is not a function")
    origin = _origin(fn)
    with _lock:
        old = M.MEASURES.get(id)
        if old is not None and not replace:
            if not old.user:
                raise MeasureError(f"measure id {id!r} is taken by a built-in measure ({old.name}); choose another")
            if old.origin != origin:
                raise MeasureError(f"measure id {id!r} is already registered by {old.origin}; choose another id "
                                   "(or pass replace=True)")
        cell = _checked(id, origin, fn)

        def node(classes: M.NodeClasses) -> float:
            with at(f"node {classes.label}"):
                return cell(classes.cell_view())

        higher = direction in ("higher", M.Direction.HIGHER)
        measure = M.Measure(
            id, name or id, formula or f"{getattr(fn, '__qualname__', id)}(view), {origin}", bool(monotone), source,
            cell, node, lower_bound=None if monotone else (lambda classes: -math.inf),
            direction=M.Direction.HIGHER if higher else M.Direction.LOWER, meaning=meaning or (name or id),
            origin=origin, monotone_known=monotone is not None)
        M.register(measure)
        _registered_via[id] = _via.get()
        for pending in _registering.get():  # every enclosing registered_within() and plugin load
            pending.append(id)
    return measure


def measure(id: str, name: str | None = None, meaning: str = "", *, direction: str = "lower",
            monotone: bool | None = None, formula: str = "", source: str = "user-defined",
            replace: bool = False) -> Callable[[Callable[[M.Generalized], Any]], Callable[[M.Generalized], Any]]:
    """Register the decorated function as a measure, usable everywhere a built-in one is::

        @measure(id="my_precision", name="precision by another route", monotone=True)
        def my_precision(view) -> float:
            return float(np.mean([np.mean(c.height / c.max_height) for c in view.columns]))

    ``direction``: "lower" (default) or "higher" is better. ``monotone``: True (never better when a node is
    generalized: then Flash and OLA may search for it), False, or None (unknown, treated as not monotone).
    Registering an id taken by a built-in measure, or by a user measure from another file, raises
    ``MeasureError`` (``replace=True`` replaces a user measure). The function is returned unchanged."""

    def decorate(fn: Callable[[M.Generalized], Any]) -> Callable[[M.Generalized], Any]:
        register_measure(fn, id, name, meaning, direction=direction, monotone=monotone, formula=formula,
                         source=source, replace=replace)
        return fn

    return decorate


def unregister_measure(measure_id: str) -> None:
    """Remove a user measure (built-in ones cannot be removed); unknown ids are ignored."""
    with _lock:
        if measure_id in M.MEASURES and not M.MEASURES[measure_id].user:
            raise MeasureError(f"measure {measure_id!r} is built in and cannot be removed")
        M.unregister(measure_id)
        _registered_via.pop(measure_id, None)
        for path, ids in list(_loaded.items()):
            if measure_id in ids:
                del _loaded[path]  # loading the file again registers it again


@contextmanager
def registered_within() -> Iterator[list[str]]:
    """Every user measure registered inside the block is unregistered when it ends (tests, experiments)."""
    ids: list[str] = []
    token = _registering.set((*_registering.get(), ids))
    try:
        yield ids
    finally:
        _registering.reset(token)
        for i in ids:
            unregister_measure(i)


def load_plugins(paths: Sequence[Path], where: str) -> list[str]:
    """Run each plugin file once (a file already loaded is not run again) and return the ids it registered. A
    missing file, an import failure, a file that registers no measure or an id already taken raise one
    ConfigError naming ``where`` (the config) and the file; a failing file registers nothing."""
    ids: list[str] = []
    for path in paths:
        resolved = Path(path).resolve()
        with _lock:
            if resolved in _loaded:
                ids += _loaded[resolved]
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
    token, via = _registering.set((*_registering.get(), added)), _via.set(f"plugin {resolved}")
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
        _registering.reset(token)
        _via.reset(via)
    if not added:
        sys.modules.pop(name, None)
        raise ConfigError(f"{where}: measures.plugins: {path} registers no measure (decorate a function with "
                          "workbench.measure)")
    _loaded[resolved] = tuple(added)
    return added


def load_installed() -> list[str]:
    """Register the measures of installed packages (entry-point group ``workbench.measures``), once per
    process. An entry point names a module (importing it registers its measures) or a ``measures.Measure``.
    Returns the entry points that failed, one line each (they are skipped: a broken package never stops the
    workbench)."""
    global _installed
    with _lock:
        if _installed is not None:
            return list(_installed)
        errors: list[str] = []
        for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            added: list[str] = []
            token, via = _registering.set((*_registering.get(), added)), _via.set(f"entry point {ep.name} = {ep.value}")
            try:
                obj = ep.load()
                if isinstance(obj, M.Measure):
                    if obj.id in M.MEASURES and M.MEASURES[obj.id] is not obj:
                        raise MeasureError(f"measure id {obj.id!r} is already registered")
                    M.register(obj)
                    _registered_via[obj.id] = _via.get()
                    for pending in _registering.get():
                        pending.append(obj.id)
            except (Exception, SystemExit) as exc:
                for i in added:
                    unregister_measure(i)
                errors.append(f"entry point {ep.name} = {ep.value} ({ENTRY_POINT_GROUP}): {type(exc).__name__}: "
                              f"{exc}")
            finally:
                _registering.reset(token)
                _via.reset(via)
        _installed = errors
        return list(errors)


def user_measures() -> list[dict[str, object]]:
    """Every registered user measure: id, name, meaning, direction, declared monotonicity (True, False or None),
    its source file and how it was registered (decorator, plugin file or entry point)."""
    return [{"id": m.id, "name": m.name, "meaning": m.plain, "direction": str(m.direction),
             "monotone": m.declared_monotone, "file": m.origin, "registered by": _registered_via.get(m.id, "")}
            for m in M.MEASURES.values() if m.user]


SERVER_CONFIG = "WORKBENCH_CONFIG"  # the environment variable naming the config the app's server starts with
_server: list[str] | None = None


def load_server_measures() -> list[str]:
    """The measures the app offers (once per process): installed packages' and the plugins of the config named
    by the environment variable ``WORKBENCH_CONFIG``, if set. Returns the problems, one line each (the app
    shows them; nothing is raised, so a bad plugin never stops the app)."""
    global _server
    with _lock:
        if _server is None:
            import os

            from workbench.config import load_study  # config imports this module

            problems = load_installed()
            path = os.environ.get(SERVER_CONFIG)
            if path:
                try:
                    load_study(path)
                except ConfigError as exc:
                    problems.append(str(exc))
            _server = problems
        return list(_server)
