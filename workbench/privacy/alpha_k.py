"""(α, k)-anonymity on a sensitive attribute (Wong, Li, Fu & Wang, "(α, k)-anonymity: an enhanced k-anonymity
model for privacy preserving data publishing", KDD 2006): every class holds at least k records, and the share of a
sensitive value in it is at most α.

Wong et al. bound the share of one designated sensitive value (their "α-deassociation" of, say, HIV); the general
form bounds every value. The workbench takes the general form by default, the largest share of any one value in the
class (as pycanon's ``alpha_k_anonymity``), and the paper's when ``values`` names the sensitive values to bound.
ARX has no such model.

A merged class's share of a value lies between its parts' shares, so the model is monotone with generalization; a
kept class merged with one of a single value can exceed α, so it is not monotone with suppression.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.privacy.base import ClassView, Extra
from workbench.privacy.sensitive import SensitiveModel, class_maximum, pairs_of


def largest_share(class_counts: np.ndarray, values: Sequence[int] | None = None) -> np.ndarray:
    """Per class (rows of the (E, m) ``class_counts``): the largest share n_v / |E| of one sensitive value (among
    the value codes ``values``, default every value; 0 when none of them is present). A class satisfies (α, k)-
    anonymity when this is at most α and it holds k records."""
    cls, val, cnt, sizes = pairs_of(class_counts)
    share = cnt.astype(float) / sizes[cls].astype(float)
    if values is not None:
        share = np.where(np.isin(val, np.asarray(values, dtype=np.int64)), share, 0.0)
    return class_maximum(cls, share, len(sizes), 0.0)


class AlphaK(SensitiveModel):
    """(α, k)-anonymity of one sensitive attribute: at least ``k`` records per class and no value's share above
    ``alpha`` (of the value codes ``values`` only, when given)."""

    id = "alpha_k"
    monotone_with_suppression = False
    monotone_with_generalization = True

    def __init__(self, extra: Extra, alpha: float, k: int = 1, values: Sequence[int] | None = None,
                 labels: Sequence[str] | None = None) -> None:
        if not 0 < alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1], got {alpha}")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        super().__init__(extra)
        self.alpha, self.k = float(alpha), int(k)
        self.values = None if values is None else np.asarray(values, dtype=np.int64)
        self.labels = None if labels is None else tuple(labels)
        self.minimal_class_size = self.k if self.k > 1 else None

    def violating(self, view: ClassView) -> np.ndarray:
        cls, val, cnt = view.pairs(self.key)
        share = cnt.astype(float) / view.sizes[cls].astype(float)
        if self.values is not None:
            share = np.where(np.isin(val, self.values), share, 0.0)
        return (view.sizes < self.k) | (class_maximum(cls, share, view.classes, 0.0) > self.alpha)

    def describe(self) -> str:
        what = self.attribute if self.labels is None else f"{self.attribute} = {', '.join(self.labels)}"
        return f"({self.alpha:g}, {self.k})-anonymity of {what}"

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "alpha": self.alpha, "k": self.k} | (
            {"values": list(self.labels)} if self.labels is not None else {})
