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

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.errors import ConfigError
from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.sensitive import SensitiveModel, class_maximum, each_attribute, pairs_of


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

    def in_words(self) -> str:
        share = f"{100 * self.alpha:g} %"
        what = (f"one value of {self.attribute}" if self.labels is None else
                f"{self.attribute} = {' or '.join(self.labels)}")
        where = (f"every group of look-alike rows holds at least {self.k} records, and in none" if self.k > 1 else
                 "in no group of look-alike rows")
        return (f"{where} does {what} make up more "
                f"than {share} of a group, so someone who finds a person's group guesses "
                + (f"their {self.attribute}" if self.labels is None else f"that they have {' or '.join(self.labels)}")
                + f" right at most {share} of the time")

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "alpha": self.alpha, "k": self.k} | (
            {"values": list(self.labels)} if self.labels is not None else {})


# ------------------------------------------------------------------------------------------ the registry entry
def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.alpha_k]``: α in (0, 1], its own k at least 1 (default: the study's), the values bounded."""
    out: dict[str, Any] = {"attribute": kind.attribute(table, where), "alpha": kind.fraction(table, "alpha", where)}
    if "k" in table:
        if not table["k"] >= 1:
            raise ConfigError(f"{where}.k must be at least 1, got {table['k']}")
        out["k"] = int(table["k"])
    if "values" in table:
        values = table["values"]
        if not values or not all(isinstance(v, str) for v in values):
            raise ConfigError(f"{where}.values must be a non-empty list of sensitive values (text), got {values!r}")
        out["values"] = list(dict.fromkeys(values))
    return out


def build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
              values: list[str]) -> PrivacyModel:
    chosen = spec.get("values")
    codes = None
    if chosen is not None:
        unknown = [v for v in chosen if v not in values]
        if len(unknown) == len(chosen):
            raise ConfigError(f"privacy.{spec.kind}.values: {attribute!r} has none of {', '.join(map(repr, chosen))}")
        codes = [values.index(v) for v in chosen if v in values]
    return AlphaK(extra, float(spec.get("alpha")), int(spec.get("k", context.k)), codes, chosen)


def _short(table: Mapping[str, Any]) -> str:
    return f"alpha{kind.figure(table.get('alpha', ''))}"


DESCRIPTION = "no sensitive value makes up more than α of a class; k is the rule's k (Wong et al. 2006)"

KIND = kind.PrivacyModelKind(
    id="alpha_k", label="(α, k)-anonymity", description=DESCRIPTION,
    keys={"attribute": kind.SENSITIVE_ATTRIBUTES,
          "alpha": kind.ConfigKey((int, float), doc="α, in (0, 1]"),
          "k": kind.ConfigKey((int,), doc="its own k, at least 1 (default: privacy.k)"),
          "values": kind.ConfigKey((list,), doc="the sensitive values bounded (default: every value)")},
    check=check, build=each_attribute(build_one), short=_short, sensitive_key="attribute",
    citation="Wong, Li, Fu & Wang, KDD 2006",
    form=kind.ModelForm(key="ak", label="(α, k)-anonymity", help=DESCRIPTION, fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("alpha", "α", "number", key="alpha", default=0.5, min_value=0.01, max_value=1.0, step=0.05,
                       format="%.3f", cast=lambda v, form: float(v)))))
