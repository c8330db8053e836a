"""Partition (Fischer, in Katirai 2006 §"Partition"): top-down recursive bisection into clusters of >= k.

A partition is split by seeding two halves with its farthest pair under the distance
``d(A, B) = 2·u(LUB(A, B)) − u(A) − u(B)`` and giving every other row to the closer seed. Ties go to the half
with fewer records so far (in row order). When a half would hold fewer than k records the split is undone
and the partition is final (Katirai: "the last split is reversed"); a partition of fewer than 2k records is
final at once. Every record of a final partition is released as its exact group LUB, so the release is
k-anonymous.

The exact farthest pair costs O(|P|²) LUBs; above ``EXACT_PAIR_LIMIT`` distinct rows the pair is found by the
usual two sweeps (the row farthest from the first row, then the row farthest from that one), which is exact
on trees of depth one and a close approximation otherwise. Which one was used is counted in the note.
Identical rows move together (a distinct row with c copies weighs c).
"""

from __future__ import annotations

import time

import numpy as np

from workbench.local.greedy import _materialize
from workbench.local.lub import LocalProblem, LocalResult

EXACT_PAIR_LIMIT = 400


def _distances(problem: LocalProblem, seed: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return 2 * problem.cost_of_lub(seed, rows) - problem.cost(seed[None, :])[0] - problem.cost(rows)


def _farthest_pair(problem: LocalProblem, part: np.ndarray) -> tuple[int, int, bool]:
    rows = problem.rows[part]
    if len(part) <= EXACT_PAIR_LIMIT:
        d = problem.pairwise_distance(rows)
        d[np.tri(len(part), dtype=bool)] = -np.inf  # pairs i < j only; argmax takes the first (smallest) pair
        i, j = np.unravel_index(int(np.argmax(d)), d.shape)
        return int(i), int(j), True
    a = int(np.argmax(_distances(problem, rows[0], rows)))
    b = int(np.argmax(_distances(problem, rows[a], rows)))
    if a == b:
        b = 0 if a != 0 else 1
    return a, b, False


def search(problem: LocalProblem, k: int) -> LocalResult:
    start = time.perf_counter()
    if problem.n < k:
        raise ValueError(f"{problem.n} records cannot form a group of k = {k}")
    weights = problem.counts
    final: list[np.ndarray] = []
    stack = [np.arange(len(problem.rows))]
    exact = approximate = undone = 0
    while stack:
        part = stack.pop()
        if weights[part].sum() < 2 * k or len(part) < 2:
            final.append(part)
            continue
        a, b, was_exact = _farthest_pair(problem, part)
        exact += was_exact
        approximate += not was_exact
        rows = problem.rows[part]
        d_a = _distances(problem, rows[a], rows)
        d_b = _distances(problem, rows[b], rows)
        to_a = d_a < d_b
        tie = d_a == d_b
        to_a[a], to_a[b], tie[a], tie[b] = True, False, False, False
        w = weights[part]
        size_a, size_b = int(w[to_a & ~tie].sum()), int(w[~to_a & ~tie].sum())
        for i in np.flatnonzero(tie):  # ties to the smaller half, in row order
            if size_a <= size_b:
                to_a[i], size_a = True, size_a + int(w[i])
            else:
                to_a[i], size_b = False, size_b + int(w[i])
        if size_a < k or size_b < k:
            undone += 1
            final.append(part)
            continue
        stack.append(part[~to_a])
        stack.append(part[to_a])
    members = [[(int(d), int(weights[d])) for d in part] for part in final]
    result = _materialize(problem, members, "partition", start)
    note = (f"{len(final)} clusters; farthest pairs: {exact} exact, {approximate} by two sweeps; "
            f"{undone} splits undone")
    return LocalResult(result.algorithm, result.released, result.cluster, result.guarantee,
                       time.perf_counter() - start, note)
