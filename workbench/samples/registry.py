"""A synthetic inpatient registry, generated deterministically and fully vectorized with numpy.

The fields depend on each other as in real discharge abstracts, because Katirai (2006) showed that
synthetic data with independent fields mislead comparisons of information loss: the district drives
ethnicity and the age structure; age and sex drive the diagnosis (pregnancy only for women 15-49,
perinatal codes only at age 0, circulatory disease and hip fractures rising with age, respiratory
infections for small children and the elderly); the diagnosis drives the admission date (respiratory
admissions peak in winter, elective surgery avoids weekends), the length of stay (also longer with age)
and the charge (a procedure cost plus a per-diem times the stay); ``high_cost`` flags charges above the
80th percentile. The quasi-identifiers and hierarchies follow El Emam et al. (2009): age in 5/10/20-year
bands (ages 90+ top-coded), sex, ethnicity groups, postal-code masking, admission month/year and the
ICD-10 code -> category -> block -> chapter tree. Geography and codes are fictional but plausible.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.hierarchy.builders import dates, groupings, masking
from workbench.hierarchy.intervals import intervals
from workbench.hierarchy.tree import Hierarchy
from workbench.samples.registry_tables import (  # noqa: F401  (the tables, importable from here too)
    CHAPTERS,
    CODES,
    DISTRICTS,
    ETHNICITIES,
    ETHNICITY_GROUPS,
    ETHNICITY_P,
    PER_DIEM,
    SEASON,
)

DEFAULTS: dict[str, int] = {"n": 20000, "seed": 20091}
MAX_N = 2_000_000
DESCRIPTION = (
    "Synthetic inpatient registry (default 20,000 admissions, 2017-2019): age, sex, ethnicity, postal code, "
    "admission date and ICD-10 diagnosis as quasi-identifiers; stay and charge sensitive; high_cost target"
)
FIRST_DAY = np.datetime64("2017-01-01")
DAYS = 365 * 3  # 2017-01-01 .. 2019-12-31
_GEOGRAPHY_SEED = 1957  # the geography (postal units) is the same for every data seed

QUASI_IDENTIFIERS = ("age", "sex", "ethnicity", "postal_code", "admission_date", "diagnosis")
ROLES = {
    "patient_id": "identifying",
    "age": "quasi",
    "sex": "quasi",
    "ethnicity": "quasi",
    "postal_code": "quasi",
    # the district centroid is a recoding of the postal code's first two digits: released beside a masked
    # postal code it would give the district back (workbench.risk.dependencies), and a lattice cannot tie its
    # generalization to the postal code's, so it is withheld from every release like a direct identifier
    "district_lat": "identifying",
    "district_lon": "identifying",
    "admission_date": "quasi",
    "diagnosis": "quasi",
    "length_of_stay": "sensitive",
    "total_charge": "sensitive",
    "high_cost": "target",
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _postal_units() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fixed geography: every postal unit's code, district index and share of the population.

    The third digit is a sector of the district, the last two a unit; larger districts have more
    sectors, unit populations are log-normal.
    """
    rng = np.random.default_rng(_GEOGRAPHY_SEED)
    codes: list[str] = []
    district: list[int] = []
    share: list[float] = []
    total = sum(d[2] for d in DISTRICTS)
    for i, (prefix, _name, pop, *_rest) in enumerate(DISTRICTS):
        n_sectors = int(np.clip(round(pop / 30), 2, 9))
        sectors = np.sort(rng.choice(10, n_sectors, replace=False))
        weights: list[float] = []
        for sector in sectors:
            n_units = int(rng.integers(3, 9))
            for unit in np.sort(rng.choice(100, n_units, replace=False)):
                codes.append(f"{prefix}{sector}{unit:02d}")
                district.append(i)
                weights.append(float(rng.lognormal(0.0, 0.8)))
        w = np.asarray(weights)
        share.extend((pop / total) * w / w.sum())
    return np.asarray(codes), np.asarray(district), np.asarray(share)


def _age_weights(rural: bool) -> np.ndarray:
    """Inpatient age profile: births, small children, an obstetric bump, then rising to a peak near 75."""
    a = np.arange(100, dtype=float)
    w = 0.22 + 0.45 * np.exp(-(a - 1) / 3) * (a >= 1) + 0.45 * np.exp(-(((a - 30) / 7) ** 2))
    w += 1.7 * np.exp(-(((a - 75) / 13) ** 2)) + 0.3 * _sigmoid((a - 45) / 8)
    w[0] += 2.5
    w *= np.exp(-np.maximum(a - 88, 0) / 4)
    if rural:
        w *= 1 + 0.35 * _sigmoid((a - 60) / 10)
    return w / w.sum()


def _chapter_weights(age: np.ndarray, female: np.ndarray) -> np.ndarray:
    """Relative admission rate per chapter (columns as CHAPTERS) for each age and sex."""
    a = age.astype(float)
    out = np.empty((len(a), len(CHAPTERS)))
    out[:, 0] = 0.03 + 0.22 * _sigmoid((a - 58) / 9)
    out[:, 1] = (0.01 + 0.40 * _sigmoid((a - 65) / 9)) * np.where(female, 0.85, 1.25)
    out[:, 2] = 0.06 + 0.45 * np.exp(-a / 2.5) + 0.20 * _sigmoid((a - 72) / 7)
    out[:, 3] = 0.10 + 0.04 * _sigmoid((a - 50) / 10)
    out[:, 4] = 0.01 + 0.10 * _sigmoid((a - 55) / 8)
    out[:, 5] = 0.05 + 0.06 * _sigmoid((a - 70) / 8)
    out[:, 6] = np.where(female & (a >= 15) & (a <= 49), 1.1 * np.exp(-(((a - 30) / 7) ** 2)) + 0.05, 0.0)
    out[:, 7] = np.where(a == 0, 1.5, 0.0)
    out[:, 8] = 0.06 + 0.05 * (~female & (a >= 15) & (a <= 35)) + 0.12 * _sigmoid((a - 78) / 6)
    return out


def _pick(rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """One category per row, row i drawn with probabilities proportional to ``weights[i]``."""
    cum = np.cumsum(weights, axis=1)
    u = rng.random(len(weights)) * cum[:, -1]
    return np.minimum((cum <= u[:, None]).sum(axis=1), weights.shape[1] - 1)


def _day_weights(chapter: int) -> np.ndarray:
    amplitude, peak, weekend = SEASON[chapter]
    day = np.arange(DAYS)
    when = FIRST_DAY + day
    doy = (when - when.astype("datetime64[Y]")).astype(int)
    weekday = (when.astype("datetime64[D]").astype(int) + 3) % 7  # 1970-01-01 was a Thursday; 0 = Monday
    w = 1 + amplitude * np.cos(2 * np.pi * (doy - peak) / 365.25)
    w *= np.where(weekday >= 5, weekend, 1.0)
    return w / w.sum()


def generate(n: int = DEFAULTS["n"], seed: int = DEFAULTS["seed"]) -> pd.DataFrame:
    """The registry table (text cells, ``""`` for a missing ethnicity), deterministic in ``seed``."""
    rng = np.random.default_rng(seed)
    unit_codes, unit_district, unit_share = _postal_units()
    unit = rng.choice(len(unit_codes), size=n, p=unit_share)
    district = unit_district[unit]
    rural = np.array([d[3] for d in DISTRICTS])[district]

    age = np.empty(n, dtype=np.int64)
    for flag in (False, True):
        rows = np.flatnonzero(rural == flag)
        age[rows] = rng.choice(100, size=len(rows), p=_age_weights(flag))
    p_female = 0.48 + 0.25 * np.exp(-(((age - 30) / 8) ** 2)) + 0.12 * _sigmoid((age - 85) / 4)
    female = rng.random(n) < p_female

    eth_p = np.array([ETHNICITY_P[bool(d[3])] for d in DISTRICTS])
    ethnicity = np.asarray(ETHNICITIES)[_pick(rng, eth_p[district])]

    # diagnosis | age, sex: chapter rate x within-chapter code weight (0 outside a code's age/sex range)
    chapter_of = np.array([c[2] for c in CODES])
    base = np.array([c[3] for c in CODES])
    sex_of = np.array([c[4] or "" for c in CODES])
    lo = np.array([c[5] for c in CODES])
    hi = np.array([c[6] for c in CODES])
    trend = np.array([c[7] for c in CODES])
    A = age[:, None]
    fits = (A >= lo) & (A <= hi) & ((sex_of == "") | ((sex_of == "F") == female[:, None]))
    W = np.where(fits, base * np.exp(trend * (A - 50) / 25), 0.0)
    onehot = np.eye(len(CHAPTERS))[chapter_of]
    within = W @ onehot  # per row and chapter: total code weight
    chapter_rate = _chapter_weights(age, female)
    with np.errstate(divide="ignore", invalid="ignore"):
        P = np.where(W > 0, W / within[:, chapter_of] * chapter_rate[:, chapter_of], 0.0)
    code = _pick(rng, P)
    chapter = chapter_of[code]

    # admission date | chapter (seasonality, weekend effect)
    day = np.empty(n, dtype=np.int64)
    for ch in range(len(CHAPTERS)):
        rows = np.flatnonzero(chapter == ch)
        day[rows] = rng.choice(DAYS, size=len(rows), p=_day_weights(ch))

    # length of stay | diagnosis, age; charge | diagnosis, stay
    mean_los = np.array([c[8] for c in CODES])[code] * (1 + 0.012 * np.maximum(age - 50, 0))
    shape = 1.8
    los = np.clip(np.rint(rng.gamma(shape, mean_los / shape)), 1, 365).astype(np.int64)
    cost = np.array([c[9] for c in CODES])[code]
    charge = np.rint((cost + PER_DIEM * los) * rng.lognormal(0.0, 0.2, size=n)).astype(np.int64)
    high = charge > np.quantile(charge, 0.8)

    lat = np.array([f"{d[4]:.4f}" for d in DISTRICTS])[district]
    lon = np.array([f"{d[5]:.4f}" for d in DISTRICTS])[district]
    width = max(6, len(str(n)))
    ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), width))
    frame = pd.DataFrame(
        {
            "patient_id": ids,
            "age": age.astype(str),
            "sex": np.where(female, "F", "M"),
            "ethnicity": ethnicity,
            "postal_code": unit_codes[unit],
            "district_lat": lat,
            "district_lon": lon,
            "admission_date": np.datetime_as_string(FIRST_DAY + day, unit="D"),
            "diagnosis": np.array([c[0] for c in CODES])[code],
            "length_of_stay": los.astype(str),
            "total_charge": charge.astype(str),
            "high_cost": np.where(high, "yes", "no"),
        },
        dtype=str,
    )
    return frame


def diagnosis_levels() -> list[dict[str, str]]:
    """ICD-10 groupings for every code: code -> category -> block -> chapter."""
    return [
        {c[0]: c[0][:3] for c in CODES},
        {c[0][:3]: c[1] for c in CODES},
        {c[1]: CHAPTERS[c[2]] for c in CODES},
    ]


def hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """One hierarchy per quasi-identifier, over the values present in ``frame``."""
    return {
        "age": intervals(frame["age"].unique(), [5, 10, 20], top=90, name="age"),
        "sex": groupings(frame["sex"].unique(), [], name="sex"),
        "ethnicity": groupings(frame["ethnicity"].unique(), [ETHNICITY_GROUPS], name="ethnicity"),
        "postal_code": masking(frame["postal_code"].unique(), name="postal_code"),
        "admission_date": dates(
            frame["admission_date"].unique(), levels=("month", "year"), name="admission_date"
        ),
        "diagnosis": groupings(frame["diagnosis"].unique(), diagnosis_levels(), name="diagnosis"),
    }


def build(
    n: int = DEFAULTS["n"], seed: int = DEFAULTS["seed"]
) -> tuple[pd.DataFrame, dict[str, str], dict[str, Hierarchy], str]:
    frame = generate(n, seed)
    description = (
        f"Synthetic inpatient registry: {n:,} admissions 2017-2019, seed {seed} (Katirai 2006 dependencies)"
    )
    return frame, dict(ROLES), hierarchies(frame), description
