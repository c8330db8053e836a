"""Flash (Kohlmayer, Prasser et al., PASSAT 2012), with antichain stores for the predictive properties
(Kohlmayer, Prasser et al., 2016), as in ARX's ``FLASHAlgorithmImpl``.

Nodes are ordered by (rank, mean relative level x_j/H_j, 1 − mean share of distinct values kept, node). The
outer loop takes the ranks bottom-up and, in that order, every node whose k-anonymity is still unknown, and
runs the binary phase from it: a greedy path upward (always to the first direct generalization, in that
order, whose status is unknown), a binary search on the path for its lowest k-anonymous node (probing with
``space.status``, which tags: k-anonymous up, not k-anonymous down), and the direct generalizations of every
non-k-anonymous probe go to a priority queue that is processed the same way.

Every node a check finds k-anonymous is scored at once, from the frequency set the check has just built, so the
result needs no frequency set again. With a monotone objective the best k-minimal node is the global optimum.
With an objective that is not monotone (ARX's loss or DM with suppression), ARX's linear phase follows each
binary phase: a depth-first walk up from every k-anonymous node checked, scoring every k-anonymous node it meets,
skipping the generalizations of a node whose monotone lower bound exceeds the best value so far (ARX's
"insufficient utility"). Every k-anonymous node lies above a checked k-minimal node, so every one is either
scored or above a node whose bound exceeds the optimum: the result is the optimum for any objective with a
monotone lower bound (``Objective.lower_bound``), as branch-and-bound proves its own.

With ``Limits.prune`` and a bound that reads the levels alone (``Objective.cheap_bound``), the binary phase also
skips nodes whose bound exceeds the best value found (ARX's ``prune``/``skip``): no binary phase starts at one
(the outer loop and the queue pass over them and their generalizations). A path still runs through them, and its
binary search checks them as any other node (ARX skips them there): a node outside the bound that is not
k-anonymous decides every node below it at once, which checks inside the bound alone would need many checks for
(skipping them on paths doubles the checks on Adult, in the binary search it doubles them on Adult with k = 100).
Fewer checks, the same optimum; the k-minimal set is then not complete and is not reported.
"""

from __future__ import annotations

import heapq
from operator import getitem

import numpy as np

from workbench.lattice.antichain import minimal_nodes
from workbench.lattice.search.result import (
    NO_LIMITS,
    KMinimalRun,
    Limits,
    Objective,
    Outcome,
    SearchResult,
    same_value,
    search_k_minimal,
)
from workbench.lattice.space import Node, nodes_between
from workbench.lattice.tagging import TaggedLattice

SortKey = tuple[int, float, float, Node]


class _Flash(KMinimalRun):
    """One Flash run: the tagged lattice, the node order, the scores and bounds."""

    def __init__(self, space: TaggedLattice, objective: Objective, deadline: float | None, limits: Limits) -> None:
        super().__init__(space, deadline, objective, limits.progress)
        self.lattice = space.lattice
        self.checked_anonymous: list[Node] = []
        self._keys: dict[Node, SortKey] = {}
        self._successors: dict[Node, list[Node]] = {}
        heights = self.lattice.heights
        columns = space.evaluator.columns
        self._width = max(1, len(heights))
        # per attribute and level: x/H and the share of distinct values kept (Flash's 2nd and 3rd criteria)
        self._relative = [[x / h if h else 0.0 for x in range(h + 1)] for h in heights]
        self._distinct = [[c.cardinality(x) / max(1, c.cardinality(0)) for x in range(h + 1)]
                          for c, h in zip(columns, heights, strict=True)]
        self._relative_np = [np.asarray(t, dtype=np.float64) for t in self._relative]
        self._distinct_np = [np.asarray(t, dtype=np.float64) for t in self._distinct]
        self.linear = not objective.monotone  # ARX's linear phase: score every k-anonymous node not pruned
        self.prune = limits.prune and objective.cheap_bound  # skip undecided nodes by their bound
        self.pruned_any = False
        self.best: float | None = None
        self._bounds: dict[Node, float] = {}
        self._starts: list[Node] = []  # k-anonymous checks the linear phase has not started from yet
        self._visited: set[Node] = set()  # nodes the linear phase has scored or pruned
        self._pruned: set[Node] = set()  # undecided nodes skipped by their bound (with their generalizations)

    # ------------------------------------------------------------------ order
    def key(self, node: Node) -> SortKey:
        k = self._keys.get(node)
        if k is None:
            rel = sum(map(getitem, self._relative, node)) / self._width
            kept = sum(map(getitem, self._distinct, node)) / self._width
            k = self._keys[node] = (sum(node), rel, 1.0 - kept, node)
        return k

    def in_order(self, rows: np.ndarray) -> np.ndarray:
        """Nodes of one rank (rows of levels) in Flash order, ``key``'s order computed for all at once (the same
        sums in the same order, so the same floats)."""
        if len(rows) < 2:
            return rows
        rel = kept = 0.0
        for j in range(rows.shape[1]):
            rel = rel + self._relative_np[j][rows[:, j]]
            kept = kept + self._distinct_np[j][rows[:, j]]
        order = np.lexsort((*(rows[:, j] for j in reversed(range(rows.shape[1]))), 1.0 - kept / self._width,
                            rel / self._width))
        return rows[order]

    def successors(self, node: Node) -> list[Node]:
        """Direct generalizations in Flash order."""
        s = self._successors.get(node)
        if s is None:
            s = self._successors[node] = sorted(self.lattice.successors(node), key=self.key)
        return s

    # ------------------------------------------------------------------ the objective
    def score(self, node: Node) -> float:
        value = super().score(node)
        if self.best is None or value < self.best:
            self.best = value
        return value

    def exceeds(self, node: Node) -> bool:
        """Does the node's lower bound exceed the best value so far (not a tie), so that neither it nor any
        generalization of it can be preferred to the best node?"""
        if self.best is None:
            return False
        bound = self._bounds.get(node)
        if bound is None:
            assert self.objective is not None
            bound = self._bounds[node] = self.objective.lower_bound(node)
        return bound > self.best and not same_value(bound, self.best)

    # ------------------------------------------------------------------ k-anonymity
    def is_open(self, node: Node, prune: bool = True) -> bool:
        """Is the node's k-anonymity still unknown (untagged), and (with ``prune``) its bound not above the best
        value? A node found tagged is asked of ``space`` once, which answers by prediction (no check) and records it
        in the trace."""
        if node in self.known or node in self._pruned:
            return False
        if self.undecided is not None:
            if node not in self.undecided:
                self.known[node] = self.space.status(node)
                return False
        else:
            answer = self.space.known(node)
            if answer is not None:
                self.known[node] = self.space.status(node)
                return False
        if self.prune and prune:
            if self.space.is_pruned(node):  # above a pruned node: pruned too, nothing to record
                self._pruned.add(node)
                return False
            if self.exceeds(node):
                self._skip(node)
                return False
        return True

    def _skip(self, node: Node) -> None:
        """Prune an undecided node: its bound exceeds the best value (or it lies above one whose bound does)."""
        self._pruned.add(node)
        self.space.prune(node)
        self.pruned_any = True

    def found(self, node: Node) -> None:
        self.checked_anonymous.append(node)
        if self.linear:
            self._starts.append(node)

    # ------------------------------------------------------------------ phases
    def find_path(self, node: Node) -> list[Node]:
        """Greedy path upward: repeatedly the first direct generalization whose status is unknown."""
        path = [node]
        while not self.out_of_time():
            for nxt in self.successors(node):
                if self.is_open(nxt, prune=False):
                    path.append(nxt)
                    node = nxt
                    break
            else:
                break
        return path

    def check_path(self, path: list[Node], queue: list[tuple[SortKey, Node]]) -> None:
        """Binary search for the path's lowest k-anonymous node; queue what lies above non-k-anonymous probes."""
        low, high = 0, len(path) - 1
        while low <= high and not self.out_of_time():
            mid = (low + high) // 2
            node = path[mid]
            if self.status(node):  # a pruned node too: one that is not k-anonymous decides all below it
                high = mid - 1
            else:
                for up in self.successors(node):
                    if self.is_open(up):
                        heapq.heappush(queue, (self.key(up), up))
                low = mid + 1

    def linear_phase(self) -> None:
        """ARX's linear phase: depth first up from each k-anonymous check, every k-anonymous node scored (a check
        builds its frequency set) unless its bound exceeds the best value, which excludes its generalizations."""
        space, visited = self.space, self._visited
        while self._starts and not self.out_of_time():
            stack = [self._starts.pop()]
            while stack and not self.out_of_time():
                node = stack.pop()
                if node in visited:
                    continue
                visited.add(node)
                if self.exceeds(node):
                    space.prune(node)
                    continue
                if node not in self.scored:
                    space.check(node)  # k-anonymous by prediction; the check builds its frequency set
                    self.known[node] = True
                    self.score(node)
                stack.extend(up for up in reversed(self.successors(node)) if up not in visited)

    def binary_phase(self, start: Node) -> None:
        queue = [(self.key(start), start)]
        while queue and not self.out_of_time():
            _, head = heapq.heappop(queue)
            if self.is_open(head):
                self.check_path(self.find_path(head), queue)
                if self.linear:
                    self.linear_phase()

    def run(self) -> None:
        """The outer loop: ranks bottom-up, the undecided nodes of each in Flash order."""
        for rank in range(self.lattice.max_rank + 1):
            rows = self.space.open_at_rank(rank) if self.undecided is not None else None
            if rows is not None:  # the dense grid: the rank's open nodes, put in Flash order at once
                for node in map(tuple, self.in_order(rows).tolist()):
                    if self.out_of_time():
                        return
                    if self.is_open(node):
                        self.binary_phase(node)
                continue
            if self.undecided is not None:
                level = self.undecided.at_rank(rank)
            else:  # no dense grid: the open nodes of the rank, gathered under the deadline
                level = []
                for node in nodes_between(self.lattice.bottom, self.lattice.top, rank):
                    if self.out_of_time():
                        return
                    if self.is_open(node):
                        level.append(node)
            for node in sorted(level, key=self.key):
                if self.out_of_time():
                    return
                if self.is_open(node):
                    self.binary_phase(node)

    def k_minimal(self) -> list[Node]:
        """The minimal checked k-anonymous nodes (all k-minimal nodes are checked once every node is decided:
        nothing below a k-minimal node is k-anonymous, so nothing can predict it)."""
        return minimal_nodes(self.checked_anonymous)


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Flash over the whole lattice (with the linear phase for an objective that is not monotone), then the best
    node scored (``search_k_minimal``: anytime with a time limit, the best k-anonymous node checked so far)."""

    def run(deadline: float | None) -> Outcome:
        flash = _Flash(space, objective, deadline, limits)
        flash.run()
        k_minimal = [] if flash.pruned_any else flash.k_minimal()  # incomplete once nodes were skipped
        return Outcome(list(flash.scored), flash.timed_out, "", flash.scored, k_minimal)

    return search_k_minimal(space, "flash", objective, limits, run)
