"""What the models on a sensitive attribute share: the per-class histograms of its values against the whole
table's, and one model over several sensitive attributes (``EachAttribute``).

The per-class measurement functions of the models (``beta_likeness.largest_relative_gain``,
``delta_disclosure.largest_log_ratio``, ``alpha_k.largest_share``) take the plain form an audit of any table has:
``class_counts``, an (E, m) matrix of records per class and sensitive value, and ``table_counts``, the (m,) records
per value in the whole table. ``pairs_of`` turns that form into the sparse (class, value, count) triples the models
read from a ``ClassView``, so both paths share one computation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.privacy.base import ClassView, Extra, PrivacyModel
from workbench.privacy.kind import BuildContext, PrivacyModelSpec, attributes_of

OneAttribute = Callable[[PrivacyModelSpec, BuildContext, str, Extra, list[str]], PrivacyModel]
"""A sensitive model's builder on one attribute: the spec, the context, the attribute, its ``Extra`` (value codes)
and its values in text order."""


def pairs_of(class_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The (class, value, count) triples of the non-zero cells of an (E, m) count matrix, sorted by class then
    value, and the class sizes."""
    counts = np.asarray(class_counts, dtype=np.int64)
    if counts.ndim != 2:
        raise ValueError(f"class_counts must be an (E, m) matrix, got shape {counts.shape}")
    cls, val = np.nonzero(counts)
    return cls.astype(np.int64), val.astype(np.int64), counts[cls, val], counts.sum(axis=1)


def table_shares(table_counts: np.ndarray) -> np.ndarray:
    """Each value's share of the whole table, count / n in floating point (ARX's ``DataManager.getDistribution``)."""
    counts = np.asarray(table_counts, dtype=np.int64)
    return counts / float(max(int(counts.sum()), 1))


def class_maximum(cls: np.ndarray, values: np.ndarray, classes: int, empty: float = -np.inf) -> np.ndarray:
    """Per class: the largest of ``values`` over its triples (``empty`` for a class without any)."""
    out = np.full(classes, empty, dtype=float)
    np.maximum.at(out, cls, values)
    return out


class SensitiveModel(PrivacyModel):
    """A class-level model on one sensitive attribute compared against its distribution in the whole table."""

    partition_checkable = True

    def __init__(self, extra: Extra) -> None:
        self.key, self.attribute = extra.name, extra.name.split(":", 1)[-1]
        self.extras = (extra,)
        self.table_counts = np.bincount(extra.codes, minlength=extra.cardinality).astype(np.int64)
        self.table_share = table_shares(self.table_counts)


class EachAttribute(PrivacyModel):
    """One model checked on each of several sensitive attributes (``attribute = ["a", "b"]``): a class violates it
    when it violates the model on any of them, on the same quasi-identifier classes (ARX's one criterion per
    attribute; pycanon's ``gen = True``). Monotone, partition-checkable and its minimal class size as the parts."""

    def __init__(self, parts: Sequence[PrivacyModel]) -> None:
        if not parts:
            raise ValueError("EachAttribute needs at least one model")
        self.parts = tuple(parts)
        self.id = self.parts[0].id
        self.release_level = False
        self.monotone_with_suppression = all(p.monotone_with_suppression for p in self.parts)
        self.monotone_with_generalization = all(p.monotone_with_generalization for p in self.parts)
        self.partition_checkable = all(p.partition_checkable for p in self.parts)
        seen: dict[str, Extra] = {}
        for p in self.parts:
            for e in p.extras:
                seen.setdefault(e.name, e)
        self.extras = tuple(seen.values())
        sizes = [p.minimal_class_size for p in self.parts if p.minimal_class_size is not None]
        self.minimal_class_size = max(sizes) if sizes else None

    def violating(self, view: ClassView) -> np.ndarray:
        out = np.zeros(view.classes, dtype=bool)
        for p in self.parts:
            out |= p.violating(view)
        return out

    def node_fulfilled(self, view: ClassView) -> bool:
        return all(p.node_fulfilled(view) for p in self.parts)

    def describe(self) -> str:
        return " and ".join(p.describe() for p in self.parts)

    def in_words(self) -> str:
        return "; and ".join(p.in_words() for p in self.parts)

    def as_dict(self) -> dict[str, object]:
        return self.parts[0].as_dict() | {"attribute": [p.as_dict().get("attribute") for p in self.parts]}


def sensitive_extra(dataset: Dataset, attribute: str, where: str) -> tuple[Extra, list[str]]:
    """The sensitive attribute's value codes (values in text order) and the values."""
    if attribute not in dataset.frame.columns:
        raise ConfigError(f"{where}.attribute {attribute!r} is not a column of the data; the columns are "
                          f"{', '.join(map(repr, dataset.frame.columns))}")
    role = dataset.roles.get(attribute, "insensitive")
    if role != "sensitive":
        raise ConfigError(f"{where}.attribute {attribute!r} has role {role!r}; a privacy model protects an "
                          f"attribute with role = \"sensitive\" (set [attributes.{attribute}] role = \"sensitive\")")
    values, codes = np.unique(dataset.frame[attribute].to_numpy(dtype=str), return_inverse=True)
    return Extra(f"sensitive:{attribute}", codes.reshape(-1).astype(np.int64), int(values.size)), values.tolist()


def each_attribute(one: OneAttribute) -> Callable[[PrivacyModelSpec, BuildContext], PrivacyModel]:
    """A registry builder from a builder on one sensitive attribute: the model on the attribute the spec names, or
    on each of several (``EachAttribute``), each checked against the data (``sensitive_extra``)."""

    def build(spec: PrivacyModelSpec, context: BuildContext) -> PrivacyModel:
        parts = []
        for name in attributes_of(spec.get("attribute")):
            extra, values = sensitive_extra(context.dataset, name, f"privacy.{spec.kind}")
            parts.append(one(spec, context, name, extra, values))
        return parts[0] if len(parts) == 1 else EachAttribute(parts)

    return build
