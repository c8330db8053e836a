"""A new release checked against every earlier release of the same data in the register, before it is written:
the same table (same SHA-256 of its bytes or of its values: records joined by position) or the same people under a
key column (``[register] key``: records joined by their key digests). For each earlier release, the two attacks
that need two releases and no row order:

- the complementary release (Sweeney 2002, ``attacks.joined_classes``): both releases joined on the record; a person
  alone in the joined class is singled out;
- the intersection attack (Ganta et al. 2008, ``attacks.intersection_attack``): per sensitive attribute, a person's
  two classes' values intersected; a single value left reveals it.

The remedy is checked as well: the new release at the earlier release's node, and at the node that generalizes both
(each quasi-identifier at the higher of the two levels; ``attack_checks`` proposes the same node for one release),
each joined with the earlier release."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.register.entries import Footprint, data_identity, key_column, key_digests, node_text
from workbench.risk import attacks

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.register.store import Register
    from workbench.study import RunResult


@dataclass(frozen=True)
class Remedy:
    """A node the new release could be made at instead, and what joining it with the earlier release yields
    (``joined``; None with ``note`` when that node does not meet the rule)."""

    what: str
    node: dict[str, int]
    joined: attacks.ComplementaryRelease | None
    note: str | None = None

    @property
    def safe(self) -> bool:
        return self.joined is not None and not self.joined.unique

    def to_dict(self) -> dict[str, object]:
        return {"what": self.what, "node": self.node, "node_text": node_text(self.node), "safe": self.safe,
                "joined": self.joined.to_dict() if self.joined else None, "note": self.note}


@dataclass(frozen=True)
class EarlierCheck:
    """The new release against one earlier release ``release_id`` of the same data (``matched_by``: the same table
    or a key column): the complementary release, the intersection attack per sensitive attribute, whether the two
    are the same release (same classes), and the remedies checked; ``note`` says why nothing was checked."""

    release_id: int
    created: str
    user: str
    node: dict[str, int] | None
    decision: str | None
    matched_by: str
    complementary: attacks.ComplementaryRelease | None
    intersection: tuple[attacks.IntersectionAttack, ...] = ()
    same_release: bool = False
    remedies: tuple[Remedy, ...] = ()
    note: str | None = None
    current_node: dict[str, int] | None = field(default=None)

    @property
    def singled_out(self) -> int:
        return self.complementary.unique if self.complementary is not None and not self.same_release else 0

    @property
    def revealed(self) -> int:
        return sum(a.new for a in self.intersection) if not self.same_release else 0

    @property
    def matters(self) -> bool:
        return bool(self.singled_out or self.revealed)

    def remedy(self) -> str:
        """What to do, from the remedies checked."""
        safe = [r for r in self.remedies if r.safe]
        if safe:
            return "; or ".join(f"{r.what} ({node_text(r.node)}), which joined with release {self.release_id} singles "
                                "out no one (checked)" for r in safe)
        tried = "; ".join(f"{r.what} ({node_text(r.node)}) " + (r.note or f"would still single out "
                                                                 f"{r.joined.unique:,}" if r.joined else r.note or "")
                          for r in self.remedies)
        return ("do not release this data again at another generalization"
                + (f" ({tried})" if tried else "") + ", or ask the board about the earlier release first")

    def warning(self) -> str:
        """One line for the CLI's stderr, ``--json``'s warnings, the Export page and the report (empty when nothing
        is singled out)."""
        if not self.matters:
            return ""
        c = self.complementary
        assert c is not None
        decided = f"decision: {self.decision}" if self.decision else "no decision recorded"
        parts = []
        if self.singled_out:
            parts.append(f"joined with it on the record, this release singles out {c.unique:,} of {c.records:,} "
                         f"people ({c.below_k:,} in joined groups below {c.k})")
        for a in self.intersection:
            if a.new:
                parts.append(f"intersecting the two releases' classes reveals the {a.attribute} of {a.new:,} people "
                             "that neither release reveals alone")
        return (f"release {self.release_id} of the same data ({self.matched_by}; {self.created}, by {self.user}, "
                f"{node_text(self.node)}, {decided}) was registered before: " + "; ".join(parts)
                + f". What to do: {self.remedy()}")

    def to_dict(self) -> dict[str, object]:
        return {"release_id": self.release_id, "created": self.created, "user": self.user, "node": self.node,
                "node_text": node_text(self.node), "decision": self.decision, "matched_by": self.matched_by,
                "complementary_release": self.complementary.to_dict() if self.complementary else None,
                "intersection": [a.to_dict() for a in self.intersection], "same_release": self.same_release,
                "singled_out": self.singled_out, "revealed": self.revealed, "matters": self.matters,
                "remedies": [r.to_dict() for r in self.remedies], "note": self.note,
                "warning": self.warning(), "remedy": self.remedy() if self.matters else ""}


def _joined_positions(earlier: Footprint, current_keys: np.ndarray | None, n: int, same_data: bool
                      ) -> tuple[np.ndarray, np.ndarray] | str:
    """Which records of the earlier release and of the new one are the same person: by position for the same
    table, else by key digest; or why they cannot be joined."""
    if same_data and earlier.records == n:
        idx = np.arange(n)
        return idx, idx
    if earlier.keys is None or current_keys is None:
        return ("not checked: the tables differ and no key column joins them (name one with [register] key in both "
                "configs)")
    common, ia, ib = np.intersect1d(earlier.keys, current_keys, assume_unique=True, return_indices=True)
    if not common.size:
        return "not checked: no record of the earlier release is in this table (by the key column)"
    return ia, ib


def _remedies(result: RunResult, earlier: Footprint, node: Mapping[str, int] | None, ia: np.ndarray,
              ib: np.ndarray, k: int) -> tuple[Remedy, ...]:
    """The new release at the earlier node and at the node that generalizes both, each checked against the earlier
    release (lattice releases over the same quasi-identifiers only)."""
    from workbench.privacy.build import admissibility_for
    from workbench.release import Release

    release, study, dataset = result.release, result.study, result.dataset
    assert release is not None
    current = release.transformation
    qis = dataset.quasi_identifiers
    if node is None or current is None or set(node) != set(qis) or tuple(earlier.quasi_identifiers) != tuple(qis):
        return ()
    rule = admissibility_for(study, dataset)
    heights = {q: dataset.encoded_column(q).height for q in qis}
    out = []
    candidates = [("release at the earlier node", {q: int(node[q]) for q in qis}),
                  ("release at the node that generalizes both", {q: max(int(node[q]), int(current[q])) for q in qis})]
    seen = set()
    for what, levels in candidates:
        key = tuple(levels.values())
        if key in seen or key == tuple(current[q] for q in qis):
            continue
        seen.add(key)
        if any(levels[q] > heights[q] for q in qis):
            out.append(Remedy(what, levels, None, "is not a node of this table's hierarchies"))
            continue
        other = Release.from_node(dataset, tuple(levels[q] for q in qis), study.k, study.max_suppression, what, rule)
        if not other.verify().holds:
            out.append(Remedy(what, levels, None, "does not meet the privacy model on this table"))
            continue
        codes = Footprint.of(other).codes
        out.append(Remedy(what, levels, attacks.joined_classes(earlier.codes[ia], codes[ib], k)))
    return tuple(out)


def check_earlier(register: Register, result: RunResult, config: Mapping[str, Any] | None = None,
                  footprint: Footprint | None = None) -> list[EarlierCheck]:
    """The new release of ``result`` checked against every earlier release in ``register`` of the same data (same
    digest) or, with ``[register] key`` in ``config``, of a table holding the same people under that key."""
    release, dataset = result.release, result.dataset
    if release is None:
        return []
    config = config if config is not None else result.study.raw
    identity = data_identity(dataset)
    key = key_column(config, dataset)
    current_keys = key_digests(dataset.frame[key], register.key_salt(), f" of {dataset.source}") if key else None
    footprint = footprint or Footprint.of(release, current_keys)
    digests = {identity["data_sha256"], identity["content_sha256"]}
    out = []
    for row in register.releases(digests, with_footprint=True, key_column=key):
        same_data = bool({row["data_sha256"], row["content_sha256"]} & digests)
        matched = "the same table" if same_data else f"the same people by the key column {row['key_column']!r}"
        base = {"release_id": int(row["id"]), "created": row["created"], "user": row["user_name"],
                "node": row["node"], "decision": (row["decision"] or {}).get("decision"), "matched_by": matched,
                "current_node": dict(release.transformation) if release.transformation else None}
        if row["footprint"] is None:
            out.append(EarlierCheck(**base, complementary=None, note="not checked: the register holds no footprint "
                                                                     "of it (too large when recorded)"))
            continue
        earlier = Footprint.from_bytes(row["footprint"])
        joined = _joined_positions(earlier, current_keys, dataset.n, same_data)
        if isinstance(joined, str):
            out.append(EarlierCheck(**base, complementary=None, note=joined))
            continue
        ia, ib = joined
        k = min(int(row["k"]), result.study.k)
        a, b = earlier.codes[ia], footprint.codes[ib]
        comp = attacks.joined_classes(a, b, k)
        same = comp.classes == len(np.unique(a)) == len(np.unique(b))
        inter = tuple(attacks.intersection_attack(a, b, dataset.frame[s].to_numpy()[ib], s)
                      for s in _sensitive(dataset))
        check = EarlierCheck(**base, complementary=comp, intersection=inter, same_release=same)
        if check.matters:
            check = EarlierCheck(**base, complementary=comp, intersection=inter, same_release=same,
                                 remedies=_remedies(result, earlier, row["node"], ia, ib, k))
        out.append(check)
    return out


def _sensitive(dataset: Dataset) -> Sequence[str]:
    return dataset.attributes("sensitive")
