"""Cached library calls of the Risk page's sections (``workbench/ui/cached.py``'s rules: a ``Study`` and a
``dataset_key`` in, plain data out, a ``WorkbenchError`` raised): the risk–utility points of the solutions, the
attacks on the release, and the quasi-identifier combinations that make records unique."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from workbench.compare.ranking import risk_utility
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.ui.cached import dataset_for
from workbench.ui.memo import dual_cache, user_error


@dual_cache(max_entries=16, heavy=True)
def risk_utility_points(study: Study, utility: str, risk: str, with_local: bool,
                        dataset_key: str | None) -> pd.DataFrame:
    """The k-minimal lattice candidates (and, ``with_local``, the local engine's releases) of a config as points
    of ``risk`` against ``utility`` with their Pareto front (``compare.risk_utility``)."""
    from workbench import compare

    try:
        dataset = dataset_for(study, dataset_key)
        parts = [compare.lattice_solutions(study, dataset, "k_minimal")]
        if with_local:
            parts.append(compare.local_solutions(study, dataset))
        table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        return risk_utility(table, utility, risk)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class RareValues:
    """The input's quasi-identifier values rarer than k (``rare_values``): their ``table`` (``attacks.rare_values``),
    the ``records`` holding one of the ``n`` records, and the table without them as CSV, records dropped
    (``rows_csv``) or values blanked (``values_csv``)."""

    table: pd.DataFrame
    records: int
    n: int
    rows_csv: bytes
    values_csv: bytes


@dual_cache(max_entries=16)
def rare_values(study: Study, k: int, dataset_key: str | None) -> RareValues:
    """The ``RareValues`` of the study's data for ``k``."""
    from workbench.risk import attacks
    from workbench.risk.attack_checks import without_rare_csv
    from workbench.ui.cached import dataset_for

    try:
        dataset = dataset_for(study, dataset_key)
        report = attacks.rare_values(dataset.frame, dataset.quasi_identifiers, k)
        return RareValues(report.table(), report.records, dataset.n, without_rare_csv(dataset, k, "rows"),
                          without_rare_csv(dataset, k, "values"))
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dataclass(frozen=True)
class AttackChecks:
    """The attacks on a release (``attack_checks``): ``checks``, ``AttackChecks.to_dict()`` of
    ``attack_checks.check_attacks`` (what ``attack_table`` reads), and ``node``, the release's transformation."""

    checks: dict[str, Any]
    node: Any


@dual_cache(max_entries=8, heavy=True)
def attack_checks(release_study: Study, dataset_key: str | None) -> AttackChecks:
    """The ``AttackChecks`` of the release of a study."""
    from workbench.risk.attack_checks import check_attacks
    from workbench.ui.cached import run_result

    result = run_result(release_study, dataset_key=dataset_key)
    if result.release is None:
        raise WorkbenchError("the last run found no release")
    try:
        checks = check_attacks(result.study, result.dataset, result.release)
    except (WorkbenchError, ValueError) as exc:
        raise user_error(exc) from exc
    return AttackChecks(checks.to_dict(), result.release.transformation)


@dataclass(frozen=True)
class UniqueCombinations:
    """Which quasi-identifier combinations make records unique (``unique_combinations``), in the input
    (``input_table``) and in the last run's release (``release_table``; None without one)."""

    input_table: pd.DataFrame
    release_table: pd.DataFrame | None


@dual_cache(max_entries=16)
def unique_combinations(study: Study, release_study: Study | None, dataset_key: str | None) -> UniqueCombinations:
    """Which quasi-identifier combinations make records unique (``unique_combinations``), in the input and, given
    the last run's study, in its release (suppressed records ``*``)."""
    from workbench.risk.combinations import unique_combinations as combinations_table
    from workbench.ui.cached import dataset_for, run_result

    try:
        dataset = dataset_for(study, dataset_key)
        input_table = combinations_table(dataset.frame, dataset.quasi_identifiers)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc
    if release_study is not None:
        try:
            release = run_result(release_study, dataset_key=dataset_key).release
        except WorkbenchError:  # the Anonymize page shows why the run failed: no release to look into here
            release = None
        if release is not None:
            return UniqueCombinations(input_table, combinations_table(release.table(), release.quasi_identifiers))
    return UniqueCombinations(input_table, None)
