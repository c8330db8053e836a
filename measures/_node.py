"""The lattice fast path's view: a full-domain node's frequency set (class sizes and each class's code per
column) plus per-column marginals (``ColumnDomain``). Measures evaluated on it must equal their cell-level
definition on the same node (tested in tests/test_measures.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from measures._view import Generalized


def _frozen(a: np.ndarray, dtype: type | None = None) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


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

    @cached_property
    def max_height(self) -> int:
        return int(self.level_codes.shape[1] - 1)

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
    def exact_loss(self) -> tuple[tuple[np.ndarray, ...], tuple[int, ...], int] | None:
        """``(integral_shares, share_totals, D)`` for ARX's exact loss, or None when the shares are not integers."""
        if self.integral_shares is None or self.share_totals is None:
            return None
        return self.integral_shares, self.share_totals, int(self.domain_shares[1])

    @cached_property
    def share_totals(self) -> tuple[int, ...] | None:
        """Per level: Σ_g num(g)·f̄(g), the share numerators of all n cells (exact; None as ``integral_shares``)."""
        if self.integral_shares is None:
            return None
        return tuple(int(num @ under) for num, under in zip(self.integral_shares, self.generalized_counts,
                                                             strict=True))


class Known(NamedTuple):
    """A node's suppression figures computed outside ``NodeClasses`` (see its ``known`` argument)."""

    n: int
    small: np.ndarray
    suppressed: int
    counts: np.ndarray  # suppressed records per released code, all columns end to end (int64)
    offsets: np.ndarray  # where each column starts in ``counts`` (r + 1)
    squares: int  # Σ |E|² over all classes
    kept_squares: int  # Σ |E|² over the classes kept
    kept_classes: int


CodesOf = Callable[[np.ndarray | None], np.ndarray]
"""Decodes a frequency set's class codes: of the classes at the given indices, or of all (None)."""


@dataclass(frozen=True, eq=False, init=False)
class NodeClasses:
    """A full-domain lattice node summarized by its frequency set (fast path for measures).

    ``class_codes[e, j]`` is class e's code in column j at level ``levels[j]`` (the codes of
    ``domains[j].level_codes[:, levels[j]]``); ``class_sizes[e]`` its number of records. ``class_codes`` is
    given as the matrix, or as a ``CodesOf`` that decodes it on demand (a packed-key frequency set,
    ``workbench.views.sweep``): the built-in measures only decode the classes they read (``codes_of``).
    """

    levels: tuple[int, ...]
    class_sizes: np.ndarray
    domains: tuple[ColumnDomain, ...]
    k: int
    suppress: np.ndarray | None = None  # per class: suppressed? (default: smaller than k; privacy models add more)
    cells: Callable[[], Generalized] | None = None  # the node's cell-level view, built on demand (user measures)

    def __init__(self, levels: tuple[int, ...], class_sizes: np.ndarray, class_codes: np.ndarray | CodesOf,
                 domains: tuple[ColumnDomain, ...], k: int, suppress: np.ndarray | None = None,
                 cells: Callable[[], Generalized] | None = None, *,
                 known: Known | None = None) -> None:
        """``known``: the node's records, suppressed-class mask, suppressed records and ``suppressed_flat`` computed
        for many nodes at once (``workbench.views.sweep.suppression``); they must equal what the properties
        would compute."""
        self.__dict__.update(levels=levels, class_sizes=class_sizes, domains=domains, k=k, suppress=suppress,
                             cells=cells)  # frozen: set once, here
        if callable(class_codes):
            self.__dict__["_decode"] = class_codes
        else:
            self.__dict__["class_codes"] = class_codes  # the cached property's value
        if known is not None:  # the cached properties' values
            self.__dict__.update(n=known.n, small=known.small, suppressed=known.suppressed,
                                 suppressed_flat=(known.counts, known.offsets), squares=known.squares,
                                 kept_squares=known.kept_squares, kept_classes=known.kept_classes)

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
    def squares(self) -> int:
        """Σ_E |E|² over all classes (64-bit integers: exact, and no BLAS)."""
        s = self.class_sizes.astype(np.int64, copy=False)
        return int(s @ s)

    @cached_property
    def kept_squares(self) -> int:
        """Σ |E|² over the classes kept (not suppressed)."""
        kept = self.class_sizes[~self.small].astype(np.int64, copy=False)
        return int(kept @ kept)

    @cached_property
    def kept_classes(self) -> int:
        return int(self.small.size - np.count_nonzero(self.small))

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
