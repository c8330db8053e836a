"""The 10-record teaching table of El Emam et al. (2009, JAMIA), Fig. 3: date, gender, age.

Its lattice (heights date 2, gender 1, age 4) is the paper's running example; with k = 3 the
discernibility metric DM* is 16 at node <0,0,0>, 28 at <0,0,1> and 16 at <0,1,0>.
"""

from __future__ import annotations

import pandas as pd

from workbench.hierarchy.intervals import intervals
from workbench.hierarchy.tree import Hierarchy

DESCRIPTION = (
    "El Emam et al. 2009 (JAMIA) Fig. 3: 10 records (admission date dd/mm/yyyy, gender, age), "
    "all three quasi-identifiers"
)

_ROWS = [
    ("01/01/2008", "M", "18"),
    ("01/01/2008", "M", "18"),
    ("01/01/2008", "M", "18"),
    ("01/01/2008", "M", "13"),
    ("01/01/2008", "M", "19"),
    ("02/01/2008", "F", "18"),
    ("02/01/2008", "F", "22"),
    ("02/01/2008", "F", "23"),
    ("02/01/2008", "F", "21"),
    ("01/01/2008", "M", "22"),
]


def build() -> tuple[pd.DataFrame, dict[str, str], dict[str, Hierarchy], str]:
    frame = pd.DataFrame(_ROWS, columns=["date", "gender", "age"], dtype=str)
    dates = sorted(set(frame["date"]), key=lambda d: d[6:] + d[3:5] + d[:2])
    date_h = Hierarchy.from_mapping({d: [d[3:], "*"] for d in dates}, name="date")  # dd/mm/yyyy -> mm/yyyy
    gender_h = Hierarchy.from_rows([("F", "Person"), ("M", "Person")], name="gender")
    age_h = intervals(frame["age"], [5, 10, 20], name="age")  # 10-14 -> 10-19 -> 0-19 -> *
    roles = {"date": "quasi", "gender": "quasi", "age": "quasi"}
    return frame, roles, {"date": date_h, "gender": gender_h, "age": age_h}, DESCRIPTION
