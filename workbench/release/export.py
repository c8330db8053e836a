"""Export of a Release: the shuffled, re-verified release file, ``provenance.json`` and the value mappings, as
bytes or written as one folder (``workbench.release.output``)."""

from __future__ import annotations

import hashlib
import io
import json
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.errors import ConfigError, VerificationError
from workbench.grouping import distinct_rows
from workbench.release.labels import marked_labels
from workbench.release.output import (
    FORMULA_RULE,
    MISSING_TOKEN,
    check_folder,
    mark_missing,
    table_csv,
    write_folder,
)
from workbench.release.output import escape_formulas as escape_formula_cells
from workbench.release.verify import Guarantee

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.release import Release

EXPORT_SUFFIXES = (".csv", ".parquet", ".xlsx")


def write_release(release: Release, out_dir: str | Path, *, seed: int, config: dict[str, object] | None = None,
                  measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
                  name: str = "release.csv", force: bool = False, escape_formulas: bool = True) -> dict[str, Path]:
    """Shuffle rows with ``seed`` (Sweeney's unsorted-matching attack), re-verify, then write the
    release (CSV/Parquet/Excel by suffix) and ``provenance.json`` as the folder ``out_dir``, all or nothing
    (``workbench.release.output.write_folder``): a folder that holds an earlier release is replaced as a whole with
    ``force`` and refused without it. Raises VerificationError and writes nothing when the guarantee does not
    hold."""
    suffix = Path(name).suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise ConfigError(f"cannot export to {name}: use one of {', '.join(EXPORT_SUFFIXES)}")
    check_folder(out_dir, force=force)
    files = export_bytes(release, seed=seed, fmt=suffix[1:], config=config, measures=measures,
                         suppressed_policy=suppressed_policy, escape_formulas=escape_formulas, mappings=False)
    written = write_folder(out_dir, {name: files["release"], "provenance.json": files["provenance"]}, force=force)
    return {"release": written[name], "provenance": written["provenance.json"]}


def export_bytes(release: Release, *, seed: int, fmt: str = "csv", config: dict[str, object] | None = None,
                 measures: dict[str, float] | None = None, suppressed_policy: str = "mark",
                 escape_formulas: bool = True, mappings: bool = True) -> dict[str, bytes]:
    """The release file (rows shuffled with ``seed``, re-verified first), ``provenance.json`` and (with
    ``mappings``) the value mappings (CSV) as bytes, built in memory (nothing touches the disk); ``write`` puts
    the first two on disk. Raises VerificationError when the guarantee does not hold. A CSV release and the value
    mappings (original and released values alike) have their formula-like text cells neutralized
    (``workbench.release.output.escape_formulas``) unless ``escape_formulas`` is False; the provenance says which."""
    if f".{fmt}" not in EXPORT_SUFFIXES:
        raise ConfigError(f"cannot export as {fmt!r}: use one of {', '.join(s[1:] for s in EXPORT_SUFFIXES)}")
    table = release.table(suppressed_policy, categorical=True)
    shuffled = table.iloc[row_order(table, seed)]
    guarantee = release.verify(shuffled, suppressed_policy)
    if not guarantee.holds:
        raise VerificationError(f"release not written: {guarantee.describe()}")
    out, _ = mark_missing(shuffled.reset_index(drop=True))  # "(missing)", never a blank cell read as NaN
    buffer = io.BytesIO()
    escaping: dict[str, object] | None = None
    if fmt == "csv":
        written, cells = escape_formula_cells(out) if escape_formulas else (out, 0)
        escaping = {"applied": escape_formulas, "cells": cells,
                    "rule": FORMULA_RULE if escape_formulas else "off (release.escape_formulas = false)"}
        buffer.write(table_csv(written, escape=False))  # escaped above, where the cells are counted
    elif fmt == "parquet":
        _write_parquet_as_text(out, buffer)
    else:
        _write_xlsx_as_text(out, buffer)
    prov = provenance_record(release, seed=seed, config=config, measures=measures, guarantee=guarantee,
                                  suppressed_policy=suppressed_policy)
    if escaping is not None:
        prov["csv_formula_escaping"] = escaping
    prov["missing_values"] = missing_record(release, out)
    files = {"release": buffer.getvalue(),
             "provenance": (json.dumps(prov, indent=2, default=str) + "\n").encode("utf-8")}
    if mappings:
        files["mappings"] = table_csv(mark_missing(value_mappings(release))[0], escape=escape_formulas)
    return files


def missing_record(release: Release, written: pd.DataFrame) -> dict[str, object]:
    """The provenance's ``missing_values``: the token a missing value is written as, how many cells of the file
    read it (``cells``), and per column of the file that has any: the input's missing cells (``input``), each text
    read as missing with its count (``read_as_missing``: ``""`` for an empty cell, tokens such as ``NA`` its
    hierarchy places in ``(missing)``; ``workbench.hierarchy.missing``) and the file's cells that read the token
    (``written``: fewer than ``input`` where a missing value was generalized with others or suppressed)."""
    columns: dict[str, dict[str, object]] = {}
    total = 0
    for column in written.columns:
        read = {text: int(n) for text, n in release.dataset.missing.get(column, {}).items()}
        cells = int((written[column].astype(object) == MISSING_TOKEN).sum())
        total += cells
        if read or cells:
            columns[str(column)] = {"input": sum(read.values()), "read_as_missing": read, "written": cells}
    return {"token": MISSING_TOKEN, "cells": total, "columns": columns}


def row_order(table: pd.DataFrame, seed: int) -> np.ndarray:
    """The order the rows of a release table are written in: a permutation drawn from ``seed`` and a digest of
    the table's content in input order (every column). Sweeney (2002)'s unsorted-matching attack joins two
    releases of one table by row position; a permutation drawn from the seed alone would put every record on the
    same row of both files whenever they share a seed (the default), so the content is mixed in: two different
    releases are shuffled independently, while the same release with the same seed is written the same way."""
    digest = hashlib.sha256(";".join(map(str, table.columns)).encode("utf-8"))
    digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
    mixed = int.from_bytes(digest.digest()[:16], "little")
    return np.random.default_rng([seed, mixed]).permutation(len(table))


def value_mappings(release: Release) -> pd.DataFrame:
    """Per quasi-identifier, every (original value, released value) pair with its number of records;
    suppressed records map to ``*``. For the lattice engine each original value has one released value
    (full-domain recoding); local recoding may release one value in several ways."""
    from workbench.release.verify import text_codes

    parts = []
    for qi in release.quasi_identifiers:
        o_codes, o_texts = text_codes(release.dataset.frame[qi])
        r_codes, r_texts = text_codes(marked_labels(release.labels[qi], release.suppressed))
        pairs, counts = distinct_rows(np.stack([o_codes, r_codes], axis=1), [len(o_texts), len(r_texts)])
        rows = pd.DataFrame({"original": o_texts[pairs[:, 0]], "released": r_texts[pairs[:, 1]], "records": counts})
        parts.append(rows.sort_values(["original", "released"]).assign(attribute=qi))
    columns = ["attribute", "original", "released", "records"]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


UPLOADED_BYTES, DATA_FILE = "the uploaded bytes", "the data file"  # what an input's file_sha256 is the digest of


def input_record(dataset: Dataset) -> dict[str, object]:
    """The input as the provenance and the report name it (the one place both read): ``source``, the dataset's
    name (a data file's path as the config gave it; an upload's base name, never a path a client sent), and, when
    the table was read from bytes, ``file_sha256``, their SHA-256 (``Dataset.input_sha256``: computed from the
    bytes as they were read or uploaded; no file is opened here), with ``file_sha256_of`` saying whose digest it
    is (``UPLOADED_BYTES`` or ``DATA_FILE``)."""
    record: dict[str, object] = {"source": dataset.source}
    if dataset.input_sha256 is not None:
        record |= {"file_sha256": dataset.input_sha256,
                   "file_sha256_of": UPLOADED_BYTES if dataset.uploaded else DATA_FILE}
    return record


def provenance_record(release: Release, *, seed: int, config: dict[str, object] | None,
                      measures: dict[str, float] | None, guarantee: Guarantee,
                      suppressed_policy: str) -> dict[str, object]:
    """The provenance record of a release written with ``seed`` (``provenance.json``); its ``input`` is
    ``input_record`` with the record count and ``content_sha256``, a digest of the table's values."""
    data_hash = content_sha256(release.dataset.frame)
    source = input_record(release.dataset)
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "package": {"name": "k-anonymity-workbench", "version": software_version()},
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "pandas": pd.__version__},
        "config": config or {},
        "input": {"source": source.pop("source"), "records": release.n, "content_sha256": data_hash, **source},
        "engine": release.engine,
        "algorithm": release.algorithm,
        "transformation": release.transformation,
        "guarantee": guarantee.as_dict(),
        "suppressed_records": suppressed_policy,
        "measures": measures or {},
        "seed": seed,
        **release.provenance,
    }


def content_sha256(frame: pd.DataFrame) -> str:
    """The provenance's ``content_sha256``: a SHA-256 of the table's values (pandas' row hashes, index left out),
    equal for the same table however it was read."""
    return hashlib.sha256(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes()).hexdigest()


def software_version() -> str:
    """The workbench's installed version ("unknown" when it runs from a checkout without being installed)."""
    try:
        return metadata.version("k-anonymity-workbench")
    except metadata.PackageNotFoundError:
        return "unknown"


def _write_parquet_as_text(table: pd.DataFrame, buffer: io.BytesIO) -> None:
    """The table as Parquet with every column of text a string column (a Categorical's labels, dictionary-encoded
    in the file as Parquet does anyway), read back as text, not as a pandas category."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    schema = pa.schema([pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(f.type) else f
                        for f in arrow.schema])
    pq.write_table(arrow.cast(schema).replace_schema_metadata(None), buffer)


def _write_xlsx_as_text(table: pd.DataFrame, buffer: io.BytesIO) -> None:
    """The table as an Excel sheet whose cells are all values: openpyxl stores a text starting with "=" as a
    formula, which Excel would evaluate (a released cell "=1+1" would show 2, or run something worse)."""
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        table.to_excel(writer, index=False)
        for row in writer.sheets["Sheet1"].iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    cell.data_type = "s"
