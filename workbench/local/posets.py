"""Value generalization posets for local recoding (Katirai 2006, Def. 1; the DSG toolkit's posets, §4.3).

A column of the local engine holds one *state* per record (an int64): the value the record is currently
generalized to. Every poset kind implements the same vectorized operations on states:

- ``lub(a, b)``: the least upper bound of two states, element-wise (Katirai Def. 3: the common
  ancestor-or-self of least measure; ties go to the lowest node id, deterministically);
- ``group_lub(states)``: the exact least-measure common ancestor of a whole group (Katirai §1.6: the fold
  can be order-dependent in a general poset; the exact group LUB is not);
- ``cost(states)``: the Vinterbo-1.0 cell measure ``h / M`` in [0, 1] (0 at a leaf, 1 at the top);
- ``label`` for releasing the result, and ``describe(states)``: the one way a poset tells the measures what a
  released column is (``ColumnCells``: per cell its code and height, in the poset's own units, so that
  ``height / max_height`` is exactly the ``cost`` the engine minimized; per released value its leaf count
  and the data values it covers, Katirai's augmented table).

``FinitePoset`` covers the ``tree`` (every ARX hierarchy) and ``matrix`` (a DAG given by edges) kinds
(Katirai's ``passthrough`` releases a column unchanged, so the config refuses it for a quasi-identifier):
the ancestor-or-self closure is precomputed (the toolkit's "LEQ precomputed for all
pairs", which "changed our run times from hours to minutes"), and so is the table of pairwise LUBs, so a LUB
is one lookup. ``RangePoset`` covers numeric intervals, whose LUB is ``[min, max]`` in closed form.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import numpy as np

from workbench.errors import HierarchyError
from workbench.hierarchy.tree import Hierarchy

ROOT = "*"


@dataclass(frozen=True, eq=False)
class ColumnCells:
    """A generalized column as a poset describes it to the measures (``describe``).

    ``codes[i]``: cell i's released value, numbered within the column (two cells share a code exactly when
    they were released as the same state). ``height[i]`` and ``max_height`` are in the poset's own units,
    ``height / max_height`` being the poset's ``cost`` (Vinterbo-1.0: Katirai's ``h_i / M_i``, with ``M_i``
    "the highest possible range in a RangePoset"). Per released code: ``leaf_count`` (data values under it),
    ``covers`` (code × the poset's ``values``: does it generalize that value; Katirai §1.9's augmented
    table) and ``share`` over ``share_domain`` (ARX's domain share of the value, where the poset knows one: a
    tree built from a hierarchy, or a range's width in the data's units; else None, and the view derives it
    from ``leaf_count``)."""

    codes: np.ndarray
    height: np.ndarray
    max_height: float
    leaf_count: np.ndarray
    covers: np.ndarray
    share: np.ndarray | None = None
    share_domain: float | None = None


def describe_by_labels(poset: object, states: np.ndarray) -> ColumnCells:
    """``describe`` for posets whose cover relation is read from the released text (power, date of birth,
    multivalue): codes are the distinct states, heights the poset's ``height``."""
    uniq, codes = np.unique(states, return_inverse=True)
    labels, values = poset.label(uniq), np.asarray(poset.values, dtype=object)
    covers = poset.label_covers(np.repeat(labels, len(values)), np.tile(values, len(uniq)))
    return ColumnCells(codes.reshape(-1), poset.height(states), poset.max_height, poset.leaf_count(uniq),
                       covers.reshape(len(uniq), len(values)))


@dataclass(frozen=True, eq=False)
class FinitePoset:
    """A finite VG-poset: ``names[v]`` of node v, ``parents`` edges (child -> more general), one top.

    Leaves are the original values (``leaves``: their node ids in order of the values given). Heights are
    longest paths from a leaf (Katirai §2.3: this keeps the measure strictly monotone on multi-parent posets).
    """

    kind: str
    names: tuple[str, ...]
    parents: tuple[tuple[int, ...], ...]
    leaves: tuple[int, ...]
    values: tuple[str, ...]
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    shares: tuple[int, ...] | None = None  # tree kind: ARX's domain share of each node, over ``share_domain``
    share_domain: int | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_tree(cls, hierarchy: Hierarchy, values: Sequence[str]) -> FinitePoset:
        """A tree poset from an ARX hierarchy, restricted to the given data values (its ``tree`` kind)."""
        rows = {r[0]: r for r in hierarchy.rows}
        names: list[str] = []
        index: dict[tuple[int, str], int] = {}
        parents: list[set[int]] = []

        def node(level: int, label: str) -> int:
            key = (level, label)
            if key not in index:
                index[key] = len(names)
                names.append(label)
                parents.append(set())
            return index[key]

        leaves = []
        for v in values:
            path = rows[v]
            ids = [node(level, label) for level, label in enumerate(path)]
            leaves.append(ids[0])
            for child, parent in zip(ids, ids[1:], strict=False):
                parents[child].add(parent)
        roots = [v for v in range(len(names)) if not parents[v]]
        if len(roots) > 1:  # several roots (e.g. a height-0 hierarchy): suppression is still possible locally
            top = node(hierarchy.height + 1, ROOT)
            for r in roots:
                parents[r].add(top)
        # ARX's domain shares (Hierarchy.domain_shares: the hierarchy's rows, or a builder's interval widths)
        labels = [[label for (lv, label) in index if lv == level] for level in range(hierarchy.height + 1)]
        numerators, domain = hierarchy.domain_shares(labels)
        shares = [domain] * len(names)  # the added top, if any, is the whole domain
        for level, (labs, nums) in enumerate(zip(labels, numerators, strict=True)):
            for label, num in zip(labs, nums, strict=True):
                shares[index[(level, label)]] = int(num)
        return cls._finish("tree", names, parents, leaves, values, (tuple(shares), domain))

    @classmethod
    def from_edges(cls, edges: Sequence[tuple[str, str]], values: Sequence[str], kind: str = "matrix") -> FinitePoset:
        """A DAG poset from (child, parent) edges; a single top is required (Katirai: the root ``*`` stands for
        suppression). Values are leaves that must appear in the graph."""
        names: list[str] = []
        index: dict[str, int] = {}
        parents: list[set[int]] = []
        for child, parent in edges:
            for name in (child, parent):
                if name not in index:
                    index[name] = len(names)
                    names.append(name)
                    parents.append(set())
            if child != parent:
                parents[index[child]].add(index[parent])
        missing = [v for v in values if v not in index]
        if missing:
            raise HierarchyError(f"poset has no node for {len(missing)} data value(s): "
                                 f"{', '.join(map(repr, missing[:5]))}")
        return cls._finish(kind, names, parents, [index[v] for v in values], values)

    @classmethod
    def _finish(cls, kind: str, names: list[str], parents: list[set[int]], leaves: list[int],
                values: Sequence[str], shares: tuple[tuple[int, ...], int] | None = None) -> FinitePoset:
        poset = cls(kind, tuple(names), tuple(tuple(sorted(p)) for p in parents), tuple(leaves), tuple(values),
                    shares=shares[0] if shares else None, share_domain=shares[1] if shares else None)
        tops = [v for v in range(len(names)) if not poset.parents[v]]
        if len(tops) != 1:
            raise HierarchyError(f"a poset needs exactly one top (the suppression value); this one has "
                                 f"{len(tops)}: {', '.join(repr(names[t]) for t in tops[:5])}")
        poset.ancestors  # noqa: B018 - validates acyclicity now
        return poset

    # ------------------------------------------------------------------ structure
    @property
    def size(self) -> int:
        return len(self.names)

    @cached_property
    def ancestors(self) -> np.ndarray:
        """``anc[v, a]``: a is an ancestor-or-self of v (transitive closure of the edges)."""
        n = self.size
        anc = np.eye(n, dtype=bool)
        order = self._topological()
        for v in reversed(order):  # parents before children
            for p in self.parents[v]:
                anc[v] |= anc[p]
        return anc

    def _topological(self) -> list[int]:
        """Nodes with every child before its parents; raises on a cycle."""
        try:  # each node after its parents (its predecessors here), then reversed
            parents_first = list(TopologicalSorter({v: self.parents[v] for v in range(self.size)}).static_order())
        except CycleError as exc:
            raise HierarchyError(f"poset has a cycle through {self.names[exc.args[1][0]]!r}") from None
        return parents_first[::-1]  # children first

    @cached_property
    def heights(self) -> np.ndarray:
        """Longest path from a leaf below (0 at leaves)."""
        h = np.zeros(self.size, dtype=np.int64)
        for v in self._topological():
            for p in self.parents[v]:
                h[p] = max(h[p], h[v] + 1)
        return h

    @property
    def max_height(self) -> int:
        return int(self.heights.max()) if self.size else 0

    @cached_property
    def leaf_array(self) -> np.ndarray:
        return np.asarray(self.leaves, dtype=np.int64)

    @cached_property
    def covers(self) -> np.ndarray:
        """``covers[v, i]``: node v generalizes data value i (the leaf set of every node)."""
        return self.ancestors[self.leaf_array].T.copy()

    @cached_property
    def leaf_count(self) -> np.ndarray:
        """Distinct data values under each node."""
        return self.covers.sum(axis=1)

    @cached_property
    def cost_table(self) -> np.ndarray:
        """Vinterbo-1.0 cell measure of every node: h / M (0 when the poset is a single level)."""
        if self.max_height == 0:
            return np.zeros(self.size)
        return self.heights / self.max_height

    def cost(self, states: np.ndarray) -> np.ndarray:
        """Vinterbo-1.0 cell measure of each state (``cost_table`` looked up)."""
        return self.cost_table[np.asarray(states, dtype=np.int64)]

    def lub_table(self, cost: np.ndarray | None = None) -> np.ndarray:
        """``table[v, w]``: the least-cost common ancestor-or-self of v and w (ties: lowest node id), and
        ``table[v, v] = v``.

        Nodes are visited by (cost, id); each claims the still-unassigned pairs of its down-set, so every
        pair gets the first, i.e. least-cost, node above both. Work is Σ_a |down(a)|², about size² × height
        for a tree, instead of size³.

        The LUB of a value with itself is the value (order-theoretic idempotence, as in every closed-form
        poset of the toolkit: Katirai's DateOfBirth LUB of equal dates is the date). Under a monotone cost
        this is what Def. 3 gives anyway; under Value-MI, which is not monotone, Def. 3 read literally could
        pick a cheaper proper ancestor and generalize identical records, which need no generalization."""
        cost = self.cost_table if cost is None else cost
        below = self.ancestors.T  # below[a, v]: v lies under a (or is a)
        table = np.full((self.size, self.size), -1, dtype=np.int32)
        for a in np.lexsort((np.arange(self.size), cost)):  # by cost, then id
            down = np.flatnonzero(below[a])
            block = table[np.ix_(down, down)]
            if (block >= 0).all():
                continue
            block[block < 0] = a
            table[np.ix_(down, down)] = block
        np.fill_diagonal(table, np.arange(self.size))
        return table

    def group_lub(self, nodes: np.ndarray, cost: np.ndarray | None = None) -> int:
        """The exact least-cost common ancestor-or-self of all given nodes (Katirai §1.6, exact mode); a
        group of one value (however many copies) is that value, as in ``lub_table``."""
        cost = self.cost_table if cost is None else cost
        distinct = np.unique(nodes)
        if distinct.size == 1:
            return int(distinct[0])
        common = self.ancestors[distinct].all(axis=0)
        candidates = np.flatnonzero(common)
        return int(candidates[np.lexsort((candidates, cost[candidates]))[0]])

    def group_lubs(self, nodes: np.ndarray, starts: np.ndarray, cost: np.ndarray | None = None,
                   max_cells: int = 4_000_000) -> np.ndarray:
        """``group_lub`` of every group ``nodes[starts[g]:starts[g + 1]]`` at once: the groups' common
        ancestors by one logical-and reduction, then the first in (cost, id) order; a group of one value is
        that value. Chunked so that no step holds more than about ``max_cells`` booleans."""
        cost = self.cost_table if cost is None else cost
        order = np.lexsort((np.arange(self.size), cost))
        ancestors = self.ancestors[:, order]  # columns in (cost, id) order: the first common one wins
        nodes, starts = np.asarray(nodes), np.asarray(starts)
        out = np.empty(len(starts), dtype=np.int64)
        step = max(1, int(max_cells * len(starts) // max(1, len(nodes) * self.size)))
        for g0 in range(0, len(starts), step):
            g1 = min(len(starts), g0 + step)
            lo, hi = starts[g0], starts[g1] if g1 < len(starts) else len(nodes)
            common = np.logical_and.reduceat(ancestors[nodes[lo:hi]], starts[g0:g1] - lo, axis=0)
            out[g0:g1] = order[common.argmax(axis=1)]
        if nodes.size:  # groups of a single value keep it
            same = np.minimum.reduceat(nodes, starts) == np.maximum.reduceat(nodes, starts)
            out[same] = nodes[starts[same]]
        return out

    def label(self, nodes: np.ndarray) -> np.ndarray:
        return np.asarray(self.names, dtype=object)[nodes]

    def describe(self, states: np.ndarray) -> ColumnCells:
        """Codes are node ids; heights the longest-path heights (``cost_table = heights / max_height``)."""
        states = np.asarray(states, dtype=np.int64)
        share = np.asarray(self.shares, dtype=np.int64) if self.shares is not None else None
        return ColumnCells(states, self.heights[states], self.max_height, self.leaf_count, self.covers, share,
                           self.share_domain)

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label generalize the original value beside it? (read from the text alone)"""
        value_index = {v: i for i, v in enumerate(self.values)}
        ids: dict[str, list[int]] = {}
        for node, name in enumerate(self.names):
            ids.setdefault(name, []).append(node)
        return np.array([any(self.covers[n, value_index[v]] for n in ids.get(lab, ())) if v in value_index
                         else False for lab, v in zip(labels, values, strict=True)], dtype=bool)


@dataclass(frozen=True, eq=False)
class RangePoset:
    """Numeric intervals (Katirai's RangePoset): LUB([a,b],[c,d]) = [min(a,c), max(b,d)].

    A state packs the indices of the interval's ends among the sorted distinct data values. Heights are in
    the data's units: an interval's height is its width ``hi − lo``, capped at ``max_diff`` when given (the
    width at which a value counts as fully general, the toolkit's MaxDiff), and ``max_height`` is
    ``max_diff``, else the data's span ``max − min`` (Katirai §2.3: M is "the highest possible range in a
    RangePoset"). The cell measure is ``height / max_height``: ``min(1, (hi − lo) / max_diff)`` or
    ``(hi − lo) / (max − min)``. Every measure of the release reads these same heights (``describe``).
    """

    points: np.ndarray  # sorted distinct numeric values
    values: tuple[str, ...]  # the data values (text) in the order of ``leaves``
    leaves: tuple[int, ...]  # state of each data value
    max_diff: float | None = None
    kind: str = "range"

    @classmethod
    def from_values(cls, values: Sequence[str], max_diff: float | None = None) -> RangePoset:
        try:
            numbers = np.array([float(v) for v in values])
        except ValueError:
            bad = [v for v in values if not _is_number(v)]
            raise HierarchyError(f"a range poset needs numbers; not numeric: "
                                 f"{', '.join(map(repr, bad[:5]))}") from None
        if max_diff is not None and max_diff <= 0:
            raise HierarchyError(f"range poset max_diff must be positive, got {max_diff}")
        points = np.unique(numbers)
        idx = np.searchsorted(points, numbers)
        m = len(points)
        return cls(points, tuple(values), tuple(int(i * m + i) for i in idx), max_diff)

    @property
    def m(self) -> int:
        return len(self.points)

    def ends(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.divmod(np.asarray(states, dtype=np.int64), self.m)

    def pack(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        return lo * self.m + hi

    def lub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        alo, ahi = self.ends(a)
        blo, bhi = self.ends(b)
        return self.pack(np.minimum(alo, blo), np.maximum(ahi, bhi))

    def group_lub(self, states: np.ndarray) -> int:
        lo, hi = self.ends(states)
        return int(self.pack(lo.min(), hi.max()))

    def group_lubs(self, states: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """``group_lub`` of every group ``states[starts[g]:starts[g + 1]]`` at once."""
        lo, hi = self.ends(states)
        return self.pack(np.minimum.reduceat(lo, starts), np.maximum.reduceat(hi, starts))

    def cost(self, states: np.ndarray) -> np.ndarray:
        """``height / max_height`` (0 when every data value is the same number)."""
        height, top = self.height(states), self.max_height
        return height / top if top > 0 else np.zeros(np.shape(height))

    @cached_property
    def point_texts(self) -> np.ndarray:
        """Each point as the data wrote it when all its values share one text (ZIP 02139 stays 02139), else as
        a number (1.5 and 1.50 both become 1.5)."""
        texts: dict[int, set[str]] = {}
        for value, state in zip(self.values, self.leaves, strict=True):
            texts.setdefault(state // self.m, set()).add(value.strip())
        return np.array([next(iter(texts[i])) if len(texts.get(i, ())) == 1 else _number_text(x)
                         for i, x in enumerate(self.points)], dtype=object)

    def label(self, states: np.ndarray) -> np.ndarray:
        lo, hi = self.ends(states)
        lo_t, hi_t = self.point_texts[lo], self.point_texts[hi]
        return np.where(lo == hi, lo_t, "[" + lo_t + ", " + hi_t + "]")

    def height(self, states: np.ndarray) -> np.ndarray:
        """Width of each interval in the data's units, capped at ``max_diff`` when given."""
        lo, hi = self.ends(states)
        width = self.points[hi] - self.points[lo]
        return np.minimum(width, self.max_diff) if self.max_diff is not None else width

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released interval label ("[a, b]" or "a") contain the original value beside it?"""
        out = np.zeros(len(labels), dtype=bool)
        for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
            text = str(lab).strip()
            try:
                lo, hi = ((float(x) for x in text[1:-1].split(",")) if text.startswith("[")
                          else (float(text), float(text)))
                out[i] = lo <= float(v) <= hi
            except ValueError:
                out[i] = False
        return out

    @property
    def max_height(self) -> float:
        """``max_diff`` when given, else the span of the data (``max − min``)."""
        if self.max_diff is not None:
            return float(self.max_diff)
        return float(self.points[-1] - self.points[0]) if self.m else 0.0

    def describe(self, states: np.ndarray) -> ColumnCells:
        """Codes are the distinct intervals released; height is the (capped) width. The domain share is
        ``(width + 1) / (top + 1)`` with ``top`` = ``max_diff`` or the data's span, so ARX's normalized loss
        ``(share − 1/D) / (1 − 1/D)`` of a cell is Iyengar's numeric ``(U_b − L_b) / (U − L)``, its cost."""
        uniq, codes = np.unique(states, return_inverse=True)
        lo, hi = self.ends(uniq)
        value_point = np.asarray(self.leaves, dtype=np.int64) // self.m
        covers = (lo[:, None] <= value_point[None, :]) & (value_point[None, :] <= hi[:, None])
        top = float(self.max_height)
        return ColumnCells(codes.reshape(-1), self.height(states), self.max_height, hi - lo + 1, covers,
                           self.height(uniq) + 1.0, top + 1.0)


def _is_number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def _number_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def read_poset_file(path: str | Path) -> list[tuple[str, str]]:
    """A DAG poset file (TOML or JSON): ``edges = [["child", "parent"], ...]`` and/or
    ``parents = {child = ["parent", ...]}``. Returns the (child, parent) edges."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HierarchyError(f"cannot read poset file {p}: {exc}") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HierarchyError(f"poset file {p} is not valid {p.suffix.lstrip('.').upper() or 'TOML'}: {exc}") from None
    edges = [tuple(e) for e in data.get("edges", [])]
    for child, parents in data.get("parents", {}).items():
        edges.extend((child, parent) for parent in ([parents] if isinstance(parents, str) else parents))
    if not edges or any(len(e) != 2 or not all(isinstance(x, str) for x in e) for e in edges):
        raise HierarchyError(f"poset file {p} needs 'edges' (pairs of [child, parent] names) or 'parents'")
    return [(str(c), str(q)) for c, q in edges]
