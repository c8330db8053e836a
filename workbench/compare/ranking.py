"""Reading a solutions table: every measure oriented as a loss, normalized, the Pareto front, Kendall τ between the
measures' rankings, and which solution each measure would choose (``optimal_under``, ``global_vs_local``). Pure
functions of the table ``workbench.compare`` builds, so the CLI, the app and the report read it the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

import measures as M
from workbench.lattice.search.result import same_value

if TYPE_CHECKING:
    from workbench.data import Dataset
    from workbench.lattice.space import Node

OPTIMUM = "optimum"  # the ``algorithm`` of a lattice_optima row in optimal_under

# Re-identification risk of each solution's release after suppression (the suppressed records one group of
# ``*``; ``workbench.risk.risk_of_release``), columns of the solutions table after the measures: lower is better.
RISK_COLUMNS: dict[str, str] = {
    "risk_highest": "highest prosecutor risk: 1 / the smallest group",
    "risk_average": "average prosecutor risk: groups (the classes, the suppressed records as one) / records",
    "risk_records_at_risk": "share of records whose risk 1 / |class| exceeds 0.2 (classes under 5 records)",
}


def as_loss(df: pd.DataFrame, measure_id: str) -> pd.Series:
    """The measure's values oriented as a loss (negated when higher is better, e.g. ``nmi``)."""
    values = df[measure_id].astype(float)
    higher = M.MEASURES[measure_id].higher_is_better if measure_id in M.MEASURES else False
    return -values if higher else values


def normalized(df: pd.DataFrame, measure_ids: Sequence[str]) -> pd.DataFrame:
    """Each measure rescaled to [0, 1] over the candidates (0 = the best candidate, 1 = the worst)."""
    out = df.copy()
    for m in measure_ids:
        col = as_loss(df, m)
        span = col.max() - col.min()
        out[f"{m}_norm"] = (col - col.min()) / span if span > 0 else 0.0
    return out


def meets_rule(df: pd.DataFrame) -> np.ndarray:
    """Mask of the solutions whose release meets the whole configured rule (the ``meets_rule`` column; every row
    of a table without it). Only these are alternatives: they alone are ranked, chosen and on a Pareto front."""
    if "meets_rule" not in df.columns:
        return np.ones(len(df), dtype=bool)
    return df["meets_rule"].fillna(False).to_numpy(dtype=bool)


def pareto_front(df: pd.DataFrame, measure_ids: Sequence[str]) -> np.ndarray:
    """Mask of the solutions that meet the rule (``meets_rule``) and that no other such solution dominates (at
    least as good under every measure, better under one; each measure in its own direction). A row that does not
    meet the rule is never on the front and dominates nothing."""
    values = np.column_stack([as_loss(df, m).to_numpy() for m in measure_ids]) if len(df) else np.zeros((0, 0))
    eligible = meets_rule(df)
    keep = eligible.copy()
    for i in np.flatnonzero(eligible):
        no_worse = (values[eligible] <= values[i]).all(axis=1)
        better = (values[eligible] < values[i]).any(axis=1)
        keep[i] = not (no_worse & better).any()
    return keep


def rank_agreement(df: pd.DataFrame, measure_ids: Sequence[str]) -> pd.DataFrame:
    """Kendall τ between the rankings of the candidates under each pair of measures (1: same order)."""
    from scipy.stats import kendalltau  # scipy.stats takes 0.7 s to import: only when ranking
    ids = list(measure_ids)
    tau = pd.DataFrame(np.eye(len(ids)), index=ids, columns=ids)
    for a in range(len(ids)):
        for b in range(a + 1, len(ids)):
            value = kendalltau(as_loss(df, ids[a]), as_loss(df, ids[b])).statistic if len(df) > 1 else np.nan
            tau.iloc[a, b] = tau.iloc[b, a] = value
    return tau


def node_of(dataset: Dataset, solution: str) -> Node:
    """The level vector of a lattice solution label ``"qi=level,..."``."""
    levels = dict(part.split("=", 1) for part in solution.split(","))
    return tuple(int(levels[q]) for q in dataset.quasi_identifiers)


def _scope(engine: str, algorithm: str) -> str:
    return f"best of the candidates ({algorithm})" if engine == "lattice" else "the release"


def optimal_under(df: pd.DataFrame, measure_ids: Sequence[str], optima: pd.DataFrame | None = None) -> pd.DataFrame:
    """For each measure, the solution it would choose: the lattice engine's optimum over every k-anonymous
    node (from ``optima``, a ``lattice_optima`` table, when given), the best of the lattice candidates in
    ``df``, and each local-engine release's best (ties: the first listed). ``scope`` says what each row is the
    best of: a row restricted to the candidate set says so, because for a non-monotone measure the best
    k-minimal node can be far from the optimum. ``meets_rule``: does the row's release meet the whole configured
    rule (the optima do by construction); ``best_overall``: the best value among the measure's rows that meet it
    (a row that does not is listed, never best)."""
    rows = []
    eligible = pd.Series(meets_rule(df), index=df.index)
    optimum = optima.set_index("measure") if optima is not None and len(optima) else None
    for m in measure_ids:
        mine = []
        if optimum is not None and m in optimum.index:
            o = optimum.loc[m]
            mine.append({"measure": m, "engine": "lattice", "scope": o.searched, "algorithm": OPTIMUM,
                         "solution": o.solution, "value": o.value, "meets_rule": True})
        loss = as_loss(df, m)
        for (engine, algorithm), part in df.groupby(["engine", "algorithm"], sort=True):
            if loss[part.index].isna().all():  # a user measure that failed on every one of them
                continue
            meeting = part.index[eligible[part.index]]
            pool = meeting if len(meeting) and not loss[meeting].isna().all() else part.index
            best = loss[pool].idxmin()
            mine.append({"measure": m, "engine": engine, "scope": _scope(str(engine), str(algorithm)),
                         "algorithm": algorithm, "solution": df.solution[best], "value": df[m][best],
                         "meets_rule": bool(eligible[best])})
        oriented = as_loss(pd.DataFrame({m: [r["value"] for r in mine]}), m) if mine else pd.Series(dtype=float)
        ranked = oriented[[r["meets_rule"] for r in mine]] if mine else oriented
        for r, v in zip(mine, oriented, strict=True):  # ties as searches judge
            r["best_overall"] = bool(r["meets_rule"] and (v <= ranked.min() or same_value(v, ranked.min())))
        rows += mine
    return pd.DataFrame(rows, columns=["measure", "engine", "scope", "algorithm", "solution", "value", "meets_rule",
                                       "best_overall"])


def global_vs_local(df: pd.DataFrame, objective: str, measure_ids: Sequence[str]) -> pd.DataFrame:
    """The best lattice solution under ``objective`` next to each local-engine release (``df``: one k), one
    row per measure: ``measure``, ``direction``, each solution's raw value, its normalized value (0 = the best
    of every candidate in ``df``, 1 = the worst) and ``better``: the shown solution(s) best under the measure
    ("tie" when all are equal) among those that meet the rule (``meets_rule``). The columns are named ``lattice``
    and the local algorithms."""
    if df.k.nunique() > 1:
        raise ValueError("global_vs_local compares the solutions of one k")
    shown: dict[str, int] = {}
    lattice = df[df.engine == "lattice"]
    if len(lattice):
        shown["lattice"] = int(as_loss(lattice, objective).idxmin())  # ties: the first listed, as optimal_under
    for i, row in df[df.engine == "local"].iterrows():
        shown.setdefault(str(row.algorithm), int(i))
    norm = normalized(df, measure_ids)
    directions = measure_directions(measure_ids)
    rows = []
    eligible = pd.Series(meets_rule(df), index=df.index)
    ranked = {name: i for name, i in shown.items() if eligible[i]}  # a release that fails the rule is never better
    for m in measure_ids:
        loss = as_loss(df, m)
        best = min(loss[i] for i in ranked.values()) if ranked else np.nan
        winners = [name for name, i in ranked.items() if loss[i] == best]
        row: dict[str, object] = {"measure": m, "direction": directions.get(m, M.Direction.LOWER.value)}
        row |= {name: df.loc[i, m] for name, i in shown.items()}
        row |= {f"{name} (normalized)": norm.loc[i, f"{m}_norm"] for name, i in shown.items()}
        row["better"] = "tie" if len(winners) == len(ranked) > 1 else ", ".join(winners)
        rows.append(row)
    return pd.DataFrame(rows)


def measure_directions(measure_ids: Sequence[str]) -> dict[str, str]:
    """Each registered measure's direction, as its text (``measures.Direction``); risk columns: lower is
    better."""
    return {m: M.MEASURES[m].direction.value if m in M.MEASURES else M.Direction.LOWER.value for m in measure_ids
            if m in M.MEASURES or m in RISK_COLUMNS}


def risk_utility(df: pd.DataFrame, utility: str, risk: str = "risk_average") -> pd.DataFrame:
    """The solutions as points of risk (``risk``, a ``RISK_COLUMNS`` column) against a utility measure
    (``utility``, as a loss), with ``pareto``: no other solution has at most its risk and at most its loss, and
    less of one. Columns ``engine``, ``algorithm``, ``solution``, ``k``, ``risk``, ``utility``, ``pareto``."""
    if risk not in RISK_COLUMNS:
        raise ValueError(f"risk must be one of {', '.join(RISK_COLUMNS)}, got {risk!r}")
    keep = df[[utility, risk]].notna().all(axis=1).to_numpy()
    rule = meets_rule(df)[keep]
    part = df[keep].reset_index(drop=True)
    return pd.DataFrame({"engine": part.engine, "algorithm": part.algorithm, "solution": part.solution, "k": part.k,
                         "risk": part[risk].astype(float), "utility": part[utility].astype(float),
                         "meets_rule": rule, "pareto": pareto_front(part, [utility, risk])})
