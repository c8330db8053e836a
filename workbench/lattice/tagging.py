"""Predictive tagging, in one place for every search (El Emam 2009; Kohlmayer/Prasser 2016).

"k-anonymous" propagates up (to generalizations), "not k-anonymous" propagates down (to specializations),
both by monotonicity of k-anonymity with suppression (Samarati 2001). With a privacy model that is not
monotone (``Admissibility.monotone``; e.g. entropy ℓ-diversity with a suppression limit) checks are never
propagated: every node is checked, and only facts learned otherwise (``tag``) are used. "Objective bound exceeded"
propagates up: the bound is a monotone lower bound of the objective. Each property is an antichain store;
the searches ask ``status(node)`` and never evaluate a node whose answer is already implied.
"""

from __future__ import annotations

import sys
from collections.abc import Collection
from itertools import islice

import numpy as np

from workbench.lattice.antichain import DOWN, UP, AntichainStore
from workbench.lattice.evaluate import NodeEvaluation, NodeEvaluator
from workbench.lattice.space import Lattice, Node
from workbench.lattice.trace import CHECK, PREDICTED, PRUNED, Trace
from workbench.lattice.undecided import ANONYMOUS, UNDECIDED, UndecidedNodes


class TaggedLattice:
    """A lattice whose nodes' k-anonymity is learned by checks and predictive tagging, with a trace."""

    def __init__(self, evaluator: NodeEvaluator) -> None:
        self.evaluator = evaluator
        self.lattice: Lattice = evaluator.lattice
        width = len(self.lattice.heights)
        self._anonymous = AntichainStore(width, UP)
        self._not_anonymous = AntichainStore(width, DOWN)
        self._pruned = AntichainStore(width, UP)
        self._pruned_grid: np.ndarray | None = None  # the pruned up-sets, kept beside the dense undecided grid
        self._pruned_flat: np.ndarray | None = None  # the same, flat (indexed by dense id)
        self._pruned_nodes = 0  # nodes pruned (each outside the up-sets of those pruned before it)
        self.evaluated: dict[Node, NodeEvaluation] = {}
        self._pending: list[NodeEvaluation] = []  # checked, not yet in the stores (filled on first prediction)
        self._predicted: set[Node] = set()
        self._undecided: UndecidedNodes | None = None
        self._tagged = False  # facts learned otherwise are in the stores only
        self.trace = Trace()
        self._rollups0 = evaluator.rollups
        self.monotone = evaluator.admissibility.monotone  # may checks be propagated (predictive tagging)?

    # ------------------------------------------------------------------ k-anonymity
    def known(self, node: Node) -> bool | None:
        """k-anonymity of a node if already known (checked or predicted), else None. Never evaluates."""
        e = self.evaluated.get(node)
        if e is not None:
            return e.k_anonymous
        if self._undecided is not None and not self._tagged:  # the dense grid knows every check's closure
            state = self._undecided.state(node)
            return None if state == UNDECIDED else state == ANONYMOUS
        self._flush()
        if self._anonymous.covers(node):
            return True
        if self._not_anonymous.covers(node):
            return False
        return None

    def check(self, node: Node) -> NodeEvaluation:
        """Evaluate a node (once) and tag it; the evaluation is recorded in the trace."""
        node = tuple(node)
        e = self.evaluated.get(node)
        if e is None:
            e = self.evaluator.evaluate(node)
            self.evaluated[node] = e
            self.trace.record(node, CHECK, e.k_anonymous, e.suppressed)
            if not self.monotone:
                return e
            self._pending.append(e)
            if self._undecided is not None:
                self._undecided.learn(node, e.k_anonymous)
        return e

    @property
    def undecided(self) -> UndecidedNodes | None:
        """The nodes whose k-anonymity is not yet decided, as dense arrays for range queries (None when the
        lattice is too large for them). Built on first use from the checks so far, then kept current."""
        if self._undecided is None and self.monotone and UndecidedNodes.fits(self.lattice):
            self._undecided = UndecidedNodes(self.lattice)
            for e in self.evaluated.values():
                self._undecided.learn(e.node, e.k_anonymous)
        return self._undecided

    def _flush(self) -> None:
        """Put checked nodes into the antichain stores. Deferred until a prediction is asked for, so searches
        that never ask (exhaustive) pay nothing; the stored antichains do not depend on insertion order."""
        for e in self._pending:
            (self._anonymous if e.k_anonymous else self._not_anonymous).insert(e.node)
        self._pending.clear()

    def status(self, node: Node) -> bool:
        """Is the node k-anonymous? Answered by prediction when possible, else by a check."""
        node = tuple(node)
        answer = self.known(node)
        if answer is None:
            return self.check(node).k_anonymous
        if node not in self.evaluated and node not in self._predicted:
            self._predicted.add(node)
            self.trace.record(node, PREDICTED, answer)
        return answer

    def tag(self, node: Node, k_anonymous: bool) -> None:
        """Record a k-anonymity fact learned otherwise (e.g. Incognito's subset property)."""
        self._tagged = True
        (self._anonymous if k_anonymous else self._not_anonymous).insert(tuple(node))

    # ------------------------------------------------------------------ objective bound
    def prune(self, node: Node) -> None:
        """The objective's lower bound at node exceeds the best value: exclude it and its generalizations."""
        node = tuple(node)
        if self._pruned_grid is not None:  # the grid answers every query: no antichain to keep (an insert scans it)
            assert self._pruned_flat is not None and self._undecided is not None
            if not self._pruned_flat[self._undecided.index(node)]:
                self._pruned_grid[tuple(slice(v, None) for v in node)] = True
                self._pruned_nodes += 1
                self.trace.record(node, PRUNED, self.known(node))
            return
        if self._pruned.insert(node):
            self._pruned_nodes += 1
            self.trace.record(node, PRUNED, self.known(node))

    def is_pruned(self, node: Node) -> bool:
        """Is node pruned (a generalization of a pruned node)? With the dense grid of undecided nodes, one
        lookup in a grid of the pruned up-sets; else a query of the antichain store."""
        grid = self._pruned_grid
        if grid is None and self._undecided is not None:
            grid = self._pruned_grid = np.zeros(tuple(h + 1 for h in self.lattice.heights), dtype=bool)
            for n in self._pruned:
                grid[tuple(slice(v, None) for v in n)] = True
            self._pruned_flat = grid.reshape(-1)
        if grid is not None:
            return bool(self._pruned_flat[self._undecided.index(node)])
        return self._pruned.covers(tuple(node))

    def open_at_rank(self, rank: int) -> np.ndarray | None:
        """The nodes of one rank whose k-anonymity is undecided and that are not pruned, as rows of levels (one
        vectorized query of the dense grid; None without it)."""
        u = self.undecided
        if u is None or self._tagged:
            return None
        part = u.rows.rank_range(rank, rank)
        ids = u.rows.ids[part]
        keep = u.status[ids] == UNDECIDED
        if self._pruned_nodes:
            self.is_pruned(self.lattice.bottom)  # builds the grid of the pruned up-sets
            assert self._pruned_flat is not None
            keep &= ~self._pruned_flat[ids]
        return u.rows.coords[part][keep]

    # ------------------------------------------------------------------ bookkeeping
    def decided_share(self) -> float:
        """The share of the lattice's nodes a search has settled: k-anonymity decided (checked or predicted) or
        pruned. Exact with the dense grid of undecided nodes; on larger lattices, the nodes the search asked about
        (checked, predicted or pruned), a lower bound."""
        size = self.lattice.size
        if self._undecided is not None and not self._tagged:
            open_ = self._undecided.flags
            if self._pruned_nodes:
                self.is_pruned(self.lattice.bottom)  # builds the grid of the pruned up-sets
                assert self._pruned_flat is not None
                open_ &= ~self._pruned_flat
            return 1.0 - int(np.count_nonzero(open_)) / size
        return min(1.0, (len(self.evaluated) + len(self._predicted) + self._pruned_nodes) / size)

    @property
    def checks(self) -> int:
        return len(self.evaluated)

    def footprint(self) -> dict[str, int]:
        """Approximate bytes of what this tagged lattice holds: the checked nodes, the trace, the predicted nodes,
        the antichain stores and, on lattices of at most ``undecided.DENSE_LIMIT`` nodes, the dense grids (the only
        structures sized by the lattice rather than by the nodes a search touched)."""
        sizes = {"checked nodes": container_bytes(self.evaluated), "trace events": container_bytes(self.trace.events),
                 "predicted nodes": container_bytes(self._predicted),
                 "antichain stores": sum(s.nbytes for s in (self._anonymous, self._not_anonymous, self._pruned))}
        if self._undecided is not None:
            sizes["undecided grid (dense, lattice-sized)"] = self._undecided.nbytes
        if self._pruned_grid is not None:
            sizes["pruned grid (dense, lattice-sized)"] = int(self._pruned_grid.nbytes)
        return sizes

    def finish(self, seconds: float) -> Trace:
        self.trace.rollups = self.evaluator.rollups - self._rollups0
        self.trace.seconds = seconds
        return self.trace


def _deep(obj: object) -> int:
    """Bytes of a small object and what it holds one level down (a node tuple, an evaluation, a trace event)."""
    size = sys.getsizeof(obj)
    if isinstance(obj, tuple):
        return size + sum(_deep(x) for x in obj if not isinstance(x, int) or not -5 <= x <= 256)
    fields = getattr(obj, "__dict__", None)
    if fields is not None:
        size += sys.getsizeof(fields) + sum(_deep(v) for v in fields.values() if v is not None)
    return size


def container_bytes(container: Collection[object], sample: int = 64) -> int:
    """Approximate bytes of a dict, set or list and its entries (keys and values), from the mean of a sample of
    the first entries (small ints, cached by Python, count nothing)."""
    n = len(container)
    size = sys.getsizeof(container)
    if not n:
        return size
    if isinstance(container, dict):
        head = [_deep(k) + _deep(v) for k, v in islice(container.items(), sample)]
    else:
        head = [_deep(x) for x in islice(container, sample)]
    return size + round(n * sum(head) / len(head))
