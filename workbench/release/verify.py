"""Verification of a Release: its guarantee re-checked from the released table itself (the labels a reader will
see), never from the engine's bookkeeping, before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.errors import VerificationError
from workbench.grouping import Groups, distinct_rows, group_rows
from workbench.privacy.base import Admissibility, ClassView
from workbench.release.guarantees import guarantee_text

if TYPE_CHECKING:
    from workbench.release import Release

SUPPRESSED = "*"  # ARX's mark for a suppressed record's quasi-identifiers


@dataclass(frozen=True)
class Guarantee:
    """What a release promises: every group of identical released quasi-identifier rows among the kept
    records has at least ``k`` members, with ``suppressed`` records suppressed (at most ``limit``)."""

    kind: str
    k: int
    suppressed: int
    limit: int
    holds: bool
    verified_from: str = "released table"
    models: dict[str, bool] = field(default_factory=dict)  # privacy model -> does it hold (re-verified)

    def describe(self) -> str:
        adjective = {"k-anonymity": "k-anonymous", "k-ambiguity": "k-ambiguous"}.get(self.kind, self.kind)
        state = "verified" if self.holds else "DOES NOT hold"
        failing = [m for m, ok in self.models.items() if not ok]
        models = "".join(f"; {m} DOES NOT hold" for m in failing) if failing else (
            f"; {len(self.models)} privacy model(s) hold" if self.models else "")
        return (f"{adjective} with k = {self.k}, {self.suppressed} suppressed record(s) (limit {self.limit})"
                f"{models}: {state}")

    def failures(self) -> list[str]:
        """What of the rule the release fails, in words (empty when it holds): the smallest class below k, the
        suppression over its limit, each privacy model that does not hold."""
        out = []
        if self.suppressed > self.limit:
            out.append(f"{self.suppressed:,} suppressed records exceed the limit of {self.limit:,}")
        out += [f"{m} does not hold" for m, ok in self.models.items() if not ok]
        if not self.holds and not out:
            adjective = {"k-anonymity": "k-anonymous", "k-ambiguity": "k-ambiguous"}.get(self.kind, self.kind)
            out.append(f"not {adjective} with k = {self.k}")
        return out

    def as_dict(self) -> dict[str, object]:
        """The provenance record: the guarantee named, with what it means and whether it is k-anonymity."""
        text = guarantee_text(self.kind)
        return {"kind": self.kind, "k": self.k, "suppressed": self.suppressed, "limit": self.limit,
                "holds": self.holds, "verified_from": self.verified_from, "k_anonymous": text.k_anonymous,
                "meaning": text.meaning} | ({"privacy_models": dict(self.models)} if self.models else {})


def verify_release(release: Release, table: pd.DataFrame | None = None, suppressed_policy: str = "mark") -> Guarantee:
    """Re-verify the guarantee from the released table (default: ``release.table()``).

    Checks: each released label generalizes its record's original value (it lies on the value's path
    in the hierarchy); suppressed records carry ``*`` in every quasi-identifier (or are absent when
    dropped); every group of identical released quasi-identifier rows among the other records has
    at least k members; the suppressed count is within the limit.

    Everything is read from the table's cells and the input's: each column's cells become codes into its
    distinct texts (a Categorical's own codes, else hashed), so a label is checked once per distinct
    (original, released) pair and the groups are counted from the codes; nothing comes from the engine's codes.
    """
    table = release.table(suppressed_policy, categorical=True) if table is None else table
    qis = release.quasi_identifiers
    frame = release.dataset.frame
    positions = frame.index.get_indexer(table.index)
    if (positions < 0).any():
        raise VerificationError("the released table holds a row that is not a record of the input")
    released = {qi: text_codes(table[qi]) for qi in qis}
    if suppressed_policy == "drop":
        keep = np.ones(len(table), dtype=bool)
        n_suppressed = release.n - len(table)
    else:
        marked = np.ones(len(table), dtype=bool) if qis else np.zeros(len(table), bool)
        for codes, texts in released.values():
            marked &= (texts == SUPPRESSED)[codes]
        expected = release.suppressed[positions]
        if np.any(expected & ~marked):
            raise VerificationError("a suppressed record is not marked '*' in every quasi-identifier")
        keep = ~expected
        n_suppressed = int(expected.sum())
    kept_positions = positions[keep]
    kept_codes = []
    for qi in qis:
        codes, texts = released[qi]
        codes = codes[keep]
        o_codes, o_texts = text_codes(frame[qi])
        pairs, _ = distinct_rows(np.stack([o_codes[kept_positions], codes], axis=1), [len(o_texts), len(texts)])
        o, r = o_texts[pairs[:, 0]].astype(str), texts[pairs[:, 1]]
        ok = _generalizes(release, qi, o, r)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise VerificationError(f"column {qi!r}: released value {r[bad]!r} does not generalize {o[bad]!r}")
        kept_codes.append((codes, len(texts)))
    groups = None
    if qis and kept_positions.size:
        groups = group_rows(np.stack([c for c, _ in kept_codes], axis=1), [m for _, m in kept_codes],
                            with_inverse=release.admissibility is not None and bool(release.admissibility.models))
    if release.guarantee_kind == "k-ambiguity":
        kept = table.loc[table.index[keep], qis]
        smallest = _smallest_coverage(release, kept) if len(kept) else release.k
    else:
        smallest = int(groups.counts.min()) if groups is not None else release.k
    models = {}
    if release.admissibility is not None and release.admissibility.models:
        models = _verify_models(release, kept_positions, groups)
    holds = smallest >= release.k and n_suppressed <= release.limit and all(models.values())
    return Guarantee(release.guarantee_kind, release.k, n_suppressed, release.limit, holds, models=models)


def rule_verdict(release: Release, rule: Admissibility) -> tuple[bool, list[str]]:
    """Does ``release`` meet the whole configured ``rule`` (k-anonymity with ``rule.k`` and every privacy model of
    ``rule``), re-verified from its released table (``verify_release``)? And what it fails, in words. A release
    that only promises k-ambiguity (overlapping Greedy) does not meet a k-anonymity rule; a model that cannot be
    measured on the release (δ-presence needs a lattice node's classes) counts as failed."""
    from dataclasses import replace as with_rule

    try:
        guarantee = verify_release(with_rule(release, admissibility=rule))
    except ValueError as exc:  # a model that cannot be measured on this kind of release
        return False, [str(exc)]
    failures = guarantee.failures()
    if guarantee.kind != "k-anonymity":
        failures.append(f"it is {guarantee.kind} with k = {guarantee.k}, not k-anonymity")
    if guarantee.k < rule.k:
        failures.append(f"made for k = {guarantee.k}, not k = {rule.k}")
    return not failures, failures


def text_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A column's cells as integer codes (int64) into its distinct texts (an object array of str): a Categorical's
    own codes and labels, else the column hashed (``pd.factorize``, a missing cell as its own value)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy().astype(np.int64)
        texts = column.cat.categories.to_numpy(dtype=object)
        if (codes < 0).any():  # a missing cell in a Categorical: a value of its own, as ``to_numpy(dtype=str)``
            codes = np.where(codes < 0, len(texts), codes)
            texts = np.append(texts, np.nan)
    else:
        codes, texts = pd.factorize(column, use_na_sentinel=False)
        codes = np.asarray(codes, dtype=np.int64)
        texts = np.asarray(texts, dtype=object)
    return codes, np.array([str(t) for t in texts], dtype=object)


def _verify_models(release: Release, positions: np.ndarray, groups: Groups | None) -> dict[str, bool]:
    """Every privacy model, re-checked on the kept records' classes of identical released quasi-identifier
    rows (``groups``, from the table's cells; rows of the input at ``positions``): no class violates a
    class-level model, and the release-level ones hold on the kept classes."""
    assert release.admissibility is not None
    qis = release.quasi_identifiers
    first = np.zeros(1 if positions.size else 0, dtype=np.int64)
    if groups is not None:
        assert groups.inverse is not None
        index, classes, first = groups.inverse, groups.size, groups.first
    else:
        index, classes = np.zeros(positions.size, dtype=np.int64), 1 if positions.size else 0
    extras = [replace(e, codes=e.codes[positions]) for e in release.admissibility.extras]
    node, keys = None, None
    if release.transformation is not None:  # a lattice node: each class's level codes, from one of its records
        node = tuple(release.transformation[q] for q in qis)
        columns = release.dataset.encoded
        keys = np.stack([c.level_codes[c.codes[positions[first]], v] for c, v in zip(columns, node, strict=True)],
                        axis=1) if qis else np.zeros((first.size, 0), dtype=np.int64)
    view = ClassView.from_records(index, classes, extras, node=node, keys=keys)
    out = {}
    for m in release.admissibility.models:
        if m.release_level:
            out[m.describe()] = m.fulfilled(view.sizes, release.n)
        else:
            out[m.describe()] = not bool(m.violating(view).any()) and release.admissibility.node_fulfilled(m, view)
    return out


def _generalizes(release: Release, qi: str, originals: np.ndarray, released: np.ndarray) -> np.ndarray:
    """Does each released label lie above its original value (in the hierarchy or poset)?"""
    if release.label_checks is not None:
        return release.label_checks[qi](released, originals)
    paths = {row[0]: set(row) for row in release.dataset.hierarchies[qi].rows}
    return np.array([r in paths[o] for o, r in zip(originals, released, strict=True)], dtype=bool)


def _smallest_coverage(release: Release, kept: pd.DataFrame) -> int:
    """k-ambiguity (Vinterbo 2002; Katirai §1.8): the fewest original records that any released row
    generalizes, computed from the released labels and the original table. Per column, a coverage matrix
    over distinct labels × distinct original values; then an AND over columns, in blocks of rows."""
    qis = release.quasi_identifiers
    released = kept.drop_duplicates()
    originals = release.dataset.frame[qis].value_counts().reset_index()
    counts = originals["count"].to_numpy()
    rel_idx, orig_idx, cover = [], [], []
    for qi in qis:
        labels, r_idx = np.unique(released[qi].to_numpy(dtype=str), return_inverse=True)
        values, o_idx = np.unique(originals[qi].to_numpy(dtype=str), return_inverse=True)
        grid_l, grid_v = np.repeat(labels, len(values)), np.tile(values, len(labels))
        cover.append(_generalizes(release, qi, grid_v, grid_l.astype(object)).reshape(len(labels), len(values)))
        rel_idx.append(r_idx.reshape(-1))
        orig_idx.append(o_idx.reshape(-1))
    smallest = None
    block = max(1, 2_000_000 // max(1, len(originals)))
    for start in range(0, len(released), block):
        covered = np.ones((min(block, len(released) - start), len(originals)), dtype=bool)
        for j in range(len(qis)):
            covered &= cover[j][rel_idx[j][start:start + block]][:, orig_idx[j]]
        low = int((covered @ counts).min())
        smallest = low if smallest is None else min(smallest, low)
    return smallest if smallest is not None else release.k
