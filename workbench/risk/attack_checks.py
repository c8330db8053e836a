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
    """Each attack's result on one release; ``second`` names the other release (None: no other k-minimal node),
    ``seed`` the release seed both files were written with, ``matching_note`` why the matching attack did not run.
    For a lattice release, ``joint`` names the node that generalizes both releases (each attribute at the higher of
    the two levels) and ``joint_complementary`` is this release joined with the release of that node, the remedy
    the report proposes checked (``joint_note``: why it could not be, e.g. that node does not meet the rule)."""

    k: int
    rare: attacks.RareValues
    second: str | None
    complementary: attacks.ComplementaryRelease | None
    same_seed: attacks.UnsortedMatching | None
    two_seeds: attacks.UnsortedMatching | None
    seed: int
    matching: attacks.MatchingAttack | None
    matching_note: str | None = None
    joint: str | None = None
    joint_complementary: attacks.ComplementaryRelease | None = None
    joint_note: str | None = None

    def to_dict(self) -> dict[str, object]:
        def part(x: object) -> object:
            return x.to_dict() if x is not None and hasattr(x, "to_dict") else None

        return {"k": self.k, "rare_values": self.rare.to_dict(), "second_release": self.second,
                "complementary_release": part(self.complementary), "seed": self.seed,
                "unsorted_matching_same_seed": part(self.same_seed),
                "unsorted_matching_two_seeds": part(self.two_seeds), "matching_attack": part(self.matching),
                "matching_note": self.matching_note, "joint_release": self.joint,
                "joint_complementary_release": part(self.joint_complementary), "joint_note": self.joint_note}


def second_node(study: Study, dataset: Dataset, release: Release) -> Node | None:
    """The first k-minimal node (lattice order) other than the release's, under the study's privacy model."""
    from workbench.compare.nodes import lattice_candidates

    own = tuple(release.transformation[q] for q in dataset.quasi_identifiers) if release.transformation else None
    return next((n for n in lattice_candidates(study, dataset, "k_minimal") if n != own), None)


def _node_name(qis: list[str], node: Node) -> str:
    return ",".join(f"{q}={v}" for q, v in zip(qis, node, strict=True))


def check_attacks(study: Study, dataset: Dataset, release: Release, against: Node | None = None) -> AttackChecks:
    """Every attack on ``release`` (of ``study`` on ``dataset``); ``against``: the second release's node (default
    ``second_node``)."""
    qis = dataset.quasi_identifiers
    rare = attacks.rare_values(dataset.frame, qis, release.k)
    node = against if against is not None else second_node(study, dataset, release)
    second = complementary = same = two = None
    joint = joint_complementary = joint_note = None
    if node is not None:
        rule = admissibility_for(study, dataset)
        other = Release.from_node(dataset, node, study.k, study.max_suppression, "second release", rule)
        second = _node_name(qis, node)
        guarantee = other.verify()
        if not guarantee.holds:
            raise ConfigError(f"the second release ({second}) does not meet the privacy model: {guarantee.describe()}; "
                              "choose an admissible node")
        complementary = attacks.complementary_release(release, other)
        if release.transformation is not None:  # the remedy: a release that generalizes both, checked
            both = tuple(max(release.transformation[q], v) for q, v in zip(qis, node, strict=True))
            joint = _node_name(qis, both)
            coarser = Release.from_node(dataset, both, study.k, study.max_suppression, "joint release", rule)
            if coarser.verify().holds:
                joint_complementary = attacks.complementary_release(release, coarser)
            else:
                joint_note = f"the release of {joint} does not meet the privacy model"
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
    return AttackChecks(release.k, rare, second, complementary, same, two, study.seed, matching, note, joint,
                        joint_complementary, joint_note)


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


COMPLEMENTARY = "complementary release (Sweeney 2002)"
UNSORTED = "unsorted matching (Sweeney 2002)"
UNSORTED_TWO = "unsorted matching, two seeds"
MATCHING = "matching attack (k-ambiguity, Katirai 2006)"
ATTACKS = (COMPLEMENTARY, UNSORTED, UNSORTED_TWO, MATCHING)
"""The attacks on a release, by the names every view gives them (``attack_table``'s rows, ``attack_findings``)."""
NO_SECOND = ("the release is the table's only minimal solution, so no other minimal release stands for a second "
             "release to join")

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


def shares_row_order(pairing: dict[str, Any]) -> bool:
    """Do two files (an ``UnsortedMatching.to_dict()`` with the truth) pair the same record on more rows than two
    independent shuffles would by chance (``CHANCE_LEVEL``)? Only then does joining them row by row join them on the
    record."""
    return chance_of_sharing(pairing["linked"], pairing["rows"]) < CHANCE_LEVEL


def row_order_finding(c: dict[str, Any]) -> str | None:
    """What the unsorted-matching figures of ``AttackChecks.to_dict()`` say about the two files' row order, written
    from the figures (Sweeney 2002): every row pairs the same record (one shared order), more rows than two
    independent shuffles pair by chance (``CHANCE_LEVEL``), or about as many (no shared order); with the advice
    the two-seed figures support. None when there is no second release."""
    same, two = c.get("unsorted_matching_same_seed"), c.get("unsorted_matching_two_seeds")
    if same is None or two is None or not same["rows"]:
        return None
    seed, rows, linked = c["seed"], same["rows"], same["linked"]
    by_chance = not shares_row_order(same)
    other = (f"written with seeds {seed} and {seed + 1}, {two['linked']:,} of {two['rows']:,} rows pair the same "
             f"record")
    if by_chance:
        return (f"The two files, each written with seed {seed}, do not share a row order: row i of both holds the "
                f"same record on {linked:,} of {rows:,} rows, as many as two independent shuffles pair by chance "
                f"(one row on average), so joining them row by row does not join them on the record. Each file is "
                f"shuffled by the seed and its own content; {other}.")
    cause = "every row" if linked == rows else f"{linked:,} of {rows:,} rows"
    separate = not shares_row_order(two)
    advice = ("give every release of a table its own seed" if separate
              else "a second seed does not separate them either: release one of the two files only")
    return (f"The two files, each written with seed {seed}, share a row order: row i of both holds the same record "
            f"on {cause}, far more than two independent shuffles pair by chance (one row on average), so joining "
            f"them row by row joins them on the record (it {_singles_out(same['reidentified'], rows)}); {other}: "
            f"{advice}.")


def attack_table(c: dict[str, Any]) -> pd.DataFrame:
    """The attacks on a release (``AttackChecks.to_dict()``) as rows: the attack, what the attacker does and what
    it yields (the Risk page and the report). The result is the finding's (``attack_findings``), word for word, so a
    count has one name wherever the report and the app state it; the matching attack adds the figures the finding
    leaves out."""
    findings = {f.attack: f for f in attack_findings(c)}
    second, seed, k = c["second_release"], c["seed"], c["k"]
    does = {COMPLEMENTARY: "joins this release with a second release on the record" if second is None else
            f"joins this release with the release of {second} on the record",
            UNSORTED: "pairs row i of this file and of a second release's file" if second is None else
            f"pairs row i of both files, each written with seed {seed}",
            UNSORTED_TWO: "pairs row i of two files written with two seeds" if second is None else
            f"pairs row i of the files written with seeds {seed} and {seed + 1}",
            MATCHING: "knows everyone's quasi-identifiers and that each row is one person; keeps the pairings that "
                      "fit a one-to-one assignment"}
    rows = [{"attack": name, "what the attacker does": does[name], "result": findings[name].result}
            for name in ATTACKS]
    m = c["matching_attack"]
    if m is not None:
        rows[-1]["result"] += (f"; before keeping the one-to-one pairings, {m['below_k_before']:,} had fewer than {k} "
                               f"consistent rows; {m['rows_below_k']:,} released rows are left with fewer than {k} "
                               "people")
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class AttackFinding:
    """One attack of ``ATTACKS`` read for a review board: ``singled_out`` of ``people`` are singled out (left alone
    in their group, or re-identified; None when the attack was not checked, ``result`` then saying why), what that
    means and what to do about it. ``matters``: it singles out someone."""

    attack: str
    checked: bool
    singled_out: int | None
    people: int | None
    result: str
    meaning: str
    remedy: str
    warning: str = ""

    @property
    def matters(self) -> bool:
        return bool(self.singled_out)

    def to_dict(self) -> dict[str, object]:
        return {"attack": self.attack, "checked": self.checked, "singled_out": self.singled_out,
                "people": self.people, "result": self.result, "meaning": self.meaning, "remedy": self.remedy,
                "warning": self.warning, "matters": self.matters}


def _singles_out(n: int, of: int) -> str:
    return f"singles out {n:,} of {of:,} people" if n else f"singles out no one of {of:,} people"


def attack_findings(c: dict[str, Any]) -> list[AttackFinding]:
    """Each attack of ``ATTACKS`` on a release (``AttackChecks.to_dict()``), in that order, as a review board reads
    it: how many people it singles out, what that means and the remedy the figures support. A person is singled
    out by the complementary release when alone in the joined group; by unsorted matching when the two files share
    a row order (``shares_row_order``; pairs that fall on one row by chance do not tell the attacker which rows
    they are) and the joined row's group is below k; by the matching attack when one released row is left
    consistent with them."""
    k, seed = c["k"], c["seed"]
    out = []
    second = c["second_release"]
    if second is None:
        out += [AttackFinding(name, False, None, None, f"not checked: {NO_SECOND}", meaning, "")
                for name, meaning in ((COMPLEMENTARY, "a second release of the same table joined on the record"),
                                      (UNSORTED, "two release files joined row by row"),
                                      (UNSORTED_TWO, "two release files written with two seeds joined row by row"))]
    else:
        comp = c["complementary_release"]
        joint, checked = c.get("joint_release"), c.get("joint_complementary_release")
        if joint is None:
            remedy = "release this table only once: any second release at another generalization can be joined with it"
        elif checked is not None and not checked["unique"]:
            remedy = (f"release this table only once, or release any second copy at {joint}, which generalizes both "
                      "(joined with this release, it singles out no one: checked)")
        elif checked is not None:
            remedy = (f"release this table only once: even a second release at {joint}, which generalizes both, "
                      f"singles out {checked['unique']:,} of {checked['records']:,} people when joined with this "
                      "one (the records suppressed in one release and not in the other)")
        else:
            remedy = f"release this table only once ({c.get('joint_note') or 'no release generalizes both'})"
        out.append(AttackFinding(
            COMPLEMENTARY, True, comp["unique"], comp["records"],
            f"{_singles_out(comp['unique'], comp['records'])} ({comp['below_k']:,} in joined groups below {comp['k']})",
            f"a second release of the same table at another generalization ({second}, standing for another "
            "recipient's copy) joined with this one on the record: a person alone in the joined group is singled "
            "out by anyone who knows their quasi-identifiers", remedy,
            f"A second release of the same table at another generalization would single out {comp['unique']:,} of "
            f"{comp['records']:,} people" if comp["unique"] else ""))
        for name, pairing, seeds in ((UNSORTED, c["unsorted_matching_same_seed"], f"both with seed {seed}"),
                                     (UNSORTED_TWO, c["unsorted_matching_two_seeds"], f"with seeds {seed} and "
                                                                                      f"{seed + 1}")):
            shared = shares_row_order(pairing)
            n = pairing["reidentified"] if shared else 0
            pairs = f"{pairing['linked']:,} row{' pairs' if pairing['linked'] == 1 else 's pair'} the same record"
            result = (f"{_singles_out(n, pairing['rows'])}: the two files share a row order ({pairs})" if shared else
                      f"singles out no one: the two files ({seeds}) do not share a row order ({pairs}, as many as "
                      "two independent shuffles pair by chance)")
            remedy = ("" if not shared else "give every release of a table its own seed" if name == UNSORTED
                      else "release one of the two files only")
            warning = (f"Two release files written {seeds} share a row order: joined row by row they single out "
                       f"{n:,} of {pairing['rows']:,} people") if n else ""
            out.append(AttackFinding(name, True, n, pairing["rows"], result,
                                     f"the files of this release and of the second one ({seeds}) joined row by row: "
                                     "if row i of both is the same person, the joined row narrows them down",
                                     remedy, warning))
    m = c["matching_attack"]
    meaning = ("an attacker who knows everyone's quasi-identifiers and that each released row is one of them keeps "
               "only the pairings that fit one person per row; a person left with one consistent row is singled out")
    if m is None:
        out.append(AttackFinding(MATCHING, False, None, None, f"not checked: {c['matching_note']}", meaning, ""))
    else:
        out.append(AttackFinding(MATCHING, True, m["unique"], m["records"],
                                 f"{_singles_out(m['unique'], m['records'])} ({m['below_k']:,} left with fewer than "
                                 f"{k} consistent rows)", meaning,
                                 "release a k-anonymous table (a lattice node, Partition or Mondrian) instead"
                                 if m["unique"] else "",
                                 f"The matching attack singles out {m['unique']:,} of {m['records']:,} people"
                                 if m["unique"] else ""))
    return out
