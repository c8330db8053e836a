"""The Dask backend's release: every partition joined to the plan, shuffled across the cluster by a seeded hash of
each record's position, then computed one partition at a time and appended to the file (``workbench.scale``)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from workbench import backends
from workbench.config import Study
from workbench.data import _as_text_column
from workbench.output import MISSING_TOKEN, escape_formulas


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
                   escape: bool) -> Iterator[pd.DataFrame]:
    """The released partitions in the seeded shuffled order, one pandas frame at a time."""
    frame = backends._dask_frame(source, study.scheduler)
    seed = np.uint64(study.seed)

    def positions(part: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
        number = (partition_info or {}).get("number", 0)
        index = np.arange(len(part), dtype=np.uint64) + (np.uint64(number) << np.uint64(40))
        key = pd.util.hash_array(index ^ (seed * np.uint64(0x9E3779B97F4A7C15)))
        return part.assign(**{backends.ROW: key})

    meta = frame._meta.assign(**{backends.ROW: np.uint64(0)})
    keyed = frame.map_partitions(positions, meta=meta)
    released_meta = _released(meta.iloc[:0], plan.iloc[:0], qis, names, False, False)
    released = keyed.map_partitions(_released, plan, qis, names, escape, study.suppressed == "drop",
                                    meta=released_meta)
    shuffled = released.shuffle(on=backends.ROW, npartitions=max(1, released.npartitions))
    for part in shuffled.to_delayed():
        done = part.compute()
        yield done.sort_values(backends.ROW, kind="stable").drop(columns=backends.ROW).reset_index(drop=True)
