"""Mondrian, strict multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006, "Mondrian
Multidimensional K-Anonymity", ICDE; Fig. 4's greedy algorithm).

A partition is cut in the attribute of widest normalized range among those with an *allowable* cut (both
sides keep at least k records); when no attribute has one the partition is final. LeFevre's partitioning is
then *minimal*: no final partition can be cut further (§4). The cuts:

- a numeric attribute (a ``range`` poset) at the median: records with a value ≤ the median against those
  above it (strict: the two sides share no value), or, when that leaves a side below k, values < the median
  against the rest; if neither is allowable no threshold is (both sides of any allowable threshold hold k
  records, and so does one of these two). Its normalized range is the partition's span over the column's;
- a categorical attribute (a ``tree`` poset) along its hierarchy, one level at a time: the partition's region
  is the lowest node above all its values (their least common ancestor), and the cut gives each child of that
  node its records; allowable when every non-empty child holds k records. Its normalized range is the
  region's leaf count over the root's.

A column of any other poset (a DAG with several parents, power, date of birth, multivalue) is never cut: each
partition releases its LUB there, as Greedy and Partition would.

Every record of a final partition is released as the partition's LUB in each column (the range of its values,
or the least common ancestor), so every released row is shared by a whole partition of k or more records.
Identical rows always fall on the same side, so the work is on distinct rows with their counts.
"""

from __future__ import annotations

import time

import numpy as np

from workbench.local.greedy import _materialize
from workbench.local.lub import LocalProblem, LocalResult
from workbench.local.posets import FinitePoset, RangePoset


class _Numeric:
    """A range poset's column: each distinct row's point index."""

    def __init__(self, poset: RangePoset, states: np.ndarray) -> None:
        self.points = poset.points
        self.index = np.asarray(states, dtype=np.int64) // poset.m  # leaves are [i, i]
        span = float(self.points[-1] - self.points[0]) if poset.m else 0.0
        self.span = span

    def width(self, part: np.ndarray) -> float:
        if self.span <= 0:
            return 0.0
        idx = self.index[part]
        return float(self.points[idx.max()] - self.points[idx.min()]) / self.span

    def cut(self, part: np.ndarray, counts: np.ndarray, k: int) -> list[np.ndarray] | None:
        idx, w = self.index[part], counts[part]
        order = np.argsort(idx, kind="stable")
        cumulative = np.cumsum(w[order])
        total = int(cumulative[-1])
        median = idx[order][int(np.searchsorted(cumulative, (total + 1) // 2))]  # the lower median record's value
        for left in (idx <= median, idx < median):
            size = int(w[left].sum())
            if size >= k and total - size >= k:
                return [part[left], part[~left]]
        return None


class _Categorical:
    """A tree poset's column: each distinct row's leaf, and the tree's children."""

    def __init__(self, poset: FinitePoset, states: np.ndarray) -> None:
        self.poset = poset
        self.leaf = np.asarray(states, dtype=np.int64)
        self.children: list[list[int]] = [[] for _ in range(poset.size)]
        for v, parents in enumerate(poset.parents):
            for p in parents:
                self.children[p].append(v)
        top = int(np.flatnonzero([not p for p in poset.parents])[0])
        self.total = float(poset.leaf_count[top])

    def region(self, part: np.ndarray) -> int:
        """The lowest node above every value of the partition (their least common ancestor)."""
        return self.poset.group_lub(self.leaf[part])

    def width(self, part: np.ndarray) -> float:
        return float(self.poset.leaf_count[self.region(part)]) / self.total if self.total else 0.0

    def cut(self, part: np.ndarray, counts: np.ndarray, k: int) -> list[np.ndarray] | None:
        children = self.children[self.region(part)]
        if not children:
            return None
        under = self.poset.ancestors[self.leaf[part]][:, children]  # rows × children: under that child
        child = np.argmax(under, axis=1)
        groups = [part[child == c] for c in range(len(children))]
        groups = [g for g in groups if g.size]
        if len(groups) < 2 or any(int(counts[g].sum()) < k for g in groups):
            return None
        return groups


class _Uncut:
    """A column Mondrian never cuts (a poset that is neither a range nor a tree): released as each partition's
    LUB."""

    def width(self, part: np.ndarray) -> float:
        return 0.0

    def cut(self, part: np.ndarray, counts: np.ndarray, k: int) -> list[np.ndarray] | None:
        return None


def _cuttable(poset: object) -> bool:
    return isinstance(poset, RangePoset) or (isinstance(poset, FinitePoset)
                                             and all(len(p) <= 1 for p in poset.parents))


def _dimension(poset: object, states: np.ndarray) -> _Numeric | _Categorical | _Uncut:
    if isinstance(poset, RangePoset):
        return _Numeric(poset, states)
    if isinstance(poset, FinitePoset) and _cuttable(poset):
        return _Categorical(poset, states)
    return _Uncut()


def partitions(problem: LocalProblem, k: int) -> list[np.ndarray]:
    """Mondrian's final partitions, each an array of distinct-row indices of ``problem``."""
    if problem.n < k:
        raise ValueError(f"{problem.n} records cannot form a group of k = {k}")
    dims = [_dimension(c.poset, problem.rows[:, j]) for j, c in enumerate(problem.columns)]  # weights: unused
    counts = problem.counts
    final: list[np.ndarray] = []
    stack = [np.arange(len(problem.rows))]
    while stack:
        part = stack.pop()
        halves = None
        if int(counts[part].sum()) >= 2 * k and part.size > 1:
            widths = [d.width(part) for d in dims]
            for j in sorted(range(len(dims)), key=lambda j: (-widths[j], j)):  # widest first, ties by order
                halves = dims[j].cut(part, counts, k)
                if halves is not None:
                    break
        if halves is None:
            final.append(part)
        else:
            stack.extend(reversed(halves))
    return final


def search(problem: LocalProblem, k: int) -> LocalResult:
    """Mondrian's release: every record of a final partition as the partition's LUB (k-anonymity)."""
    start = time.perf_counter()
    final = partitions(problem, k)
    members = [[(int(d), int(problem.counts[d])) for d in part] for part in final]
    result = _materialize(problem, members, "mondrian", start)
    uncut = [c.name for c in problem.columns if not _cuttable(c.poset)]
    note = f"{len(final)} partitions" + (f"; never cut (neither a range nor a tree): {', '.join(uncut)}"
                                         if uncut else "")
    return LocalResult("mondrian", result.released, result.cluster, result.guarantee,
                       time.perf_counter() - start, note)
