"""A synthetic household survey: 64,600 adults, 16 demographic quasi-identifiers with 2- to 5-level hierarchies,
generated deterministically (seeded numpy) for high-dimensional lattice searches.

The columns follow a national community survey's person record (age, education, marital status, race, sex,
veteran status, employment, census region, hours worked, citizenship, language at home, health insurance,
household size, tenure, income, occupation), with marginals of the order of published tables and the
dependencies that matter for anonymization, so that combinations are as rare as in real data rather than
spread evenly (Katirai 2006 on independent synthetic fields): age drives marital status, education, employment,
veteran status, insurance (65+ public), household size and tenure; sex drives veteran status and part-time work;
the division drives race, race and division drive the language spoken at home, which drives citizenship;
education, hours and age drive income; education and employment drive the occupation group.

In ``COLUMNS`` order, the first q columns' lattice has 720 nodes for q = 6, 6,480 for 8, 38,880 for 10, 116,640
for 11, 349,920 for 12, 1,049,760 for 13, 3,149,280 for 14 and 62,985,600 for 16 (the hierarchies' heights:
age 4, education 3, marital 2, race 2, sex 1, veteran 1, employment 2, division 2, hours 2, citizenship 1,
language 2, insurance 2, household 2, tenure 2, income 4, occupation 3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.hierarchy.intervals import intervals
from workbench.hierarchy.tree import Hierarchy

N = 64_600
SEED = 20_240
DESCRIPTION = ("Synthetic household survey (64,600 adults, seeded): 16 demographic quasi-identifiers with 2- to "
               "5-level hierarchies, for high-dimensional lattices (10 quasi-identifiers: 38,880 nodes)")

COLUMNS = ("age", "education", "marital", "race", "sex", "veteran", "employment", "division", "hours",
           "citizenship", "language", "insurance", "household", "tenure", "income", "occupation")

EDUCATION = {  # value: (share among adults aged 25+, group, level)
    "No schooling": (0.012, "Less than high school", "No diploma"),
    "Grades 1-8": (0.035, "Less than high school", "No diploma"),
    "Grades 9-11": (0.045, "Less than high school", "No diploma"),
    "Grade 12, no diploma": (0.017, "Less than high school", "No diploma"),
    "High school diploma": (0.225, "High school", "Secondary"),
    "GED": (0.040, "High school", "Secondary"),
    "Some college, under 1 year": (0.060, "Some college", "Secondary"),
    "Some college, 1 year or more": (0.135, "Some college", "Secondary"),
    "Associate's degree": (0.090, "College degree", "Tertiary"),
    "Bachelor's degree": (0.210, "College degree", "Tertiary"),
    "Master's degree": (0.092, "Graduate", "Tertiary"),
    "Professional degree": (0.020, "Graduate", "Tertiary"),
    "Doctorate": (0.019, "Graduate", "Tertiary"),
}
MARITAL = {"Married": "Married", "Widowed": "Not married", "Divorced": "Not married", "Separated": "Not married",
           "Never married": "Not married"}
RACE = {"White": "White", "Black": "Other", "Asian": "Other", "American Indian": "Other",
        "Pacific Islander": "Other", "Two or more": "Other", "Some other race": "Other"}
DIVISIONS = {  # division: (region, share of adults, race weights in RACE order)
    "New England": ("Northeast", 0.046, (0.84, 0.06, 0.05, 0.003, 0.001, 0.03, 0.02)),
    "Middle Atlantic": ("Northeast", 0.126, (0.70, 0.13, 0.08, 0.003, 0.001, 0.03, 0.05)),
    "East North Central": ("Midwest", 0.143, (0.78, 0.13, 0.035, 0.005, 0.001, 0.03, 0.02)),
    "West North Central": ("Midwest", 0.064, (0.86, 0.06, 0.03, 0.015, 0.001, 0.025, 0.01)),
    "South Atlantic": ("South", 0.200, (0.66, 0.23, 0.04, 0.004, 0.001, 0.03, 0.03)),
    "East South Central": ("South", 0.058, (0.74, 0.21, 0.015, 0.004, 0.001, 0.02, 0.01)),
    "West South Central": ("South", 0.123, (0.74, 0.12, 0.04, 0.01, 0.001, 0.03, 0.06)),
    "Mountain": ("West", 0.076, (0.80, 0.04, 0.035, 0.04, 0.003, 0.035, 0.05)),
    "Pacific": ("West", 0.164, (0.60, 0.06, 0.16, 0.01, 0.006, 0.06, 0.10)),
}
EMPLOYMENT = {"Employed": "In labor force", "Unemployed": "In labor force", "Armed forces": "In labor force",
              "Not in labor force": "Not in labor force"}
HOURS = {"None": "None", "1-14": "Part time", "15-34": "Part time", "35-39": "Full time", "40": "Full time",
         "41-49": "Full time", "50-59": "Full time", "60 or more": "Full time"}
LANGUAGE = {"English only": "English only", "Spanish": "Other language", "Other Indo-European": "Other language",
            "Asian and Pacific Island": "Other language", "Other": "Other language"}
INSURANCE = {"Private": "Insured", "Public": "Insured", "Private and public": "Insured", "Uninsured": "Uninsured"}
HOUSEHOLD = {"1": "1", "2": "2-3", "3": "2-3", "4": "4 or more", "5": "4 or more", "6": "4 or more",
             "7 or more": "4 or more"}
TENURE = {"Owned with mortgage": "Owned", "Owned free and clear": "Owned", "Rented": "Not owned",
          "Occupied without rent": "Not owned"}
OCCUPATIONS = {  # major group: (family, white or blue collar)
    "Management": ("Management, business, science", "White collar"),
    "Business and financial": ("Management, business, science", "White collar"),
    "Computer and mathematical": ("Management, business, science", "White collar"),
    "Engineering": ("Management, business, science", "White collar"),
    "Science": ("Management, business, science", "White collar"),
    "Community and social service": ("Management, business, science", "White collar"),
    "Legal": ("Management, business, science", "White collar"),
    "Education": ("Management, business, science", "White collar"),
    "Arts and media": ("Management, business, science", "White collar"),
    "Healthcare practitioners": ("Management, business, science", "White collar"),
    "Healthcare support": ("Service", "Blue collar"),
    "Protective service": ("Service", "Blue collar"),
    "Food preparation": ("Service", "Blue collar"),
    "Building maintenance": ("Service", "Blue collar"),
    "Personal care": ("Service", "Blue collar"),
    "Sales": ("Sales and office", "White collar"),
    "Office and administrative": ("Sales and office", "White collar"),
    "Farming and fishing": ("Natural resources, construction", "Blue collar"),
    "Construction": ("Natural resources, construction", "Blue collar"),
    "Installation and repair": ("Natural resources, construction", "Blue collar"),
    "Production": ("Production, transportation", "Blue collar"),
    "Transportation": ("Production, transportation", "Blue collar"),
    "Military": ("Military", "Military"),
    "Not employed": ("Not employed", "Not employed"),
}
_WHITE_COLLAR = [o for o, (_, c) in OCCUPATIONS.items() if c == "White collar"]
_BLUE_COLLAR = [o for o, (_, c) in OCCUPATIONS.items() if c == "Blue collar"]
INCOME_BANDS = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 125, 150, 200]  # $1,000s


def _pick(rng: np.random.Generator, weights: np.ndarray) -> np.ndarray:
    """One index per row of ``weights`` (rows of non-negative weights, each its own distribution)."""
    cumulative = np.cumsum(weights, axis=1)
    cumulative /= cumulative[:, -1:]
    return np.minimum((rng.random((weights.shape[0], 1)) > cumulative).sum(axis=1), weights.shape[1] - 1)


def _share(rng: np.random.Generator, p: np.ndarray) -> np.ndarray:
    return rng.random(p.shape[0]) < p


def generate(n: int = N, seed: int = SEED) -> pd.DataFrame:
    """The survey table (text cells), ``n`` records from ``seed``."""
    rng = np.random.default_rng(seed)
    # age 17-90 (90 top-coded): roughly flat to 60, thinning after
    ages = np.arange(17, 91)
    w = np.where(ages < 60, 1.0, np.exp(-(ages - 60) / 14.0))
    w[-1] *= 4.0  # the top code gathers 90+
    age = rng.choice(ages, size=n, p=w / w.sum())
    female = _share(rng, np.full(n, 0.51))
    sex = np.where(female, "Female", "Male")
    # marital status by age and sex
    young, old = np.clip((35 - age) / 18, 0, 1), np.clip((age - 60) / 25, 0, 1)
    mw = np.stack([0.62 * (1 - young) * (1 - 0.5 * old),                   # married
                   0.02 + old * np.where(female, 0.55, 0.2),               # widowed
                   0.13 * (1 - young) * (1 - 0.3 * old),                   # divorced
                   np.full(n, 0.02),                                       # separated
                   0.06 + 0.9 * young], axis=1)
    marital = np.array(list(MARITAL))[_pick(rng, mw)]
    # division, race by division
    division_names = list(DIVISIONS)
    division_i = rng.choice(len(division_names), size=n, p=np.array([d[1] for d in DIVISIONS.values()]))
    race_w = np.array([d[2] for d in DIVISIONS.values()])[division_i]
    race_i = _pick(rng, race_w)
    race = np.array(list(RACE))[race_i]
    division = np.array(division_names)[division_i]
    # education: the 25+ distribution, shifted down for the oldest and capped for the youngest
    ew = np.tile(np.array([v[0] for v in EDUCATION.values()]), (n, 1))
    ew[:, 9:] *= np.where(age >= 70, 0.6, 1.0)[:, None]
    ew[:, :4] *= np.where(age >= 70, 1.8, 1.0)[:, None]
    ew[age < 19, 4:] = 0.0
    ew[age < 19, 3] += 0.5
    ew[age < 22, 9:] = 0.0
    ew[age < 24, 10:] = 0.0
    education_i = _pick(rng, ew)
    education = np.array(list(EDUCATION))[education_i]
    # veteran: mostly men, mostly older
    veteran = np.where(_share(rng, np.where(female, 0.012, 0.04 + 0.18 * np.clip((age - 40) / 35, 0, 1))),
                       "Veteran", "Not a veteran")
    # employment by age and education
    active = np.clip(0.45 + 0.04 * np.minimum(education_i, 10), 0, 0.9) * np.where(
        age < 20, 0.5, np.where(age < 62, 1.0, np.where(age < 70, 0.45, 0.1)))
    employment_i = np.where(_share(rng, active), 0, 3)
    employment_i[(employment_i == 0) & _share(rng, np.full(n, 0.055))] = 1
    employment_i[(employment_i == 0) & (age < 45) & _share(rng, np.full(n, 0.012))] = 2
    employment = np.array(list(EMPLOYMENT))[employment_i]
    working = np.isin(employment_i, (0, 2))
    # hours: none without work; part time more often for women and the young
    part = 0.12 + 0.13 * female + 0.25 * (age < 25)
    hw = np.stack([np.zeros(n), part * 0.3, part * 0.7, np.full(n, 0.07), np.full(n, 0.45), np.full(n, 0.11),
                   np.full(n, 0.09), np.full(n, 0.04)], axis=1)
    hours_i = np.where(working, _pick(rng, hw), 0)
    hours = np.array(list(HOURS))[hours_i]
    # language at home by race and division; citizenship by language
    spanish = np.where(race_i == 6, 0.6, 0.06) + np.isin(division_i, (6, 7, 8)) * 0.08
    asian = np.where(race_i == 2, 0.55, 0.005)
    lw = np.stack([1 - spanish - asian - 0.06, spanish, np.full(n, 0.04), asian, np.full(n, 0.02)], axis=1)
    language_i = _pick(rng, np.clip(lw, 0.001, None))
    language = np.array(list(LANGUAGE))[language_i]
    citizenship = np.where(_share(rng, np.where(language_i == 0, 0.005, 0.3)), "Not a citizen", "Citizen")
    # income ($1,000s) from education, hours and age, log-normal
    hours_mid = np.array([0, 8, 25, 37, 40, 45, 55, 62])[hours_i]
    log_income = (2.2 + 0.09 * education_i + 0.018 * hours_mid + 0.25 * np.clip((age - 20) / 25, 0, 1)
                  + rng.normal(0, 0.55, n))
    log_income = np.where(working, log_income, 1.6 + 0.05 * education_i + 0.4 * (age >= 62) + rng.normal(0, 0.7, n))
    income_k = np.exp(log_income)
    income_i = np.searchsorted(INCOME_BANDS, income_k, side="right") - 1
    income = np.array(_income_labels())[np.clip(income_i, 0, len(INCOME_BANDS) - 1)]
    # insurance by age and income
    uninsured = np.where(age >= 65, 0.005, np.clip(0.2 - 0.015 * np.clip(income_i, 0, 10), 0.04, 0.2))
    iw = np.stack([np.where(age >= 65, 0.1, 0.7 + 0.01 * income_i), np.where(age >= 65, 0.35, 0.15),
                   np.where(age >= 65, 0.55, 0.03), uninsured], axis=1)
    insurance = np.array(list(INSURANCE))[_pick(rng, iw)]
    # household size by marital status and age
    married = marital == "Married"
    hsw = np.stack([np.where(married, 0.0, np.where(age >= 60, 0.45, 0.25)), np.where(married, 0.45, 0.3),
                    np.where(married, 0.2, 0.2), np.where(married, 0.2, 0.12), np.full(n, 0.07), np.full(n, 0.03),
                    np.full(n, 0.02)], axis=1)
    hsw[:, 3:] *= np.where((age >= 30) & (age < 55), 1.0, 0.4)[:, None]
    household = np.array(list(HOUSEHOLD))[_pick(rng, hsw)]
    # tenure by age and income
    own = np.clip(0.2 + 0.011 * (age - 20) + 0.02 * np.clip(income_i, 0, 12), 0.1, 0.85)
    tw = np.stack([own * np.where(age >= 65, 0.35, 0.7), own * np.where(age >= 65, 0.65, 0.3), (1 - own) * 0.96,
                   (1 - own) * 0.04], axis=1)
    tenure = np.array(list(TENURE))[_pick(rng, tw)]
    # occupation by education and employment
    college = education_i >= 8
    white = rng.choice(_WHITE_COLLAR, size=n)
    blue = rng.choice(_BLUE_COLLAR, size=n)
    occupation = np.where(_share(rng, np.where(college, 0.8, 0.35)), white, blue)
    occupation = np.where(employment_i == 2, "Military", np.where(working, occupation, "Not employed"))
    frame = pd.DataFrame({
        "age": age.astype(str), "education": education, "marital": marital, "race": race, "sex": sex,
        "veteran": veteran, "employment": employment, "division": division, "hours": hours,
        "citizenship": citizenship, "language": language, "insurance": insurance, "household": household,
        "tenure": tenure, "income": income, "occupation": occupation,
    })
    return frame[list(COLUMNS)]


def _income_labels() -> list[str]:
    bands = INCOME_BANDS
    return [f"${a}k-{b - 1}k" for a, b in zip(bands[:-1], bands[1:], strict=True)] + [f"${bands[-1]}k or more"]


def _income_hierarchy() -> Hierarchy:
    """Band -> $10k-or-wider group -> quarter of the range -> half -> ``*`` (5 levels)."""
    labels = _income_labels()
    coarse = ["Under $20k"] * 4 + ["$20k-49k"] * 6 + ["$50k-89k"] * 4 + ["$90k or more"] * 5
    halves = ["Under $50k" if i < 10 else "$50k or more" for i in range(len(labels))]
    return Hierarchy.from_mapping({v: [_ten(i), c, h, "*"] for i, (v, c, h) in
                                   enumerate(zip(labels, coarse, halves, strict=True))}, name="income")


def _ten(i: int) -> str:
    """The income band's $10k-or-wider group."""
    groups = ["Under $10k", "Under $10k", "$10k-19k", "$10k-19k", "$20k-29k", "$20k-29k", "$30k-39k", "$30k-39k",
              "$40k-49k", "$40k-49k", "$50k-69k", "$50k-69k", "$70k-89k", "$70k-89k", "$90k-124k", "$90k-124k",
              "$125k-199k", "$125k-199k", "$200k or more"]
    return groups[i]


def hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    """Each column's hierarchy (leaf first, root ``*`` last)."""
    def two(mapping: dict[str, str], name: str) -> Hierarchy:
        return Hierarchy.from_mapping({v: [g, "*"] for v, g in mapping.items()}, name=name)

    def one(values: list[str], name: str) -> Hierarchy:
        return Hierarchy.from_mapping({v: ["*"] for v in values}, name=name)

    return {
        "age": intervals(frame["age"].unique(), [5, 10, 20], name="age"),
        "education": Hierarchy.from_mapping({v: [g, lv, "*"] for v, (_, g, lv) in EDUCATION.items()},
                                            name="education"),
        "marital": two(MARITAL, "marital"),
        "race": two(RACE, "race"),
        "sex": one(["Female", "Male"], "sex"),
        "veteran": one(["Veteran", "Not a veteran"], "veteran"),
        "employment": two(EMPLOYMENT, "employment"),
        "division": two({d: r for d, (r, _, _) in DIVISIONS.items()}, "division"),
        "hours": two(HOURS, "hours"),
        "citizenship": one(["Citizen", "Not a citizen"], "citizenship"),
        "language": two(LANGUAGE, "language"),
        "insurance": two(INSURANCE, "insurance"),
        "household": two(HOUSEHOLD, "household"),
        "tenure": two(TENURE, "tenure"),
        "income": _income_hierarchy(),
        "occupation": Hierarchy.from_mapping({o: [f, c, "*"] for o, (f, c) in OCCUPATIONS.items()},
                                             name="occupation"),
    }


def build(qis: int = len(COLUMNS)) -> tuple[pd.DataFrame, dict[str, str], dict[str, Hierarchy], str]:
    """The table, the first ``qis`` columns of ``COLUMNS`` as quasi-identifiers (the rest insensitive), the
    hierarchies and the description."""
    frame = generate()
    roles = {c: "quasi" if i < qis else "insensitive" for i, c in enumerate(COLUMNS)}
    return frame, roles, hierarchies(frame), DESCRIPTION
