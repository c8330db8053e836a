"""One lattice node up close, and two nodes side by side (the Lattice page's drill-down).

A node of the generalization lattice (El Emam 2009, §"Generalization lattice") is one full-domain recoding:
every quasi-identifier j generalized to level ``v_j``. ``node_details`` opens it: how big its equivalence
classes are, which records it suppresses (classes smaller than k, formed over all n records, docs/measures.md),
and how much each quasi-identifier contributes to each measure. ``node_diff`` compares two nodes.

Per-attribute values come from the measures themselves (``measures.attribute_values``: the measure of column
j alone, or ARX's per-attribute loss), so no formula is restated here. A measure decomposes when it is a sum,
a mean or a geometric mean over attributes (``Measure.aggregate``, docs/measures.md): the contribution of attribute
j is its value x_j (sums: height, entropy, entropy_nm, vinterbo), x_j / r (means: precision, precision_nm), or
for loss, ARX's geometric mean L = Π(1 + x_j)^(1/r) − 1, the share of L that x_j carries in
ln(1 + L) = (1/r) Σ_j ln(1 + x_j): L · ln(1 + x_j) / Σ_i ln(1 + x_i). Contributions sum to the measure. DM, DM*
and AECS are functions of the equivalence classes, which all quasi-identifiers form jointly: they have no
per-attribute share and none is invented.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import ConfigError
from workbench.grouping import group_rows
from workbench.lattice.space import Lattice, Node
from workbench.privacy.build import admissibility_for
from workbench.release import Release

SUM, MEAN, GEOMETRIC_MEAN = M.SUM, M.MEAN, M.GEOMETRIC_MEAN
DECOMPOSITION: dict[str, str] = {i: m.aggregate for i, m in M.MEASURES.items()
                                 if m.aggregate is not None and not m.needs_target}
"""How each decomposable measure combines its attributes: ``sum``, ``mean`` or ``geometric_mean`` (ARX's loss)
of the per-attribute values (``measures.Measure.aggregate``)."""

NOT_DECOMPOSABLE: dict[str, str] = {i: m.joint for i, m in M.MEASURES.items() if m.joint}
"""Why each measure over the equivalence classes (DM, DM*, AECS) has no per-attribute share
(``measures.Measure.joint``)."""

DEFAULT_SAMPLE = 20


@dataclass(frozen=True, eq=False)
class NodeDetails:
    """What a lattice node does to the data.

    ``classes``: the equivalence classes of the records not suppressed (``Release.classes``);
    ``classes_before_suppression``: the classes over all records, those suppressed included. ``class_sizes``: one
    row per class size over all records (``size``, ``classes`` of that size, ``records`` in them,
    ``suppressed``: whether classes of that size are suppressed, i.e. size < k). ``suppressed_sample``: up to
    ``sample`` suppressed records, original quasi-identifier values (index = row of the input table).
    ``measures``: every requested measure on the node (cell-level). ``contributions``: one row per
    (measure, attribute) for measures that decompose, with the attribute's own ``value`` (what
    ``measures.attribute_values`` gives), its ``contribution`` and the ``share`` of the total;
    ``not_decomposable``: measure id -> why it has no per-attribute contribution.
    """

    node: Node
    label: str
    k: int
    n: int
    classes: int
    classes_before_suppression: int
    suppressed: int
    limit: int
    k_anonymous: bool
    class_sizes: pd.DataFrame
    suppressed_sample: pd.DataFrame
    measures: dict[str, float]
    contributions: pd.DataFrame
    not_decomposable: dict[str, str]


@dataclass(frozen=True, eq=False)
class NodeDiff:
    """Two nodes ``a`` and ``b`` side by side; every difference is ``b − a``.

    ``levels``: per attribute, both levels. ``summary``: classes (``Release.classes``), suppressed records,
    k-anonymity and every measure with both values and the difference. ``changed``: per attribute, how many
    records are released with a different value (label) under b than under a, counting a suppressed record as
    released ``*``.
    """

    a: Node
    b: Node
    label_a: str
    label_b: str
    levels: pd.DataFrame
    summary: pd.DataFrame
    changed: pd.DataFrame


def resolve_node(dataset: Dataset, node: Sequence[int] | str) -> Node:
    """A node given as a level vector or as ``"qi=level,..."`` -> a checked level vector (quasi-identifier
    order); ConfigError names what is wrong."""
    from workbench.views.lattice import parse_node

    names = dataset.quasi_identifiers
    heights = [c.height for c in dataset.encoded]
    if isinstance(node, str):
        return parse_node(node, names, heights)
    levels = tuple(node)
    if len(levels) != len(names):
        raise ConfigError(f"node {levels}: {len(levels)} level(s) for {len(names)} quasi-identifier(s) "
                          f"({', '.join(names)})")
    for name, level, height in zip(names, levels, heights, strict=True):
        if isinstance(level, bool) or not isinstance(level, int | np.integer):
            raise ConfigError(f"node {levels}: level {level!r} of {name!r} is not an integer")
        if not 0 <= level <= height:
            raise ConfigError(f"node {levels}: level {level} of {name!r} is outside 0..{height}")
    return tuple(int(v) for v in levels)


def _check_ids(ids: Sequence[str] | None) -> list[str]:
    ids = list(M.LATTICE_MEASURES if ids is None else ids)
    unknown = [i for i in ids if i not in M.MEASURES]
    if unknown:
        raise ConfigError(f"unknown measure id(s) {', '.join(unknown)}; known: {', '.join(M.MEASURES)}")
    needs_target = [i for i in ids if M.MEASURES[i].needs_target]
    if needs_target:
        raise ConfigError(f"node details score measures without a target; drop {', '.join(needs_target)}")
    return ids


def _release(study: Study, dataset: Dataset, node: Node) -> Release:
    return Release.from_node(dataset, node, study.k, study.max_suppression, "node details",
                             admissibility_for(study, dataset))


def class_size_distribution(release: Release) -> pd.DataFrame:
    """Class size -> number of classes of that size and records in them; classes formed over all n records
    before suppression (docs/measures.md), ``suppressed`` marks sizes below k."""
    if release.codes.shape[1] == 0:
        sizes = np.array([release.n])
    else:
        sizes = group_rows(release.codes).counts
    size, classes = np.unique(sizes, return_counts=True)
    return pd.DataFrame({"size": size.astype(np.int64), "classes": classes.astype(np.int64),
                         "records": (size * classes).astype(np.int64), "suppressed": size < release.k})


def attribute_contributions(release: Release, ids: Sequence[str] | None = None) -> tuple[pd.DataFrame,
                                                                                          dict[str, str]]:
    """Per (measure, attribute): the attribute's contribution to the measure on this release, and its share
    of the total; plus measure id -> reason for the measures that do not decompose over attributes."""
    ids = _check_ids(ids)
    view = release.view()
    decomposable = [i for i in ids if i in DECOMPOSITION]
    values = M.attribute_values(view, decomposable)
    rows, skipped = [], {}
    for i in ids:
        how = DECOMPOSITION.get(i)
        if how is None:
            skipped[i] = M.MEASURES[i].joint or (f"{i} is not a sum, mean or geometric mean over attributes "
                                                 "(docs/measures.md)")
            continue
        own = list(values[i].values())
        if how == MEAN:
            parts = [x / view.r for x in own]
        elif how == GEOMETRIC_MEAN:
            logs = [float(np.log1p(x)) for x in own]
            whole, total_log = M.aggregate(how, own), sum(logs)
            parts = [whole * w / total_log if total_log else 0.0 for w in logs]
        else:
            parts = own
        total = float(sum(parts))
        for c, x, p in zip(view.columns, own, parts, strict=True):
            rows.append({"measure": i, "attribute": c.name, "value": float(x), "contribution": float(p),
                         "share": float(p / total) if total else 0.0})
    frame = pd.DataFrame(rows, columns=["measure", "attribute", "value", "contribution", "share"])
    return frame, skipped


def node_details(study: Study, dataset: Dataset, node: Sequence[int] | str, ids: Sequence[str] | None = None,
                 sample: int = DEFAULT_SAMPLE) -> NodeDetails:
    """Open one lattice node under the study's k and suppression limit: class-size distribution, suppressed
    records (count and a sample of their original quasi-identifier values), every measure (default: the
    lattice measures) and each attribute's contribution to it where the measure decomposes."""
    if sample < 0:
        raise ConfigError(f"sample must be >= 0, got {sample}")
    ids = _check_ids(ids)
    levels = resolve_node(dataset, node)
    release = _release(study, dataset, levels)
    names = dataset.quasi_identifiers
    rows = np.flatnonzero(release.suppressed)
    suppressed_sample = dataset.frame.iloc[rows[:sample]][names]
    contributions, skipped = attribute_contributions(release, ids)
    scores = M.score(release.view(), ids)
    sizes = class_size_distribution(release)
    return NodeDetails(
        node=levels, label=Lattice(tuple(c.height for c in dataset.encoded), tuple(names)).label(levels),
        k=study.k, n=release.n, classes=release.classes, classes_before_suppression=int(sizes["classes"].sum()),
        suppressed=int(rows.size),
        limit=release.limit, k_anonymous=bool(rows.size <= release.limit), class_sizes=sizes,
        suppressed_sample=suppressed_sample, measures={i: s.value for i, s in scores.items()},
        contributions=contributions, not_decomposable=skipped,
    )


def _released_labels(release: Release) -> pd.DataFrame:
    """Each quasi-identifier cell as a reader sees it: the released label, ``*`` for a suppressed record."""
    from workbench.release.verify import SUPPRESSED

    labels = release.labels.astype(object).copy()
    labels.loc[release.suppressed, :] = SUPPRESSED
    return labels


def node_diff(study: Study, dataset: Dataset, a: Sequence[int] | str, b: Sequence[int] | str,
              ids: Sequence[str] | None = None) -> NodeDiff:
    """Compare nodes ``a`` and ``b`` under the study's k and suppression limit: levels per attribute; classes,
    suppressed records, k-anonymity and every measure (default: the lattice measures) with ``b − a``; and per
    attribute how many records change released value."""
    ids = _check_ids(ids)
    na, nb = resolve_node(dataset, a), resolve_node(dataset, b)
    names = dataset.quasi_identifiers
    ra, rb = _release(study, dataset, na), _release(study, dataset, nb)
    levels = pd.DataFrame({"attribute": names, "a": na, "b": nb})
    levels["difference"] = levels["b"] - levels["a"]

    def quantities(release: Release) -> dict[str, float]:
        suppressed = int(release.suppressed.sum())
        scores = M.score(release.view(), ids)
        return {"classes": float(release.classes), "suppressed": float(suppressed),
                "k_anonymous": float(suppressed <= release.limit), **{i: s.value for i, s in scores.items()}}

    qa, qb = quantities(ra), quantities(rb)
    summary = pd.DataFrame({"quantity": list(qa), "a": list(qa.values()), "b": [qb[q] for q in qa]})
    summary["difference"] = summary["b"] - summary["a"]
    la, lb = _released_labels(ra), _released_labels(rb)
    changed = pd.DataFrame({"attribute": names,
                            "records_changed": [int((la[q].to_numpy() != lb[q].to_numpy()).sum()) for q in names]})
    changed["share"] = changed["records_changed"] / dataset.n
    lattice = Lattice(tuple(c.height for c in dataset.encoded), tuple(names))
    return NodeDiff(a=na, b=nb, label_a=lattice.label(na), label_b=lattice.label(nb), levels=levels,
                    summary=summary, changed=changed)


def lattice_by_height(table: pd.DataFrame, measures: Sequence[str] = ()) -> pd.DataFrame:
    """A lattice table (``lattice_views.lattice_table``) aggregated per height (rank): ``nodes``, ``k_anonymous``
    nodes, the nodes a search ``checked`` (when the table says: ``lattice_views.lattice_overview``), and per measure
    its ``_min`` and ``_median`` over all nodes of that height and ``_min_k_anonymous``
    (NaN when none is k-anonymous): the whole of a large lattice in one row per height (El Emam 2009)."""
    missing = [c for c in ("rank", "k_anonymous", *measures) if c not in table.columns]
    if missing:
        raise ConfigError(f"lattice_by_height: the table has no column(s) {', '.join(missing)}")
    groups = table.groupby("rank", sort=True)
    out = pd.DataFrame({"nodes": groups.size(), "k_anonymous": groups["k_anonymous"].sum().astype(np.int64)})
    if "checked" in table.columns:  # the search's region: the nodes it checked, per height
        out["checked"] = groups["checked"].sum().astype(np.int64)
    for m in measures:
        out[f"{m}_min"] = groups[m].min()
        out[f"{m}_median"] = groups[m].median()
        out[f"{m}_min_k_anonymous"] = table[table["k_anonymous"]].groupby("rank")[m].min()
    return out.reset_index()
