"""LIGHTNING, an anytime search for lattices too large to search exactly (Prasser, Bild, Eicher, Spengler,
Kohlmayer & Kuhn, "Lightning: Utility-Driven Anonymization of High-Dimensional Data", Transactions on Data Privacy
9(2), 2016; ARX's ``LIGHTNINGAlgorithm``), followed by a hill-climbing phase.

Best-first phase (as ARX's): the bottom is checked and queued; the queue is ordered by the objective value (the
loss after suppression, so every reached node is checked and scored, k-anonymous or not; ties by ``tie_key``).
Popping x: skip it when it is expanded or pruned; prune it (and, in the P↑ store of ``space``, its
generalizations) when its lower bound is strictly worse than the best k-anonymous node so far (``bnb.prunable``);
otherwise expand it: check, score and queue every direct generalization not yet reached. Every ``stepping``-th
expansion (``stepping`` = the height of the lattice, as in ARX) is a greedy dive instead: expand x, step to its
successor with the lowest value, expand that, and so on, without backtracking. ARX dives until no successor is
left; here a dive stops at the first k-anonymous node of its path (a node above it costs checks and, for a monotone
objective, cannot be better) or at a node the bound prunes. The first pop (the bottom) is a dive too, so that there
is an incumbent after about ``Σ_j H_j · r`` checks rather than after ``stepping`` expansions.

Hill-climbing phase: once ``1 − HILL_SHARE`` of the budget has passed, the incumbent is improved by first-improvement
local search over its neighbours: each direct specialization (one level lower), then, in a seeded random order,
each swap (one attribute a level lower, another a level higher). A neighbour known not k-anonymous (predictive
tagging) or pruned is skipped without a check; the first k-anonymous neighbour preferred to the incumbent becomes the
incumbent and the climb restarts from it. At a local optimum the best-first phase resumes until the deadline, and
every later incumbent is climbed from once.

Time limit: ``limits.time_limit`` seconds, or ``DEFAULT_BUDGET`` when none is given (the default of ARX's heuristic
search). Before each check the search stops if the expected cost of one more (a moving average of the checks so far,
scoring included) would overrun the deadline, so the search ends within the budget up to one check's variance.

Guarantee: if the queue empties, every node was reached or lies above a pruned node, and the result is the optimum
for any objective, monotone or not (proven, as bnb's). Otherwise it is the best k-anonymous node found, not proven
optimal, with a lower bound on the optimum: every node not yet reached generalizes a node of the *frontier* (reached,
not expanded, not pruned: the path from the bottom to it leaves the expanded nodes somewhere), so the optimum is at
least ``min(best value, min over the frontier of objective.lower_bound)``; the lower bound is monotone, and for a
monotone objective it is the objective itself. ``SearchResult.lower_bound`` holds that number and the note states
the gap.
"""

from __future__ import annotations

import heapq
import random
import sys
import time
from dataclasses import replace

from workbench.lattice.search.bnb import prunable
from workbench.lattice.search.result import NO_LIMITS, Limits, Objective, SearchResult, conclude, preferred, tie_key
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice, container_bytes

ALGORITHM = "lightning"
DEFAULT_BUDGET = 30.0  # seconds when engine.time_limit is not set: ARX's default heuristicSearchTimeLimit (30,000 ms)
HILL_SHARE = 0.2  # the last share of the budget starts the hill-climbing phase
_SMOOTHING = 0.2  # weight of the latest check in the moving average of a check's cost


class _OutOfTimeError(Exception):
    """One more check would overrun the deadline."""


class _Lightning:
    """One run: the checked nodes' values and bounds, the queue, the expanded and pruned nodes, the incumbent."""

    def __init__(self, space: TaggedLattice, objective: Objective, limits: Limits, start: float,
                 budget: float) -> None:
        self.space = space
        self.lattice = space.lattice
        self.objective = objective
        self.deadline = start + budget
        self.climb_from = start + (1 - HILL_SHARE) * budget
        self.rng = random.Random(limits.seed)
        self.stepping = max(1, self.lattice.max_rank)
        self.values: dict[Node, float] = {}  # every checked node's objective value
        self.bounds: dict[Node, float] = {}  # lower bounds (non-monotone objectives; else the values)
        self.queue: list[tuple[float, int, Node]] = []
        self.queued: set[Node] = set()  # reached by the best-first phase (queued once)
        self.expanded: set[Node] = set()
        self.pruned: set[Node] = set()
        self.climbed: set[Node] = set()  # incumbents the hill climb started from
        self.best: Node | None = None
        self.best_value = 0.0
        self.cost = 0.0  # moving average of one check's seconds, scoring included
        self.exhausted = False
        self.out_of_time = False
        self.improvements = 0  # incumbents found by the hill climb
        self.steps = 0  # pops expanded (or dived from)

    # ------------------------------------------------------------------ nodes
    def score(self, node: Node) -> float:
        """Check and score a node once (raises ``_OutOfTimeError`` when one more check would overrun the deadline);
        track the incumbent."""
        value = self.values.get(node)
        if value is not None:
            return value
        now = time.perf_counter()
        if now + 2 * self.cost > self.deadline:
            raise _OutOfTimeError
        admissible = self.space.check(node).k_anonymous
        value = self.values[node] = self.objective.value(node)
        if not self.objective.monotone:
            self.bounds[node] = self.objective.lower_bound(node)
        spent = time.perf_counter() - now
        self.cost = spent if not self.cost else (1 - _SMOOTHING) * self.cost + _SMOOTHING * spent
        if admissible and (self.best is None or preferred(node, value, self.best, self.best_value)):
            self.best, self.best_value = node, value
        return value

    def bound(self, node: Node) -> float:
        """The objective's lower bound at node and above (the value for a monotone objective)."""
        return self.values[node] if self.objective.monotone else self.bounds[node]

    def exceeds_best(self, node: Node) -> bool:
        return self.best is not None and prunable(self.bound(node), self.best_value, self.objective.integer)

    def prune(self, node: Node) -> None:
        self.pruned.add(node)
        self.space.prune(node)

    def closed(self, node: Node) -> bool:
        """Expanded or pruned (directly or as a generalization of a pruned node)."""
        return node in self.expanded or node in self.pruned or self.space.is_pruned(node)

    # ------------------------------------------------------------------ best-first phase
    def expand(self, node: Node) -> Node | None:
        """Check, score and queue every direct generalization of node not yet reached (pruning those the bound
        excludes); return the open successor with the lowest value (None if there is none)."""
        lowest: Node | None = None
        for y in self.lattice.successors(node):
            if self.closed(y):
                continue
            value = self.score(y)
            if y not in self.queued:
                self.queued.add(y)
                if self.exceeds_best(y):
                    self.prune(y)
                    continue
                heapq.heappush(self.queue, tie_key(y, value))
            if lowest is None or tie_key(y, value) < tie_key(lowest, self.values[lowest]):
                lowest = y
        self.expanded.add(node)
        return lowest

    def dive(self, node: Node) -> None:
        """Greedy depth-first search without backtracking: expand, step to the lowest successor, until a
        k-anonymous node, a node the bound excludes or the top."""
        while node is not None:
            if node in self.expanded:
                return
            node = self.expand(node)
            if node is None or self.space.known(node) or self.exceeds_best(node):
                return

    def best_first(self, until: float | None = None, climbing: bool = False) -> None:
        """Pop and expand (every ``stepping``-th pop, and the first, a dive) until the queue is empty, the time
        ``until``, or (``climbing``) an incumbent the hill climb has not started from."""
        steps = self.steps
        while self.queue:
            if climbing and self.best is not None and self.best not in self.climbed:
                return
            if until is not None and time.perf_counter() >= until:
                return
            _, _, x = heapq.heappop(self.queue)
            if self.closed(x):
                continue
            if self.exceeds_best(x):
                self.prune(x)
                continue
            steps = self.steps = steps + 1
            try:
                if steps == 1 or steps % self.stepping == 0:
                    self.dive(x)
                else:
                    self.expand(x)
            except _OutOfTimeError:
                if x not in self.expanded:  # not fully expanded: back on the queue, so the frontier keeps it
                    heapq.heappush(self.queue, tie_key(x, self.values[x]))
                raise
        self.exhausted = True

    # ------------------------------------------------------------------ hill-climbing phase
    def neighbours(self, node: Node) -> list[Node]:
        """Direct specializations first, then every swap (one attribute lower, another higher) in seeded order."""
        heights = self.lattice.heights
        swaps = []
        for i, level in enumerate(node):
            if level:
                lowered = node[:i] + (level - 1,) + node[i + 1:]
                swaps += [lowered[:j] + (lowered[j] + 1,) + lowered[j + 1:]
                          for j in range(len(node)) if j != i and node[j] < heights[j]]
        self.rng.shuffle(swaps)
        return self.lattice.predecessors(node) + swaps

    def climb(self) -> None:
        """First-improvement hill climbing from the incumbent until a local optimum (or the deadline)."""
        while self.best is not None and self.best not in self.climbed:
            start = self.best
            self.climbed.add(start)
            for y in self.neighbours(start):
                if self.space.known(y) is False or self.space.is_pruned(y):
                    continue  # predicted not k-anonymous, or its bound cannot match the incumbent
                self.score(y)
                if self.best != start:
                    self.improvements += 1
                    break

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        bottom = self.lattice.bottom
        try:
            self.score(bottom)
            self.queued.add(bottom)
            heapq.heappush(self.queue, tie_key(bottom, self.values[bottom]))
            self.best_first(until=self.climb_from)
            while not self.exhausted:
                self.climb()
                self.best_first(climbing=True)
        except _OutOfTimeError:
            self.out_of_time = True

    def lower_bound(self) -> float | None:
        """A lower bound on the optimum: the least of the incumbent's value and the frontier's lower bounds
        (None without an incumbent: with no k-anonymous node found, nothing bounds the optimum from above either,
        and the frontier's least bound is reported in the note alone)."""
        if self.best is None:
            return None
        if self.exhausted:
            return self.best_value
        return min([self.best_value, *(self.bound(n) for n in self.frontier())])

    def frontier(self) -> list[Node]:
        """Reached by the best-first phase, neither expanded nor pruned."""
        return [n for n in self.queued if n not in self.expanded and n not in self.pruned]

    def structures(self) -> dict[str, int]:
        """Approximate bytes of the run's own containers (the search's memory, besides ``space``'s)."""
        return {"lightning values": container_bytes(self.values) + container_bytes(self.bounds),
                "lightning queue": container_bytes(self.queue),
                "lightning reached/expanded/pruned sets": container_bytes(self.queued) + container_bytes(self.expanded)
                + container_bytes(self.pruned) + sys.getsizeof(self.climbed)}


def search(space: TaggedLattice, objective: Objective, limits: Limits = NO_LIMITS) -> SearchResult:
    """LIGHTNING's best-first search with greedy dives, then hill climbing, within ``limits.time_limit`` (or
    ``DEFAULT_BUDGET``); the best k-anonymous node found, proven optimal only when the queue empties in time."""
    start = time.perf_counter()
    given = limits.time_limit is not None
    budget = float(limits.time_limit) if given else DEFAULT_BUDGET
    run = _Lightning(space, objective, limits, start, budget)
    run.run()
    bound = run.lower_bound()
    budget_text = f"{budget:g} s" + ("" if given else " (the default; engine.time_limit sets it)")
    if run.exhausted:
        note = f"search space exhausted within the time budget of {budget_text}"
    else:
        found = run.best is not None
        note = (f"time budget of {budget_text} used after {space.checks} checks; "
                + ("the result is not proven optimal" if found else "no k-anonymous node was found yet"))
        if bound is not None:
            gap = run.best_value - bound
            relative = f" ({100 * gap / abs(run.best_value):.2f} % of the best value)" if run.best_value else ""
            note += (f"; lower bound on the optimum {bound:.6g} (the least of the best value and the objective's "
                     f"monotone lower bound over the {len(run.frontier()):,} "
                     f"unexpanded frontier nodes, which every unexplored node generalizes): gap {gap:.6g}{relative}")
    if run.improvements:
        note += f"; hill climbing improved the incumbent {run.improvements} time(s)"
    structures = run.structures() | space.footprint()
    result = conclude(space, ALGORITHM, objective, [run.best] if run.best is not None else [], start,
                      proven_optimal=run.exhausted, note=note)
    return replace(result, lower_bound=bound, time_budget=budget, structures=structures)
