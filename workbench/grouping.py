"""Grouping rows of integer codes: the equivalence classes of a table over its quasi-identifiers.

One primitive serves the lattice evaluator, Incognito's subset frequency sets, per-record class sizes and
releases. Each row of a codes matrix (column j holds codes ``0..cards[j]-1``) gets an ``int64`` key that
orders rows lexicographically (a mixed-radix number, El Emam 2009 / Issa 2009 ch. 5). When the product of
the radices would not fit in ``int64``, the key built so far is re-encoded into dense ids (its rank among
the distinct keys) before the next column is appended, so the keys stay exact and in the same order for
any number of columns and values; the narrow case (the usual one) never re-encodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

KEY_LIMIT = 2**62  # key spaces up to this size are built directly as mixed-radix int64 numbers
_DENSE_FACTOR = 4  # count with a dense bincount when the key space is at most this many times the rows


def _cards(codes: np.ndarray, cards: Sequence[int] | None) -> list[int]:
    if cards is None:
        if codes.size and int(codes.min()) < 0:
            raise ValueError("codes must be non-negative")
        return [int(codes[:, j].max()) + 1 if codes.shape[0] else 1 for j in range(codes.shape[1])]
    cards = [int(c) for c in cards]  # Python ints: the product must not wrap around as numpy ints would
    if len(cards) != codes.shape[1]:
        raise ValueError(f"{len(cards)} cardinalities for {codes.shape[1]} columns")
    return cards


def _dense(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Keys re-encoded as their rank among the distinct keys (order kept), and the number of distinct keys."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), int(uniq.size)


def row_keys(codes: np.ndarray, cards: Sequence[int] | None = None) -> tuple[np.ndarray, int]:
    """An ``int64`` key per row of ``codes`` and the key space ``S`` (keys lie in ``[0, S)``).

    Equal rows get equal keys, and keys order rows lexicographically. Codes are non-negative and
    ``cards[j]`` bounds column j's (default: its largest code + 1). Exact for any key space: when
    ``prod(cards)`` would exceed ``KEY_LIMIT``, the partial key is re-encoded into dense ids before the next
    column is appended.
    """
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError(f"codes must be a 2-D matrix, got shape {codes.shape}")
    cards = _cards(codes, cards)
    n = codes.shape[0]
    if not cards:
        return np.zeros(n, dtype=np.int64), 1
    space = math.prod(cards)
    if space <= KEY_LIMIT:  # the common case: one pass, no re-encoding
        keys = codes[:, 0].astype(np.int64)
        for j in range(1, len(cards)):
            keys *= cards[j]
            keys += codes[:, j]
        return keys, space
    keys, space = codes[:, 0].astype(np.int64), cards[0]
    if space > KEY_LIMIT:
        keys, space = _dense(keys)
    for j in range(1, len(cards)):
        card, column = cards[j], codes[:, j].astype(np.int64)
        if space * card > KEY_LIMIT:
            keys, space = _dense(keys)  # now space <= n
        if space * card > KEY_LIMIT:
            column, card = _dense(column)  # now card <= n too, and n * n fits
        keys = keys * card + column
        space *= card
    return keys, space


class Groups(NamedTuple):
    """Rows grouped by equal codes, groups in lexicographic order of their codes.

    ``first[g]``: index of one row of group g (all its rows share their codes); ``counts[g]``: the group's
    size, or the sum of the rows' weights; ``inverse[i]``: row i's group (only when asked for).
    """

    first: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.counts.size)


def group_rows(codes: np.ndarray, cards: Sequence[int] | None = None, weights: np.ndarray | None = None,
               with_inverse: bool = False) -> Groups:
    """Group the rows of ``codes`` (see ``row_keys``), counting rows or summing positive integer ``weights``
    (e.g. the counts of a finer frequency set being rolled up).

    A dense ``bincount`` when the key space is small compared with the rows, else a stable sort of the keys.
    """
    return _group_keys(*row_keys(codes, cards), weights, with_inverse)


def _group_keys(keys: np.ndarray, space: int, weights: np.ndarray | None, with_inverse: bool) -> Groups:
    n = keys.size
    if weights is not None and len(weights) != n:
        raise ValueError(f"weights must have one entry per row ({n}), got {len(weights)}")
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Groups(empty, empty.copy(), empty.copy() if with_inverse else None)
    if _is_dense(space, n):
        summed = np.bincount(keys, weights=weights, minlength=space)
        present = np.flatnonzero(summed)
        where = np.empty(space, dtype=np.int64)
        where[keys] = np.arange(n)
        first = where[present]
        inverse = None
        if with_inverse:
            where[present] = np.arange(present.size)
            inverse = where[keys]
        return Groups(first, summed[present].astype(np.int64), inverse)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    if weights is None:
        counts = np.diff(np.append(starts, n))
    else:
        counts = np.add.reduceat(np.asarray(weights)[order], starts)
    inverse = None
    if with_inverse:
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.cumsum(new) - 1
    return Groups(order[starts], counts.astype(np.int64), inverse)


def distinct_rows(codes: np.ndarray, cards: Sequence[int] | None = None,
                  weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A frequency set: the distinct rows of ``codes`` in lexicographic order, and how many rows (or how much
    weight) each has."""
    groups = group_rows(codes, cards, weights)
    return np.asarray(codes)[groups.first], groups.counts


def class_sizes(codes: np.ndarray, cards: Sequence[int] | None = None) -> np.ndarray:
    """Per row: how many rows of ``codes`` equal it (the size of its equivalence class)."""
    keys, space = row_keys(codes, cards)
    if keys.size and _is_dense(space, keys.size):
        return np.bincount(keys, minlength=space)[keys]
    groups = _group_keys(keys, space, None, with_inverse=True)
    return groups.counts[groups.inverse]


def _is_dense(space: int, n: int) -> bool:
    return space <= _DENSE_FACTOR * n + 1024
