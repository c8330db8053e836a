"""What the ethics-board report says, gathered from the library: the same calls the CLI and the app make
(``study.run``, ``risk``, ``verify``, the measure registry, ``comparison``, ``export.provenance_record``).
``gather`` returns plain data; ``workbench.report.render`` turns it into HTML."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

import measures as M
from workbench.config import Study
from workbench.data import Dataset
from workbench.errors import WorkbenchError
from workbench.report.choice import why
from workbench.report.provenance import provenance_facts
from workbench.report.register_section import register_facts
from workbench.study import Progress, RunResult

if TYPE_CHECKING:
    from workbench.report.summary import Summary

ROLE_MEANING = {
    "quasi": "could identify a person when combined with other data (a quasi-identifier): generalized or "
             "suppressed in the release",
    "sensitive": "what must not be learned about a person: released as it is, protected by the privacy models "
                 "when any are configured",
    "insensitive": "released as it is",
    "identifying": "identifies a person directly: removed from the release",
    "target": "the outcome an analysis of the release would predict: released as it is",
}
ROLE_ORDER = ("identifying", "quasi", "sensitive", "target", "insensitive")
SAMPLE_ROWS = 10  # released rows shown
TREE_LEAVES = 24  # a hierarchy is drawn from the lowest level with at most this many values
TOP_ALTERNATIVES = 12  # the alternatives the printed report lists (with the chosen release); the page lists all


@dataclass
class Facts:
    """Every figure of the report, as the library computed it (tests compare them with direct calls)."""

    study: Study
    result: RunResult
    command: str
    dataset: dict[str, Any] = field(default_factory=dict)
    hierarchies: list[dict[str, Any]] = field(default_factory=list)
    privacy: dict[str, Any] = field(default_factory=dict)
    risk: dict[str, Any] = field(default_factory=dict)
    release: dict[str, Any] = field(default_factory=dict)
    costs: pd.DataFrame = field(default_factory=pd.DataFrame)
    alternatives: dict[str, Any] = field(default_factory=dict)
    checks: list[dict[str, str]] = field(default_factory=list)
    attacks: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    register: dict[str, Any] = field(default_factory=dict)  # the release history (report/register_section.py)
    summary: Summary | None = None  # the first page, computed from the figures above (``report.summary``)


def default_command(study: Study, overrides: Sequence[str] = (), out: str = "report") -> str:
    """``workbench report CONFIG [--set ...] --out DIR`` for a study read from a file; for a config without a
    file, the same with ``config.toml`` (the config the app's Export page downloads)."""
    config = study.source if study.source.endswith(".toml") else "config.toml"
    parts = ["workbench", "report", config, *(x for o in overrides for x in ("--set", o)), "--out", out]
    return shlex.join(parts)


def _dataset(dataset: Dataset) -> dict[str, Any]:
    frame = dataset.frame
    rows = [{"attribute": c, "role": dataset.roles.get(c, "insensitive"), "distinct values": int(frame[c].nunique()),
             "what it means": ROLE_MEANING.get(dataset.roles.get(c, "insensitive"), "")} for c in frame.columns]
    table = pd.DataFrame(rows)
    order = {r: i for i, r in enumerate(ROLE_ORDER)}
    table = table.sort_values("role", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    return {"source": dataset.source, "records": dataset.n, "columns": len(frame.columns), "attributes": table}


def _hierarchies(study: Study, dataset: Dataset) -> list[dict[str, Any]]:
    from workbench.report.charts import hierarchy_tree, svg

    specs = {a.name: a for a in study.attributes}
    out = []
    for qi in dataset.quasi_identifiers:
        h = dataset.hierarchies.get(qi)
        spec = specs.get(qi)
        entry: dict[str, Any] = {"attribute": qi, "height": None, "levels": None, "tree": None, "note": ""}
        if spec is not None and spec.poset is not None and study.engine == "local":
            entry["note"] = f"generalized by the local engine over a {spec.poset} poset"
        if h is None:
            out.append(entry)
            continue
        values = dataset.frame[qi].astype(str)
        rows = []
        for level in range(h.height + 1):
            labels = list(dict.fromkeys(h.level_labels(level)))
            rows.append({"level": level, "distinct values": len(labels),
                         "examples": ", ".join(labels[:5]) + (", …" if len(labels) > 5 else "")})
        entry["height"] = h.height
        entry["levels"] = pd.DataFrame(rows)
        try:
            nodes, edges, lowest = h.tree_layout(values, max_leaves=TREE_LEAVES)
            entry["tree"] = svg(hierarchy_tree(nodes, edges))
            entry["tree_from_level"] = lowest
        except WorkbenchError as exc:  # a hierarchy that is not a tree has no picture; its levels still show
            entry["note"] = str(exc).splitlines()[0]
        out.append(entry)
    return out


def _privacy(result: RunResult) -> dict[str, Any]:
    study, release = result.study, result.release
    n = result.dataset.n
    limit = release.limit if release is not None else int(study.max_suppression * n)
    if study.engine == "lattice":
        from workbench.lattice.search import ALGORITHMS

        spec = ALGORITHMS.get(study.algorithm)
        how = ("full-domain generalization: every value of a quasi-identifier is generalized to the same level of "
               "its hierarchy, and the records of groups that stay too small are suppressed")
        algorithm = (f"{study.algorithm}, " + ("an optimal search" if spec.optimal else "a heuristic search")
                     + f"; {spec.citation}") if spec else study.algorithm
    else:
        how = ("local recoding: the records are clustered and each cluster's values are generalized only as far "
               "as that cluster needs")
        algorithm = f"{study.algorithm} (Katirai 2006)"
    objective = M.MEASURES.get(study.objective)
    return {
        "k": study.k, "max_suppression": study.max_suppression, "limit": limit, "records": n,
        "engine": study.engine, "how": how, "algorithm": algorithm, "objective": study.objective,
        "objective_name": objective.name if objective else study.objective,
        "objective_plain": objective.plain if objective else "",
        "models": [{"model": kind, "description": m["description"], "in_words": m["in_words"], "holds": m["holds"]}
                   for kind, m in result.privacy_models().items()],
    }


def _population(study: Study) -> int | None:
    return next((spec.get("population") for spec in study.privacy_models
                 if spec.kind == "risk" and spec.get("population")), None)


def _risk(result: RunResult, chart: bool = True) -> dict[str, Any]:
    """The risk of the input and of the release (``chart``: with the histogram of record-level risk as SVG)."""
    from workbench import risk
    from workbench.report.charts import risk_histogram, svg

    population = _population(result.study)
    before = risk.risk_of_node(result.dataset, None, population_size=population)
    records = [risk.record_risks(risk.node_class_sizes(result.dataset)).assign(table="input")]
    after = None
    if result.release is not None:
        after = risk.risk_of_release(result.release, population_size=population)
        records.append(risk.record_risks(risk.release_class_sizes(result.release)).assign(table="release"))
    histogram = pd.concat(records, ignore_index=True)
    return {"before": before.to_dict(), "after": after.to_dict() if after else None, "population": population,
            "records": histogram, "chart": svg(risk_histogram(histogram)) if chart else None,
            "threshold": risk.DEFAULT_THRESHOLD}


def _release(result: RunResult, gives_back: Sequence[str] = ()) -> dict[str, Any]:
    """The release's guarantee and shape; ``gives_back``: the warnings about released columns that give a
    quasi-identifier back (``dependencies.dependency_warnings``), shown beside the verified guarantee."""
    from workbench.release.guarantees import guarantee_text, suppression_note, suppression_warning

    release, study = result.release, result.study
    if release is None:
        return {}
    guarantee = result.guarantee
    assert guarantee is not None
    suppressed = guarantee.suppressed  # verified from the released table: the one count every section states
    table = release.table(study.suppressed)
    kept = release.table().loc[~release.suppressed]
    released_values = {q: int(kept[q].nunique()) for q in release.quasi_identifiers}  # 1: the same for everyone
    sample = table.sample(n=min(SAMPLE_ROWS, len(table)), random_state=study.seed) if len(table) else table
    levels = None
    if release.transformation is not None:
        levels = pd.DataFrame([
            {"attribute": q, "level": v, "of": c.height,
             "released as": "the original value" if v == 0 else
             f"its top level ({c.labels[v][0]}): the value is withheld" if c.cardinality(v) == 1 else
             f"level {v} of its hierarchy, e.g. {', '.join(list(c.labels[v])[:3])}"}
            for q, v, c in zip(release.transformation, release.transformation.values(), release.dataset.encoded,
                               strict=True)])
    return {
        "guarantee": guarantee.as_dict(), "describe": guarantee.describe(),
        "meaning": guarantee_text(guarantee.kind).meaning, "k_anonymous": guarantee_text(guarantee.kind).k_anonymous,
        "suppressed": suppressed, "suppressed_note": suppression_note(suppressed, release.n),
        "suppressed_warning": suppression_warning(suppressed, release.n), "policy": study.suppressed,
        "classes": release.classes, "smallest_class": release.smallest_class(), "levels": levels,
        "sample": sample.reset_index(drop=True), "shown_rows": len(sample), "released_rows": len(table),
        "gives_back": list(gives_back), "released_values": released_values,
        "one_value": {q: str(kept[q].iloc[0]) for q, n in released_values.items() if n == 1},
    }


def _costs(result: RunResult) -> pd.DataFrame:
    """The release under every registered measure it can be scored by (those needing a target only with one)."""
    from workbench.objective import score_release

    if result.release is None:
        return pd.DataFrame()
    ids = [i for i, m in M.MEASURES.items() if not m.needs_target or result.study.target is not None]
    scores = score_release(replace(result.study, compare=tuple(ids)), result.release)
    return pd.DataFrame([{"measure": M.MEASURES[i].name, "id": i, "value": s.value, "normalized": s.normalized,
                          "direction": str(s.direction), "what it means": M.MEASURES[i].plain}
                         for i, s in scores.items()])


def _alternatives(result: RunResult, progress: Progress | None) -> dict[str, Any]:
    from workbench.compare.alternatives import comparison
    from workbench.report.charts import pareto, svg

    try:
        c = comparison(result.study, result.dataset, result, progress=progress)
    except WorkbenchError as exc:
        return {"error": str(exc).splitlines()[0]}
    ids = list(c.measures)
    table = c.marked()
    out: dict[str, Any] = {"comparison": c, "table": table, "measures": ids, "optimal_under": c.optimal_under(),
                           "chart": None, "why": why(result, c), "top": top_alternatives(table, result.study.objective)}
    if len(ids) >= 2 and len(c.table):
        out["chart"] = svg(pareto(c.table, ids[0], ids[1], c.front, chosen=c.chosen))
        out["axes"] = (ids[0], ids[1])
    return out


def top_alternatives(table: pd.DataFrame, objective: str, rows: int = TOP_ALTERNATIVES) -> list[Any]:
    """The index labels of the rows the printed report shows: the ``rows`` alternatives that meet the rule with the
    least ``objective`` (those that do not after them; the table's order when the objective is not a column), and
    the chosen release's row wherever it ranks, in that order."""
    from workbench.compare.ranking import as_loss, meets_rule

    failing = ~meets_rule(table)
    loss = as_loss(table, objective) if objective in table.columns else pd.Series(range(len(table)), table.index)
    ranked = pd.DataFrame({"failing": failing, "loss": loss.to_numpy(), "position": range(len(table))},
                          index=table.index).sort_values(["failing", "loss", "position"], kind="stable")
    top = list(ranked.index[:rows])
    if "chosen" in table.columns:
        top += [i for i in table.index[table["chosen"].to_numpy(dtype=bool)] if i not in top]
    return top


def _checks(result: RunResult, warnings: Sequence[str]) -> list[dict[str, str]]:
    """The checks done on the release: its verification from the released table, the privacy models, the
    columns that could give a quasi-identifier back (``warnings``: ``dependencies.dependency_warnings``), and
    how the written files are protected."""
    from workbench.risk.dependencies import NEAR_EXACT

    release, study = result.release, result.study
    out = []
    if release is not None:
        g = result.guarantee
        assert g is not None
        state = "passed" if g.holds else "FAILED"
        out += [
            {"check": "each released value generalizes the record's original value", "result": state},
            {"check": "suppressed records carry * in every quasi-identifier", "result": state},
            {"check": (f"every group of identical released quasi-identifier rows has at least {release.k} records"
                       if g.kind == "k-anonymity" else
                       f"every released row matches at least {release.k} original records (k-ambiguity)"),
             "result": state},
            {"check": f"suppressed records within the limit ({g.suppressed:,} of at most {g.limit:,})",
             "result": "passed" if g.suppressed <= g.limit else "FAILED"},
        ]
        for model, holds in g.models.items():
            out.append({"check": f"privacy model: {model}", "result": "passed" if holds else "FAILED"})
    out.append({"check": "no released column, alone or with one or two others, gives a quasi-identifier back (a "
                         "column whose every value occurs with one generalized value; columns that determine one "
                         f"or recompute it by a sum or difference in {NEAR_EXACT:.0%} of the rows)",
                "result": "passed" if not warnings else "WARNING: " + " | ".join(warnings)})
    out.append({"check": "released rows are shuffled with the recorded seed before they are written, so their "
                         "order cannot be matched to the input's (Sweeney's unsorted-matching attack)",
                "result": f"done when written (seed {study.seed})"})
    return out


def _attacks(result: RunResult) -> dict[str, Any]:
    """The attacks on the release (``attack_checks.check_attacks``): the checks as a dict and as table rows, or
    ``{"error": ...}``; {} without a release."""
    from workbench.errors import WorkbenchError
    from workbench.risk.attack_checks import attack_findings, attack_table, check_attacks

    if result.release is None:
        return {}
    try:
        checks = check_attacks(result.study, result.dataset, result.release).to_dict()
    except (WorkbenchError, ValueError) as exc:
        return {"error": str(exc)}
    return {"checks": checks, "table": attack_table(checks), "findings": attack_findings(checks),
            "rare": pd.DataFrame(checks["rare_values"]["values"])}


STEPS = ("the dataset", "the hierarchies", "the risk", "the release", "every measure", "the alternatives",
         "the checks", "the attacks", "the provenance")


def _reported(study: Study, result: RunResult) -> RunResult:
    """The run with the reported study: the app runs a config without its [release] section (the seed and what
    becomes of the suppressed records do not change a run) and reports the exported one, so that the attacks, the
    release's rows and the provenance all read one seed."""
    return result if study is result.study or study == result.study else replace(result, study=study)


def gather_summary(study: Study, result: RunResult, recorded: int | None = None) -> Facts:
    """The figures the first page states (the dataset, the privacy model, the risk, the release, its cost and the
    attacks), computed as ``gather`` computes them, with its ``summary``: what the Export page shows before the
    whole report is built."""
    from workbench.report.summary import summarize
    from workbench.risk.dependencies import dependency_warnings

    result = _reported(study, result)
    facts = Facts(study, result, "")
    facts.dataset = _dataset(result.dataset)
    facts.privacy = _privacy(result)
    facts.risk = _risk(result, chart=False)
    facts.release = _release(result, dependency_warnings(result.dataset))
    facts.costs = _costs(result)
    facts.attacks = _attacks(result)
    facts.register = register_facts(result, recorded)
    facts.summary = summarize(facts)
    return facts


def gather(study: Study, result: RunResult, command: str, progress: Progress | None = None,
           recorded: int | None = None) -> Facts:
    """Every section's figures for the run's release, and the first page's summary of them; ``recorded``: the
    release's id in the register, when it is recorded."""
    from workbench.report.summary import summarize

    report = progress or (lambda fraction, text: None)
    result = _reported(study, result)
    facts = Facts(study, result, command)
    report(0.05, "describing the dataset")
    facts.dataset = _dataset(result.dataset)
    facts.privacy = _privacy(result)
    report(0.1, "drawing the hierarchies")
    facts.hierarchies = _hierarchies(study, result.dataset)
    report(0.25, "assessing the risk")
    facts.risk = _risk(result)
    from workbench.risk.dependencies import dependency_warnings

    gives_back = dependency_warnings(result.dataset)
    facts.release = _release(result, gives_back)
    report(0.35, "scoring the release under every measure")
    facts.costs = _costs(result)
    report(0.45, "comparing the alternatives")
    facts.alternatives = _alternatives(result, lambda f, text: report(0.45 + 0.45 * f, text))
    report(0.9, "listing the checks")
    facts.checks = _checks(result, gives_back)
    report(0.93, "attacking the release")
    facts.attacks = _attacks(result)
    facts.provenance = provenance_facts(result, command)
    report(0.96, "reading the register")
    facts.register = register_facts(result, recorded)
    facts.summary = summarize(facts)
    report(1.0, "done")
    return facts
