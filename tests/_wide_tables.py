"""Seeded wide, survey-like tables (15 to 25 quasi-identifiers) for the anytime searches' tests and benchmark.

``wide_dataset(seed, n, qis)``: ``n`` records of ``qis`` quasi-identifiers. Each record belongs to one of
``clusters`` latent groups (household types, say), drawn with skewed weights; each quasi-identifier's value is drawn
from a distribution of its own per group (Dirichlet with concentration 0.3 over its leaves), so columns are
correlated through the group as the answers of a survey are. Quasi-identifier j has ``LEAVES[j % 6]`` leaves
and a balanced tree hierarchy: each level merges ``FAN_OUT`` groups of the level below, up to one root ``*``,
so its height is ``ceil(log_FAN_OUT(leaves))``. The heights cycle 1, 2, 2, 3, 4, 1: the lattice has
Π_j (H_j + 1) nodes (``lattice_nodes``; 16 quasi-identifiers: 37.3 million nodes, the order of ARX's 28 million
for its 16-attribute survey).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy

LEAVES = (2, 4, 3, 8, 16, 2)  # per quasi-identifier, cycling: heights 1, 2, 2, 3, 4, 1 with FAN_OUT 2
FAN_OUT = 2


def tree(name: str, leaves: int, fan_out: int = FAN_OUT) -> Hierarchy:
    """A balanced hierarchy: level l groups the leaves by ``index // fan_out ** l``, the top is ``*``."""
    height = max(1, math.ceil(math.log(leaves, fan_out))) if leaves > 1 else 1
    rows = []
    for i in range(leaves):
        row = [f"{name}_{i}"]
        row += [f"{name}_L{level}_{i // fan_out ** level}" for level in range(1, height)]
        rows.append([*row, "*"])
    return Hierarchy.from_rows(rows, name=name)


def wide_dataset(seed: int, n: int = 20_000, qis: int = 16, clusters: int = 40) -> Dataset:
    """The seeded wide table (module docstring): ``qis`` quasi-identifiers ``q00``, ``q01``, ... and an
    identifier-free ``id`` column that is not a quasi-identifier."""
    rng = np.random.default_rng(seed)
    group = rng.choice(clusters, size=n, p=rng.dirichlet(np.full(clusters, 0.5)))
    frame: dict[str, list[str]] = {}
    hierarchies: dict[str, Hierarchy] = {}
    for j in range(qis):
        name = f"q{j:02d}"
        leaves = LEAVES[j % len(LEAVES)]
        h = tree(name, leaves)
        per_group = rng.dirichlet(np.full(leaves, 0.3), size=clusters)  # each group's distribution of the values
        u = rng.random(n)
        values = (per_group[group].cumsum(axis=1) < u[:, None]).sum(axis=1).clip(max=leaves - 1)
        labels = [f"{name}_{i}" for i in range(leaves)]
        frame[name] = [labels[v] for v in values]
        hierarchies[name] = h
    frame["id"] = [str(i) for i in range(n)]
    return Dataset.create(pd.DataFrame(frame), {q: "quasi" for q in hierarchies}, hierarchies, source=f"wide{seed}")


def lattice_nodes(qis: int) -> int:
    """Nodes of the wide table's lattice with ``qis`` quasi-identifiers."""
    return math.prod(tree("x", LEAVES[j % len(LEAVES)]).height + 1 for j in range(qis))
