"""Journalist risk against a population table (El Emam & Dankar 2008; El Emam 2013, "Guide to the
De-Identification of Personal Health Information", ch. on journalist risk; ARX ``RiskModelSampleSummary``).

A journalist does not know whether the person is in the released sample; they match against a population
table that holds everyone the sample was drawn from. A released class j of f_j records then corresponds to the
F_j population records carrying the same generalized quasi-identifier values, and its records' risk is 1/F_j.

The population table is generalized with the data's own hierarchies, at the same levels as the release: for
the input every quasi-identifier stays at level 0; for a lattice node, at the node's levels; for a lattice
release after suppression, the suppressed records form one group of ``*`` that every population record could
stand behind (F = the population's size). A local release has no one level per attribute, so its journalist
risk is not computed. The population must contain the sample: every sample class needs F_j >= f_j, otherwise
a one-line error names the first class where it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.data import coverage_problems
from workbench.errors import DataError
from workbench.grouping import group_rows

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.release import Release

SUPPRESSED = "*"


def population_labels(dataset: Dataset, population: pd.DataFrame, node: Sequence[int],
                      source: str = "population table") -> list[np.ndarray]:
    """Per quasi-identifier, every population record's label at the node's level (``Hierarchy.level_matrix``).
    Raises ``DataError`` naming the table and column, and the value and its rows outside the attribute's hierarchy
    (``data.coverage_problems``, the data's own check)."""
    out = []
    for col, level in zip(dataset.encoded, node, strict=True):
        if col.name not in population.columns:
            raise DataError(f"{source}: no column {col.name!r} (the quasi-identifier of the data); the columns are "
                            f"{', '.join(map(repr, population.columns))}")
        column, hierarchy = population[col.name].astype(str), dataset.hierarchies[col.name]
        problems = coverage_problems(column, hierarchy, col.name)
        if problems:
            raise DataError(f"{source}: {problems[0]}")
        codes, uniques = pd.factorize(column)
        level_codes, labels = hierarchy.level_matrix(list(uniques))
        names = np.asarray(labels[level], dtype=object)
        out.append(names[level_codes[codes, level]] if len(population) else np.zeros(0, dtype=object))
    return out


def class_pairs(sample: Sequence[np.ndarray], population: Sequence[np.ndarray], whole: np.ndarray | None = None,
                source: str = "population table") -> tuple[np.ndarray, np.ndarray]:
    """Per class of the sample (rows of the label columns ``sample``): its size f_j and the number F_j of
    population rows with the same labels. ``whole`` marks sample rows every population record matches (the
    suppressed ``*`` class): their class gets F = the population's size."""
    if not sample:
        raise ValueError("journalist risk needs at least one quasi-identifier")
    n, big_n = len(sample[0]), len(population[0])
    codes = np.stack([pd.factorize(np.concatenate([s, p]).astype(str))[0] for s, p in zip(sample, population,
                                                                                        strict=True)], axis=1)
    groups = group_rows(codes, with_inverse=True)
    classes = len(groups.counts)
    f = np.bincount(groups.inverse[:n], minlength=classes)
    big_f = np.bincount(groups.inverse[n:], minlength=classes)
    if whole is not None and whole.any():
        big_f[np.unique(groups.inverse[:n][whole])] = big_n
    present = np.flatnonzero(f > 0)
    short = present[big_f[present] < f[present]]
    if short.size:
        row = int(np.flatnonzero(groups.inverse[:n] == short[0])[0])
        labels = ", ".join(str(s[row]) for s in sample)
        raise DataError(f"{source}: {int(big_f[short[0]]):,} record(s) with ({labels}) where the data has "
                        f"{int(f[short[0]]):,}: the population must contain every record of the data")
    return f[present].astype(np.int64), big_f[present].astype(np.int64)


def node_pairs(dataset: Dataset, node: Sequence[int], population: pd.DataFrame,
               source: str = "population table") -> tuple[np.ndarray, np.ndarray]:
    """(f_j, F_j) of every class of the node's generalized table before suppression."""
    sample = [np.asarray(c.labels[v], dtype=object)[c.level_codes[c.codes, v]]
              for c, v in zip(dataset.encoded, node, strict=True)]
    return class_pairs(sample, population_labels(dataset, population, node, source), None, source)


def release_pairs(release: Release, population: pd.DataFrame, suppressed: str = "class",
                  source: str = "population table") -> tuple[np.ndarray, np.ndarray] | None:
    """(f_j, F_j) of every group of a lattice release after suppression: the suppressed records form one group
    of ``*`` with F = the population's size, merged with kept records whose every label is ``*`` (``"class"``,
    as ``risk.release_class_sizes``), or are left out (``"exclude"``). None for a local release (no one level
    per attribute)."""
    if release.transformation is None:
        return None
    node = [release.transformation[q] for q in release.quasi_identifiers]
    table = release.table("mark" if suppressed == "class" else "drop")
    sample = [table[q].astype(str).to_numpy(dtype=object) for q in release.quasi_identifiers]
    whole = np.logical_and.reduce([s == SUPPRESSED for s in sample]) if suppressed == "class" else None
    return class_pairs(sample, population_labels(release.dataset, population, node, source), whole, source)
