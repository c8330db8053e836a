"""Generalization hierarchies (value generalization hierarchies, DGH) in the ARX file format.

An ARX hierarchy file is ``;``-separated, has no header and holds one row per original value:
``value;level-1 label;...;root``. Level 0 is the original value, level ``H`` (the last column) the most
general one (Samarati 2001; El Emam 2009, Fig. 1). Labels are scoped by level: the same text at two
levels names two different generalized values.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import HierarchyError

_MAX_LISTED = 5


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    return shown + (f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


@dataclass(frozen=True)
class ValidationReport:
    """Every problem of a hierarchy at once; ``errors`` make it unusable, ``warnings`` do not."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class IntervalShares:
    """ARX's ``DomainShareInterval`` for an interval hierarchy made by the ``intervals`` builder: every label's
    width on the value axis (``widths[level][label]``) and the width ``domain`` of the whole domain; a label's
    domain share is ``width / domain`` (the root's width is ``domain``, a level-0 value's width 1)."""

    domain: int
    widths: tuple[dict[str, int], ...]


@dataclass(frozen=True)
class Hierarchy:
    """A tree hierarchy: ``rows[i]`` is the path from original value ``rows[i][0]`` to the root.

    ``lines`` keeps the 1-based source line of each row for messages (``None`` when built in code).
    ``interval_shares`` is set by the ``intervals`` builder (integer bands): loss then uses interval widths,
    as ARX does for hierarchies built by its interval builder; it is not written to ARX files.
    """

    name: str
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...] | None = field(default=None, compare=False)
    blank_lines: tuple[int, ...] = field(default=(), compare=False)
    interval_shares: IntervalShares | None = field(default=None, compare=False)

    # ------------------------------------------------------------------ construction and io
    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[object]], name: str = "hierarchy") -> Hierarchy:
        """Build from rows of labels (leaf first, root last); values are turned into text."""
        return cls(name=name, rows=tuple(tuple(str(c) for c in row) for row in rows))

    @classmethod
    def from_mapping(cls, levels: dict[str, Sequence[object]], name: str = "hierarchy") -> Hierarchy:
        """Build from ``{original value: [level-1 label, ..., root]}``."""
        return cls.from_rows(([value, *path] for value, path in levels.items()), name=name)

    @classmethod
    def read_arx(cls, path: str | Path, separator: str = ";", name: str | None = None) -> Hierarchy:
        """Read an ARX hierarchy file. Raises HierarchyError naming the file when it cannot be read."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise HierarchyError(f"hierarchy file not found: {p}") from None
        except OSError as exc:
            raise HierarchyError(f"cannot read hierarchy file {p}: {exc.strerror or exc}") from None
        if b"\x00" in raw:
            raise HierarchyError(f"hierarchy file {p} is not a text file (it contains NUL bytes)")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise HierarchyError(
                f"hierarchy file {p} is not UTF-8 text (byte {exc.start} cannot be decoded)"
            ) from None
        return cls.parse_arx(text, separator=separator, name=name or p.name)

    @classmethod
    def parse_arx(cls, text: str, separator: str = ";", name: str = "hierarchy") -> Hierarchy:
        """Parse ARX hierarchy text. Blank lines inside the file are kept as problems for validate()."""
        rows: list[tuple[str, ...]] = []
        lines: list[int] = []
        blanks: list[int] = []
        physical = text.splitlines()
        last = len(physical)
        while last > 0 and not physical[last - 1].strip():
            last -= 1  # trailing blank lines are not rows
        reader = csv.reader(io.StringIO("\n".join(physical[:last])), delimiter=separator)
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                blanks.append(reader.line_num)
                continue
            rows.append(tuple(row))
            lines.append(reader.line_num)
        if rows and all(len(r) > 1 and r[-1] == "" for r in rows):  # a separator ending every line, not a level
            rows = [r[:-1] for r in rows]
        return cls(name=name, rows=tuple(rows), lines=tuple(lines), blank_lines=tuple(blanks))

    def to_arx(self, separator: str = ";") -> str:
        """The hierarchy as ARX text (one row per original value, no header)."""
        out = io.StringIO()
        writer = csv.writer(out, delimiter=separator, lineterminator="\n")
        writer.writerows(self.rows)
        return out.getvalue()

    # ------------------------------------------------------------------ structure
    @property
    def height(self) -> int:
        """Number of generalization steps ``H`` (levels 0..H)."""
        return len(self.rows[0]) - 1 if self.rows else 0

    @property
    def values(self) -> list[str]:
        """The original values (level 0), in file order."""
        return [r[0] for r in self.rows]

    def level_labels(self, level: int) -> list[str]:
        """Distinct labels at ``level`` in order of first appearance."""
        return list(dict.fromkeys(r[level] for r in self.rows))

    def _where(self, i: int) -> str:
        return f"line {self.lines[i]}" if self.lines else f"row {i + 1}"

    def validate(self, data_values: Iterable[str] | None = None) -> ValidationReport:
        """Report every structural problem at once (El Emam 2009 requires user-defined hierarchies, so
        users need to see all their mistakes). ``data_values``: values the hierarchy must cover."""
        errors: list[str] = []
        warnings: list[str] = []
        where = f"hierarchy {self.name!r}"
        if not self.rows:
            return ValidationReport((f"{where} is empty: it has no rows",))
        for b in self.blank_lines:
            errors.append(f"{where}: line {b} is empty")
        widths: dict[int, list[str]] = {}
        for i, r in enumerate(self.rows):
            widths.setdefault(len(r), []).append(self._where(i))
        if len(widths) > 1:
            common = max(widths, key=lambda w: len(widths[w]))
            for w, places in sorted(widths.items()):
                if w != common:
                    errors.append(
                        f"{where}: rows have unequal length: {_listing(places)} "
                        f"{'has' if len(places) == 1 else 'have'} {w} columns, most rows have {common}"
                    )
            return ValidationReport(tuple(errors), tuple(warnings))
        seen: dict[str, int] = {}
        for i, r in enumerate(self.rows):
            if r[0] in seen:
                errors.append(
                    f"{where}: value {r[0]!r} has more than one row ({self._where(seen[r[0]])} "
                    f"and {self._where(i)})"
                )
            else:
                seen[r[0]] = i
        for level in range(self.height):
            parent: dict[str, tuple[str, int]] = {}
            reported: set[str] = set()
            for i, r in enumerate(self.rows):
                label, up = r[level], r[level + 1]
                if label not in parent:
                    parent[label] = (up, i)
                elif parent[label][0] != up and label not in reported:
                    first_up, first_i = parent[label]
                    errors.append(
                        f"{where}: level {level} value {label!r} has two parents at level {level + 1}: "
                        f"{first_up!r} ({self._where(first_i)}) and {up!r} ({self._where(i)})"
                    )
                    reported.add(label)
        if self.height == 0 and any(sep in r[0] for r in self.rows for sep in (",", "\t")):
            warnings.append(f"{where} has a single column whose values contain commas or tabs: ARX hierarchy "
                            "files are ';'-separated")
        roots = self.level_labels(self.height)
        if self.height > 0 and len(roots) > 1:
            warnings.append(f"{where} has {len(roots)} roots ({_listing(roots)}); a single root is usual")
        if data_values is not None:  # the token (missing) in the data is the missing value "" (hierarchy.missing)
            from workbench.hierarchy.missing import missing_texts

            texts = missing_texts(self)
            placed = texts if texts & set(seen) else set()  # every missing text takes the missing value's row
            missing = sorted(set(data_values) - set(seen) - placed)
            if missing:
                errors.append(
                    f"{where} has no row for {len(missing)} data value(s): "
                    f"{_listing([repr(m) for m in missing])}"
                )
        return ValidationReport(tuple(errors), tuple(warnings))

    def check(self, data_values: Iterable[str] | None = None) -> ValidationReport:
        """Validate and raise HierarchyError listing every error; returns the report (warnings)."""
        report = self.validate(data_values)
        if not report.ok:
            raise HierarchyError("; ".join(report.errors), list(report.errors))
        return report

    def level_table(self) -> pd.DataFrame:
        """The hierarchy as a table, one row per original value, one column per level (``level 0`` is the
        value itself, the last column the root): ARX's level view. Rows of a malformed file that are shorter
        than the longest are padded with empty cells (``validate`` reports them)."""
        width = max((len(r) for r in self.rows), default=1)
        rows = [list(r) + [""] * (width - len(r)) for r in self.rows]
        return pd.DataFrame(rows, columns=[f"level {i}" for i in range(width)])

    def generalized_counts(self, data_values: Iterable[str], level: int) -> pd.DataFrame:
        """What ``level`` makes of the data: per generalized label, its records and how many distinct
        original values it merges (values without a hierarchy row are left out; ``validate`` reports them)."""
        if not 0 <= level <= self.height:
            raise HierarchyError(f"hierarchy {self.name!r}: level {level} is outside 0..{self.height}")
        path = {r[0]: r[level] for r in self.rows}
        counts = pd.Series(list(data_values), dtype=str).value_counts()
        covered = counts[counts.index.isin(list(path))]
        frame = pd.DataFrame({"value": covered.index, "records": covered.to_numpy(),
                              "label": [path[v] for v in covered.index]})
        out = frame.groupby("label", sort=False).agg(records=("records", "sum"), values=("value", "size"))
        return out.sort_values("records", ascending=False).reset_index().rename(
            columns={"label": f"level {level} value", "values": "original values"})

    def tree_layout(self, data_values: Iterable[str] | None = None,
                    max_leaves: int = 60) -> tuple[pd.DataFrame, pd.DataFrame, int]:
        """The hierarchy as a drawable tree, cut from below to at most ``max_leaves`` nodes at its lowest drawn
        level (thousands of original values are no picture): returns ``nodes`` (level, label, y, records:
        the data's records under it, original values: how many it merges), ``edges`` (child to parent: x, y,
        x2, y2) and the lowest level drawn. Nodes are keyed by (level, label), as labels are scoped by level;
        children of one parent sit next to each other, and a parent is centred on its children."""
        self.check()  # a ragged or non-tree hierarchy has no tree to draw: HierarchyError lists its problems
        rows, height = list(self.rows), self.height
        lowest = next(lv for lv in range(height + 1) if len({r[lv] for r in rows}) <= max_leaves or lv == height)
        counts = pd.Series(list(data_values), dtype=str).value_counts() if data_values is not None else None
        records: dict[tuple[int, str], int] = {}
        merged: dict[tuple[int, str], int] = {}
        order: list[tuple[str, ...]] = []  # one path (lowest drawn level .. root) per drawn leaf
        seen: set[str] = set()
        for row in rows:
            for lv in range(lowest, height + 1):
                records[(lv, row[lv])] = records.get((lv, row[lv]), 0) + (int(counts.get(row[0], 0))
                                                                           if counts is not None else 0)
                merged[(lv, row[lv])] = merged.get((lv, row[lv]), 0) + 1
            if row[lowest] not in seen:
                seen.add(row[lowest])
                order.append(row[lowest:])
        # group children under their parents: sort the paths root-first, keeping first-use order at each level
        rank: dict[tuple[int, str], int] = {}
        for path in order:
            for i, label in enumerate(path):
                rank.setdefault((lowest + i, label), len(rank))
        order.sort(key=lambda path: [rank[(lowest + i, label)] for i, label in reversed(list(enumerate(path)))])
        y: dict[tuple[int, str], float] = {(lowest, path[0]): float(i) for i, path in enumerate(order)}
        parent: dict[tuple[int, str], tuple[int, str]] = {}
        for path in order:
            for i in range(len(path) - 1):
                parent[(lowest + i, path[i])] = (lowest + i + 1, path[i + 1])
        for lv in range(lowest + 1, height + 1):
            children: dict[tuple[int, str], list[float]] = {}
            for child, up in parent.items():
                if child[0] == lv - 1:
                    children.setdefault(up, []).append(y[child])
            for node, ys in children.items():
                y[node] = (min(ys) + max(ys)) / 2
        keys = sorted(y, key=lambda key: (key[0], y[key]))
        nodes = pd.DataFrame({"level": [lv for lv, _ in keys], "label": [label for _, label in keys],
                              "y": [y[key] for key in keys], "records": [records[key] for key in keys],
                              "original values": [merged[key] for key in keys]})
        links = list(parent.items())
        edges = pd.DataFrame({"x": [c[0] for c, _ in links], "y": [y[c] for c, _ in links],
                              "x2": [u[0] for _, u in links], "y2": [y[u] for _, u in links]})
        return nodes, edges, lowest

    def domain_shares(self, labels: Sequence[Sequence[str]]) -> tuple[tuple[np.ndarray, ...], int]:
        """ARX's domain shares of the given labels (``labels[level]``, e.g. from ``level_matrix``) as integer
        numerators per level over a common denominator D: share(g) = numerator / D.

        Interval hierarchies from the ``intervals`` builder: widths over the domain's width (ARX
        ``DomainShareInterval``). Every other hierarchy: the hierarchy's rows whose level-l label is g over its
        row count (ARX ``DomainShareMaterialized``, which counts rows, not the values present in the data)."""
        if self.interval_shares is not None:
            w = self.interval_shares.widths
            return (tuple(np.array([w[lv][g] for g in labs], dtype=np.int64) for lv, labs in enumerate(labels)),
                    self.interval_shares.domain)
        out = []
        for level, labs in enumerate(labels):
            rows_under: dict[str, int] = {}
            for r in self.rows:
                rows_under[r[level]] = rows_under.get(r[level], 0) + 1
            out.append(np.array([rows_under[g] for g in labs], dtype=np.int64))
        return tuple(out), len(self.rows)

    def level_matrix(self, values: Sequence[str]) -> tuple[np.ndarray, list[list[str]]]:
        """For the given original values (assumed covered): ``codes[i, l]`` = index of value i's level-l
        ancestor among ``labels[l]``, the distinct level-l labels of these values in first-use order."""
        index = {r[0]: r for r in self.rows}
        H = self.height
        codes = np.empty((len(values), H + 1), dtype=np.int64)
        labels: list[list[str]] = []
        for level in range(H + 1):
            lookup: dict[str, int] = {}
            for i, v in enumerate(values):
                label = index[v][level]
                codes[i, level] = lookup.setdefault(label, len(lookup))
            labels.append(list(lookup))
        return codes, labels
