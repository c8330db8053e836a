"""Information-loss measures: pure functions over a release's view (docs/measures.md).

``MEASURES`` maps each measure id (a contract: configs and scripts name measures by id) to its ``Measure``:
name, formula text, direction, monotonicity, source, the cell-level function and, where there is one, the
lattice fast path.
This package never imports ``workbench``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from measures._node import ColumnDomain, Known, NodeClasses
from measures._view import Generalized, GeneralizedColumn
from measures.aecs import aecs, aecs_bound_node, aecs_node
from measures.classification import cm
from measures.discernibility import dm, dm_node, dm_star, dm_star_node
from measures.entropy import entropy, entropy_nm, entropy_nm_node, entropy_node
from measures.geography import GEO_MEASURES
from measures.height import height, height_node
from measures.hierarchy_weights import vinterbo, vinterbo_node
from measures.information import nmi
from measures.information_weights import col_mi, pmi
from measures.loss import (
    geometric_aggregate,
    loss,
    loss_bound_node,
    loss_by_attribute,
    loss_by_attribute_node,
    loss_node,
)
from measures.precision import precision, precision_nm, precision_nm_node, precision_node

__all__ = [
    "GEOMETRIC_MEAN",
    "GEO_MEASURES",
    "Direction",
    "LATTICE_MEASURES",
    "MEAN",
    "MEASURES",
    "SUM",
    "ColumnDomain",
    "Generalized",
    "GeneralizedColumn",
    "Known",
    "Measure",
    "NodeClasses",
    "Score",
    "aggregate",
    "attribute_values",
    "loss_by_attribute",
    "loss_by_attribute_node",
    "register",
    "score",
    "score_node",
    "unregister",
]


SUM, MEAN, GEOMETRIC_MEAN = "sum", "mean", "geometric_mean"
"""Aggregates of per-attribute values (ARX's AggregateFunction): Σ_j x_j, (1/r) Σ_j x_j, Π_j (1 + x_j)^(1/r) − 1."""


class Direction(StrEnum):
    """Which way a measure improves (a string enum: it compares, prints and serializes as its text)."""

    LOWER = "lower is better"
    HIGHER = "higher is better"


@dataclass(frozen=True)
class Measure:
    """Metadata and implementations of one measure. Every measure but NMI is a loss: lower is better.

    ``normalizer``: the value that maps the measure onto [0, 1] (``Score.normalized``). ``lower_bound``: for a
    measure that is not monotone, a monotone lower bound at a node and at all its generalizations.
    ``integer``: its value at a lattice node is an integer (exact in a float below 2**53), compared without
    tolerance. ``exact_node``: the lattice fast path equals the cell-level value bit for bit, so a node's
    value may be taken from its frequency set. ``guides_local``: the local engine can minimize it."""

    id: str
    name: str
    formula: str
    monotone: bool
    source: str
    cell: Callable[[Generalized], float]
    node: Callable[[NodeClasses], float] | None = None
    normalizer: Callable[[Generalized | NodeClasses], float] | None = None
    lower_bound: Callable[[NodeClasses], float] | None = None
    direction: Direction = Direction.LOWER
    needs_target: bool = False  # scored with the target's codes: ``cell(view, target)``
    aggregate: str | None = None  # how per-attribute values make the measure: SUM, MEAN or GEOMETRIC_MEAN
    attributes: Callable[[Generalized], list[float]] | None = None  # per-attribute values, when not cell(column)
    integer: bool = False
    exact_node: bool = False
    guides_local: bool = False
    meaning: str | None = None  # one plain line (a user measure's; built-ins read measures/plain.py)
    origin: str | None = None  # a user measure's source file (None: built in)
    monotone_known: bool = True  # False: a user measure that declared neither monotone nor not (treated as not)

    @property
    def higher_is_better(self) -> bool:
        return self.direction is Direction.HIGHER

    @property
    def plain(self) -> str:
        """The measure in one line of plain words (``measures/plain.py``, or a user measure's ``meaning``), for
        readers who are not engineers."""
        if self.meaning is not None:
            return self.meaning
        from measures.plain import PLAIN

        return PLAIN[self.id]

    @property
    def declared_monotone(self) -> bool | None:
        """Monotone as declared: True, False, or None when a user measure left it unknown."""
        return self.monotone if self.monotone_known else None

    @property
    def user(self) -> bool:
        """Registered by the user (a decorator, a config's plugin file or an installed package)."""
        return self.origin is not None

    def node_lower_bound(self) -> Callable[[NodeClasses], float] | None:
        """A monotone lower bound of this measure at a lattice node and at all its generalizations (the
        branch-and-bound bound of Kohlmayer/Prasser 2016); a monotone measure is its own bound."""
        return self.node if self.monotone else self.lower_bound


@dataclass(frozen=True)
class Score:
    """One measure's value on one release; ``normalized`` in [0, 1] where a sensible bound exists."""

    id: str
    value: float
    normalized: float | None
    direction: Direction
    monotone: bool
    formula: str


def _n_squared(v: Generalized | NodeClasses) -> float:
    return float(v.n) ** 2


def _height_bound(v: Generalized | NodeClasses) -> float:
    if isinstance(v, NodeClasses):
        return float(sum(v.max_heights))
    return float(sum(c.max_height for c in v.columns))


def _unit(v: Generalized | NodeClasses) -> float:
    return 1.0


def _n(v: Generalized | NodeClasses) -> float:
    return float(v.n)


_ALL = [
    Measure("height", "Generalization height", "Σ_j v_j", True, "Samarati 2001", height, height_node,
            _height_bound, aggregate=SUM, integer=True, exact_node=True),
    Measure("precision", "Precision (Prec)", "(1/r) Σ_j v_j / H_j", True, "Sweeney 2002; El Emam 2009",
            precision, precision_node, _unit, aggregate=MEAN),
    Measure("precision_nm", "Precision, suppression charged", "(1/r) Σ_j [(v_j/H_j)(n−S) + S] / n", False,
            "ARX", precision_nm, precision_nm_node, _unit, lower_bound=precision_node, aggregate=MEAN),
    Measure("dm", "Discernibility (DM)", "Σ_{|E|≥k} |E|² + n·S", False, "Bayardo & Agrawal 2005", dm,
            dm_node, _n_squared, lower_bound=dm_star_node, integer=True,  # n·|E| ≥ |E|² for a suppressed class
            exact_node=True),
    Measure("dm_star", "Discernibility, suppression-blind (DM*)", "Σ_E |E|² over all classes", True,
            "El Emam 2009", dm_star, dm_star_node, _n_squared, integer=True, exact_node=True),
    Measure("aecs", "Average equivalence class size", "n / (#{E : |E| ≥ k} + [S > 0])", False,
            "LeFevre 2006; ARX", aecs, aecs_node, _n, lower_bound=aecs_bound_node,
            exact_node=True),
    Measure("entropy", "Non-uniform entropy", "Σ_j Σ_i log2( f̄_j(g_i) / f_j(o_i) )", True,
            "Gionis & Tassa 2009; El Emam 2009", entropy, entropy_node, aggregate=SUM),
    Measure("entropy_nm", "Non-uniform entropy, suppression charged",
            "entropy + Σ_j Σ_y c_{j,y} · log2(S / c_{j,y})", False, "ARX", entropy_nm, entropy_nm_node,
            lower_bound=entropy_node, aggregate=SUM),
    Measure("loss", "Loss (ARX)",
            "Π_j (1 + v_j)^(1/r) − 1,  v_j = (Σ_kept share_j(g) + S − n/D_j)/(n − n/D_j) floored to 10 decimals; "
            "share_j = hierarchy rows under g / rows D_j (interval builders: width / domain width)",
            False, "Iyengar 2002; ARX MetricMDNMLoss (gs-factor 0.5, geometric mean)", loss, loss_node, _unit,
            lower_bound=loss_bound_node, aggregate=GEOMETRIC_MEAN, attributes=loss_by_attribute),
    Measure("vinterbo", "Vinterbo-1.0", "Σ_i Σ_j h_ij / M_j", True, "Katirai 2006 (Vinterbo 2002)", vinterbo,
            vinterbo_node, lambda v: float(v.n * v.r), aggregate=SUM, guides_local=True),
    Measure("col_mi", "Col-MI", "Σ_i Σ_j w_j · h_ij / M_j,  w_j = MI(X_j; target) in bits (original data)", True,
            "Katirai 2006, Method 2", col_mi, needs_target=True, guides_local=True),
    Measure("pmi", "Value-MI (PMI)",
            "Σ cells −|PMI(g, c)|, c = the less frequent target class, add-½ smoothing; suppressed cells 0",
            False, "Katirai 2006, Method 3", pmi, needs_target=True, guides_local=True),
    Measure("nmi", "Normalized mutual information",
            "MI(released QIs; target) / MI(original QIs; target), bits, joint; suppressed records as the root",
            False, "Cover & Thomas 2006 §2.3; Katirai 2006 §2.3", nmi, normalizer=_unit,
            direction=Direction.HIGHER,
            needs_target=True),
    Measure("cm", "Classification metric (CM)",
            "(S + Σ_E (|E| − max_c n_{E,c})) / n: suppressed records and records outside their class's majority "
            "target label, per record",
            False, "Iyengar 2002; ARX MetricSDClassification (normalised by n)", cm, normalizer=_unit,
            needs_target=True),
]

MEASURES: dict[str, Measure] = {m.id: m for m in _ALL}
LATTICE_MEASURES: dict[str, Measure] = {m.id: m for m in _ALL if m.node is not None}
"""Measures with a lattice fast path (computable from a node's frequency set): the search objectives."""
BUILT_IN: frozenset[str] = frozenset(MEASURES)


def register(measure: Measure) -> None:
    """Add a measure to the registry (``MEASURES``, and ``LATTICE_MEASURES`` when it has a node path). The ids of
    the built-in measures are a contract and cannot be taken; any other id is replaced (the caller,
    ``workbench.config.plugins``, decides which replacements it allows)."""
    if measure.id in BUILT_IN:
        raise ValueError(f"measure id {measure.id!r} is a built-in measure's")
    MEASURES[measure.id] = measure
    if measure.node is not None:
        LATTICE_MEASURES[measure.id] = measure
    else:
        LATTICE_MEASURES.pop(measure.id, None)


def unregister(measure_id: str) -> None:
    """Remove a user measure from the registry (built-in measures cannot be removed); unknown ids are ignored."""
    if measure_id in BUILT_IN:
        raise ValueError(f"measure id {measure_id!r} is a built-in measure's")
    MEASURES.pop(measure_id, None)
    LATTICE_MEASURES.pop(measure_id, None)


def _make_score(m: Measure, value: float, view: Generalized | NodeClasses) -> Score:
    normalized = None
    if m.normalizer is not None:
        b = m.normalizer(view)
        normalized = min(max(value / b, 0.0), 1.0) if b > 0 else 0.0
    return Score(m.id, value, normalized, m.direction, m.monotone, m.formula)


def _lookup(ids: Iterable[str]) -> list[Measure]:
    unknown = [i for i in ids if i not in MEASURES]
    if unknown:
        raise KeyError(f"unknown measure id(s): {', '.join(unknown)}; known: {', '.join(MEASURES)}")
    return [MEASURES[i] for i in ids]


def score(view: Generalized, ids: Iterable[str] | None = None, target: np.ndarray | None = None,
          options: dict[str, dict[str, object]] | None = None) -> dict[str, Score]:
    """Score a release (cell-level definitions) under the given measures (all when None; the measures that
    need a target only when ``target``, the target column's codes, is given). ``options``: keyword arguments
    per measure id, e.g. ``{"col_mi": {"kind": "mi_ratio"}}``."""
    options = options or {}
    chosen = _lookup(ids) if ids is not None else [m for m in MEASURES.values() if target is not None
                                                    or not m.needs_target]
    out = {}
    for m in chosen:
        if m.needs_target:
            if target is None:
                raise KeyError(f"measure {m.id!r} needs a target: set [measures].target")
            out[m.id] = _make_score(m, m.cell(view, target, **options.get(m.id, {})), view)
        else:
            out[m.id] = _make_score(m, m.cell(view), view)
    return out


def score_node(node: NodeClasses, ids: Iterable[str] | None = None) -> dict[str, Score]:
    """Score a lattice node from its frequency set (fast paths; equal to ``score`` on the same node)."""
    out = {}
    for m in _lookup(ids or LATTICE_MEASURES):
        if m.node is None:
            raise KeyError(f"measure {m.id!r} has no lattice fast path; score the release instead")
        out[m.id] = _make_score(m, m.node(node), node)
    return out


def aggregate(how: str, values: Iterable[float]) -> float:
    """Combine per-attribute values as the measure does (``Measure.aggregate``; ARX's aggregate functions)."""
    vals = [float(v) for v in values]
    if how == SUM:
        return float(sum(vals))
    if how == MEAN:
        return float(sum(vals)) / len(vals) if vals else 0.0
    if how == GEOMETRIC_MEAN:
        return geometric_aggregate(vals)
    raise ValueError(f"unknown aggregate {how!r}; known: {SUM}, {MEAN}, {GEOMETRIC_MEAN}")


def attribute_values(view: Generalized, ids: Iterable[str] | None = None) -> dict[str, dict[str, float]]:
    """Per measure that is a sum, mean or geometric mean over attributes (``Measure.aggregate``): each
    quasi-identifier's own value, ``{measure: {attribute: value}}``, so that ``aggregate(m.aggregate, values)``
    is the measure (ARX prints loss per attribute this way). Other measures (DM, AECS, the target-based ones)
    are left out. The value of attribute j is the measure on column j alone, or ``Measure.attributes``."""
    chosen = _lookup(ids) if ids is not None else list(MEASURES.values())
    out: dict[str, dict[str, float]] = {}
    for m in chosen:
        if m.aggregate is None or m.needs_target:
            continue
        if m.attributes is not None:
            values = m.attributes(view)
        else:
            values = [m.cell(Generalized((c,), view.suppressed, view.k)) for c in view.columns]
        out[m.id] = {c.name: float(v) for c, v in zip(view.columns, values, strict=True)}
    return out
