"""The walkthrough's ℓ-diversity steps (6 and 7): the homogeneity attack on the chosen k-anonymous release and the
distinct 2-diverse release (Machanavajjhala et al. 2007), with the admission date as the secret. Every sentence is
checked for every k from 1 to 10 against counts made here from the ten records with pandas group-bys, and the
ℓ-diverse release against a brute force over the 10 nodes of the gender × age lattice (the hierarchies' rows, not
the library's search)."""

from __future__ import annotations

import itertools
import random

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from tests.test_app import APP
from workbench.samples import load_sample
from workbench.ui.format import table
from workbench.walkthrough import steps
from workbench.walkthrough.diversity import SHARED, SecretCounts, diversity_text, homogeneity_text

KNOWN = ["gender", "age"]
N = 10


def _generalized(node: tuple[int, int]) -> pd.DataFrame:
    """The teaching table's gender and age at ``node`` (by the hierarchies' rows), with the date as it is."""
    sample = load_sample("teaching")
    out = sample.frame[[*KNOWN, "date"]].copy()
    for col, level in zip(KNOWN, node, strict=True):
        out[col] = out[col].map({row[0]: row[level] for row in sample.hierarchies[col].rows})
    return out


def _heights() -> tuple[int, int]:
    sample = load_sample("teaching")
    return tuple(len(sample.hierarchies[c].rows[0]) - 1 for c in KNOWN)  # type: ignore[return-value]


def _classes(table: pd.DataFrame) -> pd.DataFrame:
    """One row per class of released (gender, age): its size and its number of distinct dates."""
    return table.groupby(KNOWN)["date"].agg(size="size", dates="nunique", first="first").reset_index()


def _node_of(table: pd.DataFrame) -> tuple[int, int]:
    """The lattice node whose generalization of gender and age is the table's."""
    nodes = [n for n in itertools.product(*(range(h + 1) for h in _heights()))
             if _generalized(n)[KNOWN].values.tolist() == table[KNOWN].values.tolist()]
    assert len(nodes) == 1, nodes
    return nodes[0]


def _dm_star(table: pd.DataFrame) -> int:
    return int((_classes(table)["size"] ** 2).sum())


def _precision(node: tuple[int, int]) -> float:
    return sum(level / h for level, h in zip(node, _heights(), strict=True)) / len(node)


@pytest.mark.parametrize("k", range(1, N + 1))
def test_the_homogeneity_step_follows_the_counts(k):
    s = steps(k)
    attack, final = s[5], s[7]
    assert attack.title.startswith("6. The homogeneity attack")
    date = load_sample("teaching").frame["date"]
    # the chosen release's gender and age, the date as it is
    assert attack.table[KNOWN].values.tolist() == final.table[KNOWN].values.tolist()
    assert attack.table["date"].tolist() == date.tolist()
    classes = _classes(attack.table)
    assert classes["size"].min() >= k  # k-anonymous on gender and age
    per_row = attack.table.groupby(KNOWN)["date"].transform("nunique")
    assert attack.table[SHARED].tolist() == (per_row < 2).tolist()
    alone = int((classes["size"] == 1).sum())
    shared = classes[(classes["dates"] == 1) & (classes["size"] > 1)]
    text = attack.text
    assert f"k = {k} (the last step)" in text
    assert f"{len(classes)} class" in text and f"the smallest of {classes['size'].min()} patient" in text
    if alone == 0 and shared.empty:
        assert "There is no homogeneity attack" in text and "Machanavajjhala" not in text
    else:
        assert "There is no homogeneity attack" not in text
    if len(shared):
        multi = len(classes) - alone
        where = "every class" if len(shared) == multi else f"{len(shared)} of the {multi} classes"
        assert f"Yet in {where}" in text and f"k = {k} holds" in text and "homogeneity attack (" in text
        records = int(shared["size"].sum())
        assert (f"all {N} patients share" in text) if records == N else (f"{records} of the {N} patients share" in text)
        top = shared[shared["size"] == shared["size"].max()]
        assert any(f"all {r.size} patients released with gender {r.gender!r} and age {r.age!r} were admitted on "
                   f"{r.first}." in text for r in top.itertuples())
    assert (f"{alone} patient" in text and "alone in a class" in text) == (alone > 0)


@pytest.mark.parametrize("k", range(1, N + 1))
def test_the_diversity_step_is_the_optimum_and_its_sentences_follow_the_counts(k):
    s = steps(k)
    attack, diverse = s[5], s[6]
    assert diverse.title.startswith("7. ℓ-diversity")
    # brute force: every node of gender × age that is k-anonymous and has 2 dates in every class; the least DM*
    ok = {}
    for node in itertools.product(*(range(h + 1) for h in _heights())):
        classes = _classes(_generalized(node))
        if classes["size"].min() >= k and classes["dates"].min() >= 2:
            ok[node] = _dm_star(_generalized(node))
    assert ok  # one class of ten holds both dates
    node, before_node = _node_of(diverse.table), _node_of(attack.table)
    assert ok.get(node) == min(ok.values())
    classes = _classes(diverse.table)
    assert not diverse.table[SHARED].any() and (diverse.table["dates in class"] >= 2).all()
    text = diverse.text
    assert f"{len(classes)} class" in text and f"the smallest of {classes['size'].min()} patient" in text
    assert f"each with at least {classes['dates'].min()} admission date" in text

    before = _classes(attack.table)
    exposed = int(before.loc[before["dates"] == 1, "size"].sum())  # what the ℓ rule suppresses at step 6's node
    if exposed == 0:
        assert "already does" in text and "Suppressing" not in text
    else:
        assert f"{exposed} patient" in text
        assert (f"remove every one of the {N} patients" in text) if exposed == N else (f"remove {exposed} patient"
                                                                                          in text)
    if node == before_node:
        assert "keeps the same generalization" in text
    elif all(a >= b for a, b in zip(node, before_node, strict=True)):
        assert "generalizes further" in text
    else:
        assert "generalizes differently" in text
    dm = (_dm_star(attack.table), _dm_star(diverse.table))
    precision = (_precision(before_node), _precision(node))
    assert f"DM* {dm[0]:.3g} → {dm[1]:.3g}" in text and f"Precision {precision[0]:.3g} → {precision[1]:.3g}" in text
    assert diverse.measures["dm_star"] == dm[1] and attack.measures["dm_star"] == dm[0]
    assert diverse.measures["precision"] == pytest.approx(precision[1])
    assert f"Loss {attack.measures['loss']:.3g} → {diverse.measures['loss']:.3g}" in text
    more = text.split("it loses more by ")[1].split(";")[0] if "it loses more by" in text else ""
    assert ("DM*" in more) == (dm[1] > dm[0]) and ("Precision" in more) == (precision[1] > precision[0] + 1e-12)
    assert ("the same cost" in text) == (node == before_node)


def test_the_text_functions_agree_with_many_tables_of_ten():
    """Random classes of ten records (sizes, distinct dates 1 or 2): no sentence contradicts the counts."""
    rng = random.Random(7)
    for _ in range(400):
        k = rng.randint(1, 5)
        sizes: list[int] = []
        while sum(sizes) < N:
            sizes.append(min(rng.randint(k, 6), N - sum(sizes)))
        distinct = [1 if s == 1 else rng.choice((1, 2)) for s in sizes]
        c = SecretCounts.of(sizes, distinct, min(k, min(sizes)))
        text = homogeneity_text(c, "gender unchanged", None)
        shared = [s for s, d in zip(sizes, distinct, strict=True) if d == 1 and s > 1]
        alone = sizes.count(1)
        assert ("There is no homogeneity attack" in text) == (not shared and not alone)
        assert ("homogeneity attack (" in text) == bool(shared)
        if shared:
            records = sum(shared)
            assert (f"all {N} patients" in text) if records == N else (f"{records} of the {N} patients" in text)
        assert ("alone in a class" in text) == bool(alone)
        after = SecretCounts.of([N], [2], c.k)
        removed = c.exposed
        cost = {"dm_star": float(sum(x * x for x in sizes)), "precision": 0.5, "loss": 0.25}
        later = {"dm_star": 100.0, "precision": 0.5, "loss": 0.75}
        words = diversity_text(c, after, 2, removed, "coarser", "gender hidden", cost, later)
        assert ("already does" in words) == (removed == 0)
        assert ("every one of the 10 patients" in words) == (removed == N)
        assert "as much by Precision" in words and "Loss" in words.split("it loses more by ")[1]
        assert ("DM*" in words.split("it loses more by ")[1].split(";")[0]) == (cost["dm_star"] < 100)
    same = diversity_text(SecretCounts.of([N], [2], 5), SecretCounts.of([N], [2], 5), 2, 0, "same", "x",
                          {"dm_star": 100, "precision": 1, "loss": 1}, {"dm_star": 100, "precision": 1, "loss": 1})
    assert "keeps the same generalization" in same and "the same cost" in same and "loses more" not in same


def test_the_page_shows_the_attack_and_the_repair():
    at = AppTest.from_file(APP, default_timeout=60).run()
    goto(at, "Walkthrough").run()
    for k in (1, 3, 6):
        at.slider(key="walk_k").set_value(k).run()
        assert not at.exception
        titles = [x.value for x in at.subheader]
        assert titles[5].startswith("6. The homogeneity attack") and titles[6].startswith("7. ℓ-diversity")
        attack, diverse = at.dataframe[5].value, at.dataframe[6].value
        text = " ".join(m.value for m in at.markdown)
        expected = steps(k)
        words = {True: "yes", False: "no"}  # the page writes a yes-or-no column in words
        assert attack[SHARED].tolist() == [words[b] for b in expected[5].table[SHARED]]
        assert diverse.values.tolist() == table(expected[6].table).values.tolist()
        assert set(diverse[SHARED]) == {"no"}
        if k == 6:  # one class of ten, both dates: nothing to attack
            assert set(attack[SHARED]) == {"no"} and "There is no homogeneity attack" in text
        else:
            assert "yes" in set(attack[SHARED]) and "homogeneity attack (Machanavajjhala" in text
            assert "Suppressing those classes" in text
