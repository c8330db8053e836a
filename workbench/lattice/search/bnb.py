"""Best-first branch-and-bound search, "BFS" (Kohlmayer, Prasser et al. 2016, §"Best-first search"; the
details follow ARX's LIGHTNING algorithm).

Bottom-up and best-first: the bottom is scored and queued; the queue is ordered by the objective value (the
loss after suppression, lowest first, ties by ``tie_key``), so it needs the objective at non-k-anonymous
nodes too. Popping x: skip it when it is already expanded or pruned; prune it (with all its generalizations,
in the P↑ antichain store of ``space``) when its lower bound is strictly worse than the best k-anonymous node
found so far; otherwise score each direct generalization not yet reached and queue it.

A reached node's k-anonymity matters only when its value would be preferred to the incumbent's, so only then
is it asked, of ``space.status`` (predictive tagging: "k-anonymous" up, "not k-anonymous" down, Kohlmayer,
Prasser et al. 2016). An unknown answer is found as in Flash's binary phase (Kohlmayer, Prasser et al. 2012):
a greedy path upward from the node through nodes of unknown k-anonymity is binary-searched for its lowest
k-anonymous node, so one not-k-anonymous check decides a whole down-set, and the many nodes below the optimum
are predicted rather than checked one by one. The nodes reached, expanded and pruned, and so the optimum, are
those of the plain algorithm; only the checks differ. A measure that reads levels alone (non-uniform
entropy) is scored without a frequency set (``workbench.objective``), so an unchecked node costs no roll-up.

Pruning by the objective: "objective bound exceeded" is predictive too: ``objective.lower_bound(x)`` is a
monotone lower bound of the objective at x and above, so a node whose bound exceeds the best value has no
generalization that can beat or tie the best. The comparison is strict, so an equal-valued node that ``tie_key``
prefers is never lost. A bound and a value are computed by different formulas (entropy vs entropy_nm, loss of
the generalization vs loss), so a bound that mathematically equals the incumbent may come out a few ulps above
it: for a non-integer objective x is pruned only when its bound exceeds the incumbent by more than
``PRUNE_RTOL`` relative (``prunable``); integer objectives (DM, DM*, height) are compared exactly. Pruning less
costs checks, never the optimum. Every node below the optimum therefore stays unpruned and is expanded, and an
exhausted queue proves optimality for any objective, monotone or not.

Anytime: with ``limits.time_limit`` the search stops once the elapsed wall time exceeds it and returns the best
node so far, labelled not proven optimal. So that there is one early, the bottom is checked and then a probe
from it (the binary phase above) finds the lowest k-anonymous node of a greedy path to the top: a few checks,
and a solution whenever the path holds one (with a monotone privacy model its top is k-anonymous when any node
is). That node is the first incumbent; the search reaches it again in its own order, so optimality is
unaffected. When the path holds none, the search dives greedily from the bottom as ARX's LIGHTNING does (each
step to the successor with the fewest suppressed records, then the lowest objective, checking every successor)
until it reaches a k-anonymous node: at most Σ_j H_j steps. Seeding is an addition to the paper's BFS: without
it, at 0 % suppression best-first visits almost every non-k-anonymous node (they have lower loss) before the
first solution, so a short time limit found nothing on Adult with 9 quasi-identifiers; the incumbent also lets
the bound prune early.
"""

from __future__ import annotations

import heapq
import time

from workbench.lattice.search.result import (
    NO_LIMITS,
    Limits,
    Objective,
    SearchResult,
    conclude,
    preferred,
    tie_key,
)
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice

ALGORITHM = "bnb"
PRUNE_RTOL = 1e-9  # relative float noise tolerated between a bound and the incumbent (non-integer objectives)


def prunable(bound: float, best: float, integer: bool) -> bool:
    """Is ``bound`` (a lower bound at a node and above) strictly worse than the incumbent ``best``? Exactly for
    an integer objective; for any other, only beyond a relative ``PRUNE_RTOL``, so that rounding noise in a
    bound that equals ``best`` never prunes a node that ties it."""
    if integer:
        return bound > best
    return bound - best > PRUNE_RTOL * max(abs(best), abs(bound))


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """Best-first branch-and-bound from the bottom; the optimum under ``tie_key`` over the k-anonymous nodes,
    proven optimal when the queue is exhausted within ``limits.time_limit``."""
    start = time.perf_counter()
    deadline = limits.deadline(start)
    lattice = space.lattice
    integer = objective.integer
    space.undecided  # noqa: B018 -- k-anonymity predictions from the dense grid (O(1) per node) when it fits

    values: dict[Node, float] = {}  # objective value of every reached node (the queue key)
    bounds: dict[Node, float] = {}  # lower bound, computed when first needed
    done: set[Node] = set()  # expanded or pruned (the antichain query answers the pruned ones too)
    reached: set[Node] = set()  # checked and queued (or pruned on arrival): never queued twice
    queue: list[tuple[float, int, Node]] = []
    best: Node | None = None
    best_key: tuple[float, int, Node] | None = None  # tie_key of the incumbent
    timed_out = False

    def over_time() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    def bound_of(node: Node) -> float:
        """The objective's lower bound at node and above, memoized."""
        b = bounds.get(node)
        if b is None:
            b = bounds[node] = objective.lower_bound(node)
        return b

    if objective.monotone:  # a monotone objective is its own (tightest) bound, and its value is memoized
        bound_of = values.__getitem__  # noqa: F811

    def exceeds_best(node: Node) -> bool:
        """Can no generalization of node (node included) match the best value? (strictly worse bound)"""
        return best_key is not None and prunable(bound_of(node), best_key[0], integer)

    def probe(node: Node) -> Node | None:
        """Flash's binary phase (Kohlmayer, Prasser et al. 2012) from node: a greedy path upward through nodes
        of unknown k-anonymity, binary-searched for its lowest k-anonymous node (returned; None if the path has
        none). Each not-k-anonymous probe decides its whole down-set, node included."""
        path, x = [node], node
        while (x := next((y for y in lattice.successors(x) if space.known(y) is None), None)) is not None:
            path.append(x)
        low, high, lowest = 0, len(path) - 1, None
        while low <= high and not over_time():  # at the time limit: the lowest k-anonymous probe so far
            mid = (low + high) // 2
            if space.status(path[mid]):
                high, lowest = mid - 1, path[mid]
            else:
                low = mid + 1
        return lowest

    def k_anonymous(node: Node) -> bool:
        """Is node k-anonymous? Predicted when possible, else (once there is an incumbent, and when checks are
        propagated: a monotone privacy model) decided by a probe, so that the search never checks the many nodes
        below the optimum one by one."""
        if best_key is not None and space.monotone and space.known(node) is None:  # (a probe needs tagging)
            probe(node)
        return space.status(node)

    def visit(node: Node) -> None:
        """Score a newly reached node; when it would be preferred to the best k-anonymous node so far, learn its
        k-anonymity (predicted, else checked) and track the best; queue the node (or prune it at once)."""
        nonlocal best, best_key
        reached.add(node)
        value = values[node] = objective.value(node)
        key = tie_key(node, value)
        if (best_key is None or preferred(node, value, best_key[2], best_key[0])) and k_anonymous(node):
            best, best_key = node, key
        if exceeds_best(node):  # prune on arrival: its generalizations are then never checked
            space.prune(node)
            done.add(node)
            return
        heapq.heappush(queue, key)

    visit(lattice.bottom)
    if best is None and not over_time():  # anytime seeding: the lowest k-anonymous node of a probe's path
        seed = probe(lattice.bottom)
        if seed is not None:
            best, best_key = seed, tie_key(seed, values.setdefault(seed, objective.value(seed)))
    x = lattice.bottom
    while best is None and x != lattice.top and not over_time():  # else the greedy dive (anytime seeding)
        for y in lattice.successors(x):
            if y not in reached and not over_time():
                visit(y)
        if over_time():
            break
        x = min(lattice.successors(x), key=lambda y: (space.check(y).suppressed, tie_key(y, values[y])))
    timed_out = over_time()  # the seeding stopped at the time limit: the queue may not hold the frontier yet
    while queue and not timed_out:
        if over_time():
            timed_out = True
            break
        _, _, x = heapq.heappop(queue)
        if x in done or space.is_pruned(x):
            continue
        if exceeds_best(x):
            space.prune(x)
            done.add(x)
            continue
        for y in lattice.successors(x):
            if y in reached or space.is_pruned(y):  # reached: checked before (queued, expanded or pruned)
                continue
            visit(y)
            if over_time():
                timed_out = True
                break
        if timed_out:
            break
        done.add(x)

    note = ""
    if timed_out:
        note = limits.timeout_note(space.checks, best is not None, space.decided_share())
    candidates = [best] if best is not None else []
    return conclude(space, ALGORITHM, objective, candidates, start, proven_optimal=not timed_out, note=note)
