"""LUB recoding of records (Katirai 2006, Defs. 3-4): the local engine's problem, column-wise and vectorized.

A ``LocalProblem`` holds, per quasi-identifier, a poset and a column weight, and the table's *distinct*
original rows with their multiplicities (rows with identical quasi-identifiers are interchangeable, so the
algorithms work on distinct rows: far fewer than records on real data). The row measure is additive:
``u(row) = Σ_j w_j · u_j(row_j)`` with ``u_j`` the poset's cell measure (Vinterbo-1.0 by default; column
weights give Col-MI). LUBs are element-wise numpy operations over the rows: no per-pair Python loops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset

Poset = FinitePoset | RangePoset


@dataclass(frozen=True, eq=False)
class LocalColumn:
    """One quasi-identifier: its poset, weight and the state (leaf) of every distinct value."""

    name: str
    poset: Poset
    weight: float = 1.0
    node_cost: np.ndarray | None = None  # finite posets: a cell measure per node replacing Vinterbo-1.0 (PMI)

    @cached_property
    def _node_cost(self) -> np.ndarray | None:
        if not isinstance(self.poset, FinitePoset):
            return None
        return self.poset.cost_table if self.node_cost is None else self.node_cost

    @cached_property
    def _table(self) -> np.ndarray | None:
        return self.poset.lub_table(self._node_cost) if isinstance(self.poset, FinitePoset) else None

    @cached_property
    def _lub_cost(self) -> np.ndarray | None:
        """Weighted cost of every pairwise LUB (finite posets): one lookup per candidate."""
        if self._table is None:
            return None
        return self.weight * self._node_cost[self._table]

    def lub(self, a: np.ndarray | int, b: np.ndarray) -> np.ndarray:
        if self._table is not None:
            return self._table[a, b]
        return self.poset.lub(np.asarray(a), np.asarray(b))

    def cost(self, states: np.ndarray) -> np.ndarray:
        if self._node_cost is not None:
            return self.weight * self._node_cost[states]
        return self.weight * self.poset.cost(states)

    def lub_cost(self, a: int, b: np.ndarray) -> np.ndarray:
        """Weighted cost of LUB(a, b) for one state a and many states b."""
        if self._lub_cost is not None:
            return self._lub_cost[a].take(b)  # a 1-D take: several times faster than [a, b] fancy indexing
        return self.cost(self.lub(a, b))

    def pairwise_lub_cost(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Weighted cost of LUB(a_i, b_j) for all pairs (len(a) × len(b))."""
        if self._lub_cost is not None:  # one flat take: about 2.5 times faster than 2-D fancy indexing
            return self._lub_cost.ravel().take(a[:, None] * len(self._lub_cost) + b[None, :])
        return self.cost(self.lub(a[:, None], b[None, :]))

    def group_lub(self, states: np.ndarray) -> int:
        if self._node_cost is not None:
            return self.poset.group_lub(states, self._node_cost)
        return self.poset.group_lub(states)

    def group_lubs(self, states: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """``group_lub`` of every group ``states[starts[g]:starts[g + 1]]`` (vectorized where the poset can)."""
        if self._node_cost is not None:
            return self.poset.group_lubs(states, starts, self._node_cost)
        if isinstance(self.poset, RangePoset):
            return self.poset.group_lubs(states, starts)
        ends = [*starts[1:], len(states)]
        return np.array([self.group_lub(states[a:b]) for a, b in zip(starts, ends, strict=True)], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class LocalProblem:
    """The distinct original rows (``rows``: distinct × r leaf states), ``counts`` of each, and ``row_of``:
    the distinct row of every record."""

    columns: tuple[LocalColumn, ...]
    rows: np.ndarray
    counts: np.ndarray
    row_of: np.ndarray

    @classmethod
    def build(cls, columns: Sequence[LocalColumn], leaf_states: np.ndarray) -> LocalProblem:
        """``leaf_states``: records × r states of the original values."""
        rows, row_of, counts = np.unique(leaf_states, axis=0, return_inverse=True, return_counts=True)
        return cls(tuple(columns), rows.astype(np.int64), counts.astype(np.int64), row_of.reshape(-1))

    @property
    def r(self) -> int:
        return len(self.columns)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def lub_rows(self, state: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Column-wise LUB of one state vector with many rows (rows × r)."""
        return np.stack([c.lub(state[j], rows[:, j]) for j, c in enumerate(self.columns)], axis=1)

    def cost_of_lub(self, state: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """u(LUB(state, row)) for many rows: the measure of each candidate merge."""
        total = np.zeros(len(rows))
        for j, c in enumerate(self.columns):
            total += c.lub_cost(int(state[j]), rows[:, j])
        return total

    def pairwise_distance(self, rows: np.ndarray) -> np.ndarray:
        """Partition distance 2·u(LUB(x, y)) − u(x) − u(y) for all pairs of rows."""
        own = self.cost(rows)
        total = sum((c.pairwise_lub_cost(rows[:, j], rows[:, j]) for j, c in enumerate(self.columns)),
                    np.zeros((len(rows), len(rows))))
        return 2 * total - own[:, None] - own[None, :]

    def cost(self, states: np.ndarray) -> np.ndarray:
        """u(row) of many state rows (rows × r)."""
        states = np.atleast_2d(states)
        return sum((c.cost(states[:, j]) for j, c in enumerate(self.columns)), np.zeros(len(states)))

    def group_lub(self, rows: np.ndarray) -> np.ndarray:
        """Exact column-wise least-cost common ancestor of a group of rows."""
        return np.array([c.group_lub(rows[:, j]) for j, c in enumerate(self.columns)], dtype=np.int64)

    def group_lubs(self, rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """``group_lub`` of every group ``rows[starts[g]:starts[g + 1]]`` (groups × r)."""
        return np.stack([c.group_lubs(rows[:, j], starts) for j, c in enumerate(self.columns)], axis=1)


@dataclass(frozen=True)
class LocalResult:
    """What a local algorithm produced: ``released[i]`` the state row released for record i, ``cluster[i]``
    the cluster (disjoint algorithms) or -1, ``groups`` the rows combined for each record (overlapping
    Greedy), and the guarantee kind ("k-anonymity" or "k-ambiguity")."""

    algorithm: str
    released: np.ndarray
    cluster: np.ndarray
    guarantee: str
    seconds: float
    note: str = ""
