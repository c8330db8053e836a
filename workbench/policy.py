"""What the workbench refuses to start, decided once for every entry point (the CLI, the app, the Python API).

The values a study may hold are checked by ``workbench.config.validate`` whenever a ``Study`` is made. What is
decided here depends on the data or on the algorithm actually run:

- ``search_refusal``: a lattice search that has no time limit (exhaustive, Incognito, ...) over more than
  ``MAX_LATTICE_NODES`` nodes; the anytime searches (Flash, OLA, bnb, LIGHTNING) are never refused: without
  ``engine.time_limit`` they run under ``time_budget``'s default there (LIGHTNING always, under its own),
  which their result states;
- ``table_refusal``: evaluating every node of a lattice larger than that (the app's Lattice and Compare pages);
- ``monotone_refusal``: a search whose optimality proof needs a monotone objective, given one that is not,
  unless ``engine.allow_non_monotone`` (the result is then labelled not proven optimal);
- ``privacy_refusal``: a search that prunes on monotone admissibility (``AlgorithmSpec.prunes``) with a privacy model
  that is not monotone at the suppression limit (``admissibility_refusal``, which the search raises too), and a
  local algorithm with a privacy model it cannot enforce (``local_refusal``, which the study runner raises too);
- ``geo_refusal``: the geography engine's own aggregation (VBAS, GeoLeader-like) with a privacy model besides k.

``run_refusal`` joins the refusals of a run; ``workbench.study.search``, ``run`` and ``local_release`` raise them,
so the CLI, the app, the report and the Python API (``wb.run``) refuse the same runs with the same sentence.
"""

from __future__ import annotations

import math

import numpy as np

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.grouping import group_rows
from workbench.lattice.search import ALGORITHMS, ANY_OBJECTIVE
from workbench.privacy.base import Admissibility

MAX_LATTICE_NODES = 50_000  # evaluating every node of a lattice this large takes about 40 s
DEFAULT_TIME_LIMIT = 60.0  # seconds: an anytime search's budget over a larger lattice without engine.time_limit


def lattice_size(dataset: Dataset) -> int:
    """Nodes of the dataset's generalization lattice: Π (hierarchy height + 1) over the quasi-identifiers."""
    return math.prod(c.height + 1 for c in dataset.encoded)


# the local engine's releases as the Compare page runs them (compare.COMPARED_LOCAL_ALGORITHMS: Greedy, Partition,
# Mondrian): seconds per distinct record and per pair of distinct records (Greedy compares records pairwise),
# fitted by least squares to runs on 2,500 to 20,000 records of the registry and 5,000 to 30,162 of Adult on a
# 2-core machine (docs/performance.md)
LOCAL_SECONDS_PER_RECORD = 1.2e-4
LOCAL_SECONDS_PER_PAIR = 1.0e-9


def distinct_records(dataset: Dataset) -> int:
    """Records that differ in at least one quasi-identifier (the local engine clusters these)."""
    codes = np.stack([c.codes for c in dataset.encoded], axis=1) if dataset.encoded else np.zeros((dataset.n, 0))
    return int(group_rows(codes).size) if codes.shape[1] else min(dataset.n, 1)


def local_engine_seconds(distinct: int) -> float:
    """The expected time of the local engine's releases (Greedy, Partition, Mondrian) on a table of ``distinct``
    distinct records."""
    return LOCAL_SECONDS_PER_RECORD * distinct + LOCAL_SECONDS_PER_PAIR * distinct ** 2


def duration_text(seconds: float) -> str:
    """An expected duration in words: "under a second", "about 3 s", "about 2 min"."""
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60:.0f} min"


def local_engine_hint(dataset: Dataset) -> str:
    """The local engine's expected time on ``dataset``, with the figures it is estimated from."""
    distinct = distinct_records(dataset)
    return (f"{duration_text(local_engine_seconds(distinct))} on this table ({dataset.n:,} records, {distinct:,} "
            "distinct)")


def suppression_share(percent: float) -> float:
    """A suppression limit in percent of records (the app's unit) as the config's share of records
    (``privacy.max_suppression``): 2 -> 0.02."""
    return percent / 100


def suppression_percent(share: float) -> float:
    """The config's share of records as percent of records: 0.02 -> 2.0 (rounded to 9 decimals, so 0.07 gives 7.0,
    not 7.000000000000001)."""
    return round(100 * share, 9)


def search_refusal(algorithm: str, time_limit: float | None, nodes: int) -> str | None:
    """Why a lattice search by ``algorithm`` over ``nodes`` nodes is refused (None when it may run): one without a
    time limit may check every node, so it is refused above ``MAX_LATTICE_NODES``. The anytime searches (Flash, OLA,
    bnb, LIGHTNING) always run: without ``time_limit`` they stop at ``time_budget``'s default there."""
    if nodes <= MAX_LATTICE_NODES or ALGORITHMS[algorithm].anytime:
        return None
    anytime = [a for a, spec in ALGORITHMS.items() if spec.anytime]
    return (f"{algorithm} has no time limit and may check up to {nodes:,} lattice nodes; choose "
            f"{', '.join(anytime[:-1])} or {anytime[-1]}, which stop at a time limit with the best node found "
            "so far.")


def time_budget(algorithm: str, time_limit: float | None, nodes: int) -> tuple[float | None, str]:
    """The time limit a search by ``algorithm`` over ``nodes`` nodes runs under, and what its result says about it
    ("" when it is the configured one): an anytime search over more than ``MAX_LATTICE_NODES`` nodes without
    ``engine.time_limit`` gets ``DEFAULT_TIME_LIMIT`` (LIGHTNING applies its own default budget, and says so)."""
    spec = ALGORITHMS[algorithm]
    if time_limit is not None or nodes <= MAX_LATTICE_NODES or not spec.anytime or spec.default_time_limit:
        return time_limit, ""
    return DEFAULT_TIME_LIMIT, (f"no engine.time_limit: a default budget of {DEFAULT_TIME_LIMIT:g} s for this lattice "
                                f"of {nodes:,} nodes")


def table_refusal(nodes: int) -> str | None:
    """Why evaluating every node of a lattice of ``nodes`` nodes is refused (None when it is not)."""
    if nodes <= MAX_LATTICE_NODES:
        return None
    return (f"This lattice has {nodes:,} nodes. This page evaluates every node and stops at {MAX_LATTICE_NODES:,} "
            "(about 40 s): use fewer quasi-identifiers or shallower hierarchies. The Anonymize page's Flash, OLA "
            "and bnb search part of the lattice, within a time limit.")


def needs_monotone_waiver(algorithm: str, objective: str) -> bool:
    """``algorithm`` proves its node optimal only for a monotone objective, and ``objective`` is not one."""
    return ALGORITHMS[algorithm].requires_monotone and not M.MEASURES[objective].monotone


NOT_MONOTONE_WHY = "with suppression, a more general node can suppress fewer records and score better"


def optimal_for_any_objective() -> tuple[str, ...]:
    """The searches that prove their node optimal for any objective, monotone or not (``AlgorithmSpec.optimal_for``),
    in the registry's order."""
    return tuple(a for a, spec in ALGORITHMS.items() if spec.optimal_for == ANY_OBJECTIVE)


def optimal_for_any_rule() -> tuple[str, ...]:
    """The searches optimal for any objective under any privacy rule: they do not prune on monotone admissibility
    (``AlgorithmSpec.optimal_for_any_rule``), in the registry's order."""
    return tuple(a for a, spec in ALGORITHMS.items() if spec.optimal_for_any_rule)


def optimal_anytime() -> str:
    """The search to switch to when the chosen one cannot prove its node optimal for the objective or is refused the
    privacy rule (the app's steering): the first that is optimal for any objective under any rule and anytime."""
    return next(a for a in optimal_for_any_rule() if ALGORITHMS[a].anytime)


def either(ids: tuple[str, ...], quoted: bool = True, last: str = "or") -> str:
    """``'a', 'b' or 'c'``: ids as a sentence names them."""
    names = [repr(i) if quoted else i for i in ids]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def non_monotone_warning(algorithm: str, objective: str) -> str:
    """What running ``algorithm``, whose optimality proof assumes a monotone objective, with the non-monotone
    ``objective`` means: one sentence without its full stop, the same wherever it is said (the app's warnings and
    the note on the search's result; ``monotone_refusal`` gives the same reason)."""
    return (f"{algorithm} assumes a monotone objective and {objective} is not monotone ({NOT_MONOTONE_WHY}), so "
            f"the node it returns is k-anonymous but not proven optimal; "
            f"{either(optimal_for_any_objective(), quoted=False, last='and')} are optimal for any objective")


def monotone_refusal(study: Study, algorithm: str) -> str | None:
    """Why ``algorithm`` may not search for ``study.objective`` (None when it may)."""
    if not needs_monotone_waiver(algorithm, study.objective) or study.allow_non_monotone:
        return None
    return (f"engine.algorithm {algorithm!r} needs a monotone objective and {study.objective!r} is not "
            f"({NOT_MONOTONE_WHY}); use {either(optimal_for_any_objective())} (optimal for any objective), or set "
            "engine.allow_non_monotone = true to run it anyway, labelled not proven optimal")


def admissibility_refusal(rule: Admissibility, algorithm: str) -> str | None:
    """Why ``algorithm`` cannot search under ``rule`` (None when it can): it prunes (``AlgorithmSpec.prunes``), and a
    privacy model is not monotone at the rule's suppression limit (``Admissibility.non_monotone_models``)."""
    bad = rule.non_monotone_models() if ALGORITHMS[algorithm].prunes else []
    if not bad:
        return None
    names = "; ".join(m.describe() for m in bad)
    if all(m.monotone_with_generalization for m in bad):  # monotone again without suppression
        why, fix = "with suppression (records of violating classes are suppressed, as in ARX)", \
            ", or set privacy.max_suppression = 0"
    else:
        why, fix = "over the lattice", ""
    return (f"engine.algorithm {algorithm!r} assumes admissibility is monotone, and {names} is not monotone {why}; "
            f"use {either(optimal_for_any_rule())}{fix}")


LATTICE_ENGINE = "the lattice engine (engine.kind = 'lattice')"


def local_refusal(rule: Admissibility, algorithm: str, dataset: Dataset | None = None) -> str | None:
    """Why the local ``algorithm`` cannot release under ``rule`` (None when it can), in one line naming the model
    and the algorithm. Only the local algorithms with ``LocalAlgorithm.enforces_models`` (Mondrian) enforce privacy
    models, and only the class-level ones judged on a class's own records (``PrivacyModel.partition_checkable``:
    ℓ-diversity, t-closeness, β-likeness, δ-disclosure privacy, (α, k)-anonymity, k-map estimated from a population
    size; not δ-presence, k-map against a population table nor a risk threshold); the others release k alone, so a
    configured model is refused rather than left unmet. Given the ``dataset``, Mondrian is refused too when the whole
    table, its first partition, already breaks a model (no cut can mend it)."""
    from workbench.local import LOCAL_ALGORITHMS

    if not rule.models:
        return None
    enforcing = [a for a, spec in LOCAL_ALGORITHMS.items() if spec.enforces_models]
    unfit = [m for m in rule.models if not (algorithm in enforcing and m.partition_checkable)]
    if unfit:
        names = " and ".join(m.describe() for m in unfit)
        others = [a for a in enforcing if a != algorithm]
        fix = (f"use {' or '.join(map(repr, others))} or {LATTICE_ENGINE}"
               if others and all(m.partition_checkable for m in unfit) else f"use {LATTICE_ENGINE}")
        return f"engine.algorithm {algorithm!r} (local engine) cannot enforce {names}; {fix}"
    if dataset is None:
        return None
    from workbench.privacy.base import ClassView

    whole = ClassView.from_records(np.zeros(dataset.n, dtype=np.int64), 1, rule.extras)
    broken = [m.describe() for m in rule.models if m.violating(whole).any()]
    if not broken:
        return None
    return (f"engine.algorithm {algorithm!r} (local engine) cannot enforce {' and '.join(broken)}: the whole table "
            f"({dataset.n:,} records as one class) breaks it, so no partition of it can satisfy it; relax the model")


def local_rule(study: Study, dataset: Dataset) -> Admissibility:
    """The rule a local release is verified under: k and every configured privacy model, with no record suppressed
    (the local engine generalizes cells instead; ``privacy.max_suppression`` does not apply to it)."""
    from workbench.privacy.build import models_for

    return Admissibility(study.k, 0.0, dataset.n, models_for(study, dataset) if study.privacy_models else ())


def run_refusal(study: Study, dataset: Dataset, algorithm: str | None = None) -> str | None:
    """Why the study's run (its lattice search by ``algorithm``, default the study's) is refused on ``dataset``, or
    None: for a lattice search the first of ``monotone_refusal``, ``search_refusal`` (a lattice of
    ``lattice_size(dataset)`` nodes) and ``privacy_refusal``; for the local engine ``local_refusal``. The one
    decision every entry point asks (``workbench.study.search`` and ``local_release`` raise it)."""
    algorithm = algorithm or study.algorithm
    if study.engine == "local":
        return local_refusal(local_rule(study, dataset), algorithm, dataset)
    if algorithm not in ALGORITHMS:
        return None
    return (monotone_refusal(study, algorithm) or search_refusal(algorithm, study.time_limit, lattice_size(dataset))
            or privacy_refusal(study, dataset, algorithm))


def privacy_refusal(study: Study, dataset: Dataset, algorithm: str) -> str | None:
    """``admissibility_refusal`` (lattice engine) or ``local_refusal`` (local engine) for the study's privacy models
    on ``dataset`` (what the app asks before a run)."""
    if not study.privacy_models:
        return None
    if study.engine == "local":
        return local_refusal(local_rule(study, dataset), algorithm, dataset)
    if not ALGORITHMS[algorithm].prunes:
        return None
    from workbench.privacy.build import admissibility_for

    return admissibility_refusal(admissibility_for(study, dataset), algorithm)


def geo_refusal(study: Study, lattice: bool) -> str | None:
    """Why the geography engine refuses ``study`` (None when it may run): its own aggregation (VBAS, GeoLeader-like)
    suppresses the classes below k and enforces no other model; ``geo.lattice = true`` runs the lattice engine over
    the aggregated geography, which enforces every configured model."""
    if lattice or not study.privacy_models:
        return None
    tables = " and ".join(f"[privacy.{spec.kind}]" for spec in study.privacy_models)
    return (f"the geography engine's aggregation enforces k alone and cannot enforce {tables}; set geo.lattice = "
            "true (the lattice engine over the aggregated geography enforces every privacy model)")
