"""Attacks from the literature, simulated on releases (Sweeney, "k-anonymity: a model for protecting privacy", 2002,
§4; Katirai, "A theory and toolkit for the development of k-anonymous data sets", 2006, §1.8 and the attacks on
local recoding). Each function takes tables or releases and returns a small frozen result with ``to_dict()``.

- ``rare_values`` / ``without_rare``: quasi-identifier values rarer than k in the input: a record holding one
  cannot be k-anonymous without generalizing or suppressing that value; offered before anonymizing.
- ``unsorted_matching``: two releases of the same table joined by row position (Sweeney's unsorted matching):
  if both keep one row order, row i of each is the same record, and the joined row narrows it.
  ``written_order`` reads back which record the workbench's writer put on each row.
- ``complementary_release``: two releases of the same table at different generalizations joined on the record
  (Sweeney's complementary release): the records whose joined class falls below k.
- ``joined_classes`` and ``intersection_attack``: the same two attacks on class codes (two releases registered at
  different times, ``workbench.register.earlier``): joined on the record, and the composition attack of Ganta et al.
  (2008), where the values of a person's two classes are intersected.
- ``matching_attack``: k-ambiguity (overlapping local recoding, Katirai's overlapping Greedy) against an attacker
  who knows the original quasi-identifiers and that each released row is exactly one of them: only the pairings
  that belong to some one-to-one assignment of rows to people remain (a flow argument), and a person whose
  consistent released rows fall below k is narrowed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from workbench.grouping import class_sizes, group_rows
from workbench.release import Release
from workbench.release.export import row_order
from workbench.release.verify import SUPPRESSED

REMOVE = ("rows", "values")
MAX_MATCHING_PAIRS = 5_000_000  # distinct released rows × distinct original rows the matching attack accepts


@dataclass(frozen=True)
class RareValues:
    """Per quasi-identifier, the values held by fewer than k records: ``values`` rows (attribute, value,
    records), and ``records``, how many records hold at least one."""

    k: int
    values: tuple[tuple[str, str, int], ...]
    records: int

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.values), columns=["attribute", "value", "records"])

    def to_dict(self) -> dict[str, object]:
        return {"k": self.k, "records": self.records,
                "values": [{"attribute": a, "value": v, "records": c} for a, v, c in self.values]}


def _rare_mask(frame: pd.DataFrame, quasi_identifiers: list[str], k: int) -> dict[str, np.ndarray]:
    return {q: (frame[q].map(frame[q].value_counts()) < k).to_numpy() for q in quasi_identifiers}


def rare_values(frame: pd.DataFrame, quasi_identifiers: list[str], k: int) -> RareValues:
    """The quasi-identifier values held by fewer than ``k`` records (Sweeney 2002: each needs generalizing or
    suppressing before the table can be k-anonymous)."""
    values = []
    for q in quasi_identifiers:
        counts = frame[q].astype(str).value_counts()
        values += [(q, str(v), int(c)) for v, c in sorted(counts[counts < k].items(), key=lambda vc: (vc[1], vc[0]))]
    masks = _rare_mask(frame.astype(str), quasi_identifiers, k)
    rare_rows = np.logical_or.reduce(list(masks.values())) if masks else np.zeros(len(frame), dtype=bool)
    return RareValues(k, tuple(values), int(rare_rows.sum()))


def without_rare(frame: pd.DataFrame, quasi_identifiers: list[str], k: int, remove: str = "rows"
                 ) -> tuple[pd.DataFrame, RareValues]:
    """The table without its rare values and the report of what was rare. ``"rows"``: drop the records holding
    one, again until none is left (dropping rows can make other values rare); ``"values"``: blank those cells
    (the missing value ``""``, which every quasi-identifier's hierarchy then needs a row for)."""
    if remove not in REMOVE:
        raise ValueError(f"remove must be one of {', '.join(REMOVE)}, got {remove!r}")
    report = rare_values(frame, quasi_identifiers, k)
    out = frame.astype(str).copy()
    if remove == "values":
        for q, mask in _rare_mask(out, quasi_identifiers, k).items():
            out.loc[mask, q] = ""
        return out, report
    while len(out):
        masks = _rare_mask(out, quasi_identifiers, k)
        rows = np.logical_or.reduce(list(masks.values())) if masks else np.zeros(len(out), dtype=bool)
        if not rows.any():
            break
        out = out[~rows]
    return out, report


# ---------------------------------------------------------------------------------------------- two releases
def _codes(table: pd.DataFrame, columns: list[str]) -> np.ndarray:
    if not columns:
        return np.zeros((len(table), 0), dtype=np.int64)
    return np.stack([pd.factorize(table[c].astype(str))[0] for c in columns], axis=1)


@dataclass(frozen=True)
class UnsortedMatching:
    """Two releases joined row by row: ``below_k`` rows whose joined class (same row in both files) holds fewer
    than k rows, ``unique`` those alone in it; with the truth, ``linked`` rows whose two halves are one record
    and ``reidentified`` rows both linked and below k."""

    rows: int
    k: int
    below_k: int
    unique: int
    linked: int | None = None
    reidentified: int | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def unsorted_matching(first: pd.DataFrame, second: pd.DataFrame, quasi_identifiers: list[str], k: int,
                      truth: tuple[np.ndarray, np.ndarray] | None = None) -> UnsortedMatching:
    """Sweeney's unsorted matching: row i of ``first`` paired with row i of ``second`` (two published files of
    the same records); ``truth``: the record behind each row of each file (``written_order``)."""
    if len(first) != len(second):
        raise ValueError(f"the releases have {len(first)} and {len(second)} rows: row order pairs equal lengths")
    joined = np.hstack([_codes(first, quasi_identifiers), _codes(second, quasi_identifiers)])
    sizes = class_sizes(joined) if len(first) else np.zeros(0, dtype=np.int64)
    below = sizes < k
    linked = reidentified = None
    if truth is not None:
        same = np.asarray(truth[0]) == np.asarray(truth[1])
        linked, reidentified = int(same.sum()), int((same & below).sum())
    return UnsortedMatching(len(first), k, int(below.sum()), int((sizes == 1).sum()), linked, reidentified)


def written_order(release: Release, seed: int) -> np.ndarray:
    """The record (row of the input) on each row of the file the workbench's writer produces for ``release``
    with ``seed`` (``Release.export_bytes``, marked suppressed records): ``workbench.release.export.row_order``."""
    return row_order(release.table(categorical=True), seed)


@dataclass(frozen=True)
class ComplementaryRelease:
    """Two releases joined on the record: ``below_k`` records whose joined class (equal released rows in both)
    holds fewer than k records, ``unique`` those alone in it, out of ``records`` in ``classes`` joined classes."""

    records: int
    k: int
    classes: int
    below_k: int
    unique: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def complementary_release(first: Release, second: Release) -> ComplementaryRelease:
    """Sweeney's complementary release: two releases of the same table (suppressed records ``*``), each record's
    released rows joined; k is the smaller of the two releases' k."""
    if first.n != second.n or not first.dataset.frame.index.equals(second.dataset.frame.index):
        raise ValueError("the releases are not of the same table")
    qis = first.quasi_identifiers
    return joined_classes(_codes(first.table(), qis), _codes(second.table(), second.quasi_identifiers),
                          min(first.k, second.k))


def joined_classes(first: np.ndarray, second: np.ndarray, k: int) -> ComplementaryRelease:
    """The complementary release on codes: ``first[i]`` and ``second[i]`` are record i's released rows in the two
    releases (a row of codes, or one code per record), joined; a record whose joined class holds fewer than ``k``
    records is ``below_k``, one alone in it ``unique``."""
    first, second = np.asarray(first), np.asarray(second)
    if len(first) != len(second):
        raise ValueError(f"the releases cover {len(first)} and {len(second)} records: join them on the same records")
    if not len(first):
        return ComplementaryRelease(0, k, 0, 0, 0)
    joined = np.hstack([first.reshape(len(first), -1), second.reshape(len(second), -1)]).astype(np.int64)
    groups = group_rows(joined, with_inverse=True)
    assert groups.inverse is not None
    sizes = groups.counts[groups.inverse]
    return ComplementaryRelease(len(first), k, groups.size, int((sizes < k).sum()), int((sizes == 1).sum()))


@dataclass(frozen=True)
class IntersectionAttack:
    """The intersection (composition) attack on one sensitive ``attribute``: of ``records`` joined, ``revealed``
    have a single value left in the intersection of their two classes' values, of which ``new`` had more than
    one value in each release alone (the second release reveals them); ``skipped`` says why it was not computed."""

    attribute: str
    records: int
    revealed: int
    new: int
    skipped: str | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


MAX_INTERSECTION_CELLS = 50_000_000  # (joined class, value) cells the intersection attack compares


def intersection_attack(first: np.ndarray, second: np.ndarray, values: pd.Series | np.ndarray,
                        attribute: str = "") -> IntersectionAttack:
    """Ganta, Kasiviswanathan and Smith's composition attack ("Composition attacks and auxiliary information in
    data privacy", KDD 2008): an attacker who knows a person's quasi-identifiers finds their class in each of two
    releases of the same people; the person's sensitive value is among the values of both classes, so a single
    value left in the intersection reveals it, even when each class alone holds several. ``first[i]``,
    ``second[i]``: record i's class code in each release; ``values[i]``: its sensitive value."""
    from scipy.sparse import csr_matrix

    first, second = np.asarray(first, dtype=np.int64), np.asarray(second, dtype=np.int64)
    n = len(first)
    if n == 0:
        return IntersectionAttack(attribute, 0, 0, 0)
    v = pd.factorize(pd.Series(np.asarray(values)).astype(str))[0].astype(np.int64)
    n_values = int(v.max()) + 1

    def presence(classes: np.ndarray) -> csr_matrix:
        ones = np.ones(n, dtype=np.int8)
        m = csr_matrix((ones, (classes, v)), shape=(int(classes.max()) + 1, n_values))
        m.data[:] = 1  # duplicates summed: presence only
        return m

    a, b = presence(first), presence(second)
    pairs = group_rows(np.stack([first, second], axis=1), with_inverse=True)
    assert pairs.inverse is not None
    pa, pb = first[pairs.first], second[pairs.first]
    cells = int(np.asarray(a.getnnz(axis=1))[pa].sum())
    if cells > MAX_INTERSECTION_CELLS:
        return IntersectionAttack(attribute, n, 0, 0, f"too large: {cells:,} (class, value) cells to compare, above "
                                                      f"the {MAX_INTERSECTION_CELLS:,} the attack compares")
    common = np.asarray(a[pa].multiply(b[pb]).sum(axis=1)).ravel()
    alone_a = np.asarray(a.getnnz(axis=1))[pa]
    alone_b = np.asarray(b.getnnz(axis=1))[pb]
    one = (common == 1)[pairs.inverse]
    new = (one & (alone_a > 1)[pairs.inverse] & (alone_b > 1)[pairs.inverse])
    return IntersectionAttack(attribute, n, int(one.sum()), int(new.sum()))


# ---------------------------------------------------------------------------------------------- k-ambiguity
@dataclass(frozen=True)
class MatchingAttack:
    """Per person (original record), the released rows consistent with their quasi-identifiers, before and after
    the attacker keeps only pairings that fit a one-to-one assignment: ``below_k_before``/``below_k`` people with
    fewer than k, ``unique`` people left with one; ``rows_below_k``: released rows left consistent with fewer
    than k people."""

    records: int
    k: int
    below_k_before: int
    below_k: int
    unique: int
    rows_below_k: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _covers(release: Release, qi: str, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(labels × values) bool: does each released label generalize each original value (``*`` covers all)?"""
    grid_l, grid_v = np.repeat(labels, len(values)).astype(object), np.tile(values, len(labels))
    if release.label_checks is not None:
        ok = np.asarray(release.label_checks[qi](grid_l, grid_v), dtype=bool)
    else:
        paths = {row[0]: set(row) for row in release.dataset.hierarchies[qi].rows}
        ok = np.array([lab in paths[v] for lab, v in zip(grid_l, grid_v, strict=True)], dtype=bool)
    return (ok | (grid_l == SUPPRESSED)).reshape(len(labels), len(values))


def matching_attack(release: Release, max_pairs: int = MAX_MATCHING_PAIRS) -> MatchingAttack:
    """The matching attack on a release (Katirai's k-ambiguity leaves it open): rows and people are grouped by
    equal released rows and equal originals; the truth is a flow from row groups to people groups, and a pairing
    (row group, people group) fits some one-to-one assignment iff it carries flow or both lie on a cycle of the
    residual graph (one strongly connected component)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    qis = release.quasi_identifiers
    released, original = release.table()[qis].astype(str), release.dataset.frame[qis].astype(str)
    rows = group_rows(_codes(released, qis), with_inverse=True)
    people = group_rows(_codes(original, qis), with_inverse=True)
    assert rows.inverse is not None and people.inverse is not None
    if rows.size * people.size > max_pairs:
        raise ValueError(f"too large: {rows.size:,} distinct released rows × {people.size:,} distinct originals = "
                         f"{rows.size * people.size:,} pairs to compare, above the {max_pairs:,} the matching attack "
                         "compares")
    cover = np.ones((rows.size, people.size), dtype=bool)
    for q in qis:
        labels, r_idx = np.unique(released[q].to_numpy()[rows.first], return_inverse=True)
        values, p_idx = np.unique(original[q].to_numpy()[people.first], return_inverse=True)
        cover &= _covers(release, q, labels, values)[r_idx.reshape(-1)][:, p_idx.reshape(-1)]
    flow = np.zeros((rows.size, people.size), dtype=np.int64)
    np.add.at(flow, (rows.inverse, people.inverse), 1)
    r, p = np.nonzero(cover)
    back_r, back_p = np.nonzero(flow)
    graph = coo_matrix((np.ones(r.size + back_r.size), (np.concatenate([r, rows.size + back_p]),
                                                        np.concatenate([rows.size + p, back_r]))),
                       shape=(rows.size + people.size,) * 2).tocsr()
    _, component = connected_components(graph, directed=True, connection="strong")
    fits = (flow > 0) | (cover & (component[:rows.size, None] == component[None, rows.size:]))
    before = rows.counts @ cover  # per people group: consistent released rows
    after = rows.counts @ fits
    weights = people.counts
    k = release.k
    return MatchingAttack(release.n, k, int(weights[before < k].sum()), int(weights[after < k].sum()),
                          int(weights[after == 1].sum()), int(rows.counts[(fits @ weights) < k].sum()))
