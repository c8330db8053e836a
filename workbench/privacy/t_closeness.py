"""t-closeness on a sensitive attribute (Li, Li & Venkatasubramanian, "t-Closeness: Privacy beyond
k-anonymity and ℓ-diversity", ICDE 2007): the Earth Mover's Distance between a class's distribution of
sensitive values and the whole table's is at most t. As ARX implements it (``EqualDistanceTCloseness.java``,
``HierarchicalDistanceTCloseness.java``, ``OrderedDistanceTCloseness.java``):

- equal distance: D = ½ Σ_i |p_i − q_i| (every two values at distance 1);
- ordered distance: D = Σ_i |Σ_{j≤i} (p_j − q_j)| / (m − 1) over the m values in their natural order
  (numbers numerically, otherwise as text);
- hierarchical distance: the EMD whose ground distance is the height of the lowest common ancestor in the
  attribute's hierarchy over its height: per inner node N of level h(N), with pos/neg = the positive and
  negative extras of its children, cost(N) = h(N)/H · min(pos, neg), and N passes pos − neg up (Li et al. §5).

EMD is convex in the class distribution, so a merged class is t-close when its parts are: the models are
monotone with generalization, not with suppression (ARX).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.privacy import kind
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.sensitive import each_attribute

VARIANTS = ("equal", "hierarchical", "ordered")


class _TCloseness(PrivacyModel):
    id = "t_closeness"
    variant = ""
    partition_checkable = True

    def __init__(self, extra: Extra, t: float) -> None:
        self.key, self.attribute, self.t = extra.name, extra.name.split(":", 1)[-1], t
        self.extras = (extra,)
        counts = np.bincount(extra.codes, minlength=extra.cardinality)
        self.global_counts = counts.astype(np.int64)
        self.global_share = counts / max(int(counts.sum()), 1)

    def distance(self, view: ClassView) -> np.ndarray:
        raise NotImplementedError

    def violating(self, view: ClassView) -> np.ndarray:
        return ~(self.distance(view) <= self.t)

    def describe(self) -> str:
        return f"{self.t:g}-closeness ({self.variant} distance) of {self.attribute}"

    def in_words(self) -> str:
        return (f"in every group of look-alike rows the mix of {self.attribute} values differs from the whole "
                f"table's mix by at most t = {self.t:g} on a scale from 0 (the same mix) to 1 (nothing in common; "
                f"{self.variant} distance), so a person's group tells little more about their {self.attribute} "
                "than the whole table does")

    def as_dict(self) -> dict[str, object]:
        return {"model": self.id, "attribute": self.attribute, "variant": self.variant, "t": self.t}


class EqualDistanceTCloseness(_TCloseness):
    """EMD with equal ground distance, ½ Σ |p_i − q_i| (ARX ``EqualDistanceTCloseness``)."""

    variant = "equal"

    def distance(self, view: ClassView) -> np.ndarray:
        cls, val, cnt = view.pairs(self.key)
        q = self.global_share[val]
        terms = np.abs(q - cnt / view.sizes[cls]) - q  # ½(1 + Σ_{i in class}(|q_i − p_i| − q_i)), as ARX
        return (1.0 + np.bincount(cls, weights=terms, minlength=view.classes)) / 2


class OrderedDistanceTCloseness(_TCloseness):
    """EMD with ordered ground distance |i − j|/(m − 1) (ARX ``OrderedDistanceTCloseness``)."""

    variant = "ordered"

    def __init__(self, extra: Extra, t: float, order: Sequence[int]) -> None:
        super().__init__(extra, t)
        self.order = np.asarray(order, dtype=np.int64)

    def _sum(self, view: ClassView) -> np.ndarray:
        """Per class: Σ_i |Σ_{j≤i} (p_j − q_j)| in the value order (rows in blocks to bound memory)."""
        m = self.order.size
        out = np.empty(view.classes)
        step = max(1, 4_000_000 // max(m, 1))
        dense_all = view.dense(self.key)
        for start in range(0, view.classes, step):
            share = dense_all[start:start + step] / view.sizes[start:start + step, None]
            diff = (share - self.global_share[None, :])[:, self.order]
            out[start:start + step] = np.abs(np.cumsum(diff, axis=1)).sum(axis=1)
        return out

    def distance(self, view: ClassView) -> np.ndarray:
        m = self.order.size
        return self._sum(view) / (m - 1) if m > 1 else np.zeros(view.classes)

    def violating(self, view: ClassView) -> np.ndarray:
        m = self.order.size
        return ~(self._sum(view) <= self.t * (m - 1.0)) if m > 1 else np.zeros(view.classes, dtype=bool)


class HierarchicalDistanceTCloseness(_TCloseness):
    """EMD with hierarchical ground distance over the attribute's hierarchy (ARX
    ``HierarchicalDistanceTCloseness``). ``parents[l]`` maps each node of level l to its node at level l + 1
    (level 0 = the attribute's value codes); the EMD is computed in integers scaled by P·Q, as ARX does."""

    variant = "hierarchical"

    def __init__(self, extra: Extra, t: float, parents: Sequence[np.ndarray]) -> None:
        super().__init__(extra, t)
        self.parents = [np.asarray(p, dtype=np.int64) for p in parents]
        self.height = len(self.parents)

    def distance(self, view: ClassView) -> np.ndarray:
        dense = view.dense(self.key)  # (E, m) class counts q_i·Q
        total_p = int(self.global_counts.sum())
        q_total = view.sizes.astype(np.int64)
        extra = self.global_counts[None, :] * q_total[:, None] - dense * total_p  # (p_i − q_i)·P·Q
        cost = np.zeros(view.classes)
        for level, parent in enumerate(self.parents, start=1):
            width = int(parent.max()) + 1 if parent.size else 0
            children = np.zeros((parent.size, width), dtype=np.int64)
            children[np.arange(parent.size), parent] = 1
            pos, neg = np.maximum(extra, 0) @ children, np.maximum(-extra, 0) @ children
            cost += (level / self.height) * np.minimum(pos, neg).sum(axis=1)
            extra = pos - neg
        return cost / (float(total_p) * q_total.astype(float))


def natural_order(values: list[str]) -> np.ndarray:
    """Value codes in their natural order: numerically when every value is a number, else as text (ARX sorts
    by the attribute's data type)."""
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return np.arange(len(values), dtype=np.int64)  # np.unique already sorted them as text
    return np.argsort(np.array(numbers), kind="stable").astype(np.int64)


def hierarchy_parents(dataset: Dataset, attribute: str, values: list[str], where: str) -> list[np.ndarray]:
    """Per level l, the code of each level-l node's parent at level l + 1 (level 0: the value codes)."""
    h = dataset.hierarchies.get(attribute)
    if h is None:
        raise ConfigError(f"{where}: variant 'hierarchical' needs a hierarchy for {attribute!r}: give "
                          f"[attributes.{attribute}] hierarchy = \"FILE.csv\" (or use variant 'equal' or 'ordered')")
    missing = sorted(set(values) - set(h.values))
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ConfigError(f"{where}: the hierarchy of {attribute!r} has no row for {shown}")
    if h.height < 1:
        raise ConfigError(f"{where}: the hierarchy of {attribute!r} has a single level; hierarchical distance needs "
                          "at least two")
    codes, _ = h.level_matrix(values)
    parents = []
    for level in range(h.height):
        parent = np.zeros(int(codes[:, level].max()) + 1, dtype=np.int64)
        parent[codes[:, level]] = codes[:, level + 1]
        if not np.array_equal(parent[codes[:, level]], codes[:, level + 1]):
            raise ConfigError(f"{where}: the hierarchy of {attribute!r} is not a tree at level {level}")
        parents.append(parent)
    return parents


# ------------------------------------------------------------------------------------------ the registry entry
def check(table: dict[str, Any], where: str, base: Path) -> dict[str, Any]:
    """``[privacy.t_closeness]``: t in (0, 1]."""
    attribute = kind.attribute(table, where)
    variant = kind.choice(table, "variant", VARIANTS, "equal", where)
    return {"attribute": attribute, "variant": variant, "t": kind.fraction(table, "t", where)}


def build_one(spec: kind.PrivacyModelSpec, context: kind.BuildContext, attribute: str, extra: Extra,
              values: list[str]) -> PrivacyModel:
    variant, t = spec.get("variant"), float(spec.get("t"))
    if variant == "equal":
        return EqualDistanceTCloseness(extra, t)
    if variant == "ordered":
        return OrderedDistanceTCloseness(extra, t, natural_order(values))
    where = f"privacy.{spec.kind}"
    return HierarchicalDistanceTCloseness(extra, t, hierarchy_parents(context.dataset, attribute, values, where))


def _short(table: Mapping[str, Any]) -> str:
    return f"t{kind.figure(table.get('t', ''))}"


DESCRIPTION = ("each class's distribution of the sensitive attribute is within t of the table's (earth mover's "
               "distance; Li et al. 2007)")

KIND = kind.PrivacyModelKind(
    id="t_closeness", label="t-closeness", description=DESCRIPTION,
    keys={"attribute": kind.SENSITIVE_ATTRIBUTES,
          "variant": kind.ConfigKey((str,), VARIANTS, "equal", "the ground distance"),
          "t": kind.ConfigKey((int, float), doc="t, in (0, 1]")},
    check=check, build=each_attribute(build_one), short=_short, sensitive_key="attribute",
    citation="Li, Li & Venkatasubramanian, ICDE 2007",
    form=kind.ModelForm(key="tc", label="t-closeness", help=DESCRIPTION, fields=(
        kind.FormField("attr", "Attribute", "attribute", key="attribute"),
        kind.FormField("var", "Ground distance", "choice", key="variant", choices=VARIANTS, default=VARIANTS[0],
                       help="hierarchical uses the attribute's hierarchy"),
        kind.FormField("t", "t", "number", key="t", default=0.2, min_value=0.001, max_value=1.0, step=0.05,
                       format="%.3f", cast=lambda v, form: float(v)))))
