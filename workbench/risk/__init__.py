"""Re-identification risk of a table of quasi-identifier values, from its equivalence classes.

The core input is the **class-size histogram** (class size -> number of classes of that size), as in ARX's
``RiskModelHistogram`` (arx-deidentifier/arx, ``src/main/org/deidentifier/arx/risk/RiskModelHistogram.java``), so
one function serves the input (all levels 0), a lattice node's generalized table before suppression and a
Release after suppression. Adapters: :func:`risk_of_frame`, :func:`risk_of_node`, :func:`risk_of_release`.

Measures (El Emam & Dankar 2008, "Protecting privacy using k-anonymity", JAMIA 15(5); El Emam 2013, "Guide to the
De-Identification of Personal Health Information"; ARX ``RiskModelSampleSummary.java``), for a sample of n records
in classes of sizes f_j (and, given a population table, population class sizes F_j):

- prosecutor: highest = 1 / min f_j; average = groups / n; records at risk = share (and count) of records whose
  risk 1/f_j exceeds a threshold (default :data:`DEFAULT_THRESHOLD`);
- journalist (only with a population table): the same with F_j in place of f_j; average = max(groups / sum F_j,
  (1/n) sum f_j/F_j) as in ARX;
- marketer: (1/n) sum_j f_j/F_j, which is groups / n when the sample is the population;
- sample uniques: share of records alone in their class (ARX ``RiskModelSampleUniqueness.java``);
- population uniques (only with a population size N >= n, sampling fraction n/N): Pitman (Hoshino 2001), Zayatz
  (1991), SNB (Chen & Keller-McNulty 1998) and Dankar et al.'s (2012) decision rule, each as ARX computes it
  (``ModelPitman.java``, ``ModelZayatz.java``, ``ModelSNB.java``, ``RiskModelPopulationUniqueness.java``), as the
  estimated share of the population that is unique. ARX's Newton-Raphson solver (prasser/newtonraphson
  ``NewtonRaphson2D.java``, configured by ARX's ``ARXSolverConfiguration.java``) is replaced by
  ``scipy.optimize.root`` with ARX's start values and its residual tolerance.

The groups j are the table's equivalence classes, and after suppression the suppressed records as one more group
of ``*`` (a reader sees them as one row of ``*``): a release's ``RiskResult`` reports its ``classes`` (the
equivalence classes of the records that are not suppressed, ``Release.classes``), its ``suppressed`` records and
the ``groups`` the figures are computed over, classes + 1 when records are suppressed.

Values that cannot be computed are None: journalist risk without a population table; every population estimate
without a population size; a population model whose solver finds no admissible root (ARX reports 0 there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.grouping import group_rows
from workbench.risk.histogram import Histogram
from workbench.risk.results import RiskResult, RiskSummary
from workbench.risk.uniqueness import population_uniques

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.release import Release

DEFAULT_THRESHOLD = 0.2
"""Records at risk: a record is at risk when 1/|class| > 0.2, i.e. its class has fewer than 5 records (the
threshold of the common "cell size of 5" rule; El Emam & Dankar 2008 discuss thresholds from 1/3 to 1/20)."""

# ---------------------------------------------------------------------------------------------- measures
def _check_threshold(threshold: float) -> None:
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"risk threshold must be in (0, 1], got {threshold}")


def prosecutor_risk(hist: Histogram, threshold: float = DEFAULT_THRESHOLD) -> RiskSummary:
    """ARX ``RiskModelSampleSummary.getProsecutorRisk``: 1/min size, groups/records, records with 1/size > t."""
    _check_threshold(threshold)
    n = hist.records
    if n == 0:
        return RiskSummary(0.0, 0.0, 0.0, 0, threshold)
    at_risk = int((hist.sizes * hist.counts)[1.0 / hist.sizes > threshold].sum())
    return RiskSummary(1.0 / int(hist.sizes[0]), hist.classes / n, at_risk / n, at_risk, threshold)


def journalist_risk(sample_sizes: np.ndarray, population_sizes: np.ndarray,
                    threshold: float = DEFAULT_THRESHOLD) -> RiskSummary:
    """ARX ``RiskModelSampleSummary.getJournalistRisk``: per sample class j its size f_j in the sample and F_j in
    the population table; records at risk have 1/F_j > t, highest = 1/min F_j, average = max(groups / sum F_j,
    (1/n) sum f_j/F_j)."""
    _check_threshold(threshold)
    f, big_f = _pairs(sample_sizes, population_sizes)
    n = int(f.sum())
    if n == 0:
        return RiskSummary(0.0, 0.0, 0.0, 0, threshold)
    at_risk = int(f[1.0 / big_f > threshold].sum())
    average = max(f.size / float(big_f.sum()), float((f / big_f).sum()) / n)
    return RiskSummary(1.0 / int(big_f.min()), average, at_risk / n, at_risk, threshold)


def marketer_risk(sample_sizes: np.ndarray, population_sizes: np.ndarray | None = None) -> float:
    """ARX ``RiskModelSampleSummary.getMarketerRisk``: (1/n) sum_j f_j/F_j; groups/n without a population."""
    f = np.asarray(sample_sizes, dtype=np.int64)
    if f.sum() == 0:
        return 0.0
    if population_sizes is None:
        return f.size / float(f.sum())
    f, big_f = _pairs(f, population_sizes)
    return float((f / big_f).sum()) / float(f.sum())


def _pairs(sample_sizes: np.ndarray, population_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    f = np.asarray(sample_sizes, dtype=np.int64).reshape(-1)
    big_f = np.asarray(population_sizes, dtype=np.int64).reshape(-1)
    if f.shape != big_f.shape:
        raise ValueError("one population class size per sample class needed")
    if (f < 1).any() or (big_f < f).any():
        raise ValueError("every sample class must lie in a population class at least as large")
    return f, big_f


def sample_uniques(hist: Histogram) -> float:
    """Share of records alone in their class (ARX ``RiskModelSampleUniqueness.getFractionOfUniqueRecords``)."""
    n = hist.records
    return hist.classes_of_size(1) / n if n else 0.0


# ---------------------------------------------------------------------------------------------- entry points
def risk_from_histogram(hist: Histogram, threshold: float = DEFAULT_THRESHOLD, population_size: float | None = None,
                        sample_sizes: np.ndarray | None = None,
                        population_class_sizes: np.ndarray | None = None, *, classes: int | None = None,
                        suppressed: int = 0) -> RiskResult:
    """Every risk figure of one table from its group-size histogram. ``population_size`` (N >= records) enables
    the population-uniqueness estimates. ``sample_sizes`` with ``population_class_sizes`` (one pair per group:
    its size in the table and in a population table) enables journalist risk and population-based marketer risk.
    ``classes`` and ``suppressed``: the equivalence classes of the records that are not suppressed and the
    suppressed records, when the histogram's groups count the suppressed records as one (default: every group is
    a class, nothing is suppressed)."""
    _check_threshold(threshold)
    if (sample_sizes is None) != (population_class_sizes is None):
        raise ValueError("give both sample_sizes and population_class_sizes, or neither")
    journalist = None
    if sample_sizes is not None and population_class_sizes is not None:
        if Histogram.of(sample_sizes).records != hist.records:
            raise ValueError("sample_sizes do not describe the same table as the histogram")
        journalist = journalist_risk(sample_sizes, population_class_sizes, threshold)
        marketer = marketer_risk(sample_sizes, population_class_sizes)
    else:
        marketer = hist.classes / hist.records if hist.records else 0.0
    pop = population_uniques(hist, population_size) if population_size is not None and hist.records else None
    return RiskResult(hist.records, hist.classes if classes is None else int(classes),
                      prosecutor_risk(hist, threshold), journalist, marketer, sample_uniques(hist), pop,
                      suppressed=int(suppressed), groups=hist.classes)


def risk_of_class_sizes(class_sizes: Sequence[int] | np.ndarray, threshold: float = DEFAULT_THRESHOLD,
                        population_size: float | None = None) -> RiskResult:
    """Risk from one size per equivalence class."""
    return risk_from_histogram(Histogram.of(class_sizes), threshold, population_size)


def _class_index(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Per row: the index of its class (identical rows of ``codes``), and the number of classes."""
    if codes.shape[1] == 0:
        return np.zeros(codes.shape[0], dtype=np.int64), 1 if codes.shape[0] else 0
    groups = group_rows(codes, with_inverse=True)  # workbench.grouping: exact for any key space
    return groups.inverse, len(groups.counts)


def _risk_of_codes(codes: np.ndarray, threshold: float, population_size: float | None,
                   sample: np.ndarray | None) -> RiskResult:
    """Risk of the rows of ``codes``; with a ``sample`` mask the sample is those rows and the population table
    all rows (ARX's journalist setting: the data is the population, a research subset the sample)."""
    index, classes = _class_index(codes)
    population_counts = np.bincount(index, minlength=classes)
    if sample is None:
        return risk_of_class_sizes(population_counts[population_counts > 0], threshold, population_size)
    sample = np.asarray(sample, dtype=bool).reshape(-1)
    if sample.shape[0] != codes.shape[0]:
        raise ValueError("the sample mask needs one entry per record")
    sample_counts = np.bincount(index[sample], minlength=classes)
    present = sample_counts > 0
    return risk_from_histogram(Histogram.of(sample_counts[present]), threshold, population_size,
                               sample_counts[present], population_counts[present])


def risk_of_frame(frame: pd.DataFrame, quasi_identifiers: Sequence[str], threshold: float = DEFAULT_THRESHOLD,
                  population_size: float | None = None, sample: np.ndarray | None = None) -> RiskResult:
    """Risk of a table's quasi-identifier values as they are (e.g. the input: every quasi-identifier at level 0)."""
    codes = np.stack([pd.factorize(frame[q].astype(str))[0] for q in quasi_identifiers], axis=1) \
        if quasi_identifiers else np.zeros((len(frame), 0), dtype=np.int64)
    return _risk_of_codes(codes, threshold, population_size, sample)


def risk_of_node(dataset: Dataset, node: Sequence[int] | None = None, threshold: float = DEFAULT_THRESHOLD,
                 population_size: float | None = None, sample: np.ndarray | None = None,
                 population_table: pd.DataFrame | None = None,
                 population_name: str = "population table") -> RiskResult:
    """Risk of a lattice node's generalized table **before suppression** (``node`` None: all levels 0). Class
    sizes come from the node's frequency set (``NodeEvaluator.direct``). Journalist risk: with a
    ``population_table`` (or the dataset's own ``population``, a research subset's), generalized the same way
    (``workbench.risk.population``); or with a ``sample`` mask, the records it selects are the sample and the
    dataset is the population table."""
    columns = dataset.encoded
    node = tuple(node) if node is not None else tuple(0 for _ in columns)
    if len(node) != len(columns):
        raise ValueError(f"node {node} has {len(node)} levels for {len(columns)} quasi-identifiers")
    table, source = _population_of(dataset, population_table, population_name)
    if sample is None and table is not None:
        from workbench.risk.population import node_pairs

        return _risk_of_pairs(node_pairs(dataset, node, table, source), threshold, population_size)
    if sample is None:
        return risk_of_class_sizes(node_class_sizes(dataset, node), threshold, population_size)
    codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(columns, node, strict=True)], axis=1) \
        if columns else np.zeros((dataset.n, 0), dtype=np.int64)
    return _risk_of_codes(codes, threshold, population_size, sample)


def _population_of(dataset: Dataset, table: pd.DataFrame | None,
                   name: str = "population table") -> tuple[pd.DataFrame | None, str]:
    """The population table journalist risk is measured against (and its name in messages): the one given, else
    a research subset's."""
    if table is not None:
        return table, name
    if dataset.population is not None:
        return dataset.population.frame, dataset.population.source
    return None, ""


def _risk_of_pairs(pairs: tuple[np.ndarray, np.ndarray], threshold: float, population_size: float | None,
                   **counts: int) -> RiskResult:
    sizes, population_sizes = pairs
    return risk_from_histogram(Histogram.of(sizes), threshold, population_size, sizes, population_sizes, **counts)


def node_class_sizes(dataset: Dataset, node: Sequence[int] | None = None) -> np.ndarray:
    """One size per equivalence class of a lattice node's generalized table before suppression (``node`` None:
    the input, all levels 0), grouped from the records (``workbench.grouping``)."""
    columns = dataset.encoded
    node = tuple(node) if node is not None else tuple(0 for _ in columns)
    if len(node) != len(columns):
        raise ValueError(f"node {node} has {len(node)} levels for {len(columns)} quasi-identifiers")
    if not columns:
        return np.array([dataset.n], dtype=np.int64) if dataset.n else np.zeros(0, dtype=np.int64)
    codes = np.stack([c.level_codes[c.codes, v] for c, v in zip(columns, node, strict=True)], axis=1)
    return group_rows(codes, [c.cardinality(v) for c, v in zip(columns, node, strict=True)]).counts


def record_risks(class_sizes: Sequence[int] | np.ndarray) -> pd.DataFrame:
    """The distribution of record-level prosecutor risk (a record's risk is 1 / the size of its group): one row
    per group size present, ascending, with ``risk`` = 1/size, ``records`` (how many records have that risk),
    ``groups`` of that size (a release's suppressed records one group of ``*``, ``release_class_sizes``) and
    ``share`` (of all records)."""
    hist = Histogram.of(class_sizes)
    records = hist.sizes * hist.counts
    total = max(int(records.sum()), 1)
    return pd.DataFrame({"class_size": hist.sizes, "risk": 1.0 / hist.sizes if hist.sizes.size else [],
                         "records": records, "groups": hist.counts, "share": records / total})


def release_class_sizes(release: Release, suppressed: str = "class") -> np.ndarray:
    """One size per group of a Release as a reader sees it: identical rows of released quasi-identifier labels
    (``Release.table``). Suppressed records carry ``*`` in every quasi-identifier, so they form one group of ``*``
    (``"class"``; merged with kept records whose every label is also ``*``), or they are left out (``"exclude"``,
    as ARX's ``RiskModelHistogram`` ignores outliers: then one size per equivalence class, ``Release.classes``)."""
    if suppressed not in ("class", "exclude"):
        raise ValueError(f"suppressed must be 'class' or 'exclude', got {suppressed!r}")
    table = release.table("mark" if suppressed == "class" else "drop", categorical=True)
    qis = release.quasi_identifiers
    if not len(table):
        return np.zeros(0, dtype=np.int64)
    if not qis:
        return np.array([len(table)], dtype=np.int64)
    codes = np.stack([_text_codes(table[q]) for q in qis], axis=1)
    return group_rows(codes).counts.astype(np.int64)


def _text_codes(column: pd.Series) -> np.ndarray:
    """One code per cell, equal exactly for equal text: a Categorical's few labels are compared as text (two
    categories that read the same share a code), any other column cell by cell."""
    if isinstance(column.dtype, pd.CategoricalDtype) and not column.isna().any():
        same_text = pd.factorize(pd.Index(column.cat.categories).astype(str))[0]
        return same_text[column.cat.codes.to_numpy()]
    return pd.factorize(column.astype(str))[0]


def risk_of_release(release: Release, threshold: float = DEFAULT_THRESHOLD, population_size: float | None = None,
                    suppressed: str = "class", population_table: pd.DataFrame | None = None,
                    population_name: str = "population table") -> RiskResult:
    """Risk of a Release **after suppression**; the suppressed records form one group of ``*`` (default), or are
    left out with ``suppressed="exclude"`` (ARX). Its ``classes`` are ``Release.classes``, its ``groups`` those
    the figures are computed over. With a ``population_table`` (or the dataset's research-subset population),
    journalist risk of a lattice release too (``workbench.risk.population``). The entry point for ``"risk"`` in
    ``workbench run --json``."""
    counts = {"classes": release.classes, "suppressed": int(release.suppressed.sum())}
    table, source = _population_of(release.dataset, population_table, population_name)
    if table is not None:
        from workbench.risk.population import release_pairs

        if suppressed not in ("class", "exclude"):
            raise ValueError(f"suppressed must be 'class' or 'exclude', got {suppressed!r}")
        pairs = release_pairs(release, table, suppressed, source)
        if pairs is not None:
            return _risk_of_pairs(pairs, threshold, population_size, **counts)
    return risk_from_histogram(Histogram.of(release_class_sizes(release, suppressed)), threshold, population_size,
                               **counts)
