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


def dominated_by(table: pd.DataFrame, ids: list[str], row: int) -> list[str]:
    """The rows of ``table`` at least as good as ``row`` under every measure and better under one (each measure
    in its own direction), named ``engine algorithm solution``."""
    from workbench.compare import as_loss

    loss = pd.DataFrame({m: as_loss(table, m) for m in ids})
    mine = loss.loc[row]
    better = (loss <= mine).all(axis=1) & (loss < mine).any(axis=1)
    return [f"{table.engine[i]} {table.solution[i]}" if table.engine[i] == "lattice" else f"local {table.algorithm[i]}"
            for i in table.index[better]]
