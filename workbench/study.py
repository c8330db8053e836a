"""Running a study: config -> dataset -> engine -> Release -> measures.

This is the only place that joins the engines and the measure registry: it builds the objective callable
that a search minimizes from ``measures.MEASURES``, so engines never import measures.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

import measures as M
from measures.information_weights import column_weights, pmi_node_costs
from workbench.config import Study
from workbench.data import Dataset, read_table
from workbench.errors import ConfigError, DataError
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import FrequencySet, NodeEvaluator
from workbench.lattice.search import ALGORITHMS, Limits, Objective, SearchResult, best_of
from workbench.lattice.space import Node
from workbench.lattice.tagging import TaggedLattice
from workbench.local import LOCAL_ALGORITHMS, POSETS
from workbench.local.lub import LocalColumn, LocalProblem, LocalResult
from workbench.local.posets import FinitePoset
from workbench.policy import monotone_refusal
from workbench.privacy.base import Admissibility, limit_of
from workbench.privacy.build import admissibility_for
from workbench.release import Guarantee, Release


# ---------------------------------------------------------------------------------------------- dataset
def load_dataset(study: Study) -> Dataset:
    """The study's data with roles and hierarchies (embedded sample or file + hierarchy files/builders)."""
    if study.sample is not None:
        from workbench.samples import load_sample

        sample = load_sample(study.sample)
        frame, roles, hierarchies = sample.frame, dict(sample.roles), dict(sample.hierarchies)
        source = f"sample:{study.sample}"
    else:
        assert study.data_path is not None
        frame = read_table(study.data_path, study.separator)
        roles, hierarchies, source = {}, {}, str(study.data_path)
    if study.rows is not None:
        frame = frame.iloc[: study.rows]
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
                             without_hierarchy=poset_only if study.engine == "local" else ())
    if not dataset.quasi_identifiers:
        raise ConfigError(f"{study.source}: no quasi-identifier: give at least one attribute role = \"quasi\"")
    return dataset


# ---------------------------------------------------------------------------------------------- measures
def target_codes(study: Study, dataset: Dataset) -> np.ndarray | None:
    """Integer codes of ``[measures].target`` (None without a target)."""
    if study.target is None:
        return None
    return np.unique(dataset.frame[study.target].to_numpy(dtype=str), return_inverse=True)[1].reshape(-1)


def check_measures(study: Study) -> None:
    """Every measure of ``[measures].compare`` exists, and those that need a target have one."""
    for i in study.compare:
        measure = _lattice_measure(i, "measures.compare")
        if measure.needs_target and study.target is None:
            raise ConfigError(f"measure {i!r} needs a target: set [measures].target to a column")


def score_release(study: Study, release: Release) -> dict[str, M.Score]:
    """Every measure of ``[measures].compare`` on a release (either engine), cell by cell."""
    return M.score(release.view(), study.compare, target_codes(study, release.dataset),
                   {"col_mi": {"kind": study.col_mi_weights}})


def _lattice_measure(measure_id: str, role: str) -> M.Measure:
    if measure_id not in M.MEASURES:
        raise ConfigError(f"{role} {measure_id!r} is not available in this version; available: "
                          f"{', '.join(M.MEASURES)}")
    return M.MEASURES[measure_id]


# Measures whose value at a lattice node is an integer (a sum of levels or of squared class sizes, exact in a
# float below 2**53): searches compare them without any tolerance.
INTEGER_MEASURES = tuple(i for i, m in M.MEASURES.items() if m.integer)


class NodeScorer:
    """Scores lattice nodes from the evaluator's frequency sets (the measures' fast paths)."""

    def __init__(self, evaluator: NodeEvaluator) -> None:
        self.evaluator = evaluator
        self.domains = tuple(c.column_domain() for c in evaluator.columns)

    def view(self, node: Node) -> M.NodeClasses:
        """The measures' fast-path view of a node, from its (cached) frequency set; the suppressed classes are
        those of the admissibility rule (smaller than k, or violating a privacy model)."""
        fs = self.evaluator.frequency_set(node)
        return M.NodeClasses(tuple(node), fs.counts, fs.codes, self.domains, self.evaluator.k,
                             self._suppress(fs))

    def _suppress(self, fs: FrequencySet) -> np.ndarray | None:
        return None if self.evaluator.admissibility.plain else self.evaluator.outcome(fs).suppress

    def scores(self, node: Node, ids: Iterable[str]) -> dict[str, M.Score]:
        ids = list(ids)
        for i in ids:
            _lattice_measure(i, "measures.compare")
        return M.score_node(self.view(node), ids)

    def objective(self, measure_id: str) -> Objective:
        """The loss a lattice search minimizes (one measure on a node's frequency set), with the monotone
        lower bound that branch-and-bound prunes with."""
        measure = _lattice_measure(measure_id, "engine.objective")
        fast, lower = measure.node, measure.node_lower_bound()
        if fast is None or lower is None:
            raise ConfigError(f"engine.objective {measure_id!r} has no lattice fast path")
        return Objective(measure_id, lambda node: fast(self.view(node)), lambda node: lower(self.view(node)),
                         measure.monotone, integer=measure_id in INTEGER_MEASURES)


def lattice_table(evaluator: NodeEvaluator, ids: Sequence[str] | None = None,
                  nodes: Iterable[Node] | None = None) -> pd.DataFrame:
    """One row per node (default: every node, by rank): levels, rank, classes, suppressed,
    k-anonymity and every measure. The table behind the lattice pictures.

    For the whole lattice the frequency sets come from one depth-first roll-up pass (El Emam 2009; Issa 2009
    ch. 5; ``NodeEvaluator.all_frequency_sets``), without filling the evaluator's cache, and the rows are then
    put in ``lattice.nodes()`` order."""
    ids = list(ids or M.LATTICE_MEASURES)
    fast = {i: _lattice_measure(i, "measure").node for i in ids}
    missing = [i for i, f in fast.items() if f is None]
    if missing:
        raise ConfigError(f"measure(s) {', '.join(missing)} have no lattice fast path; lattice measures: "
                          f"{', '.join(M.LATTICE_MEASURES)}")
    scorer = NodeScorer(evaluator)
    names = [c.name for c in evaluator.columns]
    k, rule = evaluator.k, evaluator.admissibility
    if nodes is None:
        sets = evaluator.all_frequency_sets()
    else:  # given nodes are checked one by one (counted in ``evaluator.checks``), from its cache
        sets = (evaluator.frequency_set(evaluator.evaluate(node).node) for node in nodes)
    levels, classes, suppressed, admissible = [], [], [], []
    values: dict[str, list[float]] = {i: [] for i in ids}
    for fs in sets:
        outcome = evaluator.outcome(fs)
        view = M.NodeClasses(fs.node, fs.counts, fs.codes, scorer.domains, k, None if rule.plain else outcome.suppress)
        levels.append(fs.node)
        classes.append(fs.classes)
        suppressed.append(outcome.suppressed)
        admissible.append(outcome.admissible)
        for i, f in fast.items():
            values[i].append(f(view))
    if nodes is None:  # depth-first order -> by rank, then lexicographically
        position = {node: i for i, node in enumerate(evaluator.lattice.nodes())}
        order = sorted(range(len(levels)), key=lambda r: position[levels[r]])
        levels, classes, suppressed, admissible = ([seq[r] for r in order]
                                                   for seq in (levels, classes, suppressed, admissible))
        values = {i: [v[r] for r in order] for i, v in values.items()}
    level_array = np.array(levels, dtype=np.int64).reshape(len(levels), len(names))
    table = pd.DataFrame({"node": [evaluator.lattice.label(node) for node in levels]})
    for j, name in enumerate(names):
        table[name] = level_array[:, j]
    table["rank"] = level_array.sum(axis=1)
    table["classes"] = np.array(classes, dtype=np.int64)
    table["suppressed"] = np.array(suppressed, dtype=np.int64)
    table["k_anonymous"] = np.array(admissible, dtype=bool)
    for i in ids:
        table[i] = np.array(values[i], dtype=float)
    return table


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
        } | ({"note": self.search.note} if self.search is not None and self.search.note else {})

    def privacy_models(self) -> dict[str, dict[str, object]]:
        """Per configured privacy model (``[privacy.MODEL]`` name): its parameters, its description and whether
        it holds on the release, re-verified from the released table (False without a release)."""
        if not self.study.privacy_models:
            return {}
        models = admissibility_for(self.study, self.dataset).models
        verified = self.guarantee.models if self.guarantee is not None else {}
        return {spec.kind: model.as_dict() | {"description": model.describe(),
                                              "holds": bool(verified.get(model.describe(), False))}
                for spec, model in zip(self.study.privacy_models, models, strict=True)}

    def risk(self) -> dict[str, object] | None:
        """Re-identification risk of the release after suppression (``workbench.risk.risk_of_release``: the
        suppressed records form one class of ``*``), with population uniqueness when ``[privacy.risk]`` gives a
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


def admissibility(study: Study, dataset: Dataset) -> Admissibility:
    """The study's admissibility rule: k, the suppression limit and every ``[privacy.*]`` model."""
    return admissibility_for(study, dataset)


def evaluator_for(study: Study, dataset: Dataset) -> NodeEvaluator:
    check_k(study, dataset)
    return NodeEvaluator(dataset.encoded, study.k, study.max_suppression, admissibility_for(study, dataset))


# searches whose exploration assumes admissibility is monotone (predictive tagging, binary search on height)
MONOTONE_SEARCHES = ("samarati", "ola", "flash")


def check_monotone_admissibility(rule: Admissibility, algorithm: str) -> None:
    """Refuse a search that relies on monotone admissibility when a privacy model makes it non-monotone."""
    bad = rule.non_monotone_models()
    if bad and algorithm in MONOTONE_SEARCHES:
        names = "; ".join(m.describe() for m in bad)
        raise ConfigError(
            f"engine.algorithm {algorithm!r} assumes admissibility is monotone, and {names} is not monotone with "
            f"suppression (records of violating classes are suppressed, as in ARX); use 'exhaustive', 'bnb' or "
            "'incognito', or set privacy.max_suppression = 0")


def _check_runnable(study: Study, algorithm: str) -> None:
    if study.engine != "lattice":
        raise ConfigError(f"engine.algorithm {algorithm!r} is a local algorithm; lattice searches need "
                          "engine.kind = 'lattice'")
    _lattice_measure(study.objective, "engine.objective")
    refusal = monotone_refusal(study, algorithm)
    if refusal:
        raise ConfigError(refusal)
    check_measures(study)


def search(study: Study, dataset: Dataset, algorithm: str | None = None) -> SearchResult:
    """Run one lattice search on a fresh evaluator (so checks and times are the algorithm's own)."""
    algorithm = algorithm or study.algorithm
    _check_runnable(study, algorithm)
    spec = ALGORITHMS[algorithm]
    evaluator = evaluator_for(study, dataset)
    check_monotone_admissibility(evaluator.admissibility, algorithm)
    objective = NodeScorer(evaluator).objective(study.objective)
    result = spec.search(TaggedLattice(evaluator), objective, Limits(study.time_limit, study.search_seed))
    if result.proven_optimal and spec.requires_monotone and not objective.monotone:
        result = replace(result, proven_optimal=False,
                         note=f"{algorithm} assumes a monotone objective; {study.objective} is not, so the node "
                              "is k-anonymous but not proven optimal: bnb and exhaustive are optimal for any "
                              "objective")
    return result


Progress = Callable[[float, str], None]
"""Told how far a long call is: ``progress(fraction done, what is happening)``, the one signature of every
``progress`` argument (run, comparisons, model degradation, experiments)."""


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
    result = search(study, dataset)
    if result.optimum is None:
        return RunResult(study, dataset, None, {}, result, result.checks, result.seconds)
    report(0.6, "building the release")
    release = Release.from_node(dataset, result.optimum, study.k, study.max_suppression, study.algorithm,
                                admissibility_for(study, dataset))
    report(0.75, "scoring it under every measure")
    scores = score_release(study, release)
    report(1.0, "done")
    return RunResult(study, dataset, release, scores, result, result.checks, result.seconds)


def local_columns(study: Study, dataset: Dataset) -> tuple[list[LocalColumn], np.ndarray]:
    """The local engine's columns (one poset per quasi-identifier, from ``[attributes.x] poset``; default: the
    hierarchy as a tree) and every record's leaf state."""
    specs = {a.name: a for a in study.attributes}
    columns, states = [], []
    for qi in dataset.quasi_identifiers:
        spec = specs.get(qi)
        kind = (spec.poset if spec and spec.poset else "tree")
        values, index = np.unique(dataset.frame[qi].to_numpy(dtype=str), return_inverse=True)
        registered = POSETS[kind]
        assert registered.build is not None  # the config refuses a passthrough quasi-identifier
        parameters = {p: getattr(spec, p) for p in registered.parameters} if spec else {}
        poset = registered.build(values.tolist(), dataset.hierarchies.get(qi), **parameters)
        weight, node_cost = spec.weight if spec else 1.0, None
        if study.objective in ("col_mi", "pmi"):
            target = target_codes(study, dataset)
            if target is None:
                raise ConfigError(f"engine.objective {study.objective!r} needs [measures].target")
            if study.objective == "col_mi":  # Katirai Method 2: column weight = MI(X_j; target) in bits
                weight *= float(column_weights([index.reshape(-1)], target, kind=study.col_mi_weights)[0])
            elif isinstance(poset, FinitePoset):  # Katirai Method 3: each node scored −|PMI(node, c)|
                node_cost = pmi_node_costs(poset.covers, index.reshape(-1), target)
            else:
                raise ConfigError(f"engine.objective 'pmi' needs finite posets; attributes.{qi} is a {kind} poset")
        columns.append(LocalColumn(qi, poset, weight, node_cost))
        states.append(np.asarray(poset.leaves, dtype=np.int64)[index.reshape(-1)])
    return columns, np.stack(states, axis=1)


def local_setup(study: Study, dataset: Dataset) -> tuple[list[LocalColumn], LocalProblem]:
    """The posets and the distinct-row problem of the local engine. Its LUB tables depend on neither k nor
    the algorithm, so one setup serves every local algorithm of a comparison."""
    columns, states = local_columns(study, dataset)
    return columns, LocalProblem.build(columns, states)


def local_release(study: Study, dataset: Dataset, setup: tuple[list[LocalColumn], LocalProblem] | None = None,
                  progress: Progress | None = None) -> tuple[Release, LocalResult]:
    """The release of the study's local algorithm (Katirai 2006), from ``setup`` when given."""
    report = progress or (lambda fraction, text: None)
    if study.algorithm not in LOCAL_ALGORITHMS:
        raise ConfigError(f"engine.algorithm {study.algorithm!r} is not a local algorithm; use one of "
                          f"{', '.join(LOCAL_ALGORITHMS)}")
    check_k(study, dataset)
    report(0.15, "building the posets")
    columns, problem = setup or local_setup(study, dataset)
    report(0.3, f"clustering with {study.algorithm}")
    result = LOCAL_ALGORITHMS[study.algorithm](problem, study.k)
    report(0.6, "building the release")
    return Release.from_local(dataset, columns, result, study.k), result


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


def parse_node(text: str, names: Sequence[str], heights: Sequence[int]) -> Node:
    """``"sex=1,age=2,..."`` -> level vector in quasi-identifier order (every quasi-identifier needed)."""
    levels: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if "=" not in part:
            raise ConfigError(f"--node {text!r}: {part!r} is not NAME=LEVEL")
        name, value = (s.strip() for s in part.split("=", 1))
        if name not in names:
            raise ConfigError(f"--node {text!r}: {name!r} is not a quasi-identifier; they are {', '.join(names)}")
        if name in levels:
            raise ConfigError(f"--node {text!r}: {name!r} is given twice")
        try:
            level = int(value)
        except ValueError:
            raise ConfigError(f"--node {text!r}: level {value!r} of {name!r} is not an integer") from None
        height = heights[list(names).index(name)]
        if not 0 <= level <= height:
            raise ConfigError(f"--node {text!r}: level {level} of {name!r} is outside 0..{height}")
        levels[name] = level
    missing = [n for n in names if n not in levels]
    if missing:
        raise ConfigError(f"--node {text!r}: no level for {', '.join(missing)}")
    return tuple(levels[n] for n in names)


def measure(study: Study, nodes: Sequence[str], dataset: Dataset | None = None) -> list[RunResult]:
    """Evaluate given lattice nodes (``workbench measure``): release, guarantee and scores, checks 0."""
    check_measures(study)
    dataset = dataset or load_dataset(study)
    evaluator = evaluator_for(study, dataset)
    names = dataset.quasi_identifiers
    parsed = [parse_node(t, names, evaluator.lattice.heights) for t in nodes]
    out = []
    for node in parsed:
        start = time.perf_counter()
        release = Release.from_node(dataset, node, study.k, study.max_suppression, "measure", evaluator.admissibility)
        scores = score_release(study, release)
        out.append(RunResult(study, dataset, release, scores, None, 0, time.perf_counter() - start))
    return out


SEARCH_RESULT = "search result (not the optimum)"  # lattice_overview's status of a search's non-optimal node


def admissible_optimum(table: pd.DataFrame, objective: str, names: Sequence[str]) -> Node | None:
    """The k-anonymous node of a node table (``lattice_table``, with ``k_anonymous`` under the limit) that
    minimizes ``objective`` over EVERY k-anonymous node, ties to the lowest, then lexicographically smallest
    node (the searches' ``tie_key``); None when no node is k-anonymous. For a non-monotone objective this can
    differ from what Flash or OLA return, which only compare the k-minimal nodes."""
    if objective not in table.columns:
        raise ConfigError(f"the node table has no column {objective!r}")
    admissible = table[table["k_anonymous"]]
    values = dict(zip((tuple(int(v) for v in row) for row in admissible[list(names)].to_numpy()),
                      admissible[objective].to_numpy(dtype=float), strict=True))
    return best_of(values)


def lattice_overview(study: Study, dataset: Dataset | None = None,
                     table: pd.DataFrame | None = None) -> tuple[pd.DataFrame, SearchResult]:
    """Every lattice node with its measures (``lattice_table``), plus what the study's search did: a
    ``status`` column, ``checked`` and ``trace`` (the order in which the search evaluated the node, or
    "predicted" / "pruned" / ""). ``status`` is "optimum" for the objective's optimum over every k-anonymous
    node (``admissible_optimum``, whatever the search), ``SEARCH_RESULT`` for the search's node when it is
    not that optimum (e.g. Flash with a non-monotone objective), else k-anonymous / not k-anonymous.

    ``table``: a ``lattice_table`` of the same dataset and k computed before (it depends on neither the
    suppression limit nor the search, so a caller may reuse it across them); ``k_anonymous`` is recomputed
    under this study's suppression limit."""
    dataset = dataset or load_dataset(study)
    result = search(study, dataset)
    if table is None or study.privacy_models:  # the models' suppression is not a function of the limit alone
        table = lattice_table(evaluator_for(study, dataset))
    else:
        names = dataset.quasi_identifiers
        expected = {"node", "suppressed", *names}
        if not expected <= set(table.columns) or len(table) != math.prod(h + 1 for h in
                                                                         (c.height for c in dataset.encoded)):
            raise ConfigError("lattice_overview: the given table is not a lattice_table of this dataset "
                              f"(columns {', '.join(sorted(expected))} and one row per node needed)")
        table = table.copy()
        table["k_anonymous"] = table["suppressed"] <= limit_of(study.max_suppression, dataset.n)
    names = dataset.quasi_identifiers
    keys = [tuple(int(v) for v in row) for row in table[names].to_numpy()]
    order: dict[tuple[int, ...], str] = {}
    for e in result.trace.events:
        if e.node not in order:
            order[e.node] = str(e.step) if e.action == "check" else e.action
    table["trace"] = [order.get(k, "") for k in keys]
    table["checked"] = [order.get(k, "").isdigit() for k in keys]
    table["status"] = np.where(table.k_anonymous, "k-anonymous", "not k-anonymous")
    optimum = admissible_optimum(table, study.objective, names)
    if result.optimum is not None and result.optimum != optimum:
        table.loc[[k == result.optimum for k in keys], "status"] = SEARCH_RESULT
    if optimum is not None:
        table.loc[[k == optimum for k in keys], "status"] = "optimum"
    return table, result
