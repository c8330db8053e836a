"""Which rules each lattice node satisfies: k-anonymity alone, each privacy model of a study alone, and all of them
together as the engine decides admissibility (``model_satisfaction``); the Lattice page colours its Hasse diagram
by any of them. docs/privacy.md, "Which nodes satisfy which model"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.lattice.space import Node
from workbench.privacy.base import Admissibility, ClassView, PrivacyModel
from workbench.study import evaluator_for, load_dataset

K_ANONYMITY, ALL_MODELS = "k_anonymity", "all_models"  # model_satisfaction's first and last rule


@dataclass(frozen=True)
class ModelSatisfaction:
    """Which rules each lattice node satisfies. ``table``: one row per node in ``lattice.nodes()`` order (``node``,
    the levels, ``rank``, then one boolean column per rule of ``rules``); ``rules``: column -> what it checks, in
    order: ``K_ANONYMITY``, each privacy model of the study by its config table (``l_diversity``, ``t_closeness``,
    ``beta_likeness``, ``delta_disclosure``, ``alpha_k``, ``delta_presence``, ``k_map``, ``risk``), ``ALL_MODELS``."""

    table: pd.DataFrame
    rules: dict[str, str]


MAX_ESTIMATES = 2_000  # risk figures a lattice-wide view computes step by step (population uniqueness: ms each)


def model_satisfaction(study: Study, dataset: Dataset | None = None, rules: Sequence[str] | None = None,
                       max_estimates: int = MAX_ESTIMATES) -> ModelSatisfaction:
    """Per lattice node, whether it satisfies k-anonymity alone, each privacy model alone, and the whole rule,
    each as the engine decides admissibility (``privacy.base.Admissibility``; ARX, Prasser et al. 2016): the
    classes that break the rule are suppressed (for a risk threshold, then the smallest classes until it holds)
    and the node satisfies it when the suppressed records are within ``floor(max_suppression · n)``. A model
    alone is checked without k (k = 1). The rules share one suppression budget only in ``ALL_MODELS``, so a node
    can satisfy each rule alone and still fail them together. ``rules``: the columns to compute (default all).

    Every node's classes come from one roll-up pass over the frequency sets (``all_frequency_sets``), each rule
    judging the same class view (class sizes and per-class histograms of the sensitive values). A risk threshold
    judged one suppression step at a time (population uniqueness: an estimator solved per step) is refused with a
    ``ConfigError`` beyond ``max_estimates`` evaluations over the lattice."""
    dataset = dataset or load_dataset(study)
    evaluator = evaluator_for(study, dataset)
    whole = evaluator.admissibility
    n, limit = dataset.n, study.max_suppression
    budget = _Budget(max_estimates, int(evaluator.lattice.size))
    models = [_OncePerView(m, budget) for m in whole.models]  # each model judges a node's classes once per rule
    available: dict[str, tuple[str, Admissibility, list[_OncePerView]]] = {
        K_ANONYMITY: (f"k-anonymity (k = {study.k})", Admissibility(study.k, limit, n), [])}
    for spec, model in zip(study.privacy_models, models, strict=True):
        available[spec.kind] = (model.describe(), Admissibility(1, limit, n, [model]), [model])  # type: ignore[list-item]
    available[ALL_MODELS] = (f"k = {study.k} and every model together (the engine's admissibility)",
                             Admissibility(study.k, limit, n, models), models)  # type: ignore[arg-type]
    unknown = [r for r in rules or () if r not in available]
    if unknown:
        raise ConfigError(f"model_satisfaction: no rule {', '.join(map(repr, unknown))}; this study's rules are "
                          f"{', '.join(available)}")
    chosen = {r: available[r] for r in available if rules is None or r in rules}
    for _, _, used in chosen.values():
        for model in used:
            budget.check(model)
    levels: list[Node] = []
    held: dict[str, list[bool]] = {rule: [] for rule in chosen}
    for fs in evaluator.all_frequency_sets():
        view = evaluator.class_view(fs)
        levels.append(fs.node)
        for rule, (_, admissibility, _) in chosen.items():
            held[rule].append(admissibility.outcome(view).admissible)
    position = {node: i for i, node in enumerate(evaluator.lattice.nodes())}
    order = sorted(range(len(levels)), key=lambda r: position[levels[r]])
    names = list(dataset.quasi_identifiers)
    level_array = np.array([levels[r] for r in order], dtype=np.int64).reshape(len(order), len(names))
    table = pd.DataFrame({"node": [evaluator.lattice.label(levels[r]) for r in order]})
    for j, name in enumerate(names):
        table[name] = level_array[:, j]
    table["rank"] = level_array.sum(axis=1)
    for rule, values in held.items():
        table[rule] = np.array(values, dtype=bool)[order]
    return ModelSatisfaction(table, {rule: text for rule, (text, _, _) in chosen.items()})


class _Budget:
    """How many step-by-step risk evaluations ``model_satisfaction`` may spend over a lattice of ``nodes``."""

    def __init__(self, limit: int, nodes: int) -> None:
        self.limit, self.nodes, self.spent = limit, nodes, 0

    def refusal(self, model: PrivacyModel, needed: str) -> ConfigError:
        return ConfigError(f"{model.describe()} is judged one suppression step at a time: {needed} over this lattice "
                           f"of {self.nodes:,} nodes, more than the {self.limit:,} a view of the whole lattice "
                           "computes; choose another rule, or a search (Anonymize) that checks fewer nodes")

    def check(self, model: _OncePerView) -> None:
        """Refuse at once when the model needs at least one evaluation per node, more than the budget."""
        if model.stepwise and self.nodes > self.limit:
            raise self.refusal(model, "at least one evaluation per node")

    def spend(self, model: _OncePerView) -> None:
        self.spent += 1
        if self.spent > self.limit:
            raise self.refusal(model, f"more than {self.limit:,} evaluations (one per node and step)")


class _OncePerView:
    """A privacy model whose class-level verdicts (``violating``, ``node_fulfilled``) are computed once per class
    view and reused by every rule that judges the same view; a release-level model without a vectorized
    enforcement (``fulfilled_prefixes`` gives None: population uniqueness) spends the budget on every
    ``fulfilled``. Everything else is the model's own."""

    def __init__(self, model: PrivacyModel, budget: _Budget) -> None:
        self._model, self._budget = model, budget
        self._view: ClassView | None = None
        self._memo: dict[str, object] = {}
        empty = np.zeros(0, dtype=np.int64)
        self.stepwise = model.release_level and model.fulfilled_prefixes(empty, empty, 1) is None

    def __getattr__(self, name: str) -> object:
        return getattr(self._model, name)

    def _once(self, name: str, view: ClassView) -> object:
        if view is not self._view:
            self._view, self._memo = view, {}
        if name not in self._memo:
            self._memo[name] = getattr(self._model, name)(view)
        return self._memo[name]

    def violating(self, view: ClassView) -> np.ndarray:
        return self._once("violating", view)  # type: ignore[return-value]

    def node_fulfilled(self, view: ClassView) -> bool:
        return self._once("node_fulfilled", view)  # type: ignore[return-value]

    def fulfilled(self, kept_sizes: np.ndarray, n: int) -> bool:
        if self.stepwise:
            self._budget.spend(self)
        return self._model.fulfilled(kept_sizes, n)


def satisfaction_by_height(satisfaction: ModelSatisfaction) -> pd.DataFrame:
    """``model_satisfaction``'s table per height (rank): ``nodes``, and per rule the nodes that satisfy it."""
    table = satisfaction.table
    groups = table.groupby("rank", sort=True)
    out = pd.DataFrame({"nodes": groups.size()})
    for rule in satisfaction.rules:
        out[rule] = groups[rule].sum().astype(np.int64)
    return out.reset_index()
