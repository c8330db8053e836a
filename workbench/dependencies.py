"""Released columns that give a quasi-identifier back.

Generalizing a quasi-identifier protects nothing if another released column determines it: a district's
centroid coordinates released beside a masked postal code tell every reader the district the mask hides.
A column C *determines* quasi-identifier Q at hierarchy level l when every value of C occurs with one
level-l value of Q only (a functional dependency C -> Q_l in the data) and level l still distinguishes
records (more than one distinct value). Then any release that generalizes Q to a level at or below l
releases Q_l anyway, through C. The guard reports, for every released non-quasi-identifier column
(insensitive, sensitive or target; identifying columns are dropped from releases), the lowest such level
below the hierarchy's top. A column whose values are all distinct is left out: it determines every column
trivially, and ``workbench.data.profile`` already warns that it identifies records.

Vectorized: per pair of columns, one grouping of the records' (C, Q) codes (``workbench.grouping``), then
one grouping of the distinct pairs per level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.data import Dataset
from workbench.grouping import distinct_rows, group_rows

RELEASED_ROLES = ("insensitive", "sensitive", "target")


@dataclass(frozen=True)
class Determination:
    """Released ``column`` (of ``role``) determines ``quasi_identifier`` at hierarchy ``level`` (0 = the
    original values), whose ``distinct`` values (> 1) it therefore reveals; ``example``: one level-l label."""

    column: str
    role: str
    quasi_identifier: str
    level: int
    distinct: int
    example: str

    def describe(self) -> str:
        shown = "its values" if self.level == 0 else f"e.g. {self.example!r}"
        return f"{self.quasi_identifier!r} at level {self.level} ({self.distinct} distinct values, {shown})"


def _level_table(dataset: Dataset, qi: str) -> tuple[np.ndarray, np.ndarray, list[list[str]], int]:
    """Record codes, code -> level codes, labels per level, and the highest level to check (below the top;
    level 0 only for a quasi-identifier generalized by a poset of its own, which has no hierarchy)."""
    if qi in dataset.hierarchies:
        col = dataset.encoded_column(qi)
        return col.codes, col.level_codes, [list(x) for x in col.labels], col.height - 1
    codes, uniques = pd.factorize(dataset.frame[qi], sort=True)
    return codes.astype(np.int64), np.arange(len(uniques))[:, None], [[str(u) for u in uniques]], 0


def determinations(dataset: Dataset) -> list[Determination]:
    """Every (released non-quasi-identifier column, quasi-identifier) pair where the column determines the
    quasi-identifier at some level below its hierarchy's top, at the lowest such level; in column order."""
    n = dataset.n
    released = [c for c, r in dataset.roles.items() if r in RELEASED_ROLES]
    quasi = [(q, *_level_table(dataset, q)) for q in dataset.quasi_identifiers]
    out: list[Determination] = []
    for column in released:
        c_codes, c_values = pd.factorize(dataset.frame[column])
        m = len(c_values)
        if m >= n:  # all values distinct: a trivial dependency (profile() warns about such columns)
            continue
        c_codes = c_codes.astype(np.int64)
        for qi, q_codes, level_codes, labels, top in quasi:
            pairs, _ = distinct_rows(np.stack([c_codes, q_codes], axis=1), [m, level_codes.shape[0]])
            for level in range(top + 1):
                distinct = len(labels[level])
                if distinct <= 1:
                    break  # and every level above has one value too
                generalized = level_codes[pairs[:, 1], level]
                if group_rows(np.stack([pairs[:, 0], generalized], axis=1), [m, distinct]).size == m:
                    out.append(Determination(column, dataset.roles[column], qi, level, distinct,
                                             labels[level][0]))
                    break  # the lowest level; it determines every level above as well
    return out


def dependency_warnings(dataset: Dataset) -> list[str]:
    """One warning per released column that determines a quasi-identifier (see ``determinations``)."""
    by_column: dict[str, list[Determination]] = {}
    for d in determinations(dataset):
        by_column.setdefault(d.column, []).append(d)
    return [f"{column!r} ({found[0].role}, released unchanged) determines quasi-identifier "
            + "; ".join(d.describe() for d in found)
            + ": a release reveals that level even where it generalizes or suppresses the quasi-identifier. "
            "Mark the column identifying (dropped from releases), drop it, or make it a quasi-identifier"
            for column, found in by_column.items()]
