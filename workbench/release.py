"""Release: the single output type of both engines, its verification and its export.

A Release holds, per quasi-identifier cell, the released label, the generalization height and a
column-wide code for the released value; the suppressed-row mask; the transformation (lattice) or the
clustering (local engine); and the guarantee. Before anything is written the guarantee is re-verified from
the released table itself (the labels a reader will see), never from the engine's bookkeeping.
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from measures import ColumnDomain, Generalized, GeneralizedColumn
from workbench.data import Dataset, EncodedColumn
from workbench.errors import ConfigError, VerificationError
from workbench.grouping import class_sizes, group_rows
from workbench.guarantees import guarantee_text
from workbench.lattice.space import Node
from workbench.local.lub import LocalColumn, LocalResult
from workbench.output import FORMULA_RULE, MISSING_TOKEN, check_folder, mark_missing, write_folder
from workbench.output import escape_formulas as escape_formula_cells
from workbench.privacy.base import Admissibility, ClassView, limit_of

SUPPRESSED = "*"  # ARX's mark for a suppressed record's quasi-identifiers
EXPORT_SUFFIXES = (".csv", ".parquet", ".xlsx")


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

    def as_dict(self) -> dict[str, object]:
        """The provenance record: the guarantee named, with what it means and whether it is k-anonymity."""
        text = guarantee_text(self.kind)
        return {"kind": self.kind, "k": self.k, "suppressed": self.suppressed, "limit": self.limit,
                "holds": self.holds, "verified_from": self.verified_from, "k_anonymous": text.k_anonymous,
                "meaning": text.meaning} | ({"privacy_models": dict(self.models)} if self.models else {})


def _column_code_space(col: EncodedColumn) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of each level in a column-wide code space, and the leaf-set size of every code."""
    sizes = [col.cardinality(lv) for lv in range(col.height + 1)]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    leaf_count = np.concatenate([np.bincount(col.level_codes[:, lv], minlength=sizes[lv])
                                 for lv in range(col.height + 1)])
    return offsets, leaf_count


def column_shares(col: EncodedColumn) -> dict[str, object]:
    """The domain shares of a column's code space (``_column_code_space`` order), as GeneralizedColumn keywords."""
    if col.shares is None:
        return {}
    return {"share": np.concatenate(col.shares), "share_domain": col.share_domain}


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
        labels, heights, codes = {}, [], []
        for col, v in zip(columns, node, strict=True):
            level_code = col.level_codes[col.codes, v]
            offsets, _ = _column_code_space(col)
            labels[col.name] = np.asarray(col.labels[v], dtype=object)[level_code]
            heights.append(np.full(dataset.n, v, dtype=np.int64))
            codes.append(offsets[v] + level_code)
        codes_arr = np.stack(codes, axis=1) if codes else np.zeros((dataset.n, 0), dtype=np.int64)
        rule = admissibility if admissibility is not None and admissibility.models else None
        if rule is None:
            suppressed = class_sizes(codes_arr) < k
        else:
            groups = group_rows(codes_arr, with_inverse=True)
            assert groups.inverse is not None
            view = ClassView.from_records(groups.inverse, groups.size, rule.extras)
            suppressed = rule.outcome(view).suppress[groups.inverse]
        return cls(
            dataset=dataset,
            labels=pd.DataFrame(labels, index=dataset.frame.index),
            heights=np.stack(heights, axis=1) if heights else np.zeros((dataset.n, 0), dtype=np.int64),
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
    def from_local(cls, dataset: Dataset, columns: Sequence[LocalColumn], result: LocalResult, k: int) -> Release:
        """A local-recoding release (Katirai 2006): record i released as ``result.released[i]``, per cell its
        own label and height; the cluster of each record; the guarantee the algorithm gives (k-anonymity for
        disjoint clusters, k-ambiguity for overlapping Greedy). No record is suppressed: suppression is
        generalization to the top, cell by cell."""
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
            view_columns=tuple(view_columns), label_checks=checks,
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
        cols = []
        for j, col in enumerate(self.dataset.encoded):
            _, leaf_count = _column_code_space(col)
            cols.append(GeneralizedColumn(col.name, col.codes, self.codes[:, j], self.heights[:, j],
                                          col.height, leaf_count, **column_shares(col)))
        return Generalized(tuple(cols), self.suppressed, self.k)

    def domains(self) -> tuple[ColumnDomain, ...]:
        return tuple(c.column_domain() for c in self.dataset.encoded)

    @property
    def classes(self) -> int:
        """Number of equivalence classes among the released (not suppressed) records."""
        kept = self.codes[~self.suppressed]
        return group_rows(kept).size if kept.size else 0

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

    def table(self, suppressed: str = "mark") -> pd.DataFrame:
        """The release as a reader sees it: input column order, identifying columns dropped, released
        labels in quasi-identifier cells, suppressed records marked ``*`` (``"mark"``) or left out
        (``"drop"``)."""
        if suppressed not in ("mark", "drop"):
            raise ConfigError(f"release.suppressed must be 'mark' or 'drop', got {suppressed!r}")
        keep = [c for c in self.dataset.frame.columns if self.dataset.roles.get(c) != "identifying"]
        out = self.dataset.frame[keep].copy()
        for qi in self.quasi_identifiers:
            out[qi] = np.where(self.suppressed, SUPPRESSED, self.labels[qi].to_numpy(dtype=object))
        return out[~self.suppressed] if suppressed == "drop" else out

    # ------------------------------------------------------------------ verification
    def verify(self, table: pd.DataFrame | None = None, suppressed_policy: str = "mark") -> Guarantee:
        """Re-verify the guarantee from the released table (default: ``self.table()``).

        Checks: each released label generalizes its record's original value (it lies on the value's path
        in the hierarchy); suppressed records carry ``*`` in every quasi-identifier (or are absent when
        dropped); every group of identical released quasi-identifier rows among the other records has
        at least k members; the suppressed count is within the limit.
        """
        table = self.table(suppressed_policy) if table is None else table
        qis = self.quasi_identifiers
        if suppressed_policy == "drop":
            kept_idx = table.index
            n_suppressed = self.n - len(table)
        else:
            marked = (table[qis] == SUPPRESSED).all(axis=1).to_numpy() if qis else np.zeros(len(table), bool)
            expected = pd.Series(self.suppressed, index=self.dataset.frame.index).loc[table.index].to_numpy()
            if np.any(expected & ~marked):
                raise VerificationError("a suppressed record is not marked '*' in every quasi-identifier")
            kept_idx = table.index[~expected]
            n_suppressed = int(expected.sum())
        kept = table.loc[kept_idx, qis]
        originals = {qi: self.dataset.frame.loc[kept_idx, qi].to_numpy(dtype=str) for qi in qis}
        for qi in qis:
            pairs = pd.DataFrame({"o": originals[qi], "r": kept[qi].to_numpy(dtype=object)}).drop_duplicates()
            ok = self._generalizes(qi, pairs["o"].to_numpy(dtype=str), pairs["r"].to_numpy(dtype=object))
            if not ok.all():
                o, r = pairs.iloc[int(np.flatnonzero(~ok)[0])]
                raise VerificationError(f"column {qi!r}: released value {r!r} does not generalize {o!r}")
        if self.guarantee_kind == "k-ambiguity":
            smallest = self._smallest_coverage(kept) if len(kept) else self.k
        else:
            sizes = kept.value_counts(dropna=False).to_numpy() if qis and len(kept) else np.zeros(0, int)
            smallest = int(sizes.min()) if sizes.size else self.k
        models = self._verify_models(kept) if self.admissibility is not None else {}
        holds = smallest >= self.k and n_suppressed <= self.limit and all(models.values())
        return Guarantee(self.guarantee_kind, self.k, n_suppressed, self.limit, holds, models=models)

    def _verify_models(self, kept: pd.DataFrame) -> dict[str, bool]:
        """Every privacy model, re-checked on the kept records' classes of identical released quasi-identifier
        rows: no class violates a class-level model, and the release-level ones hold on the kept classes."""
        assert self.admissibility is not None
        qis = self.quasi_identifiers
        positions = self.dataset.frame.index.get_indexer(kept.index)
        if len(kept) and qis:
            codes = np.stack([pd.factorize(kept[q].astype(str))[0] for q in qis], axis=1)
            groups = group_rows(codes, with_inverse=True)
            assert groups.inverse is not None
            index, classes = groups.inverse, groups.size
        else:
            index, classes = np.zeros(len(kept), dtype=np.int64), 1 if len(kept) else 0
        extras = [replace(e, codes=e.codes[positions]) for e in self.admissibility.extras]
        view = ClassView.from_records(index, classes, extras)
        out = {}
        for m in self.admissibility.models:
            if m.release_level:
                out[m.describe()] = m.fulfilled(view.sizes, self.n)
            else:
                out[m.describe()] = not bool(m.violating(view).any())
        return out

    def _generalizes(self, qi: str, originals: np.ndarray, released: np.ndarray) -> np.ndarray:
        """Does each released label lie above its original value (in the hierarchy or poset)?"""
        if self.label_checks is not None:
            return self.label_checks[qi](released, originals)
        paths = {row[0]: set(row) for row in self.dataset.hierarchies[qi].rows}
        return np.array([r in paths[o] for o, r in zip(originals, released, strict=True)], dtype=bool)

    def _smallest_coverage(self, kept: pd.DataFrame) -> int:
        """k-ambiguity (Vinterbo 2002; Katirai §1.8): the fewest original records that any released row
        generalizes, computed from the released labels and the original table. Per column, a coverage matrix
        over distinct labels × distinct original values; then an AND over columns, in blocks of rows."""
        qis = self.quasi_identifiers
        released = kept.drop_duplicates()
        originals = self.dataset.frame[qis].value_counts().reset_index()
        counts = originals["count"].to_numpy()
        rel_idx, orig_idx, cover = [], [], []
        for qi in qis:
            labels, r_idx = np.unique(released[qi].to_numpy(dtype=str), return_inverse=True)
            values, o_idx = np.unique(originals[qi].to_numpy(dtype=str), return_inverse=True)
            grid_l, grid_v = np.repeat(labels, len(values)), np.tile(values, len(labels))
            cover.append(self._generalizes(qi, grid_v, grid_l.astype(object)).reshape(len(labels), len(values)))
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
        return smallest if smallest is not None else self.k

    # ------------------------------------------------------------------ export
    def write(self, out_dir: str | Path, *, seed: int, config: dict[str, object] | None = None,
              measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
              name: str = "release.csv", force: bool = False, escape_formulas: bool = True) -> dict[str, Path]:
        """Shuffle rows with ``seed`` (Sweeney's unsorted-matching attack), re-verify, then write the
        release (CSV/Parquet/Excel by suffix) and ``provenance.json`` as the folder ``out_dir``, all or nothing
        (``workbench.output.write_folder``): a folder that holds an earlier release is replaced as a whole with
        ``force`` and refused without it. Raises VerificationError and writes nothing when the guarantee does not
        hold."""
        suffix = Path(name).suffix.lower()
        if suffix not in EXPORT_SUFFIXES:
            raise ConfigError(f"cannot export to {name}: use one of {', '.join(EXPORT_SUFFIXES)}")
        check_folder(out_dir, force=force)
        files = self.export_bytes(seed=seed, fmt=suffix[1:], config=config, measures=measures,
                                  suppressed_policy=suppressed_policy, escape_formulas=escape_formulas)
        written = write_folder(out_dir, {name: files["release"], "provenance.json": files["provenance"]}, force=force)
        return {"release": written[name], "provenance": written["provenance.json"]}

    def export_bytes(self, *, seed: int, fmt: str = "csv", config: dict[str, object] | None = None,
                     measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
                     escape_formulas: bool = True) -> dict[str, bytes]:
        """The release file (rows shuffled with ``seed``, re-verified first), ``provenance.json`` and the value
        mappings (CSV) as bytes, built in memory (nothing touches the disk); ``write`` puts the first two on
        disk. Raises VerificationError when the guarantee does not hold. A CSV release has its formula-like text
        cells neutralized (``workbench.output.escape_formulas``) unless ``escape_formulas`` is False; the
        provenance says which."""
        if f".{fmt}" not in EXPORT_SUFFIXES:
            raise ConfigError(f"cannot export as {fmt!r}: use one of {', '.join(s[1:] for s in EXPORT_SUFFIXES)}")
        table = self.table(suppressed_policy)
        order = np.random.default_rng(seed).permutation(len(table))
        shuffled = table.iloc[order]
        guarantee = self.verify(shuffled, suppressed_policy)
        if not guarantee.holds:
            raise VerificationError(f"release not written: {guarantee.describe()}")
        out, missing = mark_missing(shuffled.reset_index(drop=True))  # "(missing)", never a blank cell read as NaN
        buffer = io.BytesIO()
        escaping: dict[str, object] | None = None
        if fmt == "csv":
            written, cells = escape_formula_cells(out) if escape_formulas else (out, 0)
            escaping = {"applied": escape_formulas, "cells": cells,
                        "rule": FORMULA_RULE if escape_formulas else "off (release.escape_formulas = false)"}
            buffer.write(written.to_csv(index=False).encode("utf-8"))
        elif fmt == "parquet":
            out.to_parquet(buffer, index=False)
        else:
            _write_xlsx_as_text(out, buffer)
        prov = self.provenance_record(seed=seed, config=config, measures=measures, guarantee=guarantee,
                                      suppressed_policy=suppressed_policy)
        if escaping is not None:
            prov["csv_formula_escaping"] = escaping
        prov["missing_values"] = {"token": MISSING_TOKEN, "cells": missing}
        return {"release": buffer.getvalue(),
                "provenance": (json.dumps(prov, indent=2, default=str) + "\n").encode("utf-8"),
                "mappings": mark_missing(self.value_mappings())[0].to_csv(index=False).encode("utf-8")}

    def value_mappings(self) -> pd.DataFrame:
        """Per quasi-identifier, every (original value, released value) pair with its number of records;
        suppressed records map to ``*``. For the lattice engine each original value has one released value
        (full-domain recoding); local recoding may release one value in several ways."""
        parts = []
        for qi in self.quasi_identifiers:
            released = np.where(self.suppressed, SUPPRESSED, self.labels[qi].to_numpy(dtype=object))
            pairs = pd.DataFrame({"original": self.dataset.frame[qi].to_numpy(dtype=str),
                                  "released": released.astype(str)})
            counts = pairs.value_counts(sort=False).rename("records").reset_index()
            parts.append(counts.sort_values(["original", "released"]).assign(attribute=qi))
        columns = ["attribute", "original", "released", "records"]
        return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)

    def provenance_record(self, *, seed: int, config: dict[str, object] | None,
                          measures: dict[str, float] | None, guarantee: Guarantee,
                          suppressed_policy: str) -> dict[str, object]:
        data_hash = hashlib.sha256(
            pd.util.hash_pandas_object(self.dataset.frame, index=False).to_numpy().tobytes()
        ).hexdigest()
        return {
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "package": {"name": "k-anonymity-workbench", "version": _version()},
            "versions": {"python": platform.python_version(), "numpy": np.__version__,
                         "pandas": pd.__version__},
            "config": config or {},
            "input": {"source": self.dataset.source, "records": self.n, "content_sha256": data_hash},
            "engine": self.engine,
            "algorithm": self.algorithm,
            "transformation": self.transformation,
            "guarantee": guarantee.as_dict(),
            "suppressed_records": suppressed_policy,
            "measures": measures or {},
            "seed": seed,
            **self.provenance,
        }


def _value_order(poset_values: Sequence[str], data_values: np.ndarray) -> np.ndarray:
    """Index, among the poset's values, of each distinct data value (sorted, as np.unique returns them)."""
    where = {v: i for i, v in enumerate(poset_values)}
    return np.array([where[v] for v in np.unique(data_values)], dtype=np.int64)


def _version() -> str:
    try:
        return metadata.version("k-anonymity-workbench")
    except metadata.PackageNotFoundError:
        return "unknown"


def _write_xlsx_as_text(table: pd.DataFrame, buffer: io.BytesIO) -> None:
    """The table as an Excel sheet whose cells are all values: openpyxl stores a text starting with "=" as a
    formula, which Excel would evaluate (a released cell "=1+1" would show 2, or run something worse)."""
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        table.to_excel(writer, index=False)
        for row in writer.sheets["Sheet1"].iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    cell.data_type = "s"
