"""Attacks on releases (workbench/risk/attacks.py) against hand computation on small tables and brute force: rare
values, unsorted matching and the release writer's row order, complementary releases, and the matching attack on
k-ambiguous (overlapping local) releases."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests._random_tables import random_dataset
from workbench.config import Study
from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy
from workbench.release import Release
from workbench.risk import attacks
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


def _release_pair(n: int = 400) -> tuple[Release, Release]:
    """Two releases of one random table of ``n`` records: q1 generalized one level, and q2 generalized one level."""
    rng = np.random.default_rng(11)
    rows = [[f"v{i:02d}", f"g{i // 5}", "*"] for i in range(20)]
    hierarchies = {q: Hierarchy.from_rows(rows, name=q) for q in ("q1", "q2")}
    frame = pd.DataFrame({q: [f"v{i:02d}" for i in rng.integers(0, 20, n)] for q in ("q1", "q2")})
    ds = Dataset.create(frame, {"q1": "quasi", "q2": "quasi"}, hierarchies)
    return Release.from_node(ds, (1, 0), 1, 0.0), Release.from_node(ds, (0, 1), 1, 0.0)


def test_the_writer_shuffles_each_release_by_its_own_content() -> None:
    """Sweeney's unsorted matching: the written file is the release in ``written_order`` (read back from the
    bytes), a permutation that is not the input's; the same release with the same seed is written identically
    (reproducible), but two releases of one table written with the same (default) seed are shuffled
    independently, so joining their files row by row links only the rows that happen to coincide (about one)."""
    first, second = _release_pair()
    orders = {}
    for release in (first, second):
        order = attacks.written_order(release, 0)
        written = pd.read_csv(io.BytesIO(release.export_bytes(seed=0)["release"]), dtype=str, keep_default_na=False)
        pd.testing.assert_frame_equal(written, release.table().iloc[order].reset_index(drop=True).astype(str))
        assert sorted(order.tolist()) == list(range(release.n)) and order.tolist() != list(range(release.n))
        assert release.export_bytes(seed=0)["release"] == release.export_bytes(seed=0)["release"]
        orders[release] = order
    a, b = orders[first], orders[second]
    aligned = int((a == b).sum())
    assert aligned <= 5, aligned  # independent permutations: about one fixed point expected
    files = [r.table().iloc[o].reset_index(drop=True) for r, o in ((first, a), (second, b))]
    joined = attacks.unsorted_matching(*files, ["q1", "q2"], 2, (a, b))
    assert joined.linked == aligned
    rows = (np.arange(first.n), np.arange(second.n))  # what two files in one order would give away
    in_one_order = attacks.unsorted_matching(first.table(), second.table(), ["q1", "q2"], 2, rows)
    assert in_one_order.linked == first.n and in_one_order.reidentified > 10 * max(1, joined.reidentified)


def test_chance_of_sharing_rows_is_the_fixed_points_of_a_permutation() -> None:
    """Montmort's rencontres, counted by brute force over every permutation of 6 rows."""
    from workbench.risk.attack_checks import chance_of_sharing

    perms = list(itertools.permutations(range(6)))
    fixed = [sum(p[i] == i for i in range(6)) for p in perms]
    for j in range(8):
        assert chance_of_sharing(j, 6) == pytest.approx(sum(f >= j for f in fixed) / len(perms), abs=1e-12)
    assert chance_of_sharing(0, 400) == 1.0 and chance_of_sharing(400, 400) == 0.0


def _finding(first: Release, second: Release, orders: tuple[np.ndarray, ...]) -> str | None:
    """The row-order sentence of two releases written in ``orders`` (seed 0) and (seed 1)."""
    from workbench.risk.attack_checks import row_order_finding

    def joined(a: np.ndarray, b: np.ndarray) -> dict[str, object]:
        files = [r.table().iloc[o].reset_index(drop=True) for r, o in ((first, a), (second, b))]
        return attacks.unsorted_matching(*files, ["q1", "q2"], 2, (a, b)).to_dict()

    return row_order_finding({"seed": 0, "unsorted_matching_same_seed": joined(orders[0], orders[1]),
                              "unsorted_matching_two_seeds": joined(orders[0], orders[2])})


def test_the_row_order_finding_follows_the_figures() -> None:
    """The Risk page's and the report's sentence on unsorted matching says what the figures show: the writer's files
    (each shuffled by its own content) share no row order; files in one order (a seed-only shuffle) share it on every
    row, and then a second seed is the advice."""
    first, second = _release_pair()
    written = (attacks.written_order(first, 0), attacks.written_order(second, 0), attacks.written_order(second, 1))
    aligned = int((written[0] == written[1]).sum())  # rows on which both files hold one record, counted here
    text = _finding(first, second, written)
    assert text is not None and "do not share a row order" in text and "own seed" not in text
    assert f"same record on {aligned:,} of {first.n:,} rows" in text
    one_order = np.random.default_rng(0).permutation(first.n)  # both files shuffled by the seed alone
    text = _finding(first, second, (one_order, one_order, np.random.default_rng(1).permutation(first.n)))
    assert text is not None and "share a row order" in text and "on every row" in text
    assert text.endswith("give every release of a table its own seed.")
    assert _finding(first, second, (one_order, one_order, one_order)).endswith("release one of the two files only.")


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
    files only the rows that coincide by chance pair the same record; the text names
    each attack; ``--against`` picks the second release and needs ``--attacks``."""
    import json

    from tests.conftest import ROOT
    from workbench import study as S
    from workbench.cli import main
    from workbench.config import load_study
    from workbench.risk.attack_checks import check_attacks

    config = str(ROOT / "sample_configs" / "teaching.toml")
    assert main(["risk", config, "--attacks", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["attacks"]
    study = load_study(config)
    result = S.run(study)
    assert shown == json.loads(json.dumps(check_attacks(study, result.dataset, result.release).to_dict()))
    same = shown["unsorted_matching_same_seed"]  # each file shuffled by its own content: rows pair by chance only
    from workbench.privacy.build import admissibility_for
    from workbench.risk.attack_checks import second_node

    node = second_node(study, result.dataset, result.release)
    other = Release.from_node(result.dataset, node, study.k, study.max_suppression, "second",
                              admissibility_for(study, result.dataset))
    chance = int((attacks.written_order(result.release, study.seed) == attacks.written_order(other, study.seed)).sum())
    assert same["linked"] == chance < same["rows"]
    assert main(["risk", config, "--attacks", "--against", "date=1,gender=1,age=3"]) == 0
    text = capsys.readouterr().out
    for word in ("rare values", "the release of date=1,gender=1,age=3", "complement.", "unsorted", "matching"):
        assert word in text
    assert main(["risk", config, "--attacks", "--against", "date=1,gender=1,age=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the second release (date=1,gender=1,age=1) does not meet the privacy model" in err[0]
    assert main(["risk", config, "--against", "date=1,gender=1,age=1"]) == 2
    assert "add --attacks" in capsys.readouterr().err
