"""Katirai's Greedy as printed (Katirai 2006, Fig. 11), with the pseudo-code's defect fixed.

Every row seeds its own group: starting from the row, repeatedly add the row (not yet in the group: the
printed argmin only excluded the seed, so it would re-add a member forever) whose addition gives the
least-measure LUB, ties to the lowest index, until the group holds k rows; the row is released as its
group's LUB. Groups overlap, so the release is **k-ambiguous** (each released row generalizes at least k
original rows), not k-anonymous in the equivalence-class sense (Katirai §1.8; digest pitfall 1).

Identical rows share one group computation: a distinct row with c copies counts c rows, and copies of the
row itself are taken first (they cost nothing).
"""

from __future__ import annotations

import time

import numpy as np

from workbench.local.lub import LocalProblem, LocalResult


def search(problem: LocalProblem, k: int) -> LocalResult:
    start = time.perf_counter()
    if problem.n < k:
        raise ValueError(f"{problem.n} records cannot form a group of k = {k}")
    rows, counts = problem.rows, problem.counts
    released_rows = np.empty_like(rows)
    for seed in range(len(rows)):
        state, need = rows[seed].copy(), k - int(counts[seed])
        available = counts.copy()
        available[seed] = 0
        while need > 0:
            candidates = np.flatnonzero(available)
            best = int(candidates[np.argmin(problem.cost_of_lub(state, rows[candidates]))])
            need -= int(available[best])
            available[best] = 0
            state = problem.lub_rows(state, rows[best][None, :])[0]
        released_rows[seed] = state
    released = released_rows[problem.row_of]
    return LocalResult("greedy_overlapping", released, np.full(problem.n, -1, dtype=np.int64), "k-ambiguity",
                       time.perf_counter() - start)
