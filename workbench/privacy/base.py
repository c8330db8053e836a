"""The admissibility seam: one rule decides whether a lattice node (or a release) is admissible.

ARX's semantics (Prasser, Kohlmayer et al., "Flexible data anonymization using ARX", 2016; ARX's
``PrivacyCriterion`` and ``HashGroupify.isPrivacyModelFulfilled``): every equivalence class is checked against
the minimal class size (k, or ⌈ℓ⌉ of an ℓ-diversity model) and then every configured class-level model; the
records of a class that fails any of them are suppressed, and the node is admissible when the suppressed
records are within the limit, ``suppressed <= floor(max_suppression · n)`` (El Emam 2009). Release-level
models (risk thresholds, ARX's ``SampleBasedCriterion``) then look at the classes that are left and suppress
more of them until they hold, in ARX's order (``HashGroupifyDistribution``): smallest first; among classes of
one size, lowest information loss first when the objective has a per-class loss (``tie_break``), then the
class whose first record comes first; the number suppressed is found by ARX's binary search
(``suppressWhileNotFulfilledBinary``). As ARX (suppression always enabled), a node that needs more than the
limit is given that suppression and is not admissible.

A model declares whether it is monotone with suppression (the suppressed records of a generalization are a
subset of those below it, so "admissible" propagates up and "not admissible" down at any limit) and with
generalization (it holds for a merged class when it holds for every part: monotone when nothing may be
suppressed). The searches use predictive tagging only when ``Admissibility.monotone`` says it is sound.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
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
    first: Callable[[np.ndarray], np.ndarray] | None = None  # classes -> the row of each one's first record
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

    def first_records(self, classes: np.ndarray) -> np.ndarray:
        """For the given classes (indices): the row of each one's first record (ARX's
        ``HashGroupifyEntry.representative``, which breaks ties in the order of suppression); the class's own index
        when the view does not know its records."""
        classes = np.asarray(classes, dtype=np.int64)
        return np.asarray(self.first(classes), dtype=np.int64) if self.first is not None else classes

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
        first = None if weights is not None else (lambda classes: _first_rows(class_index, n_classes)[classes])
        where = {"node": None if node is None else tuple(int(v) for v in node), "keys": keys, "first": first}
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
    partition_checkable: bool = False
    """``violating`` reads only each class's own records (its size and its sensitive histogram against the whole
    table's), never a lattice node, so it judges any grouping of the records: Mondrian checks every cut with it
    (``workbench.local.mondrian``; LeFevre, DeWitt & Ramakrishnan 2006 §3: a cut is allowable when both sides hold
    the rule). False for a release-level model and one that looks the classes up by their node (δ-presence)."""
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

    def in_words(self) -> str:
        """What the model promises, in plain words for a reader who is not an engineer (the report's first page)."""
        return self.describe()

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id}


@dataclass(frozen=True)
class Outcome:
    """Which classes of a generalization are suppressed, and whether it is admissible."""

    suppress: np.ndarray  # (E,) bool: records of these classes are suppressed
    suppressed: int
    admissible: bool
    models: dict[str, bool]  # per model: does it hold on the kept classes (before the limit is applied)


TieBreak = Callable[[ClassView, np.ndarray], np.ndarray]
"""For some classes of a view (indices), a key ordering classes of one size for suppression (lower first): the
objective's information loss of the class (ARX's ``Metric.getInformationLoss(transformation, entry)``)."""


class Admissibility:
    """k with the suppression limit, plus every configured privacy model: the one admissibility rule.

    ``k = 1`` is no k constraint. ``limit`` is ``floor(max_suppression · n)``; ``within(s)`` the limit test.
    ``tie_break``: ARX's order among classes of one size when a release-level model suppresses some of them
    (``privacy.build.admissibility_for`` gives the objective's per-class loss, when it has one)."""

    def __init__(self, k: int, max_suppression: float, n: int, models: Sequence[PrivacyModel] = (),
                 tie_break: TieBreak | None = None) -> None:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        if not 0.0 <= max_suppression <= 1.0:
            raise ValueError(f"max_suppression must be in [0, 1], got {max_suppression}")
        self.k, self.max_suppression, self.n = k, max_suppression, n
        self.models = tuple(models)
        self.tie_break = tie_break
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
        """Suppress the classes smaller than k or violating a class-level model; then, for each release-level
        model in turn, more classes until it holds (``_enforce``, ARX's ``RiskBasedCriterion.enforce``)."""
        sizes = view.sizes
        suppress = sizes < self.k
        models: dict[str, bool] = {}
        for m in self.models:  # a class-level model holds on every kept class by construction, bar a veto
            if not m.release_level:
                suppress = suppress | m.violating(view)
                models[m.describe()] = self.node_fulfilled(m, view)
        release = [m for m in self.models if m.release_level]
        for m in release:
            suppress = self._enforce(view, suppress, m)
        kept = sizes[~suppress]
        for m in release:
            models[m.describe()] = m.fulfilled(kept, self.n)
        suppressed = int(sizes[suppress].sum())
        admissible = self.within(suppressed) and all(models.values())
        return Outcome(suppress, suppressed, admissible, models)

    def _enforce(self, view: ClassView, suppress: np.ndarray, model: PrivacyModel) -> np.ndarray:
        """Suppress kept classes until a release-level model holds, as ARX (``HashGroupifyDistribution``): the
        kept classes in ARX's order (smallest first, then ``first_suppressed``), and the number of them
        suppressed found by ARX's binary search over that order (``arx_binary_search``), whatever the limit (ARX
        suppresses always; the limit then decides admissibility). Every model judges kept class sizes only, so
        the number is found from the sizes alone, and the order among the classes of the last size suppressed is
        computed only when some of them stay."""
        sizes = view.sizes
        kept = ~suppress
        if model.fulfilled(sizes[kept], self.n):
            return suppress
        ordered = np.sort(sizes[kept])
        held = model.fulfilled_prefixes(np.zeros(0, dtype=np.int64), ordered, self.n)
        if held is not None:
            def holds(p: int) -> bool:
                return bool(held[p - 1])
        else:
            def holds(p: int) -> bool:
                return model.fulfilled(ordered[p:], self.n)
        steps = arx_binary_search(ordered.size, holds)
        if not steps:
            return suppress
        boundary = ordered[steps - 1]
        mask = suppress | (kept & (sizes < boundary))
        same = np.flatnonzero(kept & (sizes == boundary))
        take = steps - int(np.searchsorted(ordered, boundary, side="left"))
        mask[self.first_suppressed(view, same, take)] = True  # some of that size may stay: ARX's order
        return mask

    def first_suppressed(self, view: ClassView, classes: np.ndarray, take: int) -> np.ndarray:
        """The ``take`` of ``classes`` (all of one size) that ARX suppresses first: lowest ``tie_break``, then
        first record (computed only for the classes tied where the cut falls)."""
        if take >= classes.size:
            return classes
        key = np.zeros(classes.size) if self.tie_break is None else \
            np.nan_to_num(np.asarray(self.tie_break(view, classes), dtype=float), nan=np.inf)
        cut = np.sort(key)[take - 1]
        below, tied = classes[key < cut], classes[key == cut]
        need = take - below.size
        if need < tied.size:
            tied = tied[np.argsort(view.first_records(tied), kind="stable")[:need]]
        return np.concatenate([below, tied])

    def describe(self) -> list[str]:
        return [m.describe() for m in self.models]

    def rule_text(self) -> str:
        """The whole rule in words, as every view names it: "k = 5, entropy-3-diversity (shannon) of occupation,
        0.2-closeness (hierarchical distance) of occupation, 4 % suppression"."""
        percent = f"{round(100 * self.max_suppression, 9):g}"
        return ", ".join([f"k = {self.k}", *self.describe(), f"{percent} % suppression"])


def limit_of(max_suppression: float, n: int) -> int:
    """The suppression limit: ``floor(max_suppression · n)`` records (MEASURES.md; the 1e-9 absorbs a product
    such as 0.07 · 100 = 7.000000000000001)."""
    return math.floor(max_suppression * n + 1e-9)


def arx_binary_search(length: int, holds: Callable[[int], bool]) -> int:
    """How many of ``length`` ordered classes ARX suppresses (``HashGroupifyDistribution.
    suppressWhileNotFulfilledBinary``; ``holds(p)``: does the model hold with the first p suppressed?). Suppress
    the first half, then halve towards fewer while it holds and towards more while it does not; at the end, one
    more when it still does not hold. For a model that holds on every longer prefix once it holds (average risk,
    sample uniqueness) this is the shortest prefix that holds; for one that does not (population uniqueness) it
    is ARX's answer, which may differ from the shortest. 0 when there is nothing to suppress."""
    if length <= 0:
        return 0
    low, high = 0, length - 1
    mid = (low + high) // 2
    while low <= high:
        if holds(mid + 1):  # the first mid + 1 classes suppressed
            high = mid - 1
        else:
            low = mid + 1
        mid = int((low + high) / 2)  # Java's integer division truncates: (0 + -1) / 2 is 0
    steps = mid + 1
    if steps < length and not holds(steps):
        steps += 1
    return steps


def _first_rows(class_index: np.ndarray, n_classes: int) -> np.ndarray:
    """Per class: the first row whose class it is (classes without rows: their own index)."""
    first = np.arange(n_classes, dtype=np.int64)
    present, rows = np.unique(class_index, return_index=True)
    first[present] = rows
    return first
