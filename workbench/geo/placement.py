"""Balanced-density site placement (Croft, Shi, Sack & Corriveau 2015, §3.2, Eqs. 1–7).

The plane is cut into ``s`` cells of roughly equal population: rows first (points walked by y), then cells
within each row (walked by x); one Voronoi site is placed at the mean point of each cell. Cells are containers
of points; no boundary is ever drawn.

The paper leaves some choices open; this module settles them as follows (docs/geography.md lists them too):

- **R(x)** rounds half up: ``floor(x + 0.5)``.
- **Walk and Eq. 3.** Points are walked in order, accumulating population; when the running population first
  reaches the ideal ``p'`` at point q, q stays in the group if ``r_p'' − p' ≤ p' − r_p'`` (Eq. 3), otherwise it
  starts the next group. A group never ends empty: a point that alone passes the ideal stays in the group it opens.
- **Rows (Eqs. 1–2).** ``r = R(√s)`` and ``p' = R(p / r)``; the walk cuts a row each time ``p'`` is passed and the
  last row takes whatever remains, so the number of rows is however many the walk makes (both of the paper's
  adjustment scenarios).
- **Cells per row (Eqs. 4–5).** ``r_c = R(s · r_p / p)`` (the paper prints ``R(s(r_c))``; ``r_α = r_p / p`` is
  meant). A row never gets more cells than points. When the rounded counts do not sum to s, one cell at a time is
  added to the row with the largest ``s · r_α − r_c`` (among rows with a point to spare) or removed from the row
  with the smallest (among rows with a cell), ties to the lower row: exactly s cells, as the paper requires. A
  row may get no cell; its points still join their nearest site.
- **Ideal cell population.** ``R(r_p / r_c)``, as Eq. 2 does for rows. Once ``r_c − 1`` cells are cut, the last
  cell takes the rest of the row.
- **Splitting.** While a row has fewer than ``r_c`` cells (the points ran out), the most populous cell with at
  least two points (ties: the leftmost) is split in two by the same walk with ideal ``R(cell population / 2)``,
  each half keeping at least one point.
- **Ties in sorting.** Rows sort by (y, x, input order); cells by (x, y, input order).
- **Site (Eqs. 6–7).** The arithmetic mean of the cell's points (the paper calls it the median; its formula is
  the mean), unweighted by population.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def round_half_up(x: float) -> int:
    """R(x) of Eqs. 1, 2 and 5: the nearest integer, halves rounded up."""
    return int(math.floor(x + 0.5))


@dataclass(frozen=True)
class Placement:
    """Where balanced density put the sites, and how it got there.

    ``sites[c]`` is the mean point of cell c; ``row[i]`` and ``cell[i]`` are point i's row and cell (``-1``
    when its row got no cell); ``cells_per_row[j]`` is r_c of row j; ``rows_initial`` is Eq. 1's r and
    ``ideal_row_population`` Eq. 2's p'."""

    sites: np.ndarray
    row: np.ndarray
    cell: np.ndarray
    cells_per_row: tuple[int, ...]
    rows_initial: int
    ideal_row_population: int

    @property
    def rows(self) -> int:
        return len(self.cells_per_row)


def walk(population: np.ndarray, ideal: float, max_groups: int | None = None) -> list[np.ndarray]:
    """Cut a sequence of points (already in walking order) into consecutive groups whose populations come as
    close to ``ideal`` as the boundary rule of Eq. 3 allows; positions into ``population``. With ``max_groups``,
    the last group takes everything left once ``max_groups − 1`` groups are cut. No group is empty."""
    groups: list[np.ndarray] = []
    start, running, i, n = 0, 0.0, 0, len(population)
    while i < n:
        if max_groups is not None and len(groups) == max_groups - 1:
            break
        q = float(population[i])
        if running + q >= ideal:
            before, after = running, running + q
            if after - ideal <= ideal - before or i == start:  # Eq. 3 (a group never ends empty)
                groups.append(np.arange(start, i + 1))
                start, running, i = i + 1, 0.0, i + 1
            else:
                groups.append(np.arange(start, i))
                start, running = i, 0.0  # q opens the next group and is walked again
            continue
        running += q
        i += 1
    if start < n:
        groups.append(np.arange(start, n))
    return groups


def _split_in_two(population: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a cell (positions in walking order, at least two points) at its population midpoint by Eq. 3."""
    m = len(population)
    first = walk(population, round_half_up(float(population.sum()) / 2), max_groups=2)[0]
    cut = min(max(len(first), 1), m - 1)
    return np.arange(cut), np.arange(cut, m)


def cells_per_row(row_population: np.ndarray, row_points: np.ndarray, s: int) -> list[int]:
    """Eqs. 4–5, r_c = R(s · r_p / p), adjusted to sum to exactly ``s`` with at most ``row_points[j]`` cells in
    row j (module docstring)."""
    p = float(row_population.sum())
    exact = [s * float(rp) / p for rp in row_population]
    rc = [min(round_half_up(e), int(cap)) for e, cap in zip(exact, row_points, strict=True)]
    while sum(rc) < s:
        spare = [j for j in range(len(rc)) if rc[j] < row_points[j]]
        j = max(spare, key=lambda j: (exact[j] - rc[j], -j))
        rc[j] += 1
    while sum(rc) > s:
        used = [j for j in range(len(rc)) if rc[j] > 0]
        j = min(used, key=lambda j: (exact[j] - rc[j], j))
        rc[j] -= 1
    return rc


def cells_of_row(population: np.ndarray, r_c: int) -> list[np.ndarray]:
    """The r_c cells of one row (positions in x order): the walk, then splits of the largest cells."""
    ideal = round_half_up(float(population.sum()) / r_c)
    cells = walk(population, ideal, max_groups=r_c)
    while len(cells) < r_c:
        sizes = [float(population[c].sum()) if len(c) >= 2 else -1.0 for c in cells]
        j = int(np.argmax(sizes))  # the first maximum: the leftmost of the most populous
        left, right = _split_in_two(population[cells[j]])
        cells[j:j + 1] = [cells[j][left], cells[j][right]]
    return cells


def balanced_density(xy: np.ndarray, population: np.ndarray, s: int) -> Placement:
    """Place ``s`` Voronoi sites by balanced density (Croft 2015 §3.2, Eqs. 1–7) for points ``xy`` (n × 2)
    carrying ``population`` (n, positive). Raises ValueError unless 1 ≤ s ≤ n."""
    xy = np.asarray(xy, dtype=float)
    pop = np.asarray(population, dtype=float)
    n = len(xy)
    if not 1 <= s <= n:
        raise ValueError(f"the number of sites must be from 1 to the {n} regions, got {s}")
    if pop.shape != (n,) or np.any(pop <= 0) or not np.all(np.isfinite(pop)):
        raise ValueError("every region needs a positive, finite population")
    p = float(pop.sum())
    r = round_half_up(math.sqrt(s))  # Eq. 1
    p_ideal = round_half_up(p / r)  # Eq. 2
    by_y = np.lexsort((np.arange(n), xy[:, 0], xy[:, 1]))  # y, then x, then input order
    rows = [by_y[g] for g in walk(pop[by_y], p_ideal)]  # Eq. 3
    rc = cells_per_row(np.array([pop[g].sum() for g in rows]), np.array([len(g) for g in rows]), s)  # Eqs. 4-5
    row_of = np.empty(n, dtype=np.int64)
    cell_of = np.full(n, -1, dtype=np.int64)
    sites: list[np.ndarray] = []
    for j, (members, count) in enumerate(zip(rows, rc, strict=True)):
        row_of[members] = j
        if count == 0:
            continue
        by_x = members[np.lexsort((members, xy[members, 1], xy[members, 0]))]  # x, then y, then input order
        for cell in cells_of_row(pop[by_x], count):
            points = by_x[cell]
            cell_of[points] = len(sites)
            sites.append(xy[points].mean(axis=0))  # Eqs. 6-7
    return Placement(np.array(sites).reshape(-1, 2), row_of, cell_of, tuple(rc), r, p_ideal)
