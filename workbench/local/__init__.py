"""The local-recoding engine: least-upper-bound recoding over generalization posets (Vinterbo 2002;
Katirai 2006), with Greedy, overlapping Greedy and Partition, and Mondrian's strict multidimensional
partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

``LOCAL_ALGORITHMS`` (id -> search) and ``POSETS`` (poset kind -> how to build it and from which
``[attributes.NAME]`` keys) are the engine's registries: the config's allowed values, the study runner's
dispatch and the app's option lists are read from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.local import greedy, greedy_overlapping, mondrian, partition
from workbench.local.lub import LocalProblem, LocalResult
from workbench.local.poset_base import read_poset_file
from workbench.local.poset_date_of_birth import DateOfBirthPoset
from workbench.local.poset_multivalue import MultiValuePoset
from workbench.local.poset_power import PowerPoset
from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset

__all__ = ["LOCAL_ALGORITHMS", "MODEL_ENFORCING", "POSETS", "PosetKind"]

LOCAL_ALGORITHMS: dict[str, Callable[[LocalProblem, int], LocalResult]] = {
    "greedy": greedy.search,
    "greedy_overlapping": greedy_overlapping.search,
    "partition": partition.search,
    "mondrian": mondrian.search,
}
"""The local algorithms, ``search(problem, k) -> LocalResult``; the first is the default."""

MODEL_ENFORCING: tuple[str, ...] = ("mondrian",)
"""The local algorithms that enforce the class-level privacy models (``PrivacyModel.partition_checkable``:
ℓ-diversity, t-closeness, β-likeness, δ-disclosure privacy, (α, k)-anonymity, estimated k-map) on every class they
release: their search takes them, ``search(problem, k, models)``. The others release k-anonymity (or k-ambiguity)
alone, so the study runner refuses them any privacy model (``workbench.policy.local_refusal``)."""


@dataclass(frozen=True)
class PosetKind:
    """A registered poset kind: ``build(values, hierarchy, **parameters)`` makes the poset of a column's
    distinct values, ``parameters`` naming the ``[attributes.NAME]`` keys it reads. ``uses_hierarchy``: built
    from the attribute's hierarchy (tree); ``needs_file``: needs a ``poset_file``; ``build`` None: not a
    quasi-identifier's poset (passthrough releases the column unchanged)."""

    id: str
    build: Callable[..., Any] | None
    parameters: tuple[str, ...] = ()
    uses_hierarchy: bool = False
    needs_file: bool = False


POSETS: dict[str, PosetKind] = {
    kind.id: kind
    for kind in [
        PosetKind("tree", lambda values, hierarchy: FinitePoset.from_tree(hierarchy, values), uses_hierarchy=True),
        PosetKind("matrix", lambda values, hierarchy, poset_file: FinitePoset.from_edges(
            read_poset_file(poset_file), values), ("poset_file",), needs_file=True),
        PosetKind("range", lambda values, hierarchy, max_diff=None: RangePoset.from_values(values, max_diff),
                  ("max_diff",)),
        PosetKind("power", lambda values, hierarchy, power_mode: PowerPoset.from_values(values, mode=power_mode),
                  ("power_mode",)),
        PosetKind("date_of_birth", lambda values, hierarchy, base_date, age_bands: DateOfBirthPoset.from_values(
            values, base_date=base_date, age_bands=age_bands), ("base_date", "age_bands")),
        PosetKind("passthrough", None),
        PosetKind("multivalue", lambda values, hierarchy, poset_file, value_separator: MultiValuePoset.from_values(
            values, edges=read_poset_file(poset_file), separator=value_separator), ("poset_file", "value_separator"),
            needs_file=True),
    ]
}
"""Poset kinds (``[attributes.NAME] poset``), in the order the config lists them."""
