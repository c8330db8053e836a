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

import time

from workbench.lattice.antichain import UP, AntichainStore
from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude
from workbench.lattice.space import Node, nodes_between
from workbench.lattice.tagging import TaggedLattice


class _OLA:
    """One OLA run: the tagged lattice, the k-minimal antichain S, the visited (B, T) pairs."""

    def __init__(self, space: TaggedLattice, deadline: float | None) -> None:
        self.space = space
        self.deadline = deadline
        self.k_minimal = AntichainStore(len(space.lattice.heights), UP)
        self.visited: set[tuple[Node, Node]] = set()
        self.answers: dict[Node, bool] = {}  # space.status, asked once per node (the answer never changes)
        self.undecided = space.undecided
        self.calls = self.skipped = 0
        self.timed_out = False

    def status(self, node: Node) -> bool:
        """``space.status(node)``; a check's result also updates the undecided nodes and AddKMinimal."""
        answer = self.answers.get(node)
        if answer is None:
            checks = self.space.checks
            answer = self.answers[node] = self.space.status(node)
            if self.space.checks != checks and answer:
                self.add_k_minimal(node)
        return answer

    def add_k_minimal(self, node: Node) -> None:
        """AddKMinimal: refuse a node above a member; drop the members above it (CleanUp)."""
        self.k_minimal.insert(node)

    def out_of_time(self) -> bool:
        if not self.timed_out and self.deadline is not None and time.perf_counter() > self.deadline:
            self.timed_out = True
        return self.timed_out

    def kmin(self, bottom: Node, top: Node) -> None:
        """Kmin(B, T): find the k-minimal nodes of the strategies through [B, T]."""
        if (bottom, top) in self.visited or self.out_of_time():
            return
        self.visited.add((bottom, top))
        hh = sum(top) - sum(bottom)
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
        for v in nodes_between(bottom, top, hh // 2):
            if undecided is not None and space.checks != checks:  # checks decided more: anything left?
                checks = space.checks
                if not undecided.any_within(bottom, top):
                    self.skipped += 1  # the rest of [B, T] has been decided meanwhile
                    return
            if self.timed_out:
                return
            if self.status(v):
                self.kmin(bottom, v)
            else:
                self.kmin(v, top)


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Kmin(bottom, top), then the k-minimal node minimizing the (monotone) objective.

    With ``limits.time_limit`` the recursion stops when time is up and the best k-anonymous node found so
    far is returned, not proven optimal.
    """
    start = time.perf_counter()
    deadline = limits.deadline(start)
    ola = _OLA(space, deadline)
    ola.kmin(space.lattice.bottom, space.lattice.top)
    note = f"{ola.calls} Kmin calls; {ola.skipped} sub-lattices skipped as already decided"
    k_minimal = sorted(ola.k_minimal, key=lambda n: (sum(n), n))
    if ola.timed_out:
        note += "; " + limits.timeout_note(space.checks, bool(k_minimal))
    return conclude(space, "ola", objective, k_minimal, start, proven_optimal=not ola.timed_out,
                    k_minimal=() if ola.timed_out else k_minimal, note=note)
