"""Suggested hierarchies: a first builder and a complete spec for a column, from its values alone (the app's
"accept the suggested hierarchies")."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from workbench.hierarchy.missing import R_MISSING, token_as_empty
from workbench.hierarchy.values import distinct_texts, numeric_profile, parse_number


def suggest_builder(values: Iterable[object]) -> str:
    """A first builder to offer for a column: a column of at most two values (sex, yes/no, 0/1) gets groupings
    (straight to ``"*"``), codes of one length (ZIP codes: leading zeros, or many values; not decimals) are
    masked, numbers (also with a decimal comma, and with a few text values among at least five numbers) get
    intervals, ISO dates (``%Y-%m-%d``) get dates, anything else groupings."""
    texts = [v for v in distinct_texts(token_as_empty(values)) if v != ""]
    if len(texts) <= 2:
        return "groupings"
    lengths = {len(v) for v in texts}
    decimals = any(parse_number(v, decimal_comma=True) is not None and ("." in v or "," in v) for v in texts)
    if len(lengths) == 1 and lengths.pop() > 2 and not decimals and (any(v.startswith("0") for v in texts)
                                                                    or len(texts) > 50):
        return "masking"
    numbers = sum(parse_number(v, decimal_comma=True) is not None for v in texts)
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
    numbers = [d for d in (parse_number(v, decimal_comma) for v in distinct_texts(values)) if d is not None]
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
    values = token_as_empty(values)
    kind = suggest_builder(values)
    if kind == "masking":
        return {"kind": "masking", "char": "*"}
    if kind == "dates":
        spec = {"kind": "dates", "format": "%Y-%m-%d", "levels": ["month", "year", "decade"]}
        return _without_idle_levels(spec, "levels", values)
    if kind == "intervals":
        comma = numeric_profile(values).comma_decimals > 0
        profile = numeric_profile(values, comma)
        spec: dict[str, object] = {"kind": "intervals", "widths": _nice_widths(values, comma)}
        spec |= {"decimal_comma": True} if comma else {}
        if profile.not_numbers:  # R's missing value alone is suggested as missing (accepted, it is missing:
            # workbench.hierarchy.missing); other text the analyst places
            r_missing = all(value == R_MISSING for value, _ in profile.not_numbers)
            spec["non_numeric"] = "missing" if r_missing else "error"
            if not r_missing:  # the analyst places the text first: the levels are checked once it is placed
                return spec
        return _without_idle_levels(spec, "widths", values)
    return {"kind": "groupings", "levels": []}


def _without_idle_levels(spec: dict[str, object], key: str, values: list[object]) -> dict[str, object]:
    """``spec`` without the levels (entries of ``spec[key]``: widths, date levels) that merge nothing on these
    values: a level with as many labels as the level below it (each band holds one value, or one year one decade)
    or with a single label (the root's work) only multiplies the lattice. Each level is compared with the last one
    kept; with none left a numeric column goes straight to ``"*"``."""
    from workbench.hierarchy.builders import build_hierarchy

    levels = list(spec[key])  # type: ignore[call-overload]
    hierarchy = build_hierarchy(spec, values, name="suggestion")
    below = len(hierarchy.level_labels(0))
    kept = []
    for i, level in enumerate(levels):
        labels = len(hierarchy.level_labels(i + 1))
        if 1 < labels < below:
            kept.append(level)
            below = labels
    if kept == levels:
        return spec
    if not kept:
        return {"kind": "groupings", "levels": []}
    return spec | {key: kept}
