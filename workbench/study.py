"""Running a study: config -> dataset -> engine -> Release -> measures.

``load_dataset`` reads the data, ``run`` dispatches to a lattice search or the local engine and scores the release
(``workbench.objective``), returning a ``RunResult``; ``compare_algorithms`` runs several searches on one config.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError, DataError
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import Limits, SearchResult
from workbench.lattice.tagging import TaggedLattice
from workbench.local import LOCAL_ALGORITHMS, MODEL_ENFORCING, POSETS
from workbench.local.lub import LocalColumn, LocalProblem, LocalResult
from workbench.local.setup import local_setup
from workbench.objective import NodeScorer, _lattice_measure, check_measures, local_weigh, score_release
from workbench.policy import (
    admissibility_refusal,
    local_refusal,
    local_rule,
    monotone_refusal,
    non_monotone_warning,
    search_refusal,
    time_budget,
)
from workbench.privacy.build import admissibility_for
from workbench.privacy.delta_presence import research_subset
from workbench.readers import read_data_file
from workbench.release import Release
from workbench.release.verify import Guarantee


# ---------------------------------------------------------------------------------------------- dataset
def load_dataset(study: Study) -> Dataset:
    """The study's data with roles and hierarchies (embedded sample or file + hierarchy files/builders)."""
    if study.sample is not None:
        from workbench.samples import load_sample

        sample = load_sample(study.sample)
        frame, roles, hierarchies = sample.frame, dict(sample.roles), dict(sample.hierarchies)
        source, digest = f"sample:{study.sample}", None
    else:
        assert study.data_path is not None
        frame, digest = read_data_file(study.data_path, study.separator)
        roles, hierarchies, source = {}, {}, str(study.data_path)
    if study.rows is not None:
        frame = frame.iloc[: study.rows]
    frame, population = research_subset(study, frame, source)  # δ-presence: release the research subset
    declared: dict[str, str] = {}
    for spec in study.attributes:
        if spec.name not in frame.columns:
            raise DataError(f"{study.source}: attribute {spec.name!r} is not a column of {source}; "
                            f"the columns are {', '.join(map(repr, frame.columns))}")
        if spec.hierarchy is not None:
            hierarchies[spec.name] = Hierarchy.read_arx(spec.hierarchy)
        elif spec.builder is not None:
            from workbench.hierarchy.builders import build_hierarchy

            values = sorted(frame[spec.name].astype(str).unique().tolist())
            hierarchies[spec.name] = build_hierarchy(spec.builder, values, name=f"{spec.name} builder")
        has_hierarchy = spec.name in hierarchies
        declared[spec.name] = spec.role or roles.get(spec.name) or ("quasi" if has_hierarchy else "insensitive")
    # config order first (it is the quasi-identifier order), then the sample's remaining roles
    roles = declared | {a: r for a, r in roles.items() if a not in declared}
    if study.target is not None:
        if study.target not in frame.columns:
            raise DataError(f"{study.source}: measures.target {study.target!r} is not a column of {source}")
        if roles.get(study.target) == "quasi":
            raise ConfigError(f"{study.source}: measures.target {study.target!r} is also a quasi-identifier; "
                              "a target among the features would leak the answer")
        roles.setdefault(study.target, "target")
    poset_only = [a.name for a in study.attributes
                  if a.poset is not None and POSETS[a.poset].build is not None and not POSETS[a.poset].uses_hierarchy]
    dataset = Dataset.create(frame, roles, hierarchies, source=source,
                             without_hierarchy=poset_only if study.engine == "local" else (), population=population,
                             input_sha256=digest)
    if not dataset.quasi_identifiers:
        raise ConfigError(f"{study.source}: no quasi-identifier: give at least one attribute role = \"quasi\"")
    return dataset


Progress = Callable[[float, str], None]
"""Told how far a long call is: ``progress(fraction done, what is happening)``, the one signature of every
``progress`` argument (run, comparisons, model degradation, experiments)."""


# ---------------------------------------------------------------------------------------------- running
@dataclass(frozen=True, eq=False)
class RunResult:
    """One run: the release (None when no node is k-anonymous), its verified guarantee, its scores."""

    study: Study
    dataset: Dataset
    release: Release | None
    scores: dict[str, M.Score]
    search: SearchResult | None
    checks: int
    seconds: float

    @cached_property
    def guarantee(self) -> Guarantee | None:
        """The release's guarantee, re-verified from its released table once (None without a release)."""
        return self.release.verify(suppressed_policy=self.study.suppressed) if self.release else None

    @cached_property
    def warnings(self) -> list[str]:
        """What the analyst must know besides the release, the same for every entry point (the CLI prints them and
        adds them to ``--json``): the data file's encoding when it is not UTF-8, and each released column that gives
        a quasi-identifier back (``dependencies.dependency_warnings``)."""
        from workbench.readers import encoding_note
        from workbench.risk.dependencies import dependency_warnings

        path = self.study.data_path
        note = encoding_note(self.dataset.frame, str(path)) if path is not None else None
        return [*([note] if note else []), *dependency_warnings(self.dataset)]

    def attribute_measures(self) -> dict[str, dict[str, float]]:
        """Per-attribute values of the scored measures that are sums, means or geometric means over attributes
        (``measures.attribute_values``), e.g. ``{"loss": {"age": 0.45, ...}}``; {} without a
        release."""
        if self.release is None:
            return {}
        ids = [i for i in self.scores if i in M.MEASURES]
        return M.attribute_values(self.release.view(), ids)

    def summary(self) -> dict[str, object]:
        """The JSON object ``workbench run --json`` prints (a contract: scripts read its keys)."""
        release = self.release
        return {
            "engine": self.study.engine,
            "algorithm": self.search.algorithm if self.search else (
                release.algorithm if release else self.study.algorithm),
            "k": self.study.k,
            "max_suppression": self.study.max_suppression,
            "transformation": release.transformation if release else None,
            "k_anonymous": self.k_anonymous,
            "suppressed": int(release.suppressed.sum()) if release else None,
            "classes": release.classes if release else None,
            "measures": {i: s.value for i, s in self.scores.items()},
            "checks": self.checks,
            "seconds": round(self.seconds, 6),
            "privacy_models": self.privacy_models(),
            "risk": self.risk(),
        } | ({"note": self.search.note} if self.search is not None and self.search.note else {}) | (
            {"lower_bound": self.search.lower_bound, "time_budget": self.search.time_budget}
            if self.search is not None and self.search.time_budget is not None else {})

    def privacy_models(self) -> dict[str, dict[str, object]]:
        """Per configured privacy model (``[privacy.MODEL]`` name): its parameters, its description and whether
        it holds on the release, re-verified from the released table (False without a release)."""
        if not self.study.privacy_models:
            return {}
        models = admissibility_for(self.study, self.dataset).models
        verified = self.guarantee.models if self.guarantee is not None else {}
        return {spec.kind: model.as_dict() | {"description": model.describe(), "in_words": model.in_words(),
                                              "holds": bool(verified.get(model.describe(), False))}
                for spec, model in zip(self.study.privacy_models, models, strict=True)}

    def risk(self) -> dict[str, object] | None:
        """Re-identification risk of the release after suppression (``workbench.risk.risk_of_release``: the
        suppressed records form one group of ``*``), with population uniqueness when ``[privacy.risk]`` gives a
        population; None without a release."""
        if self.release is None:
            return None
        from workbench.risk import risk_of_release

        population = next((spec.get("population") for spec in self.study.privacy_models
                           if spec.kind == "risk" and spec.get("population")), None)
        return risk_of_release(self.release, population_size=population).to_dict()

    @property
    def k_anonymous(self) -> bool:
        """Admissible: every class of kept records has at least k of them AND the suppressed records are within
        the limit, ``suppressed <= floor(max_suppression · n)`` (docs/measures.md). A node over the limit is not
        k-anonymous, although the classes left after suppressing it are all of size k or more."""
        release = self.release
        if release is None or int(release.suppressed.sum()) > release.limit:
            return False
        guarantee = self.guarantee
        return bool(guarantee and guarantee.holds and guarantee.kind == "k-anonymity") \
            or release.smallest_class() >= self.study.k


def check_k(study: Study, dataset: Dataset) -> None:
    """k above the number of records leaves no release that keeps a record (with a suppression limit of 100 %
    every node would pass, releasing nothing): refused by both engines."""
    if dataset.n < study.k:
        raise ConfigError(f"{dataset.n:,} records cannot be made {study.k}-anonymous: k exceeds the number of "
                          "records")


def evaluator_for(study: Study, dataset: Dataset) -> NodeEvaluator:
    check_k(study, dataset)
    return NodeEvaluator(dataset.encoded, study.k, study.max_suppression, admissibility_for(study, dataset))


def _check_runnable(study: Study, algorithm: str) -> None:
    if study.engine != "lattice":
        raise ConfigError(f"engine.algorithm {algorithm!r} is a local algorithm; lattice searches need "
                          "engine.kind = 'lattice'")
    _lattice_measure(study.objective, "engine.objective")
    refusal = monotone_refusal(study, algorithm)
    if refusal:
        raise ConfigError(refusal)
    check_measures(study)


def search(study: Study, dataset: Dataset, algorithm: str | None = None,
           progress: Progress | None = None) -> SearchResult:
    """Run one lattice search on a fresh evaluator (so checks and times are the algorithm's own), after the refusals
    every entry point shares (``policy.run_refusal``: a non-monotone objective, a lattice too large for an untimed
    search, a privacy model a pruning search cannot honour), raised as ``ConfigError``. An anytime search over a
    large lattice without ``engine.time_limit`` runs under ``policy.time_budget``'s default, which its note states;
    Flash and OLA skip nodes by the objective's bound (``Limits.prune``). ``progress`` is told the share of the
    lattice decided from time to time."""
    algorithm = algorithm or study.algorithm
    _check_runnable(study, algorithm)
    spec = ALGORITHMS[algorithm]
    evaluator = evaluator_for(study, dataset)
    refusal = (search_refusal(algorithm, study.time_limit, evaluator.lattice.size)
               or admissibility_refusal(evaluator.admissibility, algorithm))  # policy.run_refusal, on this evaluator
    if refusal:
        raise ConfigError(refusal)
    objective = NodeScorer(evaluator).objective(study.objective)
    time_limit, budget = time_budget(algorithm, study.time_limit, evaluator.lattice.size)
    limits = Limits(time_limit, study.search_seed, prune=True, progress=progress)
    result = spec.search(TaggedLattice(evaluator), objective, limits)
    if result.proven_optimal and spec.requires_monotone and not objective.monotone:
        result = replace(result, proven_optimal=False,
                         note=non_monotone_warning(algorithm, study.objective))
    if budget:
        result = replace(result, note="; ".join(part for part in (budget, result.note) if part))
    return result


def run(study: Study, dataset: Dataset | None = None, progress: Progress | None = None) -> RunResult:
    """Run the study's engine and algorithm; score the release under ``[measures].compare``. ``progress``
    is told each phase (a fraction done and what comes next)."""
    report = progress or (lambda fraction, text: None)
    if study.engine == "local":
        return run_local(study, dataset, report)
    _check_runnable(study, study.algorithm)
    report(0.05, "loading the data")
    dataset = dataset or load_dataset(study)
    report(0.15, f"searching the lattice with {study.algorithm}")
    result = search(study, dataset, progress=lambda share, text: report(0.15 + 0.45 * share,
                                                                         f"{study.algorithm}: {text}"))
    if result.optimum is None:
        return RunResult(study, dataset, None, {}, result, result.checks, result.seconds)
    report(0.6, "building the release")
    release = Release.from_node(dataset, result.optimum, study.k, study.max_suppression, study.algorithm,
                                admissibility_for(study, dataset))
    report(0.75, "scoring it under every measure")
    scores = score_release(study, release)
    report(1.0, "done")
    return RunResult(study, dataset, release, scores, result, result.checks, result.seconds)


def local_release(study: Study, dataset: Dataset, setup: tuple[list[LocalColumn], LocalProblem] | None = None,
                  progress: Progress | None = None) -> tuple[Release, LocalResult]:
    """The release of the study's local algorithm (Katirai 2006), from ``setup`` when given. A configured privacy
    model the algorithm cannot enforce is refused (``policy.local_refusal``: ConfigError, one line); Mondrian enforces
    the class-level ones at every cut, and the release carries them all, so ``Release.verify`` re-checks each."""
    report = progress or (lambda fraction, text: None)
    if study.algorithm not in LOCAL_ALGORITHMS:
        raise ConfigError(f"engine.algorithm {study.algorithm!r} is not a local algorithm; use one of "
                          f"{', '.join(LOCAL_ALGORITHMS)}")
    check_k(study, dataset)
    rule = local_rule(study, dataset)
    refusal = local_refusal(rule, study.algorithm, dataset)
    if refusal:
        raise ConfigError(refusal)
    report(0.15, "building the posets")
    columns, problem = setup or local_setup(study, dataset, local_weigh(study, dataset))
    report(0.3, f"clustering with {study.algorithm}")
    search = LOCAL_ALGORITHMS[study.algorithm]
    result = search(problem, study.k, rule.models) if study.algorithm in MODEL_ENFORCING else search(problem, study.k)
    report(0.6, "building the release")
    return Release.from_local(dataset, columns, result, study.k, rule), result


def run_local(study: Study, dataset: Dataset | None = None, progress: Progress | None = None) -> RunResult:
    """Local recoding (Katirai 2006): Greedy, overlapping Greedy or Partition over the attributes' posets."""
    report = progress or (lambda fraction, text: None)
    if study.algorithm not in LOCAL_ALGORITHMS:
        raise ConfigError(f"engine.algorithm {study.algorithm!r} is not a local algorithm; use one of "
                          f"{', '.join(LOCAL_ALGORITHMS)}")
    check_measures(study)
    report(0.05, "loading the data")
    dataset = dataset or load_dataset(study)
    release, result = local_release(study, dataset, progress=report)
    report(0.75, "scoring it under every measure")
    scores = score_release(study, release)
    report(1.0, "done")
    return RunResult(study, dataset, release, scores, None, 0, result.seconds)


def compare_algorithms(study: Study, algorithms: Sequence[str] | None = None,
                       dataset: Dataset | None = None) -> pd.DataFrame:
    """Run several lattice algorithms on one configuration (El Emam 2009's comparison): one row per algorithm
    with its node, objective value, relative information loss against the optimum (100 % = optimal; the
    optimum comes from ``exhaustive``), checks and seconds."""
    algorithms = list(algorithms or ALGORITHMS)
    unknown = [a for a in algorithms if a not in ALGORITHMS]
    if unknown:
        raise ConfigError(f"unknown algorithm(s) {', '.join(unknown)}; known: {', '.join(ALGORITHMS)}")
    dataset = dataset or load_dataset(study)
    results = {a: search(study, dataset, a) for a in algorithms}
    reference = results.get("exhaustive") or search(study, dataset, "exhaustive")
    names = dataset.quasi_identifiers
    rows = []
    for a, r in results.items():
        rows.append({
            "algorithm": a,
            "node": ",".join(f"{q}={v}" for q, v in zip(names, r.optimum, strict=True)) if r.optimum else None,
            "objective": study.objective,
            "value": r.value,
            "relative_loss_pct": relative_loss(r.value, reference.value),
            "proven_optimal": r.proven_optimal,
            "checks": r.checks,
            "subset_checks": r.subset_checks,
            "seconds": r.seconds,
        })
    return pd.DataFrame(rows)


def relative_loss(value: float | None, optimum: float | None) -> float | None:
    """100 · IL / IL(optimum) (El Emam 2009); 100 when both are 0, None when undefined."""
    if value is None or optimum is None:
        return None
    if optimum == 0:
        return 100.0 if value == 0 else None
    return 100.0 * value / optimum
