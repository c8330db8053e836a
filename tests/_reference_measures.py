"""Measures of docs/measures.md written out on a node's generalized labels with pandas, independently of the
``measures`` package: the reference for brute-force tests over every lattice node."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from workbench.data import Dataset

INDEPENDENT = ("height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "vinterbo")


def reference_measures(dataset: Dataset, node: tuple[int, ...], k: int) -> tuple[int, dict[str, float]]:
    """Suppressed records and the INDEPENDENT measures of a node, from docs/measures.md on the labels."""
    qis = dataset.quasi_identifiers
    n, r = dataset.n, len(qis)
    heights = [dataset.hierarchies[q].height for q in qis]
    labels = pd.DataFrame({q: dataset.frame[q].astype(str).map({row[0]: row[v] for row in
                                                                dataset.hierarchies[q].rows})
                           for q, v in zip(qis, node, strict=True)})
    size = labels.groupby(qis, dropna=False)[qis[0]].transform("size").to_numpy()
    suppressed = size < k
    S = int(suppressed.sum())
    sizes = labels.value_counts(dropna=False).to_numpy()
    kept = sizes[sizes >= k]
    shares = [v / H if H else 0.0 for v, H in zip(node, heights, strict=True)]
    entropy = 0.0
    charge = 0.0
    for q in qis:
        f = dataset.frame[q].astype(str).map(dataset.frame[q].astype(str).value_counts()).to_numpy()
        f_bar = labels[q].map(labels[q].value_counts()).to_numpy()
        entropy += float(np.sum(np.log2(f_bar / f)))
        if S:
            c = labels[q][suppressed].value_counts().to_numpy().astype(float)
            charge += float(np.sum(c * np.log2(S / c)))
    return S, {
        "height": float(sum(node)),
        "precision": sum(shares) / r,
        "precision_nm": sum((p * (n - S) + S) / n for p in shares) / r,
        "dm_star": float(np.sum(sizes.astype(np.int64) ** 2)),
        "dm": float(np.sum(kept.astype(np.int64) ** 2) + n * S),
        "aecs": n / (kept.size + (S > 0)) if kept.size + (S > 0) else 0.0,
        "entropy": entropy,
        "entropy_nm": entropy + charge,
        "vinterbo": n * sum(p for p, H in zip(shares, heights, strict=True) if H),
    }


def node_of(dataset: Dataset, solution: str) -> tuple[int, ...]:
    levels = dict(part.split("=", 1) for part in solution.split(","))
    return tuple(int(levels[q]) for q in dataset.quasi_identifiers)


def reference_risk(ds: Dataset, node: tuple[int, ...], k: int) -> list[float]:
    """Highest and average prosecutor risk and the share of records in classes under 5, of a node's release: the
    classes of generalized labels, those under k suppressed into one class of ``*`` (with a kept class whose every
    label is ``*``)."""
    qis = ds.quasi_identifiers
    paths = {q: {r[0]: r for r in ds.hierarchies[q].rows} for q in qis}
    keys = Counter(tuple(paths[q][ds.frame[q].iat[i]][v] for q, v in zip(qis, node, strict=True))
                   for i in range(ds.n))
    suppressed = sum(c for c in keys.values() if c < k)
    released = Counter()
    for key, c in keys.items():
        if c >= k:
            released[key] += c
    if suppressed:
        released[("*",) * len(qis)] += suppressed
    sizes = np.array(list(released.values()))
    return [1 / sizes.min(), sizes.size / ds.n, sizes[sizes < 5].sum() / ds.n]
