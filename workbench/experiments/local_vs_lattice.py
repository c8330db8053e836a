"""Global vs local recoding on one configuration: the optimal lattice node (full-domain generalization,
no suppression) against the local engine's Greedy and Partition releases, for several k, all scored by the
same measure functions (both engines produce Releases; Katirai 2006 vs El Emam 2009)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.study import run

MEASURES = ("vinterbo", "precision", "loss", "dm_star", "entropy", "aecs", "height")


def comparison(study: Study, dataset: Dataset, ks: Sequence[int] = (2, 5, 10, 25),
               local_algorithms: Sequence[str] = ("greedy", "partition"), lattice_algorithm: str = "flash",
               objective: str = "vinterbo", measures: Sequence[str] = MEASURES) -> pd.DataFrame:
    """One row per (k, solution): engine, algorithm, solution label, every measure, classes and seconds. The k
    run ``engine.jobs`` at a time on ``engine.sweep_backend`` (``workbench.jobs.parallel``; the seconds of runs made
    side by side share the machine)."""
    from workbench.jobs.parallel import parallel_map

    units = [(replace(study, k=k, max_suppression=0.0, compare=tuple(measures), objective=objective), dataset,
              tuple(local_algorithms), lattice_algorithm) for k in ks]
    return pd.DataFrame([row for rows in parallel_map(_setting, units, study) for row in rows])


def _setting(base: Study, dataset: Dataset, local_algorithms: Sequence[str],
             lattice_algorithm: str) -> list[dict[str, object]]:
    """The rows of one k: the lattice algorithm's node, then each local algorithm's release."""
    rows = []
    cases = [replace(base, engine="lattice", algorithm=lattice_algorithm)]
    cases += [replace(base, engine="local", algorithm=a) for a in local_algorithms]
    for case in cases:
        result = run(case, dataset)
        release = result.release
        assert release is not None
        label = (",".join(f"{q}={v}" for q, v in release.transformation.items()) if release.transformation
                 else case.algorithm)
        rows.append({"k": base.k, "engine": case.engine, "algorithm": case.algorithm, "solution": label,
                     **{m: result.scores[m].value for m in base.compare}, "classes": release.classes,
                     "guarantee": release.verify().describe(), "seconds": round(result.seconds, 3)})
    return rows
