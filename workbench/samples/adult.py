"""UCI Adult (Kohavi & Becker 1996; 30,162 records without missing values) with ARX's standard hierarchies.

This is the table of ARX's benchmarks and of the conformance values the tests reproduce: nine attributes, each
with an ARX hierarchy file. ``adult`` makes the eight attributes of ARX's conformance runs quasi-identifiers
(occupation is insensitive); ``adult9`` adds occupation as the ninth. The data (CC BY 4.0, UCI Machine Learning
Repository) and the hierarchies ship gzip-compressed in ``workbench/samples/adult/``; ``adult_subset.csv.gz`` is
ARX's research subset (3,016 records), kept for δ-presence.
"""

from __future__ import annotations

import gzip
from importlib import resources

import pandas as pd

from workbench.hierarchy.tree import Hierarchy
from workbench.readers import read_table_bytes

QUASI_IDENTIFIERS = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
                     "salary-class")
ALL_QUASI_IDENTIFIERS = (*QUASI_IDENTIFIERS, "occupation")  # adult9's quasi-identifiers follow the column order

DESCRIPTION = "UCI Adult, 30,162 records, ARX's hierarchies: 8 quasi-identifiers (occupation insensitive)"
DESCRIPTION_9 = "UCI Adult, 30,162 records, ARX's hierarchies: 9 quasi-identifiers (occupation included)"

_FOLDER = resources.files("workbench.samples") / "adult"


def _csv(name: str) -> pd.DataFrame:
    """A gzip-compressed ';'-separated table of the folder, read as the data reader reads any CSV."""
    raw = gzip.decompress((_FOLDER / f"{name}.csv.gz").read_bytes())
    return read_table_bytes(raw, f"{name}.csv", ";")


def _hierarchies() -> dict[str, Hierarchy]:
    out = {}
    for attribute in ALL_QUASI_IDENTIFIERS:
        with resources.as_file(_FOLDER / f"adult_hierarchy_{attribute}.csv") as path:
            out[attribute] = Hierarchy.read_arx(path)
    return out


def build(quasi_identifiers: int = 8) -> tuple[pd.DataFrame, dict[str, str], dict[str, Hierarchy], str]:
    """The Adult table, its roles (8 or 9 quasi-identifiers, in ARX's order) and its nine hierarchies."""
    qis = QUASI_IDENTIFIERS if quasi_identifiers == 8 else ALL_QUASI_IDENTIFIERS
    frame = _csv("adult")
    roles = {a: "quasi" if a in qis else "insensitive" for a in frame.columns}  # column order is ARX's order
    return frame, roles, _hierarchies(), DESCRIPTION if quasi_identifiers == 8 else DESCRIPTION_9


def research_subset() -> pd.DataFrame:
    """ARX's research subset of Adult (3,016 of the records), for δ-presence (Nergiz et al. 2007)."""
    return _csv("adult_subset")
