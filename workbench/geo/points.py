"""The fine regions' points: a table ``region, x, y`` (projected coordinates, e.g. metres; Croft 2015 §3: "the
initial regions must be represented in the plane as a point set") with an optional ``population`` column.

Every problem raises DataError with one line naming the file, the row (1-based, as a spreadsheet shows data rows
below the header) and the value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import DataError
from workbench.readers import read_table

REQUIRED = ("region", "x", "y")
POPULATION = "population"


@dataclass(frozen=True, eq=False)
class RegionPoints:
    """One point per fine region, in file order; ``population`` when the file gives one."""

    names: tuple[str, ...]
    xy: np.ndarray
    population: np.ndarray | None
    source: str = "points"

    def __post_init__(self) -> None:
        self.xy.setflags(write=False)
        if self.population is not None:
            self.population.setflags(write=False)

    def __len__(self) -> int:
        return len(self.names)


def _number(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    text = frame[column].astype(str).str.strip()
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        more = f" (and {int(bad.sum()) - 1} more row(s))" if bad.sum() > 1 else ""
        raise DataError(f"{source}: row {i + 1} (region {frame['region'].iloc[i]!r}): {column} "
                        f"{frame[column].iloc[i]!r} is not a finite number{more}")
    return values


def points_from_frame(frame: pd.DataFrame, source: str = "points") -> RegionPoints:
    """Validate a points table: the columns ``region``, ``x``, ``y`` (and ``population``, optional, positive);
    region names unique and non-empty; coordinates finite numbers."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise DataError(f"{source}: missing column(s) {', '.join(map(repr, missing))}; a points file has the columns "
                        f"region, x, y (projected coordinates) and optionally population; found "
                        f"{', '.join(map(repr, frame.columns))}")
    if len(frame) == 0:
        raise DataError(f"{source}: no regions (only a header)")
    names = frame["region"].astype(str).str.strip()
    empty = np.flatnonzero((names == "").to_numpy())
    if empty.size:
        raise DataError(f"{source}: row {int(empty[0]) + 1}: the region name is empty")
    duplicated = names.duplicated(keep="first").to_numpy()
    if duplicated.any():
        i = int(np.flatnonzero(duplicated)[0])
        first = int(np.flatnonzero((names == names.iloc[i]).to_numpy())[0])
        raise DataError(f"{source}: row {i + 1}: region {names.iloc[i]!r} is listed again (first in row {first + 1})")
    frame = frame.assign(region=names)
    xy = np.column_stack([_number(frame, "x", source), _number(frame, "y", source)])
    population = None
    if POPULATION in frame.columns:
        population = _number(frame, POPULATION, source)
        bad = np.flatnonzero(population <= 0)
        if bad.size:
            i = int(bad[0])
            raise DataError(f"{source}: row {i + 1} (region {names.iloc[i]!r}): population "
                            f"{frame[POPULATION].iloc[i]!r} must be positive")
    return RegionPoints(tuple(names.tolist()), xy, population, source)


def read_points(path: str | Path) -> RegionPoints:
    """Read and validate a points file (CSV, TSV, Parquet or Excel; ``workbench.data.read_table``)."""
    return points_from_frame(read_table(path), str(path))


def restrict(points: RegionPoints, values: np.ndarray) -> RegionPoints:
    """The points of the regions that occur in ``values`` (a data column), in the points' order: an embedded
    sample's points for a data cut short by ``data.rows``."""
    present = np.isin(np.asarray(points.names, dtype=str), np.unique(np.asarray(values, dtype=str)))
    if present.all():
        return points
    keep = np.flatnonzero(present)
    population = points.population[keep].copy() if points.population is not None else None
    return RegionPoints(tuple(points.names[i] for i in keep), points.xy[keep].copy(), population, points.source)


def match_regions(points: RegionPoints, values: np.ndarray, attribute: str) -> np.ndarray:
    """Index into ``points`` of each record's region (``values``: the data column ``attribute``). Raises
    DataError when a region of the data has no point, or a point's region does not occur in the data."""
    index = {name: i for i, name in enumerate(points.names)}
    uniques, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
    where = np.array([index.get(u, -1) for u in uniques.tolist()], dtype=np.int64)
    if (where < 0).any():
        missing = uniques[where < 0]
        first = str(missing[0])
        rows = (np.flatnonzero(np.asarray(values, dtype=str) == first) + 1)[:3].tolist()
        label = "an empty cell" if first == "" else repr(first)
        more = f" ({len(missing) - 1} more region(s) lack one too)" if len(missing) > 1 else ""
        raise DataError(f"{points.source}: no point for region {label} of data column {attribute!r} "
                        f"(data row(s) {', '.join(map(str, rows))}){more}")
    used = np.zeros(len(points), dtype=bool)
    used[where] = True
    if not used.all():
        i = int(np.flatnonzero(~used)[0])
        more = f" ({int((~used).sum()) - 1} more)" if (~used).sum() > 1 else ""
        raise DataError(f"{points.source}: row {i + 1}: region {points.names[i]!r} does not occur in data column "
                        f"{attribute!r}{more}")
    return where[inverse.reshape(-1)]
