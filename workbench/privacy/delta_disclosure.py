"""δ-disclosure privacy on a sensitive attribute (Brickell & Shmatikov, "The cost of privacy: destruction of
data-mining utility in anonymized data publishing", KDD 2008, Def. 4), as ARX implements it
(``DDisclosurePrivacy.java``).

A class satisfies it when every sensitive value present in it has |log2(p_v / q_v)| < δ, p_v its share of the
class and q_v of the whole table (strict, base 2, values absent from the class not checked: ARX). The paper asks
it of every value of the attribute, so there a class lacking a value never satisfies it; pycanon, like ARX, skips
absent values but uses the natural logarithm (docs/privacy.md).

A value present in one part of a merged class and absent from the other can fall below q_v · 2^−δ in the merge, so
the model is monotone neither with generalization nor with suppression (ARX).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.sensitive import SensitiveModel, class_maximum, each_attribute, pairs_of, table_shares

_LN2 = float(np.log(2.0))


def _log_ratios(cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, sizes: np.ndarray,
                share: np.ndarray) -> np.ndarray:
    """Per (class, value) triple: |log2(p / q)| as ARX computes it, ln(p / q) / ln 2."""
    in_class = cnt.astype(float) / sizes[cls].astype(float)
    return np.abs(np.log(in_class / share[val]) / _LN2)


def largest_log_ratio(class_counts: np.ndarray, table_counts: np.ndarray) -> np.ndarray:
    """Per class (rows of the (E, m) ``class_counts``): the largest |log2(p_v / q_v)| over the values present in it,
    against the whole table's ``table_counts`` (m,). A class satisfies δ-disclosure privacy when this is below δ."""
    cls, val, cnt, sizes = pairs_of(class_counts)
    return class_maximum(cls, _log_ratios(cls, val, cnt, sizes, table_shares(table_counts)), len(sizes))


class DeltaDisclosure(SensitiveModel):
    """δ-disclosure privacy of one sensitive attribute (ARX ``DDisclosurePrivacy``)."""

    id = "delta_disclosure"
    monotone_with_suppression = False
    monotone_with_generalization = False

    def __init__(self, extra: Extra, delta: float) -> None:
        if not delta > 0:
            raise ValueError(f"delta must be positive, got {delta}")
        super().__init__(extra)
        self.delta = float(delta)

    def violating(self, view: ClassView) -> np.ndarray:
        cls, val, cnt = view.pairs(self.key)
        broken = _log_ratios(cls, val, cnt, view.sizes, self.table_share) >= self.delta
        return class_maximum(cls, broken.astype(float), view.classes, 0.0) > 0

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy of {self.attribute}"

    def in_words(self) -> str:
        factor = f"{2 ** self.delta:.3g}"
        return (f"in every group of look-alike rows each value of {self.attribute} it holds is less than {factor} "
                f"times as common as in the whole table and more than 1/{factor} as common (more than "
                f"{2 ** -self.delta:.3g} times; 2^δ with δ = {self.delta:g}), so a person's group neither points to "
                f"nor away from any {self.attribute} by much")

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "delta": self.delta}


# ------------------------------------------------------------------------------------------ the registry entry
def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.delta_disclosure]``: δ a positive number."""
    return {"attribute": kind.attribute(table, where), "delta": kind.positive(table, "delta", where)}


def build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
              values: list[str]) -> PrivacyModel:
    return DeltaDisclosure(extra, float(spec.get("delta")))


def _short(table: Mapping[str, Any]) -> str:
    return f"dd{kind.figure(table.get('delta', ''))}"


DESCRIPTION = ("every sensitive value's share in a class is within a factor 2^δ of its share in the table (Brickell "
               "& Shmatikov 2008)")

KIND = kind.PrivacyModelKind(
    id="delta_disclosure", label="δ-disclosure privacy", description=DESCRIPTION,
    keys={"attribute": kind.SENSITIVE_ATTRIBUTES,
          "delta": kind.ConfigKey((int, float), doc="δ, a positive number")},
    check=check, build=each_attribute(build_one), short=_short, sensitive_key="attribute",
    citation="Brickell & Shmatikov, KDD 2008",
    form=kind.ModelForm(key="dd", label="δ-disclosure privacy", help=DESCRIPTION, fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("delta", "δ", "number", key="delta", default=2.0, min_value=0.01, step=0.5, format="%g",
                       cast=lambda v, form: float(v)))))
