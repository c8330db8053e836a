"""Several uploaded tables in one session, each keeping its own settings, and the analyst's order of the
quasi-identifiers (the order of the transformation vector) through the config the app downloads and loads again."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests._app import APP, captured_downloads, goto
from tests.test_app_own_data import _hierarchies, _table
from workbench.config import load_study, study_from_dict
from workbench.config.bundle import read_config_bytes
from workbench.config.text import to_toml

ORDER = ["zip", "age", "sex"]  # the analyst's order; sorted it would be age, sex, zip


def _upload(at: AppTest, content: bytes, name: str) -> AppTest:
    at.file_uploader(key="data_upload").upload(name, content, "text/csv").run()
    assert not at.exception
    return at


def _set_up(at: AppTest, content: bytes) -> AppTest:
    """patients.csv: quasi-identifiers in ``ORDER``, patient identifying, diagnosis the target, hierarchies."""
    sha = hashlib.sha256(content).hexdigest()
    goto(at, "Data").run()
    at.multiselect(key=f"role:quasi:{sha}").set_value(ORDER).run()
    at.multiselect(key=f"role:identifying:{sha}").set_value(["patient"]).run()
    at.selectbox(key=f"role:target:{sha}").select("diagnosis").run()
    return _hierarchies(at)


def _other_table() -> bytes:
    rng = np.random.default_rng(9)
    return pd.DataFrame({"age": rng.integers(0, 100, 80).astype(str), "city": rng.choice(["A", "B"], 80)}) \
        .to_csv(index=False).encode()


def test_each_uploaded_table_keeps_its_roles_and_hierarchies():
    a, b = _table(), _other_table()
    at = _set_up(_upload(AppTest.from_file(APP, default_timeout=180).run(), a, "patients.csv"), a)
    at.selectbox(key="h_column").select("age").run()
    at.text_input(key="widths:age").set_value("10, 20").run()  # A's age: bands of 10 and 20
    assert at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Data").run()
    _upload(at, b, "cities.csv")  # B comes in fresh: no role, no hierarchy of A's
    sha_b = hashlib.sha256(b).hexdigest()
    assert at.multiselect(key=f"role:quasi:{sha_b}").value == ["age"]  # suggested from its name, not A's
    at.multiselect(key=f"role:quasi:{sha_b}").set_value(["city", "age"]).run()
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("age").run()
    assert at.text_input(key="widths:age").value != "10, 20"  # A's builder widgets are not B's
    at.text_input(key="widths:age").set_value("50").run()
    goto(at, "Data").run()
    _upload(at, a, "patients.csv")  # back to A: its settings as they were
    sha_a = hashlib.sha256(a).hexdigest()
    assert not at.exception
    assert at.multiselect(key=f"role:quasi:{sha_a}").value == ORDER
    assert at.multiselect(key=f"role:identifying:{sha_a}").value == ["patient"]
    assert at.selectbox(key=f"role:target:{sha_a}").value == "diagnosis"
    assert any("uploaded before in this session" in i.value for i in at.info)
    assert at.selectbox(key="dataset").value == "uploaded"  # ready again: every hierarchy came back
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("age").run()
    assert at.text_input(key="widths:age").value == "10, 20"
    goto(at, "Data").run()
    _upload(at, b, "cities.csv")  # and B's own settings too
    assert at.multiselect(key=f"role:quasi:{sha_b}").value == ["city", "age"]
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("age").run()
    assert at.text_input(key="widths:age").value == "50"


def _quasi(study) -> list[str]:
    return [a.name for a in study.attributes if a.role == "quasi"]


def test_the_downloaded_config_keeps_the_order_of_the_quasi_identifiers(tmp_path):
    content = _table()
    at = _set_up(_upload(AppTest.from_file(APP, default_timeout=180).run(), content, "patients.csv"), content)
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and list(at.dataframe[0].value.columns) == ORDER  # the transformation vector
    with captured_downloads() as files:
        goto(at, "Export").run()
        assert not at.exception
        toml, bundle = files["patients-k5-config.toml"](), files["patients-k5-config-bundle.zip"]()
        provenance = json.loads(files["patients-k5-provenance.json"]())
    (tmp_path / "config.toml").write_bytes(toml)
    assert _quasi(load_study(tmp_path / "config.toml")) == ORDER
    assert _quasi(read_config_bytes(bundle, "config-bundle.zip")[0]) == ORDER
    assert list(provenance["config"]["attributes"])[:3] == ORDER
    with zipfile.ZipFile(io.BytesIO(bundle)) as z:
        assert _quasi(read_config_bytes(z.read("config.toml"), "config.toml")[0]) == ORDER
    fresh = _upload(AppTest.from_file(APP, default_timeout=180).run(), content, "patients.csv")
    fresh.file_uploader(key="config_upload").upload("config-bundle.zip", bundle, "application/zip").run()
    assert not fresh.exception and fresh.selectbox(key="dataset").value == "uploaded"
    assert fresh.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").value == ORDER
    goto(fresh, "Anonymize").run()
    fresh.button[0].click().run()
    assert not fresh.exception and list(fresh.dataframe[0].value.columns) == ORDER


def test_to_toml_and_load_study_keep_the_attribute_order(tmp_path):
    raw = {"data": {"sample": "teaching"}, "privacy": {"k": 3},
           "attributes": {"gender": {"role": "quasi"}, "age": {"role": "quasi"}, "date": {"role": "quasi"}}}
    (tmp_path / "c.toml").write_text(to_toml(raw))
    assert _quasi(load_study(tmp_path / "c.toml")) == ["gender", "age", "date"] == _quasi(study_from_dict(raw))
