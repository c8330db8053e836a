"""The read-only views that measures consume.

``Generalized`` is the cell-level view of any Release, from either engine: per quasi-identifier the
original code, the released code, the cell's generalization height, the hierarchy height and the size of
each released value's leaf set; plus the suppressed mask and k. Every measure is defined on it.

``NodeClasses`` is the lattice fast path: a full-domain node's frequency set (class sizes and each class's
code per column) plus per-column marginals. Measures evaluated on it must equal their cell-level
definition on the same node (tested in tests/test_measures.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np


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
        stacked = np.stack([c.released for c in self.columns], axis=1)
        _, inverse = np.unique(stacked, axis=0, return_inverse=True)
        return inverse.reshape(-1)

    def class_sizes(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Sizes of the classes formed by ``rows`` (a boolean mask; all rows when None)."""
        cls = self.class_of_row if rows is None else self.class_of_row[rows]
        sizes = np.bincount(cls)
        return sizes[sizes > 0]


@dataclass(frozen=True, eq=False)
class ColumnDomain:
    """Per-column marginals for the lattice fast path.

    ``level_codes[o, l]`` = code of original value o's ancestor at level l (codes 0..c_l-1 per level);
    ``counts[o]`` = records with original value o (all > 0).
    """

    name: str
    level_codes: np.ndarray
    counts: np.ndarray
    shares: tuple[np.ndarray, ...] | None = None  # per level: ARX domain-share numerator of each code
    share_domain: float | None = None  # their common denominator D (see GeneralizedColumn.domain_shares)

    def __post_init__(self) -> None:
        object.__setattr__(self, "level_codes", _frozen(self.level_codes, np.int64))
        object.__setattr__(self, "counts", _frozen(self.counts, np.int64))
        if (self.shares is None) != (self.share_domain is None):
            raise ValueError("shares and share_domain are given together")
        if self.shares is not None:
            object.__setattr__(self, "shares", tuple(_frozen(a) for a in self.shares))

    @property
    def max_height(self) -> int:
        return self.level_codes.shape[1] - 1

    @cached_property
    def generalized_counts(self) -> tuple[np.ndarray, ...]:
        """Per level: records under each generalized value (f̄ of Gionis & Tassa)."""
        return tuple(
            np.bincount(self.level_codes[:, lv], weights=self.counts).astype(np.int64)
            for lv in range(self.max_height + 1)
        )

    @cached_property
    def leaf_counts(self) -> tuple[np.ndarray, ...]:
        """Per level: distinct original values under each generalized value."""
        return tuple(np.bincount(self.level_codes[:, lv]) for lv in range(self.max_height + 1))

    @cached_property
    def entropy_by_level(self) -> np.ndarray:
        """Per level: Σ_o f(o)·log2(f̄(g(o))/f(o)) (non-uniform entropy of this column)."""
        f = self.counts.astype(float)
        return np.array(
            [
                float(np.sum(f * np.log2(self.generalized_counts[lv][self.level_codes[:, lv]] / f)))
                for lv in range(self.max_height + 1)
            ]
        )

    @cached_property
    def entropy_terms(self) -> list[float]:
        """``entropy_by_level`` as Python floats (read once per node by the entropy measures)."""
        return self.entropy_by_level.tolist()

    @property
    def domain_shares(self) -> tuple[tuple[np.ndarray, ...], float]:
        """ARX's domain shares per level as ``(numerators, D)``, as ``GeneralizedColumn.domain_shares``;
        without ``shares``: distinct original values under each code over the distinct values of the column."""
        if self.shares is not None and self.share_domain is not None:
            return self.shares, self.share_domain
        return self.leaf_counts, int(self.level_codes.shape[0])

    @cached_property
    def integral_shares(self) -> tuple[np.ndarray, ...] | None:
        """Per level: the domain-share numerators as int64 when they and D are integers (ARX's exact loss),
        else None."""
        nums, domain = self.domain_shares
        if not float(domain).is_integer() or not all(np.issubdtype(a.dtype, np.integer) for a in nums):
            return None
        return tuple(a.astype(np.int64) for a in nums)

    @cached_property
    def share_totals(self) -> tuple[int, ...] | None:
        """Per level: Σ_g num(g)·f̄(g), the share numerators of all n cells (exact; None as ``integral_shares``)."""
        if self.integral_shares is None:
            return None
        return tuple(int(num @ under) for num, under in zip(self.integral_shares, self.generalized_counts,
                                                             strict=True))


CodesOf = Callable[[np.ndarray | None], np.ndarray]
"""Decodes a frequency set's class codes: of the classes at the given indices, or of all (None)."""


@dataclass(frozen=True, eq=False, init=False)
class NodeClasses:
    """A full-domain lattice node summarized by its frequency set (fast path for measures).

    ``class_codes[e, j]`` is class e's code in column j at level ``levels[j]`` (the codes of
    ``domains[j].level_codes[:, levels[j]]``); ``class_sizes[e]`` its number of records. ``class_codes`` is
    given as the matrix, or as a ``CodesOf`` that decodes it on demand (a packed-key frequency set,
    ``workbench.lattice_sweep``): the built-in measures only decode the classes they read (``codes_of``).
    """

    levels: tuple[int, ...]
    class_sizes: np.ndarray
    domains: tuple[ColumnDomain, ...]
    k: int
    suppress: np.ndarray | None = None  # per class: suppressed? (default: smaller than k; privacy models add more)
    cells: Callable[[], Generalized] | None = None  # the node's cell-level view, built on demand (user measures)

    def __init__(self, levels: tuple[int, ...], class_sizes: np.ndarray, class_codes: np.ndarray | CodesOf,
                 domains: tuple[ColumnDomain, ...], k: int, suppress: np.ndarray | None = None,
                 cells: Callable[[], Generalized] | None = None) -> None:
        self.__dict__.update(levels=levels, class_sizes=class_sizes, domains=domains, k=k, suppress=suppress,
                             cells=cells)  # frozen: set once, here
        if callable(class_codes):
            self.__dict__["_decode"] = class_codes
        else:
            self.__dict__["class_codes"] = class_codes  # the cached property's value

    @cached_property
    def class_codes(self) -> np.ndarray:
        """Every class's codes, (classes × r)."""
        return self._decode(None)

    def codes_of(self, rows: np.ndarray) -> np.ndarray:
        """The codes of the classes at indices ``rows`` (without decoding the others)."""
        if "class_codes" in self.__dict__:
            return self.__dict__["class_codes"][rows]
        return self._decode(rows)

    @cached_property
    def n(self) -> int:
        return int(self.class_sizes.sum())

    @property
    def label(self) -> str:
        """The node as ``"q=level,..."`` in quasi-identifier order."""
        return ",".join(f"{d.name}={v}" for d, v in zip(self.domains, self.levels, strict=True))

    def cell_view(self) -> Generalized:
        """The node's release, cell by cell (what a measure without a fast path reads); built by ``cells``."""
        if self.cells is None:
            raise ValueError(f"node {self.label}: no cell-level view was attached to its frequency set")
        return self.cells()

    @property
    def r(self) -> int:
        return len(self.levels)

    @cached_property
    def max_heights(self) -> tuple[int, ...]:
        return tuple(d.max_height for d in self.domains)

    @cached_property
    def small(self) -> np.ndarray:
        """Mask of the suppressed classes: smaller than k, or as ``suppress`` says."""
        return self.class_sizes < self.k if self.suppress is None else np.asarray(self.suppress, dtype=bool)

    @cached_property
    def suppressed(self) -> int:
        return int(self.class_sizes[self.small].sum())

    @cached_property
    def suppressed_flat(self) -> tuple[np.ndarray, np.ndarray]:
        """``suppressed_value_counts`` of all columns end to end (int64), and the columns' offsets (r + 1)."""
        cards = [d.leaf_counts[v].size for d, v in zip(self.domains, self.levels, strict=True)]
        offsets = np.zeros(len(cards) + 1, dtype=np.int64)
        np.cumsum(cards, out=offsets[1:])
        if self.suppressed == 0:
            return np.zeros(int(offsets[-1]), dtype=np.int64), offsets
        small = self.small
        n_small = int(np.count_nonzero(small))
        count_small = n_small <= small.size - n_small
        rows = np.flatnonzero(small if count_small else ~small)
        flat = (self.codes_of(rows) + offsets[:-1]).ravel()
        counts = np.bincount(flat, weights=np.repeat(self.class_sizes[rows], self.r), minlength=int(offsets[-1]))
        if not count_small:
            counts = np.concatenate([d.generalized_counts[v] for d, v in zip(self.domains, self.levels,
                                                                              strict=True)]) - counts
        return counts.astype(np.int64), offsets

    @cached_property
    def suppressed_value_counts(self) -> tuple[np.ndarray, ...]:
        """Per column: suppressed records per released code (c_{j,y}); shared by entropy_nm and loss.

        Counted over the small classes, or as f̄ minus the kept classes when those are fewer.
        """
        counts, offsets = self.suppressed_flat
        return tuple(counts[offsets[j]:offsets[j + 1]] for j in range(self.r))
