"""Building the local engine's problem from a study: one poset per quasi-identifier from the ``POSETS``
registry (``[attributes.x] poset``; default: the hierarchy as a tree), weighted by the objective, and the
distinct-row LUB problem (Katirai 2006)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import HierarchyError
from workbench.local import POSETS
from workbench.local.lub import LocalColumn, LocalProblem, Poset

Weigh = Callable[[str, str, Poset, np.ndarray, float], tuple[float, np.ndarray | None]]
"""``weigh(quasi-identifier, poset kind, poset, value index of every record, configured weight)`` -> the column's
weight and its per-node cost (None: Vinterbo's); built from the measures by ``workbench.objective.local_weigh``."""


def local_columns(study: Study, dataset: Dataset, weigh: Weigh) -> tuple[list[LocalColumn], np.ndarray]:
    """The local engine's columns (one poset per quasi-identifier, from ``[attributes.x] poset``; default: the
    hierarchy as a tree), each weighted by ``weigh`` (``workbench.objective.local_weigh``), and every record's
    leaf state."""
    specs = {a.name: a for a in study.attributes}
    columns, states = [], []
    for qi in dataset.quasi_identifiers:
        spec = specs.get(qi)
        kind = (spec.poset if spec and spec.poset else "tree")
        values, index = np.unique(dataset.frame[qi].to_numpy(dtype=str), return_inverse=True)
        registered = POSETS[kind]
        assert registered.build is not None  # the config refuses a passthrough quasi-identifier
        parameters = {p.name: spec.parameter(p.name) if spec else p.default for p in registered.parameters}
        try:
            poset = registered.build(values.tolist(), dataset.hierarchies.get(qi), **parameters)
        except HierarchyError as exc:
            raise HierarchyError(f"column {qi!r}: {exc}") from None
        weight, node_cost = weigh(qi, kind, poset, index.reshape(-1), spec.weight if spec else 1.0)
        columns.append(LocalColumn(qi, poset, weight, node_cost))
        states.append(np.asarray(poset.leaves, dtype=np.int64)[index.reshape(-1)])
    return columns, np.stack(states, axis=1)


def local_setup(study: Study, dataset: Dataset, weigh: Weigh) -> tuple[list[LocalColumn], LocalProblem]:
    """The posets and the distinct-row problem of the local engine. Its LUB tables depend on neither k nor
    the algorithm, so one setup serves every local algorithm of a comparison."""
    columns, states = local_columns(study, dataset, weigh)
    return columns, LocalProblem.build(columns, states)
