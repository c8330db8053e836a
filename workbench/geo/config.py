"""The ``[geo]`` table of a study config (docs/geography.md):

```toml
[geo]
attribute = "region"       # the fine geographic quasi-identifier (a column of the data)
points = "regions.csv"     # region, x, y (projected); optional population column
method = "vbas"            # vbas | geoleader
sites = 40                 # vbas: number of aggregated regions
cutoff = 20000             # geoleader: population cut-off
lattice = false            # true: the lattice engine then generalizes every quasi-identifier (the suppression
                           # limit applies); false: the others are released as they are (Croft 2015)
```

``points`` may be left out when the data is an embedded sample that carries its own region points
(``province``). ``workbench.config`` validates the table with ``parse_geo`` when a config has one; the
geography engine reads it with ``geo_spec``. Every problem raises ConfigError naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError

METHODS = ("vbas", "geoleader")
METHOD_LABELS = {"vbas": "VBAS", "geoleader": "GeoLeader-like"}
KEYS: dict[str, tuple[type, ...]] = {"attribute": (str,), "points": (str,), "method": (str,), "sites": (int,),
                                     "cutoff": (int, float), "lattice": (bool,)}


@dataclass(frozen=True)
class GeoSpec:
    """A validated ``[geo]`` table; ``points`` resolved against the config's folder (None: the sample's own)."""

    attribute: str
    points: Path | None = None
    method: str = "vbas"
    sites: int | None = None
    cutoff: float | None = None
    lattice: bool = False

    def __post_init__(self) -> None:
        _check(self, "geo")


def _check(spec: GeoSpec, where: str) -> None:
    if not spec.attribute.strip():
        raise ConfigError(f"{where}: geo.attribute must name a column of the data")
    if spec.method not in METHODS:
        raise ConfigError(f"{where}: geo.method {spec.method!r} is not one of {', '.join(METHODS)}")
    if spec.sites is not None and (isinstance(spec.sites, bool) or spec.sites < 1):
        raise ConfigError(f"{where}: geo.sites must be a positive integer, got {spec.sites!r}")
    if spec.cutoff is not None and (isinstance(spec.cutoff, bool) or not spec.cutoff > 0
                                    or spec.cutoff == float("inf")):
        raise ConfigError(f"{where}: geo.cutoff must be a positive population, got {spec.cutoff!r}")
    if spec.method == "vbas" and spec.sites is None:
        raise ConfigError(f"{where}: geo.method = 'vbas' needs geo.sites (the number of aggregated regions)")
    if spec.method == "geoleader" and spec.cutoff is None:
        raise ConfigError(f"{where}: geo.method = 'geoleader' needs geo.cutoff (the population cut-off)")


def parse_geo(table: Any, where: str, base_dir: str | Path = ".") -> GeoSpec:
    """Validate a ``[geo]`` table (keys, types, values) into a GeoSpec."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: [geo] must be a table, got {table!r}")
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key geo.{key}; known: {', '.join(KEYS)}")
        types = KEYS[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            expected = " or ".join({str: "a string", int: "an integer", float: "a number", bool: "true or false"}[t]
                                   for t in types)
            raise ConfigError(f"{where}: geo.{key} must be {expected}, got {value!r}")
    if "attribute" not in table:
        raise ConfigError(f"{where}: [geo] needs attribute, the geographic column of the data")
    try:
        return GeoSpec(attribute=table["attribute"],
                       points=Path(base_dir) / table["points"] if "points" in table else None,
                       method=table.get("method", "vbas"), sites=table.get("sites"),
                       cutoff=float(table["cutoff"]) if "cutoff" in table else None,
                       lattice=table.get("lattice", False))
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("geo: ", f"{where}: ", 1)) from None


def geo_spec(raw: Mapping[str, Any], where: str, base_dir: str | Path) -> GeoSpec:
    """The ``[geo]`` table of a loaded config (``Study.raw``); ConfigError when it has none."""
    if "geo" not in raw:
        raise ConfigError(f"{where}: no [geo] table; add one with attribute, points, method and sites or cutoff "
                          "(docs/geography.md)")
    return parse_geo(raw["geo"], where, base_dir)
