"""One definition of a missing value (workbench/hierarchy/missing.py), used everywhere: on a table with R's ``NA``,
blank cells and tokens the analyst accepted as missing (``n/a`` and ``?`` through intervals' ``non_numeric =
"missing"``, ``unknown`` through a groupings key mapped to ``"(missing)"``), the Data page's profile, the Dataset,
every engine's released cells, the exported file and both provenance records agree with a count made here from the
raw CSV text."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests._cli import call
from workbench.config import load_study
from workbench.data import Dataset, profile
from workbench.errors import HierarchyError
from workbench.hierarchy.builders import build_hierarchy
from workbench.hierarchy.missing import MISSING
from workbench.hierarchy.suggest import suggest_spec
from workbench.hierarchy.tree import Hierarchy
from workbench.readers import read_table
from workbench.release import Release
from workbench.release.output import mark_missing
from workbench.study import load_dataset, run

QIS = ["age", "income", "education", "sex"]
# what is missing in each column, as the config below accepts it (the reference the test counts with)
ACCEPTED = {"id": set(), "age": {"", "NA"}, "income": {"", "n/a", "?"}, "education": {"", "unknown"}, "sex": {""},
            "note": {""}}
CONFIG = """[data]
path = "wages.csv"
[attributes.id]
role = "identifying"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10, 20], non_numeric = "missing" }
[attributes.income]
role = "quasi"
builder = { kind = "intervals", widths = [1000, 2000], non_numeric = "missing" }
[attributes.education]
role = "quasi"
builder = { kind = "groupings", levels = [{ HS = "school", BA = "college", MA = "college", unknown = "(missing)" }] }
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [] }
[attributes.note]
role = "insensitive"
[privacy]
k = 3
max_suppression = 0.1
[engine]
algorithm = "flash"
"""


def _csv_text(n: int = 150, seed: int = 3) -> str:
    """A wages table as R writes it: ``NA`` ages, blank cells, and ``n/a``, ``?``, ``unknown`` tokens; the note
    column has ``NA`` too, which no hierarchy accepts there (a value)."""
    rng = np.random.default_rng(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "age", "income", "education", "sex", "note"])
    for i in range(n):
        age = rng.choice(["NA", "", str(rng.integers(20, 70))], p=[0.1, 0.05, 0.85])
        income = rng.choice(["n/a", "?", "", str(rng.integers(1000, 6000))], p=[0.06, 0.04, 0.05, 0.85])
        education = rng.choice(["HS", "BA", "MA", "unknown", ""], p=[0.35, 0.3, 0.2, 0.1, 0.05])
        sex = rng.choice(["F", "M", ""], p=[0.48, 0.48, 0.04])
        note = rng.choice(["x", "y", "NA", ""], p=[0.4, 0.4, 0.1, 0.1])
        writer.writerow([f"P{i:04d}", age, income, education, sex, note])
    return out.getvalue()


def _raw(text: str) -> tuple[list[dict[str, str]], dict[str, Counter[str]]]:
    """The rows of the CSV text (csv module, no pandas) and, per column, each missing text with its count."""
    rows = list(csv.DictReader(io.StringIO(text)))
    return rows, {c: Counter(r[c] for r in rows if r[c] in ACCEPTED[c]) for c in ACCEPTED}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, str]], dict[str, Counter[str]]]:
    folder = tmp_path_factory.mktemp("wages")
    text = _csv_text()
    (folder / "wages.csv").write_text(text, encoding="utf-8")
    (folder / "wages.toml").write_text(CONFIG, encoding="utf-8")
    rows, counts = _raw(text)
    assert all(counts[c][t] > 0 for c in ACCEPTED for t in ACCEPTED[c])  # every kind of missing text occurs
    return folder / "wages.toml", rows, counts


def test_the_profile_and_the_dataset_count_what_the_raw_text_holds(table) -> None:
    config, _, counts = table
    dataset = load_dataset(load_study(config))
    assert {c: dict(m) for c, m in dataset.missing.items()} == {c: dict(m) for c, m in counts.items() if m}
    frame = read_table(config.with_name("wages.csv"))
    shown, _ = profile(frame, dataset.roles, 3, dataset.hierarchies)
    assert dict(zip(shown["column"], shown["missing values"], strict=True)) == {
        c: sum(counts[c].values()) for c in frame.columns}
    # the missing texts are one value: the profile's distinct values count them once
    for c in QIS:
        present = {r for r in frame[c]}
        assert dict(zip(shown["column"], shown["distinct values"], strict=True))[c] == \
            len(present - ACCEPTED[c]) + 1


def test_the_suggested_hierarchy_decides_what_the_profile_counts_before_one_is_chosen(table) -> None:
    """NA among numbers is suggested as missing (R's missing value), so the profile counts it with the blanks;
    n/a and ? wait for the analyst's choice, so until then only the blank incomes are missing."""
    config, _, counts = table
    frame = read_table(config.with_name("wages.csv"))
    assert suggest_spec(frame["age"].tolist())["non_numeric"] == "missing"
    assert suggest_spec(frame["income"].tolist())["non_numeric"] == "error"
    age = build_hierarchy(suggest_spec(frame["age"].tolist()), frame["age"].tolist(), "age")
    shown, _ = profile(frame, {c: "quasi" for c in QIS}, 3, {"age": age})
    missing = dict(zip(shown["column"], shown["missing values"], strict=True))
    assert missing["age"] == counts["age"][""] + counts["age"]["NA"]
    assert missing["income"] == counts["income"][""] and missing["education"] == counts["education"][""]


def _released(release: Release) -> dict[str, np.ndarray]:
    marked, _ = mark_missing(release.table())
    return {c: marked[c].astype(str).to_numpy() for c in QIS}


def _check_cells(release: Release, rows: list[dict[str, str]], levels: dict[str, int] | None) -> None:
    """A missing value is released as the token, or generalized with other values to the root ``*`` (or its record
    suppressed); a value that is not missing never reads the token; a local class whose records all lack a value
    releases the token there (the least upper bound of one value is that value), as does every level of the
    lattice below the root."""
    cells = _released(release)
    kept = ~release.suppressed
    classes: dict[tuple[str, ...], list[int]] = {}
    for i, key in enumerate(zip(*(cells[c] for c in QIS), strict=True)):
        classes.setdefault(key, []).append(i)
    for c in QIS:
        miss = np.array([r[c] in ACCEPTED[c] for r in rows])
        assert set(cells[c][miss]) <= {MISSING, "*"}, (c, set(cells[c][miss]))
        assert not (cells[c][~miss] == MISSING).any()
        assert not set(cells[c]) & {"", "NA", "n/a", "?", "unknown"}
        if levels is None:  # local recoding: the least upper bound of one value is that value
            for members in classes.values():
                if miss[members].all():
                    assert (cells[c][members] == MISSING).all()
        elif levels[c] < release.dataset.hierarchies[c].height:  # the lattice: every level below the root
            assert (cells[c][miss & kept] == MISSING).all()


def _check_export(release: Release, rows: list[dict[str, str]], counts: dict[str, Counter[str]]) -> dict[str, object]:
    files = release.export_bytes(seed=5)
    written = list(csv.DictReader(io.StringIO(files["release"].decode("utf-8"))))
    marked, _ = mark_missing(release.table())
    assert Counter(tuple(r.values()) for r in written) == Counter(map(tuple, marked.astype(str).to_numpy().tolist()))
    record = json.loads(files["provenance"])["missing_values"]
    columns = record["columns"]
    assert record["token"] == MISSING and "id" not in columns  # an identifying column is not in the file
    for c in ["age", "income", "education", "sex", "note"]:
        in_file = sum(r[c] == MISSING for r in written)
        assert columns[c] == {"input": sum(counts[c].values()), "read_as_missing": dict(counts[c].most_common()),
                              "written": in_file}
    assert record["cells"] == sum(columns[c]["written"] for c in columns)
    assert sum(r["note"] == "NA" for r in written) == sum(r["note"] == "NA" for r in rows)  # no hierarchy: a value
    return record


@pytest.mark.parametrize("engine, algorithm", [("lattice", "flash"), ("local", "mondrian"), ("local", "greedy"),
                                               ("local", "partition")])
def test_every_engine_releases_a_missing_value_as_the_token_and_the_export_counts_it(table, engine, algorithm):
    config, rows, counts = table
    study = load_study(config)
    study = replace(study, engine=engine, algorithm=algorithm,
                    objective=study.objective if engine == "lattice" else "vinterbo")
    result = run(study)
    assert result.release is not None and result.release.verify().holds
    node = result.release.transformation if engine == "lattice" else None
    _check_cells(result.release, rows, dict(node) if node else None)
    _check_export(result.release, rows, counts)


def test_the_lattice_writes_every_missing_value_below_the_root_at_every_level(table) -> None:
    """At the bottom (k = 1, nothing suppressed) and one level up, every missing cell reads the token: the count
    of tokens per column is the raw count, NA, blanks and accepted tokens together."""
    config, rows, counts = table
    dataset = load_dataset(load_study(config))
    for node in ((0, 0, 0, 0), (1, 1, 1, 0), (2, 0, 1, 1)):
        release = Release.from_node(dataset, node, 1, 0.0)
        _check_cells(release, rows, dict(zip(QIS, node, strict=True)))
        record = _check_export(release, rows, counts)
        for c, level in zip(QIS, node, strict=True):
            expected = sum(counts[c].values()) if level < dataset.hierarchies[c].height else 0
            assert record["columns"][c]["written"] == expected


def test_the_cli_provenance_counts_the_missing_cells_per_column(table, tmp_path: Path) -> None:
    config, _, counts = table
    for engine in ("lattice", "local"):
        out = tmp_path / engine
        extra = ["--set", "engine.kind=local", "--set", "engine.algorithm=mondrian",
                 "--set", "engine.objective=vinterbo"] if engine == "local" else []
        status, _, stderr = call("run", config, *extra, "--out", out)
        assert status == 0, stderr
        written = list(csv.DictReader(io.StringIO((out / "release.csv").read_text(encoding="utf-8"))))
        record = json.loads((out / "provenance.json").read_text(encoding="utf-8"))["missing_values"]
        for c in ["age", "income", "education", "sex", "note"]:
            assert record["columns"][c]["input"] == sum(counts[c].values())
            assert record["columns"][c]["read_as_missing"] == dict(counts[c].most_common())
            assert record["columns"][c]["written"] == sum(r[c] == MISSING for r in written)
        assert not any(r[c] in ("", "NA", "n/a", "?", "unknown") for r in written for c in QIS)


def test_the_token_read_back_is_missing_and_two_paths_for_missing_values_are_refused() -> None:
    """A released file read again keeps its missing values missing: ``(missing)`` joins the blanks and NA as one
    value. A hierarchy that puts two missing values on different paths is refused in one line naming them."""
    frame = read_table_text("age,sex\n30,F\n(missing),M\n,F\nNA,M\n41,F\n")
    spec = {"kind": "intervals", "widths": [10], "non_numeric": "missing"}
    h = build_hierarchy(spec, frame["age"].tolist(), "age")
    dataset = Dataset.create(frame, {"age": "quasi", "sex": "insensitive"}, {"age": h})
    assert dict(dataset.missing["age"]) == {"": 1, "(missing)": 1, "NA": 1}
    assert dataset.encoded[0].counts.tolist().count(3) == 1  # one value, three records
    split = Hierarchy.from_rows([["30", "30-39", "*"], ["", "unknown", "*"], ["NA", MISSING, "*"]], name="age.csv")
    with pytest.raises(HierarchyError, match=r"column 'age': hierarchy 'age.csv' places the missing values on "
                                             r"different paths \(''.*'NA'"):
        Dataset.create(read_table_text("age,sex\n30,F\n,M\nNA,F\n"), {"age": "quasi"}, {"age": split})


def read_table_text(text: str):  # noqa: ANN201
    from workbench.readers import read_table_bytes

    return read_table_bytes(text.encode("utf-8"), "table.csv")


def _profile_missing(at) -> dict[str, int]:  # noqa: ANN001
    shown = next(d.value for d in at.dataframe if "missing values" in d.value.columns)
    return dict(zip(shown["column"], shown["missing values"], strict=True))


def test_the_app_profile_and_export_provenance_agree_with_the_raw_text() -> None:
    """Upload the table: the profile counts NA ages (the suggested hierarchy accepts them) and only the blank
    incomes; load the config that accepts n/a, ? and unknown: the profile counts them too, and the Export page's
    provenance records the same counts and the file's tokens."""
    from streamlit.testing.v1 import AppTest

    from tests._app import APP, captured_downloads, goto

    text = _csv_text(90, seed=8)
    _, counts = _raw(text)
    content = text.encode("utf-8")
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.file_uploader(key="data_upload").upload("wages.csv", content, "text/csv").run()
    at.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").set_value(QIS).run()
    assert not at.exception
    missing = _profile_missing(at)
    assert missing["age"] == sum(counts["age"].values()) and missing["note"] == sum(counts["note"].values())
    assert missing["income"] == counts["income"][""] and missing["education"] == counts["education"][""]
    at.file_uploader(key="config_upload").upload("wages.toml", CONFIG.encode(), "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    assert _profile_missing(at) == {c: sum(counts[c].values()) for c in ACCEPTED}
    with captured_downloads() as downloads:
        goto(at, "Anonymize").run()
        at.button[0].click().run()
        assert not at.exception
        goto(at, "Export").run()
        assert not at.exception
        written = list(csv.DictReader(io.StringIO(downloads["release.csv"]().decode("utf-8"))))
        record = json.loads(downloads["provenance.json"]())["missing_values"]
    for c in ["age", "income", "education", "sex", "note"]:
        assert record["columns"][c] == {"input": sum(counts[c].values()),
                                        "read_as_missing": dict(counts[c].most_common()),
                                        "written": sum(r[c] == MISSING for r in written)}


def test_a_range_poset_refuses_a_missing_value_in_one_line(tmp_path: Path) -> None:
    """A missing value has no place among numbers: the local engine's range poset refuses the column, naming it."""
    (tmp_path / "t.csv").write_text("age,sex\n30,F\nNA,M\n41,F\n,M\n35,F\n", encoding="utf-8")
    (tmp_path / "t.toml").write_text("""[data]
path = "t.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10], non_numeric = "missing" }
poset = "range"
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [] }
[privacy]
k = 2
[engine]
kind = "local"
algorithm = "mondrian"
objective = "vinterbo"
""", encoding="utf-8")
    status, _, stderr = call("run", tmp_path / "t.toml")
    assert status != 0 and len(stderr.strip().splitlines()) == 1
    assert "column 'age': a range poset needs numbers, and a missing value has no place among them" in stderr
