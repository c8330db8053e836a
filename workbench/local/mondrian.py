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

With class-level privacy models (ℓ-diversity, t-closeness, β-likeness, δ-disclosure privacy, (α, k)-anonymity,
k-map estimated from a population size: ``PrivacyModel.partition_checkable``) a cut is
allowable only when every side also satisfies each of them (LeFevre et al. §3: any rule that, like k-anonymity,
is judged on a partition's own records), asked of the models' own ``violating`` on a ``ClassView`` of the sides.
The whole table must satisfy them to begin with (one partition of every record); ``search`` refuses it otherwise
(``workbench.policy.local_refusal`` says so before a run). The two median thresholds are then the only numeric
cuts tried: with a model, a side of k records or more may still break it, so "no allowable median cut" no longer
implies "no allowable threshold", and the partitioning is minimal among the cuts tried. No record is suppressed.

Every record of a final partition is released as the partition's LUB in each column (the range of its values,
or the least common ancestor), so every released row is shared by a whole partition of k or more records.
Identical rows always fall on the same side, so the work is on distinct rows with their counts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from workbench.grouping import distinct_rows
from workbench.local.greedy import _materialize
from workbench.local.lub import LocalProblem, LocalResult
from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset
from workbench.privacy.base import ClassView, Extra, PrivacyModel


class _Rule:
    """When a group of distinct rows may be a partition: at least k records, and no configured class-level privacy
    model violated (the models' own ``violating``, on a ``ClassView`` of the groups). The sensitive values are
    kept per distinct row as (row, values, records) triples, sorted by row, so a group's histogram is gathered
    from its rows alone."""

    def __init__(self, problem: LocalProblem, k: int, models: Sequence[PrivacyModel]) -> None:
        unfit = [m.describe() for m in models if not m.partition_checkable]
        if unfit:
            raise ValueError(f"mondrian cannot enforce {'; '.join(unfit)}")
        self.k, self.counts, self.models = k, problem.counts, tuple(models)
        seen: dict[str, Extra] = {}
        for m in self.models:
            for e in m.extras:
                seen.setdefault(e.name, e)
        self.extras = tuple(seen.values())
        if not self.models:
            return
        codes = np.stack([problem.row_of, *[e.codes for e in self.extras]], axis=1)
        triples, records = distinct_rows(codes, [len(problem.rows), *[e.cardinality for e in self.extras]])
        self.values, self.records = triples[:, 1:], records  # lexicographic: sorted by distinct row
        self.starts = np.searchsorted(triples[:, 0], np.arange(len(problem.rows) + 1))

    def allows(self, groups: Sequence[np.ndarray], models: Sequence[PrivacyModel] | None = None) -> bool:
        """May each of ``groups`` (arrays of distinct-row indices) be a partition (under ``models``, default: every
        model of the rule)?"""
        models = self.models if models is None else models
        if any(int(self.counts[g].sum()) < self.k for g in groups):
            return False
        if not models:
            return True
        rows = np.concatenate(groups)
        lengths = self.starts[rows + 1] - self.starts[rows]
        ends = np.cumsum(lengths)
        triple = np.repeat(self.starts[rows] - (ends - lengths), lengths) + np.arange(int(ends[-1]))
        side = np.repeat(np.repeat(np.arange(len(groups)), [len(g) for g in groups]), lengths)
        extras = [replace(e, codes=self.values[triple, j]) for j, e in enumerate(self.extras)]
        view = ClassView.from_records(side, len(groups), extras, weights=self.records[triple])
        return not any(bool(m.violating(view).any()) for m in models)


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

    def cut(self, part: np.ndarray, counts: np.ndarray, rule: _Rule) -> list[np.ndarray] | None:
        idx, w = self.index[part], counts[part]
        order = np.argsort(idx, kind="stable")
        cumulative = np.cumsum(w[order])
        total = int(cumulative[-1])
        median = idx[order][int(np.searchsorted(cumulative, (total + 1) // 2))]  # the lower median record's value
        for left in (idx <= median, idx < median):
            halves = [part[left], part[~left]]
            if rule.allows(halves):
                return halves
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

    def cut(self, part: np.ndarray, counts: np.ndarray, rule: _Rule) -> list[np.ndarray] | None:
        children = self.children[self.region(part)]
        if not children:
            return None
        under = self.poset.ancestors[self.leaf[part]][:, children]  # rows × children: under that child
        child = np.argmax(under, axis=1)
        groups = [part[child == c] for c in range(len(children))]
        groups = [g for g in groups if g.size]
        if len(groups) < 2 or not rule.allows(groups):
            return None
        return groups


class _Uncut:
    """A column Mondrian never cuts (a poset that is neither a range nor a tree): released as each partition's
    LUB."""

    def width(self, part: np.ndarray) -> float:
        return 0.0

    def cut(self, part: np.ndarray, counts: np.ndarray, rule: _Rule) -> list[np.ndarray] | None:
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


def partitions(problem: LocalProblem, k: int, models: Sequence[PrivacyModel] = ()) -> list[np.ndarray]:
    """Mondrian's final partitions, each an array of distinct-row indices of ``problem``: every one of k records
    or more and satisfying each class-level privacy model of ``models`` (ValueError when the whole table does not,
    or a model is not ``partition_checkable``)."""
    if problem.n < k:
        raise ValueError(f"{problem.n} records cannot form a group of k = {k}")
    rule = _Rule(problem, k, models)
    everything = np.arange(len(problem.rows))
    if not rule.allows([everything]):
        broken = [m.describe() for m in rule.models if not rule.allows([everything], (m,))]
        raise ValueError(f"the whole table breaks {'; '.join(broken)}: no partition of it can satisfy "
                         f"{'it' if len(broken) == 1 else 'them'}")
    dims = [_dimension(c.poset, problem.rows[:, j]) for j, c in enumerate(problem.columns)]  # weights: unused
    counts = problem.counts
    final: list[np.ndarray] = []
    stack = [everything]
    while stack:
        part = stack.pop()
        halves = None
        if int(counts[part].sum()) >= 2 * k and part.size > 1:
            widths = [d.width(part) for d in dims]
            for j in sorted(range(len(dims)), key=lambda j: (-widths[j], j)):  # widest first, ties by order
                halves = dims[j].cut(part, counts, rule)
                if halves is not None:
                    break
        if halves is None:
            final.append(part)
        else:
            stack.extend(reversed(halves))
    return final


def search(problem: LocalProblem, k: int, models: Sequence[PrivacyModel] = ()) -> LocalResult:
    """Mondrian's release: every record of a final partition as the partition's LUB (k-anonymity, and every
    class-level privacy model of ``models`` on each partition)."""
    start = time.perf_counter()
    final = partitions(problem, k, models)
    members = [[(int(d), int(problem.counts[d])) for d in part] for part in final]
    result = _materialize(problem, members, "mondrian", start)
    uncut = [c.name for c in problem.columns if not _cuttable(c.poset)]
    note = f"{len(final)} partitions" + (f"; never cut (neither a range nor a tree): {', '.join(uncut)}"
                                         if uncut else "")
    return LocalResult("mondrian", result.released, result.cluster, result.guarantee,
                       time.perf_counter() - start, note)
