"""The Export page says what becomes of the suppressed records and offers to leave them out (streamlit.testing
AppTest): the bytes the page hands to its download buttons are read back with pandas."""

from __future__ import annotations

import io
import json
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, goto
from workbench.ui import export as export_page
from workbench.ui.download import download

QIS = ["date", "gender", "age"]  # the teaching table's quasi-identifiers


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """What the Export page hands to each download button, by label (the page runs in this process)."""
    seen: dict[str, bytes] = {}
    original = download

    def record(label: str, content: bytes, *args: Any, **kwargs: Any) -> None:
        seen[label] = content
        original(label, content, *args, **kwargs)

    monkeypatch.setattr(export_page, "download", record)
    return seen


def _read(content: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False, na_values=[])


def _export_with_suppression() -> AppTest:
    """The teaching table at k = 3 with a 30 % limit: the optimum suppresses 3 of the 10 records."""
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(3).run()
    at.checkbox(key="sup_override").check().run()
    at.slider(key="an_sup").set_value(30.0).run()
    at.button[0].click().run()
    assert not at.exception and "3 suppressed" in at.success[0].value
    goto(at, "Export").run()
    assert not at.exception
    return at


def test_export_keeps_suppressed_records_marked_and_drops_them_when_asked(downloads: dict[str, bytes]) -> None:
    at = _export_with_suppression()
    said = " ".join(m.value for m in at.markdown)
    assert "**kept** in the file with `*` in every quasi-identifier" in said and "all 10 rows" in said
    marked = _read(downloads["Release"])
    stars = (marked[QIS] == "*").all(axis=1)
    assert len(marked) == 10 and stars.sum() == 3
    assert json.loads(downloads["Provenance (JSON)"])["suppressed_records"] == "mark"

    at.checkbox(key="ex_drop_suppressed").check().run()
    assert not at.exception
    said = " ".join(m.value for m in at.markdown)
    assert "**left out**: the file holds 7 rows, not 10" in said
    assert any("re-verification" in s.value for s in at.success)  # below the decision summary
    dropped = _read(downloads["Release"])
    assert len(dropped) == 7 and not (dropped[QIS] == "*").any(axis=None)
    assert dropped[QIS].value_counts().min() >= 3  # every group of identical quasi-identifier rows holds k
    # the same rows as the marked file without its starred rows (as multisets: both files are shuffled)
    rows = lambda frame: Counter(map(tuple, frame.to_numpy().tolist()))  # noqa: E731
    assert rows(dropped) == rows(marked[~stars])
    provenance = json.loads(downloads["Provenance (JSON)"])
    assert provenance["suppressed_records"] == "drop"
    assert provenance["guarantee"]["holds"] and provenance["guarantee"]["suppressed"] == 3


def test_a_release_without_suppressed_records_offers_no_choice() -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(2).run()
    at.slider(key="an_sup").set_value(0.0).run()
    at.button[0].click().run()
    goto(at, "Export").run()
    assert not at.exception
    assert not [c for c in at.checkbox if c.key == "ex_drop_suppressed"]
    assert any("No record is suppressed" in c.value for c in at.caption)


# ---------------------------------------------------------------------------------------------- file names
def test_file_names_say_the_dataset_and_the_rule_and_are_safe() -> None:
    from workbench.release.output import release_file_stem, safe_name

    assert release_file_stem({"data": {"path": "wages1985.csv"}, "privacy": {"k": 5}}) == "wages1985-k5"
    l3 = {"k": 5, "l_diversity": {"attribute": "diagnosis", "l": 3}}
    assert release_file_stem({"data": {"sample": "registry"}, "privacy": l3}) == "registry-k5-l3"
    assert release_file_stem({"data": {"path": "adult.data"}, "privacy": {
        "k": 10, "t_closeness": {"attribute": "income", "t": 0.2}, "risk": {"model": "average", "threshold": 0.1},
        "delta_presence": {"delta_min": 0.0, "delta_max": 0.5}}}) == "adult-k10-t0.2-delta0-0.5-risk0.1"
    for hostile in ("../../etc/passwd", "a\\b/c", "x;rm -rf ~", "$(reboot)", "\x00\n\t", "-rf", ".hidden", "NUL",
                    "é" * 200, "COM1.csv", ""):
        name = safe_name(hostile)
        assert name and len(name) <= 60 and re.fullmatch(r"[A-Za-z0-9._-]+", name), (hostile, name)
        assert not name.startswith((".", "-")) and not name.endswith((".", "-")), name
        assert name.split(".")[0].upper() not in {"NUL", "COM1", "CON"}, name
    assert safe_name("Données été") == "Donnees-ete" and safe_name("", fallback="x") == "x"


ODD_NAME = "Données été;v2 $(x).csv"  # an uploaded file's name, as the browser sends it
ODD_STEM = "Donnees-ete-v2-x-k5"  # what the downloads start with: the dataset made safe, then k


def test_downloads_are_named_for_people_and_the_bundle_holds_every_hierarchy(tmp_path: Path) -> None:
    """Own data under an odd file name, with a quasi-identifier named like a path: every download is named after
    the dataset and the rule (safe characters only); the bundle holds config.toml and one hierarchy file per
    quasi-identifier (built ones too), which load with its config and reproduce the downloaded release."""
    import zipfile

    from tests._app import captured_downloads, people_config
    from workbench.config import load_study
    from workbench.hierarchy.builders import build_hierarchy
    from workbench.study import run

    rng = np.random.default_rng(8)
    n = 120
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "../ward": rng.choice(["A", "B", "C"], n)})
    toml = people_config('[attributes."../ward"]\nrole = "quasi"\n'
                         'builder = { kind = "groupings", levels = [{ A = "AB", B = "AB", C = "C" }, '
                         '{ AB = "*", C = "*" }] }\n').replace('path = "people.csv"', f'path = "{ODD_NAME}"')
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload(ODD_NAME, frame.to_csv(index=False).encode(), "text/csv").run()
    at.file_uploader(key="config_upload").upload("people.toml", toml.encode(), "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(5).run()
    at.button[0].click().run()
    assert not at.exception
    with captured_downloads() as files:
        goto(at, "Export").run()
        assert not at.exception
        got = {name: make() for name, make in files.items()}
    kinds = ("release.csv", "provenance.json", "mappings.csv", "config.toml", "config-bundle.zip")
    assert {n for n in got if n.startswith(f"{ODD_STEM}-")} == {f"{ODD_STEM}-{kind}" for kind in kinds}
    with zipfile.ZipFile(io.BytesIO(got[f"{ODD_STEM}-config-bundle.zip"])) as z:
        assert sorted(z.namelist()) == ["config.toml", "hierarchies/age.csv", "hierarchies/sex.csv",
                                        "hierarchies/ward.csv"]
        z.extractall(tmp_path)
    assert not (tmp_path.parent / "ward").exists()  # the column's name did not become a path
    (tmp_path / ODD_NAME).write_bytes(frame.to_csv(index=False).encode())
    study = load_study(tmp_path / "config.toml")
    quasi = [a for a in study.attributes if a.role == "quasi"]
    assert [a.name for a in quasi] == ["age", "sex", "../ward"]
    assert all(a.builder is None and a.hierarchy is not None for a in quasi)  # the files, not the builders
    specs = tomllib.loads(toml)["attributes"]
    for a in quasi:  # each file is the hierarchy the config's builder makes of the data
        built = build_hierarchy(specs[a.name]["builder"], frame[a.name], name=a.name)
        assert a.hierarchy.read_text() == built.to_arx(), a.name
    result = run(study)
    released = _read(got[f"{ODD_STEM}-release.csv"])
    rows = lambda table: Counter(map(tuple, table.astype(str).to_numpy().tolist()))  # noqa: E731
    assert rows(released) == rows(result.release.table()[list(released.columns)])
