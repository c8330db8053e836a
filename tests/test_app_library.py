"""Library pieces behind the app's Hierarchies and Export pages: hierarchy previews, groupings from an edited
table, value mappings, in-memory export equal to the written files, config bundles that `workbench run`
runs, and the phases `study.run` reports."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from tests._random_tables import random_dataset, random_node
from workbench import cli
from workbench.config import study_from_dict
from workbench.config.bundle import config_bundle, read_config_bytes
from workbench.data import Dataset
from workbench.errors import ConfigError, HierarchyError
from workbench.hierarchy.builders import build_hierarchy, groupings_from_table
from workbench.hierarchy.tree import Hierarchy
from workbench.release import Release
from workbench.release.verify import SUPPRESSED
from workbench.samples import load_sample
from workbench.study import run


def test_level_table_and_generalized_counts_against_brute_force():
    sample = load_sample("registry")
    h, values = sample.hierarchies["age"], sample.frame["age"]
    table = h.level_table()
    assert list(table.columns) == [f"level {i}" for i in range(h.height + 1)] and len(table) == len(h.rows)
    for level in range(h.height + 1):
        counts = h.generalized_counts(values, level)
        ancestor = {r[0]: r[level] for r in h.rows}
        expected = values.map(ancestor).value_counts()
        got = counts.set_index(f"level {level} value")["records"]
        assert got.sort_index().equals(expected.sort_index().rename("records").rename_axis(got.index.name))
        merged = counts.set_index(f"level {level} value")["original values"]
        assert (merged == values.groupby(values.map(ancestor)).nunique().reindex(merged.index)).all()
    with pytest.raises(HierarchyError, match="outside 0..4"):
        h.generalized_counts(values, 5)


def test_groupings_from_table_builds_the_tree_it_describes():
    rows = [["flu", "respiratory", "acute"], ["asthma", "respiratory", "acute"], ["diabetes", "metabolic", "chronic"]]
    h = build_hierarchy(groupings_from_table(rows), ["flu", "asthma", "diabetes"], "dx")
    assert {r[0]: r[1:] for r in h.rows} == {"flu": ("respiratory", "acute", "*"),
                                               "asthma": ("respiratory", "acute", "*"),
                                               "diabetes": ("metabolic", "chronic", "*")}
    with pytest.raises(ConfigError, match="'diabetes' has no level-1 group"):
        groupings_from_table([["flu", "respiratory"], ["diabetes", None]])
    with pytest.raises(ConfigError, match="'respiratory' is put in both 'acute' and 'chronic'"):
        groupings_from_table([["flu", "respiratory", "acute"], ["asthma", "respiratory", "chronic"]])
    flat = groupings_from_table([["F"], ["M"]])  # no levels: straight to the root (a two-value column)
    assert flat == {"kind": "groupings", "levels": []}
    assert build_hierarchy(flat, ["F", "M"], "sex").height == 1


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 10_000))
def test_value_mappings_reproduce_the_released_table(seed):
    """Every (original, released) pair of the release, counted: joined back onto the data they give the
    released table; suppressed records map to '*'."""
    dataset = random_dataset(seed)
    rng = np.random.default_rng(seed)
    node = random_node(dataset, rng)
    k = int(rng.integers(1, 5))
    release = Release.from_node(dataset, node, k, 0.5)
    mappings = release.value_mappings()
    table = release.table()
    for qi in release.quasi_identifiers:
        pairs = pd.DataFrame({"original": dataset.frame[qi], "released": table[qi]})
        expected = pairs.value_counts().rename("records").reset_index()
        got = mappings[mappings.attribute == qi].drop(columns="attribute")
        merged = expected.merge(got, on=["original", "released"], how="outer", suffixes=("", "_got"))
        assert (merged["records"] == merged["records_got"]).all()
        kept = ~release.suppressed
        if kept.any():  # full-domain recoding: one released value per original among kept records
            assert pairs[kept].groupby("original")["released"].nunique().max() == 1
        assert set(pairs[~kept]["released"]) <= {SUPPRESSED}


def test_export_bytes_equal_the_written_files(tmp_path):
    s = load_sample("teaching")
    release = Release.from_node(Dataset.create(s.frame, s.roles, s.hierarchies), (2, 1, 4), 3, 0.0)
    for fmt in ("csv", "parquet", "xlsx"):
        files = release.export_bytes(seed=5, fmt=fmt)
        written = release.write(tmp_path / fmt, seed=5, name=f"release.{fmt}")
        reader = {"csv": pd.read_csv, "parquet": pd.read_parquet, "xlsx": pd.read_excel}[fmt]
        assert reader(io.BytesIO(files["release"])).equals(reader(written["release"]))
        assert json.loads(files["provenance"])["seed"] == 5
    mappings = pd.read_csv(io.BytesIO(files["mappings"]), dtype=str)
    assert list(mappings.columns) == ["attribute", "original", "released", "records"]
    with pytest.raises(ConfigError, match="cannot export as 'json'"):
        release.export_bytes(seed=1, fmt="json")


def test_a_config_bundle_runs_with_the_cli(tmp_path, capsys):
    """The Export page's bundle, unpacked next to the data, is a study `workbench run` runs to the same
    node as the in-memory run."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.integers(20, 80, 200).astype(str),
                          "sex": rng.choice(["F", "M"], 200), "dx": rng.choice(["a", "b"], 200)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    raw = {"data": {"path": "data.csv"}, "privacy": {"k": 4},
           "attributes": {"age": {"role": "quasi", "builder": {"kind": "intervals", "widths": [5, 10, 20]}},
                          "sex": {"role": "quasi", "hierarchy": "hierarchies/sex.csv"}, "dx": {"role": "target"}},
           "engine": {"kind": "lattice", "algorithm": "flash", "objective": "entropy"},
           "measures": {"compare": ["precision", "nmi"], "target": "dx"}}
    sex = Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex.csv")
    bundle = config_bundle(raw, {"hierarchies/sex.csv": sex.to_arx()})
    zipfile.ZipFile(io.BytesIO(bundle)).extractall(tmp_path)
    assert cli.main(["run", str(tmp_path / "config.toml"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    age = build_hierarchy(raw["attributes"]["age"]["builder"], sorted(frame.age.unique()), "age")
    dataset = Dataset.create(frame, {"age": "quasi", "sex": "quasi", "dx": "target"}, {"age": age, "sex": sex})
    in_memory = run(study_from_dict(raw), dataset).summary()
    assert printed["transformation"] == in_memory["transformation"] and printed["k_anonymous"]
    assert printed["measures"] == pytest.approx(in_memory["measures"])
    study, files = read_config_bytes(bundle, "bundle.zip")
    assert study.k == 4 and files == {"hierarchies/sex.csv": sex.to_arx()}


def test_study_run_reports_its_phases():
    seen: list[tuple[float, str]] = []
    raw = {"data": {"sample": "teaching"}, "privacy": {"k": 3}, "engine": {"algorithm": "ola"}}
    run(study_from_dict(raw), progress=lambda f, text: seen.append((f, text)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and "searching the lattice with ola" in dict(
        (t, f) for f, t in seen)
    seen.clear()
    run(study_from_dict({**raw, "engine": {"kind": "local", "algorithm": "greedy"}}),
        progress=lambda f, text: seen.append((f, text)))
    assert [t for _, t in seen][2] == "clustering with greedy" and seen[-1][0] == 1.0


def test_the_app_binds_to_localhost_by_default():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "localhost" and config["browser"]["gatherUsageStats"] is False
    from workbench.ui.upload import MAX_MB

    assert config["server"]["maxUploadSize"] == MAX_MB
    assert "--server.address localhost" in (root / "Makefile").read_text()


def test_cluster_sizes_of_a_local_release_against_counting():
    raw = {"data": {"sample": "teaching"}, "privacy": {"k": 3}, "engine": {"kind": "local", "algorithm": "partition"}}
    release = run(study_from_dict(raw)).release
    sizes = release.cluster_sizes()
    counted = pd.Series(release.clusters).value_counts().value_counts().sort_index()
    assert sizes.set_index("size")["clusters"].to_dict() == counted.to_dict()
    assert sizes.records.sum() == release.n and sizes["size"].min() >= 3
    lattice = run(study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 3}})).release
    assert lattice.cluster_sizes() is None


def test_suggested_builders_fit_the_values():
    from workbench.hierarchy.suggest import suggest_builder

    assert suggest_builder(["02139", "02138", "02141", ""]) == "masking"  # one length with leading zeros
    assert suggest_builder(["18", "45", "90"]) == "intervals"
    assert suggest_builder(["2008-01-01", "2009-12-31", "2010-01-01"]) == "dates"
    assert suggest_builder(["flu", "asthma"]) == "groupings"
    assert suggest_builder(["1/1/2008", "12/31/2009"]) == "groupings"  # not ISO: the user picks the format
    for values in (["02139", "02138", "02141"], ["18", "45", "90"], ["2008-01-01", "2009-12-31", "2010-01-01"]):
        build_hierarchy({"kind": suggest_builder(values), **({"widths": [10]} if values[0] == "18" else {})},
                        values, "x")


def test_two_value_columns_go_straight_to_the_root_and_every_suggestion_builds():
    """Issue 18, item 8: sex or yes/no need no dummy level (height 1, not 2: a lattice of 2 nodes per such column,
    not 3), and ``suggest_spec`` gives a complete spec for every common column."""
    from workbench.hierarchy.suggest import suggest_builder, suggest_spec

    for values in (["F", "M", "F"], ["yes", "no", ""], ["0", "1"]):
        assert suggest_builder(values) == "groupings"
        assert build_hierarchy(suggest_spec(values), values, "x").height == 1
    ages = [str(a) for a in range(18, 91)]
    assert suggest_spec(ages) == {"kind": "intervals", "widths": [5, 10, 20, 40]}
    assert suggest_spec(["0.5", "1.25", "3.0", "2.5"])["kind"] == "intervals"  # decimals are not codes to mask
    assert suggest_spec(["1,5", "2,5", "3,0"])["decimal_comma"] is True
    assert suggest_spec(["02139", "02138", "02141"]) == {"kind": "masking", "char": "*"}
    assert suggest_spec(["flu", "asthma", "diabetes"]) == {"kind": "groupings", "levels": []}
    assert suggest_spec(["2008-01-03", "2009-05-01", "2011-01-01"])["kind"] == "dates"
    for values in (ages, ["0.5", "1.25", "3.0", "2.5"], ["1,5", "2,5", "3,0"], ["02139", "02138", "02141"],
                   ["flu", "asthma"], ["2008-01-03", "2009-05-01"]):
        build_hierarchy(suggest_spec(values), values, "x")
    with pytest.raises(ConfigError, match="'n/a' \\(1\\)"):  # text among numbers: the analyst places it
        build_hierarchy(suggest_spec([*ages, "n/a"]), [*ages, "n/a"], "age")
