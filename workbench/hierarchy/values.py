"""Values as the hierarchy builders read them: the labels every builder shares (the root, the missing value's
group), numbers in text (also with a decimal comma), natural order, and the checks and messages the builders
share."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real

from workbench.errors import ConfigError
from workbench.hierarchy.tree import Hierarchy

ROOT = "*"
DATE_LEVELS = ("week", "month", "quarter", "year", "decade")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DIGITS = re.compile(r"([0-9]+)")
_COMMA_NUMBER = re.compile(r"[+-]?[0-9]+,[0-9]+")  # a decimal comma: "29,0", "-1,5" (no thousands separators)
SHOWN = 5
NON_NUMERIC = ("keep", "group", "missing", "error")  # what the intervals builder does with text that is no number
NOT_A_NUMBER = "(not a number)"  # the group of text values, when the analyst puts them in one group


def where_of(kind: str, name: str) -> str:
    return f"builder {kind!r} for {name!r}"


def distinct_texts(values: Iterable[object]) -> list[str]:
    return list(dict.fromkeys("" if v is None else str(v) for v in values))


def parse_number(text: str, decimal_comma: bool = False) -> Decimal | None:
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

    def listing(self, limit: int | None = SHOWN) -> str:
        """``'unknown' (3), 'n/a' (2)``: the values that are not numbers, with their counts."""
        shown = self.not_numbers if limit is None else self.not_numbers[:limit]
        more = len(self.not_numbers) - len(shown)
        return ", ".join(f"{v!r} ({c:,})" for v, c in shown) + (f" and {more} more" if more > 0 else "")


def numeric_profile(values: Iterable[object], decimal_comma: bool = False) -> NumericProfile:
    """Count, over every record's value (not only the distinct ones), what is not a plain number."""
    counts = Counter("" if v is None else str(v) for v in values)
    comma = sum(1 for v in counts if v and parse_number(v) is None and parse_number(v, True) is not None)
    odd = sorted(((v, c) for v, c in counts.items() if v != "" and parse_number(v, decimal_comma) is None),
                 key=lambda vc: (-vc[1], vc[0]))
    return NumericProfile(comma, tuple(odd), counts.get("", 0))


def natural_key(text: str, decimal_comma: bool = False) -> tuple:
    if text == "":
        return (2,)
    num = parse_number(text, decimal_comma)
    if num is not None:
        return (0, num, text)
    parts = tuple(int(p) if i % 2 else p for i, p in enumerate(_DIGITS.split(text)))
    return (1, parts, text)


def natural_sorted(values: Iterable[object]) -> list[str]:
    """Distinct values as text, numbers numerically first, then other text naturally, ``""`` last."""
    return sorted(distinct_texts(values), key=natural_key)


def listing(items: Sequence[str], limit: int | None = SHOWN) -> str:
    shown = [repr(i) for i in (items if limit is None else items[:limit])]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def finished_tree(rows: list[list[str]], kind: str, name: str) -> Hierarchy:
    """Make the Hierarchy and insist it is a valid tree (labels of non-numeric values could collide)."""
    if not rows:
        raise ConfigError(f"{where_of(kind, name)}: there are no values to build a hierarchy for")
    h = Hierarchy.from_rows(rows, name=name)
    report = h.validate()
    if not report.ok:
        raise ConfigError(f"{where_of(kind, name)}: the result is not a tree: {'; '.join(report.errors)}")
    return h


def is_number(x: object) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def decimal_of(x: object, what: str, where: str) -> Decimal:
    if not is_number(x):
        raise ConfigError(f"{where}: {what} must be a number, got {x!r}")
    d = Decimal(str(x))
    if not d.is_finite():
        raise ConfigError(f"{where}: {what} must be a finite number, got {x!r}")
    return d


def decimal_text(d: Decimal, integral: bool) -> str:
    """Integers as ``20``, other numbers as Python floats print (``20.0``, ``0.25``)."""
    return str(int(d)) if integral else str(float(d))
