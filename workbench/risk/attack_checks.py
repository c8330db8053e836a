"""The attacks of ``workbench.risk.attacks`` run against one release, as ``workbench risk --attacks``, the Risk page and
the report present them: rare values of the input at the release's k; a second release of the same table (a
lattice node, by default the first k-minimal node other than the release's) joined on the record (complementary
release) and row by row as the workbench's writer orders the files, both written with the release seed and with
two seeds (unsorted matching); and the matching attack on the release (k-ambiguity)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.space import Node
from workbench.privacy.build import admissibility_for
from workbench.release import Release
from workbench.risk import attacks


@dataclass(frozen=True)
class AttackChecks:
    """Each attack's result on one release; ``second`` names the other release (None: no other admissible node),
    ``seed`` the release seed both files were written with, ``matching_note`` why the matching attack did not run."""

    k: int
    rare: attacks.RareValues
    second: str | None
    complementary: attacks.ComplementaryRelease | None
    same_seed: attacks.UnsortedMatching | None
    two_seeds: attacks.UnsortedMatching | None
    seed: int
    matching: attacks.MatchingAttack | None
    matching_note: str | None = None

    def to_dict(self) -> dict[str, object]:
        def part(x: object) -> object:
            return x.to_dict() if x is not None and hasattr(x, "to_dict") else None

        return {"k": self.k, "rare_values": self.rare.to_dict(), "second_release": self.second,
                "complementary_release": part(self.complementary), "seed": self.seed,
                "unsorted_matching_same_seed": part(self.same_seed),
                "unsorted_matching_two_seeds": part(self.two_seeds), "matching_attack": part(self.matching),
                "matching_note": self.matching_note}


def second_node(study: Study, dataset: Dataset, release: Release) -> Node | None:
    """The first k-minimal node (lattice order) other than the release's, under the study's privacy model."""
    from workbench.compare import lattice_candidates

    own = tuple(release.transformation[q] for q in dataset.quasi_identifiers) if release.transformation else None
    return next((n for n in lattice_candidates(study, dataset, "k_minimal") if n != own), None)


def check_attacks(study: Study, dataset: Dataset, release: Release, against: Node | None = None) -> AttackChecks:
    """Every attack on ``release`` (of ``study`` on ``dataset``); ``against``: the second release's node (default
    ``second_node``)."""
    qis = dataset.quasi_identifiers
    rare = attacks.rare_values(dataset.frame, qis, release.k)
    node = against if against is not None else second_node(study, dataset, release)
    second = complementary = same = two = None
    if node is not None:
        other = Release.from_node(dataset, node, study.k, study.max_suppression, "second release",
                                  admissibility_for(study, dataset))
        second = ",".join(f"{q}={v}" for q, v in zip(qis, node, strict=True))
        guarantee = other.verify()
        if not guarantee.holds:
            raise ConfigError(f"the second release ({second}) does not meet the privacy model: {guarantee.describe()}; "
                              "choose an admissible node")
        complementary = attacks.complementary_release(release, other)
        first_order = attacks.written_order(release, study.seed)
        k = min(release.k, other.k)
        files = release.table().iloc[first_order].reset_index(drop=True)
        for seed in (study.seed, study.seed + 1):
            order = attacks.written_order(other, seed)
            result = attacks.unsorted_matching(files, other.table().iloc[order].reset_index(drop=True), qis, k,
                                               (first_order, order))
            same, two = (result, two) if seed == study.seed else (same, result)
    matching, note = None, None
    try:
        matching = attacks.matching_attack(release)
    except ValueError as exc:
        note = str(exc)
    return AttackChecks(release.k, rare, second, complementary, same, two, study.seed, matching, note)


def without_rare_dataset(dataset: Dataset, k: int, remove: str = "rows") -> Dataset:
    """The dataset without the quasi-identifier values rarer than ``k`` (``attacks.without_rare``), roles and
    hierarchies kept; blanked values need a hierarchy row for the missing value ``""``."""
    frame, _ = attacks.without_rare(dataset.frame, dataset.quasi_identifiers, k, remove)
    return Dataset.create(frame.reset_index(drop=True), dict(dataset.roles), dict(dataset.hierarchies),
                          source=f"{dataset.source} (values rarer than {k} removed: {remove})")



def without_rare_csv(dataset: Dataset, k: int, remove: str = "rows") -> bytes:
    """``without_rare_dataset``'s table as CSV bytes (formula-like cells neutralized,
    ``workbench.release.output.table_csv``), to load back as the data before anonymizing."""
    from workbench.release.output import table_csv

    frame, _ = attacks.without_rare(dataset.frame, dataset.quasi_identifiers, k, remove)
    return table_csv(frame)


CHANCE_LEVEL = 0.001  # a count of shared rows less likely than this under two independent shuffles is no chance


def chance_of_sharing(linked: int, rows: int) -> float:
    """The probability that two independently shuffled files of ``rows`` records hold the same record on at least
    ``linked`` rows: the fixed points of a random permutation (Montmort's problème des rencontres),
    P(X = j) = (1 / j!) Σ_{i ≤ rows − j} (−1)^i / i!, about Poisson with mean 1."""
    if linked <= 0:
        return 1.0
    if linked > min(rows, 40):  # beyond 40 the tail is below 1e-48
        return 0.0
    exactly = [sum((-1) ** i / math.factorial(i) for i in range(min(rows - j, 60) + 1)) / math.factorial(j)
               for j in range(linked)]
    return max(0.0, 1.0 - sum(exactly))


def row_order_finding(c: dict[str, Any]) -> str | None:
    """What the unsorted-matching figures of ``AttackChecks.to_dict()`` say about the two files' row order, written
    from the figures (Sweeney 2002): every row pairs the same record (one shared order), more rows than two
    independent shuffles pair by chance (``CHANCE_LEVEL``), or about as many (no shared order); with the advice
    the two-seed figures support. None when there is no second release."""
    same, two = c.get("unsorted_matching_same_seed"), c.get("unsorted_matching_two_seeds")
    if same is None or two is None or not same["rows"]:
        return None
    seed, rows, linked = c["seed"], same["rows"], same["linked"]
    by_chance = chance_of_sharing(linked, rows) >= CHANCE_LEVEL
    other = (f"written with seeds {seed} and {seed + 1}, {two['linked']:,} of {two['rows']:,} rows pair the same "
             f"record")
    if by_chance:
        return (f"The two files, each written with seed {seed}, do not share a row order: row i of both holds the "
                f"same record on {linked:,} of {rows:,} rows, as many as two independent shuffles pair by chance "
                f"(one row on average), so joining them row by row does not join them on the record. Each file is "
                f"shuffled by the seed and its own content; {other}.")
    cause = "every row" if linked == rows else f"{linked:,} of {rows:,} rows"
    separate = chance_of_sharing(two["linked"], two["rows"]) >= CHANCE_LEVEL
    advice = ("give every release of a table its own seed" if separate
              else "a second seed does not separate them either: release one of the two files only")
    return (f"The two files, each written with seed {seed}, share a row order: row i of both holds the same record "
            f"on {cause}, far more than two independent shuffles pair by chance (one row on average), so joining "
            f"them row by row joins them on the record ({same['reidentified']:,} re-identified); {other}: "
            f"{advice}.")


def attack_table(c: dict[str, Any]) -> pd.DataFrame:
    """The attacks on a release (``AttackChecks.to_dict()``) as rows: the attack, what the attacker does and what
    it yields (the Risk page and the report)."""
    k = c["k"]
    rows = []
    if c["second_release"] is not None:
        comp, same, two = (c["complementary_release"], c["unsorted_matching_same_seed"],
                           c["unsorted_matching_two_seeds"])
        rows += [
            {"attack": "complementary release (Sweeney 2002)",
             "what the attacker does": f"joins this release with the release of {c['second_release']} on the record",
             "result": f"{comp['below_k']:,} of {comp['records']:,} records in joined classes below {comp['k']} "
                       f"({comp['unique']:,} alone)"},
            {"attack": "unsorted matching (Sweeney 2002)",
             "what the attacker does": f"pairs row i of both files, each written with seed {c['seed']}",
             "result": f"{same['linked']:,} of {same['rows']:,} rows pair the same record; {same['reidentified']:,} "
                       f"re-identified (joined class below {same['k']})"},
            {"attack": "unsorted matching, two seeds",
             "what the attacker does": f"pairs row i of the files written with seeds {c['seed']} and {c['seed'] + 1}",
             "result": f"{two['linked']:,} rows pair the same record; {two['reidentified']:,} re-identified"}]
    m = c["matching_attack"]
    rows.append({"attack": "matching attack (k-ambiguity, Katirai 2006)",
                 "what the attacker does": "knows everyone's quasi-identifiers and that each row is one person; keeps "
                                           "the pairings that fit a one-to-one assignment",
                 "result": c["matching_note"] if m is None else
                 f"people with fewer than {k} consistent rows: {m['below_k_before']:,} before, {m['below_k']:,} after "
                 f"({m['unique']:,} with one); rows left with fewer than {k} people: {m['rows_below_k']:,}"})
    return pd.DataFrame(rows)
