"""The report's first page: the decision a review board takes, stated from the figures the report's sections show
(``Facts``), never recomputed: what is released and what is withheld, the guarantee in plain words, the risk before
and after, the cost, the attacks that single people out (each with what it means and the remedy), and a decision
record with the options, the recommendation the figures support (``recommend``) and the fields the board fills in.

``summarize(facts)`` builds it; ``render`` draws it above the table of contents, and the app's Export page shows
the same object (``facts.gather_summary``) at its top."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.release.guarantees import guarantee_text
from workbench.risk.attack_checks import AttackFinding
from workbench.views.display import fmt, percent

AS_PROPOSED = "Release as proposed"
WITH_CONDITIONS = "Release with conditions"
DO_NOT_RELEASE = "Do not release: ask for more generalization"


@dataclass(frozen=True)
class Option:
    """One decision a board can take, and what it means."""

    name: str
    means: str


OPTIONS = (
    Option(AS_PROPOSED, "the table is released as this page describes it"),
    Option(WITH_CONDITIONS, "the table is released only under the conditions written in the decision record, "
                            "for example that it is released once only"),
    Option(DO_NOT_RELEASE, "the analyst is asked for a safer release (a larger k, coarser hierarchies, fewer "
                           "columns, the attacks' remedies applied) and comes back to the board"),
)
"""The options a board chooses from, in the order the decision record lists them."""

DECISION_FIELDS = ("Decision (tick one option)", "Conditions", "Names of the board members", "Signatures", "Date")
"""The fields of the decision record, left empty for the board to fill in (on paper: lines and boxes)."""

RULE = ("Do not release when no release meets the rule or the release fails it, verified from its own table; "
        "release with conditions when the rule holds but an attack singles someone out or a released column gives "
        "a quasi-identifier back (each condition is that finding's remedy); release as proposed when the rule "
        "holds and nothing singles anyone out. An attack that was not checked does not change the "
        "recommendation; it is named beside it.")
"""The recommendation rule, as the page states it (``recommend``)."""


@dataclass(frozen=True)
class Column:
    """A column of the input and what the release does with it (``what``: in words)."""

    name: str
    role: str
    what: str


@dataclass(frozen=True)
class Promise:
    """One part of the guarantee: its name, what it promises in plain words, and whether it holds on the release,
    re-verified from the released table (None: no release)."""

    name: str
    words: str
    holds: bool | None


@dataclass(frozen=True)
class RiskRow:
    """A risk figure of the input and of the release, named as the risk section names it."""

    figure: str
    before: str
    after: str


@dataclass(frozen=True)
class Warning:
    """Something that singles people out or undoes the protection: ``text`` says what, ``remedy`` what to do."""

    title: str
    text: str
    remedy: str


@dataclass(frozen=True)
class Recommendation:
    """The option the figures support (one of ``OPTIONS``), why, and the conditions it names."""

    option: str
    reasons: tuple[str, ...]
    conditions: tuple[str, ...] = ()
    not_covered: tuple[str, ...] = ()

    @property
    def tone(self) -> str:
        """``"ok"`` (release as proposed), ``"warn"`` (with conditions) or ``"bad"`` (do not release): the colour a
        front end gives it."""
        return {AS_PROPOSED: "ok", WITH_CONDITIONS: "warn"}.get(self.option, "bad")


@dataclass(frozen=True)
class Summary:
    """The first page. Every figure is taken from the report's ``Facts``; the fields are text as the page states
    it, and the counts the text is written from (``records``, ``suppressed``, the attacks' ``singled_out``)."""

    source: str
    records: int
    released: tuple[Column, ...]
    withheld: tuple[Column, ...]
    suppressed: int | None
    suppressed_line: str
    guarantee: tuple[Promise, ...]
    guarantee_note: str | None
    risk: tuple[RiskRow, ...]
    risk_line: str
    cost_measure: str | None
    cost_value: float | None
    cost_line: str
    attacks: tuple[AttackFinding, ...]
    attacks_line: str
    warnings: tuple[Warning, ...]
    recommendation: Recommendation
    options: tuple[Option, ...] = OPTIONS
    fields: tuple[str, ...] = DECISION_FIELDS
    rule: str = RULE

    @property
    def has_release(self) -> bool:
        return self.suppressed is not None

    def headline(self) -> str:
        """One sentence: the recommendation and the first reason."""
        reason = self.recommendation.reasons[0] if self.recommendation.reasons else ""
        return f"Recommendation: {self.recommendation.option}." + (f" {reason[0].upper()}{reason[1:]}."
                                                                   if reason else "")


def recommend(holds: bool | None, failures: Sequence[str], findings: Sequence[AttackFinding],
              gives_back: Sequence[str] = (), attacks_error: str | None = None) -> Recommendation:
    """The option the figures support (``RULE``): ``holds`` is the release's verified guarantee (None: no release
    meets the rule), ``failures`` what of the rule it fails, ``findings`` the attacks (``attack_findings``),
    ``gives_back`` the released columns that give a quasi-identifier back."""
    unchecked = tuple(f"{f.attack}: {f.result}" for f in findings if not f.checked)
    if attacks_error:
        unchecked += (f"the attacks: not checked: {attacks_error}",)
    if holds is None:
        return Recommendation(DO_NOT_RELEASE, ("no release meets the privacy model with this configuration",))
    if not holds:
        return Recommendation(DO_NOT_RELEASE, ("the release fails the rule, verified from its own table: "
                                               + "; ".join(failures or ["the rule does not hold"]),))
    harmful = [f for f in findings if f.matters]
    if harmful or gives_back:
        reasons = tuple(f"the rule holds, but the {f.attack} {f.result}" for f in harmful) + tuple(
            f"the rule holds, but a released column gives a quasi-identifier back: {w}" for w in gives_back)
        conditions = tuple(dict.fromkeys(
            [f.remedy[0].upper() + f.remedy[1:] for f in harmful if f.remedy]
            + ["Remove the column that gives a quasi-identifier back, or make it a quasi-identifier"
               for _ in gives_back[:1]]))
        return Recommendation(WITH_CONDITIONS, reasons, conditions, unchecked)
    checked = sum(f.checked for f in findings)
    attacks = (f"none of the {checked} attacks checked singles anyone out" if checked > 1 else
               "the one attack checked singles no one out" if checked else "no attack could be checked")
    return Recommendation(AS_PROPOSED, (f"the rule holds, verified from the released table, and {attacks}",), (),
                          unchecked)


# ---------------------------------------------------------------------------------------------- from the facts
def _columns(facts: Any) -> tuple[tuple[Column, ...], tuple[Column, ...]]:
    """The released columns (by role) and the withheld ones (with the reason), from the dataset's roles and the
    release's levels and released values."""
    attributes, release = facts.dataset["attributes"], facts.release
    levels = release.get("levels")
    how = {} if levels is None else dict(zip(levels.attribute, levels["released as"], strict=True))
    one_value = release.get("one_value", {})
    distinct = release.get("released_values", {})
    k = facts.privacy["k"]
    released, withheld = [], []
    for row in attributes.itertuples(index=False):
        name, role = row.attribute, row.role
        if role == "identifying":
            withheld.append(Column(name, role, "removed: it identifies a person directly"))
        elif role == "quasi" and name in one_value:
            withheld.append(Column(name, role, f"withheld: released as {one_value[name]} for every record, so it "
                                               "says nothing about anyone"))
        elif role == "quasi" and not release:
            withheld.append(Column(name, role, "not released: there is no release"))
        elif role == "quasi":
            what = how.get(name) or (f"generalized record by record (local recoding): {fmt(distinct.get(name))} "
                                     "distinct released values")
            released.append(Column(name, role, "released with its original values" if what == "the original value"
                                   else f"generalized so that every group of look-alike rows holds at least {k} "
                                        f"records: {what}" if k > 1 else f"generalized: {what}"))
        elif role == "sensitive":
            released.append(Column(name, role, "released as it is: what must not be learned about a person"
                                   + (", protected by the privacy models below" if facts.privacy["models"] else "")))
        elif role == "target":
            released.append(Column(name, role, "released as it is: the outcome an analysis would predict"))
        else:
            released.append(Column(name, role, "released as it is"))
    return tuple(released), tuple(withheld)


def _guarantee(facts: Any) -> tuple[tuple[Promise, ...], str | None]:
    p, r = facts.privacy, facts.release
    holds = r["guarantee"]["holds"] if r else None
    kind = r["guarantee"]["kind"] if r else "k-anonymity"
    qis = [a for a, role in zip(facts.dataset["attributes"].attribute, facts.dataset["attributes"].role,
                                strict=True) if role == "quasi"]
    known = ", ".join(qis)
    k = p["k"]
    if guarantee_text(kind).k_anonymous and k == 1:
        words = (f"k = 1 asks nothing of the groups: someone who knows a person's {known} may find their released "
                 "row the only one that matches; whatever protection there is comes from the generalization and the "
                 "other models")
    elif guarantee_text(kind).k_anonymous:
        words = (f"someone who knows a person's {known} and that the person is in the data finds at least {k} "
                 "released rows that match, and cannot tell which one is theirs")
    else:
        words = guarantee_text(kind).meaning.replace("at least k", f"at least {k}")
    promises = [Promise(f"{kind}, k = {k}", words, holds)]
    if p["engine"] == "lattice":
        limit = (f"at most {fmt(p['limit'])} of the {fmt(p['records'])} records ({percent(p['max_suppression'])}) "
                 "may be suppressed, that is released with * in every quasi-identifier")
        suppressed = r["guarantee"]["suppressed"] if r else None
        promises.append(Promise("suppression limit", limit + (f"; {fmt(suppressed)} are" if r else ""),
                                None if not r else suppressed <= p["limit"]))
    for m in p["models"]:
        promises.append(Promise(m["description"], m["in_words"], m["holds"] if r else None))
    note = None
    if r and not guarantee_text(kind).k_anonymous:
        note = f"This guarantee is weaker than k-anonymity: {guarantee_text(kind).meaning}."
    return tuple(promises), note


RISK_FIGURES = ("highest risk of any record", "average risk over the records", "records at risk",
                "records alone in their group")
"""The risk figures the first page states, named as the risk section's rows begin."""


def _risk(facts: Any) -> tuple[tuple[RiskRow, ...], str]:
    risk = facts.risk
    before, after = risk["before"], risk["after"]

    def values(r: dict[str, Any] | None) -> list[str]:
        if r is None:
            return ["-"] * len(RISK_FIGURES)
        pro = r["prosecutor"]
        at_risk = f"{fmt(pro['records_at_risk_count'])} ({percent(pro['records_at_risk'])})"
        return [percent(pro["highest"]), percent(pro["average"]), at_risk, percent(r["sample_uniques"])]

    rows = tuple(RiskRow(f, b, a) for f, b, a in zip(RISK_FIGURES, values(before), values(after), strict=True))
    threshold = risk["threshold"]
    smallest = round(1 / threshold)
    at_risk = (f"A record is at risk when the chance of picking out its row exceeds {percent(threshold)}, that is in a "
               f"group of fewer than {smallest} identical rows")
    if after is None:
        return rows, (f"{at_risk}: {fmt(before['prosecutor']['records_at_risk_count'])} of {fmt(before['records'])} "
                      "records in the input; there is no release.")
    was, now = before["prosecutor"], after["prosecutor"]
    line = (f"{at_risk}: {fmt(was['records_at_risk_count'])} of {fmt(before['records'])} records in the input, "
            f"{fmt(now['records_at_risk_count'])} in the release. The highest chance of picking out a person's row "
            f"goes from {percent(was['highest'])} to {percent(now['highest'])}.")
    k = facts.privacy["k"]
    if now["records_at_risk_count"] and k < smallest:
        line += (f" The rule asks for groups of at least {k}, so groups of {k} to {smallest - 1} records meet it and "
                 "still count as at risk here.")
    return rows, line


def _cost(facts: Any) -> tuple[str | None, float | None, str]:
    costs, p = facts.costs, facts.privacy
    if costs.empty or p["objective"] not in set(costs.id):
        return None, None, "There is no release to measure." if costs.empty else \
            f"The objective {p['objective_name']} could not be measured on the release."
    row = costs[costs.id == p["objective"]].iloc[0]
    value, normalized = float(row["value"]), row["normalized"]
    scale = ""
    if normalized is not None and not (isinstance(normalized, float) and math.isnan(normalized)):
        scale = (f" ({fmt(float(normalized))} on a scale from 0 to 1, where "
                 + ("1 keeps everything" if row["direction"] == "higher is better" else "0 loses nothing") + ")")
    release = facts.release
    withheld = len(release.get("one_value", {}))
    qis = len(release.get("released_values", {}))
    extra = (f" Besides, {withheld} of the {qis} quasi-identifiers are withheld entirely"
             if withheld else "") + (f"{' and' if withheld else ' Besides,'} {release['suppressed_note']} are "
                                     "suppressed" if release.get("suppressed") else "")
    line = (f"{row['measure']}, what the search minimized: {fmt(value)}{scale}. {row['what it means']}"
            + (f"{extra}." if extra else ""))
    return str(row["id"]), value, line


def _warnings(facts: Any, findings: Sequence[AttackFinding]) -> tuple[Warning, ...]:
    out = [Warning(f.warning, f"{f.meaning[0].upper()}{f.meaning[1:]}.", f.remedy) for f in findings if f.matters]
    release = facts.release
    for w in release.get("gives_back", []) if release else []:
        out.append(Warning("A released column gives a quasi-identifier back", w,
                           "remove that column from the release, or make it a quasi-identifier"))
    if release and release.get("suppressed_warning"):
        out.append(Warning("Many records are suppressed", release["suppressed_warning"],
                           "lower the suppression limit or choose a larger generalization"))
    return tuple(out)


def _by_reason(findings: Sequence[AttackFinding]) -> dict[str, list[str]]:
    """The attacks not checked, grouped by the reason each gives."""
    out: dict[str, list[str]] = {}
    for f in findings:
        if not f.checked:
            out.setdefault(f.result.removeprefix("not checked: "), []).append(f.attack)
    return out


def summarize(facts: Any) -> Summary:
    """The first page from the report's ``Facts`` (``facts.gather`` or ``facts.gather_summary``)."""
    released, withheld = _columns(facts)
    promises, note = _guarantee(facts)
    risk_rows, risk_line = _risk(facts)
    measure, value, cost_line = _cost(facts)
    release, attacks = facts.release, facts.attacks
    findings: tuple[AttackFinding, ...] = tuple(attacks.get("findings", ()))
    if release:  # earlier releases of the same data in the register, joined with this one (docs/register.md)
        from workbench.report.register_section import register_findings

        findings += tuple(register_findings(getattr(facts, "register", None) or {}))
    error = attacks.get("error")
    checked = sum(f.checked for f in findings)
    if not release:
        attacks_line = "There is no release to attack."
    elif error:
        attacks_line = f"The attacks were not checked: {error}"
    else:
        harmful = sum(f.matters for f in findings)
        attacks_line = (("All " if checked == len(findings) else f"{checked} of the ") + f"{len(findings)} attacks "
                        "were checked; "
                        + (f"{harmful} of them single{'s' if harmful == 1 else ''} people out (warnings below)."
                           if harmful else "none singles anyone out.")
                        + "".join(f" Not checked: {', '.join(names)}: {reason}." for reason, names in
                                  _by_reason(findings).items()))
    records = facts.dataset["records"]
    suppressed = release["suppressed"] if release else None
    if release and not release["suppressed"]:
        suppressed_line = "No record is suppressed."
    elif release:
        suppressed_line = (f"{release['suppressed_note']} are suppressed: "
                           + ("released with * in every quasi-identifier." if release["policy"] == "mark"
                              else "left out of the file."))
    else:
        suppressed_line = "No release meets the privacy model with this configuration."
    failures = facts.result.guarantee.failures() if release else []
    recommendation = recommend(release["guarantee"]["holds"] if release else None, failures, findings,
                               release.get("gives_back", []) if release else [], error)
    return Summary(
        source=facts.dataset["source"], records=records, released=released, withheld=withheld,
        suppressed=suppressed, suppressed_line=suppressed_line, guarantee=promises, guarantee_note=note,
        risk=risk_rows, risk_line=risk_line, cost_measure=measure, cost_value=value, cost_line=cost_line,
        attacks=findings, attacks_line=attacks_line, warnings=_warnings(facts, findings),
        recommendation=recommendation)
