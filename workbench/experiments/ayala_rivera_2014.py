"""Ayala-Rivera, McDonagh, Cerqueus & Murphy (2014), "A systematic comparison and evaluation of k-anonymization
algorithms for practitioners", Transactions on Data Privacy 7:337–370: Datafly, Incognito and Mondrian on
Adult under GenILoss, DM and CAVG, for k from 2 to 100 and 3 to 8 quasi-identifiers; no algorithm wins under
every metric.

This reproduction runs the workbench's own algorithms on the embedded Adult (ARX's hierarchies), without
suppression: Datafly and Incognito (full-domain, lattice engine), Flash's optimum, Mondrian and Katirai's
Greedy and Partition (local engine). The metrics: ``loss`` (ARX's normalized form of Iyengar's GenILoss, a
geometric mean over attributes), ``dm`` (discernibility) and CAVG = (n / classes) / k (``aecs / k`` without
suppression), plus the time of each run. Incognito and Flash minimize ``loss`` (both are optimal, so they return
the same node; their times differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.study import Progress, run

KS = (2, 5, 10, 25, 50, 100)
QUASI_IDENTIFIERS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass", "occupation")
QI_COUNTS = (3, 4, 5, 6, 7, 8)
# (label, engine, algorithm): the lattice searches minimize loss; the local ones read no objective but Vinterbo's
ALGORITHMS = (("datafly", "lattice", "datafly"), ("incognito", "lattice", "incognito"), ("flash", "lattice", "flash"),
              ("mondrian", "local", "mondrian"), ("greedy", "local", "greedy"), ("partition", "local", "partition"))
MEASURES = ("loss", "dm", "aecs")


def study_for(qis: Sequence[str], k: int, engine: str, algorithm: str) -> Study:
    """Adult with these quasi-identifiers (the other columns insensitive; salary-class too), no suppression."""
    from workbench.config import study_from_dict

    return study_from_dict({
        "data": {"sample": "adult"},
        "attributes": {**{q: {"role": "quasi"} for q in qis},
                       **{a: {"role": "insensitive"} for a in QUASI_IDENTIFIERS + ("salary-class",) if a not in qis}},
        "privacy": {"k": k, "max_suppression": 0.0},
        "engine": {"kind": engine, "algorithm": algorithm, "objective": "loss" if engine == "lattice" else "vinterbo",
                   "allow_non_monotone": True},  # no suppression: loss is monotone (docs/measures.md)
        "measures": {"compare": list(MEASURES)}}, source="ayala_rivera_2014")


def comparison(ks: Sequence[int] = KS, qi_counts: Sequence[int] = QI_COUNTS,
               algorithms: Sequence[tuple[str, str, str]] = ALGORITHMS, datasets: dict[int, Dataset] | None = None,
               progress: Progress | None = None, jobs: int | None = None, backend: str = "loky") -> pd.DataFrame:
    """One row per (quasi-identifiers, k, algorithm): loss, dm, cavg, classes and seconds (the run's own time:
    the search or the local algorithm, not loading). The (quasi-identifiers, k) settings run ``jobs`` at a time
    on ``backend`` (``workbench.jobs.parallel``; default one at a time: the seconds of runs made side by side share
    the machine)."""
    from workbench.jobs.parallel import parallel_map
    from workbench.study import load_dataset

    grid = [(q, k) for q in qi_counts for k in ks]
    datasets = dict(datasets or {})
    for q, k in grid:  # loaded once per quasi-identifier count and engine, before the settings run
        for _, engine, algorithm in algorithms:
            if (q, engine) not in datasets:
                datasets[(q, engine)] = load_dataset(study_for(QUASI_IDENTIFIERS[:q], k, engine, algorithm))
    units = [(q, k, tuple(algorithms), {e: datasets[(q, e)] for _, e, _ in algorithms}) for q, k in grid]

    def done(step: int, _: object) -> None:
        if progress:
            q, k = grid[step]
            progress((step + 1) / len(grid), f"{q} quasi-identifiers, k = {k} done")

    settings = replace(study_for(QUASI_IDENTIFIERS[:3], 2, "lattice", "flash"), jobs=jobs, sweep_backend=backend)
    return pd.DataFrame([row for rows in parallel_map(_setting, units, settings, done) for row in rows])


def _setting(q: int, k: int, algorithms: Sequence[tuple[str, str, str]],
             datasets: dict[str, Dataset]) -> list[dict[str, object]]:
    """The rows of one (quasi-identifiers, k) setting, one per algorithm that gave a release."""
    rows = []
    for label, engine, algorithm in algorithms:
        result = run(study_for(QUASI_IDENTIFIERS[:q], k, engine, algorithm), datasets[engine])
        release = result.release
        if release is None:
            continue
        rows.append({"quasi_identifiers": q, "k": k, "algorithm": label, "engine": engine,
                     "loss": result.scores["loss"].value, "dm": result.scores["dm"].value,
                     "cavg": result.scores["aecs"].value / k, "classes": release.classes,
                     "k_anonymous": bool(release.verify().holds), "seconds": result.seconds})
    return rows


def winners(df: pd.DataFrame, metrics: Sequence[str] = ("loss", "dm", "cavg")) -> pd.DataFrame:
    """Per (quasi-identifiers, k) and metric, the algorithm with the lowest value (ties: every one of them)."""
    rows = []
    for (q, k), part in df.groupby(["quasi_identifiers", "k"]):
        row: dict[str, object] = {"quasi_identifiers": q, "k": k}
        for m in metrics:
            best = part[m].min()
            row[m] = ", ".join(sorted(part.algorithm[part[m] <= best * (1 + 1e-12)]))
        rows.append(row)
    return pd.DataFrame(rows)
