"""One measure of your own (docs/measures.md#measures-of-your-own): the ``measure`` decorator and
``register_measure``, which check a user measure and register it in the one registry, ``measures.MEASURES``;
removing one; and what a failing one does. ``workbench.config.plugins`` loads the files and packages that register them.

A user measure is a function of the cell-level view of a release (``measures.Generalized``: ``n``, ``k``,
``suppressed`` and ``columns``, each with ``name``, ``height`` and ``max_height``) returning a float. On a
lattice node it reads the node's release, built from the node's records (``NodeClasses.cell_view``), so it is
a possible objective of every search; Flash and OLA take it only when it is declared monotone.

A user measure that raises, or returns NaN or an infinity, raises ``MeasureError`` naming the measure, its file
and the node or release; inside ``collecting_failures()`` it scores NaN instead and the error is collected,
so that a comparison keeps everything else.
"""

from __future__ import annotations

import inspect
import math
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import measures as M
from workbench.errors import MeasureError

ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
# names the solutions and node tables already use for their own columns
RESERVED_IDS = frozenset({"degradation", "k", "engine", "algorithm", "solution", "max_suppression", "node",
                          "rank", "classes", "suppressed", "k_anonymous", "trace", "checked", "status", "pareto"})

_label: ContextVar[str | None] = ContextVar("measure_label", default=None)
_failures: ContextVar[list[str] | None] = ContextVar("measure_failures", default=None)
registering: ContextVar[tuple[list[str], ...]] = ContextVar("measure_registering", default=())
registering_via: ContextVar[str] = ContextVar("measure_via", default="the measure decorator")
lock = threading.RLock()  # registering, loading
loaded: dict[Path, tuple[str, ...]] = {}  # plugin file -> the ids it registered (each file runs once)
registered_via: dict[str, str] = {}  # user measure id -> how it was registered


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
    """The list the innermost ``collecting_failures()`` appends to, or None outside one
    (``workbench.jobs.parallel`` hands a worker's failures back to it)."""
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
    with lock:
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
        registered_via[id] = registering_via.get()
        for pending in registering.get():  # every enclosing registered_within() and plugin load
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
    with lock:
        if measure_id in M.MEASURES and not M.MEASURES[measure_id].user:
            raise MeasureError(f"measure {measure_id!r} is built in and cannot be removed")
        M.unregister(measure_id)
        registered_via.pop(measure_id, None)
        for path, ids in list(loaded.items()):
            if measure_id in ids:
                del loaded[path]  # loading the file again registers it again


@contextmanager
def registered_within() -> Iterator[list[str]]:
    """Every user measure registered inside the block is unregistered when it ends (tests, experiments)."""
    ids: list[str] = []
    token = registering.set((*registering.get(), ids))
    try:
        yield ids
    finally:
        registering.reset(token)
        for i in ids:
            unregister_measure(i)


def user_measures() -> list[dict[str, object]]:
    """Every registered user measure: id, name, meaning, direction, declared monotonicity (True, False or None),
    its source file and how it was registered (decorator, plugin file or entry point)."""
    return [{"id": m.id, "name": m.name, "meaning": m.plain, "direction": str(m.direction),
             "monotone": m.declared_monotone, "file": m.origin, "registered by": registered_via.get(m.id, "")}
            for m in M.MEASURES.values() if m.user]
