"""OLA, Optimal Lattice Anonymization (El Emam et al., JAMIA 2009; Issa, MSc thesis, Ottawa 2009).

``Kmin(B, T)`` binary-searches every generalization strategy of the sub-lattice [B, T] at once: a node V on
its middle level (rank(B) + ⌊HH/2⌋, HH = rank(T) − rank(B)), taken in ascending lexicographic order, is
k-anonymous, and the k-minimal nodes of the strategies through V lie in [B, V], or it is not, and they lie
in [V, T]. This is the corrected GetOSC of the OLA digest §4.5.5: sub-lattices of height ≤ 1 are a base case
(Issa's printed version never ends there), a base node is added only when it is k-anonymous, AddKMinimal
keeps the k-minimal set an antichain in both directions, and visited (B, T) pairs are memoized. As in ARX's
OLA (Kohlmayer, Prasser et al., CBMS 2012), sub-lattices in which every node is already decided are skipped;
their k-minimal nodes were necessarily checked, and every k-anonymous check goes to AddKMinimal too.

Every k-anonymity question goes through ``space.status`` (predictive tagging, El Emam 2009). With a monotone
objective the best k-minimal node is the global optimum.
"""

from __future__ import annotations

from workbench.lattice.antichain import UP, AntichainStore
from workbench.lattice.search.result import (
    NO_LIMITS,
    KMinimalRun,
    Limits,
    Objective,
    Outcome,
    SearchResult,
    search_k_minimal,
)
from workbench.lattice.space import Node, nodes_between
from workbench.lattice.tagging import TaggedLattice


class _OLA(KMinimalRun):
    """One OLA run: the tagged lattice, the k-minimal antichain S, the visited (B, T) pairs."""

    def __init__(self, space: TaggedLattice, deadline: float | None, objective: Objective | None = None,
                 limits: Limits = NO_LIMITS) -> None:
        super().__init__(space, deadline, objective, limits.progress)
        self.k_minimal = AntichainStore(len(space.lattice.heights), UP)
        self.visited: set[tuple[Node, Node]] = set()
        self.calls = self.skipped = 0

    def found(self, node: Node) -> None:
        """A k-anonymous check goes to AddKMinimal."""
        self.add_k_minimal(node)

    def add_k_minimal(self, node: Node) -> None:
        """AddKMinimal: refuse a node above a member; drop the members above it (CleanUp)."""
        self.k_minimal.insert(node)

    def kmin(self, bottom: Node, top: Node, low: int, high: int) -> None:
        """Kmin(B, T): find the k-minimal nodes of the strategies through [B, T]; ``low``, ``high``: the ranks
        of B and T."""
        visited = self.visited
        seen = len(visited)
        visited.add((bottom, top))
        if len(visited) == seen or self.out_of_time():
            return
        hh = high - low
        if hh < 2:
            if self.status(bottom):
                self.add_k_minimal(bottom)
            elif hh == 1 and self.status(top):
                self.add_k_minimal(top)
            return
        undecided = self.undecided
        if undecided is not None and not undecided.any_within(bottom, top):
            self.skipped += 1  # nothing to check in here, and its k-minimal nodes are in S already
            return
        self.calls += 1
        space = self.space
        checks = space.checks
        middle = low + hh // 2
        for v in nodes_between(bottom, top, hh // 2):
            if undecided is not None and space.checks != checks:  # checks decided more: anything left?
                checks = space.checks
                if not undecided.any_within(bottom, top):
                    self.skipped += 1  # the rest of [B, T] has been decided meanwhile
                    return
            if self.out_of_time():
                return
            if self.status(v):
                self.kmin(bottom, v, low, middle)
            else:
                self.kmin(v, top, middle, high)


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Kmin(bottom, top), then the best k-minimal node (``search_k_minimal``: anytime with a time limit)."""

    def run(deadline: float | None) -> Outcome:
        ola = _OLA(space, deadline, objective, limits)
        ola.kmin(space.lattice.bottom, space.lattice.top, 0, space.lattice.max_rank)
        note = f"{ola.calls} Kmin calls; {ola.skipped} sub-lattices skipped as already decided"
        k_minimal = sorted(ola.k_minimal, key=lambda n: (sum(n), n))
        return Outcome(k_minimal, ola.timed_out, note, ola.scored, k_minimal)

    return search_k_minimal(space, "ola", objective, limits, run)
