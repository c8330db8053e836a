"""β-likeness on a sensitive attribute (Cao & Karras, "Publishing microdata with a robust privacy guarantee",
PVLDB 5(11), 2012), as ARX implements it (``BasicBLikeness.java``, ``EnhancedBLikeness.java``).

With q_v a value's share of the whole table and p_v its share of a class, the relative gain of the value in the
class is (p_v − q_v) / q_v, computed in ARX's floating-point order. Only values present in the class are checked
(an absent value has gain −1, which never binds).

- basic: every value's gain at most β (Cao & Karras Def. 2);
- enhanced: every value's gain at most min(β, −ln q_v) (Def. 3: frequent values, whose gain −ln q_v would already
  let an attacker be sure, get the tighter bound).

A merged class's share of each value lies between its parts' shares, so a bound on p_v per value survives a merge:
both are monotone with generalization, not with suppression (ARX).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.sensitive import SensitiveModel, class_maximum, each_attribute, pairs_of, table_shares

VARIANTS = ("basic", "enhanced")


def relative_gains(cls: np.ndarray, val: np.ndarray, cnt: np.ndarray, sizes: np.ndarray,
                   share: np.ndarray) -> np.ndarray:
    """Per (class, value) triple: (p − q) / q as ARX computes it (p = count / class size, q = the table's share)."""
    in_table = share[val]
    in_class = cnt.astype(float) / sizes[cls].astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (in_class - in_table) / in_table


def largest_relative_gain(class_counts: np.ndarray, table_counts: np.ndarray) -> np.ndarray:
    """Per class (rows of the (E, m) ``class_counts``): the largest relative gain (p_v − q_v) / q_v over the values
    present in it, against the whole table's ``table_counts`` (m,). A class satisfies basic β-likeness when this is
    at most β."""
    cls, val, cnt, sizes = pairs_of(class_counts)
    return class_maximum(cls, relative_gains(cls, val, cnt, sizes, table_shares(table_counts)), len(sizes))


def smallest_enhanced_beta(class_counts: np.ndarray, table_counts: np.ndarray) -> np.ndarray:
    """Per class: the smallest β for which it satisfies enhanced β-likeness (every present value's gain at most
    min(β, −ln q_v)): its largest relative gain when every gain is within −ln q_v, else infinity (no β will do)."""
    cls, val, cnt, sizes = pairs_of(class_counts)
    share = table_shares(table_counts)
    gains = relative_gains(cls, val, cnt, sizes, share)
    largest = class_maximum(cls, gains, len(sizes))
    beyond = class_maximum(cls, (gains > -np.log(share[val])).astype(float), len(sizes), 0.0) > 0
    return np.where(beyond, np.inf, largest)


class BetaLikeness(SensitiveModel):
    """Basic or enhanced β-likeness of one sensitive attribute (ARX ``BasicBLikeness``, ``EnhancedBLikeness``)."""

    id = "beta_likeness"
    monotone_with_suppression = False
    monotone_with_generalization = True

    def __init__(self, extra: Extra, beta: float, variant: str = "basic") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta}")
        super().__init__(extra)
        self.beta, self.variant = float(beta), variant

    def violating(self, view: ClassView) -> np.ndarray:
        cls, val, cnt = view.pairs(self.key)
        gains = relative_gains(cls, val, cnt, view.sizes, self.table_share)
        bound = self.beta if self.variant == "basic" else np.minimum(self.beta, -np.log(self.table_share[val]))
        return class_maximum(cls, (gains > bound).astype(float), view.classes, 0.0) > 0

    def describe(self) -> str:
        return f"{self.variant} {self.beta:g}-likeness of {self.attribute}"

    def in_words(self) -> str:
        tighter = ("; a common value's gain is also at most −ln of its share in the table" if self.variant == "enhanced"
                   else "")
        return (f"in every group of look-alike rows each value of {self.attribute} is at most {1 + self.beta:g} times "
                f"as common as in the whole table (β = {self.beta:g}, the largest relative gain of its share"
                f"{tighter}), so a person's group tells little more about a rare {self.attribute} than the whole "
                "table does")

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "variant": self.variant, "beta": self.beta}


# ------------------------------------------------------------------------------------------ the registry entry
def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.beta_likeness]``: β a positive number."""
    attribute = kind.attribute(table, where)
    variant = kind.choice(table, "variant", VARIANTS, "basic", where)
    return {"attribute": attribute, "variant": variant, "beta": kind.positive(table, "beta", where)}


def build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
              values: list[str]) -> PrivacyModel:
    return BetaLikeness(extra, float(spec.get("beta")), spec.get("variant", "basic"))


def _short(table: Mapping[str, Any]) -> str:
    return f"beta{kind.figure(table.get('beta', ''))}"


DESCRIPTION = ("no sensitive value's share in a class exceeds its share in the table by more than the relative gain "
               "β (Cao & Karras 2012)")

KIND = kind.PrivacyModelKind(
    id="beta_likeness", label="β-likeness", description=DESCRIPTION,
    keys={"attribute": kind.SENSITIVE_ATTRIBUTES,
          "variant": kind.ConfigKey((str,), VARIANTS, "basic"),
          "beta": kind.ConfigKey((int, float), doc="β, a positive number")},
    check=check, build=each_attribute(build_one), short=_short, sensitive_key="attribute",
    citation="Cao & Karras, PVLDB 5(11), 2012",
    form=kind.ModelForm(key="bl", label="β-likeness", help=DESCRIPTION, fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("var", "Variant", "choice", key="variant", choices=VARIANTS, default=VARIANTS[0],
                       help="enhanced: a frequent value's gain is bounded by −ln(its share) too"),
        kind.FormField("beta", "β", "number", key="beta", default=2.0, min_value=0.01, step=0.5, format="%g",
                       cast=lambda v, form: float(v)))))
