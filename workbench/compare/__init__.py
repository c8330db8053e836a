"""Solution-space comparison: for one configuration, every candidate solution of both engines scored by every
measure at once, the Pareto front, the rank agreement between measures and which solution each measure
would pick (the workbench's purpose: see what each de-identification costs under *every* measure).

Candidates from the lattice engine: the k-minimal nodes (the minimal k-anonymous nodes; for a monotone
measure the optimum is one of them, El Emam 2009), or every k-anonymous node, or the top N under a measure.
Candidates from the local engine: its releases for the same k. All are scored by the same measure
functions on their Release.

The candidates are a sample of the solution space, not its optimum: with a suppression limit above 0, dm,
loss, aecs, precision_nm, entropy_nm, pmi and nmi are not monotone (a generalization can suppress fewer
records and score better; Kohlmayer, Prasser et al. 2016), so the best k-minimal node is not the best
k-anonymous node. ``lattice_optima`` gives each measure's optimum over every k-anonymous node, and
``optimal_under`` labels each row with the set it is the best of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import pandas as pd

import measures as M
from workbench.compare.nodes import (  # noqa: F401  (re-exported: workbench.compare is where callers find them)
    CANDIDATE_SETS,
    EXACT_NODE_MEASURES,
    SolutionProgress,
    admissible_nodes,
    candidate_nodes,
    k_minimal,
    lattice_candidates,
    measure_options,
    node_values,
    node_verdict,
    node_view,
    solution_label,
)
from workbench.compare.optima import (  # noqa: F401
    EVERY_NODE,
    K_MINIMAL_NODES,
    OPTIMA_COLUMNS,
    every_node,
    lattice_optima,
    minimal_nodes,
)
from workbench.compare.ranking import (  # noqa: F401  (re-exported, as above)
    OPTIMUM,
    RISK_COLUMNS,
    as_loss,
    global_vs_local,
    measure_directions,
    meets_rule,
    node_of,
    normalized,
    optimal_under,
    pareto_front,
    rank_agreement,
    risk_utility,
)
from workbench.config import LOCAL_OBJECTIVES, Study
from workbench.data import Dataset
from workbench.local import LOCAL_ALGORITHMS
from workbench.local.setup import local_setup
from workbench.objective import check_measures, local_weigh, target_codes
from workbench.policy import privacy_refusal
from workbench.privacy.base import Admissibility
from workbench.privacy.build import admissibility_for
from workbench.release import Release
from workbench.release.verify import rule_verdict
from workbench.risk.solutions import node_risk, release_risk
from workbench.study import Progress, evaluator_for, local_release
from workbench.user_measure import at

_node_view = node_view  # the name the tests have compared against the release's view
COMPARED_LOCAL_ALGORITHMS = ("greedy", "partition", "mondrian")  # the local releases a comparison lists by default


def _local_study(study: Study, algorithm: str) -> Study:
    """The study run by the local engine: its objective if the local engine takes it, else Vinterbo-1.0;
    no record suppression (local recoding suppresses cell by cell, by generalizing to the top)."""
    objective = study.objective if study.objective in LOCAL_OBJECTIVES else "vinterbo"
    return replace(study, engine="local", algorithm=algorithm, max_suppression=0.0, objective=objective)


_COLUMNS = ["k", "engine", "algorithm", "solution"]
SUPPRESSION_COLUMNS = ["suppressed", "suppressed_pct"]  # records suppressed, and their percent of all records
# does the solution's release meet the whole configured rule (k, every privacy model, the suppression limit),
# verified from the release, and what it fails ("" when it meets it): only such rows are ranked and chosen
RULE_COLUMNS = ["meets_rule", "rule_failures"]


def suppression_of(suppressed: int, records: int) -> dict[str, float]:
    """A solution's suppressed records and their percent of the records (the solutions table's columns)."""
    return {"suppressed": int(suppressed), "suppressed_pct": 100.0 * suppressed / records if records else 0.0}


def _without_degradation(study: Study) -> Study:
    return replace(study, compare=tuple(m for m in study.compare if m != "degradation"))


def _table(rows: list[dict[str, object]], ids: Sequence[str]) -> pd.DataFrame:
    columns = [*ids, *RISK_COLUMNS]
    if not rows:  # typed even when empty (no k-anonymous node), so the parts concatenate like the whole
        return pd.DataFrame({"k": pd.Series(dtype="int64"), **{c: pd.Series(dtype=str) for c in _COLUMNS[1:]},
                             "suppressed": pd.Series(dtype="int64"), "suppressed_pct": pd.Series(dtype="float64"),
                             **{m: pd.Series(dtype="float64") for m in columns},
                             "meets_rule": pd.Series(dtype=bool), "rule_failures": pd.Series(dtype=str)})
    return pd.DataFrame(rows, columns=[*_COLUMNS, *SUPPRESSION_COLUMNS, *columns, *RULE_COLUMNS])


def _lattice_rows(study: Study, dataset: Dataset, candidates: str, top_n: int,
                  progress: SolutionProgress) -> list[dict[str, object]]:
    ids = list(study.compare)
    nodes, evaluator = candidate_nodes(study, dataset, candidates, top_n, None)
    progress.add(len(nodes))
    values = node_values(study, dataset, evaluator, nodes, ids, progress)
    return [{"k": study.k, "engine": "lattice", "algorithm": candidates, "solution": solution_label(dataset, node),
             **suppression_of(evaluator.evaluate(node).suppressed, dataset.n), **{m: v[m] for m in ids},
             **node_risk(evaluator, node), **node_verdict(evaluator, node)}
            for node, v in zip(nodes, values, strict=True)]


def local_refusals(study: Study, dataset: Dataset, algorithms: Sequence[str]) -> dict[str, str]:
    """The local algorithms a comparison leaves out, each with the one-line reason (``policy.privacy_refusal``: a
    configured privacy model it cannot enforce); their rows are not listed."""
    return {str(a): reason for a in algorithms if a in LOCAL_ALGORITHMS
            and (reason := privacy_refusal(_local_study(study, str(a)), dataset, str(a)))}


def local_releases(study: Study, dataset: Dataset, algorithms: Sequence[str],
                   progress: SolutionProgress | None = None) -> list[tuple[str, Release]]:
    """The local engine's release per algorithm, all from one ``LocalProblem`` (the posets' LUB tables are
    built once, not once per algorithm); the same releases as ``run`` of ``_local_study``. An algorithm refused the
    configured privacy models (``local_refusals``) is left out."""
    out: list[tuple[str, Release]] = []
    setup = None
    refused = local_refusals(study, dataset, algorithms) if study.privacy_models else {}
    for algorithm in algorithms:
        if algorithm in refused:
            if progress:
                progress.tick()
            continue
        local = _local_study(study, str(algorithm))
        if setup is None and algorithm in LOCAL_ALGORITHMS and dataset.n >= local.k:
            setup = local_setup(local, dataset, local_weigh(local, dataset))
        out.append((str(algorithm), local_release(local, dataset, setup)[0]))  # raises the run's own errors
        if progress:
            progress.tick()
    return out


def _local_rows(study: Study, dataset: Dataset, algorithms: Sequence[str],
                progress: SolutionProgress) -> list[dict[str, object]]:
    ids = list(study.compare)
    check_measures(study)
    target = target_codes(study, dataset)
    rows = []
    rule = admissibility_for(study, dataset)
    for algorithm, release in local_releases(study, dataset, algorithms, progress):
        with at(f"the {algorithm} release"):  # named in a user measure's error
            scores = M.score(release.view(), ids, target, measure_options(study))
        rows.append({"k": study.k, "engine": "local", "algorithm": algorithm, "solution": algorithm,
                     **suppression_of(int(release.suppressed.sum()), release.n), **{m: scores[m].value for m in ids},
                     **release_risk(release), **release_verdict(release, rule)})
    return rows


def release_verdict(release: Release, rule: Admissibility) -> dict[str, object]:
    """The ``RULE_COLUMNS`` of a release: k and every privacy model of ``rule``, re-verified from the released
    table (``verify.rule_verdict``)."""
    meets, failures = rule_verdict(release, rule)
    return {"meets_rule": meets, "rule_failures": "; ".join(failures)}


def lattice_solutions(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
                      progress: Progress | None = None) -> pd.DataFrame:
    """The lattice engine's rows of ``solutions`` (same columns): fast, shown before the local releases."""
    study = _without_degradation(study)
    return _table(_lattice_rows(study, dataset, candidates, top_n, SolutionProgress(progress)), study.compare)


def local_solutions(study: Study, dataset: Dataset, algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
                    progress: Progress | None = None) -> pd.DataFrame:
    """The local engine's rows of ``solutions`` (same columns), one per algorithm. They depend on k and the
    measures only: the local engine suppresses no record, so it ignores the suppression limit."""
    study = _without_degradation(study)
    return _table(_local_rows(study, dataset, algorithms, SolutionProgress(progress, len(algorithms))), study.compare)


def solutions(study: Study, dataset: Dataset, candidates: str = "k_minimal", top_n: int = 10,
              local_algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
              progress: Progress | None = None) -> pd.DataFrame:
    """One row per solution: ``k``, ``engine``, ``algorithm``, ``solution`` (the level vector or the local
    algorithm), ``suppressed`` (records) and ``suppressed_pct`` (their percent of the records; the local engine
    suppresses none), then one column per measure of ``[measures].compare``, then the release's
    re-identification risk after suppression, ``RISK_COLUMNS`` (the ``solutions.csv`` contract).
    ``lattice_solutions`` and ``local_solutions`` give its two parts."""
    study = _without_degradation(study)
    tracker = SolutionProgress(progress, len(local_algorithms))
    rows = _lattice_rows(study, dataset, candidates, top_n, tracker)
    rows += _local_rows(study, dataset, local_algorithms, tracker)
    return _table(rows, study.compare)


def optimum_solutions(study: Study, dataset: Dataset, optima: pd.DataFrame) -> pd.DataFrame:
    """The solutions-table rows (same columns, every measure of ``[measures].compare``) of the distinct nodes
    of a ``lattice_optima`` table, with ``algorithm`` "optimum": the true optima next to the candidates."""
    study = _without_degradation(study)
    ids = list(study.compare)
    labels = list(dict.fromkeys(optima.solution)) if len(optima) else []
    nodes = [node_of(dataset, s) for s in labels]
    evaluator = evaluator_for(study, dataset)
    values = node_values(study, dataset, evaluator, nodes, ids)
    return _table([{"k": study.k, "engine": "lattice", "algorithm": OPTIMUM, "solution": label,
                    **suppression_of(evaluator.evaluate(node).suppressed, dataset.n), **{m: v[m] for m in ids},
                    **node_risk(evaluator, node), **node_verdict(evaluator, node)}
                   for label, node, v in zip(labels, nodes, values, strict=True)], ids)


def _lattice_part(study: Study, dataset: Dataset, candidates: str) -> list[dict[str, object]]:
    """One setting's lattice rows (a sweep's unit of work)."""
    return _lattice_rows(study, dataset, candidates, 10, SolutionProgress(None))


def _local_part(study: Study, dataset: Dataset, algorithms: Sequence[str]) -> list[dict[str, object]]:
    """One k's local rows (a sweep's unit of work): the same for every suppression limit."""
    return _local_rows(study, dataset, algorithms, SolutionProgress(None))


def sweep(study: Study, dataset: Dataset, ks: Sequence[int], candidates: str = "k_minimal",
          local_algorithms: Sequence[str] = COMPARED_LOCAL_ALGORITHMS,
          progress: Progress | None = None,
          max_suppressions: Sequence[float] | None = None, jobs: int | None = None,
          backend: str | None = None) -> pd.DataFrame:
    """The solutions over a list of k (and of suppression limits): one row per solution × setting (tidy),
    the ``solutions.csv`` table, each setting's rows those of ``solutions``. With several suppression limits a
    ``max_suppression`` column is appended last (the columns before it keep the contract order).

    The settings' lattice rows and each k's local releases (which ignore the suppression limit, so are made
    once per k; one unit per algorithm when run in parallel) run ``engine.jobs`` at a time on
    ``engine.sweep_backend`` (``workbench.jobs.parallel``); ``jobs`` and ``backend`` override them. The table is the
    same, row for row, whatever runs it."""
    if jobs is not None or backend is not None:
        study = replace(study, jobs=study.jobs if jobs is None else jobs,
                        sweep_backend=study.sweep_backend if backend is None else backend)
    from workbench.jobs.parallel import parallel_map, workers

    study = _without_degradation(study)
    limits = list(max_suppressions) if max_suppressions else [study.max_suppression]
    grid = [(k, sup) for k in ks for sup in limits]
    # in parallel each local algorithm is its own unit (its LUB tables built again, ~0.1 s on Adult, for balance)
    groups = [(a,) for a in local_algorithms] if workers(study) != 1 and len(local_algorithms) > 1 \
        else [tuple(local_algorithms)]
    units: list[tuple[object, ...]] = []
    labels: list[str] = []
    index: dict[tuple[object, ...], list[int]] = {}  # ("lattice", k, sup) or ("local", k) -> its units
    for k, sup in grid:  # in the order the settings are listed: each k's local releases after its first setting
        setting = replace(study, k=k, max_suppression=sup)
        index[("lattice", k, sup)] = [len(units)]
        units.append((_lattice_part, setting, dataset, candidates))
        labels.append(f"k = {k}, max_suppression = {sup:g}: lattice candidates done")
        if ("local", k) not in index:
            index[("local", k)] = list(range(len(units), len(units) + len(groups)))
            units += [(_local_part, setting, dataset, group) for group in groups]
            labels += [f"k = {k}: local release{'s' if len(g) != 1 else ''} {', '.join(g)} done" for g in groups]

    def done(i: int, _: object) -> None:
        if progress:
            progress((i + 1) / len(units), labels[i])

    parts = parallel_map(_run_part, units, study, done)
    frames = []
    for k, sup in grid:
        rows = [row for key in (("lattice", k, sup), ("local", k)) for i in index[key] for row in parts[i]]
        table = _table(rows, study.compare)
        if len(limits) > 1:
            table["max_suppression"] = sup
        frames.append(table)
    return pd.concat(frames, ignore_index=True)


def _run_part(part: Callable[..., list[dict[str, object]]], *args: object) -> list[dict[str, object]]:
    """One unit of a sweep (a module-level function: a worker process imports it)."""
    return part(*args)
