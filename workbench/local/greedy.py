"""Greedy clustering for k-anonymity (Katirai 2006, Fig. 11, made disjoint).

Seed a cluster with the lowest-indexed unclustered row, then repeatedly add the unclustered row whose
addition gives the least-measure LUB (equivalently, the least increase; ties to the lowest index) until the
cluster holds k rows; remove it and repeat. Rows already in the cluster are excluded, fixing the printed
pseudo-code, whose argmin only excludes the seed. Fewer than k rows left over are each joined to the cluster
whose LUB they increase least. Clusters partition the table and every record of a cluster is released as
the cluster's exact group LUB, so the release is k-anonymous.

Rows with identical quasi-identifiers are taken together (a distinct row with c copies adds up to c records
at once, at no cost): ``k`` or more identical records form a cluster by themselves, released unchanged. This
holds under every objective, the non-monotone Value-MI included, because the LUB of a value with itself is
the value (``FinitePoset.lub_table``).
"""

from __future__ import annotations

import time

import numpy as np

from workbench.local.lub import LocalProblem, LocalResult


def search(problem: LocalProblem, k: int) -> LocalResult:
    start = time.perf_counter()
    if problem.n < k:
        raise ValueError(f"{problem.n} records cannot form a group of k = {k}")
    rows, remaining = problem.rows, problem.counts.copy()
    members: list[list[tuple[int, int]]] = []  # per cluster: (distinct row, copies taken)
    lubs: list[np.ndarray] = []
    # identical rows first: k or more copies are a cluster by themselves
    for d in np.flatnonzero(remaining >= k):
        members.append([(int(d), int(remaining[d]))])
        lubs.append(rows[d].copy())
        remaining[d] = 0
    leftover: list[tuple[int, int]] = []
    pool = _Pool(problem, np.flatnonzero(remaining))
    while pool.live:
        seed = pool.first()  # the lowest-indexed row with records left
        group, state = [(seed, int(remaining[seed]))], rows[seed].tolist()
        need = k - int(remaining[seed])
        remaining[seed] = 0
        pool.remove(seed)
        pool.set_state(state)
        while need > 0 and pool.live:
            best = pool.cheapest()
            take = min(need, int(remaining[best]))
            group.append((best, take))
            remaining[best] -= take
            need -= take
            if remaining[best] == 0:
                pool.remove(best)
            state = [int(c.lub(a, b)) for c, a, b in zip(problem.columns, state, rows[best], strict=True)]
            if need > 0:
                pool.set_state(state)
        if need > 0:
            leftover.extend(group)
        else:
            members.append(group)
            lubs.append(np.array(state, dtype=np.int64))
    if leftover:
        if not lubs:  # fewer than k distinct-or-not rows in all: one cluster
            members.append(leftover)
            lubs.append(problem.group_lub(rows[[d for d, _ in leftover]]))
        else:
            current = np.array(lubs)
            base = problem.cost(current)
            for d, copies in leftover:
                merged = np.stack([c.lub(current[:, j], np.full(len(current), rows[d, j]))
                                   for j, c in enumerate(problem.columns)], axis=1)
                target = int(np.argmin(problem.cost(merged) - base))
                members[target].append((d, copies))
                current[target] = merged[target]
                base[target] = problem.cost(merged[target][None, :])[0]
    return _materialize(problem, members, "greedy", start)


class _Pool:
    """The distinct rows with records left (ascending), their codes column by column, and the cost of each
    one's LUB with the current cluster state kept per column: a column is looked up again only when the
    state changed in it. Removed rows are masked (cost +inf) and dropped in batches (more than ``min_batch``
    and a quarter of the pool), not one by one; the cost is summed in column order, as
    ``LocalProblem.cost_of_lub`` does, so ties break identically."""

    min_batch = 256

    def __init__(self, problem: LocalProblem, rows: np.ndarray) -> None:
        self.columns = problem.columns
        self.rows = rows
        self.codes = np.ascontiguousarray(problem.rows[rows].T)  # r × rows: cheap per-column gathers
        self.terms = np.zeros((len(self.columns), len(rows)))
        self.penalty = np.zeros(len(rows))  # 0 for a live row, +inf for a removed one
        self.position = {int(d): i for i, d in enumerate(rows)}
        self.state: list[int] | None = None
        self.live, self.dead, self.next = len(rows), 0, 0

    def first(self) -> int:
        while self.penalty[self.next] != 0:
            self.next += 1
        return int(self.rows[self.next])

    def remove(self, row: int) -> None:
        i = self.position.pop(row)
        self.penalty[i] = np.inf
        self.live, self.dead = self.live - 1, self.dead + 1
        if self.dead > self.min_batch and self.dead > len(self.rows) // 4:
            keep = self.penalty == 0
            self.rows, self.codes, self.terms = self.rows[keep], self.codes[:, keep], self.terms[:, keep]
            self.penalty = np.zeros(len(self.rows))
            self.position = {int(d): i for i, d in enumerate(self.rows)}
            self.dead = self.next = 0

    def set_state(self, state: list[int]) -> None:
        for j, c in enumerate(self.columns):
            if self.state is None or state[j] != self.state[j]:
                self.terms[j] = c.lub_cost(state[j], self.codes[j])
        self.state = state

    def cheapest(self) -> int:
        """The live row whose LUB with the state costs least (ties: the lowest index)."""
        cost = self.terms[0].copy()
        for j in range(1, len(self.columns)):
            cost += self.terms[j]
        cost += self.penalty
        return int(self.rows[int(np.argmin(cost))])


def _materialize(problem: LocalProblem, members: list[list[tuple[int, int]]], algorithm: str,
                 start: float) -> LocalResult:
    """Assign records to clusters (copies of a distinct row split across clusters in record order) and
    release every record of a cluster as the cluster's exact group LUB (all clusters' LUBs at once)."""
    sizes = np.array([len(group) for group in members], dtype=np.int64)
    flat = np.array([pair for group in members for pair in group], dtype=np.int64).reshape(-1, 2)
    rows, copies = flat[:, 0], flat[:, 1]
    owner = np.repeat(np.arange(len(members)), sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    lubs = problem.group_lubs(problem.rows[rows], starts)
    if not np.array_equal(np.bincount(rows, weights=copies, minlength=len(problem.rows)), problem.counts):
        raise AssertionError(f"{algorithm}: the clusters do not cover every record exactly once")
    # a distinct row's records (in record order) go to its clusters in cluster order, as many as each took
    by_row = np.argsort(rows, kind="stable")  # stable: within a row, cluster order is kept
    cluster = np.empty(problem.n, dtype=np.int64)
    cluster[np.argsort(problem.row_of, kind="stable")] = np.repeat(owner[by_row], copies[by_row])
    return LocalResult(algorithm, lubs[cluster], cluster, "k-anonymity", time.perf_counter() - start,
                       note=f"{len(members)} clusters")
