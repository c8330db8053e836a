"""The objective a study's search minimizes and the scores of its releases, from the measure registry.

This is the only place that joins the engines and the measure registry: it builds the objective callable
that a lattice search minimizes (``NodeScorer``) and the local engine's column weights (``local_weigh``) from
``measures.MEASURES``, so engines never import measures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property

import numpy as np

import measures as M
from measures.information_weights import column_weights, pmi_node_costs
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.grouping import group_rows
from workbench.lattice.evaluate import FrequencySet, NodeEvaluator
from workbench.lattice.search.result import Objective
from workbench.lattice.space import Node
from workbench.local.lub import Poset
from workbench.local.posets import FinitePoset
from workbench.local.setup import Weigh
from workbench.release import Release, generalized_column
from workbench.user_measure import at


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


def release_label(release: Release) -> str:
    """What a user measure's error calls a release: its node, or its algorithm's release."""
    if release.transformation:
        return "node " + ",".join(f"{q}={v}" for q, v in release.transformation.items())
    return f"the {release.algorithm} release"


def score_release(study: Study, release: Release) -> dict[str, M.Score]:
    """Every measure of ``[measures].compare`` on a release (either engine). A full-domain (lattice) release is
    scored from its equivalence classes by the measures' fast paths, which equal their cell-level definitions
    (tests/test_measures.py); the other measures, and every measure of a local release, cell by cell."""
    ids = list(study.compare)
    fast = [i for i in ids if M.MEASURES[i].node is not None and not M.MEASURES[i].needs_target] \
        if release.engine == "lattice" and release.transformation is not None and release.view_columns is None else []
    rest = [i for i in ids if i not in fast]
    scores: dict[str, M.Score] = {}
    with at(release_label(release)):
        if fast:
            scores |= M.score_node(release_classes(release), fast)
        if rest:
            scores |= M.score(release.view(), rest, target_codes(study, release.dataset),
                              {"col_mi": {"kind": study.col_mi_weights}})
    return {i: scores[i] for i in ids}


def release_classes(release: Release) -> M.NodeClasses:
    """A lattice release's frequency set, grouped from its released codes: the measures' fast-path view, with the
    release's own suppressed records (every record of a class shares its fate)."""
    assert release.transformation is not None
    columns = release.dataset.encoded
    node = tuple(release.transformation[c.name] for c in columns)
    level = np.stack([release.codes[:, j] - c.code_space[0][v] for j, (c, v) in enumerate(zip(columns, node,
                                                                                            strict=True))], axis=1) \
        if columns else np.zeros((release.n, 0), dtype=np.int64)
    groups = group_rows(level, [c.cardinality(v) for c, v in zip(columns, node, strict=True)])
    plain = release.admissibility is None or release.admissibility.plain
    return M.NodeClasses(node, groups.counts, np.ascontiguousarray(level[groups.first]), release.domains(), release.k,
                         None if plain else release.suppressed[groups.first], release.view)


def node_cells(evaluator: NodeEvaluator, node: Node) -> M.Generalized:
    """A lattice node's release cell by cell (``Release.from_node(...).view()`` without the labels), from the
    evaluator's records: what a measure without a fast path (a user measure) reads at a node."""
    columns = tuple(generalized_column(col, col.code_space[0][v] + col.level_codes[col.codes, v],
                                       np.full(evaluator.n, v, dtype=np.int64))
                    for col, v in zip(evaluator.columns, node, strict=True))
    return M.Generalized(columns, evaluator.suppressed_mask(node), evaluator.k)


class _LazyNodeClasses(M.NodeClasses):
    """``NodeClasses`` whose frequency set is asked of the evaluator on first use of the classes."""

    def __init__(self, scorer: NodeScorer, node: Node) -> None:  # noqa: D107 -- the dataclass fields are read lazily
        self.__dict__.update(levels=node, domains=scorer.domains, k=scorer.evaluator.k, _scorer=scorer)

    @cached_property
    def _frequency_set(self) -> FrequencySet:
        return self._scorer.evaluator.frequency_set(self.levels)

    @property
    def n(self) -> int:  # type: ignore[override]
        return self._scorer.evaluator.n  # every node's classes hold all n records: no frequency set needed

    @property
    def class_sizes(self) -> np.ndarray:  # type: ignore[override]
        return self._frequency_set.counts

    @property
    def class_codes(self) -> np.ndarray:  # type: ignore[override]
        return self._frequency_set.codes

    def _decode(self, rows: np.ndarray | None) -> np.ndarray:
        """The codes of the classes at ``rows`` (all when None), for a ``NodeClasses`` that decodes on demand."""
        codes = self._frequency_set.codes
        return codes if rows is None else codes[rows]

    @property
    def suppress(self) -> np.ndarray | None:  # type: ignore[override]
        return self._scorer._suppress(self._frequency_set)

    @property
    def cells(self) -> Callable[[], M.Generalized]:  # type: ignore[override]
        return lambda: node_cells(self._scorer.evaluator, self.levels)


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
        """The measures' fast-path view of a node, from its (cached) frequency set, which is computed only when a
        measure reads the classes (one of the levels alone, such as non-uniform entropy, never does); the
        suppressed classes are those of the admissibility rule (smaller than k, or violating a privacy model)."""
        return _LazyNodeClasses(self, tuple(node))

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
        if measure.higher_is_better:
            raise ConfigError(f"engine.objective {measure_id!r} is higher-is-better and searches minimize; "
                              "choose a measure where lower is better")
        return Objective(measure_id, lambda node: fast(self.view(node)), lambda node: lower(self.view(node)),
                         measure.monotone, integer=measure.integer, cheap_bound=self._reads_levels_only(lower))

    def _reads_levels_only(self, function: Callable[[M.NodeClasses], float]) -> bool:
        """Does ``function`` of a node's view read its levels alone (never the frequency set)? Tried once on the
        top node's view: a bound that needs the classes would cost a roll-up wherever a search asked for it."""
        view = _LazyNodeClasses(self, self.evaluator.lattice.top)
        try:
            function(view)
        except Exception:  # noqa: BLE001 -- a bound that fails here fails where a search asks it, with its message
            return False
        return "_frequency_set" not in view.__dict__


def local_weigh(study: Study, dataset: Dataset) -> Weigh:
    """The local objective's column weights and node costs (``workbench.local.setup.Weigh``): col_mi multiplies a
    column's weight by its mutual information with ``[measures].target`` (Katirai Method 2), pmi scores each node
    of a finite poset −|PMI(node, c)| (Method 3); any other objective keeps the configured weights."""

    def weigh(qi: str, kind: str, poset: Poset, index: np.ndarray, weight: float) -> tuple[float, np.ndarray | None]:
        node_cost = None
        if study.objective in ("col_mi", "pmi"):
            target = target_codes(study, dataset)
            if target is None:
                raise ConfigError(f"engine.objective {study.objective!r} needs [measures].target")
            if study.objective == "col_mi":  # Katirai Method 2: column weight = MI(X_j; target) in bits
                weight *= float(column_weights([index], target, kind=study.col_mi_weights)[0])
            elif isinstance(poset, FinitePoset):  # Katirai Method 3: each node scored −|PMI(node, c)|
                node_cost = pmi_node_costs(poset.covers, index, target)
            else:
                raise ConfigError(f"engine.objective 'pmi' needs finite posets; attributes.{qi} is a {kind} poset")
        return weight, node_cost

    return weigh
