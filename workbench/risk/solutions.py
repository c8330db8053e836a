"""The re-identification risk columns of a solutions table (``solution_ranking.RISK_COLUMNS``): each solution's
release after suppression, the suppressed records one group of ``*`` (``workbench.risk.risk_of_release``; El Emam &
Dankar 2008's prosecutor risk), from a lattice node's frequency set or from a release."""

from __future__ import annotations

import numpy as np

from workbench.lattice.evaluate import NodeEvaluator
from workbench.lattice.space import Node
from workbench.release import Release
from workbench.release.verify import SUPPRESSED
from workbench.risk import prosecutor_risk, release_class_sizes
from workbench.risk.histogram import Histogram


def risk_columns(class_sizes: np.ndarray) -> dict[str, float]:
    """The ``RISK_COLUMNS`` of a release from one size per group as a reader sees it (``risk.prosecutor_risk``
    at its default threshold)."""
    sizes = np.asarray(class_sizes, dtype=np.int64)
    risk = prosecutor_risk(Histogram.of(sizes[sizes > 0]))
    return {"risk_highest": risk.highest, "risk_average": risk.average,
            "risk_records_at_risk": risk.records_at_risk}


def release_risk(release: Release) -> dict[str, float]:
    """The ``RISK_COLUMNS`` of a release after suppression (the suppressed records one group of ``*``,
    ``risk.risk_of_release``)."""
    return risk_columns(release_class_sizes(release))


def node_risk(evaluator: NodeEvaluator, node: Node) -> dict[str, float]:
    """``release_risk`` of a lattice node's release, from its frequency set: the kept classes, and the suppressed
    records as one group of ``*`` (joined by a kept class released as ``*`` in every quasi-identifier)."""
    fs = evaluator.frequency_set(node)
    suppress = evaluator.outcome(fs).suppress
    starred = np.ones(fs.classes, dtype=bool)
    for j, (col, v) in enumerate(zip(evaluator.columns, node, strict=True)):
        starred &= (np.asarray(col.labels[v], dtype=object) == SUPPRESSED)[fs.codes[:, j]]
    suppressed = int(fs.counts[suppress].sum())
    joined = ~suppress & starred if suppressed else np.zeros(fs.classes, dtype=bool)
    sizes = np.append(fs.counts[~suppress & ~joined], suppressed + int(fs.counts[joined].sum()))
    return risk_columns(sizes)
