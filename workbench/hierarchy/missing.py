"""Missing values: the one definition that the profile, the hierarchy suggestions, both engines, the export and
the provenance share.

A cell of a column is **missing** when its text is
- empty (``""``: an empty field of a text file, a null of a typed file; ``workbench.readers`` reads both so);
- the token ``(missing)``, how every file the workbench writes shows a missing value (so a release or value
  mapping read back keeps its missing values missing); or
- a value the column's hierarchy places in the group ``(missing)`` (its level-1 label): this is how the
  analyst accepts a token such as R's ``NA`` as missing, with the intervals builder's ``non_numeric =
  "missing"`` (what the suggested hierarchy of a numeric column whose only text is ``NA`` does), a groupings
  key mapped to ``"(missing)"``, or an ARX row ``NA;(missing);...;*``.

A column without a hierarchy (sensitive, insensitive, a quasi-identifier with a poset of its own) has no
accepted token: only its empty cells and the token are missing, and any other text, ``NA`` too, is a value.

Missing is one value of its own, which generalizes like any other: every missing text of a column is read as the
one value ``""``, whose hierarchy row is the path the accepted tokens share (``canonical_hierarchy``;
``workbench.data.Dataset.create`` applies both), so an ``NA`` and a blank are one value in one equivalence class.
Every released or shown missing value reads ``(missing)``, never a blank cell; it reads ``*`` only where any value
would: generalized to the root together with other values, or in a suppressed record.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd

from workbench.errors import HierarchyError

if TYPE_CHECKING:
    from workbench.hierarchy.tree import Hierarchy

MISSING = "(missing)"  # the group of the missing value "", and how a written file shows a missing value
R_MISSING = "NA"  # how R's write.csv writes a missing value: suggested as missing in a numeric column


def missing_texts(hierarchy: Hierarchy | None = None) -> frozenset[str]:
    """The texts of a column that are missing: ``""``, the token ``(missing)``, and every value ``hierarchy``
    places in the group ``(missing)`` (its level-1 label)."""
    texts = {"", MISSING}
    if hierarchy is not None and hierarchy.height >= 1:
        texts |= {row[0] for row in hierarchy.rows if len(row) > 1 and row[1] == MISSING}
    return frozenset(texts)


def token_as_empty(values: Iterable[object]) -> list[object]:
    """The values with the token ``(missing)`` read as the empty cell ``""`` it stands for (what the builders and
    the suggestions see, so that a file the workbench wrote is read back with its missing values missing)."""
    return ["" if v == MISSING else v for v in values]


def read_missing(column: pd.Series, hierarchy: Hierarchy | None = None) -> tuple[pd.Series, dict[str, int]]:
    """The column with every missing text (``missing_texts``; a null too) read as the one missing value ``""``
    (the column itself when it holds no other), and each missing text with its number of cells, most frequent
    first (one that does not occur is left out); one pass over the column."""
    mask = column.isin(list(missing_texts(hierarchy)))
    if column.hasnans:
        mask |= column.isna()
    if not mask.any():
        return column, {}
    found = column[mask]
    counts = found.astype(object).where(found.notna(), "").astype(str).value_counts()
    read = {str(t): int(n) for t, n in sorted(counts.items(), key=lambda tn: (-tn[1], tn[0]))}
    return (column.where(~mask, "") if set(read) != {""} else column), read


def missing_cells(values: pd.Series | Iterable[object], hierarchy: Hierarchy | None = None) -> dict[str, int]:
    """Each missing text of a column (``missing_texts``) with its number of cells, most frequent first."""
    column = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    return read_missing(column, hierarchy)[1]


def count_missing(values: pd.Series | Iterable[object], hierarchy: Hierarchy | None = None) -> int:
    """How many cells of a column are missing (``missing_texts``)."""
    return sum(missing_cells(values, hierarchy).values())


def as_one_missing_value(column: pd.Series, hierarchy: Hierarchy | None = None) -> pd.Series:
    """The column with every missing text written as the one missing value ``""``."""
    return read_missing(column, hierarchy)[0]


def canonical_hierarchy(hierarchy: Hierarchy) -> Hierarchy:
    """The hierarchy with a row for the one missing value ``""``: itself when it has one (or no missing value at
    all), else with ``""`` added on the path its accepted tokens share. Every row is kept, so the hierarchy still
    covers the data as written (a config bundle's hierarchy file reproduces the release). Raises HierarchyError
    naming the values when the missing values are placed on different paths (e.g. ``""`` in a group ``unknown`` and
    ``NA`` in ``(missing)``): a missing value is one value."""
    texts = missing_texts(hierarchy)
    rows = [row for row in hierarchy.rows if row[0] in texts]
    paths = {row[1:] for row in rows}
    if len(paths) > 1:
        shown = "; ".join(f"{row[0]!r} → {' → '.join(row[1:])}" for row in rows[:5])
        raise HierarchyError(f"hierarchy {hierarchy.name!r} places the missing values on different paths ({shown}); "
                             f"a missing value is one value: give them one group, e.g. {MISSING!r}")
    if not rows or any(row[0] == "" for row in rows):
        return hierarchy
    shares = hierarchy.interval_shares
    if shares is not None:  # the missing leaf's width is 1, as every level-0 value's (ARX: a null's share is 1/D)
        shares = replace(shares, widths=({**shares.widths[0], "": 1}, *shares.widths[1:]))
    lines = (*hierarchy.lines, 0) if hierarchy.lines else hierarchy.lines
    return replace(hierarchy, rows=(*hierarchy.rows, ("", *rows[0][1:])), lines=lines, interval_shares=shares)


def missing_placement(hierarchy: Hierarchy) -> str | None:
    """Where a hierarchy puts the missing value (an empty cell, and the tokens it places with it), in words: its
    path to the root, e.g. ``"(missing) → (missing) → *"``; None when the hierarchy has no row for one."""
    texts = missing_texts(hierarchy)
    row = next((r for r in hierarchy.rows if r[0] == ""), None) or next(
        (r for r in hierarchy.rows if r[0] in texts), None)
    if row is None:
        return None
    own = all(label == MISSING for label in row[1:-1])
    path = " → ".join(row[1:])
    return (f"missing values form their own group {MISSING!r} at every level: {path}" if own
            else f"missing values are generalized as {path}")
