"""Attacks on releases (workbench/attacks.py) against hand computation on small tables and brute force: rare values,
unsorted matching and the release writer's row order, complementary releases, and the matching attack on
k-ambiguous (overlapping local) releases."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._random_tables import random_dataset
from workbench import attacks
from workbench.config import Study
from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy
from workbench.release import Release
from workbench.study import run


# ---------------------------------------------------------------------------------------------- rare values
def test_rare_values_and_their_removal_by_hand() -> None:
    """q1 = a a a b c c, q2 = x x y y y z at k = 2: b and z are rare, held by rows 4 and 6. Dropping them leaves
    c (row 5) rare, then y (row 3); two rows remain. Blanking empties the two cells."""
    frame = pd.DataFrame({"q1": list("aaabcc"), "q2": list("xxyyyz"), "other": list("123456")})
    report = attacks.rare_values(frame, ["q1", "q2"], 2)
    assert report.values == (("q1", "b", 1), ("q2", "z", 1)) and report.records == 2
    assert report.to_dict()["values"][0] == {"attribute": "q1", "value": "b", "records": 1}
    rows, again = attacks.without_rare(frame, ["q1", "q2"], 2)
    assert again == report and rows["other"].tolist() == ["1", "2"]
    assert attacks.rare_values(rows, ["q1", "q2"], 2).values == ()
    values, _ = attacks.without_rare(frame, ["q1", "q2"], 2, remove="values")
    assert values["q1"].tolist() == list("aaa") + ["", "c", "c"] and values["q2"].tolist() == list("xxyyy") + [""]
    with pytest.raises(ValueError, match="remove must be one of"):
        attacks.without_rare(frame, ["q1"], 2, remove="cells")


# ---------------------------------------------------------------------------------------------- two releases
def _two_releases() -> tuple[Release, Release]:
    """Records (a,x) (a,y) (b,x) (b,y) (a,x) (b,y); A generalizes q1 (ab), B generalizes q2 (xy): both 2-anonymous
    (classes of 3)."""
    h1 = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"]], name="q1")
    h2 = Hierarchy.from_rows([["x", "xy", "*"], ["y", "xy", "*"]], name="q2")
    frame = pd.DataFrame({"q1": list("aabbab"), "q2": list("xyxyxy")})
    ds = Dataset.create(frame, {"q1": "quasi", "q2": "quasi"}, {"q1": h1, "q2": h2})
    return Release.from_node(ds, (1, 0), 2, 0.0), Release.from_node(ds, (0, 1), 2, 0.0)


def test_complementary_release_by_hand() -> None:
    """Joined on the record: (ab,x|a,xy) holds records 1 and 5, (ab,y|a,xy) record 2 alone, (ab,x|b,xy) record 3
    alone, (ab,y|b,xy) records 4 and 6: 4 classes, 2 records below k = 2, both unique."""
    first, second = _two_releases()
    assert first.verify().holds and second.verify().holds
    result = attacks.complementary_release(first, second)
    assert result.to_dict() == {"records": 6, "k": 2, "classes": 4, "below_k": 2, "unique": 2}


def test_unsorted_matching_by_hand() -> None:
    """A: age 20-29 20-29 30-39 30-39, sex *; B: age *, sex M F M F. Row by row every joined row is unique; when the
    files keep one order every link is right, when B's rows are swapped in pairs none is."""
    first = pd.DataFrame({"age": ["20-29", "20-29", "30-39", "30-39"], "sex": ["*"] * 4})
    second = pd.DataFrame({"age": ["*"] * 4, "sex": list("MFMF")})
    aligned = attacks.unsorted_matching(first, second, ["age", "sex"], 2, (np.arange(4), np.arange(4)))
    assert aligned.to_dict() == {"rows": 4, "k": 2, "below_k": 4, "unique": 4, "linked": 4, "reidentified": 4}
    swapped = attacks.unsorted_matching(first, second, ["age", "sex"], 2, (np.arange(4), np.array([1, 0, 3, 2])))
    assert (swapped.linked, swapped.reidentified) == (0, 0)
    assert attacks.unsorted_matching(first, second, ["age", "sex"], 2).linked is None


def test_the_writer_shuffles_but_one_seed_keeps_two_releases_aligned() -> None:
    """The workbench's writer shuffles rows (the written order is a permutation, not the input's), but the
    permutation depends on the seed alone: two releases of one table written with the same seed are row-aligned,
    so joining the files row by row is the complementary release (every link right); with two seeds it is not."""
    first, second = _two_releases()
    a, b = attacks.written_order(first, 7), attacks.written_order(second, 7)
    assert sorted(a.tolist()) == list(range(6)) and a.tolist() != list(range(6))
    assert np.array_equal(a, b)
    files = [r.table().iloc[order].reset_index(drop=True) for r, order in ((first, a), (second, b))]
    same = attacks.unsorted_matching(*files, ["q1", "q2"], 2, (a, b))
    record_join = attacks.complementary_release(first, second)
    assert same.linked == 6 and same.below_k == same.reidentified == record_join.below_k
    other = attacks.written_order(second, 8)
    assert not np.array_equal(a, other)
    moved = attacks.unsorted_matching(files[0], second.table().iloc[other].reset_index(drop=True), ["q1", "q2"], 2,
                                      (a, other))
    assert moved.linked == int((a == other).sum())


# ---------------------------------------------------------------------------------------------- k-ambiguity
def test_matching_attack_by_hand() -> None:
    """People a, b, c; rows ab, ab, * (2-ambiguous: each row covers 2 or 3 people). c fits only the * row, so a
    and b lose it: 3 -> 2 candidate rows each, c keeps 1; the * row is left with c alone."""
    h = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="q")
    ds = Dataset.create(pd.DataFrame({"q": list("abc")}), {"q": "quasi"}, {"q": h})
    base = Release.from_node(ds, (0,), 1, 0.0)
    release = replace(base, labels=pd.DataFrame({"q": ["ab", "ab", "*"]}), k=2, guarantee_kind="k-ambiguity")
    result = attacks.matching_attack(release)
    assert result.to_dict() == {"records": 3, "k": 2, "below_k_before": 1, "below_k": 1, "unique": 1,
                                "rows_below_k": 1}


def _brute_force(release: Release) -> tuple[list[int], list[int], list[int]]:
    """Per person: released rows consistent with them, and those they are assigned in some one-to-one
    assignment of rows to people that every row covers (every permutation tried); per row: the people it is
    assigned in some such assignment."""
    qis = release.quasi_identifiers
    paths = {q: {r[0]: set(r) for r in release.dataset.hierarchies[q].rows} for q in qis}
    labels = release.table()[qis].astype(str).to_numpy()
    people = release.dataset.frame[qis].astype(str).to_numpy()
    n = release.n
    cover = np.array([[all(labels[r, j] == "*" or labels[r, j] in paths[q][people[p, j]] for j, q in enumerate(qis))
                       for p in range(n)] for r in range(n)])
    fits = np.zeros((n, n), dtype=bool)
    for perm in itertools.permutations(range(n)):  # row r -> person perm[r]
        if all(cover[r, perm[r]] for r in range(n)):
            fits[list(range(n)), list(perm)] = True
    return cover.sum(axis=0).tolist(), fits.sum(axis=0).tolist(), fits.sum(axis=1).tolist()


@pytest.mark.parametrize("seed", range(20))
def test_matching_attack_equals_every_assignment(seed: int) -> None:
    """On overlapping Greedy's k-ambiguous releases of random tables of up to 7 records, the attack's counts
    equal those of trying every assignment of released rows to people (seeds 13 and 16 narrow people below k
    who were not before); a k-anonymous release loses nothing."""
    base = random_dataset(seed, max_rows=7, max_qis=2)
    k = 2
    if base.n < k:
        return
    study = Study(source="random", base_dir=Path("."), data_path=None, separator=None, sample=None, rows=None,
                  attributes=(), k=k, max_suppression=0.0, engine="local", algorithm="greedy_overlapping",
                  objective="vinterbo", compare=("vinterbo",))
    release = run(study, base).release
    assert release is not None and release.guarantee_kind == "k-ambiguity"
    before, after, rows = _brute_force(release)
    result = attacks.matching_attack(release)
    assert result.below_k_before == sum(c < k for c in before)
    assert result.below_k == sum(c < k for c in after) and result.unique == sum(c == 1 for c in after)
    assert result.rows_below_k == sum(c < k for c in rows)
    anonymous = run(replace(study, algorithm="greedy"), base).release
    assert attacks.matching_attack(anonymous).below_k == 0


# ---------------------------------------------------------------------------------------------- the front ends
def test_risk_attacks_cli_text_and_json(capsys) -> None:
    """``workbench risk --attacks``: the JSON is ``check_attacks`` on the run's release; with one seed for both
    files every row pairs the same record and the row join re-identifies what the record join does; the text names
    each attack; ``--against`` picks the second release and needs ``--attacks``."""
    import json

    from tests.conftest import ROOT
    from workbench import study as S
    from workbench.attack_checks import check_attacks
    from workbench.cli import main
    from workbench.config import load_study

    config = str(ROOT / "sample_configs" / "teaching.toml")
    assert main(["risk", config, "--attacks", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["attacks"]
    study = load_study(config)
    result = S.run(study)
    assert shown == json.loads(json.dumps(check_attacks(study, result.dataset, result.release).to_dict()))
    same = shown["unsorted_matching_same_seed"]
    assert same["linked"] == 10 and same["reidentified"] == shown["complementary_release"]["below_k"]
    assert main(["risk", config, "--attacks", "--against", "date=1,gender=1,age=3"]) == 0
    text = capsys.readouterr().out
    for word in ("rare values", "the release of date=1,gender=1,age=3", "complement.", "unsorted", "matching"):
        assert word in text
    assert main(["risk", config, "--attacks", "--against", "date=1,gender=1,age=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the second release (date=1,gender=1,age=1) does not meet the privacy model" in err[0]
    assert main(["risk", config, "--against", "date=1,gender=1,age=1"]) == 2
    assert "add --attacks" in capsys.readouterr().err
