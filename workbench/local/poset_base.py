"""What every poset kind of the local engine shares (Katirai 2006, Def. 1; the DSG toolkit's posets, §4.3).

A column of the local engine holds one *state* per record (an int64): the value the record is currently
generalized to. Every poset kind implements the same vectorized operations on states:

- ``lub(a, b)``: the least upper bound of two states, element-wise (Katirai Def. 3: the common
  ancestor-or-self of least measure; ties go to the lowest node id, deterministically);
- ``group_lub(states)``: the exact least-measure common ancestor of a whole group (Katirai §1.6: the fold
  can be order-dependent in a general poset; the exact group LUB is not);
- ``cost(states)``: the Vinterbo-1.0 cell measure ``h / M`` in [0, 1] (0 at a leaf, 1 at the top);
- ``label`` for releasing the result, and ``describe(states)``: the one way a poset tells the measures what a
  released column is (``ColumnCells``: per cell its code and height, in the poset's own units, so that
  ``height / max_height`` is exactly the ``cost`` the engine minimized; per released value its leaf count
  and the data values it covers, Katirai's augmented table).

One module per kind: ``posets`` (``FinitePoset``: tree and matrix), ``poset_range``, ``poset_power``,
``poset_date_of_birth`` and ``poset_multivalue``; ``workbench.local.POSETS`` lists them once.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.errors import HierarchyError

ROOT = "*"


@dataclass(frozen=True, eq=False)
class ColumnCells:
    """A generalized column as a poset describes it to the measures (``describe``).

    ``codes[i]``: cell i's released value, numbered within the column (two cells share a code exactly when
    they were released as the same state). ``height[i]`` and ``max_height`` are in the poset's own units,
    ``height / max_height`` being the poset's ``cost`` (Vinterbo-1.0: Katirai's ``h_i / M_i``, with ``M_i``
    "the highest possible range in a RangePoset"). Per released code: ``leaf_count`` (data values under it),
    ``covers`` (code × the poset's ``values``: does it generalize that value; Katirai §1.9's augmented
    table) and ``share`` over ``share_domain`` (ARX's domain share of the value, where the poset knows one: a
    tree built from a hierarchy, or a range's width in the data's units; else None, and the view derives it
    from ``leaf_count``)."""

    codes: np.ndarray
    height: np.ndarray
    max_height: float
    leaf_count: np.ndarray
    covers: np.ndarray
    share: np.ndarray | None = None
    share_domain: float | None = None


def describe_by_labels(poset: object, states: np.ndarray) -> ColumnCells:
    """``describe`` for posets whose cover relation is read from the released text (power, date of birth,
    multivalue): codes are the distinct states, heights the poset's ``height``."""
    uniq, codes = np.unique(states, return_inverse=True)
    labels, values = poset.label(uniq), np.asarray(poset.values, dtype=object)
    covers = poset.label_covers(np.repeat(labels, len(values)), np.tile(values, len(uniq)))
    return ColumnCells(codes.reshape(-1), poset.height(states), poset.max_height, poset.leaf_count(uniq),
                       covers.reshape(len(uniq), len(values)))


def read_poset_file(path: str | Path) -> list[tuple[str, str]]:
    """A DAG poset file (TOML or JSON): ``edges = [["child", "parent"], ...]`` and/or
    ``parents = {child = ["parent", ...]}``. Returns the (child, parent) edges."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HierarchyError(f"cannot read poset file {p}: {exc}") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HierarchyError(f"poset file {p} is not valid {p.suffix.lstrip('.').upper() or 'TOML'}: {exc}") from None
    edges = [tuple(e) for e in data.get("edges", [])]
    for child, parents in data.get("parents", {}).items():
        edges.extend((child, parent) for parent in ([parents] if isinstance(parents, str) else parents))
    if not edges or any(len(e) != 2 or not all(isinstance(x, str) for x in e) for e in edges):
        raise HierarchyError(f"poset file {p} needs 'edges' (pairs of [child, parent] names) or 'parents'")
    return [(str(c), str(q)) for c, q in edges]


def i64(x: np.ndarray | int) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def chunked_counts(states: np.ndarray, n_values: int, count) -> np.ndarray:
    """``count(block)`` over blocks of states, so a states × values comparison stays small."""
    flat = i64(states).ravel()
    step = max(1, 4_000_000 // max(n_values, 1))
    parts = [count(flat[i:i + step]) for i in range(0, flat.size, step)]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)
