"""The guard against released columns that give a quasi-identifier back (workbench.dependencies): brute force
on random tables with planted dependencies, the registry sample (whose district coordinates did), and the
warning in `workbench run`."""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._random_tables import random_hierarchy
from workbench import cli
from workbench.data import Dataset
from workbench.dependencies import Determination, dependency_warnings, determinations
from workbench.hierarchy.tree import Hierarchy
from workbench.samples import load_sample
from workbench.samples import registry as registry_module

ROLES = ("insensitive", "sensitive", "target", "identifying")


def _brute_force(frame: pd.DataFrame, roles: dict[str, str], paths: dict[str, dict[str, tuple[str, ...]]],
                 heights: dict[str, int]) -> set[tuple[str, str, int, int]]:
    """(column, quasi-identifier, lowest level, distinct values) from the definition, with Python dicts: the
    column is released and not unique per record; every value of it co-occurs with one level-l label; level
    l is below the hierarchy's top (level 0 without a hierarchy) and has more than one label among the
    records."""
    found = set()
    n = len(frame)
    for column, role in roles.items():
        if role not in ("insensitive", "sensitive", "target") or frame[column].nunique() == n:
            continue
        for qi, h in heights.items():
            for level in range(h) if qi in paths else [0]:
                labels = [paths[qi][v][level] if qi in paths else v for v in frame[qi]]
                if len(set(labels)) <= 1:
                    break
                seen: dict[str, set[str]] = {}
                for c, g in zip(frame[column], labels, strict=True):
                    seen.setdefault(c, set()).add(g)
                if all(len(s) == 1 for s in seen.values()):
                    found.add((column, qi, level, len(set(labels))))
                    break
    return found


def _planted(seed: int) -> tuple[Dataset, set[tuple[str, str, int, int]]]:
    """Random quasi-identifiers with random tree hierarchies (one, sometimes, generalized by a poset: no
    hierarchy) and released columns that are relabelled generalizations of a quasi-identifier (planted
    dependencies), refinements of one (planted too: finer than the level), coarsenings (no dependency at
    that level) or noise, in random roles."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    frame: dict[str, list[str]] = {}
    hierarchies, paths, heights = {}, {}, {}
    r = int(rng.integers(1, 4))
    for j in range(r):
        name = f"q{j}"
        leaves = int(rng.integers(1, 9))
        h = random_hierarchy(rng, name, leaves, int(rng.integers(0, 4)))
        frame[name] = [h.values[i] for i in rng.integers(0, leaves, n)]
        if j == r - 1 and rng.random() < 0.3:
            heights[name] = 0  # a poset's quasi-identifier: only its values can be determined
            continue
        hierarchies[name], heights[name] = h, h.height
        paths[name] = {row[0]: row for row in h.rows}
    roles = {q: "quasi" for q in frame}
    for i in range(int(rng.integers(1, 6))):
        name, kind = f"c{i}", rng.choice(["relabel", "refine", "coarsen", "noise"])
        qi = f"q{int(rng.integers(0, r))}"
        level = int(rng.integers(0, heights[qi] + 1))
        labels = [paths[qi][v][level] if qi in paths else v for v in frame[qi]]
        if kind == "relabel":
            tokens = {g: f"t{int(x)}" for g, x in zip(sorted(set(labels)), rng.permutation(len(set(labels))),
                                                        strict=True)}
            column = [tokens[g] for g in labels]
        elif kind == "refine":
            column = [f"{g}|{int(x)}" for g, x in zip(labels, rng.integers(0, 2, n), strict=True)]
        elif kind == "coarsen":
            halves = {g: str(i % 2) for i, g in enumerate(sorted(set(labels)))}
            column = [halves[g] for g in labels]
        else:
            column = [str(x) for x in rng.integers(0, 3, n)]
        frame[name] = column
        roles[name] = str(rng.choice(ROLES))
    frame["row"] = [str(i) for i in range(n)]  # unique per record: left out
    table = pd.DataFrame(frame)
    return (Dataset.create(table, roles, hierarchies, without_hierarchy=[q for q in heights if q not in paths]),
            _brute_force(table, roles | {"row": "insensitive"}, paths, heights))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_determinations_match_brute_force_on_planted_dependencies(seed):
    ds, expected = _planted(seed)
    found = determinations(ds)
    assert {(d.column, d.quasi_identifier, d.level, d.distinct) for d in found} == expected
    assert all(d.role == ds.roles[d.column] for d in found)
    assert len(dependency_warnings(ds)) == len({d.column for d in found})


def test_a_hand_made_table():
    """'town' tells the zip masked to 3 digits (level 2: 021** is Cambridge, 024** Brookline) but not to 4
    (0213* and 0214* are both Cambridge); 'county' is constant, so it tells nothing; 'stay' is noise (1 and
    2 occur with both towns' zips); 'name' is unique per record (left out)."""
    frame = pd.DataFrame({
        "zip": ["02139", "02138", "02141", "02445", "02446", "02139"],
        "town": ["Cambridge", "Cambridge", "Cambridge", "Brookline", "Brookline", "Cambridge"],
        "county": ["Middlesex"] * 6,
        "stay": ["1", "2", "1", "2", "1", "2"],
        "name": ["a", "b", "c", "d", "e", "f"],
    })
    masking = [[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", z[:1] + "****", "*"] for z in sorted(set(frame["zip"]))]
    ds = Dataset.create(frame, {"zip": "quasi", "stay": "sensitive"}, {"zip": Hierarchy.from_rows(masking)})
    assert determinations(ds) == [Determination("town", "insensitive", "zip", 2, 2, "021**")]
    [warning] = dependency_warnings(ds)
    assert warning.startswith("'town' (insensitive, released unchanged) determines quasi-identifier 'zip' at "
                              "level 2 (2 distinct values, e.g. '021**')")


def test_the_registry_no_longer_releases_its_district_coordinates():
    sample = load_sample("registry")
    fixed = Dataset.create(sample.frame, sample.roles, sample.hierarchies)
    assert determinations(fixed) == []
    # with the coordinates released, as before: each district's centroid is its postal codes' first two
    # digits (registry.DISTRICTS), i.e. postal_code masked to 2 digits, hierarchy level 3 of 5
    leaky = Dataset.create(sample.frame, sample.roles | {"district_lat": "insensitive", "district_lon": "insensitive"},
                           sample.hierarchies)
    districts = len(registry_module.DISTRICTS)
    assert {(d.column, d.quasi_identifier, d.level, d.distinct) for d in determinations(leaky)} == {
        ("district_lat", "postal_code", 3, districts), ("district_lon", "postal_code", 3, districts)}
    assert sample.hierarchies["postal_code"].level_labels(3)[0].endswith("***")


def test_the_guard_is_fast_on_300000_records():
    frame = registry_module.generate(300_000)  # not load_sample: its cache would keep the table for the session
    roles = registry_module.ROLES | {"district_lat": "insensitive"}
    ds = Dataset.create(frame, roles, registry_module.hierarchies(frame))
    assert len(ds.encoded) == 6  # encoding is paid by every run anyway
    start = time.perf_counter()
    found = determinations(ds)
    assert time.perf_counter() - start < 10  # about 0.3 s on a 2-core laptop; a loop over records takes minutes
    assert [(d.column, d.level) for d in found] == [("district_lat", 3)]


# ---------------------------------------------------------------------------------------------- the CLI
def _call(*argv: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def test_run_warns_when_a_released_column_determines_a_quasi_identifier(tmp_path: Path):
    rng = np.random.default_rng(3)
    n = 200
    zips = rng.choice(["02139", "02138", "02141", "02445", "02446"], n)
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "zip": zips,
                          "town": np.where(np.char.startswith(zips.astype(str), "021"), "Cambridge", "Brookline"),
                          "stay": rng.integers(1, 9, n).astype(str)})
    frame.to_csv(tmp_path / "data.csv", index=False)
    config = tmp_path / "study.toml"
    config.write_text('[data]\npath = "data.csv"\n'
                      '[attributes.age]\nrole = "quasi"\nbuilder = { kind = "intervals", widths = [10, 20] }\n'
                      '[attributes.zip]\nrole = "quasi"\nbuilder = { kind = "masking" }\n'
                      '[attributes.stay]\nrole = "sensitive"\n'
                      '[privacy]\nk = 5\n[engine]\nalgorithm = "flash"\nobjective = "dm_star"\n'
                      '[measures]\ncompare = ["dm_star"]\n', encoding="utf-8")
    status, out, err = _call("run", config, "--json")
    assert status == 0
    [line] = err.splitlines()
    assert line.startswith("workbench: warning: 'town' (insensitive, released unchanged) determines "
                           "quasi-identifier 'zip' at level 2 (2 distinct values")
    summary = json.loads(out)
    assert summary["warnings"] == [line.removeprefix("workbench: warning: ")]
    status, text, err_text = _call("run", config)
    assert status == 0 and err_text == err and "warning" not in text
    # marked identifying, the column is dropped from the release: no warning, no key
    config.write_text(config.read_text(encoding="utf-8") + '[attributes.town]\nrole = "identifying"\n',
                      encoding="utf-8")
    status, out, err = _call("run", config, "--json")
    assert (status, err) == (0, "") and "warnings" not in json.loads(out)
