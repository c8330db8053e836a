"""Which combinations of quasi-identifiers make records unique (Sweeney 2000's "87 % of the US population is unique on
ZIP, gender and date of birth"; ARX's quasi-identifier risk analysis): for each combination, the records alone in
their class on those attributes only, and the records unique on it but on none of its parts (the combination
itself singles them out)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np
import pandas as pd

from workbench.grouping import class_sizes

ALL_WHEN_AT_MOST = 6  # with this many quasi-identifiers or fewer, every combination (at most 63)
MAX_SIZE = 3  # otherwise, the combinations of up to this many


def combinations_of(quasi_identifiers: Sequence[str], max_size: int | None = None) -> list[tuple[str, ...]]:
    """The combinations examined, smallest first: all of them with few quasi-identifiers
    (``ALL_WHEN_AT_MOST``), else those of up to ``MAX_SIZE`` (``max_size`` overrides both)."""
    qis = list(quasi_identifiers)
    top = max_size if max_size is not None else (len(qis) if len(qis) <= ALL_WHEN_AT_MOST else MAX_SIZE)
    return [c for size in range(1, min(top, len(qis)) + 1) for c in combinations(qis, size)]


def unique_combinations(frame: pd.DataFrame, quasi_identifiers: Sequence[str],
                        max_size: int | None = None) -> pd.DataFrame:
    """One row per combination (``combinations_of``): ``combination`` (names joined by " + "), ``size``,
    ``unique_records`` (records alone in their class on those attributes), ``share`` (of the records) and
    ``only_here`` (records unique on it and on none of its parts), sorted by size then by unique records,
    descending. ``frame``: the input, or a release's table (suppressed rows ``*``)."""
    qis = list(quasi_identifiers)
    n = len(frame)
    codes = {q: pd.factorize(frame[q].astype(str))[0].astype(np.int64) for q in qis}
    unique: dict[tuple[str, ...], np.ndarray] = {}
    rows = []
    for combo in combinations_of(qis, max_size):
        matrix = np.stack([codes[q] for q in combo], axis=1)
        mask = class_sizes(matrix) == 1 if n else np.zeros(0, dtype=bool)
        unique[combo] = mask
        parts = [unique[p] for p in combinations(combo, len(combo) - 1) if p in unique] if len(combo) > 1 else []
        only = mask & ~np.logical_or.reduce(parts) if parts else mask
        rows.append({"combination": " + ".join(combo), "size": len(combo), "unique_records": int(mask.sum()),
                     "share": float(mask.sum() / n) if n else 0.0, "only_here": int(only.sum())})
    table = pd.DataFrame(rows, columns=["combination", "size", "unique_records", "share", "only_here"])
    return table.sort_values(["size", "unique_records"], ascending=[True, False], kind="stable").reset_index(drop=True)


def combinations_count(quasi_identifiers: int, max_size: int | None = None) -> int:
    """How many combinations ``combinations_of`` examines for this many quasi-identifiers."""
    top = max_size if max_size is not None else (quasi_identifiers if quasi_identifiers <= ALL_WHEN_AT_MOST
                                                 else MAX_SIZE)
    return sum(comb(quasi_identifiers, s) for s in range(1, min(top, quasi_identifiers) + 1))
