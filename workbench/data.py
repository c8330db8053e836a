"""Datasets: attribute roles and the integer encoding of quasi-identifiers (tables are read by
``workbench.readers``, re-exported here).

Every cell is read as text, and an empty cell is the value ``""``: a missing value is explicit, so the
hierarchy of a quasi-identifier must have a row for it, or the error names the rows that lack one. What is missing
is defined once, in ``workbench.hierarchy.missing``: a Dataset reads every missing text of a column (the token
``(missing)``, a token such as ``NA`` that the column's hierarchy places in the group ``(missing)``) as the one
missing value ``""``, and records what it read so (``Dataset.missing``).
The user's file and DataFrame are never modified: a Dataset keeps its own read-only copy.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from measures import ColumnDomain
from workbench.errors import DataError, HierarchyError
from workbench.hierarchy.missing import as_one_missing_value, canonical_hierarchy, read_missing
from workbench.hierarchy.tree import Hierarchy
from workbench.readers import (
    _as_text_column,
)

ROLES = ("quasi", "sensitive", "insensitive", "identifying", "target")


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """A quasi-identifier as integer codes (El Emam 2009 / Issa 2009 ch. 5: integer-encode once).

    ``codes[i]`` = compact code of record i's original value (0..m-1, in hierarchy row order);
    ``level_codes[o, l]`` = code of value o's level-l ancestor among ``labels[l]``.
    """

    name: str
    codes: np.ndarray
    level_codes: np.ndarray
    labels: tuple[tuple[str, ...], ...]
    shares: tuple[np.ndarray, ...] | None = None  # per level: ARX domain-share numerator of each label
    share_domain: int | None = None  # their denominator (Hierarchy.domain_shares)
    weights: np.ndarray | None = None  # per row of ``codes``: how many records it stands for (a frequency set's)

    def __post_init__(self) -> None:
        for attr in ("codes", "level_codes"):
            getattr(self, attr).setflags(write=False)

    @property
    def height(self) -> int:
        return self.level_codes.shape[1] - 1

    @cached_property
    def code_space(self) -> tuple[np.ndarray, np.ndarray]:
        """The column-wide code space of all levels: each level's offset in it, and every code's leaf count
        (how many original values it covers)."""
        sizes = [self.cardinality(lv) for lv in range(self.height + 1)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        leaf_count = np.concatenate([np.bincount(self.level_codes[:, lv], minlength=sizes[lv])
                                     for lv in range(self.height + 1)])
        return offsets, leaf_count

    @cached_property
    def counts(self) -> np.ndarray:
        """Records per original value."""
        if self.weights is not None:
            return np.bincount(self.codes, weights=self.weights, minlength=self.level_codes.shape[0]).astype(np.int64)
        return np.bincount(self.codes, minlength=self.level_codes.shape[0])

    def cardinality(self, level: int) -> int:
        return len(self.labels[level])

    def column_domain(self) -> ColumnDomain:
        """The measures' per-column marginals (lattice fast path), with the hierarchy's domain shares."""
        return ColumnDomain(self.name, self.level_codes, self.counts, self.shares, self.share_domain)


@dataclass(frozen=True, eq=False)
class Population:
    """The table a research subset was drawn from (δ-presence, Nergiz et al. 2007): the data file's rows, and
    which of them the subset is (``rows[i]``: the population row of the subset's row i)."""

    frame: pd.DataFrame
    rows: np.ndarray
    source: str = "population"

    @property
    def n(self) -> int:
        return len(self.frame)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table with attribute roles and one hierarchy per quasi-identifier.

    Build it with ``Dataset.create``, which validates everything and copies the frame. ``population``: when the
    table is a research subset (δ-presence), the table it was drawn from. ``missing``: per column, each text read
    as the missing value ``""`` with its number of cells (``workbench.hierarchy.missing``). ``source`` names the
    input (a data file's path as the config gave it, an upload's base name, ``sample:NAME``);
    ``input_sha256`` is the SHA-256 of the bytes the table was read from (a data file, or the bytes an analyst
    uploaded: ``uploaded``), None when there were none (an embedded sample, a DataFrame).
    """

    frame: pd.DataFrame
    roles: Mapping[str, str]
    hierarchies: Mapping[str, Hierarchy]
    source: str = "data"
    warnings: tuple[str, ...] = field(default=())
    population: Population | None = None
    missing: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    input_sha256: str | None = None
    uploaded: bool = False

    @classmethod
    def create(
        cls,
        frame: pd.DataFrame,
        roles: Mapping[str, str],
        hierarchies: Mapping[str, Hierarchy],
        source: str = "data",
        without_hierarchy: Collection[str] = (),
        population: Population | None = None,
        input_sha256: str | None = None,
        uploaded: bool = False,
    ) -> Dataset:
        """Validate roles and hierarchies against the frame; raise DataError/HierarchyError on problems.

        Columns not in ``roles`` are insensitive. The order of ``roles`` is the quasi-identifier order.
        ``without_hierarchy``: quasi-identifiers generalized by a poset of their own (local engine), which
        need no hierarchy. ``population``: the table the frame's rows were drawn from (δ-presence); the
        hierarchies must cover its values too. ``input_sha256``, ``uploaded``: the digest of the bytes the frame was
        read from and whether an analyst uploaded them (the provenance records both; ``export.input_record``).
        """
        if len(frame) == 0:
            raise DataError(f"{source}: no data rows")
        frame = frame.apply(_as_text_column)  # a new frame, same text as read_table: NaN -> "", 20.0 -> "20"
        unknown = [a for a in roles if a not in frame.columns]
        if unknown:
            raise DataError(
                f"{source}: unknown attribute(s) {', '.join(map(repr, unknown))}; "
                f"the columns are {', '.join(map(repr, frame.columns))}"
            )
        bad = {a: r for a, r in roles.items() if r not in ROLES}
        if bad:
            a, r = next(iter(bad.items()))
            raise DataError(f"attribute {a!r}: unknown role {r!r}; use one of {', '.join(ROLES)}")
        full_roles = {c: roles.get(c, "insensitive") for c in frame.columns}
        ordered = {a: full_roles[a] for a in roles} | {c: r for c, r in full_roles.items() if c not in roles}
        warnings: list[str] = []
        problems: list[str] = []
        hierarchies = dict(hierarchies)
        missing: dict[str, dict[str, int]] = {}  # per column, each text read as the missing value "" and its cells
        for a in (a for a, r in ordered.items() if r == "quasi"):
            if a not in hierarchies and a in without_hierarchy:
                continue
            if a not in hierarchies:
                problems.append(f"quasi-identifier {a!r} has no hierarchy")
                continue
            h = hierarchies[a]
            report = h.validate()
            warnings.extend(report.warnings)
            problems.extend(report.errors)
            if report.ok:  # a row for the one missing value "" (workbench.hierarchy.missing)
                try:
                    h = hierarchies[a] = canonical_hierarchy(h)
                except HierarchyError as exc:
                    problems.append(f"column {a!r}: {exc}")
            frame[a], missing[a] = read_missing(frame[a], h)
            if h.rows:  # coverage too, so that every problem is reported at once
                problems.extend(coverage_problems(frame[a], h, a))
                if population is not None and a in population.frame.columns:
                    problems.extend(f"population: {p}" for p in coverage_problems(
                        as_one_missing_value(population.frame[a].astype(str), h), h, a))
        for a, h in list(hierarchies.items()):  # another attribute's hierarchy (t-closeness) reads them so too
            if a in frame.columns and a not in missing and h.rows and h.validate().ok:
                try:
                    hierarchies[a] = canonical_hierarchy(h)
                except HierarchyError as exc:
                    problems.append(f"column {a!r}: {exc}")
        if problems:
            raise HierarchyError("; ".join(problems), problems)
        for c in (c for c in frame.columns if c not in missing):
            frame[c], missing[c] = read_missing(frame[c], hierarchies.get(c))
        if population is not None:
            changed = {c: as_one_missing_value(population.frame[c], hierarchies.get(c))
                       for c in population.frame.columns}
            population = Population(population.frame.assign(**changed), population.rows, population.source)
        return cls(frame=frame, roles=ordered, hierarchies=hierarchies, source=source, warnings=tuple(warnings),
                   population=population, missing={c: m for c, m in missing.items() if m}, input_sha256=input_sha256,
                   uploaded=uploaded)

    @property
    def n(self) -> int:
        return len(self.frame)

    def attributes(self, role: str) -> list[str]:
        return [a for a, r in self.roles.items() if r == role]

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.attributes("quasi")

    @cached_property
    def encoded(self) -> tuple[EncodedColumn, ...]:
        """The quasi-identifiers as integer codes, in quasi-identifier order."""
        return tuple(self.encoded_column(a) for a in self.quasi_identifiers)

    @cached_property
    def _encoded_columns(self) -> dict[str, EncodedColumn]:
        return {}

    def encoded_column(self, attribute: str) -> EncodedColumn:
        """One quasi-identifier that has a hierarchy, as integer codes (computed once)."""
        if attribute not in self._encoded_columns:
            self._encoded_columns[attribute] = self._encode(attribute)
        return self._encoded_columns[attribute]

    def _encode(self, attribute: str) -> EncodedColumn:
        h = self.hierarchies[attribute]
        inverse, uniques = pd.factorize(self.frame[attribute])  # hashing, no per-cell Python; "" is a value
        uniques = [str(u) for u in uniques]
        order = {v: i for i, v in enumerate(h.values)}
        present = sorted(uniques, key=order.__getitem__)  # hierarchy row order
        where = {v: i for i, v in enumerate(present)}
        rank = np.array([where[v] for v in uniques], dtype=np.int64)
        level_codes, labels = h.level_matrix(present)
        shares, domain = h.domain_shares(labels)
        return EncodedColumn(
            name=attribute,
            codes=rank[inverse],
            level_codes=level_codes,
            labels=tuple(tuple(lv) for lv in labels),
            shares=shares,
            share_domain=domain,
        )


def coverage_problems(column: pd.Series, h: Hierarchy, attribute: str) -> list[str]:
    """Rows whose value has no hierarchy row, named by value and 1-based data row."""
    covered = set(h.values)
    missing = sorted({str(v) for v in column.unique()} - covered)  # distinct values only: one pass, hashed
    if not missing:
        return []
    values = column.to_numpy(dtype=str)
    parts = []
    for v in missing[:5]:
        rows = (np.flatnonzero(values == v) + 1).tolist()
        shown = ", ".join(map(str, rows[:5])) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
        label = "an empty cell (missing value)" if v == "" else repr(v)
        parts.append(f"{label} in data row{'s' if len(rows) > 1 else ''} {shown}")
    more = f"; and {len(missing) - 5} more value(s)" if len(missing) > 5 else ""
    return [f"column {attribute!r}: hierarchy {h.name!r} has no row for {'; '.join(parts)}{more}"]


# column names of common demographic quasi-identifiers (Sweeney 2002: ZIP code, sex and date of birth identify
# most people; El Emam 2009 adds age, and health data ethnicity and race)
QUASI_NAMES = re.compile(r"(age|sex|gender|dob|(date_?of_?)?birth(_?date|day)?|birth_?year|year_?of_?birth|zip(_?code)?"
                         r"|post(al)?_?code|postcode|ethnicity|race)", re.IGNORECASE)


def suggest_roles(frame: pd.DataFrame) -> dict[str, str]:
    """Roles to start from for a new table: a column with a different value in every record identifies (it is
    marked identifying, as ``profile`` would warn); a column named like a common demographic quasi-identifier
    (``QUASI_NAMES``: age, sex, gender, date of birth, ZIP or postal code, ethnicity, race) is quasi, in table
    order; every other column insensitive. The analyst reviews and changes them."""
    roles = {}
    for column in frame.columns:
        unique = len(frame) > 1 and frame[column].nunique() == len(frame)
        roles[column] = "identifying" if unique else "quasi" if QUASI_NAMES.fullmatch(column.strip()) \
            else "insensitive"
    return roles


def profile(frame: pd.DataFrame, roles: Mapping[str, str], k: int,
            hierarchies: Mapping[str, Hierarchy] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Per column: role, distinct values, missing values and values occurring fewer than k times; plus warnings
    for identifying columns left in and quasi-identifier values rarer than k. Missing values are those of
    ``workbench.hierarchy.missing`` (the empty cell, the token ``(missing)`` and the tokens the column's hierarchy
    in ``hierarchies`` places in ``(missing)``), counted as the one value they are released as."""
    rows, warnings = [], []
    for column in frame.columns:
        h = (hierarchies or {}).get(column)
        merged, read = read_missing(frame[column], h)
        missing, counts = sum(read.values()), merged.value_counts()
        role = roles.get(column, "insensitive")
        rare = int((counts < k).sum())
        rows.append({"column": column, "role": role, "distinct values": int(counts.size),
                     "missing values": missing, f"values seen < {k} times": rare})
        if role == "identifying":
            warnings.append(f"{column!r} is identifying: it is dropped from every release")
        elif role == "quasi" and rare:
            warnings.append(f"{column!r}: {rare} value(s) occur fewer than {k} times; they will need "
                            "generalization or suppression")
        elif role in ("insensitive", "sensitive") and counts.size == len(frame) and len(frame) > 1:
            warnings.append(f"{column!r} is unique for every record but is not marked identifying: it would "
                            "identify patients if released")
    return pd.DataFrame(rows), warnings
