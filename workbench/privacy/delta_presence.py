"""δ-presence (Nergiz, Atzori & Clifton, "Hiding the presence of individuals from shared databases", SIGMOD
2007), as ARX implements it (``DPresence``, ``DataSubset``).

The data file is the population; the research subset is a set of its rows, and the release is the subset. An
attacker who knows someone is in the population should not learn with confidence whether they are in the
release: for every equivalence class of the release, δ = (subset records in the class) / (population records
in the class) must lie in [δ_min, δ_max]. The records of a class outside the range are suppressed (ARX), and
the suppression limit, k and the measures are over the subset's records.

Monotonicity: merging two classes gives the mediant of their δs, between the two, and merging with a class
without subset records lowers δ; so with δ_min = 0 a merged class holds when its parts do (monotone with
generalization), and with δ_min > 0 it may not. Neither is monotone with suppression.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.config import Study
from workbench.data import Dataset, Population
from workbench.errors import ConfigError
from workbench.grouping import KEY_LIMIT, group_rows
from workbench.privacy.base import ClassView, PrivacyModel
from workbench.readers import read_table


def match_subset(population: pd.DataFrame, subset: pd.DataFrame, name: str) -> np.ndarray:
    """The population row of each subset row (ARX's ``DataSubset.create``): identical in every column, each
    population row used once (the first unused copy). Raises one ``ConfigError`` naming the first subset row
    that is not a row of the data, with how many are not."""
    missing_cols = [c for c in population.columns if c not in subset.columns]
    extra_cols = [c for c in subset.columns if c not in population.columns]
    if missing_cols or extra_cols:
        what = (f"lacks the data's column(s) {', '.join(map(repr, missing_cols))}" if missing_cols
                else f"has column(s) {', '.join(map(repr, extra_cols))} the data does not")
        raise ConfigError(f"{name}: the research subset {what}; its rows must be rows of the data")
    cols = list(population.columns)
    both = pd.concat([population[cols].astype(str), subset[cols].astype(str)], ignore_index=True)
    codes = np.stack([pd.factorize(both[c])[0] for c in cols], axis=1)
    groups = group_rows(codes, with_inverse=True)
    assert groups.inverse is not None
    n = len(population)
    pop_key, sub_key = groups.inverse[:n], groups.inverse[n:]
    # the j-th copy of a row in the subset takes the j-th copy of it in the population
    order = np.argsort(pop_key, kind="stable")
    starts = np.searchsorted(pop_key[order], np.arange(groups.size))
    available = np.bincount(pop_key, minlength=groups.size)
    sub_order = np.argsort(sub_key, kind="stable")
    sub_sorted = sub_key[sub_order]
    rank = np.arange(sub_sorted.size) - np.searchsorted(sub_sorted, sub_sorted)
    bad_sorted = rank >= available[sub_sorted]
    if bad_sorted.any():
        bad = np.sort(sub_order[bad_sorted])
        first = int(bad[0])
        shown = ", ".join(f"{c}={subset[c].iat[first]!r}" for c in cols)
        unmatched = available[sub_key[first]] == 0
        reason = "is not a row of the data" if unmatched else "occurs more often than in the data"
        raise ConfigError(f"{name}: {bad.size:,} of its {len(subset):,} rows are not rows of the data; row "
                          f"{first + 1} ({shown}) {reason}. The research subset must be rows of the data file "
                          "(the population)")
    rows = np.empty(len(subset), dtype=np.int64)
    rows[sub_order] = order[starts[sub_sorted] + rank]
    return rows


class PopulationCounts:
    """The population records outside a research subset, counted per class of the subset at any lattice node (what
    δ-presence and k-map with a population table look up). Built from a research-subset dataset
    (``Dataset.population``): the outside records are kept as codes in the subset's code space per level (−1 for a
    label no subset record has at that level: such records share no class with the subset there)."""

    def __init__(self, dataset: Dataset, name: str = "δ-presence") -> None:
        population = dataset.population
        if population is None:
            raise ConfigError(f"{name}: the data is not a research subset of a population")
        self.population_size, self.subset_size = population.n, dataset.n
        outside = np.ones(population.n, dtype=bool)
        outside[population.rows] = False
        others = population.frame.loc[outside]
        self._levels: list[np.ndarray] = []  # per QI: (outside value, level) -> code, -1 when no subset record has it
        value_codes = []
        for col in dataset.encoded:
            values, inverse = np.unique(others[col.name].to_numpy(dtype=str), return_inverse=True)
            table = np.full((values.size, col.height + 1), -1, dtype=np.int64)
            if values.size:
                codes, labels = dataset.hierarchies[col.name].level_matrix(values.tolist())
                for level in range(col.height + 1):
                    where = {label: i for i, label in enumerate(col.labels[level])}
                    lookup = np.array([where.get(label, -1) for label in labels[level]], dtype=np.int64)
                    table[:, level] = lookup[codes[:, level]]
            self._levels.append(table)
            value_codes.append(inverse.reshape(-1))
        self._encoded = dataset.encoded
        r = len(dataset.encoded)
        others, self._weights = _distinct(np.stack(value_codes, axis=1) if r else np.zeros((len(others), 0)))
        subset, _ = _distinct(np.stack([c.codes for c in dataset.encoded], axis=1) if r else np.zeros((dataset.n, 0)))
        # per QI and level: the codes of the distinct outside rows and of the distinct subset rows (contiguous)
        self._outside = [[np.ascontiguousarray(table[others[:, j], v]) for v in range(table.shape[1])]
                         for j, table in enumerate(self._levels)]
        self._inside = [[np.ascontiguousarray(c.level_codes[subset[:, j], v]) for v in range(c.height + 1)]
                        for j, c in enumerate(dataset.encoded)]
        self._last: tuple[tuple[int, ...], np.ndarray, np.ndarray, bool] | None = None
        self._ids: tuple[tuple[int, ...] | None, dict[tuple[int, ...], int]] = (None, {})

    def _keys(self, node: tuple[int, ...], columns: Sequence[np.ndarray]) -> np.ndarray:
        """One int64 key per row from its level codes at ``node`` (one column each), the same for equal rows in
        every call at one node: a mixed-radix number, or (key spaces beyond 2**62) an id per distinct row."""
        cards = [c.cardinality(v) for c, v in zip(self._encoded, node, strict=True)]
        if math.prod(cards) > KEY_LIMIT:
            if self._ids[0] != node:
                self._ids = (node, {})
            ids = self._ids[1]
            rows = np.stack(columns, axis=1).tolist()
            return np.array([ids.setdefault(tuple(row), len(ids)) for row in rows], dtype=np.int64)
        keys = np.zeros(columns[0].size if columns else 0, dtype=np.int64)
        for card, column in zip(cards, columns, strict=True):
            keys *= card
            keys += column
        return keys

    def _at(self, node: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
        """At ``node``: the subset's class keys (sorted), the outside records in each, and whether some population
        class there has no subset record."""
        if self._last is not None and self._last[0] == node:
            return self._last[1], self._last[2], self._last[3]
        outside = [self._outside[j][v] for j, v in enumerate(node)]
        present = np.ones(self._weights.size, dtype=bool)
        for column in outside:
            present &= column >= 0
        inside = np.unique(self._keys(node, [self._inside[j][v] for j, v in enumerate(node)]))
        outside_keys = self._keys(node, [np.where(present, c, 0) for c in outside])
        where = np.minimum(np.searchsorted(inside, outside_keys), max(inside.size - 1, 0))
        matched = present & (inside[where] == outside_keys) if inside.size else np.zeros_like(present)
        counts = np.bincount(where[matched], weights=self._weights[matched], minlength=inside.size).astype(np.int64)
        empty = not bool(matched.all())
        self._last = (node, inside, counts, empty)
        return inside, counts, empty

    def outside_counts(self, node: Sequence[int], keys: np.ndarray) -> np.ndarray:
        """Per class (its level codes ``keys`` at ``node``): population records outside the subset in it."""
        node = tuple(int(v) for v in node)
        inside, counts, _ = self._at(node)
        class_keys = self._keys(node, [np.asarray(keys[:, j], dtype=np.int64) for j in range(len(node))])
        where = np.minimum(np.searchsorted(inside, class_keys), max(inside.size - 1, 0))
        if not inside.size or not (inside[where] == class_keys).all():
            raise ValueError("a class is not a class of the research subset at this node")
        return counts[where]

    def has_empty_class(self, node: Sequence[int]) -> bool:
        """Has some population class at ``node`` no subset record?"""
        return self._at(tuple(int(v) for v in node))[2]

    def population_sizes(self, view: ClassView) -> np.ndarray:
        """Per class of a lattice node's view: its population records (subset records + outside records)."""
        if view.node is None or view.keys is None:
            raise ValueError("a population lookup needs the classes of a lattice node (ClassView.node and .keys)")
        return view.sizes + self.outside_counts(view.node, view.keys)


class DeltaPresence(PrivacyModel):
    """δ_min ≤ subset records / population records ≤ δ_max in every class of the release (ARX ``DPresence``).

    Built from a research-subset dataset (``Dataset.population``), its population records counted per class at
    each node (``PopulationCounts``). A class of the population with no subset record has δ = 0: below a positive
    δ_min, no suppression can mend it, and the node fails (``node_fulfilled``; ARX's ``HashGroupify``), unless a
    minimal class size applies (k > 1, or ℓ-diversity): ARX checks a class's size first, so such a class fails k
    with nothing to suppress and δ is never asked (``Admissibility.node_fulfilled``)."""

    id = "delta_presence"

    def __init__(self, dataset: Dataset, delta_min: float, delta_max: float,
                 counts: PopulationCounts | None = None) -> None:
        if dataset.population is None:
            raise ConfigError("privacy.delta_presence: the data is not a research subset of a population")
        self.delta_min, self.delta_max = float(delta_min), float(delta_max)
        self.monotone_with_generalization = self.delta_min == 0.0
        self.counts = counts if counts is not None else PopulationCounts(dataset)
        self.population_size, self.subset_size = self.counts.population_size, self.counts.subset_size

    def outside_counts(self, node: Sequence[int], keys: np.ndarray) -> np.ndarray:
        """Per class (its level codes ``keys`` at ``node``): population records outside the subset in it."""
        return self.counts.outside_counts(node, keys)

    def delta(self, view: ClassView) -> np.ndarray:
        """Per class: δ = subset records / population records."""
        return view.sizes / np.maximum(self.counts.population_sizes(view), 1)

    def violating(self, view: ClassView) -> np.ndarray:
        delta = self.delta(view)
        return (delta < self.delta_min) | (delta > self.delta_max)

    def node_fulfilled(self, view: ClassView) -> bool:
        """False when δ_min > 0 and some population class at the node has no subset record (δ = 0)."""
        if self.delta_min <= 0.0:
            return True
        if view.node is None:
            raise ValueError("δ-presence needs the classes of a lattice node (ClassView.node and .keys)")
        return not self.counts.has_empty_class(view.node)

    def describe(self) -> str:
        return (f"δ-presence ({self.delta_min:g} ≤ δ ≤ {self.delta_max:g}; {self.subset_size:,} of "
                f"{self.population_size:,} records)")

    def in_words(self) -> str:
        return (f"the data holds {self.subset_size:,} of a population of {self.population_size:,} people; of each "
                f"group of look-alike people in the population, between {100 * self.delta_min:g} % and "
                f"{100 * self.delta_max:g} % are in the data (δ), so no one can tell with more than "
                f"{100 * self.delta_max:g} % certainty that a given person is in it")

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "delta_min": self.delta_min, "delta_max": self.delta_max,
                "subset": self.subset_size, "population": self.population_size}


def _distinct(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a matrix of codes and how many rows each has."""
    codes = np.asarray(codes, dtype=np.int64)
    if not codes.shape[0]:
        return codes, np.zeros(0, dtype=np.int64)
    groups = group_rows(codes)
    return codes[groups.first], groups.counts


SUBSET_MODELS = ("delta_presence", "k_map")
"""The models whose ``subset`` key releases a research subset of the data file (k-map only with a population table)."""


def research_subset(study: Study, frame: pd.DataFrame, source: str) -> tuple[pd.DataFrame, Population | None]:
    """With ``[privacy.delta_presence]`` (or ``[privacy.k_map]`` with a ``subset``): the research subset's rows of
    ``frame`` (the population) as the table to release, in the subset file's order, and the population; else
    ``frame`` and None. ``subset = "research_subset"`` names an embedded sample's own subset (Adult's: ARX's 3,016
    records). Both models name the same subset when both are configured (``config_privacy`` checks it)."""
    spec = next((s for s in study.privacy_models if s.kind in SUBSET_MODELS and s.get("subset") is not None), None)
    if spec is None:
        return frame, None
    path = spec.get("subset")
    if path == "research_subset":
        from workbench.samples import RESEARCH_SUBSETS

        if study.sample not in RESEARCH_SUBSETS:
            data = f"sample {study.sample!r}" if study.sample else "this data"
            raise ConfigError(f"{study.source}: privacy.{spec.kind}.subset = \"research_subset\" names the "
                              f"embedded Adult's research subset; {data} has none: give a subset file")
        from workbench.samples import adult

        subset, name = adult.research_subset(), "Adult's research subset"
    else:
        subset, name = read_table(path, study.separator), str(path)
    frame = frame.astype(str)
    rows = match_subset(frame, subset, f"privacy.{spec.kind}.subset {name}")
    return frame.iloc[rows].reset_index(drop=True), Population(frame, rows, source)
