"""Random small tables with random tree hierarchies, for property and brute-force tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy


def random_hierarchy(rng: np.random.Generator, name: str, leaves: int, height: int) -> Hierarchy:
    """A tree over ``leaves`` values: each level merges the previous level's groups at random; one root."""
    groups = np.arange(leaves)
    paths = [[f"{name}{i}"] for i in range(leaves)]
    for level in range(1, height + 1):
        if level == height:
            groups = np.zeros(leaves, dtype=int)
            labels = ["*"]
        else:
            parents = rng.integers(0, max(1, groups.max() // 2 + 1), size=groups.max() + 1)
            groups = parents[groups]
            labels = [f"{name}L{level}g{g}" for g in range(groups.max() + 1)]
        for i in range(leaves):
            paths[i].append(labels[groups[i]])
    return Hierarchy.from_rows(paths, name=name)


def random_quasi_columns(rng: np.random.Generator, n: int) -> tuple[dict[str, list[str]], dict[str, Hierarchy]]:
    """Two or three quasi-identifiers ``q0``, ``q1``, ... of ``n`` values each, drawn from random hierarchies of 2 to 5
    leaves and height 1 or 2: the columns and their hierarchies."""
    frame, hierarchies = {}, {}
    for j in range(int(rng.integers(2, 4))):
        h = random_hierarchy(rng, f"q{j}", int(rng.integers(2, 6)), int(rng.integers(1, 3)))
        hierarchies[f"q{j}"] = h
        frame[f"q{j}"] = [h.values[i] for i in rng.integers(0, len(h.values), size=n)]
    return frame, hierarchies


def random_dataset(seed: int, max_rows: int = 40, max_qis: int = 3) -> Dataset:
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, max_qis + 1))
    n = int(rng.integers(1, max_rows + 1))
    frame, hierarchies = {}, {}
    for j in range(r):
        name = f"q{j}"
        leaves = int(rng.integers(1, 7))
        h = random_hierarchy(rng, name, leaves, int(rng.integers(0, 4)))
        hierarchies[name] = h
        skew = rng.dirichlet(np.ones(leaves) * 0.7)
        frame[name] = [h.values[i] for i in rng.choice(leaves, size=n, p=skew)]
    frame["other"] = [str(i) for i in range(n)]
    return Dataset.create(pd.DataFrame(frame), {q: "quasi" for q in hierarchies}, hierarchies, source="random")


def random_node(dataset: Dataset, rng: np.random.Generator) -> tuple[int, ...]:
    """A lattice node of ``dataset`` drawn uniformly: a level per quasi-identifier."""
    return tuple(int(rng.integers(0, c.height + 1)) for c in dataset.encoded)
