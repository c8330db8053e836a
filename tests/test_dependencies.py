"""The guard against released columns that give a quasi-identifier back (workbench.risk.dependencies): brute force
on random tables with planted dependencies, alone and in combinations (sums, differences, pairs that determine
a level), the registry sample (whose district coordinates did), and the warning in `workbench run`."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from tests._random_tables import random_hierarchy
from workbench import cli
from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy
from workbench.risk.dependencies import (
    COEFFICIENTS,
    RELEASED_ROLES,
    Determination,
    Relation,
    combined_determinations,
    dependency_warnings,
    determinations,
)
from workbench.samples import load_sample
from workbench.samples import registry as registry_module
from workbench.samples.registry_tables import DISTRICTS

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


@settings(max_examples=examples(300), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_determinations_match_brute_force_on_planted_dependencies(seed):
    ds, expected = _planted(seed)
    found = determinations(ds)
    assert {(d.column, d.quasi_identifier, d.level, d.distinct) for d in found} == expected
    assert all(d.role == ds.roles[d.column] for d in found)
    combined = combined_determinations(ds, known=found, budget=60)
    assert combined.complete
    assert len(dependency_warnings(ds, budget=60)) == len({d.column for d in found}) + len(combined.relations)


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
    districts = len(DISTRICTS)
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
    start = time.perf_counter()
    combined = combined_determinations(ds, known=found)  # within its budget: 1 s, and one step past it at most
    assert time.perf_counter() - start < 5 and combined.seconds < 2
    assert combined.relations == ()  # the coordinates' pairs with the sensitive columns add nothing


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


# ------------------------------------------------------------------ combinations of released columns
def _whole(v: str) -> float | None:
    try:
        return float(int(v))
    except ValueError:
        return None


def _combined_brute_force(frame: pd.DataFrame, roles: dict[str, str], labels: dict[str, list[list[str]]],
                          known: list[Determination], threshold: float) -> set[tuple]:
    """The combined guard from its definition (the module's docstring), with Python loops and dicts: columns and
    combinations in order (one, two, three columns), formulas before dependencies for each size, nothing that a
    subset gives back at the same or a lower level. ``labels[q][l]``: each record's level-l label of q (level 0
    only for a quasi-identifier without a hierarchy, its top level left out). Returns (kind, columns,
    quasi-identifier, level, distinct, rows, coefficients, constant)."""
    n = len(frame)
    need = math.ceil(threshold * n - 1e-9)
    released = [c for c, r in roles.items() if r in RELEASED_ROLES and max(Counter(frame[c]).values()) < need]
    levels: dict[str, list[tuple[int, list[str], int]]] = {}
    for q, per_level in labels.items():
        levels[q] = []
        for level, row_labels in enumerate(per_level):
            counts = Counter(row_labels)
            if len(counts) <= 1 or max(counts.values()) >= need:
                break
            levels[q].append((level, row_labels, len(counts)))
    numbers = {}
    for c in [*released, *labels]:
        values = [_whole(v) for v in frame[c]]
        if sum(v is not None for v in values) >= need:
            numbers[c] = values
    found = {(frozenset([d.column]), d.quasi_identifier): d.level for d in known}

    def bound(columns: tuple[str, ...], q: str) -> int:
        return min([found[(frozenset(s), q)] for k in range(1, len(columns) + 1)
                    for s in itertools.combinations(columns, k) if (frozenset(s), q) in found], default=99)

    out = set()
    for size in (1, 2, 3):
        for q in (q for q in labels if levels[q] and levels[q][0][0] == 0 and q in numbers):
            for columns in itertools.combinations([c for c in released if c in numbers], size):
                best = None
                for coefficients in itertools.product(COEFFICIENTS if size <= 2 else (1, -1), repeat=size):
                    rests = [qv - sum(a * numbers[c][i] for a, c in zip(coefficients, columns, strict=True))
                             for i, qv in enumerate(numbers[q])
                             if qv is not None and all(numbers[c][i] is not None for c in columns)]
                    constant, rows = Counter(rests).most_common(1)[0] if rests else (0, 0)
                    if rows >= need and (best is None or rows > best[1]):
                        best = (coefficients, rows, int(constant))
                if best is not None and bound(columns, q) > 0:
                    found[(frozenset(columns), q)] = 0
                    out.add(("formula", columns, q, 0, levels[q][0][2], best[1], best[0], best[2]))
        for columns in itertools.combinations(released, size):
            groups: dict[tuple, list[int]] = {}
            for i, key in enumerate(zip(*(frame[c] for c in columns), strict=True)):
                groups.setdefault(key, []).append(i)
            if sum(len(g) == 1 for g in groups.values()) > n - need:
                continue  # near-unique
            for q in labels:
                for level, row_labels, distinct in (lv for lv in levels[q] if lv[0] < bound(columns, q)):
                    rows = sum(Counter(row_labels[i] for i in g).most_common(1)[0][1]
                               for g in groups.values() if len(g) > 1)
                    if rows >= need:
                        found[(frozenset(columns), q)] = level
                        out.add(("determines", columns, q, level, distinct, rows, (), 0))
                        break
    return out


def _with_formulas_and_pairs(seed: int) -> tuple[Dataset, dict[str, list[list[str]]], float]:
    """A small random table: a whole-number quasi-identifier ``age`` with bands, a categorical ``q`` with a random
    tree hierarchy, and released columns in random roles: sums and differences that give age back (some rows
    off), pairs of codes that together tell a level of q, whole numbers, letters, near-constants and a row id."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 120))
    threshold = float(rng.choice([0.8, 0.9, 0.99]))
    low, span, width = int(rng.integers(0, 30)), int(rng.integers(2, 30)), int(rng.integers(2, 8))
    age = rng.integers(low, low + span, n)
    h_q = random_hierarchy(rng, "q", int(rng.integers(2, 9)), int(rng.integers(1, 4)))
    q = [h_q.values[i] for i in rng.integers(0, len(h_q.values), n)]
    paths = {row[0]: row for row in h_q.rows}
    frame: dict[str, object] = {"age": age.astype(str), "q": q}
    for i in range(int(rng.integers(2, 6))):
        kind = str(rng.choice(["sum", "difference", "pair", "three", "number", "letters", "constant", "id"]))
        name = f"c{i}"
        if kind in ("sum", "difference"):
            part = rng.integers(0, int(rng.integers(1, 15)), n)
            rest = age - part - int(rng.integers(-5, 10)) if kind == "sum" else part - age
            off = rng.random(n) < float(rng.choice([0, 0.02, 0.1]))
            rest = np.where(off, rest + rng.integers(1, 4, n), rest)
            frame[name], frame[f"{name}b"] = part.astype(str), rest.astype(str)
        elif kind == "pair":
            level = int(rng.integers(0, h_q.height))
            codes = pd.factorize(pd.Series([paths[v][level] for v in q]))[0]
            frame[name], frame[f"{name}b"] = (codes % 2).astype(str), (codes // 2).astype(str)
        elif kind == "three":  # age = a - b + c + k, or q's leaves as three bits
            a, b = rng.integers(0, 9, n), rng.integers(0, 9, n)
            codes = pd.factorize(pd.Series(q))[0]
            three = [a, b, age - a + b - 3] if rng.random() < 0.5 else [codes % 2, codes // 2 % 2, codes // 4]
            for j, part in zip("xyz", three, strict=True):
                frame[f"{name}{j}"] = part.astype(str)
        elif kind == "number":
            frame[name] = rng.integers(0, int(rng.integers(2, 40)), n).astype(str)
        elif kind == "letters":
            frame[name] = np.array(list("abcdefgh"))[rng.integers(0, int(rng.integers(2, 8)), n)]
        elif kind == "constant":
            frame[name] = np.where(rng.random(n) < 0.97, "0", "1")
        else:
            frame[name] = np.arange(n).astype(str)
    table = pd.DataFrame(frame)
    roles = {"age": "quasi", "q": "quasi"} | {c: str(rng.choice(ROLES)) for c in table.columns[2:]}
    bands = Hierarchy.from_rows([[str(v), f"{v // width * width}-{v // width * width + width - 1}", "*"]
                                 for v in sorted(set(age))])
    ds = Dataset.create(table, roles, {"age": bands, "q": h_q})
    labels = {"age": [[str(v) for v in age], [f"{v // width * width}-{v // width * width + width - 1}" for v in age]],
              "q": [[paths[v][lv] for v in q] for lv in range(h_q.height)]}
    return ds, labels, threshold


def _as_tuple(r: Relation) -> tuple:
    return r.kind, r.columns, r.quasi_identifier, r.level, r.distinct, r.rows, r.coefficients, r.constant


@settings(max_examples=examples(100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_combined_determinations_match_brute_force(seed):
    ds, labels, threshold = _with_formulas_and_pairs(seed)
    known = determinations(ds)
    found = combined_determinations(ds, threshold=threshold, known=known, budget=60)
    assert found.complete and found.note() is None
    expected = _combined_brute_force(ds.frame, dict(ds.roles), labels, known, threshold)
    assert {_as_tuple(r) for r in found.relations} == expected
    assert all(r.roles == tuple(ds.roles[c] for c in r.columns) and r.n == ds.n for r in found.relations)


def _wage_survey(n: int = 534, seed: int = 1985) -> pd.DataFrame:
    """Shaped like the 1985 Current Population Survey wage sample: age = education + experience + 6 in every row
    but one (row 17, one year older), hourly wage with cents, sex, sector, union membership."""
    rng = np.random.default_rng(seed)
    education = rng.integers(2, 19, n)
    experience = rng.integers(0, 56, n)
    age = education + experience + 6
    age[17] += 1
    return pd.DataFrame({"wage": np.round(rng.lognormal(2, 0.5, n), 2).astype(str),
                         "education": education.astype(str), "experience": experience.astype(str),
                         "age": age.astype(str), "sex": rng.choice(["F", "M"], n),
                         "sector": rng.choice(["manufacturing", "construction", "other"], n),
                         "union": rng.choice(["yes", "no"], n)})


def _age_bands(values: pd.Series) -> Hierarchy:
    return Hierarchy.from_rows([[v, f"{int(v) // 10 * 10}-{int(v) // 10 * 10 + 9}", "*"] for v in set(values)])


def test_age_is_education_plus_experience_plus_six():
    frame = _wage_survey()
    ds = Dataset.create(frame, {"age": "quasi", "sex": "quasi", "wage": "sensitive"},
                        {"age": _age_bands(frame["age"]), "sex": Hierarchy.from_rows([["F", "*"], ["M", "*"]])})
    assert determinations(ds) == []  # no single column tells the age, nor its ten-year band
    found = combined_determinations(ds)
    assert found.complete
    [relation] = found.relations
    assert _as_tuple(relation) == ("formula", ("education", "experience"), "age", 0, frame["age"].nunique(), 533,
                                   (1, 1), 6)
    ages = frame["age"].astype(int)  # the formula, checked directly
    recomputed = frame["education"].astype(int) + frame["experience"].astype(int) + 6
    assert int((ages == recomputed).sum()) == 533
    [warning] = dependency_warnings(ds)
    assert warning.startswith("quasi-identifier 'age' can be recomputed from education + experience + 6 (533 of 534 "
                              "rows; 'education', 'experience': insensitive, released unchanged)")
    # one more row off: 532 of 534 rows is still 99%; with experience withheld nothing is left to find
    assert not combined_determinations(Dataset.create(frame, dict(ds.roles) | {"experience": "identifying"},
                                                      ds.hierarchies)).relations


def test_a_difference_and_a_formula_with_a_near_unique_column():
    """birth_year = 2024 - age (all rows): a difference with the constant first; total = wage_cents + bonus where
    wage_cents is unique per record: a formula is no trivial dependency, so a near-unique column takes part."""
    rng = np.random.default_rng(7)
    n = 400
    age = rng.integers(18, 90, n)
    cents = rng.permutation(np.arange(10_000, 10_000 + n))
    bonus = rng.integers(0, 50, n)
    frame = pd.DataFrame({"age": age.astype(str), "birth_year": (2024 - age).astype(str),
                          "total": (cents + bonus).astype(str), "cents": cents.astype(str), "bonus": bonus.astype(str)})
    hierarchies = {"age": _age_bands(frame["age"]),
                   "total": Hierarchy.from_rows([[v, "*"] for v in set(frame["total"])])}
    ds = Dataset.create(frame, {"age": "quasi", "total": "quasi"}, hierarchies)
    # birth_year determines age exactly: the single-column guard reports it, the combined one does not repeat it
    assert [(d.column, d.quasi_identifier, d.level) for d in determinations(ds)] == [("birth_year", "age", 0)]
    [relation] = combined_determinations(ds).relations
    assert relation.formula() == "cents + bonus" and relation.quasi_identifier == "total" and relation.rows == n
    ds = Dataset.create(frame.assign(birth_year=np.where(np.arange(n) < 3, "1900", frame["birth_year"])),
                        {"age": "quasi", "total": "quasi"}, hierarchies)  # 3 rows off: no longer exact
    assert determinations(ds) == []
    assert {r.formula() for r in combined_determinations(ds).relations} == {"2024 - birth_year", "cents + bonus"}


def test_a_pair_that_determines_a_postal_district():
    """Towns share names across states (Springfield, Franklin): the town tells nothing of the postal code, the
    state its first digit (0, 6, 4: level 4 of the masking), the pair its 3-digit district (level 2), in every
    row but the two whose postal code disagrees."""
    rng = np.random.default_rng(11)
    districts = {("MA", "Springfield"): "011", ("MA", "Franklin"): "020", ("IL", "Springfield"): "627",
                 ("IL", "Franklin"): "626", ("OH", "Springfield"): "455", ("OH", "Franklin"): "450"}
    n = 600
    keys = [list(districts)[i] for i in rng.integers(0, len(districts), n)]
    zips = [districts[k] + f"{int(x):02d}" for k, x in zip(keys, rng.integers(0, 100, n), strict=True)]
    zips[5], zips[9] = "99999", "01199" if keys[9][0] != "MA" else "62799"
    frame = pd.DataFrame({"zip": zips, "state": [k[0] for k in keys], "town": [k[1] for k in keys],
                          "visits": rng.integers(0, 5, n).astype(str)})
    masking = Hierarchy.from_rows([[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", z[:1] + "****", "*"]
                                   for z in sorted(set(zips))])
    ds = Dataset.create(frame, {"zip": "quasi"}, {"zip": masking})
    assert determinations(ds) == []  # not exactly: two rows disagree
    found = combined_determinations(ds)
    assert [_as_tuple(r) for r in found.relations] == [
        ("determines", ("state",), "zip", 4, len({z[:1] for z in zips}), n - 2, (), 0),
        ("determines", ("state", "town"), "zip", 2, len({z[:3] for z in zips}), n - 2, (), 0)]
    assert found.relations[1].describe().startswith(
        "'state', 'town' (insensitive, released unchanged) together determine quasi-identifier 'zip' at level 2 "
        "(7 distinct values, e.g. '011**') in 598 of 600 rows: a release reveals that level")
    # the pair's rows from the definition: each (state, town) carries its district but in rows 5 and 9
    assert sum(z[:3] == districts[k] for z, k in zip(zips, keys, strict=True)) == n - 2


def test_independent_columns_give_nothing_back():
    rng = np.random.default_rng(5)
    n = 5000
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str)}
                         | {f"n{i}": rng.integers(0, [3, 30, 300][i % 3], n).astype(str) for i in range(6)}
                         | {f"t{i}": np.array(list("abcdefghij"))[rng.integers(0, 2 + 4 * i, n)] for i in range(3)})
    ds = Dataset.create(frame, {"age": "quasi"}, {"age": _age_bands(frame["age"])})
    found = combined_determinations(ds, budget=60)
    assert found.complete and found.relations == () and found.total == (9, 36, 84)
    assert dependency_warnings(ds, budget=60) == []


def test_near_unique_columns_and_pairs_are_not_flagged():
    """A row id, and a pair of columns of 1,000 values each over 3,000 rows (nearly every combination seen once):
    each 'determines' the age in almost every row only because most of their values occur once."""
    rng = np.random.default_rng(9)
    n = 3000
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str), "row": [f"r{i}" for i in range(n)],
                          "a": rng.integers(0, 1000, n).astype(str), "b": rng.integers(0, 1000, n).astype(str)})
    pairs = Counter(zip(frame["a"], frame["b"], strict=True))
    majority = Counter(zip(frame["a"], frame["b"], frame["age"], strict=True))
    best: dict[tuple[str, str], int] = {}
    for (a, b, _), count in majority.items():
        best[(a, b)] = max(best.get((a, b), 0), count)
    assert sum(best.values()) >= 0.99 * n  # counted naively, the pair determines the age in 99% of the rows
    assert sum(count for key, count in best.items() if pairs[key] > 1) < 0.05 * n  # but not where seen twice
    ds = Dataset.create(frame, {"age": "quasi"}, {"age": _age_bands(frame["age"])})
    found = combined_determinations(ds, budget=60)
    assert found.complete and found.relations == ()


def test_the_search_stops_at_its_budget_and_says_so():
    frame = _wage_survey()
    ds = Dataset.create(frame, {"age": "quasi"}, {"age": _age_bands(frame["age"])})
    full = combined_determinations(ds)
    ticks = itertools.count()
    stopped = combined_determinations(ds, budget=12, clock=lambda: float(next(ticks)))  # one second per reading
    assert not stopped.complete and stopped.checked < stopped.total == full.total
    assert set(stopped.relations) <= set(full.relations)
    note = stopped.note()
    assert note is not None and "stopped at its 12 s budget after checking" in note
    assert f"{stopped.checked[2]:,} of {full.total[2]:,} triples" in note


# ---------------------------------------------------------------------------------------------- the CLI
def _wage_config(folder: Path) -> Path:
    _wage_survey().to_csv(folder / "wages.csv", index=False)
    config = folder / "study.toml"
    config.write_text('[data]\npath = "wages.csv"\n'
                      '[attributes.age]\nrole = "quasi"\nbuilder = { kind = "intervals", widths = [10, 20] }\n'
                      '[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "masking" }\n'
                      '[attributes.wage]\nrole = "sensitive"\n'
                      '[privacy]\nk = 5\n[engine]\nalgorithm = "flash"\nobjective = "dm_star"\n'
                      '[measures]\ncompare = ["dm_star"]\n', encoding="utf-8")
    return config


def test_run_warns_when_released_columns_recompute_a_quasi_identifier(tmp_path: Path):
    config = _wage_config(tmp_path)
    status, out, err = _call("run", config, "--json")
    assert status == 0
    [line] = err.splitlines()
    assert line.startswith("workbench: warning: quasi-identifier 'age' can be recomputed from education + "
                           "experience + 6 (533 of 534 rows;")
    assert json.loads(out)["warnings"] == [line.removeprefix("workbench: warning: ")]
    status, text, err_text = _call("run", config)
    assert status == 0 and err_text == err and "guarantee" in text


def test_the_report_warns_beside_the_verified_guarantee(tmp_path: Path):
    import workbench as wb
    from workbench.views.display import esc

    study = wb.load_study(_wage_config(tmp_path))
    report = wb.build_report(study)
    [warning] = report.facts.release["gives_back"]
    assert warning.startswith("quasi-identifier 'age' can be recomputed from education + experience + 6 (533 of 534")
    release = report.html[report.html.index('<section id="release">'):report.html.index('<section id="costs">')]
    verified = release.index('<span class="ok">verified</span>')
    assert release.index(esc(warning)) - verified < 600  # the next paragraph
    assert report.facts.checks[-2]["result"] == "WARNING: " + warning
