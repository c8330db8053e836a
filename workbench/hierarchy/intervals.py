"""The intervals builder: numeric bands of nested widths, top- and bottom-coding, decimal commas and text among
numbers placed as the analyst chooses; ARX's interval domain shares for loss (Prasser et al.)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from decimal import Decimal, localcontext

from workbench.errors import ConfigError
from workbench.hierarchy.missing import MISSING
from workbench.hierarchy.tree import Hierarchy, IntervalShares
from workbench.hierarchy.values import (
    NON_NUMERIC,
    NOT_A_NUMBER,
    ROOT,
    decimal_of,
    decimal_text,
    distinct_texts,
    finished_tree,
    natural_key,
    numeric_profile,
    parse_number,
    where_of,
)


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
    where = where_of(kind, name)
    if isinstance(widths, str | bytes) or not isinstance(widths, Sequence):
        raise ConfigError(f"{where}: widths must be a list of positive numbers, got {widths!r}")
    ws = [decimal_of(w, "each width", where) for w in widths]
    for w, raw in zip(ws, widths, strict=True):
        if w <= 0:
            raise ConfigError(f"{where}: widths must be positive, got {raw!r} in {list(widths)!r}")
    hi_cut = None if top is None else decimal_of(top, "top", where)
    lo_cut = None if bottom is None else decimal_of(bottom, "bottom", where)
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
    ordered = sorted(distinct_texts(values), key=lambda t: natural_key(t, decimal_comma))
    numbers = {v: parse_number(v, decimal_comma) for v in ordered}
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
                f"of the previous one ({decimal_text(w, w == w.to_integral_value())} is not a multiple of "
                f"{decimal_text(prev, prev == prev.to_integral_value())})"
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
        return f"[{decimal_text(lo, False)}, {decimal_text(hi, False)}["

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
            path = [f"{decimal_text(hi_cut, integral)}+"] * len(ws)
            widths_below = [max(numeric) - hi_cut + 1] * len(ws)
        elif lo_cut is not None and x < lo_cut:
            path = [f"<{decimal_text(lo_cut, integral)}"] * len(ws)
            widths_below = [lo_cut - min(numeric)] * len(ws)
        else:
            path = [band(x, w) for w in ws]
            widths_below = [min(start(x, w) + w, hi_cut) - start(x, w) if hi_cut is not None else w for w in ws]
        rows.append([v, *path, ROOT])
        widths_of.append(widths_below)
    h = finished_tree(rows, "intervals", name)
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
