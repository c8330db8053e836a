"""Search traces: what a lattice search evaluated, in order, and what it knew by prediction."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from workbench.lattice.space import Node

CHECK = "check"  # the node was evaluated (a k-anonymity check)
PREDICTED = "predicted"  # its k-anonymity was known by predictive tagging when the search asked
PRUNED = "pruned"  # the objective bound was exceeded: the node and its generalizations are excluded


@dataclass(frozen=True)
class TraceEvent:
    step: int
    node: Node
    action: str
    k_anonymous: bool | None
    suppressed: int | None = None
    seconds: float = 0.0


@dataclass
class Trace:
    """The ordered events of one search, with check and roll-up counts and time. ``subset_checks``: the
    evaluations on quasi-identifier subset lattices (Incognito), which are not events of this lattice."""

    events: list[TraceEvent] = field(default_factory=list)
    rollups: int = 0
    subset_checks: int = 0
    seconds: float = 0.0
    _start: float = field(default_factory=time.perf_counter, repr=False)

    def record(self, node: Node, action: str, k_anonymous: bool | None, suppressed: int | None = None) -> None:
        self.events.append(TraceEvent(len(self.events), tuple(node), action, k_anonymous, suppressed,
                                      time.perf_counter() - self._start))

    def count(self, action: str) -> int:
        return sum(1 for e in self.events if e.action == action)

    @property
    def lattice_checks(self) -> int:
        """Full-lattice nodes evaluated (the check events)."""
        return self.count(CHECK)

    @property
    def checks(self) -> int:
        """Every evaluation: full-lattice nodes and subset-lattice nodes."""
        return self.lattice_checks + self.subset_checks

    @property
    def checked(self) -> list[Node]:
        """Nodes evaluated, in order."""
        return [e.node for e in self.events if e.action == CHECK]

    def as_dict(self, names: tuple[str, ...] = ()) -> dict[str, object]:
        return {
            "quasi_identifiers": list(names),
            "checks": self.checks,
            "lattice_checks": self.lattice_checks,
            "subset_checks": self.subset_checks,
            "predicted": self.count(PREDICTED),
            "pruned": self.count(PRUNED),
            "rollups": self.rollups,
            "seconds": self.seconds,
            "events": [asdict(e) | {"node": list(e.node)} for e in self.events],
        }
