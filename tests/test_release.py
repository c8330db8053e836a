"""Release: labels, suppression marks, re-verification from the released table, export and provenance."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from tests._random_tables import random_dataset
from workbench.data import Dataset
from workbench.errors import ConfigError, VerificationError
from workbench.lattice.evaluate import NodeEvaluator
from workbench.release import Release
from workbench.release.verify import SUPPRESSED
from workbench.samples import load_sample


def _teaching() -> Dataset:
    s = load_sample("teaching")
    return Dataset.create(s.frame, s.roles, s.hierarchies, source="teaching")


def test_labels_and_suppression_el_emam_fig3b():
    """Age in 5-year bands at k = 3: classes (4, 3, 1, 1, 1); the three singletons are suppressed."""
    rel = Release.from_node(_teaching(), (0, 0, 1), 3, 0.3)
    assert rel.labels["age"].tolist()[:5] == ["15-19", "15-19", "15-19", "10-14", "15-19"]
    assert int(rel.suppressed.sum()) == 3 and rel.classes == 2
    table = rel.table()
    assert (table.loc[rel.suppressed, ["date", "gender", "age"]] == SUPPRESSED).all().all()
    g = rel.verify()
    assert g.holds and g.suppressed == 3 and g.limit == 3
    assert len(rel.table("drop")) == 7 and rel.verify(suppressed_policy="drop").holds


def test_guarantee_fails_over_the_limit():
    rel = Release.from_node(_teaching(), (0, 0, 1), 3, 0.2)
    g = rel.verify()
    assert not g.holds and "DOES NOT hold" in g.describe()


def test_write_refuses_an_unverified_release(tmp_path):
    rel = Release.from_node(_teaching(), (0, 0, 0), 3, 0.0)
    with pytest.raises(VerificationError, match="not written"):
        rel.write(tmp_path / "out", seed=1)
    assert not (tmp_path / "out").exists()


def test_verification_catches_a_tampered_table():
    rel = Release.from_node(_teaching(), (2, 1, 4), 3, 0.0)
    table = rel.table()
    table.loc[0, "age"] = "18"  # too specific: now a class of one
    assert not rel.verify(table).holds
    table.loc[0, "age"] = "20-24"  # not an ancestor of the record's age 18
    with pytest.raises(VerificationError, match="does not generalize"):
        rel.verify(table)
    rel2 = Release.from_node(_teaching(), (0, 0, 1), 3, 0.3)
    t2 = rel2.table()
    t2.loc[np.flatnonzero(rel2.suppressed)[0], "age"] = "10-14"
    with pytest.raises(VerificationError, match="not marked"):
        rel2.verify(t2)


def test_write_csv_parquet_excel_and_provenance(tmp_path):
    rel = Release.from_node(_teaching(), (0, 0, 1), 3, 0.3)
    for suffix in ("csv", "parquet", "xlsx"):
        paths = rel.write(tmp_path / suffix, seed=7, config={"privacy": {"k": 3}}, measures={"dm": 55.0},
                          name=f"release.{suffix}")
        reader = {"csv": pd.read_csv, "parquet": pd.read_parquet, "xlsx": pd.read_excel}[suffix]
        back = reader(paths["release"], dtype=str) if suffix != "parquet" else reader(paths["release"])
        assert list(back.columns) == ["date", "gender", "age"] and len(back) == 10
        assert (back == SUPPRESSED).all(axis=1).sum() == 3
        prov = json.loads(paths["provenance"].read_text())
        assert prov["seed"] == 7 and prov["guarantee"]["holds"] and prov["measures"] == {"dm": 55.0}
        assert prov["config"] == {"privacy": {"k": 3}} and prov["package"]["version"]
        assert prov["input"]["records"] == 10 and len(prov["input"]["content_sha256"]) == 64
    with pytest.raises(ConfigError, match="cannot export"):
        rel.write(tmp_path, seed=1, name="release.json")


def test_rows_are_shuffled_reproducibly(tmp_path):
    ds = Dataset.create(*_registry_parts())
    rel = Release.from_node(ds, tuple(c.height for c in ds.encoded), 5, 0.0)
    a = pd.read_csv(rel.write(tmp_path / "a", seed=3)["release"], dtype=str, keep_default_na=False)
    b = pd.read_csv(rel.write(tmp_path / "b", seed=3)["release"], dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(a, b)
    assert "patient_id" not in a.columns  # identifying columns are dropped
    assert not a["length_of_stay"].equals(ds.frame["length_of_stay"].reset_index(drop=True))


def _registry_parts():
    s = load_sample("registry", n=400)
    return s.frame, s.roles, s.hierarchies


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6), sup=st.sampled_from([0.0, 0.1, 0.3, 1.0]))
def test_every_written_release_passes_reverification(tmp_path_factory, seed, k, sup):
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, sup)
    admissible = [e.node for e in map(ev.evaluate, ev.lattice.nodes()) if e.k_anonymous]
    if not admissible:
        return
    node = admissible[seed % len(admissible)]
    rel = Release.from_node(ds, node, k, sup)
    out = tmp_path_factory.mktemp("rel")
    path = rel.write(out, seed=seed)["release"]
    written = pd.read_csv(path, dtype=str, keep_default_na=False)
    qis = ds.quasi_identifiers
    starred = (written[qis] == SUPPRESSED).all(axis=1)
    # all-'*' rows are the suppressed records plus kept records generalized to the root everywhere
    at_root = ((rel.labels[qis] == SUPPRESSED).all(axis=1).to_numpy() & ~rel.suppressed).sum()
    assert starred.sum() == rel.suppressed.sum() + at_root
    assert rel.suppressed.sum() <= int(sup * ds.n + 1e-9)
    sizes = written[~starred].groupby(qis).size()
    assert (sizes >= k).all()
    assert len(written) == ds.n


def test_export_bytes_and_config_toml_round_trip(tmp_path):
    import io

    from workbench.config import load_study, study_from_dict
    from workbench.config.text import to_toml
    from workbench.study import run

    raw = {"data": {"sample": "teaching"}, "privacy": {"k": 3}, "engine": {"algorithm": "flash"},
           "release": {"seed": 11}}
    result = run(study_from_dict(raw))
    files = result.release.export_bytes(seed=11, config=raw)
    table = pd.read_csv(io.BytesIO(files["release"]), dtype=str, keep_default_na=False)
    assert table.groupby(["date", "gender", "age"]).size().min() >= 3
    assert json.loads(files["provenance"])["seed"] == 11
    (tmp_path / "c.toml").write_text(to_toml(raw))
    again = load_study(tmp_path / "c.toml")
    assert again.k == 3 and again.algorithm == "flash" and again.seed == 11 and again.sample == "teaching"


def test_excel_release_holds_values_never_formulas():
    """A released text starting with "=" stays text in the .xlsx (openpyxl would store it as a formula that
    Excel evaluates)."""
    import io

    from openpyxl import load_workbook

    s = load_sample("teaching")
    frame = s.frame.copy()
    frame["note"] = ["=1+1", "=HYPERLINK(\"http://x\")", "plain", *["ok"] * (len(frame) - 3)]
    ds = Dataset.create(frame, {**s.roles, "note": "sensitive"}, s.hierarchies, source="teaching")
    files = Release.from_node(ds, (0, 0, 1), 3, 0.3).export_bytes(seed=1, fmt="xlsx")
    sheet = load_workbook(io.BytesIO(files["release"])).active
    cells = [cell for row in sheet.iter_rows() for cell in row]
    assert all(cell.data_type != "f" for cell in cells)
    assert {"=1+1", "=HYPERLINK(\"http://x\")"} <= {cell.value for cell in cells}


def test_missing_values_are_exported_as_an_explicit_token_that_pandas_keeps():
    """Issue 18, item 10: an empty cell is written as "(missing)" (in quasi-identifiers at level 0 and above, and in
    released attributes), so ``pandas.read_csv`` with its defaults keeps it as a value and a group-by counts it."""
    import io

    from workbench.hierarchy.intervals import intervals
    from workbench.hierarchy.missing import MISSING

    ages = ["30", "", "41", "", "35", "47", "", "33"]
    frame = pd.DataFrame({"age": ages, "note": ["x", "", "y", "x", "", "y", "x", "y"]})
    dataset = Dataset.create(frame, {"age": "quasi", "note": "insensitive"},
                             {"age": intervals(ages, [10, 20])}, source="synthetic")
    counts = {"age": ages.count(""), "note": list(frame["note"]).count("")}
    for node in ((0,), (1,)):  # at level 1 the hierarchy labels age "(missing)"; both levels write every one so
        files = Release.from_node(dataset, node, 1, 0.0).export_bytes(seed=1)
        back = pd.read_csv(io.BytesIO(files["release"]))
        assert not back.isna().any().any()
        assert (back["age"] == MISSING).sum() == 3 and (back["note"] == MISSING).sum() == 2
        assert back.groupby("age").size().sum() == len(ages)
        assert json.loads(files["provenance"])["missing_values"] == {
            "token": MISSING, "cells": sum(counts.values()),
            "columns": {c: {"input": n, "read_as_missing": {"": n}, "written": n} for c, n in counts.items()}}
        mappings = pd.read_csv(io.BytesIO(files["mappings"]))
        assert not mappings.isna().any().any() and MISSING in set(mappings["original"])
