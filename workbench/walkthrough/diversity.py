"""The walkthrough's ℓ-diversity steps: the homogeneity attack on a k-anonymous release, and distinct ℓ-diversity
(ℓ = 2) repairing it at a cost (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "ℓ-Diversity: Privacy beyond
k-anonymity", ACM TKDD 1(1), 2007, §3.1 and §4.1).

The teaching table of El Emam et al. (2009, Fig. 3) has no sensitive column (date, gender and age are all
quasi-identifiers), so these steps take its admission date as the secret (``SECRET``): the attacker knows a
patient's gender and age (``KNOWN``, the quasi-identifiers here) and wants to learn when they were admitted. The
releases are made by the library: the k-anonymous one generalizes gender and age as the walkthrough's chosen
release does, the ℓ-diverse one is the lattice engine's optimum with ``[privacy.l_diversity]`` on the date.
Every sentence is a function of counts (``SecretCounts``, ``homogeneity_text``, ``diversity_text``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.config import Study, study_from_dict
from workbench.privacy.build import admissibility_for
from workbench.release import Release
from workbench.study import RunResult, load_dataset, run

SECRET = "date"  # the column read as the secret: the teaching table has no diagnosis
KNOWN = ["gender", "age"]  # what the attacker knows: the quasi-identifiers of these steps
ELL = 2  # distinct ℓ-diversity with ℓ = 2
SIZE = "class size"
DATES = "dates in class"
SHARED = "one date in class"  # the steps' flag column: everyone in the row's class was admitted the same day
COST = {"dm_star": "DM*", "precision": "Precision", "loss": "Loss"}  # the costs the ℓ-diversity step compares


@dataclass(frozen=True)
class SecretCounts:
    """One release's classes (released records only) against the secret: how many classes and patients, the
    smallest class, the patients alone in a class, and the classes of two or more patients whose records all
    share one secret value (the homogeneity attack's victims) with their patients."""

    k: int
    records: int
    classes: int
    smallest: int
    alone: int
    shared_classes: int
    shared_records: int

    @classmethod
    def of(cls, sizes: Sequence[int], distinct: Sequence[int], k: int) -> SecretCounts:
        """From the size and the number of distinct secret values of each class."""
        pairs = list(zip(sizes, distinct, strict=True))
        shared = [s for s, d in pairs if d == 1 and s > 1]
        return cls(k, int(sum(sizes)), len(pairs), int(min(sizes, default=0)), sum(1 for s in sizes if s == 1),
                   len(shared), int(sum(shared)))

    @property
    def exposed(self) -> int:
        """Patients whose class has one secret value: those alone in a class and those in shared classes."""
        return self.alone + self.shared_records


def _n(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def homogeneity_text(c: SecretCounts, node: str, example: tuple[str, int, str] | None) -> str:
    """Step 6: the k-anonymous release read against the secret. ``node`` describes its generalization,
    ``example`` is the largest class sharing one date: (its released values, its size, the date)."""
    head = ("The teaching table has no diagnosis or other sensitive column, so this step takes its admission date "
            "as the secret: an attacker knows that a patient is in the data, with their gender and age, and wants "
            "to learn when they were admitted. The release below generalizes gender and age as the release the "
            f"workbench chooses for k = {c.k} (the last step) does: {node}. It releases the date as it is and is "
            f"k-anonymous on gender and age: {_n(c.classes, 'class', 'classes')}, the smallest of "
            f"{_n(c.smallest, 'patient')}.")
    if c.exposed == 0:
        return (f"{head} No class shares one admission date: every class mixes at least two, so knowing a "
                "patient's gender and age does not tell when they were admitted. There is no homogeneity attack "
                "on this release.")
    parts = [head]
    if c.shared_classes:
        multi = c.classes - c.alone  # classes of two or more patients
        where = ("every class" if c.shared_classes == multi else f"{c.shared_classes} of the {multi} classes") + (
            " of two or more patients" if c.alone else "")
        who = f"all {c.records}" if c.shared_records == c.records else f"{c.shared_records} of the {c.records}"
        parts.append(f"Yet in {where}, everyone was admitted on the same day: {who} "
                     "patients share their admission date with the rest of their class.")
        if example is not None:
            values, size, date = example
            parts.append(f"For instance, all {size} patients released with {values} were admitted on {date}.")
        parts.append("An attacker finds the patient's class from their gender and age and learns the date without "
                     f"telling which row is theirs: k = {c.k} holds, and the date is disclosed all the same. This "
                     "is the homogeneity attack (Machanavajjhala et al. 2007): k-anonymity hides which row is "
                     "whose, not what a class has in common.")
    else:
        parts.append("No class of two or more patients shares one admission date.")
    if c.alone:
        parts.append(f"{_n(c.alone, 'patient is', 'patients are')} alone in a class, as k = {c.k} allows: "
                     "such a row gives the date away by itself.")
    return " ".join(parts)


def _cost(before: Mapping[str, float], after: Mapping[str, float]) -> str:
    """The costs of ``COST`` before and after, and in which ℓ-diversity costs more, as much, or less."""
    pairs = [(label, before[m], after[m]) for m, label in COST.items() if m in before and m in after]
    listed = ", ".join(f"{name} {b:.3g} → {a:.3g}" for name, b, a in pairs)
    more = [n for n, b, a in pairs if a > b + 1e-12]
    same = [n for n, b, a in pairs if abs(a - b) <= 1e-12]
    less = [n for n, b, a in pairs if a < b - 1e-12]
    verdict = "the same cost" if not more and not less else "; ".join(
        f"{label} by {_and(names)}" for label, names in
        (("it loses more", more), ("as much", same), ("less", less)) if names)
    return (f"Cost against the release of the previous step, both measured on gender and age (lower is better): "
            f"{listed}; {verdict}.")


def diversity_text(before: SecretCounts, after: SecretCounts, least_dates: int, suppressed_instead: int,
                   change: str, node: str, cost_before: Mapping[str, float], cost_after: Mapping[str, float]) -> str:
    """Step 7: what distinct ℓ-diversity (ℓ = 2) asks of the release of step 6 (``before``), what suppressing
    would remove (``suppressed_instead``), and the lattice engine's ℓ-diverse release (``after``, generalized as
    ``node``, its classes holding at least ``least_dates`` dates; ``change`` is "same", "coarser" or
    "different" against step 6's generalization), with both releases' costs."""
    head = (f"Distinct ℓ-diversity with ℓ = {ELL} (Machanavajjhala et al. 2007) asks every class to hold at least "
            f"{ELL} different values of the secret, here {ELL} admission dates, so that no class gives one away.")
    if before.exposed == 0:
        state = "The release of the previous step already does: ℓ-diversity asks for nothing more there."
    else:
        gone = (f"every one of the {before.records} patients" if suppressed_instead == before.records else
                f"{_n(suppressed_instead, 'patient')} of {before.records}")
        state = (f"The release of the previous step does not: {_n(before.exposed, 'patient is', 'patients are')} "
                 f"in a class with one date. Suppressing those classes would remove {gone}.")
    how = {"same": "keeps the same generalization",
           "coarser": "generalizes further",
           "different": "generalizes differently"}[change]
    release = (f"The workbench's lattice search with ℓ = {ELL} (exhaustive, suppressing no one, the least DM* as "
               f"before) {how}: {node}. {_n(after.classes, 'class', 'classes')}, the smallest of "
               f"{_n(after.smallest, 'patient')}, each with at least {_n(least_dates, 'admission date')}.")
    return f"{head} {state} {release} {_cost(cost_before, cost_after)}"


# ---------------------------------------------------------------------------------------------- the releases
@dataclass(frozen=True)
class SecretReleases:
    """The k-anonymous release read against the secret, the lattice engine's ℓ-diverse release, and how many
    patients the ℓ-diversity rule suppresses if the k-anonymous release's generalization is kept."""

    k_release: Release
    l_result: RunResult
    suppressed_instead: int

    @property
    def l_release(self) -> Release:
        assert self.l_result.release is not None  # one class of all ten holds both dates: always found
        return self.l_result.release


def _study(k: int, max_suppression: float, ell: bool) -> Study:
    privacy: dict[str, object] = {"k": k, "max_suppression": max_suppression}
    if ell:
        privacy["l_diversity"] = {"attribute": SECRET, "variant": "distinct", "l": ELL}
    return study_from_dict({"data": {"sample": "teaching"},
                            "attributes": {**{q: {"role": "quasi"} for q in KNOWN}, SECRET: {"role": "sensitive"}},
                            "privacy": privacy,
                            "engine": {"kind": "lattice", "algorithm": "exhaustive", "objective": "dm_star"},
                            "measures": {"compare": ["precision", "dm", "dm_star", "entropy", "loss"]}})


def secret_releases(k: int, levels: Mapping[str, int]) -> SecretReleases:
    """At ``k``: the teaching table generalized on ``KNOWN`` to ``levels`` (the chosen release's levels), the
    engine's distinct-ℓ-diverse release, and the suppression the ℓ rule needs at ``levels``."""
    l_study = _study(k, 0.0, True)
    dataset = load_dataset(l_study)
    node = tuple(levels[q] for q in dataset.quasi_identifiers)
    k_release = Release.from_node(dataset, node, k, 0.0)
    strict = _study(k, 1.0, True)
    kept = Release.from_node(dataset, node, k, 1.0, "exhaustive", admissibility_for(strict, dataset))
    return SecretReleases(k_release, run(l_study, dataset), int(kept.suppressed.sum()))


def secret_table(release: Release) -> pd.DataFrame:
    """The release's known columns and secret, with each row's class size, dates in its class and the flag."""
    out = release.table()[[*KNOWN, SECRET]].copy()
    grouped = out.groupby(KNOWN, sort=False)[SECRET]
    out[SIZE] = grouped.transform("size")
    out[DATES] = grouped.transform("nunique")
    out[SHARED] = out[DATES] < ELL
    return out


def secret_counts(release: Release, k: int) -> tuple[SecretCounts, int, tuple[str, int, str] | None]:
    """The release's ``SecretCounts``, the fewest dates in a class, and its largest class sharing one date
    (its released values, size and date; None when no class of two or more does)."""
    table = secret_table(release)
    per_class = table.drop_duplicates(KNOWN)
    counts = SecretCounts.of(per_class[SIZE].tolist(), per_class[DATES].tolist(), k)
    shared = per_class[(per_class[DATES] == 1) & (per_class[SIZE] > 1)]
    example = None
    if len(shared):
        top = shared.iloc[int(np.argmax(shared[SIZE].to_numpy()))]
        example = (" and ".join(f"{q} {top[q]!r}" for q in KNOWN), int(top[SIZE]), str(top[SECRET]))
    return counts, int(per_class[DATES].min()), example


def change_of(before: Mapping[str, int], after: Mapping[str, int]) -> str:
    """"same", "coarser" (every level at least as high) or "different" between two generalizations."""
    if dict(before) == dict(after):
        return "same"
    return "coarser" if all(after[q] >= before[q] for q in before) else "different"
