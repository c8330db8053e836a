"""The read-only views that measures consume.

``Generalized`` is the cell-level view of any Release, from either engine: per quasi-identifier the
original code, the released code, the cell's generalization height, the hierarchy height and the size of
each released value's leaf set; plus the suppressed mask and k. Every measure is defined on it.

``NodeClasses`` (``measures._node``, re-exported here) is the lattice fast path: a full-domain node's frequency
set plus per-column marginals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np


def tuple_codes(columns: list[np.ndarray], n: int) -> np.ndarray:
    """One code per record for the tuple of the given per-record code arrays (0 for no columns): the rank of the
    record's tuple among the distinct tuples in lexicographic order, as ``np.unique(..., axis=0)`` numbers them."""
    if not columns:
        return np.zeros(n, dtype=np.int64)
    if len(columns) == 1:
        return np.asarray(columns[0], dtype=np.int64)
    arrays = [np.asarray(c, dtype=np.int64).reshape(-1) for c in columns]
    lows = [int(a.min()) if a.size else 0 for a in arrays]
    radices = [int(a.max()) - low + 1 if a.size else 1 for a, low in zip(arrays, lows, strict=True)]
    if math.prod(radices) < 2**62:  # a mixed-radix key per tuple: the same codes, sorted the same way,
        key = np.zeros(n, dtype=np.int64)  # as the unique rows, 10-20 times faster
        for a, low, radix in zip(arrays, lows, radices, strict=True):
            key *= radix
            key += a - low
        return np.unique(key, return_inverse=True)[1].reshape(-1).astype(np.int64)
    _, inverse = np.unique(np.stack(arrays, axis=1), axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64)


def _frozen(a: np.ndarray, dtype: type | None = None) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


@dataclass(frozen=True, eq=False)
class GeneralizedColumn:
    """One quasi-identifier of a release, cell by cell.

    ``released`` codes index ``leaf_count`` (a column-wide code space: two cells share a code exactly when
    they were released as the same generalized value). ``original`` codes are 0..m-1 over the distinct
    original values of the column. ``height`` and ``max_height`` are in the hierarchy's or poset's own units
    (levels; a range poset's interval widths), so ``height / max_height`` is the cell's Vinterbo-1.0 cost.

    ``covers`` (released code × original code, bool: g generalizes o) is Katirai's augmented table (§1.9):
    every record counts under every released value above its original value, whatever the record itself was
    released as. A local release gives it (a record under g may be released as something else); without it
    each record counts under its own released code only, which is the same thing under full-domain
    recoding (every record under g at the node's level carries code g, suppressed records included).
    ``share`` / ``share_domain`` give ARX's domain share of each released code (``domain_shares``): the
    hierarchy's rows under g over its row count, or an interval's width over the domain's; without them, the
    distinct original values under g over those of the column.
    """

    name: str
    original: np.ndarray
    released: np.ndarray
    height: np.ndarray
    max_height: float
    leaf_count: np.ndarray
    covers: np.ndarray | None = None  # released code × original code: does it generalize it (augmented table)
    share: np.ndarray | None = None  # per released code: ARX domain-share numerator (over ``share_domain``)
    share_domain: float | None = None

    def __post_init__(self) -> None:
        for attr in ("original", "released", "leaf_count"):
            object.__setattr__(self, attr, _frozen(getattr(self, attr), np.int64))
        height = np.asarray(self.height)
        object.__setattr__(self, "height", _frozen(height, np.int64 if np.issubdtype(height.dtype, np.integer)
                                                   else np.float64))
        if self.covers is not None:
            covers = _frozen(self.covers, bool)
            if covers.ndim != 2 or covers.shape[0] <= (int(self.released.max()) if self.released.size else -1) \
                    or covers.shape[1] <= (int(self.original.max()) if self.original.size else -1):
                raise ValueError(f"column {self.name!r}: covers must have a row per released code and a column "
                                 "per original code")
            if not covers[self.released, self.original].all():
                raise ValueError(f"column {self.name!r}: some record's released value does not cover its "
                                 "original value in `covers`")
            object.__setattr__(self, "covers", covers)
        if (self.share is None) != (self.share_domain is None):
            raise ValueError("share and share_domain are given together")
        if self.share is not None:
            object.__setattr__(self, "share", _frozen(self.share))

    def counts_under(self, classes: np.ndarray | None = None, n_classes: int = 1) -> np.ndarray:
        """Records whose ORIGINAL value lies under each released code (Katirai's augmented table), split by
        ``classes`` (one code 0..n_classes-1 per record): codes × n_classes."""
        y = np.zeros(self.original.size, dtype=np.int64) if classes is None else np.asarray(classes, np.int64)
        if self.covers is None:  # full-domain recoding: every record under g carries code g
            size = max(int(self.leaf_count.size), int(self.released.max()) + 1 if self.released.size else 0)
            return np.bincount(self.released * n_classes + y, minlength=size * n_classes).reshape(size, n_classes)
        m = self.covers.shape[1]
        per_value = np.bincount(self.original * n_classes + y, minlength=m * n_classes).reshape(m, n_classes)
        return (self.covers.astype(np.int64) @ per_value).astype(np.int64)

    @cached_property
    def f_bar(self) -> np.ndarray:
        """f̄(g) of every released code: the records whose original value lies under g (Gionis & Tassa 2009;
        Katirai's augmented table), see ``counts_under``."""
        return self.counts_under()[:, 0]

    @cached_property
    def domain_size(self) -> int:
        """Distinct original values of the column (Iyengar's |domain_j|)."""
        return int(np.unique(self.original).size)

    @property
    def domain_shares(self) -> tuple[np.ndarray, float]:
        """ARX's domain share of every released code as ``(numerators, D)``: share(g) = numerators[g] / D.

        Given (``share``, ``share_domain``): the hierarchy's rows under g over its row count (ARX
        ``DomainShareMaterialized``) or an interval's width over the domain's (``DomainShareInterval``).
        Without them: the distinct original values of the column under g (``leaf_count``) over those of the
        whole column (``domain_size``), i.e. ARX's share for a hierarchy whose rows are exactly the data's values.
        """
        if self.share is not None and self.share_domain is not None:
            return self.share, self.share_domain
        return self.leaf_count, self.domain_size


@dataclass(frozen=True, eq=False)
class Generalized:
    """Cell-level view of a release. Suppressed rows keep their generalized codes here; they are marked
    by ``suppressed`` (the ``*`` appears only when the release is written)."""

    columns: tuple[GeneralizedColumn, ...]
    suppressed: np.ndarray
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "suppressed", _frozen(self.suppressed, bool))

    @property
    def n(self) -> int:
        return int(self.suppressed.size)

    @property
    def r(self) -> int:
        return len(self.columns)

    @cached_property
    def class_of_row(self) -> np.ndarray:
        """Equivalence class index of each row over the released quasi-identifiers (all rows)."""
        if not self.columns or self.n == 0:
            return np.zeros(self.n, dtype=np.int64)
        if len(self.columns) == 1:  # dense ranks, as for several columns
            return np.unique(self.columns[0].released, return_inverse=True)[1].reshape(-1).astype(np.int64)
        return tuple_codes([c.released for c in self.columns], self.n)

    def class_sizes(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Sizes of the classes formed by ``rows`` (a boolean mask; all rows when None)."""
        cls = self.class_of_row if rows is None else self.class_of_row[rows]
        sizes = np.bincount(cls)
        return sizes[sizes > 0]


from measures._node import ColumnDomain, NodeClasses  # noqa: E402  (the lattice fast path's view)

__all__ = ["ColumnDomain", "Generalized", "GeneralizedColumn", "NodeClasses"]
