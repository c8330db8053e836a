"""Greedy clustering for k-anonymity (Katirai 2006, Fig. 11, made disjoint).

Seed a cluster with the lowest-indexed unclustered row, then repeatedly add the unclustered row whose
addition gives the least-measure LUB (equivalently, the least increase; ties to the lowest index) until the
cluster holds k rows; remove it and repeat. Rows already in the cluster are excluded, fixing the printed
pseudo-code, whose argmin only excludes the seed. Fewer than k rows left over are each joined to the cluster
whose LUB they increase least. Clusters partition the table and every record of a cluster is released as
the cluster's exact group LUB, so the release is k-anonymous.

Rows with identical quasi-identifiers are taken together (a distinct row with c copies adds up to c records
at once, at no cost): ``k`` or more identical records form a cluster by themselves, released unchanged.
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
    columns = list(enumerate(problem.columns))
    by_column = np.ascontiguousarray(rows.T)  # one contiguous code array per column: cheap gathers
    for seed in range(len(rows)):
        if remaining[seed] == 0:
            continue
        group, state = [(seed, int(remaining[seed]))], rows[seed].copy()
        need = k - int(remaining[seed])
        remaining[seed] = 0
        candidates = np.flatnonzero(remaining)  # kept up to date below instead of rescanned each step
        codes = by_column[:, candidates]
        while need > 0:
            if candidates.size == 0:
                break
            cost = np.zeros(candidates.size)  # u(LUB(state, row)), summed in column order as cost_of_lub does
            for j, c in columns:
                cost += c.lub_cost(int(state[j]), codes[j])
            at = int(np.argmin(cost))
            best = int(candidates[at])
            take = min(need, int(remaining[best]))
            group.append((best, take))
            remaining[best] -= take
            need -= take
            state = problem.lub_rows(state, rows[best][None, :])[0]
            if remaining[best] == 0:
                candidates, codes = np.delete(candidates, at), np.delete(codes, at, axis=1)
        if need > 0:
            leftover.extend(group)
        else:
            members.append(group)
            lubs.append(state)
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


def _materialize(problem: LocalProblem, members: list[list[tuple[int, int]]], algorithm: str,
                 start: float) -> LocalResult:
    """Assign records to clusters (copies of a distinct row split across clusters in record order) and
    release every record of a cluster as the cluster's exact group LUB."""
    n, r = problem.n, problem.r
    released = np.empty((n, r), dtype=np.int64)
    cluster = np.empty(n, dtype=np.int64)
    records_of = _records_by_row(problem)
    taken = np.zeros(len(problem.rows), dtype=np.int64)
    for c, group in enumerate(members):
        lub = problem.group_lub(problem.rows[[d for d, _ in group]])
        for d, copies in group:
            recs = records_of[d][taken[d]:taken[d] + copies]
            taken[d] += copies
            released[recs] = lub
            cluster[recs] = c
    return LocalResult(algorithm, released, cluster, "k-anonymity", time.perf_counter() - start,
                       note=f"{len(members)} clusters")


def _records_by_row(problem: LocalProblem) -> list[np.ndarray]:
    order = np.argsort(problem.row_of, kind="stable")
    bounds = np.searchsorted(problem.row_of[order], np.arange(len(problem.rows) + 1))
    return [order[bounds[d]:bounds[d + 1]] for d in range(len(problem.rows))]
