"""Numeric intervals as a poset of the local engine (Katirai 2006's RangePoset, kind ``range``): the LUB of
``[a, b]`` and ``[c, d]`` is ``[min(a, c), max(b, d)]`` in closed form. The protocol is
``workbench.local.poset_base``'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from workbench.errors import HierarchyError
from workbench.local.poset_base import ColumnCells


@dataclass(frozen=True, eq=False)
class RangePoset:
    """Numeric intervals (Katirai's RangePoset): LUB([a,b],[c,d]) = [min(a,c), max(b,d)].

    A state packs the indices of the interval's ends among the sorted distinct data values. Heights are in
    the data's units: an interval's height is its width ``hi − lo``, capped at ``max_diff`` when given (the
    width at which a value counts as fully general, the toolkit's MaxDiff), and ``max_height`` is
    ``max_diff``, else the data's span ``max − min`` (Katirai §2.3: M is "the highest possible range in a
    RangePoset"). The cell measure is ``height / max_height``: ``min(1, (hi − lo) / max_diff)`` or
    ``(hi − lo) / (max − min)``. Every measure of the release reads these same heights (``describe``).
    """

    points: np.ndarray  # sorted distinct numeric values
    values: tuple[str, ...]  # the data values (text) in the order of ``leaves``
    leaves: tuple[int, ...]  # state of each data value
    max_diff: float | None = None
    kind: str = "range"

    @classmethod
    def from_values(cls, values: Sequence[str], max_diff: float | None = None) -> RangePoset:
        if "" in values:  # the one missing value (workbench.hierarchy.missing) is no number to order
            raise HierarchyError("a range poset needs numbers, and a missing value has no place among them: use the "
                                 "tree poset, whose hierarchy gives missing values their own group '(missing)'")
        try:
            numbers = np.array([float(v) for v in values])
        except ValueError:
            bad = [v for v in values if not _is_number(v)]
            raise HierarchyError(f"a range poset needs numbers; not numeric: "
                                 f"{', '.join(map(repr, bad[:5]))}") from None
        if max_diff is not None and max_diff <= 0:
            raise HierarchyError(f"range poset max_diff must be positive, got {max_diff}")
        points = np.unique(numbers)
        idx = np.searchsorted(points, numbers)
        m = len(points)
        return cls(points, tuple(values), tuple(int(i * m + i) for i in idx), max_diff)

    @property
    def m(self) -> int:
        return len(self.points)

    def ends(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.divmod(np.asarray(states, dtype=np.int64), self.m)

    def pack(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return lo * self.m + hi

    def lub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        alo, ahi = self.ends(a)
        blo, bhi = self.ends(b)
        return self.pack(np.minimum(alo, blo), np.maximum(ahi, bhi))

    def group_lub(self, states: np.ndarray) -> int:
        lo, hi = self.ends(states)
        return int(self.pack(lo.min(), hi.max()))

    def group_lubs(self, states: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """``group_lub`` of every group ``states[starts[g]:starts[g + 1]]`` at once."""
        lo, hi = self.ends(states)
        return self.pack(np.minimum.reduceat(lo, starts), np.maximum.reduceat(hi, starts))

    def cost(self, states: np.ndarray) -> np.ndarray:
        """``height / max_height`` (0 when every data value is the same number)."""
        height, top = self.height(states), self.max_height
        return height / top if top > 0 else np.zeros(np.shape(height))

    @cached_property
    def point_texts(self) -> np.ndarray:
        """Each point as the data wrote it when all its values share one text (ZIP 02139 stays 02139), else as
        a number (1.5 and 1.50 both become 1.5)."""
        texts: dict[int, set[str]] = {}
        for value, state in zip(self.values, self.leaves, strict=True):
            texts.setdefault(state // self.m, set()).add(value.strip())
        return np.array([next(iter(texts[i])) if len(texts.get(i, ())) == 1 else _number_text(x)
                         for i, x in enumerate(self.points)], dtype=object)

    def label(self, states: np.ndarray) -> np.ndarray:
        lo, hi = self.ends(states)
        lo_t, hi_t = self.point_texts[lo], self.point_texts[hi]
        return np.where(lo == hi, lo_t, "[" + lo_t + ", " + hi_t + "]")

    def height(self, states: np.ndarray) -> np.ndarray:
        """Width of each interval in the data's units, capped at ``max_diff`` when given."""
        lo, hi = self.ends(states)
        width = self.points[hi] - self.points[lo]
        return np.minimum(width, self.max_diff) if self.max_diff is not None else width

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released interval label ("[a, b]" or "a") contain the original value beside it?"""
        out = np.zeros(len(labels), dtype=bool)
        for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
            text = str(lab).strip()
            try:
                lo, hi = ((float(x) for x in text[1:-1].split(",")) if text.startswith("[")
                          else (float(text), float(text)))
                out[i] = lo <= float(v) <= hi
            except ValueError:
                out[i] = False
        return out

    @property
    def max_height(self) -> float:
        """``max_diff`` when given, else the span of the data (``max − min``)."""
        if self.max_diff is not None:
            return float(self.max_diff)
        return float(self.points[-1] - self.points[0]) if self.m else 0.0

    def describe(self, states: np.ndarray) -> ColumnCells:
        """Codes are the distinct intervals released; height is the (capped) width. The domain share is
        ``(width + 1) / (top + 1)`` with ``top`` = ``max_diff`` or the data's span, so ARX's normalized loss
        ``(share − 1/D) / (1 − 1/D)`` of a cell is Iyengar's numeric ``(U_b − L_b) / (U − L)``, its cost."""
        uniq, codes = np.unique(states, return_inverse=True)
        lo, hi = self.ends(uniq)
        value_point = np.asarray(self.leaves, dtype=np.int64) // self.m
        covers = (lo[:, None] <= value_point[None, :]) & (value_point[None, :] <= hi[:, None])
        top = float(self.max_height)
        return ColumnCells(codes.reshape(-1), self.height(states), self.max_height, hi - lo + 1, covers,
                           self.height(uniq) + 1.0, top + 1.0)


def _is_number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
