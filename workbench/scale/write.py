"""The Dask backend's release: every partition joined to the plan, shuffled across the cluster by a seeded hash of
each record's position, then computed one partition at a time and appended to the file (``workbench.scale``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.config import Study
from workbench.readers import _as_text_column
from workbench.release.output import MISSING_TOKEN, escape_formulas
from workbench.scale import backends


def _released(part: pd.DataFrame, plan: pd.DataFrame, qis: list[str], names: list[str], escape: bool,
              drop: bool) -> pd.DataFrame:
    keys = {f"q_{j}": q for j, q in enumerate(qis)}
    joined = part.merge(plan.rename(columns=keys), on=qis, how="left", sort=False)
    if drop:
        joined = joined[~joined["s"].astype(bool)]
    out = pd.DataFrame(index=joined.index)
    for c in names:
        if c in qis:
            out[c] = joined[f"l_{qis.index(c)}"].to_numpy(dtype=object)
        else:
            text = _as_text_column(joined[c])
            out[c] = text.where(text != "", MISSING_TOKEN)
    out[backends.ROW] = joined[backends.ROW].to_numpy()
    return escape_formulas(out)[0] if escape else out


def release_frames(study: Study, source: backends.Source, plan: pd.DataFrame, qis: list[str], names: list[str],
                   escape: bool, spill: Path) -> Iterator[pd.DataFrame]:
    """The released partitions in the seeded shuffled order, one pandas frame at a time. An external shuffle with
    bounded memory: each partition is computed on the cluster and split by its rows' keys into buckets written to
    ``spill`` (Parquet); then each bucket is read back and sorted by key."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = backends._dask_frame(source, study.scheduler)
    mix = (np.array([study.seed], dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))[0]  # wraps: an array product

    def positions(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
        number = (partition_info or {}).get("number", 0)
        index = np.arange(len(part), dtype=np.uint64) + (np.uint64(number) << np.uint64(40))
        key = pd.util.hash_array(index ^ mix)
        return part.assign(**{backends.ROW: key})

    meta = frame._meta.assign(**{backends.ROW: np.uint64(0)})
    keyed = frame.map_partitions(positions, meta=meta)
    released_meta = _released(meta.iloc[:0], plan.iloc[:0], qis, names, escape, False)  # escaped names too
    released = keyed.map_partitions(_released, plan, qis, names, escape, study.suppressed == "drop",
                                    meta=released_meta)
    buckets = max(1, released.npartitions)
    spill.mkdir(parents=True, exist_ok=True)
    writers: dict[int, pq.ParquetWriter] = {}
    try:
        for part in released.to_delayed():
            done = part.compute()
            bucket = (done[backends.ROW].to_numpy() % np.uint64(buckets)).astype(np.int64)
            text = {c: object for c in done.columns if c != backends.ROW}  # the header as written (escaped)
            for b in np.unique(bucket):
                table = pa.Table.from_pandas(done[bucket == b].astype(text),
                                             preserve_index=False).replace_schema_metadata(None)
                if b not in writers:
                    writers[b] = pq.ParquetWriter(spill / f"bucket-{b}.parquet", table.schema)
                writers[b].write_table(table)
    finally:
        for w in writers.values():
            w.close()
    for b in sorted(writers):
        path = spill / f"bucket-{b}.parquet"
        part = pq.read_table(path).to_pandas()
        path.unlink()
        yield part.sort_values(backends.ROW, kind="stable").drop(columns=backends.ROW).reset_index(drop=True)
