"""Why the report's release was chosen: sentences built from the run and the comparison of alternatives, and the
alternatives that are at least as good under every measure (the Pareto front's reading)."""

from __future__ import annotations

from typing import Any

import pandas as pd

import measures as M
from workbench.study import RunResult


def why(result: RunResult, c: Any) -> list[str]:
    """Why the chosen release, in sentences built from the run and the comparison."""
    study = result.study
    lines = []
    objective = M.MEASURES.get(study.objective)
    name = objective.name if objective else study.objective
    if study.engine == "lattice":
        proof = ""
        if result.search is not None:
            proof = (" It is proven optimal." if result.search.proven_optimal
                     else " It is not proven optimal: the search is a heuristic.")
        lines.append(f"The configured search ({study.algorithm}) chose the solution with the least {name} among the "
                     f"solutions that meet the privacy model.{proof}")
    else:
        lines.append(f"The configured local algorithm ({study.algorithm}) clustered the records so as to keep the "
                     f"{name} low while every cluster meets k.")
    failing = _failing(c.table)
    if failing:
        lines.append(f"{len(failing)} of the alternatives listed do not meet the configured rule, so they are shown "
                     "for comparison only, never ranked or chosen: " + "; ".join(failing) + ".")
    if c.chosen is not None:
        others = len(c.table) - 1
        dominating = dominated_by(c.table, list(c.measures), c.chosen)
        if not dominating:
            lines.append(f"None of the other {others} alternatives listed is at least as good under every measure "
                         "compared and better under one: the release is on the Pareto front.")
        else:
            shown = ", ".join(dominating[:3]) + (", …" if len(dominating) > 3 else "")
            lines.append(f"{len(dominating)} of the other {others} alternatives listed ({shown}) are at least as good "
                         f"under every measure compared and better under one. The release was chosen for its {name} "
                         "under the configured engine and privacy model, not for every measure; the table shows "
                         "what each alternative would cost instead.")
    return lines


def _name(table: pd.DataFrame, i: int) -> str:
    return f"{table.engine[i]} {table.solution[i]}" if table.engine[i] == "lattice" else f"local {table.algorithm[i]}"


def _failing(table: pd.DataFrame) -> list[str]:
    """Each row that does not meet the rule: its name, what it fails and the risk its release carries."""
    from workbench.compare.ranking import meets_rule

    out = []
    for i in table.index[~meets_rule(table)]:
        failures = str(table.rule_failures[i]) if "rule_failures" in table.columns else ""
        out.append(f"{_name(table, i)} ({failures or 'the rule does not hold'}; highest re-identification risk "
                   f"{float(table.risk_highest[i]):.3g}, average {float(table.risk_average[i]):.3g})")
    return out


def dominated_by(table: pd.DataFrame, ids: list[str], row: int) -> list[str]:
    """The rows of ``table`` that meet the rule and are at least as good as ``row`` under every measure and better
    under one (each measure in its own direction), named ``engine algorithm solution``."""
    from workbench.compare.ranking import as_loss, meets_rule

    loss = pd.DataFrame({m: as_loss(table, m) for m in ids})
    mine = loss.loc[row]
    better = (loss <= mine).all(axis=1) & (loss < mine).any(axis=1) & meets_rule(table)
    return [_name(table, i) for i in table.index[better]]
