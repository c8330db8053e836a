"""Hierarchy builders: intervals, character masking, dates and explicit groupings.

El Emam et al. (2009, JAMIA) require user-defined generalization hierarchies; these builders produce the
common kinds (age bands, postal-code masking, date coarsening, category groupings) as ARX-format
``Hierarchy`` trees. Every builder returns one row per distinct input value, sorted naturally (numbers
numerically, dates chronologically, the missing value ``""`` last), with the root ``"*"``. The missing value
``""`` (an empty cell) is placed explicitly: its own branch ``"(missing)"`` up to the root unless the analyst
puts it in a group (groupings, or intervals' ``non_numeric = "missing"``); ``missing_placement`` says where.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal, localcontext
from numbers import Real

from workbench.errors import ConfigError
from workbench.hierarchy.tree import Hierarchy, IntervalShares

ROOT = "*"
DATE_LEVELS = ("week", "month", "quarter", "year", "decade")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DIGITS = re.compile(r"([0-9]+)")
_COMMA_NUMBER = re.compile(r"[+-]?[0-9]+,[0-9]+")  # a decimal comma: "29,0", "-1,5" (no thousands separators)
_SHOWN = 5
NON_NUMERIC = ("keep", "group", "missing", "error")  # what the intervals builder does with text that is no number
NOT_A_NUMBER = "(not a number)"  # the group of text values, when the analyst puts them in one group
MISSING = "(missing)"  # the group of the missing value "" and of text the analyst counts as missing
R_MISSING = "NA"  # how R's write.csv writes a missing value


# ---------------------------------------------------------------------------------------------- helpers
def _where(kind: str, name: str) -> str:
    return f"builder {kind!r} for {name!r}"


def _distinct(values: Iterable[object]) -> list[str]:
    return list(dict.fromkeys("" if v is None else str(v) for v in values))


def _number(text: str, decimal_comma: bool = False) -> Decimal | None:
    """The value of a numeric text (``"39"``, ``"-1.5"``, ``"2e3"``; with ``decimal_comma`` also ``"29,0"``),
    else None (also for nan/inf)."""
    s = text.strip()
    if decimal_comma and _COMMA_NUMBER.fullmatch(s):
        s = s.replace(",", ".")
    if not _NUMBER.fullmatch(s):
        return None
    return Decimal(s)


@dataclass(frozen=True)
class NumericProfile:
    """What the intervals builder would make of a column: ``comma_decimals`` distinct values read as numbers only
    with a decimal comma (``"29,0"``); ``not_numbers`` every other non-empty value that is not a number, with its
    number of records, most frequent first; ``missing`` records with the empty value."""

    comma_decimals: int
    not_numbers: tuple[tuple[str, int], ...]
    missing: int

    def listing(self, limit: int | None = _SHOWN) -> str:
        """``'unknown' (3), 'n/a' (2)``: the values that are not numbers, with their counts."""
        shown = self.not_numbers if limit is None else self.not_numbers[:limit]
        more = len(self.not_numbers) - len(shown)
        return ", ".join(f"{v!r} ({c:,})" for v, c in shown) + (f" and {more} more" if more > 0 else "")


def numeric_profile(values: Iterable[object], decimal_comma: bool = False) -> NumericProfile:
    """Count, over every record's value (not only the distinct ones), what is not a plain number."""
    counts = Counter("" if v is None else str(v) for v in values)
    comma = sum(1 for v in counts if v and _number(v) is None and _number(v, True) is not None)
    odd = sorted(((v, c) for v, c in counts.items() if v != "" and _number(v, decimal_comma) is None),
                 key=lambda vc: (-vc[1], vc[0]))
    return NumericProfile(comma, tuple(odd), counts.get("", 0))


def _natural_key(text: str, decimal_comma: bool = False) -> tuple:
    if text == "":
        return (2,)
    num = _number(text, decimal_comma)
    if num is not None:
        return (0, num, text)
    parts = tuple(int(p) if i % 2 else p for i, p in enumerate(_DIGITS.split(text)))
    return (1, parts, text)


def natural_sorted(values: Iterable[object]) -> list[str]:
    """Distinct values as text, numbers numerically first, then other text naturally, ``""`` last."""
    return sorted(_distinct(values), key=_natural_key)


def _listing(items: Sequence[str], limit: int | None = _SHOWN) -> str:
    shown = [repr(i) for i in (items if limit is None else items[:limit])]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _finished(rows: list[list[str]], kind: str, name: str) -> Hierarchy:
    """Make the Hierarchy and insist it is a valid tree (labels of non-numeric values could collide)."""
    if not rows:
        raise ConfigError(f"{_where(kind, name)}: there are no values to build a hierarchy for")
    h = Hierarchy.from_rows(rows, name=name)
    report = h.validate()
    if not report.ok:
        raise ConfigError(f"{_where(kind, name)}: the result is not a tree: {'; '.join(report.errors)}")
    return h


def _is_number(x: object) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def _decimal(x: object, what: str, where: str) -> Decimal:
    if not _is_number(x):
        raise ConfigError(f"{where}: {what} must be a number, got {x!r}")
    d = Decimal(str(x))
    if not d.is_finite():
        raise ConfigError(f"{where}: {what} must be a finite number, got {x!r}")
    return d


def _text(d: Decimal, integral: bool) -> str:
    """Integers as ``20``, other numbers as Python floats print (``20.0``, ``0.25``)."""
    return str(int(d)) if integral else str(float(d))


# ---------------------------------------------------------------------------------------------- intervals
def intervals(
    values: Iterable[object],
    widths: Sequence[float],
    *,
    top: float | None = None,
    bottom: float | None = None,
    name: str = "intervals",
    decimal_comma: bool = False,
    non_numeric: str = "error",
) -> Hierarchy:
    """Numeric intervals, one level per width: value -> ``w1``-wide band -> ... -> ``"*"``.

    Bands are aligned at multiples of each width counted from ``bottom`` (0 when not given). Each width
    must be a positive multiple of the previous one, so every band lies inside one band of the next
    level (a tree). Labels are ``"20-24"`` (inclusive ends) when the data, widths, ``top`` and
    ``bottom`` are all integers, else ``"[20.0, 25.0["``. ``top`` top-codes: every value ``>= top`` is
    ``"90+"`` at every level below the root, and the band just below is cut at ``top``; ``bottom``
    likewise labels values ``< bottom`` as ``"<18"``. ``decimal_comma`` reads ``"29,0"`` as 29.0 (the leaf keeps
    its text). Values that are not numbers follow ``non_numeric``: ``"keep"`` their own label at every level below
    the root (generalized only by the root); ``"group"`` one group ``"(not a number)"``; ``"missing"`` the group
    ``"(missing)"`` with the missing value ``""``; ``"error"`` a ConfigError naming them with their counts. The
    missing value ``""`` is ``"(missing)"`` at every level below the root (its own branch).
    """
    kind = "intervals"
    where = _where(kind, name)
    if isinstance(widths, str | bytes) or not isinstance(widths, Sequence):
        raise ConfigError(f"{where}: widths must be a list of positive numbers, got {widths!r}")
    ws = [_decimal(w, "each width", where) for w in widths]
    for w, raw in zip(ws, widths, strict=True):
        if w <= 0:
            raise ConfigError(f"{where}: widths must be positive, got {raw!r} in {list(widths)!r}")
    hi_cut = None if top is None else _decimal(top, "top", where)
    lo_cut = None if bottom is None else _decimal(bottom, "bottom", where)
    if hi_cut is not None and lo_cut is not None and hi_cut <= lo_cut:
        raise ConfigError(f"{where}: top ({top!r}) must be greater than bottom ({bottom!r})")
    if non_numeric not in NON_NUMERIC:
        raise ConfigError(f"{where}: non_numeric must be one of {', '.join(NON_NUMERIC)}, got {non_numeric!r}")
    values = list(values)
    if non_numeric == "error":
        odd = numeric_profile(values, decimal_comma)
        if odd.not_numbers:
            raise ConfigError(f"{where}: {len(odd.not_numbers)} value(s) are not numbers: {odd.listing()}; choose "
                              "what they become (non_numeric = \"group\", \"missing\" or \"keep\") or correct "
                              "the data")
    ordered = sorted(_distinct(values), key=lambda t: _natural_key(t, decimal_comma))
    numbers = {v: _number(v, decimal_comma) for v in ordered}
    given = [d for d in numbers.values() if d is not None] + ws
    given += [d for d in (hi_cut, lo_cut) if d is not None]
    # exact decimal arithmetic: enough digits for every quotient value // width
    top_digit = max((d.adjusted() for d in given if d), default=0)
    span = top_digit - min((int(d.as_tuple().exponent) for d in given), default=0)
    if span > 4000:
        raise ConfigError(f"{where}: the values and widths span {span} decimal digits; that is too many")
    with localcontext() as ctx:
        ctx.prec = max(28, span + 10)
        return _interval_rows(ordered, numbers, ws, list(widths), hi_cut, lo_cut, given, where, name, non_numeric)


def _interval_rows(
    ordered: list[str],
    numbers: dict[str, Decimal | None],
    ws: list[Decimal],
    widths: list[object],
    hi_cut: Decimal | None,
    lo_cut: Decimal | None,
    given: list[Decimal],
    where: str,
    name: str,
    non_numeric: str = "keep",
) -> Hierarchy:
    for prev, w in zip(ws, ws[1:], strict=False):
        if w % prev != 0:
            raise ConfigError(
                f"{where}: widths {widths!r} do not nest: each width must be a positive multiple "
                f"of the previous one ({_text(w, w == w.to_integral_value())} is not a multiple of "
                f"{_text(prev, prev == prev.to_integral_value())})"
            )
    integral = all(d == d.to_integral_value() for d in given)
    origin = lo_cut if lo_cut is not None else Decimal(0)

    def band(x: Decimal, w: Decimal) -> str:
        lo = origin + ((x - origin) // w) * w
        if (x - origin) % w < 0:  # Decimal // truncates toward zero; we need floor
            lo -= w
        hi = lo + w
        if hi_cut is not None and hi > hi_cut:
            hi = hi_cut
        if integral:
            return f"{int(lo)}-{int(hi) - 1}"
        return f"[{_text(lo, False)}, {_text(hi, False)}["

    def start(x: Decimal, w: Decimal) -> Decimal:
        lo = origin + ((x - origin) // w) * w
        return lo - w if (x - origin) % w < 0 else lo

    rows: list[list[str]] = []
    widths_of: list[list[Decimal]] = []  # per row, the width of each label below the root (integral case)
    regular = [x for x in numbers.values() if x is not None and (hi_cut is None or x < hi_cut)
               and (lo_cut is None or x >= lo_cut)]
    numeric = [x for x in numbers.values() if x is not None]
    for v in ordered:
        x = numbers[v]
        if x is None:
            label = MISSING if v == "" else {"group": NOT_A_NUMBER, "missing": MISSING}.get(non_numeric, v)
            path, widths_below = [label] * len(ws), [Decimal(1)] * len(ws)  # ARX: a null interval's share is 1/D
        elif hi_cut is not None and x >= hi_cut:
            path = [f"{_text(hi_cut, integral)}+"] * len(ws)
            widths_below = [max(numeric) - hi_cut + 1] * len(ws)
        elif lo_cut is not None and x < lo_cut:
            path = [f"<{_text(lo_cut, integral)}"] * len(ws)
            widths_below = [lo_cut - min(numeric)] * len(ws)
        else:
            path = [band(x, w) for w in ws]
            widths_below = [min(start(x, w) + w, hi_cut) - start(x, w) if hi_cut is not None else w for w in ws]
        rows.append([v, *path, ROOT])
        widths_of.append(widths_below)
    h = _finished(rows, "intervals", name)
    if not integral or not numeric:
        return h  # decimal bands: loss uses the hierarchy's rows (ARX's materialized shares)
    # ARX's DomainShareInterval over the half-open integer domain the bands cover: the regular bands from the
    # first widest band (or ``bottom``) to the last (or ``top``), plus the bottom- and top-coded values
    widest = ws[-1]
    lo = lo_cut if lo_cut is not None else (start(min(regular), widest) if regular else None)
    hi = hi_cut if hi_cut is not None else (start(max(regular), widest) + widest if regular else None)
    domain = (hi - lo if lo is not None and hi is not None else Decimal(0))
    domain += (lo_cut - min(numeric)) if lo_cut is not None and min(numeric) < lo_cut else 0
    domain += (max(numeric) - hi_cut + 1) if hi_cut is not None and max(numeric) >= hi_cut else 0
    levels: list[dict[str, int]] = [{} for _ in range(len(ws) + 2)]
    for row, widths_below in zip(rows, widths_of, strict=True):
        for level, (label, width) in enumerate(zip(row, [Decimal(1), *widths_below, domain], strict=True)):
            if levels[level].setdefault(label, int(width)) != int(width):
                return h  # a text value that reads like a band label: keep the materialized shares
    return replace(h, interval_shares=IntervalShares(int(domain), tuple(levels)))


# ---------------------------------------------------------------------------------------------- masking
def masking(values: Iterable[object], *, char: str = "*", name: str = "masking") -> Hierarchy:
    """Right-to-left character masking (Sweeney's ZIP codes): ``02139 -> 0213* -> 021** -> 02*** ->
    0**** -> *``. Intermediate levels keep the value length; the root is a single ``"*"``, so values of
    length L give height L. All non-empty values must have the same length (no padding); the missing
    value ``""`` is ``"(missing)"`` at every level below the root (its own branch).
    """
    kind = "masking"
    where = _where(kind, name)
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
    return _finished(rows, kind, name)


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
    where = _where(kind, name)
    if not isinstance(format, str) or not format:
        raise ConfigError(f"{where}: format must be a strptime format such as '%Y-%m-%d', got {format!r}")
    if isinstance(levels, str | bytes) or not isinstance(levels, Sequence):
        raise ConfigError(f"{where}: levels must be a list of {', '.join(DATE_LEVELS)}, got {levels!r}")
    levels = list(levels)
    unknown = [lv for lv in levels if lv not in DATE_LEVELS]
    if unknown:
        raise ConfigError(
            f"{where}: unknown level(s) {_listing([str(u) for u in unknown], None)}; "
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
    distinct = _distinct(values)
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
        raise ConfigError(f"{where}: {len(bad)} value(s) do not match format {format!r}: {_listing(bad)}")
    ordered = sorted(parsed, key=lambda v: (parsed[v], v))
    rows = [[v, *(_DATE_LABELS[lv](parsed[v]) for lv in levels), ROOT] for v in ordered]
    if "" in distinct:
        rows.append(["", *([MISSING] * len(levels)), ROOT])
    return _finished(rows, kind, name)


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
    where = _where(kind, name)
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
            listed = _listing(sorted(unmapped, key=_natural_key), None)
            problems.append(f"level {i} has no group for {len(unmapped)} {what}(s): {listed}")
        for v, lab in current.items():
            current[v] = None if lab is None else mapping.get(lab, "" if lab == "" else None)
            paths[v].append(current[v] or "")
    if problems:
        raise ConfigError(f"{where}: {'; '.join(problems)}")
    rows = [[v, *(p or MISSING for p in paths[v]), ROOT] for v in ordered]  # unmapped "": its own branch
    return _finished(rows, kind, name)


def missing_placement(h: Hierarchy) -> str | None:
    """Where a hierarchy puts the missing value ``""`` (an empty cell), in words: its path to the root, e.g.
    ``"(missing) → (missing) → *"``; None when the hierarchy has no row for it."""
    row = next((r for r in h.rows if r[0] == ""), None)
    if row is None:
        return None
    own = all(label == MISSING for label in row[1:-1])
    path = " → ".join(row[1:])
    return (f"missing values (empty cells) form their own group {MISSING!r} at every level: {path}" if own
            else f"missing values (empty cells) are generalized as {path}")


def suggest_builder(values: Iterable[object]) -> str:
    """A first builder to offer for a column: a column of at most two values (sex, yes/no, 0/1) gets groupings
    (straight to ``"*"``), codes of one length (ZIP codes: leading zeros, or many values; not decimals) are
    masked, numbers (also with a decimal comma, and with a few text values among at least five numbers) get
    intervals, ISO dates (``%Y-%m-%d``) get dates, anything else groupings."""
    texts = [v for v in _distinct(values) if v != ""]
    if len(texts) <= 2:
        return "groupings"
    lengths = {len(v) for v in texts}
    decimals = any(_number(v, decimal_comma=True) is not None and ("." in v or "," in v) for v in texts)
    if len(lengths) == 1 and lengths.pop() > 2 and not decimals and (any(v.startswith("0") for v in texts)
                                                                    or len(texts) > 50):
        return "masking"
    numbers = sum(_number(v, decimal_comma=True) is not None for v in texts)
    if numbers == len(texts) or (numbers >= 0.8 * len(texts) and numbers >= 5):  # a few text values ("n/a"):
        return "intervals"  # the intervals builder names them and asks where they go
    try:
        for v in texts:
            datetime.strptime(v, "%Y-%m-%d")
    except ValueError:
        return "groupings"
    return "dates"


def _nice_widths(values: Iterable[object], decimal_comma: bool) -> list[int | float]:
    """Nested band widths for the numbers among ``values``: the first a 1-2-5 step giving about 10 to 20 bands,
    each next one twice the previous, up to two bands over the range (at most four levels)."""
    numbers = [d for d in (_number(v, decimal_comma) for v in _distinct(values)) if d is not None]
    spread = max(numbers) - min(numbers) if numbers else Decimal(0)
    integral = all(d == d.to_integral_value() for d in numbers)
    steps = [Decimal(m).scaleb(e) for e in range(0 if integral else -3, 16) for m in (1, 2, 5)]
    widths = [next((w for w in steps if spread <= 20 * w), steps[-1])]
    while len(widths) < 4 and widths[-1] * 2 < spread:
        widths.append(widths[-1] * 2)
    return [int(w) if w == w.to_integral_value() else float(w) for w in widths]


def suggest_spec(values: Iterable[object]) -> dict[str, object]:
    """A complete builder spec for a column (``suggest_builder``'s kind with its parameters), ready to build: at
    most two values (or any other text) go straight to ``"*"`` (groupings without levels: height 1, so a yes/no
    column does not double the lattice), codes are masked, numbers get nested bands (text among them must be
    placed by the analyst: ``non_numeric = "error"`` names it; ``NA`` alone, R's missing value, is suggested as
    missing), ISO dates get month, year, decade."""
    values = list(values)
    kind = suggest_builder(values)
    if kind == "masking":
        return {"kind": "masking", "char": "*"}
    if kind == "dates":
        return {"kind": "dates", "format": "%Y-%m-%d", "levels": ["month", "year", "decade"]}
    if kind == "intervals":
        comma = numeric_profile(values).comma_decimals > 0
        profile = numeric_profile(values, comma)
        spec: dict[str, object] = {"kind": "intervals", "widths": _nice_widths(values, comma)}
        spec |= {"decimal_comma": True} if comma else {}
        if profile.not_numbers:  # R's missing value alone is suggested as missing; other text the analyst places
            r_missing = all(value == R_MISSING for value, _ in profile.not_numbers)
            spec["non_numeric"] = "missing" if r_missing else "error"
        return spec
    return {"kind": "groupings", "levels": []}


def groupings_from_table(rows: Sequence[Sequence[object]], *, name: str = "groupings") -> dict[str, object]:
    """The ``groupings`` builder spec of a table with one row per value: ``[value, level-1 group, level-2 group,
    ...]`` (as edited in the app; rows of the value alone: no levels, every value straight to ``"*"``). Raises
    ConfigError naming every value without a group and every group given two different coarser groups (a
    hierarchy is a tree)."""
    where = _where("groupings", name)
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
        more = f"; and {len(unique) - _SHOWN} more" if len(unique) > _SHOWN else ""
        raise ConfigError(f"{where}: {'; '.join(unique[:_SHOWN])}{more}")
    return {"kind": "groupings", "levels": levels}


# ---------------------------------------------------------------------------------------------- dispatch
def _widths_ok(x: object) -> bool:
    return isinstance(x, list | tuple) and all(_is_number(w) for w in x)


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
            "top": (False, _is_number, "a number"),
            "bottom": (False, _is_number, "a number"),
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
    where = _where(kind, name)
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
    return fn(values, name=name, **kwargs)
