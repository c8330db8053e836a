"""A step-by-step walkthrough of k-anonymity on the 10-record teaching table of El Emam et al. 2009 (Fig. 3),
for demonstrations to people who are not programmers: equivalence classes, one generalization, what k
means, one suppression, and what each measure charges. The app renders these steps; tests check them."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

import measures as M
from workbench.data import Dataset
from workbench.release import Release
from workbench.samples import load_sample

CHARGED = ("precision", "dm", "dm_star", "entropy", "loss")


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    table: pd.DataFrame  # released values, class size, suppressed
    measures: dict[str, float]


def _table(release: Release) -> pd.DataFrame:
    qis = release.quasi_identifiers
    out = release.labels[qis].copy()
    keys = out.astype(str).agg(" | ".join, axis=1)
    out["class size"] = keys.map(keys.value_counts()).to_numpy()
    out["suppressed"] = release.suppressed
    return out


def steps(k: int = 3) -> list[Step]:
    sample = load_sample("teaching")
    ds = Dataset.create(sample.frame, sample.roles, sample.hierarchies, source="teaching")

    def step(node: tuple[int, ...], title: str, text: str) -> Step:
        release = Release.from_node(ds, node, k, 1.0)
        scores = M.score(release.view(), CHARGED)
        return Step(title, text, _table(release), {i: s.value for i, s in scores.items()})

    return [
        step((0, 0, 0), "1. The original records",
             "Each row is a patient: admission date, gender and age. Rows that look the same on these three "
             "quasi-identifiers form an equivalence class. A patient alone in a class can be recognized by "
             "anyone who knows those three facts."),
        step((0, 0, 0), f"2. What k = {k} asks",
             f"k-anonymity asks that every class holds at least k = {k} patients, so that each released row "
             f"matches at least {k} people. Classes smaller than {k} are marked for suppression below: "
             f"here most patients would have to be removed."),
        step((0, 0, 1), "3. Generalize one attribute",
             "Ages are replaced by 5-year bands (10-14, 15-19, 20-24). Classes merge and grow; fewer patients "
             "are in classes that are too small. Every patient is still in the table; ages are less precise."),
        step((0, 1, 0), "4. Generalize a different attribute",
             "Instead, gender is replaced by 'Person'. Here it merges nothing, because in this table date and "
             "gender go together: the loss of detail buys no privacy. Which generalization is better depends "
             "on the data, which is why the workbench measures every option."),
        step((0, 0, 1), "5. Suppress what is left",
             f"With ages in bands, the patients still in classes smaller than {k} are suppressed: their "
             "quasi-identifiers are replaced by '*' in the release. The rest is k-anonymous."),
    ]


MEASURE_EXPLANATIONS = {
    "precision": "How far up its hierarchy each value was moved, on average (0 = unchanged, 1 = fully hidden).",
    "dm": "Each released patient costs the size of their class; each suppressed patient costs the whole table.",
    "dm_star": "The sum of squared class sizes: big classes protect more but blur more.",
    "entropy": "The bits of information lost about each original value (non-uniform entropy).",
    "loss": "Per attribute, the share of the hierarchy's values each released value covers (a suppressed value "
            "covers them all), rescaled so that the original data scores 0; the attributes are combined by a "
            "geometric mean, as ARX does.",
}
