"""Typed inputs and results shared by the lattice search algorithms."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from workbench.lattice.evaluate import NodeEvaluation
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice
from workbench.lattice.trace import Trace


@dataclass(frozen=True)
class Objective:
    """The loss a search minimizes, built by the study runner from the measure registry.

    ``lower_bound(x)`` is a lower bound of the objective at x and at every generalization of x, and is itself
    monotone (for a monotone objective it is the objective). ``monotone`` says whether the objective is;
    ``integer`` whether its values are integers (DM, DM*, height), which bnb compares without tolerance.
    """

    id: str
    value: Callable[[Node], float]
    lower_bound: Callable[[Node], float]
    monotone: bool
    integer: bool = False  # values are integers (exact below 2**53): bnb prunes on them without tolerance
    cheap_bound: bool = False  # the lower bound reads the node's levels alone (no frequency set): Flash and OLA
    # may ask it of nodes they never check, to skip those whose bound exceeds the best value (ARX's pruning)

    def __call__(self, node: Node) -> float:
        return self.value(node)


Progress = Callable[[float, str], None]
"""``progress(share of the lattice decided, what is happening)``: told from time to time by a long search."""


@dataclass(frozen=True)
class Limits:
    """Search limits: ``time_limit`` (seconds; anytime algorithms return the best so far), ``seed`` (for randomized
    tie-breaking, e.g. Datafly's), ``prune`` (Flash starts no binary phase at a node whose objective bound exceeds
    the best value found, as ARX does, when the bound is cheap: the optimum is the same, but the k-minimal set is
    then not complete and not reported) and ``progress`` (told the share of the lattice decided, about twice a
    second, by Flash and OLA)."""

    time_limit: float | None = None
    seed: int = 0
    prune: bool = False
    progress: Progress | None = field(default=None, compare=False)

    def deadline(self, start: float) -> float | None:
        """The ``time.perf_counter()`` value at which an anytime search stops (None: no limit)."""
        return start + self.time_limit if self.time_limit is not None else None

    def timeout_note(self, checks: int, found: bool, share: float | None = None) -> str:
        """What a search that hit the time limit says about its result (with the share of the lattice it decided,
        when known)."""
        outcome = "best node found, not proven optimal" if found else "no k-anonymous node was found yet"
        if share is None:
            return f"time limit of {self.time_limit:g} s reached after {checks} checks; {outcome}"
        return (f"time limit of {self.time_limit:g} s reached: searched {searched_percent(share)} of the lattice in "
                f"{self.time_limit:g} s ({checks:,} checks); {outcome}")


def searched_percent(share: float) -> str:
    """A share of the lattice in percent, never rounded up to 100 % nor down to 0 % when it is neither."""
    percent = 100 * share
    if 0 < percent < 1:
        return f"{percent:.1g} %" if percent >= 0.1 else "under 0.1 %"
    if 99 < percent < 100:
        return "over 99 %"
    return f"{percent:.0f} %"


NO_LIMITS = Limits()


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the optimum (None if no node is k-anonymous), its objective value, whether it
    is proven optimal, the number of node checks, wall time, the evaluations in order and the trace.

    ``checks`` counts every k-anonymity evaluation the search made, so that it compares across algorithms:
    for Incognito it includes the ``subset_checks`` on quasi-identifier subset lattices (as ARX's benchmark
    counts them); ``lattice_checks`` are those of full-lattice nodes (the trace's check events)."""

    algorithm: str
    optimum: Node | None
    value: float | None
    proven_optimal: bool
    checks: int
    seconds: float
    evaluations: tuple[NodeEvaluation, ...] = ()
    trace: Trace = field(default_factory=Trace)
    k_minimal: tuple[Node, ...] = ()
    note: str = ""
    subset_checks: int = 0  # Incognito: the part of ``checks`` made on quasi-identifier subset lattices
    # anytime heuristics (LIGHTNING): a lower bound on the optimum (None: none known), the time budget used (seconds)
    # and the approximate bytes of the largest structures the search held
    lower_bound: float | None = None
    time_budget: float | None = None
    structures: Mapping[str, int] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """The value's distance to ``lower_bound`` (0 when proven optimal; None when no bound is known)."""
        if self.value is None or self.lower_bound is None:
            return None
        return self.value - self.lower_bound

    @property
    def lattice_checks(self) -> int:
        """The checks of full-lattice nodes (``checks`` without the subset lattices')."""
        return self.checks - self.subset_checks


TIE_RTOL = 1e-9  # non-integer objective values this close (relative) are ties: rounding noise, not a difference


def tie_key(node: Node, value: float) -> tuple[float, int, Node]:
    """Order of preference: lowest objective, then lowest height, then lexicographically smallest (see
    ``preferred`` for what counts as equal)."""
    return (value, sum(node), node)


def same_value(a: float, b: float) -> bool:
    """Are two objective values a tie? Integral values (DM, DM*, height: exact in a float below 2**53) only when
    equal, so two that differ by 1 at 10**12 are not a tie. Other values within a relative ``TIE_RTOL``: the fast
    paths combine per-attribute terms with an exactly rounded sum, but mathematically equal values of two
    different nodes come from different terms (different logarithms), whose roundings can differ in the last
    bits."""
    if a == b:
        return True
    if float(a).is_integer() and float(b).is_integer():
        return False
    return abs(a - b) <= TIE_RTOL * max(abs(a), abs(b))


def preferred(node: Node, value: float, other: Node, other_value: float) -> bool:
    """Is ``node`` (with objective ``value``) preferred to ``other``: a lower value that is not a tie
    (``same_value``), else on a tie the lower height, then the lexicographically smaller node."""
    if not same_value(value, other_value):
        return value < other_value
    return (sum(node), node) < (sum(other), other)


def best_of(values: Mapping[Node, float]) -> Node | None:
    """The preferred node of ``{node: objective value}``: among the nodes whose value ties the lowest
    (``same_value``), the lowest, then lexicographically smallest."""
    if not values:
        return None
    lowest = min(values.values())
    return min((n for n, v in values.items() if same_value(v, lowest)), key=lambda n: (sum(n), n))


def conclude(space: TaggedLattice, algorithm: str, objective: Objective, candidates: Iterable[Node],
             start: float, *, proven_optimal: bool, k_minimal: Iterable[Node] = (), note: str = "",
             subset_checks: int = 0, scored: Mapping[Node, float] | None = None) -> SearchResult:
    """The SearchResult of a search that ends with these k-anonymous ``candidates``: the preferred one under
    ``tie_key``, the checks, evaluations and trace of ``space``, and the wall time since ``start``. ``scored``:
    objective values the search already has (taken as they are, rather than computed again)."""
    values = {}
    scored = scored or {}
    for node in candidates:
        if space.known(node) is not True:
            raise AssertionError(f"{algorithm}: candidate {node} is not known to be k-anonymous")
        node = tuple(node)
        value = scored.get(node)
        values[node] = objective(node) if value is None else value
    optimum = best_of(values)
    seconds = time.perf_counter() - start
    trace = space.finish(seconds)
    trace.subset_checks = subset_checks
    return SearchResult(
        algorithm=algorithm,
        optimum=optimum,
        value=values[optimum] if optimum is not None else None,
        proven_optimal=proven_optimal and optimum is not None,
        checks=space.checks + subset_checks,
        seconds=seconds,
        evaluations=tuple(space.evaluated.values()),
        trace=trace,
        k_minimal=tuple(k_minimal),
        note=note,
        subset_checks=subset_checks,
    )



class KMinimalRun:
    """What OLA and Flash share: the tagged lattice, the deadline, and the k-anonymity asked of ``space`` once per
    node (``known``; the answer never changes). ``found(node)`` hears of every node a check found k-anonymous,
    which is scored at once (``scored``), while its frequency set is the evaluator's latest: the result is
    concluded from these values, without building any frequency set again. ``progress`` is told the share of the
    lattice decided about twice a second."""

    def __init__(self, space: TaggedLattice, deadline: float | None, objective: Objective | None = None,
                 progress: Progress | None = None) -> None:
        self.space = space
        self.deadline = deadline
        self.undecided = space.undecided
        self.known: dict[Node, bool] = {}
        self.timed_out = False
        self.objective = objective
        self.scored: dict[Node, float] = {}
        self.progress = progress
        self._next_report = time.perf_counter() + _REPORT_EVERY if progress is not None else math.inf

    def found(self, node: Node) -> None:
        """A check found ``node`` k-anonymous."""

    def score(self, node: Node) -> float:
        """The objective at a k-anonymous node, computed once."""
        value = self.scored.get(node)
        if value is None:
            assert self.objective is not None
            value = self.scored[node] = self.objective(node)
        return value

    def status(self, node: Node) -> bool:
        """``space.status(node)``, asked once: by prediction when possible, else by a check."""
        answer = self.known.get(node)
        if answer is None:
            checks = self.space.checks
            answer = self.known[node] = self.space.status(node)
            if self.space.checks != checks and answer:
                if self.objective is not None:
                    self.score(node)
                self.found(node)
        return answer

    def out_of_time(self) -> bool:
        if not self.timed_out:
            now = time.perf_counter()
            if self.deadline is not None and now > self.deadline:
                self.timed_out = True
            elif now >= self._next_report:
                self._next_report = now + _REPORT_EVERY
                assert self.progress is not None
                self.progress(self.space.decided_share(), f"{self.space.checks:,} nodes checked")
        return self.timed_out


_REPORT_EVERY = 0.5  # seconds between two progress reports


class Outcome(NamedTuple):
    """What a run of OLA or Flash returns: the candidates (k-anonymous nodes, scored or not), whether the time limit
    stopped it, a note, the objective values it has already computed, and the k-minimal nodes to report (all of
    them, or none when the run did not decide every node)."""

    candidates: list[Node]
    timed_out: bool
    note: str
    scored: Mapping[Node, float]
    k_minimal: list[Node]


def search_k_minimal(space: TaggedLattice, algorithm: str, objective: Objective, limits: Limits,
                     run: Callable[[float | None], Outcome]) -> SearchResult:
    """Time a search that decides every node and keeps the k-minimal ones (OLA, El Emam 2009; Flash, Kohlmayer
    et al. 2012) and conclude it. ``run(deadline)`` returns its ``Outcome``. With a monotone objective the best
    k-minimal node is the optimum, proven unless the time limit stopped the search; then the best k-anonymous node
    scored so far is returned and the incomplete k-minimal set is not reported."""
    start = time.perf_counter()
    out = run(limits.deadline(start))
    if out.timed_out:
        candidates = list(out.scored) or out.candidates
        note = "; ".join(part for part in (out.note, limits.timeout_note(space.checks, bool(candidates),
                                                                         space.decided_share())) if part)
        return conclude(space, algorithm, objective, candidates, start, proven_optimal=False, note=note,
                        scored=out.scored)
    return conclude(space, algorithm, objective, out.candidates, start, proven_optimal=True, k_minimal=out.k_minimal,
                    note=out.note, scored=out.scored)
