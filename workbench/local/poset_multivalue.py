"""Sets of codes as a poset of the local engine (Katirai 2006, §4.3.6; kind ``multivalue``): a cell holds a set
of codes (``"I21;I10"``), and each code is generalized through a ``FinitePoset``. The thesis leaves this LUB
undefined, so the one here is a documented reconstruction. States are int64 and every operation broadcasts; the
protocol is ``workbench.local.poset_base``'s, with ``label_covers`` read from the released text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import numpy as np

from workbench.errors import HierarchyError
from workbench.local.poset_base import ColumnCells, describe_by_labels, i64
from workbench.local.posets import FinitePoset


class MultiValuePoset:
    """Sets of codes in one cell, such as diagnoses (a reconstruction of Katirai's SparseMatrixPoset, §4.3.6).

    **Text format.** A cell is a list of codes joined by ``separator`` (default ``;``), such as
    ``"I21;I10;E11"``. Spaces around codes are stripped, empty pieces are ignored, and duplicates collapse,
    so an original cell is a *set*. The empty string is the empty set. Every code is a data value of
    ``code_poset``, a ``FinitePoset`` (tree or matrix) whose top is the suppression value. Released cells
    are *multisets* of code-poset nodes, written the same way (``"I2x;I2x;*"``), in node-id order.

    **LUB (reconstruction: the thesis leaves it undefined).** Let A be the smaller multiset (order by size,
    then by the sorted node ids, so the rule is commutative). Each code of A is matched to a distinct code
    of B by a minimum-cost assignment (``scipy.optimize.linear_sum_assignment``) over the code poset's
    integer heights of the pairwise least-cost LUBs. The result is the multiset of those LUBs, plus the top
    ``*`` once for every unmatched code of B. The result therefore has ``max(|A|, |B|)`` elements. A ``*``
    that comes from padding reads as "one unknown code, or none".

    **Order, cover.** A released multiset R covers a set S when there is an injection f from S into R with
    ``s <= f(s)`` in the code poset, and every element of R outside the image is the top. The LUB covers
    both operands in this sense. ``label_covers`` checks this from the text with a bipartite matching.
    ``leaf_count`` counts the data values (cells) that a state covers.

    **Cost**: the mean Vinterbo cost ``h / M`` of the elements, and 0 for the empty set. It is monotone:
    ``cost(lub(A, B)) >= max(cost(A), cost(B))``, because every matched LUB costs at least its two codes and
    every padded ``*`` costs 1. ``height`` is the mean element height (in [0, M]), ``max_height`` the code
    poset's M, so that ``height / max_height`` is the cost the engine minimizes and the measures read.

    **Idempotent and commutative.** The LUB is exact in both properties. Idempotence holds because the
    identity matching is the unique cheapest one up to swapping equal codes, since the code heights are
    strictly monotone. The LUB is *not* associative in general: set matching is not a lattice. So
    ``group_lub`` is a fold in a fixed order (largest multisets first, then by node ids). It is an upper
    bound of the whole group, but not necessarily the least-cost one, which is a multi-dimensional
    assignment problem.

    **States** are indices into a registry of canonical multisets (sorted tuples of node ids). The
    registry lives on the poset object and grows as LUBs create new multisets. The data values are
    registered first, in the order of ``values``.
    """

    kind = "multivalue"

    def __init__(self, values: Sequence[str], code_poset: FinitePoset, separator: str = ";") -> None:
        if not separator:
            raise HierarchyError("multivalue separator must not be empty")
        clash = [n for n in code_poset.names if separator in n]
        if clash:
            raise HierarchyError(f"multivalue code names must not contain the separator {separator!r}: "
                                 f"{', '.join(map(repr, clash[:5]))}")
        self.code_poset = code_poset
        self.separator = separator
        self.values = tuple(values)
        self._code_leaf = {v: int(leaf) for v, leaf in zip(code_poset.values, code_poset.leaves, strict=True)}
        self._name_ids: dict[str, list[int]] = {}
        for node, name in enumerate(code_poset.names):
            self._name_ids.setdefault(name, []).append(node)
        self.top = int(np.flatnonzero([not p for p in code_poset.parents])[0])
        self._heights = code_poset.heights.astype(np.int64)
        self._M = code_poset.max_height
        self._code_lub: dict[tuple[int, int], int] = {}
        self._sets: list[tuple[int, ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self._costs: list[float] = []
        self._cost_array = np.zeros(0)
        self._pair_lub: dict[tuple[int, int], int] = {}
        leaves = []
        for v in self.values:
            codes = self.parse(v)
            missing = [c for c in codes if c not in self._code_leaf]
            if missing:
                raise HierarchyError(f"multivalue code poset has no node for code(s) "
                                     f"{', '.join(map(repr, missing[:5]))} (in {v!r})")
            leaves.append(self._register(tuple(sorted({self._code_leaf[c] for c in codes}))))
        self.leaves = tuple(leaves)

    @classmethod
    def from_values(cls, values: Sequence[str], edges: Sequence[tuple[str, str]] | None = None,
                    code_poset: FinitePoset | None = None, separator: str = ";") -> MultiValuePoset:
        """From (child, parent) code edges (a matrix poset file's edges) or a ready ``code_poset`` whose
        ``values`` include every code in the data."""
        if (edges is None) == (code_poset is None):
            raise HierarchyError("a multivalue poset needs exactly one of edges or code_poset")
        if code_poset is None:
            codes = sorted({c for v in values for c in cls._split(v, separator)})
            code_poset = FinitePoset.from_edges(edges, codes)  # type: ignore[arg-type]
        return cls(values, code_poset, separator)

    # ------------------------------------------------------------------ text and registry
    @staticmethod
    def _split(text: str, separator: str) -> list[str]:
        return [c.strip() for c in str(text).split(separator) if c.strip()]

    def parse(self, text: str) -> list[str]:
        """The distinct codes of a cell, in order of appearance."""
        return list(dict.fromkeys(self._split(text, self.separator)))

    def _register(self, nodes: tuple[int, ...]) -> int:
        state = self._ids.get(nodes)
        if state is None:
            state = len(self._sets)
            self._ids[nodes] = state
            self._sets.append(nodes)
            total = int(self._heights[list(nodes)].sum()) if nodes else 0
            self._costs.append(total / (len(nodes) * self._M) if nodes and self._M else 0.0)
        return state

    def members(self, state: int) -> tuple[int, ...]:
        """The canonical multiset (sorted code-poset node ids) of a state."""
        return self._sets[int(state)]

    @property
    def size(self) -> int:
        return len(self._sets)

    # ------------------------------------------------------------------ LUB
    def code_lub(self, v: int, w: int) -> int:
        key = (v, w) if v <= w else (w, v)
        out = self._code_lub.get(key)
        if out is None:
            out = self._code_lub[key] = self.code_poset.group_lub(np.array(key))
        return out

    def _lub_sets(self, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        if (len(a), a) > (len(b), b):
            a, b = b, a
        if not a:
            return (self.top,) * len(b)
        pairs = [[self.code_lub(x, y) for y in b] for x in a]
        cost = self._heights[np.asarray(pairs)]
        from scipy.optimize import linear_sum_assignment  # on first use: scipy.optimize holds about 50 MB

        rows, cols = linear_sum_assignment(cost)
        out = [pairs[i][j] for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]
        out += [self.top] * (len(b) - len(a))
        return tuple(sorted(out))

    def _lub_state(self, a: int, b: int) -> int:
        key = (a, b) if a <= b else (b, a)
        out = self._pair_lub.get(key)
        if out is None:
            out = self._pair_lub[key] = self._register(self._lub_sets(self._sets[a], self._sets[b]))
        return out

    def lub(self, a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
        a, b = np.broadcast_arrays(i64(a), i64(b))
        if a.size == 0:
            return np.zeros(a.shape, dtype=np.int64)
        lo, hi = np.minimum(a, b).ravel(), np.maximum(a, b).ravel()
        pairs, inverse = np.unique(np.stack([lo, hi]), axis=1, return_inverse=True)
        found = np.array([self._lub_state(x, y) for x, y in zip(pairs[0].tolist(), pairs[1].tolist(),
                                                                 strict=True)], dtype=np.int64)
        return found[inverse.reshape(-1)].reshape(a.shape)

    def group_lub(self, states: np.ndarray) -> int:
        """A fold of ``lub`` over the distinct states, largest multisets first (then by node ids). It is an
        upper bound of the group; this LUB is not associative, so it is not guaranteed least-cost."""
        order = sorted({int(s) for s in np.ravel(states)}, key=lambda s: (-len(self._sets[s]), self._sets[s]))
        return reduce(self._lub_state, order[1:], order[0])

    # ------------------------------------------------------------------ measures and labels
    def cost(self, states: np.ndarray | int) -> np.ndarray:
        if len(self._cost_array) != len(self._costs):
            self._cost_array = np.asarray(self._costs, dtype=float)
        return self._cost_array[i64(states)]

    def height(self, states: np.ndarray | int) -> np.ndarray:
        """The mean height of the elements (0 for the empty set), so ``height / max_height`` is the cost."""
        s = i64(states)
        out = np.empty(s.size, dtype=float)
        for i, state in enumerate(s.ravel().tolist()):
            nodes = self._sets[state]
            out[i] = float(self._heights[list(nodes)].mean()) if nodes else 0.0
        return out.reshape(s.shape)

    @property
    def max_height(self) -> int:
        return self._M

    def label(self, states: np.ndarray | int) -> np.ndarray:
        s = i64(states)
        names = self.code_poset.names
        out = np.empty(s.size, dtype=object)
        for i, state in enumerate(s.ravel().tolist()):
            out[i] = self.separator.join(names[n] for n in self._sets[state])
        return out.reshape(s.shape)

    def _covers(self, released: Sequence[list[int]], original: Sequence[int]) -> bool:
        """Is there an injection of the original codes (leaf ids) into the released elements (each a list
        of candidate node ids: several nodes may share a name) with every unused element the top?"""
        if len(released) < len(original):
            return False
        anc = self.code_poset.ancestors
        top_name = self.code_poset.names[self.top]
        proper = [ids for ids in released if not any(self.code_poset.names[n] == top_name for n in ids)]
        if len(proper) > len(original):
            return False
        if not proper:
            return True
        fits = np.array([[any(anc[leaf, n] for n in ids) for leaf in original] for ids in proper], dtype=bool)
        from scipy.sparse import csr_matrix  # on first use, as scipy.optimize above
        from scipy.sparse.csgraph import maximum_bipartite_matching

        matched = maximum_bipartite_matching(csr_matrix(fits), perm_type="column")  # per element: its original
        return bool((matched >= 0).all())

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label (codes joined by the separator) cover the original cell beside it?"""
        out = np.zeros(len(labels), dtype=bool)
        known: dict[tuple[str, str], bool] = {}  # each distinct (label, value) pair is matched once
        for i, (label, value) in enumerate(zip(labels, values, strict=True)):
            pair = (str(label), str(value))  # as parsed: cells are read as text
            if pair not in known:
                known[pair] = self._label_covers(*pair)
            out[i] = known[pair]
        return out

    def _label_covers(self, label: str, value: str) -> bool:
        codes = self.parse(value)
        if any(c not in self._code_leaf for c in codes):
            return False
        names = self._split(label, self.separator)
        if any(n not in self._name_ids for n in names):
            return False
        return self._covers([self._name_ids[n] for n in names], [self._code_leaf[c] for c in codes])

    def describe(self, states: np.ndarray) -> ColumnCells:
        return describe_by_labels(self, states)

    def leaf_count(self, states: np.ndarray) -> np.ndarray:
        """How many of the poset's data values (cells) each state covers."""
        leaf_sets = [self._sets[s] for s in self.leaves]
        out = np.empty(np.size(states), dtype=np.int64)
        for i, state in enumerate(np.ravel(states).tolist()):
            released = [[n] for n in self._sets[state]]
            out[i] = sum(self._covers(released, list(original)) for original in leaf_sets)
        return out
