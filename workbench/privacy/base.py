"""The admissibility seam: one rule decides whether a lattice node (or a release) is admissible.

ARX's semantics (Prasser, Kohlmayer et al., "Flexible data anonymization using ARX", 2016; ARX's
``PrivacyCriterion``): every equivalence class is checked against k and every configured privacy model; the
records of a class that fails any of them are suppressed, and the node is admissible when the suppressed
records are within the limit, ``suppressed <= floor(max_suppression · n)`` (El Emam 2009). Release-level
models (risk thresholds, ARX's ``SampleBasedCriterion``) then look at the classes that are left and may
suppress more of them, smallest first, within the same limit.

A model declares whether it is monotone with suppression (the suppressed records of a generalization are a
subset of those below it, so "admissible" propagates up and "not admissible" down at any limit) and with
generalization (it holds for a merged class when it holds for every part: monotone when nothing may be
suppressed). The searches use predictive tagging only when ``Admissibility.monotone`` says it is sound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.grouping import class_sizes, distinct_rows, group_rows


@dataclass(frozen=True)
class Extra:
    """A per-record column the models look at besides the quasi-identifiers (a sensitive attribute's value
    codes, or research-subset membership), carried through the frequency sets ungeneralized."""

    name: str
    codes: np.ndarray  # (n,) int codes in [0, cardinality)
    cardinality: int


@dataclass(eq=False)
class ClassView:
    """The equivalence classes of one generalization as the models see them: class sizes and, per extra
    column, the distinct (class, value) pairs with their record counts (a sparse per-class histogram); and,
    when the generalization is a lattice node, the node and each class's quasi-identifier codes at its levels
    (``EncodedColumn.level_codes``), which δ-presence looks up in the population."""

    sizes: np.ndarray  # (E,) records per class
    detail_class: np.ndarray  # (D,) class of each detail row
    detail_codes: np.ndarray  # (D, x) extra codes of each detail row
    detail_counts: np.ndarray  # (D,) records per detail row
    columns: Mapping[str, int]  # extra name -> column of detail_codes
    cardinalities: Mapping[str, int]
    node: tuple[int, ...] | None = None  # the lattice node of the classes, when they are one
    keys: np.ndarray | None = None  # (E, r) each class's level codes at ``node``
    _pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def classes(self) -> int:
        return int(self.sizes.size)

    def pairs(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class, value, count) of every value present in a class, sorted by class then value."""
        hit = self._pairs.get(name)
        if hit is None:
            col = self.detail_codes[:, self.columns[name]]
            if len(self.columns) == 1:  # detail rows are already distinct (class, value) pairs, in order
                hit = (self.detail_class, col.astype(np.int64), self.detail_counts)
            else:
                rows, counts = distinct_rows(np.stack([self.detail_class, col], axis=1),
                                             [max(self.classes, 1), self.cardinalities[name]], self.detail_counts)
                hit = (rows[:, 0].astype(np.int64), rows[:, 1].astype(np.int64), counts)
            self._pairs[name] = hit
        return hit

    def dense(self, name: str) -> np.ndarray:
        """The (E, m) matrix of records per class and value of one extra column."""
        cls, val, cnt = self.pairs(name)
        m = self.cardinalities[name]
        out = np.zeros(self.classes * m, dtype=np.int64)
        np.add.at(out, cls * m + val, cnt)
        return out.reshape(self.classes, m)

    @classmethod
    def from_records(cls, class_index: np.ndarray, n_classes: int, extras: Sequence[Extra],
                     weights: np.ndarray | None = None, node: Sequence[int] | None = None,
                     keys: np.ndarray | None = None) -> ClassView:
        """The view of a table from each record's class (``class_index``) and the extra columns (with the
        lattice ``node`` and the classes' level codes ``keys`` when known)."""
        w = np.ones(class_index.size, dtype=np.int64) if weights is None else weights.astype(np.int64)
        sizes = np.bincount(class_index, weights=w, minlength=n_classes).astype(np.int64)
        where = {"node": None if node is None else tuple(int(v) for v in node), "keys": keys}
        if not extras:
            return cls(sizes, np.zeros(0, np.int64), np.zeros((0, 0), np.int64), np.zeros(0, np.int64), {}, {},
                       **where)
        codes = np.stack([class_index, *[e.codes for e in extras]], axis=1)
        rows, counts = distinct_rows(codes, [max(n_classes, 1), *[e.cardinality for e in extras]], w)
        return cls(sizes, rows[:, 0].astype(np.int64), rows[:, 1:].astype(np.int64), counts,
                   {e.name: j for j, e in enumerate(extras)}, {e.name: e.cardinality for e in extras}, **where)


class PrivacyModel:
    """A privacy model besides k-anonymity. Class-level models say which classes violate it (their records
    are suppressed); release-level models judge the kept classes as a whole (``release_level``)."""

    id: str = ""
    release_level: bool = False
    monotone_with_suppression: bool = False
    monotone_with_generalization: bool = True
    extras: tuple[Extra, ...] = ()
    minimal_class_size: int | None = None  # a class smaller than this cannot hold (ℓ-diversity: ⌈ℓ⌉; ARX's
    # ``PrivacyCriterion.getMinimalClassSize``)

    def violating(self, view: ClassView) -> np.ndarray:
        """Per class: does it violate the model? (class-level models)"""
        return np.zeros(view.classes, dtype=bool)

    def fulfilled(self, kept_sizes: np.ndarray, n: int) -> bool:
        """Do the kept classes (sizes) of a table of n records fulfil the model? (release-level models)"""
        return True

    def fulfilled_prefixes(self, rest: np.ndarray, removable: np.ndarray, n: int) -> np.ndarray | None:
        """For p = 1..len(removable): ``fulfilled`` on the kept classes ``rest`` and ``removable[p:]`` (the smallest
        classes suppressed one at a time, ``Admissibility``'s enforcement), all at once; None when the model has no
        vectorized form (the enforcement then asks ``fulfilled`` one step at a time)."""
        return None

    def node_fulfilled(self, view: ClassView) -> bool:
        """Does the generalization hold whatever is suppressed? (class-level models; False vetoes the node, as
        δ-presence does for population classes without a subset record). Asked only when no minimal class size
        applies (``Admissibility.node_fulfilled``)."""
        return True

    def describe(self) -> str:
        return self.id

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id}


@dataclass(frozen=True)
class Outcome:
    """Which classes of a generalization are suppressed, and whether it is admissible."""

    suppress: np.ndarray  # (E,) bool: records of these classes are suppressed
    suppressed: int
    admissible: bool
    models: dict[str, bool]  # per model: does it hold on the kept classes (before the limit is applied)


class Admissibility:
    """k with the suppression limit, plus every configured privacy model: the one admissibility rule.

    ``k = 1`` is no k constraint. ``limit`` is ``floor(max_suppression · n)``; ``within(s)`` the limit test."""

    def __init__(self, k: int, max_suppression: float, n: int, models: Sequence[PrivacyModel] = ()) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if not 0.0 <= max_suppression <= 1.0:
            raise ValueError(f"max_suppression must be in [0, 1], got {max_suppression}")
        self.k, self.max_suppression, self.n = k, max_suppression, n
        self.models = tuple(models)
        self.limit = limit_of(max_suppression, n)
        sizes = [k] if k > 1 else []
        sizes += [m.minimal_class_size for m in self.models if m.minimal_class_size is not None]
        self.minimal_class_size: int | None = max(sizes) if sizes else None
        seen: dict[str, Extra] = {}
        for m in self.models:
            for e in m.extras:
                seen.setdefault(e.name, e)
        self.extras = tuple(seen.values())

    def suppressed_records(self, codes: np.ndarray, cards: Sequence[int] | None = None,
                           node: Sequence[int] | None = None) -> np.ndarray:
        """Per record of a table of class codes (one column per quasi-identifier, ``cards`` their code counts;
        the level codes of lattice ``node`` when given): is it suppressed, being in a class smaller than k or
        violating a privacy model (``outcome``)? The rule a node's evaluation and its Release share."""
        if self.plain:
            return class_sizes(codes, cards) < self.k
        groups = group_rows(codes, cards, with_inverse=True)
        assert groups.inverse is not None
        view = ClassView.from_records(groups.inverse, groups.size, self.extras, node=node,
                                      keys=None if node is None else np.asarray(codes)[groups.first])
        return self.outcome(view).suppress[groups.inverse]

    def node_fulfilled(self, model: PrivacyModel, view: ClassView) -> bool:
        """A class-level model's verdict on the node beyond its classes' (``PrivacyModel.node_fulfilled``), asked
        only without a minimal class size: ARX (``HashGroupify.isPrivacyModelFulfilled``) checks a class's size
        against k (or ℓ) before any model, so a population class without a released record fails that check at no
        cost, and δ-presence never sees it."""
        return self.minimal_class_size is not None or model.node_fulfilled(view)

    def within(self, suppressed: int) -> bool:
        """Is this many suppressed records within the limit?"""
        return suppressed <= self.limit

    @property
    def monotone(self) -> bool:
        """Is admissibility monotone over the lattice (predictive tagging sound)? k-anonymity with suppression
        is; each model must be monotone with suppression, or with generalization when nothing is suppressed."""
        return not self.non_monotone_models()

    def non_monotone_models(self) -> list[PrivacyModel]:
        return [m for m in self.models if not (m.monotone_with_suppression
                                               or (self.limit == 0 and m.monotone_with_generalization))]

    @property
    def plain(self) -> bool:
        """k only (no privacy model): class sizes decide everything."""
        return not self.models

    def outcome(self, view: ClassView) -> Outcome:
        """Suppress the classes smaller than k or violating a class-level model; then, for release-level
        models, the smallest kept classes until they hold (ARX's ``RiskBasedCriterion.enforce``)."""
        sizes = view.sizes
        suppress = sizes < self.k
        models: dict[str, bool] = {}
        for m in self.models:  # a class-level model holds on every kept class by construction, bar a veto
            if not m.release_level:
                suppress = suppress | m.violating(view)
                models[m.describe()] = self.node_fulfilled(m, view)
        release = [m for m in self.models if m.release_level]
        if release:
            suppress = self._enforce(sizes, suppress, release)
            kept = sizes[~suppress]
            for m in release:
                models[m.describe()] = m.fulfilled(kept, self.n)
        suppressed = int(sizes[suppress].sum())
        admissible = self.within(suppressed) and all(models.values())
        return Outcome(suppress, suppressed, admissible, models)

    def _enforce(self, sizes: np.ndarray, suppress: np.ndarray, release: Sequence[PrivacyModel]) -> np.ndarray:
        """Suppress the smallest kept classes one at a time, while the limit allows, until every release-level model
        holds (the first such step); unchanged when none does. Every model's ``fulfilled_prefixes`` judges all the
        steps at once; without it, ``_enforce_stepwise`` asks each step in turn."""
        kept = sizes[~suppress]
        if all(m.fulfilled(kept, self.n) for m in release):
            return suppress
        order = np.flatnonzero(~suppress)
        order = order[np.argsort(sizes[order], kind="stable")]
        budget = self.limit - int(sizes[suppress].sum())
        steps = int(np.searchsorted(np.cumsum(sizes[order]), budget, side="right")) if budget >= 0 else 0
        removable, rest = sizes[order[:steps]], sizes[order[steps:]]
        held = [m.fulfilled_prefixes(rest, removable, self.n) for m in release]
        if any(h is None for h in held):
            return self._enforce_stepwise(sizes, suppress, release)
        first = np.flatnonzero(np.logical_and.reduce([np.asarray(h, dtype=bool) for h in held]))
        if not first.size:
            return suppress
        mask = suppress.copy()
        mask[order[:int(first[0]) + 1]] = True
        return mask

    def _enforce_stepwise(self, sizes: np.ndarray, suppress: np.ndarray, release: Sequence[PrivacyModel]
                          ) -> np.ndarray:
        """``_enforce`` one step at a time (ARX ``RiskBasedCriterion.enforce``'s order)."""
        def ok(mask: np.ndarray) -> bool:
            kept = sizes[~mask]
            return all(m.fulfilled(kept, self.n) for m in release)

        if ok(suppress):
            return suppress
        order = np.flatnonzero(~suppress)
        order = order[np.argsort(sizes[order], kind="stable")]
        budget = self.limit - int(sizes[suppress].sum())
        mask = suppress.copy()
        for i in order:  # smallest classes first, while the limit allows
            if sizes[i] > budget:
                break
            mask[i] = True
            budget -= int(sizes[i])
            if ok(mask):
                return mask
        return suppress

    def describe(self) -> list[str]:
        return [m.describe() for m in self.models]


def limit_of(max_suppression: float, n: int) -> int:
    """The suppression limit: ``floor(max_suppression · n)`` records (MEASURES.md; the 1e-9 absorbs a product
    such as 0.07 · 100 = 7.000000000000001)."""
    return math.floor(max_suppression * n + 1e-9)
