"""A step-by-step walkthrough of k-anonymity on the 10-record teaching table of El Emam et al. 2009 (Fig. 3),
for an ethics board and others who are not programmers: the records, the equivalence classes and what k asks,
two generalizations, suppression, the homogeneity attack that k-anonymity leaves open and ℓ-diversity against it
(``workbench.walkthrough.diversity``), and the release the board decides on with its risk and cost.

Every sentence that states a fact about the table is a function of its counts (``ClassCounts``,
``ask_text``, ``generalization_text``, ``suppression_text``, ``homogeneity_text``, ``diversity_text``,
``conclusion_text``), so the text follows the
numbers at every k; the app renders these steps and the tests check each sentence against the counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import measures as M
from workbench.config import study_from_dict
from workbench.data import Dataset
from workbench.release import Release
from workbench.samples import load_sample
from workbench.study import run
from workbench.walkthrough.diversity import (
    ELL,
    change_of,
    diversity_text,
    homogeneity_text,
    secret_counts,
    secret_releases,
    secret_table,
)
from workbench.walkthrough.diversity import (
    SHARED as SHARED,  # re-exported: the page marks these rows
)

CHARGED = ("precision", "dm", "dm_star", "entropy", "loss")
QUASI = ["date", "gender", "age"]
SMALL = "smaller than k"  # the steps' column: the row's class is smaller than k
TEACHING_CONFIG = "sample_configs/teaching.toml"  # the same study: exhaustive search, DM*, no suppression


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    table: pd.DataFrame
    measures: dict[str, float]


@dataclass(frozen=True)
class ClassCounts:
    """One table's equivalence classes at one k: records, classes, and the records (and classes) in classes
    smaller than k, which k-anonymity does not allow."""

    k: int
    records: int
    classes: int
    small_classes: int
    at_risk: int

    @classmethod
    def of(cls, sizes: Sequence[int], k: int) -> ClassCounts:
        """From the size of each class."""
        small = [s for s in sizes if s < k]
        return cls(k, int(sum(sizes)), len(sizes), len(small), int(sum(small)))


def _patients(n: int) -> str:
    return f"{n} patient" + ("" if n == 1 else "s")


def _classes(n: int) -> str:
    return f"{n} class" + ("" if n == 1 else "es")


def ask_text(c: ClassCounts) -> str:
    """Step 2: what k-anonymity asks, and how far the original table is from it."""
    head = (f"k-anonymity asks that every class holds at least k = {c.k} {'patient' if c.k == 1 else 'patients'}, "
            f"so that each released row matches at least {c.k} {'person' if c.k == 1 else 'people'}. The table has "
            f"{_classes(c.classes)}.")
    if c.at_risk == 0:
        return f"{head} Every patient is already in a class of at least {c.k}: the table is k-anonymous as it is."
    if c.at_risk == c.records:
        return (f"{head} Every one of the {c.records} patients is in a class smaller than {c.k}: released as it "
                "is, every row is too rare, and suppression alone would remove them all.")
    return (f"{head} {c.at_risk} of the {c.records} patients are in {_classes(c.small_classes)} smaller than "
            f"{c.k}: they would have to be suppressed if nothing were generalized.")


def generalization_text(what: str, before: ClassCounts, after: ClassCounts) -> str:
    """Steps 3 and 4: what one generalization (``what``, e.g. "Ages are replaced by 5-year bands") did to the
    classes and to the patients in classes smaller than k."""
    if after.classes < before.classes:
        merged = f"Classes merge: {_classes(before.classes)} become {after.classes}."
    else:
        merged = (f"It merges nothing: still {_classes(after.classes)}, so this loss of detail buys no privacy "
                  "here. Which generalization is better depends on the data, which is why the workbench measures "
                  "every option.")
    if before.at_risk == 0:
        risk = f"No patient was in a class smaller than {after.k} before, and none is now."
    elif after.at_risk == 0:
        risk = (f"Now no patient is in a class smaller than {after.k} (before: {before.at_risk}): the table is "
                "k-anonymous without suppressing anyone.")
    elif after.at_risk == after.records:
        risk = f"Still every patient (all {after.records}) is in a class smaller than {after.k}."
    elif after.at_risk < before.at_risk:
        risk = (f"Fewer patients are in classes that are too small: {after.at_risk} instead of "
                f"{before.at_risk}.")
    elif after.at_risk == before.at_risk:
        risk = f"As many patients as before, {after.at_risk}, are in classes smaller than {after.k}."
    else:
        risk = f"More patients are in classes smaller than {after.k}: {after.at_risk} instead of {before.at_risk}."
    return f"{what}. {merged} {risk} Every patient is still in the table; the values are less precise."


def suppression_text(k: int, records: int, suppressed: int, kept_classes: int) -> str:
    """Step 5: suppressing the patients still in classes smaller than k."""
    if suppressed == 0:
        return (f"No patient is in a class smaller than {k}, so nothing is suppressed: with ages in bands the "
                f"table is k-anonymous as it is, {_patients(records)} in {_classes(kept_classes)}.")
    if suppressed == records:
        return (f"Every patient is in a class smaller than {k}: all {records} are suppressed, their "
                "quasi-identifiers replaced by '*' in the release. Nothing is left to release: at this k, bands "
                "of ages are not enough and a coarser generalization is needed.")
    return (f"The {_patients(suppressed)} still in classes smaller than {k} are suppressed: their "
            f"quasi-identifiers are replaced by '*' in the release. The other {records - suppressed}, in "
            f"{_classes(kept_classes)} of at least {k}, are k-anonymous.")


def conclusion_text(k: int, records: int, suppressed: int, classes: int, smallest: int, node: str,
                    measures: Mapping[str, float]) -> str:
    """Step 6: the release the board decides on (``node`` describes its generalization), its risk and its
    cost, and where its report comes from."""
    released = records - suppressed
    if released == 0:
        risk = "Risk: no row is released, so no one can be recognized, and the release says nothing."
    else:
        worst = 1 / smallest
        risk = (f"Risk: each released row matches at least {_patients(smallest)} (the smallest class), so the "
                f"chance of picking out one patient from a row is at most 1 in {smallest} ({worst:.0%}); over "
                f"all {released} released rows it is {classes / released:.0%} on average.")
        if smallest < k:
            risk += f" That is more than k = {k} allows."
        if smallest == 1:
            risk += " A patient alone in a class can be recognized by anyone who knows the three facts."
    cost = (f"Cost: {_patients(suppressed)} suppressed; " +
            ", ".join(f"{M.MEASURES[m].name} {measures[m]:.3g}" for m in ("precision", "loss") if m in measures)
            + " (0 is the original table; lower is better).")
    return (f"For k = {k} the workbench searched every generalization of this table and, suppressing no one, "
            f"chose the one that loses least by DM* (as the paper does): {node}.\n\n{risk}\n\n{cost}\n\n"
            "The board decides on this release: whether its risk is acceptable for the people who will see the "
            "data, and whether what is left is still useful for the study. The report puts all of this in one "
            "file for the board: in the app, choose the teaching dataset, run it on the Anonymize page with k = "
            f"{k}, a suppression limit of 0 % and the objective dm_star, and press 'Build the report' on the Export "
            f"page; from a shell, `workbench report {TEACHING_CONFIG} --set privacy.k={k} "
            "--out report`.")


def _sizes(codes: np.ndarray) -> np.ndarray:
    """Per record, the size of its class (identical rows of ``codes``)."""
    _, inverse, counts = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


def _class_sizes(codes: np.ndarray) -> list[int]:
    return np.unique(codes, axis=0, return_counts=True)[1].tolist() if len(codes) else []


def _node_text(release: Release) -> str:
    """The generalization of a lattice release in words: per quasi-identifier, unchanged, hidden (released as its
    hierarchy's root) or its level."""
    parts = []
    for col in release.dataset.encoded:
        level = release.transformation[col.name]
        parts.append(f"{col.name} unchanged" if level == 0 else
                     f"{col.name} hidden (every value {col.labels[level][0]!r})" if level == col.height else
                     f"{col.name} at level {level} of {col.height}")
    return ", ".join(parts)


def _scores(release: Release) -> dict[str, float]:
    return {i: s.value for i, s in M.score(release.view(), CHARGED).items()}


def steps(k: int = 3) -> list[Step]:
    """The walkthrough at ``k`` (1 to the table's 10 records)."""
    sample = load_sample("teaching")
    ds = Dataset.create(sample.frame, sample.roles, sample.hierarchies, source="teaching")
    original = Release.from_node(ds, (0, 0, 0), k, 0.0)
    banded = Release.from_node(ds, (0, 0, 1), k, 0.0)
    person = Release.from_node(ds, (0, 1, 0), k, 0.0)
    suppressed = Release.from_node(ds, (0, 0, 1), k, 1.0)
    counts = {name: ClassCounts.of(_class_sizes(r.codes), k)
              for name, r in (("original", original), ("banded", banded), ("person", person))}

    classes = original.labels[QUASI].astype(str).value_counts(sort=False).rename("patients").reset_index()
    classes[SMALL] = classes["patients"] < k

    def rows(release: Release) -> pd.DataFrame:
        out = release.labels[QUASI].copy()
        out["class size"] = _sizes(release.codes)
        out[SMALL] = out["class size"] < k
        return out

    marked = suppressed.table()[QUASI]  # '*' in every quasi-identifier of a suppressed record
    marked["class size"] = pd.array(np.where(suppressed.suppressed, pd.NA, _sizes(suppressed.codes)), dtype="Int64")
    marked["suppressed"] = suppressed.suppressed

    study = study_from_dict({"data": {"sample": "teaching"}, "attributes": {q: {"role": "quasi"} for q in QUASI},
                             "privacy": {"k": k, "max_suppression": 0.0},
                             "engine": {"kind": "lattice", "algorithm": "exhaustive", "objective": "dm_star"},
                             "measures": {"compare": list(CHARGED)}})
    chosen = run(study, ds)
    final = chosen.release
    scores = {i: s.value for i, s in chosen.scores.items()}
    n_sup = int(suppressed.suppressed.sum())
    secret = secret_releases(k, final.transformation)
    before, _, example = secret_counts(secret.k_release, k)
    after, least_dates, _ = secret_counts(secret.l_release, k)
    l_scores = {i: s.value for i, s in secret.l_result.scores.items()}
    k_scores = _scores(secret.k_release)
    return [
        Step("1. The original records",
             "Each row is a patient: admission date, gender and age. These three facts could be known to someone "
             "who wants to find a patient in the data: they are the quasi-identifiers.",
             original.labels[QUASI].copy(), {}),
        Step(f"2. Equivalence classes, and what k = {k} asks",
             "Patients who look the same on the three quasi-identifiers form an equivalence class (one row "
             f"each below). {ask_text(counts['original'])} The measures charge the patients in classes smaller "
             "than k as suppressed.", classes, _scores(original)),
        Step("3. Generalize one attribute",
             generalization_text("Ages are replaced by 5-year bands (10-14, 15-19, 20-24)", counts["original"],
                                 counts["banded"]), rows(banded), _scores(banded)),
        Step("4. Generalize a different attribute",
             generalization_text("Instead, gender is replaced by 'Person'", counts["original"], counts["person"]),
             rows(person), _scores(person)),
        Step("5. Suppress what is left",
             suppression_text(k, ds.n, n_sup, suppressed.classes), marked, _scores(suppressed)),
        Step("6. The homogeneity attack: what k does not hide",
             homogeneity_text(before, _node_text(secret.k_release), example),
             secret_table(secret.k_release), k_scores),
        Step(f"7. ℓ-diversity: at least {ELL} admission dates in every class",
             diversity_text(before, after, least_dates, secret.suppressed_instead,
                            change_of(secret.k_release.transformation, secret.l_release.transformation),
                            _node_text(secret.l_release), k_scores, l_scores),
             secret_table(secret.l_release), l_scores),
        Step("8. The release the board decides on",
             conclusion_text(k, ds.n, int(final.suppressed.sum()), final.classes, final.smallest_class(),
                             _node_text(final), scores),
             final.table(), scores),
    ]


MEASURE_EXPLANATIONS = {
    "precision": "How far up its hierarchy each value was moved, on average (0 = unchanged, 1 = fully hidden). "
                 "Suppression is not charged: Precision looks only at the generalization levels, so it is the same "
                 "whether no record or every record is suppressed (DM and Loss do charge suppressed records).",
    "dm": "Each released patient costs the size of their class; each suppressed patient costs the whole table.",
    "dm_star": "The sum of squared class sizes: big classes protect more but blur more.",
    "entropy": "The bits of information lost about each original value (non-uniform entropy).",
    "loss": "Per attribute, the share of the hierarchy's values each released value covers (a suppressed value "
            "covers them all), rescaled so that the original data scores 0; the attributes are combined by a "
            "geometric mean, as ARX does.",
}
