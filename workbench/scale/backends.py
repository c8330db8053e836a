"""Backends that read a data file out of core: the group-by that gives a lattice search its bottom frequency set,
and the release written partition by partition (``workbench.scale``).

The lattice engine needs the raw records once: the distinct rows of the quasi-identifiers with their counts (the
frequency set of the lattice's bottom node, LeFevre et al. 2005); every other node rolls up from it. A backend
computes that group-by over a CSV or Parquet file, and later writes the release by joining every record to the
plan (one row per distinct quasi-identifier row: its released labels and whether it is suppressed):

- ``pandas``: the file read into memory (the reference the others are tested against);
- ``duckdb``: one SQL query over the file, out of core (DuckDB spills to disk beyond its memory limit);
- ``dask``: a Dask dataframe on the current Dask client (a cluster given by ``engine.scheduler``, or a local one).

Values are compared as the backend reads them (native Parquet types, CSV text); ``workbench.scale`` turns the
distinct values into the workbench's text (``workbench.data``) once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ConfigError, DataError

ROW = "__wb_row"  # a record's position in the file, for the seeded shuffle


@dataclass(frozen=True)
class Source:
    """A data file: its path, whether it is Parquet, and (CSV) its separator."""

    path: Path
    parquet: bool
    separator: str = ","

    @classmethod
    def of(cls, path: Path, separator: str | None) -> Source:
        suffix = path.suffix.lower()
        if not path.is_file():
            raise DataError(f"data file not found: {path}")
        sep = separator or ("\t" if suffix == ".tsv" else ",")
        return cls(path, suffix == ".parquet", sep)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# ------------------------------------------------------------------------------------------------ DuckDB
def _duckdb():  # noqa: ANN202
    try:
        import duckdb
    except ImportError:
        raise ConfigError("engine.backend 'duckdb' needs the duckdb package: pip install "
                          "'k-anonymity-workbench[scale]'") from None
    return duckdb


def _scan(source: Source) -> str:
    if source.parquet:
        return f"read_parquet({_literal(str(source.path))})"
    return (f"read_csv({_literal(str(source.path))}, delim={_literal(source.separator)}, header=true, "
            "all_varchar=true, quote='\"', escape='\"', auto_detect=false, "
            f"columns={_csv_columns(source)})")


def _csv_columns(source: Source) -> str:
    import csv

    with open(source.path, encoding="utf-8-sig", newline="") as handle:
        names = next(csv.reader(handle, delimiter=source.separator))
    return "{" + ", ".join(f"{_literal(n)}: 'VARCHAR'" for n in names) + "}"


DUCKDB_MEMORY = "1GB"  # DuckDB's working memory; beyond it, sorts and joins spill to a temporary folder


def _connect(spill: Path | None = None):  # noqa: ANN202
    con = _duckdb().connect()
    con.execute(f"SET memory_limit = {_literal(DUCKDB_MEMORY)}")
    if spill is not None:
        con.execute(f"SET temp_directory = {_literal(str(spill))}")
    con.execute("SET preserve_insertion_order = true")
    return con


def columns(source: Source, backend: str) -> list[str]:
    """The file's column names, in order."""
    if source.parquet:
        import pyarrow.parquet as pq

        return list(pq.read_schema(source.path).names)
    import csv

    with open(source.path, encoding="utf-8-sig", newline="") as handle:
        return next(csv.reader(handle, delimiter=source.separator))


def group_counts(source: Source, names: list[str], backend: str,
                 scheduler: str | None = None) -> tuple[pd.DataFrame, np.ndarray]:
    """The distinct rows of ``names`` in the file (values as the backend reads them, missing as None/NaN) and
    how many records each has: one group-by over the whole file."""
    if backend == "duckdb":
        cols = ", ".join(_quote(n) for n in names)
        frame = _connect().execute(f"SELECT {cols}, count(*) AS {ROW} FROM {_scan(source)} GROUP BY ALL").df()
    elif backend == "dask":
        frame = _dask_frame(source, scheduler).groupby(names, dropna=False).size().compute() \
            .rename(ROW).reset_index()
    else:
        frame = _pandas_frame(source).groupby(names, dropna=False).size().rename(ROW).reset_index()
    counts = frame.pop(ROW).to_numpy(dtype=np.int64)
    return frame[names].reset_index(drop=True), counts


def _pandas_frame(source: Source) -> pd.DataFrame:
    if source.parquet:
        return pd.read_parquet(source.path)
    return pd.read_csv(source.path, sep=source.separator, dtype=str, keep_default_na=False, na_values=[])


def _dask_frame(source: Source, scheduler: str | None):  # noqa: ANN202
    try:
        import dask.dataframe as dd
    except ImportError:
        raise ConfigError("engine.backend 'dask' needs dask: pip install 'k-anonymity-workbench[scale]'") from None
    if scheduler:
        from distributed import Client

        Client(scheduler, set_as_default=True)
    if source.parquet:
        return dd.read_parquet(str(source.path), split_row_groups=True)  # a partition per row group
    return dd.read_csv(str(source.path), sep=source.separator, dtype=str, keep_default_na=False, na_values=[])


# ------------------------------------------------------------------------------------------------ the release
def write_release_duckdb(source: Source, out: Path, select: list[tuple[str, str]], plan: pd.DataFrame,
                         keys: list[str], seed: int, drop: bool, parquet: bool) -> None:
    """One DuckDB query: every record joined to its plan row (released labels per quasi-identifier, suppressed or
    not) on the original values, the other columns as ``select`` says (SQL over the record ``t``), rows in the
    seeded shuffled order (a hash of the record's position and the seed), written as CSV or Parquet."""
    con = _connect(out.parent / ".spill")  # inside the staging folder: removed with it
    con.register("wb_plan", plan)
    on = " AND ".join(f"t.{_quote(k)} IS NOT DISTINCT FROM p.{_quote('q_' + str(j))}" for j, k in enumerate(keys))
    where = "WHERE NOT p.s" if drop else ""
    cols = ", ".join(f"{expr} AS {_quote(name)}" for name, expr in select)
    query = (f"SELECT {cols} FROM (SELECT *, row_number() OVER () AS {ROW} FROM {_scan(source)}) t "
             f"JOIN wb_plan p ON {on} {where} ORDER BY hash(t.{ROW}, {int(seed)})")
    options = "FORMAT parquet" if parquet else "FORMAT csv, HEADER true, DELIMITER ','"
    con.execute(f"COPY ({query}) TO {_literal(str(out))} ({options})")
    con.close()
    import shutil

    shutil.rmtree(out.parent / ".spill", ignore_errors=True)


def write_release_frames(source: Source, out: Path, frames: Iterator[pd.DataFrame], parquet: bool) -> None:
    """Write released partitions one after another into one CSV or Parquet file (pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from workbench.release.output import table_csv

    writer = None
    with open(out, "wb") as handle:
        for i, part in enumerate(frames):
            if parquet:
                table = pa.Table.from_pandas(part, preserve_index=False).replace_schema_metadata(None)
                writer = writer or pq.ParquetWriter(handle, table.schema)
                writer.write_table(table)
            else:
                data = table_csv(part.astype(str) if len(part.columns) > 1 else part, escape=False)  # escaped upstream
                handle.write(data if i == 0 else data.split(b"\n", 1)[1])
        if writer is not None:
            writer.close()
