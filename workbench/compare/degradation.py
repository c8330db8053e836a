"""Model degradation of chosen solutions (Katirai 2006's "most defensible" measure): the releases behind rows of
a solutions table (``workbench.compare.solutions``) rebuilt and scored by classifiers in parallel processes or
threads."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from workbench.compare import local_releases
from workbench.compare.ranking import optimal_under
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.objective import target_codes
from workbench.privacy.build import admissibility_for
from workbench.release import Release
from workbench.study import Progress


def _releases_of(study: Study, dataset: Dataset, df: pd.DataFrame, rows: Sequence[int]) -> list[Release]:
    """Rebuild the releases behind rows of the solutions table (the local ones of each k from one problem)."""
    releases: dict[int, Release] = {}
    local: dict[int, list[int]] = {}
    for i in rows:
        row = df.loc[i]
        sup = float(row.max_suppression) if "max_suppression" in row.index else study.max_suppression
        if row.engine == "lattice":
            levels = dict(part.split("=", 1) for part in str(row.solution).split(","))
            node = tuple(int(levels[q]) for q in dataset.quasi_identifiers)
            rule = admissibility_for(replace(study, k=int(row.k), max_suppression=sup), dataset)
            releases[i] = Release.from_node(dataset, node, int(row.k), sup, str(row.algorithm), rule)
        else:
            local.setdefault(int(row.k), []).append(i)
    for k, indices in local.items():
        algorithms = list(dict.fromkeys(str(df.loc[i].algorithm) for i in indices))
        made = dict(local_releases(replace(study, k=k), dataset, algorithms))
        releases |= {i: made[str(df.loc[i].algorithm)] for i in indices}
    return [releases[i] for i in rows]


def add_degradation(df: pd.DataFrame, study: Study, dataset: Dataset, rows: Sequence[int] | None = None,
                    classifiers: Sequence[str] = ("zeror", "random_forest", "bayes_net"), folds: int = 5,
                    n_jobs: int = 2, progress: Progress | None = None, prefer: str = "processes") -> pd.DataFrame:
    """Model degradation (Katirai 2006's "most defensible" measure) for a chosen subset of solutions
    (``rows``: index labels; default: the row of ``df`` each measure would choose among the lattice candidates,
    and every local release; a release is rebuilt from its row, so an optimum outside ``df`` needs its row
    added first, e.g. from ``optimum_solutions``), ``n_jobs`` releases at a time.
    Adds ``degradation_<classifier>_<metric>`` columns (empty for the solutions not chosen).

    ``prefer="processes"`` (joblib's worker processes) tells ``progress`` after each release;
    ``prefer="threads"`` (this process; the scikit-learn models release the GIL while they fit) tells it after
    each classifier × fold of every release, so a ``progress`` that raises (a cancelled job of the app's worker
    pool, ``workbench.jobs``) stops the work within one fold."""
    from joblib import Parallel, delayed

    from measures.degradation import degradation

    if prefer not in ("processes", "threads"):
        raise ValueError(f"prefer must be 'processes' or 'threads', got {prefer!r}")
    study = replace(study, compare=tuple(m for m in study.compare if m != "degradation"))
    if study.target is None:
        raise ConfigError("model degradation needs [measures].target")
    ids = [m for m in study.compare if m != "degradation"]
    if rows is None:  # the lattice node each measure would choose, and every local release
        chosen = df.index[df.engine == "local"].tolist()
        for _, part in df.groupby("k"):
            best = optimal_under(part, ids)
            for _, b in best.iterrows():
                chosen.extend(part.index[(part.solution == b.solution) & (part.engine == b.engine)].tolist())
        rows = sorted(set(chosen))
    report = progress or (lambda fraction, text: None)
    report(0.0, f"rebuilding the {len(rows):,} release(s)")
    target = target_codes(study, dataset)
    qis = dataset.quasi_identifiers
    original = dataset.frame[qis]
    releases = _releases_of(study, dataset, df, rows)
    tell = _per_release(report, len(releases)) if prefer == "threads" else None
    jobs = [delayed(degradation)(original, r.labels[qis], target, r.suppressed, classifiers=tuple(classifiers),
                                 folds=folds, random_state=study.seed, progress=tell(i) if tell else None)
            for i, r in enumerate(releases)]
    results = []
    for i, result in enumerate(Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator")(jobs)):
        results.append(result)
        if tell is None:
            report((i + 1) / len(jobs), f"{i + 1:,} of {len(jobs):,} releases' model degradation done")
    out = df.copy()
    for index, table in zip(rows, results, strict=True):
        for _, r in table.iterrows():
            for column in table.columns:
                if column != "classifier":
                    out.loc[index, f"degradation_{r.classifier}_{column}"] = r[column]
    return out


def _per_release(report: Progress, releases: int) -> Callable[[int], Progress]:
    """Each release's progress callback (called from several threads), told to ``report`` as the share of all
    releases' classifier × fold steps done."""
    done = [0.0] * releases
    lock = threading.Lock()

    def of(i: int) -> Progress:
        def tell(fraction: float, text: str) -> None:
            with lock:
                done[i] = fraction
                total = sum(done) / releases
            report(total, f"release {i + 1} of {releases:,}: {text}")

        return tell

    return of


def degradation_summary(df: pd.DataFrame, metrics: Sequence[str] = ("accuracy", "auc")) -> pd.DataFrame:
    """The ``degradation_*`` columns of ``add_degradation`` as one row per solution and classifier:
    ``engine``, ``algorithm``, ``solution``, ``classifier``, then per metric its value on the original and the
    released data and the drop, then ``agreement``. Solutions without degradation are left out."""
    from measures.degradation import CLASSIFIERS

    rows = []
    for i, row in df.iterrows():
        for clf in CLASSIFIERS:
            if pd.isna(row.get(f"degradation_{clf}_agreement", np.nan)):
                continue
            out: dict[str, object] = {"row": i, "k": row.k, "engine": row.engine, "algorithm": row.algorithm,
                                      "solution": row.solution, "classifier": clf}
            for metric in metrics:
                for side in ("original", "released", "drop"):
                    out[f"{metric}_{side}"] = row[f"degradation_{clf}_{metric}_{side}"]
            out["agreement"] = row[f"degradation_{clf}_agreement"]
            rows.append(out)
    columns = ["row", "k", "engine", "algorithm", "solution", "classifier",
               *(f"{m}_{s}" for m in metrics for s in ("original", "released", "drop")), "agreement"]
    return pd.DataFrame(rows, columns=columns)
