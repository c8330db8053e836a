"""``cm``: Iyengar's classification metric (Iyengar, "Transforming data to satisfy privacy constraints", KDD 2002),
the share of records a class-majority vote would misclassify after the release.

Each record of a released equivalence class is charged 1 when its target label is not the majority label of its
class, and each suppressed record is charged 1; the sum is divided by the n records (ARX's normalisation: by the
largest penalty times n, which is n when every penalty is 1). So ``cm = (S + Σ_E (|E| − max_c n_{E,c})) / n`` in
[0, 1], lower is better; a class whose top label count is tied charges |E| − max (one of the tied labels is the
majority, Iyengar).

The conventions differ on ties and on suppression (``convention``):

- ``"iyengar"`` (default): as above;
- ``"arx"`` (``MetricSDClassification`` with its default factors): a suppressed record is charged 0.5 (its
  generalization/suppression factor), and a class without a unique majority label charges all |E| records;
- ``"pycanon"`` (``classification_metric``): every label whose count is not the class's top count is charged, so
  a tie at the top charges |E| − (tied labels) · max.
"""

from __future__ import annotations

import numpy as np

from measures._view import Generalized

CONVENTIONS = ("iyengar", "arx", "pycanon")


def class_penalties(class_counts: np.ndarray, convention: str = "iyengar") -> np.ndarray:
    """Per class (rows of the (E, c) matrix of records per class and target label): the records charged, |E| minus
    the majority label's count (ties per ``convention``)."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    counts = np.asarray(class_counts, dtype=np.int64)
    if counts.size == 0:
        return np.zeros(counts.shape[0], dtype=np.int64)
    sizes, top = counts.sum(axis=1), counts.max(axis=1)
    tied = (counts == top[:, None]).sum(axis=1)
    if convention == "iyengar":
        return sizes - top
    if convention == "arx":
        return np.where(tied > 1, sizes, sizes - top)
    return sizes - tied * top


def cm(view: Generalized, target_codes: np.ndarray, convention: str = "iyengar") -> float:
    """Iyengar's classification metric of a release against the target's codes (module docstring), in [0, 1]."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    c = np.asarray(target_codes, dtype=np.int64).reshape(-1)
    if c.size != view.n:
        raise ValueError(f"the view has {view.n} records but the target has {c.size}")
    if view.n == 0:
        return 0.0
    kept = ~view.suppressed
    classes = np.unique(view.class_of_row[kept], return_inverse=True)[1].reshape(-1)
    labels = np.unique(c, return_inverse=True)[1].reshape(-1)[kept]
    e = int(classes.max()) + 1 if classes.size else 0
    m = int(labels.max()) + 1 if labels.size else 0
    counts = np.zeros(e * m, dtype=np.int64)
    np.add.at(counts, classes * m + labels, 1)
    charged = float(class_penalties(counts.reshape(e, m), convention).sum())
    suppressed = float(view.suppressed.sum()) * (0.5 if convention == "arx" else 1.0)
    return (suppressed + charged) / view.n
