"""Hierarchy builders: intervals, character masking, dates and explicit groupings.

El Emam et al. (2009, JAMIA) require user-defined generalization hierarchies; these builders produce the
common kinds (age bands, postal-code masking, date coarsening, category groupings) as ARX-format
``Hierarchy`` trees. Every builder returns one row per distinct input value, sorted naturally (numbers
numerically, dates chronologically, the missing value ``""`` last), with the root ``"*"``. The missing value
``""`` (an empty cell) is placed explicitly: its own branch ``"(missing)"`` up to the root unless the analyst
puts it in a group (groupings, or intervals' ``non_numeric = "missing"``); ``missing_placement`` says where.
The intervals builder is in ``intervals.py``, the suggestions in ``suggest.py``, what they share in ``values.py``;
this module holds the others and the dispatch from a config's spec (``build_hierarchy``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime

from workbench.errors import ConfigError
from workbench.hierarchy.intervals import intervals
from workbench.hierarchy.missing import MISSING, R_MISSING, missing_placement, token_as_empty
from workbench.hierarchy.tree import Hierarchy
from workbench.hierarchy.values import (
    DATE_LEVELS,
    NON_NUMERIC,
    NOT_A_NUMBER,
    ROOT,
    SHOWN,
    NumericProfile,
    distinct_texts,
    finished_tree,
    is_number,
    listing,
    natural_key,
    natural_sorted,
    numeric_profile,
    where_of,
)

__all__ = ["BUILDER_KINDS", "DATE_LEVELS", "MISSING", "NON_NUMERIC", "NOT_A_NUMBER", "R_MISSING", "ROOT",
           "NumericProfile", "build_hierarchy", "dates", "groupings", "groupings_from_table", "intervals", "masking",
           "missing_placement", "natural_sorted", "numeric_profile"]


# ---------------------------------------------------------------------------------------------- masking
def masking(values: Iterable[object], *, char: str = "*", name: str = "masking") -> Hierarchy:
    """Right-to-left character masking (Sweeney's ZIP codes): ``02139 -> 0213* -> 021** -> 02*** ->
    0**** -> *``. Intermediate levels keep the value length; the root is a single ``"*"``, so values of
    length L give height L. All non-empty values must have the same length (no padding); the missing
    value ``""`` is ``"(missing)"`` at every level below the root (its own branch).
    """
    kind = "masking"
    where = where_of(kind, name)
    if not isinstance(char, str) or len(char) != 1:
        raise ConfigError(f"{where}: char must be a single character, got {char!r}")
    ordered = natural_sorted(values)
    by_length: dict[int, str] = {}
    for v in ordered:
        if v != "":
            by_length.setdefault(len(v), v)
    if len(by_length) > 1:
        examples = ", ".join(f"{by_length[n]!r} (length {n})" for n in sorted(by_length))
        raise ConfigError(f"{where}: values have unequal lengths: {examples}; masking needs one length")
    length = next(iter(by_length), 1)
    rows: list[list[str]] = []
    for v in ordered:
        if v == "":
            path = [MISSING] * (length - 1)
        else:
            path = [v[: length - i] + char * i for i in range(1, length)]
        rows.append([v, *path, ROOT])
    return finished_tree(rows, kind, name)


# ---------------------------------------------------------------------------------------------- dates
def _week(d: date) -> str:
    return f"{d.year:04d}-W{(d.timetuple().tm_yday - 1) // 7 + 1:02d}"


_DATE_LABELS: dict[str, Callable[[date], str]] = {
    "week": _week,
    "month": lambda d: f"{d.year:04d}-{d.month:02d}",
    "quarter": lambda d: f"{d.year:04d}-Q{(d.month - 1) // 3 + 1}",
    "year": lambda d: f"{d.year:04d}",
    "decade": lambda d: f"{d.year // 10 * 10:04d}-{d.year // 10 * 10 + 9:04d}",
}


def dates(
    values: Iterable[object],
    *,
    format: str = "%Y-%m-%d",  # the config key is "format"
    levels: Sequence[str] = ("month", "year", "decade"),
    name: str = "dates",
) -> Hierarchy:
    """Dates parsed with ``format`` (``datetime.strptime``), generalized to the chosen ``levels``, a
    subsequence of week, month (``2008-01``), quarter (``2008-Q1``), year (``2008``), decade
    (``2000-2009``) in increasing coarseness, then ``"*"``. A week is a 7-day block counted from
    1 January (``2008-W01`` = 1-7 Jan; the last block of a year is short), not an ISO week, so weeks nest
    in years; weeks cross month boundaries, so week cannot be followed by month or quarter. The missing
    value ``""`` is ``"(missing)"`` at every level below the root (its own branch).
    """
    kind = "dates"
    where = where_of(kind, name)
    if not isinstance(format, str) or not format:
        raise ConfigError(f"{where}: format must be a strptime format such as '%Y-%m-%d', got {format!r}")
    if isinstance(levels, str | bytes) or not isinstance(levels, Sequence):
        raise ConfigError(f"{where}: levels must be a list of {', '.join(DATE_LEVELS)}, got {levels!r}")
    levels = list(levels)
    unknown = [lv for lv in levels if lv not in DATE_LEVELS]
    if unknown:
        raise ConfigError(
            f"{where}: unknown level(s) {listing([str(u) for u in unknown], None)}; "
            f"use {', '.join(DATE_LEVELS)}"
        )
    ranks = [DATE_LEVELS.index(lv) for lv in levels]
    if any(b <= a for a, b in zip(ranks, ranks[1:], strict=False)):
        raise ConfigError(
            f"{where}: levels {levels!r} must be distinct and in increasing coarseness "
            f"({' < '.join(DATE_LEVELS)})"
        )
    if len(levels) > 1 and levels[0] == "week" and levels[1] in ("month", "quarter"):
        raise ConfigError(
            f"{where}: levels {levels!r}: weeks cross {levels[1]} boundaries, so week "
            "can only be followed by year or decade"
        )
    distinct = distinct_texts(values)
    parsed: dict[str, date] = {}
    bad: list[str] = []
    for v in distinct:
        if v == "":
            continue
        try:
            parsed[v] = datetime.strptime(v, format).date()
        except ValueError:
            bad.append(v)
    if bad:
        raise ConfigError(f"{where}: {len(bad)} value(s) do not match format {format!r}: {listing(bad)}")
    ordered = sorted(parsed, key=lambda v: (parsed[v], v))
    rows = [[v, *(_DATE_LABELS[lv](parsed[v]) for lv in levels), ROOT] for v in ordered]
    if "" in distinct:
        rows.append(["", *([MISSING] * len(levels)), ROOT])
    return finished_tree(rows, kind, name)


# ---------------------------------------------------------------------------------------------- groupings
def groupings(
    values: Iterable[object], levels: Sequence[Mapping[object, object]], *, name: str = "groupings"
) -> Hierarchy:
    """Explicit groupings: ``levels[0]`` maps each value to a group, ``levels[1]`` each of those groups
    to a coarser group, and so on; the root ``"*"`` is added on top. Keys and groups are compared as
    text; mappings may hold keys for values not in the data. Every value and group must be mapped (the
    error names all that are not), except the missing value ``""``: mapped, it joins the analyst's group;
    unmapped, it is ``"(missing)"`` at every level below the root (its own branch).
    """
    kind = "groupings"
    where = where_of(kind, name)
    if isinstance(levels, str | bytes | Mapping) or not isinstance(levels, Sequence):
        raise ConfigError(f"{where}: levels must be a list of mappings (one per level), got {levels!r}")
    maps: list[dict[str, str]] = []
    for i, level in enumerate(levels, start=1):
        if not isinstance(level, Mapping):
            raise ConfigError(f"{where}: level {i} must be a mapping from value to group, got {level!r}")
        maps.append({str(k): str(g) for k, g in level.items()})
    ordered = natural_sorted(values)
    paths: dict[str, list[str]] = {v: [] for v in ordered}
    current: dict[str, str | None] = {v: v for v in ordered}  # label at the previous level; None = unmapped
    problems: list[str] = []
    for i, mapping in enumerate(maps, start=1):
        unmapped = {lab for lab in current.values() if lab is not None and lab != "" and lab not in mapping}
        if unmapped:
            what = "value" if i == 1 else f"level-{i - 1} group"
            listed = listing(sorted(unmapped, key=natural_key), None)
            problems.append(f"level {i} has no group for {len(unmapped)} {what}(s): {listed}")
        for v, lab in current.items():
            current[v] = None if lab is None else mapping.get(lab, "" if lab == "" else None)
            paths[v].append(current[v] or "")
    if problems:
        raise ConfigError(f"{where}: {'; '.join(problems)}")
    rows = [[v, *(p or MISSING for p in paths[v]), ROOT] for v in ordered]  # unmapped "": its own branch
    return finished_tree(rows, kind, name)


def groupings_from_table(rows: Sequence[Sequence[object]], *, name: str = "groupings") -> dict[str, object]:
    """The ``groupings`` builder spec of a table with one row per value: ``[value, level-1 group, level-2 group,
    ...]`` (as edited in the app; rows of the value alone: no levels, every value straight to ``"*"``). Raises
    ConfigError naming every value without a group and every group given two different coarser groups (a
    hierarchy is a tree)."""
    where = where_of("groupings", name)
    if not rows:
        raise ConfigError(f"{where}: no values to group")
    depth = max(len(r) for r in rows) - 1
    if depth < 1:  # no levels of groups: every value goes straight to the root
        return {"kind": "groupings", "levels": []}
    levels: list[dict[str, str]] = [{} for _ in range(depth)]
    problems: list[str] = []
    for row in rows:
        cells = [("" if c is None or c != c else str(c)).strip() for c in row] + [""] * (depth + 1 - len(row))
        value = cells[0]
        for i in range(depth):
            key, group = cells[i], cells[i + 1]
            if not group:
                problems.append(f"{value!r} has no level-{i + 1} group")
                break
            if levels[i].setdefault(key, group) != group:
                problems.append(f"level-{i} {'value' if i == 0 else 'group'} {key!r} is put in both "
                                f"{levels[i][key]!r} and {group!r} at level {i + 1}")
    if problems:
        unique = sorted(set(problems))
        more = f"; and {len(unique) - SHOWN} more" if len(unique) > SHOWN else ""
        raise ConfigError(f"{where}: {'; '.join(unique[:SHOWN])}{more}")
    return {"kind": "groupings", "levels": levels}


# ---------------------------------------------------------------------------------------------- dispatch
def _widths_ok(x: object) -> bool:
    return isinstance(x, list | tuple) and all(is_number(w) for w in x)


def _strings_ok(x: object) -> bool:
    return isinstance(x, list | tuple) and all(isinstance(s, str) for s in x)


def _mappings_ok(x: object) -> bool:
    return isinstance(x, list | tuple) and all(isinstance(m, Mapping) for m in x)


# parameter -> (required, type check, description of the expected type)
_Params = dict[str, tuple[bool, Callable[[object], bool], str]]
_BUILDERS: dict[str, tuple[Callable[..., Hierarchy], _Params]] = {
    "intervals": (
        intervals,
        {
            "widths": (True, _widths_ok, "a list of numbers"),
            "top": (False, is_number, "a number"),
            "bottom": (False, is_number, "a number"),
            "decimal_comma": (False, lambda x: isinstance(x, bool), "true or false"),
            "non_numeric": (False, lambda x: x in NON_NUMERIC, f"one of {', '.join(NON_NUMERIC)}"),
        },
    ),
    "masking": (masking, {"char": (False, lambda x: isinstance(x, str), "a single character")}),
    "dates": (
        dates,
        {
            "format": (False, lambda x: isinstance(x, str), "a strptime format string"),
            "levels": (False, _strings_ok, f"a list of level names ({', '.join(DATE_LEVELS)})"),
        },
    ),
    "groupings": (groupings, {"levels": (True, _mappings_ok, "a list of tables mapping value -> group")}),
}
BUILDER_KINDS = tuple(sorted(_BUILDERS))


def build_hierarchy(spec: Mapping[str, object], values: Iterable[object], name: str) -> Hierarchy:
    """Build the hierarchy a config spec asks for, e.g. ``{"kind": "intervals", "widths": [5, 10, 20],
    "top": 90}``, over the distinct ``values``. Raises ConfigError (one line naming the builder and the
    offending key) for an unknown kind or an unknown, missing or badly typed parameter."""
    if not isinstance(spec, Mapping):
        raise ConfigError(f"hierarchy builder for {name!r} must be a table with a 'kind', got {spec!r}")
    kind = spec.get("kind")
    if kind is None:
        raise ConfigError(
            f"hierarchy builder for {name!r}: missing key 'kind' (one of {', '.join(BUILDER_KINDS)})"
        )
    if not isinstance(kind, str) or kind not in _BUILDERS:
        raise ConfigError(
            f"hierarchy builder for {name!r}: unknown kind {kind!r} (known: {', '.join(BUILDER_KINDS)})"
        )
    fn, params = _BUILDERS[kind]
    where = where_of(kind, name)
    for key in spec:
        if key != "kind" and key not in params:
            known = ", ".join(params)
            raise ConfigError(f"{where}: unknown parameter {key!r} (known: {known})")
    kwargs: dict[str, object] = {}
    for key, (required, ok, expected) in params.items():
        if key not in spec:
            if required:
                raise ConfigError(f"{where}: missing parameter {key!r} ({expected})")
            continue
        value = spec[key]
        if not ok(value):
            raise ConfigError(f"{where}: parameter {key!r} must be {expected}, got {value!r}")
        kwargs[key] = value
    return fn(token_as_empty(values), name=name, **kwargs)
