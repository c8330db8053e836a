"""The Data page warns when a released column gives a quasi-identifier back (workbench.risk.dependencies)."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests._app import goto
from tests.test_app_own_data import APP, _hierarchies, _uploaded, _with_roles


def _table_with_town(n: int = 200, seed: int = 5) -> bytes:
    rng = np.random.default_rng(seed)
    zips = rng.choice(["02139", "02138", "02141", "02142", "02445", "02446"], n)
    frame = pd.DataFrame({
        "patient": [f"P{i:04d}" for i in range(n)],
        "age": rng.integers(20, 80, n).astype(str),
        "zip": zips,
        "town": np.where(np.char.startswith(zips.astype(str), "021"), "Cambridge", "Brookline"),
        "sex": rng.choice(["F", "M"], n),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n),
    })
    return frame.to_csv(index=False).encode()


def _dependency_warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "determines quasi-identifier" in w.value]


def test_the_embedded_registry_shows_no_dependency_warning():
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and at.selectbox(key="dataset").value == "registry"
    assert _dependency_warnings(at) == []


def test_data_page_warns_about_a_column_that_determines_a_generalized_quasi_identifier():
    """'town' (left insensitive) is Cambridge for every 021xx zip and Brookline for every 024xx: it tells the
    zip masked to three digits (level 2 of the masking hierarchy 02139 -> 0213* -> 021** -> ...), though not
    to four (0213* and 0214* are both Cambridge)."""
    content = _table_with_town()
    at = _hierarchies(_with_roles(_uploaded(content), content))
    goto(at, "Data").run()
    assert not at.exception
    [warning] = _dependency_warnings(at)
    assert warning.startswith("'town' (insensitive, released unchanged) determines quasi-identifier 'zip' at "
                              "level 2 (2 distinct values, e.g. '021\\*\\*')")  # the label's * shown, not emphasis
    sha = hashlib.sha256(content).hexdigest()
    at.multiselect(key=f"role:identifying:{sha}").set_value(["patient", "town"]).run()  # withheld: no warning
    assert not at.exception and _dependency_warnings(at) == []


def _table_with_schooling(n: int = 240, seed: int = 6) -> bytes:
    """Age = years of education + years of experience + 6 in every record but one (as in the 1985 Current
    Population Survey's wage sample)."""
    rng = np.random.default_rng(seed)
    education, experience = rng.integers(6, 19, n), rng.integers(0, 50, n)
    age = education + experience + 6
    age[3] += 2
    frame = pd.DataFrame({
        "patient": [f"P{i:04d}" for i in range(n)], "age": age.astype(str),
        "zip": rng.choice(["02139", "02138", "02141", "02142", "02445", "02446"], n), "sex": rng.choice(["F", "M"], n),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes"], n),
        "education": education.astype(str), "experience": experience.astype(str),
    })
    return frame.to_csv(index=False).encode()


def test_data_and_anonymize_pages_warn_about_columns_that_recompute_a_quasi_identifier():
    """Neither education nor experience tells the age; together they give it back in 239 of 240 records. The Data
    page warns, and the Anonymize page shows the warning beside the green guarantee of the release."""
    content = _table_with_schooling()
    at = _hierarchies(_with_roles(_uploaded(content), content))
    goto(at, "Data").run()
    assert not at.exception
    expected = ("quasi-identifier 'age' can be recomputed from education + experience + 6 (239 of 240 rows; "
                "'education', 'experience': insensitive, released unchanged)")
    assert [w.value for w in at.warning if "can be recomputed" in w.value][0].startswith(expected)
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and "k-anonymous" in at.success[0].value
    assert any(w.value.startswith(expected) for w in at.warning)
    sha = hashlib.sha256(content).hexdigest()
    goto(at, "Data").run()
    at.multiselect(key=f"role:identifying:{sha}").set_value(["patient", "experience"]).run()  # withheld
    assert not at.exception and not any("can be recomputed" in w.value for w in at.warning)
