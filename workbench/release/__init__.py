"""Release: the single output type of both engines, a frozen record of a de-identified table.

A Release holds, per quasi-identifier cell, the released label, the generalization height and a
column-wide code for the released value; the suppressed-row mask; the transformation (lattice) or the
clustering (local engine); and the guarantee. Its verification is ``workbench.release.verify`` (re-verified from the
released table itself, never from the engine's bookkeeping), its export ``workbench.release.export``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from measures import ColumnDomain, Generalized, GeneralizedColumn
from workbench.data import Dataset, EncodedColumn
from workbench.errors import ConfigError
from workbench.grouping import group_rows
from workbench.lattice.space import Node
from workbench.local.lub import LocalColumn, LocalResult
from workbench.privacy.base import Admissibility, limit_of
from workbench.release.labels import label_column, marked_labels
from workbench.release.verify import Guarantee, verify_release


def column_shares(col: EncodedColumn) -> dict[str, object]:
    """The domain shares of a column's code space (``EncodedColumn.code_space`` order), as GeneralizedColumn
    keywords."""
    if col.shares is None:
        return {}
    return {"share": np.concatenate(col.shares), "share_domain": col.share_domain}


def generalized_column(col: EncodedColumn, codes: np.ndarray, heights: np.ndarray) -> GeneralizedColumn:
    """One column of the cell view the measures read: the records' original codes, their released ``codes`` in
    the column-wide code space and the ``heights`` of their cells."""
    return GeneralizedColumn(col.name, col.codes, codes, heights, col.height, col.code_space[1],
                             **column_shares(col))


@dataclass(frozen=True, eq=False)
class Release:
    """A de-identified table and how it was made."""

    dataset: Dataset
    labels: pd.DataFrame  # released label per quasi-identifier cell (suppressed rows keep theirs here)
    heights: np.ndarray  # (n, r) generalization height of each cell
    codes: np.ndarray  # (n, r) column-wide code of each released value
    suppressed: np.ndarray  # (n,) bool
    k: int
    max_suppression: float
    engine: str
    algorithm: str
    transformation: dict[str, int] | None = None
    clusters: np.ndarray | None = None  # local engine's disjoint clusters per record (None: no partition)
    guarantee_kind: str = "k-anonymity"
    provenance: dict[str, object] = field(default_factory=dict)
    view_columns: tuple[GeneralizedColumn, ...] | None = None  # local releases: cells measured as released
    label_checks: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] | None = None
    admissibility: Admissibility | None = None  # the privacy models, re-verified by ``verify``

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_node(cls, dataset: Dataset, node: Node, k: int, max_suppression: float,
                  algorithm: str = "exhaustive", admissibility: Admissibility | None = None) -> Release:
        """Full-domain generalization of every quasi-identifier to ``node``, with the records of classes
        smaller than k suppressed (El Emam 2009), and those of classes that violate a privacy model of
        ``admissibility`` (ARX)."""
        columns = dataset.encoded
        labels, level_codes = {}, []
        codes_arr = np.empty((dataset.n, len(columns)), dtype=np.int64)
        for j, (col, v) in enumerate(zip(columns, node, strict=True)):
            level_code = col.level_codes[:, v][col.codes]  # one take per column, no per-cell Python
            labels[col.name] = label_column(level_code, col.labels[v])
            np.add(level_code, col.code_space[0][v], out=codes_arr[:, j])
            level_codes.append(level_code)
        rule = admissibility if admissibility is not None else Admissibility(k, max_suppression, dataset.n)
        level_arr = np.stack(level_codes, axis=1) if level_codes else np.zeros((dataset.n, 0), dtype=np.int64)
        suppressed = rule.suppressed_records(level_arr, [c.cardinality(v) for c, v in zip(columns, node, strict=True)],
                                             node)
        del level_arr, level_codes
        heights = np.broadcast_to(np.asarray(node, dtype=np.int64), (dataset.n, len(columns)))
        return cls(
            dataset=dataset,
            labels=pd.DataFrame(labels, index=dataset.frame.index),
            heights=heights,  # a read-only broadcast view: every cell of column j has height node[j]
            codes=codes_arr,
            suppressed=suppressed,
            k=k,
            max_suppression=max_suppression,
            engine="lattice",
            algorithm=algorithm,
            transformation={c.name: int(v) for c, v in zip(columns, node, strict=True)},
            admissibility=rule,
        )

    @classmethod
    def from_local(cls, dataset: Dataset, columns: Sequence[LocalColumn], result: LocalResult, k: int,
                   admissibility: Admissibility | None = None) -> Release:
        """A local-recoding release (Katirai 2006): record i released as ``result.released[i]``, per cell its
        own label and height; the cluster of each record; the guarantee the algorithm gives (k-anonymity for
        disjoint clusters, k-ambiguity for overlapping Greedy). No record is suppressed: suppression is
        generalization to the top, cell by cell. ``admissibility`` holds the privacy models the release must
        satisfy besides k: ``verify`` re-checks each of them on the released table, as for the lattice engine."""
        labels, heights, codes, view_columns, checks = {}, [], [], [], {}
        for j, col in enumerate(columns):
            poset, states = col.poset, result.released[:, j]
            values = dataset.frame[col.name].to_numpy(dtype=str)
            _, original = np.unique(values, return_inverse=True)
            labels[col.name] = poset.label(states)
            checks[col.name] = poset.label_covers
            cells = poset.describe(states)  # the poset's own account of the column, in its own units
            # covers is over the poset's data values; the view's original codes follow np.unique's order
            covers = cells.covers[:, _value_order(poset.values, values)]
            heights.append(cells.height)
            codes.append(cells.codes)
            view_columns.append(GeneralizedColumn(col.name, original.reshape(-1), cells.codes, cells.height,
                                                  cells.max_height, cells.leaf_count, covers, cells.share,
                                                  cells.share_domain))
        return cls(
            dataset=dataset, labels=pd.DataFrame(labels, index=dataset.frame.index),
            heights=np.stack(heights, axis=1), codes=np.stack(codes, axis=1),
            suppressed=np.zeros(dataset.n, dtype=bool), k=k, max_suppression=0.0, engine="local",
            algorithm=result.algorithm, guarantee_kind=result.guarantee,
            clusters=result.cluster if (result.cluster >= 0).all() else None,  # overlapping Greedy: -1, groups overlap
            view_columns=tuple(view_columns), label_checks=checks, admissibility=admissibility,
        )

    # ------------------------------------------------------------------ views
    @property
    def n(self) -> int:
        return self.dataset.n

    @property
    def limit(self) -> int:
        return limit_of(self.max_suppression, self.n)

    @property
    def quasi_identifiers(self) -> list[str]:
        return self.dataset.quasi_identifiers

    def view(self) -> Generalized:
        """The cell-level view that measures consume."""
        if self.view_columns is not None:
            return Generalized(self.view_columns, self.suppressed, self.k)
        return Generalized(tuple(generalized_column(col, self.codes[:, j], self.heights[:, j])
                                 for j, col in enumerate(self.dataset.encoded)), self.suppressed, self.k)

    def domains(self) -> tuple[ColumnDomain, ...]:
        return tuple(c.column_domain() for c in self.dataset.encoded)

    @property
    def classes(self) -> int:
        """The release's class count, the one every front end shows as ``classes``: the equivalence classes
        (distinct released quasi-identifier rows) of the released records that are not suppressed. The suppressed
        records are counted apart (``suppressed``); the risk's ``groups`` add them as one group of ``*``
        (``workbench.risk.risk_of_release``)."""
        kept = self.codes[~self.suppressed]
        if not kept.shape[0]:
            return 0
        return group_rows(kept).size if kept.shape[1] else 1

    def cluster_sizes(self) -> pd.DataFrame | None:
        """Local releases: how many clusters have each size (size, clusters, records); None for the lattice
        engine, whose groups are its equivalence classes, and for overlapping Greedy, whose groups overlap
        (the release is k-ambiguous, not a partition into clusters)."""
        if self.clusters is None:
            return None
        per_cluster = np.bincount(self.clusters)
        sizes, clusters = np.unique(per_cluster[per_cluster > 0], return_counts=True)
        return pd.DataFrame({"size": sizes, "clusters": clusters, "records": sizes * clusters})

    def smallest_class(self) -> int:
        """Size of the smallest equivalence class (identical released rows) among the kept records."""
        kept = self.codes[~self.suppressed]
        if not kept.size:
            return 0
        return int(group_rows(kept).counts.min())

    def table(self, suppressed: str = "mark", categorical: bool = False) -> pd.DataFrame:
        """The release as a reader sees it: input column order, identifying columns dropped, released
        labels in quasi-identifier cells, suppressed records marked ``*`` (``"mark"``) or left out
        (``"drop"``). With ``categorical`` the quasi-identifiers are pandas Categoricals (a small code per cell
        into the distinct labels: what export and verification read); else cells of text."""
        if suppressed not in ("mark", "drop"):
            raise ConfigError(f"release.suppressed must be 'mark' or 'drop', got {suppressed!r}")
        keep = [c for c in self.dataset.frame.columns if self.dataset.roles.get(c) != "identifying"]
        out = self.dataset.frame[keep].copy()
        for qi in self.quasi_identifiers:
            column = marked_labels(self.labels[qi], self.suppressed)
            if not categorical and isinstance(column.dtype, pd.CategoricalDtype):  # text cells, from the labels
                column = column.astype(str)
            out[qi] = column
        return out[~self.suppressed] if suppressed == "drop" else out

    # ------------------------------------------------------------------ verification and export
    def verify(self, table: pd.DataFrame | None = None, suppressed_policy: str = "mark") -> Guarantee:
        """Re-verify the guarantee from the released table (default: ``self.table()``;
        ``workbench.release.verify.verify_release``)."""
        return verify_release(self, table, suppressed_policy)

    def write(self, out_dir: str | Path, *, seed: int, config: dict[str, object] | None = None,
              measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
              name: str = "release.csv", force: bool = False, escape_formulas: bool = True) -> dict[str, Path]:
        """Write the shuffled, re-verified release and ``provenance.json`` as the folder ``out_dir``, all or
        nothing (``workbench.release.export.write_release``)."""
        from workbench.release import export  # on first write: a run that only prints does not load it

        return export.write_release(self, out_dir, seed=seed, config=config, measures=measures,
                                    suppressed_policy=suppressed_policy, name=name, force=force,
                                    escape_formulas=escape_formulas)

    def export_bytes(self, *, seed: int, fmt: str = "csv", config: dict[str, object] | None = None,
                     measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
                     escape_formulas: bool = True) -> dict[str, bytes]:
        """The release file, ``provenance.json`` and the value mappings as bytes
        (``workbench.release.export.export_bytes``)."""
        from workbench.release import export

        return export.export_bytes(self, seed=seed, fmt=fmt, config=config, measures=measures,
                                   suppressed_policy=suppressed_policy, escape_formulas=escape_formulas)

    def value_mappings(self) -> pd.DataFrame:
        """Per quasi-identifier, every (original, released) pair with its records (``workbench.release.export``)."""
        from workbench.release import export

        return export.value_mappings(self)

    def provenance_record(self, *, seed: int, config: dict[str, object] | None,
                          measures: dict[str, float] | None, guarantee: Guarantee,
                          suppressed_policy: str) -> dict[str, object]:
        """The provenance record (``workbench.release.export.provenance_record``)."""
        from workbench.release import export

        return export.provenance_record(self, seed=seed, config=config, measures=measures, guarantee=guarantee,
                                        suppressed_policy=suppressed_policy)


def _value_order(poset_values: Sequence[str], data_values: np.ndarray) -> np.ndarray:
    """Index, among the poset's values, of each distinct data value (sorted, as np.unique returns them)."""
    where = {v: i for i, v in enumerate(poset_values)}
    return np.array([where[v] for v in np.unique(data_values)], dtype=np.int64)
