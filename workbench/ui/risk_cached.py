"""Cached library calls of the Risk page's sections (``workbench/ui/cached.py``'s rules: a JSON config and a
``dataset_key`` in, plain data out): the risk–utility points of the solutions, the attacks on the release, and the
quasi-identifier combinations that make records unique."""

from __future__ import annotations

from typing import Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.ui.cached import dual_cache, error_result, study_and_dataset


@dual_cache(max_entries=16, heavy=True)
def risk_utility_points(config_json: str, utility: str, risk: str, with_local: bool,
                        dataset_key: str | None) -> dict[str, Any]:
    """The k-minimal lattice candidates (and, ``with_local``, the local engine's releases) of a config as points
    of ``risk`` against ``utility`` with their Pareto front (``compare.risk_utility``)."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        parts = [compare.lattice_solutions(study, dataset, "k_minimal")]
        if with_local:
            parts.append(compare.local_solutions(study, dataset))
        table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        return {"points": compare.risk_utility(table, utility, risk)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)
