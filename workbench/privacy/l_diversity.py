"""ℓ-diversity on a sensitive attribute (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "ℓ-Diversity:
Privacy beyond k-anonymity", ACM TKDD 1(1), 2007), as ARX implements it (``DistinctLDiversity.java``,
``EntropyLDiversity.java``, ``RecursiveCLDiversity.java``).

- distinct: a class holds at least ℓ distinct sensitive values. A class merged with one that holds is
  ℓ-diverse, so the model is monotone with suppression (as k-anonymity).
- entropy: the class's sensitive-value entropy is at least log2(ℓ). ARX writes both estimators as
  H = ψ(N) − (1/N) Σ n_i ψ(n_i) over the class's N records and value counts n_i: Shannon's plug-in estimate
  with ψ = ln, Grassberger's bias-corrected one (Grassberger, "Entropy estimates from insufficient samplings",
  2003, eq. 35; Stammler, Katzenbeisser & Hamacher, PSD 2016) with ψ = G, G(n) = ψ(n) + ½(−1)^n (ψ((n+1)/2) −
  ψ(n/2)), which is −γ − ln 2 + Σ_{k≤m} 2/(2k−1) for n = 2m and n = 2m + 1, and above n = 100 ARX's expansion
  ln n + μ(1/24 − μ(7/960 − μ·31/8064)), μ = 1/(n/2)², n rounded down to even. G replaces the logarithm for
  N too. Classes with fewer than ⌈ℓ⌉ distinct values fail (ARX). Shannon entropy is concave, so it is monotone
  with generalization (Machanavajjhala et al. §4.1), not with suppression; Grassberger's estimate is declared
  monotone with neither.
- recursive (c, ℓ): r_1 < c·(r_ℓ + … + r_m) over the class's value counts in descending order; monotone with
  generalization (Machanavajjhala et al. Thm 4.2), not with suppression.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.errors import ConfigError
from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.sensitive import each_attribute

ESTIMATORS = ("shannon", "grassberger")
_LN2 = math.log(2.0)


def _log2(x: np.ndarray | float) -> np.ndarray:
    return np.log(x) / _LN2  # ARX's log2: ln(x) / ln(2)


def grassberger_g(n: np.ndarray) -> np.ndarray:
    """Grassberger's G(n) = ψ(n) + ½(−1)^n (ψ((n+1)/2) − ψ(n/2)) (2003, eq. 35) for n ≤ 100, and ARX's expansion
    of it above: ln n + μ(1/24 − μ(7/960 − μ·31/8064)), μ = 1/(n/2)², n rounded down to even."""
    n = np.asarray(n, dtype=float)
    sign = np.where(np.mod(n, 2) == 0, 1.0, -1.0)
    from scipy.special import digamma  # imported here: Grassberger's estimate is its only user

    small = digamma(n) + 0.5 * sign * (digamma((n + 1) / 2) - digamma(n / 2))
    even = n - np.mod(n, 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = 1.0 / np.floor(even / 2) ** 2
        large = np.log(even) + mu * (1 / 24 - mu * (7 / 960 - mu * 31 / 8064))
    return np.where(n <= 100, small, large)


class _LDiversity(PrivacyModel):
    id = "l_diversity"
    variant = ""
    partition_checkable = True

    def __init__(self, extra: Extra, ell: float) -> None:
        self.key, self.attribute, self.l = extra.name, extra.name.split(":", 1)[-1], ell
        self.extras = (extra,)
        self.min_size = math.ceil(ell)
        self.minimal_class_size = self.min_size  # ARX's LDiversity.getMinimalClassSize

    def distinct(self, view: ClassView) -> np.ndarray:
        cls, _, _ = view.pairs(self.key)
        return np.bincount(cls, minlength=view.classes)

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "variant": self.variant, "l": self.l}


class DistinctLDiversity(_LDiversity):
    """At least ℓ distinct sensitive values per class (ARX ``DistinctLDiversity``)."""

    variant = "distinct"
    monotone_with_suppression = True

    def violating(self, view: ClassView) -> np.ndarray:
        return self.distinct(view) < self.min_size

    def describe(self) -> str:
        return f"distinct-{self.l:g}-diversity of {self.attribute}"

    def in_words(self) -> str:
        return (f"every group of look-alike rows holds at least {self.min_size} different values of {self.attribute}, "
                f"so knowing which group a person is in does not tell their {self.attribute}")


class EntropyLDiversity(_LDiversity):
    """Entropy of the sensitive values at least log2(ℓ) per class (ARX ``EntropyLDiversity``)."""

    variant = "entropy"

    def __init__(self, extra: Extra, ell: float, estimator: str = "shannon") -> None:
        super().__init__(extra, ell)
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
        self.estimator = estimator
        self.monotone_with_generalization = estimator == "shannon"

    def entropy(self, view: ClassView) -> np.ndarray:
        """Per class: the entropy estimate in bits."""
        cls, _, cnt = view.pairs(self.key)
        total = view.sizes.astype(float)
        f = cnt.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.estimator == "shannon":
                sum1 = np.bincount(cls, weights=f * _log2(f), minlength=view.classes)
                return -((sum1 / total) - _log2(total))
            sum_g = np.bincount(cls, weights=f * grassberger_g(f), minlength=view.classes)
            return (grassberger_g(total) - sum_g / total) / _LN2

    def violating(self, view: ClassView) -> np.ndarray:
        return (self.distinct(view) < self.min_size) | ~(self.entropy(view) >= _log2(self.l))

    def describe(self) -> str:
        return f"entropy-{self.l:g}-diversity ({self.estimator}) of {self.attribute}"

    def in_words(self) -> str:
        return (f"in every group of look-alike rows the values of {self.attribute} are spread at least as evenly as "
                f"over {self.l:g} equally common values (ℓ = {self.l:g}), so no group points to one {self.attribute}")

    def as_dict(self) -> dict[str, object]:
        return super().as_dict() | {"estimator": self.estimator}


class RecursiveCLDiversity(_LDiversity):
    """Recursive (c, ℓ)-diversity: r_1 < c·(r_ℓ + … + r_m) (ARX ``RecursiveCLDiversity``)."""

    variant = "recursive"

    def __init__(self, extra: Extra, ell: int, c: float) -> None:
        super().__init__(extra, ell)
        self.c = c

    def largest_and_tail(self, view: ClassView) -> tuple[np.ndarray, np.ndarray]:
        """Per class: r_1, its most frequent value's count, and r_ℓ + … + r_m, the counts from the ℓ-th most
        frequent value on (0 when the class has fewer than ℓ distinct values)."""
        cls, _, cnt = view.pairs(self.key)
        order = np.lexsort((-cnt, cls))  # by class, counts descending
        cls_s, cnt_s = cls[order], cnt[order]
        starts = np.searchsorted(cls_s, np.arange(view.classes))
        rank = np.arange(cls_s.size) - starts[cls_s]
        largest = np.zeros(view.classes, dtype=np.int64)
        largest[cls_s[rank == 0]] = cnt_s[rank == 0]
        tail = np.bincount(cls_s[rank >= self.min_size - 1], weights=cnt_s[rank >= self.min_size - 1],
                           minlength=view.classes)
        return largest, tail

    def ratio(self, view: ClassView) -> np.ndarray:
        """Per class: r_1 / (r_ℓ + … + r_m); the class is recursive (c, ℓ)-diverse for every c above it (inf when
        the class has fewer than ℓ distinct values: no c will do)."""
        largest, tail = self.largest_and_tail(view)
        with np.errstate(divide="ignore"):
            return np.where(tail > 0, largest / np.where(tail > 0, tail, 1), np.inf)

    def violating(self, view: ClassView) -> np.ndarray:
        largest, tail = self.largest_and_tail(view)
        return (self.distinct(view) < self.min_size) | ~(largest < self.c * tail)

    def describe(self) -> str:
        return f"recursive-({self.c:g},{self.l:g})-diversity of {self.attribute}"

    def in_words(self) -> str:
        return (f"in every group of look-alike rows no value of {self.attribute} dominates: the most common one is "
                f"held by fewer than {self.c:g} times as many records as the values from the {_ordinal(self.min_size)} "
                f"most common on, together (c = {self.c:g}, ℓ = {self.l:g})")

    def as_dict(self) -> dict[str, object]:
        return super().as_dict() | {"c": self.c}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


# ------------------------------------------------------------------------------------------ the registry entry
VARIANTS = ("distinct", "entropy", "recursive")


def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.l_diversity]``: ℓ at least 1 (whole but for entropy), c positive (recursive only), the estimator
    (entropy only)."""
    attribute = kind.attribute(table, where)
    variant = kind.choice(table, "variant", VARIANTS, "distinct", where)
    l_value = kind.required(table, "l", where)
    if variant != "entropy" and not (isinstance(l_value, int) or float(l_value).is_integer()):
        raise ConfigError(f"{where}.l must be a whole number for {variant} l-diversity, got {l_value}")
    if not l_value >= 1:
        raise ConfigError(f"{where}.l must be at least 1, got {l_value}")
    kind.only_for(table, "c", variant == "recursive", "variant = 'recursive'", where)
    kind.only_for(table, "estimator", variant == "entropy", "variant = 'entropy'", where)
    out = {"attribute": attribute, "variant": variant, "l": l_value}
    if variant == "recursive":
        c = kind.required(table, "c", where)
        if not c > 0:
            raise ConfigError(f"{where}.c must be positive, got {c}")
        out["c"] = float(c)
    if variant == "entropy":
        out["estimator"] = kind.choice(table, "estimator", ESTIMATORS, "shannon", where)
    return out


def build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
              values: list[str]) -> PrivacyModel:
    variant, level = spec.get("variant"), spec.get("l")
    if variant == "distinct":
        return DistinctLDiversity(extra, int(level))
    if variant == "entropy":
        return EntropyLDiversity(extra, float(level), spec.get("estimator", "shannon"))
    return RecursiveCLDiversity(extra, int(level), float(spec.get("c")))


def _short(table: Mapping[str, Any]) -> str:
    return f"l{kind.figure(table.get('l', ''))}" + (f"c{kind.figure(table['c'])}" if "c" in table else "")


DESCRIPTION = ("every class holds at least ℓ well-represented values of the sensitive attribute (Machanavajjhala et "
               "al. 2007)")

KIND = kind.PrivacyModelKind(
    id="l_diversity", label="ℓ-diversity", description=DESCRIPTION,
    keys={"attribute": kind.SENSITIVE_ATTRIBUTES,
          "variant": kind.ConfigKey((str,), VARIANTS, "distinct"),
          "l": kind.ConfigKey((int, float), doc="ℓ, at least 1 (a whole number but for entropy)"),
          "c": kind.ConfigKey((int, float), doc="c of recursive (c, ℓ)-diversity, positive"),
          "estimator": kind.ConfigKey((str,), ESTIMATORS, "shannon", "the entropy estimator (entropy only)")},
    check=check, build=each_attribute(build_one), short=_short, sensitive_key="attribute",
    citation="Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, ACM TKDD 1(1), 2007",
    form=kind.ModelForm(key="ld", label="ℓ-diversity", help=DESCRIPTION, fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("var", "Variant", "choice", key="variant", choices=VARIANTS, default=VARIANTS[0]),
        kind.FormField("l", "ℓ", "number", key="l", default=2.0, min_value=1.0, step=1.0, format="%g",
                       cast=lambda v, form: float(v) if form["var"] == "entropy" else int(float(v))),
        kind.FormField("c", "c", "number", key="c", default=3.0, min_value=0.1, step=0.5,
                       when=lambda form: form["var"] == "recursive", cast=lambda v, form: float(v)),
        kind.FormField("est", "Estimator", "choice", key="estimator", choices=ESTIMATORS, default=ESTIMATORS[0],
                       when=lambda form: form["var"] == "entropy"))))
