"""Flash (Kohlmayer, Prasser et al., PASSAT 2012), with antichain stores for the predictive properties
(Kohlmayer, Prasser et al., 2016), as in ARX's ``FLASHAlgorithmImpl``.

Nodes are ordered by (rank, mean relative level x_j/H_j, 1 − mean share of distinct values kept, node). The
outer loop takes the ranks bottom-up and, in that order, every node whose k-anonymity is still unknown, and
runs the binary phase from it: a greedy path upward (always to the first direct generalization, in that
order, whose status is unknown), a binary search on the path for its lowest k-anonymous node (probing with
``space.status``, which tags: k-anonymous up, not k-anonymous down), and the direct generalizations of every
non-k-anonymous probe go to a priority queue that is processed the same way. At the end every node is
decided, so the k-minimal nodes are the minimal checked k-anonymous ones; with a monotone objective the best
of them is the global optimum.
"""

from __future__ import annotations

import heapq

from workbench.lattice.antichain import minimal_nodes
from workbench.lattice.search.result import NO_LIMITS, KMinimalRun, Limits, Objective, SearchResult, search_k_minimal
from workbench.lattice.space import Node, nodes_between
from workbench.lattice.tagging import TaggedLattice

SortKey = tuple[int, float, float, Node]


class _Flash(KMinimalRun):
    """One Flash run: the tagged lattice, the node order and the undecided nodes."""

    def __init__(self, space: TaggedLattice, deadline: float | None) -> None:
        super().__init__(space, deadline)
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

    # ------------------------------------------------------------------ order
    def key(self, node: Node) -> SortKey:
        k = self._keys.get(node)
        if k is None:
            rel = sum(self._relative[j][x] for j, x in enumerate(node)) / self._width
            kept = sum(self._distinct[j][x] for j, x in enumerate(node)) / self._width
            k = self._keys[node] = (sum(node), rel, 1.0 - kept, node)
        return k

    def successors(self, node: Node) -> list[Node]:
        """Direct generalizations in Flash order."""
        s = self._successors.get(node)
        if s is None:
            s = self._successors[node] = sorted(self.lattice.successors(node), key=self.key)
        return s

    # ------------------------------------------------------------------ k-anonymity
    def is_open(self, node: Node) -> bool:
        """Is the node's k-anonymity still unknown (untagged)? A node found tagged is asked of ``space`` once,
        which answers by prediction (no check) and records it in the trace."""
        if node in self.known:
            return False
        if self.undecided is not None:
            if node in self.undecided:
                return True
            self.known[node] = self.space.status(node)
            return False
        answer = self.space.known(node)
        if answer is None:
            return True
        self.known[node] = self.space.status(node)
        return False

    def found(self, node: Node) -> None:
        self.checked_anonymous.append(node)

    # ------------------------------------------------------------------ phases
    def find_path(self, node: Node) -> list[Node]:
        """Greedy path upward: repeatedly the first direct generalization whose status is unknown."""
        path = [node]
        while True:
            for nxt in self.successors(node):
                if self.is_open(nxt):
                    path.append(nxt)
                    node = nxt
                    break
            else:
                return path

    def check_path(self, path: list[Node], queue: list[tuple[SortKey, Node]]) -> None:
        """Binary search for the path's lowest k-anonymous node; queue what lies above non-k-anonymous probes."""
        low, high = 0, len(path) - 1
        while low <= high:
            mid = (low + high) // 2
            node = path[mid]
            if self.status(node):
                high = mid - 1
            else:
                for up in self.successors(node):
                    if self.is_open(up):
                        heapq.heappush(queue, (self.key(up), up))
                low = mid + 1

    def binary_phase(self, start: Node) -> None:
        queue = [(self.key(start), start)]
        while queue and not self.out_of_time():
            _, head = heapq.heappop(queue)
            if self.is_open(head):
                self.check_path(self.find_path(head), queue)

    def run(self) -> None:
        """The outer loop: ranks bottom-up, the undecided nodes of each in Flash order."""
        for rank in range(self.lattice.max_rank + 1):
            level = (self.undecided.at_rank(rank) if self.undecided is not None
                     else nodes_between(self.lattice.bottom, self.lattice.top, rank))
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
    """Flash over the whole lattice, then the best k-minimal node (``search_k_minimal``: anytime with a time
    limit, the best k-anonymous node checked so far)."""

    def run(deadline: float | None) -> tuple[list[Node], bool, str]:
        flash = _Flash(space, deadline)
        flash.run()
        return flash.k_minimal(), flash.timed_out, ""

    return search_k_minimal(space, "flash", objective, limits, run)
