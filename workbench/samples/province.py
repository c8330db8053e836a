"""A synthetic province of fine regions, generated as Croft, Shi, Sack & Corriveau (2015, §4.1) generated theirs.

Each fine region (a stand-in for a Statistics Canada dissemination area) gets a point in projected coordinates
(metres) and a population drawn uniformly from 400–700, the dissemination areas' target range; that many
records are generated for it, each quasi-identifier drawn independently from a fixed distribution (the paper
estimated one per province from the 2011 National Household Survey; the shares here are round, plausible
figures, not Statistics Canada's). The province is elongated like Prince Edward Island (200 km × 60 km): about
half of the regions cluster around three towns, the rest are spread over the countryside, so dense places hold
more, smaller regions, as dissemination areas do.

``generate(regions, seed)`` returns the records and the region points; ``build`` is the embedded sample
``province`` (200 regions by default, about 110,000 records). Deterministic for a given seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.hierarchy.tree import Hierarchy

DEFAULTS: dict[str, int] = {"regions": 200, "seed": 2015}
MAX_REGIONS = 5000
POPULATION_RANGE = (400, 700)  # Statistics Canada's target population of a dissemination area
WIDTH, HEIGHT = 200_000.0, 60_000.0  # metres
TOWNS = ((60_000.0, 30_000.0, 0.25, 4_000.0), (25_000.0, 38_000.0, 0.12, 2_500.0),
         (150_000.0, 24_000.0, 0.13, 3_000.0))  # x, y, share of the regions, spread (metres)
DESCRIPTION = ("Synthetic province after Croft et al. 2015: 200 fine regions (points in metres, 400-700 people "
               "each) and one record per person; region, sex, age, marital status, education, income, household "
               "size as quasi-identifiers")

AGE_BANDS = tuple(f"{a}-{a + 4}" for a in range(0, 85, 5)) + ("85+",)
_AGE_P = (5.2, 5.4, 5.6, 6.0, 6.3, 6.0, 5.9, 6.0, 6.4, 7.0, 7.6, 7.4, 6.6, 5.6, 4.3, 3.2, 2.6, 3.0)
DISTRIBUTIONS: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    "sex": (("F", "M"), (0.51, 0.49)),
    "age": (AGE_BANDS, tuple(p / sum(_AGE_P) for p in _AGE_P)),
    "marital_status": (("never married", "married", "common-law", "separated or divorced", "widowed"),
                       (0.35, 0.44, 0.09, 0.07, 0.05)),
    "education": (("none", "high school", "trades or college", "university"), (0.20, 0.28, 0.30, 0.22)),
    "income": (("under 20k", "20-40k", "40-60k", "60-80k", "80-100k", "100k+"), (0.28, 0.24, 0.18, 0.12, 0.08, 0.10)),
    "household_size": (("1", "2", "3", "4", "5+"), (0.14, 0.34, 0.18, 0.20, 0.14)),
}
ROLES = {"region": "quasi", **{name: "quasi" for name in DISTRIBUTIONS}}
DISTRICTS = ("West", "West Central", "Central", "East Central", "East")  # five equal bands along x


def region_points(regions: int = DEFAULTS["regions"], seed: int = DEFAULTS["seed"]) -> pd.DataFrame:
    """The fine regions: ``region`` (DA0001 ...), ``x``, ``y`` (metres) and ``population`` (400–700)."""
    rng = np.random.default_rng([seed, 1])
    shares = np.array([t[2] for t in TOWNS])
    town = rng.choice(len(TOWNS) + 1, size=regions, p=[*shares, 1 - shares.sum()])
    xy = np.column_stack([rng.uniform(0, WIDTH, regions), rng.uniform(0, HEIGHT, regions)])
    for i, (x, y, _, spread) in enumerate(TOWNS):
        here = town == i
        xy[here] = rng.normal((x, y), spread, size=(int(here.sum()), 2))
    xy = np.clip(xy, 0, (WIDTH, HEIGHT)).round(1)
    population = rng.integers(POPULATION_RANGE[0], POPULATION_RANGE[1] + 1, size=regions)
    width = len(str(regions))
    names = [f"DA{i + 1:0{max(width, 4)}d}" for i in range(regions)]
    return pd.DataFrame({"region": names, "x": xy[:, 0], "y": xy[:, 1], "population": population})


def generate(regions: int = DEFAULTS["regions"], seed: int = DEFAULTS["seed"]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The records (one per person; text cells) and the region points of a province of ``regions`` regions."""
    points = region_points(regions, seed)
    rng = np.random.default_rng([seed, 2])
    counts = points["population"].to_numpy()
    columns: dict[str, np.ndarray] = {"region": np.repeat(points["region"].to_numpy(dtype=str), counts)}
    n = int(counts.sum())
    for name, (values, p) in DISTRIBUTIONS.items():
        columns[name] = np.asarray(values, dtype=object)[rng.choice(len(values), size=n, p=np.asarray(p))]
    return pd.DataFrame(columns).astype(str), points


def district_of(x: np.ndarray) -> np.ndarray:
    """The district (one of five bands along x) of each x coordinate."""
    return np.asarray(DISTRICTS, dtype=object)[np.clip((np.asarray(x) / WIDTH * len(DISTRICTS)).astype(int),
                                                       0, len(DISTRICTS) - 1)]


def hierarchies(points: pd.DataFrame) -> dict[str, Hierarchy]:
    """Region -> district -> *, age in 5/10/20-year bands, the other quasi-identifiers -> * (for the lattice
    engine; the geography engine replaces the region's hierarchy by its aggregation)."""
    district = district_of(points["x"].to_numpy())
    out = {"region": Hierarchy.from_mapping({r: [d, "*"] for r, d in zip(points["region"], district, strict=True)},
                                            name="region")}

    def band(label: str, width: int) -> str:
        low = int(label.split("-")[0].rstrip("+"))
        return "80+" if low >= 80 and width > 5 else f"{low // width * width}-{low // width * width + width - 1}"

    out["age"] = Hierarchy.from_mapping({a: [band(a, 10), band(a, 20), "*"] for a in AGE_BANDS}, name="age")
    for name, (values, _) in DISTRIBUTIONS.items():
        if name != "age":
            out[name] = Hierarchy.from_mapping({v: ["*"] for v in values}, name=name)
    return out


def build(regions: int = DEFAULTS["regions"],
          seed: int = DEFAULTS["seed"]) -> tuple[pd.DataFrame, dict[str, str], dict[str, Hierarchy], str]:
    frame, points = generate(regions, seed)
    description = (f"Synthetic province after Croft et al. 2015: {regions} regions, {len(frame):,} records, "
                   f"seed {seed}")
    return frame, dict(ROLES), hierarchies(points), description
