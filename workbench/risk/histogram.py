"""The histogram of group sizes that every risk figure is computed from (ARX's ``RiskModelHistogram``,
arx-deidentifier/arx, ``src/main/org/deidentifier/arx/risk/RiskModelHistogram.java``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Histogram:
    """Group sizes (ascending, distinct) and how many groups have each size (ARX ``RiskModelHistogram``). Its
    ``classes`` are the groups of the table it is given: a release's with its suppressed records as one group of
    ``*`` is the ``RiskResult.groups``, not its ``classes``."""

    sizes: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, class_sizes: Sequence[int] | np.ndarray) -> Histogram:
        """The histogram of a list of class sizes (one entry per class)."""
        arr = np.asarray(class_sizes, dtype=np.int64).reshape(-1)
        if arr.size and arr.min() < 1:
            raise ValueError("class sizes must be at least 1")
        sizes, counts = np.unique(arr, return_counts=True)
        return cls(sizes.astype(np.int64), counts.astype(np.int64))

    @classmethod
    def from_mapping(cls, histogram: Mapping[int, int]) -> Histogram:
        """From ``{class size: number of classes}``."""
        items = sorted((int(s), int(c)) for s, c in histogram.items() if c)
        if any(s < 1 or c < 0 for s, c in items):
            raise ValueError("class sizes must be at least 1 and counts non-negative")
        return cls(np.array([s for s, _ in items], dtype=np.int64), np.array([c for _, c in items], dtype=np.int64))

    @property
    def records(self) -> int:
        return int((self.sizes * self.counts).sum())

    @property
    def classes(self) -> int:
        return int(self.counts.sum())

    def classes_of_size(self, size: int) -> int:
        hit = self.counts[self.sizes == size]
        return int(hit[0]) if hit.size else 0
